"""Loads: GRAVITY, FORCE (constant, TIME_SERIES or callback), TORQUE, PRESSURE (layer 7).
Reference: Solfec-1.0 user manual, loads (Solfec lng.c), docs/integrators.md.
"""
from __future__ import annotations

from solfec_py import validate as V
from solfec_py.api.common import elsewhere, require_body
from solfec_py.api.series import number_or_series
from solfec_py.api.solfec import require_solfec
from solfec_py.bodies.loads import (CONVECTED_FORCE, CONVECTED_TORQUE, SPATIAL_FORCE,
                                    SPATIAL_TORQUE, ForceCallback)
from solfec_py.bodies.obstacle import LOAD_ERROR
from solfec_py.errors import InputError, InputTypeError, NotAvailableError

KINDS = ("SPATIAL", "CONVECTED")


@V.command
def GRAVITY(solfec, vector):
    """Set the gravitational acceleration of the analysis.

    ``GRAVITY(solfec, vector)``: every body except obstacles gets the body force
    ``density * g``; each component of ``vector`` is a number or a TIME_SERIES.

    Parameters
    ----------
    solfec : SOLFEC
    vector : tuple of 3 numbers or TIME_SERIES
        [acceleration].

    Raises
    ------
    InputTypeError, InputError
        Not a tuple of 3, a component that is neither a finite number nor a TIME_SERIES.

    Examples
    --------
    >>> GRAVITY(sol, (0, 0, -9.81))
    """
    domain = require_solfec("solfec", solfec)
    if not isinstance(vector, tuple):
        raise InputTypeError(f"'vector' must be a tuple of 3 numbers or TIME_SERIES objects, got {V.describe(vector)}")
    if len(vector) != 3:
        raise InputError(f"'vector' must have 3 elements, got {len(vector)}")
    domain.gravity = tuple(number_or_series(f"vector[{i}]", v) for i, v in enumerate(vector))


def _direction(name, value, allow_zero=False):
    return V.point(name, value) if allow_zero else V.vector(name, value)


@V.command
def FORCE(body, kind, point, direction, value, data=V.MISSING):
    """Apply a point force to a body.

    ``FORCE(body, kind, point, direction, value | data)``. The force ``value * direction`` acts
    at the referential ``point``; ``'SPATIAL'`` keeps ``direction`` fixed in space,
    ``'CONVECTED'`` turns it with the body. ``value`` may instead be a Python function
    returning the whole generalised force each step: called as ``value(q, u, t, h)`` (or
    ``value(*data, q, u, t, h)`` with tuple ``data``, ``value(data, q, u, t, h)`` otherwise),
    where ``q`` and ``u`` are the body's ``conf`` and ``velo``; a rigid body's function returns
    9 numbers (spatial force, spatial torque, referential torque), a pseudo-rigid body's 12.

    Parameters
    ----------
    body : BODY
        Not an OBSTACLE.
    kind : str
        ``'SPATIAL'`` or ``'CONVECTED'``.
    point : tuple of 3 floats
        [length].
    direction : tuple of 3 floats
        Non-zero (ignored with a callback).
    value : float, TIME_SERIES or callable
        [force].
    data : object, optional
        Passed to the callback.

    Raises
    ------
    InputTypeError, InputError
        An obstacle, an unknown kind, a zero direction, a callback returning the wrong
        number of values (during RUN).

    Examples
    --------
    >>> FORCE(box, 'SPATIAL', (0.5, 0.5, 1), (1, 0, 0), 100.0)
    >>> def drag(m, q, u, t, h):
    ...     return (-m * u[3], -m * u[4], -m * u[5], 0, 0, 0, 0, 0, 0)
    >>> FORCE(ball, 'SPATIAL', (0, 0, 0), (1, 0, 0), drag, (ball.mass,))
    """
    body = require_body("body", body)
    if body.kind == "OBSTACLE":
        raise InputError(f"{LOAD_ERROR} (body {body.id}: FORCE)")
    kind = V.choice("kind", kind, KINDS, what="force kind")
    X = V.point("point", point)
    if callable(value) and not hasattr(value, "times"):
        _direction("direction", direction, allow_zero=True)
        if elsewhere(body):                     # on another rank: its owner holds the load
            return None
        _block_loads(body).add_callback(ForceCallback(body, value, data, V.given(data)))
        return None
    d = _direction("direction", direction)
    try:
        magnitude = number_or_series("value", value)
    except InputTypeError:
        raise InputTypeError(
            f"'value' must be a number or a TIME_SERIES object or a callback routine, got {V.describe(value)}") from None
    code = SPATIAL_FORCE if kind == "SPATIAL" else CONVECTED_FORCE
    if elsewhere(body):
        return None
    _block_loads(body).add(body, code, X, d, magnitude)
    return None


@V.command
def TORQUE(body, kind, direction, value):
    """Apply a torque to a rigid body.

    ``TORQUE(body, kind, direction, value)``: a torque ``value * direction`` about an axis
    fixed in space (``'SPATIAL'``) or in the body (``'CONVECTED'``).

    Parameters
    ----------
    body : BODY
        A RIGID body.
    kind : str
        ``'SPATIAL'`` or ``'CONVECTED'``.
    direction : tuple of 3 floats
        Non-zero.
    value : float or TIME_SERIES
        [force x length].

    Raises
    ------
    InputTypeError, InputError
        A body that is not RIGID, an unknown kind, a zero direction.

    Examples
    --------
    >>> TORQUE(wheel, 'CONVECTED', (0, 0, 1), TIME_SERIES([0, 0, 1, 50]))
    """
    body = require_body("body", body)
    if body.kind != "RIGID":
        raise InputError(f"Torque can be applied to RIGID bodies only (body {body.id} is {body.kind})")
    kind = V.choice("kind", kind, KINDS, what="torque kind")
    d = _direction("direction", direction)
    magnitude = number_or_series("value", value)
    code = SPATIAL_TORQUE if kind == "SPATIAL" else CONVECTED_TORQUE
    if elsewhere(body):
        return None
    _block_loads(body).add(body, code, None, d, magnitude)
    return None


@V.command
def PRESSURE(body, surfid, value):
    """Apply a pressure to the faces of a body with a surface id.

    ``PRESSURE(body, surfid, value)``: a traction ``value`` times the outward normal of every
    boundary face with ``surfid`` of a single-MESH body (a positive value pulls outward, a
    negative one pushes in). A follower load on pseudo-rigid bodies, a dead load (as in
    Solfec) on finite-element bodies, one force at the mean point of the faces on rigid
    bodies (as Solfec): docs/pseudo_rigid.md, docs/fem.md, docs/integrators.md.

    Parameters
    ----------
    body : BODY
    surfid : int
    value : float or TIME_SERIES
        [stress].

    Raises
    ------
    InputTypeError, InputError
        A wrong body, surfid or value.
    NotAvailableError
        A body kind that does not take pressure.

    Examples
    --------
    >>> PRESSURE(block, 6, -1E5)       # push on the faces with id 6
    """
    body = require_body("body", body)
    surfid = V.integer("surfid", surfid)
    magnitude = number_or_series("value", value)
    if elsewhere(body):
        return None
    body.block.add_pressure(body, surfid, magnitude)
    return None


def _block_loads(body):
    loads = body.block.loads
    if loads is None:
        raise NotAvailableError(f"loads on {body.kind} bodies are not available yet")
    return loads
