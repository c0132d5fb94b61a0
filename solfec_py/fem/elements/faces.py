"""Face (surface) elements (layer 1): the triangles and quadrilaterals bounding the volume
elements, used to integrate surface loads (PRESSURE) and to list surface integration points.
Reference: Solfec-1.0 fem.c (``face_shapes``, ``INTEGRAL2D``: 1 point on triangles, 2 x 2
Gauss points on quadrilaterals).

A face element has ``name`` (meshio cell name), ``nnodes``, ``ref_nodes`` (n, 2), ``rule``
and ``fill(u, v, N, dN)`` (same dual numpy/numba convention as the volume elements). Nodes
are corners counter-clockwise seen from outside, then mid-edge nodes; with that order
``dx/du x dx/dv`` points outward.
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem import quadrature as Q
from solfec_py.fem.elements.base import ShapeFunctions, evaluate

_TRI_G = np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
_TRI_EDGES = np.array([[0, 1], [1, 2], [2, 0]])
_QUAD = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1], [0, -1], [1, 0], [0, 1], [-1, 0]], dtype=float)


def _tri3(u, v, N, dN):
    L = (1.0 - u - v, u, v)
    for k in range(3):
        N[k] = L[k]
        dN[k, 0], dN[k, 1] = _TRI_G[k, 0], _TRI_G[k, 1]


def _tri6(u, v, N, dN):
    L = (1.0 - u - v, u, v)
    for k in range(3):
        N[k] = L[k] * (2.0 * L[k] - 1.0)
        dN[k, 0], dN[k, 1] = (4.0 * L[k] - 1.0) * _TRI_G[k, 0], (4.0 * L[k] - 1.0) * _TRI_G[k, 1]
    for m in range(3):
        a, b = _TRI_EDGES[m, 0], _TRI_EDGES[m, 1]
        N[3 + m] = 4.0 * L[a] * L[b]
        dN[3 + m, 0] = 4.0 * (_TRI_G[a, 0] * L[b] + L[a] * _TRI_G[b, 0])
        dN[3 + m, 1] = 4.0 * (_TRI_G[a, 1] * L[b] + L[a] * _TRI_G[b, 1])


def _quad4(u, v, N, dN):
    for k in range(4):
        su, sv = _QUAD[k, 0], _QUAD[k, 1]
        N[k] = 0.25 * (1.0 + su * u) * (1.0 + sv * v)
        dN[k, 0], dN[k, 1] = 0.25 * su * (1.0 + sv * v), 0.25 * sv * (1.0 + su * u)


def _quad8(u, v, N, dN):
    for k in range(8):
        su, sv = _QUAD[k, 0], _QUAD[k, 1]
        a, b = 1.0 + su * u, 1.0 + sv * v
        if su != 0.0 and sv != 0.0:
            N[k] = 0.25 * a * b * (su * u + sv * v - 1.0)
            dN[k, 0] = 0.25 * su * b * (2.0 * su * u + sv * v)
            dN[k, 1] = 0.25 * sv * a * (su * u + 2.0 * sv * v)
        elif su == 0.0:
            N[k] = 0.5 * (1.0 - u * u) * b
            dN[k, 0], dN[k, 1] = -u * b, 0.5 * (1.0 - u * u) * sv
        else:
            N[k] = 0.5 * a * (1.0 - v * v)
            dN[k, 0], dN[k, 1] = 0.5 * su * (1.0 - v * v), -v * a


class FaceElement(ShapeFunctions):
    """Base of the face elements: ``shape`` (p, n) and ``dshape`` (p, n, 2) from ``fill``."""
    dim = 2
    ref_nodes: np.ndarray
    rule: Q.Rule

    @staticmethod
    def fill(u, v, N, dN) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def tables(cls) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N (nq, n), dN (nq, n, 2), weights (nq,)) at the points of ``rule``."""
        N, dN = evaluate(cls.fill, cls.nnodes, cls.rule.points, 2)
        return N, dN, cls.rule.weights


class Tri3(FaceElement):
    name, nnodes, rule = "triangle", 3, Q.TRI_1
    ref_nodes = np.array([[0, 0], [1, 0], [0, 1]], dtype=float)
    fill = staticmethod(_tri3)


class Tri6(FaceElement):
    name, nnodes, rule = "triangle6", 6, Q.TRI_6
    ref_nodes = np.array([[0, 0], [1, 0], [0, 1], [0.5, 0], [0.5, 0.5], [0, 0.5]], dtype=float)
    fill = staticmethod(_tri6)


class Quad4(FaceElement):
    name, nnodes, rule = "quad", 4, Q.QUAD_4
    ref_nodes = _QUAD[:4].copy()
    fill = staticmethod(_quad4)


class Quad8(FaceElement):
    name, nnodes, rule = "quad8", 8, Q.QUAD_9
    ref_nodes = _QUAD.copy()
    fill = staticmethod(_quad8)


FACE_ELEMENTS = {c.name: c for c in (Tri3, Quad4, Tri6, Quad8)}
