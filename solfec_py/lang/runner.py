"""The deck runner (layer 8): executes a deck (Python 3, or legacy Python 2 translated by
`lang.legacy`) in a fresh namespace holding the Solfec names, and finds the deck line an
error came from. Reference: Solfec-1.0 user manual, the deck namespace, command line (Solfec solfec.c / lng.c start-up).
"""
from __future__ import annotations

import builtins
import os
import sys
import traceback
from dataclasses import dataclass

from solfec_py import session
from solfec_py.errors import SolfecError


@dataclass
class DeckFailure(Exception):
    """An exception escaped the deck: where (deck line) and what."""

    path: str
    line: int | None
    column: int | None
    error: BaseException
    source_line: str = ""
    origin: tuple | None = None    # (file, line, column) in a module the deck imported

    def message(self) -> str:
        text = self._text()
        if self.origin:
            text += f"\n    (reached from {self.path}:{self.line})" if self.line else ""
        return text

    def _text(self) -> str:
        path, line, column = self.origin or (self.path, self.line, self.column)
        where = f"{path}:{line}" if line else path
        if column:
            where += f":{column}"
        err = self.error
        if isinstance(err, SyntaxError) and not isinstance(err, SolfecError):
            text = f"{where}: SyntaxError: {err.msg}"
            if self.source_line:
                caret = " " * max(0, (self.column or 1) - 1) + "^"
                text += f"\n    {self.source_line.rstrip()}\n    {caret}"
            return text
        kind = "" if isinstance(err, SolfecError) and not isinstance(err, SyntaxError) else f"{type(err).__name__}: "
        if isinstance(err, SolfecError) and isinstance(err, SyntaxError):
            return f"{where}: {err}"
        return f"{where}: {kind}{err}{name_hint(err)}"

    def __str__(self) -> str:
        return self.message()


def name_hint(error: BaseException) -> str:
    """' (did you mean 'X'?)' for a NameError whose name is close to a deck name."""
    if type(error) is not NameError or not getattr(error, "name", None):
        return ""
    from solfec_py.api import NAMES
    from solfec_py.validate import suggest

    names = list(NAMES) + ["runscript"]
    frames = [frame for frame, _ in traceback.walk_tb(error.__traceback__)]
    if frames:      # the deck's (or helper's) own names where the error happened
        names += [n for n in (*frames[-1].f_locals, *frames[-1].f_globals) if not n.startswith("__")]
    return suggest(error.name, names)


def read_deck(path: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read()
    return data.decode("utf-8", errors="surrogateescape")


def prepare(source: str, path: str, legacy: str = "auto") -> tuple[str, bool]:
    """Python 3 source of the deck and whether it was translated from Python 2 (the
    translation comes from the cache when this text was translated before)."""
    try:
        from solfec_py.lang import legacy as legacy_module
    except ImportError:  # translator not installed: Python 3 decks only
        legacy_module = None
    if legacy_module is not None:
        if legacy == "off":
            return legacy_module.detect_and_prepare(source, path, legacy)
        from solfec_py.lang.legacy.cache import prepare_text

        return prepare_text(source, path, legacy)
    return source, False


def namespace_for(path: str, translated: bool, legacy: str = "auto") -> dict:
    """Fresh globals of a deck: the Solfec names, `__file__`, and Python 2 helpers if
    needed.  A Python 3 deck run with legacy mode 'auto' or 'on' gets the Python 2
    builtins that Python 3 has no name for (`execfile`, `xrange`, ...): a Solfec deck that
    happens to compile as Python 3 may still call them."""
    from solfec_py.api import NAMES

    ns = {"__name__": "__main__", "__file__": path, "__builtins__": builtins, "__doc__": None}
    ns.update(NAMES)
    ns["runscript"] = runscript_for(ns, path)
    if translated or legacy != "off":
        from solfec_py.lang import legacy as legacy_module

        ns.update(legacy_module.legacy_builtins() if translated else
                  legacy_module.python2_only_builtins())
    return ns


def module_origin(error: BaseException, path: str) -> tuple | None:
    """(file, line, column) of the innermost place in the user's own modules (those the
    deck imported or ran, outside the standard library, site-packages and solfec-py) where
    `error` arose, when that is not the deck itself; None otherwise."""
    from solfec_py.lang.legacy.imports import user_file

    origin = None
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        name = frame.f_code.co_filename
        if name == path:
            origin = None
        elif user_file(name):
            origin = (name, lineno, None)
    if isinstance(error, SyntaxError) and error.filename and error.filename != path \
            and user_file(error.filename):
        origin = (error.filename, error.lineno, error.offset)
    return origin


def runscript_for(ns: dict, deck: str):
    """The deck's `runscript(cmd_str)` (as Solfec defines it in the deck's namespace): split
    `cmd_str` on whitespace, add '.py' to the first word unless it ends with 'py', and run
    that script in the deck's own global namespace with the words as sys.argv (restored
    afterwards). The script is looked for in the current directory, then beside the deck;
    a Python 2 script is translated as a deck is."""
    from solfec_py import validate as V
    from solfec_py.errors import InputError

    @V.command(name="runscript")
    def runscript(cmd_str):
        words = V.string("cmd_str", cmd_str).split()
        if not words:
            raise InputError("runscript: 'cmd_str' names no script, got an empty string")
        if not words[0].endswith("py"):
            words[0] += ".py"
        script = words[0]
        beside = os.path.join(os.path.dirname(os.path.abspath(deck)), script)
        if not os.path.isfile(script) and os.path.isfile(beside):
            script = beside
        try:
            source = read_deck(script)
        except OSError as exc:
            raise InputError(f"runscript: cannot read {words[0]!r}: {exc.strerror}") from None
        session.record_input(script)
        text, translated = prepare(source, script)
        if translated:
            from solfec_py.lang import legacy

            for name, value in legacy.legacy_builtins().items():
                ns.setdefault(name, value)
        code = compile(text, script, "exec")
        saved, sys.argv = sys.argv, words
        try:
            exec(code, ns)
        finally:
            sys.argv = saved

    return runscript


def deck_line(error: BaseException, path: str) -> int | None:
    """The line of the innermost frame of `error`'s traceback that belongs to the deck."""
    line = None
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        if frame.f_code.co_filename == path:
            line = lineno
    if line is None and isinstance(error, SyntaxError) and error.filename == path:
        line = error.lineno
    return line


def run_deck(path: str, legacy: str = "auto") -> dict:
    """Execute the deck at `path`; returns its globals. Raises DeckFailure on any error."""
    source = read_deck(path)
    try:
        code_text, translated = prepare(source, path, legacy)
        code = compile(code_text, path, "exec")
    except SyntaxError as exc:
        lines = source.splitlines()
        line = exc.lineno or None
        text = lines[line - 1] if line and line <= len(lines) else (exc.text or "")
        raise DeckFailure(path, line, exc.offset, exc, text) from exc
    current = session.current()
    if current.deck_path == path:       # what the results will record (output/provenance.py)
        current.deck_source, current.deck_code = source, code_text
    ns = namespace_for(path, translated, legacy)
    deck_dir = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, deck_dir)
    helpers = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers")
    sys.path.append(helpers)            # Solfec's scripts/ modules (lang/helpers), found last
    saved_argv, saved_modules = sys.argv, set(sys.modules)
    sys.argv = deck_argv(path)
    try:
        # a legacy deck's modules are Python 2 too (as its execfile'd files are)
        with _translating_imports("on" if translated else legacy):
            exec(code, ns)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # any error in the deck is reported at its deck line
        if translated:
            from solfec_py.lang import legacy

            legacy.flush_softspace()
        raise DeckFailure(path, deck_line(exc, path), None, exc,
                          origin=module_origin(exc, path)) from exc
    finally:
        sys.argv = saved_argv
        _forget_user_modules(saved_modules)
        _forget_helper_modules(saved_modules, helpers)
        for folder in (deck_dir, helpers):
            try:
                sys.path.remove(folder)
            except ValueError:
                pass
    return ns


def deck_argv(path: str) -> list[str]:
    """`sys.argv` while a deck runs: the deck's path, then the words after it that are not
    solfec-py options (those NON_SOLFEC_ARGV returns), as `python deck.py words` gives.
    Solfec-1.0 left `sys.argv` unset; solfec-py's own options never appear in it."""
    return [path] + [str(w) for w in session.current().extra_argv]


def _forget_user_modules(before: set) -> None:
    try:
        from solfec_py.lang.legacy.imports import forget_user_modules
    except ImportError:  # translator not installed
        return
    forget_user_modules(before)


def _forget_helper_modules(before: set, helpers: str) -> None:
    """Drop the lang/helpers modules the deck imported by their own name (`modred`,
    `abaqusreader`), so that the next deck run in this process finds its own copy, or an
    installed package, first again, as the search path promises."""
    for name in [n for n in sys.modules if n not in before and "." not in n]:
        filename = getattr(sys.modules[name], "__file__", None)
        if filename and os.path.dirname(os.path.abspath(filename)) == helpers:
            del sys.modules[name]


def _translating_imports(legacy: str):
    """Python 2 modules the deck imports are translated on import (lang.legacy.imports)."""
    try:
        from solfec_py.lang.legacy.imports import translating_imports
    except ImportError:  # translator not installed
        import contextlib

        return contextlib.nullcontext()
    return translating_imports(legacy)
