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
    """Report `value` (a number, boolean or string) under `name` (an identifier) for the
    table of a `solfec-py sweep`: it becomes the column `name` of this run's row. A later
    call with the same name replaces the value. Outside a sweep nothing is written.
    Returns the value as stored."""
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
