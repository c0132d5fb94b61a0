"""Sphere primitive with reference and current centres (layer 1), and the unit-sphere
tessellation shared with ellipsoids. Reference: Solfec-1.0 user manual, SPHERE, SCALE (Solfec sph.c).
"""
from __future__ import annotations

import functools

import numpy as np

from solfec_py import session


@functools.lru_cache(maxsize=4)
def unit_sphere(level: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Icosphere: (points (n, 3) on the unit sphere, outward triangles (k, 3)); level 2
    gives 162 points and 320 triangles (a modest tessellation for visualisation)."""
    t = (1.0 + 5 ** 0.5) / 2.0
    p = np.array([[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
                  [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]], float)
    tri = np.array([[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9],
                    [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2],
                    [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10],
                    [8, 6, 7], [9, 8, 1]], dtype=np.int64)
    p /= np.linalg.norm(p, axis=1)[:, None]
    for _ in range(level):
        edges = np.sort(np.vstack([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
        uniq, inv = np.unique(edges, axis=0, return_inverse=True)
        mid = p[uniq[:, 0]] + p[uniq[:, 1]]
        mid /= np.linalg.norm(mid, axis=1)[:, None]
        m = p.shape[0] + inv.reshape(3, -1)          # midpoint of edges 01, 12, 20
        a, b, c = tri.T
        tri = np.vstack([np.column_stack([a, m[0], m[2]]), np.column_stack([b, m[1], m[0]]),
                         np.column_stack([c, m[2], m[1]]), np.column_stack([m[0], m[1], m[2]])])
        p = np.vstack([p, mid])
    # orient outward (the table above is outward already; keep the guarantee explicit)
    a, b, c = p[tri[:, 0]], p[tri[:, 1]], p[tri[:, 2]]
    flip = np.einsum("ki,ki->k", np.cross(b - a, c - a), a + b + c) < 0
    tri[flip] = tri[flip][:, [0, 2, 1]]
    p.setflags(write=False)
    tri.setflags(write=False)
    return p, tri


class Sphere:
    """A sphere: `ref_center`, `cur_center` (3,), `radius`, `volid`, `surfid`."""

    def __init__(self, center, radius: float, volid: int, surfid: int):
        self.ref_center = np.array(center, dtype=float).reshape(3)
        self.cur_center = self.ref_center.copy()
        self.radius = float(radius)
        self.volid, self.surfid = int(volid), int(surfid)

    def copy(self) -> "Sphere":
        new = Sphere.__new__(Sphere)
        new.__dict__.update(self.__dict__)
        new.ref_center, new.cur_center = self.ref_center.copy(), self.cur_center.copy()
        return new

    @property
    def volume(self) -> float:
        return 4.0 / 3.0 * np.pi * abs(self.radius) ** 3

    def transform(self, A, b) -> None:
        """x -> A x + b of both centres; `A` must be a rotation (the radius is kept)."""
        A, b = np.asarray(A, float), np.asarray(b, float)
        self.ref_center = A @ self.ref_center + b
        self.cur_center = A @ self.cur_center + b

    def scale(self, coefs) -> None:
        """SCALE of a sphere: radius *= cx, centre kept (Solfec quirk, Solfec-1.0 user manual, SCALE)."""
        self.radius *= float(coefs[0])

    def set_rigid_motion(self, R, xc, X0) -> None:
        self.cur_center = np.asarray(xc, float) + np.asarray(R, float) @ (self.ref_center - np.asarray(X0, float))

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        r = abs(self.radius)
        return self.cur_center - r, self.cur_center + r

    def surface_triangles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p, tri = unit_sphere()
        return self.cur_center + self.radius * p, tri.copy(), np.full(tri.shape[0], self.surfid, np.int64)

    def contains(self, point, tol: float | None = None) -> bool:
        if tol is None:
            tol = session.geometric_epsilon() * 2.0 * abs(self.radius)
        return bool(np.linalg.norm(np.asarray(point, float) - self.ref_center) <= self.radius + tol)
