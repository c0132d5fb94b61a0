"""Helpers shared by the deck commands (layer 7): read-only attributes with Solfec's
error, the check that an argument is a live body, and what a body on another rank of a
parallel run answers. The lowest module of `api/`: it
imports no other api module (`require_solfec` lives with SOLFEC in `api/solfec.py`).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from solfec_py.bodies.base import Body
from solfec_py.errors import InputError, InputTypeError
from solfec_py.parallel.decomposition import ElsewhereBlock
from solfec_py.validate import describe


def readonly(getter: Callable) -> property:
    """A property whose assignment raises ValueError 'Writing to a read-only member'."""

    def setter(self, value):
        raise InputError(f"Writing to a read-only member '{getter.__name__}'")

    return property(getter, setter, doc=getter.__doc__)


def elsewhere(body) -> bool:
    """True when `body` is not on this rank of a parallel run (Solfec's IS_HERE false): its
    state lives on another rank, so commands on it do nothing here and its state getters
    give None, as in Solfec-1.0 (docs/parallel.md)."""
    return isinstance(body.block, ElsewhereBlock)


def here_or_none(method):
    """A BODY getter or setter that gives None (does nothing) for a body on another rank."""
    @functools.wraps(method)
    def wrapper(self, *args):
        if isinstance(self.block, ElsewhereBlock):
            return None
        return method(self, *args)
    return wrapper


def require_body(name: str, value: Any):
    """`value` must be a live BODY object (not DELETEd)."""
    if not isinstance(value, Body):
        raise InputTypeError(f"'{name}' must be a BODY object, got {describe(value)}")
    if value.deleted:
        raise InputTypeError(f"'{name}' is a recently deleted BODY object (id {value.id})")
    return value
