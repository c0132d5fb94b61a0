"""Small distorted meshes of every element type for the fem tests.

A block of m^3 cells over [0, 1]^3 is split into the element type asked for; interior
nodes are moved randomly by up to 15 % of the cell size (so no element is affine) and,
for the quadratic types, mid-edge nodes are moved too (curved edges). All elements keep
positive Jacobians (checked by the tests through ``reference_data``).
"""
from __future__ import annotations

from itertools import permutations

import numpy as np

from solfec_py.fem.elements import ELEMENTS

_CUBE = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])


def _grid(m):
    g = np.linspace(0.0, 1.0, m + 1)
    X = np.array([[x, y, z] for z in g for y in g for x in g])
    idx = lambda i, j, k: i + (m + 1) * (j + (m + 1) * k)     # noqa: E731
    cells = np.array([[idx(i + a, j + b, k + c) for a, b, c in _CUBE]
                      for k in range(m) for j in range(m) for i in range(m)])
    return X, cells


def _orient(X, conn, element):
    """Swap two nodes of negatively oriented linear tetrahedra (Kuhn split)."""
    x = X[conn]
    det = np.einsum("ei,ei->e", x[:, 1] - x[:, 0], np.cross(x[:, 2] - x[:, 0], x[:, 3] - x[:, 0]))
    conn = conn.copy()
    neg = det < 0
    conn[neg, 1], conn[neg, 2] = conn[neg, 2].copy(), conn[neg, 1].copy()
    return conn


def _split(X, cells, name):
    if name == "hexahedron":
        return X, cells
    if name == "wedge":
        return X, np.vstack([cells[:, [0, 1, 2, 4, 5, 6]], cells[:, [0, 2, 3, 4, 6, 7]]])
    if name == "tetra":
        tets = []
        for p in permutations(range(3)):
            path = [np.zeros(3, int)]
            for ax in p:
                path.append(path[-1] + np.eye(3, dtype=int)[ax])
            local = [int(np.flatnonzero((_CUBE == v).all(axis=1))[0]) for v in path]
            tets.append(cells[:, local])
        return X, _orient(X, np.vstack(tets), ELEMENTS["tetra"])
    if name == "pyramid":
        centres = X[cells].mean(axis=1)
        c = X.shape[0] + np.arange(cells.shape[0])
        X = np.vstack([X, centres])
        pyr = [np.column_stack([cells[:, [f[0], f[3], f[2], f[1]]], c]) for f in ELEMENTS["hexahedron"].faces]
        return X, np.vstack(pyr)
    raise ValueError(name)


def _quadratic(X, conn, element):
    """Add mid-edge nodes (shared between elements) to a linear mesh."""
    pairs = np.array([e for _, e in element.edges])
    ends = np.sort(conn[:, pairs], axis=2).reshape(-1, 2)                 # (ne * ned, 2)
    uniq, inv = np.unique(ends, axis=0, return_inverse=True)
    mids = X.shape[0] + inv.reshape(conn.shape[0], -1)
    return np.vstack([X, X[uniq].mean(axis=1)]), np.hstack([conn, mids])


LINEAR_OF = {"tetra10": "tetra", "hexahedron20": "hexahedron", "wedge15": "wedge"}


def block(name, m=3, distort=0.15, curve=0.05, seed=0):
    """(X (nn, 3), conn (ne, n), interior (nn,) bool) of a distorted block of ``name``."""
    rng = np.random.default_rng(seed)
    X, cells = _grid(m)
    X, conn = _split(X, cells, LINEAR_OF.get(name, name))
    if name in LINEAR_OF:
        X, conn = _quadratic(X, conn, ELEMENTS[name])
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
