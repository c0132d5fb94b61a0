"""Compiled recursions over a joint tree (layer 3): forward kinematics and partial
velocities, link velocities, the mass matrix by the composite-rigid-body algorithm (CRBA),
bias forces by recursive Newton-Euler (RNEA), the update q <- q (+) h v.
Reference: Featherstone, Rigid Body Dynamics Algorithms (Springer 2008), ch. 5-6, in the
ground-coordinates form (all spatial vectors in world axes at the world origin).

Conventions (docs/joints.md):
  spatial motion (w, v_O): angular velocity and velocity of the body point at the origin,
      so the velocity of a point x of the body is v_O + w x x;
  spatial force (n_O, f): moment about the origin and force;
  links are in topological order (parent[i] < i, -1 = ground); joint i moves link i.
Per link: rotation Lam (Solfec's Lambda: x = xc + Lam (X - X0)) and mass centre xc.
Per joint rate j: S[j] (6,) the world motion subspace column (the partial velocity of
every link below), and crossed[j], the link whose velocity differentiates the column
(dS/dt = v_crossed x S; -1: the ground).
The kernels on the RK4 loop's path have `_into` forms writing into arrays the caller made
once (forward_kinematics_into, spatial_inertias_into, aba_into with aba_workspace,
link_velocities_into, advance_into); the plain forms make the arrays and call them.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.articulated.kinds import CHILD, T
from solfec_py.compilation import njit


@njit
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit
def _expmap(w):
    """exp([w]x) by Rodrigues' formula (series near zero)."""
    t2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
    if t2 < 1e-12:
        a, b = 1.0 - t2 / 6.0, 0.5 - t2 / 24.0
    else:
        t = np.sqrt(t2)
        a, b = np.sin(t) / t, (1.0 - np.cos(t)) / t2
    K = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    return np.eye(3) + a * K + b * (K @ K)


@njit
def _mm3(A, B, out):
    """out = A B for 3 x 3 arrays (out distinct from A and B)."""
    for a in range(3):
        for b in range(3):
            out[a, b] = A[a, 0] * B[0, b] + A[a, 1] * B[1, b] + A[a, 2] * B[2, b]


@njit
def _rot_into(axis, angle, out):
    """out (3, 3) = rotation matrix about a coordinate axis (0, 1, 2) by `angle`."""
    c, s = np.cos(angle), np.sin(angle)
    for a in range(3):
        for b in range(3):
            out[a, b] = 1.0 if a == b else 0.0
    i, j = (axis + 1) % 3, (axis + 2) % 3
    out[i, i], out[i, j], out[j, i], out[j, j] = c, -s, s, c


@njit
def forward_kinematics(q, parent, kind, qoff, voff, E, P, X0, nvk, ballk, dtype, daxis, dfixed):
    """Link rotations Lam (n, 3, 3), mass centres xc (n, 3), motion subspace columns
    S (nv, 6) and crossed links (nv,) of joint coordinates q (forward_kinematics_into on
    new arrays)."""
    n = parent.size
    Lam, xc = np.empty((n, 3, 3)), np.empty((n, 3))
    S, crossed = np.empty((voff[n], 6)), np.empty(voff[n], np.int64)
    forward_kinematics_into(q, parent, kind, qoff, voff, E, P, X0, nvk, ballk, dtype, daxis, dfixed, Lam, xc, S,
                            crossed, np.empty((6, 3, 3)))
    return Lam, xc, S, crossed


@njit
def forward_kinematics_into(q, parent, kind, qoff, voff, E, P, X0, nvk, ballk, dtype, daxis, dfixed, Lam, xc, S,
                            crossed, W):
    """forward_kinematics writing Lam, xc, S and crossed (every entry) with W (6, 3, 3) as
    work space (3 x 3 products written out: no array is made)."""
    n = parent.size
    Lp, Ep, Rr, Rk, tmp = W[0], W[1], W[2], W[3], W[4]
    xp, d, centre = W[5, 0], W[5, 1], W[5, 2]
    for i in range(n):
        p, c = parent[i], kind[i]
        for a in range(3):
            if p < 0:
                xp[a] = 0.0
                d[a] = P[i, a]
                for b in range(3):
                    Lp[a, b] = 1.0 if a == b else 0.0
            else:
                xp[a] = xc[p, a]
                d[a] = P[i, a] - X0[p, a]
                for b in range(3):
                    Lp[a, b] = Lam[p, a, b]
        _mm3(Lp, E[i], Ep)                   # current joint frame (fixed in the parent)
        for a in range(3):                   # joint centre on the parent side
            centre[a] = xp[a] + (Lp[a, 0] * d[0] + Lp[a, 1] * d[1] + Lp[a, 2] * d[2])
            for b in range(3):               # relative rotation in the joint frame
                Rr[a, b] = 1.0 if a == b else 0.0
        k0 = qoff[i]
        ntr = 0
        for k in range(nvk[c]):
            if dtype[c, k] == T:
                ntr += 1
        for k in range(ntr):                 # translations first (axes fixed in the parent)
            ax = daxis[c, k]
            for a in range(3):
                centre[a] += q[k0 + k] * Ep[a, ax]
        if ballk[c]:
            for a in range(3):
                for b in range(3):
                    Rr[a, b] = q[k0 + ntr + a + 3 * b]
        for k in range(nvk[c]):
            j = voff[i] + k
            crossed[j] = i if dfixed[c, k] == CHILD else p
            ax = daxis[c, k]
            if dtype[c, k] == T:
                for a in range(3):
                    S[j, a] = 0.0
                    S[j, 3 + a] = Ep[a, ax]
            else:                            # child-frame axis (ball) or the product so far
                w0 = Ep[0, 0] * Rr[0, ax] + Ep[0, 1] * Rr[1, ax] + Ep[0, 2] * Rr[2, ax]
                w1 = Ep[1, 0] * Rr[0, ax] + Ep[1, 1] * Rr[1, ax] + Ep[1, 2] * Rr[2, ax]
                w2 = Ep[2, 0] * Rr[0, ax] + Ep[2, 1] * Rr[1, ax] + Ep[2, 2] * Rr[2, ax]
                if not ballk[c]:
                    if k == ntr:             # the first rotation: the product is its matrix
                        _rot_into(ax, q[k0 + k], Rr)
                    else:
                        _rot_into(ax, q[k0 + k], Rk)
                        _mm3(Rr, Rk, tmp)
                        for a in range(3):
                            for b in range(3):
                                Rr[a, b] = tmp[a, b]
                S[j, 0], S[j, 1], S[j, 2] = w0, w1, w2
                S[j, 3] = centre[1] * w2 - centre[2] * w1
                S[j, 4] = centre[2] * w0 - centre[0] * w2
                S[j, 5] = centre[0] * w1 - centre[1] * w0
        _mm3(Ep, Rr, tmp)                    # Lam = Ep Rr E^T
        for a in range(3):
            for b in range(3):
                Lam[i, a, b] = tmp[a, 0] * E[i, b, 0] + tmp[a, 1] * E[i, b, 1] + tmp[a, 2] * E[i, b, 2]
        for a in range(3):
            d[a] = X0[i, a] - P[i, a]
        for a in range(3):
            xc[i, a] = centre[a] + (Lam[i, a, 0] * d[0] + Lam[i, a, 1] * d[1] + Lam[i, a, 2] * d[2])


@njit
def link_velocities(S, v, parent, voff):
    """Spatial velocities (n, 6) of the links: V_i = V_parent + S_i v_i."""
    V = np.empty((parent.size, 6))
    link_velocities_into(S, v, parent, voff, V)
    return V


@njit
def link_velocities_into(S, v, parent, voff, V):
    """link_velocities written into V (n, 6)."""
    for i in range(parent.size):
        p = parent[i]
        for r in range(6):
            V[i, r] = V[p, r] if p >= 0 else 0.0
        for j in range(voff[i], voff[i + 1]):
            for r in range(6):
                V[i, r] += S[j, r] * v[j]


@njit
def _crm(a, b):
    """Spatial motion cross product a x b."""
    out = np.empty(6)
    out[0:3] = _cross(a[0:3], b[0:3])
    out[3:6] = _cross(a[0:3], b[3:6]) + _cross(a[3:6], b[0:3])
    return out


@njit
def _crf(a, f):
    """Spatial force cross product a x* f."""
    out = np.empty(6)
    out[0:3] = _cross(a[0:3], f[0:3]) + _cross(a[3:6], f[3:6])
    out[3:6] = _cross(a[0:3], f[3:6])
    return out


@njit
def spatial_inertias(Lam, xc, mass, J):
    """World spatial inertias (n, 6, 6) about the origin of links with referential inertia
    J about the mass centre: [[Ic + m cx cx^T, m cx], [m cx^T, m 1]], Ic = Lam J Lam^T
    (cx the cross-product matrix of the centre; spatial_inertias_into on a new array)."""
    out = np.empty((mass.size, 6, 6))
    spatial_inertias_into(Lam, xc, mass, J, out, np.empty((6, 3, 3)))
    return out


@njit
def spatial_inertias_into(Lam, xc, mass, J, out, W):
    """spatial_inertias writing every entry of out (n, 6, 6), W (6, 3, 3) work space
    (products written out: no array is made)."""
    LJ, C = W[0], W[1]
    for i in range(mass.size):
        c0, c1, c2 = xc[i, 0], xc[i, 1], xc[i, 2]
        C[0, 0], C[0, 1], C[0, 2] = 0.0, -c2, c1
        C[1, 0], C[1, 1], C[1, 2] = c2, 0.0, -c0
        C[2, 0], C[2, 1], C[2, 2] = -c1, c0, 0.0
        m = mass[i]
        _mm3(Lam[i], J[i], LJ)
        for a in range(3):
            for b in range(3):
                ic = LJ[a, 0] * Lam[i, b, 0] + LJ[a, 1] * Lam[i, b, 1] + LJ[a, 2] * Lam[i, b, 2]
                cc = C[a, 0] * C[b, 0] + C[a, 1] * C[b, 1] + C[a, 2] * C[b, 2]
                out[i, a, b] = ic + m * cc
                out[i, a, 3 + b] = m * C[a, b]
                out[i, 3 + a, b] = m * C[b, a]
                out[i, 3 + a, 3 + b] = m if a == b else 0.0


@njit
def crba(I6, S, parent, voff):
    """Joint-space mass matrix (nv, nv): composite inertias summed towards the root, then
    M[j, k] = S_j . Ic_i S_k for k of joint i and j of i or an ancestor (Featherstone 6.2)."""
    n = parent.size
    nv = voff[n]
    Ic = I6.copy()
    for i in range(n - 1, -1, -1):
        if parent[i] >= 0:
            Ic[parent[i]] += Ic[i]
    M = np.zeros((nv, nv))
    F = np.empty(6)
    for i in range(n):
        for k in range(voff[i], voff[i + 1]):
            for r in range(6):
                acc = 0.0
                for c in range(6):
                    acc += Ic[i, r, c] * S[k, c]
                F[r] = acc
            a = i
            while a >= 0:
                for j in range(voff[a], voff[a + 1]):
                    if a == i and j > k:
                        continue
                    val = 0.0
                    for r in range(6):
                        val += S[j, r] * F[r]
                    M[j, k] = val
                    M[k, j] = val
                a = parent[a]
    return M


@njit
def rnea(I6, S, crossed, parent, voff, v, vdot, gravity, fext):
    """Joint forces tau (nv,) giving accelerations vdot at rates v (Featherstone 5.3, ground
    coordinates): tau = M vdot + bias(v, gravity, fext); fext (n, 6) world spatial forces
    acting on the links; gravity (3,) the acceleration of free fall. Also returns F (n, 6):
    the spatial force each joint transmits from the parent to the child's subtree."""
    n = parent.size
    nv = voff[n]
    V = link_velocities(S, v, parent, voff)
    A = np.zeros((n, 6))
    F = np.zeros((n, 6))
    for i in range(n):
        if parent[i] >= 0:
            A[i] = A[parent[i]]
        else:
            A[i, 3:6] = -gravity          # the ground accelerates upwards (Featherstone 5.3)
        for j in range(voff[i], voff[i + 1]):
            A[i] += S[j] * vdot[j]
            b = crossed[j]
            if b >= 0:
                A[i] += _crm(V[b], S[j]) * v[j]
        F[i] = I6[i] @ A[i] + _crf(V[i], I6[i] @ V[i]) - fext[i]
    tau = np.zeros(nv)
    for i in range(n - 1, -1, -1):
        for j in range(voff[i], voff[i + 1]):
            tau[j] = S[j] @ F[i]
        if parent[i] >= 0:
            F[parent[i]] += F[i]
    return tau, F


@njit
def advance(q, v, h, kind, qoff, voff, nvk, ballk, dtype):
    """q (+) h v: scalar coordinates add h v, ball rotations R <- R expmap(h Omega)."""
    out = np.empty_like(q)
    advance_into(q, v, h, kind, qoff, voff, nvk, ballk, dtype, out)
    return out


@njit
def advance_into(q, v, h, kind, qoff, voff, nvk, ballk, dtype, out):
    """advance written into out (q itself allowed)."""
    for r in range(q.size):
        out[r] = q[r]
    for i in range(kind.size):
        c = kind[i]
        k0, j0 = qoff[i], voff[i]
        ntr = 0
        for k in range(nvk[c]):
            if dtype[c, k] == T:
                ntr += 1
        if ballk[c]:
            for k in range(ntr):
                out[k0 + k] += h * v[j0 + k]
            Rq = np.empty((3, 3))
            for a in range(3):
                for b in range(3):
                    Rq[a, b] = q[k0 + ntr + a + 3 * b]
            Rn = Rq @ _expmap(h * v[j0 + ntr: j0 + ntr + 3])
            for a in range(3):
                for b in range(3):
                    out[k0 + ntr + a + 3 * b] = Rn[a, b]
        else:
            for k in range(nvk[c]):
                out[k0 + k] += h * v[j0 + k]


@njit
def point_jacobians(links, x, S, parent, voff):
    """(k, 3, nv) velocity of world points x (k, 3) of `links` (k,) per joint rate: the
    partial velocities S_v + S_w x x of the joints between each link and the ground."""
    nv = voff[parent.size]
    out = np.zeros((links.size, 3, nv))
    for e in range(links.size):
        a = links[e]
        while a >= 0:
            for j in range(voff[a], voff[a + 1]):
                w = S[j, 0:3]
                out[e, :, j] = S[j, 3:6] + _cross(w, x[e])
            a = parent[a]
    return out


@njit
def _articulated_inertia(IA, i, p, S, j0, m, U, Dinv, D):
    """One joint of the articulated-body recursion (Featherstone 7.3): fills U = I^A S and the
    rows of D^-1 = (S^T I^A S)^-1 of its m rates from j0, turns IA[i] (6, 6), the
    articulated inertia I^A of link i, into I^A - U D^-1 U^T, the inertia the joint passes to
    its parent, and adds that to IA[p] unless p < 0 (D: a 6 x 6 work array)."""
    for a in range(m):
        for r in range(6):
            acc = 0.0
            for c in range(6):
                acc += IA[i, r, c] * S[j0 + a, c]
            U[j0 + a, r] = acc
    for a in range(m):
        for b in range(m):
            acc = 0.0
            for r in range(6):
                acc += S[j0 + a, r] * U[j0 + b, r]
            D[a, b] = acc
    if m == 1:                               # a single rate (revolute, prismatic): 1 / D
        d = 1.0 / D[0, 0]
        Dinv[j0, 0] = d
        for r in range(6):
            ur = U[j0, r]
            for c in range(6):
                IA[i, r, c] -= d * (ur * U[j0, c])
    elif m > 1:
        Di = np.linalg.inv(D[:m, :m])
        for a in range(m):
            for b in range(m):
                Dinv[j0 + a, b] = Di[a, b]
        for a in range(m):
            for b in range(m):
                dab = Di[a, b]
                for r in range(6):
                    for c in range(6):
                        IA[i, r, c] -= dab * (U[j0 + a, r] * U[j0 + b, c])
    if p >= 0:
        for r in range(6):
            for c in range(6):
                IA[p, r, c] += IA[i, r, c]


@njit
def _crm_add(a, b, s, out):
    """out += s (a x b), the spatial motion cross product."""
    out[0] += s * (a[1] * b[2] - a[2] * b[1])
    out[1] += s * (a[2] * b[0] - a[0] * b[2])
    out[2] += s * (a[0] * b[1] - a[1] * b[0])
    out[3] += s * ((a[1] * b[5] - a[2] * b[4]) + (a[4] * b[2] - a[5] * b[1]))
    out[4] += s * ((a[2] * b[3] - a[0] * b[5]) + (a[5] * b[0] - a[3] * b[2]))
    out[5] += s * ((a[0] * b[4] - a[1] * b[3]) + (a[3] * b[1] - a[4] * b[0]))


@njit
def _dot6(a, b):
    return ((a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])) + (a[4] * b[4] + a[5] * b[5])


@njit
def aba(I6, S, crossed, parent, voff, v, tau, gravity, fext):
    """Joint accelerations (nv,) by the articulated-body algorithm in ground coordinates
    (Featherstone 7.3): vdot = M^-1 (tau - bias(v, gravity, fext)) in O(n) (aba_into on a
    copy of the inertias I6 (n, 6, 6) and new work arrays)."""
    nv = voff[parent.size]
    links, rates, small, uu = aba_workspace(parent.size, nv)
    vdot = np.empty(nv)
    aba_into(I6.copy(), S, crossed, parent, voff, v, tau, gravity, fext, links, rates, small, uu, vdot)
    return vdot


@njit
def aba_workspace(n, nv):
    """Work arrays of aba_into for n links and nv rates: (links (4, n, 6), rates (2, nv, 6),
    small (8, 6), uu (nv,))."""
    return np.empty((4, n, 6)), np.empty((2, nv, 6)), np.empty((8, 6)), np.empty(nv)


@njit
def aba_into(IA, S, crossed, parent, voff, v, tau, gravity, fext, links, rates, small, uu, vdot):
    """aba writing vdot (nv,): IA (n, 6, 6) holds the links' spatial inertias on entry and
    their articulated inertias less the joints' share on return; links, rates, small, uu
    from aba_workspace (the link velocities V = links[0]); its 6-vector products written
    out (no array is made)."""
    n = parent.size
    V, C, pA, A = links[0], links[1], links[2], links[3]
    U, Dinv = rates[0], rates[1]         # I^A S per rate; rows of D^-1 per joint (m x m)
    D, f, pa = small[0:6], small[6], small[7]
    link_velocities_into(S, v, parent, voff, V)
    for i in range(n):
        for r in range(6):                # velocity-product accelerations of the joints
            C[i, r] = 0.0
        for j in range(voff[i], voff[i + 1]):
            b = crossed[j]
            if b >= 0:
                _crm_add(V[b], S[j], v[j], C[i])
        for r in range(6):                # f = I V, then pA = V x* f - fext
            f[r] = _dot6(IA[i, r], V[i])
        w0, w1, w2, u0, u1, u2 = V[i, 0], V[i, 1], V[i, 2], V[i, 3], V[i, 4], V[i, 5]
        pA[i, 0] = (w1 * f[2] - w2 * f[1]) + (u1 * f[5] - u2 * f[4]) - fext[i, 0]
        pA[i, 1] = (w2 * f[0] - w0 * f[2]) + (u2 * f[3] - u0 * f[5]) - fext[i, 1]
        pA[i, 2] = (w0 * f[1] - w1 * f[0]) + (u0 * f[4] - u1 * f[3]) - fext[i, 2]
        pA[i, 3] = (w1 * f[5] - w2 * f[4]) - fext[i, 3]
        pA[i, 4] = (w2 * f[3] - w0 * f[5]) - fext[i, 4]
        pA[i, 5] = (w0 * f[4] - w1 * f[3]) - fext[i, 5]
    for i in range(n - 1, -1, -1):
        j0, m = voff[i], voff[i + 1] - voff[i]
        p = parent[i]
        _articulated_inertia(IA, i, p, S, j0, m, U, Dinv, D)
        for r in range(6):
            pa[r] = pA[i, r]
        for a in range(m):
            uu[j0 + a] = tau[j0 + a] - _dot6(S[j0 + a], pA[i])
        for a in range(m):
            for b in range(m):
                coef = Dinv[j0 + a, b] * uu[j0 + b]
                for r in range(6):
                    pa[r] += U[j0 + a, r] * coef
        if p >= 0:
            for r in range(6):
                pA[p, r] += pa[r] + _dot6(IA[i, r], C[i])
    for i in range(n):
        p = parent[i]
        for r in range(6):
            A[i, r] = (A[p, r] if p >= 0 else (-gravity[r - 3] if r >= 3 else 0.0)) + C[i, r]
        j0, m = voff[i], voff[i + 1] - voff[i]
        for a in range(m):
            acc = 0.0
            for b in range(m):
                acc += Dinv[j0 + a, b] * (uu[j0 + b] - _dot6(U[j0 + b], A[i]))
            vdot[j0 + a] = acc
        for a in range(m):
            for r in range(6):
                A[i, r] += S[j0 + a, r] * vdot[j0 + a]


@njit
def link_responses(I6, S, parent, voff, links):
    """Inverse inertia between links (L, L, 6, 6): out[a, b] (6, 6) maps a spatial force on
    link links[b] to the spatial acceleration of link links[a] it causes from rest,
    J_a M^-1 J_b^T (J: partial velocities of a link). One articulated-body factorisation
    (Featherstone 7.3) and, per unit force, a pass to the root and one back down the links
    that carry requested links: O(L n)."""
    n = parent.size
    nv = voff[n]
    L = links.size
    need = np.zeros(n, dtype=np.bool_)
    for a in range(L):
        i = links[a]
        while i >= 0 and not need[i]:
            need[i] = True
            i = parent[i]
    IA = I6.copy()
    U = np.zeros((nv, 6))
    Dinv = np.zeros((nv, 6))
    D = np.empty((6, 6))
    for i in range(n - 1, -1, -1):             # articulated inertias and D^-1 per joint
        j0, m = voff[i], voff[i + 1] - voff[i]
        _articulated_inertia(IA, i, parent[i], S, j0, m, U, Dinv, D)
    out = np.zeros((L, L, 6, 6))
    pA = np.zeros((n, 6))
    uu = np.zeros(nv)
    A = np.zeros((n, 6))
    for b in range(L):
        for k in range(6):
            pA[:] = 0.0
            uu[:] = 0.0
            pA[links[b], k] = -1.0            # bias of a unit external force: -f
            i = links[b]
            while i >= 0:                      # only the path to the root carries bias forces
                j0, m = voff[i], voff[i + 1] - voff[i]
                pa = pA[i].copy()
                for a in range(m):
                    uu[j0 + a] = -(S[j0 + a] @ pA[i])
                for a in range(m):
                    for c in range(m):
                        pa += U[j0 + a] * Dinv[j0 + a, c] * uu[j0 + c]
                if parent[i] >= 0:
                    pA[parent[i]] += pa
                i = parent[i]
            for i in range(n):
                if not need[i]:
                    continue
                if parent[i] >= 0:
                    A[i] = A[parent[i]]
                else:
                    A[i] = 0.0
                j0, m = voff[i], voff[i + 1] - voff[i]
                ap = A[i].copy()
                for a in range(m):
                    acc = 0.0
                    for c in range(m):
                        acc += Dinv[j0 + a, c] * (uu[j0 + c] - U[j0 + c] @ ap)
                    A[i] += S[j0 + a] * acc
            for a in range(L):
                out[a, b, :, k] = A[links[a]]
    return out


@njit
def free_rates(q_half, u, h, tau, gravity, fext, parent, kind, qoff, voff, E, P, X0, mass, J, nvk, ballk, dtype,
               daxis, dfixed):
    """The free end rates of Solfec's half step in joint space at constant joint forces tau
    (stepping.begin without drives or rate-dependent forces, in one call): u_mid = u + h/2
    M^-1 Q(u), u_free = u + h M^-1 Q(u_mid), M^-1 Q by `aba` at the mid-step coordinates
    q_half. Returns u_free and the kinematics and inertias of q_half (for the tree's caches)."""
    Lam, xc, S, crossed = forward_kinematics(q_half, parent, kind, qoff, voff, E, P, X0, nvk, ballk, dtype, daxis,
                                             dfixed)
    I6 = spatial_inertias(Lam, xc, mass, J)
    a = aba(I6, S, crossed, parent, voff, u, tau, gravity, fext)
    u_mid = u + 0.5 * h * a
    a = aba(I6, S, crossed, parent, voff, u_mid, tau, gravity, fext)
    return u + h * a, Lam, xc, S, crossed, I6


@njit
def integrate_free(q, u, h, steps, tau, gravity, fext, parent, kind, qoff, voff, E, P, X0, mass, J, nvk, ballk,
                   dtype, daxis, dfixed):
    """`steps` free half steps (`free_rates` between q(t+h/2) = q (+) h/2 u and q(t+h) =
    q(t+h/2) (+) h/2 u_free) in compiled code: stepping.integrate at constant joint forces.
    Returns (q, u) at the end."""
    for _ in range(steps):
        q_half = advance(q, u, 0.5 * h, kind, qoff, voff, nvk, ballk, dtype)
        u = free_rates(q_half, u, h, tau, gravity, fext, parent, kind, qoff, voff, E, P, X0, mass, J, nvk, ballk,
                       dtype, daxis, dfixed)[0]
        q = advance(q_half, u, 0.5 * h, kind, qoff, voff, nvk, ballk, dtype)
    return q, u


@njit
def rigid_rows(Lam, xc, V):
    """Links' states in the rigid layout (bodies/rigid.py) from their rotations, mass centres
    and spatial velocities V (n, 6): conf (n, 12) = Lam column-major + xc, velo (n, 6) =
    referential angular velocity Lam^T w + mass-centre velocity v_O + w x xc."""
    n = xc.shape[0]
    conf = np.empty((n, 12))
    velo = np.empty((n, 6))
    for i in range(n):
        for b in range(3):
            for a in range(3):
                conf[i, 3 * b + a] = Lam[i, a, b]
            conf[i, 9 + b] = xc[i, b]
        w0, w1, w2 = V[i, 0], V[i, 1], V[i, 2]
        for a in range(3):
            velo[i, a] = Lam[i, 0, a] * w0 + Lam[i, 1, a] * w1 + Lam[i, 2, a] * w2
        velo[i, 3] = V[i, 3] + (w1 * xc[i, 2] - w2 * xc[i, 1])
        velo[i, 4] = V[i, 4] + (w2 * xc[i, 0] - w0 * xc[i, 2])
        velo[i, 5] = V[i, 5] + (w0 * xc[i, 1] - w1 * xc[i, 0])
    return conf, velo
