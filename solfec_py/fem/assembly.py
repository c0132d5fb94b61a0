"""Sparsity of the global tangent (layer 1): COO indices of element matrices and a cached
CSR pattern that :func:`solfec_py.fem.kernels.add_stiffness_csr` refills in place.
Reference: scipy.sparse CSR format; Solfec-1.0 fem.c assembles the same matrix (it keeps
the lower triangle only; here the full symmetric matrix is stored for scipy's solvers).

The pattern is built at node level: node-block rows ``nbptr`` (nn + 1) and sorted
neighbour lists ``nbidx``. Node row a with deg(a) neighbours owns the dof rows 3a..3a+2,
each holding 3 deg(a) entries, so block (a, b) -- b being the k-th neighbour of a, stored
at ``slot = nbptr[a] + k`` -- entry (i, j) lives at CSR position
9 nbptr[a] + 3 deg(a) i + 3 k + j. Only the node-level slots (ne, n, n) are kept per group.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from solfec_py.compilation import njit


def coo_pattern(conn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the dense element matrices (ne, 3n, 3n) of
    :func:`~solfec_py.fem.kernels.stiffness_matrices`, flattened element by element, so
    ``scipy.sparse.coo_matrix((K.ravel(), (rows, cols)))`` assembles them."""
    conn = np.asarray(conn, dtype=np.int64)
    dof = (3 * conn[:, :, None] + np.arange(3)).reshape(conn.shape[0], -1)     # (ne, 3n)
    rows = np.repeat(dof[:, :, None], dof.shape[1], axis=2)
    cols = np.repeat(dof[:, None, :], dof.shape[1], axis=1)
    return rows.reshape(-1), cols.reshape(-1)


@njit
def _expand(nbptr, nbidx):
    nn = nbptr.size - 1
    indptr = np.empty(3 * nn + 1, dtype=np.int64)
    indices = np.empty(9 * nbidx.size, dtype=np.int64)
    indptr[0] = 0
    for a in range(nn):
        deg = nbptr[a + 1] - nbptr[a]
        for i in range(3):
            r = 3 * a + i
            start = 9 * nbptr[a] + 3 * deg * i
            indptr[r + 1] = start + 3 * deg
            for k in range(deg):
                for j in range(3):
                    indices[start + 3 * k + j] = 3 * nbidx[nbptr[a] + k] + j
    return indptr, indices


class TangentPattern:
    """CSR structure of the (3 nn, 3 nn) tangent of element groups on ``nn`` shared nodes.

    Parameters
    ----------
    nnodes : int
        Number of nodes of the flat node arrays.
    conns : sequence of (ne, n) int arrays
        Connectivity of every element group (any element types).

    Attributes
    ----------
    indptr, indices : CSR arrays (int32 when they fit, else int64); ``nnz`` entries.
    nbptr : (nnodes + 1,) node-block row pointers.
    slots : list of (ne, n, n) block positions (int32 when they fit), one per group, for
        ``add_stiffness_csr``.
    diagonal : (3 nnodes,) positions of the diagonal entries in the CSR data (a node
        with no element keeps no entry: -1).
    full_diagonal : bool, every node has its diagonal entries (masses can be added there).
    """

    def __init__(self, nnodes: int, conns) -> None:
        self.nnodes = int(nnodes)
        conns = [np.ascontiguousarray(c, dtype=np.int64) for c in conns]
        keys = [(c[:, :, None] * self.nnodes + c[:, None, :]).reshape(-1) for c in conns]
        unique, inverse = np.unique(np.concatenate(keys) if keys else np.zeros(0, np.int64),
                                    return_inverse=True)
        rows = unique // self.nnodes
        self.nbidx = unique % self.nnodes
        self.nbptr = np.zeros(self.nnodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=self.nnodes), out=self.nbptr[1:])
        # int32 indices where they fit: scipy then uses the arrays as they are (no copy
        # per matrix() call) and the per-element slots take half the memory
        small = 9 * unique.size < 2 ** 31 - 1
        index = np.int32 if small else np.int64
        self.slots, start = [], 0
        for c in conns:
            size = c.shape[0] * c.shape[1] ** 2
            self.slots.append(inverse[start:start + size].reshape(c.shape[0], c.shape[1], c.shape[1]).astype(index))
            start += size
        indptr, indices = _expand(self.nbptr, self.nbidx)
        self.indptr, self.indices = indptr.astype(index), indices.astype(index)
        self.nnz = self.indices.size
        self.diagonal = np.full(3 * self.nnodes, -1, dtype=np.int64)
        self_pos = np.flatnonzero(rows == self.nbidx)                 # block (a, a)
        a = rows[self_pos]
        deg = np.diff(self.nbptr)[a]
        for i in range(3):
            self.diagonal[3 * a + i] = 9 * self.nbptr[a] + 3 * deg * i + 3 * (self_pos - self.nbptr[a]) + i
        self.full_diagonal = bool((self.diagonal >= 0).all())

    def zeros(self) -> np.ndarray:
        """A zero CSR data array."""
        return np.zeros(self.nnz)

    def matrix(self, data: np.ndarray) -> sp.csr_matrix:
        """The CSR matrix over ``data`` (no copy of the index arrays' contents)."""
        n = 3 * self.nnodes
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(n, n), copy=False)
