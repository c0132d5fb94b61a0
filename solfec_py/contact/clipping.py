"""The intersection polytope of two convex plane sets by successive clipping (layer 5):
the numba pieces of `polyhedra_kernels.convex_pairs` that build it (a start box or a
convex's own faces, one cut per plane, the cut face ordered by pseudo-angle) and its
summary (fan-triangulated area, area-weighted centroid, A^2-weighted normal). Reference:
Solfec cvi.c (convex intersection), Sutherland-Hodgman clipping; docs/contact.md.

Compiled, as every kernel, with numba's "numpy" error model (compilation.njit); every
division here is guarded by its own test or has a divisor that cannot vanish.
"""
from __future__ import annotations

import math

import numpy as np

from solfec_py.compilation import njit

DEDUP = 1e-12           # relative distance within which points are on a plane or merged


@njit
def plane_axes(nk):
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


@njit
def box_faces(FV, FN, FP, lo, hi):
    """The six faces of the box [lo, hi] (tagged -1: not an input plane), counter-clockwise
    seen from outside as every face of the clipping (`clip`); returns 6."""
    for f in range(6):
        FP[f] = -1
        FN[f] = 4
        for v in range(4):
            for i in range(3):
                FV[f, v, i] = hi[i] if _QUADS[f, 3 * v + i] else lo[i]
    return 6


@njit(inline="always")
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


@njit(inline="always")
def _close(out, m, tol2):
    """Drop a closing repeat of the first point of the polygon out[:m]; returns m."""
    if m > 1:
        e0, e1, e2 = out[m - 1, 0] - out[0, 0], out[m - 1, 1] - out[0, 1], out[m - 1, 2] - out[0, 2]
        if e0 * e0 + e1 * e1 + e2 * e2 <= tol2:
            return m - 1
    return m


@njit(inline="always")
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


@njit
def _angles(pts, m, ax, ang):
    """Pseudo-angles (`_pseudo_angle`: in the order of the angles) of pts[:m] about their
    mean in the in-plane axes ax = `plane_axes(nk)` (six scalars) of the plane's normal."""
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


@njit
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


@njit
def clip(FV, FN, FP, nf, nk, dk, k, ax, S, tmp, cap, ang, idx, tol):
    """Cut the polytope (faces FV[f, :FN[f]], planes FP) by n.y <= d (vertices within tol
    of the plane count as on it); the cut face gets tag k (in-plane axes ax, `plane_axes`).
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
    nc = np.int64(0)                     # (not a literal 0: one compiled _angles, _sort)
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


@njit
def polytope_summary(FV, FN, FP, nf, normals, axes, gf, owner, surface, ang, n, point):
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


@njit
def own_faces(c, c_vstart, c_fstart, c_closed, f_vstart, f_vert, v_cur, f_normal, f_offset, lo_box, hi_box,
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
    tol = DEDUP * np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
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


@njit
def own_vertices(Y, v_cur, v0, v1, p):
    """Y[:v1 - v0] = the vertices v_cur[v0:v1] around p (the start polytope's vertices,
    computed as every copy of them)."""
    for v in range(v0, v1):
        Y[v - v0, 0], Y[v - v0, 1], Y[v - v0, 2] = v_cur[v, 0] - p[0], v_cur[v, 1] - p[1], v_cur[v, 2] - p[2]


@njit
def own_polytope(FV, FN, FP, f0, f1, f_vstart, f_vert, Y, v0):
    """The faces of a convex accepted by `own_faces` (tags 0, 1, ...) on the vertices Y
    (`own_vertices`: row v - v0 for vertex v); returns their count."""
    for f in range(f0, f1):
        g = f - f0
        s, m = f_vstart[f], f_vstart[f + 1] - f_vstart[f]
        for i in range(m):
            v = f_vert[s + i] - v0
            FV[g, i, 0], FV[g, i, 1], FV[g, i, 2] = Y[v, 0], Y[v, 1], Y[v, 2]
        FN[g], FP[g] = m, g
    return f1 - f0


@njit
def reaches(Y, nv, nk, dk):
    """The largest signed distance n.y - d of the vertices Y[:nv] (computed as `clip`
    computes it for a vertex y of the polytope)."""
    n0, n1, n2 = nk[0], nk[1], nk[2]
    top = -np.inf
    for v in range(nv):
        sv = Y[v, 0] * n0 + Y[v, 1] * n1 + Y[v, 2] * n2 - dk
        top = max(top, sv)
    return top
