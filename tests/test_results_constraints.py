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


# ---------------------------------------------------------------------- READ-mode constraint list
PENDULUM = """\
import json
sol = SOLFEC('DYNAMIC', 1E-3, 'out/pend')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -10))
mat = BULK_MATERIAL(sol, density=1.0)
b = BODY(sol, 'RIGID', SPHERE((1, 0, 1), 0.05, 1, 1), mat, label='bob')
link = PUT_RIGID_LINK(b, None, (1, 0, 1), (0, 0, 1))
OUTPUT(sol, 0.01)
rec = {}
def cb():
    rec['%.6f' % sol.time] = [list(link.R), list(link.point), list(link.base), list(link.U)]
    return 1
CALLBACK(sol, 1E-3, (), cb)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 1000), 0.05)
out = {'mode': sol.mode, 'ncon0': sol.ncon, 'same0': sol.constraints == [link]}
if sol.mode == 'WRITE':
    json.dump(rec, open('rec.json', 'w'))
else:
    out['R0'] = list(link.R)
    frames = []
    SEEK(sol, 0.0)
    for k in range(6):
        cons = sol.constraints
        frames.append({'t': sol.time, 'ncon': sol.ncon, 'same': cons == [link], 'kind': link.kind,
                       'R': list(link.R), 'point': list(link.point), 'base': list(link.base),
                       'U': list(link.U), 'x': list(b.conf[9:12])})
        FORWARD(sol, 1)
    out['frames'] = frames
json.dump(out, open(sol.mode + '.json', 'w'))
"""


def test_read_mode_constraints_show_the_stored_frame(tmp_path):
    # a pendulum on a rigid link: in READ mode the deck's CONSTRAINT object is listed by
    # SOLFEC.constraints and shows, frame by frame, exactly the values it had at that time
    # during the run; independently, the stored link point follows the stored bob and the
    # two ends keep the link length 1
    import json

    from solfec_py.cli import main

    deck = tmp_path / "pend.py"
    deck.write_text(PENDULUM)
    assert main([str(deck)]) == 0 and main([str(deck)]) == 0
    rec = json.load(open(tmp_path / "rec.json"))
    w, r = json.load(open(tmp_path / "WRITE.json")), json.load(open(tmp_path / "READ.json"))
    assert w["ncon0"] == 1 and w["same0"] and r["mode"] == "READ" and r["same0"]
    assert r["R0"] == [0.0, 0.0, 0.0]                # before the first data command: as built
    assert [f["t"] for f in r["frames"]] == pytest.approx([0.0, 0.01, 0.02, 0.03, 0.04, 0.05], abs=1e-12)
    for f in r["frames"]:
        assert f["ncon"] == 1 and f["same"] and f["kind"] == "RIGLNK"
        x1, x2 = np.array(f["point"][:3]), np.array(f["point"][3:])
        # the link point is placed during the step: within one step's motion (speed
        # <= g t = 0.5 m/s times h = 1e-3) of the stored bob position at the frame time
        assert np.linalg.norm(x1 - f["x"]) <= 0.5 * 1e-3
        np.testing.assert_allclose(x2, (0, 0, 1), rtol=0, atol=1e-12)
        assert np.linalg.norm(x1 - x2) == pytest.approx(1.0, abs=1e-6)
        if f["t"] > 0:                               # the CALLBACK ran after this frame's step
            during = rec["%.6f" % f["t"]]
            assert [f["R"], f["point"], f["base"], f["U"]] == during
    assert r["frames"][-1]["R"][2] != 0.0             # the link carries the weight


def _contact(cset, a, b, pair, R, gap):
    from solfec_py import constraints as C
    from solfec_py.api.constraints import _family

    k = cset.add(C.CONTACT, a, b, _family)
    cset.spair[k], cset.R[k], cset.U[k], cset.gap[k], cset.area[k] = pair, R, (0, 0, -R[2]), gap, 0.5
    cset.point[k] = (0.5 * (a.conf[9] + b.conf[9]), 0, 0)
    cset.base[k] = C.local_base(np.array([[1.0, 0, 0]]))[0]
    return int(cset.id[k])


def contact_model(api, path="out/contacts"):
    sol = api.SOLFEC("DYNAMIC", 0.1, path)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    api.SURFACE_MATERIAL(sol, surf1=1, surf2=2, model="SIGNORINI_COULOMB", friction=0.3, label="steel")
    bodies = [api.BODY(sol, "RIGID", api.SPHERE((2.0 * i, 0, 0), 0.5, 1, i + 1), mat) for i in range(3)]
    fix = api.FIX_POINT(bodies[2], (4.0, 0, 0))
    return sol, bodies, fix


def test_stored_contacts_in_read_mode(api, tmp_path):
    # contacts exist only in the results (the READ-mode model has no contact detection
    # run): SOLFEC.constraints lists them from the frame shown, by id across frames
    from solfec_py import session
    from solfec_py.constraints import constraint_set

    sol, (b1, b2, b3), fix = contact_model(api)
    cset = constraint_set(sol.domain)
    sol.store.start_writing()
    a = _contact(cset, b1, b2, (1, 2), (0.0, 0.1, 2.0), -0.01)
    recorder.write_frame(sol)                         # frame 0: FIXPNT, contact a
    cset.R[cset.row_of(a)] = (0.0, 0.0, 3.0)
    bb = _contact(cset, b2, b3, (2, 3), (0.0, 0.0, 7.0), 0.02)
    sol.domain.time = 0.1
    recorder.write_frame(sol)                         # frame 1: a (new R), b
    cset.remove(a)
    sol.domain.time = 0.2
    recorder.write_frame(sol)                         # frame 2: b only
    recorder.finish(sol)
    assert [c.kind for c in sol.constraints] == ["CONTACT", "FIXPNT"]    # WRITE: the live set

    session.start(progress=False)                     # the deck again: READ mode
    sol, (b1, b2, b3), fix = contact_model(api)
    assert sol.mode == "READ" and sol.constraints == [fix] and sol.ncon == 1   # as built
    api.SEEK(sol, 0.0)
    cons = sol.constraints
    assert sol.ncon == 2 and len(cons) == 2 and cons[1] is fix        # newest first
    c = cons[0]
    assert isinstance(c, api.CONSTRAINT)
    assert (c.kind, c.id, c.R, c.gap, c.area, c.spair, c.matlab) == ("CONTACT", a, (0.0, 0.1, 2.0), -0.01,
                                                                     0.5, (1, 2), "steel")
    assert c.adjbod == (b1, b2) and c.point == (1.0, 0.0, 0.0) and c.U == (0.0, 0.0, -2.0)
    n = np.array(c.base[6:])
    np.testing.assert_allclose(n, (1, 0, 0))             # the normal is the base's third column
    assert fix.kind == "FIXPNT" and fix.merit == 0.0
    with pytest.raises(ValueError, match="read-only"):
        c.R = (1, 2, 3)
    api.DELETE(sol, c)                                   # stored results are not changed
    assert c.kind == "CONTACT"

    api.FORWARD(sol, 1)
    cons = sol.constraints
    assert sol.ncon == 3 and cons[1] is c and c.R == (0.0, 0.0, 3.0)   # the same contact, new values
    assert cons[0].id == bb and cons[0].adjbod == (b2, b3) and cons[0].matlab != "steel"
    api.FORWARD(sol, 1)
    assert sol.ncon == 2 and c.R is None and c.kind is None           # contact a ended
    assert "not in the frame shown" in repr(c)
    api.BACKWARD(sol, 2)
    assert c.R == (0.0, 0.1, 2.0)                                     # and is shown again
    # BODY.constraints / ncon follow the frame shown too (oldest first)
    assert b1.constraints == [c] and b1.ncon == 1 and b3.constraints == [fix]
    api.FORWARD(sol, 1)                                               # frame 1: a and b
    assert b1.constraints == [c] and b2.constraints == [c, sol.constraints[0]] and b3.ncon == 2
    api.FORWARD(sol, 1)                                               # frame 2: a ended
    assert b1.constraints == [] and b2.ncon == 1


@pytest.mark.parametrize("version", [1, 2])
def test_results_of_older_formats(api, tmp_path, version):
    # a file of format version 1 (constraint rows without the ID column) is read: its
    # constraint rows are bound to the frame they were listed in; version 2 (with ID,
    # without ELEM1 ... COHESION) is read as version 3; neither can be continued
    import h5py

    from solfec_py import session
    from solfec_py.constraints import constraint_set
    from solfec_py.errors import ResultsError

    from conftest import single_file

    sol, (b1, b2, b3), fix = contact_model(api, "out/old")
    _contact(constraint_set(sol.domain), b1, b2, (1, 2), (0.0, 0.0, 2.0), -0.01)
    sol.store.start_writing()
    recorder.write_frame(sol)
    sol.domain.time = 0.1
    recorder.write_frame(sol)
    recorder.finish(sol)
    with h5py.File(single_file(tmp_path / "out/old", version), "r+") as f:
        cols = [str(c) for c in f["constraints"].attrs["columns"]]
        keep = cols.index("ID") + (version == 2)            # the columns of that version
        data, cols = f["constraints"][:, :keep], cols[:keep]
        del f["constraints"]
        ds = f.create_dataset("constraints", data=data, maxshape=(None, data.shape[1]))
        ds.attrs["columns"] = cols
    session.start(progress=False)
    sol, bodies, fix = contact_model(api, "out/old")
    api.SEEK(sol, 0.0)
    cons = sol.constraints
    assert sol.ncon == 2 and [c.kind for c in cons] == ["CONTACT", "FIXPNT"]
    assert cons[0].R == (0.0, 0.0, 2.0)
    if version == 1:
        assert all(c is not fix for c in cons) and cons[0].id is None   # no ids: nothing matches
        api.FORWARD(sol, 1)
        assert cons[0].R is None and sol.constraints[0].R == (0.0, 0.0, 2.0)
    else:
        assert cons[1] is fix and cons[0].id == 2                       # matched by id
        api.FORWARD(sol, 1)
        assert cons[0].R == (0.0, 0.0, 2.0)
    with pytest.raises(ResultsError, match="older solfec-py"):
        sol.store.start_writing(append=True)


RESTING = """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/rest')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -10))
mat = BULK_MATERIAL(sol, density=1000.0)
SURFACE_MATERIAL(sol, surf1=1, surf2=2, model='SIGNORINI_COULOMB', friction=0.5, label='floor-ball')
floor = BODY(sol, 'OBSTACLE', HULL([-1,-1,-1, 1,-1,-1, 1,1,-1, -1,1,-1, -1,-1,0, 1,-1,0, 1,1,0, -1,1,0], 1, 1), mat)
ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0.1), 0.1, 1, 2), mat, label='ball')
OUTPUT(sol, 0.01)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 100), 0.05)
print('LIVE', sol.mode, sol.ncon)
if sol.mode == 'READ':
    SEEK(sol, 0.05)
    c = sol.constraints[0]
    print('READ', sol.ncon, c.kind, c.id, c.R[0], c.R[1], c.R[2], c.gap, c.spair, c.matlab,
          c.adjbod == (ball, floor), ball.mass * 10)
"""


def test_detected_contacts_are_stored_and_listed_in_read_mode(tmp_path, capsys):
    # a ball resting on a floor: the contact found by contact detection is stored with the
    # frames; in READ mode it is listed with its stored reaction = the ball's weight
    # (static equilibrium; solver tolerance 1e-8), zero gap, surfaces and material label
    from solfec_py.cli import main

    deck = tmp_path / "rest.py"
    deck.write_text(RESTING)
    assert main([str(deck)]) == 0 and main([str(deck)]) == 0
    out = capsys.readouterr().out.split("\n")
    assert "LIVE WRITE 1" in out and "LIVE READ 0" in out       # READ: the rebuilt model has no contact
    w = next(l for l in out if l.startswith("READ ")).split()
    assert w[1:5] == ["1", "CONTACT", "1", "0.0"] and float(w[5]) == 0.0
    assert float(w[6]) == pytest.approx(float(w[-1]), rel=1e-8)
    assert abs(float(w[7])) < 1e-9 and w[8:11] == ["(2,", "1)", "floor-ball"] and w[11] == "True"
