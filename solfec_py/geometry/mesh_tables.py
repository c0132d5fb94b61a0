"""Tables of the first-order elements as data (layer 1): faces, fan triangles, shape
functions and the integration points used to list MESH integration points.
Reference: LANGUAGE §3.4 (face table), NUMERICS §3.1-§3.2 (shape functions, rules).

Tables are indexed directly by the element's node count (4 tetrahedron, 5 pyramid,
6 wedge, 8 hexahedron) and padded so that a whole mesh is handled with fancy indexing:
`FACE_TABLE[etype]` is (6, 4) local node indices with -1 padding, `TRI_TABLE[etype]` is
(12, 3) with padding triangles (0, 0, 0), which are degenerate and contribute nothing.
"""
from __future__ import annotations

import numpy as np

ETYPES = (4, 5, 6, 8)
NAMES = {4: "tetrahedron", 5: "pyramid", 6: "wedge", 8: "hexahedron"}

# faces listed counter-clockwise seen from outside (zero-based local node numbers)
FACES = {
    4: [(0, 2, 1), (0, 1, 3), (1, 2, 3), (2, 0, 3)],
    5: [(0, 3, 2, 1), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)],
    6: [(0, 2, 1), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)],
    8: [(0, 3, 2, 1), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (0, 4, 7, 3), (4, 5, 6, 7)],
}
MAX_FACES, MAX_TRIS = 6, 12

FACE_TABLE = np.full((9, MAX_FACES, 4), -1, dtype=np.int64)
FACE_SIZE = np.zeros((9, MAX_FACES), dtype=np.int64)
FACE_COUNT = np.zeros(9, dtype=np.int64)
TRI_TABLE = np.zeros((9, MAX_TRIS, 3), dtype=np.int64)
TRI_FACE = np.full((9, MAX_TRIS), -1, dtype=np.int64)   # owning local face, -1 for padding
for _e, _faces in FACES.items():
    FACE_COUNT[_e] = len(_faces)
    _t = 0
    for _f, _nodes in enumerate(_faces):
        FACE_TABLE[_e, _f, : len(_nodes)] = _nodes
        FACE_SIZE[_e, _f] = len(_nodes)
        for _k in range(1, len(_nodes) - 1):
            TRI_TABLE[_e, _t] = (_nodes[0], _nodes[_k], _nodes[_k + 1])
            TRI_FACE[_e, _t] = _f
            _t += 1


# ---------------------------------------------------------------------- shape functions

def shape_functions(etype: int, xi: np.ndarray) -> np.ndarray:
    """N (p, etype) at local points xi (p, 3) (NUMERICS §3.1 coordinates)."""
    x, y, z = np.asarray(xi, float).T
    if etype == 4:
        return np.column_stack([1 - x - y - z, x, y, z])
    if etype == 5:
        r = np.where(z < 1.0, x * y * z / np.where(z < 1.0, 1.0 - z, 1.0), 0.0)
        return 0.25 * np.column_stack([(1 + x) * (1 + y) - z + r, (1 - x) * (1 + y) - z - r,
                                       (1 - x) * (1 - y) - z + r, (1 + x) * (1 - y) - z - r,
                                       4.0 * z])
    if etype == 6:
        L = np.column_stack([1 - x - y, x, y])
        return 0.5 * np.hstack([L * (1 - z)[:, None], L * (1 + z)[:, None]])
    if etype == 8:
        s = np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                      [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], dtype=float)
        return 0.125 * (1 + x[:, None] * s[:, 0]) * (1 + y[:, None] * s[:, 1]) * (1 + z[:, None] * s[:, 2])
    raise ValueError(f"no element with {etype} nodes")


def _volume_points() -> dict:
    a, b = 0.1381966011250105, 0.5854101966249684
    g = 1.0 / np.sqrt(3.0)
    pa, z1 = 0.263184055569714, 0.544151844011225
    pb, z2 = 0.506616303349788, 0.122514822655441
    sq = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], dtype=float)
    tri = np.array([[2 / 3, 1 / 6], [1 / 6, 2 / 3], [1 / 6, 1 / 6]])
    return {
        4: np.array([[a, a, a], [a, a, b], [a, b, a], [b, a, a]]),
        5: np.vstack([np.column_stack([pa * sq, np.full(4, z1)]), np.column_stack([pb * sq, np.full(4, z2)])]),
        6: np.vstack([np.column_stack([tri, np.full(3, -g)]), np.column_stack([tri, np.full(3, g)])]),
        8: np.array([[sx, sy, sz] for sz in (-g, g) for sy in (-g, g) for sx in (-g, g)]),
    }


# order-2 volume rules (the ones Solfec uses for everything except the HEX8 mass)
VOLUME_POINTS = _volume_points()
# values of the shape functions at the volume points: (npoints, etype)
VOLUME_N = {e: shape_functions(e, VOLUME_POINTS[e]) for e in ETYPES}

# face rules: triangles 1 point (centroid), quadrilaterals 2 x 2 Gauss, as node weights
_g = 1.0 / np.sqrt(3.0)
_quad_xi = np.array([[-_g, -_g], [_g, -_g], [_g, _g], [-_g, _g]])
_quad_nodes = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=float)
FACE_N = {
    3: np.full((1, 3), 1.0 / 3.0),
    4: 0.25 * (1 + _quad_xi[:, None, 0] * _quad_nodes[:, 0]) * (1 + _quad_xi[:, None, 1] * _quad_nodes[:, 1]),
}
