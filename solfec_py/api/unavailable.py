"""Deck commands of Solfec-1.0 that solfec-py does not provide yet (layer 7). Each name
exists so a deck fails at the line that uses it with a clear message, never silently.
"""
from __future__ import annotations

from solfec_py.errors import NotAvailableError

LATER: dict = {}


def _make(name: str, capability: str):
    def command(*args, **kwargs):
        raise NotAvailableError(f"{name} is not available in solfec-py yet (it arrives with {capability})")

    command.__name__ = command.__qualname__ = name
    command.__doc__ = (f"Not available yet: arrives with {capability}.\n\nThe name exists so that a deck"
                       f" using it stops at that line with a clear message.\n\nExamples\n--------\n>>> {name}()\n"
                       f"Traceback (most recent call last):\nNotAvailableError: {name} is not available in"
                       f" solfec-py yet (it arrives with {capability})\n")
    return command


NAMES = {name: _make(name, capability) for capability, names in LATER.items() for name in names}
