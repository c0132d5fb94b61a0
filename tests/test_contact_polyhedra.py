"""Polyhedron-polyhedron contact (docs/contact.md): GJK distances against an independent
constrained minimisation, the contact of two overlapping unit cubes against the closed-form
overlap box (gap, normal, point, area = half the surface of the overlap), roles of the
update, a box resting on a floor (sum R_N = m g) and the block-sliding case of
Solfec-1.0 tests/block-sliding.py and validation/block-sliding (inputs/block_sliding.py)."""
from __future__ import annotations

import importlib
import os

import numpy as np
import pytest
from scipy.optimize import minimize

from solfec_py.cli import main
from solfec_py.contact import objects as O
from solfec_py.contact import polyhedra as P

detect = importlib.import_module("solfec_py.contact.detect")
INPUTS = os.path.join(os.path.dirname(__file__), os.pardir, "inputs")
EPS = 1e-4
CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def reference_distance(va, vb):
    """min |A^T l - B^T m| over the simplices l, m (SLSQP; converged to about 1e-8)."""
    na, nb = len(va), len(vb)

    def f(z):
        e = z[:na] @ va - z[na:] @ vb
        return e @ e

    cons = [{"type": "eq", "fun": lambda z: z[:na].sum() - 1}, {"type": "eq", "fun": lambda z: z[na:].sum() - 1}]
    r = minimize(f, np.r_[np.full(na, 1 / na), np.full(nb, 1 / nb)], method="SLSQP", bounds=[(0, 1)] * (na + nb),
                 constraints=cons, options={"ftol": 1e-16, "maxiter": 1000})
    return np.sqrt(max(r.fun, 0.0))


@pytest.mark.parametrize("seed", range(20))
def test_gjk_distance_of_random_hulls(seed):
    """GJK distance equals the SLSQP minimum (to 1e-6, SLSQP's accuracy on these problems),
    never exceeds it by more than 1e-9, and p, q satisfy the exact optimality certificate:
    v = p - q separates, v.a >= v.p for all vertices a and v.b <= v.q for all b (1e-12)."""
    rng = np.random.default_rng(seed)
    va = rng.normal(size=(rng.integers(4, 12), 3))
    vb = rng.normal(size=(rng.integers(4, 12), 3)) + rng.normal(size=3) * 3
    p, q, d = P.gjk(va, vb)
    ref = reference_distance(va, vb)
    assert d == pytest.approx(ref, abs=1e-6) and d <= ref + 1e-9
    assert np.linalg.norm(p - q) == pytest.approx(d, abs=1e-14)
    if d > 0:
        v = p - q
        assert (va @ v).min() >= v @ p - 1e-12 * (1 + abs(v @ p))
        assert (vb @ v).max() <= v @ q + 1e-12 * (1 + abs(v @ q))


def test_gjk_of_intersecting_hulls_is_zero():
    """Two cubes sharing a corner region: distance 0 and p = q inside both."""
    a = np.array(CUBE, float).reshape(8, 3)
    p, q, d = P.gjk(a, a + 0.5)
    assert d < 1e-14 and np.allclose(p, q, atol=1e-14)
    assert np.all(p >= 0.5 - 1e-12) and np.all(p <= 1 + 1e-12)


def model(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/poly")
    sol.verbose = 'OFF'
    return sol, api.BULK_MATERIAL(sol, density=1000.0)


def cubes(api, shift, size=(1, 1, 1)):
    """Unit floor cube (surfaces 1-6, obstacle) and a box of `size` with its lower corner at
    `shift` (surfaces 11-16)."""
    sol, mat = model(api)
    api.BODY(sol, 'OBSTACLE', api.HEX(CUBE, 1, 1, 1, 0, [1, 2, 3, 4, 5, 6]), mat)
    nodes = list((np.array(CUBE, float).reshape(8, 3) * size + shift).ravel())
    api.BODY(sol, 'RIGID', api.HEX(nodes, 1, 1, 1, 0, [11, 12, 13, 14, 15, 16]), mat)
    table = O.table_for(sol.domain)
    return table, O.current(sol.domain, table, EPS)


def evaluate(table, geo, fixed=False, pair=(0, 1)):
    return detect.evaluate(table, geo, np.array([pair[0]]), np.array([pair[1]]), EPS, fixed)


@pytest.mark.parametrize("delta", [1e-3, 0.01, 0.2])
def test_overlapping_unit_cubes(api, delta):
    """Overlap box 1 x 1 x delta: gap -delta (refined, exact), normal along z (side faces are
    weighted by A^2), point at the overlap centre, area = half the overlap surface = 1 + 2 delta
    (Solfec's patch-area definition). Planes through the GJK point p are pushed out by eps
    (docs/contact.md), so point and area carry O(eps) errors: tolerances eps and 5 eps."""
    table, geo = cubes(api, (0, 0, 1 - delta))
    touch, f = evaluate(table, geo)
    assert touch.tolist() == [True] and f.om.size == 1
    assert abs(abs(f.n[0, 2]) - 1) < 1e-6
    assert f.gap[0] == pytest.approx(-delta, abs=1e-12)
    assert f.area[0] == pytest.approx(1 + 2 * delta, abs=5 * EPS)
    assert f.pm[0] == pytest.approx((0.5, 0.5, 1 - delta / 2), abs=EPS)
    assert np.array_equal(f.pm, f.ps)
    # the slave owns the normal, which points from the slave to the master
    slave_z = geo.v_cur[table.c_vstart[table.part[f.os[0]]]:table.c_vstart[table.part[f.os[0]] + 1], 2].mean()
    master_z = geo.v_cur[table.c_vstart[table.part[f.om[0]]]:table.c_vstart[table.part[f.om[0]] + 1], 2].mean()
    assert np.sign(f.n[0, 2]) == np.sign(master_z - slave_z)
    # surface pair: the floor's top face and the box's bottom face
    floor_sid, box_sid = (f.sid_s[0], f.sid_m[0]) if f.os[0] == 0 else (f.sid_m[0], f.sid_s[0])
    top = table.f_sid[table.c_fstart[0]:table.c_fstart[1]][np.argmax(geo.f_normal[table.c_fstart[0]:table.c_fstart[1], 2])]
    bottom = table.f_sid[table.c_fstart[1]:table.c_fstart[2]][np.argmin(geo.f_normal[table.c_fstart[1]:table.c_fstart[2], 2])]
    assert (floor_sid, box_sid) == (top, bottom)


def test_partial_face_overlap(api):
    """Box shifted by (0.3, 0.2) and sunk by 0.01: overlap 0.7 x 0.8 x 0.01 centred at
    (0.65, 0.6, 0.995); area = 0.56 + 0.01 (0.7 + 0.8); the side faces tilt the normal by
    O((side area / top area)^2) = O(1e-4); point and area tolerances as above (eps, 5 eps)."""
    delta = 0.01
    table, geo = cubes(api, (0.3, 0.2, 1 - delta))
    touch, f = evaluate(table, geo)
    assert touch.tolist() == [True]
    assert f.pm[0] == pytest.approx((0.65, 0.6, 1 - delta / 2), abs=EPS)
    assert f.area[0] == pytest.approx(0.56 + delta * 1.5, abs=5 * EPS)
    assert f.gap[0] == pytest.approx(-delta, abs=1e-9)
    assert abs(abs(f.n[0, 2]) - 1) < 1e-6 and np.linalg.norm(f.n[0, :2]) < 1e-3


def test_fixed_roles_keep_master_and_slave(api):
    """Update with fixed roles: (master, slave) as given, normal from slave to master."""
    table, geo = cubes(api, (0.3, 0.2, 0.99))
    for master, slave, sign in ((0, 1, -1), (1, 0, 1)):
        touch, f = evaluate(table, geo, fixed=True, pair=(master, slave))
        assert touch.tolist() == [True] and (f.om[0], f.os[0]) == (master, slave)
        assert np.sign(f.n[0, 2]) == sign


def test_separated_and_touching_cubes(api):
    """Apart by 2 eps: no contact; apart by eps / 2: contact with gap 0 (touch within eps)."""
    table, geo = cubes(api, (0.2, 0.1, 1 + 2 * EPS))
    touch, f = evaluate(table, geo)
    assert touch.tolist() == [False] and f.om.size == 0
    table, geo = cubes(api, (0.2, 0.1, 1 + EPS / 2))
    touch, f = evaluate(table, geo)
    assert touch.tolist() == [True] and f.gap[0] == pytest.approx(0.0, abs=1e-12)
    assert abs(abs(f.n[0, 2]) - 1) < 1e-6


def test_output_order_follows_the_input_pairs(api):
    """Mixed pair kinds: found[j] belongs to pair flatnonzero(touch)[j]."""
    sol, mat = model(api)
    api.BODY(sol, 'OBSTACLE', api.HEX(CUBE, 1, 1, 1, 0, [1] * 6), mat)
    api.BODY(sol, 'RIGID', api.SPHERE((0.5, 0.5, 1.05), 0.1, 1, 2), mat)
    nodes = list((np.array(CUBE, float).reshape(8, 3) * 0.3 + (0.1, 0.1, 0.99)).ravel())
    api.BODY(sol, 'RIGID', api.HEX(nodes, 1, 1, 1, 0, [3] * 6), mat)
    table = O.table_for(sol.domain)
    geo = O.current(sol.domain, table, EPS)
    om, os_ = np.array([0, 0, 1]), np.array([2, 1, 2])
    touch, f = detect.evaluate(table, geo, om, os_, EPS, False)
    assert touch.tolist() == [True, True, False]
    assert {f.om[0], f.os[0]} == {0, 2} and {f.om[1], f.os[1]} == {0, 1}


def test_box_rests_on_a_floor(api):
    """A box (0.4 x 0.4 x 0.2, 1000 kg/m^3) on an obstacle block, mu = 0.5: one contact at the
    patch centroid, sum R_N = m g (solver tolerance 1e-10), no drift."""
    sol, mat = model(api)
    api.GRAVITY(sol, (0, 0, -9.81))
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.5)
    floor = list((np.array(CUBE, float).reshape(8, 3) * (2, 2, 1) - (1, 1, 1)).ravel())
    api.BODY(sol, 'OBSTACLE', api.HEX(floor, 1, 1, 1, 0, [1] * 6), mat)
    nodes = list((np.array(CUBE, float).reshape(8, 3) * (0.4, 0.4, 0.2) - (0.2, 0.2, 0)).ravel())
    box = api.BODY(sol, 'RIGID', api.HEX(nodes, 1, 1, 1, 0, [2] * 6), mat)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.05)
    (con,) = box.constraints
    normal = np.array(con.base)[6:9]
    rn = con.R[2]                       # local frame: R = (R_T1, R_T2, R_N)
    assert con.kind == 'CONTACT' and abs(abs(normal[2]) - 1) < 1e-9
    assert rn == pytest.approx(box.mass * 9.81, rel=1e-8)
    assert con.point[:2] == pytest.approx((0, 0), abs=1e-9) and abs(con.point[2]) < 2 * EPS
    assert np.abs(box.velo).max() < 1e-9 and box.conf[11] == pytest.approx(0.1, abs=2e-5)


def test_block_sliding_deck(tmp_path, capsys):
    """Solfec-1.0 tests/block-sliding.py, the full 10 s (about 20 s of run time): four element-floor contacts,
    x at steps 2000/5000/8000 and v_x at steps 150/3150/6150 within 1e-3 max(1, |ref|) of
    Solfec's stored values (the closed-form stick-slip solution agrees with them to that
    tolerance too)."""
    assert main([os.path.join(INPUTS, "block_sliding.py"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith("PASSED") and "contacts at the end: 4" in out
    errors = [float(line.rsplit("error", 1)[1]) for line in out.splitlines() if " error " in line]
    assert len(errors) == 6 and max(errors) <= 1e-3
    assert (tmp_path / "out" / "block_sliding" / "block_sliding.png").stat().st_size > 0
    # run again (as test_cli does for the other decks): the stored results are found and re-checked
    assert main([os.path.join(INPUTS, "block_sliding.py"), "--no-progress"]) == 0
    again = capsys.readouterr()
    assert "opened in READ mode" in again.err and again.out == out
