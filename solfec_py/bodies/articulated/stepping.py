"""Time stepping of a joint tree in joint coordinates with Solfec's half-step structure
(layer 3; docs/joints.md): q(t+h/2) = q (+) h/2 u, free velocity u_free = u + h M^-1 Q,
constraint reactions added as u = u_free + h M^-1 H^T R, then q(t+h) = q(t+h/2) (+) h/2 u.
Driven joints (prescribed coordinates) get actuator impulses M^-1 E^T lambda that make
their rates reach the drive's (class Drive). The free force Q = tau - bias is evaluated at q(t+h/2) and at a predicted mid-step rate
(u + h/2 M^-1 Q(u)), so the free motion is second-order accurate (explicit midpoint in the
rates) also with velocity-dependent (gyroscopic, Coriolis) terms. M^-1 is applied by the
articulated-body algorithm (JointTree.forward_dynamics), O(n) per step.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from solfec_py.bodies.articulated.tree import JointTree


@dataclass
class Drive:
    """Prescribed joint rates of a step: rates `index` (d,) reach `target` (d,) at the end of
    the step; `Y` = M^-1 E^T (nv, d) and `Dinv` = (E M^-1 E^T)^-1 at the mid-step
    configuration (E selects the driven rates)."""

    index: np.ndarray
    target: np.ndarray
    Y: np.ndarray
    Dinv: np.ndarray

    @classmethod
    def at(cls, tree: JointTree, q_half, index, target) -> "Drive":
        index = np.asarray(index, dtype=np.int64)
        zero = np.zeros(tree.nv)
        Y = np.empty((tree.nv, index.size))
        for c, j in enumerate(index.tolist()):           # M^-1 e_j by the articulated-body algorithm
            e = zero.copy()
            e[j] = 1.0
            Y[:, c] = tree.forward_dynamics(q_half, zero, e)
        return cls(index, np.asarray(target, float), Y, np.linalg.inv(Y[index]))

    def project(self, a, wanted) -> np.ndarray:
        """a + M^-1 E^T lambda with E (a + ...) = wanted: the driven joints' actuators act."""
        return a + self.Y @ (self.Dinv @ (wanted - a[self.index]))


@dataclass
class FreeStep:
    """State of one step between `begin` and `finish`: the tree, mid-step coordinates, free
    end rates, the drives (None without), the free end coordinates (GEN_ALPHA; None for the
    half step, whose end follows from q_half)."""

    tree: JointTree
    q_half: np.ndarray
    u_free: np.ndarray
    drive: Drive | None = None
    q_free: np.ndarray | None = None

    def solve(self, rhs) -> np.ndarray:
        """M^-1 rhs (nv,) at the mid-step configuration (articulated-body algorithm); with
        drives, the driven rates do not respond (their actuators take the load)."""
        out = self.tree.forward_dynamics(self.q_half, np.zeros(self.tree.nv), rhs)
        return out if self.drive is None else self.drive.project(out, np.zeros(self.drive.index.size))


def begin(tree: JointTree, q, u, h: float, gravity=(0.0, 0.0, 0.0), tau=None, fext=None, q_half=None,
          drive=None, held=None) -> FreeStep:
    """First half step and free velocity: joint forces `tau` (nv,) or a function of the mid-step
    coordinates and a rate, tau(q_half, rate) (springs and dampers), link loads `fext` (n, 6)
    world spatial forces in stored link order, gravity (3,). `q_half` replaces q (+) h/2 u
    (driven coordinates placed on their drive); `drive` (a Drive at q_half) makes the driven
    rates reach their targets at the end of the step. `held` (nv,): the rate change per unit
    time the constraints caused over the previous step, added to the mid-step predictor, so
    that velocity-dependent forces see the rates the constraints will allow (otherwise the
    predictor lets held freedoms move and a constrained tree keeps only first order)."""
    if q_half is None:
        q_half = tree.advance(q, u, 0.5 * h)
    if tau is None:
        tau = np.zeros(tree.nv)
    if drive is None and held is None and not callable(tau):   # constant forces: one compiled call
        return FreeStep(tree, q_half, tree.free_rates(q_half, u, h, tau, gravity, fext))

    def accel(rate):
        force = tau(q_half, rate) if callable(tau) else tau
        a = tree.forward_dynamics(q_half, rate, force, gravity, fext)
        return a if drive is None else drive.project(a, (drive.target - u[drive.index]) / h)

    u_mid = u + 0.5 * h * (accel(u) if held is None else accel(u) + held)
    return FreeStep(tree, q_half, u + h * accel(u_mid), drive)


def finish(tree: JointTree, step: FreeStep, h: float, reaction=None):
    """End rates u = u_free + h M^-1 r (r = H^T R, generalised reactions (nv,)) and end
    coordinates q(t+h) = q(t+h/2) (+) h/2 u."""
    u = step.u_free if reaction is None else step.u_free + h * step.solve(reaction)
    return tree.advance(step.q_half, u, 0.5 * h), u


def integrate(tree: JointTree, q, u, h: float, steps: int, gravity=(0.0, 0.0, 0.0), tau=None, fext=None,
              record=None):
    """`steps` free steps; `record(q, u)` (optional) is called after every step. At constant
    joint forces without `record` the steps run in one compiled loop (the same operations)."""
    if record is None and not callable(tau):
        return tree.integrate_free(q, u, h, steps, tau, gravity, fext)
    for _ in range(steps):
        q, u = finish(tree, begin(tree, q, u, h, gravity, tau, fext), h)
        if record is not None:
            record(q, u)
    return q, u
