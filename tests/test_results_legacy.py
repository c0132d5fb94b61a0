"""Results of the single-file layout (format version 4, `<name>.h5`, written by solfec-py
before the segment directories; tests/data/results_v4/v4.h5 was written by that code from
tests/data/results_v4/v4.py, a run stopped by its CALLBACK at t = 0.02): READ opens them,
and -c converts them to a segment directory and continues. References: the same deck run
now (the same datasets, to roundoff: ROUNDOFF) and its uninterrupted run (the same
continuation, to roundoff)."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np

from solfec_py.cli import main
from solfec_py.output import frames
from solfec_py.output.store_reader import StoreReader

from conftest import REPO, stored

DATA = os.path.join(REPO, "tests", "data", "results_v4")
COMPARED = ("state/rigid", "state/pseudo_rigid", "state/finite_element", "carry/rigid", "constraints",
            "bodies", "labels", "geometry/nodes", "geometry/cells", "geometry/materials")


def _old(tmp_path):
    os.makedirs(tmp_path / "out/v4")
    shutil.copy(os.path.join(DATA, "v4.h5"), tmp_path / "out/v4/v4.h5")
    return shutil.copy(os.path.join(DATA, "v4.py"), tmp_path / "v4.py")


# v4.h5 was written by an older build whose kernels summed in another order: its floats agree
# with today's run to roundoff (seen: 1e-14 of each dataset's largest value after 20 steps),
# not bit for bit. ROUNDOFF bounds that difference relative to the dataset's largest value;
# what the test guards against (a column read as another, a frame lost or shifted, a wrong
# layout) differs by O(1) of that scale. Integer data (ids, cells, labels) must be equal.
ROUNDOFF = 1e-12


def _close(a, b, what, scale=0.0):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype.kind == b.dtype.kind, what
    if a.dtype.kind != "f":
        np.testing.assert_array_equal(a, b, err_msg=what)
    elif a.size:
        np.testing.assert_allclose(a, b, rtol=0, atol=ROUNDOFF * max(np.abs(a).max(), scale, 1e-300), err_msg=what)


def _same(a, b, names=COMPARED):
    keep = [i for i, c in enumerate(a.column_names) if c not in frames.TIMERS and not c.endswith("OFF")]
    assert a.column_names == b.column_names
    energies = [i for i in keep if a.column_names[i].startswith("E_")]
    energy = np.abs(a.table[:, energies]).max()              # the energies share one scale
    for i in keep:
        _close(a.table[:, i], b.table[:, i], a.column_names[i], energy if i in energies else 0.0)
    for name in names:
        _close(a.read_all(name), b.read_all(name), name)


def test_version_4_file_reads_as_written(tmp_path, capsys):
    """The deck finds the old file and opens it in READ mode; every dataset equals the same
    run made now (timers and row offsets aside)."""
    deck = str(_old(tmp_path))
    old = StoreReader.open_existing(str(tmp_path / "out/v4/v4.h5"))
    assert old.legacy and old.nframes == 5
    np.testing.assert_allclose(old.times, [0.0, 0.005, 0.01, 0.015, 0.02], rtol=0, atol=1e-12)
    with open(deck, "a") as out:
        out.write("import json\njson.dump([sol.mode, DURATION(sol)], open('mode.json', 'w'))\n")
    assert main([deck]) == 0                                  # READ mode on the old file
    mode, duration = json.load(open(tmp_path / "mode.json"))
    assert mode == "READ" and duration == list(old.duration())
    os.rename(tmp_path / "out/v4", tmp_path / "out/kept")
    assert main([deck, "0.02"]) == 0                          # the same run, now
    _same(StoreReader.open_existing(str(tmp_path / "out/kept/v4.h5")), stored(tmp_path / "out/v4"))


def test_version_4_file_is_converted_and_continued(tmp_path, capsys):
    deck = str(_old(tmp_path))
    assert main(["-c", deck]) == 0
    err = capsys.readouterr().err
    assert "out/v4/v4.h5" in err and "converted to" in err and "out/v4/v4.results" in err
    assert not os.path.exists(tmp_path / "out/v4/v4.h5")
    continued = stored(tmp_path / "out/v4")
    assert continued.nframes == 9 and abs(continued.duration()[1] - 0.04) < 1e-12
    os.rename(tmp_path / "out/v4", tmp_path / "out/continued")
    assert main([deck]) == 0                                  # uninterrupted, now
    _same(stored(tmp_path / "out/v4"), StoreReader.open_existing(str(tmp_path / "out/continued/v4.results")),
          [n for n in COMPARED if n not in ("bodies", "labels")])
