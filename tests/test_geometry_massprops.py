"""Mass properties (docs/integrators.md) against closed forms: boxes (CONVEX, graded HEX meshes,
moved boxes), a pyramid frustum, tetrahedra, spheres, ellipsoids and hulls.

Tolerances: 1e-12 (relative to the magnitudes involved) where the shape is represented
exactly by planar faces, since only round-off of a few hundred triangle contributions
enters; sphere/ellipsoid closed forms are exact formulas (1e-12 as well).
"""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.geometry.convex import Convex
from solfec_py.geometry.ellip import Ellip
from solfec_py.geometry.hexgen import hex_mesh
from solfec_py.geometry.hull import convex_hull
from solfec_py.geometry.massprops import inertia_from_euler, mass_properties
from solfec_py.geometry.rotation import expmap
from solfec_py.geometry.sphere import Sphere

UNIT = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
HEX_FACES = [(0, 3, 2, 1), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (0, 4, 7, 3), (4, 5, 6, 7)]


def box_reference(a, b, c, lo=(0, 0, 0)):
    """Volume, centre and Euler tensor of the box [lo, lo + (a, b, c)]: E = V diag(a^2, b^2, c^2)/12."""
    V = a * b * c
    return V, np.asarray(lo, float) + 0.5 * np.array([a, b, c]), V / 12.0 * np.diag([a * a, b * b, c * c])


def check(props, ref, tol=1e-12):
    V, c, E = props
    V0, c0, E0 = ref
    scale = max(abs(V0), 1.0)
    assert V == pytest.approx(V0, rel=tol)
    np.testing.assert_allclose(c, c0, rtol=0, atol=tol * max(1.0, np.abs(c0).max()))
    np.testing.assert_allclose(E, E0, rtol=0, atol=tol * max(np.abs(E0).max(), scale))


def test_unit_cube_convex():
    check(mass_properties([Convex(UNIT, HEX_FACES, np.arange(6), 1)]), box_reference(1, 1, 1))


@pytest.mark.parametrize("i, j, k", [(1, 1, 1), (2, 3, 4), (5, 1, 3)])
def test_hex_mesh_box(i, j, k):
    a, b, c = 2.0, 0.5, 3.0
    corners = UNIT * [a, b, c] + [1.0, -2.0, 0.5]
    mesh = hex_mesh(corners, i, j, k, 1, range(6))
    check(mass_properties([mesh]), box_reference(a, b, c, lo=(1.0, -2.0, 0.5)))


def test_graded_hex_mesh_box():
    # grading moves interior nodes but the union of the elements is still the box
    corners = UNIT * [4.0, 1.0, 2.0]
    mesh = hex_mesh(corners, 3, 2, 4, 1, range(6), dx=[1, 5, 2], dy=[3, 1], dz=[1, 1, 5, 5])
    check(mass_properties([mesh]), box_reference(4.0, 1.0, 2.0))


def test_hex_mesh_of_frustum():
    # square frustum: bottom side 2, top side 1, height h. Constant-u/v/w surfaces of the
    # trilinear map are planes here, so the element polyhedra tile it exactly:
    # V = h/3 (A1 + A2 + sqrt(A1 A2)) = 7h/3, centroid z = h (A1 + 2 sqrt(A1 A2) + 3 A2) / (4 (A1 + sqrt(A1 A2) + A2)) = 11h/28
    h = 1.5
    bottom = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], float)
    top = np.array([[-0.5, -0.5, h], [0.5, -0.5, h], [0.5, 0.5, h], [-0.5, 0.5, h]])
    mesh = hex_mesh(np.vstack([bottom, top]), 3, 3, 4, 1, range(6), dz=[1, 2, 3, 4])
    V, c, E = mass_properties([mesh])
    assert V == pytest.approx(7 * h / 3, rel=1e-12)
    np.testing.assert_allclose(c, [0, 0, 11 * h / 28], atol=1e-12)
    # symmetry of the frustum: E is diagonal with E_xx = E_yy
    assert E[0, 0] == pytest.approx(E[1, 1], rel=1e-12)
    np.testing.assert_allclose(E - np.diag(np.diag(E)), 0, atol=1e-12)


def test_moved_box_inertia_transforms():
    # rotating by R about a point and translating: centre -> R (c - p) + p + t, E -> R E R^T
    a, b, c = 0.4, 0.2, 0.1
    cvx = Convex(UNIT * [a, b, c], HEX_FACES, np.arange(6), 1)
    mesh = hex_mesh(UNIT * [a, b, c], 2, 3, 2, 1, range(6))
    R = expmap(np.array([0.3, -1.1, 0.7]))
    p, t = np.array([0.3, 0.1, -0.2]), np.array([10.0, -20.0, 5.0])
    V0, c0, E0 = box_reference(a, b, c)
    for prim in (cvx, mesh):
        prim.transform(R, p - R @ p)
        prim.transform(np.eye(3), t)
        check(mass_properties([prim]), (V0, R @ (c0 - p) + p + t, R @ E0 @ R.T))


def test_two_boxes_combine_with_parallel_axis_rule():
    # two unit cubes side by side = the 2 x 1 x 1 box
    left = Convex(UNIT, HEX_FACES, np.arange(6), 1)
    right = Convex(UNIT + [1, 0, 0], HEX_FACES, np.arange(6), 1)
    check(mass_properties([left, right]), box_reference(2, 1, 1))


def test_sphere_closed_form():
    r, c = 0.7, np.array([1.0, -2.0, 3.0])
    V = 4.0 / 3.0 * np.pi * r ** 3
    check(mass_properties([Sphere(c, r, 1, 1)]), (V, c, V * r * r / 5 * np.eye(3)))


def test_ellipsoid_closed_form_after_rotation():
    radii = np.array([1.0, 2.0, 0.5])
    e = Ellip((0, 0, 0), radii, 1, 1)
    R = expmap(np.array([0.2, 0.4, -0.9]))
    e.transform(R, [1.0, 2.0, 3.0])
    V = 4.0 / 3.0 * np.pi * radii.prod()
    check(mass_properties([e]), (V, np.array([1.0, 2.0, 3.0]), V / 5 * R @ np.diag(radii ** 2) @ R.T))


def test_sphere_and_box_together():
    # volume-weighted centre and parallel-axis sums, written out by hand
    s = Sphere((3.0, 0.0, 0.0), 0.5, 1, 1)
    box = Convex(UNIT, HEX_FACES, np.arange(6), 1)
    Vs, Vb = 4 / 3 * np.pi * 0.125, 1.0
    V = Vs + Vb
    c = (Vs * np.array([3.0, 0, 0]) + Vb * np.array([0.5, 0.5, 0.5])) / V
    ds, db = np.array([3.0, 0, 0]) - c, np.array([0.5, 0.5, 0.5]) - c
    E = Vs * 0.25 / 5 * np.eye(3) + Vs * np.outer(ds, ds) + np.eye(3) / 12 + Vb * np.outer(db, db)
    check(mass_properties([s, box]), (V, c, E))


def test_hull_of_box_corners_with_interior_points():
    rng = np.random.default_rng(1)
    pts = np.vstack([UNIT * [2.0, 3.0, 1.0], rng.uniform(0.1, 0.9, (20, 3)) * [2.0, 3.0, 1.0]])
    hull = convex_hull(pts, 1, 7)
    assert hull.nver == 8 and len(hull.faces) == 6 and all(len(f) == 4 for f in hull.faces)
    assert set(hull.surfids.tolist()) == {7}
    check(mass_properties([hull]), box_reference(2.0, 3.0, 1.0))


def test_hull_of_tetrahedron_against_affine_map_of_unit_tetrahedron():
    # unit tetrahedron (0, e1, e2, e3): V = 1/6, ∫x^2 = 1/60, ∫xy = 1/120 (textbook), so about the
    # centroid (1/4,1/4,1/4): E_ii = 1/60 - V/16 = 1/160, E_ij = 1/120 - V/16 = -1/480.
    # Under x = A X + b: V -> |det A| V, c -> A c + b, E -> |det A| A E A^T.
    E_unit = np.full((3, 3), -1.0 / 480) + np.eye(3) * (1.0 / 160 + 1.0 / 480)
    A = np.array([[2.0, 0.3, -0.1], [0.2, 1.5, 0.4], [-0.3, 0.1, 0.8]])
    b = np.array([5.0, -1.0, 2.0])
    verts = np.vstack([np.zeros(3), np.eye(3)]) @ A.T + b
    hull = convex_hull(verts, 1, 1)
    assert len(hull.faces) == 4
    d = abs(np.linalg.det(A))
    check(mass_properties([hull]), (d / 6, A @ np.full(3, 0.25) + b, d * A @ E_unit @ A.T))


def test_current_configuration_option():
    cvx = Convex(UNIT, HEX_FACES, np.arange(6), 1)
    R = expmap(np.array([0.0, 0.0, np.pi / 2]))
    cvx.set_rigid_motion(R, [5.0, 5.0, 5.0], [0.5, 0.5, 0.5])
    V, c, E = mass_properties([cvx], "cur")
    np.testing.assert_allclose(c, [5, 5, 5], atol=1e-12)
    check(mass_properties([cvx], "ref"), box_reference(1, 1, 1))


def test_inertia_from_euler():
    # box a x b x c, density rho: J = rho V / 12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2)
    a, b, c, rho = 0.4, 0.2, 0.1, 1000.0
    _, _, E = box_reference(a, b, c)
    J = inertia_from_euler(E, rho)
    np.testing.assert_allclose(J, rho * a * b * c / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b]),
                               rtol=1e-14, atol=0)
    # stacked input
    assert inertia_from_euler(np.stack([E, 2 * E]), rho).shape == (2, 3, 3)
