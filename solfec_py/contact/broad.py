"""Broad phase of contact detection (layer 5): all pairs of overlapping axis-aligned boxes
by sort and sweep along the axis of largest spread, in a numba kernel — O(n log n + k).
Reference: docs/contact.md (any exact method reports Solfec's pair set: closed-interval
overlap in x, y and z; Solfec's hybrid segment tree differs only in the order of pairs).
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
    return _sweep(np.ascontiguousarray(lo, dtype=float), np.ascontiguousarray(hi, dtype=float), order, axis,
                  group is not None, g, flag is not None, f)
