"""The linear pyramid PYR5 (layer 1), Solfec's "rabbit" rational shape functions.
Reference: Solfec-1.0 fem.c (``pyr_o1_shapes``); Bedrosian, "Shape functions and integration
formulas for three-dimensional finite element analysis", IJNME 35 (1992).

Reference domain: square base [-1, 1]^2 at z = 0, apex (0, 0, 1). With r = xyz / (1 - z),
N_0..3 = ((1 +- x)(1 +- y) - z +- r) / 4 and N_4 = z; this is the collapsed (Duffy) map of
a hexahedron, so lateral faces are flat and the base face is bilinear. The z-derivative of
r is x y / (1 - z)^2 (Solfec-1.0 writes x y, an operator-precedence slip; the exact
derivative is used here). At the apex (z = 1) r and its derivatives are taken as 0, as
Solfec does; 1 / (1 - z) is formed as d / (d^2 + 1e-300) so that the same branch-free code
runs on numpy arrays and in numba.
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem import quadrature as Q
from solfec_py.fem.elements.base import PYRAMID, Element


def _pyr5(x, y, z, N, dN):
    d = 1.0 - z
    inv = d / (d * d + 1e-300)
    r = x * y * z * inv
    rx, ry, rz = y * z * inv, x * z * inv, x * y * inv * inv
    N[0] = 0.25 * ((1.0 + x) * (1.0 + y) - z + r)
    N[1] = 0.25 * ((1.0 - x) * (1.0 + y) - z - r)
    N[2] = 0.25 * ((1.0 - x) * (1.0 - y) - z + r)
    N[3] = 0.25 * ((1.0 + x) * (1.0 - y) - z - r)
    N[4] = z
    dN[0, 0], dN[0, 1], dN[0, 2] = 0.25 * ((1.0 + y) + rx), 0.25 * ((1.0 + x) + ry), 0.25 * (rz - 1.0)
    dN[1, 0], dN[1, 1], dN[1, 2] = -0.25 * ((1.0 + y) + rx), 0.25 * ((1.0 - x) - ry), -0.25 * (rz + 1.0)
    dN[2, 0], dN[2, 1], dN[2, 2] = 0.25 * (rx - (1.0 - y)), 0.25 * (ry - (1.0 - x)), 0.25 * (rz - 1.0)
    dN[3, 0], dN[3, 1], dN[3, 2] = 0.25 * ((1.0 - y) - rx), -0.25 * ((1.0 + x) + ry), -0.25 * (rz + 1.0)
    dN[4, 0], dN[4, 1], dN[4, 2] = 0.0, 0.0, 1.0


class Pyr5(Element):
    """Linear pyramid: base nodes 0-3 counter-clockwise seen from the apex 4."""
    name, code, nnodes, order, domain = "pyramid", 1, 5, 1, PYRAMID
    ref_nodes = np.array([[1, 1, 0], [-1, 1, 0], [-1, -1, 0], [1, -1, 0], [0, 0, 1]], dtype=float)
    box = np.array([[-1, -1, 0], [1, 1, 1]], dtype=float)
    faces = ((0, 3, 2, 1), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4))
    rules = {"stiffness": Q.PYR_8, "mass": Q.PYR_8, "load": Q.PYR_8}
    fill = staticmethod(_pyr5)
