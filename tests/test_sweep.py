"""Parameter sweeps (solfec_py/sweep): the bookkeeping table, failed and timed-out runs,
resume and --force, the identical-runs warning, bad input, plots, the missing extra, and on
Dask: a 2 x 3 grid on a LocalCluster of 2 workers equal to the same runs made one by one,
and the masonry-arch threshold study. Every Dask cluster a test starts is closed by a
context manager, and runs are processes that end with their worker."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

from solfec_py.cli import main
from solfec_py.sweep import SweepError, SweepWarning, run
from solfec_py.sweep import table as T

from conftest import INPUTS, REPO, write_deck

pytest.importorskip("pandas")

# a deck without a model: y = x^2 reported; x < 0 fails at line 4; sleep=S sleeps first
LITE = """\
import os, time
words = dict(w.split('=', 1) for w in NON_SOLFEC_ARGV() or [])
x = float(words['x'])
if x < 0: raise ValueError('x must be >= 0, got %g' % x)
if 'sleep' in words:
    open('pid_%s' % SUBDIR(), 'w').write(str(os.getpid()))
    time.sleep(float(words['sleep']))
SWEEP_RESULT('y', x * x)
print('y =', x * x)
"""

# a ball of radius r dropped from height h onto a floor block (restitution 0.5, friction 0.3),
# 200 steps; a ball that would start inside the floor (r >= h) fails at line 5
BALL = """\
# ball.py: a ball of radius r dropped from height h onto a floor block
words = dict(w.split('=', 1) for w in NON_SOLFEC_ARGV() or [])
r, h = float(words.get('r', '0.1')), float(words.get('h', '0.5'))
if r >= h:
    raise ValueError('the ball (radius %g) starts inside the floor (height %g)' % (r, h))
sol = SOLFEC('DYNAMIC', 2E-3, 'out/ball')
sol.verbose = 'OFF'
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3, restitution=0.5)
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
GRAVITY(sol, (0, 0, -9.81))
BODY(sol, 'OBSTACLE', HEX([-1, -1, -0.2, 1, -1, -0.2, 1, 1, -0.2, -1, 1, -0.2,
                          -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0], 1, 1, 1, 0, [0] * 6), mat)
ball = BODY(sol, 'RIGID', SPHERE((0, 0, h), r, 1, 1), mat)
INITIAL_VELOCITY(ball, (0.5, 0, 0), (0, 0, 0))
OUTPUT(sol, 0.05)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), 0.4)
SWEEP_RESULT('z', ball.conf[11])
SWEEP_RESULT('ke', ENERGY(sol)[0])
"""


@pytest.fixture(autouse=True)
def _worktree_on_path(monkeypatch):
    """Runs are new processes: they import this checkout's solfec_py, as the tests do."""
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", REPO + (os.pathsep + path if path else ""))


def deck(tmp_path, text, name="lite.py"):
    """Write a deck into the test's directory (where the runs start); its relative name."""
    return os.path.basename(write_deck(tmp_path / name, text))


# ------------------------------------------------------------------ without Dask (workers=0)
def test_serial_sweep_table_values_and_failed_run(tmp_path):
    name = deck(tmp_path, LITE)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SweepWarning)     # the runs differ: no warning
        df = run(name, {"x": [1, 2.5, -1]}, workers=0, out="sw")
    assert list(df.columns) == ["run", "x", "status", "error", "wall_s", "y", "resumed", "results", "log"]
    assert list(df["run"]) == ["x=1", "x=2.5", "x=-1"] and list(df["x"]) == [1.0, 2.5, -1.0]
    assert list(df["status"]) == ["done", "done", "failed"]
    assert df["y"][0] == 1.0 and df["y"][1] == 6.25 and np.isnan(df["y"][2])
    assert df["error"][2] == "lite.py:4: ValueError: x must be >= 0, got -1"    # the deck's line
    assert (df["wall_s"] > 0).all() and not df["resumed"].any()
    sweepdir = df.attrs["sweep_dir"]
    assert sweepdir == str(tmp_path / "sw")
    rows = T.read(sweepdir)
    assert [r["status"] for r in rows] == ["done", "done", "failed"] and rows[1]["y"] == 6.25
    assert rows[2]["error"] == df["error"][2] and rows[0]["resumed"] is False
    logs = os.path.join(sweepdir, "runs", "x=2.5")
    assert open(os.path.join(logs, "stdout.txt")).read() == "y = 6.25\n"
    meta = json.load(open(os.path.join(sweepdir, "sweep.json")))
    assert meta["params"] == {"x": ["1", "2.5", "-1"]} and meta["runs"] == 3


def test_resume_skips_finished_runs_and_force_redoes_them(tmp_path):
    name = deck(tmp_path, LITE)
    first = run(name, ["x=2,-1"], workers=0)
    stamp = os.path.getmtime(os.path.join(first.attrs["sweep_dir"], "runs", "x=2", "record.json"))
    again = run(name, ["x=2,-1"], workers=0)
    assert list(again["resumed"]) == [True, False]                   # the failed run is redone
    assert list(again["status"]) == ["done", "failed"] and again["y"][0] == 4.0
    assert os.path.getmtime(os.path.join(first.attrs["sweep_dir"], "runs", "x=2", "record.json")) == stamp
    bigger = run(name, ["x=2,3"], workers=0)                         # an extended sweep reuses its runs
    assert list(bigger["resumed"]) == [True, False] and bigger["y"][1] == 9.0
    forced = run(name, ["x=2,3"], workers=0, force=True)
    assert not forced["resumed"].any()
    other_words = run(name, ["x=1"], words=["sleep=0"], workers=0)     # other fixed words: not the same run
    assert not other_words["resumed"].any()


def test_timeout_kills_the_run(tmp_path):
    name = deck(tmp_path, LITE)
    start = time.monotonic()
    # 15 s: time for the deck's process to start and write its pid even on a loaded machine
    # (3 s was too short at a load of 10 on two cores: killed before it wrote the file)
    df = run(name, {"x": [1]}, words=["sleep=120"], workers=0, timeout=15)
    assert time.monotonic() - start < 60
    assert df["status"][0] == "timeout" and df["error"][0] == "timed out after 15 s (killed)"
    pid = int((tmp_path / "pid_x=1").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_deck_ignoring_its_words_gives_a_warning(tmp_path):
    name = deck(tmp_path, "SWEEP_RESULT('y', 1.0)\n", "deaf.py")
    with pytest.warns(SweepWarning, match="all 3 runs gave identical results"):
        run(name, {"x": [1, 2, 3]}, workers=0)


def test_deck_ignoring_its_words_cli_warning(tmp_path, capsys):
    name = deck(tmp_path, "print('hello')\n", "deaf.py")     # no results, no values: its output compared
    assert main(["sweep", name, "--param", "x=1,2", "--workers", "0"]) == 0
    captured = capsys.readouterr()
    assert "WARNING: all 2 runs gave identical results" in captured.err
    assert "2 runs: 2 done, 0 failed, 0 timed out" in captured.out


def test_cli_sweep_and_plot(tmp_path, capsys):
    name = deck(tmp_path, LITE)
    assert main(["sweep", name, "--param", "x=0,1,2,-1", "--workers", "0", "--out", "s", "--plot", "x,y"]) == 1
    out = capsys.readouterr().out
    assert "4 runs: 3 done, 1 failed, 0 timed out" in out
    assert "x=-1: failed: lite.py:4: ValueError: x must be >= 0, got -1" in out
    assert os.path.getsize(tmp_path / "s" / "sweep_y_vs_x.png") > 1000
    assert main(["plot", "s", "--x", "x", "--y", "wall_s", "-o", "w.png"]) == 0
    assert os.path.getsize(tmp_path / "w.png") > 1000
    assert main(["plot", "s", "--x", "x", "--y", "nope"]) == 1
    assert "--y 'nope' is not a numeric column of s/sweep.csv; numeric columns: ['wall_s', 'x', 'y']" \
        in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore:No artists with labels")      # Axes.plot is replaced below
def test_plot_groups_a_grid_and_scatters_samples(tmp_path, monkeypatch):
    """The plot of a table made from records (no runs): one curve per value of the other
    swept parameter, failed runs left out; a sampled study as a scatter."""
    import matplotlib.image
    import matplotlib.pyplot as plt

    from solfec_py.sweep import plan as P
    from solfec_py.sweep.plot import plot_sweep

    runs = P.runs(P.design([P.parse_param("k=a,b"), P.parse_param("x=1,2,3")]))
    records = {r.name: {"status": "done", "error": "", "wall_s": 1.0, "values": {"y": float(r.params["x"]) ** 2},
                        "results": []} for r in runs}
    records[runs[5].name]["status"] = "failed"
    os.makedirs("g")
    T.write_csv(os.path.join("g", T.CSV), *T.rows(runs, records, "g"))
    with open(os.path.join("g", "sweep.json"), "w") as handle:
        json.dump({"params": {"k": ["a", "b"], "x": ["1", "2", "3"]}, "samples": None}, handle)
    drawn = []
    monkeypatch.setattr(plt.Axes, "plot", lambda self, xs, ys, *a, **kw: drawn.append((list(xs), list(ys), kw)))
    path = plot_sweep("g", "x", "y")
    assert [(xs, ys, kw["label"]) for xs, ys, kw in drawn] == [([1, 2, 3], [1.0, 4.0, 9.0], "k=a"),
                                                              ([1, 2], [1.0, 4.0], "k=b")]
    assert matplotlib.image.imread(path).shape[0] > 100
    with open(os.path.join("g", "sweep.json"), "w") as handle:
        json.dump({"params": {"k": ["a", "b"]}, "samples": 3}, handle)
    scattered = []
    monkeypatch.setattr(plt.Axes, "scatter", lambda self, xs, ys, **kw: scattered.append((list(xs), list(ys))))
    plot_sweep("g", "x", "y", output="s.png")
    assert scattered == [([1, 2, 3, 1, 2], [1.0, 4.0, 9.0, 1.0, 4.0])] and os.path.isfile("s.png")


def test_sampled_sweep(tmp_path):
    name = deck(tmp_path, LITE)
    df = run(name, samples=2, dists={"x": "uniform:0:1"}, workers=0, out="smp", plot="x,y")
    assert len(df) == 2 and df["x"].between(0, 1).all() and os.path.isfile(df.attrs["plot"])
    assert list(df["y"]) == [x * x for x in df["x"]]


@pytest.mark.parametrize("args, words", [
    (["--param", "x"], "parameter 'x' must be NAME=V1,V2,..."),
    (["--param", "x=1,2", "--param", "x=3"], "parameter 'x' is given twice"),
    (["--param", "x=1,2", "--param", "k=a", "--zip"], "--zip needs parameter lists of equal length"),
    (["--dist", "x=uniform:0:1"], "need the number of samples (--samples N)"),
    (["--samples", "3", "--dist", "x=beta:1:2"], "unknown kind 'beta'"),
    (["--param", "x=1", "--timeout", "-1"], "timeout must be a number >= 1e-09, got -1.0"),
    (["--param", "x=1", "--workers", "-2"], "workers must be a whole number >= 0, got -2"),
    (["--param", "x=1", "--plot", "x"], "plot must be 'X,Y'"),
    ([], "nothing to sweep"),
])
def test_cli_bad_input_exits_2_with_a_message(tmp_path, capsys, args, words):
    name = deck(tmp_path, LITE)
    assert main(["sweep", name, "--workers", "0"] + args) == 2
    err = capsys.readouterr().err
    assert err.startswith("solfec-py sweep: ") and words in err and "Traceback" not in err


def test_missing_deck(tmp_path, capsys):
    assert main(["sweep", "nope.py", "--param", "x=1"]) == 2
    assert "cannot open deck 'nope.py'" in capsys.readouterr().err
    with pytest.raises(SweepError, match="'deck' must be a deck file, got 'nope.py'"):
        run("nope.py", {"x": [1]})


def test_missing_extra_names_it(tmp_path, monkeypatch, capsys):
    from solfec_py.sweep import ExtraMissingError

    name = deck(tmp_path, LITE)
    monkeypatch.setitem(sys.modules, "distributed", None)         # import distributed -> ImportError
    with pytest.raises(ExtraMissingError, match=r"optional extra \[sweep\].*pip install 'solfec-py\[sweep\]'"):
        run(name, {"x": [1]}, workers=1)
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert main(["sweep", name, "--param", "x=1", "--workers", "0"]) == 2
    assert "cannot import 'pandas'" in capsys.readouterr().err


def test_parquet_table_equals_the_csv(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    name = deck(tmp_path, LITE)
    df = run(name, {"x": [1, -1]}, workers=0)
    back = pd.read_parquet(os.path.join(df.attrs["sweep_dir"], "sweep.parquet"))
    assert list(back.columns) == list(df.columns)
    assert list(back["status"]) == ["done", "failed"] and back["y"][0] == 1.0 and back["error"][1] == df["error"][1]


def test_a_run_ends_when_its_worker_dies(tmp_path):
    """The run process (sweep.child) ends itself within ~1 s when the process that started it
    (a Dask worker) is killed, so a killed sweep leaves no run behind."""
    name = deck(tmp_path, LITE)
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""\
        import subprocess, sys, time
        subprocess.Popen([sys.executable, '-m', 'solfec_py.sweep.child', 'rec.json', '--', '-s', 'w',
                          {name!r}, 'x=1', 'sleep=60'])
        time.sleep(60)
        """)], cwd=tmp_path)
    try:
        for _ in range(300):
            if (tmp_path / "pid_w").exists() and (tmp_path / "pid_w").read_text():
                break
            time.sleep(0.1)
        pid = int((tmp_path / "pid_w").read_text())
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    psutil = pytest.importorskip("psutil")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.2)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the run outlived its parent by 10 s")


# ------------------------------------------------------------------ on Dask
def test_unreachable_scheduler_is_a_clear_error_within_the_timeout(tmp_path, capsys):
    pytest.importorskip("distributed")
    name = deck(tmp_path, LITE)
    start = time.monotonic()
    with pytest.raises(SweepError, match=r"cannot reach the Dask scheduler at 'tcp://127.0.0.1:9' within 2 s"):
        run(name, {"x": [1]}, scheduler="tcp://127.0.0.1:9", connect_timeout=2)
    assert time.monotonic() - start < 2 + 5           # the timeout plus the imports and one retry
    assert main(["sweep", name, "--param", "x=1", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"]) == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_two_local_workers_small(tmp_path):
    pytest.importorskip("distributed")
    name = deck(tmp_path, LITE)
    df = run(name, {"x": [1, 2, -3]}, workers=2)
    assert list(df["status"]) == ["done", "done", "failed"] and list(df["y"][:2]) == [1.0, 4.0]
    assert df["error"][2] == "lite.py:4: ValueError: x must be >= 0, got -3"


def _datasets(path):
    """Every dataset of a results file; the frame table without its wall-clock timer columns
    (TIMINT, CONDET, ...: they time the run, they are not results)."""
    from solfec_py.output.frames import TIMERS
    from solfec_py.output.store_reader import StoreReader

    f = StoreReader.open_existing(path)
    out = {name: f.read_all(name) for name in f.segs.names()}
    keep = [i for i, c in enumerate(f.column_names) if c not in TIMERS]
    out["frames"] = f.table[:, keep]
    return out


@pytest.mark.slow
def test_grid_on_two_local_workers_equals_runs_one_by_one(tmp_path, capsys):
    """A 2 x 3 grid (r = 0.05, 0.1, 0.3; h = 0.25, 0.5) on a LocalCluster of 2 workers: the
    run r = 0.3, h = 0.25 fails at its deck line, the 5 others finish; each equals the same
    `solfec-py -s NAME ball.py r=.. h=..` run made by hand: every HDF5 dataset bit for bit
    except the wall-clock timer columns of the frame table (so the file bytes differ), and
    the reported values exactly. A rerun on a scheduler address skips the 5 finished runs."""
    distributed = pytest.importorskip("distributed")
    name = deck(tmp_path, BALL, "ball.py")
    assert main(["sweep", name, "--param", "r=0.05,0.1,0.3", "--param", "h=0.25,0.5", "--workers", "2",
                 "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "6 runs: 5 done, 1 failed, 0 timed out" in out
    rows = T.read(tmp_path / "out" / "ball_sweep")
    assert [(r["r"], r["h"]) for r in rows] == [(0.05, 0.25), (0.05, 0.5), (0.1, 0.25), (0.1, 0.5), (0.3, 0.25),
                                                (0.3, 0.5)]
    failed = [r for r in rows if r["status"] != "done"]
    assert [(r["run"], r["status"], r["error"]) for r in failed] == [
        ("r=0.3_h=0.25", "failed", "ball.py:5: ValueError: the ball (radius 0.3) starts inside the floor (height 0.25)")]

    from solfec_py.api.sweep import reported

    os.makedirs(tmp_path / "byhand")
    os.chdir(tmp_path / "byhand")
    for row in rows:
        if row["status"] != "done":
            continue
        assert main(["-s", row["run"], os.path.join("..", name), f"r={row['r']}", f"h={row['h']}"]) == 0
        assert reported() == {"z": row["z"], "ke": row["ke"]}
        mine = os.path.join("out", "ball", row["run"], row["run"] + ".results")
        swept = row["results"]
        assert swept == str(tmp_path / "out" / "ball" / row["run"] / (row["run"] + ".results"))
        a, b = _datasets(mine), _datasets(swept)
        assert sorted(a) == sorted(b)
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=f"{row['run']}: dataset {key}")
    assert rows[1]["z"] > rows[0]["z"] and all(r["ke"] > 0 for r in rows if r["status"] == "done")
    os.chdir(tmp_path)

    stamps = {r["run"]: os.stat(r["results"]).st_mtime_ns for r in rows if r["status"] == "done"}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  scheduler_port=0) as cluster:
        again = run(name, {"r": ["0.05", "0.1", "0.3"], "h": ["0.25", "0.5"]}, scheduler=cluster.scheduler_address)
    assert int(again["resumed"].sum()) == 5 and list(again["run"][~again["resumed"]]) == ["r=0.3_h=0.25"]
    assert list(again["status"]) == [r["status"] for r in rows]
    assert {r: os.stat(again["results"][i]).st_mtime_ns for i, r in enumerate(again["run"]) if r in stamps} == stamps

    partial = again["results"][0]                       # results damaged: redone, not skipped
    os.truncate(os.path.join(partial, sorted(n for n in os.listdir(partial) if n.endswith(".h5"))[0]), 1000)
    third = run(name, {"r": ["0.05", "0.1", "0.3"], "h": ["0.25", "0.5"]}, workers=0)
    assert list(third["resumed"]) == [False, True, True, True, False, True]
    assert third["z"][0] == rows[0]["z"]


@pytest.mark.slow
def test_masonry_arch_threshold_study(tmp_path, capsys):
    """`solfec-py sweep inputs/masonry_arch.py stop=0.25 --param ratio=0.1094,0.1095` on 2
    workers (about 2 x 40 s) reproduces the split the single runs show
    (tests/test_contact_arch.py, same criteria at 0.25 s instead of 0.35 s): h/r = 0.1095 keeps
    its kinetic energy below Solfec's stable bound 1e-4 at every 0.05 s sample; 0.1094 is
    collapsing, its energy growing over every interval from 0.1 s on and above that bound by
    0.25 s (in the single runs 1.53e-4 at 0.25 s against 1.68e-5 for 0.1095)."""
    pytest.importorskip("distributed")
    from test_contact_arch import _cases

    arch = os.path.join(INPUTS, "masonry_arch.py")
    assert main(["sweep", arch, "stop=0.25", "--param", "ratio=0.1094,0.1095", "--workers", "2", "--no-progress",
                 "--plot", "ratio,ke_max"]) == 0
    rows = {r["ratio"]: r for r in T.read(tmp_path / "out" / "masonry_arch_sweep")}
    assert set(rows) == {0.1094, 0.1095} and all(r["status"] == "done" for r in rows.values())
    cases = {}
    for ratio, row in rows.items():
        log = tmp_path / "out" / "masonry_arch_sweep" / row["log"] / "stdout.txt"
        cases.update(_cases(log.read_text()))
    (ke_s, joints_s, _), (ke_c, _, _) = cases[0.1095], cases[0.1094]
    assert len(ke_s) == len(ke_c) == 5
    assert max(ke_s) < 1e-4 and rows[0.1095]["ke_max"] < 1e-4
    assert all(b > a for a, b in zip(ke_c[1:], ke_c[2:])) and ke_c[-1] > 1e-4
    assert rows[0.1094]["ke"] == pytest.approx(ke_c[-1], rel=1e-3)       # the table holds the log's value
    assert len(joints_s) == 28 and max(joints_s) == 6 and rows[0.1095]["contacts"] == sum(joints_s)
    assert "plot: " in capsys.readouterr().out


def test_another_sweep_over_the_same_subdirs_computes_its_runs(tmp_path):
    """Two sweeps (other --out) of one deck share SUBDIRs: the second computes its run (-w)
    instead of opening the first one's results in READ mode, where RUN does not move."""
    name = deck(tmp_path, """\
        sol = SOLFEC('DYNAMIC', 1E-3, 'out/fall')
        ball = BODY(sol, 'RIGID', SPHERE((0, 0, float(NON_SOLFEC_ARGV()[0][2:])), 0.1, 1, 1), BULK_MATERIAL(sol))
        GRAVITY(sol, (0, 0, -10))
        RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 10), 0.01)
        SWEEP_RESULT('z_end', ball.conf[11])
        """, "fall.py")
    first = run(name, {"z": [1]}, workers=0, out="a")
    second = run(name, {"z": [1]}, workers=0, out="b")
    assert first["z_end"][0] == second["z_end"][0] < 1 - 0.5 * 10 * 0.009 ** 2     # fallen for about 0.01 s
