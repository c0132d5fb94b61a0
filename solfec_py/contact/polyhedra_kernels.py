"""Compiled narrow phase of convex polyhedron pairs (layer 5): one numba call over all pairs
of a step — GJK, the intersection polytope of the two (swollen) plane sets by successive
clipping, and its summary (point, normal, area, gap, surface pair) — with no Qhull and no
Python loop per pair. Reference: Solfec cvi.c / goc.c (convex-convex), docs/contact.md.

The polytope is the same as the dual-hull construction of `polyhedra.intersection` (planes
n.y <= max(n.(x0 - p), eps) around the GJK point p); each face keeps the plane it comes from
and is fan-triangulated from its vertex of smallest angle about the face's vertex mean, so
that area, point and the A^2-weighted normal follow the same rule. The clipping starts from
a's own faces and vertices (`_own_faces`) where a's planes and vertices agree and no plane
of a is swollen, else from a box cut by a's planes; b's planes then cut it. A pair whose
polygons outgrow the work arrays is flagged for the Qhull path
(`polyhedra.convex_convex_qhull`).

numba's cache of these kernels holds the compiled `gjk.gjk` too, but is invalidated by
changes of this file only: edit this line when gjk.py changes (last: the 3 x 3 solve from
geometry/linalg3.py, issue 13; this file: own-face start, session 25).

The kernels here and in gjk.py are compiled with numba's error_model="numpy": no check for
a division by zero before each division (every division is guarded by its own test or has a
divisor that cannot vanish, so the results are those of the default model, which would
raise instead).
"""
from __future__ import annotations

import math

import numba
import numpy as np

from solfec_py.contact.gjk import gjk_into, gjk_work

_DEDUP = 1e-12          # relative distance within which points are on a plane or merged


@numba.njit(cache=True, inline="always", error_model="numpy")
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@numba.njit(cache=True, error_model="numpy")
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


@numba.njit(cache=True, error_model="numpy")
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


@numba.njit(cache=True, error_model="numpy")
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


@numba.njit(cache=True, error_model="numpy")
def _gap_into(va, vb, x, n, V, eps, work, one, sha, shb, in_a, in_b):
    """`_finish`'s point check and gap, (ok, gap), on reusable work arrays: `work` of
    `gjk.gjk_work`, one (1, 3), sha and shb at least as long as va and vb (the shifted
    copies of the refinement). in_a (in_b): x is known to be inside a (b), whose GJK
    distance check (0 <= eps) is then skipped."""
    one[0, 0], one[0, 1], one[0, 2] = x[0], x[1], x[2]
    if (not in_a and gjk_into(va, one, work) > eps) or (not in_b and gjk_into(vb, one, work) > eps):
        return False, 0.0
    lo, hi = np.inf, -np.inf
    for v in range(V.shape[0]):
        pr = V[v, 0] * n[0] + V[v, 1] * n[1] + V[v, 2] * n[2]
        lo, hi = min(lo, pr), max(hi, pr)
    g = lo - hi
    if g < -eps:                                         # refine: depth along n
        g0, g1, g2 = g * n[0], g * n[1], g * n[2]       # va + g n, vb - g n, elementwise
        na_, nb_ = va.shape[0], vb.shape[0]
        ia, ib, top, bottom = 0, 0, -np.inf, np.inf     # GJK starts from the extreme vertices along n
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


@numba.njit(cache=True, error_model="numpy")
def _plane_axes(nk):
    """The in-plane unit vectors u, w = n x u of `polyhedra._faces` for normal nk, as the
    six scalars u0, u1, u2, w0, w1, w2."""
    u0, u1, u2 = 0.0, 0.0, 0.0
    if abs(nk[0]) < 0.6:
        u0 = 1.0
    elif abs(nk[1]) < 0.6:
        u1 = 1.0
    else:
        u2 = 1.0
    t = u0 * nk[0] + u1 * nk[1] + u2 * nk[2]
    u0, u1, u2 = u0 - t * nk[0], u1 - t * nk[1], u2 - t * nk[2]
    t = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    u0, u1, u2 = u0 / t, u1 / t, u2 / t
    return u0, u1, u2, nk[1] * u2 - nk[2] * u1, nk[2] * u0 - nk[0] * u2, nk[0] * u1 - nk[1] * u0


_QUADS = np.array([[0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1],
                   [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1], [0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0],
                   [0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0], [0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]], dtype=np.int64)


@numba.njit(cache=True, error_model="numpy")
def _box(FV, FN, FP, lo, hi):
    """The six faces of the box [lo, hi] (tagged -1: not an input plane), counter-clockwise
    seen from outside as every face of the clipping (`_clip`); returns 6."""
    for f in range(6):
        FP[f] = -1
        FN[f] = 4
        for v in range(4):
            for i in range(3):
                FV[f, v, i] = hi[i] if _QUADS[f, 3 * v + i] else lo[i]
    return 6


@numba.njit(cache=True, inline="always", error_model="numpy")
def _push(out, m, x0, x1, x2, tol2):
    """Append x to out[:m] unless it repeats out[m - 1] within sqrt(tol2); returns m (-1
    when out is full)."""
    if m > 0:
        e0, e1, e2 = x0 - out[m - 1, 0], x1 - out[m - 1, 1], x2 - out[m - 1, 2]
        if e0 * e0 + e1 * e1 + e2 * e2 <= tol2:
            return m
    if m >= out.shape[0]:
        return -1
    out[m, 0], out[m, 1], out[m, 2] = x0, x1, x2
    return m + 1


@numba.njit(cache=True, inline="always", error_model="numpy")
def _close(out, m, tol2):
    """Drop a closing repeat of the first point of the polygon out[:m]; returns m."""
    if m > 1:
        e0, e1, e2 = out[m - 1, 0] - out[0, 0], out[m - 1, 1] - out[0, 1], out[m - 1, 2] - out[0, 2]
        if e0 * e0 + e1 * e1 + e2 * e2 <= tol2:
            return m - 1
    return m


@numba.njit(cache=True, inline="always", error_model="numpy")
def _pseudo_angle(y, x):
    """A strictly increasing function of arctan2(y, x) on [-pi, pi] without a transcendental
    call: 1 - x / (|x| + |y|) above the x axis (0 at angle 0, 2 at pi), x / (|x| + |y|) - 1
    below (-2 at -pi); the signs of zeros pick the side of the cut as in arctan2 (which
    gives +-0 at (+-0, +0) and +-pi at (+-0, -0)). Only the order of the angles is used."""
    s = abs(x) + abs(y)
    up = math.copysign(1.0, y) > 0.0
    if s == 0.0:
        if math.copysign(1.0, x) > 0.0:
            return 0.0
        return 2.0 if up else -2.0
    r = x / s
    return 1.0 - r if up else r - 1.0


@numba.njit(cache=True, error_model="numpy")
def _angles(pts, m, ax, ang):
    """Pseudo-angles (`_pseudo_angle`: in the order of the angles) of pts[:m] about their
    mean in the in-plane axes ax = `_plane_axes(nk)` (six scalars) of the plane's normal."""
    u0, u1, u2, w0, w1, w2 = ax[0], ax[1], ax[2], ax[3], ax[4], ax[5]
    c0, c1, c2 = 0.0, 0.0, 0.0
    for i in range(m):
        c0 += pts[i, 0]
        c1 += pts[i, 1]
        c2 += pts[i, 2]
    c0, c1, c2 = c0 / m, c1 / m, c2 / m
    for i in range(m):
        e0, e1, e2 = pts[i, 0] - c0, pts[i, 1] - c1, pts[i, 2] - c2
        ang[i] = _pseudo_angle(e0 * w0 + e1 * w1 + e2 * w2, e0 * u0 + e1 * u1 + e2 * u2)


@numba.njit(cache=True, error_model="numpy")
def _sort(ang, m, idx):
    """idx[:m] = the stable ascending order of ang[:m] (insertion sort; m is small)."""
    for i in range(m):
        idx[i] = i
    for i in range(1, m):
        j, t = i, idx[i]
        while j > 0 and ang[idx[j - 1]] > ang[t]:
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = t


@numba.njit(cache=True, error_model="numpy")
def _clip(FV, FN, FP, nf, nk, dk, k, ax, S, tmp, cap, ang, idx, tol):
    """Cut the polytope (faces FV[f, :FN[f]], planes FP) by n.y <= d (vertices within tol
    of the plane count as on it); the cut face gets tag k (in-plane axes ax, `_plane_axes`).
    Returns the new face count, or -1 when a work array overflows. S is a work array shaped
    as FV[..., 0]."""
    tol2 = tol * tol
    outside = False
    n0, n1, n2 = nk[0], nk[1], nk[2]
    for f in range(nf):                  # signed distances, snapped to 0 within tol
        for v in range(FN[f]):
            sv = FV[f, v, 0] * n0 + FV[f, v, 1] * n1 + FV[f, v, 2] * n2 - dk
            if abs(sv) <= tol:
                sv = 0.0
            elif sv > 0.0:
                outside = True
            S[f, v] = sv
    if not outside:
        return nf
    nc = 0
    g = 0
    for f in range(nf):
        m = FN[f]
        inner = True                     # all vertices strictly inside: the face stays as it is
        for v in range(m):               # (it was pushed with the same tol before: idempotent)
            if S[f, v] >= 0.0:
                inner = False
                break
        if inner:
            if g != f:
                for v in range(m):
                    FV[g, v, 0], FV[g, v, 1], FV[g, v, 2] = FV[f, v, 0], FV[f, v, 1], FV[f, v, 2]
                FN[g], FP[g] = m, FP[f]
            g += 1
            continue
        out = 0
        for v in range(m):
            w = v + 1 if v + 1 < m else 0
            sp, sq = S[f, v], S[f, w]
            if sp <= 0.0:
                out = _push(tmp, out, FV[f, v, 0], FV[f, v, 1], FV[f, v, 2], tol2)
                if out < 0:
                    return -1
                if sp == 0.0:
                    if nc >= cap.shape[0]:
                        return -1
                    cap[nc, 0], cap[nc, 1], cap[nc, 2] = FV[f, v, 0], FV[f, v, 1], FV[f, v, 2]
                    nc += 1
            if (sp < 0.0 and sq > 0.0) or (sp > 0.0 and sq < 0.0):
                t = sp / (sp - sq)
                x0 = FV[f, v, 0] + t * (FV[f, w, 0] - FV[f, v, 0])
                x1 = FV[f, v, 1] + t * (FV[f, w, 1] - FV[f, v, 1])
                x2 = FV[f, v, 2] + t * (FV[f, w, 2] - FV[f, v, 2])
                out = _push(tmp, out, x0, x1, x2, tol2)
                if out < 0 or nc >= cap.shape[0]:
                    return -1
                if sp < 0.0:                 # the edge's other face crosses it outwards-in: once
                    cap[nc, 0], cap[nc, 1], cap[nc, 2] = x0, x1, x2
                    nc += 1
        out = _close(tmp, out, tol2)
        if out >= 3:
            for v in range(out):
                FV[g, v, 0], FV[g, v, 1], FV[g, v, 2] = tmp[v, 0], tmp[v, 1], tmp[v, 2]
            FN[g], FP[g] = out, FP[f]
            g += 1
    if nc >= 3:
        if g >= FV.shape[0]:
            return -1
        _angles(cap, nc, ax, ang)
        _sort(ang, nc, idx)
        out = 0
        for i in range(nc):
            c = idx[i]
            out = _push(tmp, out, cap[c, 0], cap[c, 1], cap[c, 2], tol2)
            if out < 0:
                return -1
        out = _close(tmp, out, tol2)
        if out >= 3:
            for v in range(out):
                FV[g, v, 0], FV[g, v, 1], FV[g, v, 2] = tmp[v, 0], tmp[v, 1], tmp[v, 2]
            FN[g], FP[g] = out, k
            g += 1
    return g


@numba.njit(cache=True, error_model="numpy")
def _polytope_summary(FV, FN, FP, nf, normals, axes, gf, owner, surface, ang, n, point):
    """Fan triangles of every face (from its vertex of smallest angle about the vertex
    mean, as `polyhedra._faces`; in-plane axes axes[gf[k]] for tag k): (ok, total area);
    the A^2-weighted normal sum and the area-weighted centroid sum go into n and point (3)."""
    n[0], n[1], n[2] = 0.0, 0.0, 0.0
    point[0], point[1], point[2] = 0.0, 0.0, 0.0
    total = 0.0
    ntri = 0
    ok = True
    for f in range(nf):
        k = FP[f]
        m = FN[f]
        if k < 0:                      # a face of the start box survived: unbounded input
            ok = False
            continue
        _angles(FV[f], m, axes[gf[k]], ang)
        s = 0
        for v in range(1, m):
            if ang[v] < ang[s]:
                s = v
        y0 = FV[f, s]
        i1 = s + 1 if s + 1 < m else 0       # (s + i) mod m and its successor, without a division
        for i in range(1, m - 1):
            i2 = i1 + 1 if i1 + 1 < m else 0
            y1, y2 = FV[f, i1], FV[f, i2]
            i1 = i2
            a0, a1, a2 = y1[0] - y0[0], y1[1] - y0[1], y1[2] - y0[2]
            b0, b1, b2 = y2[0] - y0[0], y2[1] - y0[1], y2[2] - y0[2]
            c0, c1, c2 = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
            a = 0.5 * np.sqrt(c0 * c0 + c1 * c1 + c2 * c2)
            total += a
            for j in range(3):
                point[j] += a * (y0[j] + y1[j] + y2[j]) / 3.0
            if surface[k]:
                w = a * a if owner[k] == 0 else -a * a
                for j in range(3):
                    n[j] += w * normals[k, j]
            ntri += 1
    return ok and ntri >= 4, total


@numba.njit(cache=True, error_model="numpy")
def _far(Y, c):
    """Index of the row of Y farthest from the point c."""
    best, j = -1.0, 0
    for i in range(Y.shape[0]):
        e0, e1, e2 = Y[i, 0] - c[0], Y[i, 1] - c[1], Y[i, 2] - c[2]
        d = e0 * e0 + e1 * e1 + e2 * e2
        if d > best:
            best, j = d, i
    return j, np.sqrt(best)


@numba.njit(cache=True, error_model="numpy")
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
        out[0] = x
        return 1
    i1, r1 = _far(Y, Y[i0])
    out[0], out[1] = Y[i0], Y[i1]
    if r1 <= tol:
        out[0] = x
        return 1
    e = (Y[i1] - Y[i0]) / r1
    s = np.cross(n, e)                     # in-plane, across the line P0 P1
    lo, hi, jlo, jhi = 0.0, 0.0, -1, -1
    for i in range(Y.shape[0]):
        h = (Y[i, 0] - Y[i0, 0]) * s[0] + (Y[i, 1] - Y[i0, 1]) * s[1] + (Y[i, 2] - Y[i0, 2]) * s[2]
        if h > hi:
            hi, jhi = h, i
        if h < lo:
            lo, jlo = h, i
    k = 2
    if hi > tol:
        out[k] = Y[jhi]
        k += 1
    if -lo > tol:
        out[k] = Y[jlo]
        k += 1
    return k


@numba.njit(cache=True, error_model="numpy")
def _own_faces(c, c_vstart, c_fstart, c_closed, f_vstart, f_vert, v_cur, f_normal, f_offset, lo_box, hi_box,
               c_obj, maxp):
    """Can convex c's polytope {n_f.x <= d_f} start a pair's clipping as its own vertices and
    faces (`objects.face_polygons`)? Yes when its surface is closed
    (`objects.closed_surface`), every face has 3 to maxp vertices, each face's vertices are
    on its plane and every vertex is inside every plane, both within 1e-12 of the object's
    box diagonal. Returns 1 (yes) or 2 (no)."""
    f0, f1 = c_fstart[c], c_fstart[c + 1]
    if not c_closed[c] or f1 - f0 < 4:
        return 2
    o = c_obj[c]
    e0, e1, e2 = hi_box[o, 0] - lo_box[o, 0], hi_box[o, 1] - lo_box[o, 1], hi_box[o, 2] - lo_box[o, 2]
    tol = _DEDUP * np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    for f in range(f0, f1):
        if f_vstart[f + 1] - f_vstart[f] < 3 or f_vstart[f + 1] - f_vstart[f] > maxp:
            return 2
        n0, n1, n2, df = f_normal[f, 0], f_normal[f, 1], f_normal[f, 2], f_offset[f]
        for i in range(f_vstart[f], f_vstart[f + 1]):
            v = f_vert[i]
            if abs(n0 * v_cur[v, 0] + n1 * v_cur[v, 1] + n2 * v_cur[v, 2] - df) > tol:
                return 2
    for v in range(c_vstart[c], c_vstart[c + 1]):
        x0, x1, x2 = v_cur[v, 0], v_cur[v, 1], v_cur[v, 2]
        for f in range(f0, f1):
            if f_normal[f, 0] * x0 + f_normal[f, 1] * x1 + f_normal[f, 2] * x2 - f_offset[f] > tol:
                return 2
    return 1


@numba.njit(cache=True, error_model="numpy")
def _own_vertices(Y, v_cur, v0, v1, p):
    """Y[:v1 - v0] = the vertices v_cur[v0:v1] around p (the start polytope's vertices,
    computed as every copy of them)."""
    for v in range(v0, v1):
        Y[v - v0, 0], Y[v - v0, 1], Y[v - v0, 2] = v_cur[v, 0] - p[0], v_cur[v, 1] - p[1], v_cur[v, 2] - p[2]


@numba.njit(cache=True, error_model="numpy")
def _own_polytope(FV, FN, FP, f0, f1, f_vstart, f_vert, Y, v0):
    """The faces of a convex accepted by `_own_faces` (tags 0, 1, ...) on the vertices Y
    (`_own_vertices`: row v - v0 for vertex v); returns their count."""
    for f in range(f0, f1):
        g = f - f0
        s, m = f_vstart[f], f_vstart[f + 1] - f_vstart[f]
        for i in range(m):
            v = f_vert[s + i] - v0
            FV[g, i, 0], FV[g, i, 1], FV[g, i, 2] = Y[v, 0], Y[v, 1], Y[v, 2]
        FN[g], FP[g] = m, g
    return f1 - f0


@numba.njit(cache=True, error_model="numpy")
def _reaches(Y, nv, nk, dk):
    """The largest signed distance n.y - d of the vertices Y[:nv] (computed as `_clip`
    computes it for a vertex y of the polytope)."""
    n0, n1, n2 = nk[0], nk[1], nk[2]
    top = -np.inf
    for v in range(nv):
        sv = Y[v, 0] * n0 + Y[v, 1] * n1 + Y[v, 2] * n2 - dk
        top = max(top, sv)
    return top


@numba.njit(cache=True, error_model="numpy")
def convex_pairs(ca, cb, c_vstart, c_fstart, c_obj, v_cur, f_normal, f_offset, f_surface, f_sid,
                 c_tstart, tri, c_closed, f_vstart, f_vert, lo_box, hi_box, eps, corner_tol=-1.0):
    """Narrow phase of the convex pairs (ca[k] owns the normal; c_tstart, tri, c_closed as
    in `objects.ObjectTable`: a point strictly inside a closed convex skips its GJK check,
    `_behind_all`; f_vstart, f_vert: the table's face polygons, from which a's own polytope
    starts the clipping, `_own_faces`). Returns touch, point,
    normal (from a to b), gap, area, surface id of a, of b, `redo` (pairs whose work
    arrays overflowed: to be evaluated by the Qhull path) and, when corner_tol >= 0, the
    `polygon_corners` of every contact (m, 4, 3) with their count (m,), corners kept apart
    by at least max(corner_tol, 10 x the lens thickness along the normal)."""
    m = ca.size
    touch = np.zeros(m, dtype=np.bool_)
    redo = np.zeros(m, dtype=np.bool_)
    point, normal = np.zeros((m, 3)), np.zeros((m, 3))
    gap, area = np.zeros(m), np.zeros(m)
    sid_a, sid_b = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    corners = np.zeros((m if corner_tol >= 0.0 else 0, 4, 3))
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
    c_state = np.zeros(c_fstart.size - 1, dtype=np.int8)   # 0: not seen, 1 / 2: `_own_faces` true / false
    work = gjk_work()                        # work arrays reused by every pair
    vmax = 0
    for c in range(c_vstart.size - 1):
        vmax = max(vmax, c_vstart[c + 1] - c_vstart[c])
    one, sha, shb = np.empty((1, 3)), np.empty((vmax, 3)), np.empty((vmax, 3))
    Y = np.empty((vmax, 3))                  # a's vertices around p (`_own_vertices`)
    Vbuf = np.empty((maxf * maxp, 3))
    lo, hi, span = np.empty(3), np.empty(3), np.empty(3)
    blo, bhi = np.empty(3), np.empty(3)
    nsum, psum, nn, x = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for k in range(m):
        a, b = ca[k], cb[k]
        va, vb = v_cur[c_vstart[a]:c_vstart[a + 1]], v_cur[c_vstart[b]:c_vstart[b + 1]]
        dist = gjk_into(va, vb, work)
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
                    _plane_axes(f_normal[f])
                f_done[f] = True
            gf[j] = f
        oa, ob = c_obj[a], c_obj[b]
        for i in range(3):                   # elementwise as the array expressions they replace
            lo[i] = min(lo_box[oa, i], lo_box[ob, i]) - p[i]
            hi[i] = max(hi_box[oa, i], hi_box[ob, i]) - p[i]
            span[i] = hi[i] - lo[i]
        size = np.sqrt(_dot(span, span))
        tol = _DEDUP * size
        for i in range(3):
            blo[i] = lo[i] - 0.25 * span[i] - 2.0 * eps
            bhi[i] = hi[i] + 0.25 * span[i] + 2.0 * eps
        own = False                          # a's own faces and vertices start the polytope
        if not swollen:
            if c_state[a] == 0:
                c_state[a] = _own_faces(a, c_vstart, c_fstart, c_closed, f_vstart, f_vert, v_cur, f_normal,
                                        f_offset, lo_box, hi_box, c_obj, maxp)
            own = c_state[a] == 1
        va0, nva = c_vstart[a], c_vstart[a + 1] - c_vstart[a]
        if own:
            _own_vertices(Y, v_cur, va0, va0 + nva, p)
            nf = _own_polytope(FV, FN, FP, fa0, fa1, f_vstart, f_vert, Y, va0)
            j0 = fa1 - fa0
        else:
            nf = _box(FV, FN, FP, blo, bhi)
            j0 = 0
        cut = False
        for j in range(j0, K):
            if own:                          # a plane that leaves all of a's vertices inside cuts nothing
                top = _reaches(Y, nva, normals[j], d[j])
                if top <= (0.5 * tol if cut else tol):
                    continue
            nf = _clip(FV, FN, FP, nf, normals[j], d[j], j, f_axes[gf[j]], S, tmp, cap, ang, idx, tol)
            if nf < 0:
                break
            cut = True
        if nf < 0:
            redo[k] = True
            continue
        ok, total = _polytope_summary(FV, FN, FP, nf, normals, f_axes, gf, owner, surface, ang, nsum, psum)
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
        point[k], normal[k], gap[k], area[k] = x, nn, g, 0.5 * total
        sid_a[k], sid_b[k] = sa, sb
        if corner_tol >= 0.0:                  # flat lens: corners farther apart than 10 x its thickness
            lo_n, hi_n = np.inf, -np.inf
            for i in range(nv):
                t = _dot(V[i], nn)
                lo_n, hi_n = min(lo_n, t), max(hi_n, t)
            ncorner[k] = polygon_corners(V, x, nn, max(corner_tol, 10.0 * (hi_n - lo_n)), corners[k])
    return touch, point, normal, gap, area, sid_a, sid_b, redo, corners, ncorner
