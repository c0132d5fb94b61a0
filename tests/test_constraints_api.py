"""The CONSTRAINT type and the constraint commands (Solfec-1.0 user manual, constraints): kinds and attributes,
read-only rules, ids (newest first, recycled), DELETE, strength-based breaking, bodies
deleted under their constraints, and every argument check through the deck runner (error
type, the argument named, the deck line)."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from solfec_py.cli import main
from solfec_py.errors import InputError, InputTypeError

HEADER = """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/c')
mat = BULK_MATERIAL(sol, density=1.0)
b1 = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 1, 1, 1), mat)
b2 = BODY(sol, 'RIGID', SPHERE((3, 0, 0), 1, 1, 1), mat)
"""


@pytest.fixture
def model(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/c')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    b1 = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 1, 1, 1), mat)
    b2 = api.BODY(sol, 'RIGID', api.SPHERE((3, 0, 0), 1, 1, 1), mat)
    return sol, mat, b1, b2


def test_kinds_and_attributes(api, model):
    sol, mat, b1, b2 = model
    ts = api.TIME_SERIES([0, 0, 1, 2])
    made = {
        'FIXPNT': api.FIX_POINT(b1, (0.5, 0, 0)),
        'FIXDIR': api.FIX_DIRECTION(b1, (0, 0.5, 0), (0, 0, 2)),
        'VELODIR': api.SET_VELOCITY(b2, (3, 0, 0), (1, 0, 0), ts),
        'VELODIR3': api.SET_ACCELERATION3(b2, (3, 0.2, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1), (ts, ts, ts)),
        'RIGLNK': api.PUT_RIGID_LINK(b1, b2, (0.5, 0, 0), (2.5, 0, 0)),
        'SPRING': api.PUT_SPRING(b1, (0, 0, 0), b2, (3, 0, 0), lambda s, v: -s, (-1, 1)),
    }
    for kind, con in made.items():
        assert isinstance(con, api.CONSTRAINT) and con.kind == kind
        assert con.R == (0.0, 0.0, 0.0) and con.U == (0.0, 0.0, 0.0) and con.V == (0.0, 0.0, 0.0)
        assert con.area == 0.0 and con.matlab is None and con.spair is None
        assert len(con.base) == 9
    assert made['FIXPNT'].base == (1, 0, 0, 0, 1, 0, 0, 0, 1) and made['FIXPNT'].point == (0.5, 0, 0)
    # direction normalised and used as the third column; t1 = e_x x n / |.|, t2 = t1 x n
    assert made['FIXDIR'].base[6:] == (0.0, 0.0, 1.0)
    assert made['FIXDIR'].base[:3] == pytest.approx((0.0, -1.0, 0.0))
    assert made['RIGLNK'].point == (0.5, 0, 0, 2.5, 0, 0)
    assert made['RIGLNK'].base[6:] == pytest.approx((-1.0, 0.0, 0.0))     # n = (x1 - x2)/|x1 - x2|
    assert made['RIGLNK'].adjbod == (b1, b2) and made['FIXPNT'].adjbod is b1
    assert made['SPRING'].gap == 0.0 and made['RIGLNK'].gap == 0.0
    assert sol.ncon == 6 and [c.kind for c in sol.constraints] == list(reversed(list(made)))
    assert b1.ncon == 4 and b2.ncon == 4
    assert {c.kind for c in b1.constraints} == {'FIXPNT', 'FIXDIR', 'RIGLNK', 'SPRING'}


def test_constraint_cannot_be_made_or_written(api, model):
    sol, mat, b1, b2 = model
    with pytest.raises(RuntimeError, match="Only specific CONSTRAINT objects can be created"):
        api.CONSTRAINT()
    con = api.FIX_POINT(b1, (0, 0, 0))
    for name in ('kind', 'R', 'U', 'V', 'base', 'point', 'gap', 'merit', 'adjbod'):
        with pytest.raises(ValueError, match="Writing to a read-only member"):
            setattr(con, name, 1)


def test_delete_recycles_ids_and_clears_handles(api, model):
    sol, mat, b1, b2 = model
    c1 = api.FIX_POINT(b1, (0, 0, 0))
    c2 = api.FIX_POINT(b2, (3, 0, 0))
    c3 = api.FIX_POINT(b2, (3, 0.5, 0))
    assert (c1.id, c2.id, c3.id) == (1, 2, 3)
    api.DELETE(sol, c2)
    assert c2.kind is None and c2.R is None and c2.point is None and c2.adjbod is None
    assert sol.ncon == 2 and b2.ncon == 1 and c3 in b2.constraints
    api.DELETE(sol, c2)                                    # already gone: nothing happens
    c4 = api.PUT_RIGID_LINK(b1, None, (0, 0.5, 0), (0, 5, 0))
    assert c4.id == 2 and c4.kind == 'RIGLNK'             # the freed id is reused
    assert c2.kind is None                                 # the old handle stays dead
    assert [c.id for c in sol.constraints] == [2, 3, 1]


def test_rigid_link_variants_and_checks(api, model):
    sol, mat, b1, b2 = model
    b4 = api.BODY(sol, 'RIGID', api.SPHERE((1.5, 0, 0), 1, 1, 1), mat)     # overlaps b1
    glue = api.PUT_RIGID_LINK(b1, b4, (0.9, 0, 0), (0.9, 0, 0))
    assert glue.kind == 'FIXPNT' and glue.adjbod == (b1, b4)
    fixed = api.PUT_RIGID_LINK(None, b2, (3, 0, 5), (3, 0, 0.5))
    assert fixed.kind == 'RIGLNK' and fixed.adjbod is b2
    assert fixed.point == (3.0, 0.0, 0.5, 3.0, 0.0, 5.0)
    with pytest.raises(InputError, match="cannot both be None"):
        api.PUT_RIGID_LINK(None, None, (0, 0, 0), (1, 0, 0))
    with pytest.raises(InputTypeError, match="'body1' must be a BODY object or None"):
        api.PUT_RIGID_LINK(1, b2, (0, 0, 0), (3, 0, 0))
    other = api.SOLFEC('DYNAMIC', 1e-3, 'out/other')
    b3 = api.BODY(other, 'RIGID', api.SPHERE((0, 0, 0), 1, 1, 1), api.BULK_MATERIAL(other))
    with pytest.raises(InputError, match="Cannot link bodies from different domains"):
        api.PUT_RIGID_LINK(b1, b3, (0, 0, 0), (0, 0, 0))
    o1 = api.BODY(sol, 'OBSTACLE', api.SPHERE((0, 5, 0), 1, 1, 1), mat)
    o2 = api.BODY(sol, 'OBSTACLE', api.SPHERE((0, 8, 0), 1, 1, 1), mat)
    with pytest.raises(InputError, match="Cannot constrain an obstacle with the rigid link"):
        api.PUT_RIGID_LINK(o1, o2, (0, 5, 0), (0, 8, 0))


def test_overstressed_constraints_break(api, model):
    """A FIX_POINT holding a weight m g above its strength goes after the first step and the
    body falls freely from then on; a link pulled beyond its tensile strength too, while a
    strong one holds."""
    sol, mat, b1, b2 = model
    api.GRAVITY(sol, (0, 0, -10.0))
    weight = b1.mass * 10.0
    weak = api.FIX_POINT(b1, (0, 0, 0), weight / 2)
    strong = api.PUT_RIGID_LINK(b2, None, (3, 0, 0.5), (3, 0, 2), 2 * b2.mass * 10.0)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 1e-3)
    assert weak.kind is None and sol.ncon == 1 and b1.ncon == 0
    assert strong.kind == 'RIGLNK' and -strong.R[2] == pytest.approx(b2.mass * 10.0, rel=1e-8)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 9e-3)
    assert b1.velo[5] == pytest.approx(-10.0 * 9e-3, rel=1e-9)   # free fall after the break
    top = tuple((np.array(b1.conf[9:12]) + (0, 0, 2.0)).tolist())
    link = api.PUT_RIGID_LINK(b1, None, (0, 0, 0.5), top, b1.mass * 10.0 / 3)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 1e-3)    # stopping the fall breaks it
    assert link.kind is None


def test_deleted_body_takes_its_constraints(api, model):
    sol, mat, b1, b2 = model
    api.FIX_POINT(b1, (0, 0, 0))
    link = api.PUT_RIGID_LINK(b1, b2, (0.5, 0, 0), (2.5, 0, 0))
    keep = api.FIX_POINT(b2, (3, 0, 0))
    api.DELETE(sol, b1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 1e-3)
    assert link.kind is None and sol.ncon == 1 and keep.kind == 'FIXPNT' and b2.ncon == 1


def test_set_displacement_and_acceleration_series(api, model):
    """SET_DISPLACEMENT drives with the slope, SET_ACCELERATION with the running integral,
    both from TIME_SERIES (their values at the start are the targets before RUN)."""
    sol, mat, b1, b2 = model
    api.SET_DISPLACEMENT(b1, (0, 0, 0), (0, 0, 1), api.TIME_SERIES([0, 0, 1, 0.5]))
    api.SET_ACCELERATION(b2, (3, 0, 0), (1, 0, 0), api.TIME_SERIES([0, 2, 1, 2]))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 100), 0.1)
    assert b1.velo[5] == pytest.approx(0.5, rel=1e-12)
    assert b2.velo[3] == pytest.approx(0.2, rel=1e-9)
    assert b1.conf[11] == pytest.approx(0.05 - 0.5 * 1e-3 * 0.5, rel=1e-9)   # rest at t = 0


# --------------------------------------------------------------------------- deck errors
def run_deck(tmp_path, capsys, body):
    text = HEADER + textwrap.dedent(body)
    path = tmp_path / "deck.py"
    path.write_text(text)
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    line = len(text.rstrip("\n").splitlines())
    assert f"{path}:{line}: " in err, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("line, words", [
    ("FIX_POINT(b1, (5, 0, 0))", ["Point outside of domain", "'point'", "body 1"]),
    ("PUT_RIGID_LINK(b1, b2, (0, 0, 0), (9, 9, 9))", ["Point outside of domain", "'point2'"]),
    ("FIX_DIRECTION(b1, (0, 0, 0), (0, 0, 0))", ["'direction' must be a non-zero vector"]),
    ("SET_VELOCITY(b1, (0, 0, 0), (0.0, 0, 0), 1.0)", ["'direction' must be a non-zero vector"]),
    ("PUT_SPRING(b1, (0, 0, 0), b2, (3, 0, 0), 5.0, (-1, 1))", ["'function' must be callable"]),
    ("PUT_SPRING(b1, (0, 0, 0), b2, (3, 0, 0), abs, (1, 2))", ["'limits' must satisfy smin <= 0 <= smax"]),
    ("PUT_SPRING(b1, (0, 0, 0), b2, (3, 0, 0), abs, (-1, 1), update='CONV3')",
     ["Invalid update direction kind", "'CONV3'"]),
    ("PUT_SPRING(b1, (0, 0, 0), None, (3, 0, 0), abs, (-1, 1))", ["'body2' must be a BODY object"]),
    ("SET_DISPLACEMENT(b1, (0, 0, 0), (1, 0, 0), TIME_SERIES([0, 0, 1, 1, 0.5, 2]))",
     ["time instants must be increasing", "point 2"]),
    ("SET_ACCELERATION(b1, (0, 0, 0), (1, 0, 0), [0, 0, 1, 1])", ["'tms' must be a TIME_SERIES object"]),
    ("SET_VELOCITY(b1, (0, 0, 0), (1, 0, 0), 'fast')", ["'value' must be a number or a TIME_SERIES object"]),
    ("SET_VELOCITY3(b1, (0, 0, 0), (1, 0, 0, 2, 0, 0, 0, 0, 1), (1, 2, 3))", ["'base' must hold three independent"]),
    ("SET_DISPLACEMENT3(b1, (0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1), (TIME_SERIES([0, 0, 1, 1]), 1, 2))",
     ["'tms[1]' must be a TIME_SERIES object"]),
    ("FIX_POINT(b1, [0, 0, 0])", ["'point' must be a tuple"]),
    ("FIX_POINT('b1', (0, 0, 0))", ["'body' must be a BODY object"]),
    ("FIX_POINT(b1, (0, 0, 0), -1.0)", ["'strength' must be positive"]),
    ("FIX_DIRECTION(b1, (0, 0, 0), (1, 0, 0), b2)", ["'body2' and 'point2' must be given together"]),
])
def test_bad_arguments_name_the_argument_at_the_deck_line(tmp_path, capsys, line, words):
    err = run_deck(tmp_path, capsys, line + "\n")
    for w in words:
        assert w in err


def test_moving_obstacle_in_quasi_statics(tmp_path, capsys):
    err = run_deck(tmp_path, capsys, """\
        qs = SOLFEC('QUASI_STATIC', 1E-3, 'out/qs')
        ob = BODY(qs, 'OBSTACLE', SPHERE((0, 0, 0), 1, 1, 1), BULK_MATERIAL(qs))
        SET_VELOCITY(ob, (0, 0, 0), (1, 0, 0), 1.0)
    """)
    assert "Moving obstacles do not work in the quasi-static case" in err


def test_spring_function_returning_a_non_number_stops_the_run(tmp_path, capsys):
    err = run_deck(tmp_path, capsys, """\
        PUT_SPRING(b1, (0, 0, 0), b2, (3, 0, 0), lambda s, v: 'x', (-1, 1))
        RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 10), 1E-3)
    """)
    assert "PUT_SPRING 'function'" in err and "must return a number" in err


def test_exit_failure_stops_the_deck(tmp_path, capsys):
    err = run_deck(tmp_path, capsys, """\
        GRAVITY(sol, (0, 0, -10))
        PUT_RIGID_LINK(b1, b2, (0.5, 0, 0), (2.5, 0, 0))
        PUT_RIGID_LINK(b1, None, (0, 0, 0.5), (0, 0, 5))
        PUT_RIGID_LINK(b2, None, (3, 0, 0.5), (3, 1, 5))
        RUN(sol, GAUSS_SEIDEL_SOLVER(1E-14, 1, failure='EXIT'), 1E-3)
    """)
    assert "GAUSS_SEIDEL_SOLVER failed with error code DIVERGED" in err
