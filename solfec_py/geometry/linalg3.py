"""3 x 3 linear algebra on scalars for numba kernels, kept in registers: the solve by the
adjugate (Cramer's rule), the solve and inverse by Gaussian elimination with partial pivoting and the
extreme eigenvalues of a symmetric matrix in closed form. References: Golub & Van Loan,
Matrix Computations (A^-1 = adj(A) / det A; LU with partial pivoting); Smith, Commun. ACM
4 (1961) 168 and Eberly, Geometric Tools (2014) for the eigenvalues."""
from __future__ import annotations

import math

from solfec_py.compilation import njit


@njit(inline="always")
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


@njit
def solve3s(a00, a01, a02, a10, a11, a12, a20, a21, a22, x0, x1, x2):
    """Solve A y = x for the 3x3 A given by its entries (row by row) by Gaussian elimination
    with partial pivoting, on scalars (no arrays, so no reference counting in the sweep);
    returns (ok, y0, y1, y2), ok False when A is singular or y is not finite."""
    # column 0: pivot row p (the first of the largest |a_r0|), swap it into row 0
    big = abs(a00)
    p = 0
    if abs(a10) > big:
        big, p = abs(a10), 1
    if abs(a20) > big:
        big, p = abs(a20), 2
    if big == 0.0 or not math.isfinite(big):
        return False, x0, x1, x2
    if p == 1:
        a00, a01, a02, a10, a11, a12, x0, x1 = a10, a11, a12, a00, a01, a02, x1, x0
    elif p == 2:
        a00, a01, a02, a20, a21, a22, x0, x2 = a20, a21, a22, a00, a01, a02, x2, x0
    f = a10 / a00
    a11 -= f * a01
    a12 -= f * a02
    x1 -= f * x0
    f = a20 / a00
    a21 -= f * a01
    a22 -= f * a02
    x2 -= f * x0
    # column 1
    big = abs(a11)
    if abs(a21) > big:
        big = abs(a21)
        a11, a12, a21, a22, x1, x2 = a21, a22, a11, a12, x2, x1
    if big == 0.0 or not math.isfinite(big):
        return False, x0, x1, x2
    f = a21 / a11
    a22 -= f * a12
    x2 -= f * x1
    # column 2
    big = abs(a22)
    if big == 0.0 or not math.isfinite(big):
        return False, x0, x1, x2
    x2 = x2 / a22
    x1 = (x1 - a12 * x2) / a11
    x0 = (x0 - a01 * x1 - a02 * x2) / a00
    return math.isfinite(x0 + x1 + x2), x0, x1, x2


_TWO_THIRDS_PI = 2.0 * math.pi / 3.0


@njit(inline="always")
def symmetric3_extremes(a00, a01, a02, a11, a12, a22):
    """(lambda_min, lambda_max) of the symmetric 3 x 3 matrix with the given upper entries,
    each within a few eps * ||A|| of the exact value (the accuracy of LAPACK's ?syev), NaN
    if an entry is not finite. A matrix without off-diagonal entries gives its diagonal
    exactly. Otherwise, on A scaled by a power of two (exact) to entries below 1 in
    magnitude: the deviation C = (A - q I) / p, q = tr A / 3, p^2 = tr (A - q I)^2 / 6,
    has eigenvalues 2 cos(phi + 2 pi k / 3), phi = acos(det C / 2) / 3 (the trigonometric
    form of Cardano's formula; Smith, Commun. ACM 4 (1961) 168). acos loses half the digits
    of the two eigenvalues of a nearly repeated pair (det C / 2 near +-1), but never of the
    isolated third one (the largest when det C >= 0, else the smallest). So only that one is
    taken from the formula; the other extreme comes from the pair, the eigenvalues of the
    2 x 2 restriction of C to the plane orthogonal to the isolated eigenvector (the cross
    product of two rows of C - beta I, the largest of the three), by the 2 x 2 formula whose
    discriminant is a sum of squares (Eberly, 'A robust eigensolver for 3 x 3 symmetric
    matrices', Geometric Tools, 2014)."""
    if a01 == 0.0 and a02 == 0.0 and a12 == 0.0:
        return min(a00, a11, a22), max(a00, a11, a22)
    big = max(abs(a00), abs(a01), abs(a02), abs(a11), abs(a12), abs(a22))
    if not big < math.inf:
        return math.nan, math.nan
    e = math.frexp(big)[1]
    s = math.ldexp(1.0, -e)                # exact scaling: entries below 1 in magnitude
    a00, a01, a02, a11, a12, a22 = a00 * s, a01 * s, a02 * s, a11 * s, a12 * s, a22 * s
    q = (a00 + a11 + a22) / 3.0
    b00, b11, b22 = a00 - q, a11 - q, a22 - q
    p2 = (b00 * b00 + b11 * b11 + b22 * b22 + 2.0 * (a01 * a01 + a02 * a02 + a12 * a12)) / 6.0
    if p2 == 0.0:                          # q I to the precision of the scaled entries
        lo = hi = q
    else:
        p = math.sqrt(p2)
        ip = 1.0 / p
        c00, c11, c22, c01, c02, c12 = b00 * ip, b11 * ip, b22 * ip, a01 * ip, a02 * ip, a12 * ip
        r = 0.5 * (c00 * (c11 * c22 - c12 * c12) - c01 * (c01 * c22 - c12 * c02)
                   + c02 * (c01 * c12 - c11 * c02))
        r = min(max(r, -1.0), 1.0)
        phi = math.acos(r) / 3.0
        top = r >= 0.0                     # the largest eigenvalue is the isolated one
        beta = 2.0 * math.cos(phi) if top else 2.0 * math.cos(phi + _TWO_THIRDS_PI)
        # eigenvector of beta: the largest cross product of two rows of C - beta I
        r00, r11, r22 = c00 - beta, c11 - beta, c22 - beta
        x0, x1, x2 = c01 * c12 - c02 * r11, c02 * c01 - r00 * c12, r00 * r11 - c01 * c01
        y0, y1, y2 = c01 * r22 - c02 * c12, c02 * c02 - r00 * r22, r00 * c12 - c01 * c02
        z0, z1, z2 = r11 * r22 - c12 * c12, c12 * c02 - c01 * r22, c01 * c12 - r11 * c02
        dx, dy, dz = x0 * x0 + x1 * x1 + x2 * x2, y0 * y0 + y1 * y1 + y2 * y2, z0 * z0 + z1 * z1 + z2 * z2
        if dy > dx and dy >= dz:
            x0, x1, x2, dx = y0, y1, y2, dy
        elif dz > dx:
            x0, x1, x2, dx = z0, z1, z2, dz
        if dx > 0.0:
            iv = 1.0 / math.sqrt(dx)
            v0, v1, v2 = x0 * iv, x1 * iv, x2 * iv
            if abs(v0) > abs(v1):          # u: a unit vector orthogonal to v, w = v x u
                iu = 1.0 / math.sqrt(v0 * v0 + v2 * v2)
                u0, u1, u2 = -v2 * iu, 0.0, v0 * iu
            else:
                iu = 1.0 / math.sqrt(v1 * v1 + v2 * v2)
                u0, u1, u2 = 0.0, v2 * iu, -v1 * iu
            w0, w1, w2 = v1 * u2 - v2 * u1, v2 * u0 - v0 * u2, v0 * u1 - v1 * u0
            cu0 = c00 * u0 + c01 * u1 + c02 * u2
            cu1 = c01 * u0 + c11 * u1 + c12 * u2
            cu2 = c02 * u0 + c12 * u1 + c22 * u2
            cw0 = c00 * w0 + c01 * w1 + c02 * w2
            cw1 = c01 * w0 + c11 * w1 + c12 * w2
            cw2 = c02 * w0 + c12 * w1 + c22 * w2
            m00 = u0 * cu0 + u1 * cu1 + u2 * cu2
            m01 = w0 * cu0 + w1 * cu1 + w2 * cu2
            m11 = w0 * cw0 + w1 * cw1 + w2 * cw2
            half = 0.5 * (m00 - m11)
            rad = math.sqrt(half * half + m01 * m01)
            other = 0.5 * (m00 + m11) + (-rad if top else rad)
        else:                              # not reached in exact arithmetic (beta is simple)
            other = 2.0 * math.cos(phi + _TWO_THIRDS_PI) if top else 2.0 * math.cos(phi)
        lo, hi = (q + p * other, q + p * beta) if top else (q + p * beta, q + p * other)
    t = math.ldexp(1.0, e)
    return lo * t, hi * t


@njit(inline="always")
def lu_inverse3(a00, a01, a02, a10, a11, a12, a20, a21, a22):
    """(ok, the 9 row-major entries of A^-1): the columns solve A x = e_j by `solve3s`,
    Gaussian elimination with partial pivoting
    (the factorisation LAPACK's ?gesv makes, backward stable: A X - I within a few eps
    cond(A)); ok False when a pivot is zero or an entry not finite. The adjugate / det form
    is not used: its determinant carries the cofactors' rounding, eps ||A||^2, which for a
    block with two small singular values is eps cond^2 of the inverse."""
    ok0, x00, x10, x20 = solve3s(a00, a01, a02, a10, a11, a12, a20, a21, a22, 1.0, 0.0, 0.0)
    ok1, x01, x11, x21 = solve3s(a00, a01, a02, a10, a11, a12, a20, a21, a22, 0.0, 1.0, 0.0)
    ok2, x02, x12, x22 = solve3s(a00, a01, a02, a10, a11, a12, a20, a21, a22, 0.0, 0.0, 1.0)
    return ok0 and ok1 and ok2, x00, x01, x02, x10, x11, x12, x20, x21, x22
