"""Rows of a body block as one float table and back (layer 3, numba): the fixed per-row
fields that `BodyBlock.pack_rows` / `unpack_rows` carry between processes (base.py,
contract item 9), and the numeric fields of constraint rows (parallel/constraint_rows.py).
Reference: docs/parallel.md (ghosts, migration, external rows).

A table has one row per body row and the fields side by side in the block's layout order
(`BodyBlock._moved_layout`), each field's numbers in C order. The fields are copied by
one compiled call per dtype (float64; int64; int8 and bool) over a homogeneous tuple of
their (capacity, width) views; integers and flags travel as exact floats. A field that is
not C-contiguous goes by numpy. Field by field in numpy, the rigid block's twenty fields
cost about 250 µs to pack and 150 µs to unpack for 512 rows (2026-12-08), most of it
numpy's per-call overhead.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


@njit
def _copy(fields, starts, rows, table, into_table):
    """table[i, starts[f]:starts[f] + width_f] = fields[f][rows[i]] for every field f
    (`into_table`), or the other way."""
    f = 0
    for arr in fields:
        c0, w = starts[f], arr.shape[1]
        for i in range(rows.size):
            r = rows[i]
            for j in range(w):
                if into_table:
                    table[i, c0 + j] = arr[r, j]
                else:
                    arr[r, j] = table[i, c0 + j]
        f += 1


def _split(block, layout):
    """([(views, their columns)] per dtype, [(array, column, width, row shape)] of the
    fields left to numpy) of `layout`: C-contiguous float64, int64 and int8 fields (bool
    as int8) go by dtype to the compiled copies."""
    groups: dict = {}
    others = []
    col = 0
    for name, tail, dtype, width in layout:
        arr = getattr(block, name)
        if arr.dtype == np.bool_:
            arr = arr.view(np.int8)
        if arr.dtype in _COMPILED and arr.flags.c_contiguous:
            views, starts = groups.setdefault(arr.dtype, ([], []))
            views.append(arr.reshape(arr.shape[0], width))
            starts.append(col)
        else:
            others.append((getattr(block, name), col, width, tail))
        col += width
    return [(tuple(v), np.array(c, dtype=np.int64)) for v, c in groups.values()], others


_COMPILED = (np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.int8))


def pack(block, layout, rows: np.ndarray, width: int) -> np.ndarray:
    """(k, width) float table of `layout`'s fields of `rows` (int64, (k,))."""
    table = np.empty((rows.size, width))
    groups, others = _split(block, layout)
    if rows.size:
        for views, starts in groups:
            _copy(views, starts, rows, table, True)
    for arr, col, w, _ in others:
        table[:, col:col + w] = arr[rows].reshape(rows.size, w)
    return table


def unpack(block, layout, rows: np.ndarray, table: np.ndarray) -> None:
    """Write a `pack` table (of a block of the same kind) into `rows`."""
    groups, others = _split(block, layout)
    table = np.ascontiguousarray(table, dtype=float)
    if rows.size:
        for views, starts in groups:
            _copy(views, starts, rows, table, False)
    for arr, col, w, tail in others:
        arr[rows] = table[:, col:col + w].reshape((rows.size,) + tail).astype(arr.dtype, copy=False)
