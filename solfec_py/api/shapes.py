"""Geometric objects of the deck language (layer 7): CONVEX, HULL, MESH2CONVEX, MESH, SPHERE,
ELLIP, plus `mesh_views` for BODY.mesh; the shape utilities are re-exported from
`shape_utils` (block and pipe meshes: `mesh_generators`; mesh files: `mesh_io`; cutting and
bending: `shape_ops`).
Reference: Solfec-1.0 user manual, geometric objects (Solfec lng.c CONVEX/MESH/SPHERE/ELLIP types).

The user objects wrap internal primitives (solfec_py.geometry); passing them to BODY
empties them (`take_shape`). Read-only members raise ValueError "Writing to a read-only
member"; members of an emptied object raise ValueError "The MESH object is empty".
"""
from __future__ import annotations

import os

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.common import readonly
from solfec_py.api.shape_utils import (  # noqa: F401  (re-exported deck names)
    COPY, MASS_CENTER, ROTATE, SCALE, TRANSLATE, UserShape, checked_meshes, gather_records, int_list, peek_shape,
    take_shape, walk_records)
from solfec_py.errors import InputError, InputTypeError
from solfec_py.errors import GeometryError
from solfec_py.geometry.convex import Convex
from solfec_py.geometry.ellip import Ellip
from solfec_py.geometry.hull import convex_hull
from solfec_py.geometry import mesh_tables
from solfec_py.geometry.mesh import Mesh
from solfec_py.geometry.mesh_export import write_formats, write_mesh
from solfec_py.geometry.sphere import Sphere


def _join_convex(convex) -> list:
    """Members of the optional `convex` collection argument (emptied)."""
    if not V.given(convex):
        return []
    if not isinstance(convex, CONVEX) or convex.is_empty:
        raise InputTypeError(f"'convex' must be a non-empty CONVEX object, got {V.describe(convex)}")
    return convex._take()


# ---------------------------------------------------------------------- CONVEX

class CONVEX(UserShape):
    """A convex polyhedron (or a collection of them).

    ``CONVEX(vertices, faces, volid | convex)``. Passing the object to BODY empties it.

    Parameters
    ----------
    vertices : list of floats
        [length]. ``[x0, y0, z0, x1, y1, z1, ...]``, at least 4 vertices.
    faces : list of ints
        For each face: the vertex count n (>= 3), n vertex indices counter-clockwise seen from
        outside, and the face's surface id; at least 4 faces.
    volid : int
        Volume id.
    convex : CONVEX, optional
        A collection the new polyhedron is put in front of (it is emptied into the result).

    Attributes
    ----------
    nver : int, read-only
        Vertices of the first polyhedron.

    Raises
    ------
    InputTypeError, InputError
        Malformed lists (the message names the face and the vertex), fewer than 4 faces,
        repeated or out-of-range vertex indices, an empty ``convex``.

    Examples
    --------
    >>> tet = CONVEX([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
    ...              [3, 0, 2, 1, 1,   3, 0, 1, 3, 2,   3, 0, 3, 2, 3,   3, 1, 2, 3, 4], 1)
    >>> tet.vertex(3)
    (0.0, 0.0, 1.0)
    """

    KIND = "CONVEX"

    @V.command
    def __init__(self, vertices, faces, volid, convex=V.MISSING):
        verts = V.list_of_numbers("vertices", vertices, div=3, minlen=12).reshape(-1, 3)
        vals = int_list("faces", faces)
        starts, sizes = walk_records("faces", vals, lambda n: n >= 3, "A face must have more than 2 vertices",
                                     "face")
        if starts.size < 4:
            raise InputError(f"'faces': At least 4 faces must be defined, got {starts.size}")
        rows, sids = gather_records("faces", vals, starts, sizes, int(sizes.max()), verts.shape[0],
                                    "Vertex", "Vertices", "face")
        volid = V.integer("volid", volid)
        rest = _join_convex(convex)
        faces = [r[:n] for r, n in zip(rows, sizes)]
        self._prims, self._body = [Convex(verts, faces, sids, volid)] + rest, None

    @readonly
    def nver(self):
        """Number of vertices of the first member."""
        return self._data()[0].nver

    @V.command(name="CONVEX.vertex")
    def vertex(self, n):
        """Current (x, y, z) of vertex ``n`` of the first polyhedron."""
        first = self._data()[0]
        n = V.integer("n", n)
        if not 0 <= n < first.nver:
            raise InputError(f"Vertex index out of bounds: 'n' = {n}, expected 0 <= n <= {first.nver - 1}")
        return tuple(first.cur[n].tolist())


@V.command
def HULL(points, volid, surfid, convex=V.MISSING):
    """The convex hull of a point cloud, as a CONVEX.

    ``HULL(points, volid, surfid | convex)``: every face of the hull gets ``surfid``.

    Parameters
    ----------
    points : list of floats
        [length]. ``[x0, y0, z0, ...]``, at least 4 points not in one plane.
    volid, surfid : int
    convex : CONVEX, optional
        A collection the hull is put in front of (emptied into the result).

    Returns
    -------
    CONVEX

    Raises
    ------
    InputTypeError, InputError
        Fewer than 4 points, an empty ``convex``.
    GeometryError
        Points with no volume (all in one plane).

    Examples
    --------
    >>> cube = HULL([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1], 1, 1)
    """
    pts = V.list_of_numbers("points", points, div=3, minlen=12)
    volid, surfid = V.integer("volid", volid), V.integer("surfid", surfid)
    if V.given(convex) and (not isinstance(convex, CONVEX) or convex.is_empty):
        raise InputTypeError(f"'convex' must be a non-empty CONVEX object, got {V.describe(convex)}")
    try:
        hull = convex_hull(pts.reshape(-1, 3), volid, surfid)
    except GeometryError as exc:
        raise GeometryError(f"'points': {exc}") from None
    return CONVEX._wrap([hull] + _join_convex(convex))


@V.command
def MESH2CONVEX(mesh):
    """Every element of a mesh as a convex polyhedron, in one CONVEX.

    ``MESH2CONVEX(mesh)``; the mesh is not emptied.

    Parameters
    ----------
    mesh : MESH

    Returns
    -------
    CONVEX

    Raises
    ------
    InputTypeError, GeometryError
        Not a MESH, an emptied mesh.

    Examples
    --------
    >>> bricks = MESH2CONVEX(HEX([0, 0, 0,  1, 0, 0,  1, 1, 0,  0, 1, 0,
    ...         0, 0, 1,  1, 0, 1,  1, 1, 1,  0, 1, 1], 2, 2, 1, 1, [1] * 6))
    """
    if not isinstance(mesh, MESH):
        raise InputTypeError(f"'mesh' must be a MESH object, got {V.describe(mesh)}")
    if mesh.is_empty:
        raise GeometryError("The mesh object is empty: 'mesh' was emptied (e.g. used by a BODY)")
    return CONVEX._wrap(mesh._current_mesh().element_polyhedra())


# ---------------------------------------------------------------------- MESH

def _parse_surfids(surfids, nnod: int):
    """`gid` or `[gid, f, n1..nf, s, ...]` -> (gid, face nodes (m, 4), face ids (m,))."""
    if not isinstance(surfids, list):
        if isinstance(surfids, (bool, int, np.integer)):
            return int(surfids), None, None
        raise InputTypeError(f"'surfids' must be an integer or a list, got {V.describe(surfids)}")
    vals = int_list("surfids", surfids, minlen=1)
    starts, sizes = walk_records("surfids", vals, lambda n: n in (3, 4), "A face must have 3 or 4 nodes",
                                 "face", offset=1)
    if not starts.size:
        return int(vals[0]), None, None
    rows, sids = gather_records("surfids", vals, starts, sizes, 4, nnod, "Node", "Nodes", "face")
    return int(vals[0]), rows, sids


class MESH(UserShape):
    """A volume mesh of first-order (and quadratic) elements.

    ``MESH(nodes, elements, surfids)``. Elements are tetrahedra (4 nodes), pyramids (5),
    wedges (6) and hexahedra (8), numbered as in Solfec (a hexahedron: nodes 0-3 around the bottom face, 4-7 above
    them), and the quadratic TET10 (10 nodes), WED15 (15) and HEX20 (20), which Solfec does
    not have: the corners as the linear element, then one node per edge in meshio's order
    (docs/fem.md). Finite-element bodies use all their nodes; geometry and rigid bodies use
    the corners. MESH_IMPORT reads meshes from files and keeps quadratic cells.

    Parameters
    ----------
    nodes : list of floats
        [length]. ``[x0, y0, z0, x1, ...]``.
    elements : list of ints
        For each element: the node count (4, 5, 6, 8, 10, 15 or 20), the node indices, the
        volume id.
    surfids : int or list of ints
        A default surface id, or ``[gid, n, i1, ..., in, sid, ...]``: the default ``gid``
        followed by faces (3 or 4 node indices) with their surface ids.

    Raises
    ------
    InputTypeError, InputError
        Malformed lists (the message names the element and the node), out-of-range or
        repeated node indices, no element; duplicated, zero-volume and folded
        (self-intersecting) elements, named with their nodes (docs/meshes.md, the element
        check). An element listed inside out is turned the right way with a note.

    Examples
    --------
    >>> nodes = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
    >>> cube = MESH(nodes, [8, 0, 1, 2, 3, 4, 5, 6, 7, 1], 1)
    >>> cube.nnod
    8
    >>> from solfec_py.fem.blocks import structured      # a HEX20 brick: 20-node records
    >>> X, conn = structured('hexahedron20', (2, 1, 1))
    >>> bar = MESH(X.ravel().tolist(), [v for c in conn for v in (20, *c.tolist(), 1)], 1)
    >>> bar.nnod
    32
    """

    KIND = "MESH"

    @V.command
    def __init__(self, nodes, elements, surfids):
        X = V.list_of_numbers("nodes", nodes, div=3, minlen=12).reshape(-1, 3)
        vals = int_list("elements", elements)
        starts, sizes = walk_records("elements", vals, lambda n: n in mesh_tables.CORNERS_OF,
                                     "An element must have 4, 5, 6, 8, 10, 15, or 20 nodes", "element")
        if not starts.size:
            raise InputError("'elements' must define at least one element, got an empty list")
        conn, volids = gather_records("elements", vals, starts, sizes, 20, X.shape[0], "Node", "Nodes", "element")
        gid, fnodes, fsids = _parse_surfids(surfids, X.shape[0])
        # the mesh holds the nodes from the lowest to the highest one an element uses, as
        # Solfec-1.0's MESH_Create (msh.c): unreferenced nodes past either end are dropped
        # (they would carry no mass and no stiffness), node numbers shift to start at 0
        used = conn[conn >= 0]
        lo, hi = int(used.min()), int(used.max())
        if lo > 0 or hi < X.shape[0] - 1:
            X = X[lo:hi + 1]
            conn = np.where(conn >= 0, conn - lo, conn)
            if fnodes is not None:
                fnodes = np.where(fnodes >= 0, fnodes - lo, fnodes)
        corners = np.array([mesh_tables.CORNERS_OF[n] for n in sizes.tolist()], dtype=np.int64)
        quadratic = {}
        for n, name in mesh_tables.QUADRATIC_BY_NODES.items():
            elems = np.flatnonzero(sizes == n)
            if elems.size:
                quadratic[name] = (elems, conn[elems, :n])
        conn = np.where(np.arange(conn.shape[1]) < corners[:, None], conn, -1)[:, :8]
        self._prims = checked_meshes("MESH", [Mesh(X, corners, conn, volids, gid=gid, face_nodes=fnodes,
                                                   face_sids=fsids, quadratic=quadratic)])
        self._body = None

    # a view (BODY.mesh) follows its body: current coordinates come from the body
    def _mesh(self) -> Mesh:
        return self._data()[0]

    def _current_mesh(self) -> Mesh:
        """The mesh with `cur` in the current configuration (a placed copy for views)."""
        mesh = self._mesh()
        if self._body is None:
            return mesh
        background = getattr(self._body, "_background", None)
        if background is not None and background.mesh is mesh:       # a background mesh: its nodes' motion
            return self._body.block.current_mesh(self._body.row)
        for k, p in enumerate(self._body.shape):
            if p is mesh:
                return self._body.current_primitives()[k]
        return mesh

    def _current_prims(self) -> list:
        """A view yields a free copy whose reference is the body's current configuration."""
        mesh = self._current_mesh()
        if self._body is None:
            return [mesh]
        free = mesh.copy()
        free.ref = free.cur.copy()
        return [free]

    @readonly
    def nnod(self):
        """Number of nodes."""
        return self._mesh().nnod

    @V.command(name="MESH.node")
    def node(self, n, x=V.MISSING, y=V.MISSING, z=V.MISSING):
        """Current (x, y, z) of node `n`; given coordinates overwrite both configurations."""
        mesh = self._mesh()
        n = V.integer("n", n)
        if not 0 <= n < mesh.nnod:
            raise InputError(f"Node index out of bounds: 'n' = {n}, expected 0 <= n <= {mesh.nnod - 1}")
        for axis, (label, value) in enumerate((("x", x), ("y", y), ("z", z))):
            if V.given(value):
                mesh.ref[n, axis] = mesh.cur[n, axis] = V.number(label, value)
        if self._body is not None:
            return tuple(np.asarray(self._body.cur_point(mesh.ref[n]), float).tolist())
        return tuple(mesh.cur[n].tolist())

    @V.command(name="MESH.nodes_on_surface")
    def nodes_on_surface(self, surfid):
        """Sorted node indices on boundary faces with `surfid`, or None."""
        mesh = self._mesh()
        nodes = mesh.nodes_on_surface(V.integer("surfid", surfid))
        return nodes.tolist() if nodes.size else None

    @V.command(name="MESH.inter_element_faces")
    def inter_element_faces(self):
        """Node lists of the faces shared by two elements."""
        nodes, sizes = self._mesh().inter_element_faces()
        return [r[:s].tolist() for r, s in zip(nodes, sizes)]

    @V.command(name="MESH.inter_element_faces_on_plane")
    def inter_element_faces_on_plane(self, point, normal, ref=True, eps=V.MISSING):
        """Shared faces whose nodes all lie within `eps` of the plane (point, normal)."""
        mesh = self._mesh()
        p = V.point("point", point)
        nrm = V.point("normal", normal)
        use_ref = V.boolean("ref", ref)
        tol = session.geometric_epsilon() if not V.given(eps) else V.positive("eps", eps)
        length = np.linalg.norm(nrm)
        if length == 0.0:
            raise InputError(f"'normal' must be non-zero, got {normal!r}")
        X = mesh.ref if use_ref else self._current_mesh().cur
        nodes, sizes = mesh.inter_element_faces()
        dist = np.abs((X[np.maximum(nodes, 0)] - p) @ (nrm / length))
        on = np.all((dist <= tol) | (nodes < 0), axis=1)
        return [r[:s].tolist() for r, s in zip(nodes[on], sizes[on])]

    @V.command(name="MESH.get_data")
    def get_data(self):
        """(nodes, elements, surfids) in MESH() input form: current nodes; interior
        elements first, then surface elements; surfids = [0, faces with id != 0]
        (Solfec's output order and gid, Solfec-1.0 user manual, MESH)."""
        mesh = self._current_mesh()
        surface = np.zeros(mesh.nele, dtype=bool)
        surface[mesh.surface_elements()] = True
        order = np.concatenate([np.flatnonzero(~surface), np.flatnonzero(surface)])
        et = mesh.etype[order]
        table = np.full((order.size, 10), -1, dtype=np.int64)
        table[:, 0], table[:, 1:9] = et, mesh.conn[order]
        table[np.arange(order.size), et + 1] = mesh.volids[order]
        elements = table[np.arange(10)[None, :] <= (et + 1)[:, None]]
        fnodes, fsizes, fsids, _ = mesh.boundary_faces()
        keep = fsids != 0
        ftab = np.full((int(keep.sum()), 6), -1, dtype=np.int64)
        ftab[:, 0], ftab[:, 1:5] = fsizes[keep], fnodes[keep]
        ftab[np.arange(ftab.shape[0]), fsizes[keep] + 1] = fsids[keep]
        faces = ftab[np.arange(6)[None, :] <= (fsizes[keep] + 1)[:, None]]
        return mesh.cur.reshape(-1).tolist(), elements.tolist(), [0] + faces.tolist()

    @V.command(name="MESH.export")
    def export(self, path, format=V.MISSING):  # noqa: A002 - the meshio keyword
        """Write the mesh (current configuration) to `path` in any format meshio writes
        ('vtu', 'gmsh', 'gmsh22', 'abaqus', 'med', ...; default from the extension), with
        volume and surface ids as cell data; returns the format written."""
        if not isinstance(path, (str, os.PathLike)):
            raise InputTypeError(f"'path' must be a string, got {V.describe(path)}")
        fmt = None if not V.given(format) else V.choice("format", format, write_formats(), what="mesh format")
        return write_mesh(self._current_mesh(), path, fmt)

    @V.command(name="MESH.set_volid")
    def set_volid(self, volid):
        """Set the volume id of every element; returns it."""
        mesh = self._mesh()
        volid = V.integer("volid", volid)
        mesh.set_volid(volid)
        return volid

    @V.command(name="MESH.surface_integration_points")
    def surface_integration_points(self, surfid=V.MISSING):
        """Current boundary-face integration points (of faces with `surfid` if given)."""
        self._mesh()
        sid = V.integer("surfid", surfid) if V.given(surfid) else None
        return [tuple(r) for r in self._current_mesh().surface_points(sid).tolist()]

    @V.command(name="MESH.volume_integration_points")
    def volume_integration_points(self, volid=V.MISSING):
        """Current element integration points (of elements with `volid` if given)."""
        self._mesh()
        vid = V.integer("volid", volid) if V.given(volid) else None
        return [tuple(r) for r in self._current_mesh().volume_points(vid).tolist()]


def mesh_views(body):
    """BODY.mesh for bodies whose shape holds meshes: one non-owning MESH view, a list of
    them, or None (Solfec-1.0 user manual, BODY attributes)."""
    background = getattr(body, "_background", None)
    if background is not None:              # FE body carried by a background mesh: that mesh
        return MESH._wrap([background.mesh], body=body)
    views = [MESH._wrap([p], body=body) for p in body.shape if isinstance(p, Mesh)]
    if not views:
        return None
    return views[0] if len(views) == 1 else views


# ---------------------------------------------------------------------- generators

class SPHERE(UserShape):
    """A sphere, a shape for BODY.

    ``SPHERE(center, radius, volid, surfid)``.

    Parameters
    ----------
    center : tuple of 3 floats
        [length].
    radius : float
        [length]. > 0.
    volid, surfid : int

    Attributes
    ----------
    center, radius : read-only
        In the current configuration.

    Raises
    ------
    InputTypeError, InputError
        A non-positive radius, non-numbers.

    Examples
    --------
    >>> ball = BODY(sol, 'RIGID', SPHERE((0, 0, 1), 0.1, 1, 1), mat)
    """

    KIND = "SPHERE"

    @V.command
    def __init__(self, center, radius, volid, surfid):
        c = V.point("center", center)
        r = V.positive("radius", radius)
        volid, surfid = V.integer("volid", volid), V.integer("surfid", surfid)
        self._prims, self._body = [Sphere(c, r, volid, surfid)], None

    @readonly
    def center(self):
        """Current centre (x, y, z)."""
        return tuple(self._data()[0].cur_center.tolist())

    @readonly
    def radius(self):
        """Current radius."""
        return float(self._data()[0].radius)


def positive_radii(radii) -> np.ndarray:
    """`radii`: a tuple of three positive numbers (semi-axes)."""
    r = V.tuple_of_numbers("radii", radii, 3)
    bad = np.flatnonzero(~(r > 0))
    if bad.size:
        raise InputError(f"'radii' must be positive, got radii[{bad[0]}] = {float(r[bad[0]])!r}")
    return r


class ELLIP(UserShape):
    """An ellipsoid (semi-axes along the global axes initially).

    ``ELLIP(center, radii, volid, surfid)``. Ellipsoids take part in contact with every
    other shape (docs/contact.md).

    Parameters
    ----------
    center : tuple of 3 floats
        [length].
    radii : tuple of 3 floats
        [length]. Semi-axes, > 0.
    volid, surfid : int

    Attributes
    ----------
    center, radii, rot : read-only
        Current centre, semi-axes and principal axes (columns of a column-major 3 x 3).

    Raises
    ------
    InputTypeError, InputError
        Non-positive radii.

    Examples
    --------
    >>> egg = ELLIP((0, 0, 0), (0.2, 0.1, 0.1), 1, 1)
    """

    KIND = "ELLIP"

    @V.command
    def __init__(self, center, radii, volid, surfid):
        c, r = V.point("center", center), positive_radii(radii)
        volid, surfid = V.integer("volid", volid), V.integer("surfid", surfid)
        self._prims, self._body = [Ellip(c, r, volid, surfid)], None

    @readonly
    def center(self):
        """Current centre (x, y, z)."""
        return tuple(self._data()[0].cur_center.tolist())

    @readonly
    def radii(self):
        """Current semi-axes."""
        return tuple(self._data()[0].radii.tolist())

    @readonly
    def rot(self):
        """Column-major 9-tuple whose columns are the current principal axes."""
        return tuple(self._data()[0].cur_rot.T.reshape(-1).tolist())
