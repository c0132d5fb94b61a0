"""Narrow phase of ellipsoids (layer 5, numba): ellipsoid against ellipsoid or sphere and
against convex polyhedra (CONVEX members, mesh surface elements), over arrays of pairs.
Reference: docs/contact.md; Solfec-1.0 goc.c, gjk.c (ellipsoid contacts from support points).

An ellipsoid is {c + A u : |u| <= 1} (A = current deformation x rotation x semi-axes; a sphere
is A = r I). Every pair minimises F(d) = h_S(d) + h_M(-d) over unit directions d, h the
support function of the slave S and the master M: gap = -min F (the distance when apart, the
least separating translation when they overlap) and the normal n = argmin points from the
slave towards the master, as in `narrow.py`. Smooth pairs use a Newton iteration on the unit
sphere; a polyhedron slave takes the best of its faces (closed form), vertices (nearest point
of the ellipsoid) and edges (nearest point of the ellipse the ellipsoid projects to along the
edge), which holds the minimiser of F whatever feature of the polyhedron it touches.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


@njit
def _h(c, A, d0, d1, d2):
    """Support value of the ellipsoid (c, A) in the direction d."""
    t0 = A[0, 0] * d0 + A[1, 0] * d1 + A[2, 0] * d2
    t1 = A[0, 1] * d0 + A[1, 1] * d1 + A[2, 1] * d2
    t2 = A[0, 2] * d0 + A[1, 2] * d1 + A[2, 2] * d2
    return c[0] * d0 + c[1] * d1 + c[2] * d2 + np.sqrt(t0 * t0 + t1 * t1 + t2 * t2)


@njit
def support(c, A, d):
    """Support point of the ellipsoid (c, A) in the direction d: c + A A^T d / |A^T d|."""
    t = A.T @ d
    return c + A @ t / np.sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2])


@njit
def _tangents(d):
    """Two unit vectors completing the unit d to an orthonormal frame."""
    u = np.zeros(3)
    k = 0 if abs(d[0]) <= abs(d[1]) and abs(d[0]) <= abs(d[2]) else (1 if abs(d[1]) <= abs(d[2]) else 2)
    u[k] = 1.0
    u = u - (u @ d) * d
    u = u / np.sqrt(u @ u)
    return u, np.cross(d, u)


@njit
def _unit(d):
    return d / np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])


@njit
def smooth_min(cs, As, cm, Am, d0, scale):
    """Least F(d) = h_S(d) + h_M(-d) over unit d for two ellipsoids, by Newton's method on
    the unit sphere (Riemannian Hessian P H P - F I) with backtracking, from d0. Returns
    (F, d)."""
    Ms, Mm = As @ As.T, Am @ Am.T
    d = _unit(d0)
    F = _h(cs, As, d[0], d[1], d[2]) + _h(cm, Am, -d[0], -d[1], -d[2])
    for _ in range(60):
        ps, pm = Ms @ d, Mm @ d
        rs, rm = np.sqrt(d @ ps), np.sqrt(d @ pm)
        g = cs + ps / rs - cm + pm / rm
        H = Ms / rs - np.outer(ps, ps) / rs ** 3 + Mm / rm - np.outer(pm, pm) / rm ** 3
        u, w = _tangents(d)
        gu, gw = g @ u, g @ w
        if np.sqrt(gu * gu + gw * gw) <= 1e-13 * scale:
            break
        Hu, Hw = H @ u, H @ w
        k00, k01, k11 = u @ Hu - F, u @ Hw, w @ Hw - F
        det = k00 * k11 - k01 * k01
        if k00 > 0.0 and det > 1e-30 * (k00 * k11 + 1e-300):
            a, b = -(k11 * gu - k01 * gw) / det, -(k00 * gw - k01 * gu) / det
        else:                            # not convex here: a gradient step of curvature size
            s = max(abs(u @ Hu), abs(w @ Hw), abs(F), 1e-300)
            a, b = -gu / s, -gw / s
        step, moved = 1.0, False
        for _ in range(40):
            dn = _unit(d + step * (a * u + b * w))
            Fn = _h(cs, As, dn[0], dn[1], dn[2]) + _h(cm, Am, -dn[0], -dn[1], -dn[2])
            if Fn < F:
                d, F, moved = dn, Fn, True
                break
            step *= 0.5
        if not moved:
            break
    return F, d


@njit
def ellip_ellip(cs, As, cm, Am, prev, eps):
    """Pairs of a slave ellipsoid (cs, As) and a master ellipsoid (cm, Am) (k, 3), (k, 3, 3);
    `prev` (k, 3) earlier normals or zeros. Returns touch, pm, ps, n, gap."""
    m = cs.shape[0]
    touch = np.zeros(m, dtype=np.bool_)
    pm, ps, nrm, gap = np.zeros((m, 3)), np.zeros((m, 3)), np.zeros((m, 3)), np.zeros(m)
    for k in range(m):
        c0, A0, c1, A1 = cs[k], As[k], cm[k], Am[k]
        scale = 0.0
        for i in range(3):
            for j in range(3):
                scale = max(scale, abs(A0[i, j]), abs(A1[i, j]))
        e = c1 - c0
        if e @ e > 0.0 and -(_h(c0, A0, e[0], e[1], e[2]) + _h(c1, A1, -e[0], -e[1], -e[2])) >= eps * np.sqrt(e @ e):
            continue                     # apart by eps along the centre line at least: no contact
        # Newton from the earlier normal, else the centre line; when they overlap and there is
        # no earlier normal, also from the principal directions that start lower
        best, bd = np.inf, np.zeros(3)
        if prev[k] @ prev[k] > 0.0:
            best, bd = smooth_min(c0, A0, c1, A1, prev[k], scale)
        elif e @ e > 0.0:
            best, bd = smooth_min(c0, A0, c1, A1, e, scale)
        if prev[k] @ prev[k] == 0.0 and not best < 0.0:
            for s in range(12):
                d = A0[:, (s // 2) % 3].copy() if s < 6 else A1[:, (s // 2) % 3].copy()
                if s % 2:
                    d = -d
                if d @ d == 0.0:
                    continue
                d = _unit(d)
                if _h(c0, A0, d[0], d[1], d[2]) + _h(c1, A1, -d[0], -d[1], -d[2]) >= best:
                    continue
                Fs, ds = smooth_min(c0, A0, c1, A1, d, scale)
                if Fs < best:
                    best, bd = Fs, ds
        if not (np.isfinite(best) and -best < eps):
            continue
        touch[k] = True
        nrm[k] = bd
        pm[k] = support(c1, A1, -bd)
        ps[k] = support(c0, A0, bd)
        gap[k] = min(-best, 0.0)
    return touch, pm, ps, nrm, gap


# ------------------------------------------------------------------ polyhedron slave


@njit
def nearest_on_ellipse(s, y):
    """Nearest point of the boundary {sum (x_i / s_i)^2 = 1} (n = 2 or 3 semi-axes s > 0, in
    principal coordinates) to the point y, inside or outside: x_i = s_i^2 y_i / (s_i^2 + t)
    with t the root of sum (s_i y_i / (s_i^2 + t))^2 = 1 on (-min s^2, inf), by bisection;
    the degenerate interior case (y on a symmetry plane of the shortest axis) in closed form."""
    n = s.size
    a = np.abs(y)
    kmin = 0
    for i in range(n):
        if s[i] < s[kmin]:
            kmin = i
    lo = -s[kmin] ** 2
    x = np.zeros(n)
    inside = 0.0
    for i in range(n):
        inside += (a[i] / s[i]) ** 2
    if inside <= 1.0 and a[kmin] <= 1e-14 * s[kmin]:
        g, ok = -1.0, True
        for i in range(n):
            if i != kmin:
                if s[i] <= s[kmin] and a[i] > 0.0:
                    ok = False
                elif s[i] > s[kmin]:
                    x[i] = s[i] ** 2 * a[i] / (s[i] ** 2 - s[kmin] ** 2)
                    g += (x[i] / s[i]) ** 2
        if ok and g <= 0.0:
            x[kmin] = s[kmin] * np.sqrt(-g)
            for i in range(n):
                if y[i] < 0.0:
                    x[i] = -x[i]
            return x
    if inside > 1.0:
        hi = 0.0
        for i in range(n):
            hi += (s[i] * a[i]) ** 2
        lo, hi = 0.0, np.sqrt(hi)
    else:
        hi = 0.0
    for _ in range(200):
        t = 0.5 * (lo + hi)
        if t <= lo or t >= hi:
            break
        g = -1.0
        for i in range(n):
            g += (s[i] * a[i] / (s[i] ** 2 + t)) ** 2
        if g > 0.0:
            lo = t
        else:
            hi = t
    t = 0.5 * (lo + hi)
    r = 0.0
    for i in range(n):
        x[i] = s[i] ** 2 * a[i] / (s[i] ** 2 + t)
        r += (x[i] / s[i]) ** 2
    r = np.sqrt(r)
    for i in range(n):
        x[i] = x[i] / r if r > 0.0 else (s[i] if i == kmin else 0.0)
        if y[i] < 0.0:
            x[i] = -x[i]
    return x


@njit
def _poly_F(V, c, A, d):
    """F(d) = h_P(d) + h_E(-d) of a vertex set V and an ellipsoid (c, A)."""
    h = -np.inf
    for v in range(V.shape[0]):
        h = max(h, V[v, 0] * d[0] + V[v, 1] * d[1] + V[v, 2] * d[2])
    return h + _h(c, A, -d[0], -d[1], -d[2])


@njit
def _vertex_direction(v, c, U, S):
    """Direction from the point v to its nearest point on the ellipsoid (c, U, S): minus the
    ellipsoid's outward normal there."""
    y = U.T @ (v - c)
    x = nearest_on_ellipse(S, y)
    m = U @ (x / S ** 2)
    return -_unit(m)


@njit
def _edge_direction(a, b, c, A):
    """Direction perpendicular to the edge ab from its line to the nearest point of the
    ellipse that the ellipsoid (c, A) projects to along the edge (minus its outward normal)."""
    e = _unit(b - a)
    u, w = _tangents(e)
    B0, B1 = A.T @ u, A.T @ w             # projected ellipse {(u.c, w.c) + [B0 B1]^T z}
    p, q, r = B0 @ B0, B0 @ B1, B1 @ B1
    mean, half = 0.5 * (p + r), np.sqrt(0.25 * (p - r) ** 2 + q * q)
    l1, l2 = mean + half, max(mean - half, 1e-300)
    if abs(q) > 1e-300 or p < r:
        v0, v1 = (q, l1 - p) if abs(l1 - p) >= abs(l1 - r) else (l1 - r, q)
        if v0 == 0.0 and v1 == 0.0:
            v0, v1 = 1.0, 0.0
    else:
        v0, v1 = 1.0, 0.0
    nv = np.sqrt(v0 * v0 + v1 * v1)
    v0, v1 = v0 / nv, v1 / nv             # major axis in the (u, w) plane
    s = np.array([np.sqrt(l1), np.sqrt(l2)])
    du, dw = (a - c) @ u, (a - c) @ w
    y = np.array([du * v0 + dw * v1, -du * v1 + dw * v0])
    x = nearest_on_ellipse(s, y)
    m0, m1 = x[0] / s[0] ** 2, x[1] / s[1] ** 2
    mu, mw = m0 * v0 - m1 * v1, m0 * v1 + m1 * v0
    return -_unit(mu * u + mw * w)


@njit
def convex_ellip(cvx, ell, c_vstart, v_cur, c_fstart, f_normal, f_offset, f_surface, f_sid,
                 c_estart, edges, e_center, e_A, eps):
    """Pairs (convex cvx[k], ellipsoid ell[k]); the convex is the slave. Returns touch, pm on
    the ellipsoid, ps on the convex, n, gap, convex surface id."""
    m = cvx.size
    touch = np.zeros(m, dtype=np.bool_)
    pm, ps, nrm, gap = np.zeros((m, 3)), np.zeros((m, 3)), np.zeros((m, 3)), np.zeros(m)
    sid = np.zeros(m, dtype=np.int64)
    for k in range(m):
        ci, ei = cvx[k], ell[k]
        c, A = e_center[ei], e_A[ei]
        V = v_cur[c_vstart[ci]:c_vstart[ci + 1]]
        e = c - V.sum(axis=0) / V.shape[0]
        if e @ e > 0.0 and -_poly_F(V, c, A, _unit(e)) >= eps:
            continue                     # apart by eps along the centre line at least: no contact
        w, U = np.linalg.eigh(A @ A.T)   # principal frame and semi-axes: A A^T = U S^2 U^T
        S = np.sqrt(np.maximum(w, 1e-300))
        best, bd = np.inf, np.zeros(3)
        for f in range(c_fstart[ci], c_fstart[ci + 1]):            # faces: h_P(n_f) = d_f
            d = f_normal[f]
            F = f_offset[f] + _h(c, A, -d[0], -d[1], -d[2])
            if F < best:
                best, bd = F, d.copy()
        for v in range(V.shape[0]):                                 # vertices
            d = _vertex_direction(V[v], c, U, S)
            F = _poly_F(V, c, A, d)
            if F < best:
                best, bd = F, d
        for j in range(c_estart[ci], c_estart[ci + 1]):            # edges
            d = _edge_direction(v_cur[edges[j, 0]], v_cur[edges[j, 1]], c, A)
            F = _poly_F(V, c, A, d)
            if F < best:
                best, bd = F, d
        if not (np.isfinite(best) and -best < eps):
            continue
        q = support(c, A, -bd)
        p = q + best * bd
        near, nsid = np.inf, 0                                      # nearest surface plane
        for f in range(c_fstart[ci], c_fstart[ci + 1]):
            if f_surface[f]:
                dist = abs(f_normal[f] @ p - f_offset[f])
                if dist < near:
                    near, nsid = dist, f_sid[f]
        touch[k] = True
        pm[k], ps[k], nrm[k] = q, p, bd
        gap[k], sid[k] = min(-best, 0.0), nsid
    return touch, pm, ps, nrm, gap, sid
