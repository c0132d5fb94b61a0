"""The implicit operator of a very large finite-element body solved by preconditioned conjugate
gradients (layer 3): A = M + c K (or T A T + I - T with pinned nodes eliminated, bodies/fe_pins.py)
is symmetric positive definite while M dominates, and a sparse LU factorisation of a 3-D mesh
of 10^5 HEX8 would need tens of GB (1.4 GB at 10^4). Reference: Hestenes & Stiefel (1952);
Saad, "Iterative methods for sparse linear systems", 2nd ed. (2003), Alg. 9.1; Vanek, Mandel &
Brezina, "Algebraic multigrid by smoothed aggregation", Computing 56 (1996); docs/fem.md.

The preconditioner is the diagonal of A while that converges in at most AMG_AFTER iterations,
as it does where M dominates (a dynamic step near the explicit limit); otherwise one V-cycle
of pyamg's smoothed aggregation with the six rigid-body motions of the body as near-nullspace
(optional extra `[amg]`). On the 10^5-element B3 beam of bench/fem_cantilever.py at h = 1e-4
(3.2 10^5 DOF, clamped, 2026-12-07) the diagonal needs 28-29 iterations of 15-18 ms to
1e-12 (TL's operator and BC's A0 alike), the hierarchy costs 7.7 s to build and 0.33 s a V-cycle (18 products) for 6 iterations: it pays only where
the diagonal needs over a hundred. The hierarchy is built for the operator of one step and kept
for later steps while it still preconditions well (CG converges whatever preconditioner it is
given; it is dropped when the iterations double). Used for total-Lagrangian bodies of at least
ITERATIVE_DOFS unknowns (bodies/fe_dynamics.py `_factorise`) and for the constant operator of
co-rotational ones (bodies/fe_corotational.py).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.fe_pins import Pins, projected_product
from solfec_py.errors import SimulationError

ITERATIVE_DOFS = 200_000      # ~6.5 * 10^4 HEX8: SuperLU of the B3 beam needs > 10 GB beyond this
CG_TOL = 1e-12                # relative residual, per column
CG_MAXITER = 5_000
AMG_AFTER = 150               # diagonal-preconditioned iterations of one solve beyond which AMG pays


def amg_available() -> bool:
    try:
        import pyamg  # noqa: F401
    except ImportError:
        return False
    return True


def rigid_modes(x: np.ndarray) -> np.ndarray:
    """(3 n, 6) translations and rotations about the centre of the nodes x (n, 3)."""
    d = x - x.mean(axis=0)
    B = np.zeros((x.shape[0], 3, 6))
    B[:, [0, 1, 2], [0, 1, 2]] = 1.0
    B[:, 1, 3], B[:, 2, 3] = -d[:, 2], d[:, 1]              # e_x x d
    B[:, 0, 4], B[:, 2, 4] = d[:, 2], -d[:, 0]              # e_y x d
    B[:, 0, 5], B[:, 1, 5] = -d[:, 1], d[:, 0]              # e_z x d
    return B.reshape(-1, 6)


class ConjugateGradients:
    """x = op^-1 b for a symmetric positive definite op (applied by `apply`) by preconditioned
    conjugate gradients from zero. The preconditioner is the diagonal of op until one solve
    needs more than AMG_AFTER iterations; then, with pyamg, the smoothed-aggregation hierarchy
    of `matrix()` with near-nullspace `modes()` (kept in `hierarchy`, [multilevel solver,
    iterations of its first solve], and handed to `keep` when made or dropped: a kept one that
    needs more than twice its first iterations is dropped, and the next solve goes back to the
    diagonal). `failed(iterations, residual)` raises the caller's error."""

    def __init__(self, apply, diagonal, matrix, modes, failed, hierarchy=None, keep=None):
        self.apply, self.matrix, self.modes, self.failed, self.keep = apply, matrix, modes, failed, keep
        self.inv_diag = 1.0 / np.where(diagonal > 0.0, diagonal, 1.0)   # any SPD diagonal serves
        self.hierarchy = hierarchy
        self.iterations = 0           # all columns, all solves

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        if rhs.ndim == 1:
            return self._column(rhs)
        return np.column_stack([self._column(rhs[:, k]) for k in range(rhs.shape[1])])

    def _column(self, b: np.ndarray) -> np.ndarray:
        amg = self.hierarchy is not None
        if amg:
            precondition = self.hierarchy[0].aspreconditioner(cycle="V")
        else:
            inv_diag = self.inv_diag
            precondition = lambda r: inv_diag * r          # noqa: E731
        x, it, res = pcg(self.apply, b, precondition, CG_TOL, CG_MAXITER)
        if res is not None:
            self.failed(it, res)
        self.iterations += it
        if amg:
            if self.hierarchy[1] is None:
                self.hierarchy[1] = it
            elif it > 2 * self.hierarchy[1] + 2:           # the operator has drifted from it
                self.hierarchy = None
                if self.keep is not None:
                    self.keep(None)
        elif it > AMG_AFTER and amg_available():
            self._build()
        return x

    def _build(self) -> None:
        import pyamg

        ml = pyamg.smoothed_aggregation_solver(self.matrix(), B=self.modes(), symmetry="symmetric",
                                               max_coarse=500)
        self.hierarchy = [ml, None]
        if self.keep is not None:
            self.keep(self.hierarchy)


class IterativeOperator:
    """`solve(rhs)` of one body's implicit operator op = T A T + I - T for one step by
    `ConjugateGradients` (same interface as fe_direct.Operator). An AMG hierarchy of an
    earlier step with the same coefficient and pins (stepper.kept[("amg", row)]) preconditions
    this one's solves. `diagonal`: A's, where the caller has it at hand."""

    def __init__(self, stepper, row, sl, local, Pn, A, key, diagonal=None):
        self.stepper, self.row, self.sl, self.local, self.Pn, self.key = stepper, row, sl, local, Pn, key
        self.matrix = A               # M + c K (CSR); op = T A T + I - T is applied as products
        self.A = A if local.size else None
        kept = stepper.kept.get(("amg", row))
        kept = kept[1] if kept is not None and kept[0] == key else None
        diagonal = A.diagonal() if diagonal is None else diagonal
        self.cg = ConjugateGradients(self.apply, diagonal, self._operator, self._modes, self._failed,
                                     kept, self._keep)

    @property
    def iterations(self) -> int:
        return self.cg.iterations

    def apply(self, x: np.ndarray) -> np.ndarray:
        return projected_product(self.matrix, self.local, self.Pn, x)

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        return self.cg.solve(rhs)

    def _operator(self):
        import scipy.sparse as sp

        op = self.matrix              # a copy: the hierarchy outlives this step's matrix
        if not self.local.size:
            return op.copy()
        T = Pins.projector(op.shape[0] // 3, self.local, self.Pn)
        return (T @ op @ T + sp.identity(op.shape[0], format="csr") - T).tocsr()

    def _modes(self) -> np.ndarray:
        blk = self.stepper.block
        x = blk.X[self.sl] + blk.q[self.sl]
        return Pins.project(self.local, self.Pn, rigid_modes(x))

    def _keep(self, hierarchy) -> None:
        if hierarchy is None:
            self.stepper.kept.pop(("amg", self.row), None)
        else:
            self.stepper.kept[("amg", self.row)] = (self.key, hierarchy)

    def _failed(self, it: int, res: float) -> None:
        blk = self.stepper.block
        body = blk.bodies[self.row]
        raise SimulationError(
            f"conjugate gradients did not converge on the implicit operator of finite-element body {body.id}"
            f" at time {blk.domain.time:g} (residual {res:.1e} after {it} iterations;"
            " the operator is not positive definite or the step is far beyond the explicit limit: reduce"
            " the time step)")


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """a . b without BLAS threads (on a loaded machine they spin on the cores CG runs on)."""
    return float(np.einsum("i,i->", a, b))


def pcg(apply, b: np.ndarray, precondition, tol: float, maxiter: int):
    """Preconditioned conjugate gradients from x = 0 for op x = b (op = `apply`, SPD): (x,
    iterations, None) once |r| <= tol |b|, else (x, iterations, relative residual) when
    maxiter is reached or op is not positive definite along a search direction."""
    x = np.zeros_like(b, dtype=float)
    r = np.array(b, dtype=float)
    norm_b = np.sqrt(_dot(r, r))
    if norm_b == 0.0:
        return x, 0, None
    z = precondition(r)
    p = z.copy()
    rz = _dot(r, z)
    it = 0
    for it in range(1, maxiter + 1):
        q = apply(p)
        pq = _dot(p, q)
        if not pq > 0.0:
            break                         # not positive definite along p
        alpha = rz / pq
        x += alpha * p
        r -= alpha * q
        if np.sqrt(_dot(r, r)) <= tol * norm_b:
            return x, it, None
        z = precondition(r)
        rz, rz_old = _dot(r, z), rz
        p *= rz / rz_old
        p += z
    return x, it, float(np.sqrt(_dot(r, r)) / norm_b)
