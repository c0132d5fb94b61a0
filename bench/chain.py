"""Benchmark: a chain of N rigid links (default 10 000) released horizontally under gravity,
solved by Gauss-Seidel; prints one JSON line with the block updates (reactions x iterations) per
second of the sweep kernel and of the whole constraint solve, per step.

Run:  python bench/chain.py [N] [steps] [epsilon] [maxiter]
Goal: >= 2 M block updates per second on one core.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time


def build(api, n: int, h: float, outdir: str):
    sol = api.SOLFEC('DYNAMIC', h, outdir)
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    api.GRAVITY(sol, (0, 0, -9.81))
    previous = None
    for i in range(1, n + 1):
        p = (0.1 * i, 0.0, 0.0)
        ball = api.BODY(sol, 'RIGID', api.SPHERE(p, 0.02, 1, 1), mat)
        api.BODY_CHARS(ball, 1.0, 1.0, p, (1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3))
        if previous is None:
            api.PUT_RIGID_LINK(ball, None, p, (0.0, 0.0, 0.0))
        else:
            api.PUT_RIGID_LINK(ball, previous[0], p, previous[1])
        previous = (ball, p)
    return sol


def main(argv=None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if len(argv) > 0 else 10000
    steps = int(argv[1]) if len(argv) > 1 else 5
    epsilon = float(argv[2]) if len(argv) > 2 else 1e-4
    maxiter = int(argv[3]) if len(argv) > 3 else 1000
    from types import SimpleNamespace

    from solfec_py import session
    from solfec_py.api import NAMES
    from solfec_py.solvers import gauss_seidel

    api = SimpleNamespace(**NAMES)
    session.start(progress=False, overwrite=True)
    kernel = {"time": 0.0, "updates": 0}
    original = gauss_seidel.iterate

    def timed_iterate(order, *args):
        start = time.perf_counter()
        result = original(order, *args)
        kernel["time"] += time.perf_counter() - start
        it0 = args[-7]                         # iterate(..., it0, nsweeps, rerhist, merhist, num, Ut, omega)
        kernel["updates"] += order.size * (result[0] - it0)
        return result

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        sol = build(api, n, 1e-3, os.path.join(tmp, "chain"))
        build_time = time.perf_counter() - t0
        gs = api.GAUSS_SEIDEL_SOLVER(epsilon, maxiter)
        api.RUN(sol, gs, 1e-3)                 # warm-up: numba compilation / cache load
        gauss_seidel.iterate = timed_iterate
        gs.itershist = 'ON'
        t0 = time.perf_counter()
        try:
            api.RUN(sol, gs, steps * 1e-3)
        finally:
            gauss_seidel.iterate = original
        run_time = time.perf_counter() - t0
    consol = sol.domain.timers.get("CONSOL", 0.0)
    from solfec_py import __version__

    result = {
        "code": "solfec-py", "version": __version__, "scene": "rigid-link chain", "n": n, "dt": 1e-3,
        "steps": steps, "wall_s": round(run_time, 4), "body_steps_per_s": n * steps / run_time,
        "contacts": 0, "epsilon": epsilon,
        "gs_iterations_per_step": gs.itershist,
        "last_error": gs.rerhist[-1] if gs.rerhist else None,
        "kernel_block_updates_per_s": kernel["updates"] / kernel["time"] if kernel["time"] else None,
        "kernel_seconds": kernel["time"],
        "solve_block_updates_per_s": kernel["updates"] / consol if consol else None,
        "run_seconds_per_step": run_time / steps,
        "build_seconds": build_time,
    }
    print(json.dumps(result), flush=True)            # one JSON line (bench/README.md)
    return result


if __name__ == "__main__":
    main()
