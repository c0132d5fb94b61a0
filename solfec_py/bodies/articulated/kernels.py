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
"""
from __future__ import annotations

import numba
import numpy as np

from solfec_py.bodies.articulated.kinds import CHILD, T


@numba.njit(cache=True)
def _rot(axis, angle):
    """Rotation matrix about a coordinate axis (0, 1, 2) by `angle`."""
    c, s = np.cos(angle), np.sin(angle)
    out = np.eye(3)
    i, j = (axis + 1) % 3, (axis + 2) % 3
    out[i, i], out[i, j], out[j, i], out[j, j] = c, -s, s, c
    return out


@numba.njit(cache=True)
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def forward_kinematics(q, parent, kind, qoff, voff, E, P, X0, nvk, ballk, dtype, daxis, dfixed):
    """Link rotations Lam (n, 3, 3), mass centres xc (n, 3), motion subspace columns
    S (nv, 6) and crossed links (nv,) of joint coordinates q."""
    n = parent.size
    Lam = np.empty((n, 3, 3))
    xc = np.empty((n, 3))
    S = np.zeros((voff[n], 6))
    crossed = np.empty(voff[n], np.int64)
    for i in range(n):
        p, c = parent[i], kind[i]
        if p < 0:
            Lp, xp, Xp = np.eye(3), np.zeros(3), np.zeros(3)
        else:
            Lp, xp, Xp = Lam[p], xc[p], X0[p]
        Ep = Lp @ E[i]                       # current joint frame (fixed in the parent)
        centre = xp + Lp @ (P[i] - Xp)       # joint centre on the parent side
        Rr = np.eye(3)                       # relative rotation in the joint frame
        k0 = qoff[i]
        ntr = 0
        for k in range(nvk[c]):
            if dtype[c, k] == T:
                ntr += 1
        for k in range(ntr):                 # translations first (axes fixed in the parent)
            centre = centre + q[k0 + k] * Ep[:, daxis[c, k]]
        if ballk[c]:
            for a in range(3):
                for b in range(3):
                    Rr[a, b] = q[k0 + ntr + a + 3 * b]
        for k in range(nvk[c]):
            j = voff[i] + k
            crossed[j] = i if dfixed[c, k] == CHILD else p
            if dtype[c, k] == T:
                S[j, 3:6] = Ep[:, daxis[c, k]]
            else:
                w = Ep @ np.ascontiguousarray(Rr[:, daxis[c, k]])   # child-frame axis (ball) or
                if not ballk[c]:                                       # the product so far
                    Rr = Rr @ _rot(daxis[c, k], q[k0 + k])
                S[j, 0:3] = w
                S[j, 3:6] = _cross(centre, w)
        Lam[i] = Ep @ Rr @ E[i].T
        xc[i] = centre + Lam[i] @ (X0[i] - P[i])
    return Lam, xc, S, crossed


@numba.njit(cache=True)
def link_velocities(S, v, parent, voff):
    """Spatial velocities (n, 6) of the links: V_i = V_parent + S_i v_i."""
    n = parent.size
    V = np.zeros((n, 6))
    for i in range(n):
        if parent[i] >= 0:
            V[i] = V[parent[i]]
        for j in range(voff[i], voff[i + 1]):
            V[i] += S[j] * v[j]
    return V


@numba.njit(cache=True)
def _crm(a, b):
    """Spatial motion cross product a x b."""
    out = np.empty(6)
    out[0:3] = _cross(a[0:3], b[0:3])
    out[3:6] = _cross(a[0:3], b[3:6]) + _cross(a[3:6], b[0:3])
    return out


@numba.njit(cache=True)
def _crf(a, f):
    """Spatial force cross product a x* f."""
    out = np.empty(6)
    out[0:3] = _cross(a[0:3], f[0:3]) + _cross(a[3:6], f[3:6])
    out[3:6] = _cross(a[0:3], f[3:6])
    return out


@numba.njit(cache=True)
def spatial_inertias(Lam, xc, mass, J):
    """World spatial inertias (n, 6, 6) about the origin of links with referential inertia
    J about the mass centre: [[Ic + m cx cx^T, m cx], [m cx^T, m 1]], Ic = Lam J Lam^T."""
    n = mass.size
    out = np.zeros((n, 6, 6))
    for i in range(n):
        c = xc[i]
        C = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
        m = mass[i]
        out[i, 0:3, 0:3] = Lam[i] @ J[i] @ Lam[i].T + m * (C @ C.T)
        out[i, 0:3, 3:6] = m * C
        out[i, 3:6, 0:3] = m * C.T
        for a in range(3):
            out[i, 3 + a, 3 + a] = m
    return out


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def advance(q, v, h, kind, qoff, voff, nvk, ballk, dtype):
    """q (+) h v: scalar coordinates add h v, ball rotations R <- R expmap(h Omega)."""
    out = q.copy()
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
    return out


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _articulated_inertia(IAi, S, j0, m, U, Dinv):
    """One joint of the articulated-body recursion (Featherstone 7.3): fills U = I^A S and the
    rows of D^-1 = (S^T I^A S)^-1 of its m rates from j0, and returns I^A - U D^-1 U^T, the
    inertia the joint passes to its parent."""
    Ia = IAi.copy()
    if m == 0:
        return Ia
    D = np.empty((m, m))
    for a in range(m):
        U[j0 + a] = IAi @ S[j0 + a]
    for a in range(m):
        for b in range(m):
            D[a, b] = S[j0 + a] @ U[j0 + b]
    Di = np.linalg.inv(D)
    for a in range(m):
        for b in range(m):
            Dinv[j0 + a, b] = Di[a, b]
            Ia -= Di[a, b] * np.outer(U[j0 + a], U[j0 + b])
    return Ia


@numba.njit(cache=True)
def aba(I6, S, crossed, parent, voff, v, tau, gravity, fext):
    """Joint accelerations (nv,) by the articulated-body algorithm in ground coordinates
    (Featherstone 7.3): vdot = M^-1 (tau - bias(v, gravity, fext)) in O(n)."""
    n = parent.size
    nv = voff[n]
    V = link_velocities(S, v, parent, voff)
    C = np.zeros((n, 6))                  # velocity-product accelerations of the joints
    IA = I6.copy()
    pA = np.zeros((n, 6))
    for i in range(n):
        for j in range(voff[i], voff[i + 1]):
            b = crossed[j]
            if b >= 0:
                C[i] += _crm(V[b], S[j]) * v[j]
        pA[i] = _crf(V[i], I6[i] @ V[i]) - fext[i]
    U = np.zeros((nv, 6))                 # I^A S per rate
    Dinv = np.zeros((nv, 6))              # rows of D^-1 per joint (m x m in the first m columns)
    uu = np.zeros(nv)
    for i in range(n - 1, -1, -1):
        j0, m = voff[i], voff[i + 1] - voff[i]
        Ia = _articulated_inertia(IA[i], S, j0, m, U, Dinv)
        pa = pA[i].copy()
        if m > 0:
            for a in range(m):
                uu[j0 + a] = tau[j0 + a] - S[j0 + a] @ pA[i]
            for a in range(m):
                for b in range(m):
                    pa += U[j0 + a] * Dinv[j0 + a, b] * uu[j0 + b]
        if parent[i] >= 0:
            pa += Ia @ C[i]
            IA[parent[i]] += Ia
            pA[parent[i]] += pa
    vdot = np.zeros(nv)
    A = np.zeros((n, 6))
    for i in range(n):
        if parent[i] >= 0:
            ap = A[parent[i]].copy()
        else:
            ap = np.zeros(6)
            ap[3:6] = -gravity
        ac = ap + C[i]
        j0, m = voff[i], voff[i + 1] - voff[i]
        for a in range(m):
            acc = 0.0
            for b in range(m):
                acc += Dinv[j0 + a, b] * (uu[j0 + b] - U[j0 + b] @ ac)
            vdot[j0 + a] = acc
        A[i] = ac
        for a in range(m):
            A[i] += S[j0 + a] * vdot[j0 + a]
    return vdot


@numba.njit(cache=True)
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
    for i in range(n - 1, -1, -1):             # articulated inertias and D^-1 per joint
        j0, m = voff[i], voff[i + 1] - voff[i]
        Ia = _articulated_inertia(IA[i], S, j0, m, U, Dinv)
        if parent[i] >= 0:
            IA[parent[i]] += Ia
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
