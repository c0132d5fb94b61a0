"""The prescribed-motion constraints SET_VELOCITY, SET_DISPLACEMENT, SET_ACCELERATION and their
three-component variants SET_*3 (layer 7): a material point's velocity along one direction or a
base follows a number or TIME_SERIES. Reference: Solfec-1.0 user manual, constraints (Solfec
lng.c SET_* creators, dom.c DOM_Set_Velocity, ldy.c VELODIR rows).

SET_DISPLACEMENT and SET_ACCELERATION are velocity constraints too: their series are turned into
the velocity history by differentiation or integration once, at creation.
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C, session, validate as V
from solfec_py.api.constraints import body_point, new_row, unit_direction
from solfec_py.api.series import TIME_SERIES, number_or_series
from solfec_py.errors import InputError, InputTypeError
from solfec_py.timeseries import evaluate

__all__ = ["SET_VELOCITY", "SET_DISPLACEMENT", "SET_ACCELERATION", "SET_VELOCITY3",
           "SET_DISPLACEMENT3", "SET_ACCELERATION3"]


def _series(name, value) -> TIME_SERIES:
    if not isinstance(value, TIME_SERIES):
        raise InputTypeError(f"'{name}' must be a TIME_SERIES object, got {V.describe(value)}")
    return value


def _no_moving_obstacle(body) -> None:
    if body.kind == "OBSTACLE" and body.block.domain.analysis == "QUASI_STATIC":
        raise InputError("Moving obstacles do not work in the quasi-static case")


def _velodir(body, X, base, series, kind):
    cset, k = new_row(kind, body)
    cset.mpnt[k] = X
    cset.point[k] = body.cur_point(X)
    cset.base[k] = base
    cset.series[k] = tuple(series)
    t = body.block.domain.time
    values = [evaluate(s, t) for s in series]
    cset.target[k] = (0.0, 0.0, values[0]) if kind == C.VELODIR else values
    return cset.handle(int(cset.id[k]))


def _base9(value) -> np.ndarray:
    """The three vectors of `value` as columns; refused unless independent, a test on the
    vectors scaled to unit length (so that 1e300 or 1e-300 entries neither overflow nor count
    as dependent)."""
    arr = V.tuple_of_numbers("base", value, 9).reshape(3, 3).T   # columns = the three vectors
    big = np.abs(arr).max(axis=0)
    with np.errstate(all="ignore"):
        unit = arr / np.where(big > 0, big, 1.0)
        unit /= np.where(big > 0, np.linalg.norm(unit, axis=0), 1.0)
    if not (np.all(big > 0) and abs(np.linalg.det(unit)) > 1e-12):
        raise InputError(f"'base' must hold three independent vectors, got {value!r}")
    return arr


def _tuple3(name, value, check):
    if not isinstance(value, tuple):
        raise InputTypeError(f"'{name}' must be a tuple of 3 items, got {V.describe(value)}")
    if len(value) != 3:
        raise InputError(f"'{name}' must have 3 elements, got {len(value)}")
    return [check(f"{name}[{i}]", v) for i, v in enumerate(value)]


@V.command
def SET_VELOCITY(body, point, direction, value):
    """Prescribe the velocity of a material point along a direction.

    ``SET_VELOCITY(body, point, direction, value)``.

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].
    direction : tuple of 3 floats
        Non-zero (normalised).
    value : float or TIME_SERIES
        [velocity].

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        A point outside the body, a zero direction, a value that is neither a number nor a TIME_SERIES.

    Examples
    --------
    >>> SET_VELOCITY(plate, (0, 0, 0), (0, 0, 1), TIME_SERIES([0, 0, 1, 0.5]))
    """
    body, X = body_point("body", body, "point", point)
    d = unit_direction("direction", direction)
    v = number_or_series("value", value)
    _no_moving_obstacle(body)
    return _velodir(body, X, C.local_base(d[None, :], session.geometric_epsilon())[0], (v,), C.VELODIR)


@V.command
def SET_DISPLACEMENT(body, point, direction, tms):
    """Prescribe the displacement history of a material point along a direction.

    ``SET_DISPLACEMENT(body, point, direction, tms)``: the point moves along ``direction`` as
    ``tms`` changes (its velocity is the derivative of ``tms``; only increments count: the
    value at t = 0 is not imposed).

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].
    direction : tuple of 3 floats
        Non-zero.
    tms : TIME_SERIES
        [length] over [time].

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        ``tms`` not a TIME_SERIES, a point outside the body, a zero direction.

    Examples
    --------
    >>> SET_DISPLACEMENT(block, (0, 0, 0), (1, 0, 0), TIME_SERIES([0, 0, 1, 0.01]))
    """
    body, X = body_point("body", body, "point", point)
    d = unit_direction("direction", direction)
    series = _series("tms", tms)
    if series.label:
        session.warn(f"SET_DISPLACEMENT: the labelled TIME_SERIES {series.label!r} is used through an"
                     " unlabelled copy of its derivative")
    return _velodir(body, X, C.local_base(d[None, :], session.geometric_epsilon())[0],
                    (series.series.derivative(),), C.VELODIR)


@V.command
def SET_ACCELERATION(body, point, direction, tms):
    """Prescribe the acceleration history of a material point along a direction.

    ``SET_ACCELERATION(body, point, direction, tms)``: the velocity along ``direction`` is the
    running integral of ``tms`` from 0 at its first time.

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].
    direction : tuple of 3 floats
    tms : TIME_SERIES
        [acceleration] over [time].

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        As SET_DISPLACEMENT.

    Examples
    --------
    >>> SET_ACCELERATION(block, (0, 0, 0), (1, 0, 0), TIME_SERIES([0, 1, 10, 1]))
    """
    body, X = body_point("body", body, "point", point)
    d = unit_direction("direction", direction)
    series = _series("tms", tms)
    _no_moving_obstacle(body)
    return _velodir(body, X, C.local_base(d[None, :], session.geometric_epsilon())[0],
                    (series.series.integral(),), C.VELODIR)


def _velodir3(body, point, base, tms, how):
    body, X = body_point("body", body, "point", point)
    frame = _base9(base)
    if how == "velocity":
        series = _tuple3("tms", tms, number_or_series)
    else:
        items = _tuple3("tms", tms, _series)
        series = [s.series.derivative() if how == "displacement" else s.series.integral() for s in items]
    return _velodir(body, X, frame, series, C.VELODIR3)


@V.command
def SET_VELOCITY3(body, point, base, tms):
    """Prescribe all three velocity components of a material point.

    ``SET_VELOCITY3(body, point, base, tms)``: the components along the three vectors of
    ``base`` follow the three series of ``tms``.

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].
    base : tuple of 9 floats
        Three independent vectors, one after the other.
    tms : tuple of 3 (float or TIME_SERIES)
        [velocity] (over [time]).

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        A dependent base, ``tms`` not a tuple of three.

    Examples
    --------
    >>> SET_VELOCITY3(plate, (0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1), (0.0, 0.0, 0.1))
    """
    return _velodir3(body, point, base, tms, "velocity")


@V.command
def SET_DISPLACEMENT3(body, point, base, tms):
    """Prescribe all three displacement components of a material point.

    ``SET_DISPLACEMENT3(body, point, base, tms)``: as SET_VELOCITY3 with a displacement
    history per base vector (SET_DISPLACEMENT's meaning).

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].
    base : tuple of 9 floats
    tms : tuple of 3 TIME_SERIES
        [length] over [time].

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        A dependent base, ``tms`` not a tuple of three series.

    Examples
    --------
    >>> zero = TIME_SERIES([0, 0, 1, 0])
    >>> SET_DISPLACEMENT3(block, (0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1),
    ...                   (TIME_SERIES([0, 0, 1, 0.01]), zero, zero))
    """
    return _velodir3(body, point, base, tms, "displacement")


@V.command
def SET_ACCELERATION3(body, point, base, tms):
    """Prescribe all three acceleration components of a material point.

    ``SET_ACCELERATION3(body, point, base, tms)``: as SET_VELOCITY3 with an acceleration
    history per base vector (SET_ACCELERATION's meaning).

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].
    base : tuple of 9 floats
    tms : tuple of 3 TIME_SERIES
        [acceleration] over [time].

    Returns
    -------
    CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        A dependent base, ``tms`` not a tuple of three series.

    Examples
    --------
    >>> g = TIME_SERIES([0, -9.81, 10, -9.81])
    >>> zero = TIME_SERIES([0, 0, 10, 0])
    >>> SET_ACCELERATION3(block, (0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1), (zero, zero, g))
    """
    return _velodir3(body, point, base, tms, "acceleration")
