"""LFPC: the leapfrog predictor / trapezoidal corrector of the Newton-Euler equations
(layer 3). Reference: W. D. Henshaw, "Moving bodies with Overture and the CG solvers"
(2016), in the momentum form x' = v, (m v)' = f, (A w)' = tau, R' = [w]x R with A = R J R^T.

    predictor  y^p = y^{n-1} + 2 h y'(t_n, y^n)        (forward Euler y^n + h y'^n at a start)
    corrector  y^{n+1} = y^n + h/2 (y'(t_n, y^n) + y'(t_{n+1}, y^p)),  R re-orthonormalised,
the centre with the corrected velocity, x^{n+1} = x^n + h/2 (v^n + v^{n+1}). A start (first
step, a changed step size, or a state set by the deck) uses the forward-Euler predictor,
which keeps second order (Heun's method). The corrector may be repeated with under-relaxed
loads, F <- alpha F_new + (1 - alpha) F, until |F_new - F| <= atol + rtol |F_new| (Henshaw's
remedy for light bodies; `corrector_steps` = 1 is the plain PECE scheme used in decks).

Carried state (block.carry, 18 floats): the start state of the previous step, rotation
column-major (9), centre (3), referential angular velocity (3), centre velocity (3).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.rigid_schemes import kernels as scheme_kernels
from solfec_py.bodies.rigid_schemes.base import OneStepScheme, mtv, mv
from solfec_py.geometry.rotation import skew


class Lfpc(OneStepScheme):
    name, order = "LFPC", 2
    CARRY = 18

    def __init__(self, corrector_steps: int = 1, relaxation: float = 1.0, atol: float = 0.0,
                 rtol: float = 0.0):
        self.corrector_steps = corrector_steps
        self.relaxation = relaxation
        self.atol, self.rtol = atol, rtol

    def free_step(self, block, rows, t, h, st):
        g = np.arange(block.count)[rows]
        J, m = st.J, st.mass[:, None]
        lag = block.lagged_accel(g)
        f0, tau0 = block.stage_forces(g, st.R, st.x, st.Omega, st.v, t, h, accel=lag)
        L0 = mv(st.R, mv(J, st.Omega))
        W0 = skew(st.w) @ st.R
        # predictor: leapfrog from the previous step, forward Euler at a start
        Rp, xp, vp, Lp = st.R + h * W0, st.x + h * st.v, st.v + h * f0 / m, L0 + h * tau0
        prev = np.flatnonzero(block.carry_ok[g] & (block.carry_h[g] == h))
        if prev.size:
            c = block.carry[g[prev]]
            Rm = c[:, 0:9].reshape(-1, 3, 3).transpose(0, 2, 1)
            Lm = mv(Rm, mv(J[prev], c[:, 12:15]))
            Rp[prev] = Rm + 2.0 * h * W0[prev]
            xp[prev] = c[:, 9:12] + 2.0 * h * st.v[prev]
            vp[prev] = c[:, 15:18] + 2.0 * h * f0[prev] / m[prev]
            Lp[prev] = Lm + 2.0 * h * tau0[prev]
        Rp = scheme_kernels.orthonormalize(Rp)
        # carry the start state for the next step's predictor
        block.carry[g, 0:9] = st.R.transpose(0, 2, 1).reshape(-1, 9)
        block.carry[g, 9:12], block.carry[g, 12:15], block.carry[g, 15:18] = st.x, st.Omega, st.v
        block.carry_h[g], block.carry_ok[g] = h, True
        # corrector, repeated with loads under-relaxed from those of t_n when asked
        Jinv = st.Jinv
        Omp = _referential(Rp, Jinv, Lp)
        F = np.hstack((f0, tau0))
        for it in range(max(1, self.corrector_steps)):
            # added-mass forces (solfec_py.integrators) see the acceleration the trapezoidal
            # rule implies at t_{n+1}: a = 2 (u - u_n) / h - a_n
            accel = None if lag is None else 2.0 * np.hstack((vp - st.v, mv(Rp, Omp) - st.w)) / h - lag
            Fn = np.hstack(block.stage_forces(g, Rp, xp, Omp, vp, t + h, h, accel=accel))
            if it and np.abs(Fn - F).max() <= self.atol + self.rtol * np.abs(Fn).max():
                break                   # the state is that of loads F, which the new ones confirm
            F = self.relaxation * Fn + (1.0 - self.relaxation) * F
            v1 = st.v + 0.5 * h * (f0 + F[:, 0:3]) / m
            x1 = st.x + 0.5 * h * (st.v + v1)
            L1 = L0 + 0.5 * h * (tau0 + F[:, 3:6])
            ws = mv(Rp, _referential(Rp, Jinv, L1))
            R1 = scheme_kernels.orthonormalize(st.R + 0.5 * h * (W0 + skew(ws) @ Rp))
            Rp, xp, vp, Omp = R1, x1, v1, _referential(R1, Jinv, L1)
        if lag is not None:
            block.record_accel(g, 2.0 * np.hstack((vp - st.v, mv(Rp, Omp) - st.w)) / h - lag)
        return Rp, xp, Omp, vp


def _referential(R, Jinv, L):
    """Omega with R J Omega = L (spatial momentum L)."""
    return mv(Jinv, mtv(R, L))
