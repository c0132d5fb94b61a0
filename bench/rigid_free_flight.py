"""Benchmark: rigid free flight (bench/README.md scene 'rigid free flight').

n rigid ellipsoids 1 m apart under gravity, each with a torque-free spin, no contact; prints
one JSON line per n. A first RUN of one step (compilation, the first output frame) is not
timed; then one RUN of `steps` steps is.

Figures (body-steps per second):
- `body_steps_per_cpu_s` (the headline): the steps alone, CPU time (process_time) from the
  end of the RUN's first step to the end of its last step, read by a CALLBACK called after
  every step: `steps - 1` whole steps (time integration, contact detection, the finite-state
  and energy checks, the output hooks) and nothing of RUN's own start or end (reopening and
  closing the results file). `step_cpu_ms` is the same per step.
- `run_body_steps_per_cpu_s` / `run_body_steps_per_s`: the whole RUN (its start and end
  included), CPU and wall-clock time.
- `step_phases_body_steps_per_s`: the TIMINT, CONUPD, CONDET and CONSOL wall-clock timers
  (contact detection included: the ellipsoids are contact objects that never touch);
  `integration_body_steps_per_s` the TIMINT timer alone.
- `bytes_per_body_step`: the bytes the step's passes read and write per body, counted from
  the row widths of the arrays each pass touches (the table TRAFFIC below: an estimate, no
  hardware counter), and `memory_bound_body_steps_per_s` = the measured bandwidth / those
  bytes, the speed if every pass streamed its arrays at the bandwidth; `bandwidth_gb_s` is
  measured here, by numpy copies of a 400 MB array (bytes read + bytes written per second,
  best of 5), `bandwidth_fraction` = bytes per body-step x body-steps per CPU s / bandwidth.
All three rigid schemes are mixed in equal parts (RIG_NEG being Solfec's default), or every
body has the scheme given by --scheme (e.g. DIRK4: docs/integrators.md); also printed: the
energy drift and the peak RSS.

    python bench/rigid_free_flight.py [--scheme S] [--steps N] [n ...]     (default: 10 1000 100000)
"""
from __future__ import annotations

import json
import resource
import sys
import tempfile
import time

import numpy as np

# bytes per body read and written by each pass of a step of this scene (Solfec's schemes,
# gravity only, ellipsoid contact objects, no contacts): rigid block arrays by name (their
# row widths are read off the block), other arrays as (name, bytes per body)
TRAFFIC = (
    ("start of step", ("velo", "norotation"), ("velo0", "reaction")),
    ("half step", ("conf", "velo", "J", "Jinv", "mass", "obstacle"), ("conf", "velo", "momentum", "fext")),
    ("ellipsoid boxes", ("conf", "center", ("reference tips", 96), ("rows, objects", 16)),
     (("lo, hi", 48), ("centres, axes", 96))),
    ("box inflation", (("lo, hi", 48),), (("lo, hi", 48),)),
    ("extents", (("lo, hi", 48),), (("sizes", 8),)),
    ("grid", (("lo, hi", 48), ("cell keys", 32), ("cell table", 48), ("order", 8)),
     (("cell keys", 32), ("cell table", 48), ("order", 8))),
    ("finish and energies", ("conf", "velo", "reaction", "J", "Jinv", "mass", "momentum", "norotation", "velo0",
                             "fext", "obstacle", "energy", ("scheme kinds", 16)),
     ("conf", "velo", "momentum", "fext", "energy")),
    ("finite and energy checks", ("conf", "velo", "energy"), ()),
)


def traffic(block) -> tuple[int, dict]:
    """(bytes per body-step, bytes per pass) of TRAFFIC with the row widths of `block`."""
    def width(a):
        if isinstance(a, tuple):
            return a[1]
        arr = getattr(block, a)
        return arr[:1].nbytes
    per_pass = {name: sum(map(width, reads)) + sum(map(width, writes)) for name, reads, writes in TRAFFIC}
    return sum(per_pass.values()), per_pass


def bandwidth(nbytes: int = 400 << 20, repeats: int = 5) -> float:
    """Bytes per second a numpy copy moves (read + write) between two large arrays, best of
    `repeats` (wall clock: the copy does not wait for anything but memory)."""
    a = np.ones(nbytes // 8)
    b = np.empty_like(a)
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(b, a)
        best = min(best, time.perf_counter() - start)
    return 2 * nbytes / best


def scene(n: int, steps: int, scheme_mix: bool = True, scheme: str | None = None, bw: float | None = None) -> dict:
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
        ends: list = []

        def step_end():
            ends.append(time.process_time())
            return 1

        # called after every step (the interval is below the step: the callback time lags)
        A["CALLBACK"](sol, 0.5e-3, (), step_end)
        sol.domain.timers.clear()
        done = sol.domain.steps_done
        start, cpu = time.perf_counter(), time.process_time()
        A["RUN"](sol, solver, steps * 1e-3)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        steps = sol.domain.steps_done - done         # (Solfec's clock may add one step)
        if len(ends) != steps:
            raise RuntimeError(f"the CALLBACK ran {len(ends)} times in {steps} steps")
        step_cpu = (ends[-1] - ends[0]) / (steps - 1)
        timers = sol.domain.timers
        timint = timers.get("TIMINT", wall)
        phases = sum(timers.get(k, 0.0) for k in ("TIMINT", "CONUPD", "CONDET", "CONSOL"))   # LOCDYN is in CONSOL
        e1 = sol.domain.energy()
        # kinetic - external work is conserved by the exact motion
        drift = abs((e1[0] - e1[1]) - (e0[0] - e0[1])) / e0[0]
        nbytes, _ = traffic(sol.domain.blocks["rigid"])
    from solfec_py import __version__

    extra = {"scheme": scheme} if scheme else {}
    out = {"code": "solfec-py", "version": __version__, "scene": "rigid free flight", **extra, "n": n,
           "dt": 1e-3, "steps": steps, "step_cpu_ms": round(step_cpu * 1e3, 4),
           "body_steps_per_cpu_s": round(n / step_cpu, 1),
           "run_wall_s": round(wall, 4), "run_cpu_s": round(cpu, 4),
           "run_body_steps_per_s": round(n * steps / wall, 1), "run_body_steps_per_cpu_s": round(n * steps / cpu, 1),
           "step_phases_body_steps_per_s": round(n * steps / phases, 1),
           "integration_body_steps_per_s": round(n * steps / timint, 1),
           "bytes_per_body_step": nbytes}
    if bw:
        out.update({"bandwidth_gb_s": round(bw / 1e9, 2), "memory_bound_body_steps_per_s": round(bw / nbytes, 1),
                    "bandwidth_fraction": round(nbytes * n / step_cpu / bw, 3)})
    out.update({"contacts": 0, "max_penetration": 0.0, "energy_drift": float(f"{drift:.3e}"),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)})
    return out


def main(argv: list[str]) -> None:
    scheme, fixed = None, None
    while argv[:1] in (["--scheme"], ["--steps"]):
        if argv[0] == "--scheme":
            scheme = argv[1]
        else:
            fixed = int(argv[1])
        argv = argv[2:]
    sizes = [int(a) for a in argv] or [10, 1000, 100000]
    bw = bandwidth()
    for n in sizes:
        steps = fixed or max(10, min(2000, 2_000_000 // n))
        print(json.dumps(scene(n, steps, scheme=scheme, bw=bw)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
