"""Shape handling common to the deck commands (layer 7): the user-shape base class with
Solfec's "emptying" semantics, `take_shape`/`peek_shape`, and the shape utilities
TRANSLATE, ROTATE, SCALE, COPY, MASS_CENTER (SPLIT, MESH_SPLIT, BEND, OVERLAPPING are in
`shape_ops`). Reference: Solfec-1.0 user manual, shape utilities; Solfec-1.0 lng.c argument checks (Solfec lng.c shape routines).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from solfec_py import session, validate as V
from solfec_py.errors import InputError, InputTypeError
from solfec_py.geometry.massprops import mass_properties
from solfec_py.geometry.rotation import axis_angle

KINDS = "CONVEX/MESH/SPHERE/ELLIP"


class UserShape:
    """A deck-level geometric object holding internal primitives in `_prims`.

    Contract: subclasses set `KIND` ('CONVEX', 'MESH', ...). `_prims is None` means the
    object was emptied (moved into a BODY, ...): its members then raise ValueError
    "The KIND object is empty" and it is refused as a shape (TypeError). `_body` is set on
    non-owning MESH views of a body's mesh; taking such a view copies instead of emptying.
    """

    KIND = "SHAPE"
    _prims: list | None = None
    _body: Any = None

    @classmethod
    def _wrap(cls, prims: list, body=None) -> "UserShape":
        obj = cls.__new__(cls)
        obj._prims, obj._body = list(prims), body
        return obj

    @property
    def is_empty(self) -> bool:
        return self._prims is None

    def _data(self) -> list:
        if self._prims is None:
            raise InputError(f"The {self.KIND} object is empty")
        return self._prims

    def _current_prims(self) -> list:
        """The primitives with `cur` in the current configuration (views: placed copies)."""
        return self._data()

    def _take(self) -> list:
        """Move the primitives out (emptying), or copy a view's current configuration."""
        if self._body is not None:
            return [p.copy() for p in self._current_prims()]
        prims, self._prims = self._prims, None
        return prims

    def _clone(self) -> "UserShape":
        return type(self)._wrap([p.copy() for p in self._current_prims()])

    def __repr__(self) -> str:
        return f"<{self.KIND} object{' (empty)' if self._prims is None else ''}>"


def _shape_items(name: str, value: Any, requirement: str) -> list:
    """The non-empty user shapes of `value` (one object or a non-empty list of distinct
    ones); InputTypeError with `requirement` otherwise."""
    items = value if isinstance(value, list) else [value]
    ok = bool(items) and all(isinstance(s, UserShape) and not s.is_empty for s in items)
    if ok and len({id(s) for s in items}) != len(items):
        raise InputTypeError(f"'{name}' lists the same object twice; each object can be used once")
    if not ok:
        raise InputTypeError(f"'{name}' must be a non-empty {requirement}, got {V.describe(value)}")
    return items


def take_shape(name: str, value: Any) -> list:
    """Internal primitives of a shape argument, emptying the user objects (Solfec-1.0 lng.c argument checks)."""
    items = _shape_items(name, value, f"{KINDS} object or a list of those")
    return [p for s in items for p in s._take()]


def peek_shape(name: str, value: Any, requirement: str | None = None) -> list:
    """Copies of the primitives of a shape argument; the user objects are untouched."""
    items = _shape_items(name, value, requirement or f"{KINDS} object or a list of those")
    return [p.copy() for s in items for p in s._current_prims()]


def live_shape(name: str, value: Any) -> list:
    """The primitives of a shape argument themselves, the user objects untouched (checks
    before `take_shape`; do not modify them)."""
    return _live_prims(name, value, f"{KINDS} object or a list of those")


def _live_prims(name: str, value: Any, requirement: str) -> list:
    """The primitives themselves (for in-place transformations)."""
    return [p for s in _shape_items(name, value, requirement) for p in s._data()]


_OR_TUPLE = f"{KINDS} object, a list of those or a (x, y, z) tuple"


def _tuple_point(value: tuple) -> np.ndarray:
    if len(value) != 3:
        raise InputError(f"'shape' must have 3 elements, got {len(value)}")
    return np.array([V.number(f"shape[{i}]", v) for i, v in enumerate(value)])


# ---------------------------------------------------------------------- list parsers

def face_rows(name: str, value: list) -> np.ndarray:
    """(k, 4) node numbers of a list of 3- or 4-node faces (MESH_SPLIT's faceset, RT_SPLIT's
    surf), -1 padding triangles; `value` must already be a list."""
    faces = np.full((len(value), 4), -1, dtype=np.int64)
    for r, face in enumerate(value):
        if not isinstance(face, list):
            raise InputError(f"'{name}' must be a list of lists, got item {r} = {V.describe(face)}")
        if len(face) not in (3, 4):
            raise InputError(f"invalid face size (neither 3 nor 4): {name}[{r}] has {len(face)} nodes")
        faces[r, : len(face)] = int_list(f"{name}[{r}]", face)
    return faces


def int_list(name: str, value: Any, minlen: int = 0) -> np.ndarray:
    """A list of integers as an int64 array. Integral floats (4.0) are accepted as Solfec
    converts list items with int(); a fractional float or a non-number is a TypeError."""
    if not isinstance(value, list):
        raise InputTypeError(f"'{name}' must be a list, got {V.describe(value)}")
    if len(value) < minlen:
        raise InputError(f"'{name}' must have at least {minlen} elements, got {len(value)}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        arr = np.asarray(value, dtype=object)
    in_range = arr.ndim == 1 and arr.dtype.kind in "iubf" and (
        arr.size == 0 or (V.INT_MIN <= arr.min() and arr.max() <= V.INT_MAX))
    if in_range and arr.dtype.kind in "iub":
        return arr.astype(np.int64)
    if in_range and np.all(np.isfinite(arr)) and np.all(arr == np.floor(arr)):
        return arr.astype(np.int64)
    for k, item in enumerate(value):
        if isinstance(item, (float, np.floating)) and np.isfinite(item) and item == int(item):
            item = int(item)                # Solfec converts list items with int()
        V.integer(f"{name}[{k}]", item)
    raise InputTypeError(f"'{name}' must be a list of integers, got {V.describe(value)}")  # pragma: no cover


def walk_records(name: str, vals: np.ndarray, sizes_ok, size_error: str, what: str, offset: int = 0):
    """Split a flat list [n, v1..vn, id, n, ...] into (starts, sizes); `offset` skips a
    leading item (the gid of MESH surfids). Errors name the argument."""
    starts, i, L = [], offset, vals.size
    while i < L:
        n = int(vals[i])
        if not sizes_ok(n):
            raise InputError(f"'{name}': {size_error} ({what} {len(starts)} has {n})")
        if i + n + 1 >= L:
            raise InputError(f"'{name}': The last {what} definition is incomplete")
        starts.append(i)
        i += n + 2
    starts = np.array(starts, dtype=np.int64)
    return starts, vals[starts] if starts.size else np.zeros(0, np.int64)


def gather_records(name: str, vals, starts, sizes, width: int, count: int, item: str, items: str,
                   what: str):
    """Padded (m, width) index rows and the trailing ids of walked records; range and
    repetition checks ("Node j in element m is outside of range [0, nn-1]")."""
    cols = np.arange(width)
    mask = cols[None, :] < sizes[:, None]
    idx = np.minimum(starts[:, None] + 1 + cols[None, :], vals.size - 1)
    rows = np.where(mask, vals[idx], -1)
    ids = vals[starts + sizes + 1]
    bad = mask & ((rows < 0) | (rows >= count))
    if bad.any():
        m, j = np.argwhere(bad)[0]
        raise InputError(f"'{name}': {item} {rows[m, j]} in {what} {m} is outside of range [0, {count - 1}]")
    tagged = np.where(mask, rows, -1 - cols[None, :])
    same = tagged[:, :, None] == tagged[:, None, :]
    same &= ~np.eye(width, dtype=bool)[None]
    if same.any():
        m, a, b = np.argwhere(same)[0]
        raise InputError(f"'{name}': {items} {rows[m, a]} and {rows[m, b]} (positions {a} and {b})"
                         f" in {what} {m} are the same")
    return rows, ids


def checked_meshes(who: str, prims: list) -> list:
    """`prims` after geometry.mesh_check on every mesh among them (the one element check of
    every path into a body): refused elements raise InputError prefixed by `who`, inside-out
    ones are turned with a note."""
    from solfec_py.geometry.mesh import Mesh
    from solfec_py.geometry.mesh_check import check_mesh

    for p in prims:
        if isinstance(p, Mesh):
            try:
                notes = check_mesh(p)
            except InputError as exc:
                raise InputError(f"{who}: {exc}") from None
            for text in notes:
                session.inform(f"{who}: {text}")
    return prims


# ---------------------------------------------------------------------- mass properties

def shape_mass_properties(prims: list, config: str = "ref", density: float = 1.0, what: str = "'shape'"):
    """(volume, center, euler) of primitives; InputError naming `what` when the volume,
    centre or Euler tensor (times `density`) cannot be represented as floats."""
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            volume, center, euler = mass_properties(prims, config)
    except OverflowError:
        volume, center, euler = float("inf"), np.zeros(3), np.zeros((3, 3))
    with np.errstate(over="ignore", invalid="ignore"):
        derived = [volume, volume * density, *np.asarray(center, float), *(np.asarray(euler, float).ravel() * density)]
    V.representable(f"the volume, mass and inertia of {what}", derived, "scale the shape or the density down")
    return volume, center, euler


# ---------------------------------------------------------------------- transformations

def _placed(name: str, prims: list, scale: float, shift: float) -> list:
    """`prims` if coordinates of size `scale` x (their largest) + 3 `shift` are finite
    floats (checked before any primitive is changed), else InputError naming `name`."""
    size = max((float(np.abs(np.asarray(p.bounding_box())).max()) for p in prims), default=0.0)
    with np.errstate(over="ignore"):
        extent = np.float64(scale) * size + 3.0 * np.float64(shift)
    V.representable(f"the shape coordinates after this '{name}'", extent,
                    f"'{name}' moves the shape out of the range of floats")
    return prims


def _tuple_result(name: str, value: np.ndarray) -> tuple:
    V.representable(f"the point after this '{name}'", value, f"'{name}' is too large")
    return tuple(value.tolist())


@V.command
def TRANSLATE(shape, vector):
    """Translate shapes in place, or a point.

    ``TRANSLATE(shape, vector)`` moves the shape objects by ``vector`` and returns ``shape``;
    given an ``(x, y, z)`` tuple it returns the translated tuple.

    Parameters
    ----------
    shape : CONVEX, MESH, SPHERE, ELLIP, a list of those, or a tuple of 3 floats
    vector : tuple of 3 floats
        [length].

    Returns
    -------
    the shape, or a tuple of 3 floats

    Raises
    ------
    InputTypeError, InputError
        An emptied shape, coordinates out of the range of floats.

    Examples
    --------
    >>> TRANSLATE(SPHERE((0, 0, 0), 1, 1, 1), (0, 0, 2)).center
    (0.0, 0.0, 2.0)
    >>> TRANSLATE((1, 2, 3), (1, 0, 0))
    (2.0, 2.0, 3.0)
    """
    d = V.point("vector", vector)
    if isinstance(shape, tuple):
        return _tuple_result("vector", _tuple_point(shape) + d)
    for p in _placed("vector", _live_prims("shape", shape, _OR_TUPLE), 1.0, np.abs(d).max()):
        p.transform(np.eye(3), d)
    return shape


@V.command
def ROTATE(shape, point, vector, angle):
    """Rotate shapes in place, or a point.

    ``ROTATE(shape, point, vector, angle)`` turns the shape by ``angle`` degrees about the
    axis through ``point`` along ``vector`` (right-hand rule) and returns it; given an
    ``(x, y, z)`` tuple it returns the rotated tuple.

    Parameters
    ----------
    shape : CONVEX, MESH, SPHERE, ELLIP, a list of those, or a tuple of 3 floats
    point : tuple of 3 floats
        [length].
    vector : tuple of 3 floats
        Non-zero.
    angle : float
        Degrees.

    Returns
    -------
    the shape, or a tuple of 3 floats

    Raises
    ------
    InputTypeError, InputError
        A zero axis, an emptied shape.

    Examples
    --------
    >>> ROTATE((1, 0, 0), (0, 0, 0), (0, 0, 1), 90)     # about z: (0, 1, 0) up to round-off
    """
    q = V.point("point", point)
    axis = V.point("vector", vector)
    deg = V.number("angle", angle)
    if not np.any(axis):
        raise InputError(f"Rotation direction is zero: 'vector' = {vector!r}")
    V.representable("the length of 'vector'", np.linalg.norm(axis), "use a shorter axis vector")
    R = axis_angle(axis, deg)
    b = q - R @ q
    if isinstance(shape, tuple):
        return _tuple_result("point", R @ _tuple_point(shape) + b)
    for p in _placed("point", _live_prims("shape", shape, _OR_TUPLE), 3.0, 2.0 * float(np.abs(q).max())):
        p.transform(R, b)
    return shape


@V.command
def SCALE(shape, coefs):
    """Scale shapes in place about the origin, or a point.

    ``SCALE(shape, coefs)`` multiplies x, y and z by ``coefs = (cx, cy, cz)`` and returns the
    shape; a SPHERE keeps its centre and has its radius multiplied by cx (as in Solfec). Given
    an ``(x, y, z)`` tuple it returns the scaled tuple.

    Parameters
    ----------
    shape : CONVEX, MESH, SPHERE, ELLIP, a list of those, or a tuple of 3 floats
    coefs : tuple of 3 floats

    Returns
    -------
    the shape, or a tuple of 3 floats

    Raises
    ------
    InputTypeError, InputError
        An emptied shape, coordinates out of the range of floats.

    Examples
    --------
    >>> brick = SCALE(HEX(nodes, 1, 1, 1, 1, [1] * 6), (2.0, 1.0, 0.5))
    """
    c = V.point("coefs", coefs)
    if isinstance(shape, tuple):
        return _tuple_result("coefs", _tuple_point(shape) * c)
    for p in _placed("coefs", _live_prims("shape", shape, _OR_TUPLE), float(np.abs(c).max()), 0.0):
        p.scale(c)
    return shape


@V.command
def COPY(shape):
    """An independent copy of shapes.

    ``COPY(shape)``: one object for one object, a list for a list. Use it to keep a shape that
    BODY would empty.

    Parameters
    ----------
    shape : CONVEX, MESH, SPHERE, ELLIP or a list of those

    Returns
    -------
    the same kind as ``shape``

    Raises
    ------
    InputTypeError
        An emptied shape, the same object twice in a list.

    Examples
    --------
    >>> brick = HEX(nodes, 1, 1, 1, 1, [1] * 6)
    >>> bodies = [BODY(sol, 'RIGID', TRANSLATE(COPY(brick), (0, 0, 1.1 * n)), mat) for n in range(5)]
    """
    items = _shape_items("shape", shape, f"{KINDS} object or a list of those")
    copies = [s._clone() for s in items]
    return copies if isinstance(shape, list) else copies[0]


@V.command
def MASS_CENTER(shape):
    """Volume centroid of a shape or of a body.

    ``MASS_CENTER(shape)``: of the shape's current configuration, or of a BODY's current
    shape; nothing is emptied.

    Parameters
    ----------
    shape : CONVEX, MESH, SPHERE, ELLIP, a list of those, or BODY

    Returns
    -------
    tuple of 3 floats

    Raises
    ------
    InputTypeError, InputError
        An emptied shape, a deleted body, a shape of non-positive volume (faces the wrong way round).

    Examples
    --------
    >>> MASS_CENTER(SPHERE((1, 2, 3), 0.5, 1, 1))
    (1.0, 2.0, 3.0)
    """
    if not isinstance(shape, (UserShape, list)) and hasattr(shape, "current_primitives"):
        if getattr(shape, "deleted", False):
            raise InputTypeError(f"'shape' is a recently deleted BODY object (id {getattr(shape, 'id', '?')})")
        prims, config = shape.current_primitives(), "cur"
    else:
        prims = peek_shape("shape", shape, f"{KINDS} object, a list of those or a BODY object")
        config = "cur"
    volume, center, _ = shape_mass_properties(prims, config)
    if not volume > 0:
        raise InputError(f"'shape' has non-positive volume {volume!r}; check the face orientation")
    return tuple(center.tolist())
