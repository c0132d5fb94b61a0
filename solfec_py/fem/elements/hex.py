"""Hexahedra (layer 1): HEX8 (Solfec's trilinear brick) and HEX20 (meshio ``hexahedron20``).
Reference: Solfec-1.0 fem.c (``hex_o1_shapes``); Zienkiewicz & Taylor vol. 1, ch. 6
(serendipity brick).

Reference domain [-1, 1]^3; node k sits at the signs ``ref_nodes[k]``. HEX8 integrates its
mass with 4 x 4 x 4 Gauss points as Solfec ("order 4"), the rest with 2 x 2 x 2.
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem import quadrature as Q
from solfec_py.fem.elements.base import CUBE, Element, QuadraticElement, mid_nodes

_CORNERS = np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                     [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], dtype=float)
_EDGES20 = tuple((k, e) for k, e in enumerate(((0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7),
                                                (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)), start=8))
_S20 = mid_nodes(_CORNERS, _EDGES20)


def _hex8(x, y, z, N, dN):
    for k in range(8):
        sx, sy, sz = _CORNERS[k, 0], _CORNERS[k, 1], _CORNERS[k, 2]
        a, b, c = 1.0 + sx * x, 1.0 + sy * y, 1.0 + sz * z
        N[k] = 0.125 * a * b * c
        dN[k, 0] = 0.125 * sx * b * c
        dN[k, 1] = 0.125 * sy * a * c
        dN[k, 2] = 0.125 * sz * a * b


def _hex20(x, y, z, N, dN):
    for k in range(20):
        sx, sy, sz = _S20[k, 0], _S20[k, 1], _S20[k, 2]
        a, b, c = 1.0 + sx * x, 1.0 + sy * y, 1.0 + sz * z
        if sx != 0.0 and sy != 0.0 and sz != 0.0:
            s = sx * x + sy * y + sz * z - 2.0
            N[k] = 0.125 * a * b * c * s
            dN[k, 0] = 0.125 * sx * b * c * (s + a)
            dN[k, 1] = 0.125 * sy * a * c * (s + b)
            dN[k, 2] = 0.125 * sz * a * b * (s + c)
        elif sx == 0.0:
            N[k] = 0.25 * (1.0 - x * x) * b * c
            dN[k, 0] = -0.5 * x * b * c
            dN[k, 1] = 0.25 * (1.0 - x * x) * sy * c
            dN[k, 2] = 0.25 * (1.0 - x * x) * b * sz
        elif sy == 0.0:
            N[k] = 0.25 * (1.0 - y * y) * a * c
            dN[k, 0] = 0.25 * (1.0 - y * y) * sx * c
            dN[k, 1] = -0.5 * y * a * c
            dN[k, 2] = 0.25 * (1.0 - y * y) * a * sz
        else:
            N[k] = 0.25 * (1.0 - z * z) * a * b
            dN[k, 0] = 0.25 * (1.0 - z * z) * sx * b
            dN[k, 1] = 0.25 * (1.0 - z * z) * a * sy
            dN[k, 2] = -0.5 * z * a * b


class Hex8(Element):
    """Trilinear hexahedron: bottom 0-3 counter-clockwise seen from the top, 4-7 above them."""
    name, code, nnodes, order, domain = "hexahedron", 3, 8, 1, CUBE
    ref_nodes = _CORNERS
    box = np.array([[-1, -1, -1], [1, 1, 1]], dtype=float)
    faces = ((0, 3, 2, 1), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (0, 4, 7, 3), (4, 5, 6, 7))
    rules = {"stiffness": Q.HEX_8, "mass": Q.HEX_64, "load": Q.HEX_8}
    fill = staticmethod(_hex8)


class Hex20(QuadraticElement):
    """Serendipity hexahedron, meshio/VTK order: corners as HEX8, mid-edge nodes of the
    bottom edges (0,1) (1,2) (2,3) (3,0), the top edges (4,5) (5,6) (6,7) (7,4), then the
    vertical edges (0,4) (1,5) (2,6) (3,7)."""
    name, code, linear = "hexahedron20", 5, Hex8
    edges = _EDGES20
    rules = {"stiffness": Q.HEX_27, "mass": Q.HEX_27, "load": Q.HEX_27}
    fill = staticmethod(_hex20)
