"""Solfec-1.0's own BM benchmark decks (its tests/ folder: finite-element models with inline
meshes, each checking its results against Code_Aster or Solfec values at Solfec's
tolerances and printing PASSED or FAILED), run unmodified with `python -m solfec_py`.

The decks are not part of this repository: the tests look for a Solfec-1.0 source tree in
$SOLFEC_1_0_SRC, else beside the repository (../solfec-1.0-src), and are skipped without
one. Each deck runs from a scratch folder holding a copy of its own folder (the decks
write `out/tests/...` relative to the working directory). The table of every case, with
the reasons of those that fail, is in docs/fem.md.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import REPO

SOURCE = os.environ.get("SOLFEC_1_0_SRC") or os.path.join(REPO, os.pardir, "solfec-1.0-src")

# the decks that pass at their own tolerances (docs/fem.md, "Solfec-1.0 BM decks")
PASSING = ["BM01/BM01_force.py", "BM01/BM01_pressure.py", "BM02/BM02_hexa.py", "BM02/BM02_tetra.py",
           "BM03/BM03_hexa.py", "BM03/BM03_tetra.py", "BM04/BM04_hexa.py", "BM04/BM04_tetra.py",
           "BM05/BM05_hexa.py", "BM10/BM10_gravity.py", "BM13/BM13_coarse.py", "BM13/BM13_fine.py",
           "BM15/BM15_mixed.py"]
# about 6 s each; BM13_coarse checks node 216 against 25 tolerances that pin Solfec's own
# stress there to 5 digits (its F P / det F, docs/fem.md)
FAST = ["BM04/BM04_hexa.py", "BM13/BM13_coarse.py"]


def run_deck(tmp_path, deck: str) -> str:
    path = os.path.join(SOURCE, "tests", deck)
    if not os.path.isfile(path):
        pytest.skip(f"Solfec-1.0 BM deck {deck} not found (set SOLFEC_1_0_SRC to a Solfec-1.0 source tree)")
    folder = os.path.dirname(deck)
    shutil.copytree(os.path.dirname(path), tmp_path / "tests" / folder)
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "solfec_py", "--no-progress", os.path.join("tests", deck)],
                          cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def verdict(out: str) -> str:
    return "FAILED" if "FAILED" in out else "PASSED" if "PASSED" in out else "no verdict"


@pytest.mark.slow
@pytest.mark.parametrize("deck", FAST)
def test_fast_bm_deck_passes(tmp_path, deck):
    out = run_deck(tmp_path, deck)
    assert verdict(out) == "PASSED", out[-2000:]


@pytest.mark.extended
@pytest.mark.parametrize("deck", [d for d in PASSING if d not in FAST])
def test_bm_deck_passes(tmp_path, deck):
    out = run_deck(tmp_path, deck)
    assert verdict(out) == "PASSED", out[-2000:]


# --------------------------------------------------------------------------- physics checks
# Decks whose reference is Solfec's own history to 1e-14 (BM17, BM20-BM24) cannot be met by
# an independent code; these tests check the physics of the same models instead
# (docs/fem.md, "Solfec-1.0 BM decks run unchanged").

def deck_definitions(folder, deck: str, upto: str) -> None:
    """Write to `folder`/defs.py the Python 3 translation (`solfec-py translate`) of a
    Solfec-1.0 BM deck up to the line starting with `upto`: the deck's model definitions
    without its own run and check."""
    path = os.path.join(SOURCE, "tests", deck)
    if not os.path.isfile(path):
        pytest.skip(f"Solfec-1.0 BM deck {deck} not found (set SOLFEC_1_0_SRC to a Solfec-1.0 source tree)")
    out = os.path.join(folder, "defs.py")
    subprocess.run([sys.executable, "-m", "solfec_py", "translate", path, "-o", out], check=True,
                   env=dict(os.environ, PYTHONPATH=REPO), capture_output=True)
    with open(out) as f:
        text = f.read()
    with open(out, "w") as f:
        f.write(text[: text.index("\n" + upto) + 1])


def run_driver(folder, body: str) -> dict:
    """Run `body` (after exec of defs.py) as a deck in `folder`; it prints one line
    'RESULT <json>', returned as a dict."""
    with open(os.path.join(folder, "driver.py"), "w") as f:
        f.write("import json\nexec(open('defs.py').read())\n" + textwrap.dedent(body))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "solfec_py", "--no-progress", "--legacy", "off", "driver.py"],
                          cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout.replace("\b", "")          # the deck's progress shares the line
    return json.loads(out[out.rindex("RESULT ") + len("RESULT "):].splitlines()[0])


# BM22: a steel cantilever (0.5 m along (1,1,1), 279 nodes, 9 FIX_POINTs at one end) under a
# point FORCE time series, BC + DEF_LIM.  Here the 20 Hz excitation over its first 0.05 s
# (500 steps of the deck's h = 1e-4 s; tip deflection up to 0.13 m), run twice: as the deck
# has it (form='BC') and with form='TL' (total Lagrangian, Saint Venant-Kirchhoff: exact
# kinematics for any rotation).
BM22_STOP, BM22_H = 0.05, 1e-4

BM22_DRIVER = """
    FORM = {form!r}
    plain_body = BODY

    def BODY(*args, **kwargs):          # the deck's body, in formulation FORM
        kwargs['form'] = FORM
        return plain_body(*args, **kwargs)

    stop, h = {stop!r}, {h!r}
    create_simulation(h, stop, stop / 50, 20)
    solfec, point = create_simulation(h, stop, stop / 50, 20)          # READ mode
    body = solfec.bodies[0]
    his = HISTORY(solfec, [(body, point, 'DX'), (solfec, 'KINETIC'), (solfec, 'INTERNAL'),
                           (solfec, 'EXTERNAL')], 0, stop)
    print('RESULT', json.dumps({{'t': list(his[0]), 'dx': list(his[1]), 'kin': list(his[2]),
                                'int': list(his[3]), 'ext': list(his[4])}}))
"""


@pytest.fixture(scope="module")
def bm22_runs(tmp_path_factory):
    runs = {}
    for form in ("TL", "BC"):
        folder = tmp_path_factory.mktemp(f"bm22_{form}")
        deck_definitions(folder, "BM22/BM22_hexa.py", "step5 = ")
        res = run_driver(folder, BM22_DRIVER.format(form=form, stop=BM22_STOP, h=BM22_H))
        runs[form] = {k: np.asarray(v) for k, v in res.items()}
    return runs


def energy_error(run) -> float:
    """max |E_kin + E_int - W_ext| over the frames, relative to the largest external work."""
    return float(np.max(np.abs(run["kin"] + run["int"] - run["ext"])) / np.max(np.abs(run["ext"])))


@pytest.mark.extended
def test_bm22_total_lagrangian_reference_conserves_energy(bm22_runs):
    # the reference run: the fixed points do no work (U = 0), so kinetic + strain energy must
    # equal the work of the point force; measured 4.5e-6 of the largest work (DEF_LIM,
    # trapezoidal in the velocities); 1e-3 is 200 times that and 1/180 of the BC run's miss
    assert energy_error(bm22_runs["TL"]) < 1e-3


@pytest.mark.extended
@pytest.mark.xfail(strict=True, raises=AssertionError, reason="Solfec's body co-rotational DEF_LIM force (R K0 d, without the "
                   "variation of R) is not conservative: on BM22's clamped cantilever, bent through "
                   "large rotations, kinetic + strain energy exceed the work of the load by 18 % and "
                   "the tip DX departs from the total Lagrangian history by 2.4 % of its peak "
                   "(docs/fem.md, BM22)")
def test_bm22_corotational_run_matches_physics(bm22_runs):
    bc, tl = bm22_runs["BC"], bm22_runs["TL"]
    n = min(bc["t"].size, tl["t"].size)
    assert np.allclose(bc["t"][:n], tl["t"][:n])
    peak = np.max(np.abs(tl["dx"][:n]))
    # TL's own step error is 0.4 % of the peak at 0.04 s (h = 1e-4 against 5e-5): 2 % leaves
    # the co-rotational small-strain approximation room (measured: 2.4 % at 0.048 s)
    assert np.max(np.abs(bc["dx"][:n] - tl["dx"][:n])) < 0.02 * peak
    assert energy_error(bc) < 1e-3


# BM17: a steel cylinder pressed by two point forces of 8750 N (17 500 N on the half model)
# on a base resting on a clamped foundation, QUASI_STATIC, h = 1e-4 s, stopped at 1e-3 s.
# The deck checks DX, DZ, SX... of the base against Solfec's own values to 1e-10.
BM17_LOAD = 2 * 8750.0
BM17_DRIVER = """
    import numpy as np
    stop, h = 1e-3, 1e-4
    create_simulation(h, stop, h)
    solfec, nodes = create_simulation(h, stop, h)                     # READ mode
    cylinder = min(solfec.bodies, key=lambda b: b.id)                  # created first
    t, fz, gap = [], [], []
    for k in range(1, 11):
        SEEK(solfec, k * h)
        force, gaps = np.zeros(3), [0.0]
        for con in solfec.constraints:
            if con.kind != 'CONTACT':
                continue
            # R in the local frame (t1, t2, n), base column-major; R acts on the master
            r = np.array(con.base).reshape(3, 3).T @ np.array(con.R)
            master, slave = con.adjbod
            force += r if master is cylinder else -r if slave is cylinder else 0.0
            gaps.append(con.gap)
        t.append(solfec.time)
        fz.append(float(force[2]))
        gap.append(float(min(gaps)))
    print('RESULT', json.dumps({'t': t, 'fz': fz, 'gap': gap}))
"""


@pytest.fixture(scope="module")
def bm17_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bm17")
    deck_definitions(folder, "BM17/BM17_tetra.py", "step = ")
    return run_driver(folder, BM17_DRIVER)


@pytest.mark.extended
def test_bm17_no_penetration(bm17_run):
    # Signorini at velocity level keeps the contacts from closing further; what first
    # contact leaves is bounded by the deck's GEOMETRIC_EPSILON (1e-5 m, 4 % of the base's
    # 2.8e-4 m displacement); measured: at most 2.9e-6 m in the 10 steps
    assert min(bm17_run["gap"]) >= -1e-5


@pytest.mark.extended
@pytest.mark.xfail(strict=True, raises=AssertionError, reason="the deck stops 10 quasi-static steps into "
                   "the iteration's transient: contact carries 421 N of the 17 500 N load (docs/fem.md, BM17)")
def test_bm17_cylinder_in_equilibrium(bm17_run):
    # the cylinder's only support along z is the contact with the base: at equilibrium the
    # contact force on it balances the load (1 %: the quasi-static iteration's tolerance)
    assert abs(bm17_run["fz"][-1] - BM17_LOAD) < 0.01 * BM17_LOAD
