"""First-order volumetric mesh with reference and current nodes (layer 1).
Reference: LANGUAGE §3.4 (element/face conventions), §10.1 (surface elements); Solfec msh.c.

Storage (vectorisation-friendly): `ref`, `cur` (n, 3) nodes; `etype` (ne,) node counts
4/5/6/8; `conn` (ne, 8) zero-based node indices padded with -1; `volids` (ne,).
Surface ids: `gid` for every boundary face, unless the face's node set matches one of the
explicitly listed faces `face_nodes` (m, 4, -1 padded) whose id is `face_sids` (m,).
Topology (element faces, boundary faces, faces shared by two elements) is derived lazily,
once, with a sort of face node sets; copies share it, since connectivity never changes.
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry.pointset import PointSetMotion

from solfec_py.geometry import mesh_tables
from solfec_py.geometry.convex import Convex, tolerance

INTERIOR_SURFID = -2147483647      # surface id of faces interior to a mesh (MESH2CONVEX)
_CHUNK = 1 << 15                   # elements per chunk when producing triangle coordinates


def group_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group identical rows of an int array (m, w): (group id per row, size of each group)."""
    m = keys.shape[0]
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    new = np.ones(m, dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    inverse = np.empty(m, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return inverse, np.bincount(inverse)


def match_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For every row of `a`, the index of an equal row of `b` (the last one), or -1."""
    inverse, counts = group_rows(np.vstack([a, b]))
    where = np.full(counts.size, -1, dtype=np.int64)
    where[inverse[a.shape[0]:]] = np.arange(b.shape[0])
    return where[inverse[: a.shape[0]]]


def face_keys(nodes: np.ndarray) -> np.ndarray:
    """Order-independent keys of faces (m, 4) padded with -1: the sorted node sets."""
    return np.sort(nodes, axis=1)


class _Topology:
    """Element faces and their sharing, derived from (etype, conn)."""

    def __init__(self, etype: np.ndarray, conn: np.ndarray):
        ne = etype.size
        table = mesh_tables.FACE_TABLE[etype]                                   # (ne, 6, 4)
        glob = np.where(table >= 0, np.take_along_axis(conn[:, None, :].repeat(mesh_tables.MAX_FACES, 1),
                                                       np.maximum(table, 0), axis=2), -1)
        exists = np.arange(mesh_tables.MAX_FACES)[None, :] < mesh_tables.FACE_COUNT[etype][:, None]
        self.elem = np.repeat(np.arange(ne), mesh_tables.MAX_FACES).reshape(ne, -1)[exists]
        self.local = np.tile(np.arange(mesh_tables.MAX_FACES), (ne, 1))[exists]
        self.nodes = glob[exists]                                      # (nf, 4), ccw outward
        self.size = mesh_tables.FACE_SIZE[etype][exists]
        self.keys = face_keys(self.nodes)
        self.group, counts = group_rows(self.keys)
        self.count = counts[self.group]                                # sharing count per face
        self.boundary = np.flatnonzero(self.count == 1)
        _, first = np.unique(self.group, return_index=True)
        shared = first[counts == 2]
        self.shared = np.sort(shared)                                  # first occurrence of each shared face


class Mesh(PointSetMotion):
    """A mixed TET4/PYR5/WED6/HEX8 mesh."""

    def __init__(self, nodes, etype, conn, volids, gid: int = 0, face_nodes=None, face_sids=None,
                 cur=None):
        self.ref = np.array(nodes, dtype=float).reshape(-1, 3)
        self.cur = self.ref.copy() if cur is None else np.array(cur, dtype=float).reshape(-1, 3)
        self.etype = np.asarray(etype, dtype=np.int64).reshape(-1)
        conn = np.asarray(conn, dtype=np.int64).reshape(self.etype.size, -1)
        self.conn = np.full((self.etype.size, 8), -1, dtype=np.int64)
        self.conn[:, : conn.shape[1]] = conn
        self.volids = np.broadcast_to(np.asarray(volids, dtype=np.int64), self.etype.shape).copy()
        self.gid = int(gid)
        fn = np.zeros((0, 4), dtype=np.int64) if face_nodes is None else np.asarray(face_nodes, np.int64)
        self.face_nodes = np.full((fn.shape[0], 4), -1, dtype=np.int64)
        self.face_nodes[:, : fn.shape[1]] = fn
        self.face_sids = np.zeros(0, np.int64) if face_sids is None else np.asarray(face_sids, np.int64).reshape(-1)
        if self.face_sids.size != self.face_nodes.shape[0]:
            raise ValueError("Mesh: one surface id per listed face is required")
        bad = (self.etype[:, None] > np.arange(8)) != (self.conn >= 0)
        if bad.any() or not np.isin(self.etype, mesh_tables.ETYPES).all():
            raise ValueError("Mesh: element types and padded connectivity disagree")
        self._topo = None
        self._bsurf = None

    @property
    def nnod(self) -> int:
        return self.ref.shape[0]

    @property
    def nele(self) -> int:
        return self.etype.size

    def copy(self) -> "Mesh":
        new = Mesh.__new__(Mesh)
        new.__dict__.update(self.__dict__)
        new.ref, new.cur, new.volids = self.ref.copy(), self.cur.copy(), self.volids.copy()
        return new

    # ------------------------------------------------------------------ topology
    @property
    def topology(self) -> _Topology:
        if self._topo is None:
            self._topo = _Topology(self.etype, self.conn)
        return self._topo

    def boundary_faces(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(nodes (nb, 4) -1 padded ccw outward, sizes (nb,), surface ids (nb,), elements (nb,))."""
        t = self.topology
        b = t.boundary
        if self._bsurf is None:
            sids = np.full(b.size, self.gid, dtype=np.int64)
            if self.face_sids.size:
                hit = match_rows(t.keys[b], face_keys(self.face_nodes))
                sids[hit >= 0] = self.face_sids[hit[hit >= 0]]
            self._bsurf = sids
        return t.nodes[b], t.size[b], self._bsurf, t.elem[b]

    def face_surfids(self) -> np.ndarray:
        """Surface id of every element face (topology order); interior faces INTERIOR_SURFID."""
        t = self.topology
        out = np.full(t.elem.size, INTERIOR_SURFID, dtype=np.int64)
        out[t.boundary] = self.boundary_faces()[2]
        return out

    def nodes_on_surface(self, surfid: int) -> np.ndarray:
        """Sorted unique nodes of the boundary faces with surface id `surfid` (maybe empty)."""
        nodes, _, sids, _ = self.boundary_faces()
        sel = nodes[sids == surfid]
        return np.unique(sel[sel >= 0])

    def inter_element_faces(self) -> tuple[np.ndarray, np.ndarray]:
        """Faces shared by two elements: (nodes (m, 4) -1 padded, sizes (m,))."""
        t = self.topology
        return t.nodes[t.shared], t.size[t.shared]

    def surface_elements(self) -> np.ndarray:
        """Sorted indices of the elements owning at least one boundary face."""
        return np.unique(self.boundary_faces()[3])

    def element_polyhedra(self) -> list:
        """Every element as a Convex (faces from the element table, boundary surface ids,
        INTERIOR_SURFID on interior faces, the element's volume id)."""
        sids = self.face_surfids()
        start = np.concatenate([[0], np.cumsum(mesh_tables.FACE_COUNT[self.etype])[:-1]])
        out = []
        for e in range(self.nele):
            k = self.etype[e]
            nodes = self.conn[e, :k]
            faces = [np.asarray(f) for f in mesh_tables.FACES[k]]
            cvx = Convex(self.ref[nodes], faces, sids[start[e]: start[e] + len(faces)], self.volids[e],
                         cur=self.cur[nodes])
            out.append(cvx)
        return out

    def triangle_chunks(self, config: str = "ref", elements=None):
        """Yield (k, 3, 3) coordinates of every element's closed fan triangulation (each
        element separately, as Solfec treats elements as polyhedra; padding triangles are
        degenerate). `elements`: optional subset of element indices."""
        x = self.ref if config == "ref" else self.cur
        sel = np.arange(self.nele) if elements is None else np.asarray(elements, dtype=np.int64)
        for lo in range(0, sel.size, _CHUNK):
            part = sel[lo: lo + _CHUNK]
            local = mesh_tables.TRI_TABLE[self.etype[part]]                          # (m, 12, 3)
            glob = np.take_along_axis(self.conn[part][:, None, :].repeat(mesh_tables.MAX_TRIS, 1), local, axis=2)
            yield x[glob].reshape(-1, 3, 3)

    # ------------------------------------------------------------------ volume ids (motion: PointSetMotion)
    def set_volid(self, volid: int) -> None:
        self.volids[:] = int(volid)

    # ------------------------------------------------------------------ queries
    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        used = self.conn[self.conn >= 0]
        x = self.cur[used] if used.size else self.cur
        return x.min(axis=0), x.max(axis=0)

    def surface_triangles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Boundary faces as triangles: (current points of the boundary nodes, triangles
        indexing those points, surface id per triangle)."""
        nodes, sizes, sids, _ = self.boundary_faces()
        quad = sizes == 4
        tri = np.vstack([nodes[:, [0, 1, 2]], nodes[quad][:, [0, 2, 3]]])
        tsid = np.concatenate([sids, sids[quad]])
        used, local = np.unique(tri, return_inverse=True)
        return self.cur[used], local.reshape(-1, 3), tsid

    def contains(self, point, tol: float | None = None) -> bool:
        """Is the referential `point` inside a *surface* element (LANGUAGE §10.1)? Elements
        are tested as the intersection of their face-triangle half-spaces."""
        p = np.asarray(point, float)
        if tol is None:
            tol = tolerance(self.ref.min(axis=0), self.ref.max(axis=0))
        for pts in self.triangle_chunks("ref", self.surface_elements()):
            pts = pts.reshape(-1, mesh_tables.MAX_TRIS, 3, 3)
            a, b, c = pts[:, :, 0], pts[:, :, 1], pts[:, :, 2]
            n = np.cross(b - a, c - a)
            d = np.einsum("eti,eti->et", n, p - a)
            if np.any(np.all(d <= tol * np.linalg.norm(n, axis=2), axis=1)):
                return True
        return False

    def volume_points(self, volid: int | None = None) -> np.ndarray:
        """Current coordinates of the element integration points (order-2 rules, NUMERICS
        §3.2), element by element in mesh order; only elements with `volid` if given."""
        elems = np.arange(self.nele) if volid is None else np.flatnonzero(self.volids == volid)
        npts = np.array([0, 0, 0, 0, 4, 8, 6, 0, 8])[self.etype[elems]]
        offset = np.concatenate([[0], np.cumsum(npts)])
        out = np.empty((offset[-1], 3))
        for e in mesh_tables.ETYPES:
            sel = np.flatnonzero(self.etype[elems] == e)
            if sel.size:
                x = np.einsum("pk,eki->epi", mesh_tables.VOLUME_N[e], self.cur[self.conn[elems[sel], :e]])
                rows = offset[sel][:, None] + np.arange(mesh_tables.VOLUME_N[e].shape[0])
                out[rows.reshape(-1)] = x.reshape(-1, 3)
        return out

    def surface_points(self, surfid: int | None = None) -> np.ndarray:
        """Current coordinates of the boundary-face integration points (triangle: centroid,
        quadrilateral: 2 x 2 Gauss), face by face; only faces with `surfid` if given."""
        nodes, sizes, sids, _ = self.boundary_faces()
        keep = np.ones(sizes.size, bool) if surfid is None else sids == surfid
        npts = np.where(sizes == 4, 4, 1)[keep]
        offset = np.concatenate([[0], np.cumsum(npts)])
        out = np.empty((offset[-1], 3))
        for s in (3, 4):
            sel = np.flatnonzero(sizes[keep] == s)
            if sel.size:
                x = np.einsum("pk,fki->fpi", mesh_tables.FACE_N[s], self.cur[nodes[keep][sel, :s]])
                rows = offset[sel][:, None] + np.arange(mesh_tables.FACE_N[s].shape[0])
                out[rows.reshape(-1)] = x.reshape(-1, 3)
        return out
