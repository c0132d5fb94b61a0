"""Benchmark: the first run of a deck, numba's compilation included (bench/README.md 'first run').

numba compiles the kernels a deck uses on its first run and caches them on disk
(``$SOLFEC_PY_CACHE_DIR``, README); later runs load them. For each kind of deck a user
writes first, this script runs a small deck of that kind in a child process
(`solfec-py deck.py`) twice with a fresh, empty cache directory: the first run compiles
(cold cache), the second loads what the first stored (warm cache). It prints one JSON
line per kind with the child's CPU time (user + system, seconds) of both runs and their
difference, the compilation's CPU cost:

    {"kind": "RIG", "cold_cpu_s": ..., "warm_cpu_s": ..., "compile_cpu_s": ..., "cold_wall_s": ...}

The kinds: RIG (a rigid box in free flight, RIG_NEG), PRB (a pseudo-rigid block, DEF_EXP),
FE-TL and FE-BC (a 2 x 2 x 2 HEX8 finite-element block, total Lagrangian and co-rotational
DEF_LIM, dropped on a floor), CONTACT (a rigid block sliding on a floor, Gauss-Seidel with
friction, the contact tutorial's deck). Each deck runs 20 steps and writes its results
as a user's would.

    python bench/first_run.py [KIND ...]        (default: all kinds)
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FLOOR = """
floor = HEX([-2, -2, -0.2, 2, -2, -0.2, 2, 2, -0.2, -2, 2, -0.2,
             -2, -2, 0, 2, -2, 0, 2, 2, 0, -2, 2, 0], 1, 1, 1, 0, [2] * 6)
BODY(sol, 'OBSTACLE', floor, mat)
"""
BLOCK = ("HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0.5, 1, 0, 0.5, 1, 1, 0.5, 0, 1, 0.5], "
         "{n}, {n}, {n}, 1, [1] * 6)")

FE = """
sol = SOLFEC('DYNAMIC', 1E-4, OUT)
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.3, density=1000)
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
GRAVITY(sol, (0, 0, -9.81))
{floor}
block = BODY(sol, 'FINITE_ELEMENT', TRANSLATE({block}, (0, 0, 1E-5)), mat, form='{form}')
block.scheme = 'DEF_LIM'
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 100), 0.002)
"""

DECKS = {
    "RIG": """
sol = SOLFEC('DYNAMIC', 1E-3, OUT)
mat = BULK_MATERIAL(sol, density=1000)
GRAVITY(sol, (0, 0, -9.81))
box = BODY(sol, 'RIGID', {block}, mat)
INITIAL_VELOCITY(box, (1, 0, 0), (0.1, 5, 0.1))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 100), 0.02)
""".format(block=BLOCK.format(n=1)),
    "PRB": """
sol = SOLFEC('DYNAMIC', 1E-4, OUT)
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.3, density=1000)
block = BODY(sol, 'PSEUDO_RIGID', {block}, mat)
INITIAL_VELOCITY(block, (0, 0, 0), (0, 0, 20))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 100), 0.002)
""".format(block=BLOCK.format(n=1)),
    "FE-TL": FE.format(form="TL", floor=FLOOR, block=BLOCK.format(n=2)),
    "FE-BC": FE.format(form="BC", floor=FLOOR, block=BLOCK.format(n=2)),
    "CONTACT": """
sol = SOLFEC('DYNAMIC', 1E-3, OUT)
mat = BULK_MATERIAL(sol, density=2000)
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.5)
GRAVITY(sol, (0, 0, -9.81))
{floor}
block = BODY(sol, 'RIGID', {block}, mat)
INITIAL_VELOCITY(block, (2, 0, 0), (0, 0, 0))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), 0.02)
""".format(floor=FLOOR, block=BLOCK.format(n=1)),
}


def run_deck(deck: str, cache: str, out: str) -> tuple[float, float, str]:
    """(child CPU s, wall s, stderr) of `solfec-py deck` with the numba cache in `cache`."""
    env = dict(os.environ, SOLFEC_PY_CACHE_DIR=cache, PYTHONPATH=ROOT)
    env.pop("NUMBA_CACHE_DIR", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "solfec_py", "-w", "--no-progress", deck],
                          cwd=out, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{deck} failed:\n{proc.stdout}{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stderr


def measure(kind: str) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"first-run-{kind}-") as tmp:
        cache = os.path.join(tmp, "cache")
        deck = os.path.join(tmp, f"{kind.lower().replace('-', '_')}.py")
        with open(deck, "w") as handle:
            handle.write(f"OUT = {os.path.join(tmp, 'out')!r}\n" + DECKS[kind])
        cold, cold_wall, notice = run_deck(deck, cache, tmp)
        warm, warm_wall, _ = run_deck(deck, cache, tmp)
    return {"kind": kind, "cold_cpu_s": round(cold, 2), "warm_cpu_s": round(warm, 2),
            "compile_cpu_s": round(cold - warm, 2), "cold_wall_s": round(cold_wall, 2),
            "warm_wall_s": round(warm_wall, 2), "notice": notice.strip().splitlines()}


def main(argv: list[str]) -> int:
    kinds = argv or list(DECKS)
    unknown = [k for k in kinds if k not in DECKS]
    if unknown:
        raise SystemExit(f"unknown kinds {unknown}; known: {list(DECKS)}")
    for kind in kinds:
        print(json.dumps(measure(kind)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
