"""Helpers shared by the deck commands (layer 7): read-only attributes with Solfec's
error, and checks that an argument is a SOLFEC / BODY object.
"""
from __future__ import annotations

from typing import Any, Callable

from solfec_py.errors import InputError, InputTypeError
from solfec_py.validate import describe


def readonly(getter: Callable) -> property:
    """A property whose assignment raises ValueError 'Writing to a read-only member'."""

    def setter(self, value):
        raise InputError(f"Writing to a read-only member '{getter.__name__}'")

    return property(getter, setter, doc=getter.__doc__)


def require_solfec(name: str, value: Any):
    """`value` must be a SOLFEC object; returns its Domain."""
    from solfec_py.api.solfec import SOLFEC

    if not isinstance(value, SOLFEC):
        raise InputTypeError(f"'{name}' must be a SOLFEC object, got {describe(value)}")
    return value.domain


def require_body(name: str, value: Any):
    """`value` must be a live BODY object (not DELETEd)."""
    from solfec_py.api.body import BODY

    if not isinstance(value, BODY):
        raise InputTypeError(f"'{name}' must be a BODY object, got {describe(value)}")
    if value.deleted:
        raise InputTypeError(f"'{name}' is a recently deleted BODY object (id {value.id})")
    return value
