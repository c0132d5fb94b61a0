"""Body co-rotational (BC) kinematics (layer 1): one rotation per body, the polar factor of
the volume-averaged deformation gradient, co-rotated displacements and the internal force
of a constant stiffness K0 rotated with the body.
Reference: Solfec-1.0 fem.c (``BC_update_rotation``, ``BC_internal_force``); Felippa &
Haugen, "A unified formulation of small-strain corotational finite elements", CMAME 194
(2005); docs/corotational.md.

With x_k = X_k + q_k the current nodes of a body of referential volume V0 and
G_k = int grad_X N_k dV (nodal gradient integrals, computed once):
  F_bar = (1 / V0) sum_k x_k (x) G_k  (= (1 / V0) int x (x) N0 dA by the divergence theorem)
  R     = polar rotation of F_bar     (S = R^T F_bar symmetric: Solfec's definition)
  d_k   = R^T x_k - X_k,   y = K0 d,   E = d . y / 2,
  f_k   = R y_k + (1 / V0) R (c x G_k),  c = (tr(S) I - S)^-1 R^T tau,  tau = sum_k (R y_k) x x_k.
The second term of f is the variation of R (the exact gradient of E); Solfec keeps only
R K0 d. With it E is invariant under rotations of x and its gradient has no moment
(sum x_k x f_k = 0), so the explicit step keeps angular momentum to round-off; it is of
second order in d (tau = R sum y_k x d_k) and vanishes at small strains.
All kernels work on the BC nodes of a block in one pass: `nodes` (m,) global node indices,
`body` (m,) the position of each node's body in the per-body arrays (b, ...).
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


def nodal_gradients(groups, nnodes: int) -> np.ndarray:
    """G (nnodes, 3): sum over the elements around each node of int grad_X N_k dV (the
    stiffness rule of each group: exact for the constant and linear fields it sees)."""
    G = np.zeros((nnodes, 3))
    for g in groups:
        per = np.einsum("eq,eqkj->ekj", g.wJ, g.dNdX)
        for a in range(g.conn.shape[1]):
            np.add.at(G, g.conn[:, a], per[:, a])
    return G


@njit
def average_gradients(X, q, G, nodes, body, nb, vol, Fbar):
    """Fbar (nb, 3, 3) = (1 / V0) sum_k (X_k + q_k) (x) G_k over each body's nodes."""
    Fbar[:] = 0.0
    for i in range(nodes.size):
        n, b = nodes[i], body[i]
        for a in range(3):
            xa = X[n, a] + q[n, a]
            for j in range(3):
                Fbar[b, a, j] += xa * G[n, j]
    for b in range(nb):
        for a in range(3):
            for j in range(3):
                Fbar[b, a, j] /= vol[b]


def polar_rotations(Fbar: np.ndarray):
    """(R, S) of F = R S (R proper orthogonal, S symmetric) for a stack (b, 3, 3); S is
    positive definite unless F_bar is inverted (the body turned inside out)."""
    U, s, Vt = np.linalg.svd(Fbar)
    sign = np.sign(np.linalg.det(U @ Vt))
    U[:, :, 2] *= sign[:, None]
    s[:, 2] *= sign
    R = U @ Vt
    S = np.einsum("bji,bj,bjk->bik", Vt, s, Vt)
    return R, S


@njit(fastmath=True)
def corotated(X, q, nodes, body, R, d):
    """d (m, 3) = R_b^T x_k - X_k for the listed nodes."""
    for i in range(nodes.size):
        n, b = nodes[i], body[i]
        for a in range(3):
            s = 0.0
            for j in range(3):
                s += R[b, j, a] * (X[n, j] + q[n, j])
            d[i, a] = s - X[n, a]


@njit(fastmath=True)
def rotate_back(X, q, nodes, body, R, centre, d, y, f, energy, torque):
    """f[n] = R_b y_i (overwritten) for the listed nodes; energy (b,) += d . y / 2;
    torque (b, 3) += (R_b y_i) x (x_n - centre_b) (the same as about the origin, since
    sum_i y_i = 0, with less cancellation for bodies far from it)."""
    for i in range(nodes.size):
        n, b = nodes[i], body[i]
        e = 0.0
        for a in range(3):
            s = 0.0
            for j in range(3):
                s += R[b, a, j] * y[i, j]
            f[n, a] = s
            e += d[i, a] * y[i, a]
        energy[b] += 0.5 * e
        x0, x1, x2 = X[n, 0] + q[n, 0] - centre[b, 0], X[n, 1] + q[n, 1] - centre[b, 1], X[n, 2] + q[n, 2] - centre[b, 2]
        torque[b, 0] += f[n, 1] * x2 - f[n, 2] * x1
        torque[b, 1] += f[n, 2] * x0 - f[n, 0] * x2
        torque[b, 2] += f[n, 0] * x1 - f[n, 1] * x0


def rotation_variation(R, S, torque, vol):
    """c (b, 3) = (1 / V0) (tr(S) I - S)^-1 R^T tau: the material axis of the force term
    of the variation of R (module docstring), applied by `add_rotated_variation`."""
    A = np.trace(S, axis1=1, axis2=2)[:, None, None] * np.eye(3) - S
    c = np.linalg.solve(A, np.einsum("bji,bj->bi", R, torque)[..., None])[..., 0]
    return c / vol[:, None]


@njit(fastmath=True)
def add_rotated_variation(G, nodes, body, R, c, f):
    """f[n] += R_b (c_b x G_n) (the variation of R, module docstring)."""
    for i in range(nodes.size):
        n, b = nodes[i], body[i]
        v0 = c[b, 1] * G[n, 2] - c[b, 2] * G[n, 1]
        v1 = c[b, 2] * G[n, 0] - c[b, 0] * G[n, 2]
        v2 = c[b, 0] * G[n, 1] - c[b, 1] * G[n, 0]
        for a in range(3):
            f[n, a] += R[b, a, 0] * v0 + R[b, a, 1] * v1 + R[b, a, 2] * v2


@njit(fastmath=True)
def rotate_nodal(R, body, v, out, transpose):
    """out (m, k) = blockdiag(R_b) v (or R_b^T v), v (m, k) with 3 rows per node."""
    m = body.size
    for i in range(m):
        b = body[i]
        for col in range(v.shape[1]):
            for a in range(3):
                s = 0.0
                for j in range(3):
                    s += (R[b, j, a] if transpose else R[b, a, j]) * v[3 * i + j, col]
                out[3 * i + a, col] = s
