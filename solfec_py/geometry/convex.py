"""One convex polyhedron with reference and current vertices (layer 1).
Reference: Solfec-1.0 user manual, CONVEX (Solfec cvx.c); faces are listed counter-clockwise seen from outside.

`Convex` holds `ref`, `cur` (n, 3) vertex arrays, `faces` (list of int arrays of vertex
indices), `surfids` (one int per face) and `volid`. Fan triangulations of the faces are
computed once (the topology never changes) and shared by copies.
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry.pointset import PointSetMotion

from solfec_py import session


def fan_triangles(faces: list) -> tuple[np.ndarray, np.ndarray]:
    """Fan triangulation (v0, vi, vi+1) of polygons -> (triangles (k, 3), owner face (k,))."""
    sizes = np.array([len(f) for f in faces], dtype=np.int64)
    if sizes.size == 0:
        return np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
    flat = np.concatenate([np.asarray(f, dtype=np.int64) for f in faces])
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    owner = np.repeat(np.arange(sizes.size), sizes - 2)
    # position of triangle t inside its face: 0 .. size-3
    local = np.arange(owner.size) - np.repeat(np.cumsum(sizes - 2) - (sizes - 2), sizes - 2)
    first = flat[start[owner]]
    second = flat[start[owner] + local + 1]
    third = flat[start[owner] + local + 2]
    return np.column_stack([first, second, third]), owner


def inside_triangle_planes(tri_points: np.ndarray, point: np.ndarray, tol: float) -> bool:
    """True if `point` lies on the inner side (within `tol`) of every triangle's plane;
    `tri_points` (k, 3, 3) are outward-oriented triangles of one convex solid."""
    a, b, c = tri_points[:, 0], tri_points[:, 1], tri_points[:, 2]
    n = np.cross(b - a, c - a)
    norm = np.linalg.norm(n, axis=1)
    d = np.einsum("ki,ki->k", n, point - a)
    return bool(np.all(d <= tol * norm))


def tolerance(lo: np.ndarray, hi: np.ndarray) -> float:
    """Absolute geometric tolerance: GEOMETRIC_EPSILON times the bounding-box diagonal."""
    return session.geometric_epsilon() * max(float(np.linalg.norm(hi - lo)), 1e-300)


class Convex(PointSetMotion):
    """A convex polyhedron (one member of a CONVEX collection)."""

    def __init__(self, vertices, faces, surfids, volid: int, cur=None):
        self.ref = np.array(vertices, dtype=float).reshape(-1, 3)
        self.cur = self.ref.copy() if cur is None else np.array(cur, dtype=float).reshape(-1, 3)
        self.faces = [np.asarray(f, dtype=np.int64) for f in faces]
        self.surfids = np.asarray(surfids, dtype=np.int64).reshape(-1)
        self.volid = int(volid)
        if self.surfids.size != len(self.faces):
            raise ValueError("Convex: one surface id per face is required")
        self._tri = None

    @property
    def nver(self) -> int:
        return self.ref.shape[0]

    def copy(self) -> "Convex":
        new = Convex.__new__(Convex)
        new.ref, new.cur = self.ref.copy(), self.cur.copy()
        new.faces, new.surfids, new.volid = self.faces, self.surfids.copy(), self.volid
        new._tri = self._tri
        return new

    # ------------------------------------------------------------------ topology
    def triangles(self) -> tuple[np.ndarray, np.ndarray]:
        """(vertex-index triangles (k, 3), owning face index (k,)), fan triangulation."""
        if self._tri is None:
            self._tri = fan_triangles(self.faces)
        return self._tri

    def triangle_points(self, config: str = "ref") -> np.ndarray:
        """(k, 3, 3) coordinates of the closed, outward-oriented surface triangulation."""
        x = self.ref if config == "ref" else self.cur
        return x[self.triangles()[0]]

    # ------------------------------------------------------------------ queries (motion: PointSetMotion)
    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.cur.min(axis=0), self.cur.max(axis=0)

    def surface_triangles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(current points (n, 3), triangles (k, 3), surface id per triangle (k,))."""
        tri, owner = self.triangles()
        return self.cur.copy(), tri.copy(), self.surfids[owner]

    def contains(self, point, tol: float | None = None) -> bool:
        """Is the referential `point` inside (or within `tol` of) the polyhedron?"""
        p = np.asarray(point, float)
        if tol is None:
            tol = tolerance(self.ref.min(axis=0), self.ref.max(axis=0))
        return inside_triangle_planes(self.triangle_points("ref"), p, tol)
