"""Lie-Stormer-Verlet schemes LSV_EXPLICIT and LSV_IMPLICIT (layer 3): kick, drift on
SO(3) x R^3, kick, with the rotation updated by the exponential of the half-step angular
velocity (the Lie-group Stormer-Verlet family, e.g. Terze, Mueller & Zlatar, J. Comput.
Nonlinear Dynam. 10 (2015) 051005; the formulas here are derived in docs/integrators.md).

    L^{n+1/2} = L^n + h/2 tau^n,          v^{n+1/2} = v^n + h/2 f^n / m      (spatial momenta)
    Omega^{n+1/2}: explicit  J^-1 (R^n exp[h/2 Omega^n])^T L^{n+1/2}
                   implicit  exp[h/2 Omega] J Omega = R^nT L^{n+1/2}  (Newton, as RIG_IMP)
    R^{n+1} = R^n exp[h Omega^{n+1/2}],   x^{n+1} = x^n + h v^{n+1/2}
    L^{n+1} = L^{n+1/2} + h/2 tau^{n+1},  v^{n+1} = v^{n+1/2} + h/2 f^{n+1} / m
    Omega^{n+1} = J^-1 R^{n+1 T} L^{n+1}

The kicks leave L unchanged without torque, so the spatial angular momentum is kept to
round-off; the implicit variant is symmetric (time-reversible). Loads at t^{n+1} see the
velocity predicted by a full explicit kick (so velocity-dependent loads keep order 2).
Added-mass forces enter the kicks explicitly, with the previous step's acceleration.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.rigid_schemes.base import OneStepScheme, mtv, mv
from solfec_py.bodies.rigid_schemes.solfec import solve_half_rotation
from solfec_py.geometry.rotation import expmap


class LieStormerVerlet(OneStepScheme):
    order = 2
    IMPLICIT_ROTATION = False

    def free_step(self, block, rows, t, h, st):
        g = np.arange(block.count)[rows]
        m = st.mass[:, None]
        lag = block.lagged_accel(g)
        f0, tau0 = block.stage_forces(g, st.R, st.x, st.Omega, st.v, t, h, accel=lag)
        # the momenta in the start frame, a = R^nT L^{n+1/2}: R^n never meets its transpose,
        # so its round-off departure from SO(3) does not leak into L
        a = mv(st.J, st.Omega) + 0.5 * h * mtv(st.R, tau0)
        vh = st.v + 0.5 * h * f0 / m
        if self.IMPLICIT_ROTATION:
            Omh = solve_half_rotation(block, g, self.name, st.J, a, 0.5 * h, st.Omega)
        else:
            Omh = mv(st.Jinv, mtv(expmap(0.5 * h * st.Omega), a))
        dR = expmap(h * Omh)
        R1 = st.R @ dR
        x1 = st.x + h * vh
        ah = mtv(dR, a)                      # R^{n+1 T} L^{n+1/2}
        vp, Omp = vh + 0.5 * h * f0 / m, mv(st.Jinv, ah + 0.5 * h * mtv(R1, tau0))
        f1, tau1 = block.stage_forces(g, R1, x1, Omp, vp, t + h, h, accel=lag)
        return R1, x1, mv(st.Jinv, ah + 0.5 * h * mtv(R1, tau1)), vh + 0.5 * h * f1 / m


class LsvExplicit(LieStormerVerlet):
    """Explicit: the half-step angular velocity from the rotation predicted with Omega^n."""

    name = "LSV_EXPLICIT"


class LsvImplicit(LieStormerVerlet):
    """Implicit in the rotation: the half-step angular velocity carries L^{n+1/2} at the
    midpoint rotation R^n exp[h/2 Omega^{n+1/2}] (symmetric)."""

    name = "LSV_IMPLICIT"
    IMPLICIT_ROTATION = True
