"""The model as an MBFCP problem file (MBFCP_EXPORT), section for section as Solfec-1.0 writes
it. Reference: Solfec-1.0 sol.c SOLFEC_2_MBFCP and the *_2_MBFCP writers of sps.c, mat.c,
dom.c, bod.c, shp.c, cvx.c, msh.c, sph.c and tms.c.

Layout: ``SURFACE_MATERIALS`` (pairs, ANY for an unspecified surface), ``BULK_MATERIALS``
(by label), ``GRAVITY`` (three constants or time series, when set), ``BODIES`` (newest
first: id, label, kind, material, shapes, velocity, forces) and ``CONSTRAINTS`` (newest
first, contacts left out). ``KEY:<tab>value`` lines, numbers as C's ``%g``. As Solfec does,
a CONVEX face lists the offsets of its vertices in the vertex array (3 x the vertex number)
and MESH element and face nodes are numbered from 0.
"""
from __future__ import annotations

from solfec_py import constraints as C
from solfec_py.bodies.loads import CONVECTED_FORCE, CONVECTED_TORQUE, SPATIAL_FORCE, SPATIAL_TORQUE
from solfec_py.errors import InputError
from solfec_py.geometry.convex import Convex
from solfec_py.geometry.mesh import Mesh
from solfec_py.geometry.sphere import Sphere
from solfec_py.materials import ANY_SURFACE
from solfec_py.timeseries import TimeSeries

LOAD_KINDS = {SPATIAL_FORCE: "SPATIAL", CONVECTED_FORCE: "CONVECTED", SPATIAL_TORQUE: "SPATIAL_TORQUE",
              CONVECTED_TORQUE: "CONVECTED_TORQUE"}


def g(*values) -> str:
    return "  ".join("%g" % float(v) for v in values)


def series(value) -> list[str]:
    """A constant or a time series (Solfec tms.c)."""
    if isinstance(value, TimeSeries) and value.times.size > 1:
        return [f"TIME_SERIES:\t{value.times.size}"] + [f"{t:g}\t{v:g}" for t, v in zip(value.times, value.values)]
    if isinstance(value, TimeSeries):
        value = value.values[0]
    return [f"CONSTANT:\t{float(value):g}"]


def surface_materials(table) -> list[str]:
    out = [f"SURFACE_MATERIALS:\t{len(table.entries)}"]
    for m in table.entries:
        out += [f"SURF1:\t{'ANY' if m.surf1 == ANY_SURFACE else m.surf1}",
                f"SURF2:\t{'ANY' if m.surf2 == ANY_SURFACE else m.surf2}", f"MODEL:\t{m.model}",
                f"FRICTION:\t{m.friction:g}", f"COHESION:\t{m.cohesion:g}"]
        out += ([f"SPRING:\t{m.spring:g}", f"DASHPOT:\t{m.dashpot:g}"] if m.model == "SPRING_DASHPOT"
                else [f"RESTITUTION:\t{m.restitution:g}"])
    return out + [""]


def bulk_materials(materials: dict) -> list[str]:
    out = [f"BULK_MATERIALS:\t{len(materials)}"]
    for label in sorted(materials):
        m = materials[label]
        model = "KIRCHHOFF" if m.model in ("KIRCHHOFF", "TSANG_MARSDEN") else m.model
        out += [f"LABEL:\t{label}", f"MODEL:\t{model}", f"YOUNG:\t{m.young:g}", f"POISSON:\t{m.poisson:g}",
                f"DENSITY:\t{m.density:g}"]
    return out + [""]


def shapes(body) -> list[str]:
    """The body's convexes as one CONVEXES group (Solfec glues a body's convexes into one
    shape), then its meshes and its spheres (shp.c)."""
    convexes, meshes, spheres = [], [], []
    for p in body.shape:
        if isinstance(p, Convex):
            convexes.append(p)
        elif isinstance(p, Mesh):
            meshes.append(p)
        elif isinstance(p, Sphere):
            spheres.append(p)
        else:
            raise InputError(f"MBFCP_EXPORT: body {body.id} has a {type(p).__name__} shape; the MBFCP format"
                             " holds convexes, meshes and spheres only (Solfec-1.0 writes no ellipsoids)")
    out = [f"SHAPES:\t{(1 if convexes else 0) + len(meshes) + len(spheres)}"]
    if convexes:
        out.append(f"CONVEXES:\t{len(convexes)}")
    for p in convexes:
        out += [f"VERTEXES:\t{p.ref.shape[0]}"] + [g(*v) for v in p.ref]
        out.append(f"FACES:\t{len(p.faces)}")
        out += ["  ".join([str(len(f))] + [str(3 * int(v)) for v in f] + [str(int(s))])
                for f, s in zip(p.faces, p.surfids)]
    if meshes:
        out.append(f"MESHES:\t{len(meshes)}")
        for m in meshes:
            out += mesh(m)
    if spheres:
        out.append(f"SPHERES:\t{len(spheres)}")
        for s in spheres:
            out += [f"CENTER:\t{g(*s.ref_center)}", f"RADIUS:\t{s.radius:g}", f"SURFID:\t{s.surfid}"]
    return out


def mesh(m) -> list[str]:
    out = [f"NODES:\t{m.ref.shape[0]}"] + [g(*x) for x in m.ref]
    out.append(f"ELEMENTS:\t{m.etype.size}")
    out += ["  ".join(str(int(v)) for v in [e, *conn[:e]]) for e, conn in zip(m.etype, m.conn)]
    nodes, sizes, sids, _ = m.boundary_faces()
    out.append(f"FACES:\t{sizes.size}")
    out += ["  ".join(str(int(v)) for v in [n, *f[:n], s]) for f, n, s in zip(nodes, sizes, sids)]
    return out


def body_lines(body, loads) -> list[str]:
    out = [f"ID:\t{body.id}", f"LABEL:\t{body.label or '(null)'}", f"KINEMATICS:\t{body.kind}",
           f"BULK_MATERIAL:\t{body.bulk_material.label}"]
    out += shapes(body)
    out.append("VELOCITY:" + "".join(f"  {v:g}" for v in body.u))
    mine = [] if loads is None else [i for i, b in enumerate(loads.bodies) if b is body and loads.kinds[i] in LOAD_KINDS]
    out.append(f"FORCES:\t{len(mine)}")
    for i in mine:
        out += [f"KIND:\t{LOAD_KINDS[loads.kinds[i]]}", f"POINT:\t{g(*loads.points[i])}",
                f"DIRECTION:\t{g(*loads.directions[i])}"] + series(loads.values[i])
    return out + [""]


def constraint_lines(cset) -> list[str]:
    rows = [r for r in range(cset.count - 1, -1, -1) if cset.kind[r] != C.CONTACT]
    out = [f"CONSTRAINTS:\t{len(rows)}", ""]
    for r in rows:
        kind, master = int(cset.kind[r]), int(cset.bid[r, 0])
        out.append(f"ID:\t{int(cset.id[r])}")
        if kind in (C.FIXPNT, C.FIXDIR, C.VELODIR, C.VELODIR3):
            out += [f"KIND:\t{C.KINDS[kind]}", f"BODY:\t{master}", f"POINT:\t{g(*cset.mpnt[r])}"]
            if kind != C.FIXPNT:
                out.append(f"DIRECTION:\t{g(*cset.base[r][:, 2])}")
            if kind in (C.VELODIR, C.VELODIR3):
                for s in cset.series[r]:
                    out += series(s)
        elif kind == C.RIGLNK:
            slave = int(cset.bid[r, 1])
            out += ["KIND:\tRIGLNK", f"BODY1:\t{master}", f"BODY2:\t{slave if slave > 0 else 'NONE'}",
                    f"POINT1:\t{g(*cset.mpnt[r])}", f"POINT2:\t{g(*cset.spnt[r])}"]
        out.append("")
    return out


def lines(domain) -> list[str]:
    out = surface_materials(domain.surface_materials) + bulk_materials(domain.bulk_materials)
    if any(isinstance(v, TimeSeries) or float(v) != 0.0 for v in domain.gravity):
        out.append("GRAVITY:")
        for v in domain.gravity:
            out += series(v)
        out.append("")
    bodies = [b for b in domain.bodies if not b.deleted]
    out += [f"BODIES:\t{len(bodies)}", ""]
    for b in reversed(bodies):
        out += body_lines(b, getattr(b.block, "loads", None))
    cset = domain.constraints
    out += constraint_lines(cset) if isinstance(cset, C.ConstraintSet) else ["CONSTRAINTS:\t0", ""]
    return out
