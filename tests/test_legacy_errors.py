"""Dialect detection and bad input for legacy decks: files that are neither Python 2 nor
Python 3, empty and binary files, pathological nesting (clear error, quickly, never a
hang or a RecursionError), the `--legacy` modes, and the wording/caret of syntax errors.
Reference: issue 3 (acceptance: bad input), docs/legacy.md.
"""
from __future__ import annotations

import time

import pytest

from solfec_py.errors import InputError, SolfecError
from solfec_py.lang import legacy
from solfec_py.lang.legacy import LegacySyntaxError

# Issue 3: "each a clear error in under 5 s"; these inputs take well under a second here.
TIME_LIMIT = 5.0


def error_of(source: str, mode: str = "auto") -> LegacySyntaxError:
    with pytest.raises(LegacySyntaxError) as info:
        legacy.detect_and_prepare(source, "deck.py", mode)
    return info.value


def caret_column(err: LegacySyntaxError) -> int:
    """1-based column of the caret in str(err) (the line after the source line)."""
    lines = str(err).split("\n")
    assert lines[-2].strip() == err.text.strip()
    return len(lines[-1]) - len("    ")


def test_error_type_and_attributes():
    err = error_of("print 'ok'\nx = = 1\n")
    assert isinstance(err, SyntaxError) and isinstance(err, SolfecError)
    assert (err.filename, err.lineno, err.offset) == ("deck.py", 2, 5)
    assert err.text == "x = = 1"
    assert err.msg == "invalid syntax"
    assert caret_column(err) == 5          # under the second '='
    assert "deck.py, line 2, column 5" in err.describe()


@pytest.mark.parametrize("source,line,column,words", [
    ("print 'a'\nx = f(1, 2\ny = 3\n", 2, 6, "missing closing parenthesis"),
    ("print 'a'\nx = [1, 2\n", 2, 5, "missing closing bracket"),
    ("print 'a'\nx = {1: 2\n", 2, 5, "missing closing brace"),
    ("print 'a'\nx = 1)\n", 2, 6, "unmatched closing parenthesis"),
    ("print 'a'\nx = (1]\n", 2, 7, "does not match"),
    ("print 'a'\nif x\n    pass\n", 2, 5, "missing ':'"),
    ("print 'a'\ndef f()\n    pass\n", 2, 8, "missing ':'"),
    ("print 'a'\nx = [1 2]\n", 2, 8, "missing comma"),
    ("print 'a'\nif x = 1:\n    pass\n", 2, 6, "did you mean '=='"),
    ("print 'a'\nx = 1 +\n", 2, 8, "operand is missing"),
    ("print 'a'\nprint('a', end='')\n", 2, 15, "Python 3 print() call"),
    ("print 'a'\nelse:\n    pass\n", 2, 1, "'else' does not follow"),
    ("print 'a'\nif x:\npass\n", 3, 1, "expected an indented block"),
    ("print 'a'\n\n  x = 1\n", 3, 3, "unexpected indent"),
    ("  x = 1\nprint 'a'\n", 1, 3, "unexpected indent"),
    ("print 'a'\nif x:\n        a = 1\n    b = 2\n", 4, 5, "unindent does not match"),
    ("print 'a'\nx = 'abc\n", 2, 5, "EOL while scanning string literal"),
    ("print 'a'\nx = '''abc\n", 2, 5, "EOF while scanning triple-quoted"),
    ("print 'a'\nx = $\n", 2, 5, "invalid character '$'"),
    ("print 'a'\nx = print\n", 2, 5, "'print' is a statement"),
    ("print 'a'\nx = 08\n", 2, 5, "octal"),
    ("print 'a'\ntry:\n    pass\nx = 1\n", 4, 1, "needs an 'except' or 'finally'"),
    ("print 'a'\ndef f(*a, b): pass\n", 2, 11, "keyword-only parameters are Python 3"),
    ("print 'a'\nf(a=1, 2)\n", 2, 8, "non-keyword arg after keyword arg"),
    ("print 'a'\nreturn 5\n", 2, 1, "'return' outside function"),
])
def test_neither_dialect_gives_a_worded_error_with_caret(source, line, column, words):
    start = time.perf_counter()
    err = error_of(source)
    assert time.perf_counter() - start < TIME_LIMIT
    assert (err.lineno, err.offset) == (line, column), err.describe()
    assert words in err.msg
    assert caret_column(err) == column
    assert "Token(" not in str(err) and "Expected one of" not in str(err)


def test_mixed_file_reports_the_dialect_that_got_further():
    # valid Python 3 up to line 3, where a print statement appears
    source = "def f():\n    print('a', end='')\n    print 'b'\n"
    err = error_of(source)
    assert err.lineno == 3 and "print" in err.msg
    # valid Python 2 up to line 3, where an f-string appears
    err = error_of("print 'a'\nx = 1\ny = f'{x}'\n")
    assert err.lineno == 3


def test_empty_and_blank_files_are_empty_programs():
    assert legacy.detect_and_prepare("", "e.py") == ("", False)
    assert legacy.detect_and_prepare("\n\n# only a comment\n", "e.py")[1] is False
    assert legacy.translate("") == ""
    code, is_legacy = legacy.detect_and_prepare("", "e.py", "on")
    assert is_legacy
    exec(compile(code, "e.py", "exec"), legacy.legacy_builtins())


def test_binary_file_is_refused_clearly():
    data = bytes(range(256)) * 4
    err = error_of(data.decode("utf-8", "surrogateescape"))
    assert "binary" in err.msg and err.lineno == 1


def test_undecodable_text_is_refused_unless_its_encoding_is_declared():
    err = error_of(b"print 'caf\xe9'\n".decode("utf-8", "surrogateescape"))
    assert "not UTF-8" in err.msg and "0xe9" in err.msg and err.lineno == 1
    declared = b"# -*- coding: latin-1 -*-\nprint 'caf\xe9'\n".decode("utf-8", "surrogateescape")
    code, is_legacy = legacy.detect_and_prepare(declared, "deck.py")
    assert is_legacy and "caf\u00e9" in code


@pytest.mark.parametrize("label,source", [
    ("10 MB of nested parentheses", "(" * 5_000_000 + ")" * 5_000_000),
    ("10 MB of unclosed parentheses", "print 1\n" + "(" * 10_000_000),
    ("10 MB of nested lists", "print 1\nx = " + "[" * 5_000_000 + "]" * 5_000_000 + "\n"),
    ("a million unary minus signs", "print 1\nx = " + "-" * 1_000_000 + "1\n"),
    ("2000 nested lambdas", "print 1\nf = " + "lambda: " * 2000 + "1\n"),
    ("150 levels of indentation",
     "print 1\n" + "".join(" " * i + "if 1:\n" for i in range(150)) + " " * 150 + "pass\n"),
])
@pytest.mark.parametrize("mode", ["auto", "on"])
def test_pathological_input_fails_fast_without_recursion_error(label, source, mode):
    start = time.perf_counter()
    err = error_of(source, mode)   # a RecursionError or MemoryError would fail here
    assert time.perf_counter() - start < TIME_LIMIT
    assert any(w in err.msg for w in ("nested", "too many levels", "too deeply")), err.msg
    assert err.lineno is not None


def test_brackets_inside_strings_do_not_count_as_nesting():
    source = "print 'a'\nx = '" + "(" * 300 + "'\n# " + "[" * 300 + "\n"
    code, is_legacy = legacy.detect_and_prepare(source, "deck.py")
    assert is_legacy and code.count("(" * 300) == 1


def test_mode_off_reports_python3_error_with_caret():
    err = error_of("x = 1\nprint 'old'\n", "off")
    assert err.lineno == 2 and "print" in err.msg
    assert caret_column(err) == err.offset


def test_mode_on_translates_code_valid_in_both_dialects():
    code, is_legacy = legacy.detect_and_prepare("x = 7 / 2\n", "deck.py", "on")
    ns = legacy.legacy_builtins()
    exec(compile(code, "deck.py", "exec"), ns)
    assert is_legacy and ns["x"] == 3


def test_mode_auto_keeps_python3_decks_as_they_are():
    source = "x = 7 / 2\nprint(x, end='')\n"
    assert legacy.detect_and_prepare(source, "deck.py") == (source, False)
    assert legacy.compiles_as_python3(source, "deck.py")
    assert not legacy.compiles_as_python3("print 'a'\n", "deck.py")


def test_unknown_mode_is_an_input_error():
    with pytest.raises(InputError, match="'auto', 'off', 'on'.*'sometimes'"):
        legacy.detect_and_prepare("x = 1\n", "deck.py", "sometimes")


@pytest.mark.parametrize("source,words", [
    ("print 'a'\ntry:\n    pass\nexcept E, (a, b):\n    pass\n", "not a plain name"),
    ("def f((a, b)):\n    while a:\n        a -= 1\n    return b\nprint f((1, 2))\n",
     "tuple parameters"),
])
def test_valid_python2_that_cannot_be_translated_says_so(source, words):
    err = error_of(source)
    assert "cannot translate" in err.msg and words in err.msg
