"""One restart cycle of left-preconditioned GMRES over vectors split across ranks (layer 5):
the inner products are a caller's global sum, so every rank takes the same steps.
Reference: Saad & Schultz, SIAM J. Sci. Stat. Comput. 7 (1986); scipy.sparse.linalg.gmres.

The cycle is the one scipy's gmres makes with x0 = 0, maxiter = 1: Arnoldi on M A with
modified Gram-Schmidt, Givens rotations (LAPACK lartg), inner stop when the preconditioned
residual estimate falls to rtol |M b| or at breakdown (h_{k+1,k} <= eps |M A v_k|), then the
triangular solve. On one rank it gives scipy's iterate to rounding; the matvec count includes
the product scipy spends on the final true residual, which this cycle does not compute (with
maxiter = 1 it only sets scipy's info flag).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.linalg import get_lapack_funcs

_LARTG = get_lapack_funcs("lartg", dtype=np.float64)
_EPS = float(np.finfo(np.float64).eps)


def cycle(matvec, psolve, b: np.ndarray, rtol: float, restart: int, dot, size: int):
    """x ~ A^-1 b after at most `restart` (capped by the global length `size`) inner steps;
    `dot(u, v)` is the global inner product of local parts. Returns (x, matvecs)."""
    def norm(u):
        return math.sqrt(max(dot(u, u), 0.0))

    x = np.zeros_like(b)
    bnrm = norm(b)
    if bnrm == 0.0 or bnrm < rtol * bnrm:      # scipy: b = 0, or x0 = 0 meets the tolerance
        return x, 0
    restart = max(1, min(int(restart), int(size)))
    Mb = psolve(b)
    ptol = norm(Mb) * min(1.0, rtol * bnrm / bnrm)
    v = np.empty((restart + 1, b.size))
    h = np.zeros((restart, restart + 1))
    givens = np.zeros((restart, 2))
    S = np.zeros(restart + 1)
    beta = norm(Mb)
    v[0] = Mb * (1.0 / beta)
    S[0] = beta
    matvecs = 0
    col = 0
    for col in range(restart):
        w = psolve(matvec(v[col]))
        matvecs += 1
        h0 = norm(w)
        for k in range(col + 1):
            t = dot(v[k], w)
            h[col, k] = t
            w -= t * v[k]
        h1 = norm(w)
        h[col, col + 1] = h1
        v[col + 1] = w
        breakdown = h1 <= _EPS * h0
        if breakdown:
            h[col, col + 1] = 0.0
        else:
            v[col + 1] *= 1.0 / h1
        for k in range(col):
            c, s = givens[k]
            n0, n1 = h[col, k], h[col, k + 1]
            h[col, k], h[col, k + 1] = c * n0 + s * n1, -s * n0 + c * n1
        c, s, mag = _LARTG(h[col, col], h[col, col + 1])
        givens[col] = c, s
        h[col, col], h[col, col + 1] = mag, 0.0
        t = -s * S[col]
        S[col], S[col + 1] = c * S[col], t
        if abs(t) <= ptol or breakdown:
            break
    if h[col, col] == 0.0:
        S[col] = 0.0
    y = S[:col + 1].copy()
    for k in range(col, 0, -1):
        if y[k] != 0.0:
            y[k] /= h[k, k]
            y[:k] -= y[k] * h[k, :k]
    if y[0] != 0.0:
        y[0] /= h[0, 0]
    x += y @ v[:col + 1]
    return x, matvecs + 1
