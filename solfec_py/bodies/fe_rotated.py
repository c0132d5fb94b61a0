"""The implicit operator of a body co-rotational (BC) finite-element body with its pinned nodes
eliminated (layer 3). Reference: docs/corotational.md; bodies/fe_pins.py for the pins; Hager,
"Updating the inverse of a matrix", SIAM Review 31 (1989), for the capacitance correction.

The operator of a BC body is A = R A0 R^T, A0 = M + c K0 constant and R the body's rotation
applied node by node. Its pins are eliminated as for total-Lagrangian bodies, (T A T + I - T)
x = T b, without a factorisation per step:
  * a node fixed in every direction (FIX_POINT) has T = 0 there, which commutes with R, so
    T A T + I - T = R (T A0 T + I - T) R^T: the pinned A0 is factorised once;
  * a node fixed along some directions d (FIX_DIRECTION) is held by a Lagrange multiplier:
    with y = R op0^-1 R^T b and C the rows d^T of those nodes, x = y - W S^-1 C y, where
    W = R op0^-1 R^T C^T = R Z0 (R^T D), S = C W = D^T R G0 R^T D, and Z0 = op0^-1 E (E the
    three unit columns of each such node), G0 = E^T Z0 are computed once with the factor.
So a clamped BC body costs one solve with the kept factor per application, as a free one does.
"""
from __future__ import annotations

import numpy as np

DENSE_LIMIT = 4000   # an operator of at most this many DOF is inverted densely (<= 128 MB): the
                     # Delassus columns of many contact points cost one matrix product instead of
                     # a SuperLU solve with as many right-hand sides (10 x faster at 1 000 DOF)


class DenseInverse:
    """A dense inverse with the `solve` of a SuperLU factor."""

    def __init__(self, inverse: np.ndarray):
        self.inverse = inverse

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        return self.inverse @ rhs


def dofs_of(nodes: np.ndarray) -> np.ndarray:
    return (3 * np.asarray(nodes)[:, None] + np.arange(3)).reshape(-1)


class PinnedFactor:
    """op0 = T A0 T + I - T (T zero at the wholly fixed nodes) factorised, with the columns of
    the partly fixed nodes (module docstring). Kept across steps while A0 and the pins hold."""

    def __init__(self, A0, whole: np.ndarray, part: np.ndarray, factorise):
        import scipy.sparse as sp

        n = A0.shape[0]
        op = A0
        if whole.size:
            keep = np.ones(n)
            keep[dofs_of(whole)] = 0.0
            T = sp.diags(keep)
            op = T @ A0 @ T + sp.diags(1.0 - keep)
        op = sp.csc_matrix(op)
        self.lu = DenseInverse(np.linalg.inv(op.toarray())) if n <= DENSE_LIMIT else factorise(op)
        self.rows = None                 # rows of A0 at the pinned nodes (pinned_product)
        self.part = part
        self.Z0 = self.G0 = None
        if part.size:
            E = np.zeros((n, 3 * part.size))
            E[dofs_of(part), np.arange(3 * part.size)] = 1.0
            self.Z0 = np.ascontiguousarray(self.lu.solve(E))
            self.G0 = self.Z0[dofs_of(part)]


class RotatedMatrix:
    """A = R A0 R^T as a product (the reactions of the pins need A du)."""

    def __init__(self, A0, R):
        self.A0, self.R = A0, R

    def __matmul__(self, v):
        w = np.asarray(v, dtype=float).reshape(-1, 3) @ self.R          # R^T per node
        return ((self.A0 @ w.reshape(-1)).reshape(-1, 3) @ self.R.T).reshape(np.shape(v))


class RotatedOperator:
    """`solve(rhs)` of one BC body's operator R op0^-1 R^T for one step, with its pins held
    (module docstring); the interface of bodies/fe_dynamics.Operator (sl, local, Pn, A)."""

    def __init__(self, factor: PinnedFactor, A0, R, sl, local, Pn):
        self.factor, self.R, self.sl, self.local, self.Pn = factor, R, sl, local, Pn
        self.A = RotatedMatrix(A0, R) if local.size else None
        self._capacity = None

    def pinned_product(self, du: np.ndarray) -> np.ndarray:
        """(A du) (k, 3) at the pinned nodes, from the rows of A0 there (the pins' reactions)."""
        f = self.factor
        if f.rows is None:               # the rows, dense over the nodes they reach
            rows = self.A.A0[dofs_of(self.local)].tocsr()
            nodes = np.unique(rows.indices // 3)
            f.rows = (nodes, rows[:, dofs_of(nodes)].toarray())
        nodes, block = f.rows
        return (block @ (du[nodes] @ self.R).reshape(-1)).reshape(-1, 3) @ self.R.T

    def _rotate(self, v: np.ndarray, back: bool) -> np.ndarray:
        w = v.reshape(-1, 3, 1 if v.ndim == 1 else v.shape[1])
        return np.matmul(self.R.T if back else self.R, w).reshape(v.shape)

    def _capacitance(self):
        """(D, W, Cholesky factor of S) of the partly fixed nodes at this step's rotation."""
        if self._capacity is None:
            import scipy.linalg as sl

            f = self.factor
            where = np.searchsorted(self.local, f.part)
            D = []
            for P in self.Pn[where]:
                lam, vec = np.linalg.eigh(np.eye(3) - P)
                D.append(vec[:, lam > 0.5])                  # the fixed directions of the node
            m = [d.shape[1] for d in D]
            Dm = np.zeros((3 * len(D), sum(m)))
            at = np.concatenate([[0], np.cumsum(m)])
            for k, d in enumerate(D):
                Dm[3 * k:3 * k + 3, at[k]:at[k + 1]] = d
            RtD = np.kron(np.eye(len(D)), self.R.T) @ Dm
            W = self._rotate(f.Z0 @ RtD, False)
            S = RtD.T @ f.G0 @ RtD
            self._capacity = (Dm, W, sl.cho_factor(0.5 * (S + S.T)))
        return self._capacity

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        from solfec_py.bodies.fe_pins import Pins

        b = np.array(rhs, dtype=float)
        if self.local.size:
            Pins.project(self.local, self.Pn, b)
        x = self._rotate(self.factor.lu.solve(self._rotate(b, True)), False)
        if self.factor.part.size:
            import scipy.linalg as sl

            Dm, W, S = self._capacitance()
            Cy = Dm.T @ x[dofs_of(self.factor.part)]
            x -= W @ sl.cho_solve(S, Cy)
        if self.local.size:
            Pins.project(self.local, self.Pn, x)
        return x
