"""The command line and deck runner: deck-line error messages, exit codes, NON_SOLFEC_ARGV,
__file__, the importable `solfec` module, and every deck in inputs/ runs."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from solfec_py.cli import main

from conftest import INPUTS, write_deck


def test_deck_error_reports_deck_line(tmp_path, capsys):
    deck = write_deck(tmp_path / "bad.py", """\
        sol = SOLFEC('DYNAMIC', 1E-3, 'out/bad')
        mat = BULK_MATERIAL(sol)

        sph = SPHERE((0, 0, 0), 1, 1, 1)
        BODY(sol, 'RIGD', sph, mat)
    """)
    assert main([deck]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"{deck}:5: ")
    assert "'RIGD'" in err and "RIGID" in err


@pytest.mark.parametrize("line, exc_word", [
    ("SOLFEC('DYNAMIC', -1E-3, 'out/x')", "'step' must be positive"),
    ("SOLFEC('DYNAMIC', '1E-3', 'out/x')", "'step' must be a number"),
    ("SOLFEC('STATIC', 1E-3, 'out/x')", "Invalid analysis kind 'STATIC'"),
    ("SOLFEC('DYNAMIC', 1E-3)", "SOLFEC: missing a required argument: 'output'"),
    ("HEX([0]*24, 2.0, 1, 1, 1, [1]*6)", "'i'"),
    ("GRAVITY(SOLFEC('DYNAMIC', 1E-3, 'out/x'), [0, 0, -9.8])", "'vector' must be a tuple"),
    ("FIX_POINT(None, (0, 0, 0))", "'body' must be a BODY object"),
    ("RENDER(None)", "'solfec' must be a SOLFEC object"),
    ("SIMPLIFIED_CRACK(None, (0, 0, 0), (1, 0, 0), (1, 2), 'TENSILE')", "'body' must be a BODY object"),
])
def test_cli_prints_message_at_line(tmp_path, capsys, line, exc_word):
    deck = write_deck(tmp_path / "d.py", "x = 1\n" + line + "\n")
    assert main([deck]) == 1
    err = capsys.readouterr().err
    assert f"{deck}:2: " in err
    assert exc_word in err
    assert "Traceback" not in err


def test_error_inside_helper_function_points_at_deck_call_site(tmp_path, capsys):
    deck = write_deck(tmp_path / "f.py", """\
        def make(sol):
            return SPHERE([0, 0, 0], 1, 1, 1)
        sol = SOLFEC('DYNAMIC', 1E-3, 'out/f')
        make(sol)
    """)
    assert main([deck]) == 1
    err = capsys.readouterr().err
    assert f"{deck}:2: " in err and "'center'" in err


def test_python_error_in_deck_is_reported_with_line(tmp_path, capsys):
    deck = write_deck(tmp_path / "n.py", "a = 1\nb = undefined_name + a\n")
    assert main([deck]) == 1
    assert f"{deck}:2: NameError" in capsys.readouterr().err


def test_syntax_error_has_line_and_caret(tmp_path, capsys):
    deck = write_deck(tmp_path / "s.py", "x = (1,\ny = 2 +\n")
    assert main([deck, "--legacy", "off"]) == 1
    err = capsys.readouterr().err
    assert f"{deck}:" in err and "^" in err


def test_non_solfec_argv_and_file(tmp_path, capsys):
    deck = write_deck(tmp_path / "a.py", """\
        import os
        print(NON_SOLFEC_ARGV(), os.path.basename(__file__), __name__, VIEWER(), RANK(), NCPU())
    """)
    assert main([deck, "alpha", "-x", "3"]) == 0
    out = capsys.readouterr().out
    assert "'alpha'" in out and "'-x'" in out and "'3'" in out and "a.py __main__ False 0 1" in out
    assert main([deck]) == 0
    assert capsys.readouterr().out.startswith("None a.py")


def test_words_before_the_deck_are_its_words(tmp_path, capsys, monkeypatch):
    # Solfec-1.0's solfec.c takes the first argument naming a file as the deck and passes the
    # others on in their order (Solfec's hs4-run-all.py calls `solfec -percent deck.py ...`)
    deck = write_deck(tmp_path / "w.py", "print(NON_SOLFEC_ARGV())\n")
    monkeypatch.chdir(tmp_path)
    assert main(["-percent", "w.py", "-lwf", "1.0"]) == 0
    assert capsys.readouterr().out.strip() == "['-percent', '-lwf', '1.0']"
    assert main(["-percent", "nothing.py"]) == 2          # no word names a file: the first is the deck
    assert "cannot open deck '-percent'" in capsys.readouterr().err
    assert os.path.isfile(deck)


def test_subdir_switch(tmp_path, capsys):
    deck = write_deck(tmp_path / "o.py", "sol = SOLFEC('DYNAMIC', 1E-3, 'out/o')\nprint(sol.outpath, SUBDIR())\n")
    assert main(["-s", "case1", deck]) == 0
    assert capsys.readouterr().out.split() == ["out/o/case1", "case1"]
    assert os.path.isfile(tmp_path / "out/o/case1/case1.py")   # the deck copy (Solfec-1.0 user manual, output directory)


def test_missing_deck_exit_code(tmp_path, capsys):
    assert main([str(tmp_path / "nope.py")]) == 2
    assert "cannot open deck" in capsys.readouterr().err


def test_solfec_module_star_import(tmp_path, capsys):
    helper = write_deck(tmp_path / "helper_lib.py", """\
        from solfec import *
        def ball(sol, mat):
            return BODY(sol, 'RIGID', SPHERE((0, 0, 0), 1, 1, 1), mat)
    """)
    deck = write_deck(tmp_path / "uses.py", """\
        from helper_lib import ball
        import solfec as solfec_module
        sol = SOLFEC('DYNAMIC', 1E-3, 'out/u')
        b = ball(sol, BULK_MATERIAL(sol))
        solfec_module.OUTPUT(sol, 0.1)
        print(b.kind, b.id, sol.nbod)
    """)
    assert main([deck]) == 0
    assert capsys.readouterr().out.strip() == "RIGID 1 1"


def test_python_dash_m_entry_point(tmp_path):
    deck = write_deck(tmp_path / "m.py", "print(SOLFEC('DYNAMIC', 1.0, 'out/m').mode)\n")
    res = subprocess.run([sys.executable, "-m", "solfec_py", deck], capture_output=True, text=True,
                         cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "WRITE"


def test_percent_verbose_meter(tmp_path, capsys):
    deck = write_deck(tmp_path / "p.py", """\
        sol = SOLFEC('DYNAMIC', 0.1, 'out/p')
        sol.verbose = '%'
        BODY(sol, 'RIGID', SPHERE((0, 0, 0), 1, 1, 1), BULK_MATERIAL(sol))
        print('test ...', end=' ')
        RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 10), 1.0)
        print('\\b\\b\\b\\bPASSED')
    """)
    assert main([deck]) == 0
    out = capsys.readouterr().out
    assert out.startswith("test ...   0%")
    assert out.endswith("\b\b\b\b100%\b\b\b\bPASSED\n")


DECKS = sorted(f for f in os.listdir(INPUTS) if f.endswith(".py"))
NEEDS_GMSH = {"gmsh_part.py"}            # decks that mesh their parts with the optional gmsh
QUICK = ("projectile.py", "pinned_bar.py", "spinning_box.py", "quadratic_cantilever.py")   # < ~10 s, both runs
# shorter runs of decks whose full check runs elsewhere: heavy top (10 s) in test_rigid_dynamics,
# the masonry arch (0.35 s and the sweep study) in test_contact_arch and test_sweep
WORDS = {"heavy_top.py": ["2.0"], "masonry_arch.py": ["stop=0.05"]}
ELSEWHERE = {"block_sliding.py"}     # run twice (WRITE, READ) in test_contact_polyhedra


@pytest.mark.parametrize("deck", [d if d in QUICK else pytest.param(d, marks=pytest.mark.slow)
                                  for d in DECKS if d not in ELSEWHERE])
def test_input_decks_run_twice(deck, capsys):
    """Every deck computes its results (WRITE mode) and checks them as stored (it builds the
    model again, which opens them in READ mode); run again, it finds them, says so, and
    re-checks them. Each deck asserts its own check against its reference (see its header);
    progress is off here (--no-progress; the output is not a terminal either)."""
    if deck in NEEDS_GMSH:
        pytest.importorskip("gmsh", reason=f"{deck} needs gmsh (pip install solfec-py[mesh])")
    args = [os.path.join(INPUTS, deck), *WORDS.get(deck, []), "--no-progress"]
    assert main(args) == 0, capsys.readouterr().err
    first = capsys.readouterr()
    assert "opened in READ mode" not in first.err
    assert main(args) == 0, capsys.readouterr().err
    second = capsys.readouterr()
    with open(args[0]) as handle:
        stores = "RUN(" in handle.read().replace("RUN (", "RUN(")
    if stores:                          # a deck without RUN (gmsh_part: meshing only) stores nothing
        assert "opened in READ mode (-w overwrites)" in second.err
    assert second.out == first.out      # the same check, the same numbers: read from the results


def test_no_arguments_prints_the_usage_of_every_command(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "required" not in err
    assert "solfec-py [-n K] [options] deck.py [words ...]" in err
    for command in ("translate", "plot", "sweep", "verify"):
        assert f"solfec-py {command} " in err
    assert "--help" in err


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for command in ("translate", "plot", "sweep", "verify"):
        assert re.search(rf"^  {command} +\S", out, re.MULTILINE), f"{command} not listed"
    assert "-w" in out and "-s SUBDIR" in out
