"""Narrow phase of convex polyhedron pairs (layer 5): GJK closest points of two vertex sets
(numba) and the intersection polytope of the two plane sets giving the contact point,
normal, gap, area and surface pair: compiled end to end in `polyhedra_kernels.py`, with the
dual-hull construction (Qhull on the dual points, numba post-processing) kept here as the
fallback and test oracle. Reference: Solfec gjk.c, cvi.c, goc.c convex-convex; docs/contact.md.

Conventions as in `narrow.py`: object a of `convex_convex` owns the normal (it is the slave),
the normal points from a towards b, both objects get the same spatial point, gap <= 0.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.contact.gjk import gjk, gjk_pairs  # noqa: F401  (gjk: public here as before)
from solfec_py.contact.polyhedra_kernels import _finish, convex_pairs

# --------------------------------------------------------------- intersection polytope


@njit
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


@njit
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


def intersection(va, vb, na, da, nb, db, surf_a, surf_b, p, lo, hi, eps):
    """Intersection polytope of {na x <= da} and {nb x <= db} around the common point p
    (docs/contact.md steps 1-3). Returns None or (normal from a to b, point, area, vertices)."""
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
    ca = np.ascontiguousarray(ca, dtype=np.int64)
    cb = np.ascontiguousarray(cb, dtype=np.int64)
    *out, redo, _, _ = convex_pairs(ca, cb, table.c_vstart, table.c_fstart, table.c_obj, geo.v_cur, geo.f_normal,
                                    geo.f_offset, table.f_surface, table.f_sid, table.c_tstart, table.tri,
                                    table.c_closed, table.f_vstart, table.f_vert,
                                    geo.lo, geo.hi, eps, None)
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
