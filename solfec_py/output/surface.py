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

from solfec_py.errors import NotAvailableError


def reference_triangles(body) -> tuple[np.ndarray, np.ndarray]:
    """(points (p, 3), triangles (t, 3)) of the body's reference surface."""
    points, triangles, offset = [], [], 0
    for prim in body.shape:
        pts, tri = primitive_triangles(prim, body)
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

    def __init__(self, bodies):
        self.bodies = list(bodies)
        self.ids = np.array([b.id for b in self.bodies], dtype=np.int64)
        pts, tris, owner, tri_owner = [], [], [], []
        offset = 0
        for k, body in enumerate(self.bodies):
            p, t = _cached_reference(body)
            pts.append(p)
            tris.append(t + offset)
            owner.append(np.full(p.shape[0], k, dtype=np.int64))
            tri_owner.append(np.full(t.shape[0], body.id, dtype=np.int64))
            offset += p.shape[0]
        self.X = np.concatenate(pts) if pts else np.zeros((0, 3))
        self.triangles = np.concatenate(tris) if tris else np.zeros((0, 3), dtype=np.int64)
        self.owner = np.concatenate(owner) if owner else np.zeros(0, dtype=np.int64)
        self.bid = np.concatenate(tri_owner) if tri_owner else np.zeros(0, dtype=np.int64)

    def same_bodies(self, bodies) -> bool:
        return self.bodies == list(bodies)

    def current(self) -> tuple[np.ndarray, np.ndarray]:
        """(current points, point velocities) of the bodies' present state."""
        x = np.empty_like(self.X)
        v = np.empty_like(self.X)
        rigid = np.array([b.kind in ("RIGID", "OBSTACLE") for b in self.bodies], dtype=bool)
        if rigid.any():
            sel = rigid[self.owner]
            rows = np.array([b.row if r else 0 for b, r in zip(self.bodies, rigid)], dtype=np.int64)
            block = next(b.block for b, r in zip(self.bodies, rigid) if r)
            xr, vr = rigid_motion(block.conf[rows], block.velo[rows], block.center[rows], self.owner[sel],
                                  self.X[sel])
            x[sel], v[sel] = xr, vr
        for k in np.flatnonzero(~rigid):
            sel = self.owner == k
            x[sel], v[sel] = _placed(self.bodies[k])
        return x, v


def rigid_motion(conf, velo, X0, owner, X) -> tuple[np.ndarray, np.ndarray]:
    """Current points and velocities of referential points X owned by rigid rows."""
    R = conf[:, 0:9].reshape(-1, 3, 3).transpose(0, 2, 1)[owner]
    A = X - X0[owner]
    x = conf[owner, 9:12] + np.einsum("pij,pj->pi", R, A)
    v = velo[owner, 3:6] + np.einsum("pij,pj->pi", R, np.cross(velo[owner, 0:3], A))
    return x, v


def _cached_reference(body):
    cache = getattr(body, "_surface_cache", None)
    if cache is None:
        cache = reference_triangles(body)
        try:
            body._surface_cache = cache
        except AttributeError:  # pragma: no cover - bodies with __slots__
            pass
    return cache


def _placed(body) -> tuple[np.ndarray, np.ndarray]:
    """Current points of a non-rigid body from its current primitives (velocity: zero
    until the kind provides point velocities of its surface)."""
    pts = [primitive_triangles(p, body)[0] for p in body.current_primitives()]
    x = np.concatenate(pts) if pts else np.zeros((0, 3))
    return x, np.zeros_like(x)
