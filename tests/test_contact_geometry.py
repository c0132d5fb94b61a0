"""Contact detection geometry: the broad phase against an all-pairs check, closest points on
triangles against an independent construction, the sphere-convex and sphere-sphere narrow
phase against the exact gaps, normals and points of a unit cube, and the object table of
shapes (spheres, CONVEX members, surface elements of meshes)."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.contact import broad, narrow, objects as O

# ------------------------------------------------------------------ broad phase


def brute_force_pairs(lo, hi):
    n = lo.shape[0]
    out = set()
    for i in range(n):
        for j in range(i + 1, n):
            if np.all(lo[i] <= hi[j]) and np.all(lo[j] <= hi[i]):
                out.add((i, j))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sweep_reports_exactly_the_overlapping_pairs(seed):
    rng = np.random.default_rng(seed)
    n = 300
    lo = rng.uniform(0, 10, size=(n, 3))
    hi = lo + rng.uniform(0, 1.5, size=(n, 3)) * np.array([1.0, 3.0, 0.5])
    lo[:10] = lo[10:20]                    # touching boxes: closed intervals overlap
    hi[:10] = lo[10:20]
    pairs = broad.overlapping_pairs(lo, hi)
    got = {tuple(p) for p in pairs.tolist()}
    assert len(got) == len(pairs)          # no duplicates
    assert got == brute_force_pairs(lo, hi)


def test_sweep_filters_same_group_and_double_flags():
    rng = np.random.default_rng(5)
    lo = rng.uniform(0, 2, size=(60, 3))
    hi = lo + 1.0
    group = rng.integers(0, 10, size=60)
    flag = rng.random(60) < 0.3
    got = {tuple(p) for p in broad.overlapping_pairs(lo, hi, group, flag).tolist()}
    want = {(i, j) for i, j in brute_force_pairs(lo, hi) if group[i] != group[j] and not (flag[i] and flag[j])}
    assert got == want


def test_sweep_lists_pairs_in_sweep_order():
    """Below broad.GRID_FROM boxes the pairs come in the order of the sweep (contacts are
    created in that order, so the solver's row order and results depend on it): boxes
    sorted stably by their low end on the axis of largest spread, each box's pairs with the
    later boxes in that order, each pair as (smaller, larger index). The reference is that
    double loop over all sorted positions (no early exit)."""
    rng = np.random.default_rng(7)
    for n in (2, 40, 400):
        lo = np.round(rng.uniform(0, 10, size=(n, 3)) * np.array([1.0, 0.7, 0.4]), 1)
        hi = lo + np.round(rng.uniform(0, 1.5, size=(n, 3)), 1)
        hi[0] = lo.max(axis=0) + 1.0                           # one box over all
        group = rng.integers(0, n // 3 + 1, size=n)
        flag = rng.random(n) < 0.2
        spread = hi.max(axis=0) - lo.min(axis=0)
        order = np.argsort(lo[:, int(np.argmax(spread))], kind="stable")
        want = [(min(i, j), max(i, j)) for a, i in enumerate(order) for j in order[a + 1:]
                if np.all(lo[i] <= hi[j]) and np.all(lo[j] <= hi[i]) and group[i] != group[j]
                and not (flag[i] and flag[j])]
        got = broad.overlapping_pairs(lo, hi, group, flag)
        assert got.tolist() == [list(p) for p in want]
        assert n < 40 or len(want) > n // 10


def test_grid_reports_the_pairs_of_the_sweep():
    """The grid broad phase of many boxes (a dense 3-D pile of unit boxes, a few large
    ones such as walls and a floor, touching pairs, groups and flags) finds exactly the pairs
    of the sweep."""
    rng = np.random.default_rng(11)
    n = 6000
    lo = rng.uniform(0, 18, size=(n, 3))
    hi = lo + rng.uniform(0.5, 1.0, size=(n, 3))
    lo[:5], hi[:5] = np.array([-1.0, -1.0, -1.0]) + 3 * np.arange(5)[:, None], np.array([20.0, 20.0, 0.5]) + 3 * np.arange(5)[:, None]
    lo[10:20], hi[10:20] = hi[20:30], hi[20:30] + 0.7          # touching corners
    group, flag = rng.integers(0, 3000, size=n), rng.random(n) < 0.2
    for args in ((), (group, flag)):
        grid = broad.overlapping_pairs(lo, hi, *args)
        sweep = broad._sweep(lo, hi, np.argsort(lo[:, 0], kind="stable"), 0, bool(args),
                             group if args else np.zeros(n, np.int64), bool(args), flag if args else np.zeros(n, bool))
        assert n >= broad.GRID_FROM and len({tuple(p) for p in grid.tolist()}) == len(grid)
        assert {tuple(p) for p in grid.tolist()} == {tuple(p) for p in sweep.tolist()}


def test_grid_with_mixed_sizes_and_many_large_boxes():
    """Cells grow to the largest box up to 4 times the 98th percentile of the sizes (a few
    boxes 2-3.5 times the typical size stay in the grid); boxes larger than that (here 40 slabs
    of 10-20 units at random places, overlapping each other) are searched by their x range:
    the pair set equals the sweep's."""
    rng = np.random.default_rng(12)
    n = 8000
    lo = rng.uniform(0, 30, size=(n, 3))
    hi = lo + rng.uniform(0.5, 1.0, size=(n, 3))
    hi[:80] = lo[:80] + rng.uniform(2.0, 3.5, size=(80, 3))
    hi[100:140] = lo[100:140] + rng.uniform(10.0, 20.0, size=(40, 3)) * np.array([1.0, 1.0, 0.1])
    size = np.max(hi - lo, axis=1)
    assert np.count_nonzero(size > 4.0 * np.quantile(size, 0.98)) == 40
    grid = broad.overlapping_pairs(lo, hi)
    sweep = broad._sweep(lo, hi, np.argsort(lo[:, 0], kind="stable"), 0, False, np.zeros(n, np.int64),
                         False, np.zeros(n, bool))
    assert len({tuple(p) for p in grid.tolist()}) == len(grid)
    assert {tuple(p) for p in grid.tolist()} == {tuple(p) for p in sweep.tolist()}


def test_grid_of_sparse_boxes_searches_sorted_keys():
    """Boxes spread thinly (more than 8 cells per box) take the sorted-key search instead of
    the counting sort: the same pairs as the sweep."""
    rng = np.random.default_rng(13)
    n = 6000
    lo = rng.uniform(0, 60, size=(n, 3))
    lo[: n // 2] = rng.uniform(0, 8, size=(n // 2, 3))         # a dense cluster: pairs exist
    hi = lo + rng.uniform(0.5, 1.0, size=(n, 3))
    cell = np.max(hi - lo, axis=1).max()
    assert np.prod(np.ceil((hi.max(axis=0) - lo.min(axis=0)) / cell)) > 8 * n + 1024
    grid = broad.overlapping_pairs(lo, hi)
    sweep = broad._sweep(lo, hi, np.argsort(lo[:, 0], kind="stable"), 0, False, np.zeros(n, np.int64),
                         False, np.zeros(n, bool))
    assert len(grid) > 1000 and len({tuple(p) for p in grid.tolist()}) == len(grid)
    assert {tuple(p) for p in grid.tolist()} == {tuple(p) for p in sweep.tolist()}


def test_grid_of_tiny_boxes_far_apart_keeps_its_keys_in_range():
    """Points +- a tolerance (the boxes contact sparsification bins) spread over 200 m: cells
    of the boxes' size would need 1e11 cells an axis, whose key products overflow int64
    (numpy then refused a negative array size); the grid caps the cells an axis (a larger
    cell keeps every pair) and finds the pairs of the sweep, here close pairs planted among
    scattered points."""
    rng = np.random.default_rng(14)
    n = 6000
    pts = rng.uniform(-100, 100, size=(n, 3))
    pts[1::2] = pts[::2] + rng.uniform(-1e-9, 1e-9, size=(n // 2, 3))   # 3 000 close pairs
    half = 1e-9
    lo, hi = pts - half, pts + half
    grid = broad.overlapping_pairs(lo, hi)
    sweep = broad._sweep(lo, hi, np.argsort(lo[:, 0], kind="stable"), 0, False, np.zeros(n, np.int64),
                         False, np.zeros(n, bool))
    assert n >= broad.GRID_FROM and len(sweep) >= n // 2 - 50
    assert {tuple(p) for p in grid.tolist()} == {tuple(p) for p in sweep.tolist()}


# ------------------------------------------------------------------ closest point on a triangle


def closest_reference(p, a, b, c):
    """Projection onto the plane when it falls inside, else the nearest of the three edge
    projections (clamped segment parameters) — a different construction from the kernel's
    Voronoi-region walk."""
    n = np.cross(b - a, c - a)
    q = p - np.dot(p - a, n) / np.dot(n, n) * n
    bary = [np.dot(np.cross(y - x, q - x), n) for x, y in ((a, b), (b, c), (c, a))]
    if min(bary) >= 0:
        return q
    best = None
    for x, y in ((a, b), (b, c), (c, a)):
        t = np.clip(np.dot(p - x, y - x) / np.dot(y - x, y - x), 0.0, 1.0)
        cand = x + t * (y - x)
        if best is None or np.linalg.norm(p - cand) < np.linalg.norm(p - best):
            best = cand
    return best


def test_closest_point_on_triangle_matches_an_independent_construction():
    rng = np.random.default_rng(7)
    for _ in range(2000):
        a, b, c = rng.normal(size=(3, 3))
        p = rng.normal(scale=2.0, size=3)
        got = narrow._closest_on_triangle(p, a, b, c)
        want = closest_reference(p, a, b, c)
        # the two constructions agree to rounding (distances of order 1)
        assert np.linalg.norm(p - got) == pytest.approx(np.linalg.norm(p - want), abs=1e-12)
        assert got == pytest.approx(want, abs=1e-9)


# ------------------------------------------------------------------ narrow phase on a unit cube


@pytest.fixture
def cube_and_sphere(api):
    """A unit-cube OBSTACLE (one HEX element) and a free sphere, in one domain; returns a
    function placing the sphere centre and evaluating the pair."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/cube')
    mat = api.BULK_MATERIAL(sol)
    nodes = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
    api.BODY(sol, 'OBSTACLE', api.HEX(nodes, 1, 1, 1, 0, [1, 2, 3, 4, 5, 6]), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 7, 9), mat)
    domain = sol.domain

    def place(center, eps=1e-6):
        ball.block.conf[ball.row, 9:12] = center
        table = O.table_for(domain)
        geo = O.current(domain, table, eps)
        cvx, sph = np.flatnonzero(table.kind == O.CONVEX), np.flatnonzero(table.kind == O.SPHERE)
        hit, pm, ps, n, gap, sid = narrow.convex_sphere(
            table.part[cvx], table.part[sph], table.c_tstart, table.c_fstart, table.tri, geo.v_cur,
            geo.f_normal, geo.f_offset, table.f_surface, table.f_sid, geo.s_center, table.s_radius, eps)
        return bool(hit[0]), pm[0], ps[0], n[0], float(gap[0]), int(sid[0])

    return place


def test_sphere_on_a_face(cube_and_sphere):
    hit, pm, ps, n, gap, sid = cube_and_sphere((0.3, 0.6, 1.07))
    assert hit
    assert n == pytest.approx([0, 0, 1], abs=1e-14)          # outward normal of the top face
    assert ps == pytest.approx([0.3, 0.6, 1.0], abs=1e-14)    # point on the convex (slave)
    assert pm == pytest.approx([0.3, 0.6, 0.97], abs=1e-14)   # point on the sphere (master)
    assert gap == pytest.approx(-0.03, abs=1e-14)
    # HEX surids map to faces (-z, -x, +y, +x, -y, +z) (LANGUAGE HEX): the top face has id 6
    assert sid == 6


def test_sphere_at_an_edge_and_a_corner(cube_and_sphere):
    a = 0.05
    hit, pm, ps, n, gap, sid = cube_and_sphere((0.5, 1.05, 0.5))        # the +y face: id 3
    assert hit and sid == 3 and n == pytest.approx([0, 1, 0], abs=1e-14)
    hit, pm, ps, n, gap, _ = cube_and_sphere((1 + a, 0.5, 1 + a))      # edge y-parallel
    assert hit and n == pytest.approx(np.array([1, 0, 1]) / np.sqrt(2), abs=1e-12)
    assert ps == pytest.approx([1, 0.5, 1], abs=1e-12)
    assert gap == pytest.approx(a * np.sqrt(2) - 0.1, abs=1e-12)
    hit, pm, ps, n, gap, _ = cube_and_sphere((-a, -a, -a))              # corner
    assert hit and n == pytest.approx(-np.ones(3) / np.sqrt(3), abs=1e-12)
    assert gap == pytest.approx(a * np.sqrt(3) - 0.1, abs=1e-12)


def test_sphere_apart_touching_and_inside(cube_and_sphere):
    assert not cube_and_sphere((0.5, 0.5, 1.2))[0]                     # 0.1 away
    hit, _, _, _, gap, _ = cube_and_sphere((0.5, 0.5, 1.1 + 5e-7), eps=1e-6)   # within epsilon
    assert hit and gap == 0.0
    assert not cube_and_sphere((0.5, 0.5, 1.1 + 2e-6), eps=1e-6)[0]
    # centre inside: the nearest surface plane (the top, 0.1 away) gives the normal; gap 0
    hit, pm, ps, n, gap, _ = cube_and_sphere((0.5, 0.5, 0.9))
    assert hit and n == pytest.approx([0, 0, 1]) and gap == 0.0


def test_sphere_sphere_gap_normal_and_owner():
    cm = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    cs = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 3.0]])
    r = np.array([0.6, 1.0])
    touch, pm, ps, n, gap = narrow.sphere_sphere(cm, r, cs, r, 1e-6)
    assert touch.tolist() == [True, False]
    assert n[0] == pytest.approx([1, 0, 0]) and gap[0] == pytest.approx(-0.2)
    assert pm[0] == pytest.approx([0.4, 0, 0]) and ps[0] == pytest.approx([0.6, 0, 0])
    owner = narrow.sphere_owner(np.array([[0, 5, 0], [1, 0, 0], [2, 2, 2]]),
                                np.array([[0, 6, -9], [0, 9, 9], [2, 2, 2.5]]))
    assert owner.tolist() == [True, False, True]


# ------------------------------------------------------------------ object table


def test_object_table_splits_shapes_into_contact_objects(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/table')
    mat = api.BULK_MATERIAL(sol)
    nodes = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
    # 3 x 3 x 3 elements: 26 have a boundary face, the centre one does not take part
    api.BODY(sol, 'OBSTACLE', api.HEX(nodes, 3, 3, 3, 0, [1] * 6), mat)
    two = [api.SPHERE((5, 0, 0), 0.5, 1, 1), api.SPHERE((6, 0, 0), 0.5, 1, 1)]
    api.BODY(sol, 'RIGID', two, mat)
    table = O.table_for(sol.domain)
    assert (table.kind == O.CONVEX).sum() == 26 and (table.kind == O.SPHERE).sum() == 2
    assert table.inert[table.kind == O.CONVEX].all() and not table.inert[table.kind == O.SPHERE].any()
    assert table.elem[table.kind == O.SPHERE].tolist() == [0, 1]
    # element faces between two elements are not surfaces: 26 elements x 6 faces, of which
    # the 54 boundary faces are surfaces
    assert table.f_sid.size == 26 * 6 and table.f_surface.sum() == 54
    geo = O.current(sol.domain, table, 1e-3)
    assert geo.lo[table.kind == O.CONVEX].min(axis=0) == pytest.approx([-1e-3] * 3)
    assert geo.hi[table.kind == O.SPHERE].max(axis=0) == pytest.approx([6.5 + 1e-3, 0.5 + 1e-3, 0.5 + 1e-3])
    assert O.table_for(sol.domain) is table                 # cached while bodies stay
    api.BODY(sol, 'RIGID', api.SPHERE((9, 0, 0), 0.5, 1, 1), mat)
    assert O.table_for(sol.domain) is not table              # rebuilt after an insertion


def test_convex_boxes_equal_reduceat():
    """objects.convex_boxes (the convexes' boxes in one numba pass) against numpy's
    minimum / maximum.reduceat over the vertex ranges, bit for bit, NaN propagating, and
    with the inflation by eps folded in, against reduceat -/+ eps."""
    from solfec_py.contact.objects import convex_boxes

    rng = np.random.default_rng(0)
    v = rng.normal(size=(40, 3))
    v[7, 1] = np.nan
    starts, obj = np.array([0, 8, 21, 40]), np.array([2, 0, 1])
    lo, hi = np.empty((3, 3)), np.empty((3, 3))
    convex_boxes(v, starts, obj, lo, hi, 0.0)
    assert np.array_equal(lo[obj], np.minimum.reduceat(v, starts[:-1], axis=0), equal_nan=True)
    assert np.array_equal(hi[obj], np.maximum.reduceat(v, starts[:-1], axis=0), equal_nan=True)
    assert np.isnan(lo[2, 1]) and np.isnan(hi[2, 1]) and not np.isnan(lo[[0, 1]]).any()
    # inflated in the same pass: the values of the boxes less / plus eps (objects.current)
    convex_boxes(v, starts, obj, lo, hi, 1e-3)
    assert np.array_equal(lo[obj], np.minimum.reduceat(v, starts[:-1], axis=0) - 1e-3, equal_nan=True)
    assert np.array_equal(hi[obj], np.maximum.reduceat(v, starts[:-1], axis=0) + 1e-3, equal_nan=True)


def test_few_boxes_give_the_sweeps_pairs_in_its_order():
    """Up to broad.FEW boxes the pairs come from numpy (no kernel compiled for a small deck):
    the same pairs in the same order as the sweep along the axis of largest spread, with
    touching boxes (closed intervals), equal starts (the stable sort's ties), groups and
    flags; above FEW the kernel serves."""
    rng = np.random.default_rng(11)
    for trial in range(300):
        n = int(rng.integers(2, broad.FEW + 1))
        lo = np.round(rng.random((n, 3)) * 4.0, 1)           # coarse: ties and touching faces
        hi = lo + np.round(rng.random((n, 3)) * 2.0, 1)
        group = rng.integers(0, max(1, n // 2), n) if trial % 2 else None
        flag = rng.random(n) < 0.3 if trial % 3 else None
        got = broad.overlapping_pairs(lo, hi, group, flag)
        axis = int(np.argmax(hi.max(axis=0) - lo.min(axis=0)))
        order = np.argsort(lo[:, axis], kind="stable").astype(np.int64)
        want = broad._sweep(lo, hi, order, axis, group is not None,
                            np.zeros(n, np.int64) if group is None else group, flag is not None,
                            np.zeros(n, bool) if flag is None else flag)
        assert got.dtype == np.int64 and np.array_equal(got, want), trial
