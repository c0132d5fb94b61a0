"""Structured block meshes of every element type (layer 1), for tests, benchmarks and
examples: a box divided into ni x nj nk cells, each cell one HEX8 or split into TET4
(6, Kuhn's split, conforming), PYR5 (6, around a centre node) or WED6 (2); the quadratic
types add one node per edge.
Reference: Kuhn, "Some combinatorial lemmas in topology" (1960) for the conforming cube
split; node and cell numbering of :func:`solfec_py.geometry.hexgen.block_cells`.
"""
from __future__ import annotations

from itertools import permutations

import numpy as np

from solfec_py.fem.elements import ELEMENTS, element
from solfec_py.geometry.hexgen import block_cells

LINEAR_OF = {"tetra10": "tetra", "hexahedron20": "hexahedron", "wedge15": "wedge"}
_CUBE = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])


def _kuhn() -> list:
    """Local corner indices of the 6 tetrahedra of Kuhn's cube split, positively ordered."""
    out = []
    for p in permutations(range(3)):
        path = [np.zeros(3, int)]
        for ax in p:
            path.append(path[-1] + np.eye(3, dtype=int)[ax])
        local = [int(np.flatnonzero((_CUBE == v).all(axis=1))[0]) for v in path]
        c = _CUBE[local].astype(float)
        if np.dot(c[1] - c[0], np.cross(c[2] - c[0], c[3] - c[0])) < 0:
            local[1], local[2] = local[2], local[1]
        out.append(local)
    return out


def _split(X, cells, name):
    if name == "hexahedron":
        return X, cells
    if name == "wedge":
        return X, np.vstack([cells[:, [0, 1, 2, 4, 5, 6]], cells[:, [0, 2, 3, 4, 6, 7]]])
    if name == "tetra":
        return X, np.vstack([cells[:, local] for local in _kuhn()])
    centres = X.shape[0] + np.arange(cells.shape[0])          # pyramid: apex at the cell centre
    X = np.vstack([X, X[cells].mean(axis=1)])
    return X, np.vstack([np.column_stack([cells[:, [f[0], f[3], f[2], f[1]]], centres])
                         for f in ELEMENTS["hexahedron"].faces])


def add_mid_nodes(X, conn, quadratic) -> tuple[np.ndarray, np.ndarray]:
    """Turn a linear mesh into one of ``quadratic`` type: one new node at the middle of
    every edge, shared by the elements around it."""
    pairs = np.array([e for _, e in quadratic.edges])
    ends = np.sort(conn[:, pairs], axis=2).reshape(-1, 2)
    uniq, inv = np.unique(ends, axis=0, return_inverse=True)
    mids = X.shape[0] + inv.reshape(conn.shape[0], -1)
    return np.vstack([X, X[uniq].mean(axis=1)]), np.hstack([conn, mids])


def structured(name: str, divisions=(1, 1, 1), lower=(0.0, 0.0, 0.0), upper=(1.0, 1.0, 1.0)):
    """(X (nn, 3), conn (ne, n)) of the box [lower, upper] divided into ``divisions`` cells
    and meshed with element type ``name`` (a meshio cell name)."""
    el = element(name)
    ni, nj, nk = (int(d) for d in divisions)
    axes = [np.linspace(lo, hi, n + 1) for lo, hi, n in zip(lower, upper, (ni, nj, nk))]
    z, y, x = np.meshgrid(axes[2], axes[1], axes[0], indexing="ij")
    X = np.column_stack([x.reshape(-1), y.reshape(-1), z.reshape(-1)])
    X, conn = _split(X, block_cells(ni, nj, nk), LINEAR_OF.get(name, name))
    if el.order == 2:
        X, conn = add_mid_nodes(X, conn, el)
    return X, np.ascontiguousarray(conn, dtype=np.int64)
