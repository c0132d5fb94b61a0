"""Pseudo-rigid bodies through the results: READ-mode HISTORY of points, stresses and
energies against the values a CALLBACK recorded during the run, `-c` continuation bit-
identical to an uninterrupted run, the ParaView surface placed by x = xc + F (X - X0),
and the deck-facing attributes (BODY.tensor, BODY_CHARS, INITIAL_VELOCITY, APPLY_BULKMAT).
"""
from __future__ import annotations

import json

import h5py
import numpy as np
import pytest

from solfec_py.cli import main
from solfec_py.output import frames

from conftest import CUBE, stored, write_deck

# a spinning, stretching block pushed by a FORCE with a TIME_SERIES, and a cube under
# gravity and a follower PRESSURE, both PSEUDO_RIGID (DEF_EXP and DEF_LIM)
DECK = f"""\
import json
args = NON_SOLFEC_ARGV() or []
out = args[0] if args else 'out/prb'
stop_at = float(args[1]) if len(args) > 1 else None
sol = SOLFEC('DYNAMIC', 2E-4, out)
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, young=2E5, poisson=0.3, density=1000.0)
a = BODY(sol, 'PSEUDO_RIGID', HEX([-1,-0.5,-0.25, 1,-0.5,-0.25, 1,0.5,-0.25, -1,0.5,-0.25,
                                   -1,-0.5,0.25, 1,-0.5,0.25, 1,0.5,0.25, -1,0.5,0.25], 1, 1, 1, 1, [1]*6),
         mat, label='a')
INITIAL_VELOCITY(a, (0.1, 0, 0.5), (1.0, -0.5, 2.0))
FORCE(a, 'SPATIAL', (0.5, 0.2, 0.1), (1, 1, 0), TIME_SERIES([0, 0, 0.05, 300, 0.1, 0]))
b = BODY(sol, 'PSEUDO_RIGID', TRANSLATE(HEX({CUBE}, 1, 1, 1, 1, [1, 2, 2, 2, 2, 2]), (3, 0, 0)), mat, label='b')
b.scheme = 'DEF_LIM'
b.damping = 1E-4
PRESSURE(b, 1, TIME_SERIES([0, 0, 0.1, 2E3]))
OUTPUT(sol, 0.01)
P, Q = (0.7, -0.3, 0.2), (3.5, 0.5, 0.9)
rec = []
def record():
    if stop_at is not None and sol.time >= stop_at - 1e-9:
        return 0
    if True:                     # every step: the frames fall where Solfec's t += h clock puts them
        rec.append([sol.time] + list(DISPLACEMENT(a, P)) + list(VELOCITY(a, P)) + list(STRESS(a, P))
                   + list(DISPLACEMENT(b, Q)) + list(STRESS(b, Q)) + list(ENERGY(sol, a)) + list(ENERGY(sol)))
    return 1
record()
CALLBACK(sol, 1E-4, (), record)     # < h: called after every step
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 100), 0.1)
if sol.mode == 'WRITE':
    json.dump(rec, open('rec.json', 'w'))
else:
    items = [(a, P, e) for e in ('DX', 'DY', 'DZ', 'VX', 'VY', 'VZ', 'SX', 'SY', 'SZ', 'SXY', 'SXZ', 'SYZ', 'MISES')]
    items += [('b', Q, e) for e in ('DX', 'DY', 'DZ', 'SX', 'SY', 'SZ', 'SXY', 'SXZ', 'SYZ', 'MISES')]
    items += [(a, k) for k in ('KINETIC', 'EXTERNAL', 'CONTACT', 'FRICTION', 'INTERNAL')]
    items += [(sol, k) for k in ('KINETIC', 'EXTERNAL', 'CONTACT', 'FRICTION', 'INTERNAL')]
    json.dump(HISTORY(sol, items, 0, 0.1), open('hist.json', 'w'))
"""


def test_history_in_read_mode_matches_the_run(tmp_path, capsys):
    """Every HISTORY entity of a pseudo-rigid body (displacement, velocity, Cauchy stress,
    von Mises, energies) equals the value the deck computed live at the frame times (the
    frames are the state: 1e-12 relative)."""
    deck = write_deck(tmp_path / "prb.py", DECK)
    assert main([deck]) == 0
    assert main([deck]) == 0
    rec = np.array(json.load(open(tmp_path / "rec.json")))
    hist = np.array(json.load(open(tmp_path / "hist.json")))
    n = hist.shape[1]
    assert n == 10                                       # frames 0 .. 0.09 (t1 excluded)
    live = rec[np.isin(rec[:, 0], hist[0])]               # the rows at the frame times
    np.testing.assert_array_equal(hist[0], live[:, 0])
    np.testing.assert_allclose(hist[1:].T, live[:, 1:], rtol=1e-12, atol=1e-12 * np.abs(live).max())
    stress_a = live[:, 7:14]
    assert np.abs(stress_a).max() > 1e2                  # the block is stressed (not a zero check)
    # the plot command reads the same points from the file alone; stresses need the deck
    capsys.readouterr()
    assert main(["plot", "out/prb", "-e", "a,(0.7,-0.3,0.2),DX", "--csv", "-", "--no-plot"]) == 0
    csv = np.loadtxt(capsys.readouterr().out.splitlines()[1:], delimiter=",")
    np.testing.assert_allclose(csv[:n, 1], live[:, 1], rtol=1e-12, atol=1e-15)
    assert main(["plot", "out/prb", "-e", "a,(0.7,-0.3,0.2),SX", "--no-plot", "--csv", "-"]) == 1
    assert "the stress of pseudo-rigid body 1 needs its material" in capsys.readouterr().err


def test_continue_is_bit_identical(tmp_path, capsys):
    deck = write_deck(tmp_path / "prb.py", DECK)
    assert main([deck, "out/straight"]) == 0
    assert main([deck, "out/split", "0.05"]) == 0
    assert main(["-c", deck, "out/split"]) == 0
    f, g = stored(tmp_path / "out/straight"), stored(tmp_path / "out/split")
    keep = [i for i, c in enumerate(f.column_names) if c not in frames.TIMERS and not c.endswith("OFF")]
    np.testing.assert_array_equal(f.table[:, keep], g.table[:, keep])
    np.testing.assert_array_equal(f.read_all("state/pseudo_rigid"), g.read_all("state/pseudo_rigid"))
    assert f.read_all("state/pseudo_rigid").shape == (2 * 11, 12 + 12 + 5)


def test_paraview_surface_follows_the_homogeneous_deformation(tmp_path, capsys):
    """The live XDMF series places the reference surface points X at xc + F (X - X0) with
    the stored F and centre (read back from the results file), velocities v + dF (X - X0)."""
    import meshio

    deck = write_deck(tmp_path / "prb.py", DECK)
    assert main([deck]) == 0
    with meshio.xdmf.TimeSeriesReader(str(tmp_path / "out/prb/prb_grids.xmf")) as r:
        points, _ = r.read_points_cells()
        t, pd, _ = r.read_data(r.num_steps - 1)
    x = points + pd["DISP"]
    state = stored(tmp_path / "out/prb").read_all("state/pseudo_rigid")[-2:]   # the last frame: a, b
    # body a: its 8 reference corners are the first 8 points (HEX 1x1x1 surface nodes)
    X = np.array([[sx, sy, sz] for sz in (-0.25, 0.25) for sy in (-0.5, 0.5) for sx in (-1, 1)])
    F, xc = state[0, :9].reshape(3, 3), state[0, 9:12]
    Fd, v = state[0, 12:21].reshape(3, 3), state[0, 21:24]
    for Xk in X:
        k = np.flatnonzero(np.all(np.abs(points - Xk) < 1e-12, axis=1))[0]
        np.testing.assert_allclose(x[k], xc + F @ Xk, atol=1e-6)          # float32 output
        np.testing.assert_allclose(pd["VELO"][k], v + Fd @ Xk, atol=1e-5)
    assert np.abs(F - np.eye(3)).max() > 1e-3


def test_deck_facing_attributes(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/attrs")
    mat = api.BULK_MATERIAL(sol, young=1e6, poisson=0.2, density=2.0)
    b = api.BODY(sol, "PSEUDO_RIGID", api.HEX([0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, 0, 0, 0, 1, 2, 0, 1, 2, 1, 1, 0, 1, 1],
                                              1, 1, 1, 1, [1] * 6), mat)
    assert (b.kind, b.scheme, len(b.conf), len(b.velo)) == ("PSEUDO_RIGID", "DEF_EXP", 12, 12)
    assert b.conf == (1, 0, 0, 0, 1, 0, 0, 0, 1, 1.0, 0.5, 0.5)
    # Euler tensor rho int (X - X0)(X - X0)^T dV of the 2 x 1 x 1 box, rho = 2: rho V diag(4, 1, 1) / 12
    np.testing.assert_allclose(b.tensor, np.diag([4 / 3, 1 / 3, 1 / 3]).reshape(9), rtol=1e-14)
    api.INITIAL_VELOCITY(b, (1, 2, 3), (0.5, -1, 2))
    X = np.array([1.7, 0.2, 0.9])
    # dF/dt = [w]x: the reference shape spins, v(X) = v + w x (X - X0)
    np.testing.assert_allclose(api.VELOCITY(b, tuple(X)), np.array([1, 2, 3]) + np.cross([0.5, -1, 2], X - (1, 0.5, 0.5)),
                               rtol=1e-14)
    api.BODY_CHARS(b, 3.0, 2.0, (1, 0.5, 0.5), (1, 0, 0, 0, 2, 0, 0, 0, 3))
    assert (b.mass, b.volume, b.tensor) == (3.0, 2.0, (1, 0, 0, 0, 2, 0, 0, 0, 3))
    w = np.array([0.5, -1, 2])
    kinetic = 0.5 * 3.0 * 14 + 0.5 * np.trace(np.cross(np.eye(3), w) @ np.diag([1, 2, 3]) @ np.cross(np.eye(3), w).T)
    assert api.ENERGY(sol)[0] == pytest.approx(kinetic, rel=1e-14)
    b.scheme = "DEF_LIM"
    b.scheme = "DEFAULT"
    assert b.scheme == "DEF_EXP"


def test_quasi_static_bodies_report_def_lim(api):
    sol = api.SOLFEC("QUASI_STATIC", 1.0, "out/qs")
    mat = api.BULK_MATERIAL(sol)
    b = api.BODY(sol, "PSEUDO_RIGID", api.SPHERE((0, 0, 0), 1, 1, 1), mat)
    assert b.scheme == "DEF_LIM"
    with pytest.warns(RuntimeWarning, match="quasi-statics"):
        b.scheme = "DEF_EXP"
    assert b.scheme == "DEF_LIM"


def test_apply_bulkmat_mixes_materials_exactly(api):
    """Two unit cubes side by side (volume ids 1 and 2) with densities 1000 / 3000 and
    Young's moduli 1e6 / 3e6: mass 4000, centre pulled to x = 1.25, Lamé constants the
    volume means (the energy V psi is linear in them), the stored motion kept."""
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/mix")
    soft = api.BULK_MATERIAL(sol, young=1e6, poisson=0.25, density=1000.0)
    hard = api.BULK_MATERIAL(sol, young=3e6, poisson=0.25, density=3000.0)
    nodes = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1,
             2, 0, 0, 2, 1, 0, 2, 0, 1, 2, 1, 1]
    mesh = api.MESH(nodes, [8, 0, 1, 2, 3, 4, 5, 6, 7, 1, 8, 1, 8, 9, 2, 5, 10, 11, 6, 2], 1)
    b = api.BODY(sol, "PSEUDO_RIGID", mesh, soft)
    assert b.mass == pytest.approx(2000.0) and b.center == pytest.approx((1.0, 0.5, 0.5))
    api.APPLY_BULKMAT(sol, b, 2, hard)
    assert b.mass == pytest.approx(4000.0, rel=1e-14)
    assert b.center == pytest.approx((1.25, 0.5, 0.5), rel=1e-14)
    assert np.array(b.conf[9:]) == pytest.approx((1.25, 0.5, 0.5), rel=1e-14)   # same place
    # Euler xx: 1000 (1/12 + 0.75^2) + 3000 (1/12 + 0.25^2)
    assert b.tensor[0] == pytest.approx(1000 * (1 / 12 + 0.5625) + 3000 * (1 / 12 + 0.0625), rel=1e-13)
    lam = np.mean([m.young * 0.25 / (1.25 * 0.5) for m in (soft, hard)])
    assert b.block.lame[b.row][0] == pytest.approx(lam, rel=1e-14)
    with pytest.raises(ValueError, match="no part with volume id 7"):
        api.APPLY_BULKMAT(sol, b, 7, hard)


def test_xdmf_export_writes_the_homogeneous_stress(api):
    """STRESS of XDMF_EXPORT on a pseudo-rigid body is its Cauchy stress at every surface
    point (here a body stretched to F = diag(1.02, 0.99, 1.0) by hand; zero on the rigid one)."""
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/xs")
    mat = api.BULK_MATERIAL(sol, young=1e6, poisson=0.3)
    b = api.BODY(sol, "PSEUDO_RIGID", api.HEX(eval(CUBE), 1, 1, 1, 1, [1] * 6), mat)
    api.BODY(sol, "RIGID", api.SPHERE((3, 0, 0), 0.5, 1, 1), mat)
    b.conf = (1.02, 0, 0, 0, 0.99, 0, 0, 0, 1.0, 0.5, 0.5, 0.5)
    api.XDMF_EXPORT(sol, 0.0, "exp", attributes=["DISP", "STRESS"])
    with h5py.File("exp/exp.h5") as f:
        stress = f["frames/0/STRESS"][()]
        bid = f["mesh/0/BID"][()]
    expected = np.array(api.STRESS(b, (0, 0, 0))[:6])
    assert np.abs(expected).max() > 1e3
    n8 = 8                                               # the cube's surface points come first
    np.testing.assert_allclose(stress[:n8], np.tile(expected, (n8, 1)), rtol=1e-6)   # float32
    assert not stress[n8:].any() and set(bid.tolist()) == {1, 2}
