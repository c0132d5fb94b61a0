"""Shared fixtures: every test runs in its own temporary directory with a fresh session,
so decks writing to 'out/...' never touch the repository."""
from __future__ import annotations

import os
import textwrap

import matplotlib
import pytest

matplotlib.use("Agg")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUTS = os.path.join(REPO, "inputs")


def write_deck(path, text: str) -> str:
    """Write the deck `text` (dedented) to the file `path`; returns the path as a string."""
    path.write_text(textwrap.dedent(text))
    return str(path)


def stored(outdir):
    """The results of the output directory `outdir` (a str or path) as a StoreReader: the
    logical datasets with `read_all(name)`, the frame table `table`, `column_names`."""
    from solfec_py.output.store import results_path
    from solfec_py.output.store_reader import StoreReader

    return StoreReader.open_existing(results_path(str(outdir)))


def single_file(outdir, version: int = 4) -> str:
    """Rewrite the results of `outdir` in the single-file layout of format versions 1-4
    (`<outdir>/<base>.h5`: every dataset whole, the format marker and version as file
    attributes) and remove the segment directory; returns the file's path. Results of
    older solfec-py versions look like this."""
    import shutil

    import h5py

    from solfec_py.output import segments

    from solfec_py.output import frames
    from solfec_py.output.store_reader import REGISTRY_COLUMNS, SCHEMA

    reader = stored(outdir)
    path = segments.legacy_file(str(outdir))
    columns = {"frames": reader.column_names, "constraints": list(frames.CON_COLUMNS),
               "bodies": list(REGISTRY_COLUMNS)}
    with h5py.File(path, "w") as f:
        f.attrs["format"], f.attrs["version"] = "solfec-py results", version
        for name in SCHEMA:
            data = reader.table if name == "frames" else reader.read_all(name)
            ds = f.create_dataset(name, data=data, maxshape=(None,) + data.shape[1:])
            if name in columns:
                ds.attrs["columns"] = columns[name]
    shutil.rmtree(reader.path)
    return path


def solfec_clock(h: float, duration: float, t0: float = 0.0) -> list:
    """The times after each step of RUN(duration) with step h as Solfec-1.0 computes them
    (sol.c SOLFEC_Run, dom.c DOM_Update_End): t += h while t < t0 + duration.  An
    independent reference for the step driver's clock."""
    times, t, end = [], t0, t0 + duration
    while t < end:
        t += h
        times.append(t)
    return times


def solfec_output_times(times: list, interval: float, t0: float = 0.0) -> list:
    """The step times at which Solfec writes a frame (after frame 0): the first step with
    t >= next output time, which then grows by `interval` (sol.c SOLFEC_Run)."""
    out, nxt = [], t0 + interval
    for t in times:
        if t >= nxt:
            nxt += interval
            out.append(t)
    return out


CUBE = "[0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]"   # HEX nodes of the unit cube


def free_flight_deck(output: str) -> str:
    """The start of a deck: SOLFEC `sol` writing to `output` (verbose off), gravity 9.81, a
    rigid ball 'ball' (radius 0.1 at (-1, 0, 0)) and a unit HEX cube 'box' 1 m apart, so
    they never touch, with initial velocities: free flight, whose exact solution the
    result tests compare against."""
    return f"""\
import json
sol = SOLFEC('DYNAMIC', 1E-3, '{output}')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1000.0)
ball = BODY(sol, 'RIGID', SPHERE((-1, 0, 0), 0.1, 1, 1), mat, label='ball')
box = BODY(sol, 'RIGID', HEX({CUBE}, 1, 1, 1, 1, [1]*6), mat, label='box')
INITIAL_VELOCITY(ball, (1, 0, 2), (0, 0, 0))
INITIAL_VELOCITY(box, (0, 1, 0), (1, 2, 3))
"""


def record_vz_sign_changes(api, sol, body, stop_after: int = 5, component: int = 5) -> list:
    """A CALLBACK (every 1e-3 s) that appends sol.time whenever the vertical velocity of
    `body` (velo[5], or velo[component]) changes sign, and stops RUN once `stop_after` times
    are recorded; returns the list it fills (a pendulum's v_z changes sign 4 times per period)."""
    crossings, prev = [], [0.0]

    def watch():
        v = body.velo[component]
        if v * prev[0] < 0:
            crossings.append(sol.time)
        prev[0] = v
        return 1 if len(crossings) < stop_after else 0

    api.CALLBACK(sol, 1e-3, (), watch)
    return crossings


@pytest.fixture(autouse=True)
def _fresh_session(tmp_path, monkeypatch):
    from solfec_py import session

    monkeypatch.chdir(tmp_path)
    session.start(progress=False)
    yield
    session.start()


@pytest.fixture
def api():
    """The deck names as a namespace object: api.SOLFEC, api.BODY, ..."""
    import types

    from solfec_py.api import NAMES

    return types.SimpleNamespace(**NAMES)


_SLOW_LIST = os.path.join(os.path.dirname(__file__), "slow_tests.txt")


def pytest_addoption(parser):
    parser.addoption("--extended", action="store_true", default=False,
                     help="also run the tests marked `extended` (minutes each: the whole "
                          "Solfec BM suite, converged reference runs); CI leaves them out")


def pytest_collection_modifyitems(config, items):
    """Mark the tests listed in tests/slow_tests.txt (measured > 2 s) slow, so that
    `pytest -m "not slow"` is the fast selection and the plain `pytest` the full suite;
    skip the tests marked `extended` unless --extended is given."""
    with open(_SLOW_LIST, encoding="utf-8") as handle:
        listed = {line.split("#")[0].strip() for line in handle if line.split("#")[0].strip()}
    run_extended = config.getoption("--extended")
    skip_extended = pytest.mark.skip(reason="extended verification: run with --extended")
    for item in items:
        if item.nodeid in listed:
            item.add_marker(pytest.mark.slow)
        if "extended" in item.keywords and not run_extended:
            item.add_marker(skip_extended)
