"""Cutting shapes by a plane (layer 1), for SPLIT: convex polyhedra are clipped into two
convex pieces; mesh elements crossing the plane are cut into convex pieces re-meshed with
pyramids and tetrahedra around each piece's centroid (the pieces of neighbouring elements
match face to face), then the mesh is split along the faces on the plane; parts are sorted
to the side they mostly lie on. Reference: Solfec cvx.c CONVEX_Split, msh.c MESH_Split and
lng.c SPLIT (classification by the extreme signed distances of a part's points),
docs/meshes.md; the re-meshing (Solfec used TetGen) is solfec-py's own.
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import InputError
from solfec_py.geometry import mesh_tables
from solfec_py.geometry.convex import Convex
from solfec_py.geometry.mesh import INTERIOR_SURFID, Mesh
from solfec_py.geometry.mesh_import import orient
from solfec_py.geometry.mesh_split import components, shared_pairs, split_along_faces


def clip_polygon(poly, d: dict, eps: float, crossing) -> tuple[list, list]:
    """(part on the negative side, part on the positive side) of a polygon of vertex ids;
    vertices within eps of the plane belong to both; crossing(a, b) gives the id of the
    point where edge (a, b) crosses the plane."""
    neg, pos = [], []
    n = len(poly)
    for k in range(n):
        a, b = poly[k], poly[(k + 1) % n]
        da, db = d[a], d[b]
        if da <= eps:
            neg.append(a)
        if da >= -eps:
            pos.append(a)
        if (da < -eps and db > eps) or (da > eps and db < -eps):
            x = crossing(a, b)
            neg.append(x)
            pos.append(x)
    flat = lambda p: len(p) < 3 or all(abs(d[v]) <= eps for v in p)   # noqa: E731
    return ([] if flat(neg) else neg), ([] if flat(pos) else pos)


def cap(ids: list, X, normal: np.ndarray) -> list:
    """Points on the plane as a polygon counter-clockwise about `normal`."""
    P = np.array([X(v) for v in ids])
    c = P.mean(axis=0)
    e1 = P[np.argmax(np.linalg.norm(P - c, axis=1))] - c
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(normal, e1)
    angle = np.arctan2((P - c) @ e2, (P - c) @ e1)
    return [ids[k] for k in np.argsort(angle)]


def cut_convex(cvx: Convex, point, normal, surfid, eps: float) -> tuple[Convex | None, Convex | None]:
    """The parts of a convex polyhedron below and above the plane; the cut face of the part
    below (outward normal `normal`) gets surfid[0], that of the part above surfid[1]."""
    nrm = np.asarray(normal, float) / np.linalg.norm(normal)
    dist = (cvx.cur - point) @ nrm
    if dist.max() <= eps:
        return cvx.copy(), None
    if dist.min() >= -eps:
        return None, cvx.copy()
    d = dict(enumerate(dist.tolist()))
    ref, cur = list(cvx.ref), list(cvx.cur)
    cross = {}

    def crossing(a, b):
        key = (min(a, b), max(a, b))
        if key not in cross:
            s = d[key[0]] / (d[key[0]] - d[key[1]])
            ref.append(ref[key[0]] + s * (ref[key[1]] - ref[key[0]]))
            cur.append(cur[key[0]] + s * (cur[key[1]] - cur[key[0]]))
            cross[key] = len(ref) - 1
            d[cross[key]] = 0.0
        return cross[key]

    parts = ([], []), ([], [])
    for face, sid in zip(cvx.faces, cvx.surfids.tolist()):
        for side, piece in enumerate(clip_polygon(face.tolist(), d, eps, crossing)):
            if piece:
                parts[side][0].append(piece)
                parts[side][1].append(sid)
    on = [v for v in d if abs(d[v]) <= eps]
    ring = cap(on, lambda v: cur[v], nrm)
    out = []
    for side, (faces, sids) in enumerate(parts):
        faces = faces + [ring if side == 0 else ring[::-1]]
        sids = sids + [surfid[side]]
        used = sorted({v for f in faces for v in f})
        new = {v: k for k, v in enumerate(used)}
        out.append(Convex(np.array([ref[v] for v in used]), [[new[v] for v in f] for f in faces], sids,
                          cvx.volid, cur=np.array([cur[v] for v in used])))
    return out[0], out[1]


def cut_elements(mesh: Mesh, point, normal, eps: float) -> Mesh:
    """The mesh with every element that crosses the plane replaced by the pyramids and
    tetrahedra of its two convex pieces (apex at each piece's centroid); boundary faces keep
    their surface ids. Elements touching the plane are kept."""
    nrm = np.asarray(normal, float) / np.linalg.norm(normal)
    dist = (mesh.cur - point) @ nrm
    dc = np.where(mesh.conn >= 0, dist[np.maximum(mesh.conn, 0)], np.nan)
    crossing_elems = np.flatnonzero((np.nanmin(dc, axis=1) < -eps) & (np.nanmax(dc, axis=1) > eps))
    if not crossing_elems.size:
        return mesh
    ref, cur = list(mesh.ref), list(mesh.cur)
    d = {}
    cross = {}

    def new_node(r, c, dv):
        ref.append(r)
        cur.append(c)
        d[len(ref) - 1] = dv
        return len(ref) - 1

    def crossing(a, b):
        key = (min(a, b), max(a, b))
        if key not in cross:
            s = d[key[0]] / (d[key[0]] - d[key[1]])
            cross[key] = new_node(ref[key[0]] + s * (ref[key[1]] - ref[key[0]]),
                                  cur[key[0]] + s * (cur[key[1]] - cur[key[0]]), 0.0)
        return cross[key]

    sids = mesh.face_surfids()
    start = np.concatenate([[0], np.cumsum(mesh_tables.FACE_COUNT[mesh.etype])[:-1]])
    new_el, new_faces, new_sids, count = [], [], [], []
    for e in crossing_elems.tolist():
        k = int(mesh.etype[e])
        nodes = mesh.conn[e, :k].tolist()
        for v in nodes:
            d[v] = float(dist[v])
        pieces = ([], []), ([], [])
        for f, local in enumerate(mesh_tables.FACES[k]):
            poly = [nodes[i] for i in local]
            for side, piece in enumerate(clip_polygon(poly, d, eps, crossing)):
                if piece:
                    pieces[side][0].append(piece)
                    pieces[side][1].append(int(sids[start[e] + f]))
        on = sorted({v for side in pieces for f in side[0] for v in f if abs(d[v]) <= eps})
        ring = cap(on, lambda v: cur[v], nrm)
        before = len(new_el)
        for side, (faces, fsid) in enumerate(pieces):
            faces = faces + [ring if side == 0 else ring[::-1]]
            fsid = fsid + [INTERIOR_SURFID]
            verts = sorted({v for f in faces for v in f})
            apex = new_node(np.mean([ref[v] for v in verts], axis=0), np.mean([cur[v] for v in verts], axis=0),
                            float(np.mean([d[v] for v in verts])))
            for face, s in zip(faces, fsid):
                for sub in _fan(face):
                    new_el.append(sub[::-1] + [apex])
                    if s != INTERIOR_SURFID:
                        new_faces.append(sub)
                        new_sids.append(s)
        count.append(len(new_el) - before)
    keep = np.setdiff1d(np.arange(mesh.nele), crossing_elems)
    etype = np.concatenate([mesh.etype[keep], [len(e) for e in new_el]]).astype(np.int64)
    conn = np.full((etype.size, 8), -1, dtype=np.int64)
    conn[: keep.size] = mesh.conn[keep]
    for r, e in enumerate(new_el):
        conn[keep.size + r, : len(e)] = e
    volids = np.concatenate([mesh.volids[keep], np.repeat(mesh.volids[crossing_elems], count)])
    X = np.array(ref)
    orient(X, etype, conn)
    bn, bs, bsid, _ = mesh.boundary_faces()
    fn = np.full((len(new_faces), 4), -1, dtype=np.int64)
    for r, f in enumerate(new_faces):
        fn[r, : len(f)] = f
    return Mesh(X, etype, conn, volids, gid=mesh.gid, face_nodes=np.vstack([bn, fn]),
                face_sids=np.concatenate([bsid, np.array(new_sids, dtype=np.int64)]), cur=np.array(cur))


def _fan(face: list) -> list:
    """A face polygon as itself (triangle, quadrilateral) or a fan of triangles from its
    smallest vertex id (the same on both sides of a shared face)."""
    if len(face) <= 4:
        return [list(face)]
    s = int(np.argmin(face))
    f = face[s:] + face[:s]
    return [[f[0], f[i], f[i + 1]] for i in range(1, len(f) - 1)]


def plane_faces(mesh: Mesh, point, normal, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(topology entries of the shared faces on the plane between elements on opposite
    sides, whether each entry's outward normal points along `normal`)."""
    t = mesh.topology
    nrm = np.asarray(normal, float) / np.linalg.norm(normal)
    dist = (mesh.cur - point) @ nrm
    on_plane = np.all((t.nodes < 0) | (np.abs(dist[np.maximum(t.nodes, 0)]) <= eps), axis=1)
    above = (mesh.centroids() - point) @ nrm > 0
    i, j = shared_pairs(mesh)
    ok = on_plane[i] & (above[t.elem[i]] != above[t.elem[j]])
    entries = np.concatenate([i[ok], j[ok]])
    return entries, ~above[t.elem[entries]]                 # an element below has its face along +normal


def split_mesh(mesh: Mesh, point, normal, surfid, topoadj: bool, remesh: bool, eps: float) -> list:
    """The parts of a mesh cut by a plane (the whole mesh if the plane misses it)."""
    cut_mesh = cut_elements(mesh, point, normal, eps) if remesh else mesh
    if not remesh:
        dist = (mesh.cur - point) @ (np.asarray(normal, float) / np.linalg.norm(normal))
        dc = np.where(mesh.conn >= 0, dist[np.maximum(mesh.conn, 0)], np.nan)
        if np.any((np.nanmin(dc, axis=1) < -eps) & (np.nanmax(dc, axis=1) > eps)):
            raise InputError("Inter-element boundary mesh splitting failed while remeshing is disabled"
                             " (the plane crosses elements; remesh='ON' cuts them)")
    entries, along = plane_faces(cut_mesh, point, normal, eps)
    if topoadj and entries.size:
        entries, along = _adjacent_patch(cut_mesh, entries, along, point)
    cut = np.zeros(cut_mesh.topology.elem.size, dtype=bool)
    sids = np.zeros(cut.size, dtype=np.int64)
    cut[entries] = True
    sids[entries] = np.where(along, surfid[0], surfid[1])
    parts = split_along_faces(cut_mesh, cut, sids) if entries.size else None
    return parts if parts is not None else [cut_mesh]


def _adjacent_patch(mesh, entries, along, point):
    """The faces on the plane connected (through shared nodes) to the one nearest `point`."""
    nodes = mesh.topology.nodes[entries]
    m = entries.size
    rows = np.repeat(np.arange(m), 4)[nodes.reshape(-1) >= 0]
    cols = nodes.reshape(-1)[nodes.reshape(-1) >= 0]
    # faces and nodes in one graph: faces 0..m-1, node v at m + v
    label = components(m + mesh.nnod, rows, m + cols)[:m]
    centre = np.array([mesh.cur[n[n >= 0]].mean(axis=0) for n in nodes])
    near = int(np.argmin(np.linalg.norm(centre - np.asarray(point, float), axis=1)))
    keep = label == label[near]
    return entries[keep], along[keep]


def side_of(points: np.ndarray, point, normal) -> int:
    """0 ('one') if the points lie mostly on the positive side (|min d| < |max d|), else 1."""
    d = (points - point) @ (np.asarray(normal, float) / np.linalg.norm(normal))
    return 0 if abs(d.min()) < abs(d.max()) else 1


def convex_adjacency(members: list, eps: float) -> np.ndarray:
    """(k, 2) pairs of members sharing a face (at least three coincident vertices)."""
    from scipy.spatial import cKDTree

    owner = np.concatenate([np.full(m.nver, k) for k, m in enumerate(members)])
    X = np.concatenate([m.cur for m in members])
    pairs = cKDTree(X).query_pairs(max(eps, 1e-300), output_type="ndarray")
    a, b = owner[pairs[:, 0]], owner[pairs[:, 1]]
    keep = a != b
    if not keep.any():
        return np.zeros((0, 2), dtype=np.int64)
    both = np.unique(np.column_stack([np.minimum(a, b), np.maximum(a, b), pairs[:, 0]])[keep], axis=0)
    ab, count = np.unique(both[:, :2], axis=0, return_counts=True)
    return ab[count >= 3]


def split_convexes(members: list, point, normal, surfid, topoadj: bool, eps: float, adj=None,
                   with_adjacency: bool = False) -> list:
    """The connected parts (lists of Convex) of a CONVEX collection cut by the plane; with
    `topoadj` only the crossing members connected to the one nearest `point` are cut.
    Members are adjacent when they share a face (`convex_adjacency`), or as the (k, 2)
    pairs `adj` say; `with_adjacency` returns (part, its adjacent pairs of part indices)."""
    nrm = np.asarray(normal, float) / np.linalg.norm(normal)
    d = [(m.cur - point) @ nrm for m in members]
    crosses = np.array([x.min() < -eps and x.max() > eps for x in d])
    adj = convex_adjacency(members, eps) if adj is None else np.asarray(adj, dtype=np.int64).reshape(-1, 2)
    cut = crosses.copy()
    if topoadj and crosses.any():
        idx = np.flatnonzero(crosses)
        inner = adj[crosses[adj[:, 0]] & crosses[adj[:, 1]]]
        remap = {int(v): k for k, v in enumerate(idx)}
        label = components(idx.size, np.array([remap[int(v)] for v in inner[:, 0]], dtype=np.int64),
                           np.array([remap[int(v)] for v in inner[:, 1]], dtype=np.int64))
        gap = [np.linalg.norm(members[k].cur.mean(axis=0) - point) for k in idx]
        cut[:] = False
        cut[idx[label == label[int(np.argmin(gap))]]] = True
    pieces, origin, side = [], [], []          # side: 0 below, 1 above, -1 an uncut member
    for k, m in enumerate(members):
        if cut[k]:
            for s, piece in enumerate(cut_convex(m, point, nrm, surfid, eps)):
                if piece is not None:
                    pieces.append(piece)
                    origin.append(k)
                    side.append(s)
        else:                                   # whole: on one side, or crossing but left uncut (topoadj)
            pieces.append(m)
            origin.append(k)
            side.append(0 if d[k].max() <= eps else 1 if d[k].min() >= -eps else -1)
    origin, side = np.array(origin), np.array(side)
    below = np.array([x.min() < -eps for x in d])
    above = np.array([x.max() > eps for x in d])
    rows, cols = [], []
    for a, b in adj.tolist():
        for pa in np.flatnonzero(origin == a):
            for pb in np.flatnonzero(origin == b):
                sa, sb = side[pa], side[pb]
                if sa == sb or (sa < 0 and (below, above)[sb][a]) or (sb < 0 and (below, above)[sa][b]):
                    rows.append(pa)
                    cols.append(pb)
    rows, cols = np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)
    label = components(len(pieces), rows, cols)
    groups = [np.flatnonzero(label == g) for g in range(int(label.max()) + 1)]
    if not with_adjacency:
        return [[pieces[p] for p in g] for g in groups]
    local = np.empty(len(pieces), dtype=np.int64)
    for g in groups:
        local[g] = np.arange(g.size)
    return [([pieces[p] for p in g], np.column_stack([local[rows[label[rows] == k]], local[cols[label[rows] == k]]]))
            for k, g in enumerate(groups)]
