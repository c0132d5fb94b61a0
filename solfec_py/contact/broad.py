"""Broad phase of contact detection (layer 5): all pairs of overlapping axis-aligned boxes
by sort and sweep along the axis of largest spread, in a numba kernel — O(n log n + k) when
few boxes share a stretch of that axis; many boxes (a 3-D pile: about n^(2/3) boxes per
stretch) go through a uniform grid of cells as large as the small boxes, O(n log n + k), with
the few boxes larger than a cell tested against all. Reference: docs/contact.md (any exact
method reports Solfec's pair set: closed-interval overlap in x, y and z; Solfec's hybrid
segment tree differs only in the order of pairs).
"""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _sweep(lo, hi, order, axis, skip_group, group, skip_flag, flag):
    """Pairs (i, j), i < j, of boxes overlapping on all axes; pairs with equal `group`
    (when skip_group) or both `flag` (when skip_flag) are left out."""
    n = order.size
    cap = max(16, 4 * n)
    out = np.empty((cap, 2), dtype=np.int64)
    k = 0
    for a in range(n):
        i = order[a]
        top = hi[i, axis]
        for b in range(a + 1, n):
            j = order[b]
            if lo[j, axis] > top:
                break
            if skip_group and group[i] == group[j]:
                continue
            if skip_flag and flag[i] and flag[j]:
                continue
            ok = True
            for d in range(3):
                if d != axis and (lo[j, d] > hi[i, d] or lo[i, d] > hi[j, d]):
                    ok = False
                    break
            if not ok:
                continue
            if k == out.shape[0]:
                grown = np.empty((2 * k, 2), dtype=np.int64)
                grown[:k] = out[:k]
                out = grown
            if i < j:
                out[k, 0], out[k, 1] = i, j
            else:
                out[k, 0], out[k, 1] = j, i
            k += 1
    return out[:k]


@numba.njit(cache=True, inline="always")
def _overlap(lo, hi, i, j, skip_group, group, skip_flag, flag):
    if skip_group and group[i] == group[j]:
        return False
    if skip_flag and flag[i] and flag[j]:
        return False
    for d in range(3):
        if lo[j, d] > hi[i, d] or lo[i, d] > hi[j, d]:
            return False
    return True


@numba.njit(cache=True)
def _grid(lo, hi, cell, skip_group, group, skip_flag, flag):
    """Pairs i < j of overlapping boxes: boxes no larger than `cell` on every axis are
    binned by the cell of their low corner (sorted cell keys, z fastest) and meet only boxes
    of the 27 neighbouring cells (9 runs of 3 consecutive keys); larger boxes are tested
    against every box."""
    n = lo.shape[0]
    big = np.zeros(n, dtype=np.bool_)
    origin = np.empty(3)
    for d in range(3):
        origin[d] = lo[:, d].min()
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
    order = np.argsort(key, kind="mergesort")
    skey = key[order]
    out = np.empty((max(16, 4 * n), 2), dtype=np.int64)
    k = 0
    for i in range(n):
        if big[i]:
            continue
        for a in range(-1, 2):
            for b in range(-1, 2):                   # cells z-1 .. z+1 of a column are consecutive keys
                x, y = cx[i, 0] + a, cx[i, 1] + b
                if x < 0 or y < 0:
                    continue
                first = (x * dims[1] + y) * dims[2] + max(cx[i, 2] - 1, 0)
                last = (x * dims[1] + y) * dims[2] + cx[i, 2] + 1
                for m in range(np.searchsorted(skey, first), n):
                    if skey[m] > last:
                        break
                    j = order[m]
                    if j <= i or not _overlap(lo, hi, i, j, skip_group, group, skip_flag, flag):
                        continue
                    if k == out.shape[0]:
                        grown = np.empty((2 * k, 2), dtype=np.int64)
                        grown[:k] = out[:k]
                        out = grown
                    out[k, 0], out[k, 1] = i, j
                    k += 1
    for i in range(n):                               # large boxes against all
        if not big[i]:
            continue
        for j in range(n):
            if j == i or (big[j] and j < i) or not _overlap(lo, hi, i, j, skip_group, group, skip_flag, flag):
                continue
            if k == out.shape[0]:
                grown = np.empty((2 * k, 2), dtype=np.int64)
                grown[:k] = out[:k]
                out = grown
            out[k, 0], out[k, 1] = min(i, j), max(i, j)
            k += 1
    return out[:k]


GRID_FROM = 5000        # boxes from which the grid replaces the sweep (smaller runs keep Solfec-like pair order)


def overlapping_pairs(lo: np.ndarray, hi: np.ndarray, group: np.ndarray | None = None,
                      flag: np.ndarray | None = None) -> np.ndarray:
    """(k, 2) index pairs i < j of boxes [lo, hi] (n, 3) that overlap (closed intervals),
    excluding pairs in the same `group` (e.g. the same body) and pairs with both `flag`s
    set (e.g. two obstacles)."""
    n = lo.shape[0]
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    spread = hi.max(axis=0) - lo.min(axis=0)
    axis = int(np.argmax(spread))
    order = np.argsort(lo[:, axis], kind="stable").astype(np.int64)
    g = np.zeros(n, dtype=np.int64) if group is None else np.ascontiguousarray(group, dtype=np.int64)
    f = np.zeros(n, dtype=np.bool_) if flag is None else np.ascontiguousarray(flag, dtype=np.bool_)
    if n >= GRID_FROM:
        size = np.max(hi - lo, axis=1)
        cell = float(np.quantile(size, 0.98))         # the small boxes' size; the other 2 % are "large"
        if cell > 0.0 and np.count_nonzero(size > cell) <= 0.02 * n:
            return _grid(np.ascontiguousarray(lo, dtype=float), np.ascontiguousarray(hi, dtype=float), cell,
                         group is not None, g, flag is not None, f)
    return _sweep(np.ascontiguousarray(lo, dtype=float), np.ascontiguousarray(hi, dtype=float), order, axis,
                  group is not None, g, flag is not None, f)
