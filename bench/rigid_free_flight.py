"""Benchmark: rigid free flight (bench/README.md scene 'rigid free flight').

n rigid ellipsoids 1 m apart under gravity, each with a torque-free spin, no contact; prints
one JSON line per n with body-steps per second of the steps alone (a first step, which
compiles and writes the first output frame, is run before the clock starts): for the whole
RUN (`body_steps_per_s`: the steps and RUN's own start, which reopens the results file), for
the step phases (`step_phases_body_steps_per_s`: the TIMINT, CONUPD, CONDET and CONSOL timers,
contact detection included: the ellipsoids are contact objects that never touch) and for the
time integration alone (`integration_body_steps_per_s`, the TIMINT timer); all three rigid
schemes mixed in equal parts (RIG_NEG being Solfec's default) or every body with the scheme
given by --scheme (e.g. DIRK4: docs/integrators.md); the energy drift and the peak RSS.

    python bench/rigid_free_flight.py [--scheme S] [n ...]     (default: 10 1000 100000)
"""
from __future__ import annotations

import json
import resource
import sys
import tempfile
import time

import numpy as np


def scene(n: int, steps: int, scheme_mix: bool = True, scheme: str | None = None) -> dict:
    from solfec_py import session, timestep
    from solfec_py.api import NAMES as A

    session.start(progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        sol = A["SOLFEC"]("DYNAMIC", 1e-3, f"{tmp}/out")
        sol.verbose = "OFF"
        A["GRAVITY"](sol, (0.0, 0.0, -9.81))
        mat = A["BULK_MATERIAL"](sol, density=1000.0)
        rng = np.random.default_rng(1)
        spins = rng.normal(scale=5.0, size=(n, 3))
        schemes = ("RIG_NEG", "RIG_POS", "RIG_IMP")
        for i in range(n):
            b = A["BODY"](sol, "RIGID", A["ELLIP"]((float(i), 0.0, 0.0), (0.1, 0.2, 0.3), 1, 1), mat)
            b.velo = tuple(spins[i]) + (0.0, 0.0, 1.0)
            if scheme:
                b.scheme = scheme
            elif scheme_mix:
                b.scheme = schemes[i % 3]
        A["OUTPUT"](sol, 10.0)   # measure stepping, not output (bench/output_overhead.py does that)
        timestep.initialize(sol.domain)
        e0 = sol.domain.energy()
        solver = A["GAUSS_SEIDEL_SOLVER"](1e-6, 10)
        A["RUN"](sol, solver, 1e-3)                 # compile, first frame: not timed
        sol.domain.timers.clear()
        start, cpu = time.perf_counter(), time.process_time()
        A["RUN"](sol, solver, steps * 1e-3)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        timers = sol.domain.timers
        timint = timers.get("TIMINT", wall)
        phases = sum(timers.get(k, 0.0) for k in ("TIMINT", "CONUPD", "CONDET", "CONSOL"))   # LOCDYN is in CONSOL
        e1 = sol.domain.energy()
        # kinetic - external work is conserved by the exact motion
        drift = abs((e1[0] - e1[1]) - (e0[0] - e0[1])) / e0[0]
    from solfec_py import __version__

    extra = {"scheme": scheme} if scheme else {}
    return {"code": "solfec-py", "version": __version__, "scene": "rigid free flight", **extra, "n": n,
            "dt": 1e-3, "steps": steps, "wall_s": round(wall, 4), "cpu_s": round(cpu, 4),
            "body_steps_per_s": round(n * steps / wall, 1), "body_steps_per_cpu_s": round(n * steps / cpu, 1),
            "step_phases_body_steps_per_s": round(n * steps / phases, 1),
            "integration_body_steps_per_s": round(n * steps / timint, 1), "contacts": 0, "max_penetration": 0.0,
            "energy_drift": float(f"{drift:.3e}"),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str]) -> None:
    scheme = None
    if argv[:1] == ["--scheme"]:
        scheme, argv = argv[1], argv[2:]
    sizes = [int(a) for a in argv] or [10, 1000, 100000]
    for n in sizes:
        steps = max(10, min(2000, 2_000_000 // n))
        print(json.dumps(scene(n, steps, scheme=scheme)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
