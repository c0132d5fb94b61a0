"""Joint limits of a tree (layer 3): inelastic stops on scalar joint coordinates and on
the components of the rotation vector theta = log(R) of ball rotations (SPHERICAL, FREE),
solved as unilateral rows g . u in joint space by projected Gauss-Seidel after the
constraint solve. Reference: docs/joints.md; right Jacobian of SO(3): Chirikjian,
Stochastic Models, Information Theory, and Lie Groups vol. 2 (2012), ch. 10.
"""
from __future__ import annotations

import numpy as np


def right_jacobian_inverse(theta) -> np.ndarray:
    """J_r^-1(theta): d theta / dt = J_r^-1 Omega for R = exp([theta]x), dR/dt = R [Omega]x."""
    t = float(np.linalg.norm(theta))
    K = np.array([[0.0, -theta[2], theta[1]], [theta[2], 0.0, -theta[0]], [-theta[1], theta[0], 0.0]])
    if t < 1e-6:
        c = 1.0 / 12.0 + t * t / 720.0
    else:
        c = 1.0 / (t * t) - (1.0 + np.cos(t)) / (2.0 * t * np.sin(t))
    return np.eye(3) + 0.5 * K + c * (K @ K)


def _rows(nv, limits, ball_limits, q_half, u, h):
    """Active rows (g (nv,), lowest, highest rate g.u, (coordinate, bound) to place or None):
    limits whose coordinate would pass a bound by the end of the step, value + h/2 g.u."""
    active = []
    for j, qi, lo, hi in limits:
        end = q_half[qi] + 0.5 * h * u[j]
        if end > hi or end < lo:
            g = np.zeros(nv)
            g[j] = 1.0
            active.append((g, -np.inf, 0.0, (qi, hi)) if end > hi else (g, 0.0, np.inf, (qi, lo)))
    logs = {}
    for v0, q0, k, lo, hi in ball_limits:
        if q0 not in logs:
            from scipy.spatial.transform import Rotation

            theta = Rotation.from_matrix(q_half[q0:q0 + 9].reshape(3, 3).T).as_rotvec()
            logs[q0] = theta, right_jacobian_inverse(theta)
        theta, Jinv = logs[q0]
        g = np.zeros(nv)
        g[v0:v0 + 3] = Jinv[k]
        end = theta[k] + 0.5 * h * (g @ u)
        if end > hi:
            active.append((g, -np.inf, 0.0, (q0, k, hi)))
        elif end < lo:
            active.append((g, 0.0, np.inf, (q0, k, lo)))
    return active


def enforce_limits(tree, limits, q_half, u, h: float, sweeps: int = 50, solve=None, ball_limits=()):
    """Inelastic joint limits: a limited value that would pass its bound by the end of the
    step stops there. Scalar coordinates (`limits`: rate, coordinate, lower, upper): the rate
    may not point outwards and the coordinate ends on the bound. Ball rotations
    (`ball_limits`: rates of Omega, coordinates of R, component k, lower, upper): the rate
    of theta_k = log(R)_k, J_r^-1(theta)_k . Omega, may not point outwards and theta_k ends
    on the bound (the other components kept). Impulses M^-1 g lambda only push;
    `solve(rhs)` = M^-1 rhs (default: the articulated-body algorithm at q_half).
    Returns the corrected rates and the stops to place at the end (`place_stops`)."""
    active = _rows(tree.nv, limits, ball_limits, q_half, u, h) if (limits or ball_limits) else []
    if not active:
        return u, []
    u = u.copy()
    zero = np.zeros(tree.nv)
    columns = [tree.forward_dynamics(q_half, zero, g) if solve is None else solve(g) for g, *_ in active]
    impulse = np.zeros(len(active))
    for _ in range(sweeps):
        change = 0.0
        for k, (g, low, high, _) in enumerate(active):
            w, rate = g @ columns[k], g @ u
            if rate < low or impulse[k] > 0.0:          # at the lower end: push up, never pull
                new = max(0.0, impulse[k] + (low - rate) / w)
            elif rate > high or impulse[k] < 0.0:       # at the upper end: push down
                new = min(0.0, impulse[k] + (high - rate) / w)
            else:
                continue
            step, impulse[k] = new - impulse[k], new
            u += step * columns[k]
            change = max(change, abs(step * w))
        if change <= 1e-14 * max(1.0, np.abs(u).max()):
            break
    return u, [place for k, (_, _, _, place) in enumerate(active) if impulse[k] != 0.0]


def place_stops(q, stops) -> None:
    """Put the stopped coordinates of q (in place) on their bounds: scalar (index, bound);
    ball (q offset of R, component k, bound): R := exp(theta) with theta = log R, theta_k := bound."""
    for stop in stops:
        if len(stop) == 2:
            q[stop[0]] = stop[1]
            continue
        from scipy.spatial.transform import Rotation

        q0, k, bound = stop
        rotation = Rotation.from_matrix(q[q0:q0 + 9].reshape(3, 3).T)
        theta = rotation.as_rotvec()
        theta[k] = bound
        q[q0:q0 + 9] = Rotation.from_rotvec(theta).as_matrix().T.reshape(-1)
