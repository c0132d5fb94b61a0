"""Benchmark: S1 spheres in a box (bench/README.md).

n^3 rigid spheres (r = 0.05 m, rho = 1000) on a jittered lattice (fixed seed) are dropped into
an open box made of five OBSTACLE HULL blocks (floor and four walls), gravity -9.81, friction
0.3 (Signorini-Coulomb), GAUSS_SEIDEL_SOLVER(1e-3, 1000). Prints one JSON line per n with
body-steps/s, contacts (mean / final count, contact-steps/s), the most negative gap seen, the
mean sphere height and kinetic energy after the run against the initial potential drop, the
split of time over the step phases (domain.timers; LOCDYN is part of CONSOL) and peak RSS.

    python bench/spheres_in_box.py [n3 ...] [--steps K] [--dt H] [--profile FILE] [--relax W] [--warmup K]

n3 is the number of spheres (a cube: 125, 1000, 8000; default 125 1000). --steps K runs K
steps instead of 1 s. --profile writes cProfile statistics of the run to FILE.
"""
from __future__ import annotations

import tempfile

import numpy as np
from contact_run import main, observed_run, report   # bench/ is on sys.path when run as a script

RADIUS, DENSITY, FRICTION, G = 0.05, 1000.0, 0.3, 9.81
SPACING = 2.4 * RADIUS          # lattice spacing (0.02 m clearance between neighbours)
JITTER = 0.2 * RADIUS           # uniform horizontal and vertical jitter of each centre
CLEAR = 0.5 * RADIUS            # box clearance around the lattice
THICK = 0.1                     # wall and floor thickness


def _hull_box(A, lo, hi):
    pts = [v for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2]) for v in (x, y, z)]
    return A["HULL"](pts, 1, 1)


def box(A, h: float, outdir: str, half: float, top: float):
    """The SOLFEC, its bulk material and an open box of inner half width `half` and wall
    height `top`; returns (SOLFEC, material)."""
    sol = A["SOLFEC"]("DYNAMIC", h, outdir)
    sol.verbose = "OFF"
    A["GRAVITY"](sol, (0.0, 0.0, -G))
    mat = A["BULK_MATERIAL"](sol, density=DENSITY)
    A["SURFACE_MATERIAL"](sol, model="SIGNORINI_COULOMB", friction=FRICTION)
    o = half + THICK
    for lo, hi in (((-o, -o, -THICK), (o, o, 0.0)),         # floor, then the four walls
                   ((-o, -o, 0.0), (-half, o, top)), ((half, -o, 0.0), (o, o, top)),
                   ((-half, -o, 0.0), (half, -half, top)), ((-half, half, 0.0), (half, o, top))):
        A["BODY"](sol, "OBSTACLE", _hull_box(A, lo, hi), mat)
    return sol, mat


def build(A, side: int, h: float, outdir: str):
    """The model; returns (SOLFEC, list of sphere bodies, box inner half width)."""
    half = 0.5 * side * SPACING + CLEAR                     # inner half width of the box
    top = RADIUS + side * SPACING + 2 * JITTER + 0.1        # wall height (above the lattice)
    sol, mat = box(A, h, outdir, half, top)
    rng = np.random.default_rng(2024)
    grid = (np.arange(side) - 0.5 * (side - 1)) * SPACING
    z0 = RADIUS + JITTER + 0.5 * SPACING
    centres = np.array([(x, y, z0 + k * SPACING) for k in range(side) for y in grid for x in grid])
    centres += rng.uniform(-JITTER, JITTER, centres.shape)
    balls = [A["BODY"](sol, "RIGID", A["SPHERE"](tuple(c), RADIUS, 1, 1), mat) for c in centres]
    return sol, balls, half


def settle_in_box(build, count: int, h: float, steps: int | None, profile: str | None = None,
                  relax: float = 1.0) -> dict:
    """Build a cubic lattice of `count` bodies with `build(A, side, h, outdir)` (returning
    SOLFEC, bodies, box half width), RUN it observed (contact_run.observed_run; 1 s unless
    `steps`), and return the run with the settled state: bodies, domain, heights before and
    after, whether each body is inside the box, kinetic energy and potential drop."""
    from solfec_py import session, timestep
    from solfec_py.api import NAMES as A

    side = round(count ** (1 / 3))
    if side ** 3 != count:
        raise SystemExit(f"n3 must be a cube, got {count}")
    steps = steps if steps is not None else round(1.0 / h)
    session.start(progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        sol, bodies, half = build(A, side, h, f"{tmp}/out")
        timestep.initialize(sol.domain)
        block = bodies[0].block
        rows = np.array([b.row for b in bodies])
        z_start = block.conf[rows, 11].copy()
        run = observed_run(A, sol, steps, h, profile, relax)
        z = block.conf[rows, 11].copy()
        inside = np.abs(block.conf[rows, 9:11]).max(axis=1) < half + 1e-9
        kinetic = float(block.kinetic_energy()[rows].sum())
        drop = float(np.sum(block.mass[rows] * G * (z_start - z)))
    return dict(run=run, bodies=bodies, domain=sol.domain, z_start=z_start, z=z, inside=inside,
                kinetic=kinetic, drop=drop)


def scene(count: int, h: float, steps: int | None, profile: str | None = None, relax: float = 1.0) -> dict:
    s = settle_in_box(build, count, h, steps, profile, relax)
    z, z_start, kinetic, drop, balls = s["z"], s["z_start"], s["kinetic"], s["drop"], s["bodies"]
    lost = len(balls) - int(sum(b.row >= 0 and not b.deleted for b in balls))
    return report("S1 spheres in a box", count, h, s["run"], relax=relax,
                  mean_height=round(float(z.mean()), 5), mean_height_start=round(float(z_start.mean()), 5),
                  kinetic_energy=float(f"{kinetic:.4e}"), potential_drop=float(f"{drop:.4e}"),
                  kinetic_over_drop=float(f"{kinetic / drop:.3e}") if drop > 0 else None,
                  outside_box=int((~s["inside"]).sum()), deleted=lost)


if __name__ == "__main__":
    main(scene, "n3", [125, 1000], __doc__)
