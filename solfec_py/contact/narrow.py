"""Narrow phase of contact detection for curved objects (layer 5): convex–sphere (numba,
closest point of a polyhedron to the sphere centre) and sphere–sphere (numpy), each over
arrays of object pairs. Reference: NUMERICS §5.3, §5.3.2 (Solfec goc.c convex_sphere,
sphere_sphere; gjk.c closest points).

Conventions of every routine: the object that owns the outward normal is the slave; the
normal n points from the slave towards the master; `pm`, `ps` are the spatial contact
points on the master and the slave; gap = min(distance, 0) (contacts exist only when the
objects overlap or touch within the geometric epsilon, so gaps are never positive).
"""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _closest_on_triangle(p, a, b, c):
    """Closest point to p on triangle abc (Voronoi regions of vertices, edges, face)."""
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = np.dot(ab, ap), np.dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return a
    bp = p - b
    d3, d4 = np.dot(ab, bp), np.dot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return b
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        return a + (d1 / (d1 - d3)) * ab
    cp = p - c
    d5, d6 = np.dot(ab, cp), np.dot(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return c
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        return a + (d2 / (d2 - d6)) * ac
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b)
    den = va + vb + vc
    if den <= 0.0:                      # degenerate (zero-area) triangle
        return a
    return a + (vb / den) * ab + (vc / den) * ac


@numba.njit(cache=True)
def convex_sphere(cvx, sph, c_tstart, c_fstart, tri, v_cur, f_normal, f_offset, f_surface, f_sid,
                  s_center, s_radius, eps):
    """Pairs (convex cvx[k], sphere sph[k]): the convex is the slave (NUMERICS §5.3.2).
    Returns touch (k,), pm on the sphere, ps on the convex, n, gap, convex surface id."""
    m = cvx.size
    touch = np.zeros(m, dtype=np.bool_)
    pm, ps, nrm = np.zeros((m, 3)), np.zeros((m, 3)), np.zeros((m, 3))
    gap = np.zeros(m)
    sid = np.zeros(m, dtype=np.int64)
    for k in range(m):
        ci, si = cvx[k], sph[k]
        c, r = s_center[si], s_radius[si]
        f0, f1 = c_fstart[ci], c_fstart[ci + 1]
        # signed distances of the centre to the face planes
        worst, wface, wsurf, wsface = -np.inf, -1, -np.inf, -1
        for f in range(f0, f1):
            dist = np.dot(f_normal[f], c) - f_offset[f]
            if dist > worst:
                worst, wface = dist, f
            if f_surface[f] and dist > wsurf:
                wsurf, wsface = dist, f
        if worst <= 0.0:                # centre inside: nearest surface plane, |c - p| := r
            face = wsface if wsface >= 0 else wface
            n = f_normal[face].copy()
            p = c.copy()
            g = 0.0
        else:
            best, p = np.inf, c.copy()
            for t in range(c_tstart[ci], c_tstart[ci + 1]):
                q = _closest_on_triangle(c, v_cur[tri[t, 0]], v_cur[tri[t, 1]], v_cur[tri[t, 2]])
                d2 = np.dot(c - q, c - q)
                if d2 < best:
                    best, p = d2, q
            d = np.sqrt(best)
            if not d < r + eps or d == 0.0:
                continue
            n = (c - p) / d
            g = min(d - r, 0.0)
        # surface id: the surface plane nearest to the convex point
        near, nsid = np.inf, 0
        for f in range(f0, f1):
            if f_surface[f]:
                dist = abs(np.dot(f_normal[f], p) - f_offset[f])
                if dist < near:
                    near, nsid = dist, f_sid[f]
        q = c - r * n
        if not (np.isfinite(g) and np.all(np.isfinite(q)) and np.all(np.isfinite(n))):
            continue
        touch[k] = True
        pm[k], ps[k], nrm[k], gap[k], sid[k] = q, p, n, g, nsid
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
