"""Which results a run reads: results are read (READ mode) only by a run with the words, the
deck text up to its RUN and the input files they were computed from; any other run stops,
saying what differs and what to type, and leaves them as they are. References: the values
each run prints (a block sliding with the friction coefficient the words give: it slides
farther with less friction), the files' own bytes and the record kept with the results."""
from __future__ import annotations

import json
import os
import re

import pytest

from solfec_py.cli import main

from conftest import write_deck

# a unit block sliding at 1 m/s on a floor for 0.1 s, friction from the words (mu=...), its
# mesh read from block.inp (before or after SOLFEC: both are checked)
SLIDE = """\
words = dict(w.split('=') for w in NON_SOLFEC_ARGV() or [])
mu = float(words.get('mu', 0.3))
%(before)s
sol = SOLFEC('DYNAMIC', 1E-3, 'out/slide')
sol.verbose = 'OFF'
%(after)s
GRAVITY(sol, (0, 0, -10))
mat = BULK_MATERIAL(sol, density=1000.0)
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=mu)
BODY(sol, 'OBSTACLE', HEX([-5,-5,-1, 5,-5,-1, 5,5,-1, -5,5,-1, -5,-5,0, 5,-5,0, 5,5,0, -5,5,0],
                          1, 1, 1, 1, [1]*6), mat)
box = BODY(sol, 'RIGID', block, mat)
INITIAL_VELOCITY(box, (1, 0, 0), (0, 0, 0))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 100), 0.1)
SEEK(sol, 0.1)
print(f"{sol.mode} mu = {mu}: slid {DISPLACEMENT(box, (0.5, 0.5, 0.5))[0]:.4f} m")
"""

BLOCK = "*NODE\n" + "".join(f"{k + 1}, {x}, {y}, {z}\n" for k, (x, y, z) in enumerate(
    [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)])) + \
    "*ELEMENT, TYPE=C3D8\n1, 1, 2, 3, 4, 5, 6, 7, 8\n"

IMPORT = "block = MESH_IMPORT('block.inp')"


@pytest.fixture
def slide(tmp_path):
    (tmp_path / "block.inp").write_text(BLOCK)
    return write_deck(tmp_path / "slide.py", SLIDE % {"before": IMPORT, "after": ""})


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _slid(out: str) -> tuple:
    found = re.search(r"(READ|WRITE) mu = (\S+): slid (\S+) m", out)
    return found.group(1), float(found.group(2)), float(found.group(3))


def _results(tmp_path, name="slide") -> tuple:
    """(bytes of the results files, the record) as they are on disk."""
    out = tmp_path / "out" / "slide"
    files = sorted(p for p in (out / "slide.results").rglob("*") if p.is_file())
    return b"".join(p.read_bytes() for p in files), json.loads((out / "slide.provenance.json").read_text())


@pytest.mark.slow          # six runs of the deck: about 3 s
def test_other_words_stop_and_say_what_to_type(slide, tmp_path, capsys):
    status, out, _ = _run(capsys, slide, "mu=0.3")
    mode, mu, slid03 = _slid(out)
    assert (status, mode, mu) == (0, "WRITE", 0.3) and slid03 > 0.0
    stored = _results(tmp_path)
    assert stored[1]["words"] == ["mu=0.3"]
    assert _slid(_run(capsys, slide, "mu=0.3")[1]) == ("READ", 0.3, slid03)
    status, out, err = _run(capsys, slide, "mu=0.6")
    assert status == 1 and "slid" not in out
    assert re.search(r"slide\.py:4: the results in out/slide were computed from other inputs", err)
    assert "the words: mu=0.3 then, mu=0.6 now" in err
    assert f"solfec-py -w {slide} mu=0.6" in err and f"solfec-py -s NAME {slide} mu=0.6" in err
    assert "out/slide/NAME" in err
    assert _results(tmp_path) == stored                           # neither read nor overwritten
    status, out, _ = _run(capsys, "-s", "mu06", slide, "mu=0.6")  # elsewhere
    mode, mu, slid06 = _slid(out)
    assert (status, mode, mu) == (0, "WRITE", 0.6) and 0.0 < slid06 < slid03   # more friction
    assert (tmp_path / "out/slide/mu06/mu06.results").is_dir() and _results(tmp_path) == stored
    assert _slid(_run(capsys, "-w", slide, "mu=0.6")[1]) == ("WRITE", 0.6, slid06)   # overwritten
    assert _slid(_run(capsys, slide, "mu=0.6")[1]) == ("READ", 0.6, slid06)


def test_edits_after_the_run_still_read_edits_before_it_stop(slide, tmp_path, capsys):
    status, out, _ = _run(capsys, slide)
    assert status == 0
    text = (tmp_path / "slide.py").read_text()
    (tmp_path / "slide.py").write_text(text + "print('post-processing added later')\n")
    status, out, err = _run(capsys, slide)                        # after RUN: read
    assert status == 0 and _slid(out)[0] == "READ" and "post-processing added later" in out
    (tmp_path / "slide.py").write_text(text.replace("(1E-6, 100), 0.1)", "(1E-6, 100), 0.05)"))
    status, out, err = _run(capsys, slide)                        # RUN's own line: stop
    assert status == 1
    assert re.search(r"the deck's text before its RUN \(lines 1-14 of slide\.py\) differs at line 14:"
                     r" '.*0\.1\)' then, '.*0\.05\)' now", err)
    (tmp_path / "slide.py").write_text(text.replace("mat = BULK", "mat  = BULK"))
    assert _run(capsys, slide)[0] == 1                            # any byte before it: stop


def test_a_statement_holding_run_counts_as_a_whole(tmp_path, capsys):
    """RUN in a loop: the loop is the statement, a line added to its body is an edit before
    the end of RUN's statement (the first lines stay the same)."""
    deck = """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/loop')
sol.verbose = 'OFF'
BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), BULK_MATERIAL(sol))
for k in range(2):
    RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 10), 0.005)
print(sol.mode)
"""
    path = write_deck(tmp_path / "loop.py", deck)
    assert _run(capsys, path)[1].split() == ["WRITE"]
    assert _run(capsys, path)[1].split() == ["READ"]
    edited = deck.replace("0.005)\n", "0.005)\n    GRAVITY(sol, (0, 0, -10))\n")
    (tmp_path / "loop.py").write_text(edited)
    status, _, err = _run(capsys, path)
    assert status == 1 and "differs at line 5: the statement goes on after it now" in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_another_mesh_file_content_stops(tmp_path, capsys, where):
    """The mesh file read before SOLFEC (compared when SOLFEC opens the results) or after it
    (compared as MESH_IMPORT reads it) changed: a block twice as tall."""
    (tmp_path / "block.inp").write_text(BLOCK)
    deck = write_deck(tmp_path / "slide.py", SLIDE % {"before": IMPORT if where == "before" else "",
                                                      "after": IMPORT if where == "after" else ""})
    assert _run(capsys, deck)[0] == 0
    (tmp_path / "block.inp").write_text(BLOCK.replace(", 1\n", ", 2\n"))
    status, out, err = _run(capsys, deck)
    assert status == 1 and "slid" not in out
    line = 4 if where == "before" else 6                           # SOLFEC's line, or MESH_IMPORT's
    assert re.search(rf"slide\.py:{line}: .*\n  - the file 'block\.inp': other contents \(sha256 \w{{12}} then,"
                     r" \w{12} now\)", err)
    (tmp_path / "block.inp").write_text(BLOCK)                     # the file of the results again
    assert _slid(_run(capsys, deck)[1])[0] == "READ"


def test_another_mesh_file_named_in_the_deck_stops(slide, tmp_path, capsys):
    assert _run(capsys, slide)[0] == 0
    (tmp_path / "other.inp").write_text(BLOCK)
    text = (tmp_path / "slide.py").read_text()
    (tmp_path / "slide.py").write_text(text.replace("'block.inp'", "'other.inp'"))
    status, _, err = _run(capsys, slide)
    assert status == 1 and "differs at line 3: \"block = MESH_IMPORT('block.inp')\" then" in err


def test_results_without_a_record_open_with_a_note(slide, tmp_path, capsys):
    """Results written by an older solfec-py (no record beside them) are read, with a note."""
    status, out, _ = _run(capsys, slide, "mu=0.3")
    os.remove(tmp_path / "out/slide/slide.provenance.json")
    status, out, err = _run(capsys, slide, "mu=0.6")
    assert status == 0 and _slid(out)[0] == "READ"
    assert "hold no record of the words and input files" in err and "read unchecked" in err


def test_continue_with_other_words_warns_and_records_them(slide, tmp_path, capsys):
    assert _run(capsys, slide, "mu=0.3")[0] == 0
    status, _, err = _run(capsys, "-c", slide, "mu=0.6")
    assert status == 0
    assert "WARNING: -c: continuing the results in out/slide, computed from other inputs: the words" in err
    assert _results(tmp_path)[1]["words"] == ["mu=0.6"]
    assert _slid(_run(capsys, slide, "mu=0.6")[1])[0] == "READ"


def test_the_output_directory_as_deck_reads_with_the_stored_words(slide, tmp_path, capsys):
    """`solfec-py OUTDIR` runs the deck kept there over its results: with no words given it
    takes those the results were computed with."""
    status, out, _ = _run(capsys, slide, "mu=0.6")
    slid = _slid(out)[2]
    status, out, err = _run(capsys, "out/slide")
    assert status == 0 and _slid(out) == ("READ", 0.6, slid)
    assert "the words of the stored run: mu=0.6" in err


@pytest.mark.slow          # three runs of the deck: about 2 s
def test_another_deck_reads_results_of_the_same_model_only(slide, tmp_path, capsys):
    """A view deck (another file, as Solfec's examples pair ro1-fem-tl.py with ro1-view.py)
    reads the results when it builds the same bodies (ids, kinds, reference centres) and
    prints what the writing run computed; a deck building another model stops at its first
    data command, naming the deck that computed them and the first body that differs."""
    status, out, _ = _run(capsys, slide, "mu=0.3")
    slid = _slid(out)[2]
    view = SLIDE % {"before": IMPORT, "after": ""}
    view = view.replace("print(f\"{sol.mode} mu", "print('viewing'); print(f\"{sol.mode} mu")
    viewer = write_deck(tmp_path / "view.py", view)
    status, out, err = _run(capsys, viewer)
    assert status == 0 and _slid(out) == ("READ", 0.3, slid)
    assert "computed by slide.py; this deck builds the same model (2 bodies" in err
    moved = write_deck(tmp_path / "moved.py", view.replace("box = BODY(sol, 'RIGID', block, mat)",
                                                           "box = BODY(sol, 'RIGID', TRANSLATE(block, (0, 0, 1)), mat)"))
    status, out, err = _run(capsys, moved)
    assert status == 1 and "slid" not in out
    assert re.search(r"moved\.py:\d+: the results in out/slide were computed from other inputs", err)
    assert "the deck: slide.py computed them, and this deck builds another model" in err
    assert re.search(r"body 2: RIGID centred at \(0\.5, 0\.5, 0\.5\) then, RIGID centred at \(0\.5, 0\.5, 1\.5\) now", err)
    assert _results(tmp_path)[1]["words"] == ["mu=0.3"]       # left as they were
