"""Joint trees in motion (bodies/articulated/stepping): conservation laws of a free tree and
the small oscillations of a double pendulum against its linearised normal modes."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.bodies.articulated import JointTree, joint_frame
from solfec_py.bodies.articulated import stepping


def box_inertia(m, a, b, c):
    """Inertia of a uniform a x b x c box about its centre (edges along x, y, z)."""
    return m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def free_tree():
    """A FREE root with a SPHERICAL, a REVOLUTE, a UNIVERSAL and a PRISMATIC child."""
    rng = np.random.default_rng(7)
    parents = [-1, 0, 1, 0, 3]
    kinds = ["FREE", "SPHERICAL", "REVOLUTE", "UNIVERSAL", "PRISMATIC"]
    centres = np.array([[0, 0, 0], [1, 0, 0], [2, 0.2, 0], [0, 1, 0], [0, 2, 0.1]], float)
    points = np.array([[0, 0, 0], [0.5, 0, 0], [1.5, 0, 0], [0, 0.5, 0], [0, 1.5, 0]], float)
    frames = [joint_frame(rng.normal(size=3), rng.normal(size=3)) for _ in parents]
    mass = np.array([2.0, 1.0, 0.5, 1.0, 0.7])
    inertia = [box_inertia(m, 0.9, 0.3, 0.2) for m in mass]
    tree = JointTree(parents, kinds, points, frames, mass, centres, inertia)
    u = rng.uniform(-1, 1, tree.nv)
    return tree, tree.zero_q(), u


def _drift(h, time=2.0):
    tree, q, u = free_tree()
    e0, p0 = tree.kinetic_energy(q, u), tree.momentum(q, u)
    q, u = stepping.integrate(tree, q, u, h, int(round(time / h)))
    return abs(tree.kinetic_energy(q, u) - e0) / e0, np.abs(tree.momentum(q, u) - p0).max() / np.abs(p0).max()


def test_free_tree_conserves_energy_and_momentum_to_second_order():
    (e1, p1), (e2, p2) = _drift(0.004), _drift(0.002)
    # second-order scheme: halving h divides the drift by about 4 (3 allows for the
    # higher-order terms still present at these steps)
    assert e1 < 1e-3 and p1 < 1e-3, (e1, p1)
    assert e1 / e2 > 3.0 and p1 / p2 > 3.0, (e1 / e2, p1 / p2)


def double_pendulum(L=1.0, w=0.1, m=1.0):
    """Two L x w x w boxes hanging along -z from the origin, revolute joints about y."""
    E = joint_frame((0, 1, 0))
    points = [(0, 0, 0), (0, 0, -L)]
    centres = [(0, 0, -L / 2), (0, 0, -1.5 * L)]
    inertia = [box_inertia(m, w, w, L)] * 2
    return JointTree([-1, 0], ["REVOLUTE", "REVOLUTE"], points, [E, E], [m, m], centres, inertia)


def normal_modes(L=1.0, w=0.1, m=1.0, g=9.81):
    """Linearised double pendulum in absolute angles (phi1, phi2): frequencies and shapes."""
    Ic = m * (L * L + w * w) / 12.0
    M = np.array([[Ic + m * L * L / 4 + m * L * L, m * L * L / 2], [m * L * L / 2, Ic + m * L * L / 4]])
    K = np.diag([m * g * 1.5 * L, m * g * 0.5 * L])
    lam, vec = np.linalg.eig(np.linalg.solve(M, K))
    order = np.argsort(lam)
    return np.sqrt(lam[order]), vec[:, order]


def _period(signal, h):
    """Mean period from upward zero crossings (linear interpolation)."""
    s = np.asarray(signal)
    k = np.flatnonzero((s[:-1] < 0) & (s[1:] >= 0))
    t = (k + s[k] / (s[k] - s[k + 1])) * h
    return np.diff(t).mean()


@pytest.mark.parametrize("mode", [0, 1])
def test_double_pendulum_small_oscillations(mode):
    omega, shapes = normal_modes()
    tree = double_pendulum()
    phi = 1e-3 * shapes[:, mode] / np.abs(shapes[:, mode]).max()
    q = np.array([phi[0], phi[1] - phi[0]])              # relative joint angles
    period = 2 * np.pi / omega[mode]
    h = period / 400
    trace = []
    stepping.integrate(tree, q, np.zeros(2), h, 400 * 6, gravity=(0, 0, -9.81),
                       record=lambda q, u: trace.append(q[0]))
    measured = _period(trace, h)
    # within 0.5 % of the linearised mode (scheme error ~ (omega h)^2 / 24 ~ 1e-5, amplitude
    # correction ~ phi^2 / 16 ~ 1e-7)
    assert abs(measured / period - 1) < 5e-3, (measured, period)
    assert abs(measured / period - 1) < 1e-4, (measured, period)   # what the scheme actually gives
