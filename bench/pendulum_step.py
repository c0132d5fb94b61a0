"""Benchmark: the per-step cost of a one-body constraint run (bench/README.md scene 'pendulum step').

The mathematical pendulum of inputs/math_pendulum.py (Solfec-1.0 tests/math-pendulum.py): a
rigid sphere (r = 0.05, BODY_CHARS mass 1, identity inertia) on PUT_RIGID_LINK to the fixed
point (0, 0, 1), gravity -pi^2, released horizontally, GAUSS_SEIDEL_SOLVER(1e-3, 1000),
h = 1e-3, no output frames during the run. With one body and one constraint row every
array is tiny, so the figure is the fixed Python cost of a RUN step (constraint update, local
dynamics, solver, integrator, contact detection with nothing to find). A warm-up RUN (numba
compilation, the first frame) is not timed. Prints one JSON line with the wall time per step
(`step_ms`, median of --repeat timed blocks) and the CPU time per step (`step_cpu_ms`,
the steadier figure on a shared machine), body-steps/s, the rod-length error and the
relative energy drift over the timed steps (exact motion: 0).

    python bench/pendulum_step.py [--steps K] [--repeat R] [--profile FILE]
"""
from __future__ import annotations

import argparse
import json
import math
import resource
import tempfile
import time

G = math.pi ** 2


def scene(steps: int, repeat: int, profile: str | None = None) -> dict:
    from solfec_py import __version__, session, timestep
    from solfec_py.api import NAMES as A

    h = 1e-3
    session.start(progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        sol = A["SOLFEC"]("DYNAMIC", h, f"{tmp}/out")
        sol.verbose = "OFF"
        mat = A["BULK_MATERIAL"](sol, model="KIRCHHOFF", young=1e6, poisson=0.25, density=1e3)
        A["GRAVITY"](sol, (0.0, 0.0, -G))
        ball = A["BODY"](sol, "RIGID", A["SPHERE"]((1.0, 0.0, 1.0), 0.05, 1, 1), mat)
        A["BODY_CHARS"](ball, 1.0, 1.0, (1.0, 0.0, 1.0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
        A["PUT_RIGID_LINK"](ball, None, (1.0, 0.0, 1.0), (0.0, 0.0, 1.0))
        A["OUTPUT"](sol, 1e6)                           # no frame in the timed steps
        timestep.initialize(sol.domain)
        solver = A["GAUSS_SEIDEL_SOLVER"](1e-3, 1000)
        A["RUN"](sol, solver, 20 * h)                   # warm-up: compilation, first frame

        def energy():
            x = ball.conf[9:12]
            return A["ENERGY"](sol)[0] + ball.mass * G * (x[2] - 1.0)

        e0 = energy()
        times, cpu = [], []
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
        for _ in range(repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            if prof:
                prof.enable()
            A["RUN"](sol, solver, steps * h)
            if prof:
                prof.disable()
            times.append((time.perf_counter() - start) / steps)
            cpu.append((time.process_time() - start_cpu) / steps)
        if prof:
            prof.dump_stats(profile)
        x = ball.conf[9:12]
        length_error = abs(math.sqrt(x[0] ** 2 + x[1] ** 2 + (x[2] - 1.0) ** 2) - 1.0)
        drift = abs(energy() - e0) / G
    step = sorted(times)[len(times) // 2]
    step_cpu = sorted(cpu)[len(cpu) // 2]
    return {"code": "solfec-py", "version": __version__, "scene": "pendulum step", "n": 1, "dt": h,
            "steps": steps * repeat, "wall_s": round(sum(times) * steps, 4),
            "step_ms": round(1e3 * step, 4), "step_ms_all": [round(1e3 * t, 4) for t in times],
            "step_cpu_ms": round(1e3 * step_cpu, 4), "body_steps_per_s": round(1.0 / step, 1), "contacts": 0, "max_penetration": 0.0,
            "rod_length_error": float(f"{length_error:.2e}"), "energy_drift": float(f"{drift:.3e}"),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1000, help="steps per timed block (default 1000)")
    p.add_argument("--repeat", type=int, default=3, help="timed blocks, the median is reported (default 3)")
    p.add_argument("--profile", default=None, help="cProfile output file of the timed steps")
    args = p.parse_args(argv)
    print(json.dumps(scene(args.steps, args.repeat, args.profile)), flush=True)


if __name__ == "__main__":
    main()
