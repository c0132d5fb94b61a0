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
    from solfec_py.contact.clipping import _pseudo_angle

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
    ref = gjk_into(va, vb, work, 0, 0)
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



def test_corner_variant_gives_the_plain_results_and_the_plain_one_no_corners(api):
    """corner_tol None (the contact path) compiles the pair kernel without the corner code;
    a number (polygon contact points) adds the corners. Reference: the other variant's
    own results, which the corner code must not touch (bit for bit)."""
    from solfec_py.contact.polyhedra_kernels import convex_pairs

    rng = np.random.default_rng(11)
    hulls = [(_box((0, 0, 0), rng.uniform(0.4, 1.0, 3)) - 0.3) @ _rotation(rng).T + rng.uniform(-0.3, 0.3, 3)
             for _ in range(5)]
    table, geo = _table(api, hulls)
    ca, cb = np.triu_indices(len(hulls), 1)
    ca, cb = ca.astype(np.int64), cb.astype(np.int64)
    args = (ca, cb, table.c_vstart, table.c_fstart, table.c_obj, geo.v_cur, geo.f_normal, geo.f_offset,
            table.f_surface, table.f_sid, table.c_tstart, table.tri, table.c_closed, table.f_vstart, table.f_vert,
            geo.lo, geo.hi, EPS)
    plain, cornered = convex_pairs(*args, None), convex_pairs(*args, 2.0 * EPS)
    assert plain[0].sum() > 3
    for a, b in zip(plain[:8], cornered[:8]):
        assert a.tobytes() == b.tobytes()
    assert plain[8].shape == (0, 4, 3) and not plain[9].any()
    touch, count = cornered[0], cornered[9]
    assert (count[touch] >= 1).all() and (count[~touch] == 0).all()


# ----------------------------------------------- the polytope started from a's own faces

def _hex(lo, hi):
    """HEX corner nodes of the box [lo, hi] (Solfec's node order)."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    return np.array([(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
                     (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)], float)


def _shape_table(api, shapes):
    """Object table and geometry of rigid bodies of ('HEX' | 'HULL', vertices) shapes."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/kern-own")
    sol.verbose = 'OFF'
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    for i, (kind, v) in enumerate(shapes):
        flat = list(np.asarray(v, float).ravel())
        shape = api.HEX(flat, 1, 1, 1, 0, [i + 1] * 6) if kind == "HEX" else api.HULL(flat, 1, i + 1)
        api.BODY(sol, 'RIGID', shape, mat)
    table = O.table_for(sol.domain)
    return table, O.current(sol.domain, table, EPS)


def _own_state(table, geo, c):
    from solfec_py.contact.clipping import own_faces as _own_faces
    return _own_faces(c, table.c_vstart, table.c_fstart, table.c_closed, table.f_vstart, table.f_vert,
                      geo.v_cur, geo.f_normal, geo.f_offset, geo.lo, geo.hi, table.c_obj, 64)


def test_own_faces_accepts_flat_convex_faces_only(api):
    """`_own_faces`: a rotated box and a square pyramid (a vertex of four faces) start from
    their own faces (1); a HEX whose top face is warped by 1e-3 (its vertices 1e-3 / 4 off
    the face's plane, far beyond the 1e-12 tolerance) and a non-convex HEX do not (2): those
    are clipped from a box."""
    rng = np.random.default_rng(5)
    warped, dent = _hex((0, 0, 0), (1, 1, 1)), _hex((0, 0, 0), (1, 1, 1))
    warped[6, 2] += 1e-3
    dent[6] -= 0.3                                    # a corner pushed inwards: a reflex edge
    shapes = [("HEX", _hex((0, 0, 0), (1, 2, 3)) @ _rotation(rng).T),
              ("HULL", [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0.5, 0.5, 1)]),
              ("HEX", warped), ("HEX", dent)]
    table, geo = _shape_table(api, shapes)
    assert [_own_state(table, geo, c) for c in range(4)] == [1, 1, 2, 2]


@pytest.mark.parametrize("sink", [0.0, 0.5 * EPS, 1e-4, 1e-2])
def test_own_faces_start_matches_the_qhull_path(api, sink):
    """HEX boxes (slightly rotated, stacked `sink` deep, side by side within eps), square
    pyramids on them and warped HEX boxes: the kernel (own faces; the box where a is warped
    or has a swollen plane) against the Qhull path at the tolerances of the module
    docstring. Both starts are checked to occur: some pairs have a plane of a within eps of
    the GJK point, some not.
    (Side planes tilted 1e-6 rad apart: the sliver faces between nearly coincident planes
    amplify rounding by about 1 / angle, so at 1e-8 rad both this kernel and main's
    differ from Qhull's area by 1.3e-9, beyond the 1e-9 of the comparison.)"""
    from solfec_py.contact.gjk import gjk_pairs

    rng = np.random.default_rng(int(sink * 1e6) + 3)
    shapes = []
    for col in range(3):
        for lev in range(3):
            lo = np.array([1.0 * col + 0.5 * EPS * col, 0.0, lev * (1.0 - sink)])
            box = _hex(lo, lo + 1.0)
            c = lo + 0.5
            if col < 2:                                   # tilted by 1e-3 and 1e-6 rad (near-coincident sides)
                t = (1e-3 if col == 0 else 1e-6) * rng.normal(size=3)
                R = np.array([[1, -t[2], t[1]], [t[2], 1, -t[0]], [-t[1], t[0], 1]])
                box = (box - c) @ np.linalg.qr(R)[0].T * np.sign(np.linalg.qr(R)[0][0, 0]) + c
            if col == 2 and lev == 1:
                box[6, 2] += 1e-3                         # warped top face
            shapes.append(("HEX", box))
    top = np.array([0.0, 0.0, 3 * (1.0 - sink)])
    shapes.append(("HULL", [top, top + (1, 0, 0), top + (1, 1, 0), top + (0, 1, 0), top + (0.5, 0.5, 1 - sink)]))
    table, geo = _shape_table(api, shapes)
    ca = [0, 1, 3, 4, 6, 7, 0, 1, 2, 3, 4, 5, 9, 2]
    cb = [1, 2, 4, 5, 7, 8, 3, 4, 5, 6, 7, 8, 2, 9]
    ca, cb = np.array(ca), np.array(cb)
    assert _compare(table, geo, ca, cb, exact_normal=False) >= 12
    P_, _, D = gjk_pairs(ca, cb, table.c_vstart, geo.v_cur)
    swollen = [((geo.f_offset[table.c_fstart[a]:table.c_fstart[a + 1]]
                 - geo.f_normal[table.c_fstart[a]:table.c_fstart[a + 1]] @ P_[i]) < EPS).any()
               for i, a in enumerate(ca) if D[i] <= EPS]
    assert any(swollen) and not all(swollen)
