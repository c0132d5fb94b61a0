"""Narrow phase of contact detection for curved objects (layer 5): convex–sphere (numba,
closest point of a polyhedron to the sphere centre) and sphere–sphere (numpy), each over
arrays of object pairs, and both in one numba pass for pair lists holding nothing else. Reference: docs/contact.md (Solfec goc.c convex_sphere,
sphere_sphere; gjk.c closest points).

Conventions of every routine: the object that owns the outward normal is the slave; the
normal n points from the slave towards the master; `pm`, `ps` are the spatial contact
points on the master and the slave; gap = min(distance, 0) (contacts exist only when the
objects overlap or touch within the geometric epsilon, so gaps are never positive).
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


@njit(inline="always")
def _closest_xyz(p0, p1, p2, a0, a1, a2, b0, b1, b2, c0, c1, c2):
    """Closest point to p on triangle abc (Voronoi regions of vertices, edges, face), on
    scalars (no temporary arrays in the narrow-phase loop)."""
    ab0, ab1, ab2 = b0 - a0, b1 - a1, b2 - a2
    ac0, ac1, ac2 = c0 - a0, c1 - a1, c2 - a2
    ap0, ap1, ap2 = p0 - a0, p1 - a1, p2 - a2
    d1 = ab0 * ap0 + ab1 * ap1 + ab2 * ap2
    d2 = ac0 * ap0 + ac1 * ap1 + ac2 * ap2
    if d1 <= 0.0 and d2 <= 0.0:
        return a0, a1, a2
    bp0, bp1, bp2 = p0 - b0, p1 - b1, p2 - b2
    d3 = ab0 * bp0 + ab1 * bp1 + ab2 * bp2
    d4 = ac0 * bp0 + ac1 * bp1 + ac2 * bp2
    if d3 >= 0.0 and d4 <= d3:
        return b0, b1, b2
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        t = d1 / (d1 - d3)
        return a0 + t * ab0, a1 + t * ab1, a2 + t * ab2
    cp0, cp1, cp2 = p0 - c0, p1 - c1, p2 - c2
    d5 = ab0 * cp0 + ab1 * cp1 + ab2 * cp2
    d6 = ac0 * cp0 + ac1 * cp1 + ac2 * cp2
    if d6 >= 0.0 and d5 <= d6:
        return c0, c1, c2
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        t = d2 / (d2 - d6)
        return a0 + t * ac0, a1 + t * ac1, a2 + t * ac2
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return b0 + t * (c0 - b0), b1 + t * (c1 - b1), b2 + t * (c2 - b2)
    den = va + vb + vc
    if den <= 0.0:                      # degenerate (zero-area) triangle
        return a0, a1, a2
    v, w = vb / den, vc / den
    return a0 + v * ab0 + w * ac0, a1 + v * ab1 + w * ac1, a2 + v * ab2 + w * ac2


@njit
def _closest_on_triangle(p, a, b, c):
    """Closest point to p on triangle abc (arrays of 3)."""
    out = np.empty(3)
    out[0], out[1], out[2] = _closest_xyz(p[0], p[1], p[2], a[0], a[1], a[2], b[0], b[1], b[2],
                                          c[0], c[1], c[2])
    return out


@njit
def convex_sphere(cvx, sph, c_tstart, c_fstart, tri, v_cur, f_normal, f_offset, f_surface, f_sid,
                  s_center, s_radius, eps):
    """Pairs (convex cvx[k], sphere sph[k]): the convex is the slave (docs/contact.md).
    Returns touch (k,), pm on the sphere, ps on the convex, n, gap, convex surface id."""
    m = cvx.size
    touch = np.zeros(m, dtype=np.bool_)
    pm, ps, nrm = np.zeros((m, 3)), np.zeros((m, 3)), np.zeros((m, 3))
    gap = np.zeros(m)
    sid = np.zeros(m, dtype=np.int64)
    for k in range(m):
        ci, si = cvx[k], sph[k]
        c0, c1, c2 = s_center[si, 0], s_center[si, 1], s_center[si, 2]
        r = s_radius[si]
        f0, f1 = c_fstart[ci], c_fstart[ci + 1]
        # signed distances of the centre to the face planes
        worst, wface, wsurf, wsface = -np.inf, -1, -np.inf, -1
        for f in range(f0, f1):
            dist = f_normal[f, 0] * c0 + f_normal[f, 1] * c1 + f_normal[f, 2] * c2 - f_offset[f]
            if dist > worst:
                worst, wface = dist, f
            if f_surface[f] and dist > wsurf:
                wsurf, wsface = dist, f
        if worst <= 0.0:                # centre inside: nearest surface plane, |c - p| := r
            face = wsface if wsface >= 0 else wface
            n0, n1, n2 = f_normal[face, 0], f_normal[face, 1], f_normal[face, 2]
            p0, p1, p2 = c0, c1, c2
            g = 0.0
        else:
            best, p0, p1, p2 = np.inf, c0, c1, c2
            for t in range(c_tstart[ci], c_tstart[ci + 1]):
                i, j, l = tri[t, 0], tri[t, 1], tri[t, 2]
                q0, q1, q2 = _closest_xyz(c0, c1, c2, v_cur[i, 0], v_cur[i, 1], v_cur[i, 2],
                                          v_cur[j, 0], v_cur[j, 1], v_cur[j, 2],
                                          v_cur[l, 0], v_cur[l, 1], v_cur[l, 2])
                e0, e1, e2 = c0 - q0, c1 - q1, c2 - q2
                d2 = e0 * e0 + e1 * e1 + e2 * e2
                if d2 < best:
                    best, p0, p1, p2 = d2, q0, q1, q2
            d = np.sqrt(best)
            if not d < r + eps or d == 0.0:
                continue
            n0, n1, n2 = (c0 - p0) / d, (c1 - p1) / d, (c2 - p2) / d
            g = min(d - r, 0.0)
        # surface id: the surface plane nearest to the convex point
        near, nsid = np.inf, 0
        for f in range(f0, f1):
            if f_surface[f]:
                dist = abs(f_normal[f, 0] * p0 + f_normal[f, 1] * p1 + f_normal[f, 2] * p2 - f_offset[f])
                if dist < near:
                    near, nsid = dist, f_sid[f]
        q0, q1, q2 = c0 - r * n0, c1 - r * n1, c2 - r * n2
        if not (np.isfinite(g) and np.isfinite(q0) and np.isfinite(q1) and np.isfinite(q2)
                and np.isfinite(n0) and np.isfinite(n1) and np.isfinite(n2)):
            continue
        touch[k] = True
        pm[k, 0], pm[k, 1], pm[k, 2] = q0, q1, q2
        ps[k, 0], ps[k, 1], ps[k, 2] = p0, p1, p2
        nrm[k, 0], nrm[k, 1], nrm[k, 2] = n0, n1, n2
        gap[k], sid[k] = g, nsid
    return touch, pm, ps, nrm, gap, sid


def sphere_sphere(cm: np.ndarray, rm: np.ndarray, cs: np.ndarray, rs: np.ndarray, eps: float):
    """Pairs of a master sphere (centres cm, radii rm) and a slave sphere (cs, rs); n from
    the slave centre to the master centre. Returns touch, pm, ps, n, gap."""
    v = cm - cs
    dist = np.linalg.norm(v, axis=1)
    surface = dist - (rm + rs)
    touch = (surface < eps) & (dist > 0)
    n = v / np.where(dist > 0, dist, 1.0)[:, None]
    pm = cm - rm[:, None] * n
    ps = cs + rs[:, None] * n
    return touch, pm, ps, n, np.minimum(surface, 0.0)


def sphere_owner(ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
    """True where sphere a owns the normal (its centre is lexicographically smaller)."""
    owner = np.zeros(ca.shape[0], dtype=bool)
    decided = np.zeros(ca.shape[0], dtype=bool)
    for d in range(3):
        less, more = ca[:, d] < cb[:, d], ca[:, d] > cb[:, d]
        owner |= ~decided & less
        decided |= less | more
    return owner


@njit
def sphere_pairs(om, os, kind, part, sphere, convex, fixed, s_center, s_radius, s_sid, c_tstart, c_fstart,
                 tri, v_cur, f_normal, f_offset, f_surface, f_sid, eps):
    """The narrow phase of object pairs (om[k], os[k]) that are all sphere–sphere or
    sphere–convex (object kinds `kind`, codes `sphere`, `convex`), in one pass and in the
    order of the input pairs: what detect.evaluate computes for them with `sphere_owner`,
    `sphere_sphere` and `convex_sphere` (same operations, same order, same numbers).
    Returns ok (False: another pair kind is present, nothing computed), the touching mask
    and, for the touching pairs in input order, master and slave objects, pm, ps, n, gap,
    master and slave surface ids."""
    m = om.size
    touch = np.zeros(m, dtype=np.bool_)
    mixed = np.zeros(m, dtype=np.int64)
    nmix = 0
    for k in range(m):
        ka, kb = kind[om[k]], kind[os[k]]
        if ka == sphere and kb == sphere:
            continue
        if (ka == sphere and kb == convex) or (ka == convex and kb == sphere):
            mixed[nmix] = k
            nmix += 1
            continue
        z = np.zeros(0, dtype=np.int64)
        return False, touch, z, z, np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0), z, z
    # sphere-convex pairs through convex_sphere (the convex is the slave)
    cvx, sph = np.empty(nmix, dtype=np.int64), np.empty(nmix, dtype=np.int64)
    for j in range(nmix):
        k = mixed[j]
        a, b = om[k], os[k]
        if kind[a] == convex:
            cvx[j], sph[j] = a, b
        else:
            cvx[j], sph[j] = b, a
    cpart, spart = np.empty(nmix, dtype=np.int64), np.empty(nmix, dtype=np.int64)
    for j in range(nmix):
        cpart[j], spart[j] = part[cvx[j]], part[sph[j]]
    mhit, mpm, mps, mn, mgap, msid = convex_sphere(cpart, spart, c_tstart, c_fstart, tri, v_cur, f_normal, f_offset,
                                                   f_surface, f_sid, s_center, s_radius, eps)
    if fixed:                           # a convex master cannot arise from detection
        for j in range(nmix):
            mhit[j] = mhit[j] and kind[os[mixed[j]]] == convex
    out_m, out_s = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
    pm, ps, nrm = np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 3))
    gap = np.empty(m)
    sid_m, sid_s = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
    cnt, j = 0, 0
    for k in range(m):
        if j < nmix and mixed[j] == k:
            if mhit[j]:
                touch[k] = True
                out_m[cnt], out_s[cnt] = sph[j], cvx[j]
                for d in range(3):
                    pm[cnt, d], ps[cnt, d], nrm[cnt, d] = mpm[j, d], mps[j, d], mn[j, d]
                gap[cnt], sid_m[cnt], sid_s[cnt] = mgap[j], s_sid[spart[j]], msid[j]
                cnt += 1
            j += 1
            continue
        a, b = om[k], os[k]             # a master, b slave
        ia, ib = part[a], part[b]
        if not fixed:                   # the lexicographically first centre is the slave
            swap = False
            for d in range(3):
                if s_center[ia, d] < s_center[ib, d]:
                    swap = True
                    break
                if s_center[ia, d] > s_center[ib, d]:
                    break
            if swap:
                a, b, ia, ib = b, a, ib, ia
        v0 = s_center[ia, 0] - s_center[ib, 0]
        v1 = s_center[ia, 1] - s_center[ib, 1]
        v2 = s_center[ia, 2] - s_center[ib, 2]
        dist = np.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
        rm, rs = s_radius[ia], s_radius[ib]
        surface = dist - (rm + rs)
        if not (surface < eps and dist > 0):
            continue
        n0, n1, n2 = v0 / dist, v1 / dist, v2 / dist
        touch[k] = True
        out_m[cnt], out_s[cnt] = a, b
        pm[cnt, 0], pm[cnt, 1], pm[cnt, 2] = s_center[ia, 0] - rm * n0, s_center[ia, 1] - rm * n1, s_center[ia, 2] - rm * n2
        ps[cnt, 0], ps[cnt, 1], ps[cnt, 2] = s_center[ib, 0] + rs * n0, s_center[ib, 1] + rs * n1, s_center[ib, 2] + rs * n2
        nrm[cnt, 0], nrm[cnt, 1], nrm[cnt, 2] = n0, n1, n2
        gap[cnt] = min(surface, 0.0)
        sid_m[cnt], sid_s[cnt] = s_sid[ia], s_sid[ib]
        cnt += 1
    return True, touch, out_m[:cnt], out_s[:cnt], pm[:cnt], ps[:cnt], nrm[:cnt], gap[:cnt], sid_m[:cnt], sid_s[:cnt]
