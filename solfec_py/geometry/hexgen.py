"""Structured hexahedral mesh generators (layer 1): the HEX block (trilinear map of a
distorted brick, graded subdivisions) and the PIPE. Reference: Solfec-1.0 user manual, HEX, PIPE
(Solfec hex.c / pipe generation in lng.c).

HEX node numbering: n = kk (i+1)(j+1) + jj (i+1) + ii (x fastest, then y, then z);
elements in the same order, element nodes as the MESH hexahedron (Solfec-1.0 user manual).
PIPE numbering: n = d nrad (nthi+1) + t nrad + r with d along the axis, t through the
thickness (inner to outer), r around the circumference; each element's local axes are
(radial, circumferential, axial), a right-handed triple, so elements are positive.
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry.mesh import Mesh

# block coordinates of the 8 corners (hexahedron node order)
CORNER_SIGNS = np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                         [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], dtype=float)


def graded(n: int, weights=None) -> np.ndarray:
    """n + 1 block coordinates in [-1, 1] whose spacings are proportional to `weights[:n]`."""
    w = np.ones(n) if weights is None else np.asarray(weights, float)[:n]
    c = np.concatenate([[0.0], np.cumsum(w)])
    u = -1.0 + 2.0 * c / c[-1]
    u[-1] = 1.0
    return u


def positive_orientation(corners: np.ndarray) -> np.ndarray:
    """Swap the bottom and top quadruples when ((c1-c0)x(c2-c1)).(c4-c0) < 0."""
    c = np.asarray(corners, float).reshape(-1, 3)[:8]
    if np.dot(np.cross(c[1] - c[0], c[2] - c[1]), c[4] - c[0]) < 0:
        c = c[[4, 5, 6, 7, 0, 1, 2, 3]]
    return c


def block_cells(ni: int, nj: int, nk: int) -> np.ndarray:
    """Connectivity (ni nj nk, 8) of a structured (ni+1)(nj+1)(nk+1) node block."""
    kk, jj, ii = np.meshgrid(np.arange(nk), np.arange(nj), np.arange(ni), indexing="ij")
    ii, jj, kk = ii.reshape(-1), jj.reshape(-1), kk.reshape(-1)

    def node(a, b, c):
        return c * (ni + 1) * (nj + 1) + b * (ni + 1) + a

    return np.column_stack([node(ii, jj, kk), node(ii + 1, jj, kk), node(ii + 1, jj + 1, kk),
                            node(ii, jj + 1, kk), node(ii, jj, kk + 1), node(ii + 1, jj, kk + 1),
                            node(ii + 1, jj + 1, kk + 1), node(ii, jj + 1, kk + 1)])


def block_boundary(conn: np.ndarray, ni: int, nj: int, nk: int, sids) -> tuple[np.ndarray, np.ndarray]:
    """Boundary faces (m, 4) of a structured block with ids per block side:
    sids = [z-, x-, y+, x+, y-, z+] (the HEX `surids` order)."""
    e = np.arange(ni * nj * nk)
    ii, jj, kk = e % ni, (e // ni) % nj, e // (ni * nj)
    sides = [(kk == 0, (0, 3, 2, 1)), (ii == 0, (0, 4, 7, 3)), (jj == nj - 1, (2, 3, 7, 6)),
             (ii == ni - 1, (1, 2, 6, 5)), (jj == 0, (0, 1, 5, 4)), (kk == nk - 1, (4, 5, 6, 7))]
    faces = [conn[mask][:, list(local)] for mask, local in sides]
    ids = [np.full(f.shape[0], s, dtype=np.int64) for f, (s) in zip(faces, sids)]
    return np.vstack(faces), np.concatenate(ids)


def hex_mesh(corners, i: int, j: int, k: int, volid: int, surids, dx=None, dy=None, dz=None) -> Mesh:
    """The HEX block mesh of Solfec-1.0 user manual, HEX."""
    c = positive_orientation(corners)
    u, v, w = graded(i, dx), graded(j, dy), graded(k, dz)
    W, Vv, U = np.meshgrid(w, v, u, indexing="ij")
    local = np.column_stack([U.reshape(-1), Vv.reshape(-1), W.reshape(-1)])
    N = 0.125 * np.prod(1.0 + local[:, None, :] * CORNER_SIGNS[None], axis=2)   # (n, 8)
    nodes = N @ c
    conn = block_cells(i, j, k)
    faces, ids = block_boundary(conn, i, j, k, [int(s) for s in list(surids)[:6]])
    return Mesh(nodes, np.full(conn.shape[0], 8), conn, volid, gid=int(surids[0]),
                face_nodes=faces, face_sids=ids)


def perpendicular_frame(direction: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Right-handed orthonormal (e1, e2, e3) with e3 along `direction`."""
    e3 = np.asarray(direction, float) / np.linalg.norm(direction)
    helper = np.eye(3)[int(np.argmin(np.abs(e3)))]
    e1 = np.cross(helper, e3)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(e3, e1), e3


def pipe_mesh(pnt, direction, rin: float, thi: float, ndir: int, nrad: int, nthi: int,
              volid: int, surids) -> Mesh:
    """The PIPE mesh of Solfec-1.0 user manual, PIPE; surids = [bottom (at pnt), top, inner,
    outer]. Nodes, elements and angles as Solfec-1.0 msh.c MESH_Pipe numbers them, so that
    decks naming nodes (MESH_SPLIT face sets, node indices) keep their meaning: node
    i nrad (nthi + 1) + j (nthi + 1) + k is layer i along the axis, angle j, radius k from
    the inside; angle 0 lies along b = n x e (e the first coordinate axis not along the
    axis n), angles turn towards n x b. (Solfec leaves b unnormalised when the axis is
    oblique to e, which shrinks the pipe; here b is unit.)"""
    d = np.asarray(direction, float)
    length = float(np.linalg.norm(d))
    n = d / length
    for e in np.eye(3):
        b = np.cross(n, e)
        if np.linalg.norm(b) >= 1e-10:
            break
    b /= np.linalg.norm(b)
    a = np.cross(n, b)
    along = length * np.arange(ndir + 1) / ndir
    angle = 2.0 * np.pi * np.arange(nrad) / nrad
    radius = rin + thi * np.arange(nthi + 1) / nthi
    I, J, K = np.meshgrid(along, angle, radius, indexing="ij")
    nodes = (np.asarray(pnt, float) + I[..., None] * n + (K * np.sin(J))[..., None] * a
             + (K * np.cos(J))[..., None] * b).reshape(-1, 3)

    i, j, k = np.meshgrid(np.arange(ndir), np.arange(nrad), np.arange(nthi), indexing="ij")
    i, j, k = i.reshape(-1), j.reshape(-1), k.reshape(-1)
    j1 = (j + 1) % nrad

    def node(ii, jj, kk):
        return ii * nrad * (nthi + 1) + jj * (nthi + 1) + kk

    conn = np.column_stack([node(i, j, k), node(i, j, k + 1), node(i, j1, k + 1), node(i, j1, k),
                            node(i + 1, j, k), node(i + 1, j, k + 1), node(i + 1, j1, k + 1),
                            node(i + 1, j1, k)])
    s = [int(x) for x in list(surids)[:4]]
    sides = [(i == 0, (0, 3, 2, 1), s[0]), (i == ndir - 1, (4, 5, 6, 7), s[1]),
             (k == 0, (0, 4, 7, 3), s[2]), (k == nthi - 1, (1, 2, 6, 5), s[3])]
    faces = np.vstack([conn[m][:, list(loc)] for m, loc, _ in sides])
    ids = np.concatenate([np.full(int(m.sum()), sid, dtype=np.int64) for m, _, sid in sides])
    return Mesh(nodes, np.full(conn.shape[0], 8), conn, volid, gid=s[0], face_nodes=faces, face_sids=ids)
