"""One run of a sweep (layer 8): the function a Dask worker executes. It starts the run as
its own process (`solfec_py.sweep.child`, i.e. `solfec-py -s NAME deck.py WORDS`), kills it
at the timeout, and returns the run's record: status (done / failed / timeout), the deck's
error line, wall time, the SWEEP_RESULT values, the results files and their digest. The
record is also kept as `RUNDIR/record.json`, which lets a rerun of the sweep skip the run.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass


RECORD, CHILD, VALUES, STDOUT, STDERR = "record.json", "child.json", "values.jsonl", "stdout.txt", "stderr.txt"


@dataclass(frozen=True)
class Task:
    deck: str                  # the deck path as given (relative to cwd or absolute)
    words: tuple               # NON_SOLFEC_ARGV() of the run
    name: str                  # the run's SUBDIR
    rundir: str                # absolute: bookkeeping of this run (logs, record)
    cwd: str                   # absolute: where the run starts (relative outputs resolve here)
    timeout: float | None = None
    legacy: str = "auto"

    def command(self) -> list:
        """The solfec-py arguments of the run (what one would type after `solfec-py`). With -w:
        the sweep runs only what it decided to compute, and results found in the SUBDIR (a
        partial run, another sweep's) would otherwise open in READ mode and not be computed."""
        return ["-w", "-s", self.name, "--no-progress", "--legacy", self.legacy, self.deck] + list(self.words)


def deck_error(stderr: str, deck: str) -> str:
    """The deck's error line from the run's stderr: the last `deck.py:LINE: message` line,
    else the last non-empty line."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith(deck + ":"):
            return line
    return lines[-1] if lines else ""


def killed_by(number: int) -> str:
    """The error of a run ended by a signal: `killed by signal 9 (SIGKILL)`."""
    try:
        name = f" ({signal.Signals(number).name})"
    except ValueError:
        name = ""
    return f"killed by signal {number}{name}" + (" (by the system when out of memory, or by a user)"
                                                 if number == signal.SIGKILL else "")


def _kill(proc: subprocess.Popen) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _output_digest(path: str) -> str:
    with open(path, "rb") as handle:
        return "stdout:" + hashlib.sha1(handle.read()).hexdigest()


def execute(task: Task) -> dict:
    """Run `task` in its own process; returns its record (see the module docstring)."""
    if os.path.isdir(task.rundir):
        shutil.rmtree(task.rundir)
    os.makedirs(task.rundir)
    child_record = os.path.join(task.rundir, CHILD)
    from solfec_py.api.sweep import ENV, read_values      # here: the Dask worker imports this module light

    env = dict(os.environ)
    env[ENV] = os.path.join(task.rundir, VALUES)
    cmd = [sys.executable, "-m", "solfec_py.sweep.child", child_record, "--"] + task.command()
    start = time.perf_counter()
    status, error = "done", ""
    with open(os.path.join(task.rundir, STDOUT), "wb") as out, open(os.path.join(task.rundir, STDERR), "wb") as err:
        proc = subprocess.Popen(cmd, cwd=task.cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=hasattr(os, "killpg"))
        try:
            proc.wait(timeout=task.timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            status, error = "timeout", f"timed out after {task.timeout:g} s (killed)"
        except BaseException:       # KeyboardInterrupt in a serial sweep: no orphan run
            _kill(proc)
            raise
    wall = time.perf_counter() - start
    child = {}
    if os.path.isfile(child_record):
        with open(child_record, encoding="utf-8") as handle:
            child = json.load(handle)
    if status == "done" and (proc.returncode != 0 or not child):
        status = "failed"
        if proc.returncode is not None and proc.returncode < 0:    # killed: what it printed last is not why
            error = killed_by(-proc.returncode)
        else:
            with open(os.path.join(task.rundir, STDERR), encoding="utf-8", errors="replace") as handle:
                error = deck_error(handle.read(), task.deck) or f"exit status {proc.returncode}"
    record = {"run": task.name, "status": status, "error": error, "wall_s": wall,
              "values": read_values(env[ENV]), "results": child.get("results", []),
              "digest": child.get("digest") or _output_digest(os.path.join(task.rundir, STDOUT)),
              "exit": proc.returncode, "task": asdict(task), "deck_abs": os.path.join(task.cwd, task.deck)}
    with open(os.path.join(task.rundir, RECORD), "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=1)
    return record


def lost(task: Task, exc: BaseException) -> dict:
    """The record of a run whose task did not come back (its Dask worker died, ...)."""
    return {"run": task.name, "status": "failed", "error": f"the task was lost: {type(exc).__name__}: {exc}",
            "wall_s": float("nan"), "values": {}, "results": [], "digest": None, "exit": None,
            "task": asdict(task), "deck_abs": os.path.join(task.cwd, task.deck)}


def finished(task: Task) -> dict | None:
    """The record of a complete earlier run of `task` (same deck and words, status done, every
    results file still readable with frames, as READ mode would open it), else None."""
    path = os.path.join(task.rundir, RECORD)
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if (record.get("status") != "done" or record.get("deck_abs") != os.path.join(task.cwd, task.deck)
            or tuple(record.get("task", {}).get("words", ())) != tuple(task.words)):
        return None
    from solfec_py.errors import ResultsError
    from solfec_py.output.store import ResultsStore, exists

    for results in record.get("results", []):
        try:
            if not exists(results) or ResultsStore.open_existing(results).nframes == 0:
                return None
        except ResultsError:
            return None
    return record
