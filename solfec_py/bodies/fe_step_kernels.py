"""Fused per-node updates of the explicit finite-element step (layer 3): the half-step
position update, the lumped-mass velocity update, the work of the step and the kinetic
energy of every body in one pass each, and the symmetric block matrix-vector product of a
constant stiffness (the BC internal force). The formulas are those of bodies/fe_dynamics.py
(Solfec-1.0 fem.c ``TL_dynamic_explicit_*``); these kernels only avoid the temporaries and
boolean-mask copies of the same numpy expressions (docs/corotational.md, speed).
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


@njit(fastmath=True)
def begin_half_step(q, u, u0, r, h):
    """u0 = u, r = 0, q += h/2 u over all nodes."""
    half = 0.5 * h
    for n in range(q.shape[0]):
        for a in range(3):
            v = u[n, a]
            u0[n, a] = v
            r[n, a] = 0.0
            q[n, a] += half * v


@njit(fastmath=True)
def lumped_velocity(u, u0, f, mass, explicit, h, add):
    """u = u0 + h f / m (add=False) or u += h f / m (add=True) at the nodes with explicit[n]."""
    for n in range(u.shape[0]):
        if explicit[n]:
            s = h / mass[n]
            for a in range(3):
                u[n, a] = (u[n, a] if add else u0[n, a]) + s * f[n, a]


@njit(fastmath=True)
def end_half_step(q, u, u0, fext, r, mass, node_row, h, work, kinetic):
    """q += h/2 u; work[row] += h/2 (u0 + u).(fext + r); kinetic[row] = m u.u / 2 (summed)."""
    half = 0.5 * h
    kinetic[:] = 0.0
    for n in range(q.shape[0]):
        w = 0.0
        k = 0.0
        for a in range(3):
            v = u[n, a]
            q[n, a] += half * v
            w += (u0[n, a] + v) * (fext[n, a] + r[n, a])
            k += v * v
        b = node_row[n]
        work[b] += half * w
        kinetic[b] += 0.5 * mass[n] * k


@njit
def first_nonfinite(q, u):
    """Index of the first node whose q or u holds a NaN or an infinity, or -1."""
    for n in range(q.shape[0]):
        for a in range(3):
            if not (np.isfinite(q[n, a]) and np.isfinite(u[n, a])):
                return n
    return -1


def upper_blocks(K) -> tuple:
    """(indptr, indices, blocks) of the 3 x 3 blocks on and above the diagonal of a
    symmetric matrix (scipy sparse, 3n x 3n): the storage `symmetric_matvec` reads."""
    B = K.tobsr(blocksize=(3, 3))
    B.sort_indices()
    nb = B.shape[0] // 3
    row = np.repeat(np.arange(nb), np.diff(B.indptr))
    keep = B.indices >= row
    indptr = np.zeros(nb + 1, dtype=np.int64)
    np.cumsum(np.bincount(row[keep], minlength=nb), out=indptr[1:])
    return indptr, B.indices[keep].astype(np.int64), np.ascontiguousarray(B.data[keep])


@njit(fastmath=True)
def symmetric_matvec(indptr, indices, blocks, x, y):
    """y (n, 3) = K x for K symmetric given by its upper 3 x 3 blocks (`upper_blocks`):
    each stored block K_ij adds K_ij x_j to y_i and, off the diagonal, K_ij^T x_i to y_j
    (half the matrix is read)."""
    y[:] = 0.0
    for i in range(indptr.size - 1):
        xi0, xi1, xi2 = x[i, 0], x[i, 1], x[i, 2]
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            b = blocks[p]
            xj0, xj1, xj2 = x[j, 0], x[j, 1], x[j, 2]
            a0 += b[0, 0] * xj0 + b[0, 1] * xj1 + b[0, 2] * xj2
            a1 += b[1, 0] * xj0 + b[1, 1] * xj1 + b[1, 2] * xj2
            a2 += b[2, 0] * xj0 + b[2, 1] * xj1 + b[2, 2] * xj2
            if j != i:
                y[j, 0] += b[0, 0] * xi0 + b[1, 0] * xi1 + b[2, 0] * xi2
                y[j, 1] += b[0, 1] * xi0 + b[1, 1] * xi1 + b[2, 1] * xi2
                y[j, 2] += b[0, 2] * xi0 + b[1, 2] * xi1 + b[2, 2] * xi2
        y[i, 0] += a0
        y[i, 1] += a1
        y[i, 2] += a2
