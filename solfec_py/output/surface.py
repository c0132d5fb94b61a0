"""Surface meshes of bodies for visualisation (layer 6): every body's boundary as triangles
in the reference configuration, and the current points, displacements and velocities of a
set of bodies computed for all of them at once. Reference: LANGUAGE §14.2 (Solfec's
XDMF export, the viewer's rendering of rigid shapes).

The reference surface of a body comes from its shape primitives' `surface_triangles()`
-> (points, triangles, surface ids). Rigid bodies (and obstacles) move their reference
points with x = xc + Λ (X − X0) and v = vc + Λ (Ω × (X − X0)), vectorised over all points
of all bodies; other kinds place their current primitives.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from solfec_py.errors import NotAvailableError
from solfec_py.geometry.sphere import Sphere, unit_sphere


def reference_triangles(body, coarse: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(points (p, 3), triangles (t, 3)) of the body's reference surface (`coarse`: spheres
    with 42 points instead of their own 162, for the live export of many bodies)."""
    points, triangles, offset = [], [], 0
    for prim in body.shape:
        ref = prim.copy()
        ref.set_rigid_motion(np.eye(3), np.zeros(3), np.zeros(3))   # current := reference
        if coarse and isinstance(ref, Sphere):
            unit, tri = unit_sphere(1)
            pts, tri = ref.ref_center + ref.radius * unit, np.array(tri, dtype=np.int64)
        else:
            pts, tri = primitive_triangles(ref, body)
        points.append(pts)
        triangles.append(tri + offset)
        offset += pts.shape[0]
    if not points:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
    return np.concatenate(points), np.concatenate(triangles)


def primitive_triangles(prim, body=None) -> tuple[np.ndarray, np.ndarray]:
    fn = getattr(prim, "surface_triangles", None)
    if fn is None:
        who = f" of body {body.id}" if body is not None else ""
        raise NotAvailableError(f"a {type(prim).__name__} shape{who} has no surface tessellation; it cannot be exported")
    out = fn()
    pts = np.asarray(out[0], dtype=float).reshape(-1, 3)
    tri = np.asarray(out[1], dtype=np.int64).reshape(-1, 3)
    return pts, tri


class SurfaceSet:
    """The merged reference surface of a list of bodies (rebuilt when the list changes)."""

    def __init__(self, bodies, coarse: bool = False):
        self.bodies = list(bodies)
        self.ids = np.array([b.id for b in self.bodies], dtype=np.int64)
        pts, tris, owner, tri_owner = [], [], [], []
        offset = 0
        for k, body in enumerate(self.bodies):
            p, t = _cached_reference(body, coarse)
            pts.append(p)
            tris.append(t + offset)
            owner.append(np.full(p.shape[0], k, dtype=np.int64))
            tri_owner.append(np.full(t.shape[0], body.id, dtype=np.int64))
            offset += p.shape[0]
        self.X = np.concatenate(pts) if pts else np.zeros((0, 3))
        self.triangles = np.concatenate(tris) if tris else np.zeros((0, 3), dtype=np.int64)
        self.owner = np.concatenate(owner) if owner else np.zeros(0, dtype=np.int64)
        self.bid = np.concatenate(tri_owner) if tri_owner else np.zeros(0, dtype=np.int64)

        self.rigid = np.array([b.kind in ("RIGID", "OBSTACLE") for b in self.bodies], dtype=bool)

    def same_bodies(self, bodies) -> bool:
        return self.bodies == list(bodies)

    def current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(current points, displacements, point velocities), float32, of the present state."""
        rigid = self.rigid
        x = np.empty(self.X.shape, np.float32)
        d = np.empty(self.X.shape, np.float32)
        v = np.empty(self.X.shape, np.float32)
        if rigid.all() and self.bodies:             # the common case: one kernel call
            block = self.bodies[0].block
            rows = np.fromiter((b.row for b in self.bodies), dtype=np.int64, count=len(self.bodies))
            _rigid_kernel(block.conf, block.velo, block.center, rows, self.owner, self.X, x, d, v)
            return x, d, v
        if rigid.any():
            rows = np.array([b.row if r else 0 for b, r in zip(self.bodies, rigid)], dtype=np.int64)
            block = next(b.block for b, r in zip(self.bodies, rigid) if r)
            sel = np.flatnonzero(rigid[self.owner])
            xs, ds, vs = (np.empty((sel.size, 3), np.float32) for _ in range(3))
            _rigid_kernel(block.conf, block.velo, block.center, rows, self.owner[sel], self.X[sel], xs, ds, vs)
            x[sel], d[sel], v[sel] = xs, ds, vs
        for k in np.flatnonzero(~rigid):
            sel = self.owner == k
            xk, vk = _placed(self.bodies[k])
            x[sel], d[sel], v[sel] = xk, xk - self.X[sel], vk
        return x, d, v


@njit(cache=True)
def _rigid_kernel(conf, velo, center, rows, owner, X, x, d, v):  # pragma: no cover - numba
    """x = xc + Λ (X − X0), d = x − X, v = vc + Λ (Ω × (X − X0)) for every point, with
    Λ stored column-major in conf[row, 0:9] (LANGUAGE §7.4)."""
    for p in range(X.shape[0]):
        r = rows[owner[p]]
        a0 = X[p, 0] - center[r, 0]
        a1 = X[p, 1] - center[r, 1]
        a2 = X[p, 2] - center[r, 2]
        w0, w1, w2 = velo[r, 0], velo[r, 1], velo[r, 2]
        c0 = w1 * a2 - w2 * a1
        c1 = w2 * a0 - w0 * a2
        c2 = w0 * a1 - w1 * a0
        for i in range(3):
            xi = conf[r, 9 + i] + conf[r, i] * a0 + conf[r, 3 + i] * a1 + conf[r, 6 + i] * a2
            x[p, i] = xi
            d[p, i] = xi - X[p, i]
            v[p, i] = velo[r, 3 + i] + conf[r, i] * c0 + conf[r, 3 + i] * c1 + conf[r, 6 + i] * c2


def _cached_reference(body, coarse: bool):
    cache = getattr(body, "_surface_cache", None)
    if cache is None or cache[0] != coarse:
        cache = (coarse, reference_triangles(body, coarse))
        try:
            body._surface_cache = cache
        except AttributeError:  # pragma: no cover - bodies with __slots__
            pass
    return cache[1]


def _placed(body) -> tuple[np.ndarray, np.ndarray]:
    """Current points of a non-rigid body from its current primitives (velocity: zero
    until the kind provides point velocities of its surface)."""
    pts = [primitive_triangles(p, body)[0] for p in body.current_primitives()]
    x = np.concatenate(pts) if pts else np.zeros((0, 3))
    return x, np.zeros_like(x)
