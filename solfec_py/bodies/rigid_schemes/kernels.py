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
from numba import njit


@njit(cache=True)
def inv3(M):
    """Inverse of a 3 x 3 matrix by cofactors."""
    out = np.empty((3, 3))
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
    return out / det


@njit(cache=True)
def _skew(w):
    S = np.zeros((3, 3))
    S[0, 1], S[0, 2] = -w[2], w[1]
    S[1, 0], S[1, 2] = w[2], -w[0]
    S[2, 0], S[2, 1] = -w[1], w[0]
    return S


@njit(cache=True)
def _spatial_inertia(R, J):
    return R @ J @ R.T


def orthonormalize(R) -> np.ndarray:
    """The nearest rotations (polar factors) of nearly orthogonal R (k, 3, 3), by the
    Newton iteration X <- X (3 I - X^T X) / 2 (Bjorck & Bowie, SIAM J. Numer. Anal. 8 (1971))."""
    R = np.array(R, dtype=np.float64, order="C")
    _orthonormalize(R)
    return R


@njit(cache=True)
def _orthonormalize(R):
    eye = np.eye(3)
    for k in range(R.shape[0]):
        X = R[k].copy()
        for _ in range(8):
            Y = 0.5 * X @ (3.0 * eye - X.T @ X)
            change = np.abs(Y - X).max()
            X = Y
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


@njit(cache=True)
def _momentum(R, J, mass, Ma, v, w):
    k = R.shape[0]
    P = np.empty((k, 6))
    u = np.empty(6)
    for n in range(k):
        A = _spatial_inertia(R[n], J[n])
        P[n, 0:3] = mass[n] * v[n]
        P[n, 3:6] = A @ w[n]
        if Ma.shape[0]:
            u[0:3], u[3:6] = v[n], w[n]
            P[n] += Ma[n] @ u
    return P


@njit(cache=True)
def _velocities(R, J, mass, Ma, P, v, w):
    for n in range(R.shape[0]):
        A = _spatial_inertia(R[n], J[n])
        if Ma.shape[0]:
            M = Ma[n].copy()
            for i in range(3):
                M[i, i] += mass[n]
            M[3:6, 3:6] += A
            u = np.linalg.solve(M, P[n].copy())
            v[n], w[n] = u[0:3], u[3:6]
        else:
            v[n] = P[n, 0:3] / mass[n]
            w[n] = np.linalg.solve(A, P[n, 3:6].copy())


@njit(cache=True)
def _dirk_stage(Rh, xh, P, c, J, mass, Ma, w, R_out, x_out, v_out, tol, maxit):
    """Solve one DIRK stage for every row, the stage momentum P (k, 6) given:
        R = (I - c [w]x)^-1 Rh,   x = xh + c v,   M(R) (v, w) = P,
    i.e. Newton on w (3 unknowns) of
        r(w) = M21 v(w) + (A(R(w)) + M22) w - P_ang,  v(w) = (m I + M11)^-1 (P_lin - M12 w)
    with the analytic Jacobian A + M22 - M21 (m I + M11)^-1 M12 + sum_k (dA/dw_k w) e_k^T,
    dR/dw_k = c (I - c[w])^-1 [e_k] R, dA/dw_k = dR_k J R^T + R J dR_k^T (docs/integrators.md).
    `w` (k, 3) holds the initial guess and the result. Returns the first row that did
    not converge in `maxit` iterations, or -1."""
    eye = np.eye(3)
    for n in range(Rh.shape[0]):
        Pl, Pa = P[n, 0:3].copy(), P[n, 3:6].copy()
        if Ma.shape[0]:
            Mll = Ma[n, 0:3, 0:3] + mass[n] * eye
            M12, M21, M22 = Ma[n, 0:3, 3:6].copy(), Ma[n, 3:6, 0:3].copy(), Ma[n, 3:6, 3:6].copy()
        else:
            Mll = mass[n] * eye
            M12 = np.zeros((3, 3))
            M21 = np.zeros((3, 3))
            M22 = np.zeros((3, 3))
        Mll_inv = inv3(Mll)
        schur = M22 - M21 @ Mll_inv @ M12
        wn = w[n].copy()
        ok = False
        for _ in range(maxit):
            Mi_inv = inv3(eye - c * _skew(wn))
            R = Mi_inv @ Rh[n]
            A = _spatial_inertia(R, J[n])
            v = Mll_inv @ (Pl - M12 @ wn)
            r = M21 @ v + (A + M22) @ wn - Pa
            scale = np.abs(Pa).max() + np.abs(A @ wn).max() + 1e-300
            if np.abs(r).max() <= tol * scale:
                ok = True
                break
            jac = A + schur
            for kk in range(3):
                ek = np.zeros(3)
                ek[kk] = 1.0
                dR = c * Mi_inv @ _skew(ek) @ R
                dA = dR @ J[n] @ R.T + R @ J[n] @ dR.T
                jac[:, kk] += dA @ wn
            wn = wn - np.linalg.solve(jac, r)
        if not ok:
            return n
        w[n] = wn
        R_out[n] = R
        v_out[n] = v
        x_out[n] = xh[n] + c * v
    return -1
