"""Tetrahedral meshes of ellipsoids (layer 1), for ELLIP_MESH: a geodesic sphere (an
icosahedron subdivided uniformly, points pushed radially onto the ellipsoid) fine enough that
the flat triangles stay within `error` of the surface, filled with tetrahedra by gmsh.
Reference: Solfec msh.c MESH_Ellip (icosahedron refined to a surface error, then TetGen).
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import InputError
from solfec_py.geometry.tetrahedralize import fill, require_gmsh

MAX_LEVEL = 7                   # 20 * 4^7 = 327 680 surface triangles


def icosahedron() -> tuple[np.ndarray, np.ndarray]:
    """Unit vertices (12, 3) and outward triangles (20, 3) of a regular icosahedron."""
    from scipy.spatial import ConvexHull

    phi = (1.0 + np.sqrt(5.0)) / 2.0
    base = [(0, a, b * phi) for a in (-1, 1) for b in (-1, 1)]
    V = np.array([p[k:] + p[:k] for p in base for k in range(3)], dtype=float)
    V /= np.linalg.norm(V, axis=1)[:, None]
    F = ConvexHull(V).simplices.astype(np.int64)
    n = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
    flip = np.einsum("ij,ij->i", n, V[F].mean(axis=1)) < 0
    F[flip] = F[flip][:, [0, 2, 1]]
    return V, F


def subdivide(V: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every triangle into four; edge midpoints pushed onto the unit sphere."""
    edges = np.sort(np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]]), axis=1)
    unique, inverse = np.unique(edges, axis=0, return_inverse=True)
    mid = V[unique].mean(axis=1)
    mid /= np.linalg.norm(mid, axis=1)[:, None]
    m = V.shape[0] + inverse.reshape(3, -1)             # mid-edge node of (0,1), (1,2), (2,0)
    a, b, c = F.T
    F2 = np.concatenate([np.column_stack(t) for t in ((a, m[0], m[2]), (m[0], b, m[1]), (m[2], m[1], c),
                                                        (m[0], m[1], m[2]))])
    return np.vstack([V, mid]), F2


def on_ellipsoid(U: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """The points of the ellipsoid (axes `radii`, centred at 0) along the directions U."""
    return U / np.sqrt(np.sum((U / radii) ** 2, axis=1))[:, None]


def deviation(P: np.ndarray, F: np.ndarray, radii: np.ndarray) -> float:
    """Largest radial distance between the flat triangles (centroid and edge midpoints) and
    the ellipsoid."""
    a, b, c = P[F[:, 0]], P[F[:, 1]], P[F[:, 2]]
    samples = np.concatenate([(a + b + c) / 3.0, (a + b) / 2.0, (b + c) / 2.0, (c + a) / 2.0])
    return float(np.max(np.linalg.norm(on_ellipsoid(samples, radii) - samples, axis=1)))


def ellip_surface(radii, error: float) -> tuple[np.ndarray, np.ndarray]:
    """Surface points (n, 3) and triangles (m, 3) within `error` of the ellipsoid."""
    radii = np.asarray(radii, dtype=float)
    V, F = icosahedron()
    for _ in range(MAX_LEVEL + 1):
        P = on_ellipsoid(V, radii)
        if deviation(P, F, radii) <= error:
            return P, F
        V, F = subdivide(V, F)
    raise InputError(f"'error' = {error!r} needs more than {F.shape[0] // 4} surface triangles; use a larger"
                     f" error (relative to the radii {radii.tolist()})")


def ellip_mesh(center, radii, error: float, volid: int, surfid: int, notes: list | None = None):
    """The ELLIP_MESH tetrahedral Mesh (needs gmsh)."""
    require_gmsh("ELLIP_MESH")
    P, F = ellip_surface(radii, error)
    return fill(np.asarray(center, float) + P, F, np.full(F.shape[0], surfid), volid, command="ELLIP_MESH",
                notes=notes)
