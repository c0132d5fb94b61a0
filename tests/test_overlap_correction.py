"""OVERLAP_CORRECTION (solvers/overlap_correction.py, docs/contact.md): the opt-in position
correction after a dynamic step, against what its scheme predicts.

References and tolerances:
* a cube resting on a floor with a known overlap d0 (one contact at the centre of its bottom
  face, so the correction is a pure translation and the one-row complementarity problem is
  solved exactly): after k steps the overlap is d0 (1 - f)^k. The centre height is compared
  to 1e-12 m (round-off of positions of order 0.1 m over a few steps; the contact stops the
  cube exactly, so nothing else moves it);
* the correction never changes velocities: in every step the velocities (hence the
  momentum and the kinetic energy) after the correction equal, bit for bit, those before it,
  and a body without contact follows the same trajectory, bit for bit, as in the run
  without the option;
* a column of 3 cubes dropped through 1 mm gaps settles, with the option, at the stacked
  heights to 1e-6 m (the landing overlaps, about 0.1 mm, shrink by (1 - f) = 1/2 per step
  for some 200 steps; 1e-6 m is GEOMETRIC_EPSILON, the contact detection's own resolution),
  while without it the column sits lower by more than 2e-5 m (the overlaps of the landings,
  docs/contact.md);
* a PSEUDO_RIGID cube's overlap decays in the same way (to 1e-7 m: its elastic deformation);
* argument checks name the argument, the expectation and the value.
"""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py import constraints as C, timestep
from solfec_py.solvers import overlap_correction as OC
from solfec_py.errors import InputError, InputTypeError, NotAvailableError

EDGE, RHO, G = 0.1, 1000.0, 9.81


def _box(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    return [x0, y0, z0, x1, y0, z0, x1, y1, z0, x0, y1, z0, x0, y0, z1, x1, y0, z1, x1, y1, z1, x0, y1, z1]


def _floor_scene(api, name, gravity=G, kind='RIGID'):
    sol = api.SOLFEC("DYNAMIC", 1e-3, f"out/overlap_{name}")
    sol.verbose = 'OFF'
    api.GRAVITY(sol, (0, 0, -gravity))
    mat = api.BULK_MATERIAL(sol, young=1e9, poisson=0.25, density=RHO)
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
    api.BODY(sol, 'OBSTACLE', api.HEX(_box((-1, -1, -0.1), (1, 1, 0)), 1, 1, 1, 0, [0] * 6), mat)
    return sol, mat


def _cube(api, sol, mat, lo, kind='RIGID'):
    shape = api.HEX(_box(lo, tuple(c + EDGE for c in lo)), 1, 1, 1, 0, [1] * 6)
    return api.BODY(sol, kind, shape, mat)


def _watch_velocities(monkeypatch, blocks_of):
    """Wrap the step's correction hook: record, per step, whether velo was left untouched."""
    same = []
    original = timestep.correct_overlaps

    def hook(domain, h):
        before = [b.velo[:b.count].copy() for b in blocks_of(domain)]
        sweeps = original(domain, h)
        after = [b.velo[:b.count] for b in blocks_of(domain)]
        same.append(all(np.array_equal(x, y) for x, y in zip(before, after)))
        return sweeps

    monkeypatch.setattr(timestep, "correct_overlaps", hook)
    return same


@pytest.mark.parametrize("fraction", [0.2, 0.5])
def test_overlap_decays_geometrically_and_velocities_stay(api, monkeypatch, fraction):
    d0, steps = 1e-3, 6
    sol, mat = _floor_scene(api, f"decay_{fraction}")
    cube = _cube(api, sol, mat, (-0.05, -0.05, -d0))
    api.OVERLAP_CORRECTION(sol, fraction)
    same = _watch_velocities(monkeypatch, lambda d: [cube.block])
    heights = []
    api.CALLBACK(sol, 1e-3, (), lambda: heights.append(cube.conf[11]) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), steps * 1e-3)
    overlap = 0.5 * EDGE - np.array(heights[:steps])
    expected = d0 * (1.0 - fraction) ** np.arange(1, steps + 1)
    assert overlap == pytest.approx(expected, abs=1e-12)
    assert len(same) == steps and all(same)
    assert np.abs(cube.velo).max() < 1e-12                       # at rest: the correction injects nothing


def test_no_correction_without_the_option_and_free_bodies_untouched(api):
    """The same overlapping cube without OVERLAP_CORRECTION keeps its overlap (Solfec's law);
    a second cube in free fall far away follows, bit for bit, the trajectory it has in the
    run with the correction; the overlapping cube's velocity is the same in both runs after
    the first step (the correction comes after the velocity update)."""
    d0 = 1e-3
    runs = {}
    for on in (False, True):
        sol, mat = _floor_scene(api, f"free_{on}")
        cube = _cube(api, sol, mat, (-0.05, -0.05, -d0))
        free = _cube(api, sol, mat, (0.5, 0.5, 0.3))
        if on:
            api.OVERLAP_CORRECTION(sol, 0.5)
        track = []
        api.CALLBACK(sol, 1e-3, (), lambda: track.append((np.array(cube.conf), np.array(cube.velo), np.array(free.conf),
                                                          np.array(free.velo))) or 1)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 5e-3)
        runs[on] = track
    off, on = runs[False], runs[True]
    assert 0.5 * EDGE - off[-1][0][11] == pytest.approx(d0, abs=1e-12)       # Solfec: the overlap stays
    assert 0.5 * EDGE - on[-1][0][11] == pytest.approx(d0 * 0.5 ** 5, abs=1e-12)
    assert np.array_equal(off[0][1], on[0][1])                               # first step: same velocity
    for a, b in zip(off, on):
        assert np.array_equal(a[2], b[2]) and np.array_equal(a[3], b[3])     # the free cube: bit for bit


def _column(api, name, correct):
    sol, mat = _floor_scene(api, name)
    cubes = [_cube(api, sol, mat, (0.0, 0.0, 1e-3 + k * (EDGE + 1e-3))) for k in range(3)]
    if correct:
        api.OVERLAP_CORRECTION(sol, 0.5)
    return sol, cubes


@pytest.mark.parametrize("reuse", [True, False])
def test_column_of_three_settles_at_the_stacked_heights(api, monkeypatch, reuse):
    """reuse: the solve's W (every constraint is a contact); False: the correction's own
    assembly at the end-of-step configuration (`_assembled`, used when other constraints
    share the set)."""
    if not reuse:
        monkeypatch.setattr(OC, "_reused", lambda solved, rows: None)
    ideal = 0.5 * EDGE + EDGE * np.arange(3)
    errors = {}
    for correct in (False, True):
        sol, cubes = _column(api, f"column_{correct}", correct)
        same = _watch_velocities(monkeypatch, lambda d: [cubes[0].block])
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000), 0.25)
        z = np.array([c.conf[11] for c in cubes])
        errors[correct] = float(np.mean(ideal - z))
        assert all(same)                       # the correction (when on) never changed a velocity
    assert errors[False] > 2e-5                # Solfec's law: the landing overlaps stay
    assert abs(errors[True]) < 1e-6


def test_argument_checks_and_switch_off(api):
    sol, mat = _floor_scene(api, "args")
    domain = sol.domain
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object"):
        api.OVERLAP_CORRECTION(None)
    with pytest.raises(InputTypeError, match="'fraction' must be a number, got"):
        api.OVERLAP_CORRECTION(sol, "half")
    with pytest.raises(InputError, match=r"'fraction' must be a number in \[0, 1\].*got 1.5"):
        api.OVERLAP_CORRECTION(sol, 1.5)
    with pytest.raises(InputError, match="'slop' must be non-negative, got -0.001"):
        api.OVERLAP_CORRECTION(sol, 0.5, slop=-1e-3)
    assert getattr(domain, "overlap_correction", None) is None          # default: off
    api.OVERLAP_CORRECTION(sol)
    assert domain.overlap_correction.fraction == 0.5 and domain.overlap_correction.slop == 0.0
    api.OVERLAP_CORRECTION(sol, fraction=0.3, slop=1e-5)
    assert (domain.overlap_correction.fraction, domain.overlap_correction.slop) == (0.3, 1e-5)
    api.OVERLAP_CORRECTION(sol, 0.0)
    assert domain.overlap_correction is None


def test_finite_element_bodies_are_refused(api):
    sol, mat = _floor_scene(api, "fem")
    _cube(api, sol, mat, (0.0, 0.0, 0.0), kind='FINITE_ELEMENT')
    with pytest.raises(NotAvailableError, match="FINITE_ELEMENT"):
        api.OVERLAP_CORRECTION(sol)


def test_pseudo_rigid_overlap_decays_geometrically(api):
    """A PSEUDO_RIGID cube (conf updated linearly, conf += h u') with overlap d0 = 1 mm: the
    contact gap found at each step is -d0 (1 - f)^k to 1e-7 m (the cube also deforms
    elastically under its weight and the contact, m g / (E A) x edge = 5e-8 m)."""
    d0, f, steps = 1e-3, 0.5, 8
    sol, mat = _floor_scene(api, "pseudo_rigid")
    cube = _cube(api, sol, mat, (-0.05, -0.05, -d0), kind='PSEUDO_RIGID')
    cube.scheme, cube.damping = 'DEF_LIM', 1e-3
    api.OVERLAP_CORRECTION(sol, f)
    gaps = []
    api.CALLBACK(sol, 1e-3, (), lambda: gaps.append([c for c in cube.constraints if c.kind == 'CONTACT'][0].gap) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), steps * 1e-3)
    assert np.array(gaps[:steps]) == pytest.approx(-d0 * (1 - f) ** np.arange(steps), abs=1e-7)


@pytest.mark.parametrize("omega", [1.0, 1.8])
def test_normal_pgs_solves_small_complementarity_problems(omega):
    """W = [[2, -1], [-1, 2]] (normal entries of 3 x 3 blocks): t = (1, 1) has both rows
    active, R = W^-1 t = (1, 1); t = (1, -5) has row 2 inactive, R = (1/2, 0) with
    (W R - t)_2 = 4.5 >= 0. Tolerance 1e-8: the relative stop test at epsilon 1e-12."""
    from solfec_py.solvers.overlap_correction import normal_pgs

    Wnn = np.array([2.0, 2.0])
    indptr = np.array([0, 1, 2])
    adj = np.array([1, 0])
    Wadj = np.zeros((2, 3, 3))
    Wadj[:, 2, 2] = -1.0
    for t, expected in (((1.0, 1.0), (1.0, 1.0)), ((1.0, -5.0), (0.5, 0.0))):
        R = np.zeros(2)
        sweeps = normal_pgs(Wnn, indptr, adj, Wadj, np.array(t), R, 1e-12, 1000, omega)
        assert sweeps < 1000
        assert R == pytest.approx(expected, abs=1e-8)


def test_slop_is_left(api):
    """With slop s the overlap decays to s: d_k = s + (d0 - s)(1 - f)^k (to 1e-12 m)."""
    d0, s, f, steps = 1e-3, 2e-4, 0.5, 5
    sol, mat = _floor_scene(api, "slop")
    cube = _cube(api, sol, mat, (-0.05, -0.05, -d0))
    api.OVERLAP_CORRECTION(sol, f, s)
    heights = []
    api.CALLBACK(sol, 1e-3, (), lambda: heights.append(cube.conf[11]) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), steps * 1e-3)
    overlap = 0.5 * EDGE - np.array(heights[:steps])
    assert overlap == pytest.approx(s + (d0 - s) * (1 - f) ** np.arange(1, steps + 1), abs=1e-12)


def test_rocking_cube_gets_no_energy_with_a_slop(api):
    """A cube landing on a floor with a small spin (1e-3 rad/s) rocks on its single centroid
    contact. Without the option its kinetic energy after 0.1 s stays below 1e-7 J (measured
    1.7e-8 J); with fraction 0.5 and no slop the correction feeds the rocking (measured
    5e-5 J, docs/contact.md); with a slop of 1e-5 m, which leaves the overlap that carries
    the rocking moment, it stays below 1e-7 J again (measured 5.6e-9 J)."""
    worst = {}
    for case, args in (("off", None), ("slop", (0.5, 1e-5)), ("no slop", (0.5, 0.0))):
        sol, mat = _floor_scene(api, f"rock_{case.replace(' ', '_')}")
        cube = _cube(api, sol, mat, (0.0, 0.0, 1e-3))
        api.INITIAL_VELOCITY(cube, (0, 0, 0), (1e-3, 0.7e-3, 0))
        if args:
            api.OVERLAP_CORRECTION(sol, *args)
        energy = []
        block = cube.block
        api.CALLBACK(sol, 1e-3, (), lambda: energy.append(float(block.kinetic_energy()[cube.row])) or 1)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-3, 1000), 0.5)
        worst[case] = max(energy[100:])
    assert worst["off"] < 1e-7 and worst["slop"] < 1e-7
    assert worst["no slop"] > 1e-6                   # the limitation the slop answers


def test_reused_normal_entries_match_the_end_of_step_assembly(api, monkeypatch):
    """The solve's W (mid-step configuration) that the correction reuses against its own
    assembly at the end-of-step configuration (`_assembled`), in the steps of a column of
    3 cubes once it has settled (t > 0.15 s): the contact frames move by h/2 of a velocity of
    order 1e-4 m/s or less, so the normal entries agree to 1e-6 relative (the settled column's
    motion over half a step, 5e-8 m, against lever arms of 0.05 m, with margin)."""
    sol, cubes = _column(api, "reuse", True)
    worst = []
    original = timestep.correct_overlaps

    def hook(domain, h):
        solved = getattr(domain, "solved_local_dynamics", None)
        if solved is not None and domain.time > 0.15:
            cset = C.constraint_set(domain)
            rows = np.flatnonzero(cset.kind[:cset.count] == C.CONTACT)
            if OC._reused(solved, rows) is not None:
                own = OC._assembled(domain, cset, h, rows)
                scale = np.abs(own.Wnn).max()
                worst.append(np.abs(solved.Wnn - own.Wnn).max() / scale)
                assert np.array_equal(solved.indptr, own.indptr) and np.array_equal(solved.adj, own.adj)
                worst.append(np.abs(solved.Wadj[:, 2, 2] - own.Wadj[:, 2, 2]).max() / scale)
        return original(domain, h)

    monkeypatch.setattr(timestep, "correct_overlaps", hook)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000), 0.25)
    assert len(worst) > 100                    # the reuse path ran in the settled steps
    assert max(worst) < 1e-6
