"""3 x 3 linear algebra on scalars for numba kernels: the solve by the adjugate (Cramer's
rule), kept in registers. Reference: any linear algebra text (A^-1 = adj(A) / det A)."""
from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always", error_model="numpy")
def adjugate_solve3(a00, a01, a02, a10, a11, a12, a20, a21, a22, det, r0, r1, r2):
    """x = adj(A) r / det for the row-major entries of A and its determinant `det` (the
    caller computes det, in the form its guard needs, and checks it is not zero)."""
    c00 = a11 * a22 - a12 * a21
    c01 = a02 * a21 - a01 * a22
    c02 = a01 * a12 - a02 * a11
    c10 = a12 * a20 - a10 * a22
    c11 = a00 * a22 - a02 * a20
    c12 = a02 * a10 - a00 * a12
    c20 = a10 * a21 - a11 * a20
    c21 = a01 * a20 - a00 * a21
    c22 = a00 * a11 - a01 * a10
    return ((c00 * r0 + c01 * r1 + c02 * r2) / det, (c10 * r0 + c11 * r1 + c12 * r2) / det,
            (c20 * r0 + c21 * r1 + c22 * r2) / det)
