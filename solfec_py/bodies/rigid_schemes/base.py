"""The contract of a rigid time-integration scheme and the machinery the one-step schemes of
the literature share (layer 3): the start state, the free step's end state, the
reaction finish. Reference: docs/integrators.md (the coupling with constraints).

A scheme advances the rigid rows that use it in two calls around the constraint solve of
Solfec's step (Koziara & Bicanic 2009; docs/integrators.md):

1. `begin(block, rows, t, h)`: compute the *free* motion over [t, t + h] (loads only);
   leave in `block.velo[rows]` the free end velocity u_free, in `block.fext[rows]` the
   generalised free force of the step, and in `block.conf[rows]` the configuration at
   which constraints are evaluated (Solfec's explicit half step q(t) + h/2 u(t)).
2. `finish(block, rows, t, h)`: after the solve, `block.reaction[rows]` holds the
   generalised reaction r = (referential torque, spatial force); set the end state with
   the velocity the solver saw, u = u_free + h M^-1 r, and the end configuration.

`rows` is a slice (every row of the block) or an index array. Subclass contract:

1. `name` (the BODY.scheme value), `order` (of the free motion), `GROUP`: schemes of one
   group are stepped by one `begin`/`finish` call with the rows of all of them (Solfec's
   three share the half step);
2. `FIELDS`: extra per-body arrays {name: (trailing shape, dtype)} the block allocates;
3. `CARRY`: how many floats of `block.carry` the scheme keeps from step to step (stored in
   the results so that a continued run, `-c`, is bit-identical; 0 for one-step schemes);
4. `IMPLICIT_ADDED_MASS`: True when added-mass forces (solfec_py.integrators) enter the
   scheme's implicit equations; otherwise they are lagged by one step;
5. `UNSUPPORTED`: constraint kinds (constraints.KINDS) the scheme cannot couple with; RUN
   stops with an error naming the body, the scheme and the constraint.
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry.rotation import expmap

ROTATION = slice(0, 9)
CENTER = slice(9, 12)
ANGULAR = slice(0, 3)
LINEAR = slice(3, 6)


def mv(M, v):
    return np.einsum("nij,nj->ni", M, v)


def mtv(M, v):
    return np.einsum("nji,nj->ni", M, v)


def rotations(conf: np.ndarray) -> np.ndarray:
    """(n, 3, 3) rotation matrices from column-major conf rows."""
    return conf[:, ROTATION].reshape(-1, 3, 3).transpose(0, 2, 1)


def put_rotations(conf: np.ndarray, rows, R: np.ndarray) -> None:
    """conf[rows, 0:9] = R column-major (works for slices and index arrays)."""
    conf[rows, ROTATION] = R.transpose(0, 2, 1).reshape(-1, 9)


def safe_mass(mass: np.ndarray) -> np.ndarray:
    return np.where(mass > 0, mass, 1.0)


class RigidScheme:
    """A rigid integrator (see the module docstring for the contract)."""

    name = ""
    order = 0
    GROUP = ""
    FIELDS: dict = {}
    CARRY = 0
    IMPLICIT_ADDED_MASS = False
    UNSUPPORTED: tuple = ()

    def begin(self, block, rows, t: float, h: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement begin()")

    def finish(self, block, rows, t: float, h: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement finish()")

    def __repr__(self) -> str:
        return f"<rigid scheme {self.name}>"


class OneStepScheme(RigidScheme):
    """Base of the literature schemes: `begin` runs `free_step` from the start state and
    keeps its end state in `qfree`; `finish` adds the reaction as a velocity jump.

    Subclass contract: `free_step(block, rows, t, h, state) -> (R1, x1, Omega1, v1)` with
    `state` the `StartState` of the rows; `BETA`: a constant extra force r moves the centre
    of the scheme by BETA h^2 r / m (1/2 for every scheme of order 2 or more).

    The finish moves the configuration by BETA h times the velocity jump. Solfec's second
    half step moves it by h/2 du and the rigid-link solve relies on that (the link keeps
    its length for q(t+h) = q(t+h/2) + h/2 u(t+h)); a scheme with BETA != 1/2 lists RIGLNK
    in UNSUPPORTED.
    """

    BETA = 0.5
    FIELDS = {"qfree": ((12,), float)}     # free end configuration: rotation (9) + centre

    def begin(self, block, rows, t, h):
        state = StartState(block, rows)
        R1, x1, Omega1, v1 = self.free_step(block, rows, t, h, state)
        block.qfree[rows, ROTATION] = R1.transpose(0, 2, 1).reshape(-1, 9)
        block.qfree[rows, CENTER] = x1
        # constraints see Solfec's half-step configuration and the free end velocity
        put_rotations(block.conf, rows, state.R @ expmap(0.5 * h * state.Omega))
        block.conf[rows, CENTER] = state.x + 0.5 * h * state.v
        block.velo[rows, ANGULAR] = Omega1
        block.velo[rows, LINEAR] = v1
        block.fext[rows, ANGULAR] = mv(block.J[rows], Omega1 - state.Omega) / h
        block.fext[rows, LINEAR] = state.mass[:, None] * (v1 - state.v) / h

    def free_step(self, block, rows, t, h, state):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement free_step()")

    def finish(self, block, rows, t, h):
        """u = u_free + h M^-1 r (what the solver saw); the configuration moves by BETA h du
        more (for the centre exactly what adding r to the loads would do; the rotation
        correction exp[BETA h dOmega] is its first-order counterpart)."""
        Tc, fc = block.reaction[rows, ANGULAR], block.reaction[rows, LINEAR]
        dOmega = h * mv(block.Jinv[rows], Tc)
        dv = (h / safe_mass(block.mass[rows]))[:, None] * fc
        qfree = block.qfree[rows]
        R = rotations(qfree)
        if np.any(dOmega):
            R = R @ expmap(self.BETA * h * dOmega)
        Omega = block.velo[rows, ANGULAR] + dOmega
        norot = block.norotation[rows]
        if norot.any():
            R[norot] = rotations(block.conf[rows])[norot]   # = the start rotation (Omega(t) = 0)
            Omega[norot] = 0.0
        put_rotations(block.conf, rows, R)
        block.conf[rows, CENTER] = qfree[:, CENTER] + self.BETA * h * dv
        block.velo[rows, ANGULAR] = Omega
        block.velo[rows, LINEAR] += dv
        self.after_step(block, rows, t, h)

    def after_step(self, block, rows, t, h) -> None:
        """Hook: update the carried state once the end state is known."""


class StartState:
    """The state of `rows` at the start of a step (after `disable_rotation` zeroed Omega):
    rotation R, centre x, referential angular velocity Omega, spatial angular velocity w,
    centre velocity v, mass (0 replaced by 1), inertia J and its inverse."""

    __slots__ = ("R", "x", "Omega", "w", "v", "mass", "J", "Jinv")

    def __init__(self, block, rows):
        conf, velo = block.conf[rows], block.velo0[rows]
        self.R = rotations(conf)
        self.x = conf[:, CENTER].copy()
        self.Omega = velo[:, ANGULAR].copy()
        self.v = velo[:, LINEAR].copy()
        self.w = mv(self.R, self.Omega)
        self.mass = safe_mass(block.mass[rows])
        self.J = block.J[rows]
        self.Jinv = block.Jinv[rows]
