"""Points on finite-element bodies (layer 3, numba): reference coordinates of referential
or current points in an element of any type, values interpolated there (current place,
velocity, deformation gradient, stress), the nodal stress average and the kernels behind
the H operator of a point (local velocity, Delassus blocks, reactions).
Reference: Solfec-1.0 fem.c (``FEM_Cur_Point``, ``FEM_Ref_Point``, ``FEM_Gen_To_Loc_Operator``,
``FEM_Point_Values``, ``global_to_local``); NUMERICS-style H = base^T [N_1 I ... N_n I].

Every kernel takes the block's padded element table: ``econn`` (Ne, w) global node
indices (-1 padding), ``ecode`` (Ne,) element codes (fem.elements), and works on entries
(k,) with a global element index ``gid`` and a point. A point that coincides with a node
of its element takes that node's reference coordinates at once (the vertices of contact
objects and the nodes the BM decks constrain); others go through Solfec's Newton inverse
map, clamped into the reference box.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.fem.elements import BY_CODE
from solfec_py.fem.laws import fe_stress_mises, lame
from solfec_py.fem.points import DOMAINS, IMP_EPS, MAX_ITERS, fill_point, inside
from solfec_py.geometry.linalg3 import solve3s

MAXN = max(c.nnodes for c in BY_CODE)
NNODES = np.array([c.nnodes for c in BY_CODE], dtype=np.int64)
REF_NODES = np.zeros((len(BY_CODE), MAXN, 3))
for _c in BY_CODE:
    REF_NODES[_c.code, : _c.nnodes] = _c.ref_nodes
BOX = np.array([c.box for c in BY_CODE], dtype=float)            # (codes, 2, 3)
START = np.array([c.centroid() for c in BY_CODE], dtype=float)   # Newton start points
NODE_TOL = 1e-12                                                 # relative, for "at a node"


@njit
def _at_node(code, conn_e, nodes, p, scale):
    """Local index of the node of the element at p (within NODE_TOL * scale), or -1."""
    for k in range(NNODES[code]):
        node = conn_e[k]
        d = abs(nodes[node, 0] - p[0]) + abs(nodes[node, 1] - p[1]) + abs(nodes[node, 2] - p[2])
        if d <= NODE_TOL * scale:
            return k
    return -1


@njit
def _reference(code, conn_e, nodes, p, xi, N, dN):
    """Reference coordinates of p in the element with node coordinates `nodes` (clamped);
    returns the Newton iterations (0 at a node), -1 when Newton failed."""
    n = NNODES[code]
    scale = 0.0
    for i in range(3):
        lo, hi = np.inf, -np.inf
        for k in range(n):
            v = nodes[conn_e[k], i]
            lo, hi = min(lo, v), max(hi, v)
        scale = max(scale, hi - lo)
    k = _at_node(code, conn_e, nodes, p, scale)
    if k >= 0:
        for i in range(3):
            xi[i] = REF_NODES[code, k, i]
        return 0
    status = _newton(code, conn_e, nodes, p, xi, N, dN)
    for i in range(3):
        xi[i] = min(max(xi[i], BOX[code, 0, i]), BOX[code, 1, i])
    return status


@njit
def reference_coordinates(econn, ecode, nodes, gid, P, xi):
    """xi (k, 3) of points P (k, 3) in elements gid (k,) with node coordinates `nodes`
    (referential X, or current X + q for spatial points). Returns the first entry whose
    Newton solve failed, or -1."""
    N, dN = np.empty(MAXN), np.empty((MAXN, 3))
    bad = -1
    for m in range(gid.size):
        e = gid[m]
        if _reference(ecode[e], econn[e], nodes, P[m], xi[m], N, dN) < 0 and bad < 0:
            bad = m
    return bad


@njit
def interpolate(econn, ecode, gid, xi, values, out):
    """out (k, 3) = sum_k N_k(xi) values[node_k]."""
    N, dN = np.empty(MAXN), np.empty((MAXN, 3))
    for m in range(gid.size):
        e = gid[m]
        code = ecode[e]
        fill_point(code, xi[m, 0], xi[m, 1], xi[m, 2], N, dN)
        for i in range(3):
            out[m, i] = 0.0
        for k in range(NNODES[code]):
            node = econn[e, k]
            for i in range(3):
                out[m, i] += N[k] * values[node, i]


@njit
def shape_values(econn, ecode, gid, xi, nodes_out, N_out):
    """H data of points: nodes (k, w) and N (k, w) (padding: first node, weight 0)."""
    N, dN = np.empty(MAXN), np.empty((MAXN, 3))
    w = N_out.shape[1]
    for m in range(gid.size):
        e = gid[m]
        code = ecode[e]
        fill_point(code, xi[m, 0], xi[m, 1], xi[m, 2], N, dN)
        n = NNODES[code]
        for k in range(w):
            if k < n:
                nodes_out[m, k] = econn[e, k]
                N_out[m, k] = N[k]
            else:
                nodes_out[m, k] = econn[e, 0]
                N_out[m, k] = 0.0


@njit
def _det_inverse3(A):
    """(det A, A^-1) of a 3 x 3 matrix by cofactors (A^-1 = adj(A) / det A; the Jacobian of
    an element map, well conditioned for an element that is not degenerate; no LAPACK call,
    whose numba wrappers cost seconds of a first run's compilation)."""
    a00, a01, a02 = A[0, 0], A[0, 1], A[0, 2]
    a10, a11, a12 = A[1, 0], A[1, 1], A[1, 2]
    a20, a21, a22 = A[2, 0], A[2, 1], A[2, 2]
    c00, c01, c02 = a11 * a22 - a12 * a21, a12 * a20 - a10 * a22, a10 * a21 - a11 * a20
    det = a00 * c00 + a01 * c01 + a02 * c02
    inv = np.empty((3, 3))
    inv[0, 0], inv[1, 0], inv[2, 0] = c00 / det, c01 / det, c02 / det
    inv[0, 1] = (a02 * a21 - a01 * a22) / det
    inv[1, 1] = (a00 * a22 - a02 * a20) / det
    inv[2, 1] = (a01 * a20 - a00 * a21) / det
    inv[0, 2] = (a01 * a12 - a02 * a11) / det
    inv[1, 2] = (a02 * a10 - a00 * a12) / det
    inv[2, 2] = (a00 * a11 - a01 * a10) / det
    return det, inv


@njit
def _gradient(code, conn_e, X, q, xi, N, dN, F):
    """F = I + sum q_k (x) dN_k/dX at xi (3, 3); returns det of dX/dxi."""
    n = NNODES[code]
    fill_point(code, xi[0], xi[1], xi[2], N, dN)
    F0 = np.zeros((3, 3))
    for k in range(n):
        node = conn_e[k]
        for i in range(3):
            for j in range(3):
                F0[i, j] += X[node, i] * dN[k, j]
    det0, inv = _det_inverse3(F0)
    for i in range(3):
        for J in range(3):
            s = 1.0 if i == J else 0.0
            for k in range(n):
                s += q[conn_e[k], i] * (inv[0, J] * dN[k, 0] + inv[1, J] * dN[k, 1] + inv[2, J] * dN[k, 2])
            F[i, J] = s
    return det0


@njit
def gradients(econn, ecode, X, q, gid, xi, F):
    """Deformation gradients F (k, 3, 3) at points (gid, xi)."""
    N, dN = np.empty(MAXN), np.empty((MAXN, 3))
    for m in range(gid.size):
        e = gid[m]
        _gradient(ecode[e], econn[e], X, q, xi[m], N, dN, F[m])


@njit
def _stress(code, conn_e, X, q, mat_e, xi, N, dN, F, out):
    """out (7,) += stress and von Mises at point xi of the element (one compiled
    specialisation: callers zero out first where they want the value alone)."""
    _gradient(code, conn_e, X, q, xi, N, dN, F)
    lam, mu = lame(mat_e[0], mat_e[1])
    s = fe_stress_mises(F[0, 0], F[0, 1], F[0, 2], F[1, 0], F[1, 1], F[1, 2], F[2, 0], F[2, 1], F[2, 2], lam, mu)
    for i in range(7):
        out[i] = out[i] + s[i]


@njit
def stresses(econn, ecode, emat, X, q, gid, xi, node, adj_ptr, adj, out):
    """Stress (Solfec's F P / det F, laws.fe_stress_mises) and von Mises (k, 7) at points;
    an entry with node[m] >= 0 (the point is that node) takes Solfec's nodal value: the
    mean over the elements around the node (adjacency CSR adj_ptr / adj of global element
    indices) of their stress there."""
    N, dN, F = np.empty(MAXN), np.empty((MAXN, 3)), np.empty((3, 3))
    z = np.empty(3)
    for m in range(gid.size):
        a = node[m]
        for i in range(7):
            out[m, i] = 0.0
        if a < 0:
            e = gid[m]
            _stress(ecode[e], econn[e], X, q, emat[e], xi[m], N, dN, F, out[m])
            continue
        count = 0
        for j in range(adj_ptr[a], adj_ptr[a + 1]):
            e = adj[j]
            code = ecode[e]
            for k in range(NNODES[code]):
                if econn[e, k] == a:
                    for i in range(3):
                        z[i] = REF_NODES[code, k, i]
                    _stress(code, econn[e], X, q, emat[e], z, N, dN, F, out[m])
                    count += 1
                    break
        for i in range(7):
            out[m, i] /= max(count, 1)


# ---------------------------------------------------------------------- H = base^T [N_k I]
@njit
def local_velocities(nodes, N, base, u, out):
    """out (k, 3) = base^T sum_k N_k u[node_k]."""
    for m in range(nodes.shape[0]):
        v0 = v1 = v2 = 0.0
        for k in range(nodes.shape[1]):
            a, w = nodes[m, k], N[m, k]
            v0 += w * u[a, 0]
            v1 += w * u[a, 1]
            v2 += w * u[a, 2]
        for i in range(3):
            out[m, i] = base[m, 0, i] * v0 + base[m, 1, i] * v1 + base[m, 2, i] * v2


@njit
def add_reactions(nodes, N, base, R, r):
    """r[node_k] += N_k base R per entry (H^T R)."""
    for m in range(nodes.shape[0]):
        f0 = base[m, 0, 0] * R[m, 0] + base[m, 0, 1] * R[m, 1] + base[m, 0, 2] * R[m, 2]
        f1 = base[m, 1, 0] * R[m, 0] + base[m, 1, 1] * R[m, 1] + base[m, 1, 2] * R[m, 2]
        f2 = base[m, 2, 0] * R[m, 0] + base[m, 2, 1] * R[m, 1] + base[m, 2, 2] * R[m, 2]
        for k in range(nodes.shape[1]):
            a, w = nodes[m, k], N[m, k]
            r[a, 0] += w * f0
            r[a, 1] += w * f1
            r[a, 2] += w * f2


@njit
def lumped_delassus(na, Na, ba, nb, Nb, bb, inv_mass, out):
    """out (k, 3, 3) = Ha M^-1 Hb^T for a diagonal (lumped) mass: sum over common nodes
    of Na Nb / m times base_a^T base_b."""
    for m in range(na.shape[0]):
        c = 0.0
        for i in range(na.shape[1]):
            a = na[m, i]
            if Na[m, i] == 0.0:
                continue
            for j in range(nb.shape[1]):
                if nb[m, j] == a:
                    c += Na[m, i] * Nb[m, j] * inv_mass[a]
        for i in range(3):
            for j in range(3):
                out[m, i, j] = c * (ba[m, 0, i] * bb[m, 0, j] + ba[m, 1, i] * bb[m, 1, j] + ba[m, 2, i] * bb[m, 2, j])


@njit
def share_nodes(na, Na, nb, Nb):
    """Do two points share a node with non-zero weights (k,)?"""
    out = np.zeros(na.shape[0], dtype=np.bool_)
    for m in range(na.shape[0]):
        for i in range(na.shape[1]):
            if Na[m, i] == 0.0:
                continue
            for j in range(nb.shape[1]):
                if nb[m, j] == na[m, i] and Nb[m, j] != 0.0:
                    out[m] = True
                    break
            if out[m]:
                break
    return out


@njit
def gathered_delassus(na, Na, ba, Z, col, out):
    """out (k, 3, 3) = Ha Z[:, col:col+3] where Z (ndof, 3 m) holds A^-1 Hb^T columns
    (dof 3 node + i, node indices local to the body) and col (k,) the first column of b."""
    for m in range(na.shape[0]):
        c = col[m]
        for j in range(3):
            g0 = g1 = g2 = 0.0
            for i in range(na.shape[1]):
                a, w = na[m, i], Na[m, i]
                g0 += w * Z[3 * a, c + j]
                g1 += w * Z[3 * a + 1, c + j]
                g2 += w * Z[3 * a + 2, c + j]
            for i in range(3):
                out[m, i, j] = ba[m, 0, i] * g0 + ba[m, 1, i] * g1 + ba[m, 2, i] * g2


@njit
def scan(econn, ecode, nodes, e0, e1, points, tol, out):
    """For each point (k, 3) the element in [e0, e1) holding it: the first whose clamped
    inverse image is inside (within `tol` of the reference domain), else the one whose
    image lies nearest among the elements whose box (padded by tol times its size) holds
    the point; -1 when no box does. Elements are tried in order (surface ones first)."""
    N, dN = np.empty(MAXN), np.empty((MAXN, 3))
    xi, raw = np.empty(3), np.empty(3)
    for m in range(points.shape[0]):
        p = points[m]
        out[m] = -1
        best = np.inf
        for e in range(e0, e1):
            code = ecode[e]
            n = NNODES[code]
            lo0 = lo1 = lo2 = np.inf
            hi0 = hi1 = hi2 = -np.inf
            for k in range(n):
                a = econn[e, k]
                lo0, hi0 = min(lo0, nodes[a, 0]), max(hi0, nodes[a, 0])
                lo1, hi1 = min(lo1, nodes[a, 1]), max(hi1, nodes[a, 1])
                lo2, hi2 = min(lo2, nodes[a, 2]), max(hi2, nodes[a, 2])
            pad = tol * (hi0 - lo0 + hi1 - lo1 + hi2 - lo2)
            if (p[0] < lo0 - pad or p[0] > hi0 + pad or p[1] < lo1 - pad or p[1] > hi1 + pad
                    or p[2] < lo2 - pad or p[2] > hi2 + pad):
                continue
            if _newton(code, econn[e], nodes, p, raw, N, dN) < 0:
                continue
            if inside(DOMAINS[code], raw, tol):
                out[m] = e
                break
            for i in range(3):
                xi[i] = min(max(raw[i], BOX[code, 0, i]), BOX[code, 1, i])
            fill_point(code, xi[0], xi[1], xi[2], N, dN)
            d2 = 0.0
            for i in range(3):
                s = -p[i]
                for k in range(n):
                    s += N[k] * nodes[econn[e, k], i]
                d2 += s * s
            if d2 < best:
                best = d2
                out[m] = e


@njit
def _newton(code, conn_e, nodes, p, xi, N, dN):
    """Unclamped Newton inverse map from the centroid; iterations or -1."""
    n = NNODES[code]
    for i in range(3):
        xi[i] = START[code, i]
    J = np.empty((3, 3))
    r = np.empty(3)
    for it in range(MAX_ITERS):
        fill_point(code, xi[0], xi[1], xi[2], N, dN)
        for i in range(3):
            r[i] = p[i]
            for j in range(3):
                J[i, j] = 0.0
        for k in range(n):
            node = conn_e[k]
            for i in range(3):
                r[i] -= N[k] * nodes[node, i]
                for j in range(3):
                    J[i, j] += nodes[node, i] * dN[k, j]
        ok, d0, d1, d2 = solve3s(J[0, 0], J[0, 1], J[0, 2], J[1, 0], J[1, 1], J[1, 2], J[2, 0], J[2, 1], J[2, 2],
                                 r[0], r[1], r[2])
        if not ok:                                  # singular J
            return -1
        xi[0] += d0
        xi[1] += d1
        xi[2] += d2
        if np.sqrt(d0 * d0 + d1 * d1 + d2 * d2) < IMP_EPS:
            return it + 1
    return -1
