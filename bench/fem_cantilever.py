"""Benchmark: the B3 cantilever of bench/README.md (HEX8 beam over 1 x 0.125 x 0.125 m,
E = 1e7, nu = 0.25, rho = 1e3, clamped at x = 0, a tip load released at t = 0: free
vibration) with total-Lagrangian ('TL'), body co-rotational ('BC') and modal ('BC-MODAL',
12 modes) FINITE_ELEMENT bodies (docs/corotational.md), DEF_EXP and DEF_LIM.

One JSON line per element count and scheme: DOF-steps per second of the whole step (a
first one-step RUN, which writes the first frame and compiles the kernels, is not timed;
wall and CPU time),
the time per step, the share of the step spent in the constraint phases (CONUPD, CONDET,
LOCDYN, CONSOL), and the peak RSS of the process. `--free` leaves the clamp out (the
constraint machinery's overhead is the difference).

    python bench/fem_cantilever.py [n ...] [--free] [--DEF_EXP | --DEF_LIM] [--TL | --BC | --BC-MODAL] [--HEX20]
        [--steps=K]
    (default: 1000 10000 100000, both schemes, every form; BC-MODAL: 12 modes, DEF_LIM only;
    --HEX20: the same cells as quadratic HEX20 elements, key "element"; --steps: K timed
    steps instead of a number that scales with 1 / n)
"""
from __future__ import annotations

import json
import resource
import sys
import tempfile
import time

L, B = 1.0, 0.125
E, NU, RHO = 1e7, 0.25, 1e3


def mesh_size(n: int) -> tuple[int, int]:
    """(nx, ny = nz) of a 8:1:1 division with about n elements (40 x 5 x 5 at 1000)."""
    ny = max(1, round((n / 8.0) ** (1.0 / 3.0)))
    return 8 * ny, ny


def beam_mesh(A, element: str, nx: int, ny: int):
    """MESH of the beam: HEX divided nx x ny x ny, or the same cells as quadratic HEX20."""
    nodes = [0, 0, 0, L, 0, 0, L, B, 0, 0, B, 0, 0, 0, B, L, 0, B, L, B, B, 0, B, B]
    if element == "HEX8":
        return A["HEX"](nodes, nx, ny, ny, 1, [1] * 6)
    from solfec_py.fem.blocks import structured

    X, conn = structured("hexahedron20", (nx, ny, ny), upper=(L, B, B))
    return A["MESH"](X.reshape(-1).tolist(), [v for c in conn for v in (20, *c.tolist(), 1)], 1)


def scene(n: int, scheme: str, clamp: bool, steps: int, form: str = "TL", element: str = "HEX8") -> dict:
    import numpy as np

    from solfec_py import __version__, session
    from solfec_py.api import NAMES as A

    session.start(progress=False)
    nx, ny = mesh_size(n)
    with tempfile.TemporaryDirectory() as tmp:
        sol = A["SOLFEC"]("DYNAMIC", 1.0, f"{tmp}/out")
        sol.verbose = "OFF"
        mat = A["BULK_MATERIAL"](sol, model="KIRCHHOFF", young=E, poisson=NU, density=RHO)
        mesh = beam_mesh(A, element, nx, ny)
        if form == "BC-MODAL":          # the 12 lowest free modes (6 rigid), DEF_LIM always
            other = A["SOLFEC"]("DYNAMIC", 1.0, f"{tmp}/modes")
            probe = A["BODY"](other, "FINITE_ELEMENT", beam_mesh(A, element, nx, ny),
                              A["BULK_MATERIAL"](other, model="KIRCHHOFF", young=E, poisson=NU, density=RHO))
            base = A["MODAL_ANALYSIS"](probe, 12, f"{tmp}/modes.modal")
            body = A["BODY"](sol, "FINITE_ELEMENT", mesh, mat, form=form, base=base)
        else:
            body = A["BODY"](sol, "FINITE_ELEMENT", mesh, mat, form=form)
            body.scheme = scheme
        X = np.array(body.block.X[: body.block.N])
        bent = np.column_stack([0 * X[:, 0], 0 * X[:, 0], -1e-3 * (X[:, 0] / L) ** 2])
        body.block.q[: body.block.N] = bent         # mesh state (a reduced body's conf is (q, R))
        if clamp:
            for p in X[np.abs(X[:, 0]) < 1e-12]:
                A["FIX_POINT"](body, tuple(p.tolist()))
        h = body.block.critical_step() if scheme == "DEF_EXP" else 1e-4
        sol.domain.step = 0.5 * h if scheme == "DEF_EXP" else h
        A["OUTPUT"](sol, 1e9)             # measure stepping, not output
        solver = A["GAUSS_SEIDEL_SOLVER"](1e-8, 100)
        A["RUN"](sol, solver, sol.domain.step)      # first frame, kernel loading: untimed
        for k in sol.domain.timers:
            sol.domain.timers[k] = 0.0
        start, cpu = time.perf_counter(), time.process_time()
        A["RUN"](sol, solver, steps * sol.domain.step)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        steps = sol.domain.steps_done - 1
        cons = sum(sol.domain.timers.get(k, 0.0) for k in ("CONUPD", "CONDET", "LOCDYN", "CONSOL"))
        dofs = 3 * body.block.N
    return {"code": "solfec-py", "version": __version__, "scene": "B3 cantilever", "n": nx * ny * ny,
            "element": element, "form": form, "scheme": scheme, "clamped": clamp, "dofs": dofs,
            "dt": sol.domain.step, "steps": steps,
            "wall_s": round(wall, 4), "cpu_s": round(cpu, 4), "ms_per_step": round(1e3 * wall / steps, 3),
            "cpu_ms_per_step": round(1e3 * cpu / steps, 3),
            "dof_steps_per_s": round(dofs * steps / wall, 1), "body_steps_per_s": round(steps / wall, 1),
            "constraint_share": round(cons / wall, 3), "contacts": 0, "max_penetration": 0.0,
            "energy_drift": None, "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str]) -> None:
    clamp = "--free" not in argv
    sizes = [int(a) for a in argv if not a.startswith("--")] or [1000, 10000, 100000]
    schemes = [a[2:] for a in argv if a in ("--DEF_EXP", "--DEF_LIM")] or ["DEF_EXP", "DEF_LIM"]
    forms = [a[2:] for a in argv if a in ("--TL", "--BC", "--BC-MODAL")] or ["TL", "BC", "BC-MODAL"]
    element = "HEX20" if "--HEX20" in argv else "HEX8"
    fixed = [int(a.split("=", 1)[1]) for a in argv if a.startswith("--steps=")]
    for n in sizes:
        for scheme in schemes:
            for form in forms:
                if form == "BC-MODAL" and scheme == "DEF_EXP":
                    continue                    # reduced bodies are always DEF_LIM
                cost = n * (6 if element == "HEX20" else 1)     # ~ a HEX20 step's work in HEX8 elements
                steps = max(5, int(2e6 // cost)) if scheme == "DEF_EXP" else max(3, int(2e5 // cost))
                if form.startswith("BC") and scheme == "DEF_LIM":
                    steps *= 10                 # A0 is factorised once: time the steps after it
                if fixed:
                    steps = fixed[-1]
                print(json.dumps(scene(n, scheme, clamp, steps, form, element)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
