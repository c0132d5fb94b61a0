"""numba kernels over the rows of the pseudo-rigid block (layer 3): Saint Venant-Kirchhoff
force, energy and 9 x 9 tangent of the one deformation gradient of each body, the inverse
operators of the DEF_EXP / DEF_LIM / quasi-static updates, the free-velocity update, the
critical step and the Delassus blocks. Reference: Solfec-1.0 bod.c (prb_dynamic_force,
prb_dynamic_implicit_inverse, prb_static_inverse, BODY_Dynamic_Critical_Step); the
algebra is docs/pseudo_rigid.md.

Array contract (n = block rows, all float64, C order):
  conf, velo (n, 12)  F and dF/dt row-wise (index 3 i + j) then centre and its velocity
  lame (n, 2)         Lamé constants (lambda, mu);  volume, mass (n,)
  Linv (n, 3, 3)      inverse Cholesky factor of the Euler tensor E0 = L L^T
  Ainv (n, 9, 9)      inverse of the deformable block of the step operator (written here)
The deformable block of the mass matrix is M_F = I_3 (x) E0: row i of dF/dt has mass E0.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.fem.laws import cauchy_mises, svk_stress, svk_tangent_into

EXP, LIM = 0, 1          # scheme codes (pseudo_rigid.SCHEMES)


@njit(inline="always")
def _det(c):
    return (c[0] * (c[4] * c[8] - c[5] * c[7]) - c[1] * (c[3] * c[8] - c[5] * c[6])
            + c[2] * (c[3] * c[7] - c[4] * c[6]))


@njit
def internal_forces(conf, lame, volume, fint, energy, det):  # pragma: no cover - numba
    """fint (n, 9) = V0 P(F) row-wise, energy (n,) = V0 psi(F), det (n,) = det F."""
    for k in range(conf.shape[0]):
        c = conf[k]
        r = svk_stress(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], lame[k, 0], lame[k, 1])
        for a in range(9):
            fint[k, a] = volume[k] * r[a]
        energy[k] = volume[k] * r[15]
        det[k] = _det(c)


@njit(inline="always")
def _tangent(c, lam, mu, vol, W, K):
    """K (9, 9) = V0 dP/dF at F = conf row c (row-wise order on both sides), without
    temporaries: W (3, 3, 3) work space (F, then S and F F^T), A4 (3, 3, 3, 3) in W's wake."""
    F, A4 = W[0], W[3:].reshape((3, 3, 3, 3))
    for i in range(3):
        for j in range(3):
            F[i, j] = c[3 * i + j]
    svk_tangent_into(F, lam, mu, W[1:3], A4)
    for a in range(9):
        for b in range(9):
            K[a, b] = vol * A4[a // 3, a % 3, b // 3, b % 3]


@njit(inline="always")
def _scaled(K, Linv, S, T):
    """S = (I_3 (x) L^-1) K (I_3 (x) L^-1)^T: M_F^-1 K made symmetric (same eigenvalues);
    T (9, 9) is work space."""
    for i in range(3):
        for J in range(3):
            for b in range(9):
                s = 0.0
                for L in range(3):
                    s += Linv[J, L] * K[3 * i + L, b]
                T[3 * i + J, b] = s
    for a in range(9):
        for k in range(3):
            for J in range(3):
                s = 0.0
                for L in range(3):
                    s += T[a, 3 * k + L] * Linv[J, L]
                S[a, 3 * k + J] = s


@njit
def scaled_stiffness(conf, lame, volume, Linv, rows, S, bound):  # pragma: no cover - numba
    """S[m] = M_F^-1 K made symmetric (same eigenvalues) for the bodies `rows`, and
    bound[m] >= lambda_max(S[m]) (Gershgorin: the largest absolute row sum)."""
    W = np.empty((12, 3, 3))
    K = np.empty((9, 9))
    T = np.empty((9, 9))
    for m in range(rows.size):
        k = rows[m]
        _tangent(conf[k], lame[k, 0], lame[k, 1], volume[k], W, K)
        _scaled(K, Linv[k], S[m], T)
        g = 0.0
        for a in range(9):
            r = 0.0
            for b in range(9):
                r += abs(S[m, a, b])
            g = max(g, r)
        bound[m] = g


@njit
def invert(A, out):  # pragma: no cover - numba
    """out = A^-1 (n x n, n small) by Gauss-Jordan elimination with partial pivoting, without
    allocating; A is overwritten. Returns False when a pivot vanishes (singular A)."""
    n = A.shape[0]
    for a in range(n):
        for b in range(n):
            out[a, b] = 1.0 if a == b else 0.0
    for c in range(n):
        p, big = c, abs(A[c, c])
        for r in range(c + 1, n):
            if abs(A[r, c]) > big:
                p, big = r, abs(A[r, c])
        if big == 0.0:
            return False
        if p != c:
            for b in range(n):
                A[c, b], A[p, b] = A[p, b], A[c, b]
                out[c, b], out[p, b] = out[p, b], out[c, b]
        d = 1.0 / A[c, c]
        for b in range(n):
            A[c, b] *= d
            out[c, b] *= d
        for r in range(n):
            if r != c and A[r, c] != 0.0:
                f = A[r, c]
                for b in range(n):
                    A[r, b] -= f * A[c, b]
                    out[r, b] -= f * out[c, b]
    return True


@njit(inline="always")
def _mass_block(euler, coef, A):
    """A (9, 9) = coef * M_F = coef * I_3 (x) E0."""
    for a in range(9):
        for b in range(9):
            A[a, b] = 0.0
    for i in range(3):
        for J in range(3):
            for L in range(3):
                A[3 * i + J, 3 * i + L] = coef * euler[J, L]


@njit
def free_velocity(conf, velo, force, lame, volume, euler, Linv, mass, damping, scheme, h, Ainv,
                  quasi_static):  # pragma: no cover - numba
    """Per body: the step operator and the free velocity from the out-of-balance `force`
    (n, 12) = f_ext - f_int at the current configuration. Dynamic (Solfec's DEF_EXP /
    DEF_LIM): force_F -= eta K u, Ainv = M_F^-1 (kept) or (M_F + (eta h/2 + h^2/4) K)^-1,
    u += h Ainv force. Quasi-static: Ainv = (lambda_max/4 M_F + h^2 K)^-1, u = h Ainv force.
    Returns the first row whose operator cannot be formed (quasi-static lambda_max <= 0 or a
    singular A), else -1."""
    W = np.empty((12, 3, 3))
    K = np.empty((9, 9))
    S = np.empty((9, 9))
    T = np.empty((9, 9))
    A = np.empty((9, 9))
    for k in range(conf.shape[0]):
        eta = damping[k]
        lim = scheme[k] == LIM
        if quasi_static or lim or eta > 0.0:
            _tangent(conf[k], lame[k, 0], lame[k, 1], volume[k], W, K)
        if quasi_static:
            _scaled(K, Linv[k], S, T)
            lmax = np.linalg.eigvalsh(S)[-1]      # once per quasi-static step
            if not lmax > 0.0:
                return k
            _mass_block(euler[k], 0.25 * lmax, A)
            for a in range(9):
                for b in range(9):
                    A[a, b] += h * h * K[a, b]
            if not invert(A, Ainv[k]):
                return k
        else:
            if eta > 0.0:
                for a in range(9):
                    s = 0.0
                    for b in range(9):
                        s += K[a, b] * velo[k, b]
                    force[k, a] -= eta * s
            if lim:
                _mass_block(euler[k], 1.0, A)
                c = 0.5 * eta * h + 0.25 * h * h
                for a in range(9):
                    for b in range(9):
                        A[a, b] += c * K[a, b]
                if not invert(A, Ainv[k]):
                    return k
        inv_m = 1.0 / mass[k] if mass[k] > 0.0 else 0.0
        for a in range(9):
            s = 0.0
            for b in range(9):
                s += Ainv[k, a, b] * force[k, b]
            velo[k, a] = h * s if quasi_static else velo[k, a] + h * s
        for a in range(9, 12):
            velo[k, a] = (0.0 if quasi_static else velo[k, a]) + h * inv_m * force[k, a]
    return -1


@njit
def add_reaction_velocity(velo, reaction, Ainv, mass, h):  # pragma: no cover - numba
    """u += h A^-1 r for every row (A^-1 = blockdiag(Ainv, I / m))."""
    for k in range(velo.shape[0]):
        for a in range(9):
            s = 0.0
            for b in range(9):
                s += Ainv[k, a, b] * reaction[k, b]
            velo[k, a] += h * s
        inv_m = 1.0 / mass[k] if mass[k] > 0.0 else 0.0
        for a in range(9, 12):
            velo[k, a] += h * inv_m * reaction[k, a]


@njit
def delassus(rows, Ha, Hb, Ainv, mass):  # pragma: no cover - numba
    """Ha A^-1 Hb^T (k, 3, 3) for H (k, 3, 12) and A^-1 = blockdiag(Ainv[row], I / m)."""
    out = np.empty((rows.size, 3, 3))
    T = np.empty((3, 9))
    for e in range(rows.size):
        r = rows[e]
        inv_m = 1.0 / mass[r] if mass[r] > 0.0 else 0.0
        for i in range(3):
            for b in range(9):
                s = 0.0
                for a in range(9):
                    s += Ha[e, i, a] * Ainv[r, a, b]
                T[i, b] = s
        for i in range(3):
            for j in range(3):
                s = 0.0
                for b in range(9):
                    s += T[i, b] * Hb[e, j, b]
                lin = Ha[e, i, 9] * Hb[e, j, 9] + Ha[e, i, 10] * Hb[e, j, 10] + Ha[e, i, 11] * Hb[e, j, 11]
                out[e, i, j] = s + inv_m * lin
    return out


@njit
def kinetic_energies(velo, euler, mass, out):  # pragma: no cover - numba
    """out (n,) = 1/2 sum_r dF_r E0 dF_r + 1/2 m v.v (dF_r = row r of dF/dt)."""
    for k in range(velo.shape[0]):
        s = 0.0
        for r in range(3):
            for a in range(3):
                for b in range(3):
                    s += velo[k, 3 * r + a] * euler[k, a, b] * velo[k, 3 * r + b]
        out[k] = 0.5 * s + 0.5 * mass[k] * (velo[k, 9] ** 2 + velo[k, 10] ** 2 + velo[k, 11] ** 2)


@njit
def cauchy_stresses(conf, lame, rows, out):  # pragma: no cover - numba
    """out (k, 7) = (sx, sy, sz, sxy, sxz, syz, von Mises) of the bodies rows[k]."""
    for m in range(rows.size):
        c, k = conf[rows[m]], rows[m]
        s = cauchy_mises(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], lame[k, 0], lame[k, 1])
        for i in range(7):
            out[m, i] = s[i]
