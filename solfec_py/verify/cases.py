"""Exact and manufactured solutions of the Newton-Euler equations for the convergence
studies of `solfec-py verify` (layer 8). After the test problems of W. D. Henshaw, "Moving
bodies with Overture and the CG solvers" (2016): a trigonometric twilight zone, free
rotation of a body with two equal moments, a sphere falling with quadratic drag (with and
without added mass). Closed forms derived in docs/integrators.md.

A `Case` gives what `integrators.integrate` needs and `exact(t)` -> (x, v, omega, E) at the
times t (N,), with E None where it has no closed form.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from solfec_py.geometry.rotation import expmap

T_END = 1.0
STEPS = (0.05, 0.025, 0.0125)


@dataclass
class Case:
    name: str
    title: str
    mass: float
    inertia: tuple
    x0: np.ndarray
    v0: np.ndarray
    omega0: np.ndarray
    E0: np.ndarray
    exact: Callable
    force: Callable | None = None
    torque: Callable | None = None
    added_mass: np.ndarray | None = None
    implicit_added_mass_only: bool = False    # explicit schemes lag added mass: not this case
    compare: tuple = ("x", "v", "omega")
    options: dict = field(default_factory=dict)

    def integrate_kwargs(self) -> dict:
        return dict(mass=self.mass, inertia=self.inertia, x0=self.x0, v0=self.v0, omega0=self.omega0,
                    E0=self.E0, force=self.force, torque=self.torque, added_mass=self.added_mass)


# ------------------------------------------------------------------ twilight zone
# x_i = a_i cos(f_i t + p_i), omega_i = b_i sin(g_i t + q_i) + c_i
_XA, _XF, _XP = np.array([0.5, 0.3, 0.2]), np.array([2.0, 3.0, 1.5]), np.array([0.0, 0.1 - math.pi / 2, 0.3])
_WB, _WG, _WQ, _WC = (np.array([0.8, 0.5, 0.6]), np.array([2.0, 1.5, 2.5]), np.array([0.2, math.pi / 2, 0.4]),
                      np.array([0.0, 0.0, 0.3]))


def _tz_x(t, d=0):
    """d-th derivative of x_e at times t (N,) -> (N, 3)."""
    arg = np.outer(t, _XF) + _XP
    return _XA * _XF ** d * np.cos(arg + d * math.pi / 2)


def _tz_w(t, d=0):
    arg = np.outer(t, _WG) + _WQ
    return _WB * _WG ** d * np.sin(arg + d * math.pi / 2) + (_WC if d == 0 else 0.0)


def twilight_zone(added: bool) -> Case:
    """TZTrig: x_e, omega_e trigonometric; the forcing makes them exact with the numerical
    rotation E: F = (m + M11) x_e'' + M12 omega_e', G = A(E) omega_e' + omega_e x A(E) omega_e
    + M21 x_e'' + M22 omega_e', A(E) = E J E^T. E itself has no closed form."""
    mass = 1.0
    J = np.diag([1.0, 1.5, 2.0])
    Ma = _added_mass_matrix() if added else None

    def force(t, s):
        a = _tz_x(np.array([t]), 2)[0]
        f = mass * a
        if Ma is not None:
            f = f + Ma[0:3, 0:3] @ a + Ma[0:3, 3:6] @ _tz_w(np.array([t]), 1)[0]
        return f

    def torque(t, s):
        w, wd = _tz_w(np.array([t]), 0)[0], _tz_w(np.array([t]), 1)[0]
        A = s.E @ J @ s.E.T
        g = A @ wd + np.cross(w, A @ w)
        if Ma is not None:
            g = g + Ma[3:6, 0:3] @ _tz_x(np.array([t]), 2)[0] + Ma[3:6, 3:6] @ wd
        return g

    def exact(t):
        return _tz_x(t), _tz_x(t, 1), _tz_w(t), None

    z = np.zeros(1)
    return Case("TZTRIG_AM" if added else "TZTRIG",
                "trigonometric twilight zone" + (" with added mass" if added else ""),
                mass, J, _tz_x(z)[0], _tz_x(z, 1)[0], _tz_w(z)[0], expmap(np.array([0.1, 0.2, 0.3])), exact,
                force, torque, Ma, implicit_added_mass_only=added)


def _added_mass_matrix() -> np.ndarray:
    """A symmetric positive definite spatial added mass with linear-angular coupling."""
    M = np.diag([0.5, 0.4, 0.6, 0.2, 0.25, 0.15])
    M[0, 4] = M[4, 0] = 0.05
    M[1, 3] = M[3, 1] = -0.04
    return M


# ------------------------------------------------------------------ free rotation
def free_rotation(axis: int) -> Case:
    """FR1/FR2/FR3: torque-free body with I_j = I_k for j, k != axis (symmetry axis s = axis):
    Omega(t) = exp[lambda t e_s] Omega_0, lambda = (I_s - I_t) Omega_s / I_t, and
    E(t) = exp[t |L|/I_t  L/|L|] E_0 exp[-lambda t e_s], L = E_0 J Omega_0 (docs/integrators.md)."""
    It, Is = 2.0, 1.0
    moments = np.full(3, It)
    moments[axis] = Is
    J = np.diag(moments)
    Omega0 = np.array([1.0, 0.7, 0.4])
    E0 = expmap(np.array([0.3, -0.2, 0.5]))
    L = E0 @ J @ Omega0
    wp = np.linalg.norm(L) / It
    lam = (Is - It) * Omega0[axis] / It
    es = np.eye(3)[axis]
    v0 = np.array([1.0, -0.5, 0.25])

    def exact(t):
        Et = expmap(np.outer(t, L / np.linalg.norm(L)) * wp) @ E0 @ expmap(-np.outer(t, es) * lam)
        Om = np.einsum("nij,j->ni", expmap(np.outer(t, es) * lam), Omega0)
        return np.outer(np.ones_like(t), np.zeros(3)) + np.outer(t, v0), np.outer(np.ones_like(t), v0), \
            np.einsum("nij,nj->ni", Et, Om), Et

    return Case(f"FR{axis + 1}", f"free rotation, I = {tuple(moments.tolist())}", 1.0, J, np.zeros(3), v0,
                E0 @ Omega0, E0, exact, compare=("omega", "E"))


# ------------------------------------------------------------------ falling sphere
def falling_sphere(mass: float = 1.0, added: float = 0.0, name: str = "FS") -> Case:
    """A sphere released from rest under its weight W and the drag -D |v| v:
    (m + m_a) v' = -W - D |v| v, so v = -alpha tanh(beta t), x = -(alpha/beta) log cosh(beta t)
    along z with alpha = sqrt(W/D), beta = sqrt(W D)/(m + m_a). W = D = 2 (m + m_a): alpha = 1,
    beta = 2. The added mass m_a (M11 = m_a I) is a model of the surrounding fluid."""
    total = mass + added
    W = D = 2.0 * total
    alpha, beta = math.sqrt(W / D), math.sqrt(W * D) / total

    def force(t, s):
        return np.array([0.0, 0.0, -W]) - D * np.linalg.norm(s.v) * s.v

    def exact(t):
        z = np.zeros((t.size, 3))
        x, v = z.copy(), z.copy()
        x[:, 2] = -(alpha / beta) * np.log(np.cosh(beta * t))
        v[:, 2] = -alpha * np.tanh(beta * t)
        return x, v, z, None

    inertia = (0.4 * mass,) * 3                   # a unit sphere; it does not rotate
    Ma = None
    if added:
        Ma = np.zeros((6, 6))
        Ma[0:3, 0:3] = added * np.eye(3)
    title = f"falling sphere, quadratic drag, m = {mass:g}" + (f", added mass {added:g}" if added else "")
    return Case(name, title, mass, inertia, np.zeros(3), np.zeros(3), np.zeros(3), np.eye(3), exact, force,
                None, Ma, implicit_added_mass_only=bool(added), compare=("x", "v"))


def cases() -> dict:
    """The verification cases by name."""
    out = [twilight_zone(False), twilight_zone(True), free_rotation(0), free_rotation(1), free_rotation(2),
           falling_sphere(), falling_sphere(1.0, 0.5, "FS_AM"), falling_sphere(1e-6, 1.0, "FS_LIGHT")]
    return {c.name: c for c in out}
