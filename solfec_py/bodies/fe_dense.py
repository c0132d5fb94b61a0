"""Small finite-element bodies solved through dense inverses, all bodies of one size at
once (layer 3): the inverses of A = M + c K taken from the step's tangent (total-Lagrangian
bodies) or kept from A0 (body co-rotational ones, bodies/fe_rotated.py), the steps' solves
A^-1 v and the Delassus blocks H_a A^-1 H_b^T of every such body by batched products, with
no Python loop over the bodies. Reference: docs/fem.md; bodies/fe_dynamics.py (the
body-by-body operators these stand in for).
"""
from __future__ import annotations

import numpy as np

DENSE_BATCH = 96    # bodies of at most this many unknowns (32 nodes: a HEX 2 x 2 x 2 has 27) are solved
                    # through dense inverses, all bodies of one size at once (DenseSet)


class DenseGroup:
    """Bodies of one size d whose operator of the step is A^-1 = R Ainv R^T: `rows` (n,), the
    inverses Ainv as `stack` (n, d / 3, 3, d / 3, 3), R the bodies' rotations applied node by
    node (`rotations` (n, 3, 3); None: R = I)."""

    __slots__ = ("rows", "stack", "rotations")

    def __init__(self, rows, stack, rotations=None):
        self.rows, self.stack, self.rotations = rows, stack, rotations


class DenseSet:
    """The DenseGroups of a block in one step: `group[row]` the group of a body (-1: not in
    the set), `index[row]` its position in it."""

    def __init__(self, count: int, groups: list):
        self.groups = groups
        self.group = np.full(count, -1, dtype=np.int64)
        self.index = np.full(count, -1, dtype=np.int64)
        for g, grp in enumerate(groups):
            self.group[grp.rows] = g
            self.index[grp.rows] = np.arange(grp.rows.size)

    def solve(self, block, v: np.ndarray):
        """(nodes, A^-1 v at them (len(nodes), 3)) of every body of the set, v (N, 3) over the
        block's nodes: the bodies' solves (`Stepper._solve`) all at once, in another order."""
        nodes, out = [], []
        for grp in self.groups:
            n, nn = grp.rows.size, grp.stack.shape[1]
            at = block.nstart[grp.rows][:, None] + np.arange(nn)                          # (n, nn)
            R = grp.rotations
            y = v[at] if R is None else np.matmul(v[at], R)                               # R^T per node
            z = np.matmul(grp.stack.reshape(n, 3 * nn, 3 * nn), y.reshape(n, 3 * nn, 1)).reshape(n, nn, 3)
            nodes.append(at.reshape(-1))
            out.append((z if R is None else np.matmul(z, np.swapaxes(R, 1, 2))).reshape(-1, 3))
        return np.concatenate(nodes), np.concatenate(out)

    def delassus(self, block, rows: np.ndarray, Ha, Hb) -> np.ndarray:
        """Ha A^-1 Hb^T (k, 3, 3) of entries on bodies of the set, all at once, group by
        group: the 3 x 3 blocks of Ainv at the entries' node pairs weighted by the shape
        functions, rotated into the points' local bases,
        W = (R^T base_a)^T (sum N_a N_b Ainv_ab) (R^T base_b): the sums `Stepper._columns`
        forms body by body, in another order."""
        out = np.empty((rows.size, 3, 3))
        group = self.group[rows]
        for g in np.unique(group).tolist():
            grp = self.groups[g]
            ent = np.flatnonzero(group == g)
            pos = self.index[rows[ent]]
            start = block.nstart[rows[ent]][:, None]
            Na, Nb = Ha.N[ent], Hb.N[ent]
            la = np.where(Na != 0.0, Ha.nodes[ent] - start, 0)
            lb = np.where(Nb != 0.0, Hb.nodes[ent] - start, 0)
            k, wa, wb = ent.size, la.shape[1], lb.shape[1]
            blocks = grp.stack[pos[:, None, None], la[:, :, None], :, lb[:, None, :], :]   # (k, wa, wb, 3, 3)
            weights = (Na[:, :, None] * Nb[:, None, :]).reshape(k, 1, wa * wb)
            G = np.matmul(weights, blocks.reshape(k, wa * wb, 9)).reshape(k, 3, 3)
            Pa, Pb = Ha.base[ent], Hb.base[ent]
            if grp.rotations is not None:
                Rt = np.swapaxes(grp.rotations[pos], 1, 2)
                Pa, Pb = np.matmul(Rt, Pa), np.matmul(Rt, Pb)
            out[ent] = np.matmul(np.matmul(np.swapaxes(Pa, 1, 2), G), Pb)
        return out


class DenseOperator:
    """A body's A^-1 as a dense matrix (a view into its DenseGroup's stack), with the interface
    of fe_direct.Operator that the step's other users read (no pins)."""

    A = None

    def __init__(self, inverse: np.ndarray, sl: slice):
        self.inverse, self.sl = inverse, sl
        self.local = np.zeros(0, dtype=np.int64)
        self.Pn = np.zeros((0, 3, 3))

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        return self.inverse @ rhs


def block_entries(Kmat, nstart: np.ndarray, d: int):
    """(body, row, column, entry): the entries of the CSR matrix Kmat in the diagonal d x d
    blocks of bodies whose unknowns start at 3 nstart, as positions in those blocks (a body's
    nodes are contiguous and its elements couple none of another's)."""
    first = (3 * np.asarray(nstart, dtype=np.int64))[:, None]
    at = (first + np.arange(d)).reshape(-1)                               # the bodies' rows of the matrix
    lo, hi = Kmat.indptr[at], Kmat.indptr[at + 1]
    count = hi - lo
    k = np.repeat(hi - np.cumsum(count), count) + np.arange(int(count.sum()))
    body = np.repeat(np.arange(first.shape[0]), d)
    b = np.repeat(body, count)
    r = np.repeat(np.tile(np.arange(d), first.shape[0]), count)
    return b, r, Kmat.indices[k] - first[b, 0], k


def invert_blocks(Kmat, entries, mass: np.ndarray, nstart: np.ndarray, coef: np.ndarray, d: int) -> np.ndarray:
    """(n, d, d) inverses of A_b = diag(mass_b) + coef_b K_b, K_b the diagonal blocks of Kmat
    at `entries` (`block_entries`), mass per unknown, by numpy's batched inverse."""
    b, r, c, k = entries
    A = np.zeros((nstart.size, d, d))
    A[b, r, c] = Kmat.data[k] * coef[b]
    at = (3 * np.asarray(nstart, dtype=np.int64))[:, None] + np.arange(d)
    A[:, np.arange(d), np.arange(d)] += mass[at]
    return np.linalg.inv(A)
