"""Bulk material laws (layer 1): Saint Venant-Kirchhoff, the only law of Solfec-1.0
(``KIRCHHOFF``), as numba scalar kernels for element loops and vectorised wrappers.
Reference: Solfec-1.0 svk.c, mat.c; Bonet & Wood, Nonlinear Continuum Mechanics for Finite
Element Analysis (2nd ed.), ch. 6.

Lamé constants lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu)). Green strain
E = (F^T F - I) / 2, second Piola-Kirchhoff S = lambda tr(E) I + 2 mu E, first Piola-Kirchhoff
P = F S, energy density psi = E : S / 2. Tangent (the compact form of Solfec's Maxima
expressions)

    A_iJkL = dP_iJ / dF_kL = delta_ik S_JL + lambda F_iJ F_kL
             + mu ((F F^T)_ik delta_JL + F_iL F_kJ).

Cauchy stress sigma = P F^T / det F, reported as (sx, sy, sz, sxy, sxz, syz) (Solfec's
order) with the von Mises stress sqrt(((sx-sy)^2 + (sx-sz)^2 + (sy-sz)^2
+ 6 (sxy^2 + sxz^2 + syz^2)) / 2) (pseudo-rigid bodies, as bod.c ``prb_cauchy``); the
stress of finite-element bodies is Solfec's fem.c one, F P / det F (``fe_stress_mises``).
All tensors are 3 x 3 arrays indexed [row, column].
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


@njit(inline="always")
def lame(young, poisson):
    """(lambda, mu) of Young's modulus and Poisson's ratio."""
    return young * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson)), young / (2.0 * (1.0 + poisson))


@njit(inline="always")
def svk_stress(f00, f01, f02, f10, f11, f12, f20, f21, f22, lam, mu):
    """Scalar SVK: returns (P00, P01, ..., P22, S00, S11, S22, S01, S12, S02, psi) for the
    deformation gradient given entry by entry, row by row."""
    e00 = 0.5 * (f00 * f00 + f10 * f10 + f20 * f20 - 1.0)
    e11 = 0.5 * (f01 * f01 + f11 * f11 + f21 * f21 - 1.0)
    e22 = 0.5 * (f02 * f02 + f12 * f12 + f22 * f22 - 1.0)
    e01 = 0.5 * (f00 * f01 + f10 * f11 + f20 * f21)
    e12 = 0.5 * (f01 * f02 + f11 * f12 + f21 * f22)
    e02 = 0.5 * (f00 * f02 + f10 * f12 + f20 * f22)
    tr = e00 + e11 + e22
    m2 = 2.0 * mu
    s00, s11, s22 = lam * tr + m2 * e00, lam * tr + m2 * e11, lam * tr + m2 * e22
    s01, s12, s02 = m2 * e01, m2 * e12, m2 * e02
    psi = 0.5 * lam * tr * tr + mu * (e00 * e00 + e11 * e11 + e22 * e22
                                      + 2.0 * (e01 * e01 + e12 * e12 + e02 * e02))
    return (f00 * s00 + f01 * s01 + f02 * s02, f00 * s01 + f01 * s11 + f02 * s12, f00 * s02 + f01 * s12 + f02 * s22,
            f10 * s00 + f11 * s01 + f12 * s02, f10 * s01 + f11 * s11 + f12 * s12, f10 * s02 + f11 * s12 + f12 * s22,
            f20 * s00 + f21 * s01 + f22 * s02, f20 * s01 + f21 * s11 + f22 * s12, f20 * s02 + f21 * s12 + f22 * s22,
            s00, s11, s22, s01, s12, s02, psi)


@njit
def svk_pk1(F, lam, mu, P):
    """P (3, 3) of F (3, 3); returns the energy density."""
    r = svk_stress(F[0, 0], F[0, 1], F[0, 2], F[1, 0], F[1, 1], F[1, 2], F[2, 0], F[2, 1], F[2, 2], lam, mu)
    for i in range(3):
        for j in range(3):
            P[i, j] = r[3 * i + j]
    return r[15]


@njit
def svk_tangent(F, lam, mu, A):
    """A (3, 3, 3, 3) = dP/dF of F (3, 3)."""
    svk_tangent_into(F, lam, mu, np.empty((2, 3, 3)), A)


@njit(inline="always")
def svk_tangent_into(F, lam, mu, W, A):
    """svk_tangent without temporaries (for loops over many deformation gradients): the
    work space W (2, 3, 3) receives S and F F^T."""
    S, B = W[0], W[1]
    tr = 0.0
    for I in range(3):
        tr += 0.5 * (F[0, I] * F[0, I] + F[1, I] * F[1, I] + F[2, I] * F[2, I] - 1.0)
    for I in range(3):
        for J in range(3):
            e = 0.5 * (F[0, I] * F[0, J] + F[1, I] * F[1, J] + F[2, I] * F[2, J] - (1.0 if I == J else 0.0))
            S[I, J] = 2.0 * mu * e + (lam * tr if I == J else 0.0)
            B[I, J] = F[I, 0] * F[J, 0] + F[I, 1] * F[J, 1] + F[I, 2] * F[J, 2]
    for i in range(3):
        for J in range(3):
            for k in range(3):
                for L in range(3):
                    v = lam * F[i, J] * F[k, L] + mu * F[i, L] * F[k, J]
                    if i == k:
                        v += S[J, L]
                    if J == L:
                        v += mu * B[i, k]
                    A[i, J, k, L] = v


@njit(inline="always")
def cauchy_mises(f00, f01, f02, f10, f11, f12, f20, f21, f22, lam, mu):
    """(sx, sy, sz, sxy, sxz, syz, von Mises) of the SVK Cauchy stress F S F^T / det F."""
    r = svk_stress(f00, f01, f02, f10, f11, f12, f20, f21, f22, lam, mu)
    J = f00 * (f11 * f22 - f12 * f21) - f01 * (f10 * f22 - f12 * f20) + f02 * (f10 * f21 - f11 * f20)
    sx = (r[0] * f00 + r[1] * f01 + r[2] * f02) / J
    sy = (r[3] * f10 + r[4] * f11 + r[5] * f12) / J
    sz = (r[6] * f20 + r[7] * f21 + r[8] * f22) / J
    sxy = (r[0] * f10 + r[1] * f11 + r[2] * f12) / J
    sxz = (r[0] * f20 + r[1] * f21 + r[2] * f22) / J
    syz = (r[3] * f20 + r[4] * f21 + r[5] * f22) / J
    vm = np.sqrt(0.5 * ((sx - sy) ** 2 + (sx - sz) ** 2 + (sy - sz) ** 2) + 3.0 * (sxy * sxy + sxz * sxz + syz * syz))
    return sx, sy, sz, sxy, sxz, syz, vm


@njit(inline="always")
def fe_stress_mises(f00, f01, f02, f10, f11, f12, f20, f21, f22, lam, mu):
    """(sx, sy, sz, sxy, sxz, syz, von Mises) of a finite-element body as Solfec-1.0 computes
    them (fem.c ``cauchy_stress``; the meaning of STRESS, HISTORY 'SX'... and the exported
    STRESS of FE bodies): entries (0,0), (1,1), (2,2), (0,1), (0,2), (1,2) of
    T = F P / det F = F F S / det F, not of P F^T / det F. T equals the Cauchy stress
    F S F^T / det F when F is symmetric (no rotation) and differs from it at second order in
    the displacement gradient otherwise (BM13's shell: 1.5e-4 of SZ). One departure: Solfec
    puts entry (2,0), a second copy of sxz, in the syz slot; here syz is entry (1,2), the
    yz component the command reference promises (no Solfec deck checks SYZ or MISES)."""
    r = svk_stress(f00, f01, f02, f10, f11, f12, f20, f21, f22, lam, mu)
    J = f00 * (f11 * f22 - f12 * f21) - f01 * (f10 * f22 - f12 * f20) + f02 * (f10 * f21 - f11 * f20)
    sx = (f00 * r[0] + f01 * r[3] + f02 * r[6]) / J
    sy = (f10 * r[1] + f11 * r[4] + f12 * r[7]) / J
    sz = (f20 * r[2] + f21 * r[5] + f22 * r[8]) / J
    sxy = (f00 * r[1] + f01 * r[4] + f02 * r[7]) / J
    sxz = (f00 * r[2] + f01 * r[5] + f02 * r[8]) / J
    syz = (f10 * r[2] + f11 * r[5] + f12 * r[8]) / J
    vm = np.sqrt(0.5 * ((sx - sy) ** 2 + (sx - sz) ** 2 + (sy - sz) ** 2) + 3.0 * (sxy * sxy + sxz * sxz + syz * syz))
    return sx, sy, sz, sxy, sxz, syz, vm


@njit
def _many(F, young, poisson, P, A, sig, psi, want_tangent):
    for m in range(F.shape[0]):
        lam, mu = lame(young[m], poisson[m])
        psi[m] = svk_pk1(F[m], lam, mu, P[m])
        if want_tangent:
            svk_tangent(F[m], lam, mu, A[m])
        s = cauchy_mises(F[m, 0, 0], F[m, 0, 1], F[m, 0, 2], F[m, 1, 0], F[m, 1, 1], F[m, 1, 2],
                         F[m, 2, 0], F[m, 2, 1], F[m, 2, 2], lam, mu)
        for i in range(7):
            sig[m, i] = s[i]


def _evaluate(F, young, poisson, tangent: bool):
    F = np.asarray(F, dtype=float)
    lead = F.shape[:-2]
    Fm = np.ascontiguousarray(F.reshape(-1, 3, 3))
    m = Fm.shape[0]
    E = np.ascontiguousarray(np.broadcast_to(np.asarray(young, dtype=float), lead).reshape(m))
    nu = np.ascontiguousarray(np.broadcast_to(np.asarray(poisson, dtype=float), lead).reshape(m))
    P, sig, psi = np.empty((m, 3, 3)), np.empty((m, 7)), np.empty(m)
    A = np.empty((m if tangent else 1, 3, 3, 3, 3))
    _many(Fm, E, nu, P, A, sig, psi, tangent)
    out = {"P": P.reshape(lead + (3, 3)), "psi": psi.reshape(lead), "sigma": sig.reshape(lead + (7,))}
    if tangent:
        out["A"] = A.reshape(lead + (3, 3, 3, 3))
    return out


class SVK:
    """Saint Venant-Kirchhoff (Solfec's ``KIRCHHOFF``): vectorised over leading axes of F
    (..., 3, 3); young and poisson broadcast against them."""
    name = "KIRCHHOFF"
    parameters = ("young", "poisson", "density")

    @staticmethod
    def energy(F, young, poisson) -> np.ndarray:
        """Energy density psi (...)."""
        return _evaluate(F, young, poisson, False)["psi"]

    @staticmethod
    def pk1(F, young, poisson) -> np.ndarray:
        """First Piola-Kirchhoff stress P (..., 3, 3)."""
        return _evaluate(F, young, poisson, False)["P"]

    @staticmethod
    def tangent(F, young, poisson) -> np.ndarray:
        """dP/dF (..., 3, 3, 3, 3), indexed [i, J, k, L]."""
        return _evaluate(F, young, poisson, True)["A"]

    @staticmethod
    def cauchy(F, young, poisson) -> np.ndarray:
        """(..., 7): sx, sy, sz, sxy, sxz, syz and the von Mises stress."""
        return _evaluate(F, young, poisson, False)["sigma"]


LAWS = {"KIRCHHOFF": SVK}
