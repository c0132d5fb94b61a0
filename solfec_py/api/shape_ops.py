"""Shape utilities that cut, bend and select shapes (layer 7): SPLIT, MESH_SPLIT, BEND and
OVERLAPPING. Reference: Solfec lng.c (argument orders, messages, emptying rules) and
Solfec's user manual; the behaviour is documented in docs/meshes.md.
"""
from __future__ import annotations

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.shape_utils import _shape_items, face_rows, int_list
from solfec_py.api.shapes import CONVEX, ELLIP, MESH
from solfec_py.errors import GeometryError, InputError, InputTypeError, NotAvailableError
from solfec_py.geometry.bend import bend_mesh
from solfec_py.geometry.convex import tolerance
from solfec_py.geometry.ellip import Ellip
from solfec_py.geometry.mesh import Mesh
from solfec_py.geometry.mesh_split import faces_by_nodes, outward_normals, split_along_faces
from solfec_py.geometry.plane_cut import side_of, split_convexes, split_mesh
from solfec_py.geometry.sphere import Sphere

KINDS = "CONVEX/MESH/SPHERE/ELLIP"


def _one_or_list(items: list):
    return None if not items else items[0] if len(items) == 1 else items


def _free_mesh(name: str, value) -> Mesh:
    if not isinstance(value, MESH):
        raise InputTypeError(f"'{name}' must be a MESH object, got {V.describe(value)}")
    if value.is_empty:
        raise GeometryError(f"The mesh object is empty: '{name}' was emptied (e.g. used by a BODY)")
    return value._mesh() if value._body is None else value._current_prims()[0]


def _linear_only(command: str, mesh: Mesh) -> None:
    if mesh.is_quadratic:
        raise InputError(f"{command} works on meshes of linear elements; this mesh has quadratic cells"
                         f" ({sorted(mesh.quadratic)}): import it with linear=True")


# ---------------------------------------------------------------------- BEND

@V.command
def BEND(shape, point, direction, angle):
    """Bend a mesh about an axis.

    ``BEND(shape, point, direction, angle)`` bends a free MESH in place by ``angle`` degrees
    about the axis through ``point`` along ``direction``, starting at the mesh section nearest
    to the axis; returns the same MESH.

    Parameters
    ----------
    shape : MESH
        A free mesh (not the mesh of a BODY).
    point : tuple of 3 floats
        [length].
    direction : tuple of 3 floats
        Non-zero.
    angle : float
        Degrees, > 0.

    Returns
    -------
    MESH

    Raises
    ------
    InputTypeError, InputError
        Not a free MESH, a zero direction, a non-positive angle, an axis that cuts the mesh.

    Examples
    --------
    >>> beam = HEX([0, 0, 0, 4, 0, 0, 4, 0.2, 0, 0, 0.2, 0,
    ...             0, 0, 0.2, 4, 0, 0.2, 4, 0.2, 0.2, 0, 0.2, 0.2], 40, 2, 2, 1, [1] * 6)
    >>> BEND(beam, (2, 0, 1), (0, 1, 0), 90)
    """
    if not isinstance(shape, MESH) or shape.is_empty:
        raise InputTypeError(f"'shape' must be a MESH object, got {V.describe(shape)}")
    if shape._body is not None:
        raise InputTypeError("'shape' must be a free MESH object, not the mesh of a BODY")
    p, d = V.point("point", point), V.point("direction", direction)
    angle = V.positive("angle", angle)
    if not np.any(d):
        raise InputError(f"'direction' must be non-zero, got {direction!r}")
    try:
        bend_mesh(shape._mesh(), p, d, angle)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return shape


# ---------------------------------------------------------------------- SPLIT

@V.command
def SPLIT(shape, point, normal, surfid=(0, 0), topoadj="OFF", remesh="ON"):
    """Cut shapes with a plane.

    ``SPLIT(shape, point, normal | surfid, topoadj, remesh)`` cuts the shapes (emptied) by
    the plane through ``point`` with ``normal`` and returns ``(one, two)``: the parts lying
    mostly on the side ``normal`` points to, then the others; each is None, one object or a
    list. CONVEX and MESH objects are cut; a SPHERE or ELLIP crossed by the plane is an error.

    Parameters
    ----------
    shape : CONVEX, MESH, SPHERE, ELLIP or a list of those
    point, normal : tuple of 3 floats
        [length] (the point). ``normal`` non-zero.
    surfid : tuple of 2 ints, optional
        Surface ids of the new faces: ``surfid[0]`` on the face whose outward normal is
        ``normal``, ``surfid[1]`` on the other (default (0, 0)).
    topoadj : str, optional
        ``'ON'``: keep only the parts topologically connected to the cut (default ``'OFF'``).
    remesh : str, optional
        ``'ON'`` (default) or ``'OFF'``: remesh the cut elements of a MESH.

    Returns
    -------
    tuple (one, two)

    Raises
    ------
    InputTypeError, InputError
        A zero normal, malformed ``surfid``, ON/OFF values, a quadratic mesh.
    NotAvailableError
        The plane crosses a sphere or an ellipsoid.

    Examples
    --------
    >>> top, bottom = SPLIT(HEX(nodes, 2, 2, 2, 1, [1] * 6), (0, 0, 0.5), (0, 0, 1), (7, 8))
    """
    items = _shape_items("shape", shape, f"{KINDS} object or a list of those")
    p, n = V.point("point", point), V.point("normal", normal)
    if not np.any(n):
        raise InputError(f"'normal' must be non-zero, got {normal!r}")
    if not isinstance(surfid, tuple):
        raise InputTypeError(f"'surfid' must be a tuple of 2 integers, got {V.describe(surfid)}")
    if len(surfid) != 2:
        raise InputError(f"'surfid' must have 2 elements, got {len(surfid)}")
    sids = (V.integer("surfid[0]", surfid[0]), V.integer("surfid[1]", surfid[1]))
    adj = _switch("topoadj", topoadj)
    rmsh = _switch("remesh", remesh)
    for s in items:
        if isinstance(s, MESH):
            _linear_only("SPLIT", s._current_prims()[0])
    results = []
    for s in items:                        # every cut first: an error leaves the shapes as they were
        prims = s._current_prims()
        results.append(_split(prims, s, p, n, sids, adj, rmsh, tolerance(*_box(prims))))
    out = ([], [])
    for s, parts in zip(items, results):
        s._take()
        for part, kind in parts:
            pts = np.concatenate([_points(q) for q in part])
            out[side_of(pts, p, n)].append(kind._wrap(part))
    return _one_or_list(out[0]), _one_or_list(out[1])


def _switch(name: str, value) -> bool:
    text = V.string(name, value)
    if text not in ("ON", "OFF"):
        raise InputError(f"Invalid {name} value: neither 'ON' nor 'OFF' (got {text!r})")
    return text == "ON"


def _box(prims):
    lo = np.min([q.bounding_box()[0] for q in prims], axis=0)
    hi = np.max([q.bounding_box()[1] for q in prims], axis=0)
    return lo, hi


def _points(prim) -> np.ndarray:
    if isinstance(prim, Sphere):
        return prim.cur_center + prim.radius * np.vstack([np.eye(3), -np.eye(3)])
    if isinstance(prim, Ellip):
        axes = prim.cur_rot * prim.radii
        return prim.cur_center + np.vstack([axes.T, -axes.T])
    return prim.cur


def _split(prims, user, p, n, sids, adj, rmsh, eps):
    """(part primitives, user type) of one user object cut by the plane."""
    if isinstance(user, CONVEX):
        return [(part, CONVEX) for part in split_convexes(prims, p, n, sids, adj, eps)]
    if isinstance(user, MESH):
        return [([part], MESH) for part in split_mesh(prims[0], p, n, sids, adj, rmsh, eps)]
    prim = prims[0]
    d = (_points(prim) - p) @ (n / np.linalg.norm(n))
    if d.min() < -eps and d.max() > eps:
        raise NotAvailableError(f"SPLIT cannot cut {type(user).__name__} objects (Solfec does not either);"
                                " the plane crosses one")
    return [([prim], type(user))]


# ---------------------------------------------------------------------- MESH_SPLIT

@V.command
def MESH_SPLIT(mesh, nodeset=V.MISSING, faceset=V.MISSING, surfid1=0, surfid2=0):
    """Split a mesh along inner faces.

    ``MESH_SPLIT(mesh | nodeset, faceset, surfid1, surfid2)`` separates the elements of a
    MESH (not modified) along inner faces: those whose nodes all belong to ``nodeset`` (the
    new faces get ``surfid1``), or those listed in ``faceset`` (``surfid1`` on the side the
    listed face's counter-clockwise normal points out of, ``surfid2`` on the other). Returns
    the connected parts as new MESH objects (one mesh with an inner crack when the faces do
    not separate it), or None when nothing was split.

    Parameters
    ----------
    mesh : MESH
    nodeset : list of ints, optional
    faceset : list of lists of 3 or 4 ints, optional
    surfid1, surfid2 : int
        Default 0.

    Returns
    -------
    list of MESH or None

    Raises
    ------
    InputTypeError, InputError
        Malformed node or face lists, node numbers out of range, a quadratic mesh.

    Examples
    --------
    >>> block = HEX(nodes, 2, 1, 1, 1, [1] * 6)
    >>> parts = MESH_SPLIT(block, faceset=[[1, 4, 10, 7]], surfid1=5, surfid2=6)
    """
    source = _free_mesh("mesh", mesh)
    if V.given(nodeset):
        nodes = int_list("nodeset", nodeset)
    if V.given(faceset) and not isinstance(faceset, list):
        raise InputTypeError(f"'faceset' must be a list, got {V.describe(faceset)}")
    for name, value in (("surfid1", surfid1), ("surfid2", surfid2)):
        if not V._is_number(value):
            raise InputTypeError(f"'{name}' must be a number, got {V.describe(value)}")
    s1, s2 = int(surfid1), int(surfid2)
    _linear_only("MESH_SPLIT", source)
    t = source.topology
    sids = np.zeros(t.elem.size, dtype=np.int64)
    if V.given(faceset):
        faces = face_rows("faceset", faceset)
        if faces.size and (faces.max() >= source.nnod or (faces[faces != -1] < 0).any()):
            raise InputError(f"'faceset' node numbers must be in [0, {source.nnod - 1}]")
        cut = faces_by_nodes(source, faces)
        if cut.any():
            entries = np.flatnonzero(cut)
            listed = faces[_which(source, faces, entries)]
            X = source.cur
            a, b, c = X[listed[:, 0]], X[listed[:, 1]], X[listed[:, 2]]
            given = np.cross(b - a, c - a)
            along = np.einsum("fi,fi->f", given, outward_normals(source, entries)) > 0
            sids[entries] = np.where(along, s1, s2)
    elif V.given(nodeset):
        inset = np.zeros(source.nnod + 1, dtype=bool)
        inset[nodes[(nodes >= 0) & (nodes < source.nnod)]] = True
        cut = np.all(inset[np.where(t.nodes >= 0, t.nodes, source.nnod)] | (t.nodes < 0), axis=1)
        sids[:] = s1
    else:
        return None
    parts = split_along_faces(source, cut, sids)
    return None if parts is None else [MESH._wrap([m]) for m in parts]


def _which(mesh, faces, entries) -> np.ndarray:
    """For topology entries matching listed faces: the row of `faces` they match."""
    from solfec_py.geometry.mesh import face_keys, match_rows

    return match_rows(mesh.topology.keys[entries], face_keys(faces))


# ---------------------------------------------------------------------- OVERLAPPING

_OVERLAPPING_ARGS = ("obstacles", "shapes", "not", "gap")


def OVERLAPPING(*args, **kwargs):
    """Select the shapes that overlap (or do not overlap) obstacles.

    ``OVERLAPPING(obstacles, shapes | not, gap)`` returns the members of ``shapes`` whose
    contact gap with one of ``obstacles`` is at most ``gap`` (0: they touch or overlap; -d:
    they overlap by at least d), or with ``not='NOT'`` the others; None, one object or a list, in input order. Every
    member of ``shapes`` is emptied (use COPY to keep them); ``obstacles`` are not.

    Parameters
    ----------
    obstacles : CONVEX, MESH, SPHERE or a list of those
    shapes : CONVEX, MESH, SPHERE or a list of those
    not : str, optional
        ``'NOT'`` selects the shapes that do not overlap.
    gap : float, optional
        [length]. <= 0 (default 0).

    Returns
    -------
    None, a shape or a list of shapes

    Raises
    ------
    InputTypeError, InputError
        Unknown arguments, a ``not`` other than ``'NOT'``, a positive gap.
    Examples
    --------
    >>> inside = OVERLAPPING(box, [SPHERE((x, 0, 0), 0.1, 1, 1) for x in range(5)])
    """
    if len(args) > len(_OVERLAPPING_ARGS):
        raise InputTypeError("OVERLAPPING: too many positional arguments")
    bound = dict(zip(_OVERLAPPING_ARGS, args))
    for key in kwargs:
        if key not in _OVERLAPPING_ARGS:
            raise InputTypeError(f"OVERLAPPING: got an unexpected keyword argument {key!r}"
                                 f"{V.suggest(key, _OVERLAPPING_ARGS)}")
        if key in bound:
            raise InputTypeError(f"OVERLAPPING: multiple values for argument {key!r}")
    bound.update(kwargs)
    for key in _OVERLAPPING_ARGS[:2]:
        if key not in bound:
            raise InputTypeError(f"OVERLAPPING: missing a required argument: {key!r}")
    from solfec_py.contact.overlap import overlapping

    obstacles = _shape_items("obstacles", bound["obstacles"], f"{KINDS} object or a list of those")
    shapes = _shape_items("shapes", bound["shapes"], f"{KINDS} object or a list of those")
    negate = False
    if bound.get("not") is not None:
        if V.string("not", bound["not"]) != "NOT":
            raise InputError(f"Only 'NOT' is valid for 'not', got {bound['not']!r}")
        negate = True
    gap = V.setter_number("gap", bound.get("gap", 0.0), le=0.0)
    hit = overlapping([s._current_prims() for s in obstacles], [s._current_prims() for s in shapes], gap,
                      session.geometric_epsilon())
    chosen = [s for s, h in zip(shapes, hit) if h != negate]
    out = [type(s)._wrap(s._take()) for s in chosen]
    for s in shapes:
        if s._prims is not None:
            s._take()
    return _one_or_list(out)

