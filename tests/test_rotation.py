"""Exponential map and its right Jacobian against scipy's Rotation and finite differences;
tolerances are round-off (1e-14) or the O(d^2) finite-difference error."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from solfec_py.geometry.rotation import axis_angle, expmap, right_jacobian, skew


@pytest.mark.parametrize("scale", [3.0, 1.0, 0.1, 1e-3, 1e-9, 0.0])
def test_expmap_matches_scipy(scale):
    w = np.random.default_rng(1).normal(size=(20, 3)) * scale
    R = expmap(w)
    np.testing.assert_allclose(R, Rotation.from_rotvec(w).as_matrix(), atol=2e-15)
    np.testing.assert_allclose(R @ R.transpose(0, 2, 1), np.broadcast_to(np.eye(3), R.shape), atol=1e-14)


@pytest.mark.parametrize("scale", [2.0, 0.1, 1e-4])
def test_right_jacobian_first_order(scale):
    rng = np.random.default_rng(2)
    w = rng.normal(size=3) * scale
    d = rng.normal(size=3) * 1e-6
    lhs = expmap(w + d)
    rhs = expmap(w) @ expmap(right_jacobian(w) @ d)
    assert np.abs(lhs - rhs).max() < 1e-11   # O(|d|^2) = 1e-12 scale


def test_skew_and_axis_angle():
    a, b = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.7, -1.1])
    np.testing.assert_allclose(skew(a) @ b, np.cross(a, b), atol=1e-15)
    R = axis_angle([0, 0, 2.0], 90.0)
    np.testing.assert_allclose(R @ [1, 0, 0], [0, 1, 0], atol=1e-15)
