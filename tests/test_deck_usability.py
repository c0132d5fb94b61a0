"""Smaller deck-level behaviours: EXTENTS uses the real bounding box, TIMING after RUN,
`runscript`, reading a deleted body, the BODY kinds a wrong kind lists, and "did you mean"
for misspelt deck names and keyword arguments."""
from __future__ import annotations

import pytest

from solfec_py.cli import main
from solfec_py.errors import InputError, InputTypeError, SolfecError

from conftest import write_deck

ROD = "[-5,-0.05,-0.05, 5,-0.05,-0.05, 5,0.05,-0.05, -5,0.05,-0.05, -5,-0.05,0.05, 5,-0.05,0.05, 5,0.05,0.05, -5,0.05,0.05]"


def test_extents_keeps_a_body_whose_bounding_box_is_inside(api):
    """A 10 x 0.1 x 0.1 rod: its circumscribed sphere (radius 5.0005) leaves the extents
    (-5.1, -1, -1, 5.1, 1, 1), its bounding box does not: it stays. A ball flying along x at
    10 m/s goes once its own box crosses x = 5.1 (centre beyond 5.0, radius 0.1)."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/extents')
    sol.verbose = 'OFF'
    mat = api.BULK_MATERIAL(sol, density=1.0)
    rod = api.BODY(sol, 'RIGID', api.HEX(eval(ROD), 1, 1, 1, 1, [1] * 6), mat, label='rod')
    ball = api.BODY(sol, 'RIGID', api.SPHERE((4.0, 0.5, 0), 0.1, 1, 1), mat, label='ball')
    api.INITIAL_VELOCITY(ball, (10, 0, 0), (0, 0, 0))
    api.CONTACT_EXCLUDE_BODIES(rod, ball)
    api.EXTENTS(sol, (-5.1, -1, -1, 5.1, 1, 1))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 100), 0.099)        # ball centre at 4.99
    assert not rod.deleted and not ball.deleted
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 100), 0.003)        # centre 5.02: box past 5.1
    assert ball.deleted and not rod.deleted
    assert [b.label for b in sol.bodies] == ['rod']


def test_reading_a_deleted_body_names_it(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/deleted')
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol), label='ball')
    api.DELETE(sol, ball)
    for name in ('conf', 'velo', 'mass', 'center', 'tensor'):
        with pytest.raises(InputTypeError, match=r"body 1 \('ball'\) was deleted at time 0"):
            getattr(ball, name)
    assert ball.id == 1 and ball.label == 'ball' and getattr(ball, 'mass', None) is None
    with pytest.raises(InputTypeError, match="recently deleted BODY"):
        api.DISPLACEMENT(ball, (0, 0, 0))


def test_timing_right_after_run(api):
    """Every step writes a frame here (no OUTPUT), so the phase timers were just reset: they
    exist and read 0.0 (seconds since the last stored frame)."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/timing')
    sol.verbose = 'OFF'
    api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol))
    with pytest.raises(InputError, match="Invalid timing kind"):
        api.TIMING(sol, 'TIMINT')                     # no timer before the first RUN
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 100), 0.005)
    for kind in ('TIMINT', 'CONUPD', 'CONDET', 'LOCDYN', 'CONSOL'):
        assert api.TIMING(sol, kind) == 0.0
    api.OUTPUT(sol, 1.0)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 100), 0.005)   # no frame due: time accumulates
    assert api.TIMING(sol, 'TIMINT') > 0.0


def test_body_kind_error_lists_available_kinds_only(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/kinds')
    with pytest.raises(InputError) as info:
        api.BODY(sol, 'RIGIDD', api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol))
    from solfec_py.bodies import BODY_KINDS
    available = sorted(k for k, spec in BODY_KINDS.items() if spec.block is not None)
    assert f"expected one of {available}" in str(info.value)
    assert "(did you mean 'RIGID'?)" in str(info.value)
    for kind, spec in BODY_KINDS.items():
        if spec.block is None:
            assert kind not in str(info.value)


def test_misspelt_keyword_gets_a_suggestion(api):
    with pytest.raises(InputTypeError, match=r"unexpected keyword argument 'failur' \(did you mean 'failure'\?\)"):
        api.GAUSS_SEIDEL_SOLVER(1e-4, 100, failur='EXIT')
    with pytest.raises(InputTypeError, match=r"missing a required argument: 'output' \(did you mean 'output'\?\)"):
        api.SOLFEC('DYNAMIC', 1e-3, outptu='out/x')
    with pytest.raises(InputTypeError, match=r"\(did you mean 'friction'\?\)"):
        api.SURFACE_MATERIAL(api.SOLFEC('DYNAMIC', 1e-3, 'out/kw'), fricton=0.5)


def test_misspelt_deck_name_gets_a_suggestion(tmp_path, capsys):
    deck = write_deck(tmp_path / "typo.py", """\
        sol = SOLFEC('DYNAMIC', 1E-3, 'out/typo')
        GRAVTY(sol, (0, 0, -10))
    """)
    assert main([deck, "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "typo.py:2: NameError: name 'GRAVTY' is not defined (did you mean 'GRAVITY'?)" in err
    deck = write_deck(tmp_path / "typo2.py", """\
        solfec = SOLFEC('DYNAMIC', 1E-3, 'out/typo2')
        print(solfce.mode)
    """)
    assert main([deck, "--no-progress"]) == 1
    assert "(did you mean 'solfec'?)" in capsys.readouterr().err


def test_runscript_runs_a_script_in_the_deck_namespace(tmp_path, capsys):
    """runscript('part arg'): 'part.py' runs with sys.argv == ['part.py', 'arg'] and sees and
    sets the deck's globals (Solfec's viewer helper); sys.argv is restored afterwards."""
    write_deck(tmp_path / "part.py", """\
        import sys
        ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0), float(sys.argv[1]), 1, 1), mat)
        print('part argv', sys.argv)
    """)
    deck = write_deck(tmp_path / "main.py", """\
        import sys
        sol = SOLFEC('DYNAMIC', 1E-3, 'out/runscript')
        mat = BULK_MATERIAL(sol)
        before = list(sys.argv)
        runscript('part 0.5')
        assert sys.argv == before
        print('radius', round(ball.volume / (4.18879020478639), 6))
        runscript('missing')
    """)
    assert main([deck, "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "part argv ['part.py', '0.5']" in captured.out
    assert "radius 0.125" in captured.out                 # (0.5)^3: the sphere of the script
    assert "main.py:8: runscript: cannot read 'missing.py'" in captured.err


def test_solfec_errors_keep_their_python_types():
    from solfec_py.bodies.base import DeletedBodyError
    assert issubclass(DeletedBodyError, (SolfecError, TypeError, AttributeError))
