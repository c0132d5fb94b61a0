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


@njit(inline="always")
def _stiffness_work(n, nq):
    """Work arrays (D, H, Hw, SD (n, 3, nq), Bw (6, nq)) of :func:`_point_tables`."""
    return np.empty((n, 3, nq)), np.empty((n, 3, nq)), np.empty((n, 3, nq)), np.empty((n, 3, nq)), np.empty((6, nq))


@njit(fastmath=True)
def _point_tables(q, conn, dNdX, wJ, e, lam, mu, D, H, Hw, SD, Bw):
    """Per point g of element e, laid out with g last (the pair sums of :func:`_pair_block`
    then run over contiguous memory): D[a, :, g] = dNdX_a, H = F dNdX_a, Hw = wJ H,
    SD = wJ S dNdX_a and Bw = mu wJ F F^T (xx, yy, zz, xy, yz, xz)."""
    nq, n = dNdX.shape[1], dNdX.shape[2]
    for g in range(nq):
        d = dNdX[e, g]
        f00, f01, f02, f10, f11, f12, f20, f21, f22 = _gradient(q, conn[e], d)
        r = svk_stress(f00, f01, f02, f10, f11, f12, f20, f21, f22, lam, mu)
        wg = wJ[e, g]
        s00, s11, s22, s01, s12, s02 = wg * r[9], wg * r[10], wg * r[11], wg * r[12], wg * r[13], wg * r[14]
        w = wg * mu
        Bw[0, g] = w * (f00 * f00 + f01 * f01 + f02 * f02)
        Bw[1, g] = w * (f10 * f10 + f11 * f11 + f12 * f12)
        Bw[2, g] = w * (f20 * f20 + f21 * f21 + f22 * f22)
        Bw[3, g] = w * (f00 * f10 + f01 * f11 + f02 * f12)
        Bw[4, g] = w * (f10 * f20 + f11 * f21 + f12 * f22)
        Bw[5, g] = w * (f00 * f20 + f01 * f21 + f02 * f22)
        for a in range(n):
            a0, a1, a2 = d[a, 0], d[a, 1], d[a, 2]
            D[a, 0, g], D[a, 1, g], D[a, 2, g] = a0, a1, a2
            h0 = f00 * a0 + f01 * a1 + f02 * a2
            h1 = f10 * a0 + f11 * a1 + f12 * a2
            h2 = f20 * a0 + f21 * a1 + f22 * a2
            H[a, 0, g], H[a, 1, g], H[a, 2, g] = h0, h1, h2
            Hw[a, 0, g], Hw[a, 1, g], Hw[a, 2, g] = wg * h0, wg * h1, wg * h2
            SD[a, 0, g] = s00 * a0 + s01 * a1 + s02 * a2
            SD[a, 1, g] = s01 * a0 + s11 * a1 + s12 * a2
            SD[a, 2, g] = s02 * a0 + s12 * a1 + s22 * a2


@njit(fastmath=True, inline="always")
def _pair_block(a, b, lam, mu, D, H, Hw, SD, Bw):
    """Block K_ab (row by row, 9 entries) of the element tangent (module docstring) from the
    tables of :func:`_point_tables`: with G = sum_g wJ (F dA)(F dB)^T, K_ab = lam G + mu G^T
    + (sum_g mu wJ (dA . dB) F F^T) + (sum_g wJ dA . S dB) I. All sums of a pair are held in
    registers over the points; K_ba = K_ab^T."""
    geo = c0 = c1 = c2 = c3 = c4 = c5 = 0.0
    g00 = g01 = g02 = g10 = g11 = g12 = g20 = g21 = g22 = 0.0
    for g in range(D.shape[2]):
        b0, b1, b2 = D[b, 0, g], D[b, 1, g], D[b, 2, g]
        dot = D[a, 0, g] * b0 + D[a, 1, g] * b1 + D[a, 2, g] * b2
        geo += SD[a, 0, g] * b0 + SD[a, 1, g] * b1 + SD[a, 2, g] * b2
        c0 += dot * Bw[0, g]
        c1 += dot * Bw[1, g]
        c2 += dot * Bw[2, g]
        c3 += dot * Bw[3, g]
        c4 += dot * Bw[4, g]
        c5 += dot * Bw[5, g]
        x0, x1, x2 = Hw[a, 0, g], Hw[a, 1, g], Hw[a, 2, g]
        y0, y1, y2 = H[b, 0, g], H[b, 1, g], H[b, 2, g]
        g00 += x0 * y0
        g01 += x0 * y1
        g02 += x0 * y2
        g10 += x1 * y0
        g11 += x1 * y1
        g12 += x1 * y2
        g20 += x2 * y0
        g21 += x2 * y1
        g22 += x2 * y2
    return (lam * g00 + mu * g00 + c0 + geo, lam * g01 + mu * g10 + c3, lam * g02 + mu * g20 + c5,
            lam * g10 + mu * g01 + c3, lam * g11 + mu * g11 + c1 + geo, lam * g12 + mu * g21 + c4,
            lam * g20 + mu * g02 + c5, lam * g21 + mu * g12 + c4, lam * g22 + mu * g22 + c2 + geo)


@njit(fastmath=True)
def _element_stiffness(q, conn, dNdX, wJ, mat, e, Ke, D, H, Hw, SD, Bw):
    """Dense (3n, 3n) tangent of element e into Ke (work arrays of :func:`_stiffness_work`)."""
    n = dNdX.shape[2]
    lam, mu = lame(mat[e, 0], mat[e, 1])
    _point_tables(q, conn, dNdX, wJ, e, lam, mu, D, H, Hw, SD, Bw)
    for a in range(n):
        for b in range(a, n):
            k = _pair_block(a, b, lam, mu, D, H, Hw, SD, Bw)
            for i in range(3):
                for j in range(3):          # K_aa: its upper triangle, mirrored
                    v = k[3 * min(i, j) + max(i, j)] if a == b else k[3 * i + j]
                    Ke[3 * a + i, 3 * b + j] = v
                    Ke[3 * b + j, 3 * a + i] = v


@njit
def stiffness_matrices(q, conn, dNdX, wJ, mat, elems):
    """Dense element tangents (len(elems), 3n, 3n) of the listed elements (COO values:
    see :func:`solfec_py.fem.assembly.coo_pattern`)."""
    n = dNdX.shape[2]
    out = np.empty((elems.size, 3 * n, 3 * n))
    D, H, Hw, SD, Bw = _stiffness_work(n, dNdX.shape[1])
    for m in range(elems.size):
        _element_stiffness(q, conn, dNdX, wJ, mat, elems[m], out[m], D, H, Hw, SD, Bw)
    return out


@njit(fastmath=True)
def add_stiffness_csr(q, conn, dNdX, wJ, mat, slot, nbptr, scale, data):
    """Accumulate ``scale`` times the group's tangent into CSR ``data`` of a
    :class:`solfec_py.fem.assembly.TangentPattern` (``slot`` (ne, n, n) block positions of
    the group, ``nbptr`` (nn + 1) node-block row pointers). Each block pair (a, b), a <= b, is
    formed once (:func:`_pair_block`) and written as K_ab and K_ba = K_ab^T."""
    ne, n = conn.shape[0], conn.shape[1]
    D, H, Hw, SD, Bw = _stiffness_work(n, dNdX.shape[1])
    for e in range(ne):
        lam, mu = lame(mat[e, 0], mat[e, 1])
        _point_tables(q, conn, dNdX, wJ, e, lam, mu, D, H, Hw, SD, Bw)
        for a in range(n):
            A = conn[e, a]
            deg_a = nbptr[A + 1] - nbptr[A]
            for b in range(a, n):
                k = _pair_block(a, b, lam, mu, D, H, Hw, SD, Bw)
                base = 9 * nbptr[A] + 3 * (slot[e, a, b] - nbptr[A])
                if b == a:                   # K_aa: its upper triangle, mirrored (exactly symmetric)
                    for i in range(3):
                        row = base + 3 * deg_a * i
                        for j in range(3):
                            data[row + j] += scale * k[3 * min(i, j) + max(i, j)]
                    continue
                for i in range(3):
                    row = base + 3 * deg_a * i
                    data[row] += scale * k[3 * i]
                    data[row + 1] += scale * k[3 * i + 1]
                    data[row + 2] += scale * k[3 * i + 2]
                B = conn[e, b]                   # K_ba = K_ab^T
                deg_b = nbptr[B + 1] - nbptr[B]
                base = 9 * nbptr[B] + 3 * (slot[e, b, a] - nbptr[B])
                for i in range(3):
                    row = base + 3 * deg_b * i
                    data[row] += scale * k[i]
                    data[row + 1] += scale * k[3 + i]
                    data[row + 2] += scale * k[6 + i]


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
    D, H, Hw, SD, Bw = _stiffness_work(n, dNdX.shape[1])
    s = np.empty(3 * n)
    out = np.empty(elems.size)
    for m in range(elems.size):
        e = elems[m]
        _element_stiffness(q, conn, dNdX, wJ, mat, e, Ke, D, H, Hw, SD, Bw)
        for a in range(n):
            s[3 * a] = s[3 * a + 1] = s[3 * a + 2] = 1.0 / np.sqrt(mass[conn[e, a]])
        for i in range(3 * n):
            for j in range(3 * n):
                Ke[i, j] *= s[i] * s[j]
        lmax = np.linalg.eigvalsh(Ke)[-1]
        out[m] = 2.0 / np.sqrt(lmax) if lmax > 0.0 else np.inf
    return out
