"""The geometric-object table of contact detection (layer 5): every body's shape split into
spheres, ellipsoids and convex polyhedra (CONVEX members, surface elements of meshes), stored as flat
arrays in reference coordinates, and their current geometry and bounding boxes at any
configuration. Reference: docs/contact.md (Solfec sgp.c, goc.c object kinds, box.c).

Objects of one body are consecutive and numbered 0.. within the body (`elem`, the index a
contact constraint keeps for each side). Current positions come from the body blocks'
`cur_points(rows, X)`, one call per family, so any body kind whose block implements it takes
part in contact. The table is rebuilt only when the set of bodies changes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from solfec_py import session
from solfec_py.bodies.points import per_family
from solfec_py.bodies.rigid import RigidBlock
from solfec_py.compilation import njit
from solfec_py.geometry.convex import Convex
from solfec_py.geometry.ellip import Ellip
from solfec_py.geometry.mesh import INTERIOR_SURFID, Mesh
from solfec_py.geometry.sphere import Sphere

SPHERE, CONVEX, ELLIP = 0, 1, 2


@dataclass
class ObjectTable:
    """Flat arrays of all contact objects of a domain (see module docstring)."""

    families: list                     # family names; `family` codes index this list
    bodies: list                       # Body of every object
    family: np.ndarray                 # (N,) family code
    row: np.ndarray                    # (N,) block row of the body
    bid: np.ndarray                    # (N,) body id
    elem: np.ndarray                   # (N,) object index within its body
    kind: np.ndarray                   # (N,) SPHERE, CONVEX or ELLIP
    inert: np.ndarray                  # (N,) obstacle objects (no reaction)
    part: np.ndarray                   # (N,) index into the sphere, convex or ellipsoid arrays
    first: dict                        # family name -> (rows,) first object of each block row
    # spheres
    s_obj: np.ndarray                  # (S,) object index
    s_ref: np.ndarray                  # (S, 3) reference centres
    s_radius: np.ndarray               # (S,)
    s_sid: np.ndarray                  # (S,) surface ids
    # convex polyhedra: vertices, fan triangles and faces, each range per convex
    c_obj: np.ndarray                  # (C,) object index
    v_ref: np.ndarray                  # (V, 3)
    v_obj: np.ndarray                  # (V,) object index of each vertex
    c_vstart: np.ndarray               # (C + 1,)
    tri: np.ndarray                    # (T, 3) global vertex indices, outward orientation
    t_face: np.ndarray                 # (T,) global face index
    c_tstart: np.ndarray               # (C + 1,)
    c_closed: np.ndarray               # (C,) triangles close the surface, each edge once each way
    f_sid: np.ndarray                  # (F,) surface id of each face
    f_surface: np.ndarray              # (F,) True for true surface faces (not mesh-interior)
    c_fstart: np.ndarray               # (C + 1,)
    f_vert: np.ndarray                 # global vertex indices of the faces' polygons (as listed: outward)
    f_vstart: np.ndarray               # (F + 1,) range of each face in f_vert
    edges: np.ndarray                  # (K, 2) global vertex indices of the convexes' edges
    c_estart: np.ndarray               # (C + 1,)
    # ellipsoids: centre and the tips of the three semi-axes, as referential points
    e_obj: np.ndarray                  # (E,) object index
    e_ref: np.ndarray                  # (4 E, 3) centre, tip 1, tip 2, tip 3 of each ellipsoid
    e_pobj: np.ndarray                 # (4 E,) object index of each of those points
    e_sid: np.ndarray                  # (E,) surface ids
    signature: tuple = ()
    unsupported: list = field(default_factory=list)   # (body, shape kind) not taking part
    adjacency: np.ndarray | None = None                # sparsify.adjacency_keys, computed on first use
    body_count: int = 0                                # distinct bodies owning objects
    e_rows: np.ndarray | bool | None = None            # (E,) block rows of the ellipsoids when one
                                                       # family holds them all (False: several); first use
    all_convex: bool = False                           # every object is a convex polyhedron
    single_family: int = -1                            # the family code of every object (-1: several)
    v_row: np.ndarray | None = None                    # (V,) block rows of the vertices' bodies, first use

    @property
    def count(self) -> int:
        return self.kind.size

    def objects_of(self, family_names: list, family: np.ndarray, rows: np.ndarray,
                   elem: np.ndarray) -> np.ndarray:
        """Global object indices of (family code into `family_names`, block row, elem)
        triples; -1 where the body or object is not in the table."""
        out = np.full(rows.size, -1, dtype=np.int64)
        family = np.ascontiguousarray(family, dtype=np.int64)
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        elem = np.ascontiguousarray(elem, dtype=np.int64)
        for code, name in enumerate(family_names):
            first = self.first.get(name)
            if first is not None:
                _objects_of_family(code, np.asarray(first, dtype=np.int64), family, rows, elem, out)
        return out


@njit
def _objects_of_family(code, first, family, rows, elem, out):
    """`ObjectTable.objects_of` for the entries of one family: out[k] = first[r] + elem[k]
    for family[k] == code and a row r = rows[k] of the table whose objects that index (-1
    otherwise; entries of other families untouched)."""
    for k in range(rows.size):
        r = rows[k]
        if family[k] != code or r < 0:
            continue
        out[k] = -1
        if r < first.size - 1:
            start, stop, e = first[r], first[r + 1], elem[k]
            if e >= 0 and start + e < stop:
                out[k] = start + e


def _signature(domain) -> tuple:
    """(family name, list of the block's bodies) of every block: the table is current while
    these lists hold the same body objects (compared by identity, at C speed)."""
    return tuple((name, list(block.bodies)) for name, block in sorted(domain.blocks.items()))


def _current(table: "ObjectTable | None", domain) -> bool:
    if table is None or len(table.signature) != len(domain.blocks):
        return False
    return all(name in domain.blocks and bodies == domain.blocks[name].bodies
               for name, bodies in table.signature)


def table_for(domain) -> ObjectTable:
    """The domain's object table, rebuilt when bodies were inserted or deleted."""
    table = getattr(domain, "contact_objects", None)
    if not _current(table, domain):
        table = build(domain)
        table.signature = _signature(domain)
        domain.contact_objects = table
        for body, kind in table.unsupported[:1]:
            session.warn(f"{kind} shapes do not take part in contact detection in solfec-py yet"
                         f" (body {body.id} and {len(table.unsupported) - 1} more)")
    return table


def _convex_parts(shape) -> list:
    """The convex polyhedra of one primitive (CONVEX member or surface mesh elements)."""
    if isinstance(shape, Convex):
        return [shape]
    if isinstance(shape, Mesh):
        surface = set(shape.surface_elements().tolist())
        return [p for e, p in enumerate(shape.element_polyhedra()) if e in surface]
    return []


def _array(values: list, dtype, shape=(0,)) -> np.ndarray:
    return np.asarray(values, dtype=dtype) if len(values) else np.zeros(shape, dtype=dtype)


def _joined(values: list, dtype, shape=(0,)) -> np.ndarray:
    return np.concatenate(values).astype(dtype) if values else np.zeros(shape, dtype=dtype)


@dataclass
class _ObjectRows:
    """The per-object columns of the table while it is built."""

    bodies: list = field(default_factory=list)
    columns: dict = field(default_factory=lambda: {k: [] for k in (
        "family", "row", "bid", "elem", "kind", "inert", "part")})

    def add(self, body, **values) -> None:
        self.bodies.append(body)
        for key, value in values.items():
            self.columns[key].append(value)

    def arrays(self) -> dict:
        cols = self.columns
        out = {k: _array(cols[k], np.int64) for k in ("family", "row", "bid", "elem", "kind", "part")}
        return dict(out, bodies=self.bodies, inert=_array(cols["inert"], bool))


@dataclass
class _SphereRows:
    """The sphere arrays (s_*) while the table is built."""

    obj: list = field(default_factory=list)
    ref: list = field(default_factory=list)
    radius: list = field(default_factory=list)
    sid: list = field(default_factory=list)

    def add(self, index: int, sphere: Sphere) -> int:
        """Append the sphere of object `index`; its position in the sphere arrays."""
        self.obj.append(index)
        self.ref.append(sphere.ref_center)
        self.radius.append(sphere.radius)
        self.sid.append(sphere.surfid)
        return len(self.obj) - 1

    def arrays(self) -> dict:
        return {"s_obj": _array(self.obj, np.int64), "s_ref": _array(self.ref, float, (0, 3)),
                "s_radius": _array(self.radius, float), "s_sid": _array(self.sid, np.int64)}


@dataclass
class _ConvexRows:
    """The convex arrays (c_*, v_*, tri, t_face, f_*) while the table is built: vertex,
    triangle and face ranges per convex, indices global across convexes."""

    obj: list = field(default_factory=list)
    v_ref: list = field(default_factory=list)
    v_obj: list = field(default_factory=list)
    tri: list = field(default_factory=list)
    t_face: list = field(default_factory=list)
    f_sid: list = field(default_factory=list)
    f_surface: list = field(default_factory=list)
    vstart: list = field(default_factory=lambda: [0])
    tstart: list = field(default_factory=lambda: [0])
    closed: list = field(default_factory=list)
    fstart: list = field(default_factory=lambda: [0])
    f_vert: list = field(default_factory=list)
    f_vcount: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    estart: list = field(default_factory=lambda: [0])
    topology: dict = field(default_factory=dict)      # (closed, edges, face_polygons) of each triangulation

    def add(self, index: int, convex: Convex) -> int:
        """Append the convex of object `index`; its position in the convex arrays."""
        nv, nf, nt = self.vstart[-1], self.fstart[-1], self.tstart[-1]
        self.obj.append(index)
        self.v_ref.append(convex.ref)
        self.v_obj.append(np.full(convex.nver, index))
        tr, owner = convex.triangles()
        self.tri.append(tr + nv)
        self.t_face.append(owner + nf)
        self.f_sid.append(convex.surfids)
        self.f_surface.append(convex.surfids != INTERIOR_SURFID)
        self.vstart.append(nv + convex.nver)
        self.fstart.append(nf + convex.surfids.size)
        self.tstart.append(nt + tr.shape[0])
        key = (tr.shape[0], tr.tobytes(), owner.tobytes(), convex.nver, len(convex.faces))
        if key not in self.topology:             # the many equal elements of a model: their topology once
            self.topology[key] = (closed_surface(tr), face_edges(tr, owner)) + face_polygons(convex.faces)
        closed, edges, f_vert, f_vcount = self.topology[key]
        self.f_vert.append(f_vert + nv)
        self.f_vcount.append(f_vcount)
        self.closed.append(closed)
        self.edges.append(edges + nv)
        self.estart.append(self.estart[-1] + edges.shape[0])
        return len(self.obj) - 1

    def arrays(self) -> dict:
        return {"c_obj": _array(self.obj, np.int64), "v_ref": _joined(self.v_ref, float, (0, 3)),
                "v_obj": _joined(self.v_obj, np.int64), "c_vstart": np.asarray(self.vstart, np.int64),
                "tri": _joined(self.tri, np.int64, (0, 3)), "t_face": _joined(self.t_face, np.int64),
                "c_tstart": np.asarray(self.tstart, np.int64), "c_closed": _array(self.closed, bool),
                "f_sid": _joined(self.f_sid, np.int64),
                "f_surface": _joined(self.f_surface, bool), "c_fstart": np.asarray(self.fstart, np.int64),
                "f_vert": _joined(self.f_vert, np.int64),
                "f_vstart": np.concatenate(([0], np.cumsum(_joined(self.f_vcount, np.int64)))).astype(np.int64),
                "edges": _joined(self.edges, np.int64, (0, 2)), "c_estart": np.asarray(self.estart, np.int64)}


def closed_surface(tri: np.ndarray) -> bool:
    """Do the triangles `tri` (T, 3) close a consistently oriented surface: every directed
    side (i, j) once, and its reverse (j, i) once? (A point strictly behind every triangle
    of such an outward surface is inside the hull of its vertices:
    `polyhedra_kernels._behind_all`.)"""
    tri = np.asarray(tri, dtype=np.int64).reshape(-1, 3)
    if tri.shape[0] < 4:
        return False
    side = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
    if np.any(side[:, 0] == side[:, 1]):
        return False
    fwd = {(int(i), int(j)) for i, j in side.tolist()}
    return len(fwd) == side.shape[0] and all((j, i) in fwd for i, j in fwd)


def face_polygons(faces: list) -> tuple:
    """The faces' polygons (vertex indices, as listed: counter-clockwise seen from outside)
    as (flat vertex indices, vertex count of each face): the topology from which the pair
    kernel starts a convex's own polytope (`clipping.own_faces`)."""
    count = np.array([len(f) for f in faces], dtype=np.int64)
    flat = np.concatenate([np.asarray(f, dtype=np.int64) for f in faces]) if faces else np.zeros(0, np.int64)
    return flat, count


def face_edges(tri: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """(K, 2) edges of a polyhedron from its fan triangles `tri` and their faces `owner`:
    the triangle sides between two different faces (fan diagonals are left out)."""
    side = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
    face = np.tile(owner, 3)
    key = np.sort(side, axis=1)
    uniq, inverse = np.unique(key, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    lo = np.full(uniq.shape[0], np.iinfo(np.int64).max)
    hi = np.full(uniq.shape[0], -1)
    np.minimum.at(lo, inverse, face)
    np.maximum.at(hi, inverse, face)
    return uniq[lo != hi].astype(np.int64)


@dataclass
class _EllipRows:
    """The ellipsoid arrays (e_*) while the table is built."""

    obj: list = field(default_factory=list)
    ref: list = field(default_factory=list)
    sid: list = field(default_factory=list)

    def add(self, index: int, ellip: Ellip) -> int:
        """Append the ellipsoid of object `index`; its position in the ellipsoid arrays."""
        self.obj.append(index)
        axes = ellip.ref_rot * ellip.radii                       # columns: semi-axis vectors
        self.ref.append(np.vstack([ellip.ref_center, ellip.ref_center + axes.T]))
        self.sid.append(ellip.surfid)
        return len(self.obj) - 1

    def arrays(self) -> dict:
        obj = _array(self.obj, np.int64)
        return {"e_obj": obj, "e_ref": _joined(self.ref, float, (0, 3)), "e_pobj": np.repeat(obj, 4),
                "e_sid": _array(self.sid, np.int64)}


def _contact_parts(body, unsupported: list) -> list:
    """The spheres and convex polyhedra of a body's shape, in order; primitives that take
    no part in contact yet are listed in `unsupported` as (body, kind name)."""
    parts = []
    for shape in body.shape:
        if isinstance(shape, (Sphere, Ellip)):
            parts.append(shape)
            continue
        convex = _convex_parts(shape)
        if not convex and not isinstance(shape, Mesh):
            unsupported.append((body, type(shape).__name__.upper()))
        parts += convex
    return parts


def _parts_of(body, cache: dict, unsupported: list) -> list:
    """`_contact_parts` of `body`, kept in `cache` while the body holds the same shape
    objects (a domain's cache lives for one RUN: a run on several ranks rebuilds its table
    whenever copies of bodies come and go, and a CALLBACK inserting bodies at every step
    would split every body again)."""
    key = tuple(map(id, body.shape))
    got = cache.get(body.id)
    if got is None or got[0] != key or got[1] is not body:
        missing: list = []
        got = cache[body.id] = (key, body, _contact_parts(body, missing), missing)
    unsupported += got[3]
    return got[2]


def build(domain) -> ObjectTable:
    """Split every body of every block into contact objects (a setup pass over bodies)."""
    families = sorted(domain.blocks)
    cache = domain.__dict__.setdefault("contact_parts_cache", {})
    objects, spheres, convexes, ellips = _ObjectRows(), _SphereRows(), _ConvexRows(), _EllipRows()
    first, unsupported = {}, []
    for code, name in enumerate(families):
        block = domain.blocks[name]
        n = block.count
        inert = np.asarray(block.contact_inert(np.arange(n)), dtype=bool) if n else np.zeros(0, bool)
        starts = np.zeros(n + 1, dtype=np.int64)
        for r in range(n):
            body = block.bodies[r]
            starts[r] = len(objects.bodies)
            for local, p in enumerate(_parts_of(body, cache, unsupported)):
                index = len(objects.bodies)
                if isinstance(p, Sphere):
                    kind, part = SPHERE, spheres.add(index, p)
                elif isinstance(p, Ellip):
                    kind, part = ELLIP, ellips.add(index, p)
                else:
                    kind, part = CONVEX, convexes.add(index, p)
                objects.add(body, family=code, row=r, bid=body.id, elem=local, kind=kind,
                            inert=bool(inert[r]), part=part)
        starts[n] = len(objects.bodies)
        first[name] = starts
    table = ObjectTable(families=families, first=first, unsupported=unsupported,
                        **objects.arrays(), **spheres.arrays(), **convexes.arrays(), **ellips.arrays())
    table.body_count = int(np.unique(table.bid).size)
    table.all_convex = bool(table.kind.size) and bool((table.kind == CONVEX).all())
    if table.family.size and bool((table.family == table.family[0]).all()):
        table.single_family = int(table.family[0])
    return table


@dataclass
class Geometry:
    """Current geometry of a table's objects: sphere centres, convex vertices, face planes
    (unit outward normal n and offset d: n.x <= d inside), ellipsoids {c + A u : |u| <= 1}
    and inflated boxes."""

    s_center: np.ndarray
    v_cur: np.ndarray
    f_normal: np.ndarray
    f_offset: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    e_center: np.ndarray = field(default_factory=lambda: _NO_CENTRES)
    e_A: np.ndarray = field(default_factory=lambda: _NO_AXES)


_NO_CENTRES, _NO_AXES = np.zeros((0, 3)), np.zeros((0, 3, 3))       # (shared, read-only: no ellipsoids)
_NO_CENTRES.flags.writeable = _NO_AXES.flags.writeable = False


def map_points(domain, table: ObjectTable, method: str, obj: np.ndarray, X: np.ndarray,
               rows: np.ndarray | None = None) -> np.ndarray:
    """`bodies.points.per_family` of the block method `method` ("cur_points", "ref_points")
    for points X[k] of objects obj[k]; `rows` = table.row[obj] when the caller has them. A
    table of one family calls its block directly (what per_family does for one family)."""
    rows = table.row[obj] if rows is None else rows
    code = table.single_family
    if code >= 0 and obj.size:
        block = domain.blocks[table.families[code]]
        return np.asarray(getattr(block, method)(rows, X, table.elem[obj]), dtype=float).reshape(obj.size, 3)
    return per_family(domain, table.families, table.family[obj], rows, method, X, table.elem[obj])


def current_points(domain, table: ObjectTable, obj: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Current places of referential points X[k] of objects obj[k] (family by family)."""
    return map_points(domain, table, "cur_points", obj, X)


@njit
def face_planes(v_cur, tri, t_face, nf):
    """Unit outward normals and offsets (n.x <= d inside) of the nf faces of all convexes:
    a face's normal is the normalised sum of its fan triangles' area vectors (b - a) x
    (c - a), added in triangle order; its offset is n . a of its last triangle. The
    operations and their order are those of the array expressions this replaced (np.cross,
    np.bincount, np.linalg.norm, and the (0 + 2) + 1 pairing of numpy's einsum dot of 3
    terms), so the results are theirs bit for bit (tests/test_contact_geometry.py)."""
    normal = np.zeros((nf, 3))
    anchor = np.zeros((nf, 3))
    for t in range(tri.shape[0]):
        ia, ib, ic = tri[t, 0], tri[t, 1], tri[t, 2]
        a0, a1, a2 = v_cur[ia, 0], v_cur[ia, 1], v_cur[ia, 2]
        u0, u1, u2 = v_cur[ib, 0] - a0, v_cur[ib, 1] - a1, v_cur[ib, 2] - a2
        w0, w1, w2 = v_cur[ic, 0] - a0, v_cur[ic, 1] - a1, v_cur[ic, 2] - a2
        f = t_face[t]
        normal[f, 0] += u1 * w2 - u2 * w1
        normal[f, 1] += u2 * w0 - u0 * w2
        normal[f, 2] += u0 * w1 - u1 * w0
        anchor[f, 0], anchor[f, 1], anchor[f, 2] = a0, a1, a2
    offset = np.empty(nf)
    for f in range(nf):
        n0, n1, n2 = normal[f, 0], normal[f, 1], normal[f, 2]
        size = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        if size > 0:
            n0, n1, n2 = n0 / size, n1 / size, n2 / size
        else:
            n0, n1, n2 = n0 / 1.0, n1 / 1.0, n2 / 1.0
        normal[f, 0], normal[f, 1], normal[f, 2] = n0, n1, n2
        offset[f] = (n0 * anchor[f, 0] + n2 * anchor[f, 2]) + n1 * anchor[f, 1]   # einsum's pairing
    return normal, offset


@njit
def convex_boxes(v_cur, c_vstart, c_obj, lo, hi, eps):
    """lo[c_obj[c]], hi[c_obj[c]] = the least and greatest coordinates of the vertices
    v_cur[c_vstart[c]:c_vstart[c + 1]] of every convex c (np.minimum / np.maximum.reduceat
    in one pass, NaN propagating as there), less and plus `eps` (eps = 0: the bounds, but
    for hi = -0.0, which becomes +0.0, as `current`'s later hi += eps makes it anyway)."""
    for c in range(c_obj.size):
        o = c_obj[c]
        for i in range(3):
            a = b = v_cur[c_vstart[c], i]
            for v in range(c_vstart[c] + 1, c_vstart[c + 1]):
                x = v_cur[v, i]
                if x < a or x != x:
                    a = x
                if x > b or x != x:
                    b = x
            lo[o, i], hi[o, i] = a - eps, b + eps


@njit
def ellipsoid_boxes(pts):
    """Ellipsoids {c + A u : |u| <= 1} from their current centre and semi-axis tips pts
    (k, 4, 3): c = pts[:, 0], column j of A = pts[:, 1 + j] - c, and their tight boxes
    c -/+ (the row norms of A)."""
    k = pts.shape[0]
    c = np.empty((k, 3))
    A = np.empty((k, 3, 3))
    lo = np.empty((k, 3))
    hi = np.empty((k, 3))
    for e in range(k):
        for i in range(3):
            c[e, i] = pts[e, 0, i]
            s = 0.0
            for j in range(3):
                a = pts[e, 1 + j, i] - pts[e, 0, i]
                A[e, i, j] = a
                s += a * a
            half = math.sqrt(s)
            lo[e, i] = c[e, i] - half
            hi[e, i] = c[e, i] + half
    return c, A, lo, hi


@njit
def rigid_ellipsoid_boxes(rows, ref, conf, center, obj, lo, hi):
    """`ellipsoid_boxes` straight from the rigid configuration: the centre and semi-axis tips
    ref (4 k, 3) of ellipsoid e move with its body, row rows[e] of a rigid block (conf:
    rotation column-major + centre, `center` the reference mass centres), x = xc + Lambda
    (X - X0) with the operations of `bodies.rigid._cur_points`; the boxes go to lo[obj[e]],
    hi[obj[e]]. The same numbers as `current_points` followed by `ellipsoid_boxes`, without
    the (4 k, 3) point array."""
    k = rows.size
    c = np.empty((k, 3))
    A = np.empty((k, 3, 3))
    pts = np.empty((4, 3))
    for e in range(k):
        r = rows[e]
        for p in range(4):
            a0 = ref[4 * e + p, 0] - center[r, 0]
            a1 = ref[4 * e + p, 1] - center[r, 1]
            a2 = ref[4 * e + p, 2] - center[r, 2]
            for i in range(3):
                pts[p, i] = conf[r, 9 + i] + conf[r, i] * a0 + conf[r, 3 + i] * a1 + conf[r, 6 + i] * a2
        o = obj[e]
        for i in range(3):
            c[e, i] = pts[0, i]
            s = 0.0
            for j in range(3):
                a = pts[1 + j, i] - pts[0, i]
                A[e, i, j] = a
                s += a * a
            half = math.sqrt(s)
            lo[o, i] = c[e, i] - half
            hi[o, i] = c[e, i] + half
    return c, A


def _ellipsoids(domain, table: ObjectTable, lo: np.ndarray, hi: np.ndarray) -> dict:
    """Current ellipsoids (e_center, e_A) of the table, their boxes written to lo, hi."""
    codes = table.family[table.e_obj]
    block = domain.blocks.get(table.families[int(codes[0])])
    rows = table.e_rows
    if rows is None:                 # (the table is rebuilt whenever bodies change)
        single = bool((codes == codes[0]).all())
        rows = table.e_rows = table.row[table.e_obj] if single else False
    if rows is not False and isinstance(block, RigidBlock):   # one rigid family: one pass
        c, A = rigid_ellipsoid_boxes(rows, table.e_ref, block.conf, block.center, table.e_obj, lo, hi)
        return {"e_center": c, "e_A": A}
    # the body motion of the centre and semi-axis tips, any family
    pts = current_points(domain, table, table.e_pobj, table.e_ref).reshape(-1, 4, 3)
    c, A, elo, ehi = ellipsoid_boxes(np.ascontiguousarray(pts))
    lo[table.e_obj], hi[table.e_obj] = elo, ehi
    return {"e_center": c, "e_A": A}


def current(domain, table: ObjectTable, eps: float) -> Geometry:
    """Current geometry of every object (bodies at their present configuration)."""
    s_center = current_points(domain, table, table.s_obj, table.s_ref) if table.s_obj.size else np.zeros((0, 3))
    if table.v_row is None:
        table.v_row = table.row[table.v_obj]
    v_cur = map_points(domain, table, "cur_points", table.v_obj, table.v_ref, table.v_row)
    # face normals: sums of fan-triangle area vectors; offsets from one vertex of each face
    nf = table.f_sid.size
    if table.tri.size:
        normal, offset = face_planes(np.ascontiguousarray(v_cur, dtype=float), table.tri, table.t_face, nf)
    else:
        normal, offset = np.zeros((0, 3)), np.zeros(0)
    n = table.count
    lo, hi = np.empty((n, 3)), np.empty((n, 3))
    if table.s_obj.size:
        r = table.s_radius[:, None]
        lo[table.s_obj], hi[table.s_obj] = s_center - r, s_center + r
    if table.all_convex:             # every box from the vertices, inflated in the same pass
        convex_boxes(v_cur, table.c_vstart, table.c_obj, lo, hi, eps)
        return Geometry(s_center, v_cur, normal, offset, lo, hi)
    if table.c_obj.size:
        convex_boxes(v_cur, table.c_vstart, table.c_obj, lo, hi, 0.0)
    ell = _ellipsoids(domain, table, lo, hi) if table.e_obj.size else {}
    lo -= eps                        # inflated boxes (in place: the values of lo - eps)
    hi += eps
    return Geometry(s_center, v_cur, normal, offset, lo, hi, **ell)
