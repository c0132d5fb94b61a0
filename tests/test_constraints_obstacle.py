"""Two-body constraints with an OBSTACLE as one of the bodies: the obstacle holds its end
fixed (it takes no reaction, as in contacts), so a ball hung from an obstacle moves exactly
as one hung from a fixed spatial point (None). Checked against closed forms for every
two-body constraint kind: rigid link (pendulum period), glued points (FIXPNT, no motion),
slider (FIX_DIRECTION with body2: free motion across, none along), spring (period
2 pi sqrt(m/k)), in both argument orders."""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import record_vz_sign_changes

def model(api, name, gravity):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/' + name)
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -gravity))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    anchor = api.BODY(sol, 'OBSTACLE', api.SPHERE((0, 0, 1), 0.05, 1, 1), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 1), 0.05, 1, 1), mat)
    api.BODY_CHARS(ball, 1.0, 1.0, (1, 0, 1), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    return sol, anchor, ball


G4 = 4 * math.pi ** 2
PERIOD = 4 * math.sqrt(1 / G4) * 1.854074677301372   # 1.180341 s: l = 1, g = 4 pi^2, theta0 = 90 deg


@pytest.mark.parametrize("order", ["obstacle first", "obstacle second"])
def test_pendulum_hung_from_an_obstacle_has_the_exact_period(api, order):
    """Rigid link of length 1 from the obstacle's centre (0, 0, 1), g = 4 pi^2, released
    horizontally: period 4 sqrt(l/g) K(sin 45 deg) = 1.180341 s (the same pendulum hung from
    None is tested in test_constraints_dynamics.py); v_z sampled every step (h = 1e-3 =
    0.08 % of T), so 0.5 % is the tolerance. The obstacle does not move."""
    sol, anchor, ball = model(api, "pendulum_" + order.replace(" ", "_"), gravity=G4)
    if order == "obstacle first":
        api.PUT_RIGID_LINK(anchor, ball, (0, 0, 1), (1, 0, 1))
    else:
        api.PUT_RIGID_LINK(ball, anchor, (1, 0, 1), (0, 0, 1))
    crossings = record_vz_sign_changes(api, sol, ball)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 1000), 1.5)
    assert crossings[4] - crossings[0] == pytest.approx(PERIOD, rel=0.005)
    x = np.array(ball.conf[9:12])
    assert np.linalg.norm(x - (0, 0, 1)) == pytest.approx(1.0, abs=1e-9)   # the rod length
    assert anchor.conf[9:12] == (0.0, 0.0, 1.0) and anchor.velo == (0.0,) * 6


def overlapping(api, name):
    """A ball (centre (1, 0, 1)) inside a larger obstacle ball; contact between them off."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/' + name)
    sol.verbose = 'OFF'
    api.GRAVITY(sol, (0, 0, -9.81))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    anchor = api.BODY(sol, 'OBSTACLE', api.SPHERE((1, 0, 1.05), 0.2, 1, 1), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 1), 0.05, 1, 1), mat)
    api.CONTACT_EXCLUDE_BODIES(anchor, ball)
    return sol, anchor, ball


def test_points_glued_to_an_obstacle_do_not_move(api):
    """PUT_RIGID_LINK with coincident points glues the ball to the obstacle (a two-body
    FIXPNT): under gravity nothing moves (closed form: zero displacement; 1e-12 is round-off)."""
    sol, anchor, ball = overlapping(api, "glued")
    link = api.PUT_RIGID_LINK(anchor, ball, (1, 0, 1), (1, 0, 1))
    assert link.kind == 'FIXPNT'
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.1)
    assert api.DISPLACEMENT(ball, (1, 0, 1)) == pytest.approx((0, 0, 0), abs=1e-12)
    assert anchor.velo == (0.0,) * 6


def test_slider_guided_by_an_obstacle(api):
    """FIX_DIRECTION(obstacle, c, e_z, ball, c): the direction is the obstacle's (fixed), the
    point the ball's centre: no vertical motion under gravity, free motion across:
    x = 1 + v t exactly, z = 1 (1e-9: round-off over 200 steps)."""
    sol, anchor, ball = overlapping(api, "slider_guide")
    api.INITIAL_VELOCITY(ball, (1, 0, 0), (0, 0, 0))
    api.FIX_DIRECTION(anchor, (1, 0, 1), (0, 0, 1), ball, (1, 0, 1))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.2)
    assert ball.conf[9] == pytest.approx(1.0 + sol.time, abs=1e-9)
    assert ball.conf[11] == pytest.approx(1.0, abs=1e-9)
    assert anchor.conf[9:12] == (1.0, 0.0, 1.05) and anchor.velo == (0.0,) * 6


def test_slider_on_a_ball_held_by_an_obstacle_point(api):
    """FIX_DIRECTION(ball, c, e_z, obstacle, c) (the issue's form): the obstacle's point at
    the ball's centre may not move along the ball's e_z relative to the ball; from rest
    under gravity the ball therefore stays where it is (closed form: no motion)."""
    sol, anchor, ball = overlapping(api, "slider_point")
    api.FIX_DIRECTION(ball, (1, 0, 1), (0, 0, 1), anchor, (1, 0, 1))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.2)
    assert ball.conf[9:12] == pytest.approx((1, 0, 1), abs=1e-9)
    assert anchor.velo == (0.0,) * 6


@pytest.mark.parametrize("order", ["obstacle second", "obstacle first"])
def test_spring_anchored_to_an_obstacle(api, order):
    """A linear spring k = 400 (no damping, no gravity) between the obstacle and a unit mass
    stretched by 0.01: harmonic motion with period 2 pi sqrt(m/k) = 0.314159 s. Sampled
    every step (h = 1e-3 = 0.3 % of T): 1 % tolerance on the period; the obstacle stays put."""
    sol, anchor, ball = model(api, "spring_" + order.replace(" ", "_"), gravity=0.0)
    k = 400.0
    ends = [(anchor, (0, 0, 1)), (ball, (1, 0, 1))]
    if order == "obstacle second":
        ends.reverse()
    (b1, p1), (b2, p2) = ends
    api.PUT_SPRING(b1, p1, b2, p2, lambda stroke, velocity: -k * stroke, (-1, 1))
    ball.conf = ball.conf[:9] + (1.01, 0.0, 1.0)     # stretched by 0.01 along x
    crossings = record_vz_sign_changes(api, sol, ball, stop_after=3, component=3)   # v_x
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.7)
    period = 2 * math.pi * math.sqrt(1.0 / k)
    assert crossings[2] - crossings[0] == pytest.approx(period, rel=0.01)
    assert anchor.conf[9:12] == (0.0, 0.0, 1.0) and anchor.velo == (0.0,) * 6


def test_two_obstacles_cannot_be_constrained_together(api):
    sol, anchor, ball = model(api, "two_obstacles", 0.0)
    other = api.BODY(sol, 'OBSTACLE', api.SPHERE((2, 0, 1), 0.05, 1, 1), api.BULK_MATERIAL(sol))
    with pytest.raises(ValueError, match="obstacle"):
        api.FIX_DIRECTION(anchor, (0, 0, 1), (0, 0, 1), other, (2, 0, 1))
    with pytest.raises(ValueError, match="obstacle"):
        api.PUT_SPRING(anchor, (0, 0, 1), other, (2, 0, 1), lambda s, v: 0.0, (-1, 1))
