"""Wedges (layer 1): WED6 (Solfec's linear wedge) and WED15 (meshio ``wedge15``).
Reference: Solfec-1.0 fem.c (``wed_o1_shapes``); Zienkiewicz & Taylor vol. 1, ch. 6
(serendipity triangular prism).

Reference domain: triangle x, y >= 0, x + y <= 1 times z in [-1, 1]; L = (1 - x - y, x, y),
bottom nodes at z = -1, top nodes at z = +1 (meshio's linear wedge has the same, Gmsh's,
orientation).
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem import quadrature as Q
from solfec_py.fem.elements.base import PRISM, Element, QuadraticElement

_G = np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])       # dL / d(x, y)
_TRI_EDGES = np.array([[0, 1], [1, 2], [2, 0]])


def _wed6(x, y, z, N, dN):
    L = (1.0 - x - y, x, y)
    for s in range(2):
        c = 2.0 * s - 1.0
        for a in range(3):
            k = 3 * s + a
            N[k] = 0.5 * L[a] * (1.0 + c * z)
            dN[k, 0] = 0.5 * _G[a, 0] * (1.0 + c * z)
            dN[k, 1] = 0.5 * _G[a, 1] * (1.0 + c * z)
            dN[k, 2] = 0.5 * c * L[a]


def _wed15(x, y, z, N, dN):
    L = (1.0 - x - y, x, y)
    q = 1.0 - z * z
    for s in range(2):
        c = 2.0 * s - 1.0
        t = 1.0 + c * z
        for a in range(3):
            k = 3 * s + a
            N[k] = 0.5 * L[a] * ((2.0 * L[a] - 1.0) * t - q)
            dL = 0.5 * ((4.0 * L[a] - 1.0) * t - q)
            dN[k, 0], dN[k, 1] = dL * _G[a, 0], dL * _G[a, 1]
            dN[k, 2] = 0.5 * L[a] * ((2.0 * L[a] - 1.0) * c + 2.0 * z)
        for m in range(3):
            a, b = _TRI_EDGES[m, 0], _TRI_EDGES[m, 1]
            k = 6 + 3 * s + m
            N[k] = 2.0 * L[a] * L[b] * t
            dN[k, 0] = 2.0 * t * (_G[a, 0] * L[b] + L[a] * _G[b, 0])
            dN[k, 1] = 2.0 * t * (_G[a, 1] * L[b] + L[a] * _G[b, 1])
            dN[k, 2] = 2.0 * c * L[a] * L[b]
    for a in range(3):
        k = 12 + a
        N[k] = L[a] * q
        dN[k, 0], dN[k, 1] = _G[a, 0] * q, _G[a, 1] * q
        dN[k, 2] = -2.0 * z * L[a]


class Wed6(Element):
    """Linear wedge: bottom triangle 0-2 (counter-clockwise seen from the top), top 3-5."""
    name, code, nnodes, order, domain = "wedge", 2, 6, 1, PRISM
    ref_nodes = np.array([[0, 0, -1], [1, 0, -1], [0, 1, -1], [0, 0, 1], [1, 0, 1], [0, 1, 1]], dtype=float)
    box = np.array([[0, 0, -1], [1, 1, 1]], dtype=float)
    faces = ((0, 2, 1), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5))
    rules = {"stiffness": Q.WED_6, "mass": Q.WED_6, "load": Q.WED_6}
    fill = staticmethod(_wed6)


class Wed15(QuadraticElement):
    """Quadratic (serendipity) wedge, meshio/VTK order: corners as WED6, mid-edge nodes of
    (0,1) (1,2) (2,0) (3,4) (4,5) (5,3) (0,3) (1,4) (2,5)."""
    name, code, linear = "wedge15", 6, Wed6
    edges = tuple((k, e) for k, e in enumerate(((0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3),
                                                 (0, 3), (1, 4), (2, 5)), start=6))
    rules = {"stiffness": Q.WED_18, "mass": Q.WED_18, "load": Q.WED_18}
    fill = staticmethod(_wed15)
