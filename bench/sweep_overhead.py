"""Benchmark: what a sweep costs beyond its runs (solfec_py.sweep, docs/sweeps.md).

N runs (default 100) of a tiny deck (one rigid sphere, 10 steps, one SWEEP_RESULT: each run
is mostly the start of a solfec-py process) made twice: the serial loop (`workers=0`: one
run process after another, as a shell loop would) and a sweep on a LocalCluster of K workers
(default 2; the cluster's start included). Prints one JSON line: both wall times, the
speed-up, the cluster's start, Dask's own per-task overhead (N no-op tasks through the same
kind of cluster, submit to result, per task) and the sweep's overhead per run (K x the
Dask wall time less the time spent inside the run processes, over N).

    python bench/sweep_overhead.py [N] [K]
"""
from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time

DECK = """\
words = dict(w.split('=', 1) for w in NON_SOLFEC_ARGV() or [])
sol = SOLFEC('DYNAMIC', 1E-3, 'out/tiny')
sol.verbose = 'OFF'
ball = BODY(sol, 'RIGID', SPHERE((0, 0, float(words['z'])), 0.1, 1, 1), BULK_MATERIAL(sol))
GRAVITY(sol, (0, 0, -9.81))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 10), 0.01)
SWEEP_RESULT('z_end', ball.conf[11])
"""
STEPS, DT = 10, 1e-3


def _noop(i):
    return i


def dask_task_overhead(n: int, workers: int) -> tuple:
    """(cluster start s, per-task ms): n no-op tasks submitted at once, best of 3 batches."""
    import logging

    from distributed import Client, LocalCluster

    start = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      scheduler_port=0, silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        started = time.perf_counter() - start
        best = float("inf")
        for batch in range(3):
            t0 = time.perf_counter()
            futures = [client.submit(_noop, i, pure=False) for i in range(n)]
            client.gather(futures)
            best = min(best, time.perf_counter() - t0)
            del futures
    return started, best / n * 1e3


def main(argv: list) -> None:
    from solfec_py import __version__
    from solfec_py.sweep import run

    n = int(argv[0]) if argv else 100
    k = int(argv[1]) if len(argv) > 1 else 2
    values = {"z": [f"{1 + i / n:.4f}" for i in range(n)]}
    load = os.getloadavg()[0]          # other users of the cores: the speed-up depends on it
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            with open("tiny.py", "w") as handle:
                handle.write(DECK)
            run("tiny.py", {"z": ["0.5"]}, workers=0, out="warm", progress=False)   # numba cache, file cache
            t0 = time.perf_counter()
            serial = run("tiny.py", values, workers=0, out="serial", progress=False)
            wall_serial = time.perf_counter() - t0
            t0 = time.perf_counter()
            swept = run("tiny.py", values, workers=k, out="dask", progress=False)
            wall_dask = time.perf_counter() - t0
        finally:
            os.chdir(here)
    assert (serial["status"] == "done").all() and (swept["status"] == "done").all()
    assert list(serial["z_end"]) == list(swept["z_end"])                      # same runs, same values
    cluster_start, task_ms = dask_task_overhead(n, k)
    inside = float(swept["wall_s"].sum())
    print(json.dumps({
        "code": "solfec-py", "version": __version__, "scene": "sweep overhead", "n": n, "dt": DT, "steps": STEPS,
        "workers": k, "cores": os.cpu_count(), "load_before": round(load, 2),
        "wall_s": round(wall_dask, 3), "wall_serial_s": round(wall_serial, 3), "speedup": round(wall_serial / wall_dask, 3),
        "run_mean_s_serial": round(float(serial["wall_s"].mean()), 3),
        "run_mean_s_dask": round(inside / n, 3),
        "cluster_start_s": round(cluster_start, 3),
        "dask_task_overhead_ms": round(task_ms, 3),
        "sweep_overhead_per_run_ms": round((k * (wall_dask - cluster_start) - inside) / n * 1e3, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
