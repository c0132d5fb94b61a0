"""Kill test of the results store: runs killed with SIGKILL at random instants, then
continued with -c (killed again, 2 or 3 kills per round), then continued to the end.

Every round starts from nothing: the run is killed at a random instant, then `-c` runs are
killed at random instants (one or two of them), and a last `-c` runs to the end. After
every kill the stored results must open (no unreadable store) and every stored frame must
equal the same frame of an uninterrupted run bit for bit (frame table without its
wall-clock timers and row offsets, body ids and states of every family, carried scheme
state, constraint rows); the last `-c` must succeed (no failed continuation) and leave
every frame of the uninterrupted run, the final state included, bit for bit. Half the
rounds commit a segment after every frame (SOLFEC_PY_FLUSH_SECONDS=0: a file written and
merged at every step, the most exposed case), the others use the default 0.2 s. The live
ParaView series is on, as by default.

The model: rigid spheres and a pseudo-rigid cube falling onto a floor (contacts, a
Gauss-Seidel solve at every step), a frame at every step, 200 steps (~1 s).

Two ways to start a run: `fork` (the program forks itself and runs the deck in the child:
rounds of ~1 s, used by the test suite) and `exec` (a new `python -m solfec_py` process,
as a user starts it: ~3 s more per start).

    python bench/store_kill.py [rounds] [fork|exec]        (default: 50 fork)

Prints one JSON line: rounds, kills, frames checked, unreadable stores, failed
continuations, frames that differ, wall time.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

DECK = """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/k')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3, restitution=0.2)
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
BODY(sol, 'OBSTACLE', HULL([-3,-3,-1, 3,-3,-1, 3,3,-1, -3,3,-1, -3,-3,0, 3,-3,0, 3,3,0, -3,3,0], 1, 1), mat)
for i in range(12):
    b = BODY(sol, 'RIGID', SPHERE((-2.2 + 0.4 * i, 0.1 * (i % 3), 0.12 + 0.02 * i), 0.1, 1, 2), mat)
    INITIAL_VELOCITY(b, (0.5, 0, 0), (0, 5, 0))
CUBE = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
p = BODY(sol, 'PSEUDO_RIGID', TRANSLATE(SCALE(HEX(CUBE, 1, 1, 1, 1, [2]*6), (0.5, 0.5, 0.5)), (0, 1, 0.05)), mat)
INITIAL_VELOCITY(p, (0, 0, -1), (0, 0, 0))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-4, 100), DURATION)
"""


def deck(duration: float) -> str:
    return DECK.replace("DURATION", repr(duration))


def frame_digests(path: str) -> list:
    """Per frame, the bytes of everything stored for it but the timers and row offsets."""
    from solfec_py.output import frames
    from solfec_py.output.store_reader import StoreReader

    store = StoreReader.open_existing(path)
    keep = [i for i, c in enumerate(store.column_names) if c not in frames.TIMERS and not c.endswith("OFF")]
    out = []
    with store.held_open():
        for i in range(store.nframes):
            parts = [store.table[i, keep].tobytes()]
            for fam in frames.ALL_FAMILIES:
                ids, sizes, values = store.frame_values(fam, i)
                parts += [ids.tobytes(), sizes.tobytes(), values.tobytes()]
            parts += [store.frame_carry("rigid", i).tobytes(), np.asarray(store.frame_constraints(i)).tobytes()]
            out.append(b"".join(parts))
    return out


def _child(workdir: str, args: list, flush: float) -> None:
    """The forked child: run the deck as `solfec-py` would and exit without cleanup."""
    code = 1
    try:
        os.chdir(workdir)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        from solfec_py.cli import main
        from solfec_py.output import store

        store.FLUSH_SECONDS = flush
        code = main(["--no-progress"] + args)
    finally:
        os._exit(code)


def _in_process(workdir: str, args: list) -> int:
    from solfec_py.cli import main

    here = os.getcwd()
    os.chdir(workdir)
    try:
        return main(["--no-progress"] + args)
    finally:
        os.chdir(here)


def start(workdir: str, args: list, flush: float, how: str):
    """A running deck: ('fork', pid) or ('exec', Popen)."""
    if how == "fork":
        pid = os.fork()
        if pid == 0:
            _child(workdir, args, flush)
        return ("fork", pid)
    env = dict(os.environ, SOLFEC_PY_FLUSH_SECONDS=str(flush))
    proc = subprocess.Popen([sys.executable, "-m", "solfec_py", "--no-progress"] + args, cwd=workdir, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return ("exec", proc)


def wait(run, timeout: float = 600.0) -> int:
    kind, handle = run
    if kind == "exec":
        _, err = handle.communicate(timeout=timeout)
        return handle.returncode if handle.returncode == 0 else -abs(handle.returncode or 1)
    _, status = os.waitpid(handle, 0)
    return os.waitstatus_to_exitcode(status)


def kill(run, after: float) -> bool:
    """SIGKILL `run` `after` seconds from now; False if it had ended by then."""
    kind, handle = run
    pid = handle if kind == "fork" else handle.pid
    deadline = time.monotonic() + after
    while time.monotonic() < deadline:
        if kind == "exec" and handle.poll() is not None:
            return False
        if kind == "fork" and os.waitpid(pid, os.WNOHANG) != (0, 0):
            return False
        time.sleep(min(0.005, max(deadline - time.monotonic(), 0.0)))
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    wait(run)
    return True


def reference(root: str, how: str, duration: float) -> tuple[list, float]:
    """Frame digests of the uninterrupted run and its wall time (start included)."""
    work = os.path.join(root, "reference")
    os.makedirs(work)
    with open(os.path.join(work, "k.py"), "w") as f:
        f.write(deck(duration))
    t0 = time.monotonic()
    if how == "fork":           # in this process: every later child inherits the compiled kernels
        rc = _in_process(work, ["k.py"])
    else:
        rc = wait(start(work, ["k.py"], 0.2, how))
    if rc == 0 and how == "fork":           # the time of a run as the rounds start it
        shutil.rmtree(os.path.join(work, "out"))
        t0 = time.monotonic()
        rc = wait(start(work, ["k.py"], 0.2, how))
    wall = time.monotonic() - t0
    if rc != 0:
        raise RuntimeError(f"the uninterrupted run failed (exit status {rc})")
    from solfec_py.output.store import results_path

    return frame_digests(results_path(os.path.join(work, "out/k"))), wall


def check(path: str, ref: list, stats: dict) -> int:
    """After a kill: the store opens and its frames are those of the reference; returns
    how many frames it holds."""
    from solfec_py.output.store import exists

    if not exists(path):
        return 0                                    # killed before its first commit
    try:
        got = frame_digests(path)
    except Exception as exc:                        # noqa: BLE001 (any failure to read counts)
        stats["unreadable"] += 1
        stats["errors"].append(f"unreadable: {exc}")
        return 0
    stats["frames_checked"] += len(got)
    bad = [i for i, d in enumerate(got) if i >= len(ref) or d != ref[i]]
    stats["frames_differ"] += len(bad)
    if bad:
        stats["errors"].append(f"frames differ from the uninterrupted run: {bad[:5]}")
    return len(got)


def one_round(root: str, k: int, rng, ref: list, wall: float, how: str, stats: dict, duration: float) -> None:
    from solfec_py.output.store import results_path

    work = os.path.join(root, f"round{k}")
    os.makedirs(work)
    with open(os.path.join(work, "k.py"), "w") as f:
        f.write(deck(duration))
    path = results_path(os.path.join(work, "out/k"))
    flush = 0.0 if k % 2 == 0 else 0.2
    kills, stored = int(rng.integers(2, 4)), 0
    for j in range(kills):
        args = ["k.py"] if j == 0 else ["-c", "k.py"]
        left = wall * (1.0 - stored / len(ref))      # the time the run has left
        if kill(start(work, args, flush, how), float(rng.uniform(0.0, left))):
            stats["kills"] += 1
        path = results_path(os.path.join(work, "out/k"))
        stored = check(path, ref, stats)
    rc = wait(start(work, ["-c", "k.py"], flush, how))
    path = results_path(os.path.join(work, "out/k"))
    if rc != 0:
        stats["failed_continuations"] += 1
        stats["errors"].append(f"round {k}: the last -c exited with {rc}")
        return
    got = frame_digests(path)
    stats["frames_checked"] += len(got)
    if got != ref:
        stats["final_differ"] += 1
        stats["errors"].append(f"round {k}: the continued results differ from the uninterrupted run")
    shutil.rmtree(work, ignore_errors=True)


def run_rounds(rounds: int, how: str = "fork", seed: int = 2024, root: str | None = None,
               duration: float = 0.2) -> dict:
    rng = np.random.default_rng(seed)
    stats = dict(rounds=rounds, start=how, steps=int(round(duration / 1e-3)), kills=0, frames_checked=0, unreadable=0, failed_continuations=0,
                 frames_differ=0, final_differ=0, errors=[])
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        ref, wall = reference(tmp, how, duration)
        stats["reference_frames"], stats["reference_wall_s"] = len(ref), round(wall, 2)
        for k in range(rounds):
            one_round(tmp, k, rng, ref, wall, how, stats, duration)
    stats["wall_s"] = round(time.monotonic() - t0, 1)
    return stats


def main(argv: list) -> None:
    from solfec_py import __version__

    rounds = int(argv[0]) if argv else 50
    how = argv[1] if len(argv) > 1 else "fork"
    stats = run_rounds(rounds, how)
    stats["errors"] = stats["errors"][:10]
    print(json.dumps({"code": "solfec-py", "version": __version__, "scene": "store kill", **stats}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
