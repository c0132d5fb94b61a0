"""Compiled narrow phase of convex polyhedron pairs (layer 5): one numba call over all pairs
of a step — GJK, the intersection polytope of the two (swollen) plane sets by successive
clipping, and its summary (point, normal, area, gap, surface pair) — with no Qhull and no
Python loop per pair. Reference: Solfec cvi.c / goc.c (convex-convex), docs/contact.md.

The polytope is the same as the dual-hull construction of `polyhedra.intersection` (planes
n.y <= max(n.(x0 - p), eps) around the GJK point p); each face keeps the plane it comes from
and is fan-triangulated from its vertex of smallest angle about the face's vertex mean, so
that area, point and the A^2-weighted normal follow the same rule. The clipping starts from
a's own faces and vertices (`own_faces`) where a's planes and vertices agree and no plane
of a is swollen, else from a box cut by a's planes; b's planes then cut it. A pair whose
polygons outgrow the work arrays is flagged for the Qhull path
(`polyhedra.convex_convex_qhull`).

The polytope's construction and summary are in `clipping.py`.

The kernels here and in gjk.py are compiled, as every kernel, with numba's "numpy" error
model (compilation.njit): no check for a division by zero before each division; every
division here is guarded by its own test or has a divisor that cannot vanish.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.contact.clipping import (DEDUP, box_faces, clip, own_faces, own_polytope, own_vertices, plane_axes,
                                        polytope_summary, reaches)
from solfec_py.contact.gjk import gjk_into, gjk_work


@njit(inline="always")
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit
def _nearest_surface(point, normals, offsets, surface, sid, f0, f1):
    """Surface id of the surface plane f0 <= f < f1 nearest to the point (|signed distance|
    minimal; all planes count when none is a surface plane)."""
    best, best_any, k, k_any = np.inf, np.inf, -1, f0
    for f in range(f0, f1):
        dist = abs(normals[f, 0] * point[0] + normals[f, 1] * point[1] + normals[f, 2] * point[2] - offsets[f])
        if surface[f] and dist < best:
            best, k = dist, f
        if dist < best_any:
            best_any, k_any = dist, f
    return sid[k if k >= 0 else k_any]


@njit
def _behind_all(v_cur, tri, t0, t1, x):
    """Is x strictly behind every triangle tri[t0:t1] (outward (b - a) x (c - a)), each
    by more than the rounding bound 1e-12 |b - a|_1 |c - a|_1 |x - a|_1 of its triple
    product? On a closed consistently oriented surface (`objects.closed_surface`) all
    signed solid angles of the triangles seen from x then have one sign, so x is enclosed
    (winding number not 0) and lies in the hull of the vertices: its GJK distance is 0."""
    for t in range(t0, t1):
        ia, ib, ic = tri[t, 0], tri[t, 1], tri[t, 2]
        a0, a1, a2 = v_cur[ia, 0], v_cur[ia, 1], v_cur[ia, 2]
        u0, u1, u2 = v_cur[ib, 0] - a0, v_cur[ib, 1] - a1, v_cur[ib, 2] - a2
        w0, w1, w2 = v_cur[ic, 0] - a0, v_cur[ic, 1] - a1, v_cur[ic, 2] - a2
        e0, e1, e2 = x[0] - a0, x[1] - a1, x[2] - a2
        det = (u1 * w2 - u2 * w1) * e0 + (u2 * w0 - u0 * w2) * e1 + (u0 * w1 - u1 * w0) * e2
        bound = 1e-12 * ((abs(u0) + abs(u1) + abs(u2)) * (abs(w0) + abs(w1) + abs(w2))
                         * (abs(e0) + abs(e1) + abs(e2)))
        if not det < -bound:
            return False
    return True


@njit
def _finish(va, vb, x, n, V, na, da, sa, ida, nb, db, sb, idb, eps):
    """Steps 3-6 after the intersection polytope: reject a point farther than eps from
    either object; gap from the vertex spread along n, refined by GJK when deeper than eps;
    the surface ids of the planes nearest to the point. Returns (ok, gap, sid a, sid b).
    (`_gap_into` with work arrays of its own, and `_nearest_surface`.)"""
    ok, g = _gap_into(va, vb, x, n, V, eps, gjk_work(), np.empty((1, 3)), np.empty_like(va), np.empty_like(vb),
                      False, False)
    if not ok:
        return False, 0.0, 0, 0
    return True, g, _nearest_surface(x, na, da, sa, ida, 0, na.shape[0]), _nearest_surface(x, nb, db, sb, idb, 0,
                                                                                          nb.shape[0])


@njit
def _gap_into(va, vb, x, n, V, eps, work, one, sha, shb, in_a, in_b):
    """`_finish`'s point check and gap, (ok, gap), on reusable work arrays: `work` of
    `gjk.gjk_work`, one (1, 3), sha and shb at least as long as va and vb (the shifted
    copies of the refinement). in_a (in_b): x is known to be inside a (b), whose GJK
    distance check (0 <= eps) is then skipped."""
    one[0, 0], one[0, 1], one[0, 2] = x[0], x[1], x[2]
    z = np.int64(0)
    if (not in_a and gjk_into(va, one, work, z, z) > eps) or (not in_b and gjk_into(vb, one, work, z, z) > eps):
        return False, 0.0
    lo, hi = np.inf, -np.inf
    for v in range(V.shape[0]):
        pr = V[v, 0] * n[0] + V[v, 1] * n[1] + V[v, 2] * n[2]
        lo, hi = min(lo, pr), max(hi, pr)
    g = lo - hi
    if g < -eps:                                         # refine: depth along n
        g0, g1, g2 = g * n[0], g * n[1], g * n[2]       # va + g n, vb - g n, elementwise
        na_, nb_ = va.shape[0], vb.shape[0]
        ia, ib, top, bottom = z, z, -np.inf, np.inf     # GJK starts from the extreme vertices along n
        for i in range(na_):
            sha[i, 0], sha[i, 1], sha[i, 2] = va[i, 0] + g0, va[i, 1] + g1, va[i, 2] + g2
            pr = va[i, 0] * n[0] + va[i, 1] * n[1] + va[i, 2] * n[2]
            if pr > top:
                top, ia = pr, i
        for i in range(nb_):
            shb[i, 0], shb[i, 1], shb[i, 2] = vb[i, 0] - g0, vb[i, 1] - g1, vb[i, 2] - g2
            pr = vb[i, 0] * n[0] + vb[i, 1] * n[1] + vb[i, 2] * n[2]
            if pr < bottom:
                bottom, ib = pr, i
        dd = gjk_into(sha[:na_], shb[:nb_], work, ia, ib)
        g = min(dd + 2.0 * g, 0.0)
    return True, min(g, 0.0)


@njit
def _far(Y, c):
    """Index of the row of Y farthest from the point c."""
    best, j = -1.0, 0
    for i in range(Y.shape[0]):
        e0, e1, e2 = Y[i, 0] - c[0], Y[i, 1] - c[1], Y[i, 2] - c[2]
        d = e0 * e0 + e1 * e1 + e2 * e2
        if d > best:
            best, j = d, i
    return j, np.sqrt(best)


@njit(inline="always")
def _put(out, k, x0, x1, x2):
    """out[k] = (x0, x1, x2), element by element (an array assignment would compile numba's
    shape-mismatch message, seconds of a first run)."""
    out[k, 0], out[k, 1], out[k, 2] = x0, x1, x2


@njit
def polygon_corners(V, x, n, tol, out):
    """Up to four points spanning the contact polygon: the vertices V projected onto the
    plane through x normal to n; P0 the farthest from x, P1 the farthest from P0, P2 and P3
    the farthest from the line P0 P1 on either side. Points closer than tol to the ones
    already chosen (to the line for P2, P3) are left out. Writes out[:k]; returns k."""
    Y = np.empty_like(V)
    for i in range(V.shape[0]):
        t = (V[i, 0] - x[0]) * n[0] + (V[i, 1] - x[1]) * n[1] + (V[i, 2] - x[2]) * n[2]
        for j in range(3):
            Y[i, j] = V[i, j] - t * n[j]
    i0, r0 = _far(Y, x)
    if r0 <= tol:
        _put(out, 0, x[0], x[1], x[2])
        return 1
    i1, r1 = _far(Y, Y[i0])
    _put(out, 0, Y[i0, 0], Y[i0, 1], Y[i0, 2])
    _put(out, 1, Y[i1, 0], Y[i1, 1], Y[i1, 2])
    if r1 <= tol:
        _put(out, 0, x[0], x[1], x[2])
        return 1
    e0, e1, e2 = (Y[i1, 0] - Y[i0, 0]) / r1, (Y[i1, 1] - Y[i0, 1]) / r1, (Y[i1, 2] - Y[i0, 2]) / r1
    s0, s1, s2 = n[1] * e2 - n[2] * e1, n[2] * e0 - n[0] * e2, n[0] * e1 - n[1] * e0   # n x e: across P0 P1
    lo, hi, jlo, jhi = 0.0, 0.0, -1, -1
    for i in range(Y.shape[0]):
        h = (Y[i, 0] - Y[i0, 0]) * s0 + (Y[i, 1] - Y[i0, 1]) * s1 + (Y[i, 2] - Y[i0, 2]) * s2
        if h > hi:
            hi, jhi = h, i
        if h < lo:
            lo, jlo = h, i
    k = 2
    if hi > tol:
        _put(out, k, Y[jhi, 0], Y[jhi, 1], Y[jhi, 2])
        k += 1
    if -lo > tol:
        _put(out, k, Y[jlo, 0], Y[jlo, 1], Y[jlo, 2])
        k += 1
    return k


@njit
def convex_pairs(ca, cb, c_vstart, c_fstart, c_obj, v_cur, f_normal, f_offset, f_surface, f_sid,
                 c_tstart, tri, c_closed, f_vstart, f_vert, lo_box, hi_box, eps, corner_tol):
    """Narrow phase of the convex pairs (ca[k] owns the normal; c_tstart, tri, c_closed as
    in `objects.ObjectTable`: a point strictly inside a closed convex skips its GJK check,
    `_behind_all`; f_vstart, f_vert: the table's face polygons, from which a's own polytope
    starts the clipping, `own_faces`). Returns touch, point,
    normal (from a to b), gap, area, surface id of a, of b, `redo` (pairs whose work
    arrays overflowed: to be evaluated by the Qhull path) and, when corner_tol is a number, the
    `polygon_corners` of every contact (m, 4, 3) with their count (m,), corners kept apart
    by at least max(corner_tol, 10 x the lens thickness along the normal). corner_tol None: no
    corners (corners (0, 4, 3)), and numba then prunes the corner code from the kernel it
    compiles (`polygon_corners` is compiled only for decks that ask for corners)."""
    m = ca.size
    touch = np.zeros(m, dtype=np.bool_)
    redo = np.zeros(m, dtype=np.bool_)
    point, normal = np.zeros((m, 3)), np.zeros((m, 3))
    gap, area = np.zeros(m), np.zeros(m)
    sid_a, sid_b = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    mc = 0
    if corner_tol is not None:
        mc = m
    corners = np.zeros((mc, 4, 3))
    ncorner = np.zeros(m, dtype=np.int64)
    kmax = 0
    for c in range(c_fstart.size - 1):
        kmax = max(kmax, c_fstart[c + 1] - c_fstart[c])
    maxf = 2 * kmax + 6
    maxp = 2 * (2 * kmax + 6) + 8
    FV = np.empty((maxf, maxp, 3))
    FN = np.zeros(maxf, dtype=np.int64)
    FP = np.zeros(maxf, dtype=np.int64)
    S = np.empty((maxf, maxp))
    tmp = np.empty((maxp, 3))
    cap = np.empty((2 * maxp * maxf, 3))
    ang = np.empty(max(2 * maxp * maxf, maxp))
    idx = np.empty(ang.size, dtype=np.int64)
    normals = np.empty((2 * kmax, 3))
    gf = np.empty(2 * kmax, dtype=np.int64)  # the pair's planes as global face indices
    f_axes = np.empty((f_normal.shape[0], 6))  # of every face, computed on its first use in this call
    f_done = np.zeros(f_normal.shape[0], dtype=np.bool_)
    d = np.empty(2 * kmax)
    owner = np.empty(2 * kmax, dtype=np.int64)
    surface = np.empty(2 * kmax, dtype=np.bool_)
    c_state = np.zeros(c_fstart.size - 1, dtype=np.int8)   # 0: not seen, 1 / 2: `own_faces` true / false
    work = gjk_work()                        # work arrays reused by every pair
    z = np.int64(0)                          # (not a literal 0: one compiled gjk_into for all calls)
    vmax = 0
    for c in range(c_vstart.size - 1):
        vmax = max(vmax, c_vstart[c + 1] - c_vstart[c])
    one, sha, shb = np.empty((1, 3)), np.empty((vmax, 3)), np.empty((vmax, 3))
    Y = np.empty((vmax, 3))                  # a's vertices around p (`own_vertices`)
    Vbuf = np.empty((maxf * maxp, 3))
    lo, hi, span = np.empty(3), np.empty(3), np.empty(3)
    blo, bhi = np.empty(3), np.empty(3)
    nsum, psum, nn, x = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for k in range(m):
        a, b = ca[k], cb[k]
        va, vb = v_cur[c_vstart[a]:c_vstart[a + 1]], v_cur[c_vstart[b]:c_vstart[b + 1]]
        dist = gjk_into(va, vb, work, z, z)
        if dist > eps:
            continue
        p = work[9]
        fa0, fa1, fb0, fb1 = c_fstart[a], c_fstart[a + 1], c_fstart[b], c_fstart[b + 1]
        K = 0
        swollen = False                      # a plane of a swollen by the eps clamp
        for f in range(fa0, fa1):
            normals[K, 0], normals[K, 1], normals[K, 2] = f_normal[f, 0], f_normal[f, 1], f_normal[f, 2]
            owner[K], surface[K] = 0, f_surface[f]
            r = f_offset[f] - _dot(f_normal[f], p)
            d[K] = max(r, eps)
            swollen = swollen or r < eps
            K += 1
        for f in range(fb0, fb1):
            normals[K, 0], normals[K, 1], normals[K, 2] = f_normal[f, 0], f_normal[f, 1], f_normal[f, 2]
            owner[K], surface[K] = 1, f_surface[f]
            d[K] = max(f_offset[f] - _dot(f_normal[f], p), eps)
            K += 1
        for j in range(K):
            f = fa0 + j if j < fa1 - fa0 else fb0 + j - (fa1 - fa0)
            if not f_done[f]:
                f_axes[f, 0], f_axes[f, 1], f_axes[f, 2], f_axes[f, 3], f_axes[f, 4], f_axes[f, 5] = \
                    plane_axes(f_normal[f])
                f_done[f] = True
            gf[j] = f
        oa, ob = c_obj[a], c_obj[b]
        for i in range(3):                   # elementwise as the array expressions they replace
            lo[i] = min(lo_box[oa, i], lo_box[ob, i]) - p[i]
            hi[i] = max(hi_box[oa, i], hi_box[ob, i]) - p[i]
            span[i] = hi[i] - lo[i]
        size = np.sqrt(_dot(span, span))
        tol = DEDUP * size
        for i in range(3):
            blo[i] = lo[i] - 0.25 * span[i] - 2.0 * eps
            bhi[i] = hi[i] + 0.25 * span[i] + 2.0 * eps
        own = False                          # a's own faces and vertices start the polytope
        if not swollen:
            if c_state[a] == 0:
                c_state[a] = own_faces(a, c_vstart, c_fstart, c_closed, f_vstart, f_vert, v_cur, f_normal,
                                        f_offset, lo_box, hi_box, c_obj, maxp)
            own = c_state[a] == 1
        va0, nva = c_vstart[a], c_vstart[a + 1] - c_vstart[a]
        if own:
            own_vertices(Y, v_cur, va0, va0 + nva, p)
            nf = own_polytope(FV, FN, FP, fa0, fa1, f_vstart, f_vert, Y, va0)
            j0 = fa1 - fa0
        else:
            nf = box_faces(FV, FN, FP, blo, bhi)
            j0 = 0
        cut = False
        for j in range(j0, K):
            if own:                          # a plane that leaves all of a's vertices inside cuts nothing
                top = reaches(Y, nva, normals[j], d[j])
                if top <= (0.5 * tol if cut else tol):
                    continue
            nf = clip(FV, FN, FP, nf, normals[j], d[j], j, f_axes[gf[j]], S, tmp, cap, ang, idx, tol)
            if nf < 0:
                break
            cut = True
        if nf < 0:
            redo[k] = True
            continue
        ok, total = polytope_summary(FV, FN, FP, nf, normals, f_axes, gf, owner, surface, ang, nsum, psum)
        nv = 0
        for f in range(nf):
            nv += FN[f]
        V = Vbuf[:nv]
        nv = 0
        for f in range(nf):
            for v in range(FN[f]):
                for i in range(3):
                    V[nv, i] = FV[f, v, i] + p[i]
                    if not (V[nv, i] >= lo[i] + p[i] - eps and V[nv, i] <= hi[i] + p[i] + eps):
                        ok = False
                nv += 1
        size = np.sqrt(_dot(nsum, nsum))
        if not ok or not (total > 0.0 and size > 0.0):
            continue
        finite = True
        for i in range(3):
            nn[i] = nsum[i] / size
            x[i] = psum[i] / total + p[i]
            if not (np.isfinite(x[i]) and np.isfinite(nn[i])):
                finite = False
        if not finite:
            continue
        hit, g = _gap_into(va, vb, x, nn, V, eps, work, one, sha, shb,
                           c_closed[a] and _behind_all(v_cur, tri, c_tstart[a], c_tstart[a + 1], x),
                           c_closed[b] and _behind_all(v_cur, tri, c_tstart[b], c_tstart[b + 1], x))
        if not hit:
            continue
        sa = _nearest_surface(x, f_normal, f_offset, f_surface, f_sid, fa0, fa1)
        sb = _nearest_surface(x, f_normal, f_offset, f_surface, f_sid, fb0, fb1)
        touch[k] = True
        _put(point, k, x[0], x[1], x[2])
        _put(normal, k, nn[0], nn[1], nn[2])
        gap[k], area[k] = g, 0.5 * total
        sid_a[k], sid_b[k] = sa, sb
        if corner_tol is not None:             # flat lens: corners farther apart than 10 x its thickness
            lo_n, hi_n = np.inf, -np.inf
            for i in range(nv):
                t = _dot(V[i], nn)
                lo_n, hi_n = min(lo_n, t), max(hi_n, t)
            ncorner[k] = polygon_corners(V, x, nn, max(corner_tol, 10.0 * (hi_n - lo_n)), corners[k])
    return touch, point, normal, gap, area, sid_a, sid_b, redo, corners, ncorner
