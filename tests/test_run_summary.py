"""RUN's closing summary: printed when RUN shows progress (here the statistics lines a deck
asks for with verbose = 'ON'), silent otherwise. Its counts are checked against independent
records of the same run: the solver's own failure callback (called by Gauss-Seidel after every
solve that did not converge), and the frames stored every step, read back in READ mode
(MERIT, constraint counts, frame times), as the command the summary names writes them
(`solfec-py plot OUTDIR --csv`)."""
from __future__ import annotations

import csv
import json
import re

import pytest

from solfec_py.cli import main

from conftest import write_deck

# three unit boxes stacked 1 cm apart over a floor, the top one sliding at 1 m/s, friction 0.3:
# Gauss-Seidel with 3 iterations to 1e-12 stops at its cap at most steps with the coupled
# contacts of the stack, its failure callback counts them
DECK = """\
import json
sol = SOLFEC('DYNAMIC', 1E-3, 'out/summary')
sol.verbose = %(verbose)r
GRAVITY(sol, (0, 0, -10))
mat = BULK_MATERIAL(sol, density=1000.0)
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
BODY(sol, 'OBSTACLE', HEX([-5,-5,-1, 5,-5,-1, 5,5,-1, -5,5,-1, -5,-5,0, 5,-5,0, 5,5,0, -5,5,0],
                          1, 1, 1, 1, [1]*6), mat)
for k in range(3):
    z0, z1 = 1.01 * k + 0.01, 1.01 * k + 1.01
    box = BODY(sol, 'RIGID', HEX([0,0,z0, 1,0,z0, 1,1,z0, 0,1,z0, 0,0,z1, 1,0,z1, 1,1,z1, 0,1,z1],
                                 1, 1, 1, 1, [1]*6), mat)
INITIAL_VELOCITY(box, (1, 0, 0), (0, 0, 0))
failed = []
def on_failure(gs):
    failed.append(gs.error)
    return 1
gs = GAUSS_SEIDEL_SOLVER(1E-12, 3, failure='CALLBACK', callback=on_failure)
RUN(sol, gs, 0.1)
if sol.mode == 'WRITE':
    json.dump({'failed': failed}, open('failed.json', 'w'))
"""

SUMMARY = re.compile(
    r"RUN: t = 0 -> (?P<t1>\S+) s in (?P<steps>\d+) steps; (?P<wall>\S+) s wall, (?P<cpu>\S+) s CPU\n"
    r"  results: out/summary/summary\.results \((?P<frames>\d+) frames\); plot them: solfec-py plot out/summary\n"
    r"  solver: GAUSS_SEIDEL_SOLVER stopped at its iteration cap \(maxiter = 3\) without converging in"
    r" (?P<capped>\d+) of (?P<solves>\d+) steps, first at t = \S+ s; worst merit (?P<merit>\S+);"
    r" contacts: (?P<end>\d+) at the end, at most (?P<most>\d+)\n")


def test_summary_counts_match_the_solver_callback_and_the_stored_frames(tmp_path, capsys):
    deck = write_deck(tmp_path / "summary.py", DECK % {"verbose": "ON"})
    assert main([deck, "-i", "1000"]) == 0
    out = capsys.readouterr().out
    found = SUMMARY.search(out)
    assert found, out
    s = {k: float(v) for k, v in found.groupdict().items()}
    failed = json.load(open(tmp_path / "failed.json"))["failed"]
    assert main(["plot", "out/summary", "-e", "MERIT", "-e", "CONS", "--csv", "frames.csv", "--no-plot"]) == 0
    with open(tmp_path / "frames.csv") as handle:
        rows = [[float(v) for v in row] for row in list(csv.reader(handle))[1:]]
    t, merit, cons = (list(column) for column in zip(*rows))
    assert main([deck]) == 0                                      # READ mode: nothing is run
    assert "RUN: " not in capsys.readouterr().out                 # nor summed up
    # steps and time: one frame per step after frame 0
    assert s["frames"] == len(t) and s["steps"] == len(t) - 1
    assert s["t1"] == pytest.approx(t[-1], rel=1e-6)
    # solves at the cap: those the failure callback saw (all with DIVERGED)
    assert s["capped"] == len(failed) > 0 and set(failed) == {"DIVERGED"}
    # the steps that solved: those whose frame has contacts (the only constraints)
    assert s["solves"] == sum(1 for c in cons[1:] if c > 0)
    # worst merit and contacts: the stored frames' maximum (3 significant digits printed)
    assert s["merit"] == pytest.approx(max(merit), rel=5e-3)
    assert s["end"] == cons[-1] and s["most"] == max(cons) > 0
    assert 0.0 < s["cpu"] and 0.0 < s["wall"]


@pytest.mark.parametrize("verbose", ["OFF", "%"])
def test_no_summary_when_the_progress_is_quiet_or_a_percentage(tmp_path, capsys, verbose):
    deck = write_deck(tmp_path / "summary.py", DECK % {"verbose": verbose})
    assert main([deck]) == 0
    assert "RUN: " not in capsys.readouterr().out
