"""Integrate the Newton-Euler equations of one rigid body with any rigid scheme, given
forcing functions and optionally added-mass matrices (layer 6). The body is a one-row rigid
block, so every scheme runs exactly the code that steps deck bodies. References: the
schemes' modules in bodies/rigid_schemes; W. D. Henshaw, "Moving bodies with Overture and
the CG solvers" (2016) for the variables and the added-mass model; docs/integrators.md.

Variables (Henshaw's): centre x, its velocity v, the spatial angular velocity omega and the
rotation E whose columns are the body axes in space (E = the rotation of the deck's conf).
The inertia is referential (in the body axes). Forcing functions take (t, state) and return
the spatial force F and the spatial torque G about the centre; with added-mass matrices
M11, M12, M21, M22 the body feels in addition

    F_a = -M11 dv/dt - M12 domega/dt,   G_a = -M21 dv/dt - M22 domega/dt,

which implicit schemes (DIRK1-4, GEN_ALPHA) put into their mass matrix; the explicit ones
see the acceleration of the previous step, as a partitioned fluid-structure coupling does
(unstable when the body is much lighter than its added mass).

    >>> from solfec_py.integrators import integrate
    >>> tr = integrate("DIRK4", mass=1.0, inertia=(1, 2, 3), dt=0.01, t1=1.0,
    ...                omega0=(0, 1, 0.1), force=lambda t, s: (0, 0, -9.81))
    >>> tr.x[-1], tr.omega[-1]                                      # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from solfec_py.bodies.loads import PointLoads
from solfec_py.bodies.rigid import RigidBlock
from solfec_py.bodies.rigid_schemes import RIGID_SCHEMES, SCHEMES, GenAlpha, Lfpc
from solfec_py.bodies.rigid_schemes.base import ANGULAR, CENTER, LINEAR, rotations
from solfec_py.errors import InputError, InputTypeError, SimulationError

__all__ = ["State", "Trajectory", "integrate", "SCHEME_NAMES"]

SCHEME_NAMES = tuple(RIGID_SCHEMES)


@dataclass(frozen=True)
class State:
    """What forcing functions see: time t, centre x, velocity v, spatial angular velocity
    omega, rotation E (columns = body axes; in implicit stages only nearly orthogonal)."""

    t: float
    x: np.ndarray
    v: np.ndarray
    omega: np.ndarray
    E: np.ndarray


@dataclass
class Trajectory:
    """The recorded states: t (N+1,), x, v, omega (N+1, 3), E (N+1, 3, 3)."""

    scheme: str
    dt: float
    t: np.ndarray
    x: np.ndarray
    v: np.ndarray
    omega: np.ndarray
    E: np.ndarray

    def state(self, i: int) -> State:
        return State(float(self.t[i]), self.x[i], self.v[i], self.omega[i], self.E[i])


class _Domain:
    """What a rigid block asks of its domain: the time, gravity (none), constraints (none)."""

    def __init__(self, t0: float):
        self.time = t0
        self.constraints: list = []

    @staticmethod
    def gravity_at(t):
        return (0.0, 0.0, 0.0)


class _Body:
    id, label, kind, row, shape = 1, "", "RIGID", 0, []


class SingleBodyBlock(RigidBlock):
    """A one-row rigid block whose loads are the user's forcing functions."""

    FIELDS = {**RigidBlock.FIELDS,
              "amass": ((6, 6), float),    # spatial added-mass matrix
              "accel": ((6,), float)}      # last step's mean acceleration (dv, domega)/h

    def __init__(self, t0, force, torque, added_mass):
        super().__init__(_Domain(t0), capacity=1)
        self.bodies = [_Body()]
        self.force, self.torque = force, torque
        self.has_added_mass = added_mass is not None
        if self.has_added_mass:
            self.amass[0] = added_mass
        self.loads = PointLoads()
        self.accel_recorded = False

    def _forcing(self, t, R, x, Omega, v, accel):
        k = R.shape[0]
        f, tau = np.zeros((k, 3)), np.zeros((k, 3))
        for i in range(k):
            s = State(float(t), x[i].copy(), v[i].copy(), R[i] @ Omega[i], R[i].copy())
            for name, fn, out in (("force", self.force, f), ("torque", self.torque, tau)):
                if fn is not None:
                    out[i] = _vector(name, fn(t, s), t, finite=False)
                    if not np.isfinite(out[i]).all():
                        raise SimulationError(
                            f"{self.scheme_name}: {name}(t, state) is not finite at t = {t:g} ({out[i].tolist()});"
                            f" |x| = {np.linalg.norm(x[i]):.3g}, |v| = {np.linalg.norm(v[i]):.3g}: the scheme is"
                            " unstable for this body and step, or the function is wrong")
        if accel is not None and self.has_added_mass:
            fa = np.einsum("nij,nj->ni", self.amass[:k], accel)
            f -= fa[:, 0:3]
            tau -= fa[:, 3:6]
        return f, tau

    def gravity_only(self) -> bool:
        return False                   # the forcing functions are the loads

    def loads_at(self, rows, R, x, t, h, conf=None, velo=None):
        """Solfec's schemes: the forcing at their half step, velocity of the step start."""
        u = self.velo0[rows] if velo is None else velo
        lag = self.accel[rows] if self.has_added_mass else None
        f, tau = self._forcing(t, R, x, u[:, ANGULAR], u[:, LINEAR], lag)
        return f, tau, np.zeros_like(f)

    def stage_forces(self, rows, R, x, Omega, v, t, h, accel=None, implicit=False):
        if implicit:
            accel = None
        elif accel is None and self.has_added_mass:
            accel = self.accel[rows]
        return self._forcing(t, R, x, Omega, v, accel)

    def added_mass(self, rows, implicit: bool):
        return self.amass[rows] if implicit and self.has_added_mass else np.zeros((0, 6, 6))

    def lagged_accel(self, rows):
        return self.accel[rows] if self.has_added_mass else None

    def record_accel(self, rows, accel) -> None:
        self.accel[rows] = accel
        self.accel_recorded = True


def integrate(scheme: str, mass: float, inertia, *, dt: float, t1: float, t0: float = 0.0,
              x0=(0.0, 0.0, 0.0), v0=(0.0, 0.0, 0.0), omega0=(0.0, 0.0, 0.0), E0=None,
              force: Callable | None = None, torque: Callable | None = None, added_mass=None,
              rho_inf: float | None = None, corrector_steps: int = 1, relaxation: float = 1.0,
              atol: float = 0.0, rtol: float = 0.0) -> Trajectory:
    """Integrate one rigid body from t0 to t1 with steps dt.

    Parameters
    ----------
    scheme : str
        One of `SCHEME_NAMES` (RIG_POS, RIG_NEG, RIG_IMP, LFPC, DIRK1-4, LSV_EXPLICIT,
        LSV_IMPLICIT, GEN_ALPHA).
    mass : float
        Mass m > 0.
    inertia : 3 numbers or (3, 3)
        Principal moments or the referential inertia tensor (symmetric positive definite).
    dt, t1, t0 : float
        Step and time interval; (t1 - t0) / dt must be a whole number of steps.
    x0, v0, omega0 : 3 numbers
        Initial centre, velocity and spatial angular velocity.
    E0 : (3, 3), optional
        Initial rotation (columns = body axes in space); identity by default.
    force, torque : callable(t, State) -> 3 numbers, optional
        Spatial force and torque about the centre (zero when omitted).
    added_mass : (6, 6) or 4 (3, 3) blocks (M11, M12, M21, M22), optional
        Spatial added-mass matrix acting on (dv/dt, domega/dt).
    rho_inf : float, optional
        Spectral radius at infinity of GEN_ALPHA (default 0.9).
    corrector_steps, relaxation, atol, rtol :
        LFPC corrector iterations with under-relaxed forcing (Henshaw's light-body option).

    Returns
    -------
    Trajectory
        States at t0, t0 + dt, ..., t1.
    """
    if not isinstance(scheme, str) or scheme not in SCHEMES or scheme not in RIGID_SCHEMES:
        raise InputError(f"Invalid scheme {scheme!r}; expected one of {sorted(RIGID_SCHEMES)}")
    m = _positive("mass", mass)
    J = _inertia(inertia)
    dt = _positive("dt", dt)
    t0, t1 = _number("t0", t0), _number("t1", t1)
    steps = int(round((t1 - t0) / dt))
    if steps < 1 or abs(steps * dt - (t1 - t0)) > 1e-9 * max(abs(t1 - t0), dt):
        raise InputError(f"(t1 - t0) / dt must be a positive whole number of steps, got ({t1!r} - {t0!r}) /"
                         f" {dt!r} = {(t1 - t0) / dt!r}")
    E = np.eye(3) if E0 is None else _rotation(E0)
    for name, fn in (("force", force), ("torque", torque)):
        if fn is not None and not callable(fn):
            raise InputTypeError(f"'{name}' must be a function (t, state) -> 3 numbers, got {type(fn).__name__}")
    block = SingleBodyBlock(t0, force, torque, _added_mass(added_mass))
    block.scheme_name = scheme
    if scheme == "GEN_ALPHA" and rho_inf is not None:
        if not 0.0 <= float(rho_inf) <= 1.0:
            raise InputError(f"'rho_inf' must be in [0, 1], got {rho_inf!r}")
        block.schemes[block.schemes.index(SCHEMES[scheme])] = GenAlpha(float(rho_inf))
    if scheme == "LFPC":
        if not 0.0 < float(relaxation) <= 1.0:
            raise InputError(f"'relaxation' must be in (0, 1], got {relaxation!r}")
        block.schemes[block.schemes.index(SCHEMES[scheme])] = Lfpc(int(corrector_steps), float(relaxation),
                                                                   float(atol), float(rtol))
    block.mass[0], block.J[0] = m, J
    block.conf[0, 0:9] = E.T.reshape(-1)
    block.conf[0, CENTER] = _vector("x0", x0)
    block.velo[0, ANGULAR] = E.T @ _vector("omega0", omega0)
    block.velo[0, LINEAR] = _vector("v0", v0)
    block.set_scheme(0, scheme)
    block.dynamic_init()
    return _run(block, scheme, t0, dt, steps)


def _run(block, scheme, t0, dt, steps) -> Trajectory:
    t = t0 + dt * np.arange(steps + 1)
    x, v, w, E = (np.empty((steps + 1, 3)), np.empty((steps + 1, 3)), np.empty((steps + 1, 3)),
                  np.empty((steps + 1, 3, 3)))

    def record(i):
        R = rotations(block.conf[:1])[0]
        E[i], x[i], v[i], w[i] = R, block.conf[0, CENTER], block.velo[0, LINEAR], R @ block.velo[0, ANGULAR]

    record(0)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(steps):
            block.domain.time = t[k]
            block.step_begin(t[k], dt)
            block.step_end(t[k], dt)
            record(k + 1)
            if not (np.isfinite(block.conf[0]).all() and np.isfinite(block.velo[0]).all()):
                raise SimulationError(f"{scheme}: the state is not finite at time {t[k + 1]:g} after"
                                      f" {k + 1} steps (dt = {dt:g}); the scheme is unstable for this body"
                                      " and step")
            if block.has_added_mass and not block.accel_recorded:   # the step's mean acceleration
                block.accel[0, 0:3] = (v[k + 1] - v[k]) / dt
                block.accel[0, 3:6] = (w[k + 1] - w[k]) / dt
            block.accel_recorded = False
    return Trajectory(scheme, dt, t, x, v, w, E)


# ---------------------------------------------------------------------- argument checks
def _number(name, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"'{name}' must be a number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not np.isfinite(value):
        raise InputError(f"'{name}' must be finite, got {value!r}")
    return value


def _positive(name, value) -> float:
    value = _number(name, value)
    if not value > 0:
        raise InputError(f"'{name}' must be positive, got {value!r}")
    return value


def _vector(name, value, t=None, finite=True) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        arr = None
    where = "" if t is None else f" (returned at t = {t:g})"
    if arr is None or arr.size != 3:
        raise InputError(f"'{name}' must be 3 numbers{where}, got {value!r}")
    if finite and not np.isfinite(arr).all():
        raise InputError(f"'{name}' must be finite{where}, got {arr.tolist()}")
    return arr


def _array(name: str, value, shapes: tuple, what: str) -> np.ndarray:
    """`value` as a finite float array of one of `shapes`; else an error naming `what`."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape not in shapes or not np.isfinite(arr).all():
        raise InputError(f"'{name}' must be {what}, got {value!r}")
    return arr


def _inertia(value) -> np.ndarray:
    arr = _array("inertia", value, ((3,), (3, 3)), "3 principal moments or a 3 x 3 matrix")
    J = np.diag(arr) if arr.shape == (3,) else arr
    if np.abs(J - J.T).max() > 1e-12 * np.abs(J).max():
        raise InputError(f"'inertia' must be symmetric, got {J.tolist()}")
    eig = np.linalg.eigvalsh(J)
    if not eig[0] > 1e-14 * max(eig[-1], 0.0):
        raise InputError(f"'inertia' is singular or not positive definite (eigenvalues {eig.tolist()})")
    return J


def _rotation(value) -> np.ndarray:
    E = _array("E0", value, ((3, 3),), "a 3 x 3 rotation matrix")
    err = float(np.abs(E.T @ E - np.eye(3)).max())
    if err > 1e-10 or np.linalg.det(E) < 0:
        raise InputError(f"'E0' must be a rotation (orthogonal, det +1): max |E^T E - I| = {err:.3g},"
                         f" det = {np.linalg.det(E):.6g}")
    return E


def _added_mass(value):
    if value is None:
        return None
    if isinstance(value, (tuple, list)) and len(value) == 4:
        try:
            blocks = [np.asarray(b, dtype=float) for b in value]
        except (TypeError, ValueError):
            blocks = []
        if len(blocks) != 4 or any(b.shape != (3, 3) for b in blocks):
            raise InputError("'added_mass' as blocks must be four 3 x 3 matrices (M11, M12, M21, M22)")
        M = np.block([[blocks[0], blocks[1]], [blocks[2], blocks[3]]])
        if not np.isfinite(M).all():
            raise InputError("'added_mass' must be finite")
        return M
    return _array("added_mass", value, ((6, 6),), "a finite 6 x 6 matrix or (M11, M12, M21, M22)")
