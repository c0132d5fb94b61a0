"""STRESS of finite-element bodies is Solfec-1.0's (fem.c ``cauchy_stress`` and
``FEM_Cur_Node_Values``): in an element, the entries (0,0), (1,1), (2,2), (0,1), (0,2), (1,2)
of F P / det F (Solfec repeats (2,0) in the last, yz, slot; solfec-py does not); at a mesh node, the plain mean of that value over the elements around the
node, each evaluated at the node. References: tests/stress_reference.py (numpy, from the
formula) with deformation gradients computed by hand (one-sided differences along the
element edges at a corner of an axis-aligned HEX8, where the trilinear interpolant is
linear), and the Cauchy stress P F^T / det F written out in numpy. Solfec's BM13 deck
records Solfec's own value of this formula at one node (docs/fem.md)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from stress_reference import solfec_fe_stress

E, NU = 2.0e9, 0.3
CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def _body(api):
    sol = api.SOLFEC("QUASI_STATIC", 1e-3, "out/st")
    mat = api.BULK_MATERIAL(sol, young=E, poisson=NU, density=1000.0)
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 2, 2, 2, 1, [1] * 6), mat)
    return body, np.array(body.block.X[:body.block.N])


def _cauchy(F):
    lam, mu = E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))
    G = 0.5 * (F.T @ F - np.eye(3))
    P = F @ (lam * np.trace(G) * np.eye(3) + 2 * mu * G)
    s = P @ F.T / np.linalg.det(F)
    return np.array([s[0, 0], s[1, 1], s[2, 2], s[0, 1], s[0, 2], s[1, 2]])


def _rotation(angle, axis):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def test_homogeneous_rotated_stretch_gives_solfecs_value_everywhere(api):
    # x = F X with F = R U: every element has this F, so STRESS at a corner node (one
    # element), an edge-midpoint node (2), the centre node (8) and points inside equals
    # the formula at F to round-off; the rotation makes it differ from P F^T / det F
    body, X = _body(api)
    U = np.array([[1.01, 0.002, 0.0], [0.002, 0.995, 0.001], [0.0, 0.001, 1.003]])
    F = _rotation(0.4, (1, 2, 3)) @ U
    body.conf = tuple((X @ (F - np.eye(3)).T).reshape(-1).tolist())
    ref = solfec_fe_stress(F, E, NU)
    for p in [(0, 0, 0), (0.5, 0, 0), (0.5, 0.5, 0.5), (0.3, 0.7, 0.2), (0.9, 0.1, 0.6)]:
        np.testing.assert_allclose(api.STRESS(body, p), ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    assert np.abs(ref[:3] - _cauchy(F)[:3]).max() > 1e-3 * np.abs(ref).max()
    # without rotation (F = U symmetric) F P / det F is the Cauchy stress sigma: all six
    # components are sigma's (the sixth is sigma_yz, where Solfec repeats sigma_xz)
    body.conf = tuple((X @ (U - np.eye(3)).T).reshape(-1).tolist())
    s, c = np.array(api.STRESS(body, (0.5, 0.5, 0.5))), _cauchy(U)
    np.testing.assert_allclose(s[:6], c, rtol=1e-9, atol=1e-9 * np.abs(c).max())
    assert abs(c[5] - c[4]) > 0.1 * abs(c[5])              # the yz and xz slots tell apart


def test_nodal_stress_is_the_mean_of_the_elements_at_the_node(api):
    # a quadratic displacement field: each element has its own F at a shared node; the
    # value at a node is the mean over the elements holding it of the formula at their F,
    # F by hand from the element's three edges leaving the node
    body, X = _body(api)

    def u(p):
        x, y, z = np.asarray(p, float).T
        return 0.02 * np.stack([x * x + 0.5 * y * z, y * z - 0.3 * x * x, x * y + 0.2 * z * z], axis=-1)

    body.conf = tuple(u(X).reshape(-1).tolist())
    h = 0.5
    for node in [(0.5, 0.5, 0.5), (0.5, 0.5, 0.0), (1.0, 0.5, 0.5), (1.0, 1.0, 1.0)]:
        n = np.array(node)
        values = []
        for sgn in itertools.product((-1, 1), repeat=3):
            other = n + h * np.array(sgn)
            if np.any(other < -1e-12) or np.any(other > 1 + 1e-12):
                continue                              # no element on that side
            F = np.eye(3)
            for j in range(3):
                e = np.zeros(3)
                e[j] = sgn[j] * h
                F[:, j] += (u(n + e) - u(n)) / e[j]
            values.append(solfec_fe_stress(F, E, NU))
        ref = np.mean(values, axis=0)
        assert len(values) in (8, 4, 2, 1)
        np.testing.assert_allclose(api.STRESS(body, node), ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    # the elements differ: the mean is not any one element's value
    assert np.ptp(np.array(values)[:, 0]) > 0 or len(values) == 1


def test_difference_from_cauchy_is_second_order_in_the_displacement_gradient():
    # F = I + eps H with a rotational H: F F S - F S F^T = eps (H S - S H^T) + O(eps^2 S)
    # and the first term has a zero diagonal (S symmetric), so the diagonals of F P / det F
    # and P F^T / det F differ by O(eps^2) of the stress: halving eps quarters it
    from solfec_py.fem.laws import fe_stress_mises
    H = np.array([[0.3, -1.0, 0.4], [1.0, -0.2, 0.7], [-0.4, -0.5, 0.1]])
    rel = []
    for eps in (2e-3, 1e-3):
        F = np.eye(3) + eps * H
        s = np.array(fe_stress_mises(*F.reshape(-1), E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))))
        np.testing.assert_allclose(s, solfec_fe_stress(F, E, NU), rtol=1e-12, atol=1e-12 * np.abs(s).max())
        c = _cauchy(F)
        rel.append(np.abs(s[:3] - c[:3]).max() / np.abs(c).max())
    assert 3.9 < rel[0] / rel[1] < 4.1


def test_a_point_within_geometric_epsilon_of_a_node_takes_the_nodal_value(api):
    # Solfec's ELEMENT_Ref_Point_To_Node: a point within GEOMETRIC_EPSILON of a node in
    # every coordinate is that node (the mean over its elements); farther away the point
    # has its own element's value, which differs at a node of a non-uniform field
    body, X = _body(api)
    api.GEOMETRIC_EPSILON(1e-4)
    body.conf = tuple((0.02 * np.stack([X[:, 0] ** 2, X[:, 1] * X[:, 2], X[:, 0] * X[:, 1]], axis=1))
                      .reshape(-1).tolist())
    centre = np.array(api.STRESS(body, (0.5, 0.5, 0.5)))
    near = np.array(api.STRESS(body, (0.5 + 0.6e-4, 0.5 - 0.9e-4, 0.5 + 0.3e-4)))
    np.testing.assert_array_equal(near, centre)
    far = np.array(api.STRESS(body, (0.5 + 1.1e-4, 0.5, 0.5)))
    assert np.abs(far - centre).max() > 1e-2 * np.abs(centre).max()
