"""Narrow phase of convex polyhedron pairs (layer 5): GJK closest points of two vertex sets
(numba) and the intersection polytope of the two plane sets giving the contact point,
normal, gap, area and surface pair: compiled end to end in `polyhedra_kernels.py`, with the
dual-hull construction (Qhull on the dual points, numba post-processing) kept here as the
fallback and test oracle. Reference: Solfec gjk.c, cvi.c, goc.c convex-convex; docs/contact.md.

Conventions as in `narrow.py`: object a of `convex_convex` owns the normal (it is the slave),
the normal points from a towards b, both objects get the same spatial point, gap <= 0.
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


# --------------------------------------------------------------- intersection polytope


@numba.njit(cache=True)
def _faces(simplices, equations, normals):
    """Primal faces of the dual hull: every dual facet is a primal vertex y = -e/o, every
    dual hull point k a primal face (its incident facets ordered by angle in plane k) which
    is fan-triangulated. Returns the primal vertices and per triangle: the originating
    plane, area and centroid."""
    nf = simplices.shape[0]
    Y = np.empty((nf, 3))
    for f in range(nf):
        for i in range(3):
            Y[f, i] = -equations[f, i] / equations[f, 3]
    K = normals.shape[0]
    count = np.zeros(K, dtype=np.int64)
    for f in range(nf):
        for i in range(3):
            count[simplices[f, i]] += 1
    ntri = 0
    for k in range(K):
        if count[k] >= 3:
            ntri += count[k] - 2
    t_plane = np.empty(ntri, dtype=np.int64)
    t_area = np.empty(ntri)
    t_cent = np.empty((ntri, 3))
    t = 0
    for k in range(K):
        c = count[k]
        if c < 3:
            continue
        ids = np.empty(c, dtype=np.int64)
        m = 0
        for f in range(nf):
            if simplices[f, 0] == k or simplices[f, 1] == k or simplices[f, 2] == k:
                ids[m] = f
                m += 1
        nk = normals[k]
        u = np.zeros(3)                       # a unit vector in plane k
        if abs(nk[0]) < 0.6:
            u[0] = 1.0
        elif abs(nk[1]) < 0.6:
            u[1] = 1.0
        else:
            u[2] = 1.0
        u = u - (u[0] * nk[0] + u[1] * nk[1] + u[2] * nk[2]) * nk
        u = u / np.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])
        w = np.cross(nk, u)
        cen = np.zeros(3)
        for i in range(c):
            cen += Y[ids[i]]
        cen /= c
        ang = np.empty(c)
        for i in range(c):
            e = Y[ids[i]] - cen
            ang[i] = np.arctan2(e[0] * w[0] + e[1] * w[1] + e[2] * w[2], e[0] * u[0] + e[1] * u[1] + e[2] * u[2])
        order = np.argsort(ang)
        y0 = Y[ids[order[0]]]
        for i in range(1, c - 1):
            y1, y2 = Y[ids[order[i]]], Y[ids[order[i + 1]]]
            cr = np.cross(y1 - y0, y2 - y0)
            t_plane[t] = k
            t_area[t] = 0.5 * np.sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2])
            t_cent[t] = (y0 + y1 + y2) / 3.0
            t += 1
    return Y, t_plane, t_area, t_cent


@numba.njit(cache=True)
def _summary(Y, t_plane, t_area, t_cent, normals, owner, surface, lo, hi, origin, eps):
    """Normal (A^2-weighted surface-plane normals of a minus those of b), point (area-weighted
    centroid of all triangles), area (half the surface) and vertices in space; ok = False if
    the sanity checks fail (vertices outside the union box + eps, fewer than 4 triangles,
    non-finite values)."""
    n = np.zeros(3)
    point = np.zeros(3)
    total = 0.0
    ok = t_area.size >= 4
    for t in range(t_area.size):
        k = t_plane[t]
        a = t_area[t]
        total += a
        point += a * t_cent[t]
        if surface[k]:
            s = a * a if owner[k] == 0 else -a * a
            n += s * normals[k]
    V = Y + origin
    for f in range(V.shape[0]):
        for i in range(3):
            if not (V[f, i] >= lo[i] - eps and V[f, i] <= hi[i] + eps):
                ok = False
    size = np.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
    if not (total > 0.0 and size > 0.0):
        ok = False
        return ok, n, point, 0.0, V
    n /= size
    point = point / total + origin
    for i in range(3):
        if not (np.isfinite(point[i]) and np.isfinite(n[i])):
            ok = False
    return ok, n, point, 0.5 * total, V


@numba.njit(cache=True)
def _nearest_surface(point, normals, offsets, surface, sid):
    """Surface id of the surface plane nearest to the point (|signed distance| minimal; all
    planes count when none is a surface plane)."""
    best, best_any, k, k_any = np.inf, np.inf, -1, 0
    for f in range(normals.shape[0]):
        dist = abs(normals[f, 0] * point[0] + normals[f, 1] * point[1] + normals[f, 2] * point[2] - offsets[f])
        if surface[f] and dist < best:
            best, k = dist, f
        if dist < best_any:
            best_any, k_any = dist, f
    return sid[k if k >= 0 else k_any]


@numba.njit(cache=True)
def _finish(va, vb, x, n, V, na, da, sa, ida, nb, db, sb, idb, eps):
    """Steps 3-6 after the intersection polytope: reject a point farther than eps from
    either object; gap from the vertex spread along n, refined by GJK when deeper than eps;
    the surface ids of the planes nearest to the point. Returns (ok, gap, sid a, sid b)."""
    one = np.empty((1, 3))
    one[0] = x
    if gjk(va, one)[2] > eps or gjk(vb, one)[2] > eps:
        return False, 0.0, 0, 0
    lo, hi = np.inf, -np.inf
    for v in range(V.shape[0]):
        pr = V[v, 0] * n[0] + V[v, 1] * n[1] + V[v, 2] * n[2]
        lo, hi = min(lo, pr), max(hi, pr)
    g = lo - hi
    if g < -eps:                                         # refine: depth along n
        dd = gjk(va + g * n, vb - g * n)[2]
        g = min(dd + 2.0 * g, 0.0)
    g = min(g, 0.0)
    return True, g, _nearest_surface(x, na, da, sa, ida), _nearest_surface(x, nb, db, sb, idb)


def intersection(va, vb, na, da, nb, db, surf_a, surf_b, p, lo, hi, eps):
    """Intersection polytope of {na x <= da} and {nb x <= db} around the common point p
    (NUMERICS §5.3.1 steps 1-3). Returns None or (normal from a to b, point, area, vertices)."""
    from scipy.spatial import ConvexHull, QhullError

    normals = np.concatenate((na, nb))
    d = np.concatenate((da, db)) - normals @ p
    d = np.maximum(d, eps)                               # swelling: p strictly inside
    owner = np.concatenate((np.zeros(len(na), np.int64), np.ones(len(nb), np.int64)))
    surface = np.concatenate((surf_a, surf_b))
    try:
        hull = ConvexHull(normals / d[:, None])
    except (QhullError, ValueError):
        return None
    Y, t_plane, t_area, t_cent = _faces(hull.simplices.astype(np.int64), hull.equations, normals)
    ok, n, point, area, V = _summary(Y, t_plane, t_area, t_cent, normals, owner, surface, lo, hi, p, eps)
    if not ok:
        return None
    return n, point, area, V


def convex_convex(table, geo, ca: np.ndarray, cb: np.ndarray, eps: float):
    """Pairs of convex objects (indices into the table's convex arrays): a = ca[k] owns the
    normal. Returns touch (k,), point, normal (from a to b), gap, area, surface id of a, of b.
    One compiled call (`polyhedra_kernels.convex_pairs`); the rare pairs whose polygons
    outgrow its work arrays go through `convex_convex_qhull`."""
    from solfec_py.contact.polyhedra_kernels import convex_pairs

    ca = np.ascontiguousarray(ca, dtype=np.int64)
    cb = np.ascontiguousarray(cb, dtype=np.int64)
    *out, redo, _, _ = convex_pairs(ca, cb, table.c_vstart, table.c_fstart, table.c_obj, geo.v_cur, geo.f_normal,
                              geo.f_offset, table.f_surface, table.f_sid, geo.lo, geo.hi, eps)
    if redo.any():
        k = np.flatnonzero(redo)
        for dst, src in zip(out, convex_convex_qhull(table, geo, ca[k], cb[k], eps)):
            dst[k] = src
    return tuple(out)


def convex_convex_qhull(table, geo, ca: np.ndarray, cb: np.ndarray, eps: float):
    """`convex_convex` by a Python loop over the pairs with Qhull on the dual points (the
    fallback of the compiled path and its test oracle)."""
    m = ca.size
    touch = np.zeros(m, dtype=bool)
    point, normal = np.zeros((m, 3)), np.zeros((m, 3))
    gap, area = np.zeros(m), np.zeros(m)
    sid_a, sid_b = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    if m == 0:
        return touch, point, normal, gap, area, sid_a, sid_b
    P, _, D = gjk_pairs(ca, cb, table.c_vstart, geo.v_cur)
    vs, fs = table.c_vstart, table.c_fstart
    for k in np.flatnonzero(D <= eps).tolist():
        a, b = int(ca[k]), int(cb[k])
        va, vb = geo.v_cur[vs[a]:vs[a + 1]], geo.v_cur[vs[b]:vs[b + 1]]
        fa, fb = slice(fs[a], fs[a + 1]), slice(fs[b], fs[b + 1])
        oa, ob = table.c_obj[a], table.c_obj[b]
        lo = np.minimum(geo.lo[oa], geo.lo[ob])
        hi = np.maximum(geo.hi[oa], geo.hi[ob])
        res = intersection(va, vb, geo.f_normal[fa], geo.f_offset[fa], geo.f_normal[fb], geo.f_offset[fb],
                           table.f_surface[fa], table.f_surface[fb], P[k], lo, hi, eps)
        if res is None:
            continue
        n, x, ar, V = res
        ok, g, sid_a[k], sid_b[k] = _finish(va, vb, x, n, V, geo.f_normal[fa], geo.f_offset[fa], table.f_surface[fa],
                                            table.f_sid[fa], geo.f_normal[fb], geo.f_offset[fb],
                                            table.f_surface[fb], table.f_sid[fb], eps)
        if not ok:
            continue
        touch[k] = True
        point[k], normal[k], gap[k], area[k] = x, n, g, ar
    return touch, point, normal, gap, area, sid_a, sid_b
