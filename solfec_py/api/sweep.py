"""SWEEP_RESULT: a deck reports a named value for the bookkeeping table of a parameter sweep
(layer 7). A solfec-py command (Solfec-1.0 has none); usage in docs/sweeps.md.

Inside a run started by `solfec-py sweep` the environment variable `SOLFEC_PY_SWEEP_VALUES`
names a file to which every call appends one JSON line, at once, so values reported before a
failure are kept. Outside a sweep the value is only remembered for the current program run
(`reported()`), so a deck behaves the same when run by itself.
"""
from __future__ import annotations

import json
import math
import numbers
import os
import re

import numpy as np

from solfec_py import session, validate as V
from solfec_py.errors import InputError, InputTypeError

ENV = "SOLFEC_PY_SWEEP_VALUES"
# columns of the sweep table itself (solfec_py.sweep.table); a result cannot take their names
RESERVED = ("run", "status", "error", "wall_s", "resumed", "results", "log")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_LOCAL: dict = {"session": None, "values": {}}


def read_values(path: str | None) -> dict:
    """The values a sweep run wrote to `path` (name -> last value); lines cut short by a
    killed run are skipped; {} when there is no file."""
    values = {}
    if path and os.path.isfile(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                values[item["name"]] = item["value"]
    return values


def reported() -> dict:
    """The values SWEEP_RESULT recorded in the current program run (session), by name."""
    if _LOCAL["session"] is not session.current():
        _LOCAL["session"], _LOCAL["values"] = session.current(), {}
    return _LOCAL["values"]


def _value(value):
    """A JSON-ready scalar: bool, int, float (not NaN) or str."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)):
        x = float(value)
        if math.isnan(x):
            raise InputError("'value' must be a number or a string, got NaN")
        return x
    raise InputTypeError(f"'value' must be a number, a boolean or a string, got {V.describe(value)}")


@V.command
def SWEEP_RESULT(name, value):
    """Report a named value for the table of a parameter sweep (a solfec-py extension).

    ``SWEEP_RESULT(name, value)``: in a run started by ``solfec-py sweep`` the value becomes
    the column ``name`` of this run's row (written at once, so values reported before a
    failure are kept); a later call with the same name replaces it. Run by itself, the deck
    only remembers the value. See docs/sweeps.md.

    Parameters
    ----------
    name : str
        An identifier, not a column of the table itself (run, status, error, wall_s,
        resumed, results, log).
    value : float, int, bool or str
        Not NaN.

    Returns
    -------
    the value as stored

    Raises
    ------
    InputTypeError, InputError
        A name that is not an identifier or is reserved, a value of another type, NaN.

    Examples
    --------
    >>> ke = ENERGY(sol)[0]
    >>> SWEEP_RESULT('ke', ke)
    >>> SWEEP_RESULT('stable', ke < 1E-4)
    """
    name = V.string("name", name)
    if not NAME.match(name):
        raise InputError(f"'name' must be an identifier (a letter or '_', then letters, digits or '_'), got {name!r}")
    if name in RESERVED:
        raise InputError(f"'name' {name!r} is a column of the sweep table itself; use another name"
                         f" (reserved: {', '.join(RESERVED)})")
    value = _value(value)
    reported()[name] = value
    path = os.environ.get(ENV)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"name": name, "value": value}) + "\n")
    return value
