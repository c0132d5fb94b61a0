"""Acceptance of the parallel mode (docs/parallel.md) on whole models: the same deck run by
`python -m solfec_py` and by `mpiexec -n K` stores the same run. S1-like spheres in an open
box (2 and 3 ranks), the masonry arch of inputs/masonry_arch.py, a finite-element slab on
rigid blocks, a rigid link and a contact between bodies of different ranks (their reactions
compared), bit-equal results of two runs on 2 ranks, and the rebalancing of a pile that
collapses into one corner (the load balance RUN reports).

Tolerances. Every comparison deck solves with GAUSS_SEIDEL_SOLVER(1E-8, 1000,
meritval=1E-12) without friction, so that each solve of either run stops at a merit below
1e-12 and the bound of tests/test_mpi_solvers.py applies: the residual's energy norm is at
most sqrt(meritval) times the free velocities', so two solutions of one step differ by at
most 2 sqrt(meritval) times the free speeds; the free speed of a body is at most its speed
plus the step times the gravity (`vfree`: bodies at rest in a stack or an arch have free
velocities h g, not zero); over the steps of a run these add up (`_compare`: velocities
steps * 2e-6 * (vmax + h g), configurations the duration times that, energies twice the
relative velocity bound). The premise, every solve below the merit, is asserted. Reactions
follow from the velocities (a body's net constraint force is m (v+ - v-) / h), see
test_reactions_across_ranks_match_the_serial_run. The arch deck's own solver,
GAUSS_SEIDEL_SOLVER(1E-4, 10000), stops on the change of the last iteration, which bounds
no error, so the arch is run by a copy of the deck with the solver above.
"""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from test_mpi_solvers import MPIEXEC, _compare, _contacts, _env

STEP, GRAVITY = 1e-3, 10.0
MERITVAL = 1e-12
PER_STEP = 2.0 * MERITVAL ** 0.5                  # velocity difference one solve may add, relative
SOLVER = f"GAUSS_SEIDEL_SOLVER(1E-8, 1000, meritval={MERITVAL!r})"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BOXES = """\
def box(x0, y0, z0, x1, y1, z1):
    return [x0,y0,z0, x1,y0,z0, x1,y1,z0, x0,y1,z0, x0,y0,z1, x1,y0,z1, x1,y1,z1, x0,y1,z1]
"""


def _runs(tmp_path, name: str, text: str, ranks=(1, 2), words=(), output=None, options=()):
    """The deck run once per entry of `ranks` (1: serially) in tmp_path/n<K>[_<i>]; the
    results (out/<name>, or `output`) as StoreReaders, and the runs' outputs."""
    from solfec_py.output.store_reader import StoreReader

    readers, runs = [], []
    for i, k in enumerate(ranks):
        folder = tmp_path / f"n{k}_{i}"
        folder.mkdir()
        deck = folder / f"{name}.py"
        deck.write_text(text)
        launch = [MPIEXEC, "-n", str(k)] if k > 1 else []
        res = subprocess.run(launch + [sys.executable, "-m", "solfec_py", *options, str(deck), *map(str, words)],
                             cwd=folder, env=_env(), capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, f"run on {k} rank(s) failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
        path = folder / (output or f"out/{name}")
        readers.append(StoreReader.open_existing(glob.glob(str(path / "*.results"))[0]))
        runs.append((folder, res))
    return readers, runs


def _converged(*readers):
    """The premise of the bound: every solve stopped below the merit."""
    for reader in readers:
        assert np.asarray(reader.column("MERIT")).max() <= MERITVAL


# -------------------------------------------------------------------- S1: spheres in a box
def spheres(m: int, duration: float) -> str:
    """m^3 rigid spheres (r = 0.05, 1 cm apart) thrown down and sideways, with spins, into an
    open box of five obstacle slabs; frictionless."""
    return BOXES + textwrap.dedent(f"""\
        sol = SOLFEC('DYNAMIC', {STEP!r}, 'out/spheres')
        GRAVITY(sol, (0, 0, -{GRAVITY!r}))
        SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.0)
        mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
        M, r, s = {m}, 0.05, 0.11
        L = M * s + 0.02
        for lo, hi in (((-0.1, -0.1, -0.1), (L + 0.1, L + 0.1, 0)), ((-0.1, -0.1, 0), (0, L + 0.1, 1)),
                       ((L, -0.1, 0), (L + 0.1, L + 0.1, 1)), ((0, -0.1, 0), (L, 0, 1)), ((0, L, 0), (L, L + 0.1, 1))):
            BODY(sol, 'OBSTACLE', HULL(box(*lo, *hi), 1, 1), mat)
        n = 0
        for i in range(M):
            for j in range(M):
                for k in range(M):
                    n += 1
                    ball = BODY(sol, 'RIGID', SPHERE((0.01 + r + i * s, 0.01 + r + j * s, r + 0.002 + k * s), r, 1, 1), mat)
                    q = (n * 37 % 11) / 11.0 - 0.5
                    INITIAL_VELOCITY(ball, (0.5 * q, -0.3 * q, -0.5 * (k + 1)), (q, 0, 0))
        OUTPUT(sol, 0.01)
        RUN(sol, {SOLVER}, {duration!r})
        """)


@pytest.mark.parametrize("ranks", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_spheres_in_a_box_match_the_serial_run(tmp_path, ranks):
    """27 spheres falling into a box (27 sphere-box and up to ~15 sphere-sphere contacts),
    on 2 and 3 ranks: states, energies and the contact count of every frame."""
    duration = 0.1
    (serial, mpi), _ = _runs(tmp_path, "spheres", spheres(3, duration), ranks=(1, ranks))
    _converged(serial, mpi)
    _compare(serial, mpi, "rigid", duration, PER_STEP, step=STEP, interval=0.01, vfree=STEP * GRAVITY)
    counts = [_contacts(serial, f) for f in range(serial.nframes)]
    assert max(counts) > 27                                  # the spheres touch each other too
    np.testing.assert_array_equal(serial.column("CONS"), mpi.column("CONS"))


# -------------------------------------------------------------------- the masonry arch
@pytest.mark.slow
def test_masonry_arch_matches_the_serial_run(tmp_path):
    """inputs/masonry_arch.py (27 voussoirs, 168 contacts, friction 0.5) at h/r = 0.1095 for
    0.05 s on 2 ranks; a copy of the deck with the solver of this file (module docstring)
    and a frame every 0.01 s. The arch stands: its velocities are what the solves leave of
    the gravity step h g, the `vfree` of the bound. With friction the reactions of a
    joint's six contacts need not be unique, but the velocities of a sticking arch are
    (zero, but for the solver's residual), which the bound covers. The contact and friction
    work are not compared: they are products of the arch's thrusts (tens of kN over the
    joints) and of velocities that are only that residual, so the relative energy bound of
    moving bodies does not hold for them (they differ by 1.3e-7 J of 5e-6 J, about
    h/2 * 2e-8 m/s * the summed reactions of the settling step)."""
    text = open(os.path.join(ROOT, "inputs", "masonry_arch.py")).read()
    text, n = re.subn(r"GAUSS_SEIDEL_SOLVER\(1E-4, 10000\)", SOLVER.replace("1000,", "10000,"), text)
    assert n == 1
    text, n = re.subn(r"OUTPUT\(sol, 0\.05\)", "OUTPUT(sol, 0.01)", text)
    assert n == 1
    duration = 0.05
    (serial, mpi), runs = _runs(tmp_path, "arch", text, words=["0.1095", f"stop={duration}"],
                                output="out/masonry_arch/0.1095")
    _converged(serial, mpi)
    _compare(serial, mpi, "rigid", duration, PER_STEP, step=STEP, interval=0.01, vfree=STEP * 9.81,
             energies=("E_KINETIC",))
    np.testing.assert_array_equal(serial.column("CONS"), mpi.column("CONS"))
    assert _contacts(mpi, mpi.nframes - 1) == 168                 # 6 per joint
    for _, res in runs:                   # the deck's own check read the stored frames: 6 contacts per joint
        assert "per joint: " + " ".join(["6"] * 28) in res.stdout


# -------------------------------------------------------------------- rigid and finite elements
FE_ON_RIGID = BOXES + textwrap.dedent(f"""\
    sol = SOLFEC('DYNAMIC', {STEP!r}, 'out/slab')
    GRAVITY(sol, (0, 0, -{GRAVITY!r}))
    SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.0)
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
    BODY(sol, 'OBSTACLE', HULL(box(-1, -1, -1, 5, 2, 0), 1, 1), mat)
    left = BODY(sol, 'RIGID', HEX(box(0, 0, 0.001, 1, 1, 1.001), 2, 2, 1, 1, [1]*6), mat)
    right = BODY(sol, 'RIGID', HEX(box(3, 0, 0.001, 4, 1, 1.001), 2, 2, 1, 1, [1]*6), mat)
    slab = BODY(sol, 'FINITE_ELEMENT', HEX(box(0, 0, 1.002, 4, 1, 1.5), 4, 1, 1, 2, [2]*6), mat, form='TL')
    owners = []
    CALLBACK(sol, 0.01, None, lambda _: owners.append([b.id for b in (left, right, slab) if HERE(sol, b)]) or 1)
    OUTPUT(sol, 0.005)
    RUN(sol, {SOLVER}, 0.05)
    import json
    json.dump(owners, open('owners%d.json' % RANK(), 'w'))
    """)


def test_finite_element_slab_on_rigid_blocks_matches_the_serial_run(tmp_path):
    """A TL slab (4 x 1 x 1 elements, 10 times a rigid body's weight in the partition) drops
    1 mm onto two rigid blocks that drop 1 mm onto the floor: the blocks are owned by
    different ranks, so one of the slab's contacts always joins two ranks (the slab moves
    to the lighter rank when the contacts weigh in); rigid and FE states within the bound,
    equal contact counts."""
    duration = 0.05
    (serial, mpi), runs = _runs(tmp_path, "slab", FE_ON_RIGID)
    owners = [json.load(open(runs[1][0] / f"owners{r}.json")) for r in (0, 1)]
    for mine, theirs in zip(*owners):            # blocks 2 and 3 apart, the slab 4 with one of them
        assert sorted(mine + theirs) == [2, 3, 4] and (2 in mine) != (3 in mine)
    _converged(serial, mpi)
    for family in ("rigid", "finite_element"):
        _compare(serial, mpi, family, duration, PER_STEP, step=STEP, interval=0.005, vfree=STEP * GRAVITY)
    assert _contacts(serial, serial.nframes - 1) == 16                # 4 under each block, 4 on each
    np.testing.assert_array_equal(serial.column("CONS"), mpi.column("CONS"))


# -------------------------------------------------------------------- reactions across ranks
MASSES = (1E3, 1E3, 1E3, 1E3, 1E4)
LINKED_ROW = BOXES + textwrap.dedent(f"""\
    # a row of unit cubes on a frictionless floor, gravity tilted towards the wall at x = 0:
    # cubes 1-4 press on the wall and on each other; a rigid rod from the centre of cube 3 to
    # the heavy cube 5 (3 m beyond cube 4) pushes cube 5's load onto cube 3
    sol = SOLFEC('DYNAMIC', {STEP!r}, 'out/row')
    GRAVITY(sol, (-5, 0, -{GRAVITY!r}))
    SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.0)
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density={MASSES[0]!r})
    heavy = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density={MASSES[4]!r})
    BODY(sol, 'OBSTACLE', HULL(box(-1, -1, -1, 12, 2, 0), 1, 1), mat)
    BODY(sol, 'OBSTACLE', HULL(box(-1, -1, 0, 0, 2, 2), 1, 1), mat)
    xs = [0.0, 1.0, 2.0, 3.0, 7.0]
    cubes = [BODY(sol, 'RIGID', HEX(box(x, 0, 0, x + 1, 1, 1), 1, 1, 1, 1, [1]*6), heavy if i == 4 else mat)
             for i, x in enumerate(xs)]
    PUT_RIGID_LINK(cubes[2], cubes[4], (2.5, 0.5, 0.5), (7.5, 0.5, 0.5))
    IMBALANCE_TOLERANCE(sol, 10.0, 1.0, 5)        # the first partition stays
    owners = []
    CALLBACK(sol, 0.01, None, lambda _: owners.append([b.id for b in cubes if HERE(sol, b)]) or 1)
    OUTPUT(sol, 0.01)
    RUN(sol, {SOLVER}, 0.1)
    import json
    json.dump(owners, open('owners%d.json' % RANK(), 'w'))
    """)


def _pair_forces(reader, frame: int) -> dict:
    """(kind code, smaller body id, larger body id) -> the sum of the normal reactions RN of
    that pair's constraints (a face-to-face contact's share among its points need not be
    unique; the sum is)."""
    from solfec_py.output.frames import CCOL

    out: dict = {}
    for row in reader.frame_constraints(frame):
        a, b = int(row[CCOL["BID1"]]), int(row[CCOL["BID2"]])
        key = (int(row[CCOL["KIND"]]), min(a, b), max(a, b))
        out[key] = out.get(key, 0.0) + float(row[CCOL["RN"]])
    return out


def test_reactions_across_ranks_match_the_serial_run(tmp_path):
    """The rod joins cube 3 (rank 0) and cube 5 (rank 1), cube 3 touches cube 4 (rank 1):
    checked at every look by HERE. Every pair's summed reaction (the link's, each contact's)
    equals the serial one within the bound that the velocities' gives: a body's net
    constraint force is m (v+ - v-) / h, so it differs by at most 2 m vel_tol / h between
    the runs; along this row every pair force is a sum of such net forces of the bodies
    beyond it (and every floor reaction one of them), so all differ by at most
    2 M vel_tol / h, M the moving mass (14 t): about 60 N here, against the 5e4 N the rod
    carries and the 5e3 N between cubes 3 and 4, which a lost or doubled reaction of the
    other rank would change entirely."""
    duration = 0.1
    (serial, mpi), runs = _runs(tmp_path, "row", LINKED_ROW)
    owners = [json.load(open(runs[1][0] / f"owners{r}.json")) for r in (0, 1)]
    cube = {i + 1: i + 3 for i in range(5)}                 # ids: the two obstacles come first
    for mine, theirs in zip(*owners):
        assert sorted(mine + theirs) == list(cube.values())
        assert (cube[3] in mine) != (cube[5] in mine) and (cube[3] in mine) != (cube[4] in mine)
    _converged(serial, mpi)
    _compare(serial, mpi, "rigid", duration, PER_STEP, step=STEP, interval=0.01, vfree=STEP * np.hypot(5, GRAVITY),
             energies=("E_KINETIC",))       # the contact work of a row at rest: as the arch's
    vmax = max(np.abs(serial.frame_state("rigid", f)[1][:, 12:18]).max() for f in range(serial.nframes))
    vel_tol = round(duration / STEP) * PER_STEP * (vmax + STEP * np.hypot(5, GRAVITY))
    force_tol = 2 * sum(MASSES) * vel_tol / STEP
    assert force_tol < 100
    for f in range(serial.nframes):
        fs, fm = _pair_forces(serial, f), _pair_forces(mpi, f)
        assert fs.keys() == fm.keys(), f"frame {f}: the constraints differ"
        for key in fs:
            assert abs(fs[key] - fm[key]) <= force_tol, f"frame {f}, {key}: {fs[key]} != {fm[key]}"
    last = _pair_forces(serial, serial.nframes - 1)
    link, contact = (6, cube[3], cube[5]), (1, cube[3], cube[4])   # KIND codes: RIGLNK 6, CONTACT 1
    assert abs(last[link] - 5 * MASSES[4]) < 0.01 * 5 * MASSES[4]      # the rod carries cube 5's 5e4 N
    assert abs(last[contact] - 5 * MASSES[3]) < 0.01 * 5 * MASSES[3]   # cube 4 leans on cube 3 alone


# -------------------------------------------------------------------- reproducible, balanced
def pile(tolerance: float, n: int = 5) -> str:
    """n x n spheres spread over a 1.5 m square floor, thrown into the corner walled at
    x = 0 and y = 0 (each at 8 times its distance from the corner, per second): they leave
    the first partition's parts and pile up in one of them."""
    return BOXES + textwrap.dedent(f"""\
        sol = SOLFEC('DYNAMIC', {STEP!r}, 'out/pile')
        sol.verbose = 'ON'
        GRAVITY(sol, (0, 0, -{GRAVITY!r}))
        SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.0)
        mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
        BODY(sol, 'OBSTACLE', HULL(box(-0.1, -0.1, -0.1, 2, 2, 0), 1, 1), mat)
        BODY(sol, 'OBSTACLE', HULL(box(-0.1, -0.1, 0, 0, 2, 0.5), 1, 1), mat)
        BODY(sol, 'OBSTACLE', HULL(box(0, -0.1, 0, 2, 0, 0.5), 1, 1), mat)
        for i in range({n}):
            for j in range({n}):
                x, y = 0.1 + 0.35 * i, 0.1 + 0.35 * j
                ball = BODY(sol, 'RIGID', SPHERE((x, y, 0.05), 0.05, 1, 1), mat)
                INITIAL_VELOCITY(ball, (-8 * (x - 0.05), -8 * (y - 0.05), 0), (0, 0, 0))
        IMBALANCE_TOLERANCE(sol, {tolerance!r}, 1.0, 5)
        OUTPUT(sol, 0.01)
        RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 1000), 0.12)
        """)


def _contacts_of(reader, frame: int) -> int:
    return int((reader.frame_constraints(frame)[:, 0] == 1).sum())   # KIND code 1: CONTACT


def _timers():
    from solfec_py.output.frames import TIMERS

    return TIMERS


def test_two_runs_on_two_ranks_are_bit_equal(tmp_path):
    """The pile on 2 ranks twice, with rebalancing and migration: equal bits in every
    frame's row (but the wall-clock timers), body state and constraint row."""
    a, b = _runs(tmp_path, "pile", pile(1.1), ranks=(2, 2))[0]
    assert a.nframes == b.nframes == 13
    keep = [i for i, name in enumerate(a.column_names) if name not in _timers()]
    np.testing.assert_array_equal(a.table[:, keep], b.table[:, keep])
    for f in range(a.nframes):
        for got, want in zip(a.frame_state("rigid", f), b.frame_state("rigid", f)):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(a.frame_constraints(f), b.frame_constraints(f))
    assert a.column("CONS").max() > 25                        # the spheres met in the corner


_BALANCE = re.compile(r"parallel: 2 ranks; load imbalance ([\d.]+) at the end, at most ([\d.]+) "
                      r"\(tolerance ([\d.]+)\); rebalanced (\d+) times, (\d+) bodies migrated")


def test_a_pile_collapsing_into_a_corner_is_rebalanced(tmp_path):
    """Rank 0's summary of RUN (sol.verbose = 'ON') tells the load balance; only rank 0
    prints. With IMBALANCE_TOLERANCE(1.1, 1.0, 5) the spheres are partitioned again as
    they gather in the corner, and the imbalance stays near the tolerance; with 10 the
    first partition stays, and the bodies that left their part migrate until one rank
    holds most of the pile."""
    found = []
    for tolerance in (1.1, 10.0):
        (tmp_path / str(tolerance)).mkdir()
        readers, runs = _runs(tmp_path / str(tolerance), "pile", pile(tolerance), ranks=(2,))
        res = runs[0][1]
        assert res.stdout.count("RUN: t = 0 -> 0.12 s") == 1, res.stdout[-2000:]      # rank 0 speaks, once
        assert res.stdout.count("IMBALANCE: ") >= 1                                 # and its progress lines
        # the summary counts every rank's contacts: those of the last stored frame (t = 0.12)
        stored = _contacts_of(readers[0], readers[0].nframes - 1)
        assert f"contacts: {stored} at the end" in res.stdout, (stored, res.stdout[-2000:])
        match = _BALANCE.search(res.stdout)
        assert match, res.stdout[-2000:]
        found.append([float(v) for v in match.groups()])
    end, worst, _, rebalanced, migrated = found[0]
    assert rebalanced > 1 and worst > 1.1 and end < 1.3 and migrated > 0
    end, worst, _, rebalanced, migrated = found[1]
    assert rebalanced == 0 and end > 1.3 and migrated > 0
