"""Reduced co-rotational finite-element bodies, forms 'BC-MODAL' and 'BC-RO' (layer 3): the
motion is R (X + E q) with a base E (m x k) and k reduced coordinates q; the mesh-space state
of the block is kept as well (contact, points and output use it).
Reference: Solfec-1.0 fem.c (``RO_*`` routines, BC-MODAL / BC-RO steps) and the user manual
(BODY base=, conf and velo of reduced bodies); docs/corotational.md.

With d = R^T x - X the co-rotated displacements and P = M (BC-MODAL) or I (BC-RO):
  q = E^T P d,  u = E^T P R^T u_mesh  (BC-RO: least squares, (E^T E)^-1 E^T, for any base),  reduced mass M_r = E^T M E, stiffness K_r = E^T K0 E,
  internal force in mesh space R K0 E q (so E^T R^T f_int = K_r q), energy q^T K_r q / 2,
  every application of the implicit inverse R E A_r^-1 E^T R^T with A_r = M_r + c K_r
  (= I + c diag(lambda) for an M-orthonormal modal base), computed once per step size.
The mesh velocity therefore stays in the span of R E; the CorotationalStepper drives the step.
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import InputError

MODAL, RO = 2, 3          # FORMS codes (bodies/finite_element.py)


class ReducedBody:
    """Base, reduced matrices and reduced-state buffers of one BC-MODAL / BC-RO body."""

    def __init__(self, form: int, vecs: np.ndarray, K0, mass: np.ndarray):
        self.form = form
        self.E = np.ascontiguousarray(vecs, dtype=float)              # (m, k)
        self.m = np.repeat(mass, 3)
        self.KE = np.asarray(K0 @ self.E)                            # (m, k)
        self.Mr = self.E.T @ (self.m[:, None] * self.E)
        self.Kr = self.E.T @ self.KE
        # BC-RO: least-squares coordinates (E^T E)^-1 E^T d, = E^T d for an orthonormal (POD)
        # base as Solfec assumes; BC-MODAL: E^T M d for an M-orthonormal modal base
        self.G = np.eye(self.E.shape[1]) if form == MODAL else np.linalg.inv(self.E.T @ self.E)
        self.inverses: dict = {}
        k = self.E.shape[1]
        self.conf = np.zeros(k + 9)                                   # (q, R column-major)
        self.velo = np.zeros(k)

    def weights(self, v: np.ndarray) -> np.ndarray:
        return self.m * v if self.form == MODAL else v

    def coordinates(self, d: np.ndarray) -> np.ndarray:
        """q = E^T P d (d node-major, flat)."""
        return self.G @ (self.E.T @ self.weights(d))

    def inverse(self, c: float) -> np.ndarray:
        A = self.inverses.get(c)
        if A is None:
            if len(self.inverses) > 4:
                self.inverses.clear()
            A = self.inverses[c] = np.linalg.inv(self.Mr + c * self.Kr)
        return A

    def solve(self, R: np.ndarray, c: float, rhs: np.ndarray) -> np.ndarray:
        """R E A_r^-1 E^T R^T rhs for rhs (m,) or (m, j)."""
        cols = rhs.reshape(rhs.shape[0], -1)
        r = np.matmul(R.T, cols.reshape(-1, 3, cols.shape[1])).reshape(cols.shape)
        x = self.E @ (self.inverse(c) @ (self.E.T @ r))
        return np.matmul(R, x.reshape(-1, 3, cols.shape[1])).reshape(rhs.shape)

    # ------------------------------------------------------------------ conf / velo
    def refresh(self, R, X, q, u) -> None:
        """Reduced conf and velo buffers from the mesh state (X, q, u (n, 3) of the body)."""
        d = ((X + q) @ R) - X
        k = self.E.shape[1]
        self.conf[:k] = self.coordinates(d.reshape(-1))
        self.conf[k:] = R.T.reshape(-1)                                # column-major R
        self.velo[:] = self.coordinates((u @ R).reshape(-1))

    def lift(self, X) -> tuple:
        """Mesh displacements and velocities (n, 3) of the reduced buffers: x = R (X + E q)."""
        k = self.E.shape[1]
        R = self.conf[k:].reshape(3, 3).T
        if not np.allclose(R @ R.T, np.eye(3), atol=1e-8) or np.linalg.det(R) < 0:
            raise InputError("'conf' of a reduced finite-element body must end with a rotation matrix"
                             " (9 numbers, column-major)")
        ref = X + (self.E @ self.conf[:k]).reshape(-1, 3)
        return ref @ R.T - X, (self.E @ self.velo).reshape(-1, 3) @ R.T


def check_base(form: str, vals, vecs, nnodes: int) -> np.ndarray:
    """The base vectors (3 nnodes, k) of a `(vals, vecs)` pair for a mesh of nnodes nodes."""
    m = 3 * nnodes
    if vecs.shape[0] != m:
        raise InputError(f"BODY 'base': modal analysis data size and mesh size do not match: the base vectors"
                         f" have {vecs.shape[0]} entries, the mesh has {nnodes} nodes ({m} entries)")
    if np.linalg.matrix_rank(vecs) < vecs.shape[1]:
        raise InputError(f"BODY 'base' of a {form} body: the {vecs.shape[1]} base vectors are linearly dependent")
    return vecs
