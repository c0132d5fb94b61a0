"""Element-group kernels (layer 1, numba): total-Lagrangian reference data, internal force
and energy, tangent stiffness, lumped mass, unit body force, critical time step.
Reference: Solfec-1.0 fem.c (``element_internal_force``, ``element_lump_mass``,
``element_body_force``, ``element_inv_M_K``); felupe's region/field layout (reference
gradients computed once); docs/fem.md.

Array contracts (all float64 / int64, C order). A *group* is every element of one type,
across all bodies, sharing flat node arrays:

* ``X`` (nn, 3) referential node coordinates; ``q`` (nn, 3) nodal displacements (the
  body's ``conf``, 3 per node, is a (n, 3) view of it); force outputs ``f`` (nn, 3) are
  *accumulated* (the caller zeroes them), scalar nodal outputs ``m`` (nn,) likewise.
* ``conn`` (ne, n) global node indices of each element, in the element's node order.
* ``mat`` (ne, 3) material row per element: (young, poisson, density); APPLY_BULKMAT
  writes rows.
* ``dN`` (nq, n, 3), ``N`` (nq, n), ``w`` (nq,) the element's tables at the points of one
  rule (``Element.tables(use)``: "stiffness", "mass" or "load").
* ``dNdX`` (ne, nq, n, 3) referential gradients of the shape functions and ``wJ`` (ne, nq)
  quadrature weight times the referential Jacobian, computed once by
  :func:`reference_data` for the stiffness rule; :func:`jacobian_weights` gives ``wJ``
  for the mass and load rules.

Deformation gradient (TL): F = I + sum_k q_k (x) dNdX_k; element force
f_k = sum_g wJ_g P(F_g) dNdX_k; energy sum_g wJ_g psi(F_g); stiffness block
K_ab = sum_g wJ_g [(dA . S dB) I + lambda (F dA)(F dB)^T + mu (dA . dB) F F^T
+ mu (F dB)(F dA)^T] with dA = dNdX_a (the SVK tangent contracted with the gradients).
Element stiffness matrices are (3n, 3n) with dof 3a + i for node a, direction i.
Kernels that can meet an inverted element return the index (within the group) of the
first one, -1 when all are fine, so the caller can name body and element.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.fem.laws import lame, svk_stress


@njit(inline="always")
def _outer_sum(V, rows, d):
    """Entries (row by row) of sum_k V[rows[k]] (x) d[k] for V (nn, 3), d (n, 3): the
    referential Jacobian for V = X, d = dN; the displacement gradient for V = q, d = dNdX."""
    a00 = a01 = a02 = a10 = a11 = a12 = a20 = a21 = a22 = 0.0
    for k in range(d.shape[0]):
        node = rows[k]
        x0, x1, x2 = V[node, 0], V[node, 1], V[node, 2]
        d0, d1, d2 = d[k, 0], d[k, 1], d[k, 2]
        a00 += x0 * d0
        a01 += x0 * d1
        a02 += x0 * d2
        a10 += x1 * d0
        a11 += x1 * d1
        a12 += x1 * d2
        a20 += x2 * d0
        a21 += x2 * d1
        a22 += x2 * d2
    return a00, a01, a02, a10, a11, a12, a20, a21, a22


@njit(inline="always")
def _gradient(q, rows, d):
    """Entries of F = I + sum_k q_k (x) dNdX_k at one point (row by row)."""
    a00, a01, a02, a10, a11, a12, a20, a21, a22 = _outer_sum(q, rows, d)
    return a00 + 1.0, a01, a02, a10, a11 + 1.0, a12, a20, a21, a22 + 1.0


@njit(inline="always")
def _det(a):
    """Determinant of a 3 x 3 matrix given as a row-by-row 9-tuple."""
    return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6])


@njit
def reference_data(X, conn, dN, w):
    """(dNdX (ne, nq, n, 3), wJ (ne, nq), bad): referential shape gradients and weights;
    ``bad`` is the first element with a non-positive Jacobian at a point, or -1."""
    ne, nq, n = conn.shape[0], dN.shape[0], dN.shape[1]
    dNdX = np.empty((ne, nq, n, 3))
    wJ = np.empty((ne, nq))
    bad = -1
    for e in range(ne):
        for g in range(nq):
            a00, a01, a02, a10, a11, a12, a20, a21, a22 = _outer_sum(X, conn[e], dN[g])
            c00, c01, c02 = a11 * a22 - a12 * a21, a12 * a20 - a10 * a22, a10 * a21 - a11 * a20
            det = a00 * c00 + a01 * c01 + a02 * c02
            wJ[e, g] = w[g] * det
            if det <= 0.0:
                if bad < 0:
                    bad = e
                dNdX[e, g, :, :] = 0.0
                continue
            # dNdX_k = F0^-T dN_k = cof(F0) dN_k / det
            c10, c11, c12 = a02 * a21 - a01 * a22, a00 * a22 - a02 * a20, a01 * a20 - a00 * a21
            c20, c21, c22 = a01 * a12 - a02 * a11, a02 * a10 - a00 * a12, a00 * a11 - a01 * a10
            r = 1.0 / det
            for k in range(n):
                d0, d1, d2 = dN[g, k, 0], dN[g, k, 1], dN[g, k, 2]
                dNdX[e, g, k, 0] = r * (c00 * d0 + c01 * d1 + c02 * d2)
                dNdX[e, g, k, 1] = r * (c10 * d0 + c11 * d1 + c12 * d2)
                dNdX[e, g, k, 2] = r * (c20 * d0 + c21 * d1 + c22 * d2)
    return dNdX, wJ, bad


@njit
def jacobian_weights(X, conn, dN, w):
    """(wJ (ne, nq), bad) for the rule of tables (dN, w), as :func:`reference_data`."""
    ne, nq = conn.shape[0], dN.shape[0]
    wJ = np.empty((ne, nq))
    bad = -1
    for e in range(ne):
        for g in range(nq):
            det = _det(_outer_sum(X, conn[e], dN[g]))
            wJ[e, g] = w[g] * det
            if det <= 0.0 and bad < 0:
                bad = e
    return wJ, bad


@njit(fastmath=True)
def internal_force(q, conn, dNdX, wJ, mat, f, energy):
    """Accumulate the internal forces of the group into ``f`` (nn, 3) and write each
    element's internal energy into ``energy`` (ne,). Returns the first element whose
    det F <= 0 at a quadrature point (inverted), or -1."""
    ne, nq, n = dNdX.shape[0], dNdX.shape[1], dNdX.shape[2]
    fe = np.empty((n, 3))
    bad = -1
    for e in range(ne):
        lam, mu = lame(mat[e, 0], mat[e, 1])
        fe[:, :] = 0.0
        en = 0.0
        for g in range(nq):
            F = _gradient(q, conn[e], dNdX[e, g])
            f00, f01, f02, f10, f11, f12, f20, f21, f22 = F
            if _det(F) <= 0.0 and bad < 0:
                bad = e
            r = svk_stress(f00, f01, f02, f10, f11, f12, f20, f21, f22, lam, mu)
            wg = wJ[e, g]
            en += wg * r[15]
            p00, p01, p02, p10, p11, p12 = wg * r[0], wg * r[1], wg * r[2], wg * r[3], wg * r[4], wg * r[5]
            p20, p21, p22 = wg * r[6], wg * r[7], wg * r[8]
            for k in range(n):
                a0, a1, a2 = dNdX[e, g, k, 0], dNdX[e, g, k, 1], dNdX[e, g, k, 2]
                fe[k, 0] += p00 * a0 + p01 * a1 + p02 * a2
                fe[k, 1] += p10 * a0 + p11 * a1 + p12 * a2
                fe[k, 2] += p20 * a0 + p21 * a1 + p22 * a2
        for k in range(n):
            node = conn[e, k]
            f[node, 0] += fe[k, 0]
            f[node, 1] += fe[k, 1]
            f[node, 2] += fe[k, 2]
        energy[e] = en
    return bad


@njit(fastmath=True)
def _element_stiffness(q, conn, dNdX, wJ, mat, e, Ke, g1):
    """Dense (3n, 3n) tangent of element e into Ke (scratch g1 (n, 3))."""
    nq, n = dNdX.shape[1], dNdX.shape[2]
    lam, mu = lame(mat[e, 0], mat[e, 1])
    Ke[:, :] = 0.0
    F = np.empty((3, 3))
    B = np.empty((3, 3))
    for g in range(nq):
        d = dNdX[e, g]
        F[0, 0], F[0, 1], F[0, 2], F[1, 0], F[1, 1], F[1, 2], F[2, 0], F[2, 1], F[2, 2] = _gradient(q, conn[e], d)
        r = svk_stress(F[0, 0], F[0, 1], F[0, 2], F[1, 0], F[1, 1], F[1, 2], F[2, 0], F[2, 1], F[2, 2], lam, mu)
        s00, s11, s22, s01, s12, s02 = r[9], r[10], r[11], r[12], r[13], r[14]
        for i in range(3):
            for j in range(3):
                B[i, j] = mu * (F[i, 0] * F[j, 0] + F[i, 1] * F[j, 1] + F[i, 2] * F[j, 2])
        for a in range(n):
            for i in range(3):
                g1[a, i] = F[i, 0] * d[a, 0] + F[i, 1] * d[a, 1] + F[i, 2] * d[a, 2]
        wg = wJ[e, g]
        for a in range(n):
            a0, a1, a2 = d[a, 0], d[a, 1], d[a, 2]
            sa0 = s00 * a0 + s01 * a1 + s02 * a2
            sa1 = s01 * a0 + s11 * a1 + s12 * a2
            sa2 = s02 * a0 + s12 * a1 + s22 * a2
            for b in range(a, n):
                b0, b1, b2 = d[b, 0], d[b, 1], d[b, 2]
                geo = sa0 * b0 + sa1 * b1 + sa2 * b2
                dot = a0 * b0 + a1 * b1 + a2 * b2
                for i in range(3):
                    for k in range(3):
                        v = lam * g1[a, i] * g1[b, k] + mu * g1[b, i] * g1[a, k] + dot * B[i, k]
                        if i == k:
                            v += geo
                        Ke[3 * a + i, 3 * b + k] += wg * v
    for a in range(n):                     # the tangent is symmetric: mirror the upper blocks
        for b in range(a + 1, n):
            for i in range(3):
                for k in range(3):
                    Ke[3 * b + k, 3 * a + i] = Ke[3 * a + i, 3 * b + k]


@njit
def stiffness_matrices(q, conn, dNdX, wJ, mat, elems):
    """Dense element tangents (len(elems), 3n, 3n) of the listed elements (COO values:
    see :func:`solfec_py.fem.assembly.coo_pattern`)."""
    n = dNdX.shape[2]
    out = np.empty((elems.size, 3 * n, 3 * n))
    g1 = np.empty((n, 3))
    for m in range(elems.size):
        _element_stiffness(q, conn, dNdX, wJ, mat, elems[m], out[m], g1)
    return out


@njit
def add_stiffness_csr(q, conn, dNdX, wJ, mat, slot, nbptr, scale, data):
    """Accumulate ``scale`` times the group's tangent into CSR ``data`` of a
    :class:`solfec_py.fem.assembly.TangentPattern` (``slot`` (ne, n, n) block positions of
    the group, ``nbptr`` (nn + 1) node-block row pointers)."""
    ne, n = conn.shape[0], conn.shape[1]
    Ke = np.empty((3 * n, 3 * n))
    g1 = np.empty((n, 3))
    for e in range(ne):
        _element_stiffness(q, conn, dNdX, wJ, mat, e, Ke, g1)
        for a in range(n):
            A = conn[e, a]
            deg = nbptr[A + 1] - nbptr[A]
            for b in range(n):
                base = 9 * nbptr[A] + 3 * (slot[e, a, b] - nbptr[A])
                for i in range(3):
                    row = base + 3 * deg * i
                    for k in range(3):
                        data[row + k] += scale * Ke[3 * a + i, 3 * b + k]


@njit
def lumped_mass(conn, N, wJ, mat, hrz, m):
    """Accumulate lumped nodal masses into ``m`` (nn,) with the mass-rule tables ``N``
    (nq, n) and weights ``wJ`` (ne, nq). Row sum (Solfec): m_i = int rho N_i; HRZ
    (``hrz``, quadratic elements): m_i = rho V (int N_i^2) / sum_k (int N_k^2)."""
    ne, nq, n = conn.shape[0], N.shape[0], N.shape[1]
    me = np.empty(n)
    for e in range(ne):
        rho = mat[e, 2]
        me[:] = 0.0
        vol = 0.0
        for g in range(nq):
            vol += wJ[e, g]
            for k in range(n):
                me[k] += wJ[e, g] * (N[g, k] * N[g, k] if hrz else N[g, k])
        scale = rho
        if hrz:
            total = 0.0                  # me.sum(), summed in the same order
            for k in range(n):
                total += me[k]
            scale = rho * vol / total
        for k in range(n):
            m[conn[e, k]] += scale * me[k]


@njit
def unit_body_force(conn, N, wJ, mat, b):
    """Accumulate b_i = int rho N_i dV into ``b`` (nn,); gravity g gives forces b (x) g."""
    ne, nq, n = conn.shape[0], N.shape[0], N.shape[1]
    for e in range(ne):
        for g in range(nq):
            c = mat[e, 2] * wJ[e, g]
            for k in range(n):
                b[conn[e, k]] += c * N[g, k]


@njit
def current_volumes(q, conn, dNdX, wJ):
    """Current volume of every element: sum_g wJ_g det F_g (ne,)."""
    ne, nq = dNdX.shape[0], dNdX.shape[1]
    out = np.zeros(ne)
    for e in range(ne):
        for g in range(nq):
            out[e] += wJ[e, g] * _det(_gradient(q, conn[e], dNdX[e, g]))
    return out


@njit
def critical_steps(q, conn, dNdX, wJ, mat, mass, elems):
    """Critical step 2 / sqrt(lambda_max(diag(M)^-1 K_e)) of each listed element, with
    the nodal masses ``mass`` (nn,) (Solfec passes the body's lumped masses; a lone
    element's own masses give its isolated step). +inf where K_e has no positive mode."""
    n = dNdX.shape[2]
    Ke = np.empty((3 * n, 3 * n))
    g1 = np.empty((n, 3))
    s = np.empty(3 * n)
    out = np.empty(elems.size)
    for m in range(elems.size):
        e = elems[m]
        _element_stiffness(q, conn, dNdX, wJ, mat, e, Ke, g1)
        for a in range(n):
            s[3 * a] = s[3 * a + 1] = s[3 * a + 2] = 1.0 / np.sqrt(mass[conn[e, a]])
        for i in range(3 * n):
            for j in range(3 * n):
                Ke[i, j] *= s[i] * s[j]
        lmax = np.linalg.eigvalsh(Ke)[-1]
        out[m] = 2.0 / np.sqrt(lmax) if lmax > 0.0 else np.inf
    return out
