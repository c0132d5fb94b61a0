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

import os
import shutil
import subprocess
import sys

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
