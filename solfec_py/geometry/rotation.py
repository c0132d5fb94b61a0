"""Rotations on stacks of vectors (layer 1): skew matrices, the exponential map and its
right Jacobian, axis-angle rotation (numba kernels over rows). Reference: docs/integrators.md (Solfec alg.h EXPMAP).

All functions take arrays of shape (..., 3) and return (..., 3, 3) so that every rigid
body of a domain is handled in one call. Small angles use Taylor series of the
coefficients (as Solfec does below 10 degrees) so there is no 0/0.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit

_SMALL = float(np.deg2rad(10.0) ** 2)  # theta^2 below which Taylor series are used


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


def _series(first: int) -> tuple:
    """Taylor coefficients (-1)^k / (2k + first)! of 7 terms (in t^2)."""
    from math import factorial

    return tuple((-1) ** k / factorial(2 * k + first) for k in range(7))


_A, _B, _C = _series(1), _series(2), _series(3)     # sin t / t, (1 - cos t)/t^2, (t - sin t)/t^3


@njit(inline="always")
def _coefficients_scalar(t2):
    """sin(t)/t, (1-cos t)/t^2, (t - sin t)/t^3 at t^2 = t2; 7-term Taylor below 10 deg
    (Horner's rule)."""
    if t2 < _SMALL:
        a, b, c = _A[6], _B[6], _C[6]
        for k in range(5, -1, -1):
            a = a * t2 + _A[k]
            b = b * t2 + _B[k]
            c = c * t2 + _C[k]
        return a, b, c
    t = np.sqrt(t2)
    s = np.sin(t)
    return s / t, (1.0 - np.cos(t)) / t2, (t - s) / (t2 * t)


@njit
def _expmap_kernel(w, out, which):
    """out[k] = exp[w_k] (which = 0) or Jr(w_k) (which = 1) for rows of w (n, 3)."""
    for k in range(w.shape[0]):
        x, y, z = w[k, 0], w[k, 1], w[k, 2]
        a, b, c = _coefficients_scalar(x * x + y * y + z * z)
        if which == 1:
            a, b = -b, c           # Jr = I - b [w] + c [w]^2
        # [w]^2 = w w^T - |w|^2 I
        n2 = x * x + y * y + z * z
        out[k, 0, 0] = 1.0 + b * (x * x - n2)
        out[k, 1, 1] = 1.0 + b * (y * y - n2)
        out[k, 2, 2] = 1.0 + b * (z * z - n2)
        out[k, 0, 1] = -a * z + b * x * y
        out[k, 1, 0] = a * z + b * x * y
        out[k, 0, 2] = a * y + b * x * z
        out[k, 2, 0] = -a * y + b * x * z
        out[k, 1, 2] = -a * x + b * y * z
        out[k, 2, 1] = a * x + b * y * z


def _apply(w, which):
    w = np.asarray(w, dtype=float)
    flat = np.ascontiguousarray(w.reshape(-1, 3))
    out = np.empty((flat.shape[0], 3, 3))
    _expmap_kernel(flat, out, which)
    return out.reshape(w.shape[:-1] + (3, 3))


def expmap(w: np.ndarray) -> np.ndarray:
    """Rodrigues' formula exp[w] = I + sin(t)/t [w] + (1-cos t)/t^2 [w]^2, t = |w|."""
    return _apply(w, 0)


def right_jacobian(w: np.ndarray) -> np.ndarray:
    """Jr(w) with exp[w + d] ~= exp[w] exp[Jr(w) d] to first order in d."""
    return _apply(w, 1)


def axis_angle(axis: np.ndarray, degrees: float) -> np.ndarray:
    """Rotation matrix about the (not necessarily unit, non-zero) `axis` by `degrees`."""
    axis = np.asarray(axis, dtype=float)
    n = axis / np.linalg.norm(axis)
    return expmap(n * np.deg2rad(degrees))
