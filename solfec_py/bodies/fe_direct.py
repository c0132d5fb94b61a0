"""The implicit operator of one total-Lagrangian finite-element body solved with a sparse LU
factorisation that later steps reuse (layer 3). Reference: Wilkinson's iterative refinement
(e.g. Higham, "Accuracy and stability of numerical algorithms", 2nd ed. (2002), ch. 12);
scipy's SuperLU; bodies/fe_pins.py for the eliminated pins.

A = M + c K changes slowly along a run (K with the configuration). Bodies of at least
REUSE_DOFS unknowns keep their factorisation: a kept one preconditions iterative refinement,
x <- x + LU^-1 (b - op x), until the residual is below REFINE_TOL of the right-hand side (what
a fresh factorisation gives, to round-off); op is factorised afresh (and kept) when that takes
more than REFINE_STEPS corrections (the operator has drifted) or when this step's corrections
have cost more than a factorisation (estimated from the fill: one factorisation ~ nnz(L + U) /
(2 n) back-substitutions). The choice depends on the data only, so runs are reproducible;
smaller bodies factorise every step as Solfec does (and a `-c` continuation of them stays
bit-identical). The operator with pins, op = T A T + I - T, is applied as a product and only
assembled when it is factorised.

Before any factorisation a large body tries conjugate gradients preconditioned by the diagonal
(Hestenes & Stiefel 1952) to the same tolerance, with few right-hand sides: A is dominated by
M for steps near the explicit limit, cond(A) ~ 1 + (h / h_crit)^2, and CG then converges in a
few tens of products, far cheaper than a factorisation of 10^4 HEX8 (6 s, 46 M entries in
L + U) and its back-substitutions. The first time it does not converge within CG_ITERATIONS, the body
factorises instead for as long as the coefficient and the pins hold.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.fe_pins import Pins, projected_product
from solfec_py.errors import SimulationError


class Operator:
    """The implicit operator of one body for one step (module docstring): A = M + c K (CSR),
    op = A, or T A T + I - T with the pinned nodes `local` (projectors Pn) eliminated."""

    REUSE_DOFS = 1_500     # CG first and kept factors from here (BM16: 1 752 and 1 854 unknowns)
    REFINE_TOL = 1e-13
    REFINE_STEPS = 4
    CG_ITERATIONS = 40     # the diagonally preconditioned CG tried first must converge within
    CG_COLUMNS = 4         # this many iterations, for at most this many right-hand sides

    def __init__(self, stepper, row, sl, local, Pn, A, key, kept, diagonal=None):
        self.stepper, self.row, self.sl, self.local, self.Pn = stepper, row, sl, local, Pn
        self.matrix = A
        self.diagonal = diagonal         # A's, where the caller has it at hand
        self.A = A if local.size else None          # the pins' increments and reactions use it
        self.key = key
        self._op = None
        self.spent = 0                   # back-substitutions spent refining this step
        self.lu = None
        # large bodies try CG first (a mass-dominated A: steps near the explicit limit) until it
        # fails once for this coefficient and these pins; then the (kept) factorisation
        self.cg = A.shape[0] >= self.REUSE_DOFS and stepper.kept.get(("no cg", row)) != key
        if kept is not None and A.shape[0] >= self.REUSE_DOFS:
            self.lu, self.budget = kept
            self.fresh = False
        elif not self.cg:
            self._factorise()

    @property
    def op(self):
        """op as a CSC matrix (built when first needed)."""
        if self._op is None:
            import scipy.sparse as sp

            A = self.matrix
            if self.local.size:
                T = Pins.projector(A.shape[0] // 3, self.local, self.Pn)
                A = T @ A @ T + sp.identity(A.shape[0], format="csr") - T
            self._op = A.tocsc()
        return self._op

    def apply(self, x: np.ndarray) -> np.ndarray:
        """op x, as T A T x + x - T x without assembling op."""
        return projected_product(self.matrix, self.local, self.Pn, x)

    def pinned_product(self, du: np.ndarray) -> np.ndarray:
        """(A du) (k, 3) at the pinned nodes only (the pins' reactions)."""
        dofs = (3 * self.local[:, None] + np.arange(3)).reshape(-1)
        return (self.matrix[dofs] @ du.reshape(-1)).reshape(-1, 3)

    def _factorise(self) -> None:
        from scipy.sparse.linalg import splu

        try:
            # symmetric mode with a minimum-degree order of A + A^T: 3.8x faster than the
            # default COLAMD on 10^4 HEX8 (22 s vs 83 s, half the fill), same residual
            self.lu = splu(self.op, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.01,
                           options={"SymmetricMode": True})
        except RuntimeError:
            blk = self.stepper.block
            body = blk.bodies[self.row]
            raise SimulationError(
                f"the implicit operator of finite-element body {body.id} is singular at time"
                f" {blk.domain.time:g} (no mass and no stiffness along some motion: constrain it or give"
                " it a density)") from None
        n = self.matrix.shape[0]
        self.budget = (self.lu.L.nnz + self.lu.U.nnz) / (2.0 * n)
        self.fresh = True
        if n >= self.REUSE_DOFS:
            self.stepper.kept[self.row] = (self.lu, self.budget, self.key)
        self.stepper.factorisations += 1

    def _converged(self, res, scale) -> bool:
        return bool(np.all(np.linalg.norm(res, axis=0) <= self.REFINE_TOL * scale))

    def _conjugate_gradients(self, rhs: np.ndarray):
        """CG preconditioned by the diagonal of op, to REFINE_TOL; None when it does not
        converge within CG_ITERATIONS (never tried again for this operator's key)."""
        from solfec_py.bodies.fe_iterative import pcg

        diag = self.matrix.diagonal() if self.diagonal is None else self.diagonal   # of A: SPD, all CG needs
        inv = 1.0 / np.where(diag > 0.0, diag, 1.0)
        cols = rhs.reshape(rhs.shape[0], -1)
        out = np.empty_like(cols, dtype=float)
        for k in range(cols.shape[1]):
            x, _, res = pcg(self.apply, cols[:, k], lambda r: inv * r, self.REFINE_TOL, self.CG_ITERATIONS)
            if res is not None:
                self.cg = False
                self.stepper.kept[("no cg", self.row)] = self.key
                return None
            out[:, k] = x
        return out.reshape(rhs.shape)

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        columns = 1 if rhs.ndim == 1 else rhs.shape[1]
        if self.cg and columns <= self.CG_COLUMNS:
            x = self._conjugate_gradients(rhs)
            if x is not None:
                return x
        if self.lu is None:
            self._factorise()
        if not self.fresh and self.spent + columns > self.budget:
            self._factorise()            # even one correction would cost more (many columns)
        x = self.lu.solve(rhs)
        if self.fresh:
            return x
        scale = np.linalg.norm(rhs, axis=0)
        scale = np.where(scale > 0.0, scale, 1.0)
        res = rhs - self.apply(x)
        ok = self._converged(res, scale)
        for _ in range(self.REFINE_STEPS):
            if ok or self.spent + columns > self.budget:
                break
            x += self.lu.solve(res)
            self.spent += columns
            res = rhs - self.apply(x)
            ok = self._converged(res, scale)
        if ok:
            return x
        self._factorise()                # drifted, or refining costs more than factorising
        return self.lu.solve(rhs)
