"""Benchmark: the cost of one Gauss-Seidel row solve on a captured S1 problem (bench/README.md).

Runs S1 (spheres_in_box.py, n spheres) for K steps, captures the local dynamics of the last
step as it enters the solve (warm-started reactions included) and times, on copies of it,
the whole solve (`gauss_seidel.run`, GAUSS_SEIDEL_SOLVER(1e-3, 1000) as in S1) and a sweep
that only forms the coupled velocities b = B + sum W_ab R_b of every row (the neighbour
sum), CPU medians of `--reps`. A replay of the solve's sweeps through diagonal.ssn_block
(the same arithmetic as the sweep's contact row) counts the SEMISMOOTH_NEWTON iterations
per row (`replay_is_the_solve`: it ends with the solve's reactions, bit for bit). Prints
one JSON line.

    python bench/gs_row.py [n3] [--steps K] [--reps R]

n3: spheres (a cube, default 1000); K: steps run before the capture (default 600, the pile
has settled); R: timed repetitions (default 5).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

import spheres_in_box as S     # bench/ is on sys.path when run as a script
from solfec_py.solvers.diagonal import ssn_block
from solfec_py.solvers.gauss_seidel import neighbour_sum


@njit(cache=True)
def neighbour_sweeps(order, B, R, indptr, adj, Wadj, nsweeps, out):
    """nsweeps passes of the neighbour sum alone (R fixed), as the sweep forms it."""
    for _ in range(nsweeps):
        for a in order:
            b0, b1, b2 = neighbour_sum(a, B, R, indptr, adj, Wadj)
            out[a, 0] += b0
            out[a, 1] += b1
            out[a, 2] += b2


@njit(cache=True)
def replay(order, W, rho, B, V, U, R, indptr, adj, Wadj, par, h, deps, dmaxiter, nsweeps, iters):
    """nsweeps sweeps over the contact rows solved by ssn_block as the sweep does (dynamic,
    no relaxation); iters[k] counts the row solves that took k Newton iterations."""
    for _ in range(nsweeps):
        for a in order:
            b0, b1, b2 = neighbour_sum(a, B, R, indptr, adj, Wadj)
            it, q0, q1, q2, u0, u1, u2 = ssn_block(
                True, h, par[a, 0], par[a, 1], par[a, 2], par[a, 3], rho[a], W[a, 0, 0], W[a, 0, 1],
                W[a, 0, 2], W[a, 1, 0], W[a, 1, 1], W[a, 1, 2], W[a, 2, 0], W[a, 2, 1], W[a, 2, 2], b0, b1, b2,
                V[a, 2], U[a, 0], U[a, 1], U[a, 2], R[a, 0], R[a, 1], R[a, 2], deps, dmaxiter)
            iters[min(it, iters.size - 1)] += 1
            R[a, 0], R[a, 1], R[a, 2] = q0, q1, q2
            U[a, 0], U[a, 1], U[a, 2] = u0, u1, u2


def capture(n: int, steps: int):
    """The local dynamics of the last solve of `steps` steps of S1 as it enters the solve,
    with its settings."""
    from solfec_py.solvers import gauss_seidel as gs

    held = {}
    original = gs.run

    def run(ld, settings, springs=None, order=None):
        held["ld"], held["settings"] = _copy(ld), settings
        return original(ld, settings, springs, order)

    gs.run = run
    try:
        S.scene(n, 1e-3, steps)
    finally:
        gs.run = original
    return held["ld"], held["settings"]


def _copy(ld):
    from dataclasses import replace
    return replace(ld, **{k: np.array(getattr(ld, k)) for k in
                          ("crow", "kind", "W", "Winv", "rho", "B", "V", "U", "R", "par", "indptr", "adj", "Wadj")},
                   sides=[])


def ssn_steps(ld, settings, sweeps):
    """(histogram of Newton iterations per row, mean, reactions) over `sweeps` replayed sweeps."""
    iters = np.zeros(8, dtype=np.int64)
    order = np.arange(ld.n - 1, -1, -1, dtype=np.int64)
    R = ld.R.copy()
    replay(order, ld.W, ld.rho, ld.B, ld.V, ld.U.copy(), R, ld.indptr, ld.adj, ld.Wadj, ld.par,
           float(ld.h), float(settings.diagepsilon), int(settings.diagmaxiter), sweeps, iters)
    return iters, float(np.dot(iters, np.arange(iters.size)) / iters.sum()), R


def cpu(f, reps):
    times = []
    for _ in range(reps):
        t = time.process_time()
        f()
        times.append(time.process_time() - t)
    return float(np.median(times))


def main(argv=None):
    from solfec_py import constraints as C
    from solfec_py.solvers import gauss_seidel as gs

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n3", nargs="?", type=int, default=1000)
    p.add_argument("--steps", type=int, default=600, help="capture the last solve of this many steps (default 600)")
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args(argv)
    ld, settings = capture(args.n3, args.steps)
    if not np.all(ld.kind == C.CONTACT):
        raise SystemExit("the captured problem has non-contact rows")
    result = {}

    def solve():
        fresh = _copy(ld)
        result["r"], result["R"] = gs.run(fresh, settings), fresh.R

    solve()                                           # compiled / loaded outside the timing
    t_solve = cpu(solve, args.reps)
    sweeps = result["r"].iters
    rows = sweeps * ld.n
    order = np.arange(ld.n - 1, -1, -1, dtype=np.int64)
    out = np.zeros((ld.n, 3))
    neighbour_sweeps(order, ld.B, ld.R, ld.indptr, ld.adj, ld.Wadj, 1, out)
    t_sum = cpu(lambda: neighbour_sweeps(order, ld.B, ld.R, ld.indptr, ld.adj, ld.Wadj, sweeps, out), args.reps)
    hist, mean_it, R = ssn_steps(ld, settings, sweeps)
    print(json.dumps({
        "code": "solfec-py", "scene": "S1 Gauss-Seidel row", "n": args.n3, "step": args.steps,
        "contacts": int(ld.n), "neighbours_per_row": round(float(np.diff(ld.indptr).mean()), 2),
        "sweeps": int(sweeps), "merit": float(f"{result['r'].merit:.3e}"),
        "solve_cpu_ms": round(1e3 * t_solve, 2), "ns_per_row": round(1e9 * t_solve / rows, 1),
        "neighbour_sum_ns_per_row": round(1e9 * t_sum / rows, 1),
        "newton_iterations_per_row": round(mean_it, 3),
        "newton_iterations_histogram": hist[:5].tolist(),
        "replay_is_the_solve": bool(np.array_equal(R, result["R"]))}), flush=True)


if __name__ == "__main__":
    main()
