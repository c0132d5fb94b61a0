"""Articulated bodies through RUN (JOINT + the ARTICULATED scheme): a revolute link with a
joint spring and damper under a constant torque against the closed-form response of
I th'' + c th' + k th = T from rest; joint.q / joint.dq and the link's conf agree;
a drive that does not start at its joint's coordinate is refused at RUN, naming the joint."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solfec_py.errors import InputError, NotAvailableError

I_ZZ, K, TORQUE = 2.0, 8.0, 4.0


def oscillator(api, damper, **extra):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/osc')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    api.BODY_CHARS(ball, 1.0, 1.0, (0, 0, 0), (1, 0, 0, 0, 1.5, 0, 0, 0, I_ZZ))
    joint = api.JOINT('REVOLUTE', None, ball, (0, 0, 0), (0, 0, 1), spring=K, damper=damper, label='pivot',
                      **extra)
    api.TORQUE(ball, 'SPATIAL', (0, 0, 1), TORQUE)
    return sol, ball, joint


def response(t, c):
    """Closed form of I th'' + c th' + k th = T, th(0) = th'(0) = 0 (underdamped)."""
    w0 = math.sqrt(K / I_ZZ)
    zeta = c / (2 * math.sqrt(K * I_ZZ))
    wd = w0 * math.sqrt(1 - zeta ** 2)
    return TORQUE / K * (1 - np.exp(-zeta * w0 * t) * (np.cos(wd * t) + zeta / math.sqrt(1 - zeta ** 2)
                                                          * np.sin(wd * t)))


@pytest.mark.parametrize("damper", [0.0, 0.8])
def test_spring_damper_response(api, damper):
    sol, ball, joint = oscillator(api, damper)
    times, angles, rotations = [], [], []

    def watch():
        times.append(sol.time)
        angles.append(joint.q[0])
        conf = ball.conf
        rotations.append(math.atan2(conf[1], conf[0]))     # Lambda column-major: (cos, sin, 0, ...)
        return 1

    api.CALLBACK(sol, 1e-3, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 1.6)      # past the largest swing (period pi s)
    t, q = np.array(times), np.array(angles)
    exact = response(t, damper)
    # second-order scheme, omega h = 2e-3: phase error ~ (omega h)^2 t omega / 24 ~ 1e-6 rad;
    # 1e-4 of the static angle T/k = 0.5 rad leaves margin
    print(f"\ndamper {damper}: max |q - exact| = {np.abs(q - exact).max():.3g} rad")
    assert np.abs(q - exact).max() < 1e-4 * TORQUE / K, np.abs(q - exact).max()
    np.testing.assert_allclose(rotations, q, atol=1e-12)   # the link reads as a rigid body
    assert len(joint.dq) == 1 and math.isfinite(joint.dq[0])
    assert ball.scheme == 'ARTICULATED'


def test_a_drive_starts_where_its_joint_is(api):
    sol, ball, joint = oscillator(api, 0.0, drive=0.1)
    with pytest.raises(InputError, match="JOINT 'pivot': the drive prescribes the coordinate 0.1 at time 0"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.01)


@pytest.mark.parametrize("scheme", ["ARTICULATED", pytest.param("GEN_ALPHA", marks=pytest.mark.slow)])
def test_limit_stops_a_falling_pendulum(api, scheme):
    """A point mass released from the horizontal on a hinge limited to q <= 0.5 rad: the
    coordinate reaches the limit, never passes it (rounding only), and rests there pressed
    by gravity (inelastic stop); the joint's reaction then holds the weight's moment."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, f'out/limit_{scheme}')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    bob = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0), 0.05, 1, 1), mat)
    api.BODY_CHARS(bob, 2.0, 1.0, (1, 0, 0), (1e-9, 0, 0, 0, 1e-9, 0, 0, 0, 1e-9))
    hinge = api.JOINT('REVOLUTE', None, bob, (0, 0, 0), (0, 1, 0), limits=(-1.0, 0.5))
    bob.scheme = scheme
    angles = []
    api.CALLBACK(sol, 1e-3, (), lambda: angles.append(hinge.q[0]) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 1.0)
    angles = np.array(angles)
    assert angles.max() <= 0.5 + 1e-12 and angles[-1] == pytest.approx(0.5, abs=1e-12)
    first = int(np.argmax(angles > 0.5 - 1e-9))
    assert 0 < first < 500 and np.all(np.abs(angles[first:] - 0.5) < 1e-9)
    assert abs(hinge.dq[0]) < 1e-9
    # at rest on the stop: the joint holds the weight, moment -(x - c) x m g about the hinge
    x = np.array(bob.conf[9:12])
    weight = 2.0 * np.array([0, 0, -9.81])
    np.testing.assert_allclose(hinge.reaction[0:3], -weight, atol=1e-8)
    np.testing.assert_allclose(hinge.reaction[3:6], -np.cross(x, weight), atol=1e-8)


def test_links_in_stored_results(api):
    """A JOINT pendulum run with output; reopened in READ mode, HISTORY of a link point
    reads the motion the run produced (links are stored as rigid bodies)."""
    def model():
        sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/pend')
        sol.verbose = 'OFF'
        api.GRAVITY(sol, (0, 0, -9.81))
        api.OUTPUT(sol, 0.01)
        mat = api.BULK_MATERIAL(sol, density=1.0)
        ball = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0), 0.1, 1, 1), mat)
        api.JOINT('REVOLUTE', None, ball, (0, 0, 0), (0, 1, 0))
        return sol, ball

    sol, ball = model()
    seen = {}

    def watch():
        seen[round(sol.time, 6)] = ball.conf[11]
        return 1

    api.CALLBACK(sol, 1e-3, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.2)
    end = np.array(ball.conf[9:12])
    assert abs(np.linalg.norm(end) - 1.0) < 1e-12 and end[2] < -0.1      # swung down on its radius
    sol, ball = model()
    assert sol.mode == 'READ'
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.2)
    times, cz = api.HISTORY(sol, [(ball, (1, 0, 0), 'CZ')], 0, 0.2)
    assert len(times) >= 19 and times[-1] > 0.18
    for t, z in zip(times[1:], cz[1:]):
        assert z == pytest.approx(seen[round(t, 6)], abs=1e-12), t


def test_free_link_bounces_like_the_rigid_body(api):
    """A tilted cube on a FREE joint dropped on a floor (friction 0.3, restitution 0.5):
    a lone floating link has the rigid body's inertia, so the contact solve is exact for it
    and the motion must be the plain rigid cube's. This checks that contact reactions reach
    joint space through the partial velocities (torques included, the edges hit first)."""
    def drop(joint):
        sol = api.SOLFEC('DYNAMIC', 1e-3, f'out/cube_{joint}')
        sol.verbose = 'OFF'
        api.OUTPUT(sol, 1e9)
        api.GRAVITY(sol, (0, 0, -9.81))
        api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3, restitution=0.5)
        mat = api.BULK_MATERIAL(sol, density=1000.0)
        pts = [v for x in (-2, 2) for y in (-2, 2) for z in (-1, 0) for v in (x, y, z)]
        api.BODY(sol, 'OBSTACLE', api.HULL(pts, 1, 1), mat)
        nodes = [v for z in (0.3, 0.5) for (x, y) in ((-.1, -.1), (.1, -.1), (.1, .1), (-.1, .1)) for v in (x, y, z)]
        shape = api.HEX(nodes, 1, 1, 1, 1, [1] * 6)
        api.ROTATE(shape, (0, 0, 0.4), (1, 0.3, 0), 25.0)
        cube = api.BODY(sol, 'RIGID', shape, mat)
        if joint:
            api.JOINT('FREE', None, cube, cube.center)
        trace = []
        api.CALLBACK(sol, 1e-3, (), lambda: trace.append(cube.conf + cube.velo) or 1)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.4)
        return np.array(trace)

    rigid, linked = drop(False), drop(True)
    assert rigid[:, 11].min() < 0.13 < rigid[0, 11]            # it fell onto the floor (centre 0.4 -> 0.125)
    # measured 8.3e-10 (conf) and 8.3e-9 (velo): the free flights differ only by the
    # rotation update of RIG_NEG and of the joint-space midpoint scheme (O(h^2) per step)
    assert np.abs(rigid[:, :12] - linked[:, :12]).max() < 1e-7
    assert np.abs(rigid[:, 12:] - linked[:, 12:]).max() < 1e-6


def test_a_link_keeps_its_scheme(api):
    sol, ball, joint = oscillator(api, 0.0)
    with pytest.raises(InputError, match=f"body {ball.id} is a link of an articulated body.*got 'RIG_NEG'"):
        ball.scheme = 'RIG_NEG'
    assert ball.scheme == 'ARTICULATED'
    ball.block.set_scheme(ball.row, 'RIG_NEG')        # behind the deck's back: RUN refuses the tree
    api.JOINT('REVOLUTE', ball, api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0), 0.1, 1, 1), ball.material),
              (0.5, 0, 0), (0, 0, 1))
    ball.block.set_scheme(ball.row, 'RIG_NEG')
    with pytest.raises(InputError, match=f"body {ball.id} is a link of an articulated body.*got RIG_NEG"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.01)


def test_joint_reactions_balance_the_loads(api):
    """Statics: a link held by a FIXED joint off its mass centre (a cantilever) and a link
    hanging at rest from a REVOLUTE joint; the joint's reaction balances gravity: force
    -m g, moment -(X0 - P) x m g about the joint centre."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/react')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    g = np.array([0.0, 0.0, -9.81])
    api.GRAVITY(sol, tuple(g))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    arm = api.BODY(sol, 'RIGID', api.SPHERE((1.0, 0.5, 0), 0.2, 1, 1), mat)
    bob = api.BODY(sol, 'RIGID', api.SPHERE((5, 0, -1), 0.2, 1, 1), mat)
    fixed = api.JOINT('FIXED', None, arm, (0, 0, 0))
    hinge = api.JOINT('REVOLUTE', None, bob, (5, 0, 0), (0, 1, 0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.05)
    weight = arm.mass * g
    # round-off of the weight (|m g| 1e-12) also bounds the components that must be zero
    # (one run gave 5.5e-17 for a zero x component)
    tol = {"rtol": 1e-12, "atol": 1e-12 * np.linalg.norm(weight)}
    np.testing.assert_allclose(fixed.reaction[0:3], -weight, **tol)
    np.testing.assert_allclose(fixed.reaction[3:6], -np.cross((1.0, 0.5, 0), weight), **tol)
    np.testing.assert_allclose(hinge.reaction[0:3], -bob.mass * g, rtol=1e-12,
                               atol=1e-12 * bob.mass * np.linalg.norm(g))
    np.testing.assert_allclose(hinge.reaction[3:6], 0.0, atol=1e-12)
    assert bob.conf[9:12] == pytest.approx((5, 0, -1), abs=1e-14)      # it stays at rest


def test_pendulum_tension(api):
    """A point mass released from the horizontal on a revolute joint: the joint pulls along
    the rod with 3 m g cos(theta) (energy conservation, theta from the downward vertical)
    and nothing across it."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/tension')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    bob = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0), 0.05, 1, 1), mat)
    api.BODY_CHARS(bob, 2.0, 1.0, (1, 0, 0), (1e-9, 0, 0, 0, 1e-9, 0, 0, 0, 1e-9))
    hinge = api.JOINT('REVOLUTE', None, bob, (0, 0, 0), (0, 1, 0))
    worst, previous = [0.0], [np.array([1.0, 0, 0])]

    def watch():
        x = np.array(bob.conf[9:12])
        mid = x + previous[0]              # the reaction is that of the mid-step configuration
        previous[0] = x
        rod = mid / np.linalg.norm(mid)
        force = np.array(hinge.reaction[0:3])
        tension = 3 * 2.0 * 9.81 * (-rod[2])
        worst[0] = max(worst[0], abs(-force @ rod - tension), np.linalg.norm(force + (force @ -rod) * rod))
        return 1

    api.CALLBACK(sol, 1e-3, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.6)
    # mean motion of the step at its mid configuration: O(h^2); measured 9.6e-5 N of the peak
    # tension 59 N
    print(f"\nworst tension / transverse force error {worst[0]:.3g} N")
    assert worst[0] < 1e-3, worst[0]


@pytest.mark.slow
def test_driven_cart_swings_its_pendulum(api):
    """A cart on a PRISMATIC joint driven along x by a TIME_SERIES x_d(t) = A (1 - cos W t)
    carries a point-mass pendulum (REVOLUTE, length L). The cart's coordinate must follow
    the drive exactly (placed on it every step) and the swing obey the pendulum on a moving
    support, theta'' = -(g sin theta + x_d'' cos theta) / L, integrated by scipy (rtol 1e-10):
    agreement to the scheme's O(h^2) (measured 2.1e-6 rad at h = 1 ms, 8.4e-6 at 2 ms: ratio
    4.0; bound 2e-5 rad)."""
    from scipy.integrate import solve_ivp

    A, W, L, g, h, T = 0.1, 6.0, 1.0, 9.81, 1e-3, 1.0
    sol = api.SOLFEC('DYNAMIC', h, 'out/drive')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -g))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    cart = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.05, 1, 1), mat)
    bob = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, -L), 0.05, 1, 1), mat)
    api.BODY_CHARS(bob, 1.0, 1.0, (0, 0, -L), (1e-9, 0, 0, 0, 1e-9, 0, 0, 0, 1e-9))
    knots = np.arange(0.0, T + 0.1, h)
    series = api.TIME_SERIES([v for t in knots for v in (t, A * (1 - math.cos(W * t)))])
    slide = api.JOINT('PRISMATIC', None, cart, (0, 0, 0), (1, 0, 0), drive=series, label='rail')
    swing = api.JOINT('REVOLUTE', cart, bob, (0, 0, 0), (0, 1, 0))
    rows = []
    api.CALLBACK(sol, h, (), lambda: rows.append((sol.time, slide.q[0], swing.q[0])) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), T)
    t, x, q = np.array(rows).T
    np.testing.assert_allclose(x, np.interp(t, knots, A * (1 - np.cos(W * knots))), rtol=0, atol=1e-12)
    # REVOLUTE about +y: q > 0 turns the bob from -z towards -x, i.e. theta = -q (towards +x)
    ode = solve_ivp(lambda s, y: (y[1], -(g * math.sin(y[0]) + A * W * W * math.cos(W * s) * math.cos(y[0])) / L),
                    (0, t[-1]), (0.0, 0.0), t_eval=t, rtol=1e-10, atol=1e-12)
    err = np.abs(-q - ode.y[0]).max()
    print(f"\ndriven cart: |theta - ODE| = {err:.3g} rad (swing {np.abs(q).max():.3g} rad)")
    assert np.abs(q).max() > 0.05 and err < 2e-5


@pytest.mark.slow
def test_limit_on_a_ball_joint(api):
    """The point mass of test_limit_stops_a_falling_pendulum on a SPHERICAL joint, its
    rotation vector limited to theta_y <= 0.5 (the swing): it falls as on the hinge, never
    passes the bound and rests on it (inelastic stop: the rate of theta_y held at zero,
    theta_y placed on the bound), the joint holding the weight. Also J_r^-1 of limits.py
    against finite differences."""
    from scipy.spatial.transform import Rotation

    from solfec_py.bodies.articulated.limits import right_jacobian_inverse

    rng = np.random.default_rng(3)
    theta, omega, eps = 0.5 * rng.normal(size=3), rng.normal(size=3), 1e-6     # |theta| < pi
    R = Rotation.from_rotvec(theta).as_matrix()
    step = lambda s: Rotation.from_matrix(R @ Rotation.from_rotvec(s * omega).as_matrix()).as_rotvec()
    np.testing.assert_allclose((step(eps) - step(-eps)) / (2 * eps), right_jacobian_inverse(theta) @ omega,
                               atol=1e-8)
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/balllimit')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    bob = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0), 0.05, 1, 1), mat)
    api.BODY_CHARS(bob, 2.0, 1.0, (1, 0, 0), (1e-9, 0, 0, 0, 1e-9, 0, 0, 0, 1e-9))
    ball = api.JOINT('SPHERICAL', None, bob, (0, 0, 0), limits=((-1.0, 1.0), (-1.0, 0.5), (-1.0, 1.0)))
    swing = []
    api.CALLBACK(sol, 1e-3, (), lambda: swing.append(
        Rotation.from_matrix(np.array(ball.q).reshape(3, 3).T).as_rotvec()[1]) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.6)
    swing = np.array(swing)
    print(f"\nball limit: max theta_y - 0.5 = {swing.max() - 0.5:.3g}, end {swing[-1] - 0.5:.3g}")
    first = int(np.argmax(swing > 0.5 - 1e-9))
    assert 0 < first < 500 and swing.max() <= 0.5 + 1e-12 and np.all(np.abs(swing[first:] - 0.5) < 1e-9)
    assert np.abs(ball.dq).max() < 1e-6
    x = np.array(bob.conf[9:12])
    weight = 2.0 * np.array([0, 0, -9.81])
    np.testing.assert_allclose(ball.reaction[0:3], -weight, atol=1e-6)
    np.testing.assert_allclose(ball.reaction[3:6], -np.cross(x, weight), atol=1e-6)
