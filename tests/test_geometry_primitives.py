"""Convex, Sphere, Ellip and hull primitives: transformations (both configurations), rigid
placement, bounding boxes, containment and surface tessellations, against hand-worked
values and identities (Solfec-1.0 user manual, geometric objects, SCALE, CONSTRAINT).

Tolerances: 1e-14..1e-12 for exact operations on O(1) numbers (round-off only); the
tessellation of spheres is checked against its own construction bounds (points on the
surface to 1e-12, enclosed volume between the balls inscribed in and circumscribing the
polyhedron).
"""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.geometry.convex import Convex, fan_triangles
from solfec_py.geometry.ellip import Ellip
from solfec_py.geometry.hull import convex_hull
from solfec_py.geometry.massprops import polyhedral_integrals
from solfec_py.geometry.rotation import axis_angle, expmap
from solfec_py.geometry.sphere import Sphere, unit_sphere

UNIT = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
HEX_FACES = [(0, 3, 2, 1), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (0, 4, 7, 3), (4, 5, 6, 7)]


def cube():
    return Convex(UNIT, HEX_FACES, [1, 2, 3, 4, 5, 6], 3)


def closed_and_consistent(tri):
    """Every directed edge appears once and its reverse once: a closed oriented surface."""
    e = np.vstack([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
    fwd = set(map(tuple, e.tolist()))
    return len(fwd) == len(e) and fwd == set(map(tuple, e[:, ::-1].tolist()))


def test_fan_triangles():
    tri, owner = fan_triangles([np.array([0, 1, 2, 3, 4]), np.array([5, 6, 7])])
    np.testing.assert_array_equal(tri, [[0, 1, 2], [0, 2, 3], [0, 3, 4], [5, 6, 7]])
    np.testing.assert_array_equal(owner, [0, 0, 0, 1])


def test_convex_transform_scale_and_rigid_motion():
    c = cube()
    R = axis_angle([0, 0, 1], 90.0)
    c.transform(R, [1.0, 0.0, 0.0])                 # x -> R x + b on both configurations
    np.testing.assert_allclose(c.ref, UNIT @ R.T + [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(c.cur, c.ref, atol=0)
    c.scale([2.0, 3.0, 4.0])
    np.testing.assert_allclose(c.ref, (UNIT @ R.T + [1, 0, 0]) * [2, 3, 4], atol=1e-15)
    ref = c.ref.copy()
    Q = expmap(np.array([0.1, 0.2, 0.3]))
    c.set_rigid_motion(Q, [5.0, 6.0, 7.0], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(c.cur, [5, 6, 7] + (ref - 1.0) @ Q.T, atol=1e-14)
    np.testing.assert_allclose(c.ref, ref, atol=0)   # the reference does not move
    lo, hi = c.bounding_box()
    np.testing.assert_allclose(lo, c.cur.min(axis=0))
    np.testing.assert_allclose(hi, c.cur.max(axis=0))


def test_convex_copy_is_independent():
    a = cube()
    b = a.copy()
    b.transform(np.eye(3), [1, 1, 1])
    b.surfids[0] = 99
    np.testing.assert_allclose(a.ref, UNIT)
    assert a.surfids[0] == 1


def test_convex_surface_and_contains():
    c = cube()
    pts, tri, sids = c.surface_triangles()
    assert tri.shape == (12, 3) and closed_and_consistent(tri)
    np.testing.assert_array_equal(np.sort(sids), np.repeat([1, 2, 3, 4, 5, 6], 2))
    assert polyhedral_integrals(pts[tri], np.zeros(3))[0] == pytest.approx(1.0, rel=1e-14)
    assert c.contains([0.5, 0.5, 0.5]) and c.contains([1.0, 0.5, 0.5])
    assert c.contains([1.0 + 1e-9, 0.5, 0.5])          # within GEOMETRIC_EPSILON (1e-6) * size
    assert not c.contains([1.001, 0.5, 0.5])
    # containment is tested in the reference configuration
    c.set_rigid_motion(np.eye(3), [10, 10, 10], [0, 0, 0])
    assert c.contains([0.5, 0.5, 0.5]) and not c.contains([10.5, 10.5, 10.5])


def test_unit_sphere_tessellation():
    p, tri = unit_sphere()
    assert p.shape == (162, 3) and tri.shape == (320, 3)
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-12)
    assert closed_and_consistent(tri)
    vol = polyhedral_integrals(p[tri], np.zeros(3))[0]
    # an inscribed convex polyhedron lies inside the unit ball and contains the ball of
    # radius h = min distance from the origin to a face plane
    a, b, c = p[tri[:, 0]], p[tri[:, 1]], p[tri[:, 2]]
    n = np.cross(b - a, c - a)
    h = np.min(np.einsum("ki,ki->k", n, a) / np.linalg.norm(n, axis=1))
    assert 4 / 3 * np.pi * h ** 3 < vol < 4 / 3 * np.pi


def test_sphere_motion_scale_quirk_and_contains():
    s = Sphere((1.0, 2.0, 3.0), 0.5, 1, 7)
    R = axis_angle([0, 0, 1], 90.0)
    s.transform(R, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(s.ref_center, [-2.0, 1.0, 4.0], atol=1e-14)
    s.scale([3.0, 10.0, 10.0])                            # radius *= cx, centre kept (Solfec's SCALE)
    assert s.radius == 1.5
    np.testing.assert_allclose(s.cur_center, [-2.0, 1.0, 4.0], atol=1e-14)
    s.set_rigid_motion(R, [0.0, 0.0, 0.0], [-2.0, 1.0, 4.0])
    np.testing.assert_allclose(s.cur_center, 0.0, atol=1e-14)
    lo, hi = s.bounding_box()
    np.testing.assert_allclose(hi - lo, 3.0)
    assert s.contains([-2.0, 1.0, 5.5]) and not s.contains([-2.0, 1.0, 5.6])
    pts, tri, sids = s.surface_triangles()
    np.testing.assert_allclose(np.linalg.norm(pts, axis=1), 1.5, atol=1e-12)
    assert set(sids.tolist()) == {7}


def test_ellipsoid_motion_bounding_box_and_contains():
    e = Ellip((0, 0, 0), (3.0, 2.0, 1.0), 1, 2)
    R = axis_angle([0, 0, 1], 90.0)                        # x axis -> y axis
    e.set_rigid_motion(R, [1.0, 1.0, 1.0], [0, 0, 0])
    np.testing.assert_allclose(e.rot, R, atol=1e-15)        # principal axes follow R
    np.testing.assert_allclose(e.ref_rot, np.eye(3))
    lo, hi = e.bounding_box()
    np.testing.assert_allclose(lo, [1 - 2.0, 1 - 3.0, 0.0], atol=1e-14)
    np.testing.assert_allclose(hi, [1 + 2.0, 1 + 3.0, 2.0], atol=1e-14)
    pts, _, _ = e.surface_triangles()
    assert np.all(pts >= lo - 1e-12) and np.all(pts <= hi + 1e-12)
    assert e.contains([2.99, 0, 0]) and not e.contains([0, 2.01, 0])
    # a generic rotation: bounding box half-extents sqrt(sum_j (R_ij r_j)^2) bound the points
    f = Ellip((0, 0, 0), (3.0, 2.0, 1.0), 1, 2)
    f.transform(expmap(np.array([0.4, -0.3, 0.8])), [0, 0, 0])
    lo, hi = f.bounding_box()
    pts, _, _ = f.surface_triangles()
    assert np.all(np.abs(pts) <= hi + 1e-12)
    assert np.all(pts.max(axis=0) > 0.95 * hi)             # the tessellation nearly reaches it


def test_ellipsoid_scale_and_copy():
    e = Ellip((1, 1, 1), (1, 2, 3), 1, 2)
    f = e.copy()
    e.scale([2, 3, 4])
    np.testing.assert_allclose(e.ref_center, [2, 3, 4])
    np.testing.assert_allclose(e.radii, [2, 6, 12])
    np.testing.assert_allclose(f.radii, [1, 2, 3])


def test_hull_faces_outward_and_planar():
    rng = np.random.default_rng(7)
    pts = rng.normal(size=(60, 3))
    hull = convex_hull(pts, 2, 5)
    _, tri, _ = hull.surface_triangles()
    assert closed_and_consistent(tri)
    assert polyhedral_integrals(hull.ref[tri], hull.ref.mean(axis=0))[0] > 0
    # every input point is inside the hull
    assert all(hull.contains(p) for p in pts)
    assert hull.volid == 2 and set(hull.surfids.tolist()) == {5}


def test_hull_of_degenerate_points_raises():
    from solfec_py.geometry import GeometryError

    with pytest.raises(GeometryError, match="Failed to create convex hull"):
        convex_hull(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float), 1, 1)
    assert issubclass(GeometryError, RuntimeError)
