"""Surface meshes of bodies for visualisation (layer 6): every body's boundary as triangles
in the reference configuration, and the current points, displacements and velocities of a
set of bodies computed for all of them at once. Reference: Solfec-1.0 user manual, XDMF_EXPORT (Solfec's
XDMF export, the viewer's rendering of rigid shapes).

The reference surface of a body comes from its shape primitives' `surface_triangles()`
-> (points, triangles, surface ids); the surface ids go to ParaView as cell data. Rigid
bodies (and obstacles) move their reference points with x = xc + Λ (X − X0) and
v = vc + Λ (Ω × (X − X0)), vectorised over all points of all bodies; other kinds are asked
for the current places and velocities of their surface points (`cur_points`,
`point_velocities`), one call per block.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from solfec_py.errors import NotAvailableError
from solfec_py.geometry.ellip import Ellip
from solfec_py.geometry.sphere import Sphere, unit_sphere


def reference_triangles(body, coarse: bool = False, with_ids: bool = False) -> tuple:
    """(points (p, 3), triangles (t, 3)) of the body's reference surface (`coarse`: spheres
    and ellipsoids with 42 points instead of their own 162, for the live export of many
    bodies); `with_ids` adds the surface id of every triangle."""
    points, triangles, ids, offset = [], [], [], 0
    for prim in body.shape:
        ref = prim.copy()
        ref.set_rigid_motion(np.eye(3), np.zeros(3), np.zeros(3))   # current := reference
        if coarse and isinstance(ref, (Sphere, Ellip)):             # the unit icosphere, scaled (and turned)
            unit, tri = unit_sphere(1)
            tri = np.array(tri, dtype=np.int64)
            shape = (unit * ref.radius) if isinstance(ref, Sphere) else (unit * ref.radii) @ ref.ref_rot.T
            pts, sid = ref.ref_center + shape, np.full(tri.shape[0], ref.surfid, dtype=np.int64)
        else:
            pts, tri, sid = primitive_triangles(ref, body, with_ids=True)
        points.append(pts)
        triangles.append(tri + offset)
        ids.append(sid)
        offset += pts.shape[0]
    if not points:
        empty = np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
        return empty + (np.zeros(0, dtype=np.int64),) if with_ids else empty
    out = np.concatenate(points), np.concatenate(triangles)
    return out + (np.concatenate(ids),) if with_ids else out


def primitive_triangles(prim, body=None, with_ids: bool = False) -> tuple:
    fn = getattr(prim, "surface_triangles", None)
    if fn is None:
        who = f" of body {body.id}" if body is not None else ""
        raise NotAvailableError(f"a {type(prim).__name__} shape{who} has no surface tessellation; it cannot be exported")
    out = fn()
    pts = np.asarray(out[0], dtype=float).reshape(-1, 3)
    tri = np.asarray(out[1], dtype=np.int64).reshape(-1, 3)
    if with_ids:
        return pts, tri, np.asarray(out[2], dtype=np.int64).reshape(-1)
    return pts, tri


class SurfaceSet:
    """The merged reference surface of a list of bodies (rebuilt when the list changes)."""

    def __init__(self, bodies, coarse: bool = False):
        self.bodies = list(bodies)
        self.ids = np.array([b.id for b in self.bodies], dtype=np.int64)
        pts, tris, owner, tri_owner, sids = [], [], [], [], []
        offset = 0
        for k, body in enumerate(self.bodies):
            p, t, s = _cached_reference(body, coarse)
            pts.append(p)
            tris.append(t + offset)
            sids.append(s)
            owner.append(np.full(p.shape[0], k, dtype=np.int64))
            tri_owner.append(np.full(t.shape[0], body.id, dtype=np.int64))
            offset += p.shape[0]
        self.X = np.concatenate(pts) if pts else np.zeros((0, 3))
        self.triangles = np.concatenate(tris) if tris else np.zeros((0, 3), dtype=np.int64)
        self.owner = np.concatenate(owner) if owner else np.zeros(0, dtype=np.int64)
        self.bid = np.concatenate(tri_owner) if tri_owner else np.zeros(0, dtype=np.int64)
        self.sid = np.concatenate(sids) if sids else np.zeros(0, dtype=np.int64)      # surface id per triangle

        self.rigid = np.array([b.kind in ("RIGID", "OBSTACLE") for b in self.bodies], dtype=bool)
        counts = np.bincount(self.owner, minlength=len(self.bodies))
        self.start = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)   # points of body k
        self._rows = None            # (block bodies list, block rows of self.bodies)
        self._out = None             # reused output arrays of current()
        self._groups = None          # the other bodies by block (see _deformable)

    def same_bodies(self, bodies) -> bool:
        return self.bodies == list(bodies)

    def _block_rows(self, block) -> np.ndarray:
        """Block rows of the bodies (recomputed only when the block's body list changed)."""
        if self._rows is None or self._rows[0] != block.bodies:
            rows = np.fromiter((b.row if r else 0 for b, r in zip(self.bodies, self.rigid)), dtype=np.int64,
                               count=len(self.bodies))
            self._rows = (list(block.bodies), rows)
        return self._rows[1]

    def current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(current points, displacements, point velocities), float32, of the present state.
        The arrays are reused by the next call (warm memory, no page faults per frame):
        copy them to keep them."""
        rigid = self.rigid
        if self._out is None:
            self._out = tuple(np.empty(self.X.shape, np.float32) for _ in range(3))
        x, d, v = self._out
        if rigid.any():                              # one kernel call over the rigid bodies
            block = next(b.block for b, r in zip(self.bodies, rigid) if r)
            rows = self._block_rows(block)
            _rigid_kernel(block.conf, block.velo, block.center, rows, rigid, self.start, self.X, x, d, v)
        for group in self._deformable():
            block, bodies, points, owner = group[:4]
            if group[4] is None or group[4][0] != block.bodies:    # rows change when bodies go
                group[4] = (list(block.bodies), np.array([self.bodies[k].row for k in bodies], dtype=np.int64))
            rows, X = group[4][1][owner], self.X[points]
            xk = block.cur_points(rows, X)
            x[points], d[points] = xk, xk - X
            velocities = getattr(block, "point_velocities", None)
            v[points] = 0.0 if velocities is None else velocities(rows, X)
        return x, d, v

    def stresses(self) -> np.ndarray:
        """(points, 6) float32 Cauchy stress (sx, sy, sz, sxy, sxz, syz) of the present state
        (zero on rigid bodies and on kinds without `point_stresses`)."""
        out = np.zeros((self.X.shape[0], 6), np.float32)
        for group in self._deformable():
            block, points = group[0], group[2]
            stresses = getattr(block, "point_stresses", None)
            if stresses is not None and group[4] is not None:
                out[points] = stresses(group[4][1][group[3]], self.X[points])[:, :6]
        return out

    def _deformable(self) -> list:
        """[block, body indices, point indices, owner (position in the body indices) per
        point, cached block rows] of the non-rigid bodies, one entry per block."""
        if self._groups is None:
            by_block: dict = {}
            for k in np.flatnonzero(~self.rigid).tolist():
                by_block.setdefault(id(self.bodies[k].block), (self.bodies[k].block, []))[1].append(k)
            self._groups = []
            for block, ks in by_block.values():
                points = np.concatenate([np.arange(self.start[k], self.start[k + 1]) for k in ks])
                owner = np.repeat(np.arange(len(ks)), np.diff(self.start)[ks])
                self._groups.append([block, np.array(ks), points, owner, None])
        return self._groups


@njit(cache=True, fastmath=True)
def _rigid_kernel(conf, velo, center, rows, rigid, start, X, x, d, v):  # pragma: no cover - numba
    """For the points start[k]:start[k+1] of every rigid body k (block row rows[k]):
    x = xc + Λ (X − X0), d = x − X, v = vc + Λ (Ω × (X − X0)), with Λ stored column-major
    in conf[row, 0:9] (Solfec-1.0 user manual, BODY conf and velo); the body's motion is read once, its points in turn."""
    for k in range(rows.size):
        if not rigid[k]:
            continue
        r = rows[k]
        L0, L1, L2 = conf[r, 0], conf[r, 1], conf[r, 2]
        L3, L4, L5 = conf[r, 3], conf[r, 4], conf[r, 5]
        L6, L7, L8 = conf[r, 6], conf[r, 7], conf[r, 8]
        xc0, xc1, xc2 = conf[r, 9], conf[r, 10], conf[r, 11]
        X00, X01, X02 = center[r, 0], center[r, 1], center[r, 2]
        w0, w1, w2 = velo[r, 0], velo[r, 1], velo[r, 2]
        u0, u1, u2 = velo[r, 3], velo[r, 4], velo[r, 5]
        for p in range(start[k], start[k + 1]):
            a0, a1, a2 = X[p, 0] - X00, X[p, 1] - X01, X[p, 2] - X02
            y0 = xc0 + L0 * a0 + L3 * a1 + L6 * a2
            y1 = xc1 + L1 * a0 + L4 * a1 + L7 * a2
            y2 = xc2 + L2 * a0 + L5 * a1 + L8 * a2
            x[p, 0], x[p, 1], x[p, 2] = y0, y1, y2
            d[p, 0], d[p, 1], d[p, 2] = y0 - X[p, 0], y1 - X[p, 1], y2 - X[p, 2]
            b0, b1, b2 = w1 * a2 - w2 * a1, w2 * a0 - w0 * a2, w0 * a1 - w1 * a0
            v[p, 0] = u0 + L0 * b0 + L3 * b1 + L6 * b2
            v[p, 1] = u1 + L1 * b0 + L4 * b1 + L7 * b2
            v[p, 2] = u2 + L2 * b0 + L5 * b1 + L8 * b2


def _cached_reference(body, coarse: bool):
    cache = getattr(body, "_surface_cache", None)
    if cache is None or cache[0] != coarse:
        cache = (coarse, reference_triangles(body, coarse, with_ids=True))
        try:
            body._surface_cache = cache
        except AttributeError:  # pragma: no cover - bodies with __slots__
            pass
    return cache[1]
