"""The one-pass narrow phase of sphere pair lists (contact/narrow.py sphere_pairs) against
the per-kind path of detect.evaluate and against the geometry of two spheres; the local
frames of constraints.local_base; constraint-row removal with a shared obstacle."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from solfec_py import constraints as C
from solfec_py.contact import broad, narrow, objects as O

D = importlib.import_module("solfec_py.contact.detect")


@pytest.fixture
def pile(api):
    """A unit-cube OBSTACLE (one HEX element) and 60 spheres of radius 0.1 scattered over
    and into it (fixed seed); returns the domain's object table, geometry and broad pairs."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/pile')
    mat = api.BULK_MATERIAL(sol)
    nodes = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
    api.BODY(sol, 'OBSTACLE', api.HEX(nodes, 1, 1, 1, 0, [1, 2, 3, 4, 5, 6]), mat)
    rng = np.random.default_rng(7)
    for c in rng.uniform(-0.15, 1.15, (60, 3)):
        api.BODY(sol, 'RIGID', api.SPHERE(tuple(c), 0.1, 7, 9), mat)
    table = O.table_for(sol.domain)
    geo = O.current(sol.domain, table, 1e-6)
    pairs = broad.overlapping_pairs(geo.lo, geo.hi, group=table.bid, flag=table.inert)
    return table, geo, pairs


def _per_kind(monkeypatch, *args, **kwargs):
    """detect.evaluate through the per-kind path (sphere_owner, sphere_sphere, convex_sphere)."""
    with monkeypatch.context() as m:
        m.setattr(narrow, "sphere_pairs", lambda *a: (False,) + (None,) * 9)
        return D.evaluate(*args, **kwargs)


FIELDS = ("om", "os", "pm", "ps", "n", "gap", "area", "sid_m", "sid_s")


@pytest.mark.parametrize("fixed", [False, True])
def test_one_pass_equals_the_per_kind_path_bit_for_bit(pile, monkeypatch, fixed):
    table, geo, pairs = pile
    kinds = set(table.kind[pairs].reshape(-1).tolist())
    assert kinds == {O.SPHERE, O.CONVEX}
    om, os = pairs[:, 0], pairs[:, 1]
    touch, found = D.evaluate(table, geo, om, os, 1e-6, fixed=fixed)
    touch0, found0 = _per_kind(monkeypatch, table, geo, om, os, 1e-6, fixed=fixed)
    # a test that can fail: both kinds of pair touch, and with fixed roles a convex master
    # (the obstacle given first) is rejected
    assert touch.sum() > 10
    assert np.array_equal(touch, touch0)
    for f in FIELDS:                     # same numbers (the kernel repeats the operations)
        assert np.array_equal(getattr(found, f), getattr(found0, f)), f


def test_sphere_pairs_gap_normal_and_slave_from_the_geometry(pile):
    """Sphere-sphere contacts: gap = |c_m - c_s| - 2 r (capped at 0), n the unit vector from
    the slave centre to the master centre, the slave the lexicographically first centre
    (docs/contact.md); tolerance 1e-12 (rounding of a few operations on unit-size data)."""
    table, geo, pairs = pile
    sph = (table.kind[pairs[:, 0]] == O.SPHERE) & (table.kind[pairs[:, 1]] == O.SPHERE)
    touch, found = D.evaluate(table, geo, pairs[sph, 0], pairs[sph, 1], 1e-6, fixed=False)
    assert touch.sum() > 3
    cm, cs = geo.s_center[table.part[found.om]], geo.s_center[table.part[found.os]]
    d = np.linalg.norm(cm - cs, axis=1)
    assert found.gap == pytest.approx(np.minimum(d - 0.2, 0.0), abs=1e-12)
    assert found.n == pytest.approx((cm - cs) / d[:, None], abs=1e-12)
    assert found.pm == pytest.approx(cm - 0.1 * found.n, abs=1e-12)
    assert all(tuple(s) < tuple(m) for s, m in zip(cs.tolist(), cm.tolist()))
    assert np.all(d < 0.2 + 1e-6)
    far = ~touch
    a, b = geo.s_center[table.part[pairs[sph, 0][far]]], geo.s_center[table.part[pairs[sph, 1][far]]]
    assert np.all(np.linalg.norm(a - b, axis=1) >= 0.2 + 1e-6)


def test_local_base_is_a_right_frame_with_the_normal_last():
    """Columns (t1, t2, n): orthonormal, t1 = e_x x n normalised (e_y x n when n is within
    1e-6 of the x axis), t2 = t1 x n; tolerance 1e-14 (rounding of unit vectors)."""
    rng = np.random.default_rng(3)
    n = rng.standard_normal((500, 3))
    n[:3] = [[1, 0, 0], [-1, 1e-9, 0], [0, 0, 1]]
    n /= np.linalg.norm(n, axis=1)[:, None]
    B = C.local_base(n)
    assert np.einsum("kji,kjl->kil", B, B) == pytest.approx(np.broadcast_to(np.eye(3), B.shape), abs=1e-14)
    assert np.array_equal(B[:, :, 2], n)
    t1 = np.cross([1.0, 0.0, 0.0], n)
    near = np.linalg.norm(t1, axis=1) < 1e-6
    t1[near] = np.cross([0.0, 1.0, 0.0], n[near])
    assert near[:2].all() and not near[2:].any()
    assert B[:, :, 0] == pytest.approx(t1 / np.linalg.norm(t1, axis=1)[:, None], abs=1e-14)
    assert B[:, :, 1] == pytest.approx(np.cross(B[:, :, 0], n), abs=1e-14)


def test_remove_rows_keeps_the_order_of_rows_ids_and_body_lists():
    class Body:
        def __init__(self, i):
            self.id, self.constraints = i, []

    floor, balls = Body(1), [Body(i + 2) for i in range(40)]
    cs = C.ConstraintSet()
    idx = np.arange(80) % 40
    rows = cs.add_many(C.CONTACT, [balls[i] for i in idx], [floor] * 80,
                       np.column_stack((idx + 2, np.ones(80, dtype=int))), np.zeros((80, 2), dtype=int), ["RIGID"])
    cs.gap[rows] = np.arange(80.0)
    handles = list(cs)
    gone = [3, 17, 18, 40, 79]
    cs.remove_rows(np.array(gone[::-1]))                     # any order; duplicates allowed
    cs.remove_rows([])
    left = [k for k in range(80) if k not in gone]
    assert cs.count == 75 and cs.gap[:75].tolist() == [float(k) for k in left]
    assert [h.row for h in handles] == [None if k in gone else left.index(k) for k in range(80)]
    assert floor.constraints == [handles[k] for k in left]   # the obstacle's list, in order
    assert balls[3].constraints == [handles[43]] and balls[0].constraints == [handles[0]]
    new = cs.add_many(C.CONTACT, [balls[0]], [floor], np.array([[2, 1]]), np.zeros((1, 2), dtype=int), ["RIGID"])
    assert int(cs.id[new[0]]) == 4                           # the smallest spare id (row 3's)
    assert cs.handle(4).row == 75 and cs.row_of(4, serial=int(cs.serial[75])) == 75
    with pytest.raises(KeyError):
        cs.handle(18 + 1)                                     # row 18 had id 19: gone
