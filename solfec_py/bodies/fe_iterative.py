"""The implicit operator of a very large finite-element body solved by preconditioned conjugate
gradients (layer 3): A = M + c K (or T A T + I - T with pinned nodes eliminated, bodies/fe_pins.py)
is symmetric positive definite while M dominates, and a sparse LU factorisation of a 3-D mesh
of 10^5 HEX8 would need tens of GB (1.4 GB at 10^4). Reference: Hestenes & Stiefel (1952);
Saad, "Iterative methods for sparse linear systems", 2nd ed. (2003), Alg. 9.1; Vanek, Mandel &
Brezina, "Algebraic multigrid by smoothed aggregation", Computing 56 (1996); docs/fem.md.

The preconditioner is one V-cycle of pyamg's smoothed aggregation with the six rigid-body
motions of the body as near-nullspace (optional extra `[amg]`), or the diagonal of A without
pyamg. The AMG hierarchy is built for the operator of one step and kept for later steps while
it still preconditions well (CG converges whatever preconditioner it is given; the hierarchy
is rebuilt when the iterations double). Used for bodies of at least ITERATIVE_DOFS unknowns
(bodies/fe_dynamics.py `_factorise`).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.fe_pins import projected_product
from solfec_py.errors import SimulationError

ITERATIVE_DOFS = 200_000      # ~6.5 * 10^4 HEX8: SuperLU of the B3 beam needs > 10 GB beyond this
CG_TOL = 1e-12                # relative residual, per column
CG_MAXITER = 5_000


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


class IterativeOperator:
    """`solve(rhs)` of one body's implicit operator for one step, by preconditioned conjugate
    gradients started from zero (same interface as fe_direct.Operator)."""

    def __init__(self, stepper, row, sl, local, Pn, A, kept=None):
        self.stepper, self.row, self.sl, self.local, self.Pn = stepper, row, sl, local, Pn
        self.matrix = A               # M + c K (CSR); op = T A T + I - T is applied as products
        self.A = A if local.size else None
        self.iterations = 0           # CG iterations of this step (all columns)
        self.kept = kept              # [hierarchy, iterations of its first solve] or None
        self.precondition = self._jacobi()
        if amg_available():
            self.precondition = self._amg()

    def apply(self, x: np.ndarray) -> np.ndarray:
        return projected_product(self.matrix, self.local, self.Pn, x)

    def _jacobi(self):
        diag = self.matrix.diagonal()            # of A: SPD, which is all CG needs of it
        inv_diag = 1.0 / np.where(diag > 0.0, diag, 1.0)
        return lambda r: inv_diag * r

    def _amg(self):
        if self.kept is None:
            import pyamg
            import scipy.sparse as sp

            from solfec_py.bodies.fe_pins import Pins

            op = self.matrix
            if self.local.size:
                T = Pins.projector(op.shape[0] // 3, self.local, self.Pn)
                op = (T @ op @ T + sp.identity(op.shape[0], format="csr") - T).tocsr()
            blk = self.stepper.block
            x = blk.X[self.sl] + blk.q[self.sl]
            B = Pins.project(self.local, self.Pn, rigid_modes(x))
            ml = pyamg.smoothed_aggregation_solver(op, B=B, symmetry="symmetric", max_coarse=500)
            self.kept = [ml, None]
        return self.kept[0].aspreconditioner(cycle="V")

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        if rhs.ndim == 1:
            return self._column(rhs)
        return np.column_stack([self._column(rhs[:, k]) for k in range(rhs.shape[1])])

    def _column(self, b: np.ndarray) -> np.ndarray:
        x, it, res = pcg(self.apply, b, self.precondition, CG_TOL, CG_MAXITER)
        if res is None:
            self.iterations += it
            self._count(it)
            return x
        blk = self.stepper.block
        body = blk.bodies[self.row]
        raise SimulationError(
            f"conjugate gradients did not converge on the implicit operator of finite-element body {body.id}"
            f" at time {blk.domain.time:g} (residual {res:.1e} after {it} iterations;"
            " the operator is not positive definite or the step is far beyond the explicit limit: reduce"
            " the time step)")

    def _count(self, it: int) -> None:
        """Remember the iterations of the hierarchy's first solve; a kept hierarchy that needs
        twice as many is dropped (the next step builds one for its operator)."""
        if self.kept is None:
            return
        if self.kept[1] is None:
            self.kept[1] = it
        elif it > 2 * self.kept[1] + 2:
            self.stepper.kept.pop(("amg", self.row), None)


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
