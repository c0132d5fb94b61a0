"""Quadrature rules: exactness on monomials against closed-form integrals, Solfec's data."""
from __future__ import annotations

from math import factorial

import numpy as np
import pytest

from solfec_py.fem import quadrature as Q
from solfec_py.fem.elements import ELEMENTS


def _line(a):                       # int_{-1}^{1} x^a dx
    return 0.0 if a % 2 else 2.0 / (a + 1)


def _beta(p, q):                    # int_0^1 t^p (1 - t)^q dt
    return factorial(p) * factorial(q) / factorial(p + q + 1)


def exact(domain, a, b, c=0):
    """Closed-form integral of x^a y^b z^c over a reference domain."""
    if domain == "tet":
        return factorial(a) * factorial(b) * factorial(c) / factorial(a + b + c + 3)
    if domain == "tri":
        return factorial(a) * factorial(b) / factorial(a + b + 2)
    if domain == "wedge":
        return exact("tri", a, b) * _line(c)
    if domain in ("hex", "quad"):
        return _line(a) * _line(b) * (_line(c) if domain == "hex" else 1.0)
    if domain == "pyr":           # |x|, |y| <= 1 - z: int z^c (2(1-z)^{a+1}/(a+1)) (...) dz
        if a % 2 or b % 2:
            return 0.0
        return 4.0 / ((a + 1) * (b + 1)) * _beta(c, a + b + 2)
    raise ValueError(domain)


DOMAIN = {"TET": "tet", "PYR": "pyr", "WED": "wedge", "HEX": "hex", "TRI": "tri", "QUAD": "quad"}


WEDGE_DEGREES = {"WED_1": (1, 1), "WED_6": (2, 3), "WED_18": (4, 5)}   # (triangle, z) as stated


def monomials(rule):
    if rule.name in WEDGE_DEGREES:
        dt, dz = WEDGE_DEGREES[rule.name]
        yield from ((a, b, c) for a in range(dt + 1) for b in range(dt + 1 - a) for c in range(dz + 1))
        return
    dim = rule.points.shape[1]
    per_variable = rule.exact != "total degree" and not rule.exact.startswith("degree")
    d = rule.degree
    for a in range(d + 1):
        for b in range(d + 1):
            for c in range(d + 1 if dim == 3 else 1):
                if per_variable or a + b + c <= d:
                    yield a, b, c


@pytest.mark.parametrize("name", sorted(Q.RULES))
def test_rule_integrates_its_degree_exactly(name):
    rule = Q.RULES[name]
    domain = DOMAIN[name.split("_")[0]]
    pts = rule.points
    for a, b, c in monomials(rule):
        value = rule.weights @ (pts[:, 0] ** a * pts[:, 1] ** b * (pts[:, 2] ** c if pts.shape[1] == 3 else 1))
        # 14-17 digit rule data: 1e-14 absolute on integrals of size <= 8
        assert value == pytest.approx(exact(domain, a, b, c), abs=1e-14), (a, b, c)


def test_rules_are_solfec_data():
    # the 4-point Gauss data printed in Solfec's fem.c; the 2 x 2 x 2 and pyramid tables
    x, w = np.polynomial.legendre.leggauss(4)
    np.testing.assert_allclose(x[2:], [0.3399810435848563, 0.8611363115940526], rtol=1e-15)
    np.testing.assert_allclose(w[2:], [0.6521451548625461, 0.3478548451374538], rtol=1e-15)
    assert Q.HEX_64.points[0].tolist() == pytest.approx([-0.8611363115940526] * 3, rel=1e-15)
    assert Q.HEX_64.points[1].tolist() == pytest.approx([-0.8611363115940526, -0.8611363115940526,
                                                         -0.3399810435848563], rel=1e-15)
    assert Q.HEX_8.points[2].tolist() == pytest.approx([0.57735026918962584, 0.57735026918962584,
                                                        -0.57735026918962584], rel=1e-15)
    assert Q.PYR_8.weights.sum() == pytest.approx(4 / 3, rel=1e-14)
    # the pyramid points are 2 x 2 Gauss points of the collapsed square at both levels
    u = Q.PYR_8.points[:, :2] / (1 - Q.PYR_8.points[:, 2:])
    np.testing.assert_allclose(np.abs(u), 1 / np.sqrt(3), rtol=1e-14)


def test_rules_by_use():
    # Solfec: order 2 for everything except the HEX8 mass (order 4)
    for name in ("tetra", "pyramid", "wedge", "hexahedron"):
        el = ELEMENTS[name]
        assert el.rules["stiffness"] is el.rules["load"]
        assert (el.rules["mass"] is el.rules["stiffness"]) == (name != "hexahedron")
    assert ELEMENTS["hexahedron"].rules["mass"] is Q.HEX_64
    assert all(w > 0 for w in Q.TET_14.weights)
