"""Bad input around stored results, through the deck runner (`deck.py:LINE: message`):
corrupt and truncated result files, HISTORY items that do not exist, SEEK outside the
stored range, -w overwriting, -c with two RUNs."""
from __future__ import annotations

import os
from pathlib import Path

import h5py
import numpy as np
import pytest

from solfec_py.cli import main

from conftest import single_file, stored, write_deck

DECK = """\
sol = SOLFEC('DYNAMIC', 1E-2, 'out/r')
sol.verbose = 'OFF'
mat = BULK_MATERIAL(sol, density=1.0)
b = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat, label='b')
INITIAL_VELOCITY(b, (1, 0, 0), (0, 0, 0))
OUTPUT(sol, 0.1)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 1.0)
print('MODE', sol.mode)
"""


def run_twice(tmp_path, capsys, extra):
    """Write results with DECK, then run DECK + extra lines (READ mode); (rc, stderr)."""
    deck = write_deck(tmp_path / "r.py", DECK)
    assert main([deck]) == 0
    capsys.readouterr()
    deck = write_deck(tmp_path / "r.py", DECK + extra)
    rc = main([deck])
    cap = capsys.readouterr()
    return deck, rc, cap.out, cap.err


@pytest.mark.parametrize("layout, damage", [("segments", "garbage"), ("segments", "truncated"),
                                           ("segments", "empty"), ("segments", "marker"),
                                           ("single", "garbage"), ("single", "truncated"), ("single", "empty")])
def test_corrupt_results_name_the_file(tmp_path, capsys, layout, damage):
    """A segment file or the marker damaged by hand (no writer leaves one so), or a results
    file of the single-file layout (format versions 1-4) damaged: the deck stops at its
    SOLFEC line naming the results, the damaged file and -w."""
    deck = write_deck(tmp_path / "r.py", DECK)
    assert main([deck]) == 0
    store = tmp_path / "out/r/r.results"
    if layout == "single":
        store = path = Path(single_file(tmp_path / "out/r"))
    else:
        path = store / "store.json" if damage == "marker" else sorted(store.glob("*.h5"))[0]
    if damage in ("garbage", "marker"):
        path.write_bytes(b"this is not an HDF5 file" * 100)
    elif damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:
        path.write_bytes(b"")
    capsys.readouterr()
    assert main([deck]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"{deck}:1: ")                 # the SOLFEC line
    assert str(store.relative_to(tmp_path)) in err and "-w" in err
    if damage != "marker":
        assert path.name in err


def test_foreign_hdf5_file_is_rejected(tmp_path, capsys):
    os.makedirs(tmp_path / "out/r")
    with h5py.File(tmp_path / "out/r/r.h5", "w") as f:
        f["x"] = [1, 2, 3]
    deck = write_deck(tmp_path / "r.py", DECK)
    assert main([deck]) == 1
    err = capsys.readouterr().err
    assert f"{deck}:1: " in err and "not a solfec-py results file" in err


def test_foreign_results_directory_is_rejected(tmp_path, capsys):
    os.makedirs(tmp_path / "out/r/r.results")
    (tmp_path / "out/r/r.results/store.json").write_text('{"format": "something else"}')
    deck = write_deck(tmp_path / "r.py", DECK)
    assert main([deck]) == 1
    err = capsys.readouterr().err
    assert f"{deck}:1: " in err and "not a solfec-py results store" in err


@pytest.mark.parametrize("line, words", [
    ("HISTORY(sol, [(b, (0, 0, 0), 'DQ')], 0, 1)", ["HISTORY item 0", "Invalid entity kind: DQ", "'DX'"]),
    ("HISTORY(sol, [(sol, 'KINETIC'), 'CONTACTS'], 0, 1)", ["HISTORY item 1", "Invalid string value 'CONTACTS'"]),
    ("HISTORY(sol, [(sol, 'KINETIC', 1, 2, 3)], 0, 1)", ["Invalid tuple size 5"]),
    ("HISTORY(sol, [3.5], 0, 1)", ["Invalid history item"]),
    ("HISTORY(sol, [(sol, 'POTENTIAL')], 0, 1)", ["Invalid entity kind: POTENTIAL"]),
    ("HISTORY(sol, [(7, 'KINETIC')], 0, 1)", ["'object' must be a SOLFEC a BODY object"]),
    ("HISTORY(sol, [(b, (0, 0), 'DX')], 0, 1)", ["point"]),
    ("HISTORY(sol, (sol, 'KINETIC'), 0, 1, 0)", ["'skip'"]),
])
def test_bad_history_items_report_the_deck_line(tmp_path, capsys, line, words):
    deck, rc, out, err = run_twice(tmp_path, capsys, line + "\n")
    assert rc == 1 and "MODE READ" in out
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"{deck}:9: ")
    for w in words:
        assert w in last


def test_history_in_write_mode_is_none(tmp_path, capsys):
    deck = write_deck(tmp_path / "w.py", DECK + "print('H', HISTORY(sol, (sol, 'KINETIC'), 0, 1))\n")
    assert main([deck]) == 0
    assert "H None" in capsys.readouterr().out


def test_seek_outside_the_stored_range_clamps_with_a_warning(tmp_path, capsys):
    deck, rc, out, err = run_twice(tmp_path, capsys, "SEEK(sol, 5.0)\nprint('T', sol.time, b.conf[9])\n"
                                                    "SEEK(sol, -1.0)\nprint('T', sol.time, b.conf[9])\n")
    assert rc == 0
    assert "SEEK: time 5 is outside the stored range [0, 1]" in err and "last frame" in err
    assert "SEEK: time -1 is outside" in err and "first frame" in err
    lines = [l.split() for l in out.splitlines() if l.startswith("T ")]
    assert float(lines[0][1]) == pytest.approx(1.0, abs=1e-12) and float(lines[0][2]) == pytest.approx(1.0, abs=1e-12)
    assert float(lines[1][1]) == 0.0 and float(lines[1][2]) == 0.0


def test_overwrite_switch_rewrites_results_with_a_warning(tmp_path, capsys):
    deck = write_deck(tmp_path / "r.py", DECK)
    assert main([deck]) == 0
    assert main(["-w", deck]) == 0
    cap = capsys.readouterr()
    assert "overwriting the existing results" in cap.err and cap.out.count("MODE WRITE") == 2
    assert stored(tmp_path / "out/r").nframes == 11    # fresh results: frames 0, 0.1, ..., 1.0 once


def test_continue_allows_a_single_run(tmp_path, capsys):
    deck = write_deck(tmp_path / "r.py", DECK)
    assert main([deck]) == 0
    deck = write_deck(tmp_path / "r.py", DECK + "RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 1.0)\n")
    capsys.readouterr()
    assert main(["-c", deck]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"{deck}:9: ") and "Multiple RUN commands are not allowed" in err


def test_initialize_state_arguments(tmp_path, capsys):
    deck = write_deck(tmp_path / "i.py", DECK.replace("RUN(", "INITIALIZE_STATE(sol, 'out/none', 0.0)\nRUN("))
    assert main([deck]) == 1
    err = capsys.readouterr().err
    assert f"{deck}:7: " in err and "State initialization has failed" in err and "out/none" in err
    deck = write_deck(tmp_path / "i.py", DECK.replace("RUN(", "INITIALIZE_STATE(sol, 'out/r', -1.0)\nRUN("))
    assert main([deck]) == 1
    assert "'time' must be >= 0" in capsys.readouterr().err
    deck = write_deck(tmp_path / "i.py", DECK.replace("RUN(", "INITIALIZE_STATE(sol, 'out/r', 0.0, ['a', 3])\nRUN("))
    assert main([deck]) == 1
    assert "All elements of the 'subset' list must be strings" in capsys.readouterr().err


PENDULUM = """\
def run(h):
    sol = SOLFEC('DYNAMIC', h, 'out/p')
    sol.verbose = 'OFF'
    mat = BULK_MATERIAL(sol, density=1.0)
    b = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat, label='b')
    INITIAL_VELOCITY(b, (1, 0, 0), (0, 0, 0))
    GRAVITY(sol, (0, 0, -10))
    RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.5)
    return sol, b
first, b1 = run(0.1)
second, b2 = run(0.05)
print('MODES', first.mode, second.mode)
t, dz = HISTORY(second, [(b2, (0, 0, 0), 'DZ')], 0, 0.5)
print('T', ' '.join(repr(v) for v in t))
print('DZ', ' '.join(repr(v) for v in dz))
"""


def _floats(out, tag):
    line = next(l for l in out.splitlines() if l.startswith(tag + " "))
    return [float(v) for v in line.split()[1:]]


@pytest.mark.parametrize("switch", [[], ["-w"]])
def test_same_output_path_twice_in_one_run_reads_the_new_results(tmp_path, capsys, switch):
    # Solfec's double-pendulum test: run, then re-create the model with the same output
    # path in the same program and read HISTORY from it. The second object opens the
    # frames just written (READ), even with -w (which applies to results older than the
    # program): its own step 0.05 is not used, the stored frames at h = 0.1 are read.
    deck = write_deck(tmp_path / "p.py", PENDULUM)
    if switch:
        assert main([deck]) == 0                      # results older than the program: -w overwrites
        capsys.readouterr()
    assert main(switch + [deck]) == 0
    cap = capsys.readouterr()
    assert "MODES WRITE READ" in cap.out
    assert ("overwriting the existing results" in cap.err) == bool(switch)
    t = _floats(cap.out, "T")
    np.testing.assert_allclose(t, [0.0, 0.1, 0.2, 0.3, 0.4], rtol=0, atol=1e-12)  # frames < t1 (HISTORY)
    # free fall from rest under g = 10: dz = -5 t^2 up to the O(h) error of the time
    # stepping (bound g h t / 2, h = 0.1 of the first object)
    dz = np.array(_floats(cap.out, "DZ"))
    np.testing.assert_allclose(dz, -5.0 * np.array(t) ** 2, rtol=0, atol=0.5 * 10 * 0.1 * 0.4)
    assert stored(tmp_path / "out/p").nframes == 6    # frames 0, 0.1, ..., 0.5 once: nothing appended
    assert main([deck]) == 0                          # a new program run: both objects READ
    assert "MODES READ READ" in capsys.readouterr().out


def test_same_output_path_with_continue(tmp_path, capsys):
    # -c continues the results that existed before the program; a second object with the
    # same path in that program reads what the continued run wrote
    deck = write_deck(tmp_path / "p.py", PENDULUM)
    os.makedirs(tmp_path / "out/p")
    (tmp_path / "out/p/STOP").write_text("")       # the first run stops after one step
    assert main([deck]) == 0
    os.remove(tmp_path / "out/p/STOP")
    out = capsys.readouterr().out
    assert "MODES WRITE READ" in out and len(_floats(out, "T")) == 1
    assert main(["-c", deck]) == 0
    cap = capsys.readouterr()
    assert "MODES WRITE READ" in cap.out
    t = _floats(cap.out, "T")
    np.testing.assert_allclose(t, [0.0, 0.1, 0.2, 0.3, 0.4], rtol=0, atol=1e-12)


def test_reading_results_of_a_writer_still_open(api, tmp_path):
    # a second object created while the first still holds the file open for writing
    # (e.g. inside a CALLBACK) reads the frames written so far; the writer goes on
    from solfec_py.output import recorder

    sol = api.SOLFEC("DYNAMIC", 0.1, "out/open")
    api.BODY(sol, "RIGID", api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol, density=1.0))
    sol.store.start_writing()
    recorder.write_frame(sol)
    sol.domain.time = 0.1
    recorder.write_frame(sol)
    assert sol.store.writing
    other = api.SOLFEC("DYNAMIC", 0.1, "out/open")
    assert other.mode == "READ" and not sol.store.writing
    assert api.DURATION(other) == (0.0, 0.1)
    sol.domain.time = 0.2
    recorder.write_frame(sol)                          # writes again and appends
    recorder.finish(sol)
    np.testing.assert_array_equal(stored(tmp_path / "out/open").times, [0.0, 0.1, 0.2])


def test_history_progress_meter(tmp_path, capsys):
    # progress='ON' prints Solfec's percentage meter (0% ... 100%, rewritten in place) while
    # reading; the values are those of progress='OFF'
    extra = ("items = [(b, (0, 0, 0), 'DX'), (sol, 'R'), (sol, 'KINETIC')]\n"
             "h1 = HISTORY(sol, items, 0, 1, progress='ON')\n"
             "h0 = HISTORY(sol, items, 0, 1, progress='OFF')\n"
             "print('SAME', h1 == h0, len(h1[0]))\n")
    deck, rc, out, err = run_twice(tmp_path, capsys, extra)
    assert rc == 0 and "SAME True 10" in out
    meter = out[out.index("HISTORY: "):].split("\n")[0][len("HISTORY: "):]
    steps = meter.split("\b\b\b\b")
    values = [int(v.strip().rstrip("%")) for v in steps]
    assert values[0] == 0 and values[-1] == 100 and values == sorted(values) and len(set(values)) == len(values)
    assert out.count("HISTORY: ") == 1                 # 'OFF' prints nothing
