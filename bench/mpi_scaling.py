"""Benchmark: one model on K MPI ranks (docs/parallel.md), strong and weak scaling.

Strong scaling runs the same scene on every K of --ranks: S2 array of cubes (rigid, M^3
cubes; bench/array_of_cubes.py, target M = 16: 4 096 cubes), S1 spheres in a box (n
spheres; bench/spheres_in_box.py, target 8 000) and FE cubes (the S2 array with Solfec's
kifo BC: FINITE_ELEMENT form BC, DEF_LIM; target M = 8: 512 cubes). Weak scaling gives
every rank a fixed M0^3 array: (K M0) x M0 x M0 rigid cubes on K ranks (the first
bisection of the recursive coordinate bisection cuts x). All use GAUSS_SEIDEL_SOLVER(1e-3,
1000) (bench/contact_run.py), h = 1e-3, the default IMBALANCE_TOLERANCE (1.1, 1, 10).

For each scene and K the script writes a small deck into a temporary directory and starts
`mpiexec -n K python -m solfec_py deck.py CONFIG` (K = 1: plain `python -m solfec_py`, no
mpiexec; the deck checks that mpi4py stayed unimported) under a timeout. The deck builds the
scene with the builders of those scripts, RUNs --warm untimed steps (the first partition,
numba's cache loading and the first contacts; the cubes touch at step 15, the spheres near
step 100), then --steps timed steps between barriers, observed every step by a CALLBACK, and
every rank writes a JSON of its figures, which the script gathers. Before the measured runs a
short warm-up run per K fills numba's cache (SOLFEC_PY_CACHE_DIR) with every kernel; --no-warmup
skips it.

Printed: one JSON line per (scene, size, K), with bench/README.md's keys (`wall_s`: the timed
steps, slowest rank; `body_steps_per_s`: n steps / wall_s) and
  ranks, mode                strong or weak
  wall_per_step_s            median over --repeats of the slowest rank's seconds a step (the
                             repeats of a scene alternate over K: 1, 2, 1, 2, ...)
  wall_per_step_runs         every repeat's figure
  efficiency                 strong: t1 / (K tK); weak: t1 / tK (t: wall_per_step_s)
  speedup                    t1 / tK
  bytes_per_step             payload bytes a step sent by the buffer exchanges
                             (parallel/comm.py World.bytes_sent): sum and max over ranks,
                             per body, and over n^(2/3) (an interface between two parts
                             of a cube of n bodies grows like n^(2/3))
  imbalance                  max / mean rank load (Decomposition.imbalance) over the steps:
                             mean and max; rebalanced, migrated: repartitions and bodies that
                             changed owner during the timed steps
  owned, ghosts              bodies owned and held as ghosts per rank at the end
  gs_iters_mean / _max       Gauss-Seidel iterations a step
  timers                     rank 0's phase timers (domain.timers) a step, ms: PARBAL
                             (ownership, migration, ghosts), TIMINT, CONUPD, CONDET, CONSOL
                             (LOCDYN is part of it) and OTHER (the rest of the step: the
                             checks over the ranks, the CALLBACK); timers_max: the slowest
                             rank's figure of each phase
  mpi4py_imported            K = 1: whether the serial run imported mpi4py (must be false)

then a markdown table of all runs (stderr). --profile FILE dumps cProfile statistics of
rank 0's timed steps (FILE.rank1, ...: the other ranks') (one more run of the last configuration and K, not counted in the
figures) and prints its top functions. --balance TOL[,WF,FREQ] sets IMBALANCE_TOLERANCE.

    python bench/mpi_scaling.py [--ranks 1,2] [--scenes cubes,spheres,fe,weak] [--cubes M ...]
        [--spheres n ...] [--fe M ...] [--weak M0 ...] [--mesh N] [--steps K] [--warm K]
        [--dt H] [--balance TOL[,WF,FREQ]] [--repeats R] [--timeout S] [--profile FILE]
        [--no-warmup] [--quick]

On a 16-core machine: `python bench/mpi_scaling.py --ranks 1,2,4,8,16 --cubes 16 --spheres 8000
--fe 8 --weak 6 --steps 100`. --quick (CI): K = 1, 2, M = 3, 125 spheres, 2^3 FE cubes,
M0 = 2, 3 timed steps, one repeat.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))

# The deck every run executes (its one word: the JSON configuration). A = globals(): the deck
# namespace holds the Solfec names the scene builders call.
DECK = r'''
import json, os, resource, sys, time
cfg = json.loads(NON_SOLFEC_ARGV()[0])
sys.path.insert(0, cfg["bench"])
from contact_run import make_solver
from solfec_py import constraints as C

A = globals()
h, scene = cfg["dt"], cfg["scene"]
if scene == "spheres":
    from spheres_in_box import build
    sol, bodies, _ = build(A, cfg["side"], h, "out")
else:
    from array_of_cubes import build
    sol, bodies, _ = build(A, cfg["side"], h, "out", cfg["kifo"], cfg["mesh"], cfg.get("counts"))
domain = sol.domain
if cfg.get("balance"):
    IMBALANCE_TOLERANCE(sol, *cfg["balance"])
solver = make_solver(A)
OUTPUT(sol, (cfg["warm"] + cfg["steps"] + 10) * h)     # no frame during the timed steps
if cfg["warm"]:
    RUN(sol, solver, cfg["warm"] * h)
par = domain.parallel
comm = par.comm if par is not None else None
log = {"contacts": [], "gap": 0.0, "iters": [], "imbalance": [], "migrated": []}


def observe():
    cset = domain.constraints
    n = 0
    if isinstance(cset, C.ConstraintSet) and cset.count:
        live = cset.kind[: cset.count] == C.CONTACT
        n = int(live.sum())
        if n:
            log["gap"] = min(log["gap"], float(cset.gap[: cset.count][live].min()))
    log["contacts"].append(n)
    log["iters"].append(int(solver.iters))
    if par is not None:
        log["imbalance"].append(float(par.imbalance))
        log["migrated"].append(int(par.migrated))
    return 1


CALLBACK(sol, h, (), observe)
for name in list(domain.timers):
    domain.timers[name] = 0.0
bytes0 = getattr(comm, "bytes_sent", 0)
rebalanced0 = par.rebalanced if par is not None else 0
steps0 = domain.steps_done
prof = None
if cfg.get("profile"):
    import cProfile
    prof = cProfile.Profile()
if comm is not None:
    comm.barrier()
start, cpu = time.perf_counter(), time.process_time()
if prof is not None:
    prof.enable()
RUN(sol, solver, cfg["steps"] * h)
if prof is not None:
    prof.disable()
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
if prof is not None:
    prof.dump_stats(cfg["profile"] + (f".rank{RANK()}" if RANK() else ""))
owned = ghosts = 0
for block in domain.active_blocks():
    if hasattr(block, "obstacle"):
        movable = ~block.obstacle[: block.count]
    else:
        movable = [True] * block.count
    mine = par.owned_rows(block) if par is not None else [True] * block.count
    owned += sum(1 for m, o in zip(movable, mine) if m and o)
    ghosts += sum(1 for m, o in zip(movable, mine) if m and not o)
out = {"rank": RANK(), "wall": wall, "cpu": cpu, "steps": domain.steps_done - steps0,
       "bytes": getattr(comm, "bytes_sent", 0) - bytes0,
       "rebalanced": (par.rebalanced if par is not None else 0) - rebalanced0,
       "timers": dict(domain.timers), "owned": owned, "ghosts": ghosts,
       "bodies": len(bodies), "mpi4py": "mpi4py" in sys.modules,
       "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **log}
with open("rank%d.json" % RANK(), "w") as f:
    json.dump(out, f)
'''

PHASES = ("PARBAL", "TIMINT", "CONUPD", "CONDET", "CONSOL")      # LOCDYN is part of CONSOL


def mpiexec() -> str | None:
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return here if os.access(here, os.X_OK) else shutil.which("mpiexec")


def run_deck(cfg: dict, ranks: int, timeout: float) -> list:
    """Run the deck on `ranks` ranks; the per-rank records (rank order)."""
    with tempfile.TemporaryDirectory(prefix="mpi_scaling_") as tmp:
        deck = os.path.join(tmp, "deck.py")
        with open(deck, "w") as f:
            f.write(DECK)
        command = [sys.executable, "-m", "solfec_py", deck, json.dumps(cfg)]
        if ranks > 1:
            command = [mpiexec(), "-n", str(ranks)] + command
        env = dict(os.environ, MPLBACKEND="Agg")
        proc = subprocess.Popen(command, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)             # the launcher and its ranks (their own group)
            proc.communicate()
            raise SystemExit(f"mpi_scaling: {cfg['scene']} on {ranks} ranks ran past {timeout:g} s (--timeout)")
        if proc.returncode != 0:
            raise SystemExit(f"mpi_scaling: {cfg['scene']} on {ranks} ranks failed ({proc.returncode}):\n"
                             f"{out[-2000:]}\n{err[-4000:]}")
        records = []
        for r in range(ranks):
            with open(os.path.join(tmp, f"rank{r}.json")) as f:
                records.append(json.load(f))
        return records


def summarize(cfg: dict, ranks: int, repeats: list, mode: str, n: int) -> dict:
    """The JSON record of one (scene, size, K) from the ranks' records of every repeat."""
    from solfec_py import __version__

    per_step = [max(r["wall"] for r in recs) / max(recs[0]["steps"], 1) for recs in repeats]
    t = statistics.median(per_step)
    recs = repeats[per_step.index(sorted(per_step)[(len(per_step) - 1) // 2])]   # the median run
    steps = recs[0]["steps"]
    wall = max(r["wall"] for r in recs)
    contacts = [sum(c) for c in zip(*(r["contacts"] for r in recs))] or [0]
    bsum = sum(r["bytes"] for r in recs) / max(steps, 1)
    bmax = max(r["bytes"] for r in recs) / max(steps, 1)
    imb = [max(v) for v in zip(*(r["imbalance"] for r in recs))] or [1.0]
    migrated = sum(sum(r["migrated"]) for r in recs) // max(ranks, 1)    # every rank counts every move
    iters = recs[0]["iters"] or [0]
    phases = {}
    for name in PHASES:
        phases[name] = round(1e3 * recs[0]["timers"].get(name, 0.0) / max(steps, 1), 3)
    phases["OTHER"] = round(1e3 * recs[0]["wall"] / max(steps, 1) - sum(phases.values()), 3)
    slowest = {name: round(1e3 * max(r["timers"].get(name, 0.0) for r in recs) / max(steps, 1), 3) for name in PHASES}
    scene = {"cubes": "S2 array of cubes", "spheres": "S1 spheres in a box", "fe": "S2 array of cubes, FE BC",
             "weak": "S2 array of cubes, weak"}[cfg["scene"]]
    record = {"code": "solfec-py", "version": __version__, "scene": scene, "n": n, "dt": cfg["dt"],
              "steps": steps, "wall_s": round(wall, 3), "body_steps_per_s": round(n * steps / wall, 1),
              "contacts": {"mean": round(sum(contacts) / len(contacts), 1), "final": int(contacts[-1])},
              "max_penetration": float(f"{-min(r['gap'] for r in recs):.3e}"), "energy_drift": None,
              "peak_rss_mb": round(max(r["rss_mb"] for r in recs), 1),
              "ranks": ranks, "mode": mode, "size": cfg["size"],
              "wall_per_step_s": float(f"{t:.4g}"), "wall_per_step_runs": [float(f"{x:.4g}") for x in per_step],
              "cpu_s": [round(r["cpu"], 3) for r in recs],
              "bytes_per_step": {"sum": round(bsum), "max": round(bmax), "per_body": round(bsum / n, 1),
                                 "per_n23": round(bsum / n ** (2 / 3), 1)},
              "imbalance": {"mean": round(sum(imb) / len(imb), 3), "max": round(max(imb), 3)},
              "rebalanced": max(r["rebalanced"] for r in recs), "migrated": migrated,
              "owned": [r["owned"] for r in recs], "ghosts": [r["ghosts"] for r in recs],
              "gs_iters_mean": round(sum(iters) / len(iters), 1), "gs_iters_max": max(iters),
              "timers": phases, "timers_max": slowest}
    if cfg.get("balance"):
        record["balance"] = cfg["balance"]
    if cfg["scene"] == "fe":
        record["kifo"], record["mesh"] = "BC", cfg["mesh"]
    if ranks == 1:
        record["mpi4py_imported"] = recs[0]["mpi4py"]
    return record


def balance(text: str | None):
    """--balance TOL[,WF,FREQ] as IMBALANCE_TOLERANCE's arguments (None: the deck default)."""
    if not text:
        return None
    words = text.split(",")
    return [float(w) for w in words[:2]] + [int(w) for w in words[2:3]]


def configurations(args) -> list:
    """(label, mode, n, cfg) of every scene size asked for."""
    base = {"bench": BENCH, "dt": args.dt, "steps": args.steps, "kifo": "RG", "mesh": 1,
            "balance": balance(args.balance)}
    out = []
    for name in args.scenes:
        if name == "cubes":
            for m in args.cubes:
                out.append(("strong", m ** 3, dict(base, scene="cubes", side=m, size=f"M={m}", warm=args.warm or 20)))
        elif name == "spheres":
            for n in args.spheres:
                side = round(n ** (1 / 3))
                if side ** 3 != n:
                    raise SystemExit(f"--spheres must be cubes, got {n}")
                out.append(("strong", n, dict(base, scene="spheres", side=side, size=f"n={n}", warm=args.warm or 130)))
        elif name == "fe":
            for m in args.fe:
                out.append(("strong", m ** 3, dict(base, scene="fe", side=m, kifo="BC", mesh=args.mesh,
                                                   size=f"M={m}", warm=args.warm or 20)))
        elif name == "weak":
            for m in args.weak:
                out.append(("weak", m ** 3, dict(base, scene="weak", side=m, size=f"M0={m}", warm=args.warm or 20)))
        else:
            raise SystemExit(f"unknown scene {name!r} (cubes, spheres, fe, weak)")
    return out


def table(records: list) -> str:
    head = ("| scene | size | n | K | ms/step (median) | efficiency | bytes/step sum (max) | bytes/step/n^(2/3) "
            "| imbalance mean (max) | rebal. / migr. | GS iters | contacts | rank 0 ms/step: PARBAL TIMINT CONUPD"
            " CONDET CONSOL OTHER |")
    lines = [head, "|" + " --- |" * head.count(" | ") + " --- |"]
    for r in records:
        tm = r["timers"]
        lines.append(
            f"| {r['scene']} | {r['size']} | {r['n']} | {r['ranks']} | {1e3 * r['wall_per_step_s']:.1f} | "
            f"{r['efficiency']:.2f} | {r['bytes_per_step']['sum']} ({r['bytes_per_step']['max']}) | "
            f"{r['bytes_per_step']['per_n23']} | {r['imbalance']['mean']:.3f} ({r['imbalance']['max']:.3f}) | "
            f"{r['rebalanced']} / {r['migrated']} | {r['gs_iters_mean']} | {r['contacts']['mean']:.0f} | "
            + " ".join(f"{tm[k]:.1f}" for k in PHASES + ("OTHER",)) + " |")
    return "\n".join(lines)


def main(argv=None) -> list:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", default="1,2", help="comma-separated K (default 1,2; K = 1 runs without mpiexec)")
    p.add_argument("--scenes", default="cubes,spheres,fe,weak", help="comma-separated: cubes, spheres, fe, weak")
    p.add_argument("--cubes", type=int, nargs="+", default=[8], help="S2 array edges M (default 8; target 16)")
    p.add_argument("--spheres", type=int, nargs="+", default=[1000], help="S1 sphere counts (default 1000; target 8000)")
    p.add_argument("--fe", type=int, nargs="+", default=[5], help="FE (BC) array edges M (default 5; target 8)")
    p.add_argument("--weak", type=int, nargs="+", default=[5], help="weak scaling: M0^3 cubes a rank (default 5)")
    p.add_argument("--mesh", type=int, default=1, help="FE cubes: HEX N x N x N each (default 1; Solfec's example: 2)")
    p.add_argument("--steps", type=int, default=20, help="timed steps (default 20)")
    p.add_argument("--warm", type=int, default=0,
                   help="untimed steps before them (default: 20 for the cubes, 130 for the spheres: past the first contacts"
                        " and the first solves, whose kernels a process loads from numba's cache at first use)")
    p.add_argument("--dt", type=float, default=1e-3)
    p.add_argument("--balance", default=None, metavar="TOL[,WF,FREQ]",
                   help="IMBALANCE_TOLERANCE(sol, TOL, WF, FREQ) of the runs (default: the deck default 1.1, 1, 10)")
    p.add_argument("--repeats", type=int, default=3, help="runs of each (scene, K); the median is reported (default 3)")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds a run may take (default 900)")
    p.add_argument("--profile", default=None, help="cProfile file of rank 0's timed steps (the last run);"
                                                   " FILE.rankN: the other ranks'")
    p.add_argument("--no-warmup", action="store_true", help="skip the cache warm-up runs")
    p.add_argument("--quick", action="store_true", help="CI size: M = 3, 125 spheres, FE M = 2, M0 = 2, 3 steps, one repeat")
    args = p.parse_args(argv)
    ranks = [int(k) for k in args.ranks.split(",")]
    args.scenes = args.scenes.split(",")
    if args.quick:
        args.cubes, args.spheres, args.fe, args.weak = [3], [125], [2], [2]
        args.steps, args.repeats = 3, 1
    if any(k > 1 for k in ranks) and (importlib.util.find_spec("mpi4py") is None or mpiexec() is None):
        raise SystemExit("mpi_scaling: K > 1 needs mpi4py and mpiexec (pip install 'solfec-py[mpi]')")
    configs = configurations(args)
    if not args.no_warmup:          # every kernel of every scene kind into numba's cache, on each K
        seen = set()
        for mode, n, cfg in configs:
            kind = cfg["scene"] if cfg["scene"] != "weak" else "cubes"
            for k in ranks:
                if (kind, k) in seen:
                    continue
                seen.add((kind, k))
                small = dict(cfg, side=2 if kind != "spheres" else 3, steps=5, counts=None)
                run_deck(small, k, args.timeout)
    records = []
    for mode, n, cfg in configs:
        base = None
        decks = {}
        for k in ranks:
            c = dict(cfg)
            if mode == "weak":
                c["counts"] = (k * cfg["side"], cfg["side"], cfg["side"])
            decks[k] = c
        runs = {k: [] for k in ranks}
        for _ in range(args.repeats):         # K = 1, 2, ..., 1, 2, ...: a slow stretch of the machine hits every K
            for k in ranks:
                runs[k].append(run_deck(decks[k], k, args.timeout))
        for k in ranks:
            c = decks[k]
            size = n * k if mode == "weak" else n
            repeats = runs[k]
            if args.profile and cfg is configs[-1][2] and k == ranks[-1]:     # one more run, not counted
                run_deck(dict(c, profile=os.path.abspath(args.profile)), k, args.timeout)
            rec = summarize(c, k, repeats, mode, size)
            if k == 1 and rec.get("mpi4py_imported"):
                raise SystemExit("mpi_scaling: the serial run imported mpi4py")
            if base is None:
                base = (k, rec["wall_per_step_s"])
            k0, t0 = base
            rec["speedup"] = round(t0 / rec["wall_per_step_s"], 3)
            rec["efficiency"] = round(t0 / rec["wall_per_step_s"] * (1 if mode == "weak" else k0 / k), 3)
            print(json.dumps(rec), flush=True)
            records.append(rec)
    sizes = {}
    for r in records:               # how the bytes grow with the model (strong scaling, same K)
        if r["mode"] == "strong" and r["ranks"] > 1:
            sizes.setdefault((r["scene"], r["ranks"]), []).append((r["n"], r["bytes_per_step"]["sum"]))
    print(table(records), file=sys.stderr)
    for (scene, k), pts in sizes.items():
        if len(pts) > 1 and all(b > 0 for _, b in pts):
            (n0, b0), (n1, b1) = pts[0], pts[-1]
            print(f"{scene}, K = {k}: bytes/step grow as n^{math.log(b1 / b0) / math.log(n1 / n0):.2f}"
                  f" from n = {n0} to {n1}", file=sys.stderr)
    if args.profile and os.path.exists(args.profile):
        import pstats

        print(f"rank 0 profile of the last run ({args.profile}), top functions by own time:", file=sys.stderr)
        pstats.Stats(args.profile, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    return records


if __name__ == "__main__":
    main()
