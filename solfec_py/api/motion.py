"""PRESCRIBED_MOTION, a solfec-py extension of the deck language (layer 7): an OBSTACLE
follows a rigid motion composed of rotations about lines and translations along lines,
driven by functions of time. Reference: docs/integrators.md; solfec_py.motion (after
Overture's MatrixMotion / TimeFunction).

    PRESCRIBED_MOTION(obstacle, motion)
    motion   = primitive | [primitive, primitive, ...]       (a list: the first acts first)
    primitive = ('ROTATION', point, direction, angle) | ('TRANSLATION', direction, distance)
    angle, distance = number | TIME_SERIES | ('LINEAR', a0, a1) | ('SINE', amplitude, frequency
                      [, phase [, offset]])
"""
from __future__ import annotations

import numpy as np

from solfec_py import motion as M, validate as V
from solfec_py.api.common import require_body
from solfec_py.api.series import TIME_SERIES
from solfec_py.errors import InputError, InputTypeError

__all__ = ["PRESCRIBED_MOTION"]

PRIMITIVES = ("ROTATION", "TRANSLATION")
FUNCTIONS = ("LINEAR", "SINE")


@V.command
def PRESCRIBED_MOTION(body, motion):
    """Drive an obstacle by a rigid motion given as functions of time (a solfec-py extension).

    ``PRESCRIBED_MOTION(body, motion)``: every referential point X of the obstacle moves to
    ``R(t) X + g(t)``, composed of rotations about lines and translations along lines (a list
    applies its first item first). Velocities and accelerations follow exactly, so contacts
    with the obstacle see its true motion. See docs/integrators.md.

    A primitive is ``('ROTATION', point, direction, angle)`` (radians, right-hand rule about
    the line through ``point``) or ``('TRANSLATION', direction, distance)`` (along the unit
    vector of ``direction``). ``angle`` and ``distance`` are functions of time: a number
    (constant), a TIME_SERIES, ``('LINEAR', a0, a1)`` for ``a0 + a1 t`` or
    ``('SINE', amplitude, frequency[, phase[, offset]])`` for
    ``offset + amplitude sin(2 pi frequency t + phase)``.

    Parameters
    ----------
    body : BODY
        An OBSTACLE of a DYNAMIC analysis.
    motion : tuple or list of tuples

    Raises
    ------
    InputTypeError, InputError
        A body that is not an obstacle, a quasi-static analysis, a malformed primitive or
        function (the message names the item), a zero direction, a negative frequency.

    Examples
    --------
    >>> plate = BODY(sol, 'OBSTACLE', HEX(nodes, 1, 1, 1, 1, [1] * 6), mat)
    >>> PRESCRIBED_MOTION(plate, ('TRANSLATION', (0, 0, 1), ('SINE', 0.01, 5.0)))
    >>> PRESCRIBED_MOTION(drum, [('ROTATION', (0, 0, 0), (0, 1, 0), ('LINEAR', 0, 3.14)),
    ...                          ('TRANSLATION', (1, 0, 0), ('LINEAR', 0, 0.5))])
    """
    body = require_body("body", body)
    if body.kind != "OBSTACLE":
        raise InputError(f"'body' must be an OBSTACLE body to follow a PRESCRIBED_MOTION, got a {body.kind}"
                         f" body (id {body.id})")
    domain = body.block.domain
    if not domain.dynamic:
        raise InputError("PRESCRIBED_MOTION needs a DYNAMIC analysis; this SOLFEC object is QUASI_STATIC")
    if isinstance(motion, tuple):
        parts = [_primitive("motion", motion)]
    elif isinstance(motion, list):
        if not motion:
            raise InputError("'motion' must hold at least one ('ROTATION', ...) or ('TRANSLATION', ...) tuple,"
                             " got an empty list")
        parts = [_primitive(f"motion[{i}]", m) for i, m in enumerate(motion)]
    else:
        raise InputTypeError("'motion' must be a ('ROTATION', point, direction, angle) or ('TRANSLATION',"
                             f" direction, distance) tuple or a list of them, got {V.describe(motion)}")
    body.block.prescribe(body, parts[0] if len(parts) == 1 else M.Composed(parts))


def _primitive(name: str, value) -> M.Motion:
    if not isinstance(value, tuple) or not value:
        raise InputTypeError(f"'{name}' must be a ('ROTATION', point, direction, angle) or ('TRANSLATION',"
                             f" direction, distance) tuple, got {V.describe(value)}")
    kind = V.choice(f"{name}[0]", value[0], PRIMITIVES, what="motion kind")
    arity = 4 if kind == "ROTATION" else 3
    if len(value) != arity:
        form = "('ROTATION', point, direction, angle)" if kind == "ROTATION" else "('TRANSLATION', direction, distance)"
        raise InputError(f"'{name}' must be {form}: {arity} items, got {len(value)}")
    if kind == "ROTATION":
        point = V.point(f"{name}[1]", value[1])
        return M.Rotation(point, _direction(f"{name}[2]", value[2]), _function(f"{name}[3]", value[3]))
    return M.Translation(_direction(f"{name}[1]", value[1]), _function(f"{name}[2]", value[2]))


def _direction(name: str, value) -> np.ndarray:
    d = V.point(name, value)
    if not np.isfinite(d).all() or not np.linalg.norm(d) > 0:
        raise InputError(f"'{name}' must be a non-zero finite direction, got {tuple(d.tolist())}")
    return d


def _function(name: str, value) -> M.TimeFunction:
    if isinstance(value, TIME_SERIES):
        return M.Series(value.series)
    if V._is_number(value):
        c = V.number(name, value)
        if not np.isfinite(c):
            raise InputError(f"'{name}' must be finite, got {c!r}")
        return M.Linear(c)
    if not isinstance(value, tuple) or not value:
        raise InputTypeError(f"'{name}' must be a number, a TIME_SERIES, ('LINEAR', a0, a1) or ('SINE',"
                             f" amplitude, frequency [, phase [, offset]]), got {V.describe(value)}")
    kind = V.choice(f"{name}[0]", value[0], FUNCTIONS, what="time function")
    args = [V.number(f"{name}[{i}]", v) for i, v in enumerate(value[1:], 1)]
    if not all(np.isfinite(args)):
        raise InputError(f"'{name}' must hold finite numbers, got {value!r}")
    if kind == "LINEAR":
        if len(args) != 2:
            raise InputError(f"'{name}' must be ('LINEAR', a0, a1) (value a0 + a1 t), got {len(value)} items")
        return M.Linear(*args)
    if not 2 <= len(args) <= 4:
        raise InputError(f"'{name}' must be ('SINE', amplitude, frequency [, phase [, offset]]) (value"
                         f" offset + amplitude sin(2 pi frequency t + phase)), got {len(value)} items")
    if args[1] < 0:
        raise InputError(f"'{name}[2]' (frequency) must be non-negative, got {args[1]!r}")
    return M.Sine(*args)
