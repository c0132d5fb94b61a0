"""What fracture reads from and writes into the finite-element block (layer 3): normal
stresses across a plane at referential points of given elements, and the state of a new
body's nodes interpolated from its parent's. Reference: Solfec cra.c (fem_crack) and
fem.c (FEM_Map_State).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import fe_points


def object_index(block, row: int, elements: np.ndarray) -> np.ndarray:
    """Mesh element indices of a body as the block's object indices (surface elements first)."""
    order = block.records[row].order
    inv = np.empty(order.size, dtype=np.int64)
    inv[order] = np.arange(order.size)
    return inv[np.asarray(elements, dtype=np.int64)]


def normal_tension(block, rows, X, elem, normals) -> np.ndarray:
    """n . sigma n (Cauchy stress inside the given elements, never a nodal average) at the
    referential points X (k, 3) of objects `elem` of block rows `rows`."""
    lay = block.prepared()
    rows = np.asarray(rows, dtype=np.int64)
    gid = lay.estart[rows] + np.asarray(elem, dtype=np.int64)
    X = np.ascontiguousarray(X, dtype=float).reshape(-1, 3)
    xi = block._xi(gid, X)
    out = np.empty((gid.size, 7))
    node = np.full(gid.size, -1, dtype=np.int64)
    fe_points.stresses(lay.econn, lay.ecode, lay.emat, block.X, block.q, gid, xi, node, lay.adj_ptr, lay.adj, out)
    n = np.asarray(normals, dtype=float).reshape(-1, 3)
    sx, sy, sz, sxy, sxz, syz = out[:, 0], out[:, 1], out[:, 2], out[:, 3], out[:, 4], out[:, 5]
    return (sx * n[:, 0] ** 2 + sy * n[:, 1] ** 2 + sz * n[:, 2] ** 2
            + 2.0 * (sxy * n[:, 0] * n[:, 1] + sxz * n[:, 0] * n[:, 2] + syz * n[:, 1] * n[:, 2]))


def mapped_state(block, row: int, X: np.ndarray, parent_nodes: np.ndarray | None = None):
    """(displacements, velocities) at referential points X of body row `row`: a point that is
    one of the body's nodes (parent_nodes[i] >= 0, its local index) takes that node's values,
    any other is interpolated inside the element holding it."""
    X = np.ascontiguousarray(X, dtype=float).reshape(-1, 3)
    sl = block.nodes_of(row)
    q, u = np.empty_like(X), np.empty_like(X)
    direct = np.zeros(X.shape[0], dtype=bool) if parent_nodes is None else parent_nodes >= 0
    if direct.any():
        q[direct] = block.q[sl][parent_nodes[direct]]
        u[direct] = block.u[sl][parent_nodes[direct]]
    rest = np.flatnonzero(~direct)
    if rest.size:
        rows = np.full(rest.size, row, dtype=np.int64)
        q[rest] = block.cur_points(rows, X[rest]) - X[rest]
        u[rest] = block.point_velocities(rows, X[rest])
    return q, u


def set_state(block, row: int, q: np.ndarray, u: np.ndarray) -> None:
    """Overwrite the nodal displacements and velocities of body row `row`."""
    sl = block.nodes_of(row)
    block.q[sl], block.u[sl] = q, u
    block.state_changed(np.array([row]))


def interpolated(block, row: int, field: np.ndarray, X: np.ndarray) -> np.ndarray:
    """A nodal field (nnodes, 3) of body row `row` interpolated at its referential points X."""
    lay = block.prepared()
    X = np.ascontiguousarray(X, dtype=float).reshape(-1, 3)
    rows = np.full(X.shape[0], row, dtype=np.int64)
    gid = block._gid(rows, X, None)
    full = np.zeros_like(block.q)
    full[block.nodes_of(row)] = field
    out = np.empty((gid.size, 3))
    fe_points.interpolate(lay.econn, lay.ecode, gid, block._xi(gid, X), full, out)
    return out
