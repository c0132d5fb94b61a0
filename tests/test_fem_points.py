"""Point kernels: numba shape functions, inverse map, location, interpolation, stress."""
from __future__ import annotations

import numpy as np
import pytest
from fem_meshes import block, random_inside, single
from stress_reference import solfec_fe_stress

from solfec_py.fem.elements import ELEMENTS
from solfec_py.fem.laws import SVK
from solfec_py.fem.points import (fill_point, interpolate, inverse_map, locate, nodal_average, nodal_stress,
                                  stress_at_points)

NAMES = sorted(ELEMENTS)
MAT = (1.0e6, 0.3, 1000.0)


@pytest.mark.parametrize("name", NAMES)
def test_compiled_shape_functions_equal_numpy_ones(name):
    el = ELEMENTS[name]
    xi = random_inside(el, n=5, seed=2)
    N, dN = np.empty(el.nnodes), np.empty((el.nnodes, 3))
    for p in xi:
        fill_point(el.code, p[0], p[1], p[2], N, dN)
        np.testing.assert_allclose(N, el.shape(p[None])[0], rtol=0, atol=1e-15)
        np.testing.assert_allclose(dN, el.dshape(p[None])[0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_inverse_map_round_trip(name):
    el = ELEMENTS[name]
    X, conn = single(name, seed=4)
    xi = random_inside(el, n=25, seed=6, margin=0.01)
    pts = el.shape(xi) @ X
    back, it = inverse_map(el, X, conn, np.zeros(25, int), pts)
    assert np.all((it > 0) & (it <= 64))
    # Newton stops at |dxi| < 1e-9 and converges quadratically: the last step is ~1e-18
    np.testing.assert_allclose(back, xi, atol=1e-12)
    # points outside are clamped into the reference box
    far = el.shape(el.centroid()[None]) @ X + 10.0 * (X.max(axis=0) - X.min(axis=0))
    out, it = inverse_map(el, X, conn, [0], far)
    assert np.all(out >= el.box[0]) and np.all(out <= el.box[1])


@pytest.mark.parametrize("name", NAMES)
def test_locate_points_in_a_distorted_mesh(name):
    el = ELEMENTS[name]
    X, conn, _ = block(name, m=2, seed=3)
    rng = np.random.default_rng(1)
    elems = rng.integers(0, conn.shape[0], 12)
    xi = random_inside(el, n=12, seed=8, margin=0.05)
    pts = np.einsum("kn,kni->ki", el.shape(xi), X[conn[elems]])
    found, fxi, dist = locate(el, X, conn, pts)
    assert np.all(dist == 0.0) and np.all(found >= 0)
    # the element found maps its reference point back onto the point
    np.testing.assert_allclose(np.einsum("kn,kni->ki", el.shape(fxi), X[conn[found]]), pts, atol=1e-12)
    # outside the block: nearest candidate at a positive distance, or no candidate at all
    found, _, dist = locate(el, X, conn, [[1.02, 0.5, 0.5], [5.0, 5.0, 5.0]])
    assert dist[0] > 0 and found[1] == -1 and dist[1] == np.inf


def test_interpolation_of_nodal_values():
    el = ELEMENTS["wedge"]
    X, conn, _ = block("wedge", m=2, seed=5)
    values = X @ np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]]).T                 # linear in X
    xi = random_inside(el, n=6, seed=3)
    elems = np.arange(6)
    pts = interpolate(el, conn, elems, xi, X)
    np.testing.assert_allclose(interpolate(el, conn, elems, xi, values),
                               pts @ np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]]).T, atol=1e-13)


@pytest.mark.parametrize("name", ["hexahedron", "pyramid", "tetra10"])
def test_stress_of_a_homogeneous_deformation_is_exact(name):
    el = ELEMENTS[name]
    X, conn, _ = block(name, m=2, seed=7)
    mat = np.tile(MAT, (conn.shape[0], 1))
    F = np.array([[1.2, 0.1, 0.0], [-0.05, 0.9, 0.2], [0.0, 0.1, 1.1]])
    q = X @ (F - np.eye(3)).T
    exact = solfec_fe_stress(F, MAT[0], MAT[1])     # Solfec's F P / det F (fem.c), F not symmetric
    rng = np.random.default_rng(2)
    xi = random_inside(el, n=5, seed=4)
    Fp, sig = stress_at_points(el, X, q, conn, mat, rng.integers(0, conn.shape[0], 5), xi)
    np.testing.assert_allclose(Fp, np.broadcast_to(F, Fp.shape), atol=1e-13)
    np.testing.assert_allclose(sig, np.broadcast_to(exact, sig.shape), rtol=1e-12, atol=1e-12 * MAT[0])
    acc, count = np.zeros((X.shape[0], 7)), np.zeros(X.shape[0])
    nodal_stress(el, X, q, conn, mat, acc, count)
    np.testing.assert_allclose(nodal_average(acc, count), np.broadcast_to(exact, acc.shape), rtol=1e-11,
                               atol=1e-11 * MAT[0])


def test_nodal_stress_is_the_plain_mean_over_elements():
    # two HEX8 sharing a face, different materials, homogeneous F: a shared node gets the
    # mean of the two element stresses (Solfec's rule), an unshared node its element's value
    el = ELEMENTS["hexahedron"]
    X, conn, _ = block("hexahedron", m=1)
    X = np.vstack([X, X[4:] + [0, 0, 1.0]])
    conn = np.vstack([conn, [[4, 5, 6, 7, 8, 9, 10, 11]]])
    mat = np.array([MAT, (3.0e6, 0.2, 1000.0)])
    F = np.diag([1.1, 1.0, 0.95])
    q = X @ (F - np.eye(3)).T
    acc, count = np.zeros((X.shape[0], 7)), np.zeros(X.shape[0])
    nodal_stress(el, X, q, conn, mat, acc, count)
    avg = nodal_average(acc, count)
    s1, s2 = SVK.cauchy(F, MAT[0], MAT[1]), SVK.cauchy(F, 3.0e6, 0.2)
    np.testing.assert_allclose(avg[0], s1, rtol=1e-12)
    np.testing.assert_allclose(avg[5], 0.5 * (s1 + s2), rtol=1e-12)
    np.testing.assert_allclose(avg[9], s2, rtol=1e-12)
    assert count.tolist() == [1] * 4 + [2] * 4 + [1] * 4
