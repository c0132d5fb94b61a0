"""The text dump of the last solved local dynamics (LOCDYN_DUMP), line for line as Solfec-1.0
writes it. Reference: Solfec-1.0 ldy.c (LOCDYN_Dump and the order of its neighbour blocks).

One line per constraint of the last solve, newest first (Solfec's prepended list):

    KIND (point) (master id, slave id) [base] [W_ii] (B) (V) (U) (R)

then, for each constraint j coupled to it, ordered by point, body pair, kind and normal,
`` => KIND (point) (master id, slave id) [base] [W_ij]``. 3x3 matrices are written column after
column (the base's columns are t1, t2, n); numbers are C's ``%.6g``; a missing slave is -1.
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C


def _g(values) -> str:
    return ", ".join("%.6g" % v for v in values)


def _head(cset, r: int) -> str:
    slave = int(cset.bid[r, 1])
    return (f"{C.KINDS[int(cset.kind[r])]} ({_g(cset.point[r])}) ({int(cset.bid[r, 0])}, {slave if slave > 0 else -1})"
            f" [{_g(cset.base[r].T.ravel())}]")


def _order_key(cset, r: int) -> tuple:
    """Solfec's comparison of two neighbour constraints: point, then the sorted body ids (-1
    for none), then kind, then the normal."""
    a, b = int(cset.bid[r, 0]), int(cset.bid[r, 1]) if cset.bid[r, 1] > 0 else -1
    return (tuple(cset.point[r].tolist()), (min(a, b), max(a, b)), int(cset.kind[r]),
            tuple(cset.base[r][:, 2].tolist()))


def lines(cset, record) -> list[str]:
    """The dump's lines for `record` = (LocalDynamics, ids, serials) kept by the last solve;
    constraints removed since are left out."""
    if record is None:
        return []
    ld, ids, serials = record
    rows = np.array([-1 if (k := cset.row_of(int(i), int(s))) is None else k for i, s in zip(ids, serials)],
                    dtype=np.int64)
    indptr, adj, Wadj = ld.neighbour_blocks()
    out = []
    for i in range(ld.n - 1, -1, -1):
        r = int(rows[i])
        if r < 0:
            continue
        text = [f"{_head(cset, r)} [{_g(ld.W[i].T.ravel())}] ({_g(ld.B[i])}) ({_g(ld.V[i])}) ({_g(ld.U[i])})"
                f" ({_g(ld.R[i])})"]
        blocks: dict = {}
        for k in range(int(indptr[i]), int(indptr[i + 1])):
            j = int(rows[int(adj[k])])
            if j >= 0:
                blocks[j] = blocks.get(j, 0.0) + Wadj[k]
        for j in sorted(blocks, key=lambda j: _order_key(cset, j)):
            text.append(f" => {_head(cset, j)} [{_g(np.asarray(blocks[j]).T.ravel())}]")
        out.append("".join(text))
    return out


def write(path: str, cset, record) -> int:
    """Write the dump to `path`; returns the number of constraint lines."""
    text = lines(cset, record)
    with open(path, "w", encoding="ascii") as f:
        for line in text:
            f.write(line + "\n")
    return len(text)
