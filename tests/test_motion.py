"""Composed prescribed motions (solfec_py.motion) and PRESCRIBED_MOTION: analytic velocities
and accelerations against central finite differences of the positions (errors O(dt^2):
the error must drop by 4 +- 0.05 when dt halves, measured 4.000), rotations
that fix their axis, and the argument errors of the deck command. The deck behaviour is
checked by inputs/vibrating_plate.py."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py import motion as M
from solfec_py.errors import InputError, InputTypeError
from solfec_py.timeseries import TimeSeries


def composed():
    spin = M.Rotation((0.2, -0.1, 0.3), (1, 2, 2), M.Sine(0.7, 0.8, 0.3, 0.1))
    slide = M.Translation((1, -1, 0.5), M.Linear(0.2, 0.5))
    swing = M.Rotation((0, 0, 1), (0, 0, 1), M.Sine(0.4, 1.3))
    return M.Composed([spin, slide, swing])


MOTIONS = {"rotation": lambda: M.Rotation((1, 2, 3), (0, 1, 1), M.Sine(1.2, 0.5, 0.4)),
           "translation": lambda: M.Translation((3, 0, 4), M.Sine(0.3, 2.0, 0.0, 1.0)),
           "composed": composed}
X = np.array([0.3, -0.7, 1.1])


def _fd_errors(motion, t, dt):
    x = [motion.point(X, t + k * dt) for k in (-1, 0, 1)]
    v_fd = (x[2] - x[0]) / (2 * dt)
    a_fd = (x[2] - 2 * x[1] + x[0]) / dt ** 2
    return (np.abs(v_fd - motion.point_velocity(X, t)).max(), np.abs(a_fd - motion.point_acceleration(X, t)).max())


@pytest.mark.parametrize("name", sorted(MOTIONS))
def test_velocity_and_acceleration_match_finite_differences(name):
    motion = MOTIONS[name]()
    for t in (0.0, 0.37, 1.9):
        e1 = np.array(_fd_errors(motion, t, 1e-3))
        e2 = np.array(_fd_errors(motion, t, 5e-4))
        assert (e1 < 1e-3).all()                     # ~ dt^2 |d3x/dt3| / 6, |d3x/dt3| ~ 1e2
        exact = e1 < 1e-12                           # a constant-rate slide: FD exact to round-off
        assert np.all(exact | (np.abs(e1 / np.maximum(e2, 1e-300) - 4.0) < 0.05)), (t, e1, e2)


def test_body_state_velocity_is_consistent():
    # the referential angular velocity R^T w and the centre velocity of body_state against
    # finite differences of the body's rotation and centre
    motion, X0, t, dt = composed(), np.array([[0.5, 0.1, -0.2]]), 0.8, 1e-4
    q = [M.body_state(motion, X0, t + k * dt)[0][0] for k in (-1, 1)]
    conf, velo = M.body_state(motion, X0, t)
    R = conf[0, :9].reshape(3, 3).T
    dR = (q[1][:9] - q[0][:9]).reshape(3, 3).T / (2 * dt)
    W = R.T @ dR
    # central differences with dt = 1e-4: O(dt^2) ~ 1e-7 here
    np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], velo[0, :3], atol=1e-6)
    np.testing.assert_allclose((q[1][9:] - q[0][9:]) / (2 * dt), velo[0, 3:], atol=1e-6)
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-14)


def test_rotation_fixes_its_axis_and_composition_order():
    rot = M.Rotation((1, 2, 3), (0, 0, 1), M.Linear(0.0, 1.0))
    p = np.array([1.0, 2.0, 7.0])                         # on the axis
    np.testing.assert_allclose(rot.point(p, 0.9), p, atol=1e-15)
    np.testing.assert_allclose(rot.point_velocity(p, 0.9), 0.0, atol=1e-15)
    np.testing.assert_allclose(rot.angular_velocity(0.4), (0, 0, 1), atol=1e-15)
    slide = M.Translation((1, 0, 0), M.Linear(0.0, 2.0))
    # first rotate, then slide: the slide is not rotated; the other way round it is
    np.testing.assert_allclose(M.Composed([rot, slide]).point(p, 1.0), p + (2, 0, 0), atol=1e-14)
    q = np.array([1.0, 2.0, 3.0])
    R = rot.kinematics(1.0)[0]
    np.testing.assert_allclose(slide.then(rot).point(q, 1.0), q + R @ (2, 0, 0), atol=1e-14)


def test_time_series_function_moves_with_its_slope():
    f = M.Series(TimeSeries([0.0, 1.0, 2.0], [0.0, 2.0, 1.0]))
    assert f.values(0.5) == (1.0, 2.0, 0.0) and f.values(1.5) == (1.5, -1.0, 0.0)


# ---------------------------------------------------------------------- deck command
def _model(api, kind="OBSTACLE", analysis="DYNAMIC"):
    sol = api.SOLFEC(analysis, 1e-3, "out/pm")
    body = api.BODY(sol, kind, api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol, density=1.0))
    body.sol = sol
    return body


def test_prescribed_motion_drives_an_obstacle(api):
    # rotation by 0.5 sin(2 pi t) about z through the origin, then sliding at 2 along x:
    # after the run the state is the motion's at the final time (to round-off)
    body = _model(api)
    api.PRESCRIBED_MOTION(body, [("ROTATION", (0, 0, 0), (0, 0, 1), ("SINE", 0.5, 1.0)),
                                 ("TRANSLATION", (1, 0, 0), ("LINEAR", 0.0, 2.0))])
    sol = body.sol
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 0.25)
    t = sol.time
    assert body.conf[9] == pytest.approx(2.0 * t, abs=1e-14)
    c = np.cos(0.5 * np.sin(2 * np.pi * t))
    assert body.conf[0] == pytest.approx(c, abs=1e-14)
    assert body.velo[3] == pytest.approx(2.0, abs=1e-14)
    assert body.velo[2] == pytest.approx(0.5 * 2 * np.pi * np.cos(2 * np.pi * t), abs=1e-12)


@pytest.mark.parametrize("motion, error, text", [
    (("SPIN", (0, 0, 1), 1.0), InputError,
     r"Invalid motion kind 'SPIN'; expected one of \['ROTATION', 'TRANSLATION'\]"),
    (("TRANSLATION", (0, 0, 0), 1.0), InputError, r"'motion\[1\]' must be a non-zero finite direction"),
    (("TRANSLATION", (0, 0, 1)), InputError,
     r"'motion' must be \('TRANSLATION', direction, distance\): 3 items, got 2"),
    (("ROTATION", (0, 0), (0, 0, 1), 1.0), InputError, r"'motion\[1\]' must have 3 elements, got 2"),
    (("TRANSLATION", [0, 0, 1], 1.0), InputTypeError, r"'motion\[1\]' must be a tuple of 3 numbers"),
    (("TRANSLATION", (0, 0, 1), "fast"), InputTypeError, r"'motion\[2\]' must be a number, a TIME_SERIES"),
    (("TRANSLATION", (0, 0, 1), ("COS", 1.0, 2.0)), InputError, r"Invalid time function 'COS'"),
    (("TRANSLATION", (0, 0, 1), ("SINE", 1.0)), InputError, r"'motion\[2\]' must be \('SINE', amplitude, frequency"),
    (("TRANSLATION", (0, 0, 1), ("SINE", 1.0, -2.0)), InputError,
     r"'motion\[2\]\[2\]' \(frequency\) must be non-negative"),
    (("TRANSLATION", (0, 0, 1), ("LINEAR", 1.0, "x")), InputTypeError, r"'motion\[2\]\[2\]' must be a number"),
    ([], InputError, r"'motion' must hold at least one"),
    ([("TRANSLATION", (0, 0, 1), 1.0), 3], InputTypeError, r"'motion\[1\]' must be a \('ROTATION'"),
    ("ROTATION", InputTypeError, r"'motion' must be a \('ROTATION', point, direction, angle\) or"),
])
def test_prescribed_motion_argument_errors(api, motion, error, text):
    body = _model(api)
    with pytest.raises(error, match=text):
        api.PRESCRIBED_MOTION(body, motion)


def test_prescribed_motion_needs_a_dynamic_obstacle(api):
    with pytest.raises(InputError, match=r"'body' must be an OBSTACLE body to follow a PRESCRIBED_MOTION, got a"
                                         r" RIGID body \(id 1\)"):
        api.PRESCRIBED_MOTION(_model(api, "RIGID"), ("TRANSLATION", (0, 0, 1), 1.0))
    with pytest.raises(InputError, match="needs a DYNAMIC analysis"):
        api.PRESCRIBED_MOTION(_model(api, analysis="QUASI_STATIC"), ("TRANSLATION", (0, 0, 1), 1.0))
    with pytest.raises(InputTypeError, match="'body' must be a BODY object"):
        api.PRESCRIBED_MOTION(3, ("TRANSLATION", (0, 0, 1), 1.0))


def test_prescribed_obstacle_cannot_carry_constraints(api):
    body = _model(api)
    api.PRESCRIBED_MOTION(body, ("TRANSLATION", (0, 0, 1), ("LINEAR", 0.0, 1.0)))
    api.FIX_POINT(body, (0, 0, 0))
    with pytest.raises(InputError, match=r"body 1 uses the scheme PRESCRIBED, which cannot couple with its FIXPNT"
                                         r" constraint 1 \(FIX_POINT"):
        api.RUN(body.sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 0.01)
