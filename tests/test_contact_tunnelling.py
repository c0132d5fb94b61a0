"""Tunnelling: a body that passes through another within one step is reported with both
bodies and the time (SOLFEC.tunnelling 'WARN'), stops the run ('STOP') or is let through
('OFF', as Solfec-1.0). References: the kinematics of the falling bodies (a box at 100 m/s
moves 0.1 m a step against a 0.05 m floor; a ball at 1000 m/s moves 1 m a step), and
settling runs in which nothing passes through anything (no report)."""
from __future__ import annotations

import json

import pytest

from solfec_py.cli import main

from conftest import stored, write_deck

FLOOR = "[-3,-3,-T, 3,-3,-T, 3,3,-T, -3,3,-T, -3,-3,0, 3,-3,0, 3,3,0, -3,3,0]"
CUBE = "[0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]"

# a 0.5 m box at 100 m/s onto a 0.05 m floor, a stiff penalty contact (PENALTY_SOLVER)
BOX = f"""\
import json
args = NON_SOLFEC_ARGV()
sol = SOLFEC('DYNAMIC', 1E-3, 'out/box')
sol.verbose = 'OFF'
if args[0] != 'default':
    sol.tunnelling = args[0]
GRAVITY(sol, (0, 0, -9.81))
SURFACE_MATERIAL(sol, model='SPRING_DASHPOT', spring=1E9, dashpot=0.0, friction=0.0)
mat = BULK_MATERIAL(sol, density=1E3)
BODY(sol, 'OBSTACLE', HULL({FLOOR.replace('T', '0.05')}, 1, 1), mat, label='floor')
box = BODY(sol, 'RIGID', TRANSLATE(SCALE(HEX({CUBE}, 1, 1, 1, 1, [2]*6), (0.5, 0.5, 0.5)), (-0.25, -0.25, 0.2)),
           mat, label='box')
INITIAL_VELOCITY(box, (0, 0, -100), (0, 0, 0))
try:
    RUN(sol, PENALTY_SOLVER(), 0.3)
finally:
    json.dump([sol.time, box.conf[11]], open('end.json', 'w'))
"""


def test_a_box_through_a_stiff_penalty_floor_is_reported_once(tmp_path, capsys):
    """Default 'WARN': one warning naming the box, the floor and the step (the box's bottom,
    0.2 m above the floor at 100 m/s, is 0.15 m into the 0.05 m floor at the middle of step
    [0.003, 0.004]); the run goes on, as Solfec's would, and the box ends far below."""
    deck = write_deck(tmp_path / "box.py", BOX)
    assert main([deck, "default"]) == 0
    err = capsys.readouterr().err
    assert err.count("passed through") == 1
    assert "body 2 ('box') passed through body 1 ('floor') between t = 0.003 and 0.004: their contact gap is" in err
    assert "SOLFEC.tunnelling = 'STOP'" in err
    t, z = json.load(open(tmp_path / "end.json"))
    assert z < -10.0                                    # through the floor: what the warning is about


def test_tunnelling_stop_ends_the_run_at_the_step(tmp_path, capsys):
    deck = write_deck(tmp_path / "box.py", BOX)
    assert main([deck, "STOP"]) == 1
    err = capsys.readouterr().err
    assert "box.py:15: body 2 ('box') passed through body 1 ('floor') between t = 0.003 and 0.004" in err
    t, z = json.load(open(tmp_path / "end.json"))
    assert t == pytest.approx(0.003, abs=1e-12) and z > -0.2      # stopped in the floor, not 630 m below
    assert stored(tmp_path / "out/box").nframes == 4                # frames 0 ... 0.003 stay readable


def test_tunnelling_off_is_silent(tmp_path, capsys):
    deck = write_deck(tmp_path / "box.py", BOX)
    assert main([deck, "OFF"]) == 0
    assert "passed through" not in capsys.readouterr().err


# a 0.05 m ball at 1000 m/s: 1 m a step, through the 0.05 m floor between two detections
# without ever touching it; a second ball at the floor's corner flies past its edge
FAST = f"""\
args = NON_SOLFEC_ARGV()
sol = SOLFEC('DYNAMIC', 1E-3, 'out/fast')
sol.verbose = 'OFF'
sol.tunnelling = args[0]
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
mat = BULK_MATERIAL(sol, density=1E3)
BODY(sol, 'OBSTACLE', HULL({FLOOR.replace('T', '0.05')}, 1, 1), mat, label='floor')
if args[1] == 'through':
    ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0.6), 0.05, 1, 2), mat, label='ball')
    INITIAL_VELOCITY(ball, (0, 0, -1000), (0, 0, 0))
past = BODY(sol, 'RIGID', SPHERE((2.9, 2.9, 0.6), 0.05, 1, 2), mat, label='past')
INITIAL_VELOCITY(past, (0, 600, -1000), (0, 0, 0))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 100), 0.003)
"""


def test_a_ball_that_jumps_through_the_floor_without_a_contact(tmp_path, capsys):
    """Detections at z = 0.1 and -0.9 (mid-steps): no contact ever; the path crosses the
    floor's box through its top and bottom faces. The ball beside it crosses the floor's
    plane at y = 3.5, outside the floor (|y| <= 3): not reported."""
    deck = write_deck(tmp_path / "fast.py", FAST)
    assert main([deck, "WARN", "through"]) == 0
    err = capsys.readouterr().err
    assert err.count("passed through") == 1
    assert ("body 2 ('ball') passed through body 1 ('floor') between t = 0.001 and 0.002: it moved 1 in one"
            " step, through the box of the other body from one side to the opposite one, without a contact") in err
    assert main(["-w", deck, "STOP", "through"]) == 1
    assert "fast.py:13: body 2 ('ball') passed through body 1 ('floor')" in capsys.readouterr().err
    assert main(["-w", deck, "STOP", "past"]) == 0                  # the edge: no report
    assert "passed through" not in capsys.readouterr().err


SETTLE = f"""\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/settle')
sol.verbose = 'OFF'
sol.tunnelling = 'STOP'
GRAVITY(sol, (0, 0, -9.81))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3, restitution=0.5)
mat = BULK_MATERIAL(sol, density=1E3)
BODY(sol, 'OBSTACLE', HULL({FLOOR.replace('T', '1')}, 1, 1), mat, label='floor')
for i in range(4):
    b = BODY(sol, 'RIGID', TRANSLATE(SCALE(HEX({CUBE}, 1, 1, 1, 1, [2]*6), (0.2, 0.2, 0.2)), (i * 0.5 - 1, 0, 0.05 + 0.3 * i)),
             mat)
    INITIAL_VELOCITY(b, (1, 0, -2 * i), (0, 3, 0))
ball = BODY(sol, 'RIGID', SPHERE((1.5, 0, 0.5), 0.1, 1, 2), mat)
INITIAL_VELOCITY(ball, (0, 0, -100), (0, 0, 0))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 100), 0.3)
"""


def test_bouncing_and_settling_bodies_are_not_reported(tmp_path, capsys):
    """Cubes dropped and thrown onto a 1 m floor, a ball at 100 m/s (0.1 m a step, stopped
    by the Signorini contact within its first penetration): 'STOP' never fires."""
    deck = write_deck(tmp_path / "settle.py", SETTLE)
    assert main([deck]) == 0
    assert "passed through" not in capsys.readouterr().err


def test_tunnelling_attribute(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/attr")
    assert sol.tunnelling == "WARN"
    sol.tunnelling = "STOP"
    assert sol.tunnelling == "STOP"
    with pytest.raises(ValueError, match=r"tunnelling mode 'MAYBE'; expected one of \['WARN', 'STOP', 'OFF'\]"):
        sol.tunnelling = "MAYBE"
