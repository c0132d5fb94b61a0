"""Quadrature rules as data (layer 1): points and weights on the reference domains of
the elements in :mod:`solfec_py.fem.elements` and of their faces.
Reference: Solfec-1.0 fem.c (``INTEGRATE3D`` tables, ``integrator3d_order``); Gauss-Legendre
products; Dunavant (1985) for the 6-point triangle; Walkington / Keast style symmetric
14-point tetrahedron rule of degree 5; conical product (Stroud 1971) for the pyramid.

Solfec-1.0 uses "order 2" rules for every volume integral except the HEX8 mass ("order
4"), one point on triangular faces and 2 x 2 Gauss points on quadrilateral faces; those
rules are reproduced point for point, in Solfec's order. Rules for the quadratic elements
(TET10, HEX20, WED15, which Solfec does not have) are chosen so that their mass matrices
and, on straight-sided elements, their stiffness matrices are integrated exactly.

Reference domains: tetrahedron x, y, z >= 0, x + y + z <= 1 (volume 1/6); pyramid
[-1, 1]^2 x [0, 1] collapsing to the apex (0, 0, 1) (volume 4/3); wedge triangle x [-1, 1]
(volume 1); hexahedron [-1, 1]^3 (volume 8); triangle x, y >= 0, x + y <= 1 (area 1/2);
quadrilateral [-1, 1]^2 (area 4). ``degree`` is the total polynomial degree integrated
exactly (per variable for the tensor-product rules, see ``exact``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Rule:
    """A quadrature rule: ``points`` (nq, dim) reference coordinates, ``weights`` (nq,)."""
    name: str
    points: np.ndarray
    weights: np.ndarray
    degree: int
    exact: str = "total degree"

    @property
    def npoints(self) -> int:
        return self.weights.size


def _rule(name, points, weights, degree, exact="total degree") -> Rule:
    p = np.ascontiguousarray(np.asarray(points, dtype=float))
    w = np.ascontiguousarray(np.asarray(weights, dtype=float).reshape(-1))
    p.setflags(write=False)
    w.setflags(write=False)
    return Rule(name, p, w, degree, exact)


def gauss_product(n: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """n-point Gauss-Legendre product on [-1, 1]^dim, first coordinate varying slowest
    (Solfec's ordering of its 4 x 4 x 4 table)."""
    x, w = np.polynomial.legendre.leggauss(n)
    grids = np.meshgrid(*([x] * dim), indexing="ij")
    wgrid = np.meshgrid(*([w] * dim), indexing="ij")
    return np.column_stack([g.reshape(-1) for g in grids]), np.prod([g.reshape(-1) for g in wgrid], axis=0)


def _symmetric_tet(orbits) -> tuple[np.ndarray, np.ndarray]:
    """Points of fully symmetric tetrahedron orbits given in barycentric coordinates."""
    from itertools import permutations
    pts, wts = [], []
    for bary, w in orbits:
        for perm in sorted(set(permutations(bary))):
            pts.append(perm[1:])          # (x, y, z) = (L1, L2, L3)
            wts.append(w)
    return np.array(pts), np.array(wts)


# ------------------------------------------------------------------ Solfec's rules
_A, _B = 0.1381966011250105, 0.5854101966249684
TET_1 = _rule("TET_1", [[0.25, 0.25, 0.25]], [1 / 6], 1)
TET_4 = _rule("TET_4", [[_A, _A, _A], [_A, _A, _B], [_A, _B, _A], [_B, _A, _A]], [1 / 24] * 4, 2)

# pyramid: 2 x 2 Gauss in the collapsed square times 2-point Gauss-Jacobi (weight (1-z)^2)
_PA, _PZ1, _PW1 = 0.263184055569714, 0.544151844011225, 0.100785882079825
_PB, _PZ2, _PW2 = 0.506616303349788, 0.122514822655441, 0.232547451253508
_SQ = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=float)
PYR_1 = _rule("PYR_1", [[0.0, 0.0, 0.25]], [4 / 3], 1)
PYR_8 = _rule("PYR_8", np.vstack([np.column_stack([_PA * _SQ, np.full(4, _PZ1)]),
                                  np.column_stack([_PB * _SQ, np.full(4, _PZ2)])]),
              [_PW1] * 4 + [_PW2] * 4, 3, "degree 3 in the collapsed coordinates")

_TRI3 = np.array([[2 / 3, 1 / 6], [1 / 6, 2 / 3], [1 / 6, 1 / 6]])
_G = 1.0 / np.sqrt(3.0)
# Solfec's unused 1-point wedge entry, (1/4, 1/4, 0) with weight 1/3, is not a rule for
# this domain (volume 1, centroid (1/3, 1/3, 0)); the correct centroid rule is used
WED_1 = _rule("WED_1", [[1 / 3, 1 / 3, 0.0]], [1.0], 1)
WED_6 = _rule("WED_6", np.vstack([np.column_stack([_TRI3, np.full(3, -_G)]),
                                  np.column_stack([_TRI3, np.full(3, _G)])]),
              [1 / 6] * 6, 2, "degree 2 on the triangle, 3 along z")

HEX_1 = _rule("HEX_1", [[0.0, 0.0, 0.0]], [8.0], 1, "per variable")
HEX_8 = _rule("HEX_8", _G * np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                                      [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], dtype=float),
              [1.0] * 8, 3, "per variable")
HEX_27 = _rule("HEX_27", *gauss_product(3, 3), 5, "per variable")
HEX_64 = _rule("HEX_64", *gauss_product(4, 3), 7, "per variable")

TRI_1 = _rule("TRI_1", [[1 / 3, 1 / 3]], [0.5], 1)
TRI_3 = _rule("TRI_3", _TRI3, [1 / 6] * 3, 2)
QUAD_1 = _rule("QUAD_1", [[0.0, 0.0]], [4.0], 1, "per variable")
QUAD_4 = _rule("QUAD_4", _G * _SQ, [1.0] * 4, 3, "per variable")

# ------------------------------------------------------------------ rules for quadratic elements
# Dunavant's degree-4 triangle rule (weights for area 1/2)
_D1, _DW1 = 0.44594849091596489, 0.22338158967801147
_D2, _DW2 = 0.09157621350977073, 0.10995174365532187
TRI_6 = _rule("TRI_6", [[_D1, _D1], [1 - 2 * _D1, _D1], [_D1, 1 - 2 * _D1],
                        [_D2, _D2], [1 - 2 * _D2, _D2], [_D2, 1 - 2 * _D2]],
              0.5 * np.array([_DW1] * 3 + [_DW2] * 3), 4)
QUAD_9 = _rule("QUAD_9", *gauss_product(3, 2), 5, "per variable")
# degree-5 tetrahedron rule with positive weights: two 4-point orbits and one 6-point orbit
_T1, _T2, _T3 = 0.0927352503108912, 0.3108859192633006, 0.0455037041256496
TET_14 = _rule("TET_14", *_symmetric_tet([((_T1, _T1, _T1, 1 - 3 * _T1), 0.01224884051939366),
                                          ((_T2, _T2, _T2, 1 - 3 * _T2), 0.01878132095300264),
                                          ((_T3, _T3, 0.5 - _T3, 0.5 - _T3), 0.007091003462846911)]), 5)
_g3, _w3 = np.polynomial.legendre.leggauss(3)
WED_18 = _rule("WED_18", np.array([[p[0], p[1], z] for z in _g3 for p in TRI_6.points]),
               np.array([w * wz for wz in _w3 for w in TRI_6.weights]), 4,
               "degree 4 on the triangle, 5 along z")

RULES = {r.name: r for r in (TET_1, TET_4, TET_14, PYR_1, PYR_8, WED_1, WED_6, WED_18, HEX_1, HEX_8,
                             HEX_27, HEX_64, TRI_1, TRI_3, TRI_6, QUAD_1, QUAD_4, QUAD_9)}
