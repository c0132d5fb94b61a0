"""Deck commands for meshes from files and mesh generators (layer 7): MESH_IMPORT,
TETRAHEDRALIZE, ELLIP_MESH, ROUGH_HEX. Reference: docs/meshes.md; Solfec lng.c
TETRAHEDRALIZE, ELLIP_MESH, ROUGH_HEX (argument orders and messages).

Every command returns a MESH (the type MESH(...) returns). Messages of the importer about
what it dropped or fixed are printed as notes (silenced by WARNINGS('OFF')).
"""
from __future__ import annotations

import os

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.shape_utils import peek_shape
from solfec_py.api.mesh_generators import _positive_list
from solfec_py.api.shapes import CONVEX, MESH, positive_radii
from solfec_py.errors import InputError, InputTypeError
from solfec_py.geometry import mesh_import
from solfec_py.geometry.ellip_mesh import ellip_mesh
from solfec_py.geometry.hexgen import hex_mesh
from solfec_py.geometry.massprops import mass_properties
from solfec_py.geometry.mesh_export import write_mesh
from solfec_py.geometry.tetrahedralize import fill, surface_from_meshio

INT_MAX = 2147483647
# TETRAHEDRALIZE cache files: these extensions keep their format, anything else is VTU
CACHE_FORMATS = {".vtu": "vtu", ".msh": "gmsh", ".inp": "abaqus", ".vtk": "vtk", ".xdmf": "xdmf", ".med": "med"}


def _notes(notes: list, where: str) -> None:
    for text in notes:
        session.inform(f"{where}: {text}")


def _groups(value) -> dict | None:
    if not V.given(value) or value is None:
        return None
    if not isinstance(value, dict):
        raise InputTypeError(f"'groups' must be a dict of group name -> id, got {V.describe(value)}")
    out = {}
    for name, ident in value.items():
        if not isinstance(name, str):
            raise InputTypeError(f"'groups' keys must be group names (strings), got {V.describe(name)}")
        out[name] = V.integer(f"groups[{name!r}]", ident)
    return out


@V.command
def MESH_IMPORT(path, volid=0, surfid=0, groups=V.MISSING, scale=1.0, format=V.MISSING,  # noqa: A002
                linear=False):
    """A MESH read from a mesh file.

    ``MESH_IMPORT(path | volid, surfid, groups, scale, format, linear)`` reads Gmsh (2.2 and
    4.1), Abaqus ``.inp`` (element sets and ``*Surface``), VTK/VTU, MED, Nastran and the other
    volume formats meshio reads. Named groups (Gmsh physical groups, Abaqus sets and
    surfaces) become volume and surface ids; notes about what was dropped or fixed are printed
    (WARNINGS('OFF') silences them). See docs/meshes.md.

    Parameters
    ----------
    path : str
        The file.
    volid, surfid : int
        Ids of elements and boundary faces that no group names (default 0).
    groups : dict, optional
        Group name -> id (default: numbered groups keep their numbers, named ones are numbered
        in order).
    scale : float
        [dimensionless]: file coordinates times scale are in the deck's length unit.
        Coordinates are multiplied by it, > 0 (default 1; e.g. 0.001 for millimetres).
    format : str, optional
        A meshio format name overriding the file extension (``'gmsh'``, ``'abaqus'``, ``'vtu'``, ...).
    linear : bool
        True: quadratic cells become their corner elements (default False: kept; rigid bodies
        use the corners anyway).

    Returns
    -------
    MESH

    Raises
    ------
    InputTypeError, InputError
        A missing or unreadable file (the message says why in words: not found, a
        directory or a device, empty, truncated, another format, an unknown element type),
        an unknown format, a file without volume cells, a bad ``groups`` dict, a
        non-positive scale; coincident nodes; duplicated, zero-volume and folded elements
        (docs/meshes.md, the element check; inside-out ones are turned with a note).

    Examples
    --------
    >>> part = MESH_IMPORT('part.msh', scale=0.001, groups={'base': 1, 'top': 2})
    >>> body = BODY(sol, 'RIGID', part, mat)
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(f"'path' must be a string, got {V.describe(path)}")
    volid, surfid = V.integer("volid", volid), V.integer("surfid", surfid)
    scale = V.positive("scale", scale)
    fmt = None if not V.given(format) or format is None else V.choice("format", format, mesh_import.formats(),
                                                                        what="mesh format")
    linear = V.boolean("linear", linear)
    notes: list = []
    mesh = mesh_import.read_mesh(path, fmt, notes, volid=volid, surfid=surfid, groups=_groups(groups), scale=scale,
                        linear=linear)
    session.record_input(path)          # results record what they were computed from
    _notes(notes, f"MESH_IMPORT {os.fspath(path)}")
    return MESH._wrap([mesh])


# ---------------------------------------------------------------------- TETRAHEDRALIZE

def cache_format(path: str) -> str:
    return CACHE_FORMATS.get(os.path.splitext(path)[1].lower(), "vtu")


@V.command
def TETRAHEDRALIZE(shape, path, volume=V.MISSING, quality=V.MISSING, volid=V.MISSING, surid=V.MISSING):
    """A tetrahedral mesh of a closed surface, cached in a file.

    ``TETRAHEDRALIZE(shape, path | volume, quality, volid, surid)`` fills the boundary of a
    MESH, or a surface file (STL, OFF, PLY, OBJ or a volume mesh's boundary), with tetrahedra
    (gmsh; ``pip install '.[mesh]'``) and writes the result to ``path``. When ``path`` exists it
    is read instead and the other arguments are ignored. A ``path`` that holds Solfec-1.0's own
    cache (its compressed HDF5 layout, as some of its decks ship) is left as it is and the
    mesh is made and kept in ``path + '.vtu'``.

    Parameters
    ----------
    shape : MESH or str
    path : str
        Cache file (``.vtu``, ``.msh``, ``.inp``, ``.vtk``, ``.xdmf``, ``.med``; other extensions are VTU).
    volume : float, optional
        [volume]. Largest element volume, > 0.
    quality : float, optional
        Radius-edge quality bound, > 1.
    volid, surid : int, optional
        Ids of all elements / faces (default: taken from the input).

    Returns
    -------
    MESH

    Raises
    ------
    InputTypeError, InputError
        A shape that is neither a MESH nor a file name, volume <= 0, quality <= 1, an open
        or self-intersecting surface.
    NotAvailableError
        gmsh is not installed.

    Examples
    --------
    >>> tets = TETRAHEDRALIZE('bracket.stl', 'out/bracket_tets.vtu', volume=1E-6)
    """
    if not isinstance(path, str):
        raise InputTypeError(f"'path' must be a string object, got {V.describe(path)}")
    if _solfec_cache(path):
        own = path + ".vtu"
        session.inform(f"TETRAHEDRALIZE {path}: a mesh cache of Solfec-1.0 (its own compressed HDF5 layout, not"
                       f" read here): left as it is; the mesh is made here and kept in {own}")
        path = own
    if os.path.isfile(path):
        notes: list = []
        mesh = mesh_import.read_mesh(path, cache_format(path), notes)
        session.record_input(path)
        _notes(notes, f"TETRAHEDRALIZE {path}")
        return MESH._wrap([mesh])
    vmax = V.number("volume", volume) if V.given(volume) else None
    if vmax is not None and not vmax > 0:
        raise InputError(f"Maximal volume must be positive: 'volume' = {vmax!r}")
    q = V.number("quality", quality) if V.given(quality) else None
    if q is not None and not q > 1.0:
        raise InputError(f"Quality must be > 1.0: 'quality' = {q!r}")
    vid = V.integer("volid", volid) if V.given(volid) else None
    sid = V.integer("surid", surid) if V.given(surid) else None
    notes = []
    if isinstance(shape, MESH) and not shape.is_empty:
        source = shape._current_mesh().linear()
        points, tri, sids = source.surface_triangles()
        ids = vid if vid is not None else _nearest_of(source)
    elif isinstance(shape, str):
        points, tri, sids, ids = _surface_file(shape, notes)
        ids = vid if vid is not None else ids
    else:
        raise InputError(f"Shape must be either a MESH object or string, got {V.describe(shape)}")
    if sid is not None:
        sids = np.full(len(tri), sid)
    mesh = fill(points, tri, sids, ids, vmax, q, notes=notes)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    write_mesh(mesh, path, cache_format(path))
    _notes(notes, f"TETRAHEDRALIZE {path}")
    return MESH._wrap([mesh])


def _solfec_cache(path: str) -> bool:
    """Is `path` a file that Solfec-1.0's TETRAHEDRALIZE wrote (an HDF5 file holding a
    'compressed mesh data' set) where solfec-py keeps its cache in the format the
    extension names (never HDF5)?"""
    if cache_format(path) == "xdmf" or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        if handle.read(8) != b"\x89HDF\r\n\x1a\n":
            return False
    import h5py

    try:
        with h5py.File(path, "r") as f:
            return any("compressed mesh data" in name for name in f)
    except OSError:
        return False


def _nearest(centres: np.ndarray, volids: np.ndarray):
    """Volume ids of the input element nearest to each new element's centroid."""
    from scipy.spatial import cKDTree

    if np.unique(volids).size == 1:
        return int(volids[0])
    tree = cKDTree(centres)
    return lambda x: volids[tree.query(x)[1]]


def _surface_file(path: str, notes: list):
    """Surface (points, triangles, ids) and volume ids of a shape file: the boundary of a
    volume mesh, or the triangles and quads of a surface mesh (STL, OFF, PLY, OBJ, ...)."""
    if not os.path.isfile(path):
        raise InputError(f"'shape' file {path!r} not found")
    raw = mesh_import.read_raw(path, None, notes)
    session.record_input(path)
    try:
        if any(mesh_import._kind(c.type, True)[0] == "volume" for c in raw.cells):
            mesh = mesh_import.from_meshio(raw, notes=notes, linear=True)
            return (*mesh.surface_triangles(), _nearest_of(mesh))
        return (*surface_from_meshio(raw), 0)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


def _nearest_of(mesh):
    return _nearest(mesh.centroids(), mesh.volids)


# ---------------------------------------------------------------------- generators

@V.command
def ELLIP_MESH(center, radii, error, volid, surfid):
    """A tetrahedral mesh of an ellipsoid.

    ``ELLIP_MESH(center, radii, error, volid, surfid)``: the surface triangles stay within
    ``error`` of the ellipsoid (gmsh; ``pip install '.[mesh]'``).

    Parameters
    ----------
    center : tuple of 3 floats
        [length].
    radii : tuple of 3 floats
        [length]. Semi-axes, > 0.
    error : float
        > 0.
    volid, surfid : int

    Returns
    -------
    MESH

    Raises
    ------
    InputTypeError, InputError
        Non-positive radii or error.

    Examples
    --------
    >>> grain = ELLIP_MESH((0, 0, 0), (0.2, 0.1, 0.1), 0.01, 1, 1)
    """
    c, r = V.point("center", center), positive_radii(radii)
    error = V.positive("error", error)
    volid, surfid = V.integer("volid", volid), V.integer("surfid", surfid)
    notes: list = []
    mesh = ellip_mesh(c, r, error, volid, surfid, notes)
    _notes(notes, "ELLIP_MESH")
    return MESH._wrap([mesh])


@V.command
def ROUGH_HEX(shape, i, j, k, dx=V.MISSING, dy=V.MISSING, dz=V.MISSING):
    """A coarse hexahedral mesh around a CONVEX shape.

    ``ROUGH_HEX(shape, i, j, k | dx, dy, dz)``: an i x j x k mesh of the shape's oriented
    bounding box, aligned with its principal axes (i along the thinnest direction); all ids
    are 2147483647. The shape is not emptied. Used as a background mesh (BODY's ``mesh``).

    Parameters
    ----------
    shape : CONVEX or list of CONVEX
    i, j, k : int
        > 0.
    dx, dy, dz : list of floats, optional
        Relative sizes of the divisions, > 0.

    Returns
    -------
    MESH

    Raises
    ------
    InputTypeError, InputError
        A shape that is not a non-empty CONVEX, non-positive divisions.

    Examples
    --------
    >>> rough = ROUGH_HEX(stone, 2, 2, 2)
    """
    items = shape if isinstance(shape, list) else [shape]
    if not items or not all(isinstance(s, CONVEX) and not s.is_empty for s in items):
        raise InputTypeError(f"'shape' must be a non-empty CONVEX object or a list of those, got {V.describe(shape)}")
    prims = peek_shape("shape", shape)
    i, j, k = V.positive_int("i", i), V.positive_int("j", j), V.positive_int("k", k)
    grading = [_positive_list(name, value, n) if V.given(value) else None
               for name, value, n in (("dx", dx, i), ("dy", dy, j), ("dz", dz, k))]
    _, _, euler = mass_properties(prims, "cur")
    _, axes = np.linalg.eigh(euler)                       # columns: principal directions, ascending
    pts = np.concatenate([p.cur for p in prims]) @ axes
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    box = np.array([[lo[0], lo[1], lo[2]], [hi[0], lo[1], lo[2]], [hi[0], hi[1], lo[2]], [lo[0], hi[1], lo[2]]])
    order = [0, 1, 2, 3] if np.linalg.det(axes) > 0 else [3, 2, 1, 0]   # keep the orientation right
    bottom = box[order] @ axes.T
    top = (box[order] + [0.0, 0.0, hi[2] - lo[2]]) @ axes.T
    return MESH._wrap([hex_mesh(np.vstack([bottom, top]), i, j, k, INT_MAX, [INT_MAX] * 6, *grading)])
