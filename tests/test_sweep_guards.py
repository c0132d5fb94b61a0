"""Sweeps that end or start without a word: a run killed by a signal says so in its error
column (not whatever it printed last), and a sweep of more than 10 000 runs starts only
when confirmed (--yes)."""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from solfec_py.cli import main
from solfec_py.sweep import SweepError, run
from solfec_py.sweep import plan as P

from conftest import write_deck

pytest.importorskip("pandas")

# prints an unrelated warning on stderr, then sleeps (its pid in pid_<run>) until killed
SLEEPER = """\
import os, sys, time
sys.stderr.write('WARNING: an unrelated warning of the deck\\n')
sys.stderr.flush()
open('pid_%s' % SUBDIR(), 'w').write(str(os.getpid()))
time.sleep(60)
"""


def _kill_when_started(path, pids):
    for _ in range(600):
        if path.exists() and path.read_text():
            pid = int(path.read_text())
            pids.append(pid)
            os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.05)


@pytest.mark.parametrize("workers", [0, pytest.param(1, marks=pytest.mark.slow)])   # 1: a Dask cluster (~15 s)
def test_run_killed_by_sigkill_says_so(tmp_path, workers):
    """The run's process is killed with SIGKILL (as the system's out-of-memory killer or a
    user would): its row reads 'failed', 'killed by signal 9 (SIGKILL) ...', one by one
    (workers=0) and on a Dask worker (workers=1), not the deck's last stderr line."""
    if workers:
        pytest.importorskip("distributed")
    name = os.path.basename(write_deck(tmp_path / "sleeper.py", SLEEPER))
    pids: list = []
    killer = threading.Thread(target=_kill_when_started, args=(tmp_path / "pid_x=1", pids))
    killer.start()
    try:
        df = run(name, {"x": [1]}, workers=workers, progress=False)
    finally:
        killer.join()
    assert pids, "the run never started"
    assert df["status"][0] == "failed"
    assert df["error"][0].startswith("killed by signal 9 (SIGKILL)"), df["error"][0]


def test_a_sweep_of_a_million_runs_asks_for_yes(tmp_path, capsys):
    """10^6 runs (two parameters of 1000 values): refused before anything is written, with the
    count and the way to confirm, from run() and from the command line (exit status 2)."""
    name = os.path.basename(write_deck(tmp_path / "lite.py", "print(1)\n"))
    values = list(range(1000))
    start = time.monotonic()
    with pytest.raises(SweepError, match=r"the sweep has 1,000,000 runs, more than 10,000: .* pass --yes"):
        run(name, {"a": values, "b": values}, workers=0, out=str(tmp_path / "big"))
    assert time.monotonic() - start < 5 and not (tmp_path / "big").exists()
    text = ",".join(map(str, values))
    assert main(["sweep", name, "--param", f"a={text}", "--param", f"b={text}", "--workers", "0"]) == 2
    assert "1,000,000 runs" in capsys.readouterr().err
    assert P.size([P.make_param("a", values), P.make_param("b", values[:10])], "grid", 3) == 30_000
    P.confirm(10_000, yes=False)                      # up to 10 000 runs start without asking
    P.confirm(10 ** 6, yes=True)
