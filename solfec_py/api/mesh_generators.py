"""Mesh generators of the deck language (layer 7): HEX (a block of hexahedra between eight
corners, optionally graded) and PIPE (a meshed pipe segment). Reference: Solfec-1.0 user
manual, geometric objects (Solfec lng.c HEX, PIPE)."""
from __future__ import annotations

import numpy as np

from solfec_py import validate as V
from solfec_py.api.shape_utils import checked_meshes
from solfec_py.api.shapes import MESH
from solfec_py.errors import InputError
from solfec_py.geometry.hexgen import hex_mesh, pipe_mesh


def _positive_list(name: str, value, n: int) -> np.ndarray:
    vals = V.list_of_numbers(name, value, div=1, minlen=n)[:n]
    bad = np.flatnonzero(~(vals > 0))
    if bad.size:
        raise InputError(f"'{name}[i] for all i' must be positive, got {name}[{bad[0]}] = {float(vals[bad[0]])!r}")
    return vals


@V.command
def HEX(nodes, i, j, k, volid, surids, dx=V.MISSING, dy=V.MISSING, dz=V.MISSING):
    """A structured hexahedral mesh of a (possibly distorted) brick.

    ``HEX(nodes, i, j, k, volid, surids | dx, dy, dz)``: the brick with corners ``nodes`` is
    divided into i x j x k hexahedra.

    Parameters
    ----------
    nodes : list of 24 floats
        [length]. The 8 corners: the bottom four counter-clockwise seen from above, then the top four
        above them.
    i, j, k : int
        Divisions along the brick's three edge directions (at most 10**6 elements in all).
    volid : int
    surids : list of 6 ints
        Surface ids of the faces in the order bottom, -x, +y, +x, -y, top (local directions
        of the brick).
    dx, dy, dz : list of floats, optional
        Relative sizes of the i (j, k) divisions, > 0 (graded meshes).

    Returns
    -------
    MESH

    Raises
    ------
    InputTypeError, InputError
        Fewer than 24 coordinates or 6 ids, non-positive or too many divisions, non-positive
        sizes; corners that make folded elements (docs/meshes.md, the element check).

    Examples
    --------
    >>> block = HEX([0, 0, 0,  1, 0, 0,  1, 1, 0,  0, 1, 0,
    ...         0, 0, 1,  1, 0, 1,  1, 1, 1,  0, 1, 1], 4, 4, 2, 1, [1, 2, 3, 4, 5, 6])
    """
    corners = V.list_of_numbers("nodes", nodes, div=3, minlen=24).reshape(-1, 3)[:8]
    i, j, k = V.divisions("HEX", i=i, j=j, k=k)
    volid = V.integer("volid", volid)
    sids = V.list_of_ints("surids", surids, minlen=6)
    grading = [_positive_list(name, value, n) if V.given(value) else None
               for name, value, n in (("dx", dx, i), ("dy", dy, j), ("dz", dz, k))]
    return MESH._wrap(checked_meshes("HEX", [hex_mesh(corners, i, j, k, volid, sids, *grading)]))


@V.command
def PIPE(pnt, dir, rin, thi, ndri, nrad, nthi, volid, surids):  # noqa: A002 - Solfec's keyword
    """A hexahedral mesh of a straight pipe.

    ``PIPE(pnt, dir, rin, thi, ndri, nrad, nthi, volid, surids)``.

    Parameters
    ----------
    pnt : tuple of 3 floats
        [length]. Centre of the base.
    dir : tuple of 3 floats
        [length]. Axis; its length is the pipe length.
    rin, thi : float
        [length]. Inner radius and wall thickness, > 0.
    ndri, nrad, nthi : int
        Divisions along the axis, around the circumference (>= 3) and through the wall.
    volid : int
    surids : list of 4 ints
        Surface ids of the base (at ``pnt``), the top, the inner and the outer surface.

    Returns
    -------
    MESH

    Raises
    ------
    InputTypeError, InputError
        A zero axis, non-positive radii, too few divisions.

    Examples
    --------
    >>> pipe = PIPE((0, 0, 0), (0, 0, 2), 0.1, 0.02, 8, 16, 2, 1, [1, 2, 3, 4])
    """
    base, axis = V.point("pnt", pnt), V.point("dir", dir)
    if not np.any(axis):
        raise InputError(f"'dir' must be non-zero (its length is the pipe length), got {dir!r}")
    rin, thi = V.positive("rin", rin), V.positive("thi", thi)
    ndri, nrad, nthi = V.divisions("PIPE", ndri=ndri, nrad=nrad, nthi=nthi)
    if nrad < 3:
        raise InputError(f"'nrad' must be at least 3 (subdivisions around the circumference), got {nrad}")
    volid = V.integer("volid", volid)
    sids = V.list_of_ints("surids", surids, minlen=4)
    return MESH._wrap(checked_meshes("PIPE", [pipe_mesh(base, axis, rin, thi, ndri, nrad, nthi, volid, sids)]))


# ---------------------------------------------------------------------- SPHERE, ELLIP
