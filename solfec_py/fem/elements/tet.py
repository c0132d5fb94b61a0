"""Tetrahedra (layer 1): TET4 (Solfec's linear tetrahedron) and TET10 (meshio ``tetra10``).
Reference: Solfec-1.0 fem.c (``tet_o1_shapes``); Zienkiewicz & Taylor, The Finite Element
Method vol. 1, ch. 6 (quadratic tetrahedron in barycentric coordinates).

Reference domain x, y, z >= 0, x + y + z <= 1; barycentric L = (1 - x - y - z, x, y, z).
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem import quadrature as Q
from solfec_py.fem.elements.base import SIMPLEX, Element, QuadraticElement

_GRAD = np.array([[-1.0, -1.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
_EDGES = np.array([[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]])


def _tet4(x, y, z, N, dN):
    L = (1.0 - x - y - z, x, y, z)
    for k in range(4):
        N[k] = L[k]
        for j in range(3):
            dN[k, j] = _GRAD[k, j]


def _tet10(x, y, z, N, dN):
    L = (1.0 - x - y - z, x, y, z)
    for k in range(4):
        N[k] = L[k] * (2.0 * L[k] - 1.0)
        c = 4.0 * L[k] - 1.0
        for j in range(3):
            dN[k, j] = c * _GRAD[k, j]
    for m in range(6):
        a, b = _EDGES[m, 0], _EDGES[m, 1]
        N[4 + m] = 4.0 * L[a] * L[b]
        for j in range(3):
            dN[4 + m, j] = 4.0 * (_GRAD[a, j] * L[b] + L[a] * _GRAD[b, j])


class Tet4(Element):
    """Linear tetrahedron: nodes 0-2 the base counter-clockwise seen from node 3."""
    name, code, nnodes, order, domain = "tetra", 0, 4, 1, SIMPLEX
    ref_nodes = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    box = np.array([[0, 0, 0], [1, 1, 1]], dtype=float)
    faces = ((0, 2, 1), (0, 1, 3), (1, 2, 3), (2, 0, 3))
    rules = {"stiffness": Q.TET_4, "mass": Q.TET_4, "load": Q.TET_4}
    fill = staticmethod(_tet4)


class Tet10(QuadraticElement):
    """Quadratic tetrahedron, meshio/VTK order: corners as TET4, then the mid-edge nodes
    of (0,1) (1,2) (2,0) (0,3) (1,3) (2,3). The degree-5 rule integrates the mass and, on
    straight or curved elements, the patch-test integrals exactly."""
    name, code, linear = "tetra10", 4, Tet4
    edges = tuple((4 + m, (int(a), int(b))) for m, (a, b) in enumerate(_EDGES))
    rules = {"stiffness": Q.TET_14, "mass": Q.TET_14, "load": Q.TET_14}
    fill = staticmethod(_tet10)
