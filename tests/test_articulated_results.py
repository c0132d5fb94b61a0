"""Joint trees in the results store: every link carries its parent joint's coordinates,
rates and reaction with each frame (the rigid block's carried scheme state), so that a
continued run (-c) equals the uninterrupted one bit for bit, HISTORY takes JOINTs as
entities and READ mode shows joint.q / dq / reaction of the frame it seeks."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from solfec_py.cli import main
from solfec_py.errors import InputError
from solfec_py.output import frames

from conftest import stored

ARM = """\
args = NON_SOLFEC_ARGV()
out, stop_at = args[0], float(args[1]) if len(args) > 1 else None
sol = SOLFEC('DYNAMIC', 1E-3, out)
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3, restitution=0.2)
mat = BULK_MATERIAL(sol, density=1000.0)
BODY(sol, 'OBSTACLE', HULL([v for x in (-3, 3) for y in (-1, 1) for z in (-1, 0.2) for v in (x, y, z)], 1, 1), mat)
nodes = [v for z in (0.95, 1.05) for (x, y) in ((-0.05, -0.05), (1.05, -0.05), (1.05, 0.05), (-0.05, 0.05))
         for v in (x, y, z)]
upper = BODY(sol, 'RIGID', HEX(nodes, 1, 1, 1, 1, [1] * 6), mat)
ball = BODY(sol, 'RIGID', SPHERE((1.5, 0.05, 1), 0.1, 1, 1), mat)
shoulder = JOINT('REVOLUTE', None, upper, (0, 0, 1), (0, 1, 0), label='shoulder', damper=0.5)
elbow = JOINT('UNIVERSAL', upper, ball, (1, 0, 1), (0, 1, 0), (0, 0, 1), label='elbow')
OUTPUT(sol, 0.01)
def cb():
    return 0 if stop_at is not None and sol.time >= stop_at - 1e-9 else 1
CALLBACK(sol, 0.01, (), cb)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 1000), 0.42)
"""


def _stored(path):
    f = stored(path)
    table, cols = f.table, f.column_names
    state, carry, cons = f.read_all("state/rigid"), f.read_all("carry/rigid"), f.read_all("constraints")
    keep = [i for i, c in enumerate(cols) if c not in frames.TIMERS and not c.endswith("OFF")]
    return table[:, keep], state, carry, cons


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["ARTICULATED", "GEN_ALPHA", "RK4"])
def test_continued_tree_run_is_bit_identical(tmp_path, scheme):
    """An arm (shoulder REVOLUTE with a damper, elbow UNIVERSAL) swinging onto an obstacle:
    run to 0.42 s at once, and to 0.37 s (the ball pressed on the obstacle: the constraint
    part of the next predictor, `held`, is not zero; GEN_ALPHA: the carried accelerations)
    then continued with -c: frames, link states, carried joint states and constraints
    (contacts) are identical (RK4: one-step, its state is the joints' q and dq)."""
    deck = tmp_path / "arm.py"
    links = f"upper.scheme = '{scheme}'\nball.scheme = '{scheme}'\n" if scheme != "ARTICULATED" else ""
    at = "OUTPUT(sol" if scheme == "RK4" else "shoulder = JOINT"      # RK4 is set on links, after JOINT
    deck.write_text(textwrap.dedent(ARM).replace(at, links + at))
    assert main(["--no-progress", str(deck), "out/straight"]) == 0
    assert main(["--no-progress", str(deck), "out/split", "0.37"]) == 0
    carry = stored(tmp_path / "out/split").read_all("carry/rigid")
    shoulder = carry[-2:][carry[-2:, 0] == 2][0]           # the upper arm (body 2) carries the shoulder
    assert abs(shoulder[3 + 8]) > 0.1                       # its held / ud (after q, dq, reaction): not zero
    assert main(["--no-progress", "-c", str(deck), "out/split"]) == 0
    a = _stored(tmp_path / "out/straight")
    b = _stored(tmp_path / "out/split")
    assert a[0].shape[0] == 43 and a[2].shape == (84, 21)      # 42 frames after frame 0, 2 links each
    assert a[3].shape[0] > 0                                    # the ball hit the obstacle
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def arm(api, path):
    sol = api.SOLFEC('DYNAMIC', 1e-3, path)
    sol.verbose = 'OFF'
    api.GRAVITY(sol, (0, 0, -9.81))
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    upper = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 1), 0.1, 1, 1), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1.5, 0.05, 1), 0.1, 1, 1), mat)
    shoulder = api.JOINT('REVOLUTE', None, upper, (0, 0, 1), (0, 1, 0), label='shoulder')
    elbow = api.JOINT('SPHERICAL', upper, ball, (1, 0, 1), label='elbow')
    api.OUTPUT(sol, 0.01)
    return sol, shoulder, elbow


ITEMS = (("shoulder", "Q"), ("shoulder", "DQ1"), ("shoulder", "FZ"), ("shoulder", "MY"), ("elbow", "Q1"),
         ("elbow", "Q6"), ("elbow", "DQ2"), ("elbow", "MX"))


def _live(joint, entity):
    if entity[0] in "FM":
        return joint.reaction[("FX", "FY", "FZ", "MX", "MY", "MZ").index(entity)]
    name = entity.rstrip("0123456789")
    k = int(entity[len(name):] or 1) - 1
    return (joint.q if name == "Q" else joint.dq)[k]


def test_joint_history_and_read_mode(api):
    """HISTORY of joint entities and joint.q / dq / reaction after SEEK in READ mode equal
    the values the run showed at the same times (stored as computed, so exactly)."""
    sol, shoulder, elbow = arm(api, 'out/jh')
    joints = {"shoulder": shoulder, "elbow": elbow}
    seen = {}

    def watch():
        seen[round(sol.time, 6)] = [_live(joints[j], e) for j, e in ITEMS]
        return 1

    api.CALLBACK(sol, 1e-3, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 0.2)
    sol, shoulder, elbow = arm(api, 'out/jh')
    joints = {"shoulder": shoulder, "elbow": elbow}
    assert sol.mode == 'READ'
    out = api.HISTORY(sol, [(joints[j], e) for j, e in ITEMS], 0, 0.2)
    times, values = out[0], np.array(out[1:]).T
    assert len(times) >= 19 and times[0] == 0.0
    np.testing.assert_array_equal(values[0], [0, 0, 0, 0, 1, 0, 0, 0])    # frame 0: creation state
    for t, row in zip(times[1:], values[1:]):
        np.testing.assert_array_equal(row, seen[round(t, 6)])
    assert np.ptp(values[:, 0]) > 0.1 and np.abs(values[:, 2]).max() > 1.0   # it swung, the joint pulled
    api.SEEK(sol, 0.1)
    t = round(sol.time, 6)
    assert [_live(joints[j], e) for j, e in ITEMS] == seen[t]
    with pytest.raises(InputError, match="JOINT 'shoulder' has 1 coordinate .*got 'Q2'"):
        api.HISTORY(sol, [(shoulder, 'Q2')], 0, 0.2)
    with pytest.raises(InputError, match="Invalid entity kind: CX"):
        api.HISTORY(sol, [(shoulder, 'CX')], 0, 0.2)
