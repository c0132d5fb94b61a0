"""Surface meshes of bodies for visualisation (layer 6): every body's boundary as triangles
in the reference configuration, and the current points, displacements and velocities of a
set of bodies computed for all of them at once. Reference: Solfec-1.0 user manual, XDMF_EXPORT (Solfec's
XDMF export, the viewer's rendering of rigid shapes).

The reference surface of a body comes from its shape primitives' `surface_triangles()`
-> (points, triangles, surface ids); the surface ids go to ParaView as cell data. The
current points, velocities and stresses of those referential points come from the
bodies' blocks (`cur_points`, `point_velocities`, `stresses`, bodies/base.py), one call per
block for all its bodies.
"""
from __future__ import annotations

import numpy as np

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
        counts = np.bincount(self.owner, minlength=len(self.bodies))
        self.start = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)   # points of body k
        # the points of each block's bodies: (block, point indices, geometric object of each)
        self._groups = []
        blocks: dict = {}
        for k, body in enumerate(self.bodies):
            blocks.setdefault(id(body.block), (body.block, []))[1].append(k)
        for block, members in blocks.values():
            sel = np.concatenate([np.arange(self.start[k], self.start[k + 1]) for k in members])
            rows = np.array([self.bodies[k].row for k in members], dtype=np.int64)
            counts_k = np.diff(self.start)[members]
            elem = block.point_objects(np.repeat(rows, counts_k), self.X[sel]) if sel.size else sel
            self._groups.append([block, np.asarray(members), counts_k, sel, elem, None])
        self._out = None             # reused output arrays of current()

    def same_bodies(self, bodies) -> bool:
        return self.bodies == list(bodies)

    def _point_rows(self, group) -> np.ndarray:
        """Block row of every point of a group (recomputed when the block's bodies changed)."""
        block, members, counts, _, _, cached = group
        if cached is None or cached[0] != block.bodies:
            rows = np.array([self.bodies[k].row for k in members], dtype=np.int64)
            group[5] = cached = (list(block.bodies), np.repeat(rows, counts))
        return cached[1]

    def current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(current points, displacements, point velocities), float32, of the present state,
        one `cur_points` and one `point_velocities` call per body block. The arrays are
        reused by the next call (warm memory, no page faults per frame): copy them to keep
        them."""
        if self._out is None:
            self._out = tuple(np.empty(self.X.shape, np.float32) for _ in range(3))
        x, d, v = self._out
        for group in self._groups:
            block, sel, elem = group[0], group[3], group[4]
            if not sel.size:
                continue
            rows, X = self._point_rows(group), self.X[sel]
            cur = block.cur_points(rows, X, elem)
            with np.errstate(over="ignore"):    # beyond float32's 3.4e38 the viewer shows inf,
                x[sel], d[sel] = cur, cur - X   # as it should; the run's blow-up check names
                v[sel] = block.point_velocities(rows, X, elem)   # the body and the time
        return x, d, v

    def stresses(self) -> np.ndarray:
        """(points, 6) float32 Cauchy stress (sx, sy, sz, sxy, sxz, syz) of the present state,
        one `stresses` call per body block (zero on rigid bodies)."""
        out = np.zeros((self.X.shape[0], 6), np.float32)
        for group in self._groups:
            block, sel, elem = group[0], group[3], group[4]
            if sel.size:
                out[sel] = block.stresses(self._point_rows(group), self.X[sel], elem)[:, :6]
        return out


def _cached_reference(body, coarse: bool):
    cache = getattr(body, "_surface_cache", None)
    if cache is None or cache[0] != coarse:
        cache = (coarse, reference_triangles(body, coarse, with_ids=True))
        try:
            body._surface_cache = cache
        except AttributeError:  # pragma: no cover - bodies with __slots__
            pass
    return cache[1]
