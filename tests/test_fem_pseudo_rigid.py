"""Pseudo-rigid helpers: SVK forces of a homogeneous body, tangent, mass, critical step."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from solfec_py.fem import pseudo_rigid as PR
from solfec_py.geometry.massprops import mass_properties
from solfec_py.geometry.mesh import Mesh

E, NU, RHO = 1.0e7, 0.25, 2000.0


def box():
    X = np.array([[0, 0, 0], [2, 0, 0], [2, 1, 0], [0, 1, 0], [0, 0, 0.5], [2, 0, 0.5], [2, 1, 0.5], [0, 1, 0.5]],
                 dtype=float)
    return Mesh(X, [8], [np.arange(8)], [0])


def test_homogeneous_tension_force_and_energy():
    V = 1.0
    s = 1.01
    F = np.diag([s, 1.0, 1.0])
    f, en = PR.internal_force(F, E, NU, V)
    lam, mu = E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))
    e = 0.5 * (s * s - 1)
    # f = V P row-wise: P11 = s (lam + 2 mu) e, P22 = P33 = lam e
    np.testing.assert_allclose(f, [s * (lam + 2 * mu) * e, 0, 0, 0, lam * e, 0, 0, 0, lam * e], rtol=1e-14,
                               atol=1e-14 * E)
    assert en == pytest.approx(0.5 * (lam + 2 * mu) * e * e, rel=1e-14)


def test_tangent_is_derivative_of_force_in_row_wise_order():
    F = np.eye(3) + 0.1 * np.random.default_rng(0).standard_normal((3, 3))
    K = PR.tangent(F, E, NU, 2.0)
    h = 1e-6
    for c in range(9):
        dF = np.zeros(9)
        dF[c] = h
        fd = (PR.internal_force(F + dF.reshape(3, 3), E, NU, 2.0)[0]
              - PR.internal_force(F - dF.reshape(3, 3), E, NU, 2.0)[0]) / (2 * h)
        np.testing.assert_allclose(K[:, c], fd, rtol=1e-6, atol=1e-6 * np.abs(K).max())


def test_mass_matrix_gives_the_kinetic_energy_of_the_body():
    mesh = box()
    V, centre, euler = mass_properties([mesh])
    M = PR.mass_matrix(RHO * euler, RHO * V)
    rng = np.random.default_rng(1)
    Fdot, v = rng.standard_normal((3, 3)), rng.standard_normal(3)
    u = np.concatenate([Fdot.reshape(9), v])
    # independent: 1/2 int rho |Fdot (X - X0) + v|^2 dV, with 2x2x2 Gauss on the box (exact)
    g = np.array([-1, 1]) / np.sqrt(3)
    pts = np.array([[1 + x, 0.5 + 0.5 * y, 0.25 + 0.25 * z] for x in g for y in g for z in g])
    vel = (pts - centre) @ Fdot.T + v
    ke = 0.5 * RHO * (V / 8) * np.sum(vel * vel)
    assert 0.5 * u @ M @ u == pytest.approx(ke, rel=1e-13)


def test_critical_step_against_generalized_eigenproblem():
    mesh = box()
    V, _, euler = mass_properties([mesh])
    F = np.eye(3) + 0.01 * np.random.default_rng(2).standard_normal((3, 3))
    h = PR.critical_step(F, E, NU, V, RHO * euler)
    K = PR.tangent(F, E, NU, V)
    M = PR.mass_matrix(RHO * euler, 1.0)[:9, :9]
    lmax = scipy.linalg.eigh(K, M, eigvals_only=True)[-1]
    assert h == pytest.approx(2 / np.sqrt(lmax), rel=1e-12)
