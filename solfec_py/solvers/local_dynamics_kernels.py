"""numba kernels of the local dynamics assembly and of what follows a solve (layer 5, used by
solvers/local_dynamics.py and solvers/common.py): the entries of one body family, the segment
sums that scatter per-entry contributions onto their constraint rows, the inverses and
spectral radii of the 3x3 diagonal blocks W_aa, the unordered pairs and CSR arrays of the
off-diagonal blocks, the contact parameters, B + sum W_ab R_b and the contact work.
Reference: Solfec-1.0 ldy.c, local dynamics (the diagonal blocks and their inverses).

Each reproduces the numpy expression it replaces bit for bit (tests/test_step_kernels.py):
segment sums add in entry order, as np.bincount / np.add.at do; einsum sums are formed in
the order numpy's einsum forms them. The diagonal blocks' eigenvalues and inverses are
closed forms equal to LAPACK's (np.linalg.eigvalsh / inv) to rounding, not bit for bit
(docs/dev/performance.md).
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.geometry.linalg3 import lu_inverse3, symmetric3_extremes


@njit
def segment_sum_flat(index, values, n):
    """out[i, :] = sum of values[k, :] over index[k] == i, added in the order of k; values
    (E, m) C-contiguous -> (n, m)."""
    m = values.shape[1]
    out = np.zeros((n, m))
    for k in range(index.shape[0]):
        i = index[k]
        for j in range(m):
            out[i, j] += values[k, j]
    return out


@njit
def _stable_order(keys, order):
    """order re-sorted stably by keys[order] (counting sort of non-negative int keys): the
    permutation np.argsort(keys[order], kind="mergesort") applied to order, in O(E + max key)."""
    E = order.size
    top = 0
    for i in range(keys.size):           # keys.max() (a loop: numba's max compiles ~0.5 s)
        top = max(top, keys[i])
    count = np.zeros(top + 2, dtype=np.int64)
    for i in range(E):
        count[keys[order[i]] + 1] += 1
    for v in range(1, count.size):
        count[v] += count[v - 1]
    out = np.empty(E, dtype=np.int64)
    for i in range(E):
        k = order[i]
        out[count[keys[k]]] = k
        count[keys[k]] += 1
    return out


def unordered_pairs(rows, con):
    """All unordered pairs (e, f), e != f, of entries with equal rows (int64 arrays): the
    entries sorted by (rows, con, entry) (np.lexsort's stable order: counting sorts when the
    keys are small, else numpy's stable sorts; the rare case stays out of the compiled
    code), then for each sorted position its later partners of the same row, in order: the
    pairs and order of the numpy expression in local_dynamics.unordered_pairs, without its
    temporaries."""
    E = rows.size
    if E and rows.min() >= 0 and con.min() >= 0 and rows.max() < 4 * E + 1024 and con.max() < 4 * E + 1024:
        order = _stable_order(rows, _stable_order(con, np.arange(E, dtype=np.int64)))
    else:
        order = np.argsort(con, kind="stable")
        order = order[np.argsort(rows[order], kind="stable")]
    return _pairs_in_order(rows, order)


@njit
def _pairs_in_order(rows, order):
    """The pairs of `unordered_pairs` for the entries in their sorted order."""
    E = rows.size
    total = 0
    start = 0
    for i in range(1, E + 1):
        if i == E or rows[order[i]] != rows[order[start]]:
            size = i - start
            total += size * (size - 1) // 2
            start = i
    e = np.empty(total, dtype=np.int64)
    f = np.empty(total, dtype=np.int64)
    k = 0
    start = 0
    for i in range(1, E + 1):
        if i == E or rows[order[i]] != rows[order[start]]:
            for a in range(start, i):
                for b in range(a + 1, i):
                    e[k], f[k] = order[a], order[b]
                    k += 1
            start = i
    return e, f


@njit
def all_finite(W):
    """True when no entry of W is NaN or infinite (np.isfinite(W).all() without its mask)."""
    for x in W.ravel():
        if not np.isfinite(x):
            return False
    return True


@njit
def blocks_inverse_and_rho(W, tiny):
    """For every 3x3 block W[k]: the extreme eigenvalues of its symmetric part (0.5 (W +
    W^T), formed as numpy forms it) in closed form (geometry/linalg3.symmetric3_extremes),
    rho = 1 / lambda_max (0 unless lambda_max > 0) and W^-1 by Gaussian elimination with
    partial pivoting (linalg3.lu_inverse3) where the block is regular: lambda_min > tiny *
    max(lambda_max, 1e-300) and no pivot is zero. Returns (Winv, rho, regular), Winv zero
    where not regular (the caller fills those with pseudo-inverses). Both agree with
    LAPACK's ?syevd / ?gesv (np.linalg.eigvalsh / inv) to rounding: eigenvalues within a
    few eps ||W||, inverses within a few eps cond(W) (tests/test_step_kernels.py). W must be
    finite (the caller checks)."""
    n = W.shape[0]
    Winv = np.zeros((n, 3, 3))
    rho = np.zeros(n)
    regular = np.zeros(n, dtype=np.bool_)
    for k in range(n):
        w00, w01, w02 = W[k, 0, 0], W[k, 0, 1], W[k, 0, 2]
        w10, w11, w12 = W[k, 1, 0], W[k, 1, 1], W[k, 1, 2]
        w20, w21, w22 = W[k, 2, 0], W[k, 2, 1], W[k, 2, 2]
        lo, big = symmetric3_extremes(0.5 * (w00 + w00), 0.5 * (w01 + w10), 0.5 * (w02 + w20),
                                      0.5 * (w11 + w11), 0.5 * (w12 + w21), 0.5 * (w22 + w22))
        if big > 0:
            rho[k] = 1.0 / big
        if lo > tiny * max(big, 1e-300):
            ok, x00, x01, x02, x10, x11, x12, x20, x21, x22 = lu_inverse3(w00, w01, w02, w10, w11, w12,
                                                                           w20, w21, w22)
            if ok:
                regular[k] = True
                Winv[k, 0, 0], Winv[k, 0, 1], Winv[k, 0, 2] = x00, x01, x02
                Winv[k, 1, 0], Winv[k, 1, 1], Winv[k, 1, 2] = x10, x11, x12
                Winv[k, 2, 0], Winv[k, 2, 1], Winv[k, 2, 2] = x20, x21, x22
    return Winv, rho, regular


@njit
def contact_parameters(par, m, r, friction, restitution, cohesion, gap, model, spring, dashpot, hpow):
    """par[m[k]] = (friction, restitution, cohesion, gap, model, spring, dashpot, hpow) of
    constraint-set row r[k] (the column_stack it replaces, copies only)."""
    for k in range(m.size):
        i, c = m[k], r[k]
        par[i, 0] = friction[c]
        par[i, 1] = restitution[c]
        par[i, 2] = cohesion[c]
        par[i, 3] = gap[c]
        par[i, 4] = float(model[c])
        par[i, 5] = spring[c]
        par[i, 6] = dashpot[c]
        par[i, 7] = hpow[c]


@njit
def coupled(B, R, indptr, adj, Wadj):
    """B + sum over neighbours W_ab R_b in the order of the numpy expression it replaces:
    each row of a product W_ab R_b summed as numpy's einsum sums three contiguous products
    (two lanes, p0 + p2 and p1, then the lanes added), the products of a row added from zero
    in CSR order (segment sum), then added to B."""
    n = B.shape[0]
    out = np.empty((n, 3))
    for a in range(n):
        for i in range(3):
            s = 0.0
            for j in range(indptr[a], indptr[a + 1]):
                c = adj[j]
                lane0 = (0.0 + Wadj[j, i, 0] * R[c, 0]) + Wadj[j, i, 2] * R[c, 2]
                lane1 = (0.0 + Wadj[j, i, 1] * R[c, 1]) + 0.0
                s += (lane0 + lane1) + 0.0
            out[a, i] = B[a, i] + s
    return out


EINSUM_CHUNK = 8190     # numpy's einsum buffer (8192 elements) cut to whole (3, 3) blocks


@njit
def quadratic_sum(B, Winv):
    """sum over k, i, j of B[k, i] Winv[k, i, j] B[k, j] as numpy's np.einsum("ki,kij,kj->")
    adds it (C-contiguous float64 operands): products in index order, summed from zero
    in chunks of EINSUM_CHUNK products, each chunk added to the running total
    (equal to np.einsum bit for bit where it was written; tests/test_step_kernels.py
    checks it within the summation error bound, as einsum's order depends on the build)."""
    out = 0.0
    acc = 0.0
    m = 0
    for k in range(B.shape[0]):
        for i in range(3):
            for j in range(3):
                acc += B[k, i] * Winv[k, i, j] * B[k, j]
                m += 1
                if m == EINSUM_CHUNK:
                    out = acc + out
                    acc = 0.0
                    m = 0
    return acc + out


@njit
def contact_work_live(energy, rows, con, kind, inert, U, V, R, half_h, contact):
    """energy[rows[k], 2] += half_h (U_N + V_N) R_N, energy[rows[k], 3] += half_h (U_T + V_T) . R_T
    for the entries k (row con[k] of U, V, R) with kind[con[k]] == contact and not inert[k],
    added in entry order as np.add.at does; the products in the order of the numpy
    expressions they replace."""
    for k in range(con.size):
        c = con[k]
        if inert[k] or kind[c] != contact:
            continue
        energy[rows[k], 2] += half_h * (U[c, 2] + V[c, 2]) * R[c, 2]
    for k in range(con.size):
        c = con[k]
        if inert[k] or kind[c] != contact:
            continue
        t = 0.0
        t += (U[c, 0] + V[c, 0]) * R[c, 0]
        t += (U[c, 1] + V[c, 1]) * R[c, 1]
        energy[rows[k], 3] += half_h * t


@njit
def family_entries(code, crow, family, brow, mpnt, spnt, elem, base):
    """The entries (constraint, side) of one body family among the local-dynamics rows:
    master points first, then slave points, each in row order (the flatnonzero /
    concatenate expression it replaces); returns (con, sign, body rows, points, elements,
    local bases) of the entries."""
    n = crow.size
    count = 0
    for s in range(2):
        for i in range(n):
            c = crow[i]
            if family[c, s] == code and brow[c, s] >= 0:
                count += 1
    con = np.empty(count, dtype=np.int64)
    sign = np.empty(count)
    rows = np.empty(count, dtype=np.int64)
    X = np.empty((count, 3))
    el = np.empty(count, dtype=elem.dtype)
    bs = np.empty((count, 3, 3))
    k = 0
    for s in range(2):
        pts = mpnt if s == 0 else spnt
        for i in range(n):
            c = crow[i]
            if family[c, s] == code and brow[c, s] >= 0:
                con[k] = i
                sign[k] = 1.0 if s == 0 else -1.0
                rows[k] = brow[c, s]
                for j in range(3):
                    X[k, j] = pts[c, j]
                el[k] = elem[c, s]
                for p in range(3):
                    for q in range(3):
                        bs[k, p, q] = base[c, p, q]
                k += 1
    return con, sign, rows, X, el, bs


@njit
def add_signed(out, con, sign, values):
    """out += segment sum of sign[k] values[k] onto rows con[k] (products formed first, summed
    from zero in entry order, then added: the numpy expression it replaces)."""
    n, m = out.shape
    tmp = np.zeros((n, m))
    for k in range(con.size):
        c = con[k]
        for j in range(m):
            tmp[c, j] += sign[k] * values[k, j]
    for i in range(n):
        for j in range(m):
            out[i, j] += tmp[i, j]


@njit
def off_diagonal_csr(n, a, b, values):
    """CSR rows of the off-diagonal blocks: entries (a[k], b[k], values[k] (3, 3)) with
    equal (a, b) added in the order of k; returns (indptr (n + 1), column of each block,
    blocks), blocks sorted by a * n + b (np.unique's order, as local_dynamics._csr's numpy
    expression had it). Rows by a stable counting sort on a, columns within a row by a stable
    insertion sort on b (a merge sort in rows of more than 32 blocks); off_diagonal_csr_into
    on freshly allocated arrays.
    """
    E = a.size
    indptr = np.empty(n + 1, dtype=np.int64)
    adj = np.empty(E, dtype=np.int64)
    W = np.empty((E, 3, 3))
    m = off_diagonal_csr_into(n, a, b, values, np.empty(n + 1, dtype=np.int64), np.empty(E, dtype=np.int64),
                              np.empty(E, dtype=np.int64), indptr, adj, W)
    return indptr, adj[:m].copy(), W[:m].copy()


@njit
def _merge_sort_by(items, key):
    """Sort `items` in place by key[items], stably (bottom-up merge sort): the order of
    np.argsort(key[items], kind="mergesort"), without numba's generic sort to compile."""
    n = items.size
    src, dst = items, np.empty(n, dtype=items.dtype)
    swapped = False
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if key[src[j]] < key[src[i]]:    # equal keys: the left run first (stable)
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        swapped = not swapped
        width *= 2
    if swapped:
        for k in range(n):
            items[k] = src[k]


@njit
def off_diagonal_csr_into(n, a, b, values, start, order, inv, indptr, adj, W):
    """off_diagonal_csr writing into given arrays (local_dynamics reuses them from step to
    step: freshly mapped memory costs page faults): scratch start (>= n + 1),
    order and inv (>= E), outputs indptr (>= n + 1), adj (>= E) and W (>= E blocks); returns
    the number m of distinct blocks, written to adj[:m], W[:m] and indptr[:n + 1]."""
    E = a.size
    for i in range(n + 1):
        start[i] = 0
    for k in range(E):
        start[a[k] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    fill = indptr                           # indptr is set only after the sorts
    for i in range(n):
        fill[i] = start[i]
    for k in range(E):
        order[fill[a[k]]] = k
        fill[a[k]] += 1
    for i in range(n):                      # stable sort by b within row i
        if start[i + 1] - start[i] > 32:    # long row: merge sort (insertion sort is quadratic)
            _merge_sort_by(order[start[i]:start[i + 1]], b)
            continue
        for p in range(start[i] + 1, start[i + 1]):
            k = order[p]
            q = p - 1
            while q >= start[i] and b[order[q]] > b[k]:
                order[q + 1] = order[q]
                q -= 1
            order[q + 1] = k
    for i in range(n + 1):
        indptr[i] = 0
    u = -1
    for p in range(E):
        k = order[p]
        if p == 0 or a[k] != a[order[p - 1]] or b[k] != b[order[p - 1]]:
            u += 1
            adj[u] = b[k]
            indptr[a[k] + 1] += 1
            for i in range(3):
                for j in range(3):
                    W[u, i, j] = 0.0
        inv[k] = u
    for k in range(E):                      # duplicates added in the order of k
        w = inv[k]
        for i in range(3):
            for j in range(3):
                W[w, i, j] += values[k, i, j]
    for i in range(n):
        indptr[i + 1] += indptr[i]
    return u + 1


@njit(inline="always")
def same_constraint_pairs(con, e, f):
    """How many entry pairs (e[k], f[k]) belong to one constraint (both ends on one body)."""
    nsame = 0
    for k in range(e.size):
        if con[e[k]] == con[f[k]]:
            nsame += 1
    return nsame


@njit
def pair_blocks(h, sign, con, e, f, Wef):
    """The scaled blocks W_ef = h s_e s_f Wef[k] of the unordered entry pairs (e[k], f[k]) of
    one body family, split as local_dynamics.assemble uses them: pairs of one constraint
    (both ends on one body) as diagonal contributions (rows, W_ef + W_ef^T), the others as
    off-diagonal entries (a, b, block) in the order [(c_e, c_f, W_ef) for each pair, then
    (c_f, c_e, W_ef^T) for each pair] - the numpy expression's order, without its
    temporaries."""
    E = e.size
    nsame = same_constraint_pairs(con, e, f)
    m = E - nsame
    drow = np.empty(nsame, dtype=np.int64)
    dval = np.empty((nsame, 3, 3))
    a = np.empty(2 * m, dtype=np.int64)
    b = np.empty(2 * m, dtype=np.int64)
    val = np.empty((2 * m, 3, 3))
    pair_blocks_into(h, sign, con, e, f, Wef, drow, dval, a, b, val)
    return drow, dval, a, b, val


@njit
def pair_blocks_into(h, sign, con, e, f, Wef, drow, dval, a, b, val):
    """pair_blocks writing into given arrays (reused from step to step by local_dynamics):
    drow, dval of at least nsame entries, a, b, val of at least 2 (E - nsame); returns
    (nsame, 2 (E - nsame)), the lengths written."""
    E = e.size
    nsame = same_constraint_pairs(con, e, f)
    m = E - nsame
    p = 0
    q = 0
    for k in range(E):
        ce, cf = con[e[k]], con[f[k]]
        s = h * (sign[e[k]] * sign[f[k]])
        if ce == cf:
            drow[q] = ce
            for i in range(3):
                for j in range(3):
                    dval[q, i, j] = s * Wef[k, i, j] + s * Wef[k, j, i]
            q += 1
        else:
            a[p], b[p] = ce, cf
            a[m + p], b[m + p] = cf, ce
            for i in range(3):
                for j in range(3):
                    x = s * Wef[k, i, j]
                    val[p, i, j] = x
                    val[m + p, j, i] = x
            p += 1
    return nsame, 2 * m
