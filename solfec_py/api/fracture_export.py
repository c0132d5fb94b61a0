"""Fracture data for Yaffems (layer 7): the `fracturecheck` energy criterion of FE bodies
recorded after every step of a WRITE run (displacements and the point forces of the body's
constraints) and FRACTURE_EXPORT_YAFFEMS, the legacy VTK file Solfec writes from those
records in READ mode. Reference: Solfec-1.0 fra.c (Fracture_Check, fracture_state_write,
Fracture_Export_Yaffems), lng.c (lng_FRACTURE_EXPORT_YAFFEMS), docs/fem.md (fracture).
"""
from __future__ import annotations

import json
import math
import os

import numpy as np

from solfec_py import constraints as C, session, validate as V
from solfec_py.api.common import require_body
from solfec_py.bodies import fe_crack
from solfec_py.errors import InputError, NotAvailableError
from solfec_py.geometry.mesh_import import signed_volumes

RECORDS = "fracture.jsonl"          # one JSON object per body and step the criterion held


def records_path(outpath: str) -> str:
    return os.path.join(outpath, RECORDS)


def after_step_hooks(solfec) -> list:
    """What RUN does after each step for fracture, in Solfec's order: the fracturecheck
    records, then the cracks (SIMPLIFIED_CRACK). A fresh WRITE run drops old records."""
    domain = solfec.domain
    hooks = []
    if domain.parallel is not None:
        if domain.__dict__.get("crack_hooks"):
            raise NotAvailableError("SIMPLIFIED_CRACK in a run on several processes is not available in solfec-py"
                                    " yet; run the deck on one process")
        return hooks
    checked = [b for b in domain.bodies if b.kind == "FINITE_ELEMENT" and b.__dict__.get("_flags", {}).get(
        "fracturecheck")]
    if checked and solfec.mode == "WRITE":
        path = records_path(solfec.outpath)
        if solfec.runs <= 1 and not solfec.continued and os.path.exists(path):
            os.remove(path)
        hooks.append(lambda dom: check(dom, path))
    return hooks + list(domain.__dict__.get("crack_hooks", ()))


def check(domain, path: str) -> None:
    """Record every fracturecheck body whose internal energy reaches the sum of its
    elements' fracene x volume (fracene of their bulk materials)."""
    lines = []
    for body in domain.bodies:
        if body.kind != "FINITE_ELEMENT" or not body._flags.get("fracturecheck"):
            continue
        blk, row = body.block, body.row
        internal = float(blk.energies()[row, 4])
        rec = blk.records[row]
        fracene = np.array([m.fracene for m in rec.materials])[rec.matid]
        if not np.isfinite(fracene).all():
            continue
        mesh = rec.mesh
        volumes = signed_volumes(mesh.ref, mesh.etype[rec.order], mesh.conn[rec.order])
        if internal < float(fracene @ volumes):
            continue
        lines.append(json.dumps({"time": domain.time, "id": body.id, "disp": blk.q[blk.nodes_of(row)].ravel().tolist(),
                                 "forces": _point_forces(domain, body)}))
    if lines:
        with open(path, "a", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def _point_forces(domain, body) -> list:
    """(radius sqrt(area / pi), referential point on the body, reaction in the global
    frame) of each constraint of the body."""
    cset = domain.constraints
    out = []
    if not isinstance(cset, C.ConstraintSet):
        return out
    for h in C.body_list(body):
        k = h.row
        if k is None:
            continue
        point = cset.mpnt[k] if cset.bodies[k][0] is body else cset.spnt[k]
        R = cset.base[k] @ cset.R[k]
        out.append([math.sqrt(max(float(cset.area[k]), 0.0) / math.pi), *point.tolist(), *R.tolist()])
    return out


def instances(outpath: str, body_id: int) -> list:
    """The records of one body, the latest first (Solfec's list order)."""
    path = records_path(outpath)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        found = [r for r in map(json.loads, filter(str.strip, f)) if r["id"] == body_id]
    return found[::-1]


@V.command
def FRACTURE_EXPORT_YAFFEMS(body, path, volume=V.MISSING, quality=1.3):
    """Export fracture-analysis data of a body for Yaffems (a legacy VTK file).

    ``FRACTURE_EXPORT_YAFFEMS(body, path | volume, quality)`` writes ``path + '.vtk'`` and
    returns the number of exported instances. During a WRITE run a body with
    ``fracturecheck = 'ON'`` is recorded after every step in which its internal energy
    reaches the sum of its elements' ``fracene`` x volume (its nodal displacements and
    the point forces of its constraints: radius sqrt(area / pi), point, reaction). In READ
    mode this command meshes the body's reference shape with tetrahedra (``volume``,
    ``quality``, as TETRAHEDRALIZE), and writes the mesh with its boundary triangles, one
    displacement field per record (``disp1``, ``disp2``, ..., the latest record first)
    interpolated from the body's mesh, and one face-pressure field per record (``pres0``,
    ...: each point force divided by the current area of the boundary triangles near the
    point). In WRITE mode the file is created empty and 0 is returned, as in Solfec-1.0.

    Parameters
    ----------
    body : BODY
        A FINITE_ELEMENT body with ``fracturecheck = 'ON'``.
    path : str
        The file name without its ``.vtk`` extension.
    volume : float, optional
        Largest tetrahedron volume [volume] of the export mesh (>= 0; default unbounded).
    quality : float, optional
        Tetrahedron radius-edge quality bound (> 1; default 1.3).

    Returns
    -------
    int

    Raises
    ------
    InputTypeError, InputError
        Malformed arguments; a body without fracturecheck; a file that cannot be created.

    Examples
    --------
    >>> n = FRACTURE_EXPORT_YAFFEMS(b, 'out/fratest/fra_' + b.label, 0.5)
    """
    body = require_body("body", body)
    text = V.string("path", path)
    vol = V.nonnegative("volume", volume) if V.given(volume) else math.inf
    q = V.number("quality", quality)
    if not q > 1.0:
        raise InputError(f"'quality' must be > 1, got {q!r}")
    if body.kind != "FINITE_ELEMENT" or body.fracturecheck != "ON":
        raise InputError(f"Not a FEM body with fracturecheck enabled! ('body' is a {body.kind} body with"
                         f" fracturecheck {body.fracturecheck})")
    try:
        out = open(text + ".vtk", "w", encoding="ascii")
    except OSError as exc:
        raise InputError(f"Failed to create the output file! ('path' {text!r}: {exc.strerror})") from None
    with out:
        solfec = body.block.domain.owner
        if solfec.mode != "READ":
            return 0
        found = instances(solfec.outpath, body.id)
        if not found:
            return 0
        out.write(yaffems_text(body, found, None if math.isinf(vol) else vol, q))
    return len(found)


def yaffems_text(body, found: list, volume, quality) -> str:
    """The VTK text of Solfec's Fracture_Export_Yaffems for the records `found`."""
    from solfec_py.geometry.tetrahedralize import fill

    blk, row = body.block, body.row
    mesh = blk.records[row].mesh.copy()
    mesh.cur = mesh.ref.copy()
    points, tri, sids = mesh.surface_triangles()
    tet = fill(points, tri, sids, 0, volume, quality, command="FRACTURE_EXPORT_YAFFEMS")
    X = tet.ref
    surf = tet.surface_elements()
    order = np.concatenate([surf, np.setdiff1d(np.arange(tet.nele), surf)])
    elems = tet.conn[order, :4]
    faces, _, _, owner = tet.boundary_faces()
    faces = faces[:, :3]
    n, ne, nf = X.shape[0], elems.shape[0], faces.shape[0]
    lines = ["# vtk DataFile Version 2.0", "Test Title", "ASCII", "", "DATASET UNSTRUCTURED_GRID",
             f"POINTS {n} float"]
    lines += [f"{x:f} {y:f} {z:f}" for x, y, z in X]
    lines += ["", f"CELLS {ne + nf} {ne * 5 + nf * 4}"]
    lines += ["4 %d %d %d %d" % tuple(e) for e in elems]
    lines += ["3 %d  %d  %d" % tuple(f) for f in faces]
    lines += ["", f"CELL_TYPES {ne + nf}"] + ["10"] * ne + ["5"] * nf
    lines += ["", f"POINT_DATA {n}"]
    disps = [fe_crack.interpolated(blk, row, np.asarray(r["disp"], float).reshape(-1, 3), X) for r in found]
    for m, d in enumerate(disps):
        lines += ["", f"VECTORS disp{m + 1} float"] + [f"{a:f} {b:f} {c:f}" for a, b, c in d]
    lines += ["", f"CELL_DATA {ne + nf}"]
    lo = np.array([X[tet.conn[e, :4]].min(axis=0) for e in owner])
    hi = np.array([X[tet.conn[e, :4]].max(axis=0) for e in owner])
    eps = session.geometric_epsilon()
    for m, (r, d) in enumerate(zip(found, disps)):
        x = X + d
        area = 0.5 * np.linalg.norm(np.cross(x[faces[:, 1]] - x[faces[:, 0]], x[faces[:, 2]] - x[faces[:, 0]]), axis=1)
        p = np.zeros((nf, 3))
        for radius, *rest in r["forces"]:
            c, F = np.array(rest[:3]), np.array(rest[3:])
            near = np.all((lo <= c + radius + eps) & (hi >= c - radius - eps), axis=1) & (area > 0.0)
            p[near] += F / area[near, None]
        lines += ["", f"VECTORS pres{m} float"] + ["0 0 0"] * ne + ["%g %g %g" % tuple(v) for v in p]
    return "\n".join(lines) + "\n"

