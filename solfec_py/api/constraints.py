"""The CONSTRAINT type and the constraint commands FIX_POINT, FIX_DIRECTION, PUT_RIGID_LINK
and PUT_SPRING (layer 7); the prescribed-motion family SET_* lives in api/prescribed.py. Reference: Solfec-1.0 user manual, constraints (Solfec lng.c CONSTRAINT type and creators, dom.c
DOM_Fix_Point ... DOM_Put_Spring), Solfec-1.0 ldy.c, constraint kinds.

A CONSTRAINT object refers to its constraint by id; once the constraint is gone (DELETE,
a broken link, its body deleted) every attribute reads None. Unlike Solfec, an old object
never starts reading a newer constraint that recycled its id.

Directions given by one vector are normalised (Solfec uses them as given, which scales
the constrained velocity by |d|); a zero vector is an error.
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C, session, validate as V
from solfec_py.api.common import readonly, require_body
from solfec_py.bodies import BODY_KINDS
from solfec_py.bodies.base import Body
from solfec_py.errors import InputError, InputTypeError, SimulationError

__all__ = ["CONSTRAINT", "is_constraint", "FIX_POINT", "FIX_DIRECTION", "PUT_RIGID_LINK", "PUT_SPRING",
           "body_point", "unit_direction", "new_row"]


def _get(field):
    def getter(self):
        k = self.row
        if k is None:
            return None
        return tuple(getattr(self.cset, field)[k].tolist())

    getter.__name__ = field
    return readonly(getter)


class CONSTRAINT(C.ConstraintHandle):
    """A constraint of a model: a joint, a prescribed motion, a spring or a contact.

    Made by FIX_POINT, FIX_DIRECTION, SET_*, PUT_RIGID_LINK, PUT_SPRING and by contact
    detection; ``CONSTRAINT(...)`` itself cannot be called. Found in ``SOLFEC.constraints``
    and ``BODY.constraints``. Every attribute reads None once the constraint is gone (DELETE,
    a broken link, a deleted body).

    Attributes
    ----------
    kind : str, read-only
        ``'CONTACT'``, ``'FIXPNT'``, ``'FIXDIR'``, ``'VELODIR'``, ``'RIGLNK'``, ``'SPRING'``, ...
    id : int, read-only
    R, U, V : tuple of 3 floats, read-only
        Reaction, relative velocity at the end and at the start of the step, in the local base.
    point, area, merit, adjbod, matlab, spair : read-only
        Spatial point, contact area, solver merit, the bodies, surface-material label and
        surface pair (contacts).

    Raises
    ------
    SimulationError
        On calling ``CONSTRAINT(...)`` directly.

    Examples
    --------
    >>> link = PUT_RIGID_LINK(ball, None, (0, 0, 0), (0, 0, 1))
    >>> link.kind
    'RIGLNK'
    >>> [c.R for c in sol.constraints if c.kind == 'CONTACT']
    """

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise SimulationError("Only specific CONSTRAINT objects can be created (e.g. FIX_POINT)")

    @classmethod
    def _make(cls, cset, cid, serial):
        obj = object.__new__(cls)
        C.ConstraintHandle.__init__(obj, cset, cid, serial)
        return obj

    R = _get("R")
    U = _get("U")
    V = _get("V")

    @readonly
    def kind(self):
        k = self.row
        return None if k is None else C.KINDS[int(self.cset.kind[k])]

    @readonly
    def id(self):
        return None if self.row is None else self.cid

    @readonly
    def base(self):
        """Column-major 9-tuple (t1, t2, n)."""
        k = self.row
        return None if k is None else tuple(self.cset.base[k].T.reshape(-1).tolist())

    @readonly
    def point(self):
        k = self.row
        if k is None:
            return None
        p = self.cset.point[k].tolist()
        if self.cset.kind[k] == C.RIGLNK:
            p += self.cset.point2[k].tolist()
        return tuple(p)

    @readonly
    def area(self):
        k = self.row
        return None if k is None else float(self.cset.area[k])

    @readonly
    def gap(self):
        """Contact gap, spring stroke; 0 for the other kinds."""
        k = self.row
        if k is None:
            return None
        return float(self.cset.gap[k]) if self.cset.kind[k] in (C.CONTACT, C.SPRING) else 0.0

    @readonly
    def merit(self):
        k = self.row
        return None if k is None else float(self.cset.merit[k])

    @readonly
    def adjbod(self):
        k = self.row
        if k is None:
            return None
        master, slave = self.cset.bodies[k]
        return master if slave is None else (master, slave)

    @readonly
    def matlab(self):
        k = self.row
        if k is None or self.cset.kind[k] != C.CONTACT:
            return None
        mat = self.cset.material[k]
        return getattr(mat, "label", None)

    @readonly
    def spair(self):
        k = self.row
        if k is None or self.cset.kind[k] != C.CONTACT:
            return None
        return tuple(int(s) for s in self.cset.spair[k])

    def delete(self) -> None:
        """Remove the constraint (DELETE); nothing happens if it is already gone."""
        if self.row is not None:
            self.cset.remove(self.cid)

    def __repr__(self) -> str:
        k = self.row
        if k is None:
            return f"<CONSTRAINT {self.cid} (deleted)>"
        return f"<CONSTRAINT {self.cid} {C.KINDS[int(self.cset.kind[k])]}>"


C.ConstraintSet.handle_factory = CONSTRAINT._make


def is_constraint(value) -> bool:
    return isinstance(value, CONSTRAINT)


# --------------------------------------------------------------------------- helpers
def _family(body) -> str:
    return BODY_KINDS[body.kind].family


def body_point(bname, body, pname, point):
    """The live BODY `body` (argument `bname`) and the referential point `point` (argument
    `pname`) as an array, checked to lie inside the body's reference shape."""
    body = require_body(bname, body)
    X = V.point(pname, point)
    if not any(p.contains(X) for p in body.shape):
        raise InputError(f"Point outside of domain: '{pname}' {tuple(X.tolist())} is not inside the"
                         f" reference shape of body {body.id}{' ' + repr(body.label) if body.label else ''}")
    return body, X


def _same_domain(b1, b2, command: str) -> None:
    """Two bodies of one constraint: the same SOLFEC object, not both obstacles (an
    obstacle holds its end of a two-body constraint fixed, so two would hold nothing)."""
    if b1.block.domain is not b2.block.domain:
        raise InputError(f"Cannot link bodies from different domains (bodies {b1.id} and {b2.id}"
                         " belong to different SOLFEC objects)")
    if b1.kind == "OBSTACLE" and b2.kind == "OBSTACLE":
        raise InputError(f"Cannot constrain an obstacle with {command}: bodies {b1.id} and {b2.id}"
                         " are both obstacles")


def unit_direction(name, value) -> np.ndarray:
    """The non-zero vector argument `name` normalised."""
    d = V.vector(name, value)
    return d / np.linalg.norm(d)


def new_row(kind, master, slave=None):
    """A new constraint of `kind` in the domain's constraint set: (set, row index)."""
    cset = C.constraint_set(master.block.domain)
    return cset, cset.add(kind, master, slave, _family)


def _strength(value) -> float:
    return np.inf if value is V.MISSING else V.positive("strength", value)


# --------------------------------------------------------------------------- commands
@V.command
def FIX_POINT(body, point, strength=V.MISSING):
    """Fix a material point of a body in space.

    ``FIX_POINT(body, point | strength)``: the material point at the referential ``point``
    stays where it is (a spherical joint with the ground).

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length]. Inside the body.
    strength : float, optional
        [force]. > 0: the constraint is removed when its reaction exceeds it (default: never).

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        Not a live BODY, a point outside the body, a non-positive strength.

    Examples
    --------
    >>> FIX_POINT(bar, (0, 0, 0))
    """
    body, X = body_point("body", body, "point", point)
    s = _strength(strength)
    cset, k = new_row(C.FIXPNT, body)
    cset.mpnt[k] = X
    cset.point[k] = body.cur_point(X)
    cset.strength[k] = s
    return cset.handle(int(cset.id[k]))


@V.command
def FIX_DIRECTION(body, point, direction, body2=V.MISSING, point2=V.MISSING):
    """Stop a material point from moving along a direction.

    ``FIX_DIRECTION(body, point, direction | body2, point2)``: the velocity of ``point`` along
    ``direction`` is zero. With ``body2`` and ``point2`` the relative motion of the two points
    along the direction, which then turns with ``body``, is zero (a slider).

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].
    direction : tuple of 3 floats
        Non-zero (normalised).
    body2 : BODY, optional
    point2 : tuple of 3 floats, optional
        [length]. Given together with ``body2``.

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        A point outside its body, a zero direction, ``body2`` without ``point2``, two obstacles.

    Examples
    --------
    >>> FIX_DIRECTION(box, (0, 0, 0), (0, 0, 1))       # no vertical motion of that corner
    """
    body, X = body_point("body", body, "point", point)
    d = unit_direction("direction", direction)
    if V.given(body2) != V.given(point2):
        raise InputError("FIX_DIRECTION: 'body2' and 'point2' must be given together")
    slave = None
    if V.given(body2):
        slave, X2 = body_point("body2", body2, "point2", point2)
        _same_domain(body, slave, "FIX_DIRECTION")
    cset, k = new_row(C.FIXDIR, body, slave)
    cset.mpnt[k] = X
    cset.base[k] = C.local_base(d[None, :], session.geometric_epsilon())[0]
    if slave is None:
        cset.point[k] = body.cur_point(X)
    else:
        cset.spnt[k] = X2
        cset.point[k] = slave.cur_point(X2)
        cset.direction[k] = body.block.ref_vectors([body.row], d[None, :])[0]
    return cset.handle(int(cset.id[k]))


def _body_or_none(name, value):
    if value is None:
        return None
    if not isinstance(value, Body):
        raise InputTypeError(f"'{name}' must be a BODY object or None, got {V.describe(value)}")
    return require_body(name, value)


@V.command
def PUT_RIGID_LINK(body1, body2, point1, point2, strength=V.MISSING):
    """Keep the distance between two material points constant.

    ``PUT_RIGID_LINK(body1, body2, point1, point2 | strength)``: a massless rigid rod between
    ``point1`` of ``body1`` and ``point2`` of ``body2``. One body may be None: its point is
    then fixed in space. Coincident points glue the bodies at that point.

    Parameters
    ----------
    body1, body2 : BODY or None
        Not both None, not two obstacles.
    point1, point2 : tuple of 3 floats
        [length]. Referential points inside their bodies.
    strength : float, optional
        [force]. > 0: the link breaks when its reaction exceeds it.

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        Both bodies None, points outside their bodies, bodies of different SOLFEC objects.

    Examples
    --------
    >>> ball = BODY(sol, 'RIGID', SPHERE((1, 0, 0), 0.05, 1, 1), mat)
    >>> PUT_RIGID_LINK(None, ball, (0, 0, 0), (1, 0, 0))    # a pendulum of length 1
    """
    b1 = _body_or_none("body1", body1)
    b2 = _body_or_none("body2", body2)
    p1 = V.point("point1", point1)
    p2 = V.point("point2", point2)
    if b1 is None and b2 is None:
        raise InputError("PUT_RIGID_LINK: 'body1' and 'body2' cannot both be None")
    if b1 is not None:
        body_point("body1", b1, "point1", point1)
    if b2 is not None:
        body_point("body2", b2, "point2", point2)
    if b1 is not None and b2 is not None:
        _same_domain(b1, b2, "the rigid link")
    s = _strength(strength)
    master, slave, mp, sp = (b1, b2, p1, p2) if b1 is not None else (b2, None, p2, p1)
    x1 = master.cur_point(mp)
    x2 = slave.cur_point(sp) if slave is not None else sp
    d = float(np.linalg.norm(x1 - x2))
    if d < session.geometric_epsilon():
        cset, k = new_row(C.FIXPNT, master, slave)
        cset.mpnt[k], cset.spnt[k], cset.point[k] = mp, sp, x1
    else:
        cset, k = new_row(C.RIGLNK, master, slave)
        cset.mpnt[k], cset.spnt[k] = mp, sp
        cset.point[k], cset.point2[k] = x1, x2
        cset.length[k] = d
        cset.link[k] = x1 - x2
        cset.base[k] = C.local_base(((x1 - x2) / d)[None, :], session.geometric_epsilon())[0]
    cset.strength[k] = s
    return cset.handle(int(cset.id[k]))


@V.command
def PUT_SPRING(body1, point1, body2, point2, function, limits, direction=V.MISSING, update=V.MISSING):
    """A spring (and dashpot) between two material points, with a force law of your own.

    ``PUT_SPRING(body1, point1, body2, point2, function, limits | direction, update)``: the
    force along the spring direction is ``function(stroke, velocity)``, where ``stroke`` is the
    change of the spring length and ``velocity`` its rate; a negative force pulls the points
    together. ``limits = (smin, smax)`` bound the stroke (stops). Without ``direction`` the
    spring acts along the line between the points (follower); with it, along ``direction``,
    which ``update`` keeps fixed (``'FIXED'``, default), turns with body1 (``'CONV1'``) or
    body2 (``'CONV2'``), or replaces by the line between the points (``'FOLLOW'``).

    Parameters
    ----------
    body1, body2 : BODY
    point1, point2 : tuple of 3 floats
        [length].
    function : callable
        [force] of a stroke [length] and a velocity [velocity]. ``function(stroke, velocity) -> float``.
    limits : tuple of 2 floats
        [length]. ``smin <= 0 <= smax``.
    direction : tuple of 3 floats, optional
    update : str, optional

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        A function that is not callable, limits not around 0, an unknown update kind.

    Examples
    --------
    >>> k, c = 50.0, 0.5
    >>> PUT_SPRING(ball, (1, 0, 0), anchor, (0, 0, 0), lambda s, v: -k * s - c * v, (-1, 1))
    """
    b1, X1 = body_point("body1", body1, "point1", point1)
    b2, X2 = body_point("body2", body2, "point2", point2)
    _same_domain(b1, b2, "PUT_SPRING")
    V.is_callable("function", function)
    lim = V.tuple_of_numbers("limits", limits, 2)
    if not lim[0] <= 0.0 <= lim[1]:
        raise InputError(f"'limits' must satisfy smin <= 0 <= smax, got {tuple(lim.tolist())}")
    d = unit_direction("direction", direction) if V.given(direction) else np.array([1.0, 0.0, 0.0])
    if V.given(update):
        mode = C.SPRING_UPDATES.index(V.choice("update", update, C.SPRING_UPDATES[1:],
                                               what="update direction kind"))
    else:
        mode = C.FIXED if V.given(direction) else C.FOLLOW
    x1, x2 = b1.cur_point(X1), b2.cur_point(X2)
    v = x1 - x2
    cset, k = new_row(C.SPRING, b1, b2)
    cset.mpnt[k], cset.spnt[k], cset.point[k], cset.point2[k] = X1, X2, x1, x2
    cset.limits[k] = lim
    cset.update[k] = mode
    cset.function[k] = function
    if mode == C.FOLLOW:
        length = float(np.linalg.norm(v))
        n = v / length if length > 0 else np.array([0.0, 0.0, 1.0])
    else:
        n = d
        length = float(n @ v)
        if mode == C.CONV1:
            cset.direction[k] = b1.block.ref_vectors([b1.row], d[None, :])[0]
        elif mode == C.CONV2:
            cset.direction[k] = b2.block.ref_vectors([b2.row], d[None, :])[0]
        else:
            cset.direction[k] = d
    cset.length[k] = length
    cset.link[k] = v
    cset.base[k] = C.local_base(n[None, :], session.geometric_epsilon())[0]
    return cset.handle(int(cset.id[k]))
