"""CONTACT_POINTS modes (layer 5): 'CENTROID' (Solfec's one point per pair of convex objects,
at the centroid of the intersection polytope) or 'POLYGON' (a flat face-face intersection
gets up to four points spanning its polygon, the area shared between them), so that a box
resting or sliding on one face is held against rocking about a single point. See
docs/contact.md.

New contacts of a pair are expanded into one row per corner; at the update each persisting
row of the pair takes the corner nearest to its previous point (greedy matching), so rows
keep their reactions as warm start while the polygon moves.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.contact import objects as O
from solfec_py.contact.polyhedra_kernels import convex_pairs

MODES = ("CENTROID", "POLYGON")


def active(domain) -> bool:
    """Is the domain in 'POLYGON' mode?"""
    return domain.contact_points == "POLYGON"


def _corners(table: O.ObjectTable, geo: O.Geometry, found, eps: float):
    """(indices of the convex-convex entries of `found`, their corners (k, 4, 3), counts
    (k,)); an entry the compiled path did not evaluate keeps its centroid as one corner."""
    k = np.flatnonzero((table.kind[found.om] == O.CONVEX) & (table.kind[found.os] == O.CONVEX))
    if k.size == 0:
        return k, np.zeros((0, 4, 3)), np.zeros(0, dtype=np.int64)
    ca = np.ascontiguousarray(table.part[found.os[k]], dtype=np.int64)      # the slave owns the normal
    cb = np.ascontiguousarray(table.part[found.om[k]], dtype=np.int64)
    res = convex_pairs(ca, cb, table.c_vstart, table.c_fstart, table.c_obj, geo.v_cur, geo.f_normal,
                       geo.f_offset, table.f_surface, table.f_sid, table.c_tstart, table.tri,
                       table.c_closed, table.f_vstart, table.f_vert, geo.lo, geo.hi,
                       eps, 2.0 * eps)
    touch, corners, count = res[0], res[8], res[9]
    lost = ~touch | (count == 0)
    corners[lost, 0] = found.pm[k[lost]]
    count[lost] = 1
    return k, corners, count


def expand(table: O.ObjectTable, geo: O.Geometry, found, eps: float):
    """New contacts: every convex-convex entry becomes one entry per polygon corner (the
    same objects, normal and gap; point = corner; area / number of corners)."""
    k, corners, count = _corners(table, geo, found, eps)
    if k.size == 0:
        return found
    per = np.ones(found.om.size, dtype=np.int64)
    per[k] = count
    rep = np.repeat(np.arange(found.om.size), per)
    out = found.take(rep)
    slot = np.arange(rep.size) - np.repeat(np.cumsum(per) - per, per)      # corner index in its entry
    where = np.full(found.om.size, -1, dtype=np.int64)
    where[k] = np.arange(k.size)
    conv = where[rep] >= 0
    pts = corners[where[rep[conv]], slot[conv]]
    out.pm[conv], out.ps[conv] = pts, pts
    out.area = out.area / per[rep]
    return out


@njit
def _match(order, starts, prev, corners, count, choice):
    """Greedy nearest matching of rows to corners within groups (rows order[starts[g]:
    starts[g + 1]] of one pair): repeatedly the closest (row, free corner); rows beyond
    the number of corners take their nearest corner."""
    for g in range(starts.size - 1):
        rows = order[starts[g]:starts[g + 1]]
        nc = count[rows[0]]
        used = np.zeros(4, dtype=np.bool_)
        done = np.zeros(rows.size, dtype=np.bool_)
        for _ in range(min(rows.size, nc)):
            best, bi, bj = np.inf, 0, 0
            for i in range(rows.size):
                if done[i]:
                    continue
                for j in range(nc):
                    if used[j]:
                        continue
                    e = prev[rows[i]] - corners[rows[i], j]
                    d = e[0] * e[0] + e[1] * e[1] + e[2] * e[2]
                    if d < best:
                        best, bi, bj = d, i, j
            done[bi], used[bj] = True, True
            choice[rows[bi]] = bj
        for i in range(rows.size):
            if not done[i]:
                best = np.inf
                for j in range(nc):
                    e = prev[rows[i]] - corners[rows[i], j]
                    d = e[0] * e[0] + e[1] * e[1] + e[2] * e[2]
                    if d < best:
                        best, choice[rows[i]] = d, j


def track(table: O.ObjectTable, geo: O.Geometry, found, prev: np.ndarray, eps: float):
    """Persisting contacts (found[j] re-evaluated for a row whose previous point was
    prev[j]): each row of a convex pair takes a corner of the pair's new polygon, the one
    nearest its previous point, with area / number of corners."""
    k, corners, count = _corners(table, geo, found, eps)
    if k.size == 0:
        return found
    key = np.minimum(found.om[k], found.os[k]) * table.count + np.maximum(found.om[k], found.os[k])
    order = np.argsort(key, kind="stable")
    starts = np.flatnonzero(np.r_[True, key[order][1:] != key[order][:-1], True])
    choice = np.zeros(k.size, dtype=np.int64)
    _match(order.astype(np.int64), starts.astype(np.int64), np.ascontiguousarray(prev[k]), corners, count, choice)
    pts = corners[np.arange(k.size), choice]
    found.pm[k], found.ps[k] = pts, pts
    found.area[k] = found.area[k] / count
    return found
