"""Splitting a mesh along some of its inner faces (layer 1), for MESH_SPLIT and for SPLIT
of meshes: the cut faces become boundary faces with new surface ids, nodes are duplicated
where the cut separates the elements around them, and the mesh falls into its connected
parts. Reference: Solfec msh.c (MESH_Split_By_Nodes, MESH_Split_By_Faces), docs/meshes.md;
the node splitting here is by local connectivity: the elements around a node that stay
connected through uncut faces containing the node keep one copy of it.

A partial cut (a crack inside the mesh) opens where it separates elements and stays closed
at its front, so one mesh with an inner crack comes back.
"""
from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from solfec_py.geometry import mesh_tables
from solfec_py.geometry.mesh import INTERIOR_SURFID, Mesh, face_keys, match_rows


def components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    graph = coo_matrix((np.ones(a.size), (a, b)), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def faces_by_nodes(mesh: Mesh, faces: np.ndarray) -> np.ndarray:
    """Mask of the topology's face entries whose node sets equal one of `faces` (m, 4),
    -1 padded (both entries of a shared face)."""
    t = mesh.topology
    return match_rows(t.keys, face_keys(np.asarray(faces, dtype=np.int64))) >= 0


def shared_pairs(mesh: Mesh) -> tuple[np.ndarray, np.ndarray]:
    """The two topology entries (i, j) of every face shared by two elements."""
    pairs = mesh.topology.pairs
    return pairs[:, 0], pairs[:, 1]


def split_along_faces(mesh: Mesh, cut: np.ndarray, sids: np.ndarray) -> list | None:
    """Cut the shared faces whose topology entries are flagged in `cut` (either entry of a
    face suffices); cut entries get surface ids `sids` (one per entry). Returns the
    connected parts as new meshes, or None when nothing came apart and no node was split."""
    t = mesh.topology
    i, j = shared_pairs(mesh)
    gone = cut[i] | cut[j]
    cut = np.zeros(t.elem.size, dtype=bool)
    cut[i[gone]] = cut[j[gone]] = True
    if not gone.any():
        return None
    ei, ej = t.elem[i[~gone]], t.elem[j[~gone]]               # elements joined by uncut faces
    conn = mesh.conn.copy()
    # incidences (element, slot) of the nodes on cut faces, joined through uncut faces
    crack = np.unique(t.nodes[cut][t.nodes[cut] >= 0])
    on = np.isin(conn, crack) & (conn >= 0)
    inc_e, inc_s = np.nonzero(on)
    key = inc_e * mesh.nnod + conn[inc_e, inc_s]
    order = np.argsort(key)
    faces = t.nodes[i[~gone]]
    a_e, b_e, node = np.repeat(ei, 4), np.repeat(ej, 4), faces.reshape(-1)
    keep = node >= 0
    keep[keep] = np.isin(node[keep], crack)
    a = order[np.searchsorted(key[order], a_e[keep] * mesh.nnod + node[keep])]
    b = order[np.searchsorted(key[order], b_e[keep] * mesh.nnod + node[keep])]
    fan = components(key.size, a, b)
    nodes_of = conn[inc_e, inc_s]
    pairs = np.unique(np.column_stack([nodes_of, fan]), axis=0)          # (node, fan), sorted
    first = np.r_[True, pairs[1:, 0] != pairs[:-1, 0]]
    new_id = np.where(first, pairs[:, 0], mesh.nnod + np.cumsum(~first) - 1)
    copies = pairs[~first, 0]
    where = np.searchsorted(pairs[:, 0] * (fan.max() + 1) + pairs[:, 1], nodes_of * (fan.max() + 1) + fan)
    conn[inc_e, inc_s] = new_id[where]
    ref = np.vstack([mesh.ref, mesh.ref[copies]])
    cur = np.vstack([mesh.cur, mesh.cur[copies]])
    part = components(mesh.nele, ei, ej)
    nparts = int(part.max()) + 1
    if copies.size == 0 and nparts == 1:
        return None
    # boundary entries of the new meshes: old boundary faces and the cut faces
    sid = mesh.face_surfids()
    sid[cut] = np.asarray(sids, dtype=np.int64)[cut]
    bnd = np.flatnonzero((t.count == 1) | cut)
    table = mesh_tables.FACE_TABLE[mesh.etype[t.elem[bnd]], t.local[bnd]]
    fnodes = np.where(table >= 0, conn[t.elem[bnd][:, None], np.maximum(table, 0)], -1)
    out = []
    for p in range(nparts):
        elems = np.flatnonzero(part == p)
        used = np.zeros(ref.shape[0], dtype=bool)
        used[conn[elems][conn[elems] >= 0]] = True
        renum = np.cumsum(used) - 1
        c = np.where(conn[elems] >= 0, renum[np.maximum(conn[elems], 0)], -1)
        mine = part[t.elem[bnd]] == p
        f = np.where(fnodes[mine] >= 0, renum[np.maximum(fnodes[mine], 0)], -1)
        s = sid[bnd][mine]
        keep = s != INTERIOR_SURFID
        out.append(Mesh(ref[used], mesh.etype[elems], c[:, :8], mesh.volids[elems], gid=mesh.gid,
                        face_nodes=f[keep], face_sids=s[keep], cur=cur[used]))
    return out


def outward_normals(mesh: Mesh, entries: np.ndarray, config: str = "cur") -> np.ndarray:
    """Area vectors (sum of fan-triangle normals) of topology entries, outward from their element."""
    X = mesh.cur if config == "cur" else mesh.ref
    nodes, size = mesh.topology.nodes[entries], mesh.topology.size[entries]
    a, b, c = X[nodes[:, 0]], X[nodes[:, 1]], X[nodes[:, 2]]
    n = np.cross(b - a, c - a)
    quad = size == 4
    d = X[np.maximum(nodes[:, 3], 0)]
    n[quad] += np.cross(c[quad] - a[quad], d[quad] - a[quad])
    return n
