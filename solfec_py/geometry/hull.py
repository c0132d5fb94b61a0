"""Convex hull of a point cloud as a Convex (layer 1). Reference: Solfec-1.0 user manual, HULL (Solfec
hul.c); Qhull through scipy.spatial.ConvexHull.

Qhull returns triangles; those on one plane are merged into a polygon whose vertices are
ordered counter-clockwise seen from outside (the outward normal is Qhull's facet normal).
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import GeometryError
from solfec_py.geometry.convex import Convex


def _coplanar_groups(normals: np.ndarray, offsets: np.ndarray, tol: float) -> np.ndarray:
    """Group label per facet; facets with equal planes (within tol) share a label."""
    label = np.full(normals.shape[0], -1, dtype=np.int64)
    g = 0
    for f in range(normals.shape[0]):
        if label[f] >= 0:
            continue
        same = (label < 0) & (np.abs(normals - normals[f]).max(axis=1) < 1e-9) & \
            (np.abs(offsets - offsets[f]) < tol)
        label[same] = g
        g += 1
    return label


def _ccw(points: np.ndarray, ids: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """`ids` ordered counter-clockwise around `normal` (seen from its tip)."""
    p = points[ids]
    c = p.mean(axis=0)
    u = p[0] - c
    u /= np.linalg.norm(u)
    v = np.cross(normal, u)
    ang = np.arctan2((p - c) @ v, (p - c) @ u)
    return ids[np.argsort(ang, kind="stable")]


def convex_hull(points, volid: int, surfid: int) -> Convex:
    """Convex hull of points (n, 3): every face gets `surfid`. GeometryError if degenerate."""
    from scipy.spatial import ConvexHull, QhullError

    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    span = float(np.ptp(pts, axis=0).max()) if pts.size else 0.0      # no overflow up to the largest float
    # the hull of the points scaled to a unit box: the same faces, and no products that
    # overflow or underflow for points spanning 1e-300 .. 1e300
    unit = (pts - 0.5 * (pts.max(axis=0) + pts.min(axis=0))) / (span if span > 0 else 1.0)
    try:
        hull = ConvexHull(unit)
    except (QhullError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0][:80] if str(exc).strip() else type(exc).__name__
        raise GeometryError("Failed to create convex hull: the points are coincident, collinear or"
                            f" coplanar ({first})") from None
    normals, offsets = hull.equations[:, :3], hull.equations[:, 3]
    label = _coplanar_groups(normals, offsets, 1e-9)
    keep = hull.vertices
    index = np.full(pts.shape[0], -1, dtype=np.int64)
    index[keep] = np.arange(keep.size)
    faces = []
    for g in range(label.max() + 1):
        member = np.flatnonzero(label == g)
        ids = np.unique(hull.simplices[member])
        faces.append(index[_ccw(unit, ids, normals[member[0]])])
    return Convex(pts[keep], faces, np.full(len(faces), int(surfid)), volid)
