"""Broad phase of contact detection (layer 5): all pairs of overlapping axis-aligned boxes
by sort and sweep along the axis of largest spread, in a numba kernel — O(n log n + k) when
few boxes share a stretch of that axis; many boxes (a 3-D pile: about n^(2/3) boxes per
stretch) go through a uniform grid of cells as large as the small boxes, O(n log n + k), with
the few much larger boxes (floors, walls) tested against the small boxes within their x
range. Reference: docs/contact.md (any exact method reports Solfec's pair set:
closed-interval overlap in x, y and z; Solfec's hybrid segment tree differs only in the order of pairs).
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


@njit
def _grown(out):
    """A copy of the full pair list out (k, 2) with room for 2 k pairs (copied element by
    element: an array assignment would compile numba's shape-mismatch message)."""
    k = out.shape[0]
    grown = np.empty((2 * k, 2), dtype=np.int64)
    for c in range(k):
        grown[c, 0], grown[c, 1] = out[c, 0], out[c, 1]
    return grown


@njit
def _sweep(lo, hi, order, axis, skip_group, group, skip_flag, flag):
    """Pairs (i, j), i < j, of boxes overlapping on all axes; pairs with equal `group`
    (when skip_group) or both `flag` (when skip_flag) are left out. Listed by the sorted
    position of the earlier box, then of the later one. The bounds are copied in sorted
    order (contiguous, the sweep axis first) and the box tests come before the group and
    flag tests: the same pairs in the same order as testing them in the other order on
    lo / hi in place."""
    n = order.size
    e, f = (axis + 1) % 3, (axis + 2) % 3
    s = np.empty((6, n))
    for a in range(n):
        i = order[a]
        s[0, a], s[1, a] = lo[i, axis], hi[i, axis]
        s[2, a], s[3, a] = lo[i, e], hi[i, e]
        s[4, a], s[5, a] = lo[i, f], hi[i, f]
    lo0, hi0, lo1, hi1, lo2, hi2 = s[0], s[1], s[2], s[3], s[4], s[5]
    cap = max(16, 4 * n)
    out = np.empty((cap, 2), dtype=np.int64)
    k = 0
    for a in range(n):
        top, l1, h1, l2, h2 = hi0[a], lo1[a], hi1[a], lo2[a], hi2[a]
        i = order[a]
        for b in range(a + 1, n):
            if lo0[b] > top:
                break
            if lo1[b] > h1 or l1 > hi1[b] or lo2[b] > h2 or l2 > hi2[b]:
                continue
            j = order[b]
            if skip_group and group[i] == group[j]:
                continue
            if skip_flag and flag[i] and flag[j]:
                continue
            if k == out.shape[0]:
                out = _grown(out)
            if i < j:
                out[k, 0], out[k, 1] = i, j
            else:
                out[k, 0], out[k, 1] = j, i
            k += 1
    return out[:k]


@njit(inline="always")
def _overlap(lo, hi, i, j, skip_group, group, skip_flag, flag):
    if skip_group and group[i] == group[j]:
        return False
    if skip_flag and flag[i] and flag[j]:
        return False
    for d in range(3):
        if lo[j, d] > hi[i, d] or lo[i, d] > hi[j, d]:
            return False
    return True


MAX_CELLS = 2.0 ** 20   # grid cells an axis at most (int64 keys: 2^60 cells in all)


@njit
def _grid(lo, hi, cell, skip_group, group, skip_flag, flag):
    """Pairs i < j of overlapping boxes: boxes no larger than `cell` on every axis are
    binned by the cell of their low corner (cell keys, z fastest, counting-sorted when the
    grid has at most 8 cells per box, else sorted and searched) and meet only boxes
    of the 27 neighbouring cells (9 runs of 3 consecutive keys, adjacent runs merged); larger boxes meet the small
    boxes whose low x lies within a cell of their x range, and each other."""
    n = lo.shape[0]
    big = np.zeros(n, dtype=np.bool_)
    origin = np.empty(3)
    for d in range(3):
        origin[d] = lo[:, d].min()
        # at most MAX_CELLS cells an axis, so that the cell keys (products of the three
        # counts) stay within int64 however small the boxes are against their spread (e.g.
        # contact points +- a tolerance); a larger cell keeps every pair
        cell = max(cell, (hi[:, d].max() - origin[d]) / MAX_CELLS)
    dims = np.ones(3, dtype=np.int64)
    cx = np.zeros((n, 3), dtype=np.int64)
    for i in range(n):
        for d in range(3):
            if hi[i, d] - lo[i, d] > cell:
                big[i] = True
            cx[i, d] = int((lo[i, d] - origin[d]) / cell)
            dims[d] = max(dims[d], cx[i, d] + 2)
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        key[i] = (cx[i, 0] * dims[1] + cx[i, 1]) * dims[2] + cx[i, 2] if not big[i] else -1
    ncell = dims[0] * dims[1] * dims[2]
    dense = ncell <= 8 * n + 1024
    if dense:                    # counting sort: start[c] .. start[c + 1] are cell c's boxes
        start = np.zeros(ncell + 1, dtype=np.int64)
        for i in range(n):
            if key[i] >= 0:
                start[key[i]] += 1
        for c in range(ncell):   # start[c] = end of cell c, then filled from the back
            start[c + 1] += start[c]
        order = np.empty(start[ncell], dtype=np.int64)
        for i in range(n - 1, -1, -1):   # ascending i within a cell: the stable sort's order
            if key[i] >= 0:
                start[key[i]] -= 1
                order[start[key[i]]] = i
        skey = key[:0]
    else:
        start = np.zeros(1, dtype=np.int64)
        order = np.argsort(key, kind="mergesort")
        skey = key[order]
    out = np.empty((max(16, 4 * n), 2), dtype=np.int64)
    k = 0
    run_first = np.empty(9, dtype=np.int64)
    run_last = np.empty(9, dtype=np.int64)
    d1, d2 = dims[1], dims[2]
    for i in range(n):
        if big[i]:
            continue
        c0, c1, c2 = cx[i, 0], cx[i, 1], cx[i, 2]
        z0, z1 = max(c2 - 1, 0), c2 + 1
        runs = 0                 # the 9 runs of keys, adjacent ones merged (same cells, same order)
        prev = -2
        for a in range(-1, 2):
            x = c0 + a
            if x < 0:
                continue
            for b in range(-1, 2):                   # cells z-1 .. z+1 of a column are consecutive keys
                y = c1 + b
                if y < 0:
                    continue
                col = (x * d1 + y) * d2
                first = col + z0
                if runs and first == prev + 1:
                    run_last[runs - 1] = col + z1
                else:
                    run_first[runs], run_last[runs] = first, col + z1
                    runs += 1
                prev = col + z1
        li0, li1, li2 = lo[i, 0], lo[i, 1], lo[i, 2]     # (box i in scalars: `_overlap`'s tests)
        hi0, hi1, hi2 = hi[i, 0], hi[i, 1], hi[i, 2]
        gi, fi = group[i], flag[i]
        for q in range(runs):
            first, last = run_first[q], run_last[q]
            m0 = start[first] if dense else np.searchsorted(skey, first)
            m1 = start[last + 1] if dense else n
            for m in range(m0, m1):
                if not dense and skey[m] > last:
                    break
                j = order[m]
                if j <= i:
                    continue
                if skip_group and gi == group[j]:
                    continue
                if skip_flag and fi and flag[j]:
                    continue
                if lo[j, 0] > hi0 or li0 > hi[j, 0] or lo[j, 1] > hi1 or li1 > hi[j, 1] or lo[j, 2] > hi2 or li2 > hi[j, 2]:
                    continue
                if k == out.shape[0]:
                    out = _grown(out)
                out[k, 0], out[k, 1] = i, j
                k += 1
    # large boxes: a small box j can meet large box i only if lo[j, 0] lies in
    # [lo[i, 0] - cell, hi[i, 0]] (its extent is at most `cell`): a binary search in the small
    # boxes sorted by lo along x, then the large boxes; each i's partners in ascending order
    nsmall = n - np.count_nonzero(big)
    if nsmall == n:
        return out[:k]
    small = np.empty(nsmall, dtype=np.int64)
    large = np.empty(n - nsmall, dtype=np.int64)
    s = 0
    g = 0
    for i in range(n):
        if big[i]:
            large[g] = i
            g += 1
        else:
            small[s] = i
            s += 1
    sx = np.empty(nsmall)
    for m in range(nsmall):
        sx[m] = lo[small[m], 0]
    xorder = np.argsort(sx, kind="mergesort")
    sxs = sx[xorder]
    partners = np.empty(n, dtype=np.int64)
    for i in large:
        first = np.searchsorted(sxs, lo[i, 0] - cell)
        last = np.searchsorted(sxs, hi[i, 0], side="right")
        np_ = 0
        for m in range(first, last):
            j = small[xorder[m]]
            if _overlap(lo, hi, i, j, skip_group, group, skip_flag, flag):
                partners[np_] = j
                np_ += 1
        for j in large:
            if j > i and _overlap(lo, hi, i, j, skip_group, group, skip_flag, flag):
                partners[np_] = j
                np_ += 1
        found = np.sort(partners[:np_])
        for j in found:
            if k == out.shape[0]:
                out = _grown(out)
            out[k, 0], out[k, 1] = min(i, j), max(i, j)
            k += 1
    return out[:k]


@njit
def _extents(lo, hi):
    """The spread of all boxes along x, y, z, each box's largest edge, the largest of those
    edges and how many edges are shorter than a quarter of it (-1 when an edge is not finite)."""
    n = lo.shape[0]
    spread = np.empty(3)
    size = np.empty(n)
    for d in range(3):
        a, b = lo[0, d], hi[0, d]
        for i in range(1, n):
            a = min(a, lo[i, d])
            b = max(b, hi[i, d])
        spread[d] = b - a
    top = 0.0
    finite = True
    for i in range(n):
        e = max(hi[i, 0] - lo[i, 0], hi[i, 1] - lo[i, 1], hi[i, 2] - lo[i, 2])
        size[i] = e
        if not np.isfinite(e):
            finite = False
        elif e > top:
            top = e
    short = 0
    quarter = 0.25 * top
    for i in range(n):
        if size[i] < quarter:
            short += 1
    return spread, size, top, short if finite else -1


GRID_FROM = 5000        # boxes from which the grid replaces the sweep (smaller runs keep Solfec-like pair order)
FEW = 16                # boxes up to which numpy lists the sweep's pairs (no kernel compiled for a small deck)


def _few_pairs(lo, hi, group, flag) -> np.ndarray:
    """`_sweep`'s pairs, in its order, of a few finite boxes, by numpy: the sort along the
    axis of largest spread, then every sorted pair (a, b), a < b, listed row by row (the
    sweep's break at lo[b] > hi[a] drops exactly the pairs whose later box starts beyond
    the earlier one's end, the starts being sorted)."""
    axis = int(np.argmax(hi.max(axis=0) - lo.min(axis=0)))
    order = np.argsort(lo[:, axis], kind="stable").astype(np.int64)
    L, H = lo[order], hi[order]
    meet = np.ones((order.size, order.size), dtype=bool)
    for d in range(3):
        meet &= ~((L[None, :, d] > H[:, None, d]) | (L[:, None, d] > H[None, :, d]))
    meet &= np.triu(np.ones_like(meet), 1)
    if group is not None:
        g = np.asarray(group)[order]
        meet &= g[:, None] != g[None, :]
    if flag is not None:
        f = np.asarray(flag, dtype=bool)[order]
        meet &= ~(f[:, None] & f[None, :])
    a, b = np.nonzero(meet)
    i, j = order[a], order[b]
    return np.column_stack((np.minimum(i, j), np.maximum(i, j))).astype(np.int64)


def overlapping_pairs(lo: np.ndarray, hi: np.ndarray, group: np.ndarray | None = None,
                      flag: np.ndarray | None = None, grid_from: int = GRID_FROM) -> np.ndarray:
    """(k, 2) index pairs i < j of boxes [lo, hi] (n, 3) that overlap (closed intervals),
    excluding pairs in the same `group` (e.g. the same body) and pairs with both `flag`s
    set (e.g. two obstacles). `grid_from`: the box count from which the grid serves (a rank
    of a run on K ranks holds about 1 / K of the model's boxes, and searches them as the
    serial run of the model would: contact/detect.py passes GRID_FROM / K)."""
    n = lo.shape[0]
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    lo, hi = np.ascontiguousarray(lo, dtype=float), np.ascontiguousarray(hi, dtype=float)
    if n <= FEW and np.isfinite(lo).all() and np.isfinite(hi).all():
        return _few_pairs(lo, hi, group, flag)
    spread, size, top, short = _extents(lo, hi)
    g = np.zeros(n, dtype=np.int64) if group is None else np.ascontiguousarray(group, dtype=np.int64)
    f = np.zeros(n, dtype=np.bool_) if flag is None else np.ascontiguousarray(flag, dtype=np.bool_)
    if n >= grid_from:
        # cells fit every box up to 4 times the 98th percentile q of the sizes: only outliers
        # (floors, walls) are "large" and searched separately. When fewer sizes than the
        # rank of q are below top / 4 (top the largest size), q >= top / 4 and the cell is
        # top without the percentile (the same cell: the rank is taken one lower than
        # numpy's interpolation index, so this shortcut never decides otherwise)
        if top > 0.0 and 0 <= short <= int(0.98 * (n - 1)) - 1:
            return _grid(lo, hi, top, group is not None, g, flag is not None, f)     # no box above top
        q = float(np.quantile(size, 0.98))
        cell = float(size[size <= 4.0 * q].max()) if q > 0.0 else 0.0
        if cell > 0.0 and np.count_nonzero(size > cell) <= 0.02 * n:
            return _grid(lo, hi, cell, group is not None, g, flag is not None, f)
    axis = int(np.argmax(spread))
    order = np.argsort(lo[:, axis], kind="stable").astype(np.int64)
    return _sweep(lo, hi, order, axis, group is not None, g, flag is not None, f)
