"""The implicit operator of a very large finite-element body solved by conjugate gradients
(layer 3): A = M + c K (or T A T + I - T with pinned nodes eliminated, bodies/fe_pins.py)
is symmetric positive definite while M dominates, and a sparse LU factorisation of a
3-D mesh of 10^5 HEX8 would need tens of GB (1.4 GB at 10^4); CG preconditioned by the
diagonal of A needs only A. Reference: Hestenes & Stiefel (1952); Saad, "Iterative
methods for sparse linear systems", 2nd ed. (2003), Alg. 9.1; docs/fem.md.

Used for bodies of at least ITERATIVE_DOFS unknowns (bodies/fe_dynamics.py `_factorise`).
Its cost grows with sqrt(cond(A)) ~ h / h_crit: cheap for steps near the explicit limit,
slow for steps far beyond it (there a smaller mesh, or the BC form, is the better choice).
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import SimulationError

ITERATIVE_DOFS = 200_000      # ~6.5 * 10^4 HEX8: SuperLU of the B3 beam needs > 10 GB beyond this
CG_TOL = 1e-12                # relative residual, per column
CG_MAXITER = 5_000


class IterativeOperator:
    """`solve(rhs)` of one body's implicit operator for one step, by Jacobi-preconditioned
    conjugate gradients started from zero (same interface as fe_dynamics.Operator)."""

    def __init__(self, stepper, row, sl, local, Pn, A, op):
        self.stepper, self.row, self.sl, self.local, self.Pn, self.A = stepper, row, sl, local, Pn, A
        self.op = op.tocsr()
        diag = self.op.diagonal()
        self.inv_diag = 1.0 / np.where(diag > 0.0, diag, 1.0)
        self.iterations = 0           # CG iterations of this step (all columns)

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        if rhs.ndim == 1:
            return self._column(rhs)
        return np.column_stack([self._column(rhs[:, k]) for k in range(rhs.shape[1])])

    def _column(self, b: np.ndarray) -> np.ndarray:
        x = np.zeros_like(b, dtype=float)
        norm_b = float(np.linalg.norm(b))
        if norm_b == 0.0:
            return x
        r = np.array(b, dtype=float)
        z = self.inv_diag * r
        p = z.copy()
        rz = float(r @ z)
        for it in range(1, CG_MAXITER + 1):
            q = self.op @ p
            pq = float(p @ q)
            if not pq > 0.0:
                break                         # not positive definite along p
            alpha = rz / pq
            x += alpha * p
            r -= alpha * q
            if np.linalg.norm(r) <= CG_TOL * norm_b:
                self.iterations += it
                return x
            z = self.inv_diag * r
            rz, rz_old = float(r @ z), rz
            p *= rz / rz_old
            p += z
        blk = self.stepper.block
        body = blk.bodies[self.row]
        raise SimulationError(
            f"conjugate gradients did not converge on the implicit operator of finite-element body {body.id}"
            f" at time {blk.domain.time:g} (residual {np.linalg.norm(r) / norm_b:.1e} after {it} iterations;"
            " the operator is not positive definite or the step is far beyond the explicit limit: reduce"
            " the time step)")
