"""numba kernels of the rigid schemes of the literature (layer 3): the generalised momentum
of a rigid body with an optional added-mass matrix, its inverse, the re-orthonormalisation of
a rotation, and the Newton solve of a DIRK stage. Every kernel loops over the rows of
one scheme (k bodies) with 3 x 3 algebra written out; docs/integrators.md derives the
formulas.

Conventions: R (k, 3, 3) maps body to space, J (k, 3, 3) is the referential inertia, so the
spatial inertia is A = R J R^T; w is the spatial angular velocity (w = R Omega); the
generalised momentum of u = (v, w) is P = M(R) u with
    M(R) = [[m I + M11, M12], [M21, A(R) + M22]]
and Ma = [[M11, M12], [M21, M22]] (k, 6, 6) the spatial added-mass matrix (Henshaw 2016),
an empty (0, 6, 6) array when there is none.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


@njit
def inv3(M, out):
    """out = M^-1 (3 x 3, cofactors); returns det M."""
    out[0, 0] = M[1, 1] * M[2, 2] - M[1, 2] * M[2, 1]
    out[0, 1] = M[0, 2] * M[2, 1] - M[0, 1] * M[2, 2]
    out[0, 2] = M[0, 1] * M[1, 2] - M[0, 2] * M[1, 1]
    out[1, 0] = M[1, 2] * M[2, 0] - M[1, 0] * M[2, 2]
    out[1, 1] = M[0, 0] * M[2, 2] - M[0, 2] * M[2, 0]
    out[1, 2] = M[0, 2] * M[1, 0] - M[0, 0] * M[1, 2]
    out[2, 0] = M[1, 0] * M[2, 1] - M[1, 1] * M[2, 0]
    out[2, 1] = M[0, 1] * M[2, 0] - M[0, 0] * M[2, 1]
    out[2, 2] = M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
    det = M[0, 0] * out[0, 0] + M[0, 1] * out[1, 0] + M[0, 2] * out[2, 0]
    for i in range(3):
        for j in range(3):
            out[i, j] /= det
    return det


@njit
def _mm(A, B, out):
    """out = A @ B (3 x 3), out distinct from A and B."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@njit
def _mmt(A, B, out):
    """out = A @ B^T (3 x 3)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]


@njit
def _mv(A, x, out):
    """out = A @ x (3)."""
    for i in range(3):
        out[i] = A[i, 0] * x[0] + A[i, 1] * x[1] + A[i, 2] * x[2]


@njit
def _skew(w):
    S = np.zeros((3, 3))
    S[0, 1], S[0, 2] = -w[2], w[1]
    S[1, 0], S[1, 2] = w[2], -w[0]
    S[2, 0], S[2, 1] = -w[1], w[0]
    return S


@njit
def _spatial_inertia(R, J, RJ, A):
    """RJ = R J, A = R J R^T."""
    _mm(R, J, RJ)
    _mmt(RJ, R, A)


def orthonormalize(R) -> np.ndarray:
    """The nearest rotations (polar factors) of nearly orthogonal R (k, 3, 3), by the
    Newton iteration X <- X (3 I - X^T X) / 2 (Bjorck & Bowie, SIAM J. Numer. Anal. 8 (1971))."""
    R = np.array(R, dtype=np.float64, order="C")
    _orthonormalize(R)
    return R


@njit
def _orthonormalize(R):
    X, G, Y = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    for k in range(R.shape[0]):
        X[:, :] = R[k]
        for _ in range(8):
            for i in range(3):                     # X^T X
                for j in range(3):
                    G[i, j] = X[0, i] * X[0, j] + X[1, i] * X[1, j] + X[2, i] * X[2, j]
            for i in range(3):
                for j in range(3):
                    G[i, j] = (3.0 if i == j else 0.0) - G[i, j]
            _mm(X, G, Y)
            change = 0.0
            for i in range(3):
                for j in range(3):
                    Y[i, j] *= 0.5
                    change = max(change, abs(Y[i, j] - X[i, j]))
            X[:, :] = Y
            if change < 1e-16:
                break
        R[k] = X


def contiguous(a):
    return np.ascontiguousarray(a, dtype=np.float64)


def momentum(R, J, mass, Ma, v, w) -> np.ndarray:
    """P = M(R) (v, w), rows (k, 6): linear part first."""
    return _momentum(contiguous(R), contiguous(J), contiguous(mass), contiguous(Ma), contiguous(v),
                     contiguous(w))


def velocities(R, J, mass, Ma, P) -> tuple[np.ndarray, np.ndarray]:
    """(v, w) = M(R)^-1 P, rows (k, 3) each."""
    k = R.shape[0]
    v, w = np.empty((k, 3)), np.empty((k, 3))
    _velocities(contiguous(R), contiguous(J), contiguous(mass), contiguous(Ma), contiguous(P), v, w)
    return v, w


def dirk_stage(Rh, xh, P, c, J, mass, Ma, w, tol, maxit):
    """Solve one DIRK stage (see `_dirk_stage`); returns (R, x, v, w, first failed row or -1)."""
    k = Rh.shape[0]
    w = contiguous(w).copy()
    R, x, v = np.empty((k, 3, 3)), np.empty((k, 3)), np.empty((k, 3))
    bad = _dirk_stage(contiguous(Rh), contiguous(xh), contiguous(P), float(c), contiguous(J), contiguous(mass),
                      contiguous(Ma), w, R, x, v, tol, maxit)
    return R, x, v, w, bad


@njit
def _momentum(R, J, mass, Ma, v, w):
    k = R.shape[0]
    P = np.empty((k, 6))
    RJ, A, Aw = np.empty((3, 3)), np.empty((3, 3)), np.empty(3)
    for n in range(k):
        _spatial_inertia(R[n], J[n], RJ, A)
        _mv(A, w[n], Aw)
        for i in range(3):
            P[n, i] = mass[n] * v[n, i]
            P[n, 3 + i] = Aw[i]
        if Ma.shape[0]:
            for i in range(6):
                for j in range(3):
                    P[n, i] += Ma[n, i, j] * v[n, j] + Ma[n, i, 3 + j] * w[n, j]
    return P


@njit
def _velocities(R, J, mass, Ma, P, v, w):
    RJ, A, Ainv = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    for n in range(R.shape[0]):
        _spatial_inertia(R[n], J[n], RJ, A)
        if Ma.shape[0]:
            M = Ma[n].copy()
            for i in range(3):
                M[i, i] += mass[n]
                for j in range(3):
                    M[3 + i, 3 + j] += A[i, j]
            u = np.linalg.solve(M, P[n].copy())
            v[n], w[n] = u[0:3], u[3:6]
        else:
            inv3(A, Ainv)
            _mv(Ainv, P[n, 3:6], w[n])
            for i in range(3):
                v[n, i] = P[n, i] / mass[n]


@njit
def _dirk_stage(Rh, xh, P, c, J, mass, Ma, w, R_out, x_out, v_out, tol, maxit):
    """Solve one DIRK stage for every row, the stage momentum P (k, 6) given:
        R = (I - c [w]x)^-1 Rh,   x = xh + c v,   M(R) (v, w) = P,
    i.e. Newton on w (3 unknowns) of
        r(w) = M21 v(w) + (A(R(w)) + M22) w - P_ang,  v(w) = (m I + M11)^-1 (P_lin - M12 w)
    with the analytic Jacobian A + M22 - M21 (m I + M11)^-1 M12 + sum_k (dA/dw_k w) e_k^T,
    dR/dw_k = c (I - c[w])^-1 [e_k] R, dA/dw_k = dR_k J R^T + R J dR_k^T (docs/integrators.md).
    `w` (k, 3) holds the initial guess and the result. Returns the first row that did
    not converge in `maxit` iterations, or -1. 3 x 3 algebra in place (no allocation per row)."""
    Mll, Mll_inv, M12, M21, M22 = (np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3)),
                                   np.zeros((3, 3)))
    schur, T1, T2, Mi, Mi_inv = (np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)),
                                 np.empty((3, 3)))
    R, RJ, A, jac, jinv = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    SkR, dR, X, Y = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    v, r, tmp, wn, Aw, Mw = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for n in range(Rh.shape[0]):
        for i in range(3):
            for j in range(3):
                Mll[i, j] = Ma[n, i, j] if Ma.shape[0] else 0.0
                if Ma.shape[0]:
                    M12[i, j], M21[i, j], M22[i, j] = Ma[n, i, 3 + j], Ma[n, 3 + i, j], Ma[n, 3 + i, 3 + j]
            Mll[i, i] += mass[n]
        inv3(Mll, Mll_inv)
        _mm(M21, Mll_inv, T1)
        _mm(T1, M12, T2)
        for i in range(3):
            for j in range(3):
                schur[i, j] = M22[i, j] - T2[i, j]
        wn[:] = w[n]
        ok = False
        for _ in range(maxit):
            Mi[0, 0], Mi[0, 1], Mi[0, 2] = 1.0, c * wn[2], -c * wn[1]          # I - c [w]x
            Mi[1, 0], Mi[1, 1], Mi[1, 2] = -c * wn[2], 1.0, c * wn[0]
            Mi[2, 0], Mi[2, 1], Mi[2, 2] = c * wn[1], -c * wn[0], 1.0
            inv3(Mi, Mi_inv)
            _mm(Mi_inv, Rh[n], R)
            _spatial_inertia(R, J[n], RJ, A)
            _mv(M12, wn, Mw)
            for i in range(3):
                tmp[i] = P[n, i] - Mw[i]
            _mv(Mll_inv, tmp, v)
            _mv(A, wn, Aw)
            _mv(M21, v, tmp)
            _mv(M22, wn, Mw)
            err, scale = 0.0, 1e-300
            for i in range(3):
                r[i] = tmp[i] + Aw[i] + Mw[i] - P[n, 3 + i]
                err = max(err, abs(r[i]))
                scale = max(scale, abs(P[n, 3 + i]))
            scale += max(abs(Aw[0]), abs(Aw[1]), abs(Aw[2]))
            if err <= tol * scale:
                ok = True
                break
            for i in range(3):
                for j in range(3):
                    jac[i, j] = A[i, j] + schur[i, j]
            for kk in range(3):
                # [e_k]x R: the rows of R crossed by e_k
                SkR[:, :] = 0.0
                a, b = (kk + 1) % 3, (kk + 2) % 3
                for j in range(3):
                    SkR[b, j] = R[a, j]
                    SkR[a, j] = -R[b, j]
                _mm(Mi_inv, SkR, dR)
                for i in range(3):
                    for j in range(3):
                        dR[i, j] *= c
                _mm(dR, J[n], T1)
                _mmt(T1, R, X)               # dR J R^T
                _mmt(RJ, dR, Y)              # R J dR^T
                for i in range(3):
                    jac[i, kk] += ((X[i, 0] + Y[i, 0]) * wn[0] + (X[i, 1] + Y[i, 1]) * wn[1]
                                   + (X[i, 2] + Y[i, 2]) * wn[2])
            inv3(jac, jinv)
            _mv(jinv, r, tmp)
            for i in range(3):
                wn[i] -= tmp[i]
        if not ok:
            return n
        w[n] = wn
        R_out[n] = R
        v_out[n] = v
        for i in range(3):
            x_out[n, i] = xh[n, i] + c * v[i]
    return -1
