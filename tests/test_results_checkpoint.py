"""Checkpoints: a run killed with SIGKILL keeps every flushed frame; `-c` continues from the
last frame and gives bit-identical states to an uninterrupted run, also with rigid links
and contacts (constraint rows, ids and order included); INITIALIZE_STATE copies a stored
state into another model. References: closed-form free fall for the surviving frames, the
uninterrupted run for the continued ones, the source file for INITIALIZE_STATE."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from solfec_py.cli import main
from solfec_py.output import frames

from conftest import solfec_clock, write_deck
from solfec_py.output.store import ResultsStore

CUBE = "[0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]"

# A tumbling cube under gravity and a time-dependent force (so the continued run must
# reproduce the times exactly), a spinning sphere, a CALLBACK that stops the first part.
SPLIT = f"""\
args = NON_SOLFEC_ARGV() or []
out = args[0]
stop_at = float(args[1]) if len(args) > 1 else None
sol = SOLFEC('DYNAMIC', 1E-3, out)
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1000.0)
b = BODY(sol, 'RIGID', HEX({CUBE}, 1, 1, 1, 1, [1]*6), mat, label='cube')
INITIAL_VELOCITY(b, (0, 1, 0), (1, 2, 3))
FORCE(b, 'SPATIAL', (1, 1, 1), (1, 0, 0), TIME_SERIES([0, 0, 0.3, 700, 1, -300]))
s = BODY(sol, 'RIGID', SPHERE((3, 0, 0), 0.2, 1, 1), mat, label='ball')
INITIAL_VELOCITY(s, (0, 0, 0), (0.3, 5, 0))
s.scheme = 'RIG_IMP'
OUTPUT(sol, 0.05)
def cb():
    return 0 if stop_at is not None and sol.time >= stop_at - 1e-9 else 1
CALLBACK(sol, 0.01, (), cb)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 1.0)
"""


def stored(path):
    f = ResultsStore.open_existing(str(path))
    table, cols, state = f.table, f.column_names, f.read_all("state/rigid")
    # timers are wall-clock; offsets locate rows in the file (a continued run stores its
    # body-id block anew): neither is part of the state
    keep = [i for i, c in enumerate(cols) if c not in frames.TIMERS and not c.endswith("OFF")]
    return table[:, keep], state


def test_continue_is_bit_identical_to_an_uninterrupted_run(tmp_path, capsys):
    deck = write_deck(tmp_path / "split.py", SPLIT)
    assert main([deck, "out/straight"]) == 0
    assert main([deck, "out/split", "0.5"]) == 0
    t_stop = ResultsStore.open_existing(str(tmp_path / "out/split/split.results")).duration()[1]
    assert t_stop == pytest.approx(0.5, abs=1e-12)           # the first part ended at 0.5
    assert main(["-c", deck, "out/split"]) == 0
    a_table, a_state = stored(tmp_path / "out/straight/straight.results")
    b_table, b_state = stored(tmp_path / "out/split/split.results")
    assert a_table.shape == (21, a_table.shape[1])           # frames 0, 0.05, ..., 1.0
    np.testing.assert_array_equal(a_table, b_table)          # times, steps, energies, clock: exact
    np.testing.assert_array_equal(a_state, b_state)          # conf, velo, energy of every body: exact
    # the live ParaView series of the continued run covers every frame too
    import meshio

    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "out/split/split_grids.xmf")) as r:
        assert r.num_steps == 21
        r.read_points_cells()
        t_last, pd, _ = r.read_data(20)
    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "out/straight/straight_grids.xmf")) as r:
        r.read_points_cells()
        _, pd2, _ = r.read_data(20)
    assert t_last == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(pd["DISP"], pd2["DISP"])


# Rigid links and contacts (the double-pendulum pattern of inputs/double_pendulum.py on a
# floor): a fixed-point link and a ball-ball link whose lower ball swings into the floor
# and drags on it; a link that breaks in the first step (its id 3 is recycled by a
# contact); balls resting, rolling off the floor's edge (~0.8 s), dropped to land after the
# split (~0.9 s, restitution 0: it stays, on an id freed after the split), glued
# (cohesion 100 holds a net pull of 60 - 41 N up) and one falling from the broken link
# (bounces at ~0.43 s and ~0.86 s). Gauss-Seidel at 1e-3, so every
# reaction depends on the warm start.
LINKED = """\
args = NON_SOLFEC_ARGV() or []
out = args[0]
stop_at = float(args[1]) if len(args) > 1 else None
GEOMETRIC_EPSILON(1E-5)
sol = SOLFEC('DYNAMIC', 1E-3, out)
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3, restitution=0.5)
SURFACE_MATERIAL(sol, surf1=1, surf2=3, model='SIGNORINI_COULOMB', friction=0.3, cohesion=100.0)
SURFACE_MATERIAL(sol, surf1=1, surf2=4, model='SIGNORINI_COULOMB', friction=0.3, restitution=0.0)
mat = BULK_MATERIAL(sol, density=1000.0)
pts = [v for x in (-3, 3) for y in (-1, 1) for z in (-1, 0) for v in (x, y, z)]
BODY(sol, 'OBSTACLE', HULL(pts, 1, 1), mat, label='floor')
a, b, c = (0, 0, 0.5), (0.3, 0, 0.5), (0.3, 0, 0.12)
p1 = BODY(sol, 'RIGID', SPHERE(b, 0.1, 1, 2), mat, label='p1')
PUT_RIGID_LINK(p1, None, b, a)
p2 = BODY(sol, 'RIGID', SPHERE(c, 0.1, 1, 2), mat, label='p2')
PUT_RIGID_LINK(p2, p1, c, b)
brk = BODY(sol, 'RIGID', SPHERE((0.5, 0.5, 1.0), 0.1, 1, 2), mat, label='brk')
PUT_RIGID_LINK(brk, None, (0.5, 0.5, 1.0), (0.5, 0.5, 1.3), strength=30.0)
rest = BODY(sol, 'RIGID', SPHERE((-1, 0, 0.1), 0.1, 1, 2), mat, label='rest')
roll = BODY(sol, 'RIGID', SPHERE((1.8, 0, 0.1), 0.1, 1, 2), mat, label='roll')
INITIAL_VELOCITY(roll, (1.5, 0, 0), (0, 15, 0))
drop = BODY(sol, 'RIGID', SPHERE((-2, 0, 4.07), 0.1, 1, 4), mat, label='drop')
glue = BODY(sol, 'RIGID', SPHERE((-1.5, 0, 0.1), 0.1, 1, 3), mat, label='glue')
FORCE(glue, 'SPATIAL', (-1.5, 0, 0.1), (0, 0, 1), 60.0)
OUTPUT(sol, 0.01)
def cb():
    return 0 if stop_at is not None and sol.time >= stop_at - 1e-9 else 1
CALLBACK(sol, 0.01, (), cb)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 1000), 1.0)
"""


def frame_constraints(path):
    """Constraint rows of every frame of a results file."""
    store = ResultsStore.open_existing(str(path))
    return [np.array(store.frame_constraints(i)) for i in range(store.nframes)], store.times


def contacts(rows):
    """{id: (body 1, body 2)} of the contacts among constraint rows."""
    C = frames.CCOL
    con = rows[rows[:, C["KIND"]] == frames.CON_KIND_CODE["CONTACT"]]
    return {int(r[C["ID"]]): (int(r[C["BID1"]]), int(r[C["BID2"]])) for r in con}


def test_continue_with_links_and_contacts_is_bit_identical(tmp_path, capsys):
    """-c with rigid links and contacts alive at the split: frame tables, body states and
    constraint rows (ids, order, reactions, points, cohesion ...) equal the uninterrupted
    run's bit for bit, including contacts that end and are created after the split and
    reuse freed ids. Reference: the uninterrupted run."""
    deck = write_deck(tmp_path / "linked.py", LINKED)
    assert main([deck, "out/straight"]) == 0
    assert main([deck, "out/split", "0.5"]) == 0
    assert ResultsStore.open_existing(str(tmp_path / "out/split/split.results")).duration()[1] == pytest.approx(0.5)
    assert main(["-c", deck, "out/split"]) == 0
    a_cons, times = frame_constraints(tmp_path / "out/straight/straight.results")
    b_cons, _ = frame_constraints(tmp_path / "out/split/split.results")
    # the scenario the test is about (read from the uninterrupted run)
    C, K = frames.CCOL, frames.CON_KIND_CODE
    split = int(np.flatnonzero(np.isclose(times, 0.5))[0])
    at_split = a_cons[split]
    assert times.size == 101 and at_split[:, C["KIND"]].tolist().count(K["RIGLNK"]) == 2  # link 3 broke
    alive = contacts(at_split)
    assert len(alive) >= 3 and alive.get(3) is not None           # a contact reuses the link's id 3
    assert at_split[:, C["ID"]].tolist() != sorted(at_split[:, C["ID"]].tolist())   # rows not by id
    assert (at_split[:, C["RN"]] != 0).all()                     # every row carries a reaction
    glued = at_split[at_split[:, C["SURF1"]] + at_split[:, C["SURF2"]] == 4]
    assert glued.shape[0] == 1 and glued[0, C["COHESION"]] == 100.0 and glued[0, C["RN"]] < 0  # held by cohesion
    later = [contacts(r) for r in a_cons[split + 1:]]
    assert any(set(alive.items()) - set(c.items()) for c in later)        # a contact ends after the split
    reused = {(i, pair) for c in later for i, pair in c.items() if i in alive and alive[i] != pair}
    assert reused                                                # ... and its id goes to a new contact
    # bit-identical continuation
    a_table, a_state = stored(tmp_path / "out/straight/straight.results")
    b_table, b_state = stored(tmp_path / "out/split/split.results")
    np.testing.assert_array_equal(a_table, b_table)
    np.testing.assert_array_equal(a_state, b_state)
    assert len(b_cons) == len(a_cons)
    for i, (x, y) in enumerate(zip(a_cons, b_cons)):
        np.testing.assert_array_equal(x, y, err_msg=f"constraint rows of frame {i} (t = {times[i]:g})")


def test_continue_with_another_deck_is_refused(tmp_path, capsys):
    """-c with a deck that no longer creates a stored link: a clear error at the RUN line
    (the stored constraint set cannot be rebuilt), the results file left as it was."""
    deck = write_deck(tmp_path / "linked.py", LINKED)
    assert main([deck, "out/other", "0.05"]) == 0
    h5 = str(tmp_path / "out/other/other.results")
    n = ResultsStore.open_existing(h5).nframes
    other = write_deck(tmp_path / "other.py", LINKED.replace("PUT_RIGID_LINK(p2, p1, c, b)", ""))
    capsys.readouterr()
    assert main(["-c", other, "out/other"]) != 0
    err = capsys.readouterr().err
    assert "stored constraint 2 (RIGLNK, bodies 3 and 2)" in err and "deck differs" in err
    assert ResultsStore.open_existing(h5).nframes == n


KILL = """\
import time
args = NON_SOLFEC_ARGV() or []
sol = SOLFEC('DYNAMIC', 1E-3, 'out/kill')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1.0)
for i in range(20):
    b = BODY(sol, 'RIGID', SPHERE((i, 0, 0), 0.1, 1, 1), mat)
    INITIAL_VELOCITY(b, (0.1 * i, 1, 2), (0, 0, 0))
def slow():
    if args:
        time.sleep(float(args[0]))
    return 1
CALLBACK(sol, 1E-3, (), slow)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 2.0)
"""


def _frames_written(path):
    try:
        return ResultsStore.open_existing(str(path)).nframes
    except Exception:        # not created yet, or caught in the middle of its creation
        return 0


def test_sigkill_keeps_flushed_frames_and_continue_finishes_the_run(tmp_path, capsys):
    deck = write_deck(tmp_path / "kill.py", KILL)
    h5 = tmp_path / "out/kill/kill.results"
    proc = subprocess.Popen([sys.executable, "-m", "solfec_py", "--no-progress", deck, "0.002"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while _frames_written(h5) < 150 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be killed: " + proc.stderr.read().decode()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = ResultsStore.open_existing(str(h5))
    n = store.nframes
    assert 150 <= n < 2001
    # every surviving frame holds the exact free fall of every body at its stored time
    # (RIG_NEG is exact for constant gravity; 1e-10 covers the rounding of ~2000 steps)
    t = store.times
    np.testing.assert_allclose(t, 1e-3 * np.arange(n), atol=1e-12)
    for i in (0, n // 2, n - 1):
        ids, rows = store.frame_state("rigid", i)
        np.testing.assert_array_equal(ids, np.arange(1, 21))
        k = np.arange(20)
        np.testing.assert_allclose(rows[:, 9], k + 0.1 * k * t[i], atol=1e-10)
        np.testing.assert_allclose(rows[:, 11], 2 * t[i] - 0.5 * 9.81 * t[i] ** 2, atol=1e-10)
        np.testing.assert_allclose(rows[:, 17], 2 - 9.81 * t[i], atol=1e-10)
    # the ParaView series stays valid: its XML names only datasets that exist (the heavy
    # file is flushed before the XML names a frame), frames 0, 1, ... up to a recent one
    from test_results_xdmf import check_references

    xtimes = check_references(str(tmp_path / "out/kill/kill_grids.xmf"))
    assert 0 < len(xtimes) <= n
    np.testing.assert_allclose(xtimes, t[: len(xtimes)], atol=1e-12)
    # the killed results open in READ mode (the same words: results are read by the run
    # that computed them) ...
    probe = write_deck(tmp_path / "kill.py", KILL + "import json\njson.dump([sol.mode, DURATION(sol)], open('d.json', 'w'))\n")
    assert main([probe, "0.002"]) == 0
    mode, duration = json.load(open(tmp_path / "d.json"))
    assert mode == "READ" and duration[1] == pytest.approx(t[-1], abs=1e-12)
    # ... and -c finishes the run; its last frames equal an uninterrupted run's
    assert main(["-c", deck]) == 0
    clock = [0.0] + solfec_clock(1e-3, 2.0)     # Solfec's step count: 2001 steps here
    np.testing.assert_array_equal(ResultsStore.open_existing(str(h5)).times, clock)
    xtimes = check_references(str(tmp_path / "out/kill/kill_grids.xmf"))   # every frame of the store
    np.testing.assert_allclose(xtimes, clock, atol=1e-12)
    os.rename(tmp_path / "out/kill", tmp_path / "out/killed")
    assert main([deck]) == 0                                  # the uninterrupted run
    straight = ResultsStore.open_existing(str(h5))
    continued = ResultsStore.open_existing(str(tmp_path / "out/killed/kill.results"))
    np.testing.assert_array_equal(continued.times, straight.times)
    for i in (n - 1, n, len(clock) - 1):
        np.testing.assert_array_equal(continued.frame_state("rigid", i)[1], straight.frame_state("rigid", i)[1])


INIT = """\
import json
args = NON_SOLFEC_ARGV()
sol = SOLFEC('DYNAMIC', 1E-3, 'out/' + args[0])
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1.0)
if args[0] == 'source':
    a = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat, label='alpha')
    b = BODY(sol, 'RIGID', SPHERE((1, 0, 0), 0.1, 1, 1), mat, label='beta')
    INITIAL_VELOCITY(a, (1, 0, 0), (0, 0, 3))
    INITIAL_VELOCITY(b, (0, 1, 0), (2, 0, 0))
    OUTPUT(sol, 0.1)
    RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.3)
else:   # created in the other order: ids differ, labels match
    b = BODY(sol, 'RIGID', SPHERE((1, 0, 0), 0.1, 1, 1), mat, label='beta')
    a = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat, label='alpha')
    if args[1] == 'id':
        INITIALIZE_STATE(sol, 'out/source', 0.2)
    else:
        INITIALIZE_STATE(sol, 'out/source', 0.2, 'alp')
    json.dump({'a': [a.conf, a.velo], 'b': [b.conf, b.velo]}, open(args[1] + '.json', 'w'))
"""


def test_initialize_state_by_id_and_by_label(tmp_path, capsys):
    deck = write_deck(tmp_path / "init.py", INIT)
    assert main([deck, "source"]) == 0
    src = ResultsStore.open_existing(str(tmp_path / "out/source/source.results"))
    i = src.frame_index(0.2)
    assert src.times[i] == pytest.approx(0.2, abs=1e-12)
    ids, rows = src.frame_state("rigid", i)
    state = {int(k): (rows[j, :12], rows[j, 12:18]) for j, k in enumerate(ids)}   # id 1 alpha, 2 beta
    assert main([deck, "target", "id"]) == 0
    got = json.load(open(tmp_path / "id.json"))
    # by id: body 1 of the target is 'beta' and receives the source's body 1 ('alpha') state
    np.testing.assert_array_equal(got["b"][0], state[1][0])
    np.testing.assert_array_equal(got["b"][1], state[1][1])
    np.testing.assert_array_equal(got["a"][0], state[2][0])
    assert main([deck, "target2", "label"]) == 0
    got = json.load(open(tmp_path / "label.json"))
    # by label: only 'alpha' matches the expression and gets alpha's state; beta keeps its own
    np.testing.assert_array_equal(got["a"][0], state[1][0])
    np.testing.assert_array_equal(got["a"][1], state[1][1])
    np.testing.assert_array_equal(got["b"][0], [1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0])
    np.testing.assert_array_equal(got["b"][1], [0, 0, 0, 0, 0, 0])
