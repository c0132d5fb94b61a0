"""The CONSTRAINT type (layer 7). Constraint creators (FIX_POINT, PUT_RIGID_LINK, ...)
arrive with the constraints issue; until then this module only provides the type so that
isinstance checks and DELETE behave. Reference: LANGUAGE §10.1.
"""
from __future__ import annotations

from solfec_py.errors import SimulationError


class CONSTRAINT:
    """Handle of a constraint; created only by the constraint commands."""

    def __init__(self, *args, **kwargs):
        raise SimulationError("Only specific CONSTRAINT objects can be created (e.g. FIX_POINT)")

    def delete(self) -> None:  # pragma: no cover - no constraint can exist yet
        pass


def is_constraint(value) -> bool:
    return isinstance(value, CONSTRAINT)
