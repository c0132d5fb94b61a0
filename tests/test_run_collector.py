"""The cyclic garbage collector during a RUN (solfec_py/timestep.py): the model built before
the RUN is frozen out of the collector's scans while the steps run (Python's gc.freeze: a
collection then walks only what the steps make; S1 8 000 spheres ran 10 % faster), and it is
unfrozen when the RUN ends, also when it ends with an error, so that a process running model
after model (a parameter sweep) still frees the cycles of each one."""
from __future__ import annotations

import gc
import json

from solfec_py.cli import main

from conftest import write_deck

DECK = """\
import gc, json
sol = SOLFEC('DYNAMIC', 1E-3, 'out/collector')
GRAVITY(sol, (0, 0, -10))
mat = BULK_MATERIAL(sol, density=1000.0)
BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat)
seen = []
def look(_):
    seen.append(gc.get_freeze_count())
    if %(fail)r and len(seen) == 3:
        raise RuntimeError('stop here')
    return 1
CALLBACK(sol, 1E-3, None, look)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 100), 0.005)
json.dump({'during': seen, 'after': gc.get_freeze_count()}, open('frozen.json', 'w'))
"""


def test_the_model_is_frozen_while_the_run_steps_and_collectable_after(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert gc.get_freeze_count() == 0
    deck = write_deck(tmp_path / "deck.py", DECK % {"fail": False})
    assert main(["-w", "--no-progress", str(deck)]) in (0, None)
    got = json.load(open(tmp_path / "frozen.json"))
    assert len(got["during"]) == 5 and min(got["during"]) > 1000    # the model's objects, frozen
    assert got["after"] == 0 and gc.get_freeze_count() == 0


def test_a_run_that_fails_unfreezes_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    deck = write_deck(tmp_path / "deck.py", DECK % {"fail": True})
    assert main(["-w", "--no-progress", str(deck)]) not in (0, None)
    assert gc.get_freeze_count() == 0
