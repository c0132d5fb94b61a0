"""Results of the single-file layout (format version 4, `<name>.h5`, written by solfec-py
before the segment directories; tests/data/results_v4/v4.h5 was written by that code from
tests/data/results_v4/v4.py, a run stopped by its CALLBACK at t = 0.02): READ opens them,
and -c converts them to a segment directory and continues. References: the same deck run
now (bit-identical datasets) and its uninterrupted run (bit-identical continuation)."""
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


def _same(a, b, names=COMPARED):
    keep = [i for i, c in enumerate(a.column_names) if c not in frames.TIMERS and not c.endswith("OFF")]
    assert a.column_names == b.column_names
    np.testing.assert_array_equal(a.table[:, keep], b.table[:, keep])
    for name in names:
        np.testing.assert_array_equal(a.read_all(name), b.read_all(name), err_msg=name)


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
