"""Shared part of the contact benchmarks (spheres_in_box.py, array_of_cubes.py): RUN a built
model for a number of steps without frames, recording per step the contact count, the
deepest contact gap, the solver's iterations and the merit g(R) of the solve (keys
`gs_iters_mean` / `gs_iters_max`, `merit_mean` / `merit_max`; `--solver newton` runs Solfec's
NEWTON_SOLVER instead of Gauss-Seidel), with the phase timers and an optional cProfile dump. The command line first runs the smallest configuration untimed (--warmup
steps), so that the timed runs do not include numba's compilation or cache loading.
"""
from __future__ import annotations

import time

import numpy as np

SOLVER = {"kind": "gs"}   # --solver of the command line: 'gs' (default) or 'newton'
TUNNELLING = {"mode": "WARN"}   # --tunnelling: SOLFEC.tunnelling of the runs (its cost: WARN against OFF)


def make_solver(A, relax: float = 1.0):
    """The benchmarks' solver: GAUSS_SEIDEL_SOLVER(1e-3, 1000) over-relaxed by `relax`, or with
    --solver newton Solfec's NEWTON_SOLVER with its defaults."""
    if SOLVER["kind"] == "newton":
        return A["NEWTON_SOLVER"]()
    solver = A["GAUSS_SEIDEL_SOLVER"](1e-3, 1000)
    solver.relaxation = relax
    return solver


def observed_run(A, sol, steps: int, h: float, profile: str | None = None, relax: float = 1.0) -> dict:
    """RUN `sol` for `steps` steps of h with GAUSS_SEIDEL_SOLVER(1e-3, 1000) (over-relaxation
    `relax`); returns wall and CPU time, steps run, contact counts (array per step), the most
    negative gap, GS iterations and merit per step and the timers of the run."""
    from solfec_py import constraints as C, timestep

    domain = sol.domain
    sol.tunnelling = TUNNELLING["mode"]
    A["OUTPUT"](sol, steps * h + 1.0)   # no frame during the run (a frame clears domain.timers)
    timestep.initialize(domain)
    stats = {"contacts": [], "gap": 0.0, "merit": []}

    def observe():
        cset = domain.constraints
        if isinstance(cset, C.ConstraintSet) and cset.count:
            live = cset.kind[: cset.count] == C.CONTACT
            stats["contacts"].append(int(live.sum()))
            if live.any():
                stats["gap"] = min(stats["gap"], float(cset.gap[: cset.count][live].min()))
                stats["merit"].append(float(getattr(domain, "statistics", {}).get("MERIT", np.nan)))
        else:
            stats["contacts"].append(0)
        return 1

    solver = make_solver(A, relax)
    iters = []
    A["CALLBACK"](sol, h, (), lambda: iters.append(solver.iters) or observe())
    domain.timers.clear()
    start, cpu = time.perf_counter(), time.process_time()
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    A["RUN"](sol, solver, steps * h)
    if profile:
        prof.disable()
        prof.dump_stats(profile)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "ran": domain.steps_done, "hash": state_hash(domain), "contacts": np.array(stats["contacts"] or [0]),
            "gap": stats["gap"], "iters": np.array(iters or [0]), "merit": np.array(stats["merit"] or [np.nan]),
            "timers": {k: round(domain.timers.get(k, 0.0), 3) for k in timestep.TIMERS}}


def state_hash(domain) -> str:
    """16 hex digits of the SHA-256 of every block's body rows (conf, velo) at the end:
    equal hashes, bit-identical states (a speed change that keeps the arithmetic keeps it)."""
    import hashlib

    digest = hashlib.sha256()
    for name in sorted(domain.blocks):
        block = domain.blocks[name]
        for name in ("conf", "velo"):                    # the rows of the block's bodies
            array = getattr(block, name, None)
            if isinstance(array, np.ndarray):
                digest.update(np.ascontiguousarray(array[: block.count]).tobytes())
    return digest.hexdigest()[:16]


def report(scene: str, n: int, h: float, run: dict, **figures) -> dict:
    """The JSON record (bench/README.md) of an observed run, with the scene's own `figures`."""
    import resource

    from solfec_py import __version__

    wall, contacts, iters = run["wall"], run["contacts"], run["iters"]
    return {"code": "solfec-py", "version": __version__, "scene": scene, "n": n, "dt": h,
            "steps": run["ran"], "wall_s": round(wall, 3), "cpu_s": round(run["cpu"], 3),
            "body_steps_per_s": round(n * run["ran"] / wall, 1),
            "body_steps_per_cpu_s": round(n * run["ran"] / run["cpu"], 1),
            "contacts": {"mean": round(float(contacts.mean()), 1), "final": int(contacts[-1])},
            "contact_steps_per_s": round(float(contacts.sum()) / wall, 1),
            "max_penetration": float(f"{-run['gap']:.3e}"), **figures,
            "solver": SOLVER["kind"], "tunnelling": TUNNELLING["mode"],
            "gs_iters_mean": round(float(iters.mean()), 1), "gs_iters_max": int(iters.max()),
            "merit_mean": float(f"{np.mean(run['merit']):.3e}"), "merit_max": float(f"{np.max(run['merit']):.3e}"),
            "timers": run["timers"], "energy_drift": None, "state_hash": run["hash"],
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(scene, sizes: str, default: list, doc: str, argv=None, options: dict | None = None) -> None:
    """Command line of a contact benchmark: sizes, --steps, --dt, --profile and the scene's
    own `options` ({"--flag": argparse keywords}, passed to the scene by name); one JSON
    line per size from scene(size, dt, steps, profile, **options)."""
    import argparse
    import json

    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument(sizes, nargs="*", type=int, default=default)
    p.add_argument("--steps", type=int, default=None, help="steps to run (default: 1 s)")
    p.add_argument("--dt", type=float, default=1e-3)
    p.add_argument("--profile", default=None, help="cProfile output file (last configuration)")
    p.add_argument("--relax", type=float, default=1.0, help="Gauss-Seidel over-relaxation (default 1)")
    p.add_argument("--solver", choices=("gs", "newton"), default="gs",
                   help="GAUSS_SEIDEL_SOLVER(1e-3, 1000) (default) or NEWTON_SOLVER() with Solfec's defaults")
    p.add_argument("--warmup", type=int, default=200,
                   help="steps of an untimed run of the smallest size first (numba compilation and"
                        " loading out of the figures; default 100, 0: none)")
    p.add_argument("--tunnelling", choices=("WARN", "STOP", "OFF"), default="WARN",
                   help="SOLFEC.tunnelling of the runs (default WARN; OFF measures the check's cost)")
    for flag, kwargs in (options or {}).items():
        p.add_argument(flag, **kwargs)
    args = p.parse_args(argv)
    extra = {flag.lstrip("-"): getattr(args, flag.lstrip("-")) for flag in (options or {})}
    extra["relax"] = args.relax
    SOLVER["kind"] = args.solver
    TUNNELLING["mode"] = args.tunnelling
    if args.warmup > 0 and getattr(args, sizes):
        scene(min(getattr(args, sizes)), args.dt, args.warmup, None, **extra)   # output discarded
    for size in getattr(args, sizes):
        print(json.dumps(scene(size, args.dt, args.steps, args.profile, **extra)), flush=True)
