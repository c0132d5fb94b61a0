"""Benchmark: a pile of ellipsoids settling in the open box of S1 (bench/spheres_in_box.py).

n^3 rigid ellipsoids (semi-axes 0.05, 0.035, 0.025 m, rho = 1000), randomly turned, on the
jittered lattice of bench/spheres_in_box.py (fixed seed) are dropped into its open box of five
OBSTACLE HULL blocks, gravity -9.81, friction 0.3, GAUSS_SEIDEL_SOLVER(1e-3, 1000). Prints
one JSON line per n: body-steps/s, contacts, the deepest contact gap seen during the run and
at the end (the check: every penetration within 1 % of the smallest semi-axis), mean height,
kinetic energy after the run against the potential drop, the phase timers.

    python bench/ellipsoid_pile.py [n3 ...] [--steps K] [--dt H] [--profile FILE]

Signorini at velocity level leaves an impact's penetration of about v h (contacts are found at
mid-step and nothing pushes bodies apart), so the 1 % check needs h v << 0.3 mm: the figures
in docs/contact.md come from `python bench/ellipsoid_pile.py 1000 --dt 2.5e-4 --steps 2000`.
"""
from __future__ import annotations

import numpy as np
from contact_run import main, report   # bench/ is on sys.path when run as a script
from spheres_in_box import box, settle_in_box

AXES = (0.05, 0.04, 0.03)             # semi-axes (m)
TOLERANCE = 0.01 * min(AXES)           # the acceptance: penetration <= 1 % of the smallest semi-axis
TILT = 15.0                            # largest initial turn of an ellipsoid (degrees, random axis)
GAP = 0.002                            # least clearance between the bounding boxes on the lattice


def _turned(rng, count):
    """Random axes, angles up to TILT (degrees) and the half extents of the ellipsoids'
    bounding boxes turned so, either way (Rodrigues' formula)."""
    axis = rng.normal(size=(count, 3))
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    angle = np.radians(rng.uniform(0.0, TILT, count))
    K = np.zeros((count, 3, 3))
    K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -axis[:, 2], axis[:, 1], -axis[:, 0]
    K -= K.transpose(0, 2, 1)
    s, c = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    half = [np.sqrt((((np.eye(3) + t * K + (1 - c) * K @ K) * np.array(AXES)) ** 2).sum(axis=2)) for t in (s, -s)]
    return axis, np.degrees(angle), np.maximum(*half)


def build(A, side: int, h: float, outdir: str):
    """The model: side^3 slightly turned ellipsoids on a lattice GAP apart (bounding boxes),
    so the pile settles with modest impacts; returns (SOLFEC, ellipsoid bodies, box half width)."""
    rng = np.random.default_rng(2025)
    count = side ** 3
    axis, angle, half_ext = _turned(rng, count)
    step = 2 * half_ext.max(axis=0) + GAP
    sxy = max(step[0], step[1])
    half = 0.5 * side * sxy + GAP                                    # inner half width of the box
    sol, mat = box(A, h, outdir, half, side * step[2] + 0.2)
    grid = (np.arange(side) - 0.5 * (side - 1)) * sxy
    centres = np.array([(x, y, 0.5 * step[2] + k * step[2]) for k in range(side) for y in grid for x in grid])
    bodies = []
    for c, a, t in zip(centres, axis, angle):
        e = A["ELLIP"](tuple(c), AXES, 1, 1)
        A["ROTATE"](e, tuple(c), tuple(a), float(t))
        bodies.append(A["BODY"](sol, "RIGID", e, mat))
    return sol, bodies, half


def scene(count: int, h: float, steps: int | None, profile: str | None = None, relax: float = 1.0) -> dict:
    from solfec_py import constraints as C

    s = settle_in_box(build, count, h, steps, profile, relax)
    run, z, kinetic, drop = s["run"], s["z"], s["kinetic"], s["drop"]
    cset = C.constraint_set(s["domain"])
    live = cset.kind[: cset.count] == C.CONTACT
    final = float(-min(0.0, cset.gap[: cset.count][live].min())) if live.any() else 0.0
    return report("ellipsoid pile in a box", count, h, run, semi_axes=list(AXES),
                  final_penetration=float(f"{final:.3e}"), tolerance=TOLERANCE,
                  within_tolerance=bool(max(final, -run["gap"]) <= TOLERANCE),
                  mean_height=round(float(z.mean()), 5), kinetic_energy=float(f"{kinetic:.4e}"),
                  kinetic_over_drop=float(f"{kinetic / drop:.3e}") if drop > 0 else None,
                  outside_box=int((~s["inside"]).sum()))


if __name__ == "__main__":
    main(scene, "n3", [125, 1000], __doc__)
