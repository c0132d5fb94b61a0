"""MatrixMarket coordinate files as Solfec-1.0 writes them (mtx.c MX_MatrixMarket): the header
`%%MatrixMarket matrix coordinate real general`, the sizes and the entry count, then one
`row  column  value` line per stored entry (1-based, column after column, values to 15
significant digits). Reference: the MatrixMarket exchange format (NIST), Solfec-1.0 mtx.c.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def write(path: str, matrix, lower: bool = False) -> int:
    """Write `matrix` (any scipy sparse or dense 2-d array) to `path`; with `lower` only its
    lower triangle, as Solfec does for a symmetric matrix (the header still says
    `general`). Returns the number of entries written."""
    a = sp.csc_matrix(matrix)
    if lower:
        a = sp.tril(a, format="csc")
    a.sort_indices()
    m, n = a.shape
    cols = np.repeat(np.arange(n), np.diff(a.indptr))
    with open(path, "w", encoding="ascii") as out:
        out.write("%%MatrixMarket matrix coordinate real general\n")
        out.write(f"{m}  {n}  {a.nnz}\n")
        for i, j, v in zip((a.indices + 1).tolist(), (cols + 1).tolist(), a.data.tolist()):
            out.write(f"{i}  {j}  {v:.15g}\n")
    return int(a.nnz)
