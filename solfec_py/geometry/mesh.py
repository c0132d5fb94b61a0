"""First-order volumetric mesh with reference and current nodes (layer 1).
Reference: Solfec-1.0 user manual, MESH (element/face conventions), CONSTRAINT (surface elements); Solfec msh.c.

Storage (vectorisation-friendly): `ref`, `cur` (n, 3) nodes; `etype` (ne,) node counts
4/5/6/8; `conn` (ne, 8) zero-based node indices padded with -1; `volids` (ne,).
Surface ids: `gid` for every boundary face, unless the face's node set matches one of the
explicitly listed faces `face_nodes` (m, 4, -1 padded) whose id is `face_sids` (m,).
Topology (element faces, boundary faces, faces shared by two elements) is derived lazily,
once, with a sort of face node sets; copies share it, since connectivity never changes.

Quadratic cells (meshio's tetra10, wedge15, hexahedron20, the quadratic elements of
fem.elements: corners, then one node per edge in `mesh_tables.EDGES` order) are stored as
their linear corners in `conn`, so all geometry (faces, volumes, contact) sees straight-sided
elements, plus `quadratic`: meshio
cell name -> (element indices (m,), all nodes (m, n)); `cells()` lists every element by
meshio cell type with its full node list, `linear()` drops the mid-edge nodes,
`boundary_midside()` gives the mid-edge nodes of the boundary faces and `surface_triangles()`
splits quadratic faces through them (the finite-element bodies' ParaView surface).
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry.pointset import PointSetMotion

from solfec_py.geometry import mesh_tables
from solfec_py.geometry.convex import Convex, tolerance

INTERIOR_SURFID = -2147483647      # surface id of faces interior to a mesh (MESH2CONVEX)
_CHUNK = 1 << 15                   # elements per chunk when producing triangle coordinates


def _grouping(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(stable sort order of the rows of an int array (m, w), True where a new row value starts)."""
    order = np.argsort(keys[:, 0], kind="stable") if keys.shape[1] == 1 else np.lexsort(keys.T[::-1])
    ordered = keys[order]
    new = np.ones(keys.shape[0], dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    return order, new


def group_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group identical rows of an int array (m, w): (group id per row, size of each group)."""
    m = keys.shape[0]
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order, new = _grouping(keys)
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
    """Order-independent keys of faces (m, 4) padded with -1: the sorted node sets, packed
    two nodes per int64 (node numbers below 2**31 - 1); sorted by a 4-input network."""
    a, b, c, d = (np.asarray(nodes, dtype=np.int64)[:, i] + 1 for i in range(4))
    a, b = np.minimum(a, b), np.maximum(a, b)
    c, d = np.minimum(c, d), np.maximum(c, d)
    a, c = np.minimum(a, c), np.maximum(a, c)
    b, d = np.minimum(b, d), np.maximum(b, d)
    b, c = np.minimum(b, c), np.maximum(b, c)
    return np.column_stack([(a << 32) | b, (c << 32) | d])


def _one_column(keys: np.ndarray, nnod: int) -> np.ndarray | None:
    """Triangle-only face keys as one int64 (three 21-bit node numbers) when they fit."""
    if nnod + 1 >= 1 << 21 or np.any(keys[:, 0] >> 32):
        return None
    return ((keys[:, 0] & 0xFFFFFFFF) << 42) | ((keys[:, 1] >> 32) << 21) | (keys[:, 1] & 0xFFFFFFFF)


class _Topology:
    """Element faces and their sharing, derived from (etype, conn). Face entries are listed
    element by element (the faces of element e at start[e] .. start[e] + FACE_COUNT - 1);
    they are built per element type in chunks, so a 10^6-element mesh needs no (ne, 6, 4)
    temporaries."""

    def __init__(self, etype: np.ndarray, conn: np.ndarray):
        ne = etype.size
        count = mesh_tables.FACE_COUNT[etype]
        start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        nf = int(count.sum())
        self.elem = np.repeat(np.arange(ne), count)
        self.local = np.arange(nf) - np.repeat(start, count)
        self.size = mesh_tables.FACE_SIZE[etype[self.elem], self.local]
        self.nodes = np.full((nf, 4), -1, dtype=np.int64)                # ccw outward, -1 padded
        self.keys = np.empty((nf, 2), dtype=np.int64)
        for k in mesh_tables.ETYPES:
            sel = np.flatnonzero(etype == k)
            table = mesh_tables.FACE_TABLE[k][: mesh_tables.FACE_COUNT[k]]                   # (F, 4)
            for lo in range(0, sel.size, _CHUNK * 8):
                e = sel[lo: lo + _CHUNK * 8]
                nodes = conn[e][:, np.maximum(table, 0)]
                if (table < 0).any():
                    nodes[:, table < 0] = -1
                nodes = nodes.reshape(-1, 4)
                if e[-1] - e[0] == e.size - 1:                       # consecutive elements: a slice
                    rows = slice(start[e[0]], start[e[0]] + nodes.shape[0])
                else:
                    rows = (start[e][:, None] + np.arange(table.shape[0])).reshape(-1)
                self.nodes[rows] = nodes
                self.keys[rows] = face_keys(nodes)
        single = _one_column(self.keys, int(conn.max()) + 1 if conn.size else 0)
        order, new = _grouping(self.keys if single is None else single[:, None])
        group_sorted = np.cumsum(new) - 1
        self.group = np.empty(nf, dtype=np.int64)
        self.group[order] = group_sorted
        counts = np.bincount(group_sorted)
        self.count = counts[self.group]                                # sharing count per face
        self.boundary = np.flatnonzero(self.count == 1)
        begin = np.flatnonzero(new)                                    # first of each group in sorted order
        two = begin[counts == 2]
        pair = np.column_stack([order[two], order[two + 1]])           # i < j: the sort is stable
        self.pairs = pair[np.argsort(pair[:, 0])]                      # (i, j) entries of each shared face
        self.shared = self.pairs[:, 0]                                 # first occurrence of each shared face
        self.surface_ids: dict = {}    # boundary-face surface ids by (gid, listed faces, their ids): Mesh.boundary_faces


_TOPOLOGIES: dict = {}     # (etype, conn) bytes of a small mesh -> its _Topology (arrays read-only)
_SHARED_UP_TO = 64         # elements of the meshes whose topology is shared by connectivity
_SHARED_COUNT = 256        # topologies kept (the oldest dropped first)


def _topology_of(etype: np.ndarray, conn: np.ndarray) -> _Topology:
    """The topology of (etype, conn); small meshes of equal connectivity (the many copies of
    one shape in a scene: 512 cubes, each meshed for contact and for output) share one,
    derived once."""
    if etype.size > _SHARED_UP_TO:
        return _Topology(etype, conn)
    key = (etype.tobytes(), conn.tobytes())
    topo = _TOPOLOGIES.get(key)
    if topo is None:
        topo = _Topology(etype, conn)
        for value in vars(topo).values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        if len(_TOPOLOGIES) >= _SHARED_COUNT:
            del _TOPOLOGIES[next(iter(_TOPOLOGIES))]
        _TOPOLOGIES[key] = topo
    return topo


# counter-clockwise triangles of a quadratic face through its corners c0.. and mid-edge
# nodes m0.. (m_k on edge c_k c_k+1), indexed into [c0, c1, ..., m0, m1, ...]
_CURVED_SPLIT = {3: [[0, 3, 5], [1, 4, 3], [2, 5, 4], [3, 4, 5]],
                 4: [[0, 4, 7], [1, 5, 4], [2, 6, 5], [3, 7, 6], [4, 5, 6], [4, 6, 7]]}


class Mesh(PointSetMotion):
    """A mixed TET4/PYR5/WED6/HEX8 mesh (quadratic cells kept beside their corners)."""

    quadratic: dict = {}          # read-only default for meshes unpickled from older versions

    def __init__(self, nodes, etype, conn, volids, gid: int = 0, face_nodes=None, face_sids=None,
                 cur=None, quadratic=None):
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
        self.quadratic = {} if quadratic is None else {
            name: (np.asarray(e, np.int64).reshape(-1), np.asarray(c, np.int64).reshape(len(e), -1))
            for name, (e, c) in quadratic.items()}
        for name, (elems, nodes) in self.quadratic.items():
            k = mesh_tables.QUADRATIC[name]
            if nodes.shape[1] != k + len(mesh_tables.EDGES[k]) or np.any(self.conn[elems, :k] != nodes[:, :k]):
                raise ValueError(f"Mesh: {name} cells must list their corners (conn) first")
        self._topo = None
        self._bsurf = None

    @property
    def is_quadratic(self) -> bool:
        return bool(self.quadratic)

    def cells(self) -> list:
        """Every element by meshio cell type: [(name, element indices, nodes (m, n))], the
        quadratic cells with all their nodes, the others with their corners."""
        out, quad = [], np.zeros(self.nele, dtype=bool)
        for name, (elems, nodes) in self.quadratic.items():
            out.append((name, elems, nodes))
            quad[elems] = True
        for k in mesh_tables.ETYPES:
            elems = np.flatnonzero((self.etype == k) & ~quad)
            if elems.size:
                out.append((mesh_tables.MESHIO_NAMES[k], elems, self.conn[elems, :k]))
        return out

    def linear(self) -> "Mesh":
        """This mesh with straight-sided elements only: quadratic cells become their corners
        and the nodes no element corner uses are dropped (node numbers are compacted)."""
        if not self.quadratic:
            return self.copy()
        used = np.zeros(self.nnod, dtype=bool)
        used[self.conn[self.conn >= 0]] = True
        new = np.cumsum(used) - 1
        renum = lambda a: np.where(a >= 0, new[np.maximum(a, 0)], -1)   # noqa: E731
        keep = np.all((self.face_nodes < 0) | used[np.maximum(self.face_nodes, 0)], axis=1)
        return Mesh(self.ref[used], self.etype, renum(self.conn), self.volids, self.gid,
                    renum(self.face_nodes[keep]), self.face_sids[keep], cur=self.cur[used])

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
            self._topo = _topology_of(self.etype, self.conn)
        return self._topo

    def boundary_faces(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(nodes (nb, 4) -1 padded ccw outward, sizes (nb,), surface ids (nb,), elements (nb,))."""
        t = self.topology
        b = t.boundary
        if self._bsurf is None:
            # kept with the topology (shared by meshes of equal connectivity) per surface ids
            key = (self.gid, self.face_nodes.tobytes(), self.face_sids.tobytes())
            sids = t.surface_ids.get(key)
            if sids is None:
                sids = np.full(b.size, self.gid, dtype=np.int64)
                if self.face_sids.size:
                    hit = match_rows(t.keys[b], face_keys(self.face_nodes))
                    sids[hit >= 0] = self.face_sids[hit[hit >= 0]]
                sids.flags.writeable = False
                if len(t.surface_ids) < 16:
                    t.surface_ids[key] = sids
            self._bsurf = sids
        return t.nodes[b], t.size[b], self._bsurf, t.elem[b]

    def face_surfids(self) -> np.ndarray:
        """Surface id of every element face (topology order); interior faces INTERIOR_SURFID."""
        t = self.topology
        out = np.full(t.elem.size, INTERIOR_SURFID, dtype=np.int64)
        out[t.boundary] = self.boundary_faces()[2]
        return out

    def boundary_midside(self) -> np.ndarray:
        """(nb, 4) mid-edge nodes of every boundary face (boundary_faces order), -1 padded;
        mid-edge node k lies on the face edge (corner k, corner k + 1). All -1 for faces of
        linear elements."""
        nodes, _, _, owner = self.boundary_faces()
        out = np.full(nodes.shape, -1, dtype=np.int64)
        local = self.topology.local[self.topology.boundary]
        for name, (elems, full) in self.quadratic.items():
            row = np.full(self.nele, -1, dtype=np.int64)
            row[elems] = np.arange(elems.size)
            hit = np.flatnonzero(row[owner] >= 0)
            mids = mesh_tables.face_midside(mesh_tables.QUADRATIC[name])[local[hit]]
            out[hit] = np.where(mids >= 0, full[row[owner[hit]][:, None], np.maximum(mids, 0)], -1)
        return out

    def nodes_on_surface(self, surfid: int) -> np.ndarray:
        """Sorted unique nodes of the boundary faces with surface id `surfid` (maybe empty)."""
        nodes, _, sids, _ = self.boundary_faces()
        on = sids == surfid
        sel = nodes[on].reshape(-1)
        if self.quadratic:                                 # mid-edge nodes of those faces too
            sel = np.concatenate([sel, self.boundary_midside()[on].reshape(-1)])
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

    def centroids(self, config: str = "cur") -> np.ndarray:
        """(ne, 3) averages of every element's corner nodes."""
        x = self.cur if config == "cur" else self.ref
        k = self.etype[:, None]
        return np.einsum("ek,eki->ei", (np.arange(8)[None, :] < k) / k, x[np.maximum(self.conn, 0)])

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
        indexing those points, surface id per triangle). Faces of quadratic cells are split
        through their mid-edge nodes (a 6-node triangle into 4 triangles, an 8-node
        quadrilateral into 6), so a deformed body shows its curved faces."""
        nodes, sizes, sids, _ = self.boundary_faces()
        quad = sizes == 4
        tri = [nodes[:, [0, 1, 2]], nodes[quad][:, [0, 2, 3]]]
        tsid = [sids, sids[quad]]
        if self.quadratic:
            mids = self.boundary_midside()
            curved = mids[:, 0] >= 0
            tri = [t[~c] for t, c in zip(tri, (curved, curved[quad]))]
            tsid = [t[~c] for t, c in zip(tsid, (curved, curved[quad]))]
            for size, table in _CURVED_SPLIT.items():
                sel = curved & (sizes == size)
                full = np.hstack([nodes[sel][:, :size], mids[sel][:, :size]])
                tri.append(full[:, table].reshape(-1, 3))
                tsid.append(np.repeat(sids[sel], len(table)))
        tri, tsid = np.vstack(tri), np.concatenate(tsid)
        used, local = np.unique(tri, return_inverse=True)
        return self.cur[used], local.reshape(-1, 3), tsid

    def contains(self, point, tol: float | None = None) -> bool:
        """Is the referential `point` inside a *surface* element (Solfec-1.0 user manual, CONSTRAINT)? Elements
        are tested as the intersection of their face-triangle half-spaces, and, where
        that fails, as the convex hull of their nodes within `tol`, which is Solfec-1.0's
        test (msh.c ``ELEMENT_Contains_Point``: GJK distance to the nodes' hull): the
        nodes of an element with warped faces (a curved shell meshed with HEX8) lie
        outside one of its face triangles but inside its hull."""
        p = np.asarray(point, float)
        ref = self.ref
        if tol is None:             # column by column: numpy's reductions over an (n, 3) array's
            cols = [ref[:, k] for k in range(3)]     # short axis are 10-50x slower (10^5 nodes)
            tol = tolerance(np.array([c.min() for c in cols]), np.array([c.max() for c in cols]))
        d = ref - p
        if (d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2]).min() <= tol * tol:
            return True             # a node (of a warped element the half-spaces can miss)
        surface = self.surface_elements()
        for pts in self.triangle_chunks("ref", surface):
            pts = pts.reshape(-1, mesh_tables.MAX_TRIS, 3, 3)
            a, b, c = pts[:, :, 0], pts[:, :, 1], pts[:, :, 2]
            n = np.cross(b - a, c - a)
            d = np.einsum("eti,eti->et", n, p - a)
            if np.any(np.all(d <= tol * np.linalg.norm(n, axis=2), axis=1)):
                return True
        return self._in_node_hull(p, np.asarray(surface, dtype=np.int64), tol)

    def _in_node_hull(self, p: np.ndarray, elements: np.ndarray, tol: float) -> bool:
        from scipy.spatial import ConvexHull, QhullError

        conn = self.conn[elements]
        x = self.ref[np.maximum(conn, 0)]
        used = conn >= 0
        lo = np.where(used[:, :, None], x, np.inf).min(axis=1)
        hi = np.where(used[:, :, None], x, -np.inf).max(axis=1)
        near = np.flatnonzero(np.all((lo - tol <= p) & (p <= hi + tol), axis=1))
        for e in near.tolist():
            try:
                eq = ConvexHull(x[e][used[e]]).equations           # unit outward normals, offsets
            except QhullError:                                      # a flat element: no volume
                continue
            if np.max(eq[:, :3] @ p + eq[:, 3]) <= tol:
                return True
        return False

    def volume_points(self, volid: int | None = None) -> np.ndarray:
        """Current coordinates of the element integration points (order-2 rules, NUMERICS
        HULL), element by element in mesh order; only elements with `volid` if given."""
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
