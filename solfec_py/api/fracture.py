"""Deck commands SIMPLIFIED_CRACK and RT_SPLIT (layer 7): planar cracks of finite-element
bodies checked after every step, and run-time splits of a body along listed inner faces;
the fragments continue as new bodies. Reference: Solfec-1.0 lng.c (lng_SIMPLIFIED_CRACK,
lng_RT_SPLIT), cra.c (Propagate_Cracks), bod.c (BODY_Split_Mesh), docs/fem.md.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solfec_py import validate as V
from solfec_py.api.common import require_body
from solfec_py.api.fracture_split import fragment_bodies, replace_body
from solfec_py.api.shape_utils import face_rows
from solfec_py.errors import InputError, InputTypeError, NotAvailableError
from solfec_py.geometry.convex import tolerance
from solfec_py.geometry.crack_plane import section
from solfec_py.geometry.mesh import Mesh


@dataclass
class Crack:
    """One SIMPLIFIED_CRACK of a body: referential plane, new-face ids, criterion data and
    the element/point pairs where the normal stress is sampled."""

    point: np.ndarray
    normal: np.ndarray
    surfid: tuple
    topoadj: bool
    ft: float
    Gf: float
    elems: np.ndarray = None        # mesh element indices cut by the plane
    points: np.ndarray = None       # one referential point per element

    def placed(self, mesh: Mesh) -> "Crack | None":
        """This crack sampled on `mesh` (reference configuration), or None if the plane
        misses it (or, with topoadj, misses `point`)."""
        lo, hi = mesh.ref.min(axis=0), mesh.ref.max(axis=0)
        d = (mesh.ref - self.point) @ self.normal
        if not (d.min() < -tolerance(lo, hi) and d.max() > tolerance(lo, hi)):
            return None                       # the plane only touches the mesh: nothing to split
        elems, pts = section(mesh.ref, mesh.etype, mesh.conn, self.point, self.normal, tolerance(lo, hi),
                             self.topoadj)
        if not elems.size:
            return None
        if self.topoadj and not _holds(mesh, elems, self.point, tolerance(lo, hi)):
            return None
        return Crack(self.point, self.normal, self.surfid, self.topoadj, self.ft, self.Gf, elems, pts)


def _holds(mesh: Mesh, elems, point, eps) -> bool:
    """Whether one of the elements contains `point` (within eps of its bounding box)."""
    for e in elems.tolist():
        X = mesh.ref[mesh.conn[e, : mesh.etype[e]]]
        if np.all(point >= X.min(axis=0) - eps) and np.all(point <= X.max(axis=0) + eps):
            return True
    return False


def _tuple_ints(name: str, value, n: int) -> tuple:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n              # one id for both new faces (inp/spaghetti.py)
    if not isinstance(value, tuple):
        raise InputTypeError(f"'{name}' must be a tuple of {n} integers (or one integer), got {V.describe(value)}")
    if len(value) != n:
        raise InputError(f"'{name}' must have {n} elements, got {len(value)}")
    return tuple(V.integer(f"{name}[{i}]", v) for i, v in enumerate(value))


@V.command
def SIMPLIFIED_CRACK(body, point, normal, surfid, criterion, topoadj=V.MISSING, ft=0.0, Gf=0.0):
    """Declare a potential planar crack of a body.

    ``SIMPLIFIED_CRACK(body, point, normal, surfid, criterion | topoadj, ft, Gf)``: after
    every step of RUN the normal stress n . sigma n across the referential plane through
    ``point`` with normal ``normal`` is sampled (FINITE_ELEMENT: at the centroids of the
    triangles of the plane's section of every element it cuts; PSEUDO_RIGID: the body's
    homogeneous stress); when it exceeds ``ft`` anywhere, the body splits along the plane
    (shape and background mesh) and its parts continue as new bodies (labels ``label/1``,
    ``label/2``, ...) with the current motion of their points; constraints go to the part
    nearest their point. Cracks declared later are checked first; one crack per body and
    step. See docs/fem.md, "Fracture".

    Parameters
    ----------
    body : BODY
        A FINITE_ELEMENT or PSEUDO_RIGID body (its homogeneous stress is checked).
    point, normal : tuple of 3 floats
        The crack plane in the reference configuration [length]; normal non-zero.
    surfid : tuple of 2 ints, or int
        Surface ids of the new faces: ``surfid[0]`` on the faces whose outward normal is
        ``normal`` (the part behind the plane), ``surfid[1]`` on the others; one int gives
        both (Solfec-1.0 wants a tuple).
    criterion : str
        ``'TENSILE'``.
    topoadj : str, optional
        ``'OFF'`` (default): the whole plane section cracks. ``'ON'``: only the cut
        elements connected to the one holding ``point`` (a crack that may stop inside the
        body; the body then continues as one body with self-contact on).
    ft : float, optional
        Tensile strength [stress], default 0.
    Gf : float, optional
        Fracture energy [energy/area], default 0; stored, unused (as in Solfec-1.0).

    Returns
    -------
    None

    Raises
    ------
    InputTypeError, InputError
        Malformed arguments; a body kind other than FINITE_ELEMENT / PSEUDO_RIGID; a
        criterion other than 'TENSILE'; a plane that misses the body.

    Examples
    --------
    >>> SIMPLIFIED_CRACK(bar, (0.5, 0, 0), (1, 0, 0), (3, 4), 'TENSILE', ft=1E5)
    """
    body = require_body("body", body)
    p = V.point("point", point)
    n = V.vector("normal", normal)
    n = n / np.linalg.norm(n)
    sids = _tuple_ints("surfid", surfid, 2)
    crit = V.string("criterion", criterion)
    adj = False
    if V.given(topoadj):
        text = V.string("topoadj", topoadj)
        if text not in ("ON", "OFF"):
            raise InputError(f"Invalid topoadj value: neither 'ON' nor 'OFF' (got {text!r})")
        adj = text == "ON"
    ft, Gf = V.number("ft", ft), V.number("Gf", Gf)
    if body.kind not in ("PSEUDO_RIGID", "FINITE_ELEMENT"):
        raise InputError(f"Invalid body kind: only PSEUDO_RIGID and FINITE_ELEMENT bodies can crack ('body' is"
                         f" {body.kind})")
    if crit != "TENSILE":
        raise InputError(f"Invalid criterion: 'criterion' must be 'TENSILE', got {crit!r}")
    crack = Crack(p, n, sids, adj, ft, Gf)
    if body.kind == "FINITE_ELEMENT":
        mesh = body.block.records[body.row].mesh
        placed = crack.placed(mesh)
        if placed is None:
            if adj and Crack(p, n, sids, False, ft, Gf).placed(mesh) is not None:
                raise InputError(f"The input point does not belong the body shape: 'point' {tuple(p.tolist())}")
            raise InputError("The crack plane does not intersect the body shape: 'point' "
                             f"{tuple(p.tolist())}, 'normal' {tuple(n.tolist())}")
        crack = placed
    else:
        from solfec_py.api.fracture_prb import crosses

        if not crosses(body.shape, p, n):
            raise InputError("The crack plane does not intersect the body shape: 'point' "
                             f"{tuple(p.tolist())}, 'normal' {tuple(n.tolist())}")
    cracks = body.__dict__.setdefault("_cracks", [])
    cracks.insert(0, crack)                   # the latest declared is checked first (Solfec's list)
    domain = body.block.domain
    watched = domain.__dict__.setdefault("crack_bodies", [])
    if body not in watched:
        watched.append(body)
    if "crack_hooks" not in domain.__dict__:
        from solfec_py.api.fracture_split import propagate

        domain.crack_hooks = [propagate]
    return None


@V.command
def RT_SPLIT(body1, surf, sid1=0, sid2=0, label1=V.MISSING, label2=V.MISSING):
    """Split a MESH-based body along listed inner faces during a run (e.g. in a CALLBACK).

    ``(body2, lst1, lst2) = RT_SPLIT(body1, surf | sid1, sid2, label1, label2)``: the faces
    ``surf`` (lists of 3 or 4 node numbers, counter-clockwise seen from the side of body2)
    are cut; the new faces get ``sid1`` on body1's side and ``sid2`` on body2's. body1 is
    replaced by a new body (new id; the object ``body1`` now stands for it) and its
    constraints are removed; the fragments carry the nodal displacements and velocities.

    Parameters
    ----------
    body1 : BODY
        A FINITE_ELEMENT body whose shape is one MESH (other kinds: NotAvailableError).
    surf : list of lists of ints
    sid1, sid2 : int, optional
        Default 0.
    label1, label2 : str, optional
        Labels of the fragments (default: body1's label for a single fragment).

    Returns
    -------
    tuple
        ``(body2, lst1, lst2)``: lst1 / lst2 give, for every node of body1 / body2, its
        node number in the old body; ``(None, lst1, None)`` if the faces only crack it.

    Raises
    ------
    InputTypeError, InputError
        Malformed faces; a shape that is not one MESH; no split; more than two fragments.
    NotAvailableError
        A body of another kind than FINITE_ELEMENT.

    Examples
    --------
    >>> (bod2, lst1, lst2) = RT_SPLIT(bod, [[0, 1, 17, 16]], 1, 2, 'frag1', 'frag2')
    """
    body = require_body("body1", body1)
    if not isinstance(surf, list):
        raise InputTypeError(f"'surf' must be a list, got {V.describe(surf)}")
    faces = face_rows("surf", surf)
    s1, s2 = V.integer("sid1", sid1), V.integer("sid2", sid2)
    l1 = V.string("label1", label1) if V.given(label1) else None
    l2 = V.string("label2", label2) if V.given(label2) else None
    meshes = [p for p in body.shape if isinstance(p, Mesh)]
    if len(meshes) != 1 or len(body.shape) != 1:
        raise InputError("'body1' shape is not a MESH")
    if body.kind != "FINITE_ELEMENT":
        raise NotAvailableError(f"RT_SPLIT of a {body.kind} body is not available in solfec-py yet"
                                " (FINITE_ELEMENT bodies only)")
    mesh = body.block.records[body.row].mesh
    if faces.size and (faces.max() >= mesh.nnod or (faces[faces != -1] < 0).any()):
        raise InputError(f"'surf' node numbers must be in [0, {mesh.nnod - 1}]")
    from solfec_py.api.fracture_split import faces_split

    parts, lists = faces_split(mesh, faces, s1, s2)
    if parts is None:
        raise InputError("No splitting happened: the faces in 'surf' separate no elements of 'body1'")
    if len(parts) > 2:
        raise InputError(f"Splitting created more than two fragements ({len(parts)})")
    labels = [l1 if l1 is not None else (body.label if len(parts) == 1 else None), l2]
    new = fragment_bodies(body, [([q], None) for q in parts], labels[: len(parts)])
    replace_body(body, new[0])
    if len(new) == 1:
        return (None, lists[0].tolist(), None)
    return (new[1], lists[0].tolist(), lists[1].tolist())

