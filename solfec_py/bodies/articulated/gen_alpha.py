"""Generalized-alpha steps of a joint tree in joint coordinates (layer 3; docs/joints.md).
Reference: J. Chung, G. M. Hulbert, J. Appl. Mech. 60 (1993) 371-375 (the parameters);
M. Arnold, O. Bruls, Multibody Syst. Dyn. 18 (2007) 185-202 (accelerations a_n distinct
from the true accelerations ud_n); O. Bruls, A. Cardona, M. Arnold, Mech. Mach. Theory 48
(2012) 121-137 (Lie-group form: the coordinates move as q (+) h dq, ball rotations by the
exponential map of the rates, JointTree.advance).

With joint accelerations ud = accel(q, u) = M(q)^-1 (tau - bias) (articulated-body
algorithm), one step from (q_n, u_n, ud_n, a_n) solves for ud_{n+1}:
    (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) ud_{n+1} + alpha_f ud_n
    u_{n+1} = u_n + h (1 - gamma) a_n + h gamma a_{n+1}
    q_{n+1} = q_n (+) h [u_n + h (1/2 - beta) a_n + h beta a_{n+1}]
    ud_{n+1} = accel(q_{n+1}, u_{n+1})
by the fixed point ud <- accel(q_{n+1}, u_{n+1}) (O(n) per iterate; it contracts while
h^2 beta (1 - alpha_f)/(1 - alpha_m) times the stiffness and h gamma (1 - alpha_f)/(1 - alpha_m)
times the damping and velocity terms stay below the inertia), switching to Newton with a
forward-difference Jacobian (nv evaluations, reused within the step) when an iterate does
not halve the residual; a residual that stops falling below FLOOR |ud| is the rounding of
the recursions and ends the iteration. At a start ud_0 = a_0 = accel(q_0, u_0).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solfec_py.bodies.articulated.tree import JointTree


FLOOR = 1e-8      # a residual that stops falling below FLOOR x |ud| is rounding (1000 links: 7e-11)


@dataclass
class AlphaStep:
    """The end of a free generalized-alpha step: coordinates, rates, true and alpha
    accelerations at t + h."""

    q: np.ndarray
    u: np.ndarray
    ud: np.ndarray
    a: np.ndarray


def step(tree: JointTree, q, u, ud_n, a_n, h: float, coefficients, accel, maxiter: int = 50,
         tol: float = 1e-11, prescribe=None) -> AlphaStep | None:
    """One free step (module docstring); `coefficients` = (alpha_m, alpha_f, gamma, beta),
    `accel(q, u)` the joint accelerations at t + h. `prescribe(q1, u1)` (optional) overwrites
    driven coordinates and rates of every iterate's end state with their known values at
    t + h (rheonomic freedoms: the alpha recursion then integrates the free ones only, and
    `accel` returns the drives' accelerations for the driven ones). None when the iteration
    does not converge."""
    am, af, gamma, beta = coefficients

    def end(ud):
        a = ((1 - af) * ud + af * ud_n - am * a_n) / (1 - am)
        u1 = u + h * ((1 - gamma) * a_n + gamma * a)
        q1 = tree.advance(q, u + h * ((0.5 - beta) * a_n + beta * a), h)
        if prescribe is not None:
            prescribe(q1, u1)
        return AlphaStep(q1, u1, ud, a), accel(q1, u1)

    ud = np.array(ud_n, dtype=float)
    G = best = None
    for _ in range(maxiter):
        state, wanted = end(ud)
        r = ud - wanted
        size = np.abs(r).max(initial=0.0)
        scale = max(np.abs(ud).max(initial=0.0), np.abs(wanted).max(initial=0.0))
        if size <= tol * scale:
            return state
        stalled = best is not None and size > 0.5 * best[0]
        if stalled and size <= FLOOR * scale:
            return state                      # the rounding floor of the recursions (long chains)
        if G is None and stalled:
            ud, r = best[1], best[2]          # the fixed point does not contract: Newton from the best iterate
            G = _jacobian(end, ud, r)
        if best is None or size < best[0]:
            best = (size, ud, r)
        ud = ud - (r if G is None else np.linalg.solve(G, r))
    return None


def _jacobian(end, ud, r) -> np.ndarray:
    """d r / d ud of r(ud) = ud - accel(q_{n+1}(ud), u_{n+1}(ud)) by forward differences
    (nv evaluations of the articulated-body algorithm)."""
    nv = ud.size
    eps = 1e-7 * max(1.0, float(np.abs(ud).max(initial=0.0)))
    G = np.empty((nv, nv))
    for j in range(nv):
        e = ud.copy()
        e[j] += eps
        G[:, j] = ((e - end(e)[1]) - r) / eps
    return G


def integrate(tree: JointTree, q, u, h: float, steps: int, coefficients, gravity=(0.0, 0.0, 0.0), tau=None,
              record=None):
    """`steps` free steps from rest accelerations consistent with (q, u); `tau(q, u)` (optional)
    joint forces; `record(q, u)` is called after every step. Returns (q, u)."""
    from solfec_py.errors import SimulationError

    def accel(q, u):
        return tree.forward_dynamics(q, u, None if tau is None else tau(q, u), gravity)

    q, u = np.asarray(q, float), np.asarray(u, float)
    ud = a = accel(q, u)
    for n in range(steps):
        end = step(tree, q, u, ud, a, h, coefficients, accel)
        if end is None:
            raise SimulationError(f"GEN_ALPHA: the joint-space iteration did not converge at step {n + 1}")
        q, u, ud, a = end.q, end.u, end.ud, end.a
        if record is not None:
            record(q, u)
    return q, u
