"""The rigid block's point maps in numpy, for a block that holds obstacles only (layer 3):
the same products, summed in the same order, as the kernels of bodies/rigid.py, so the
same numbers bit for bit. A deck whose only rigid bodies are obstacles (a floor under
finite-element bodies) then compiles none of those kernels on its first run
(bench/README.md "First run"); an obstacle block has a few rows, where numpy's per-call
cost does not matter. Layout as in rigid.py: conf = Lambda column-major (9) + centre (3),
velo = referential Omega (3) + centre velocity (3).
"""
from __future__ import annotations

import numpy as np


def cur_points(rows, X, conf, center):
    """x = xc + Lambda (X - X0) per entry (rigid._cur_points)."""
    c, o = conf[rows], center[rows]
    a = X - o
    return c[:, 9:12] + c[:, 0:3] * a[:, 0:1] + c[:, 3:6] * a[:, 1:2] + c[:, 6:9] * a[:, 2:3]


def ref_points(rows, x, conf, center):
    """X = X0 + Lambda^T (x - xc) per entry (rigid._ref_points)."""
    c, o = conf[rows], center[rows]
    d = x - c[:, 9:12]
    out = np.empty((rows.size, 3))
    for i in range(3):
        out[:, i] = o[:, i] + ((c[:, 3 * i] * d[:, 0] + c[:, 3 * i + 2] * d[:, 2]) + c[:, 3 * i + 1] * d[:, 1])
    return out


def point_velocities(rows, X, conf, velo, center):
    """v = vc + Lambda (Omega x (X - X0)) per entry (rigid._point_velocities)."""
    c, u = conf[rows], velo[rows]
    a = X - center[rows]
    w0, w1, w2 = u[:, 0], u[:, 1], u[:, 2]
    b0, b1, b2 = w1 * a[:, 2] - w2 * a[:, 1], w2 * a[:, 0] - w0 * a[:, 2], w0 * a[:, 1] - w1 * a[:, 0]
    return u[:, 3:6] + c[:, 0:3] * b0[:, None] + c[:, 3:6] * b1[:, None] + c[:, 6:9] * b2[:, None]


def gen_to_loc(rows, X, base, conf, center):
    """H = [base^T Lambda [A]x^T | base^T], A = X - X0, per entry (rigid._gen_to_loc: the
    zero products of [A]x included)."""
    c = conf[rows]
    a = X - center[rows]
    zero = np.zeros(rows.size)
    S = ((zero, -a[:, 2], a[:, 1]), (a[:, 2], zero, -a[:, 0]), (-a[:, 1], a[:, 0], zero))
    BtL = [[0.0 + base[:, 0, i] * c[:, 3 * l] + base[:, 1, i] * c[:, 3 * l + 1] + base[:, 2, i] * c[:, 3 * l + 2]
            for l in range(3)] for i in range(3)]
    H = np.empty((rows.size, 3, 6))
    for i in range(3):
        for j in range(3):
            H[:, i, j] = -(0.0 + BtL[i][0] * S[0][j] + BtL[i][1] * S[1][j] + BtL[i][2] * S[2][j])
            H[:, i, 3 + j] = base[:, j, i]
    return H


def local_velocity(rows, H, velo):
    """U = H u per entry, u = velo[rows] (rigid._local_velocity: two lanes of three)."""
    u = velo[rows]
    lane0 = ((0.0 + H[:, :, 0] * u[:, 0:1]) + H[:, :, 2] * u[:, 2:3]) + H[:, :, 4] * u[:, 4:5]
    lane1 = ((0.0 + H[:, :, 1] * u[:, 1:2]) + H[:, :, 3] * u[:, 3:4]) + H[:, :, 5] * u[:, 5:6]
    return (lane0 + lane1) + 0.0


def add_signed_reactions(reaction, rows, H, con, sign, R, inert):
    """reaction[rows[k]] += H[k]^T (sign[k] R[con[k]]) for the entries not `inert`, in
    entry order (rigid._add_signed_reactions)."""
    live = np.flatnonzero(~np.asarray(inert, dtype=bool))
    if not live.size:
        return
    Rk = sign[live, None] * R[con[live]]
    Hk = H[live]
    acc = ((0.0 + Hk[:, 0, :] * Rk[:, 0:1]) + Hk[:, 1, :] * Rk[:, 1:2]) + Hk[:, 2, :] * Rk[:, 2:3]
    np.add.at(reaction, rows[live], acc)


def kinetic_energy(velo, J, mass):
    """1/2 Omega.J Omega + 1/2 m v.v per row (rigid._kinetic_energy)."""
    w = velo[:, 0:3]
    rot = 0.0
    for i in range(3):
        rot = rot + w[:, i] * (J[:, i, 0] * w[:, 0] + J[:, i, 1] * w[:, 1] + J[:, i, 2] * w[:, 2])
    lin = velo[:, 3] ** 2 + velo[:, 4] ** 2 + velo[:, 5] ** 2
    return 0.5 * rot + 0.5 * mass * lin
