"""Where a crack plane meets a mesh (layer 1), for SIMPLIFIED_CRACK: the elements the
plane cuts in a polygon, with one sample point per triangle of the polygon (its centroid).
Reference: Solfec cra.c (element and point pairs of the referential cut, TRI_Topoadj) and
cvx.c (CONVEX_Cut: a polygon on an element face counts for the element behind the plane).
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry import mesh_tables
from solfec_py.geometry.mesh_split import components

EDGES = {e: sorted({tuple(sorted((f[i], f[(i + 1) % len(f)]))) for f in faces for i in range(len(f))})
         for e, faces in mesh_tables.FACES.items()}


def section(X: np.ndarray, etype: np.ndarray, conn: np.ndarray, point, normal, eps: float,
            topoadj: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(elements, points): the elements of a mesh (nodes X, linear connectivity) cut by the
    plane through `point` with unit `normal` in a polygon (at least three points of edge
    crossings and nodes within `eps` of the plane spanning an area), each polygon
    triangulated as a fan of its vertices in angular order, one entry per triangle with
    its centroid. A plane along a face between two elements counts it once, for the
    element behind the plane (the face's outward normal is `normal`). With `topoadj` only
    the cut elements joined through shared nodes to the one nearest `point` are kept."""
    p, n = np.asarray(point, float), np.asarray(normal, float)
    u = np.cross(n, np.eye(3)[int(np.argmin(np.abs(n)))])
    u /= np.linalg.norm(u)
    v = np.cross(n, u)
    dist = (X - p) @ n
    dc = np.where(conn >= 0, dist[np.maximum(conn, 0)], np.nan)
    lo, hi = np.nanmin(dc, axis=1), np.nanmax(dc, axis=1)
    near = np.flatnonzero((lo < -eps) & (hi >= -eps))       # not wholly in front of the plane
    elems, points = [], []
    for e in near.tolist():
        k = int(etype[e])
        nodes = conn[e, :k]
        d = dist[nodes]
        pts = [X[a] for a, da in zip(nodes, d) if abs(da) <= eps]
        for a, b in EDGES[k]:
            da, db = d[a], d[b]
            if (da < -eps and db > eps) or (da > eps and db < -eps):
                s = da / (da - db)
                pts.append(X[nodes[a]] + s * (X[nodes[b]] - X[nodes[a]]))
        if len(pts) < 3:
            continue
        P = np.array(pts)
        c = P.mean(axis=0)
        P = P[np.argsort(np.arctan2((P - c) @ v, (P - c) @ u))]
        for i in range(1, P.shape[0] - 1):
            area = np.linalg.norm(np.cross(P[i] - P[0], P[i + 1] - P[0]))
            if area > eps * eps:
                elems.append(e)
                points.append((P[0] + P[i] + P[i + 1]) / 3.0)
    elems = np.array(elems, dtype=np.int64)
    points = np.array(points, dtype=float).reshape(-1, 3)
    if topoadj and elems.size:
        keep = _adjacent(conn, etype, elems, points, p)
        elems, points = elems[keep], points[keep]
    return elems, points


def _adjacent(conn, etype, elems, points, p) -> np.ndarray:
    """Mask of the cut elements connected (through shared nodes) to the one nearest `p`."""
    m = elems.size
    rows = np.repeat(np.arange(m), 8)
    cols = conn[elems].reshape(-1)
    ok = cols >= 0
    nnod = int(conn.max()) + 1
    label = components(m + nnod, rows[ok], m + cols[ok])[:m]
    near = int(np.argmin(np.linalg.norm(points - p, axis=1)))
    return label == label[near]
