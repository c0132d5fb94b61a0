"""Classical fourth-order Runge-Kutta steps of a joint tree in joint coordinates (layer 3;
docs/joints.md). Reference: E. Hairer, S. P. Norsett, G. Wanner, Solving Ordinary
Differential Equations I (Springer 1993), II.1 (the tableau); H. Munthe-Kaas, BIT 38
(1998) 92-111 (Runge-Kutta on Lie groups: stages q (+) Theta with dTheta/dt = dexp^-1(u)).

With joint accelerations ud = accel(q, u, t) (articulated-body algorithm), one step is

    Theta_1 = 0,  Theta_2 = h/2 k_1,  Theta_3 = h/2 k_2,  Theta_4 = h k_3
    Q_i = q (+) Theta_i,  U_i = u + c_i h a_{i-1},  a_i = accel(Q_i, U_i, t + c_i h)
    k_i = dexp^-1_{Theta_i}(U_i)     (U_i itself for scalar coordinates)
    q(t+h) = q (+) h/6 (k_1 + 2 k_2 + 2 k_3 + k_4),   u(t+h) = u + h/6 (a_1 + 2 a_2 + 2 a_3 + a_4)

(c = 0, 1/2, 1/2, 1). Scalar coordinates (revolute, prismatic, the slides of the other
kinds) are a vector space, where this is the classical method. A ball rotation moves as
R exp(Theta) with the body rates omega, so dTheta/dt = omega + Theta x omega / 2 +
Theta x (Theta x omega) / 12 + O(|Theta|^3 |omega|), the truncation fourth-order Lie-group
Runge-Kutta needs: the method is fourth order for every joint kind.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.articulated.kernels import (aba_into, aba_workspace, advance_into, forward_kinematics_into,
                                                  spatial_inertias_into)
from solfec_py.bodies.articulated.kinds import T
from solfec_py.compilation import njit

WEIGHTS = (1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0)


@njit
def stage_rates(theta, u, kind, voff, nvk, ballk, dtype):
    """dTheta/dt of a stage q (+) theta moving with the rates u (nv,): u, with every ball
    rotation's body rates omega mapped to omega + theta x omega / 2 + theta x (theta x omega) / 12."""
    k = np.empty_like(u)
    stage_rates_into(theta, u, kind, voff, nvk, ballk, dtype, k)
    return k


@njit
def stage_rates_into(theta, u, kind, voff, nvk, ballk, dtype, k):
    """stage_rates written into k (nv,)."""
    for r in range(u.size):
        k[r] = u[r]
    for i in range(kind.size):
        c = kind[i]
        if not ballk[c]:
            continue
        r = voff[i]
        for m in range(nvk[c]):
            if dtype[c, m] == T:
                r += 1
        t0, t1, t2 = theta[r], theta[r + 1], theta[r + 2]
        w0, w1, w2 = u[r], u[r + 1], u[r + 2]
        a0, a1, a2 = t1 * w2 - t2 * w1, t2 * w0 - t0 * w2, t0 * w1 - t1 * w0
        b0, b1, b2 = t1 * a2 - t2 * a1, t2 * a0 - t0 * a2, t0 * a1 - t1 * a0
        k[r] = w0 + 0.5 * a0 + b0 / 12.0
        k[r + 1] = w1 + 0.5 * a1 + b1 / 12.0
        k[r + 2] = w2 + 0.5 * a2 + b2 / 12.0


@njit
def _accel_into(q, u, tau, gravity, fext, parent, kind, qoff, voff, E, P, X0, mass, J, nvk, ballk, dtype, daxis,
                dfixed, Lam, xc, S, crossed, IA, W, links, rates, small, uu, a):
    """Joint accelerations a (nv,) at (q, u) in the work arrays of integrate_free."""
    forward_kinematics_into(q, parent, kind, qoff, voff, E, P, X0, nvk, ballk, dtype, daxis, dfixed, Lam, xc, S,
                            crossed, W)
    spatial_inertias_into(Lam, xc, mass, J, IA, W)
    aba_into(IA, S, crossed, parent, voff, u, tau, gravity, fext, links, rates, small, uu, a)


@njit
def integrate_free(q, u, h, steps, tau, gravity, fext, parent, kind, qoff, voff, E, P, X0, mass, J, nvk, ballk,
                   dtype, daxis, dfixed):
    """`steps` RK4 steps (module docstring) at constant joint forces tau, gravity and link
    loads fext, in compiled code, in work arrays made once (per step, only ball rotations'
    updates and the inverses of joints with several rates make arrays). Returns new arrays
    (q, u) at the end."""
    n, nv = parent.size, u.size
    q, u = q.copy(), u.copy()
    Lam, xc, S, crossed = np.empty((n, 3, 3)), np.empty((n, 3)), np.empty((nv, 6)), np.empty(nv, np.int64)
    IA, W = np.empty((n, 6, 6)), np.empty((6, 3, 3))
    links, rates, small, uu = aba_workspace(n, nv)
    stage = np.empty((6, nv))
    a, k, dq, du, theta, ui = stage[0], stage[1], stage[2], stage[3], stage[4], stage[5]
    qi = np.empty_like(q)
    for _ in range(steps):
        _accel_into(q, u, tau, gravity, fext, parent, kind, qoff, voff, E, P, X0, mass, J, nvk, ballk, dtype, daxis,
                    dfixed, Lam, xc, S, crossed, IA, W, links, rates, small, uu, a)
        for r in range(nv):
            dq[r] = u[r] / 6.0
            du[r] = a[r] / 6.0
            theta[r] = 0.5 * h * u[r]
        for i in range(1, 4):
            frac = 1.0 if i == 3 else 0.5
            advance_into(q, theta, 1.0, kind, qoff, voff, nvk, ballk, dtype, qi)
            for r in range(nv):
                ui[r] = u[r] + frac * h * a[r]
            _accel_into(qi, ui, tau, gravity, fext, parent, kind, qoff, voff, E, P, X0, mass, J, nvk, ballk, dtype,
                        daxis, dfixed, Lam, xc, S, crossed, IA, W, links, rates, small, uu, a)
            stage_rates_into(theta, ui, kind, voff, nvk, ballk, dtype, k)
            w = 1.0 / 6.0 if i == 3 else 1.0 / 3.0
            c = 1.0 if i == 2 else 0.5
            for r in range(nv):
                dq[r] += w * k[r]
                du[r] += w * a[r]
                theta[r] = c * h * k[r]
        advance_into(q, dq, h, kind, qoff, voff, nvk, ballk, dtype, q)
        for r in range(nv):
            u[r] = u[r] + h * du[r]
    return q, u


def step(tree, q, u, h: float, accel, t: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One RK4 step of `tree` (a JointTree) from (q, u) at time t with joint accelerations
    `accel(q, u, time)` (loads, springs and dampers evaluated at every stage). Returns
    (q(t+h), u(t+h))."""
    nvk, ballk, dtype = tree.tables
    q, u = np.asarray(q, float), np.asarray(u, float)
    theta = np.zeros(tree.nv)
    dq, du = np.zeros(tree.nv), np.zeros(tree.nv)
    a = None
    for i, (c, w) in enumerate(zip((0.0, 0.5, 0.5, 1.0), WEIGHTS)):
        qi = q if i == 0 else tree.advance(q, theta, 1.0)
        ui = u if i == 0 else u + c * h * a
        a = accel(qi, ui, t + c * h)
        k = ui if i == 0 else stage_rates(theta, ui, tree.kind, tree.voff, nvk, ballk, dtype)
        dq += w * k
        du += w * a
        theta = (1.0 if i == 2 else 0.5) * h * k
    return tree.advance(q, dq, h), u + h * du


def integrate(tree, q, u, h: float, steps: int, gravity=(0.0, 0.0, 0.0), tau=None, fext=None, record=None):
    """`steps` RK4 steps at constant joint forces `tau`, or `tau(q, u)`; `record(q, u)`
    (optional) is called after every step. Without `record` and at constant forces the
    steps run in one compiled loop (the same operations). Returns (q, u)."""
    if record is None and not callable(tau):
        return integrate_free(np.ascontiguousarray(q, dtype=float), np.asarray(u, float), float(h), int(steps),
                              *tree.kernel_args(tau, gravity, fext))

    def accel(qs, us, _time):
        return tree.forward_dynamics(qs, us, tau(qs, us) if callable(tau) else tau, gravity, fext)

    for _ in range(steps):
        q, u = step(tree, q, u, h, accel)
        if record is not None:
            record(q, u)
    return q, u
