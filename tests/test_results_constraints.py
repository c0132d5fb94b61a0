"""Constraint data in results: constraint records of a domain are stored with every frame,
HISTORY's constraint entities (GAP, R, CR, U, CU with body sets, directions and surface
pairs) read them, and the ParaView constraints file shows them. The constraint solver does
not exist yet, so the records are set by hand; the expected values are worked by hand."""
from __future__ import annotations

import types

import numpy as np
import pytest

from solfec_py.output import recorder


def model(api, records=None):
    sol = api.SOLFEC("DYNAMIC", 0.1, "out/cons")
    mat = api.BULK_MATERIAL(sol, density=1.0)
    bodies = [api.BODY(sol, "RIGID", api.SPHERE((2.0 * i, 0, 0), 0.5, 1, i + 1), mat, label=f"b{i + 1}")
              for i in range(3)]
    return sol, bodies


def rec(kind, bodies, pair, base_cols, R, U, gap, point=(0, 0, 0)):
    return types.SimpleNamespace(kind=kind, bodies=bodies, spair=pair, point=point,
                                 base=np.column_stack(base_cols), R=R, U=U, V=(0, 0, 0), gap=gap,
                                 area=0.0, merit=0.0)


@pytest.fixture
def stored(api):
    sol, (b1, b2, b3) = model(api)
    ex, ey, ez = np.eye(3)
    sol.domain.constraints = [
        # contact 1-2, surfaces (1, 2), base t1 = ey, t2 = -ex, n = ez
        rec("CONTACT", (b1, b2), (1, 2), (ey, -ex, ez), (1, 2, 3), (0.1, 0.2, 0.3), -0.01, (1, 0, 0)),
        rec("CONTACT", (b2, b3), (2, 3), (ex, ey, ez), (0, 0, 5), (0, 0, -1), 0.02, (3, 0, 0)),
        rec("FIXPNT", (b3,), None, (ex, ey, ez), (4, 0, 1), (0, 0, 0.5), 0.0, (4, 0, 0)),
    ]
    sol.store.start_writing()
    recorder.start_live_xdmf(sol)
    recorder.write_frame(sol)                       # frame 0: three constraints
    sol.domain.constraints = []
    sol.domain.time = 0.1
    recorder.write_frame(sol)                       # frame 1: none
    sol.domain.time = 0.2
    recorder.write_frame(sol)                       # frame 2: none (HISTORY stops before t1)
    recorder.finish(sol)
    from solfec_py import session

    session.start(progress=False)                   # a new program run ...
    read, bodies = model(api)                       # ... of the deck: READ mode
    assert read.mode == "READ"
    return api, read, bodies


def test_constraint_entities(stored):
    api, sol, (b1, b2, b3) = stored
    h = api.HISTORY(sol, [(sol, "GAP"), (b3, "GAP"), (sol, "R"), (sol, "CR"),
                          (sol, (1, 0, 0), None, "R"), (sol, "U"), (sol, "CU"),
                          (sol, None, (2, 1), "CR"), (sol, None, (2, 3), "R"), (b1, "R"),
                          ([b1, b2], "R"), "CONS"], 0, 0.2)
    values = [v[0] for v in h[1:]]
    expect = [-0.01,            # minimum contact gap
              0.02,             # contacts of body 3: only 2-3
              3 + 5 + 1,        # normal reactions of all constraints
              3 + 5,            # contacts only
              -2 + 0 + 4,       # x of B R: (-2, 1, 3), (0, 0, 5), (4, 0, 1); C's B^T R would give 6
              (0.3 - 1 + 0.5) / 3,   # average normal relative velocity
              (0.3 - 1) / 2,    # contacts only
              3,                # pair (1, 2) in any order
              5 + 1,            # pair (2, 3): the FIXPNT is not filtered by pairs
              3,                # constraints of body 1
              3 + 5,            # bodies 1 and 2: each constraint once
              3]
    np.testing.assert_allclose(values, expect, rtol=0, atol=1e-12)
    assert all(v[1] == 0.0 for v in h[1:])          # frame 1 holds no constraints: zeros


def test_constraints_in_the_paraview_file(stored, tmp_path):
    import meshio

    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "out/cons/cons_constraints.xmf")) as reader:
        assert reader.num_steps == 3
        points, _ = reader.read_points_cells()
        np.testing.assert_allclose(points, [[1, 0, 0], [3, 0, 0], [4, 0, 0]])
        t, pd, _ = reader.read_data(0)
        np.testing.assert_allclose(pd["REAC"], [[-2, 1, 3], [0, 0, 5], [4, 0, 1]], atol=1e-6)
        np.testing.assert_allclose(pd["GAP"], [-0.01, 0.02, 0.0], atol=1e-7)
        np.testing.assert_array_equal(pd["KIND"], [1, 1, 2])
        t, pd, _ = reader.read_data(1)                 # no constraints: one placeholder, zero reaction
        assert t == pytest.approx(0.1) and pd["REAC"].shape == (1, 3) and not pd["REAC"].any()
        assert pd["KIND"].tolist() == [0]


FIXED = """\
import json
sol = SOLFEC('DYNAMIC', 1E-3, 'out/fixed')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -10))
mat = BULK_MATERIAL(sol, density=1.0)
b = BODY(sol, 'RIGID', SPHERE((1, 0, 0), 0.1, 1, 1), mat, label='bob')
c = FIX_POINT(b, (1, 0, 0))
OUTPUT(sol, 0.01)
rec = []
def cb():
    rec.append([sol.time] + list(c.R))
    return 1
CALLBACK(sol, 1E-3, (), cb)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 100), 0.1)
if sol.mode == 'WRITE':
    json.dump(rec, open('rec.json', 'w'))
else:
    json.dump(HISTORY(sol, [(sol, 'R'), (b, (0, 0, 1), None, 'R'), 'CONS'], 0, 0.1), open('h.json', 'w'))
"""


def test_fix_point_reaction_is_stored(tmp_path):
    import json
    import math

    from solfec_py.cli import main

    deck = tmp_path / "fixed.py"
    deck.write_text(FIXED)
    assert main([str(deck)]) == 0 and main([str(deck)]) == 0
    t, r, rz, cons = (np.array(v) for v in json.load(open(tmp_path / "h.json")))
    rec = np.array(json.load(open(tmp_path / "rec.json")))
    weight = 4 / 3 * math.pi * 0.1 ** 3 * 10      # a body held at its mass centre carries its weight
    np.testing.assert_array_equal(cons, 1)
    np.testing.assert_allclose(r[1:], weight, rtol=1e-9)     # solver tolerance 1e-8
    np.testing.assert_allclose(rz[1:], weight, rtol=1e-9)    # FIXPNT base = identity: n = z
    for k in range(1, len(t)):                                # equal to CONSTRAINT.R during the run
        row = rec[np.argmin(np.abs(rec[:, 0] - t[k]))]
        if abs(row[0] - t[k]) < 1e-9:
            assert r[k] == row[3]
