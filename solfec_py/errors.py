"""The solfec-py exception hierarchy (layer 0).

Solfec-1.0 raises TypeError for a wrong argument type and ValueError for a wrong value
(Solfec-1.0 lng.c argument checks); ours subclass those so `except TypeError` in an old deck still works, and
all of them subclass `SolfecError` so the deck runner can report the deck line.
"""
from __future__ import annotations


class SolfecError(Exception):
    """Base class of every error raised by solfec-py on purpose."""


class InputError(SolfecError, ValueError):
    """A deck argument has the right type but a wrong value."""


class InputTypeError(SolfecError, TypeError):
    """A deck argument has the wrong type (or a call has the wrong arity)."""


class SimulationError(SolfecError, RuntimeError):
    """A run failed: non-finite state, solver failure with failure='EXIT', ..."""


class GeometryError(SolfecError, RuntimeError):
    """A geometric construction failed (degenerate hull, empty mesh, ...); Solfec raises
    RuntimeError in these places (Solfec-1.0 user manual, HULL, MESH2CONVEX)."""


class NotAvailableError(SolfecError, RuntimeError):
    """A Solfec command or option that solfec-py does not provide (yet)."""


class ResultsError(SolfecError, RuntimeError):
    """Stored results are missing, corrupt or do not hold what was asked for."""


class ResultsMismatchError(ResultsError):
    """Stored results were computed from other words, deck text or input files than the
    run that found them: READ mode would show another model's results."""
