"""W of the points of one implicit finite-element body in factored form (layer 5): the
blocks W_ef = h s_e s_f H_e A^-1 H_f^T of all its constraint points, kept as
W_body = h P S P^T with S = E^T A^-1 E (3t x 3t, dense, symmetric) the inverse operator
restricted to the t nodes the points' elements touch and P the points' sparse H rows
(12 entries each for a TET4 point). A product W_body x is a gather, one dense (3t)^2
product and a scatter, against (3m)^2 for the m points' assembled pairs: cheaper as soon
as t < m (contact points on a face share its nodes), and no pair is ever gathered.
Reference: Solfec-1.0 ldy.c (the Delassus blocks it assembles pair by pair);
solvers/local_dynamics.py (the pair assembly this replaces for such bodies).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solfec_py.compilation import njit
from solfec_py.solvers.local_dynamics_kernels import unordered_pairs


@njit
def gather_transpose(con, sign, tidx, N, base, x, y):
    """y (3t,) = sum over entries e of s_e H_e^T x[con_e] (H_e = base_e^T [N_1 I ... N_w I]
    over the touched-node slots tidx[e])."""
    y[:] = 0.0
    for e in range(con.size):
        c, s = con[e], sign[e]
        f0 = s * (base[e, 0, 0] * x[c, 0] + base[e, 0, 1] * x[c, 1] + base[e, 0, 2] * x[c, 2])
        f1 = s * (base[e, 1, 0] * x[c, 0] + base[e, 1, 1] * x[c, 1] + base[e, 1, 2] * x[c, 2])
        f2 = s * (base[e, 2, 0] * x[c, 0] + base[e, 2, 1] * x[c, 1] + base[e, 2, 2] * x[c, 2])
        for k in range(tidx.shape[1]):
            w = N[e, k]
            if w == 0.0:
                continue
            a = 3 * tidx[e, k]
            y[a] += w * f0
            y[a + 1] += w * f1
            y[a + 2] += w * f2


@njit
def scatter(con, sign, tidx, N, base, z, h, out):
    """out[con_e] += h s_e H_e z for every entry e."""
    for e in range(con.size):
        g0 = g1 = g2 = 0.0
        for k in range(tidx.shape[1]):
            w = N[e, k]
            if w == 0.0:
                continue
            a = 3 * tidx[e, k]
            g0 += w * z[a]
            g1 += w * z[a + 1]
            g2 += w * z[a + 2]
        c, hs = con[e], h * sign[e]
        for i in range(3):
            out[c, i] += hs * (base[e, 0, i] * g0 + base[e, 1, i] * g1 + base[e, 2, i] * g2)


@njit
def pair_blocks(tidx, N, base, S, e, f, out):
    """out[p] (3, 3) = H_e S H_f^T for the entry pairs (e[p], f[p])."""
    w = tidx.shape[1]
    q = np.empty((w, 3, 3))          # (S H_f^T) at the rows of e's node slots
    for p in range(e.size):
        a, b = e[p], f[p]
        for ka in range(w):
            ra = 3 * tidx[a, ka]
            for j in range(3):
                for i2 in range(3):
                    s = 0.0
                    for kb in range(w):
                        wb = N[b, kb]
                        if wb == 0.0:
                            continue
                        rb = 3 * tidx[b, kb]
                        s += wb * (S[ra + j, rb] * base[b, 0, i2] + S[ra + j, rb + 1] * base[b, 1, i2]
                                   + S[ra + j, rb + 2] * base[b, 2, i2])
                    q[ka, j, i2] = s
        for i in range(3):
            for i2 in range(3):
                s = 0.0
                for ka in range(w):
                    wa = N[a, ka]
                    if wa == 0.0:
                        continue
                    s += wa * (base[a, 0, i] * q[ka, 0, i2] + base[a, 1, i] * q[ka, 1, i2]
                               + base[a, 2, i] * q[ka, 2, i2])
                out[p, i, i2] = s


@dataclass
class FactoredBody:
    """The constraint points of one body: local-dynamics rows con, signs, H as touched-node
    slots tidx (k, w) with weights N (k, w) and bases (k, 3, 3), and S (3t, 3t)."""

    con: np.ndarray
    sign: np.ndarray
    tidx: np.ndarray
    N: np.ndarray
    base: np.ndarray
    S: np.ndarray
    h: float

    def add_product(self, x: np.ndarray, out: np.ndarray) -> None:
        """out += W_body x (x, out (n, 3))."""
        y = np.empty(self.S.shape[0])
        gather_transpose(self.con, self.sign, self.tidx, self.N, self.base, x, y)
        scatter(self.con, self.sign, self.tidx, self.N, self.base, self.S @ y, self.h, out)

    def diagonal(self):
        """(rows, blocks) of W_body's share of the diagonal blocks W_aa: h H_e S H_e^T for
        every entry, and h s_e s_f (W_ef + W_ef^T) for two entries of one constraint."""
        k = self.con.size
        every = np.arange(k)
        te, tf = unordered_pairs(self.con, every) if k > 1 else (every[:0], every[:0])
        e, f = np.concatenate([every, te]), np.concatenate([every, tf])
        blocks = np.empty((e.size, 3, 3))
        pair_blocks(self.tidx, self.N, self.base, self.S, e, f, blocks)
        blocks[k:] = (self.sign[e[k:]] * self.sign[f[k:]])[:, None, None] * (blocks[k:] + blocks[k:].transpose(0, 2, 1))
        return self.con[e], self.h * blocks

    def dense_pairs(self, e: np.ndarray, f: np.ndarray) -> np.ndarray:
        """H_e S H_f^T (E, 3, 3) of entry pairs (unscaled, unsigned), as the pair assembly has them."""
        out = np.empty((e.size, 3, 3))
        pair_blocks(self.tidx, self.N, self.base, self.S, np.ascontiguousarray(e, np.int64),
                    np.ascontiguousarray(f, np.int64), out)
        return out


def offdiagonal_product(bodies, Wfd: np.ndarray, x: np.ndarray) -> np.ndarray:
    """sum over factored bodies of W_body x, less the diagonal blocks' share Wfd x: the
    off-diagonal part those bodies add to W x."""
    out = np.zeros(x.shape)
    x = np.ascontiguousarray(x, dtype=float)
    for body in bodies:
        body.add_product(x, out)
    out -= np.einsum("kij,kj->ki", Wfd, x)
    return out
