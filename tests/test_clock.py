"""Solfec's clock in RUN (timestep.run, output.recorder): time accumulates t += h, the run
goes on while t < t0 + duration, a frame is written and the CALLBACK called at the first
step with t >= the next time, which then grows by the interval.  The reference is an
independent t += h loop (conftest.solfec_clock / solfec_output_times) compared exactly:
these are the times Solfec-1.0 computes (sol.c SOLFEC_Run, dom.c DOM_Update_End)."""
from __future__ import annotations

import json

import numpy as np

from solfec_py.cli import main
from solfec_py.output.store import ResultsStore

from conftest import solfec_clock, solfec_output_times, write_deck

# h = 0.05 and a duration of 0.5 (10 h): the accumulated clock is short of 0.5 after 10
# steps, so Solfec makes an 11th step; frames every 0.1 s come one step after some
# multiples of 0.1 (0.3 is reached at the 7th step, not the 6th)
DECK = """\
import json
sol = SOLFEC('DYNAMIC', 0.05, 'out/clock')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1.0)
ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat)
calls = []
def record():
    calls.append(sol.time)
    return 1
CALLBACK(sol, 0.1, (), record)
OUTPUT(sol, 0.1)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 10), 0.5)
first = sol.time
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 10), 0.2)
if sol.mode == 'WRITE':
    json.dump({'calls': calls, 'first': first, 'end': sol.time}, open('clock.json', 'w'))
"""


def test_frames_callbacks_and_steps_follow_solfecs_clock(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["--no-progress", write_deck(tmp_path / "clock.py", DECK)]) == 0
    got = json.load(open(tmp_path / "clock.json"))
    first = solfec_clock(0.05, 0.5)
    assert len(first) == 11                        # not 10: Solfec's round-off step
    second = solfec_clock(0.05, 0.2, t0=first[-1])
    steps = first + second
    assert got["first"] == first[-1] and got["end"] == second[-1]
    # CALLBACK: registered at t = 0, so it runs after the first step, then every 0.05
    calls = solfec_output_times(steps, 0.1, t0=-0.1)
    assert got["calls"] == calls
    # frames: frame 0 at t = 0, then by the same rule from OUTPUT's t + interval
    times = ResultsStore.open_existing(str(tmp_path / "out/clock/clock.results")).times
    expected = [0.0] + solfec_output_times(steps, 0.1)
    np.testing.assert_array_equal(times, expected)
    # the rule matters: the frame due at 0.3 = 6 h comes at the 7th step (the accumulated
    # clock is short of the accumulated output time there)
    assert any(abs(t - 0.35) < 1e-12 for t in times)
    assert not any(abs(t - 0.3) < 1e-12 for t in times)
