"""Rotations on stacks of vectors (layer 1): skew matrices, the exponential map and its
right Jacobian, axis-angle rotation. Reference: NUMERICS §1.4 (Solfec alg.h EXPMAP).

All functions take arrays of shape (..., 3) and return (..., 3, 3) so that every rigid
body of a domain is handled in one call. Small angles use Taylor series of the
coefficients (as Solfec does below 10 degrees) so there is no 0/0.
"""
from __future__ import annotations

import numpy as np

_SMALL = np.deg2rad(10.0) ** 2  # theta^2 below which Taylor series are used


def skew(w: np.ndarray) -> np.ndarray:
    """[w]x with [w]x @ b == cross(w, b); w of shape (..., 3)."""
    w = np.asarray(w, dtype=float)
    out = np.zeros(w.shape[:-1] + (3, 3))
    out[..., 0, 1] = -w[..., 2]
    out[..., 0, 2] = w[..., 1]
    out[..., 1, 0] = w[..., 2]
    out[..., 1, 2] = -w[..., 0]
    out[..., 2, 0] = -w[..., 1]
    out[..., 2, 1] = w[..., 0]
    return out


def _coefficients(t2: np.ndarray):
    """sin(t)/t, (1-cos t)/t^2 and (t - sin t)/t^3 for t^2 = t2, stable at t = 0."""
    t2 = np.asarray(t2, dtype=float)
    small = t2 < _SMALL
    safe = np.where(small, 1.0, t2)
    t = np.sqrt(safe)
    a_big = np.sin(t) / t
    b_big = (1.0 - np.cos(t)) / safe
    c_big = (t - np.sin(t)) / (safe * t)
    # Taylor series to 7 terms: converge to round-off for t < 10 degrees
    a_s = np.zeros_like(t2)
    b_s = np.zeros_like(t2)
    c_s = np.zeros_like(t2)
    term_a, term_b, term_c = np.ones_like(t2), np.full_like(t2, 0.5), np.full_like(t2, 1.0 / 6.0)
    for k in range(7):
        a_s += term_a
        b_s += term_b
        c_s += term_c
        term_a = -term_a * t2 / ((2 * k + 2) * (2 * k + 3))
        term_b = -term_b * t2 / ((2 * k + 3) * (2 * k + 4))
        term_c = -term_c * t2 / ((2 * k + 4) * (2 * k + 5))
    return (np.where(small, a_s, a_big), np.where(small, b_s, b_big), np.where(small, c_s, c_big))


def expmap(w: np.ndarray) -> np.ndarray:
    """Rodrigues' formula exp[w] = I + sin(t)/t [w] + (1-cos t)/t^2 [w]^2, t = |w|."""
    w = np.asarray(w, dtype=float)
    t2 = np.einsum("...i,...i->...", w, w)
    a, b, _ = _coefficients(t2)
    W = skew(w)
    return np.eye(3) + a[..., None, None] * W + b[..., None, None] * (W @ W)


def right_jacobian(w: np.ndarray) -> np.ndarray:
    """Jr(w) with exp[w + d] ~= exp[w] exp[Jr(w) d] to first order in d."""
    w = np.asarray(w, dtype=float)
    t2 = np.einsum("...i,...i->...", w, w)
    _, b, c = _coefficients(t2)
    W = skew(w)
    return np.eye(3) - b[..., None, None] * W + c[..., None, None] * (W @ W)


def axis_angle(axis: np.ndarray, degrees: float) -> np.ndarray:
    """Rotation matrix about the (not necessarily unit, non-zero) `axis` by `degrees`."""
    axis = np.asarray(axis, dtype=float)
    n = axis / np.linalg.norm(axis)
    return expmap(n * np.deg2rad(degrees))


def rotation_vector(R: np.ndarray) -> np.ndarray:
    """Inverse of `expmap` for rotation angles below pi (used by tests and exports)."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_matrix(R).as_rotvec()
