"""SOLFEC_EXPORT read back: a free-flight run (conftest.free_flight_deck, frames every 0.01 s)
is exported in READ mode for a list of times and for a (t0, t1) range, and in WRITE mode
before its RUN. The exported results hold the frames Solfec-1.0's scxp.c writes (list: the
frame SEEK lands on for each time; range: from t0, each next frame below t1), each with the
body states and constraints of the source frame exactly (a copy), and the ball's centre of
the exported frames is the free-flight parabola x = x0 + v t, z = z0 + w t - g t^2 / 2 (the
rigid scheme integrates a constant force exactly to round-off: 1e-9). The copied deck sits
beside them, and a SOLFEC whose output is the export directory opens them in READ mode.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from conftest import free_flight_deck, stored, write_deck


def _run(tmp_path):
    from solfec_py.cli import main

    model = free_flight_deck("out/ff").replace("\n", "\n    ")        # the model, made by model()
    deck = write_deck(tmp_path / "ff.py", "import json\ndef model():\n    global sol, ball, box\n    " + model + """
model()
SOLFEC_EXPORT(sol, 0.0, 'out/at0')
OUTPUT(sol, 0.01)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 10), 0.1)
model()
SOLFEC_EXPORT(sol, [0.05, 0.02, 0.05, 0.0], 'out/list', subset='ball')
SOLFEC_EXPORT(sol, (0.02, 0.1), 'out/range')
back = SOLFEC('DYNAMIC', 1E-3, 'out/range')
json.dump({'mode': back.mode, 'source': sol.mode}, open('out/check.json', 'w'))
""")
    assert main([deck]) == 0


def _ball(reader, i):
    ids, rows = reader.frame_state("rigid", i)
    return rows[list(ids).index(1)]


def test_exported_frames_are_the_stored_ones(tmp_path):
    _run(tmp_path)
    src = stored("out/ff")
    lst, rng = stored("out/list"), stored("out/range")
    np.testing.assert_allclose(lst.times, [0.0, 0.02, 0.05], atol=1e-12)   # each frame once, in time order
    expected = [t for t in src.times if t >= 0.02 - 1e-9 and t < 0.1 - 1e-9]
    np.testing.assert_allclose(rng.times, expected, atol=1e-12)
    for reader in (lst, rng):
        for k, t in enumerate(reader.times):
            i = src.frame_index(t)
            for fam in ("rigid",):
                a_ids, a = reader.frame_state(fam, k)
                b_ids, b = src.frame_state(fam, i)
                assert list(a_ids) == list(b_ids)
                np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(reader.frame_constraints(k), src.frame_constraints(i))
            x = _ball(reader, k)[9:12]
            np.testing.assert_allclose(x, (-1 + t, 0.0, 2 * t - 9.81 * t * t / 2), atol=1e-9)
    assert os.path.isfile("out/list/list.py") and open("out/list/list.py").read() == open(tmp_path / "ff.py").read()
    assert json.load(open("out/check.json")) == {"mode": "READ", "source": "READ"}


def test_write_mode_exports_the_current_state(tmp_path):
    _run(tmp_path)
    at0 = stored("out/at0")
    assert at0.nframes == 1 and at0.times[0] == 0.0
    np.testing.assert_allclose(_ball(at0, 0)[9:12], (-1, 0, 0))
    np.testing.assert_allclose(_ball(at0, 0)[12:18], (0, 0, 0, 1, 0, 2))       # velo: angular, linear


def test_argument_errors(api):
    from solfec_py.errors import InputError, InputTypeError

    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/e")
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object"):
        api.SOLFEC_EXPORT(None, 0.0, "out/x")
    with pytest.raises(InputError, match="The 'time' tuple size should be two"):
        api.SOLFEC_EXPORT(sol, (0.0, 1.0, 2.0), "out/x")
    with pytest.raises(InputTypeError, match="'path'"):
        api.SOLFEC_EXPORT(sol, 0.0, 5)
    open("afile", "w").close()
    with pytest.raises(InputError, match="'path' must name a directory"):
        api.SOLFEC_EXPORT(sol, 0.0, "afile")
