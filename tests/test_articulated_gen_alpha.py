"""GEN_ALPHA on joint trees (bodies/articulated/gen_alpha.py, the ARTICULATED_GEN_ALPHA
scheme): second-order convergence of a double pendulum to an independent ODE solution
(scipy's DOP853 on the Lagrangian equations in absolute angles), the numerical dissipation
of a linearised pendulum against the spectral radius of the Chung-Hulbert amplification
matrix, a deck run that steps exactly as the joint-space integrator, constraints acting on
GEN_ALPHA links, and the scheme's input errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from solfec_py.bodies.articulated import JointTree, domain_tree, joint_frame
from solfec_py.bodies.articulated import gen_alpha
from solfec_py.bodies.rigid_schemes.gen_alpha import coefficients
from solfec_py.errors import InputError

L, W, M, G = 1.0, 0.1, 1.0, 9.81
IC = M * (L * L + W * W) / 12.0             # a L x W x W box about its centre, across its length


def box_inertia(m, a, b, c):
    return m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def pendulum_tree(n):
    """n boxes hanging along -z from the origin, REVOLUTE joints about y."""
    E = joint_frame((0, 1, 0))
    return JointTree(list(range(-1, n - 1)), ["REVOLUTE"] * n, [(0, 0, -k * L) for k in range(n)], [E] * n,
                     [M] * n, [(0, 0, -(k + 0.5) * L) for k in range(n)], [box_inertia(M, W, W, L)] * n)


def double_pendulum_rhs(t, y):
    """Lagrange's equations of the two boxes in absolute angles (phi1, phi2) from the vertical."""
    p1, p2, w1, w2 = y
    c, d = 0.5 * L, p1 - p2
    b = M * L * c
    A = np.array([[M * c * c + IC + M * L * L, b * math.cos(d)], [b * math.cos(d), M * c * c + IC]])
    f = np.array([-b * math.sin(d) * w2 ** 2 - (M * c + M * L) * G * math.sin(p1),
                  b * math.sin(d) * w1 ** 2 - M * G * c * math.sin(p2)])
    return [w1, w2, *np.linalg.solve(A, f)]


@pytest.mark.parametrize("rho_inf", [0.9, 0.5])
def test_double_pendulum_converges_at_second_order(rho_inf):
    tree, T = pendulum_tree(2), 1.0
    ref = solve_ivp(double_pendulum_rhs, (0, T), [1.0, 0.5, 0, 0], method="DOP853", rtol=1e-12, atol=1e-12).y[:, -1]
    errors = []
    for h in (0.01, 0.005, 0.0025):
        q, u = gen_alpha.integrate(tree, [1.0, -0.5], np.zeros(2), h, round(T / h), coefficients(rho_inf),
                                   gravity=(0, 0, -G))
        phi, rate = np.array([q[0], q[0] + q[1]]), np.array([u[0], u[0] + u[1]])   # relative -> absolute
        errors.append(max(np.abs(phi - ref[:2]).max(), np.abs(rate - ref[2:]).max()))
    order = np.log2(np.array(errors[:-1]) / errors[1:])
    print(f"\nrho_inf {rho_inf}: errors {errors}, observed orders {order}")
    # measured 1.9994, 1.9998 (rho 0.9) and 1.994, 1.997 (rho 0.5): a second-order method in
    # its asymptotic range; +-0.05 leaves room for the O(h^3) terms; the reference's own
    # error (rtol 1e-12) is 1e-8 of the smallest error
    assert np.all(np.abs(order - 2.0) < 0.05), order
    assert errors[-1] < 1e-3


def spectral_radius(rho_inf, Om):
    """Spectral radius of the generalized-alpha amplification matrix of x'' + Om^2 x = 0
    (h = 1): unknowns (x1, v1, a1), ud = -Om^2 x (Chung & Hulbert 1993, Arnold & Bruls 2007)."""
    am, af, gamma, beta = coefficients(rho_inf)
    lhs = np.array([[1, 0, -beta], [0, 1, -gamma], [(1 - af) * Om ** 2, 0, 1 - am]])
    rhs = np.array([[1, 1, 0.5 - beta], [0, 1, 1 - gamma], [-af * Om ** 2, 0, -am]])
    return np.abs(np.linalg.eigvals(np.linalg.solve(lhs, rhs))).max()


@pytest.mark.parametrize("rho_inf, Om", [(0.5, 1.0), (0.5, 3.0), (0.0, 3.0)])
def test_pendulum_decays_by_the_spectral_radius(rho_inf, Om):
    """Small oscillation (1e-4 rad: sin q - q ~ 2e-9 q) of one box: the principal roots
    lambda, conj(lambda) of the step make q_n = C |lambda|^n cos(n theta + phi), for which
    D_n = q_{n+1}^2 - q_n q_{n+2} = C^2 |lambda|^(2n+2) sin^2 theta decays by |lambda|^2 a
    step (after 100 steps the spurious root, modulus < 0.5 here, is gone)."""
    tree = pendulum_tree(1)
    omega = math.sqrt(M * G * 0.5 * L / (IC + M * L * L / 4))
    trace = []
    gen_alpha.integrate(tree, [1e-4], np.zeros(1), Om / omega, 400, coefficients(rho_inf), gravity=(0, 0, -G),
                        record=lambda q, u: trace.append(q[0]))
    x = np.array(trace)
    D = x[1:-1] ** 2 - x[:-2] * x[2:]
    measured = (D[-1] / D[100]) ** (1.0 / (2 * (D.size - 101)))
    expected = spectral_radius(rho_inf, Om)
    print(f"\nrho_inf {rho_inf}, omega h {Om}: measured {measured:.10f}, amplification matrix {expected:.10f}")
    # measured to 1e-10 of 1 - rho (at least 0.01 here); 1e-6 allows for the nonlinearity
    assert abs(measured - expected) < 1e-6 * (1 - expected)
    assert spectral_radius(rho_inf, 1e8) == pytest.approx(rho_inf, abs=1e-4)   # the high-frequency limit


ANGLES = (1.0, 0.5)


def deck(api, h, scheme='GEN_ALPHA', tag=''):
    """Two unit point masses on REVOLUTE joints (about y) at unit distances, released from
    the absolute angles ANGLES (their reference configuration)."""
    sol = api.SOLFEC('DYNAMIC', h, f'out/ga_{scheme}{tag}')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -G))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    links, parent, pivot = [], None, np.zeros(3)
    for phi in ANGLES:
        c = pivot + (math.sin(phi), 0.0, -math.cos(phi))
        body = api.BODY(sol, 'RIGID', api.SPHERE(tuple(c), 0.05, 1, 1), mat)
        api.BODY_CHARS(body, 1.0, 1.0, tuple(c), (1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3))
        body.scheme = scheme
        api.JOINT('REVOLUTE', parent, body, tuple(pivot), (0, 1, 0), label=f'j{len(links)}')
        links.append(body)
        parent, pivot = body, c
    return sol, links


def check_deck_against_joint_space(api, sol, h, steps, integrate):
    """Run `sol` (the chain of `deck`) for `steps` steps and compare its joint coordinates
    after every step with `integrate(tree, q0, u0, h, steps, record)` in joint space: the
    same algorithm, gravity entering the deck as link loads (rounding only)."""
    tree, _ = domain_tree(sol.domain.joints)
    joints = sol.domain.joints
    trace = []
    api.CALLBACK(sol, h, (), lambda: trace.append(np.concatenate([j.q for j in joints])) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), steps * h)
    expected = []
    integrate(tree, tree.zero_q(), np.zeros(2), h, steps, lambda q, u: expected.append(q[tree.index].copy()))
    print(f"\ndeck vs joint space: {np.abs(np.array(trace) - expected).max():.3g} rad")
    np.testing.assert_allclose(np.array(trace), np.array(expected), rtol=0, atol=1e-12)
    assert np.abs(expected[-1]).max() > 0.01        # it moved


def test_deck_steps_as_the_joint_space_integrator(api):
    h, steps = 2e-3, 100
    sol, links = deck(api, h)
    assert [b.scheme for b in links] == ['GEN_ALPHA'] * 2
    check_deck_against_joint_space(api, sol, h, steps, lambda tree, q, u, h, n, record: gen_alpha.integrate(
        tree, q, u, h, n, coefficients(0.9), gravity=(0, 0, -G), record=record))


def test_fix_point_holds_a_gen_alpha_chain(api):
    """The tip of the two-mass chain pinned by FIX_POINT: no freedom is left, the chain stays
    (the velocity jumps cancel the free rates; the end coordinates differ from the start by
    h^2 (gamma/2 - beta)(a_n - a_n+1), which vanishes at rest) and the shoulder force plus
    the FIX_POINT reaction carry the weight (statics)."""
    h = 1e-3
    sol, (first, second) = deck(api, h, tag='_pinned')
    pin = api.FIX_POINT(second, second.center)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.1)
    shoulder, elbow = sol.domain.joints
    print(f"\npinned GEN_ALPHA chain: |q| = {max(abs(shoulder.q[0]), abs(elbow.q[0])):.3g} rad")
    assert max(abs(shoulder.q[0]), abs(elbow.q[0])) < 1e-10
    force = np.array(pin.base).reshape(3, 3).T @ np.array(pin.R)
    total = np.array(shoulder.reaction[0:3]) + force
    np.testing.assert_allclose(total, (0, 0, 2 * G), atol=1e-6 * 2 * G)


def test_link_schemes_and_their_errors(api):
    sol, (first, second) = deck(api, 1e-3, scheme='DEFAULT', tag='_errors')
    assert first.scheme == 'ARTICULATED'
    first.scheme = 'GEN_ALPHA'
    assert first.scheme == 'GEN_ALPHA'
    with pytest.raises(InputError, match=r"link of an articulated body .* one of \['DEFAULT', 'ARTICULATED',"
                                         r" 'GEN_ALPHA', 'RK4'\], got 'RIG_NEG'"):
        first.scheme = 'RIG_NEG'
    with pytest.raises(InputError, match="share one scheme"):       # one link GEN_ALPHA, the other not
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 1e-3)


def driven_cart(api, h, T):
    """The pendulum on a driven cart of test_articulated_run (x_d = A (1 - cos W t) on a
    PRISMATIC joint, a point mass on a REVOLUTE joint below it) on GEN_ALPHA links; knots
    of the series every h/2 (the drive is sampled at knots: its differences are exact ones
    of the smooth function). (t, x, q) per step."""
    A, Om, Lp = 0.1, 6.0, 1.0
    sol = api.SOLFEC('DYNAMIC', h, f'out/ga_drive_{h:g}')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -G))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    cart = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.05, 1, 1), mat)
    bob = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, -Lp), 0.05, 1, 1), mat)
    api.BODY_CHARS(bob, 1.0, 1.0, (0, 0, -Lp), (1e-9, 0, 0, 0, 1e-9, 0, 0, 0, 1e-9))
    cart.scheme = bob.scheme = 'GEN_ALPHA'
    knots = np.arange(0.0, T + 0.1, 0.5 * h)
    series = api.TIME_SERIES([v for t in knots for v in (t, A * (1 - math.cos(Om * t)))])
    slide = api.JOINT('PRISMATIC', None, cart, (0, 0, 0), (1, 0, 0), drive=series, label='rail')
    swing = api.JOINT('REVOLUTE', cart, bob, (0, 0, 0), (0, 1, 0))
    rows = []
    api.CALLBACK(sol, h, (), lambda: rows.append((sol.time, slide.q[0], swing.q[0])) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), T)
    return np.array(rows).T, (A, Om, Lp)


@pytest.mark.slow
def test_drive_on_a_gen_alpha_tree_converges_at_second_order(api):
    """GEN_ALPHA with a drive: the driven coordinate is a known function of time (placed on
    the drive every iterate, its acceleration the drive's second difference), the free one
    integrated by the alpha recursion. The cart follows the series exactly; the swing
    converges to scipy's DOP853 (rtol 1e-12) solution of theta'' = -(g sin theta + x_d''
    cos theta) / L at second order."""
    T, errors = 0.6, []
    for h in (4e-3, 2e-3, 1e-3):
        (t, x, q), (A, Om, Lp) = driven_cart(api, h, T)
        np.testing.assert_allclose(x, A * (1 - np.cos(Om * t)), rtol=0, atol=1e-12)
        ode = solve_ivp(lambda s, y: (y[1], -(G * math.sin(y[0]) + A * Om * Om * math.cos(Om * s) * math.cos(y[0]))
                                      / Lp), (0, t[-1]), (0.0, 0.0), t_eval=t, method='DOP853', rtol=1e-12,
                        atol=1e-14)
        errors.append(np.abs(-q - ode.y[0]).max())       # REVOLUTE about +y: theta = -q
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    print(f"\nGEN_ALPHA driven cart: |theta - DOP853| = {errors} rad (swing {np.abs(q).max():.3g} rad),"
          f" orders {orders}")
    # second order: measured orders in the print; +-0.15 allowed, errors below 1e-4 rad of a 0.1 rad swing
    assert np.abs(q).max() > 0.05 and np.all(np.abs(orders - 2) < 0.15) and errors[-1] < 1e-4


def test_joint_replaces_another_rigid_scheme_with_a_warning(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/ga_warn')
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol, density=1.0))
    ball.scheme = 'DIRK3'
    with pytest.warns(RuntimeWarning, match=f"body {ball.id} becomes a link .* scheme DIRK3 is replaced by ARTICULATED"):
        api.JOINT('REVOLUTE', None, ball, (0, 0, 0), (0, 1, 0))
    assert ball.scheme == 'ARTICULATED'
