"""Diagonally implicit Runge-Kutta schemes DIRK1-DIRK4 for the Newton-Euler equations
(layer 3), in Henshaw's momentum form. Reference: W. D. Henshaw, "Moving bodies with
Overture and the CG solvers" (2016); tableaux: backward Euler, implicit midpoint,
Crouzeix's two-stage order-3 DIRK (R. Alexander, SIAM J. Numer. Anal. 14 (1977)
1006-1021) and the five-stage L-stable SDIRK4 of Hairer & Wanner (Solving ODEs II,
Sec. IV.6, Table 6.5), all A-stable. Derivation: docs/integrators.md.

The state y = (x, P, R) with P = M(R) (v, w) the generalised momentum (added mass included)
obeys x' = v, P' = (f, tau), R' = [w]x R. A stage i solves
    Y_i = y_n + h sum_{j<i} a_ij K_j + h a_ii K(t_n + c_i h, Y_i)
by a fixed point on the loads (re-evaluated at every iterate) around a Newton solve of the
rotational part with the analytic Jacobian (kernels.dirk_stage). y_{n+1} = y_n + h sum b_i K_i,
then R is brought back to SO(3) (its departure is of the order of the local error).
"""
from __future__ import annotations

import math

import numpy as np

from solfec_py.bodies.rigid_schemes import kernels as scheme_kernels
from solfec_py.bodies.rigid_schemes.base import OneStepScheme, mtv
from solfec_py.errors import SimulationError
from solfec_py.geometry.rotation import skew


class Dirk(OneStepScheme):
    """A DIRK given by its Butcher tableau (A lower triangular, b, c = A 1)."""

    GROUP = ""
    IMPLICIT_ADDED_MASS = True
    A: np.ndarray = np.zeros((0, 0))
    b: np.ndarray = np.zeros(0)
    c: np.ndarray = np.zeros(0)
    MAXITER = 100           # load fixed-point iterations per stage
    NEWTON_MAXITER = 30     # Newton iterations of the rotational part per load iterate
    TOL = 1e-13             # relative stage residual

    @property
    def BETA(self) -> float:
        """b.c: a constant force r moves the centre by (b.c) h^2 r / m (1/2 from order 2 on)."""
        return float(self.b @ self.c)

    def free_step(self, block, rows, t, h, st):
        g = np.arange(block.count)[rows]
        k = g.size
        Ma = block.added_mass(g, implicit=True)
        P0 = scheme_kernels.momentum(st.R, st.J, st.mass, Ma, st.v, st.w)
        s = self.b.size
        KR, Kx, KP = np.zeros((s, k, 3, 3)), np.zeros((s, k, 3)), np.zeros((s, k, 6))
        R, x, v, w = st.R.copy(), st.x.copy(), st.v.copy(), st.w.copy()
        for i in range(s):
            ci = h * self.A[i, i]
            Rh = st.R + h * np.einsum("j,jkab->kab", self.A[i, :i], KR[:i])
            xh = st.x + h * np.einsum("j,jka->ka", self.A[i, :i], Kx[:i])
            Ph = P0 + h * np.einsum("j,jka->ka", self.A[i, :i], KP[:i])
            F = self._stage(block, g, t + self.c[i] * h, h, ci, Rh, xh, Ph, st, Ma, R, x, v, w)
            KR[i] = skew(w) @ R
            Kx[i] = v
            KP[i] = F
        x1 = st.x + h * np.einsum("j,jka->ka", self.b, Kx)
        P1 = P0 + h * np.einsum("j,jka->ka", self.b, KP)
        R1 = st.R + h * np.einsum("j,jkab->kab", self.b, KR)
        R1 = scheme_kernels.orthonormalize(R1)
        v1, w1 = scheme_kernels.velocities(R1, st.J, st.mass, Ma, P1)
        return R1, x1, mtv(R1, w1), v1

    def _stage(self, block, g, ti, h, ci, Rh, xh, Ph, st, Ma, R, x, v, w):
        """Iterate the stage of the rows g to convergence; R, x, v, w hold the guess on
        entry (the previous stage) and the stage state on return; returns the loads."""
        k = g.size
        F = np.zeros((k, 6))
        F_old = np.full((k, 6), np.nan)
        active = np.arange(k)
        for _ in range(self.MAXITER):
            a = active
            Omega = mtv(R[a], w[a])
            F[a] = np.hstack(block.stage_forces(g[a], R[a], x[a], Omega, v[a], ti, h, implicit=True))
            P = Ph[a] + ci * F[a]
            Ra, xa, va, wa, bad = scheme_kernels.dirk_stage(Rh[a], xh[a], P, ci, st.J[a], st.mass[a],
                                                            Ma[a] if Ma.shape[0] else Ma, w[a], self.TOL,
                                                            self.NEWTON_MAXITER)
            if bad >= 0:
                self._fail(block, g[a[bad]], ti, "Newton solve of the rotation")
            R[a], x[a], v[a], w[a] = Ra, xa, va, wa
            change = ci * np.abs(F[a] - F_old[a]).max(axis=1)
            scale = np.abs(P).max(axis=1) + ci * np.abs(F[a]).max(axis=1) + 1e-300
            F_old[a] = F[a]
            active = a[~(change <= self.TOL * scale)]
            if not active.size:
                return F
        self._fail(block, g[active[0]], ti, "fixed point of the loads")

    def _fail(self, block, row, t, what):
        body = block.bodies[int(row)]
        raise SimulationError(
            f"{self.name}: the {what} of a stage did not converge for body {body.id} at time"
            f" {t:g}; reduce the time step (a body much lighter than its loads' stiffness needs"
            " added mass)")


def _tableau(A, b):
    A = np.array(A, dtype=float)
    return A, np.array(b, dtype=float), A.sum(axis=1)


class Dirk1(Dirk):
    """Backward Euler (order 1, L-stable). Its finish moves the centre by h du (b.c = 1),
    where the rigid-link solve assumes h/2 du: DIRK1 bodies cannot carry rigid links."""

    name, order = "DIRK1", 1
    UNSUPPORTED = ("RIGLNK",)
    A, b, c = _tableau([[1.0]], [1.0])


class Dirk2(Dirk):
    """Implicit midpoint rule (order 2, A-stable, symplectic)."""

    name, order = "DIRK2", 2
    A, b, c = _tableau([[0.5]], [1.0])


_G3 = 0.5 + math.sqrt(3.0) / 6.0


class Dirk3(Dirk):
    """Crouzeix's two-stage DIRK of order 3, gamma = 1/2 + sqrt(3)/6 (A-stable)."""

    name, order = "DIRK3", 3
    A, b, c = _tableau([[_G3, 0.0], [1.0 - 2.0 * _G3, _G3]], [0.5, 0.5])


class Dirk4(Dirk):
    """SDIRK4 of Hairer & Wanner (Solving ODEs II, Sec. IV.6, Table 6.5): five stages,
    gamma = 1/4, stiffly accurate, order 4, L-stable."""

    name, order = "DIRK4", 4
    A, b, c = _tableau([[1 / 4, 0, 0, 0, 0],
                        [1 / 2, 1 / 4, 0, 0, 0],
                        [17 / 50, -1 / 25, 1 / 4, 0, 0],
                        [371 / 1360, -137 / 2720, 15 / 544, 1 / 4, 0],
                        [25 / 24, -49 / 48, 125 / 16, -85 / 12, 1 / 4]],
                       [25 / 24, -49 / 48, 125 / 16, -85 / 12, 1 / 4])
