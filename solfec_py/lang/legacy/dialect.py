"""Legacy Solfec-1.0 decks (Python 2.7), the front end: dialect detection, translation to
Python 3 with the same behaviour and the same line numbers, and the names translated decks
need. Reference: Solfec-1.0 user manual, the deck namespace (decks run in __main__ by execfile); docs/legacy.md
(Python-2-only constructs of Solfec's shipped decks).

Public interface, re-exported by the package (`solfec_py.lang.legacy`) for the deck runner
(`lang.runner`) and the CLI:

* `detect_and_prepare(source, filename, mode)` -> (python3_source, is_legacy)
* `translate(source, filename, standalone=False)` -> python3_source
* `compiles_as_python3(source, filename)`, `prepare_for_exec(source, filename)`,
  `LegacySyntaxError`
(`legacy_builtins()` and `flush_softspace()` come from `runtime.py`, through the package:
the run time imports this module, so this module does not import the run time.)
"""
from __future__ import annotations

import re
import warnings

from solfec_py.errors import InputError
from solfec_py.lang.legacy.errors import LegacySyntaxError

__all__ = ["LegacySyntaxError", "compiles_as_python3", "translate", "detect_and_prepare",
           "prepare_for_exec", "MODES"]

MODES = ("auto", "off", "on")
FLUSH_LINE = "_p2_flushline()\n"
_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_UNDECODABLE = re.compile("[\udc80-\udcff]")


def _py3_error(source: str, filename: str) -> SyntaxError | None:
    """Python 3's complaint about `source`, or None when it compiles."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, filename, "exec", dont_inherit=True)
        except SyntaxError as err:
            return err
        except (MemoryError, RecursionError):
            return SyntaxError("expression nested too deeply for the Python 3 parser",
                               (filename, None, None, None))
        except ValueError as err:   # e.g. NUL bytes
            return SyntaxError(str(err), (filename, None, None, None))
    return None


def compiles_as_python3(source: str, filename: str) -> bool:
    return _py3_error(source, filename) is None


def _checked_text(source: str, filename: str) -> str:
    """`source` if it is text; re-decoded per its coding line if the runner's UTF-8 decode
    left undecodable bytes; otherwise a clear error (binary file, NUL bytes)."""
    if source.startswith("\ufeff"):
        source = source[1:]
    nul = source.find("\x00")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        raise LegacySyntaxError("the file contains NUL bytes: it is a binary file, not a "
                                "Python deck", filename, line, None, None)
    bad = _UNDECODABLE.search(source)
    if bad is None:
        return source
    for head in source.split("\n", 2)[:2]:
        m = _CODING.match(head)
        if m and m.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
            try:
                return source.encode("utf-8", "surrogateescape").decode(m.group(1))
            except (LookupError, UnicodeError):
                break
    line = source.count("\n", 0, bad.start()) + 1
    byte = ord(bad.group()) - 0xDC00
    raise LegacySyntaxError(f"the file is not UTF-8 text (byte 0x{byte:02x} on line {line}); a "
                            "deck in another encoding needs a '# -*- coding: NAME -*-' line",
                            filename, line, None, None)


def translate(source: str, filename: str = "<deck>", *, standalone: bool = False,
              plain: bool = False) -> str:
    """Python 3 source with the behaviour of the Python 2 `source`, line for line.

    The result calls `_p2_*` helpers and Python 2 builtins (`runtime.legacy_namespace()`), which
    the runner puts in the deck's globals.  With `standalone=True` (for `solfec-py
    translate`) an import line for exactly the names used is added before the first
    statement (after a docstring and `from __future__` imports) and a final
    `_p2_flushline()`, so the file runs on its own; lines after the header move down one.
    With `plain=True` (what `solfec-py translate` writes) the result is idiomatic Python
    3 without helpers (plain.py), headed by the imports it needs (and `from solfec import
    *` for a deck using Solfec's commands), which runs with plain `python`.
    Raises LegacySyntaxError when `source` is not valid Python 2.
    """
    from solfec_py.lang.legacy.translator import Translator
    from solfec_py.lang.legacy import parse as lp

    text = _checked_text(source, filename).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return text
    added = not text.endswith("\n")
    if added:
        text += "\n"
    first = text.split("\n", 1)[0]
    if first[:1] in (" ", "\t", "\f") and first.strip() and not first.strip().startswith("#"):
        raise LegacySyntaxError.at("unexpected indent", filename, text, 1,
                                   len(first) - len(first.lstrip()) + 1)
    lp.check_nesting(text, filename)
    print_function = lp.uses_print_function(text)
    tree, newlines = _parse(text, filename, print_function)
    futures = _future_imports(tree)
    if ("print_function" in futures) != print_function:
        print_function = not print_function
        tree, newlines = _parse(text, filename, print_function)
        futures = _future_imports(tree)
    if plain:
        from solfec_py.lang.legacy.plain import PlainTranslator

        translator = PlainTranslator(text, filename, tree, "division" in futures)
    else:
        translator = Translator(text, filename, "division" in futures)
    out = translator.translate(tree, newlines)
    if out.count("\n") != text.count("\n"):
        raise RuntimeError(f"internal error: the translation of {filename} changed its number "
                           "of lines; please report this deck")
    err = _py3_error(out, filename)
    if err is not None:
        raise _mapped_error(err, filename, text, out)
    if added:
        out = out[:-1]
    if plain:
        return _plain_header(out, text, tree, translator, filename)
    if standalone:
        out = _with_header(out, tree, translator.used)
    return out


def _parse(source: str, filename: str, print_function: bool):
    """Parse tree and newline tokens of `source` (which ends with a newline); a syntax
    error in plain words (messages.py) when it is not Python 2."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput

    from solfec_py.lang.legacy.messages import characters_error, token_error
    from solfec_py.lang.legacy.parse import LOCK, parser

    with LOCK:
        lark_parser = parser(print_function)
        post = lark_parser.options.postlex
        post.source, post.filename = source, filename
        try:
            tree = lark_parser.parse(source)
        except UnexpectedCharacters as err:
            raise characters_error(err, source, filename) from None
        except UnexpectedInput as err:
            open_now = list(getattr(post, "brackets", []))
            raise token_error(err, source, filename, open_now, print_function) from None
        return tree, list(post.newlines)


def _mapped_error(err: SyntaxError, filename: str, text: str, out: str) -> LegacySyntaxError:
    """A Python 3 compile error of the translation, reported on the original line (valid
    Python 2 that Python 3 refuses, e.g. `'return' outside function`, `True = 1`)."""
    line = err.lineno
    offset = err.offset
    src_lines, out_lines = text.split("\n"), out.split("\n")
    if line and line <= len(src_lines):
        if line > len(out_lines) or src_lines[line - 1] != out_lines[line - 1]:
            offset = len(src_lines[line - 1]) - len(src_lines[line - 1].lstrip()) + 1
    return LegacySyntaxError.at(err.msg or "invalid syntax", filename, text, line, offset)


def _future_imports(tree) -> set[str]:
    """Names in the `from __future__ import ...` statements that open the deck."""
    from lark import Token, Tree

    names: set[str] = set()
    for i, stmt in enumerate(s for s in tree.children if isinstance(s, Tree)):
        if stmt.data != "simple_stmt":
            break
        for small in (k for k in stmt.children if isinstance(k, Tree)):
            kids = small.children
            if small.data == "expr_stmt" and i == 0 and all(
                    isinstance(k, Token) and k.type == "STRING" for k in kids):
                continue   # docstring
            if small.data == "import_from" and isinstance(kids[1], Tree) and \
                    "".join(kids[1].children) == "__future__":
                names.update(str(t) for t in small.scan_values(
                    lambda v: isinstance(v, Token) and v.type == "NAME") if t != "__future__")
                continue
            return names
    return names


def _plain_header(out: str, text: str, tree, translator, filename: str) -> str:
    """The plain translation with its import line; a construct that has no plain Python 3
    spelling (tuple parameters) is a LegacySyntaxError at its place."""
    from lark import Token

    from solfec_py.api import NAMES

    if translator.used:
        at = out.find("_p2_")
        line = out.count("\n", 0, at) + 1
        column = at - (out.rfind("\n", 0, at) + 1) + 1
        raise LegacySyntaxError.at(
            "no plain Python 3 for this construct (tuple parameters): unpack the tuple in "
            "the body, or run the deck with solfec-py as it is", filename, text, line, column)
    used = {str(t) for t in tree.scan_values(lambda v: isinstance(v, Token) and v.type == "NAME")}
    parts = [f"import {m}" for m in sorted(translator.imports)]
    if used & set(NAMES) and "solfec" not in used:
        parts.insert(0, "from solfec import *")
    if not parts:
        return out
    return _insert_header(out, tree, "; ".join(parts) + "  # added by solfec-py translate")


def _insert_header(out: str, tree, header: str) -> str:
    """`out` with the line `header` before the first statement that is not the docstring
    or a `from __future__` import."""
    from lark import Token

    from solfec_py.lang.legacy.edits import first_token

    line = None
    for i, stmt in enumerate(s for s in tree.children if not isinstance(s, Token)):
        if not _is_preamble(stmt, i == 0):
            line = first_token(stmt).line
            break
    lines = out.split("\n")
    at = line - 1 if line is not None else len(lines) - (1 if lines[-1] == "" else 0)
    lines.insert(at, header)
    return "\n".join(lines)


def _with_header(out: str, tree, used: set[str]) -> str:
    """`out` with an import line for the helpers and Python 2 builtins it uses, placed
    before the first statement that is not the docstring or a `from __future__` import."""
    from lark import Token

    from solfec_py.lang.legacy.shims import BUILTIN_NAMES

    names = set(used) | {str(t) for t in tree.scan_values(
        lambda v: isinstance(v, Token) and v.type == "NAME" and v in BUILTIN_NAMES)}
    printing = bool(names & {"_p2_print", "_p2_print_to"})
    if printing:
        names.add("_p2_flushline")
    header = ("from solfec_py.lang.legacy_runtime import " + ", ".join(sorted(names))
              + "  # Python 2 semantics (added by solfec-py translate)") if names else \
        "import solfec_py.lang.legacy_runtime  # Python 2 module names (solfec-py translate)"
    text = _insert_header(out, tree, header)
    if printing:
        text += ("" if text.endswith("\n") else "\n") + FLUSH_LINE
    return text


def _is_preamble(stmt, first: bool) -> bool:
    """A docstring (first statement only) or a line of `from __future__` imports."""
    from lark import Token, Tree

    if stmt.data != "simple_stmt":
        return False
    for small in (k for k in stmt.children if isinstance(k, Tree)):
        kids = small.children
        doc = first and small.data == "expr_stmt" and all(
            isinstance(k, Token) and k.type == "STRING" for k in kids)
        future = small.data == "import_from" and isinstance(kids[1], Tree) and \
            "".join(kids[1].children) == "__future__"
        if not (doc or future):
            return False
    return True


def detect_and_prepare(source: str, filename: str, mode: str = "auto", *,
                       program: bool = True) -> tuple[str, bool]:
    """(Python 3 source, whether it was translated from Python 2) for a deck.

    mode 'auto': a deck that compiles as Python 3 runs as it is, otherwise it is
    translated; when it is neither dialect, the error of the dialect that got further into
    the file is raised (ties go to Python 2).  'off': Python 3 only.  'on': always
    translate.  A translated deck gets one extra last line, `_p2_flushline()`, which ends
    a pending `print x,` line as Python 2 did at exit (all earlier lines keep numbers);
    a module (`program=False`) does not.
    """
    if mode not in MODES:
        raise InputError(f"legacy mode must be one of {sorted(MODES)}, got {mode!r}")
    text = _checked_text(source, filename)
    if mode in ("auto", "off"):
        err = _py3_error(text, filename)
        if err is None:
            return text, False
        if mode == "off":
            raise LegacySyntaxError.from_syntax_error(err, filename, text)
        try:
            out = translate(text, filename)
        except LegacySyntaxError as legacy_err:
            raise _further(err, legacy_err, filename, text) from None
    else:
        out = translate(text, filename)
    if not program:
        return out, True
    return out + ("\n" if out and not out.endswith("\n") else "") + FLUSH_LINE, True


def _further(py3: SyntaxError, py2: LegacySyntaxError, filename: str, text: str):
    if py3.lineno and (py3.lineno, py3.offset or 0) > (py2.lineno or 0, py2.offset or 0):
        return LegacySyntaxError.from_syntax_error(py3, filename, text)
    return py2


def prepare_for_exec(source: str, filename: str) -> tuple[str, bool]:
    """For `exec`/`execfile` inside a legacy deck: the code is Python 2 (translated even
    when it also compiles as Python 3, so `7/2` stays 3); Python 3-only code still runs."""
    text = _checked_text(source, filename)
    try:
        return translate(text, filename), True
    except LegacySyntaxError:
        if compiles_as_python3(text, filename):
            return text, False
        raise
