"""Argument checks for deck commands (layer 0), after Solfec-1.0's lng.c conventions.

Every check names the argument, says what was expected and shows what was received,
and raises the exception *type* Solfec raises there: wrong type -> `InputTypeError` (a
TypeError), wrong value -> `InputError` (a ValueError). Tuples and lists are strict: a
list where a tuple is required is a type error.

Numbers are finite floats: NaN, infinities and values too large for a float (10**400)
are refused, naming the argument. numpy scalars and 0-d arrays count as numbers; other
arrays are refused. Integers are C ints (Solfec parses them so). Arguments that size
work or memory (RUN's number of steps, solver iteration counts, generated mesh elements)
are bounded by `LIMITS` before anything is allocated (docs/limits.md lists the bounds).
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
from contextlib import contextmanager
from dataclasses import dataclass, fields
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
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value).bit_length() > 128:
        digits = int(int(value).bit_length() * math.log10(2)) + 1
        return f"an integer of about {digits} digits ({type(value).__name__})"
    if isinstance(value, np.ndarray) and value.ndim:
        return f"an array of shape {value.shape} (numpy.ndarray)"
    try:
        text = repr(value)
    except Exception:  # repr of user objects may fail
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
                raise InputTypeError(f"{label}: {exc}{_keyword_hint(kwargs, sig)}") from None
            return fn(*args, **kwargs)

        wrapper.__signature__ = sig
        return wrapper

    if func is not None:
        return wrap(func)
    return wrap


def _keyword_hint(kwargs: dict, sig: inspect.Signature) -> str:
    """' (did you mean ...?)' for the first keyword argument `sig` does not know."""
    known = [p for p in sig.parameters if p not in ("self", "cls")]
    for key in kwargs:
        if key not in known:
            return suggest(key, known)
    return ""


# --------------------------------------------------------------------------- limits

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1     # a C int: Solfec parses ids and counts as int


@dataclass
class Limits:
    """Upper bounds of the deck arguments that size work or memory, checked before anything
    is allocated or run (docs/limits.md). `limits(...)` changes them for a while."""

    steps: int = 10 ** 8        # time steps of one RUN (duration / SOLFEC step)
    iterations: int = 10 ** 6   # a solver's iteration counts (maxiter, diagmaxiter, ...)
    elements: int = 10 ** 6     # elements of one generated mesh (HEX i j k, PIPE ndri nrad nthi)


LIMITS = Limits()


@contextmanager
def limits(**values):
    """Change fields of `LIMITS` inside a `with` block (tests, a cautious library user)."""
    names = {f.name for f in fields(Limits)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise InputError(f"unknown limits {unknown}; expected some of {sorted(names)}")
    saved = {name: getattr(LIMITS, name) for name in values}
    for name, value in values.items():
        setattr(LIMITS, name, int(value))
    try:
        yield LIMITS
    finally:
        for name, value in saved.items():
            setattr(LIMITS, name, value)


# --------------------------------------------------------------------------- scalars

def _is_array(value: Any) -> bool:
    """A numpy array with at least one dimension (never a number here)."""
    return isinstance(value, np.ndarray) and value.ndim > 0


def _is_number(value: Any) -> bool:
    if isinstance(value, (str, bytes, complex, np.complexfloating)):
        return False
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "biuf"
    if isinstance(value, (numbers.Real, np.number)):
        return True
    return hasattr(value, "__float__") and not isinstance(value, (list, tuple, dict))


def _not_a_number(name: str, value: Any, requirement: str = "a number") -> InputTypeError:
    if _is_array(value):
        return InputTypeError(f"'{name}' must be {requirement}, got {describe(value)}; pass one number"
                              " (a command taking several wants a tuple or a list)")
    return InputTypeError(f"'{name}' must be {requirement}, got {describe(value)}")


def _to_float(name: str, value: Any, error=InputError, requirement: str = "a number") -> float:
    """float(value) for a value `_is_number` accepted: finite, representable, else `error`."""
    try:
        result = float(value)
    except OverflowError:
        raise error(f"'{name}' must be {requirement} a float can represent, got {describe(value)}") from None
    except (TypeError, ValueError):
        raise InputTypeError(f"'{name}' must be {requirement}, got {describe(value)}") from None
    if math.isnan(result):
        raise error(f"'{name}' must be {requirement}, got NaN")
    if not math.isfinite(result):
        raise error(f"'{name}' must be a finite number, got {result!r}")
    return result


def number(name: str, value: Any) -> float:
    """A finite real number (int, float, bool, numpy scalar or 0-d array) as float; a
    non-number -> `InputTypeError`, NaN, an infinity or an overflowing int -> `InputError`."""
    if not _is_number(value):
        raise _not_a_number(name, value)
    return _to_float(name, value)


def integer(name: str, value: Any, lo: int = INT_MIN, hi: int = INT_MAX) -> int:
    """An int (bool, numpy ints and 0-d int arrays accepted) in [lo, hi] (a C int by
    default); a float raises `InputTypeError` as in Solfec, an int out of range `InputError`."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "biu":
        value = value.item()
    if not isinstance(value, (bool, np.bool_, numbers.Integral, np.integer)):
        raise _not_a_number(name, value, "an integer")
    n = int(value)
    if not lo <= n <= hi:
        raise InputError(f"'{name}' must be an integer in [{lo}, {hi}], got {describe(value)}")
    return n


def string(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InputTypeError(f"'{name}' must be a string, got {describe(value)}")
    return value


PATH_MAX, NAME_MAX = 4096, 255       # POSIX limits of a path and of one of its names (Linux's)


def file_path(name: str, value: Any, kind: str = "file") -> str:
    """A path the system can take: a non-empty string without NUL characters, at most
    PATH_MAX characters with names of at most NAME_MAX (the bytes the file system counts);
    for `kind` 'file' not an existing directory, for 'directory' not an existing file."""
    text = string(name, value)
    if not text:
        raise InputError(f"'{name}' must name a {kind}, got an empty string")
    if "\0" in text:
        raise InputError(f"'{name}' holds a NUL character at position {text.index(chr(0))}, which no {kind}"
                         f" name can hold: {describe(text)}")
    size = len(os.fsencode(text))
    longest = max((len(os.fsencode(part)) for part in text.split(os.sep)), default=0)
    if size > PATH_MAX or longest > NAME_MAX:
        raise InputError(f"'{name}' is too long for a {kind} path ({size} bytes, longest name {longest}; the"
                         f" system takes {PATH_MAX} bytes, {NAME_MAX} per name): {describe(text)}")
    if kind == "file" and os.path.isdir(text):
        raise InputError(f"'{name}' must name a file, got the directory {text!r}")
    if kind == "directory" and os.path.exists(text) and not os.path.isdir(text):
        raise InputError(f"'{name}' must name a directory, got the file {text!r}")
    return text


def boolean(name: str, value: Any) -> bool:
    if value is True or value is False:
        return value
    raise InputError(f"'{name}' must be boolean (True or False), got {describe(value)}")


def suggest(word: str, candidates: Iterable[str]) -> str:
    """' (did you mean 'X'?)' for the candidate closest to a misspelt `word`, else ''."""
    import difflib

    pool = [c for c in candidates if isinstance(c, str)]
    close = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if not close:    # case slips ('rigid' for 'RIGID') score low in difflib
        close = [c for c in pool if c.lower() == word.lower()]
    return f" (did you mean {close[0]!r}?)" if close else ""


def choice(name: str, value: Any, options: Iterable[str], what: str | None = None,
           listed: Iterable[str] | None = None) -> str:
    """A string from `options`; non-string -> TypeError, unknown -> ValueError listing
    `listed` (default: the options; e.g. only the available ones) with a suggestion."""
    text = string(name, value)
    options = list(options)
    if text not in options:
        kind = what or f"'{name}' value"
        shown = options if listed is None else list(listed)
        raise InputError(f"Invalid {kind} {text!r}; expected one of {shown}{suggest(text, shown)}")
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


def positive_int(name: str, value: Any, hi: int = INT_MAX) -> int:
    n = integer(name, value)
    if n <= 0:
        raise InputError(f"'{name}' must be positive, got {n!r}")
    if n > hi:
        raise InputError(f"'{name}' must be at most {hi}, got {n!r}")
    return n


def count(name: str, value: Any) -> int:
    """An iteration count of a solver: an int in [1, LIMITS.iterations]."""
    n = integer(name, value)
    if n <= 0:
        raise InputError(f"'{name}' must be positive, got {n!r}")
    return iteration_limit(name, n)


def iteration_limit(name: str, n: int, error: type = InputError) -> int:
    """`n` if it is at most LIMITS.iterations, else `error` (attribute setters raise
    TypeError, as Solfec's do)."""
    if n > LIMITS.iterations:
        raise error(f"'{name}' must be at most {LIMITS.iterations} iterations"
                    f" (solfec-py's limit, docs/limits.md), got {n}")
    return n


def duration(name: str, value: Any, step: float) -> float:
    """A positive, finite duration that takes at most LIMITS.steps steps of length `step`."""
    t = positive(name, value)
    steps = t / step
    if steps > LIMITS.steps:
        raise InputError(f"'{name}' = {t:g} at the time step {step:g} takes {steps:.3g} steps; one RUN"
                         f" may take at most {LIMITS.steps:.3g} (solfec-py's limit, docs/limits.md):"
                         " shorten it or enlarge the step")
    return t


def divisions(command: str, **counts: Any) -> tuple:
    """Positive subdivision counts of a generated mesh whose product (the number of
    elements) is at most LIMITS.elements, checked before anything is allocated."""
    values = tuple(positive_int(name, value) for name, value in counts.items())
    total = math.prod(values)
    if total > LIMITS.elements:
        product = " x ".join(f"{n} ({name})" for name, n in zip(counts, values))
        raise InputError(f"{command}: {product} = {total} elements; a generated mesh may have at most"
                         f" {LIMITS.elements} (solfec-py's limit, docs/limits.md)")
    return values


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


def vector(name: str, value: Any) -> np.ndarray:
    """A non-zero 3-tuple (x, y, z) whose length is a finite float, as a float array."""
    d = point(name, value)
    with np.errstate(over="ignore"):
        size = float(np.linalg.norm(d))
    if not size > 0.0:
        raise InputError(f"'{name}' must be a non-zero vector, got {tuple(d.tolist())}")
    if not math.isfinite(size):
        raise InputError(f"'{name}' is too long: its length overflows a float, got {tuple(d.tolist())}")
    return d


def representable(what: str, values: Any, hint: str) -> None:
    """Quantities derived from deck arguments (a mass, a volume, placed coordinates) must
    be finite floats; `what` names them and the arguments they came from, `hint` says how
    to fix it."""
    arr = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)].reshape(-1)[0]
        raise InputError(f"{what} cannot be represented (it evaluates to {bad!r}); {hint}")


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
    except (TypeError, ValueError, OverflowError):
        raw = None
    if raw is None or raw.dtype.kind not in "biuf" or raw.ndim != 1:   # strings, None, nested lists
        for i, v in enumerate(value):
            number(f"{name}[{i}]", v)
        raise InputTypeError(f"'{name}' must be a flat list of numbers")
    out = raw.astype(float)
    bad = np.flatnonzero(~np.isfinite(out))
    if bad.size:
        number(f"{name}[{int(bad[0])}]", out[bad[0]])      # the NaN / infinity message
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
    """A bounded, finite number for an attribute setter. Solfec raises **TypeError** for
    both a non-number and an out-of-bounds value here: `'theta' must be a number > 0 and
    <= 0.5, got 0.7`. With `integral=True` an integral float (1e4) is accepted as an int.
    """
    bounds = [f"> {gt:g}" if gt is not None else "", f">= {ge:g}" if ge is not None else "",
              f"<= {le:g}" if le is not None else ""]
    need = " and ".join(b for b in bounds if b)
    kind = "an integer" if integral else "a number"
    requirement = f"'{name}' must be {kind}{' ' + need if need else ''}"
    if not _is_number(value):
        raise InputTypeError(f"{requirement}, got {describe(value)}")
    try:
        x = float(value)
    except (OverflowError, TypeError, ValueError):
        raise InputTypeError(f"{requirement}, got {describe(value)}") from None
    ok = math.isfinite(x)
    ok = ok and (gt is None or x > gt) and (ge is None or x >= ge) and (le is None or x <= le)
    if integral:
        ok = ok and x == int(x) and INT_MIN <= x <= INT_MAX
    if not ok:
        raise InputTypeError(f"{requirement}, got {describe(value)}")
    return int(x) if integral else x
