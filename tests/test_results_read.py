"""Results store and READ mode: a deck writes its results, the same deck re-run opens them
('READ') and HISTORY / SEEK / FORWARD / BACKWARD / DURATION / TIMING read them back.
References: values recorded by a CALLBACK during the run (independent of the store),
closed-form free fall, and frame times fixed by OUTPUT."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from solfec_py.cli import main

from conftest import free_flight_deck, solfec_clock, solfec_output_times, write_deck

# the ball starts 1 m from the cube so that the two never touch (free flight)
FALL = free_flight_deck('out/fall') + f"""\
OUTPUT(sol, 0.01)
P = (0.5, 1.0, 0.5)
rec = []
def record():
    rec.append([sol.time] + list(DISPLACEMENT(ball, (-1, 0, 0))) + list(DISPLACEMENT(box, P))
               + list(VELOCITY(box, P)) + list(ENERGY(sol)) + list(ENERGY(sol, box)))
    return 1
CALLBACK(sol, 1E-3, (), record)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.2)
out = {{'mode': sol.mode}}
if sol.mode == 'WRITE':
    out['rec'] = rec
else:
    try:
        TIMING(sol, 'TIMINT')
    except ValueError as exc:
        out['timing_before'] = str(exc)
    out['h'] = HISTORY(sol, [(ball, (-1, 0, 0), 'DX'), (ball, (-1, 0, 0), 'DZ'), (box, P, 'DX'),
                            (box, P, 'DY'), (box, P, 'DZ'), (box, P, 'VX'), (box, P, 'VY'),
                            (box, P, 'VZ'), (sol, 'KINETIC'), (sol, 'EXTERNAL'), (box, 'KINETIC'),
                            ('box', P, 'CZ'), ('nobody', P, 'CZ'), (box, P, 'MISES'),
                            'STEP', 'BODS', 'TIMINT', 'GSITERS'], 0, 0.2)
    out['h_skip'] = HISTORY(sol, (sol, 'KINETIC'), -5, 0.1, 2)
    out['duration'] = DURATION(sol)
    nav = []
    SEEK(sol, 0.055); nav.append(sol.time)
    out['seek_disp'] = DISPLACEMENT(ball, (-1, 0, 0))
    out['seek_energy'] = ENERGY(sol)
    out['timing'] = TIMING(sol, 'TIMINT')
    FORWARD(sol, 3); nav.append(sol.time)
    BACKWARD(sol, 2); nav.append(sol.time)
    BACKWARD(sol, 100); nav.append(sol.time)
    FORWARD(sol, 1000); nav.append(sol.time)
    SEEK(sol, 0.1); nav.append(sol.time)
    out['nav'] = nav
    RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.2)   # a no-op in READ mode
    out['after_run'] = sol.time
json.dump(out, open('result_' + sol.mode + '.json', 'w'))
"""


@pytest.fixture
def fall(tmp_path):
    deck = write_deck(tmp_path / "fall.py", FALL)
    assert main([deck]) == 0
    assert main([deck]) == 0
    w = json.load(open(tmp_path / "result_WRITE.json"))
    r = json.load(open(tmp_path / "result_READ.json"))
    return w, r


def test_second_run_opens_results_in_read_mode(fall, tmp_path):
    w, r = fall
    assert w["mode"] == "WRITE" and r["mode"] == "READ"
    assert (tmp_path / "out/fall/fall.results/store.json").is_file() and (tmp_path / "out/fall/fall.py").is_file()
    # RUN did nothing: the model stayed at the SEEK frame (the frame at 0.1 on Solfec's clock)
    assert r["after_run"] == r["nav"][-1] == pytest.approx(0.1, abs=1e-12)


def test_history_sampling_rule(fall):
    h = fall[1]["h"]
    times = np.array(h[0])
    # frames every 0.01 from 0 to 0.2: HISTORY(0, 0.2) gives the 20 frames before t1 (Solfec-1.0 user manual, HISTORY)
    assert len(times) == 20 and all(len(v) == 20 for v in h)
    np.testing.assert_allclose(times, 0.01 * np.arange(20), rtol=0, atol=1e-12)
    times2, ke2 = fall[1]["h_skip"]
    # t0 = -5 is clamped to 0; frames 0..10 -> N = 10 // 2 = 5 samples at 0, .02, .04, .06, .08
    np.testing.assert_allclose(times2, [0, 0.02, 0.04, 0.06, 0.08], atol=1e-12)
    np.testing.assert_array_equal(ke2, np.array(h[9])[[0, 2, 4, 6, 8]])


def test_history_equals_values_recorded_during_the_run(fall):
    w, r = fall
    h = np.array(r["h"], dtype=float)
    rec = np.array(w["rec"])
    matched = 0
    for k, t in enumerate(h[0]):
        near = np.flatnonzero(np.abs(rec[:, 0] - t) < 1e-9)
        if not near.size:
            continue
        matched += 1
        row = rec[near[0]]
        # ball DX, DZ; box DX DY DZ VX VY VZ; total KINETIC, EXTERNAL; box KINETIC. The store
        # keeps the float64 state, so only the evaluation order differs: 1e-12 relative.
        expect = [row[1], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10], row[11], row[15]]
        np.testing.assert_allclose(h[1:12, k], expect, rtol=1e-12, atol=1e-14)
    assert matched >= 15       # the CALLBACK (every step) ran at almost every frame time


def test_history_against_closed_form_and_counts(fall):
    h = np.array(fall[1]["h"], dtype=float)
    t = h[0]
    # RIG_NEG is exact for constant gravity: x = v0 t, z = v0z t - g t^2 / 2 (rounding only)
    np.testing.assert_allclose(h[1], t, atol=1e-12)
    np.testing.assert_allclose(h[2], 2 * t - 0.5 * 9.81 * t ** 2, atol=1e-12)
    # box: unit cube of density 1000 -> m = 1000, J = m/6 I; KE(0) = m|v|^2/2 + w.Jw/2
    assert h[11, 0] == pytest.approx(0.5 * 1000 * 1 + 0.5 * 1000 / 6 * 14, rel=1e-12)
    # the label string resolves to the box: CZ = 0.5 + DZ; an unknown label gives NaN
    np.testing.assert_allclose(h[12], 0.5 + h[5], atol=1e-12)
    assert np.isnan(h[13]).all()
    assert not h[14].any()                                # MISES of a rigid body: 0
    np.testing.assert_array_equal(h[15], 1e-3)            # STEP
    np.testing.assert_array_equal(h[16], 2)               # BODS
    assert h[17, 0] == 0.0 and (h[17, 1:] >= 0).all()     # TIMINT: absent at frame 0 -> 0.0
    assert not h[18].any()                                # GSITERS: no constraints solved


def test_navigation_walks_the_frames(fall):
    r = fall[1]
    assert r["duration"] == [0.0, pytest.approx(0.2, abs=1e-12)]
    # SEEK(0.055) lands where Solfec-1.0's binary search over the 21 frame times (pbf.c,
    # PBF_Seek) last probes: frames 10, 4, 7, 5, 6 -> 0.06; FORWARD 3 -> 0.09; BACKWARD 2 ->
    # 0.07; clamped at both ends; SEEK to an exact frame time
    np.testing.assert_allclose(r["nav"], [0.06, 0.09, 0.07, 0.0, 0.2, 0.1], atol=1e-12)
    t = 0.06
    np.testing.assert_allclose(r["seek_disp"], [t, 0, 2 * t - 0.5 * 9.81 * t * t], atol=1e-12)
    assert r["timing"] >= 0.0
    assert "Invalid timing kind" in r["timing_before"]    # before any data command: no timers


BORN = """\
import json
sol = SOLFEC('DYNAMIC', 1E-2, 'out/born')
sol.verbose = 'OFF'
mat = BULK_MATERIAL(sol, density=1.0)
a = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat, label='a')
INITIAL_VELOCITY(a, (0, 0, 10), (0, 0, 0))
EXTENTS(sol, (-10, -10, -10, 10, 10, 0.5))
OUTPUT(sol, 0.1)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.2)
b = BODY(sol, 'RIGID', SPHERE((5, 0, 0), 0.1, 1, 1), mat, label='late')
INITIAL_VELOCITY(b, (0, 1, 0), (0, 0, 0))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.6)
if sol.mode == 'READ':
    h = HISTORY(sol, [('late', (5, 0, 0), 'DY'), (b, (5, 0, 0), 'CX'), ('a', (0, 0, 0), 'CZ'), 'BODS',
                      (sol, 'KINETIC')], 0, 0.8)
    json.dump(h, open('born.json', 'w'))
"""


def test_bodies_created_later_and_deleted_by_extents(tmp_path):
    deck = write_deck(tmp_path / "born.py", BORN)
    assert main([deck]) == 0 and main([deck]) == 0
    t, late, bx, az, bods, ke = (np.array(v, dtype=float) for v in json.load(open(tmp_path / "born.json")))
    # Solfec's clock: the frame due at 0.1 comes at 0.11 (ten steps of 0.01 add up to less)
    first = solfec_clock(0.01, 0.2)
    frames = [0.0] + solfec_output_times(first + solfec_clock(0.01, 0.6, first[-1]), 0.1)
    np.testing.assert_array_equal(t, [f for f in frames if f <= 0.8])     # HISTORY's [0, 0.8]
    assert t[1] == pytest.approx(0.11, abs=1e-12)
    before = t <= first[-1]    # frames stored by the first RUN, before BODY 'late'
    assert np.isnan(late[before]).all() and np.isnan(bx[before]).all()     # not created yet
    np.testing.assert_allclose(late[~before], t[~before] - first[-1], atol=1e-12)   # DY = 1 * (t - t1)
    np.testing.assert_allclose(bx[~before], 5.0, atol=1e-12)
    # body 'a' rises at 10/s; its bounding box (half-size <= 0.2 about the centre) leaves
    # z <= 0.5 before t = 0.05: deleted, absent from every later frame
    gone = t > 0.05
    np.testing.assert_allclose(az[~gone], 10 * t[~gone], atol=1e-12)
    assert np.isnan(az[gone]).all()
    np.testing.assert_array_equal(bods, (~gone).astype(int) + (~before).astype(int))
    # kinetic energy (m = 4/3 pi 0.1^3 each): 'a' m 10^2 / 2 while it lives, 'late' m / 2
    m = 4 / 3 * math.pi * 0.1 ** 3
    expect = 0.5 * m * (np.where(gone, 0, 100) + np.where(before, 0, 1))
    np.testing.assert_allclose(ke, expect, rtol=1e-6)    # sphere volume to 1e-6


def test_read_mode_warns_when_the_stored_run_stopped_early(tmp_path, capsys):
    """A run cut short (here: a CALLBACK stops it at 0.1 s of its 0.2 s while a file 'halt'
    exists) leaves frames that a READ-mode rerun would silently report as the end state; its
    first RUN says so. A complete store gives no warning, and neither does a later RUN call
    while reading."""
    deck = free_flight_deck('out/short') + """\
import os
OUTPUT(sol, 0.01)
CALLBACK(sol, 0.01, (), lambda: 0 if os.path.exists('halt') and sol.time > 0.1 - 1e-9 else 1)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.2)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.2) if sol.mode == 'READ' else None
"""
    name = write_deck(tmp_path / "short.py", deck)
    (tmp_path / "halt").write_text("")
    assert main([name]) == 0                            # WRITE: stops at 0.1 s
    (tmp_path / "halt").unlink()
    capsys.readouterr()
    assert main([name]) == 0                            # READ: asks for 0.2 s
    err = capsys.readouterr().err
    assert "end at t = 0.1" in err and "before t = 0.2" in err and "-c continues" in err
    assert main(["-w", name]) == 0                      # the whole run
    capsys.readouterr()
    assert main([name]) == 0                            # READ of what was asked: no warning
    assert "WARNING" not in capsys.readouterr().err
