"""Argument checks for deck commands (layer 0), after Solfec-1.0's lng.c conventions.

Every check names the argument, says what was expected and shows what was received,
and raises the exception *type* Solfec raises there (LANGUAGE §2): wrong type ->
`InputTypeError` (a TypeError), wrong value -> `InputError` (a ValueError).
Tuples and lists are strict: a list where a tuple is required is a type error.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
from typing import Any, Callable, Iterable

import numpy as np

from solfec_py.errors import InputError, InputTypeError


class _Missing:
    """Sentinel default of optional deck arguments (so `None` can be a real value)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING = _Missing()


def given(value: Any) -> bool:
    """True when an optional argument was passed (its value is not `MISSING`)."""
    return value is not MISSING


def describe(value: Any, limit: int = 60) -> str:
    """Short description of a received value for messages: `-1.0 (float)`."""
    try:
        text = repr(value)
    except Exception:  # pragma: no cover - repr of user objects may fail
        text = "<unprintable>"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{text} ({type(value).__name__})"


def command(func: Callable | None = None, *, name: str | None = None):
    """Decorate a deck command so arity errors become `InputTypeError` naming the command.

    Python's own binding checks (missing, extra, duplicated or unknown arguments) are
    kept; only the exception type and the message prefix change, e.g.
    ``SOLFEC: missing a required argument: 'output'``.
    """

    def wrap(fn: Callable) -> Callable:
        sig = inspect.signature(fn)
        label = name or fn.__qualname__.replace(".__init__", "").split(".")[-1]
        if fn.__name__ == "__init__":
            label = name or fn.__qualname__.split(".")[0]

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise InputTypeError(f"{label}: {exc}") from None
            return fn(*args, **kwargs)

        wrapper.__signature__ = sig
        return wrapper

    if func is not None:
        return wrap(func)
    return wrap


# --------------------------------------------------------------------------- scalars

def _is_number(value: Any) -> bool:
    if isinstance(value, (str, bytes)):
        return False
    if isinstance(value, (numbers.Real, np.number)):
        return not isinstance(value, complex)
    return hasattr(value, "__float__") and not isinstance(value, (list, tuple, dict))


def number(name: str, value: Any) -> float:
    """A real number (int, float, bool, numpy scalar) as float; else `InputTypeError`."""
    if not _is_number(value):
        raise InputTypeError(f"'{name}' must be a number, got {describe(value)}")
    result = float(value)
    if math.isnan(result):
        raise InputError(f"'{name}' must be a number, got NaN")
    return result


def integer(name: str, value: Any) -> int:
    """An int (bool and numpy ints accepted); a float raises `InputTypeError` as in Solfec."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        raise InputTypeError(f"'{name}' must be an integer, got {describe(value)}")
    raise InputTypeError(f"'{name}' must be an integer, got {describe(value)}")


def string(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InputTypeError(f"'{name}' must be a string, got {describe(value)}")
    return value


def boolean(name: str, value: Any) -> bool:
    if value is True or value is False:
        return value
    raise InputError(f"'{name}' must be boolean (True or False), got {describe(value)}")


def choice(name: str, value: Any, options: Iterable[str], what: str | None = None) -> str:
    """A string from `options`; non-string -> TypeError, unknown -> ValueError listing them."""
    text = string(name, value)
    options = list(options)
    if text not in options:
        kind = what or f"'{name}' value"
        raise InputError(f"Invalid {kind} {text!r}; expected one of {options}")
    return text


ON_OFF = ("ON", "OFF")


def on_off(name: str, value: Any, what: str | None = None) -> bool:
    """Solfec's 'ON'/'OFF' switches as a bool (`what` names the switch in the error)."""
    return choice(name, value, ON_OFF, what=what) == "ON"


def positive(name: str, value: Any) -> float:
    x = number(name, value)
    if not x > 0:
        raise InputError(f"'{name}' must be positive, got {x!r}")
    return x


def nonnegative(name: str, value: Any) -> float:
    x = number(name, value)
    if not x >= 0:
        raise InputError(f"'{name}' must be non-negative, got {x!r}")
    return x


def positive_int(name: str, value: Any) -> int:
    n = integer(name, value)
    if n <= 0:
        raise InputError(f"'{name}' must be positive, got {n!r}")
    return n


def in_range(name: str, value: Any, lo: float, hi: float) -> float:
    x = number(name, value)
    if not lo <= x <= hi:
        raise InputError(f"'{name}' must be in range [{lo:.2f}, {hi:.2f}], got {x!r}")
    return x


def is_callable(name: str, value: Any) -> Callable:
    if not callable(value):
        raise InputTypeError(f"'{name}' must be callable, got {describe(value)}")
    return value


def instance(name: str, value: Any, cls: type | tuple, what: str) -> Any:
    """`value` must be an instance of `cls`; `what` names the expected kind ('a BODY object')."""
    if not isinstance(value, cls):
        raise InputTypeError(f"'{name}' must be {what}, got {describe(value)}")
    return value


# --------------------------------------------------------------------------- sequences

def tuple_of_numbers(name: str, value: Any, n: int) -> np.ndarray:
    """A tuple of exactly `n` numbers (a list is refused, as in Solfec) as a float array."""
    if not isinstance(value, tuple):
        raise InputTypeError(f"'{name}' must be a tuple of {n} numbers, got {describe(value)}")
    if len(value) != n:
        raise InputError(f"'{name}' must have {n} elements, got {len(value)}")
    return np.array([number(f"{name}[{i}]", v) for i, v in enumerate(value)], dtype=float)


def point(name: str, value: Any) -> np.ndarray:
    """A 3-tuple (x, y, z) as a float array."""
    return tuple_of_numbers(name, value, 3)


def list_of_numbers(name: str, value: Any, div: int = 1, minlen: int = 0) -> np.ndarray:
    """A list of numbers whose length is a multiple of `div` and at least `minlen`."""
    if not isinstance(value, list):
        raise InputTypeError(f"'{name}' must be a list, got {describe(value)}")
    if len(value) % div or len(value) < minlen:
        raise InputError(
            f"'{name}' must have N * {div} elements, where N >= {minlen // div if div else minlen},"
            f" got {len(value)} elements")
    try:
        raw = np.array(value)
    except (TypeError, ValueError):
        raw = None
    if raw is None or raw.dtype.kind not in "biuf" or raw.ndim != 1:   # strings, None, nested lists
        for i, v in enumerate(value):
            number(f"{name}[{i}]", v)
        raise InputTypeError(f"'{name}' must be a flat list of numbers")
    out = raw.astype(float)
    bad = np.flatnonzero(np.isnan(out))
    if bad.size:
        raise InputError(f"'{name}[{int(bad[0])}]' must be a number, got NaN")
    return out


def list_of_ints(name: str, value: Any, minlen: int = 0) -> list[int]:
    """A list of ints (floats refused) with at least `minlen` items."""
    if not isinstance(value, list):
        raise InputTypeError(f"'{name}' must be a list, got {describe(value)}")
    if len(value) < minlen:
        raise InputError(f"'{name}' must have at least {minlen} elements, got {len(value)}")
    return [integer(f"{name}[{i}]", v) for i, v in enumerate(value)]


def setter_number(name: str, value: Any, *, gt: float | None = None, ge: float | None = None,
                  le: float | None = None, integral: bool = False) -> float | int:
    """A bounded number for an attribute setter. Solfec raises **TypeError** for both a
    non-number and an out-of-bounds value here (LANGUAGE §2): `'theta' must be a number > 0
    and <= 0.5, got 0.7`. With `integral=True` an integral float (1e4) is accepted as an int.
    """
    bounds = [f"> {gt:g}" if gt is not None else "", f">= {ge:g}" if ge is not None else "",
              f"<= {le:g}" if le is not None else ""]
    need = " and ".join(b for b in bounds if b)
    kind = "an integer" if integral else "a number"
    requirement = f"'{name}' must be {kind}{' ' + need if need else ''}"
    if not _is_number(value):
        raise InputTypeError(f"{requirement}, got {describe(value)}")
    x = float(value)
    ok = not math.isnan(x)
    ok = ok and (gt is None or x > gt) and (ge is None or x >= ge) and (le is None or x <= le)
    if integral:
        ok = ok and math.isfinite(x) and x == int(x)
    if not ok:
        raise InputTypeError(f"{requirement}, got {describe(value)}")
    return int(x) if integral else x
