"""GJK closest points of two convex vertex sets (layer 5, numba): Gilbert-Johnson-Keerthi
iteration on the Minkowski difference with an exact sub-simplex search, per pair and over
arrays of convex pairs. Reference: Gilbert, Johnson & Keerthi, IEEE J. Robot. Autom. 4 (1988);
Solfec gjk.c.
"""
from __future__ import annotations

import numba
import numpy as np

_TINY = 1e-28          # squared distance below which GJK reports an intersection


# --------------------------------------------------------------------------- GJK


@numba.njit(cache=True)
def _simplex_closest(W, n, lam):
    """Closest point to the origin of the convex hull of the n points W[:n]: the smallest of
    the origin's projections onto the affine hulls of all subsets whose barycentric
    coordinates are positive (exact; at most 15 subsets). Writes the coordinates into lam
    (zeros off the support) and returns the point."""
    best = np.inf
    out = np.zeros(3)
    G = np.zeros((3, 3))
    r = np.zeros(3)
    mu = np.zeros(3)
    idx = np.zeros(4, dtype=np.int64)
    for mask in range(1, 1 << n):
        m = 0
        for i in range(n):
            if mask & (1 << i):
                idx[m] = i
                m += 1
        w0 = W[idx[0]]
        k = m - 1
        ok = True
        if k > 0:                         # normal equations of min |w0 + sum mu_i (w_i - w0)|
            for i in range(k):
                ei = W[idx[i + 1]] - w0
                r[i] = -(ei[0] * w0[0] + ei[1] * w0[1] + ei[2] * w0[2])
                for j in range(k):
                    ej = W[idx[j + 1]] - w0
                    G[i, j] = ei[0] * ej[0] + ei[1] * ej[1] + ei[2] * ej[2]
            scale = 0.0
            for i in range(k):
                scale = max(scale, G[i, i])
            if k == 1:
                det = G[0, 0]
                if det <= 1e-14 * scale or det <= 0.0:
                    ok = False
                else:
                    mu[0] = r[0] / det
            elif k == 2:
                det = G[0, 0] * G[1, 1] - G[0, 1] * G[1, 0]
                if det <= 1e-12 * scale * scale or det <= 0.0:
                    ok = False
                else:
                    mu[0] = (r[0] * G[1, 1] - G[0, 1] * r[1]) / det
                    mu[1] = (G[0, 0] * r[1] - G[1, 0] * r[0]) / det
            else:
                det = (G[0, 0] * (G[1, 1] * G[2, 2] - G[1, 2] * G[2, 1])
                       - G[0, 1] * (G[1, 0] * G[2, 2] - G[1, 2] * G[2, 0])
                       + G[0, 2] * (G[1, 0] * G[2, 1] - G[1, 1] * G[2, 0]))
                if det <= 1e-10 * scale * scale * scale or det <= 0.0:
                    ok = False
                else:
                    Gi = np.linalg.inv(G)
                    for i in range(3):
                        mu[i] = Gi[i, 0] * r[0] + Gi[i, 1] * r[1] + Gi[i, 2] * r[2]
        if not ok:
            continue
        l0 = 1.0
        for i in range(k):
            l0 -= mu[i]
            if mu[i] <= 0.0:
                ok = False
        if not ok or l0 <= 0.0:
            continue
        x = l0 * w0
        for i in range(k):
            x = x + mu[i] * W[idx[i + 1]]
        d = x[0] * x[0] + x[1] * x[1] + x[2] * x[2]
        if d < best:
            best = d
            out[:] = x
            for i in range(4):
                lam[i] = 0.0
            lam[idx[0]] = l0
            for i in range(k):
                lam[idx[i + 1]] = mu[i]
    return out


@numba.njit(cache=True)
def gjk(va, vb):
    """Closest points p (of conv va) and q (of conv vb) and their distance (0 when the hulls
    intersect; p = q is then a common point). Gilbert-Johnson-Keerthi iteration on the
    Minkowski difference with an exact sub-simplex search."""
    W = np.zeros((4, 3))
    A = np.zeros((4, 3))
    B = np.zeros((4, 3))
    lam = np.zeros(4)
    A[0], B[0] = va[0], vb[0]
    W[0] = va[0] - vb[0]
    lam[0] = 1.0
    n = 1
    v = W[0].copy()
    for _ in range(200):
        vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
        if vv <= _TINY or n == 4:
            break
        i = 0
        best = np.inf
        for k in range(va.shape[0]):          # support of a in -v
            s = va[k, 0] * v[0] + va[k, 1] * v[1] + va[k, 2] * v[2]
            if s < best:
                best, i = s, k
        j = 0
        best = -np.inf
        for k in range(vb.shape[0]):          # support of b in +v
            s = vb[k, 0] * v[0] + vb[k, 1] * v[1] + vb[k, 2] * v[2]
            if s > best:
                best, j = s, k
        w = va[i] - vb[j]
        if vv - (v[0] * w[0] + v[1] * w[1] + v[2] * w[2]) <= 1e-13 * vv:
            break                               # no progress possible: v is the closest point
        dup = False
        for k in range(n):
            if W[k, 0] == w[0] and W[k, 1] == w[1] and W[k, 2] == w[2]:
                dup = True
        if dup:
            break
        W[n], A[n], B[n] = w, va[i], vb[j]
        n += 1
        x = _simplex_closest(W, n, lam)
        xx = x[0] * x[0] + x[1] * x[1] + x[2] * x[2]
        if xx >= vv:                            # numerical stall: keep the previous point
            n -= 1
            break
        m = 0                                   # keep the supporting points only
        for k in range(n):
            if lam[k] > 0.0:
                W[m], A[m], B[m], lam[m] = W[k], A[k], B[k], lam[k]
                m += 1
        n = m
        v = x
    p = np.zeros(3)
    q = np.zeros(3)
    for k in range(n):
        p += lam[k] * A[k]
        q += lam[k] * B[k]
    e = p - q
    return p, q, np.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])


@numba.njit(cache=True)
def gjk_pairs(ca, cb, c_vstart, v_cur):
    """GJK over pairs of convex objects (indices into the convex ranges c_vstart)."""
    m = ca.size
    P, Q, D = np.zeros((m, 3)), np.zeros((m, 3)), np.zeros(m)
    for k in range(m):
        a, b = ca[k], cb[k]
        p, q, d = gjk(v_cur[c_vstart[a]:c_vstart[a + 1]], v_cur[c_vstart[b]:c_vstart[b + 1]])
        P[k], Q[k], D[k] = p, q, d
    return P, Q, D
