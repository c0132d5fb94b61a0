"""GJK closest points of two convex vertex sets (layer 5, numba): Gilbert-Johnson-Keerthi
iteration on the Minkowski difference with an exact sub-simplex search, per pair and over
arrays of convex pairs. Reference: Gilbert, Johnson & Keerthi, IEEE J. Robot. Autom. 4 (1988);
Solfec gjk.c.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.geometry.linalg3 import adjugate_solve3

_TINY = 1e-28          # squared distance below which GJK reports an intersection


# --------------------------------------------------------------------------- GJK


@njit
def _simplex_closest(W, n, lam, out, G, r, mu, idx):
    """Closest point to the origin of the convex hull of the n points W[:n]: the smallest of
    the origin's projections onto the affine hulls of all subsets whose barycentric
    coordinates are positive (exact; at most 15 subsets). Writes the coordinates into lam
    (zeros off the support; untouched when no subset qualifies) and the point into out
    (zero then). G (3, 3), r, mu (3) and idx (4) are work arrays. Scalar arithmetic
    throughout (no temporary arrays), in the order of the array form it replaced."""
    best = np.inf
    out[0], out[1], out[2] = 0.0, 0.0, 0.0
    for mask in range(1, 1 << n):
        m = 0
        for i in range(n):
            if mask & (1 << i):
                idx[m] = i
                m += 1
        i0 = idx[0]
        w00, w01, w02 = W[i0, 0], W[i0, 1], W[i0, 2]
        k = m - 1
        ok = True
        if k > 0:                         # normal equations of min |w0 + sum mu_i (w_i - w0)|
            for i in range(k):
                ii = idx[i + 1]
                e0, e1, e2 = W[ii, 0] - w00, W[ii, 1] - w01, W[ii, 2] - w02
                r[i] = -(e0 * w00 + e1 * w01 + e2 * w02)
                for j in range(k):
                    jj = idx[j + 1]
                    f0, f1, f2 = W[jj, 0] - w00, W[jj, 1] - w01, W[jj, 2] - w02
                    G[i, j] = e0 * f0 + e1 * f1 + e2 * f2
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
                    mu[0], mu[1], mu[2] = adjugate_solve3(G[0, 0], G[0, 1], G[0, 2], G[1, 0], G[1, 1], G[1, 2],
                                                          G[2, 0], G[2, 1], G[2, 2], det, r[0], r[1], r[2])
        if not ok:
            continue
        l0 = 1.0
        for i in range(k):
            l0 -= mu[i]
            if mu[i] <= 0.0:
                ok = False
        if not ok or l0 <= 0.0:
            continue
        x0, x1, x2 = l0 * w00, l0 * w01, l0 * w02
        for i in range(k):
            ii = idx[i + 1]
            x0, x1, x2 = x0 + mu[i] * W[ii, 0], x1 + mu[i] * W[ii, 1], x2 + mu[i] * W[ii, 2]
        d = x0 * x0 + x1 * x1 + x2 * x2
        if d < best:
            best = d
            out[0], out[1], out[2] = x0, x1, x2
            for i in range(4):
                lam[i] = 0.0
            lam[i0] = l0
            for i in range(k):
                lam[idx[i + 1]] = mu[i]


@njit
def gjk_work():
    """The work arrays of `gjk_into` (W, A, B (4, 3), lam (4), x (3), G (3, 3), r, mu (3),
    idx (4), p, q (3)), to be allocated once and reused over many calls."""
    return (np.zeros((4, 3)), np.zeros((4, 3)), np.zeros((4, 3)), np.zeros(4), np.zeros(3), np.zeros((3, 3)),
            np.zeros(3), np.zeros(3), np.zeros(4, dtype=np.int64), np.zeros(3), np.zeros(3))


@njit
def gjk(va, vb):
    """Closest points p (of conv va) and q (of conv vb) and their distance (0 when the hulls
    intersect; p = q is then a common point). Gilbert-Johnson-Keerthi iteration on the
    Minkowski difference with an exact sub-simplex search (`gjk_into` with work arrays of
    its own)."""
    work = gjk_work()
    d = gjk_into(va, vb, work, np.int64(0), np.int64(0))
    return work[9], work[10], d


@njit
def gjk_into(va, vb, work, i0, j0):
    """`gjk` on the reusable work arrays `work` (from `gjk_work`; zeroed here first, so that
    every call starts as a fresh one): returns the distance and leaves the closest points
    p, q in work[9], work[10]. The iteration starts from the vertex pair va[i0] - vb[j0]
    (a guess of the closest features saves iterations; 0, 0 without one: pass them as
    int64 variables, `np.int64(0)`, so that numba compiles one version for every caller).
    It runs on scalars (a contact step calls this up to four times per polyhedron pair)."""
    W, A, B, lam, x, G, r, mu, idx, p, q = work
    for k in range(4):
        lam[k] = 0.0
        idx[k] = 0
        for c in range(3):
            W[k, c], A[k, c], B[k, c] = 0.0, 0.0, 0.0
    for k in range(3):
        x[k], r[k], mu[k], p[k], q[k] = 0.0, 0.0, 0.0, 0.0, 0.0
        for c in range(3):
            G[k, c] = 0.0
    for c in range(3):
        A[0, c], B[0, c] = va[i0, c], vb[j0, c]
        W[0, c] = va[i0, c] - vb[j0, c]
    lam[0] = 1.0
    n = 1
    v0, v1, v2 = W[0, 0], W[0, 1], W[0, 2]
    for _ in range(200):
        vv = v0 * v0 + v1 * v1 + v2 * v2
        if vv <= _TINY or n == 4:
            break
        i = 0
        best = np.inf
        for k in range(va.shape[0]):          # support of a in -v
            s = va[k, 0] * v0 + va[k, 1] * v1 + va[k, 2] * v2
            if s < best:
                best, i = s, k
        j = 0
        best = -np.inf
        for k in range(vb.shape[0]):          # support of b in +v
            s = vb[k, 0] * v0 + vb[k, 1] * v1 + vb[k, 2] * v2
            if s > best:
                best, j = s, k
        w0, w1, w2 = va[i, 0] - vb[j, 0], va[i, 1] - vb[j, 1], va[i, 2] - vb[j, 2]
        if vv - (v0 * w0 + v1 * w1 + v2 * w2) <= 1e-13 * vv:
            break                               # no progress possible: v is the closest point
        dup = False
        for k in range(n):
            if W[k, 0] == w0 and W[k, 1] == w1 and W[k, 2] == w2:
                dup = True
        if dup:
            break
        W[n, 0], W[n, 1], W[n, 2] = w0, w1, w2
        for c in range(3):
            A[n, c], B[n, c] = va[i, c], vb[j, c]
        n += 1
        _simplex_closest(W, n, lam, x, G, r, mu, idx)
        xx = x[0] * x[0] + x[1] * x[1] + x[2] * x[2]
        if xx >= vv:                            # numerical stall: keep the previous point
            n -= 1
            break
        m = 0                                   # keep the supporting points only
        for k in range(n):
            if lam[k] > 0.0:
                for c in range(3):
                    W[m, c], A[m, c], B[m, c] = W[k, c], A[k, c], B[k, c]
                lam[m] = lam[k]
                m += 1
        n = m
        v0, v1, v2 = x[0], x[1], x[2]
    for k in range(n):
        for c in range(3):
            p[c] += lam[k] * A[k, c]
            q[c] += lam[k] * B[k, c]
    e0, e1, e2 = p[0] - q[0], p[1] - q[1], p[2] - q[2]
    return np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)


@njit
def gjk_pairs(ca, cb, c_vstart, v_cur):
    """GJK over pairs of convex objects (indices into the convex ranges c_vstart)."""
    m = ca.size
    P, Q, D = np.zeros((m, 3)), np.zeros((m, 3)), np.zeros(m)
    work = gjk_work()
    z = np.int64(0)
    for k in range(m):
        a, b = ca[k], cb[k]
        D[k] = gjk_into(v_cur[c_vstart[a]:c_vstart[a + 1]], v_cur[c_vstart[b]:c_vstart[b + 1]], work, z, z)
        P[k], Q[k] = work[9], work[10]
    return P, Q, D
