"""Finite-element bodies through the results: READ-mode HISTORY of points, stresses and
energies against the values a CALLBACK recorded during the run, `solfec-py plot` on the
file alone, `-c` continuation bit-identical to an uninterrupted run, and the live ParaView
series placing the surface nodes at X + q with the stored displacements and velocities.
"""
from __future__ import annotations

import json

import h5py
import numpy as np

from solfec_py.cli import main
from solfec_py.output import frames

from conftest import solfec_clock, solfec_output_times, stored, write_deck

# a spinning 2 x 1 x 1 HEX8 block pushed by a FORCE with a TIME_SERIES (DEF_EXP) and a
# DEF_LIM block hanging from two pinned nodes under gravity, both FINITE_ELEMENT
DECK = """\
import json
args = NON_SOLFEC_ARGV() or []
out = args[0] if args else 'out/fe'
stop_at = float(args[1]) if len(args) > 1 else None
sol = SOLFEC('DYNAMIC', 1E-4, out)
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, young=1E6, poisson=0.3, density=1000.0)
box = [-1,-0.5,-0.25, 1,-0.5,-0.25, 1,0.5,-0.25, -1,0.5,-0.25, -1,-0.5,0.25, 1,-0.5,0.25, 1,0.5,0.25, -1,0.5,0.25]
a = BODY(sol, 'FINITE_ELEMENT', HEX(box, 2, 1, 1, 1, [1]*6), mat, label='a')
INITIAL_VELOCITY(a, (0.1, 0, 0.5), (1.0, -0.5, 2.0))
FORCE(a, 'SPATIAL', (0.5, 0.2, 0.1), (1, 1, 0), TIME_SERIES([0, 0, 0.01, 3E3, 0.02, 0]))
b = BODY(sol, 'FINITE_ELEMENT', TRANSLATE(HEX(box, 2, 1, 1, 1, [1]*6), (4, 0, 0)), mat, label='b')
b.scheme = 'DEF_LIM'
FIX_POINT(b, (3, -0.5, 0.25))
FIX_POINT(b, (3, 0.5, 0.25))
OUTPUT(sol, 0.002)
P, Q = (0.7, -0.3, 0.2), (4.5, 0.1, -0.2)
rec = []
def record():
    if stop_at is not None and sol.time >= stop_at - 1e-9:
        return 0
    if True:                     # every step: the frames fall where Solfec's t += h clock puts them
        rec.append([sol.time] + list(DISPLACEMENT(a, P)) + list(VELOCITY(a, P)) + list(STRESS(a, P))
                   + list(DISPLACEMENT(b, Q)) + list(STRESS(b, Q)) + list(ENERGY(sol, a)) + list(ENERGY(sol)))
    return 1
record()
CALLBACK(sol, 5E-5, (), record)     # < h: called after every step
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 1000), 0.02)
if sol.mode == 'WRITE':
    json.dump(rec, open('rec.json', 'w'))
else:
    items = [(a, P, e) for e in ('DX', 'DY', 'DZ', 'VX', 'VY', 'VZ', 'SX', 'SY', 'SZ', 'SXY', 'SXZ', 'SYZ', 'MISES')]
    items += [('b', Q, e) for e in ('DX', 'DY', 'DZ', 'SX', 'SY', 'SZ', 'SXY', 'SXZ', 'SYZ', 'MISES')]
    items += [(a, k) for k in ('KINETIC', 'EXTERNAL', 'CONTACT', 'FRICTION', 'INTERNAL')]
    items += [(sol, k) for k in ('KINETIC', 'EXTERNAL', 'CONTACT', 'FRICTION', 'INTERNAL')]
    json.dump(HISTORY(sol, items, 0, 0.02), open('hist.json', 'w'))
"""


def test_history_in_read_mode_matches_the_run(tmp_path, capsys):
    """Every HISTORY entity of an FE body (displacement, velocity, Cauchy stress, von Mises,
    energies) equals the value the deck computed live at the frame times (the frames are
    the state: 1e-12 relative); `solfec-py plot` reads the same point values from the file."""
    deck = write_deck(tmp_path / "fe.py", DECK)
    assert main([deck]) == 0
    assert main([deck]) == 0
    rec = np.array(json.load(open(tmp_path / "rec.json")))
    hist = np.array(json.load(open(tmp_path / "hist.json")))
    n = hist.shape[1]
    # the stored frames on Solfec's clock (0.0201: the 0.02 frame comes one step late);
    # HISTORY(0, 0.02) has N = i1 - i0 slots, i1 the frame of the last probe of pbf.c's
    # binary search for 0.02 among the 11 frame times (probes 5, 8, 9, 10: the 0.0201 frame)
    frames = [0.0] + solfec_output_times(solfec_clock(1e-4, 0.02), 0.002)
    assert len(frames) == 11 and frames[9] < 0.02 < frames[10]
    assert n == 10
    np.testing.assert_array_equal(hist[0], frames[:n])
    live = rec[np.isin(rec[:, 0], hist[0])]               # the rows at the frame times
    np.testing.assert_array_equal(hist[0], live[:, 0])
    np.testing.assert_allclose(hist[1:].T, live[:, 1:], rtol=1e-12, atol=1e-12 * np.abs(live).max())
    assert np.abs(live[:, 7:14]).max() > 1e2             # body a is stressed (not a zero check)
    assert np.abs(live[:, 17:24]).max() > 1e1            # and so is the hanging body b (90 Pa by 0.016 s)
    capsys.readouterr()
    assert main(["plot", "out/fe", "-e", "a,(0.7,-0.3,0.2),DX", "--csv", "-", "--no-plot"]) == 0
    csv = np.loadtxt(capsys.readouterr().out.splitlines()[1:], delimiter=",")
    np.testing.assert_allclose(csv[:n, 1], live[:, 1], rtol=1e-12, atol=1e-15)


def test_continue_is_bit_identical(tmp_path):
    deck = write_deck(tmp_path / "fe.py", DECK)
    assert main([deck, "out/straight"]) == 0
    assert main([deck, "out/split", "0.01"]) == 0
    assert main(["-c", deck, "out/split"]) == 0
    f, g = stored(tmp_path / "out/straight"), stored(tmp_path / "out/split")
    keep = [i for i, c in enumerate(f.column_names) if c not in frames.TIMERS and not c.endswith("OFF")]
    assert f.table.shape[0] == 11
    np.testing.assert_array_equal(f.table[:, keep], g.table[:, keep])
    np.testing.assert_array_equal(f.read_all("state/finite_element"), g.read_all("state/finite_element"))


def test_paraview_surface_is_the_deformed_mesh(tmp_path):
    """The live XDMF series places the surface nodes at X + q and gives their velocities,
    both equal to the stored state of the last frame (float32 output)."""
    import meshio

    deck = write_deck(tmp_path / "fe.py", DECK)
    assert main([deck]) == 0
    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "out/fe/fe_grids.xmf")) as r:
        points, _ = r.read_points_cells()
        t, pd, _ = r.read_data(r.num_steps - 1)
    assert t == solfec_output_times(solfec_clock(1e-4, 0.02), 0.002)[-1]   # Solfec's clock: 0.0201
    state = stored(tmp_path / "out/fe").read_all("state/finite_element")
    nn = 12                                              # 3 x 2 x 2 nodes of body a
    last = state[-2 * (6 * nn + 5):]                     # the last frame: a, b
    q, u = last[:3 * nn].reshape(-1, 3), last[3 * nn:6 * nn].reshape(-1, 3)
    Xa = np.array([[x, y, z] for z in (-0.25, 0.25) for y in (-0.5, 0.5) for x in (-1, 0, 1)])
    assert np.abs(q).max() > 1e-3
    for Xk in Xa:
        k = np.flatnonzero(np.all(np.abs(points - Xk) < 1e-12, axis=1))[0]
        j = np.flatnonzero(np.all(np.abs(Xa - Xk) < 1e-12, axis=1))[0]
        np.testing.assert_allclose(pd["DISP"][k], q[j], atol=1e-6)
        np.testing.assert_allclose(pd["VELO"][k], u[j], atol=1e-5)


def test_xdmf_export_writes_the_nodal_stress(api):
    """STRESS of XDMF_EXPORT on an FE body is the stress at every surface node (here a
    2 x 1 x 1 HEX8 mesh stretched homogeneously by hand, x -> diag(1.02, 0.99, 1) x: every
    node has the stress STRESS() gives inside; zero on the rigid body)."""
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/xs")
    mat = api.BULK_MATERIAL(sol, young=1e6, poisson=0.3)
    cube = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
    b = api.BODY(sol, "FINITE_ELEMENT", api.HEX(cube, 2, 1, 1, 1, [1] * 6), mat)
    api.BODY(sol, "RIGID", api.SPHERE((3, 0, 0), 0.5, 1, 1), mat)
    X = np.array(b.block.X[:b.block.N])
    b.conf = tuple((X * [0.02, -0.01, 0.0]).reshape(-1).tolist())
    api.XDMF_EXPORT(sol, 0.0, "exp", attributes=["DISP", "STRESS"])
    with h5py.File("exp/exp.h5") as f:
        stress = f["frames/0/STRESS"][()]
        bid = f["mesh/0/BID"][()]
    expected = np.array(api.STRESS(b, (0.3, 0.4, 0.5))[:6])
    assert np.abs(expected).max() > 1e3
    mine = np.isin(np.arange(stress.shape[0]), np.arange(12))    # the 12 surface nodes come first
    np.testing.assert_allclose(stress[mine], np.tile(expected, (12, 1)), rtol=1e-6,
                               atol=1e-6 * np.abs(expected).max())   # float32
    assert not stress[~mine].any() and set(bid.tolist()) == {1, 2}
