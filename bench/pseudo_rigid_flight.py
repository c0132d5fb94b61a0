"""Benchmark: pseudo-rigid free flight (the 'rigid free flight' scene of bench/README.md with
PSEUDO_RIGID bodies).

n pseudo-rigid ellipsoids (E = 1e6, nu = 0.3, rho = 1000) under gravity, each spinning and
stretching, no contact; one JSON line per n and scheme with body-steps per second of the whole
step (h = 1e-4, below half the explicit limit so both schemes use it; a first one-step RUN,
which writes the first frame, is not timed), the drift of kinetic + internal - external
energy relative to the kinetic energy, and the peak RSS.

    python bench/pseudo_rigid_flight.py [n ...]        (default: 10 1000 100000)
"""
from __future__ import annotations

import json
import resource
import sys
import tempfile
import time

import numpy as np

H = 1e-4


def scene(n: int, steps: int, scheme: str) -> dict:
    from solfec_py import __version__, session, timestep
    from solfec_py.api import NAMES as A

    session.start(progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        sol = A["SOLFEC"]("DYNAMIC", H, f"{tmp}/out")
        sol.verbose = "OFF"
        A["GRAVITY"](sol, (0.0, 0.0, -9.81))
        mat = A["BULK_MATERIAL"](sol, young=1e6, poisson=0.3, density=1000.0)
        spins = np.random.default_rng(1).normal(scale=5.0, size=(n, 3))
        for i in range(n):
            b = A["BODY"](sol, "PSEUDO_RIGID", A["ELLIP"]((float(i), 0.0, 0.0), (0.1, 0.2, 0.3), 1, 1), mat)
            A["INITIAL_VELOCITY"](b, (0.0, 0.0, 1.0), tuple(spins[i]))
            b.scheme = scheme
        A["OUTPUT"](sol, 1.0)    # measure stepping, not output
        solver = A["GAUSS_SEIDEL_SOLVER"](1e-6, 10)
        timestep.initialize(sol.domain)
        e0 = sol.domain.energy()
        A["RUN"](sol, solver, H)          # the first frame and the kernels' loading, untimed
        start = time.perf_counter()
        A["RUN"](sol, solver, steps * H)
        wall = time.perf_counter() - start
        e1 = sol.domain.energy()
        assert sol.step == H, "the explicit limit reduced the step"
        drift = abs((e1[0] + e1[4] - e1[1]) - (e0[0] + e0[4] - e0[1])) / e0[0]
    return {"code": "solfec-py", "version": __version__, "scene": "pseudo-rigid free flight", "n": n,
            "scheme": scheme, "dt": H, "steps": steps, "wall_s": round(wall, 4),
            "body_steps_per_s": round(n * steps / wall, 1), "contacts": 0, "max_penetration": 0.0,
            "energy_drift": float(f"{drift:.3e}"),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str]) -> None:
    for n in [int(a) for a in argv] or [10, 1000, 100000]:
        for scheme in ("DEF_EXP", "DEF_LIM"):
            print(json.dumps(scene(n, max(10, min(2000, 2_000_000 // n)), scheme)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
