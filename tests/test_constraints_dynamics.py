"""Constrained motion over many steps: energy conservation of the mathematical pendulum over
10 periods (RIG_NEG, h = 1e-3; exact period of the large-amplitude pendulum by the complete elliptic integral), its period for every rigid scheme, a
spring-mass energy balance, and quasi-static prescribed motion and links."""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import record_vz_sign_changes, solfec_clock

G = math.pi ** 2
PERIOD = 4 * math.sqrt(1 / G) * 1.854074677301372       # 2.360682 s: 4 sqrt(l/g) K(sin 45 deg), the exact period


def pendulum(api, scheme='RIG_NEG', h=1e-3):
    sol = api.SOLFEC('DYNAMIC', h, 'out/pendulum_' + scheme)
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -G))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 1), 0.05, 1, 1), mat)
    api.BODY_CHARS(ball, 1.0, 1.0, (1, 0, 1), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    ball.scheme = scheme
    api.PUT_RIGID_LINK(ball, None, (1, 0, 1), (0, 0, 1))
    return sol, ball


def test_pendulum_energy_over_ten_periods(api):
    """Total energy (kinetic + m g (z - 1), pi^2 at release... 0 relative to the start)
    stays within 1 % of m g l = pi^2 over 10 periods; the period stays within 1 %."""
    sol, ball = pendulum(api)
    worst = [0.0]
    crossings = []
    prev = [0.0]

    def watch():
        total = api.ENERGY(sol)[0] + G * (ball.conf[11] - 1.0)
        worst[0] = max(worst[0], abs(total) / G)
        v = ball.velo[5]
        if v * prev[0] < 0:
            crossings.append(sol.time)
        prev[0] = v
        return 1

    api.CALLBACK(sol, 1e-3, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-3, 1000, failure='EXIT'), 10.3 * PERIOD)
    assert worst[0] < 0.01
    ten = crossings[40] - crossings[0]          # v_z changes sign 4 times per period
    assert ten / 10 == pytest.approx(PERIOD, rel=0.01)


@pytest.mark.parametrize("scheme", ['RIG_POS', 'RIG_NEG', 'RIG_IMP'])
def test_pendulum_period_for_each_scheme(api, scheme):
    sol, ball = pendulum(api, scheme)
    crossings = record_vz_sign_changes(api, sol, ball)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 1000), 3.0)
    # 4 sign changes of v_z per period; sampled every h = 1e-3 (0.04 % of T)
    assert crossings[4] - crossings[0] == pytest.approx(PERIOD, rel=0.005)
    x = np.array(ball.conf[9:12])
    assert np.linalg.norm(x - (0, 0, 1)) == pytest.approx(1.0, abs=1e-9)


def test_spring_energy_balance(api):
    """Mass on a spring against a pinned anchor: kinetic + k s^2 / 2 stays at m v0^2 / 2
    within (w h)^2 (leapfrog-type midpoint force), and the stroke stays inside the limits."""
    m, k, v0, h = 1.0, 400.0, 0.5, 1e-3
    sol = api.SOLFEC('DYNAMIC', h, 'out/spring')
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    anchor = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    api.FIX_POINT(anchor, (0, 0, 0))
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0), 0.1, 1, 1), mat)
    api.BODY_CHARS(ball, m, 1.0, (1, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    api.INITIAL_VELOCITY(ball, (0, v0, 0), (0, 0, 0))            # swings sideways: follower
    spring = api.PUT_SPRING(ball, (1, 0, 0), anchor, (0, 0, 0), lambda s, v: -k * s, (-0.5, 0.5))
    worst = [0.0]

    def watch():
        x = np.array(ball.conf[9:12])
        s = np.linalg.norm(x) - 1.0
        energy = api.ENERGY(sol, ball)[0] + 0.5 * k * s * s
        worst[0] = max(worst[0], abs(energy - 0.5 * m * v0**2) / (0.5 * m * v0**2))
        return 1

    api.CALLBACK(sol, h, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 2.0)
    w = math.sqrt(k / m)
    assert worst[0] < (w * h) ** 2 * 5
    assert -0.5 < spring.gap < 0.5


def test_quasi_static_prescribed_velocity_and_link(api):
    """Quasi-static: a SET_VELOCITY point moves by h v per step (U = v exactly); a body
    hanging on a rigid link under gravity keeps the link length (qs target U_N = 0)."""
    h = 0.01
    sol = api.SOLFEC('QUASI_STATIC', h, 'out/qs')
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -10))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    slider = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    api.SET_VELOCITY(slider, (0, 0, 0), (1, 0, 0), 2.0)
    api.FIX_DIRECTION(slider, (0, 0, 0), (0, 1, 0))
    api.FIX_DIRECTION(slider, (0, 0, 0), (0, 0, 1))
    hanging = api.BODY(sol, 'RIGID', api.SPHERE((5, 0, -1), 0.1, 1, 1), mat)
    link = api.PUT_RIGID_LINK(hanging, None, (5, 0, -1), (5, 0, 0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.1)
    n = len(solfec_clock(h, 0.1))         # Solfec's step count: 11 (ten 0.01 add up to less)
    assert slider.conf[9] == pytest.approx(n * h * 2.0, rel=1e-9)
    assert slider.conf[10] == pytest.approx(0.0, abs=1e-12) and slider.conf[11] == pytest.approx(0.0, abs=1e-12)
    assert hanging.conf[11] == pytest.approx(-1.0, abs=1e-9)
    assert -link.R[2] == pytest.approx(hanging.mass * 10, rel=1e-6)


def free_balls(api, n, h=1e-3):
    sol = api.SOLFEC('DYNAMIC', h, 'out/balls')
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    balls = []
    for i in range(n):
        p = (0.0, 3.0 * i, 0.0)
        b = api.BODY(sol, 'RIGID', api.SPHERE(p, 0.5, 1, 1), mat)
        api.BODY_CHARS(b, 1.0, 1.0, p, (1, 0, 0, 0, 1, 0, 0, 0, 1))
        balls.append(b)
    return sol, balls


def test_slider_follows_the_guide_body(api):
    """FIX_DIRECTION with body2: the motion of b2's point relative to b1 along x is fixed,
    so b2 takes b1's (prescribed) x velocity while keeping its own y velocity (the guide's
    inertia is made huge so that the slider reaction 3 m off its centre cannot turn it)."""
    sol, (guide, car) = free_balls(api, 2)
    api.BODY_CHARS(guide, 1.0, 1.0, (0, 0, 0), (1e15, 0, 0, 0, 1e15, 0, 0, 0, 1e15))
    api.SET_VELOCITY(guide, (0, 0, 0), (1, 0, 0), 0.5)
    api.FIX_DIRECTION(guide, (0, 0, 0), (0, 1, 0))
    api.FIX_DIRECTION(guide, (0, 0, 0), (0, 0, 1))
    api.INITIAL_VELOCITY(car, (0, 1.0, 0.2), (0, 0, 0))
    api.FIX_DIRECTION(guide, (0, 0, 0), (1, 0, 0), car, (0, 3, 0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.5)
    assert car.velo[3:6] == pytest.approx((0.5, 1.0, 0.2), abs=1e-9)
    assert car.conf[9] - guide.conf[9] == pytest.approx(0.0, abs=1e-9)
    assert car.conf[10] == pytest.approx(3.0 + 0.5, rel=1e-9)


def test_fixed_direction_spring_and_stroke_limit(api):
    """A spring with a fixed direction x measures the stroke along x only: a sideways
    velocity is not resisted, an x velocity oscillates at sqrt(k/m). A spring reaching its
    stroke limit while stretching acts as FIX_DIRECTION for that step, U_N = -V_N (NUMERICS
    §4.3): the stop reflects the motion elastically, so the ball comes back at -v."""
    k = 100.0
    sol, (a, b, c, d) = free_balls(api, 4)
    for body, p in ((a, (0, 0, 0)), (c, (0, 6, 0))):
        api.FIX_POINT(body, p)
    api.INITIAL_VELOCITY(b, (0.1, 0.0, 0.3), (0, 0, 0))
    spring = api.PUT_SPRING(b, (0, 3, 0), a, (0, 0, 0), lambda s, v: -k * s, (-1, 1), direction=(1, 0, 0))
    api.INITIAL_VELOCITY(d, (0, 1.0, 0), (0, 0, 0))
    limited = api.PUT_SPRING(d, (0, 9, 0), c, (0, 6, 0), lambda s, v: -0.001 * s, (-0.05, 0.05))
    t = 0.5
    strokes = []
    api.CALLBACK(sol, 1e-3, (), lambda: strokes.append(limited.gap) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), t)
    w = math.sqrt(k)
    assert b.conf[9] == pytest.approx(0.1 / w * math.sin(w * t), abs=2e-4)   # leapfrog phase
    assert b.conf[11] == pytest.approx(0.3 * t, rel=1e-9)                      # z free
    assert spring.gap == pytest.approx(b.conf[9], abs=1e-3 * 0.1)   # gap is from the mid-step
    assert max(strokes) <= 0.05 + 1e-3 * 1.0                    # overshoot below one step
    assert d.velo[4] == pytest.approx(-1.0, abs=1e-5)          # reflected (-0.001 s spring)

