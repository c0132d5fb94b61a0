"""Pseudo-rigid (homogeneous deformation) mechanics (layer 1): internal force, energy,
tangent, mass matrix and critical step of bodies with x = x_c + F (X - X_0).
Reference: Koziara, PhD thesis (Glasgow 2008); Solfec-1.0 bod.c (pseudo-rigid parts).

Storage as Solfec's pseudo-rigid ``conf``: F row-wise, F_ij at 3 i + j, so a body's
deformable generalised coordinates are F.reshape(9). All functions take F as (nb, 3, 3)
(or (3, 3)) and per-body ``young``, ``poisson``, referential ``volume`` broadcast against it.
The referential Euler tensor E_0 = rho int (X - X_0)(X - X_0)^T dV comes from
:func:`solfec_py.geometry.massprops.mass_properties` (times the density).
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem.laws import SVK


def internal_force(F, young, poisson, volume) -> tuple[np.ndarray, np.ndarray]:
    """(f_int (..., 9) = V_0 P(F) row-wise, energy (...,) = V_0 psi(F))."""
    F = np.asarray(F, dtype=float)
    V = np.asarray(volume, dtype=float)
    P, psi = SVK.pk1(F, young, poisson), SVK.energy(F, young, poisson)
    return V[..., None] * P.reshape(F.shape[:-2] + (9,)), V * psi


def tangent(F, young, poisson, volume) -> np.ndarray:
    """K (..., 9, 9) = V_0 dP/dF with rows and columns in the row-wise order of F."""
    F = np.asarray(F, dtype=float)
    A = SVK.tangent(F, young, poisson).reshape(F.shape[:-2] + (9, 9))
    return np.asarray(volume, dtype=float)[..., None, None] * A


def mass_matrix(euler, mass) -> np.ndarray:
    """M (..., 12, 12) = blockdiag(E_0, E_0, E_0, m I) for velocities (dF/dt row-wise, v)."""
    E = np.asarray(euler, dtype=float)
    m = np.asarray(mass, dtype=float)
    M = np.zeros(E.shape[:-2] + (12, 12))
    for r in range(3):
        M[..., 3 * r:3 * r + 3, 3 * r:3 * r + 3] = E
    M[..., 9:, 9:] = m[..., None, None] * np.eye(3)
    return M


def critical_step(F, young, poisson, volume, euler) -> np.ndarray:
    """2 / sqrt(lambda_max(M_F^-1 K)) on the 9 x 9 deformable block (Solfec's rule; the
    domain then uses half of it)."""
    K = tangent(F, young, poisson, volume)
    MF = mass_matrix(euler, np.zeros(np.shape(euler)[:-2]))[..., :9, :9]
    L = np.linalg.cholesky(MF)
    Linv = np.linalg.inv(L)
    lmax = np.linalg.eigvalsh(Linv @ K @ np.swapaxes(Linv, -1, -2))[..., -1]
    with np.errstate(divide="ignore"):
        return np.where(lmax > 0, 2.0 / np.sqrt(np.maximum(lmax, 0.0)), np.inf)
