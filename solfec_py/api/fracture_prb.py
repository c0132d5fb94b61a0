"""Cracks of PSEUDO_RIGID bodies (layer 7): the homogeneous stress against ft, the shape
(CONVEX members or one MESH) cut by the plane in its reference configuration, and the
fragments with the parent's motion x = xc + F (X - X0). Reference: Solfec-1.0 cra.c
(prb_crack), bod.c (BODY_Split, overwrite_state), docs/fem.md (fracture).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.pseudo_rigid import CENTER, GRADIENT, GRADVEL, LINEAR
from solfec_py.geometry.convex import Convex, tolerance
from solfec_py.geometry.mesh import Mesh
from solfec_py.geometry.plane_cut import side_of, split_convexes, split_mesh


def reference_members(body) -> list:
    """Copies of the body's shape primitives placed in the reference configuration."""
    out = []
    for p in body.shape:
        q = p.copy()
        q.cur = q.ref.copy()
        out.append(q)
    return out


def _points(members) -> np.ndarray:
    """Referential vertices of the members (bounding-box corners of spheres, ellipsoids)."""
    out = []
    for m in members:
        if hasattr(m, "ref"):
            out.append(m.ref)
        else:
            lo, hi = m.bounding_box()
            out.append(np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]))
    return np.concatenate(out)


def crosses(members, point, normal) -> bool:
    """Whether the plane has points of the (CONVEX, MESH, ...) members strictly on both
    sides: it cuts a member or runs between members."""
    X = _points(members)
    eps = tolerance(X.min(axis=0), X.max(axis=0))
    d = (X - point) @ normal
    return bool(d.min() < -eps and d.max() > eps)


def touching(members: list) -> np.ndarray:
    """(k, 2) pairs of CONVEX members closer than GEOMETRIC_EPSILON (Solfec's convex
    adjacency, CONVEX_Compute_Adjacency: fragments are the groups of touching pieces)."""
    from solfec_py import session
    from solfec_py.contact.gjk import gjk

    eps = session.geometric_epsilon()
    lo = np.array([m.ref.min(axis=0) for m in members]) - eps
    hi = np.array([m.ref.max(axis=0) for m in members]) + eps
    pairs = []
    for a in range(len(members)):
        near = np.flatnonzero(np.all((lo[a + 1:] <= hi[a]) & (hi[a + 1:] >= lo[a]), axis=1)) + a + 1
        for b in near.tolist():
            if gjk(np.ascontiguousarray(members[a].ref), np.ascontiguousarray(members[b].ref))[2] < eps:
                pairs.append((a, b))
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def cuttable(body) -> bool:
    return all(isinstance(p, (Convex, Mesh)) for p in body.shape) and (
        all(isinstance(p, Convex) for p in body.shape) or len(body.shape) == 1)


def tensions(block, rows, normals) -> np.ndarray:
    """n . sigma n of the bodies' homogeneous stresses."""
    s = block.stresses(np.asarray(rows, dtype=np.int64), np.zeros((len(rows), 3)))
    n = np.asarray(normals, dtype=float).reshape(-1, 3)
    return (s[:, 0] * n[:, 0] ** 2 + s[:, 1] * n[:, 1] ** 2 + s[:, 2] * n[:, 2] ** 2
            + 2.0 * (s[:, 3] * n[:, 0] * n[:, 1] + s[:, 4] * n[:, 0] * n[:, 2] + s[:, 5] * n[:, 1] * n[:, 2]))


def split(body, crack) -> list:
    """The fragments (primitives, adjacent member pairs or None), the part behind the plane
    first, of the body's reference shape cut by the crack plane. CONVEX members keep the
    adjacency they had (touching at creation, Solfec's CONVEX_Compute_Adjacency, minus what
    earlier cracks separated), so pieces that touch across an old crack stay apart."""
    members = reference_members(body)
    X = _points(members)
    eps = tolerance(X.min(axis=0), X.max(axis=0))
    if isinstance(members[0], Mesh):
        parts = [([m], None) for m in split_mesh(members[0], crack.point, crack.normal, crack.surfid, crack.topoadj,
                                                 True, eps)]
    else:
        adj = body.__dict__.get("_convex_adj")
        parts = split_convexes(members, crack.point, crack.normal, crack.surfid, crack.topoadj, eps,
                               touching(members) if adj is None else adj, with_adjacency=True)
    return sorted(parts, key=lambda q: -side_of(_points(q[0]), crack.point, crack.normal))


def fragment_bodies(parent, parts: list, labels: list) -> list:
    """New PSEUDO_RIGID bodies of `parts` ((primitives, member adjacency) pairs) moving with the parent: the same F and dF/dt,
    centres and centre velocities at x = xc + F (X0' - X0), v = vc + dF/dt (X0' - X0) of
    their reference centres X0' (Solfec-1.0 shifts the centres by xc - X0 and copies vc,
    which loses the rotation's share)."""
    from solfec_py.api.body import BODY
    from solfec_py.api.shapes import CONVEX, MESH

    block = parent.block
    row = parent.row
    F = block.conf[row, GRADIENT].reshape(3, 3).copy()
    dF = block.velo[row, GRADVEL].reshape(3, 3).copy()
    xc, vc, X0 = block.conf[row, CENTER].copy(), block.velo[row, LINEAR].copy(), block.center[row].copy()
    conf, velo = block.conf[row].copy(), block.velo[row].copy()
    new = []
    for (part, adj), label in zip(parts, labels):
        kw = {} if label is None else {"label": label}
        shape = MESH._wrap(part) if isinstance(part[0], Mesh) else CONVEX._wrap(part)
        b = BODY(block.domain.owner, "PSEUDO_RIGID", shape, parent._material_object, **kw)
        if b.scheme != parent.scheme:
            b.scheme = parent.scheme
        if parent.damping:
            b.damping = parent.damping
        b._flags = dict(parent._flags)
        if adj is not None:
            b._convex_adj = adj
        c = b.block.center[b.row] - X0
        b.block.conf[b.row], b.block.velo[b.row] = conf, velo
        b.block.conf[b.row, CENTER] = xc + F @ c
        b.block.velo[b.row, LINEAR] = vc + dF @ c
        b.block.state_changed(np.array([b.row]))
        new.append(b)
    return new
