"""Legacy Solfec-1.0 decks (Python 2.7 dialect): parse with `grammar/python2.lark`,
translate to Python 3 line for line, and run the translation with Python 2 semantics.
See docs/legacy.md.

Modules, lowest first: `errors` (LegacySyntaxError), `edits` (line-preserving text edits),
`strings` (literals), `shims` (Python 2 module names), `parse` (the lark parser and syntax
errors, with `messages`), `params` and `translator` (tree -> Python 3 text), `dialect` (the
front end below), `runtime` (the `_p2_*` helpers and Python 2 builtins translated code
calls; also importable as `solfec_py.lang.legacy_runtime`, the path translated decks use).

The public interface is the front end's (`dialect.py`) and two names of the run time:

* `detect_and_prepare(source, filename, mode)` -> (python3_source, is_legacy)
* `translate(source, filename, standalone=False)` -> python3_source
* `legacy_builtins()` -> names to put in a translated deck's globals
* `python2_only_builtins()` -> those of them a Python 3 deck may get too
* `compiles_as_python3(source, filename)`, `flush_softspace()`, `prepare_for_exec`,
  `LegacySyntaxError`, `MODES`
"""
from __future__ import annotations

from solfec_py.lang.legacy.dialect import (MODES, LegacySyntaxError, compiles_as_python3,
                                           detect_and_prepare, prepare_for_exec, translate)

__all__ = ["LegacySyntaxError", "compiles_as_python3", "translate", "legacy_builtins",
           "python2_only_builtins", "detect_and_prepare", "flush_softspace",
           "prepare_for_exec", "MODES"]


def legacy_builtins() -> dict:
    """Names to add to a translated deck's globals (helpers and Python 2 builtins)."""
    from solfec_py.lang.legacy.runtime import legacy_namespace   # installs the module shims

    return legacy_namespace()


def python2_only_builtins() -> dict:
    """The Python 2 builtins that Python 3 has no name for (`execfile`, `xrange`,
    `raw_input`, ...): they can join a Python 3 deck's globals without changing the
    meaning of anything it says (unlike Python 2's `map`, `range`, `round`, ...)."""
    import builtins

    return {k: v for k, v in legacy_builtins().items()
            if not k.startswith("_") and not hasattr(builtins, k)}


def flush_softspace() -> None:
    """Write the newline Python 2 wrote at exit after a trailing-comma print."""
    from solfec_py.lang.legacy.runtime import _p2_flushline

    _p2_flushline()
