"""Benchmark: S2 array of cubes (bench/README.md; Solfec-1.0 inp/devel/parallel-scaling/array-of-cubes.py).

An M x M x M array of rigid 0.1 m cubes (HEX 1x1x1, one element each, rho = 1000) with 1 mm gaps
between neighbours in x, y and z and 1 mm above a fixed OBSTACLE floor block settles under
gravity -9.81 for 1 s; friction 0.3 (Signorini-Coulomb), GAUSS_SEIDEL_SOLVER(1e-3, 1000),
h = 1e-3. (Solfec-1.0's scene uses the same 1 mm gaps; its bottom layer starts on the floor and
it shakes the walls afterwards; here every layer drops 1 mm and nothing is shaken.) Prints one
JSON line per M with body-steps/s, Gauss-Seidel sweeps per step (mean / max), the mean cube
height against the ideal stacked height (centres at 0.05 + 0.1 k), the most negative gap seen,
contacts (mean / final), kinetic energy at the end, the phase timers (domain.timers; LOCDYN is
part of CONSOL) and peak RSS.

    python bench/array_of_cubes.py [M ...] [--steps K] [--dt H] [--profile FILE] [--relax W] [--warmup K] [--kifo RG|PR|TL|BC] [--mesh N] [--correct FRACTION] [--slop S]

M is the array edge (3, 5, 8, 10; default 3 5). --steps K runs K steps instead of 1 s.
--profile writes cProfile statistics of the run to FILE (the last M given). --kifo is the
cubes' kinematics as in Solfec's example: RG rigid (default), PR pseudo-rigid, TL
total-Lagrangian and BC body co-rotational finite elements (both DEF_LIM, damping = h, young 1e9, poisson 0.25, as
Solfec's array-of-cubes.py sets them). --mesh N
makes each cube a HEX N x N x N (default 1; Solfec's example uses 2). --correct FRACTION
switches on solfec-py's opt-in OVERLAP_CORRECTION(sol, FRACTION, S) (docs/contact.md; 0, the
default, is Solfec's contact law unchanged; --slop S the overlap left, default 0); the record
then has `correction`, `slop` and the correction's time `ovlcor_s` (part of the CPU time).

Observed (2-core machine): the arrays settle within about 40 steps, then a slow rocking mode grows
(e-folding about 50 steps) and saturates near 1e-4 J (M = 5), because a HEX 1x1x1 face pair gets
one contact at the centroid of the overlap lens; with HEX 2x2x1 cubes (four contacts per face)
the same run decays to 1e-14 J. CONDET (the compiled pair kernel re-evaluating every persisting
pair, about 4.0 us per pair) takes about 55-70 % of the CPU time (docs/dev/performance.md).
"""
from __future__ import annotations

import tempfile

import numpy as np
from contact_run import main, observed_run, report   # bench/ is on sys.path when run as a script

EDGE, GAP, DENSITY, FRICTION, G = 0.1, 1e-3, 1000.0, 0.3, 9.81
FLOOR_MARGIN = 0.1              # floor block overhang around the array


def _box(lo, hi):
    """HEX corner nodes of an axis-aligned box (Solfec's node order)."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    return [x0, y0, z0, x1, y0, z0, x1, y1, z0, x0, y1, z0,
            x0, y0, z1, x1, y0, z1, x1, y1, z1, x0, y1, z1]


KINDS = {"RG": "RIGID", "PR": "PSEUDO_RIGID", "TL": "FINITE_ELEMENT", "BC": "FINITE_ELEMENT"}   # Solfec's kifo names


def centres(cubes) -> np.ndarray:
    """(n, 3) cube centres: the stored centre of rigid and pseudo-rigid rows, the mean of
    the current nodes of finite-element bodies (outside the timed run)."""
    block = cubes[0].block
    if hasattr(block, "nodes_of"):
        return np.array([(block.X[block.nodes_of(b.row)] + block.q[block.nodes_of(b.row)]).mean(axis=0)
                         for b in cubes])
    return block.conf[np.array([b.row for b in cubes]), 9:12].copy()


def build(A, side: int, h: float, outdir: str, kifo: str = "RG", mesh: int = 1, counts=None):
    """The model; returns (SOLFEC, list of cube bodies, layer index of each cube).
    `counts` = (nx, ny, nz) makes the array nx x ny x nz instead of side^3 (bench/mpi_scaling.py)."""
    nx, ny, nz = counts or (side,) * 3
    sol = A["SOLFEC"]("DYNAMIC", h, outdir)
    sol.verbose = "OFF"
    A["GRAVITY"](sol, (0.0, 0.0, -G))
    mat = A["BULK_MATERIAL"](sol, young=1e9, poisson=0.25, density=DENSITY)
    A["SURFACE_MATERIAL"](sol, model="SIGNORINI_COULOMB", friction=FRICTION)
    span_x, span_y = nx * (EDGE + GAP) - GAP, ny * (EDGE + GAP) - GAP
    floor = A["HEX"](_box((-FLOOR_MARGIN, -FLOOR_MARGIN, -0.1), (span_x + FLOOR_MARGIN, span_y + FLOOR_MARGIN, 0.0)),
                     1, 1, 1, 0, [0] * 6)
    A["BODY"](sol, "OBSTACLE", floor, mat)
    cubes, layer = [], []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                lo = (i * (EDGE + GAP), j * (EDGE + GAP), GAP + k * (EDGE + GAP))
                shape = A["HEX"](_box(lo, tuple(c + EDGE for c in lo)), mesh, mesh, mesh, 0, [1] * 6)
                form = {"form": kifo} if kifo in ("TL", "BC") else {}
                cube = A["BODY"](sol, KINDS[kifo], shape, mat, **form)
                if kifo != "RG":
                    cube.scheme, cube.damping = "DEF_LIM", h      # as Solfec's example
                cubes.append(cube)
                layer.append(k)
    return sol, cubes, np.array(layer)


def scene(side: int, h: float, steps: int | None, profile: str | None = None, kifo: str = "RG",
          mesh: int = 1, relax: float = 1.0, correct: float = 0.0, slop: float = 0.0) -> dict:
    from solfec_py import session, timestep
    from solfec_py.api import NAMES as A

    count = side ** 3
    steps = steps if steps is not None else round(1.0 / h)
    session.start(progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        sol, cubes, layer = build(A, side, h, f"{tmp}/out", kifo, mesh)
        domain = sol.domain
        if correct:
            A["OVERLAP_CORRECTION"](sol, correct, slop)
        timestep.initialize(domain)
        block = cubes[0].block
        rows = np.array([b.row for b in cubes])
        c0 = centres(cubes)
        z_start, xy_start = c0[:, 2], c0[:, :2]
        run = observed_run(A, sol, steps, h, profile, relax)
        ovlcor = domain.timers.get("OVLCOR", 0.0)
        c1 = centres(cubes)
        z = c1[:, 2]
        ideal = 0.5 * EDGE + EDGE * layer                   # centres of a perfectly stacked array
        drift = np.abs(c1[:, :2] - xy_start).max()
        kinetic = float(block.kinetic_energy()[rows].sum())
        drop = float(np.sum(block.mass[rows] * G * (z_start - z)))
        lost = count - int(sum(b.row >= 0 and not b.deleted for b in cubes))
    return report("S2 array of cubes", count, h, run, relax=relax, M=side, kifo=kifo, mesh=mesh,
                  mean_height=round(float(z.mean()), 6), ideal_mean_height=round(float(ideal.mean()), 6),
                  mean_height_start=round(float(z_start.mean()), 6),
                  height_error_max=float(f"{np.abs(z - ideal).max():.3e}"),
                  below_ideal_min=float(f"{(z - ideal).min():.3e}"),
                  xy_drift_max=float(f"{drift:.3e}"),
                  kinetic_energy=float(f"{kinetic:.4e}"), potential_drop=float(f"{drop:.4e}"),
                  deleted=lost, **({"correction": correct, "slop": slop, "ovlcor_s": round(ovlcor, 3)} if correct else {}))


if __name__ == "__main__":
    main(scene, "M", [3, 5], __doc__, options={
        "--kifo": {"choices": sorted(KINDS), "default": "RG", "help": "cube kinematics (Solfec's kifo)"},
        "--mesh": {"type": int, "default": 1, "help": "HEX N x N x N per cube"},
        "--correct": {"type": float, "default": 0.0, "metavar": "FRACTION",
                      "help": "OVERLAP_CORRECTION fraction (solfec-py, opt-in; default 0: off)"},
        "--slop": {"type": float, "default": 0.0, "help": "OVERLAP_CORRECTION slop in m (default 0)"}})
