"""Small distorted meshes of every element type for the fem tests.

A block of m^3 cells over [0, 1]^3 (solfec_py.fem.blocks.structured) is distorted: interior
nodes are moved randomly by up to 15 % of the cell size (so no element is affine) and,
for the quadratic types, mid-edge nodes are moved too (curved edges). All elements keep
positive Jacobians (checked by the tests through ``reference_data``).
"""
from __future__ import annotations

import numpy as np

from solfec_py.fem.blocks import LINEAR_OF, structured
from solfec_py.fem.elements import ELEMENTS


def block(name, m=3, distort=0.15, curve=0.05, seed=0):
    """(X (nn, 3), conn (ne, n), interior (nn,) bool) of a distorted block of ``name``."""
    rng = np.random.default_rng(seed)
    X, conn = structured(name, (m, m, m))
    interior = np.all((X > 1e-12) & (X < 1 - 1e-12), axis=1)
    h = 1.0 / m
    X = X.copy()
    n_lin = ELEMENTS[LINEAR_OF.get(name, name)].nnodes
    corner = np.zeros(X.shape[0], bool)
    corner[np.unique(conn[:, :n_lin])] = True
    move = interior & corner
    X[move] += rng.uniform(-distort, distort, (move.sum(), 3)) * h
    if name in LINEAR_OF:       # re-centre mid nodes on the moved corners, then curve edges
        el = ELEMENTS[name]
        for k, (a, b) in el.edges:
            X[conn[:, k]] = 0.5 * (X[conn[:, a]] + X[conn[:, b]])
        mids = np.unique(conn[:, n_lin:])
        mids = mids[interior[mids]]
        X[mids] += rng.uniform(-curve, curve, (mids.size, 3)) * h
    return X, conn, interior


def single(name, seed=1, distort=0.2):
    """One element of type ``name``: its reference nodes mapped by a random affine map and
    then perturbed (corners by ``distort``, mid-edge nodes half as much)."""
    el = ELEMENTS[name]
    rng = np.random.default_rng(seed)
    A = np.eye(3) + 0.2 * rng.standard_normal((3, 3))
    if np.linalg.det(A) < 0:
        A[:, 0] *= -1
    X = el.ref_nodes @ A.T + rng.standard_normal(3)
    X += distort * rng.uniform(-1, 1, X.shape) * (1.0 if el.order == 1 else 0.5)
    return X, np.arange(el.nnodes)[None, :]


def random_inside(el, n=40, seed=0, margin=0.02):
    """Random points strictly inside the reference domain of ``el``."""
    rng = np.random.default_rng(seed)
    pts = []
    while len(pts) < n:
        p = rng.uniform(el.box[0], el.box[1])
        if el.inside(p[None], -margin)[0]:
            pts.append(p)
    return np.array(pts)
