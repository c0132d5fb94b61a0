"""The compiled convex-convex narrow phase (contact/polyhedra_kernels.py) against the Qhull
dual-hull path it replaces (polyhedra.convex_convex_qhull, an independent construction of
the same intersection polytope): random overlapping hulls, rotated boxes, face-on-face
stacks with coplanar sides and touching within eps. Tolerances: the two constructions round
differently (clipping vs quickhull) and treat points within 1e-12 of a plane as on it, so
point, area and gap agree to 1e-9 (relative to the object size 1). The normal is the
A^2-weighted sum over fan triangles, which depends on the triangulation where Qhull splits
a vertex of four or more planes (the eps-swollen planes through the GJK point make such
vertices common) into a zero-area triangle that moves the fan's start: on deep random
overlaps the two normals differ by up to a few 1e-2 (both are valid choices of the same
rule), so there only their orientation is compared (cosine > 0.99); on box contacts the
faces are rectangles, whose fans are independent of the start, and normals agree to 1e-9."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.contact import objects as O
from solfec_py.contact import polyhedra as P

EPS = 1e-6


def _table(api, hulls):
    """Object table and geometry of rigid HULL bodies (vertex arrays), surfaces 1, 2, ..."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/kern")
    sol.verbose = 'OFF'
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    for i, v in enumerate(hulls):
        api.BODY(sol, 'RIGID', api.HULL(list(np.asarray(v, float).ravel()), 1, i + 1), mat)
    table = O.table_for(sol.domain)
    return table, O.current(sol.domain, table, EPS)


def _compare(table, geo, ca, cb, exact_normal=True):
    new = P.convex_convex(table, geo, ca, cb, EPS)
    old = P.convex_convex_qhull(table, geo, ca, cb, EPS)
    assert new[0].tolist() == old[0].tolist()
    hit = old[0]
    for name, a, b in (("point", new[1], old[1]), ("area", new[4], old[4])):
        assert np.abs(a[hit] - b[hit]).max(initial=0.0) <= 1e-9, name
    same = np.abs(new[2] - old[2]).max(axis=1) <= 1e-9
    if not exact_normal:                  # the gap is measured along the normal
        assert np.einsum("ki,ki->k", new[2][hit], old[2][hit]).min(initial=1.0) > 0.99
    else:
        assert same[hit].all(), "normal"
    assert np.abs(new[3] - old[3])[hit & same].max(initial=0.0) <= 1e-9, "gap"
    assert new[5][hit].tolist() == old[5][hit].tolist() and new[6][hit].tolist() == old[6][hit].tolist()
    return int(hit.sum())


def _box(lo, hi):
    return np.array([(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])], float)


def _rotation(rng):
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return q * np.sign(np.linalg.det(q))


@pytest.mark.parametrize("seed", range(6))
def test_random_hulls_match_the_qhull_path(api, seed):
    """Random hulls of 6-14 points, pairwise overlapping: same contacts, same figures."""
    rng = np.random.default_rng(seed)
    hulls = [rng.normal(size=(rng.integers(6, 15), 3)) * 0.5 + rng.uniform(-0.6, 0.6, 3) for _ in range(6)]
    table, geo = _table(api, hulls)
    ca, cb = np.triu_indices(len(hulls), 1)
    assert _compare(table, geo, ca, cb, exact_normal=False) > 5


@pytest.mark.parametrize("seed", range(4))
def test_rotated_boxes_match_the_qhull_path(api, seed):
    rng = np.random.default_rng(100 + seed)
    hulls = [(_box((0, 0, 0), rng.uniform(0.3, 1.0, 3)) - 0.3) @ _rotation(rng).T + rng.uniform(-0.3, 0.3, 3)
             for _ in range(5)]
    table, geo = _table(api, hulls)
    ca, cb = np.triu_indices(len(hulls), 1)
    assert _compare(table, geo, ca, cb) > 3


@pytest.mark.parametrize("sink", [0.0, 0.5 * EPS, 1e-4, 1e-2])
def test_stacked_boxes_with_coplanar_sides(api, sink):
    """A column of unit boxes (coplanar side faces), each sunk `sink` into the one below,
    and a neighbour column 0.5 eps apart: face-face contacts with degenerate vertices where
    four planes meet."""
    hulls = [_box((0, 0, k * (1 - sink)), (1, 1, k * (1 - sink) + 1)) for k in range(3)]
    hulls += [_box((1 + 0.5 * EPS, 0.25, 0), (2, 1.25, 1))]
    table, geo = _table(api, hulls)
    ca, cb = np.array([0, 1, 1, 0, 3]), np.array([1, 2, 0, 3, 0])
    assert _compare(table, geo, ca, cb) == 5
    touch, x, n, gap, area, *_ = P.convex_convex(table, geo, ca[:1], cb[:1], EPS)
    assert gap[0] == pytest.approx(-sink, abs=1e-12)            # exact overlap depth
    assert abs(n[0, 2]) == pytest.approx(1.0, abs=1e-9)
    # half the lens surface 1 + 2 sink; the planes through p are swollen by eps: O(eps) more
    assert area[0] == pytest.approx(1 + 2 * sink, abs=10 * EPS)


def test_separated_pairs_give_no_contact(api):
    hulls = [_box((0, 0, 0), (1, 1, 1)), _box((0, 0, 1 + 3 * EPS), (1, 1, 2))]
    table, geo = _table(api, hulls)
    assert _compare(table, geo, np.array([0]), np.array([1])) == 0


def test_inside_shortcut_agrees_with_gjk(api):
    """The GJK point check that convex_pairs skips (polyhedra_kernels._behind_all on a
    closed surface, objects.closed_surface) against GJK itself: every point it certifies is
    at GJK distance 0 (<= 1e-9: GJK stops at a relative progress of 1e-13 of |v|^2, which
    leaves ~1e-11 on unit-size hulls; the kernel compares with eps = 1e-6), and points
    strictly inside (convex combinations pulled 10 % towards the centroid) are certified;
    an open or doubly covered surface is not closed."""
    from solfec_py.contact.gjk import gjk
    from solfec_py.contact.polyhedra_kernels import _behind_all

    rng = np.random.default_rng(7)
    hulls = [rng.normal(size=(rng.integers(6, 15), 3)) for _ in range(4)] + [_box((0, 0, 0), (1, 2, 3))]
    table, geo = _table(api, hulls)
    assert table.c_closed.all()
    certified = inside = 0
    for c in range(len(hulls)):
        v = geo.v_cur[table.c_vstart[c]:table.c_vstart[c + 1]]
        t0, t1 = table.c_tstart[c], table.c_tstart[c + 1]
        w = rng.dirichlet(np.ones(v.shape[0]), size=200)
        strict = 0.9 * (w @ v) + 0.1 * v.mean(axis=0)
        for x in np.vstack([strict, v.mean(axis=0) + rng.normal(size=(200, 3)), v]):
            d = gjk(v, x[None, :])[2]
            if _behind_all(geo.v_cur, table.tri, t0, t1, x):
                certified += 1
                assert d <= 1e-9                  # so no point outside is certified
        inside += sum(_behind_all(geo.v_cur, table.tri, t0, t1, x) for x in strict)
    assert inside == 200 * len(hulls) and certified >= inside
    tri = table.tri[table.c_tstart[4]:table.c_tstart[5]] - table.c_vstart[4]
    assert O.closed_surface(tri)
    assert not O.closed_surface(tri[1:])                          # a hole
    assert not O.closed_surface(np.vstack([tri, tri]))            # every side twice


def test_pseudo_angle_orders_as_arctan2():
    """The clipping orders cap points and picks each fan's start by `_pseudo_angle`, not
    arctan2: the two must order alike every two directions whose arctan2 values are more
    than 1e-15 apart (a few of arctan2's own rounding steps; closer than that arctan2 may
    round distinct angles to one value, which the pseudo-angle keeps apart), and agree on
    the cut at +-pi and the signed zeros. Directions: random, 65 evenly spaced with the
    axes, their copies 1e-12 rad on (the closest cap points that survive the 1e-12 merge),
    the axes with signed zeros."""
    from solfec_py.contact.polyhedra_kernels import _pseudo_angle

    rng = np.random.default_rng(3)
    t = np.concatenate([rng.uniform(-np.pi, np.pi, 2000), np.linspace(-np.pi, np.pi, 65)])
    t = np.concatenate([t, t + 1e-12])
    r = rng.uniform(1e-3, 1e3, t.size)
    pts = [(r_ * np.sin(a), r_ * np.cos(a)) for r_, a in zip(r, t)]
    pts += [(y, x) for y in (0.0, -0.0, 1.0, -1.0) for x in (0.0, -0.0, 2.0, -2.0)]
    exact = np.array([np.arctan2(y, x) for y, x in pts])
    pseudo = np.array([_pseudo_angle(y, x) for y, x in pts])
    i, j = np.triu_indices(len(pts), 1)
    apart = np.abs(exact[i] - exact[j]) > 1e-15
    assert apart.mean() > 0.99
    assert ((exact[i] < exact[j]) == (pseudo[i] < pseudo[j]))[apart].all()
    edges = [(0.0, -0.0, 2.0), (-0.0, -0.0, -2.0), (0.0, -2.0, 2.0), (-0.0, -2.0, -2.0),   # (y, x, value)
             (0.0, 0.0, 0.0), (-0.0, 2.0, 0.0), (1.0, 0.0, 1.0), (-1.0, -0.0, -1.0)]
    assert [_pseudo_angle(y, x) for y, x, _ in edges] == [v for *_, v in edges]


@pytest.mark.parametrize("seed", range(10))
def test_gjk_start_pair_gives_the_same_distance(seed):
    """`gjk_into(va, vb, work, i0, j0)` starts from the vertex pair va[i0] - vb[j0] (the gap
    refinement passes the extreme vertices along the normal): from every start the distance
    is the same to 1e-12 (GJK stops at a relative progress of 1e-13 of |v|^2) and p, q
    satisfy the optimality certificate of tests/test_contact_polyhedra.py (1e-12)."""
    from solfec_py.contact.gjk import gjk_into, gjk_work

    rng = np.random.default_rng(seed)
    va = rng.normal(size=(rng.integers(4, 12), 3))
    vb = rng.normal(size=(rng.integers(4, 12), 3)) + rng.normal(size=3) * (3 if seed % 2 else 0.5)
    work = gjk_work()
    ref = gjk_into(va, vb, work)
    for i0, j0 in zip(rng.integers(0, len(va), 8), rng.integers(0, len(vb), 8)):
        d = gjk_into(va, vb, work, i0, j0)
        assert d == pytest.approx(ref, abs=1e-12)
        p, q = work[9].copy(), work[10].copy()
        if d > 0:
            v = p - q
            assert (va @ v).min() >= v @ p - 1e-12 * (1 + abs(v @ p))
            assert (vb @ v).max() <= v @ q + 1e-12 * (1 + abs(v @ q))


def test_pairs_sharing_objects_match_pairs_evaluated_alone(api):
    """The kernel keeps per-call values of each face (its in-plane axes) for the pairs that
    share an object; a batch where every object is in several pairs, on either side, gives
    bit for bit the results of one call per pair (reference: the lone pair, whose call holds
    no value from another pair)."""
    rng = np.random.default_rng(7)
    hulls = [(_box((0, 0, 0), rng.uniform(0.4, 1.0, 3)) - 0.3) @ _rotation(rng).T + rng.uniform(-0.3, 0.3, 3)
             for _ in range(5)]
    table, geo = _table(api, hulls)
    ca, cb = np.triu_indices(len(hulls), 1)
    ca, cb = np.concatenate((ca, cb)), np.concatenate((cb, ca))        # both sides of each pair
    batch = P.convex_convex(table, geo, ca, cb, EPS)
    assert batch[0].sum() > 10
    for k in range(ca.size):
        alone = P.convex_convex(table, geo, ca[k:k + 1], cb[k:k + 1], EPS)
        for a, b in zip(batch, alone):
            assert a[k:k + 1].tobytes() == b.tobytes()
