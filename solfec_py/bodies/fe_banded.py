"""The Cholesky factor of a constant symmetric positive definite body operator stored as a band
(layer 3), for slender meshes whose unknowns can be numbered so that every coupling stays near
the diagonal. Reference: Cuthill & McKee, "Reducing the bandwidth of sparse symmetric
matrices", ACM 1969 (scipy's reverse_cuthill_mckee); LAPACK dpbtrf / dpbtrs (scipy.linalg
cholesky_banded, cho_solve_banded); George & Liu, "Computer solution of large sparse positive
definite systems" (1981), ch. 4 on band and envelope methods.

A band factor of half-bandwidth kd holds n (kd + 1) numbers and solves with dense level-2
kernels over them; SuperLU's factors of the same matrix hold about as many numbers (its `nnz`)
in supernodes with an indirect addressing of their own. Where the band holds no more numbers
than SuperLU's factors, its solve is at least as fast (measured on the B3 beam of
bench/fem_cantilever.py: 0.47 against 1.26 ms at 4 428 unknowns). The unknowns are numbered
node by node in the best of two orders: reverse Cuthill-McKee on the matrix, or the nodes
sorted by their coordinates with the longest extent of the mesh first (slices across a beam).
Used for co-rotational bodies, whose operator is factorised once (bodies/fe_corotational.py).
"""
from __future__ import annotations

import numpy as np


def node_orders(A, X: np.ndarray) -> list:
    """Candidate numberings of the unknowns of A (3 per node, node-major) for a band: reverse
    Cuthill-McKee on A, and the nodes X (n, 3) sorted slice by slice along their longest extent."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    rcm = np.asarray(reverse_cuthill_mckee(A.tocsr(), symmetric_mode=True), dtype=np.int64)
    extent = np.ptp(X, axis=0)
    axes = np.argsort(extent)                              # shortest first: lexsort's last key leads
    scale = extent.max() if extent.max() > 0.0 else 1.0
    # rounded: the coordinates of a layer of a structured mesh are equal up to rounding
    nodes = np.lexsort(tuple(np.round(X[:, a] / scale, 9) for a in axes))
    sliced = (3 * nodes[:, None] + np.arange(3)).reshape(-1)
    return [rcm, sliced]


def bandwidth(A, order: np.ndarray) -> int:
    """Half-bandwidth of A with its unknowns numbered by `order` (position k holds order[k])."""
    where = np.empty_like(order)
    where[order] = np.arange(order.size)
    coo = A.tocoo()
    return int(np.abs(where[coo.row] - where[coo.col]).max()) if coo.nnz else 0


class BandedCholesky:
    """`solve(rhs)` (rhs (n,) or (n, k)) with the band Cholesky factor of A in `order`."""

    def __init__(self, A, order: np.ndarray, kd: int):
        import scipy.linalg as sl

        n = A.shape[0]
        where = np.empty_like(order)
        where[order] = np.arange(n)
        coo = A.tocoo()
        i, j = where[coo.row], where[coo.col]
        upper = j >= i
        ab = np.zeros((kd + 1, n), order="F")                           # LAPACK factorises it in place
        ab[kd + i[upper] - j[upper], j[upper]] = coo.data[upper]        # LAPACK's upper band storage
        self.factor = sl.cholesky_banded(ab, lower=False, overwrite_ab=True, check_finite=False)
        self.order, self.where = order, where

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        import scipy.linalg as sl

        x = sl.cho_solve_banded((self.factor, False), np.asarray(rhs, dtype=float)[self.order], check_finite=False)
        return x[self.where]


def band_plan(A, X: np.ndarray):
    """(order, kd) of the narrowest band of `node_orders`."""
    orders = node_orders(A, X)
    kd, k = min((bandwidth(A, o), k) for k, o in enumerate(orders))
    return orders[k], kd


def banded(A, order: np.ndarray, kd: int):
    """BandedCholesky(A, order, kd), or None when A is not positive definite to working precision."""
    try:
        return BandedCholesky(A, order, kd)
    except np.linalg.LinAlgError:
        return None
