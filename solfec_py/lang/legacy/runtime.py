"""Run-time side of legacy (Python 2) decks: the `_p2_*` helpers translated code calls
(division, print with softspace, exec, raise, attribute fixes, tuple parameters) and the
Python 2 builtins (`xrange`, `execfile`, list-returning `map`, `round`, ...).
Reference: Solfec-1.0 user manual, the deck namespace (decks run by execfile in __main__); docs/legacy.md; Python 2.7 ceval.c
semantics of PRINT_ITEM / PRINT_NEWLINE and of classic division, as documented in the
Python 2.7 Language Reference §6.3 (print) and §5.6 (binary arithmetic).

`exec` and `execfile` without explicit namespaces use the *caller's* globals and locals,
found by inspecting the calling frame (`sys._getframe(1)`), as Python 2 did.
"""
from __future__ import annotations

import builtins
import decimal
import functools
import importlib
import io
import itertools
import math
import operator
import os
import sys
import types
from collections.abc import Mapping

from solfec_py import session
from solfec_py.lang.legacy import shims
from solfec_py.lang.legacy.shims import BUILTIN_NAMES

shims.install()

_NEWLINE = object()
_BUILTIN_METHODS = (types.MethodDescriptorType, types.BuiltinFunctionType,
                    types.WrapperDescriptorType)
_NO_SOFTSPACE_AFTER = "\t\n\x0b\x0c\r"   # C isspace() except ' ' (Python 2's PRINT_ITEM)


# ------------------------------------------------------------------ division
def _integral(x) -> bool:
    if isinstance(x, int):
        return True
    return getattr(getattr(x, "dtype", None), "kind", None) in ("i", "u", "b")


def _p2_div(a, b):
    """`a / b` as Python 2 without `from __future__ import division`: floor for two
    integers (numpy integer arrays included), `__div__` of Python 2 classes, else true."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    if _integral(a) and _integral(b):
        return a // b
    for obj, name, args in ((a, "__div__", (a, b)), (b, "__rdiv__", (b, a))):
        method = getattr(type(obj), name, None)
        if method is not None:
            result = method(*args)
            if result is not NotImplemented:
                return result
    return a / b


def _p2_idiv(a, b):
    """`a /= b` as Python 2: in place when the object supports it (numpy arrays)."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    if _integral(a) and _integral(b):
        a //= b
        return a
    method = getattr(type(a), "__idiv__", None)
    if method is not None:
        result = method(a, b)
        if result is not NotImplemented:
            return result
    if hasattr(type(a), "__itruediv__"):
        return operator.itruediv(a, b)
    return _p2_div(a, b)


def _p2_iattr(obj, name, value):
    setattr(obj, name, _p2_idiv(getattr(obj, name), value))


def _p2_iitem(container, key, value):
    container[key] = _p2_idiv(container[key], value)


# ------------------------------------------------------------------ print statement
def _softspace(f) -> int:
    try:
        return getattr(f, "softspace", 0)
    except Exception:   # an exotic stream: Python 2 ignored failures here too
        return 0


def _set_softspace(f, value: int) -> None:
    try:
        f.softspace = value
    except Exception:
        pass


def _py2_str(value) -> str:
    """str() as Python 2.7 had it for floats (12 significant digits) and complex."""
    kind = type(value)
    if kind is float:
        text = format(value, ".12g")
        return text if any(c in text for c in ".enai") else text + ".0"
    if kind is complex:
        if value.real == 0.0 and math.copysign(1.0, value.real) > 0:
            return format(value.imag, ".12g") + "j"
        return f"({value.real:.12g}{value.imag:+.12g}j)"
    return str(value)


def _print_to(f, value) -> None:
    if f is None:
        f = sys.stdout
    if value is _NEWLINE:
        f.write("\n")
        _set_softspace(f, 0)
        return
    pending = _softspace(f)
    _set_softspace(f, 0)
    if pending:
        f.write(" ")
    text = _py2_str(value)
    f.write(text)
    if not (isinstance(value, str) and text and text[-1] in _NO_SOFTSPACE_AFTER):
        _set_softspace(f, 1)


def _p2_print(value=_NEWLINE):
    """One item of a `print` statement to sys.stdout; no argument: the final newline."""
    _print_to(sys.stdout, value)


def _p2_print_to(f, value=_NEWLINE):
    """One item of `print >>f, ...` (f None means sys.stdout, as in Python 2)."""
    _print_to(f, value)


def _p2_flushline():
    """Python 2 wrote a pending newline when the main program ended after `print x,`."""
    out = sys.stdout
    if out is not None and _softspace(out):
        out.write("\n")
        _set_softspace(out, 0)


# ------------------------------------------------------------------ statements
def _p2_raise(etype, value=None, tb=None):
    """The exception `raise etype, value[, tb]` raised in Python 2."""
    if isinstance(etype, BaseException):
        if value is not None:
            raise TypeError("instance exception may not have a separate value")
        exc = etype
    elif isinstance(etype, type) and issubclass(etype, BaseException):
        if isinstance(value, etype):
            exc = value
        elif isinstance(value, tuple):
            exc = etype(*value)
        else:
            exc = etype() if value is None else etype(value)
    else:
        raise TypeError("exceptions must be old-style classes or derived from BaseException, "
                        f"not {type(etype).__name__}")
    return exc.with_traceback(tb) if tb is not None else exc


def _namespaces(globs, locs, depth: int = 2):
    if globs is None:
        frame = sys._getframe(depth)
        return frame.f_globals, frame.f_locals if locs is None else locs
    return globs, globs if locs is None else locs


def _run(text: str, filename: str, globs: dict, locs, python2: bool = True) -> None:
    """Run `text` in (globs, locs): as Python 2 when called from Python 2 code, else in the
    file's own dialect (execfile from a Python 3 deck)."""
    from solfec_py.lang.legacy.dialect import detect_and_prepare, prepare_for_exec

    if python2:
        code_text, translated = prepare_for_exec(text, filename)
    else:
        code_text, translated = detect_and_prepare(text, filename, "auto", program=False)
    if translated and "_p2_print" not in globs:
        if "__builtins__" in globs:
            # a Python 3 deck's name space: the helpers and the Python 2-only names join
            # it, its Python 3 builtins (map, range, round, ...) stay as they are
            for name, value in legacy_namespace().items():
                if name.startswith("_") or not hasattr(builtins, name):
                    globs.setdefault(name, value)
        else:
            globs["__builtins__"] = {**vars(builtins), **legacy_namespace()}
    exec(compile(code_text, filename, "exec", dont_inherit=True), globs, locs)


def _p2_exec(code, globs=None, locs=None):
    """The `exec` statement: a string, an open file or a code object, run as Python 2."""
    if globs is None and isinstance(code, tuple) and len(code) in (2, 3):
        code, globs, locs = (tuple(code) + (None,))[:3]
    globs, locs = _namespaces(globs, locs)
    if hasattr(code, "read"):
        filename, text = getattr(code, "name", "<file>"), code.read()
    elif isinstance(code, (str, bytes)):
        filename, text = "<string>", code
    else:
        exec(code, globs, locs)
        return
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    _run(text, str(filename), globs, locs)


def execfile(filename, globals=None, locals=None):
    """Run a (Python 2 or 3) file in the caller's name space, as Python 2's execfile."""
    globs, locs = _namespaces(globals, locals)
    caller = sys._getframe(1)
    python2 = "_p2_print" in caller.f_globals or "_p2_print" in caller.f_builtins
    with open(filename, "rb") as handle:
        text = handle.read().decode("utf-8", "surrogateescape")
    session.record_input(filename)       # results record what they were computed from
    _run(text, os.fspath(filename), globs, locs, python2)


# ------------------------------------------------------------------ attributes
def _dict_fix(name):
    if name in ("keys", "values", "items"):
        return lambda d: (lambda: list(getattr(d, name)()))
    if name in ("iterkeys", "itervalues", "iteritems"):
        return lambda d: (lambda: iter(getattr(d, name[4:])()))
    if name in ("viewkeys", "viewvalues", "viewitems"):
        return lambda d: getattr(d, name[4:])
    if name == "has_key":
        return lambda d: d.__contains__
    return None


def _list_sort(lst):
    def sort(cmp=None, key=None, reverse=False):
        lst.sort(key=_cmp_key(cmp, key), reverse=reverse)
    return sort


def _resetting_write(f, write):
    def write_and_reset(text):
        _set_softspace(f, 0)   # Python 2's file.write cleared a pending print space
        return write(text)
    return write_and_reset


def _p2_attr(obj, name):
    """`obj.name` where Python 2 meant something else on built-in objects: list-returning
    dict.keys() (any mapping), dict.has_key, iterator .next, list.sort(cmp=...),
    file.write resetting the print softspace, os.getcwdu, sys.maxint, file.xreadlines,
    BaseException.message."""
    if isinstance(obj, Mapping):
        impl = getattr(type(obj), name, None)
        fix = _dict_fix(name)
        if fix is not None and (impl is None or isinstance(impl, _BUILTIN_METHODS)
                                or impl is getattr(Mapping, name, None)):
            return fix(obj)   # dict, OrderedDict, os.environ, ...: not a deck's own method
    if name == "sort" and isinstance(obj, list) and type(obj).sort is list.sort:
        return _list_sort(obj)
    try:
        value = getattr(obj, name)
    except AttributeError:
        if name == "next" and hasattr(obj, "__next__"):
            return obj.__next__
        if name == "getcwdu" and obj is os:
            return os.getcwd
        if name == "maxint" and obj is sys:
            return sys.maxsize
        if name == "xreadlines" and hasattr(obj, "__iter__"):
            return lambda: iter(obj)
        if name == "message" and isinstance(obj, BaseException):
            return obj.args[0] if len(obj.args) == 1 else ""
        raise
    if name == "write" and (isinstance(obj, io.TextIOBase) or _softspace(obj)):
        return _resetting_write(obj, value)
    return value


def _p2_flat(value, spec):
    """Names of a tuple parameter, flattened (spec: 0 = a name, tuple = a sub-tuple)."""
    if spec == 0:
        return [value]
    items = list(value)
    if len(items) != len(spec):
        if len(items) > len(spec):
            raise ValueError("too many values to unpack")
        plural = "" if len(items) == 1 else "s"
        raise ValueError(f"need more than {len(items)} value{plural} to unpack")
    return [x for item, sub in zip(items, spec) for x in _p2_flat(item, sub)]


# ------------------------------------------------------------------ builtins
def _cmp_key(cmp, key=None):
    if cmp is None:
        return key
    wrapped = functools.cmp_to_key(cmp)
    return wrapped if key is None else (lambda x: wrapped(key(x)))


def cmp(a, b):
    return (a > b) - (a < b)


def sorted(iterable, cmp=None, key=None, reverse=False):   # noqa: A001 - Python 2 builtin
    return builtins.sorted(iterable, key=_cmp_key(cmp, key), reverse=reverse)


def map(function, *sequences):   # noqa: A001
    """Python 2 map: a list; several sequences are padded with None to the longest."""
    if not sequences:
        raise TypeError("map() requires at least two args")
    if len(sequences) == 1:
        seq = sequences[0]
        return list(seq) if function is None else [function(x) for x in seq]
    rows = itertools.zip_longest(*sequences)
    return [tuple(r) for r in rows] if function is None else [function(*r) for r in rows]


def filter(function, sequence):   # noqa: A001
    """Python 2 filter: a str for a str, a tuple for a tuple, otherwise a list."""
    keep = bool if function is None else function
    if isinstance(sequence, str):
        return "".join(c for c in sequence if keep(c))
    if isinstance(sequence, tuple):
        return tuple(x for x in sequence if keep(x))
    return [x for x in sequence if keep(x)]


def zip(*sequences):   # noqa: A001
    return list(builtins.zip(*sequences))


def range(*args):   # noqa: A001
    return list(builtins.range(*args))


def round(number, ndigits=0):   # noqa: A001
    """Python 2 round: a float, halves rounded away from zero (exact decimal value)."""
    x = float(number)
    digits = operator.index(ndigits)
    if not math.isfinite(x) or x == 0.0 or digits > 330:
        return x
    if digits < -330:
        return 0.0 * x
    with decimal.localcontext() as ctx:
        ctx.prec = 1000
        exact = decimal.Decimal(x).quantize(decimal.Decimal(1).scaleb(-digits),
                                            rounding=decimal.ROUND_HALF_UP)
    return float(exact)


def oct(number):   # noqa: A001
    text = builtins.oct(number)
    return text.replace("0o", "0") if number != 0 else "0"


def apply(function, args=(), kwargs=None):
    return function(*args, **(kwargs or {}))


def input(prompt=""):   # noqa: A001 - Python 2 input() evaluated the line
    frame = sys._getframe(1)
    return eval(builtins.input(prompt), frame.f_globals, frame.f_locals)


# Python 2 builtins that are plain aliases (module-level too, for `solfec-py translate`)
xrange, raw_input, unicode, basestring, long, unichr, file = (
    builtins.range, builtins.input, str, str, int, chr, open)
reduce, intern, reload, StandardError = functools.reduce, sys.intern, importlib.reload, Exception

_NAMESPACE = {
    "_p2_div": _p2_div, "_p2_idiv": _p2_idiv, "_p2_iattr": _p2_iattr, "_p2_iitem": _p2_iitem,
    "_p2_print": _p2_print, "_p2_print_to": _p2_print_to, "_p2_flushline": _p2_flushline,
    "_p2_raise": _p2_raise, "_p2_exec": _p2_exec, "_p2_attr": _p2_attr, "_p2_flat": _p2_flat,
    **{name: globals()[name] for name in sorted(BUILTIN_NAMES)},   # KeyError: a name not defined here
}


def legacy_namespace() -> dict:
    """A fresh copy of the names a translated deck needs in its globals."""
    return dict(_NAMESPACE)
