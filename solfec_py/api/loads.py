"""Loads: GRAVITY, FORCE (constant, TIME_SERIES or callback), TORQUE, PRESSURE (layer 7).
Reference: LANGUAGE §11 (Solfec lng.c), NUMERICS §1.3.
"""
from __future__ import annotations

from solfec_py import validate as V
from solfec_py.api.common import require_body
from solfec_py.api.series import number_or_series
from solfec_py.api.solfec import require_solfec
from solfec_py.bodies.loads import (CONVECTED_FORCE, CONVECTED_TORQUE, SPATIAL_FORCE,
                                    SPATIAL_TORQUE, ForceCallback)
from solfec_py.bodies.obstacle import LOAD_ERROR
from solfec_py.errors import InputError, InputTypeError, NotAvailableError
from solfec_py.geometry.mesh import Mesh

KINDS = ("SPATIAL", "CONVECTED")


@V.command
def GRAVITY(solfec, vector):
    """Set the gravitational acceleration g(t): a 3-tuple of numbers or TIME_SERIES."""
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
    """Point force at a referential point; `value` a number, TIME_SERIES or callback."""
    body = require_body("body", body)
    if body.kind == "OBSTACLE":
        raise InputError(f"{LOAD_ERROR} (body {body.id}: FORCE)")
    kind = V.choice("kind", kind, KINDS, what="force kind")
    X = V.point("point", point)
    if callable(value) and not hasattr(value, "times"):
        _direction("direction", direction, allow_zero=True)
        _block_loads(body).add_callback(ForceCallback(body, value, data, V.given(data)))
        return None
    d = _direction("direction", direction)
    try:
        magnitude = number_or_series("value", value)
    except InputTypeError:
        raise InputTypeError(
            f"'value' must be a number or a TIME_SERIES object or a callback routine, got {V.describe(value)}") from None
    code = SPATIAL_FORCE if kind == "SPATIAL" else CONVECTED_FORCE
    _block_loads(body).add(body, code, X, d, magnitude)
    return None


@V.command
def TORQUE(body, kind, direction, value):
    """Torque about a global (SPATIAL) or body-fixed (CONVECTED) axis; RIGID bodies only."""
    body = require_body("body", body)
    if body.kind != "RIGID":
        raise InputError(f"Torque can be applied to RIGID bodies only (body {body.id} is {body.kind})")
    kind = V.choice("kind", kind, KINDS, what="torque kind")
    d = _direction("direction", direction)
    magnitude = number_or_series("value", value)
    code = SPATIAL_TORQUE if kind == "SPATIAL" else CONVECTED_TORQUE
    _block_loads(body).add(body, code, None, d, magnitude)
    return None


@V.command
def PRESSURE(body, surfid, value):
    """Traction value * (outward normal) on the faces `surfid` of a single-MESH body
    (positive values pull outward; a dead load on finite-element bodies, as Solfec's, a
    follower load on pseudo-rigid bodies: docs/fem.md, docs/pseudo_rigid.md)."""
    body = require_body("body", body)
    surfid = V.integer("surfid", surfid)
    magnitude = number_or_series("value", value)
    body.block.add_pressure(body, surfid, magnitude)
    return None


def _block_loads(body):
    loads = getattr(body.block, "loads", None)
    if loads is None:
        raise NotAvailableError(f"loads on {body.kind} bodies are not available yet")
    return loads
