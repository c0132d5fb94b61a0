"""Tables of the first-order elements as data (layer 1): faces, fan triangles, shape
functions and the integration points used to list MESH integration points, all derived
from the element types of :mod:`solfec_py.fem.elements` (Solfec's node orders and face
table, its order-2 rules).

Tables are indexed directly by the element's node count (4 tetrahedron, 5 pyramid,
6 wedge, 8 hexahedron) and padded so that a whole mesh is handled with fancy indexing:
`FACE_TABLE[etype]` is (6, 4) local node indices with -1 padding, `TRI_TABLE[etype]` is
(12, 3) with padding triangles (0, 0, 0), which are degenerate and contribute nothing.
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem.elements import ELEMENTS, FIRST_ORDER, Quad4, Tri3

ETYPES = (4, 5, 6, 8)
NAMES = {4: "tetrahedron", 5: "pyramid", 6: "wedge", 8: "hexahedron"}
# faces listed counter-clockwise seen from outside (zero-based local node numbers)
FACES = {e: [tuple(f) for f in FIRST_ORDER[e].faces] for e in ETYPES}
MAX_FACES, MAX_TRIS = 6, 12

MESHIO_NAMES = {e: FIRST_ORDER[e].name for e in ETYPES}      # meshio's cell-type names

# a permutation of the corners that reverses an element's orientation
FLIP = {4: (0, 2, 1, 3), 5: (0, 3, 2, 1, 4), 6: (0, 2, 1, 3, 5, 4), 8: (0, 3, 2, 1, 4, 7, 6, 5)}

# the quadratic cells of fem.elements (meshio name -> corner count): corners first, then one
# node per edge, node `corners + k` on EDGES[corners][k] (meshio's and VTK's order)
QUADRATIC = {c.name: c.linear.nnodes for c in ELEMENTS.values() if c.order == 2}
_QUADRATIC_OF = {ELEMENTS[n].linear.nnodes: ELEMENTS[n] for n in QUADRATIC}
EDGES = {e: [tuple(edge) for _, edge in c.edges] for e, c in _QUADRATIC_OF.items()}
# MESH's element records name the type by the node count: 4/5/6/8 Solfec's linear elements,
# 10/15/20 the quadratic ones (unambiguous); node count -> corner count, quadratic cell name
CORNERS_OF = {**{e: e for e in ETYPES}, **{c.nnodes: c.linear.nnodes for c in _QUADRATIC_OF.values()}}
QUADRATIC_BY_NODES = {c.nnodes: c.name for c in _QUADRATIC_OF.values()}


def quadratic_permutation(etype: int, corners) -> np.ndarray:
    """The node permutation of a quadratic cell whose corners are permuted by `corners`
    (new corner i = old corner corners[i]); mid-edge nodes follow their edges."""
    index = {frozenset(e): k for k, e in enumerate(EDGES[etype])}
    mids = [etype + index[frozenset((corners[a], corners[b]))] for a, b in EDGES[etype]]
    return np.array(list(corners) + mids, dtype=np.int64)


def face_midside(etype: int) -> np.ndarray:
    """(faces, 4) local mid-edge node numbers on each face of the quadratic cell with
    `etype` corners, -1 padded (the face nodes of fem.elements after the corners)."""
    out = np.full((MAX_FACES, 4), -1, dtype=np.int64)
    for f, nodes in enumerate(_QUADRATIC_OF[etype].faces):
        mids = nodes[len(FACES[etype][f]):]
        out[f, : len(mids)] = mids
    return out


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
    """N (p, etype) at local points xi (p, 3) (the element's reference coordinates)."""
    if etype not in FIRST_ORDER:
        raise ValueError(f"no element with {etype} nodes")
    return FIRST_ORDER[etype].shape(xi)


# the values of the shape functions at the order-2 volume rules (the ones Solfec uses for
# everything except the HEX8 mass), in Solfec's point order: (npoints, etype)
VOLUME_N = {e: FIRST_ORDER[e].tables("stiffness")[0] for e in ETYPES}

# face rules: triangles 1 point (centroid), quadrilaterals 2 x 2 Gauss, as node weights
FACE_N = {3: Tri3.tables()[0], 4: Quad4.tables()[0]}
