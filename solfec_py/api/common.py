"""Helpers shared by the deck commands (layer 7): read-only attributes with Solfec's
error, and the check that an argument is a live body. The lowest module of `api/`: it
imports no other api module (`require_solfec` lives with SOLFEC in `api/solfec.py`).
"""
from __future__ import annotations

from typing import Any, Callable

from solfec_py.bodies.base import Body
from solfec_py.errors import InputError, InputTypeError
from solfec_py.validate import describe


def readonly(getter: Callable) -> property:
    """A property whose assignment raises ValueError 'Writing to a read-only member'."""

    def setter(self, value):
        raise InputError(f"Writing to a read-only member '{getter.__name__}'")

    return property(getter, setter, doc=getter.__doc__)


def require_body(name: str, value: Any):
    """`value` must be a live BODY object (not DELETEd)."""
    if not isinstance(value, Body):
        raise InputTypeError(f"'{name}' must be a BODY object, got {describe(value)}")
    if value.deleted:
        raise InputTypeError(f"'{name}' is a recently deleted BODY object (id {value.id})")
    return value
