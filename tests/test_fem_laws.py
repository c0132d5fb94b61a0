"""Saint Venant-Kirchhoff against closed forms, finite differences and invariances."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from solfec_py.fem.laws import LAWS, SVK

E, NU = 2.0e6, 0.3
LAM, MU = E * NU / ((1 + NU) * (1 - 2 * NU)), E / (2 * (1 + NU))


def random_F(n=6, seed=0, scale=0.2):
    rng = np.random.default_rng(seed)
    return np.eye(3) + scale * rng.standard_normal((n, 3, 3))


def test_registry():
    assert LAWS["KIRCHHOFF"] is SVK
    assert SVK.parameters == ("young", "poisson", "density")


def test_uniaxial_stretch_closed_form():
    s = 1.3
    F = np.diag([s, 1.0, 1.0])
    e = 0.5 * (s * s - 1)
    # S11 = (lam + 2 mu) e, S22 = S33 = lam e, P = F S, psi = (lam + 2 mu) e^2 / 2
    P = np.diag([s * (LAM + 2 * MU) * e, LAM * e, LAM * e])
    np.testing.assert_allclose(SVK.pk1(F, E, NU), P, rtol=1e-14, atol=1e-14 * E)
    assert SVK.energy(F, E, NU) == pytest.approx(0.5 * (LAM + 2 * MU) * e * e, rel=1e-14)
    sig = SVK.cauchy(F, E, NU)     # sigma = P F^T / J, J = s
    np.testing.assert_allclose(sig[:6], [s * (LAM + 2 * MU) * e, LAM * e / s, LAM * e / s, 0, 0, 0],
                               rtol=1e-14, atol=1e-14 * E)
    assert sig[6] == pytest.approx(abs(sig[0] - sig[1]), rel=1e-13)     # von Mises, sy = sz


def test_simple_shear_closed_form():
    g = 0.4
    F = np.eye(3)
    F[0, 1] = g
    Eg = 0.5 * np.array([[0, g, 0], [g, g * g, 0], [0, 0, 0]])
    S = LAM * (g * g / 2) * np.eye(3) + 2 * MU * Eg
    np.testing.assert_allclose(SVK.pk1(F, E, NU), F @ S, rtol=1e-14, atol=1e-14 * E)
    psi = 0.5 * LAM * (g * g / 2) ** 2 + MU * np.sum(Eg * Eg)
    assert SVK.energy(F, E, NU) == pytest.approx(psi, rel=1e-14)
    # linear limit: sxy = mu g, von Mises = sqrt(3) mu g (to O(g^2))
    g = 1e-6
    F = np.eye(3)
    F[0, 1] = g
    sig = SVK.cauchy(F, E, NU)
    assert sig[3] == pytest.approx(MU * g, rel=1e-5)
    assert sig[6] == pytest.approx(np.sqrt(3) * MU * g, rel=1e-5)


def test_energy_derivative_is_pk1():
    F = random_F()
    h = 1e-6
    fd = np.zeros_like(F)
    for i in range(3):
        for j in range(3):
            dF = np.zeros((3, 3))
            dF[i, j] = h
            fd[:, i, j] = (SVK.energy(F + dF, E, NU) - SVK.energy(F - dF, E, NU)) / (2 * h)
    # central differences of a quartic: truncation O(h^2 E) ~ 1e-6, round-off E*1e-16/h
    np.testing.assert_allclose(SVK.pk1(F, E, NU), fd, rtol=1e-6, atol=1e-6 * E * 1e-3)


def test_tangent_against_central_differences():
    F = random_F(seed=1)
    A = SVK.tangent(F, E, NU)
    h = 1e-6
    for k in range(3):
        for L in range(3):
            dF = np.zeros((3, 3))
            dF[k, L] = h
            fd = (SVK.pk1(F + dF, E, NU) - SVK.pk1(F - dF, E, NU)) / (2 * h)
            np.testing.assert_allclose(A[:, :, :, k, L], fd, rtol=1e-6, atol=1e-6 * E * 1e-3)
    # hyperelastic: major symmetry A_iJkL = A_kLiJ
    np.testing.assert_allclose(A, A.transpose(0, 3, 4, 1, 2), rtol=1e-13, atol=1e-13 * E)


def test_rigid_rotation_is_stress_free_and_frame_indifferent():
    R = Rotation.random(5, random_state=2).as_matrix()
    np.testing.assert_allclose(SVK.pk1(R, E, NU), 0.0, atol=1e-15 * E * 10)
    np.testing.assert_allclose(SVK.energy(R, E, NU), 0.0, atol=1e-30 * E + 1e-20)
    F = random_F(5, seed=4)
    s = SVK.cauchy(F, E, NU)
    rs = SVK.cauchy(R @ F, E, NU)
    full = lambda v: np.array([[v[0], v[3], v[4]], [v[3], v[1], v[5]], [v[4], v[5], v[2]]])  # noqa: E731
    for m in range(5):
        np.testing.assert_allclose(full(rs[m]), R[m] @ full(s[m]) @ R[m].T, atol=1e-12 * E)
        assert rs[m, 6] == pytest.approx(s[m, 6], rel=1e-12)     # von Mises is invariant


def test_broadcasting_of_parameters():
    F = random_F(4, seed=5).reshape(2, 2, 3, 3)
    young = np.array([[1.0, 2.0], [3.0, 4.0]])
    P = SVK.pk1(F, young, 0.25)
    assert P.shape == (2, 2, 3, 3)
    np.testing.assert_allclose(P[1, 1], 4.0 * SVK.pk1(F[1, 1], 1.0, 0.25), rtol=1e-14)
