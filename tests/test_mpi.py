"""One model on several MPI ranks (docs/parallel.md) against the same deck on one rank: the
states stored by `mpiexec -n K` equal the serial run's to the constraint solver's tolerance,
bodies that cross a partition plane migrate, `-c` continues with another number of ranks,
a serial READ opens a parallel run, and a failure on one rank ends every rank with one
message. Skipped where mpi4py or an mpiexec is missing (the `[mpi]` extra brings both).

Tolerance of the comparisons (STATE_TOL): the ranks sweep the constraint rows in another
order than the serial run, so the reactions agree to Gauss-Seidel's epsilon (1e-6, relative)
and no closer; over the 50 steps of these decks that bounds the differences of positions
and velocities (of order 1 m, 1 m/s) by about 50 * 1e-6 * (h * g) ~ 1e-7; STATE_TOL = 1e-6
leaves a margin of 10, while an error of the method (a missing ghost, a lost contact, a
body counted twice) moves the cubes by millimetres within these runs.
"""
from __future__ import annotations

import glob
import importlib.util
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from solfec_py.output.store_reader import StoreReader

MPIEXEC = next((p for p in (os.path.join(os.path.dirname(sys.executable), "mpiexec"),)
                if os.access(p, os.X_OK)), None)
if MPIEXEC is None:
    import shutil

    MPIEXEC = shutil.which("mpiexec")
pytestmark = pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None or MPIEXEC is None,
                                reason="needs mpi4py and mpiexec (pip install 'solfec-py[mpi]')")

STATE_TOL = 1e-6
TIMEOUT = 240

CUBES = """\
args = NON_SOLFEC_ARGV() or []
M, kind, T = int(args[0]), args[1], float(args[2])
sol = SOLFEC('DYNAMIC', 1E-3, 'out/cubes')
GRAVITY(sol, (0, 0, -10))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
BODY(sol, 'OBSTACLE', HULL([-1,-1,-1, 2*M,-1,-1, 2*M,2*M,-1, -1,2*M,-1,
                            -1,-1,0, 2*M,-1,0, 2*M,2*M,0, -1,2*M,0], 1, 1), mat, label='floor')
CUBE = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
for i in range(M):
    for j in range(M):
        for k in range(M):
            shape = TRANSLATE(HEX(CUBE, 1, 1, 1, 1, [1]*6), (i*1.001, j*1.001, k*1.001 + 0.001))
            if kind == 'RIGID':
                BODY(sol, 'RIGID', shape, mat)
            else:
                BODY(sol, 'FINITE_ELEMENT', shape, mat, form=kind)
OUTPUT(sol, 0.01)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), T)
if sol.mode == 'READ':
    last = DURATION(sol)[1]
    SEEK(sol, last)
    import json
    json.dump({'t': sol.time, 'x': {b.id: list(b.conf[9:12]) for b in sol.bodies}},
              open('read.json', 'w'))
"""

TRAIN = """\
# four boxes sliding in +x over a frictionless floor: the leading boxes cross the plane that
# splits the ranks; IMBALANCE_TOLERANCE (the deck's first word) decides whether the bodies
# are partitioned again (1.1, every 5 steps) or migrate across the first partition (10)
tolerance = float(NON_SOLFEC_ARGV()[0])
sol = SOLFEC('DYNAMIC', 1E-3, 'out/train')
GRAVITY(sol, (0, 0, -10))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.0)
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
BODY(sol, 'OBSTACLE', HULL([-2,-1,-1, 12,-1,-1, 12,2,-1, -2,2,-1, -2,-1,0, 12,-1,0, 12,2,0, -2,2,0], 1, 1), mat)
CUBE = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
boxes = []
for i in range(4):
    b = BODY(sol, 'RIGID', TRANSLATE(HEX(CUBE, 1, 1, 1, 1, [1]*6), (1.5 * i, 0, 0.001)), mat)
    INITIAL_VELOCITY(b, (10, 0, 0), (0, 0, 0))
    boxes.append(b)
IMBALANCE_TOLERANCE(sol, tolerance, 1.0, 5)
owned = []
def look():
    owned.append(sorted(b.id for b in boxes if HERE(sol, b)))
    return 1
CALLBACK(sol, 0.02, None, lambda _: look())
OUTPUT(sol, 0.01)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), 0.25)
look()
import json
json.dump(owned, open('owned%d.json' % RANK(), 'w'))
"""


def _env():
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    return env


def run(tmp_path, deck_text, words, ranks=1, options=(), name="deck.py", check=True):
    deck = tmp_path / name
    deck.write_text(deck_text)
    command = ([MPIEXEC, "-n", str(ranks)] if ranks > 1 else []) + \
        [sys.executable, "-m", "solfec_py", *options, str(deck), *map(str, words)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT, env=_env())
    if check:
        assert done.returncode == 0, done.stderr[-3000:]
    return done


def store(path):
    return StoreReader.open_existing(glob.glob(os.path.join(str(path), "*.results"))[0])


def states(reader, family="rigid"):
    """Per frame: the family's states ordered by body id."""
    out = []
    for f in range(reader.nframes):
        ids, values = reader.frame_state(family, f)
        out.append((np.sort(ids), np.asarray(values)[np.argsort(ids)]))
    return out


def assert_same_run(a, b, family="rigid", columns=18):
    """Equal frames, body ids and contact counts; states (conf and velo: `columns`) within
    STATE_TOL."""
    assert a.nframes == b.nframes
    np.testing.assert_allclose(a.times, b.times, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(a.column("CONS"), b.column("CONS"))
    np.testing.assert_array_equal(a.column("BODS"), b.column("BODS"))
    for (ia, sa), (ib, sb) in zip(states(a, family), states(b, family)):
        np.testing.assert_array_equal(ia, ib)
        np.testing.assert_allclose(sa[:, :columns], sb[:, :columns], rtol=0, atol=STATE_TOL)


def test_rigid_cubes_on_two_ranks_match_the_serial_run(tmp_path):
    run(tmp_path, CUBES, [3, "RIGID", 0.05])
    os.rename(tmp_path / "out/cubes", tmp_path / "serial")
    done = run(tmp_path, CUBES, [3, "RIGID", 0.05], ranks=2)
    assert done.stderr.count("no live ParaView files") == 1        # rank 0 speaks, once
    assert_same_run(store(tmp_path / "serial"), store(tmp_path / "out/cubes"))


def test_finite_element_cubes_on_three_ranks_match_the_serial_run(tmp_path):
    run(tmp_path, CUBES, [2, "TL", 0.03])
    os.rename(tmp_path / "out/cubes", tmp_path / "serial")
    run(tmp_path, CUBES, [2, "TL", 0.03], ranks=3)
    a, b = store(tmp_path / "serial"), store(tmp_path / "out/cubes")
    assert a.nframes == b.nframes == 4
    np.testing.assert_array_equal(a.column("CONS"), b.column("CONS"))
    for f in range(a.nframes):
        ia, xa = a.frame_values("finite_element", f)[:2]
        ib, xb = b.frame_values("finite_element", f)[:2]
        np.testing.assert_array_equal(ia, ib)
        np.testing.assert_allclose(xa, xb, rtol=0, atol=STATE_TOL)


def test_continued_on_another_number_of_ranks_and_read_serially(tmp_path):
    """0.03 s on 2 ranks, continued (-c) to 0.06 s on 1 rank, equals 0.06 s on 1 rank; the
    serial READ of the run gives the stored positions."""
    run(tmp_path, CUBES, [3, "RIGID", 0.06])
    os.rename(tmp_path / "out/cubes", tmp_path / "serial")
    run(tmp_path, CUBES, [3, "RIGID", 0.03], ranks=2)
    run(tmp_path, CUBES, [3, "RIGID", 0.06], options=["-c"])
    assert_same_run(store(tmp_path / "serial"), store(tmp_path / "out/cubes"))
    os.rename(tmp_path / "serial", tmp_path / "out/serial")
    done = run(tmp_path, CUBES, [3, "RIGID", 0.06])
    assert "READ mode" in done.stderr
    import json

    got = json.load(open(tmp_path / "read.json"))
    reader = store(tmp_path / "out/cubes")
    ids, values = reader.frame_state("rigid", reader.nframes - 1)
    assert abs(got["t"] - 0.06) < 1e-9
    # conf[9:12] and the RIGID state columns 9..11: the current mass centre (docs/results.md)
    read = np.array([got["x"][str(i)] for i in ids])
    np.testing.assert_allclose(read, values[:, 9:12], rtol=0, atol=1e-12)


def _owners(tmp_path, tolerance):
    import json

    run(tmp_path, TRAIN, [tolerance], ranks=2)
    owned = [json.load(open(tmp_path / f"owned{r}.json")) for r in (0, 1)]
    for a, b in zip(*owned):                       # one owner per body at every look
        assert sorted(a + b) == [2, 3, 4, 5]
    return [o[0] for o in owned], [o[-1] for o in owned]


def test_bodies_crossing_the_partition_migrate(tmp_path):
    """With a tolerance of 10 the first partition stays: the boxes that slide 2.5 m across
    its plane (between the 2nd and 3rd box, x ~ 2.75 m) change owner, and the stored run
    equals the serial one."""
    run(tmp_path, TRAIN, [10])
    os.rename(tmp_path / "out/train", tmp_path / "serial")
    first, last = _owners(tmp_path, 10)
    assert [len(o) for o in first] == [2, 2] and [len(o) for o in last] == [0, 4]
    assert_same_run(store(tmp_path / "serial"), store(tmp_path / "out/train"))


EXTENTS_TRAIN = TRAIN.replace("sol = SOLFEC('DYNAMIC', 1E-3, 'out/train')",
                              "sol = SOLFEC('DYNAMIC', 1E-3, 'out/train')\nEXTENTS(sol, (-3, -2, -2, 7.5, 3, 3))") \
    .replace("GRAVITY(sol, (0, 0, -10))", "GRAVITY(sol, (0, 0, 0))") \
    .replace("BODY(sol, 'OBSTACLE', HULL([-2,-1,-1, 12,-1,-1, 12,2,-1, -2,2,-1, -2,-1,0, 12,-1,0, 12,2,0, -2,2,0], 1, 1), mat)\n",
             "") \
    .replace("RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), 0.25)", "RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), 0.5)") \
    .replace("owned.append(sorted(b.id for b in boxes if HERE(sol, b)))",
             "owned.append(sorted(b.id for b in boxes if not b.deleted and HERE(sol, b)))") \
    .replace("json.dump(owned, open('owned%d.json' % RANK(), 'w'))",
             "json.dump(owned, open('owned%d.json' % RANK(), 'w'))\n"
             "json.dump([b.id for b in boxes if b.deleted], open('deleted%d.json' % RANK(), 'w'))")


def test_bodies_leaving_the_extents_are_deleted_on_every_rank(tmp_path):
    """The train of boxes, in free flight at 10 m/s, leaves EXTENTS (x > 7.5 m): the
    leading boxes are deleted by their owners, some after crossing the partition plane, and
    every rank knows them deleted (and drops its copies). The stored run equals the serial one, frame for frame,
    body counts included."""
    import json

    assert EXTENTS_TRAIN.count("EXTENTS(") == 1 and "OBSTACLE" not in EXTENTS_TRAIN
    run(tmp_path, EXTENTS_TRAIN, [10])
    os.rename(tmp_path / "out/train", tmp_path / "serial")
    run(tmp_path, EXTENTS_TRAIN, [10], ranks=2)
    serial, parallel = store(tmp_path / "serial"), store(tmp_path / "out/train")
    bods = serial.column("BODS")
    assert bods[0] - bods[-1] >= 2                  # the leading boxes left (x > 7.5 m)
    assert_same_run(serial, parallel)
    survivors = [int(i) for i in states(serial)[-1][0]]
    owned = [json.load(open(tmp_path / f"owned{r}.json")) for r in (0, 1)]
    assert sorted(owned[0][-1] + owned[1][-1]) == survivors and len(survivors) == 4 - (bods[0] - bods[-1])
    gone = sorted(set(owned[0][0] + owned[1][0]) - set(survivors))   # (the four boxes at the first look)
    assert [sorted(json.load(open(tmp_path / f"deleted{r}.json"))) for r in (0, 1)] == [gone, gone]


def test_imbalance_tolerance_repartitions(tmp_path):
    """With IMBALANCE_TOLERANCE 1.1 every 5 steps the bodies are partitioned again as they
    move: each rank keeps two boxes (looked at after the RUN, ten steps past the last
    repartition; a box crossing the plane is with the other rank until the next multiple
    of 5 steps)."""
    first, last = _owners(tmp_path, 1.1)
    assert [len(o) for o in first] == [len(o) for o in last] == [2, 2]


PILE = """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/pile')
GRAVITY(sol, (0, 0, -10))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
mat = BULK_MATERIAL(sol, density=1E3)
BODY(sol, 'OBSTACLE', HULL([-1,-1,-1, 5,-1,-1, 5,5,-1, -1,5,-1, -1,-1,0, 5,-1,0, 5,5,0, -1,5,0], 1, 1), mat)
CUBE = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
for i in range(4):
    for j in range(4):
        for k in range(4):
            BODY(sol, 'RIGID', TRANSLATE(HEX(CUBE, 1, 1, 1, 1, [1]*6), (i*1.001, j*1.001, k*1.001 + 0.001)), mat)
IMBALANCE_TOLERANCE(sol, 1.1, 1.0, 5)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), 0.03)
import json
json.dump([list(b.conf[9:12]) for b in sol.bodies if b.kind == 'RIGID' and HERE(sol, b)],
          open('pile%d.json' % RANK(), 'w'))
"""


def test_a_pile_on_an_obstacle_is_cut_into_columns(tmp_path):
    """A 4 x 4 x 4 array of cubes settling on a floor OBSTACLE (as wide as it is tall): the
    floor is left out of the partition (it has no degrees of freedom, and its contacts are
    worked by the cubes' owners), so the cut runs between columns of cubes, each rank owns
    32 cubes in all four layers, and no repartition is needed while the pile settles. (With
    the floor counted, its centre below the array made the height the longest extent, and
    the cut between layers put the contacts of the lower layers on one rank.)"""
    import json

    run(tmp_path, PILE, [], ranks=2)
    parts = [np.array(json.load(open(tmp_path / f"pile{r}.json"))).reshape(-1, 3) for r in (0, 1)]
    assert [p.shape[0] for p in parts] == [32, 32]
    lo, hi = sorted(parts, key=lambda p: p[:, 0].mean())
    assert lo[:, 0].max() < hi[:, 0].min()                    # a plane across x separates them
    for p in parts:                                           # every layer on both ranks
        assert len(np.unique(np.round(p[:, 2]))) == 4


FAILING = """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/fail')
mat = BULK_MATERIAL(sol)
BODY(sol, 'RIGID', SPHERE((0, 0, 0), 1, 1, 1), mat)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-4, 100), 0.01)
if RANK() == 1:
    BODY(sol, 'RIGID', SPHERE((0, 0, 0), -1, 1, 1), mat)
BARRIER()
"""


def test_an_error_on_one_rank_ends_every_rank_with_one_message(tmp_path):
    start = time.monotonic()
    done = run(tmp_path, FAILING, [], ranks=2, check=False)
    assert done.returncode != 0
    assert time.monotonic() - start < 60
    # mpiexec forwards a rank's stderr; some launchers merge it into their stdout
    lines = [line for line in (done.stderr + done.stdout).splitlines() if "deck.py:6:" in line]
    assert len(lines) == 1 and lines[0].startswith("[rank 1]") and "radius" in lines[0], (
        f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}")


def test_an_error_on_every_rank_is_printed_once(tmp_path):
    done = run(tmp_path, FAILING.replace("if RANK() == 1:", "if True:"), [], ranks=2, check=False)
    assert done.returncode != 0
    assert len([line for line in (done.stderr + done.stdout).splitlines()
                if "deck.py:6:" in line]) >= 1, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"


BLOWUP = """\
how = NON_SOLFEC_ARGV()[0]
sol = SOLFEC('DYNAMIC', 1E-2, 'out/blowup')
mat = BULK_MATERIAL(sol, density=1000.0)
balls = []
for x, k in ((-5.0, 1.0), (5.0, 1E8 if how == 'spring' else 1.0)):
    anchor = BODY(sol, 'OBSTACLE', SPHERE((x - 1, 0, 0), 0.1, 1, 1), mat)
    ball = BODY(sol, 'RIGID', SPHERE((x, 0, 0), 0.1, 1, 1), mat, label='ball%d' % len(balls))
    BODY_CHARS(ball, 1.0, 1.0, (x, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    PUT_SPRING(anchor, (x - 1, 0, 0), ball, (x, 0, 0), lambda s, v, k=k: -k * s, (-1, 1))
    INITIAL_VELOCITY(ball, (2, 0, 0), (0, 0, 0))
    balls.append(ball)
if how == 'force':
    FORCE(balls[1], 'SPATIAL', (5, 0, 0), (1, 0, 0), 1E300)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 100), 0.05)
"""


@pytest.mark.parametrize("how, what", [("spring", "kinetic energy blow-up"), ("force", "infinite energy")])
def test_a_blow_up_on_one_rank_stops_every_rank_as_the_serial_run_stops(tmp_path, how, what):
    """Two balls on springs, one on each rank; the one at x = 5 blows up in the first step
    (a spring of 1e8 N/m at h = 0.01 s: 2 J -> 5e7 J, more than SOLFEC.blowup = 1e6 times
    the model's 4 J), or gets an infinite energy (a force of 1e300 N). Its owner finds it,
    every rank stops at that step, and the message, printed once, is the serial run's."""
    (tmp_path / "serial").mkdir()
    (tmp_path / "mpi").mkdir()
    serial = run(tmp_path / "serial", BLOWUP, [how], check=False)
    done = run(tmp_path / "mpi", BLOWUP, [how], ranks=2, check=False)
    assert serial.returncode != 0 and done.returncode != 0
    expected = [line for line in (serial.stderr + serial.stdout).splitlines() if what in line]
    assert len(expected) == 1 and "body 4 ('ball1') at time 0.01" in expected[0], serial.stderr[-2000:]
    message = expected[0][expected[0].index(what):]
    lines = [line for line in (done.stderr + done.stdout).splitlines() if what in line]
    assert len(lines) == 1 and lines[0].endswith(message), f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"


KILLED = """\
import os
sol = SOLFEC('DYNAMIC', 1E-3, 'out/killed')
GRAVITY(sol, (0, 0, -10))
mat = BULK_MATERIAL(sol)
BODY(sol, 'OBSTACLE', HULL([-5,-5,-1, 5,-5,-1, 5,5,-1, -5,5,-1, -5,-5,0, 5,-5,0, 5,5,0, -5,5,0], 1, 1), mat)
for i in range(8):
    BODY(sol, 'RIGID', SPHERE((i - 3.5, 0, 0.5), 0.5, 1, 1), mat)
open('pid%d' % RANK(), 'w').write(str(os.getpid()))
OUTPUT(sol, 0.001)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-4, 100), 1000.0)
"""


def test_a_rank_killed_ends_the_run_and_the_results_stay_readable(tmp_path):
    deck = tmp_path / "deck.py"
    deck.write_text(KILLED)
    proc = subprocess.Popen([MPIEXEC, "-n", "2", sys.executable, "-m", "solfec_py", str(deck)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            results = glob.glob(str(tmp_path / "out/killed/*.results"))
            if (tmp_path / "pid1").exists() and results and store(tmp_path / "out/killed").nframes > 20:
                break
            time.sleep(0.5)
        os.kill(int((tmp_path / "pid1").read_text()), signal.SIGKILL)
        killed = time.monotonic()
        out, err = proc.communicate(timeout=60)
        err = out + err
        assert time.monotonic() - killed < 10
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert "killed" in err.lower() or "signal 9" in err.lower() or "terminat" in err.lower(), err[-2000:]
    reader = store(tmp_path / "out/killed")
    assert reader.nframes > 20 and np.all(np.diff(reader.times) > 0)


RANK0 = """\
# bodies made on rank 0 only, before the first RUN and in a CALLBACK during it, as
# Solfec-1.0's rotating-drum.py does; a command on a body of another rank does nothing
sol = SOLFEC('DYNAMIC', 1E-3, 'out/rank0')
GRAVITY(sol, (0, 0, -10))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
floor = BODY(sol, 'OBSTACLE', HULL([-1,-1,-1, 9,-1,-1, 9,1,-1, -1,1,-1, -1,-1,0, 9,-1,0, 9,1,0, -1,1,0], 1, 1), mat)
made = []
def row(z):
    if RANK() == 0:
        for i in range(8):
            made.append(BODY(sol, 'RIGID', SPHERE((i + 0.2 * z, 0, z), 0.5, 1, 1), mat))
row(0.5)
seen = []
def later(_):
    if not seen:
        row(1.6)
    seen.append([b.velo is None for b in made])       # None: the body is on another rank
    INITIAL_VELOCITY(floor, (0, 0, 0), (0, 0, 0))    # on every rank; nothing where the floor is not
    return 1
CALLBACK(sol, 0.05, None, later)
OUTPUT(sol, 0.01)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 5000, meritval=1E-14), 0.15)
import json
json.dump(seen, open('seen%d.json' % RANK(), 'w'))
"""


def test_bodies_made_on_rank_zero_only(tmp_path):
    """Eight spheres made under 'if RANK() == 0:' before RUN and eight more in a CALLBACK:
    the parallel run holds every body once and equals the serial run (a tight solver,
    epsilon 1e-10, so that the sweep order changes the states by less than STATE_TOL)."""
    run(tmp_path, RANK0, [])
    os.rename(tmp_path / "out/rank0", tmp_path / "serial")
    run(tmp_path, RANK0, [], ranks=2)
    serial, parallel = store(tmp_path / "serial"), store(tmp_path / "out/rank0")
    assert np.array_equal(serial.column("BODS"), parallel.column("BODS"))
    assert serial.column("BODS")[-1] == 17
    assert_same_run(serial, parallel)
    import json

    last = json.load(open(tmp_path / "seen0.json"))[-1]
    assert len(last) == 16 and 0 < sum(last) < 16          # rank 0 made them all, rank 1 took some
