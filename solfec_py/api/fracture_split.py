"""Fragments of a body during a run (layer 7), for SIMPLIFIED_CRACK and RT_SPLIT: the
after-step crack check, new FINITE_ELEMENT bodies made of the parts of a split mesh with
the parent's nodal state, constraints handed to the part on their side, the parent
removed. Reference: Solfec-1.0 cra.c (Propagate_Cracks, remap_constraints), bod.c
(BODY_Split, BODY_Split_Mesh), fem.c (FEM_Split, FEM_Map_State).
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C, validate as V
from solfec_py.bodies import fe_crack
from solfec_py.errors import SimulationError
from solfec_py.geometry.convex import tolerance
from solfec_py.geometry.mesh import Mesh, face_keys, match_rows
from solfec_py.geometry.mesh_split import faces_by_nodes, outward_normals, split_along_faces
from solfec_py.geometry.plane_cut import side_of, split_convexes, split_mesh


def reference_copy(mesh: Mesh) -> Mesh:
    """A copy of a body's mesh in its reference configuration (splits happen there)."""
    m = mesh.copy()
    m.cur = m.ref.copy()
    return m


def node_map(parent: Mesh, part: Mesh) -> np.ndarray:
    """For every node of `part`, the parent node at the same referential point (-1: none,
    a node the split created)."""
    keys = {x.tobytes(): k for k, x in enumerate(parent.ref)}
    return np.array([keys.get(x.tobytes(), -1) for x in part.ref], dtype=np.int64)


# ---------------------------------------------------------------------- crack check

def propagate(domain) -> None:
    """After a step: every body with cracks is checked (the latest declared crack first) and
    splits along the first crack whose normal stress exceeds ft at one of its points."""
    watched = [b for b in domain.__dict__.get("crack_bodies", ()) if not b.deleted]
    domain.crack_bodies = watched
    prb = [b for b in watched if b.kind == "PSEUDO_RIGID" and b.__dict__.get("_cracks")]
    if prb:
        _propagate_prb(prb)
    bodies = [b for b in watched if b.kind == "FINITE_ELEMENT" and b.__dict__.get("_cracks") and not b.deleted]
    if not bodies:
        return
    block = bodies[0].block
    lay = block.prepared()
    cache = domain.__dict__.get("crack_cache")
    if cache is None or cache[0] is not lay or cache[1] != [id(b) for b in bodies]:
        rows, X, elem, nrm, ft, owner = [], [], [], [], [], []
        for b in bodies:
            for c in b._cracks:
                k = c.elems.size
                rows.append(np.full(k, b.row, dtype=np.int64))
                X.append(c.points)
                elem.append(fe_crack.object_index(block, b.row, c.elems))
                nrm.append(np.tile(c.normal, (k, 1)))
                ft.append(np.full(k, c.ft))
                owner.append(np.full(k, len(owner), dtype=np.int64))
        cracks = [(b, c) for b in bodies for c in b._cracks]
        cache = (lay, [id(b) for b in bodies], np.concatenate(rows), np.concatenate(X), np.concatenate(elem),
                 np.concatenate(nrm), np.concatenate(ft), np.concatenate(owner), cracks)
        domain.crack_cache = cache
    _, _, rows, X, elem, nrm, ft, owner, cracks = cache
    over = normal_tension_of(block, rows, X, elem, nrm) > ft
    if not over.any():
        return
    done = set()
    for k in np.unique(owner[over]).tolist():        # owners in list order: first crack of each body
        body, crack = cracks[k]
        if id(body) in done:
            continue
        done.add(id(body))
        split_by_crack(body, crack)
    domain.__dict__.pop("crack_cache", None)


def _propagate_prb(bodies) -> None:
    """Pseudo-rigid bodies: one homogeneous stress per body against each of its cracks."""
    from solfec_py.api import fracture_prb as P

    block = bodies[0].block
    pairs = [(b, c) for b in bodies for c in b._cracks]
    t = P.tensions(block, [b.row for b, _ in pairs], [c.normal for _, c in pairs])
    done = set()
    for (body, crack), value in zip(pairs, t.tolist()):
        if value > crack.ft and id(body) not in done and not body.deleted:
            done.add(id(body))
            parts = P.split(body, crack) if P.cuttable(body) else None
            if parts is None or (len(parts) < 2 and not crack.topoadj):
                raise SimulationError(f"Body {body.id} cracked (normal stress {value:g} above ft = {crack.ft:g}),"
                                      " but splitting its shape failed; adjust GEOMETRIC_EPSILON or shift the"
                                      " crack plane slightly")
            labels = [f"{body.label}/{k + 1}" if body.label else None for k in range(len(parts))]
            energy = body.block.energies()[body.row].copy()
            new = P.fragment_bodies(body, parts, labels)
            share_energy(energy, new)
            rest = [c for c in body._cracks if c is not crack]
            for b, (q, _) in zip(new, parts):
                mine = [c for c in rest if P.crosses(q, c.point, c.normal)]
                if mine:
                    b._cracks = mine
                    b.block.domain.crack_bodies.append(b)
            hand_over(body, new, [np.concatenate([m.ref for m in q]) for q, _ in parts])
            body.block.domain.delete(body)


def normal_tension_of(block, rows, X, elem, nrm) -> np.ndarray:
    return fe_crack.normal_tension(block, rows, X, elem, nrm)


def split_by_crack(body, crack) -> list:
    """Split `body` along `crack`; the parts replace it. Returns the new bodies. A body
    carried by a background mesh has its CONVEX shape and its mesh split (Solfec's
    FEM_Split); each shape part goes with the mesh part that holds most of it."""
    from solfec_py.api.fracture_prb import reference_members, touching

    mesh = body.block.records[body.row].mesh
    m = reference_copy(mesh)
    eps = tolerance(m.ref.min(axis=0), m.ref.max(axis=0))
    parts = split_mesh(m, crack.point, crack.normal, crack.surfid, crack.topoadj, True, eps)
    side = lambda X: -side_of(X, crack.point, crack.normal)        # noqa: E731 - behind the plane first
    background = getattr(body, "_background", None) is not None
    if background:                              # the mesh parts are the fragments (Solfec's FEM_Split)
        members = reference_members(body)
        adj = body.__dict__.get("_convex_adj")
        groups = split_convexes(members, crack.point, crack.normal, crack.surfid, crack.topoadj,
                                tolerance(*_box(np.concatenate([c.ref for c in members]))),
                                touching(members) if adj is None else adj, with_adjacency=True)
        pieces, pairs = [], []
        for q, a in groups:                     # every piece, and adjacent pairs in piece numbers
            pairs.append(a + len(pieces))
            pieces += q
        pairs = np.concatenate(pairs)
        parts = sorted(parts, key=lambda q: side(q.ref))
        owner = _holders(pieces, parts)
        fragments, adjacency = [], []
        for k, q in enumerate(parts):
            mine = np.flatnonzero(owner == k)
            if mine.size:
                local = np.full(len(pieces), -1, dtype=np.int64)
                local[mine] = np.arange(mine.size)
                both = (local[pairs[:, 0]] >= 0) & (local[pairs[:, 1]] >= 0)
                fragments.append(([pieces[i] for i in mine], q))
                adjacency.append(local[pairs[both]])
    else:
        fragments = [([q], None) for q in sorted(parts, key=lambda q: side(q.ref))]
    if len(fragments) == 1 and not crack.topoadj:
        raise SimulationError(f"Body {body.id} cracked (normal stress above ft = {crack.ft:g} on the plane through"
                              f" {tuple(crack.point.tolist())}), but splitting its mesh failed; adjust"
                              " GEOMETRIC_EPSILON or shift the crack plane slightly")
    base = body.label
    labels = [f"{base}/{k + 1}" if base else None for k in range(len(fragments))]
    energy = body.block.energies()[body.row].copy()
    new = fragment_bodies(body, fragments, labels)
    if background:
        for b, a in zip(new, adjacency):
            b._convex_adj = a
    share_energy(energy, new)
    if len(new) == 1:
        new[0].selfcontact = "ON"               # a crack inside the body: its faces may touch
    rest = [c for c in body._cracks if c is not crack]
    meshes = [b.block.records[b.row].mesh for b in new]
    for b, q in zip(new, meshes):
        mine = [pc for pc in (c.placed(q) for c in rest) if pc is not None]
        if mine:
            b._cracks = mine
            b.block.domain.crack_bodies.append(b)
    hand_over(body, new, [q.ref for q in meshes])
    body.block.domain.delete(body)
    return new


def _box(X: np.ndarray):
    return X.min(axis=0), X.max(axis=0)


def _holders(pieces: list, parts: list) -> np.ndarray:
    """For every convex piece, the mesh part with the element centroid nearest its centroid."""
    centres = [q.centroids("ref") for q in parts]
    out = np.empty(len(pieces), dtype=np.int64)
    for i, c in enumerate(pieces):
        x = c.ref.mean(axis=0)
        out[i] = int(np.argmin([np.min(np.linalg.norm(e - x, axis=1)) for e in centres]))
    return out


def share_energy(energy: np.ndarray, new: list) -> None:
    """The parent's energy slots (kinetic, works, internal) go to the fragments in
    proportion to their volumes (Solfec-1.0 BODY_Split)."""
    volumes = np.array([b.block.volume[b.row] for b in new])
    for b, share in zip(new, volumes / volumes.sum()):
        b.block.energy[b.row] = share * energy


def hand_over(body, new: list, points: list) -> None:
    """Constraints (not contacts: detection finds them again) of `body` go to the fragment
    with the referential point (of `points`, one array per fragment) nearest theirs."""
    cset = body.block.domain.constraints
    if not isinstance(cset, C.ConstraintSet):
        return
    for h in list(C.body_list(body)):
        row = h.row
        if row is None or cset.kind[row] == C.CONTACT:
            continue
        for side in (0, 1):
            if cset.bodies[row][side] is body:
                X = cset.mpnt[row] if side == 0 else cset.spnt[row]
                near = [np.min(np.linalg.norm(q - X, axis=1)) for q in points]
                cset.transfer(row, side, new[int(np.argmin(near))])


# ---------------------------------------------------------------------- new bodies

def fragment_bodies(parent, fragments: list, labels: list) -> list:
    """New FINITE_ELEMENT bodies of `fragments`, (shape primitives, background mesh or
    None) in the parent's reference frame, with the parent's material, formulation,
    scheme, damping and flags, and its displacements and velocities at their nodes (a node
    at a parent node's referential point takes its values, others are interpolated in the
    parent's element around them)."""
    from solfec_py.api.body import BODY
    from solfec_py.api.shapes import CONVEX, MESH

    block = parent.block
    if block.form[parent.row] >= 2:
        raise SimulationError(f"Body {parent.id}: splitting a reduced-order (BC-MODAL, BC-RO) body is not"
                              " available (Solfec-1.0 neither)")
    domain = block.domain
    form = parent._form if parent._form is not None else V.MISSING
    new = []
    for (prims, background), label in zip(fragments, labels):
        kw = {} if label is None else {"label": label}
        if background is None:
            shape = MESH._wrap(prims)
        else:
            shape, kw["mesh"] = CONVEX._wrap(prims), MESH._wrap([background])
        b = BODY(domain.owner, "FINITE_ELEMENT", shape, parent._material_object, form=form, **kw)
        if b.scheme != parent.scheme:
            b.scheme = parent.scheme
        if parent.damping:
            b.damping = parent.damping
        b._flags = dict(parent._flags)
        new.append(b)
    X0 = block.X[block.nodes_of(parent.row)]
    keys = {x.tobytes(): k for k, x in enumerate(X0)}
    states = []
    for b in new:                               # the parent's row and state are still there
        X = b.block.X[b.block.nodes_of(b.row)].copy()
        states.append(fe_crack.mapped_state(block, parent.row, X, np.array([keys.get(x.tobytes(), -1) for x in X])))
    for b, (dq, du) in zip(new, states):
        fe_crack.set_state(b.block, b.row, dq, du)
    return new


def replace_body(old, new) -> None:
    """`old` is deleted and the Python object `old` takes the place of `new` in the model
    (RT_SPLIT re-points its argument to the first fragment)."""
    domain = new.block.domain
    domain.delete(old)
    old.__dict__, new.__dict__ = new.__dict__, old.__dict__
    domain.bodies[domain.bodies.index(new)] = old
    domain.by_id[old.id] = old
    if old.label and domain.labels.get(old.label) is new:
        domain.labels[old.label] = old
    old.block.bodies[old.row] = old
    for h in C.body_list(old):
        row = h.row
        if row is not None:
            pair = tuple(old if b is new else b for b in domain.constraints.bodies[row])
            domain.constraints.bodies[row] = pair


def faces_split(mesh: Mesh, faces: np.ndarray, sid1: int, sid2: int):
    """(parts, node lists) of a mesh split along the listed inner faces in its reference
    configuration; the part on the side a listed face's counter-clockwise normal points
    away from (body1's side, faces with sid1) first. (None, None) when nothing splits."""
    m = reference_copy(mesh)
    cut = faces_by_nodes(m, faces)
    if not cut.any():
        return None, None
    t = m.topology
    entries = np.flatnonzero(cut)
    listed = faces[match_rows(t.keys[entries], face_keys(faces))]
    a, b, c = m.ref[listed[:, 0]], m.ref[listed[:, 1]], m.ref[listed[:, 2]]
    along = np.einsum("fi,fi->f", np.cross(b - a, c - a), outward_normals(m, entries, "ref")) > 0
    sids = np.zeros(t.elem.size, dtype=np.int64)
    sids[entries] = np.where(along, sid1, sid2)
    parts = split_along_faces(m, cut, sids)
    if parts is None:
        return None, None
    if len(parts) == 2 and along.any():
        e = int(t.elem[entries[np.flatnonzero(along)[0]]])
        centre = m.ref[m.conn[e, : m.etype[e]]].mean(axis=0)
        has = [np.any(np.all(np.abs(q.centroids("ref") - centre) <= 1e-12 * (1 + np.abs(centre)), axis=1))
               for q in parts]
        if has[1] and not has[0]:
            parts = parts[::-1]
    return parts, [node_map(mesh, q) for q in parts]
