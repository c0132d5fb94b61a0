"""Legacy (Python 2) decks run through the translator: the corpus in tests/legacy/ (each
program's stdout worked out by hand from Python 2.7 semantics and stored beside it), the
division table, and line preservation.  Reference: issue 3, docs/legacy.md.
"""
from __future__ import annotations

import builtins
import contextlib
import io
import os
import traceback

import pytest

from solfec_py.lang import legacy

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "legacy")
PROGRAMS = sorted(f[:-3] for f in os.listdir(CORPUS) if f.endswith(".py"))


def run_translated(code: str, path: str) -> bytes:
    """stdout bytes of translated code run as the deck runner does (fresh globals plus
    legacy_builtins()); UTF-8 as on a UTF-8 terminal."""
    ns = {"__name__": "__main__", "__file__": path, "__builtins__": builtins}
    ns.update(legacy.legacy_builtins())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, path, "exec", dont_inherit=True), ns)
    return out.getvalue().encode("utf-8")


def test_corpus_has_forty_programs_with_expected_output():
    assert len(PROGRAMS) >= 40
    for name in PROGRAMS:
        assert os.path.isfile(os.path.join(CORPUS, name + ".out")), name


@pytest.mark.parametrize("name", PROGRAMS)
def test_corpus_program_prints_python2_bytes(name):
    path = os.path.join(CORPUS, name + ".py")
    with open(path, "rb") as handle:
        source = handle.read().decode("utf-8", "surrogateescape")
    with open(os.path.join(CORPUS, name + ".out"), "rb") as handle:
        expected = handle.read()
    code, is_legacy = legacy.detect_and_prepare(source, path, "auto")
    assert is_legacy, "every corpus program uses Python-2-only syntax"
    assert run_translated(code, path) == expected


# ------------------------------------------------------------------ division table
# Expected values from the Python 2.7 Language Reference §5.6: "plain or long integer
# division yields an integer ... the result is that of mathematical division with the
# 'floor' function applied"; any float operand gives true division.  `//` is floor
# division in both dialects.  The type is checked as well as the value (exact: these are
# small integers and dyadic fractions, no rounding involved).
DIVISION_TABLE = [
    ("ints", "result = 7 / 2", 3),
    ("negative numerator", "result = -7 / 2", -4),
    ("negative denominator", "result = 7 / -2", -4),
    ("both negative", "result = -7 / -2", 3),
    ("exact", "result = 6 / 3", 2),
    ("zero numerator", "result = 0 / 5", 0),
    ("long literal", "result = 10L / 4", 2),
    ("big ints", "result = (2 ** 70 + 1) / 2", 2 ** 69),
    ("bool", "result = True / 2", 0),
    ("float numerator", "result = 7.0 / 2", 3.5),
    ("float denominator", "result = 7 / 2.0", 3.5),
    ("negative float", "result = -7 / 2.0", -3.5),
    ("mixed chain", "result = 7 / 2 * 2.0", 6.0),
    ("float first in chain", "result = 7 * 1.0 / 2", 3.5),
    ("chained ints", "result = 100 / 7 / 2", 7),
    ("parenthesised", "result = 1 + (9 / 2) / 2", 3),
    ("floor operator", "result = 7 // 2", 3),
    ("floor operator float", "result = 7.5 // 2", 3.0),
    ("complex", "result = (1 + 2j) / 2", 0.5 + 1j),
    ("in-place int", "x = 7\nx /= 2\nresult = x", 3),
    ("in-place negative", "x = -7\nx /= 2\nresult = x", -4),
    ("in-place float", "x = 7.0\nx /= 2\nresult = x", 3.5),
    ("in-place by float", "x = 7\nx /= 2.0\nresult = x", 3.5),
    ("in-place item", "a = [9, 1]\na[0] /= 2\nresult = a[0]", 4),
    ("in-place attribute", "class K: pass\nk = K()\nk.v = 9\nk.v /= 2\nresult = k.v", 4),
    ("in-place dict item", "d = {'n': -9}\nd['n'] /= 2\nresult = d['n']", -5),
    ("default argument", "def f(a=7/2):\n    return a\nresult = f()", 3),
    ("default float", "def f(a=7/2.0):\n    return a\nresult = f()", 3.5),
    ("lambda default", "result = (lambda a=-7/2: a)()", -4),
    ("lambda body", "result = (lambda x: x / 2)(5)", 2),
    ("lambda body float", "result = (lambda x: x / 2)(5.0)", 2.5),
    ("class body", "class K:\n    half = 9 / 2\nresult = K.half", 4),
    ("comprehension", "result = [i / 2 for i in (3, 4, -3)]", [1, 2, -2]),
    ("generator", "result = sum(i / 2 for i in (3, 5))", 3),
    ("future import", "from __future__ import division\nresult = 7 / 2", 3.5),
    ("future import in-place", "from __future__ import division\nx = 7\nx /= 2\nresult = x",
     3.5),
]


@pytest.mark.parametrize("label,source,expected", DIVISION_TABLE,
                         ids=[row[0] for row in DIVISION_TABLE])
def test_division_table(label, source, expected):
    ns = {"__builtins__": builtins}
    ns.update(legacy.legacy_builtins())
    exec(compile(legacy.translate(source), "<table>", "exec", dont_inherit=True), ns)
    assert ns["result"] == expected
    assert type(ns["result"]) is type(expected)


def test_division_by_zero_raises_as_in_python2():
    ns = legacy.legacy_builtins()
    for source in ("result = 1 / 0", "result = 1.0 / 0", "x = 1\nx /= 0"):
        with pytest.raises(ZeroDivisionError):
            exec(compile(legacy.translate(source), "<z>", "exec", dont_inherit=True), dict(ns))


def test_numpy_integer_arrays_divide_as_python2_numpy():
    """numpy under Python 2 applied classic division to integer arrays: "when both x1 and
    x2 are of an integer type, divide will behave like floor_divide" (numpy.divide docs);
    `/=` works in place on the same array, slice targets included."""
    np = pytest.importorskip("numpy")
    source = ("a = numpy.array([7, -7])\nb = a / 2\nc = a / 2.0\nsame = a\na /= 2\n"
              "m = numpy.array([8, 9, 10])\nm[1:] /= 3\n")
    ns = {"numpy": np}
    ns.update(legacy.legacy_builtins())
    exec(compile(legacy.translate(source), "<np>", "exec", dont_inherit=True), ns)
    assert ns["b"].tolist() == [3, -4] and ns["b"].dtype.kind == "i"
    assert ns["c"].tolist() == [3.5, -3.5]
    assert ns["a"] is ns["same"] and ns["a"].tolist() == [3, -4]
    assert ns["m"].tolist() == [8, 3, 3]


# ------------------------------------------------------------------ line preservation
LINE_DECK = '''\
import sys
print 'multi', \\
    'line',
s = """text
over lines"""
def f(a, (b, c)):
\tx = 1
\treturn a / b
x = [1,
     2 / 1]
print >>sys.stderr, x,
exec "y = 1"
f(1, (0, 2))
'''


def test_translation_keeps_every_line_in_place():
    out = legacy.translate(LINE_DECK, "deck.py")
    src_lines, out_lines = LINE_DECK.split("\n"), out.split("\n")
    assert len(out_lines) == len(src_lines)
    # lines without Python 2 constructs come out unchanged
    for n in (1, 4, 5, 9):
        assert out_lines[n - 1] == src_lines[n - 1]


def test_error_is_reported_at_the_original_line():
    code, _ = legacy.detect_and_prepare(LINE_DECK, "deck.py")
    with pytest.raises(ZeroDivisionError) as info:
        run_translated(code, "deck.py")
    lines = [fr.lineno for fr in traceback.extract_tb(info.value.__traceback__)
             if fr.filename == "deck.py"]
    assert lines == [13, 8]   # the call on line 13, the division on line 8


# statements after which a raise can be inserted; several of them span lines
BODY = ["x = 1", "print 'a', \\", "    'b'", "s = '''one", "two'''", "y = (1 +",
        "     7 / 2)", "exec 'z = 1'", "print >>None, `x`, 0777,", "def g((a, b)):",
        "\treturn a", "w = g((1, 2))", "v = [k / 2 for k in 1, 2]"]
STATEMENT_STARTS = [1, 2, 4, 6, 8, 9, 10, 12, 13, 14]   # 1-based; 14 = after the last


@pytest.mark.parametrize("line", STATEMENT_STARTS)
def test_raise_on_line_n_is_reported_as_line_n(line):
    """`raise E, msg` inserted as line N of a deck full of multi-line Python 2 statements."""
    lines = BODY[:line - 1] + ["raise ValueError, 'here'"] + BODY[line - 1:]
    code, _ = legacy.detect_and_prepare("\n".join(lines) + "\n", "deck.py")
    with pytest.raises(ValueError, match="here") as info:
        run_translated(code, "deck.py")
    frames = [fr.lineno for fr in traceback.extract_tb(info.value.__traceback__)
              if fr.filename == "deck.py"]
    assert frames == [line]


def test_deck_runner_reports_legacy_error_line(tmp_path):
    """End to end through the deck runner: DeckFailure.line is the original line."""
    from solfec_py.lang import runner

    deck = tmp_path / "old_deck.py"
    deck.write_text("print 'start',\nn = 7 / 2\nif n <> 3:\n    print 'bad'\n"
                    "raise ValueError, 'line five'\n")
    with pytest.raises(runner.DeckFailure) as info:
        runner.run_deck(str(deck))
    assert info.value.line == 5
    assert "line five" in str(info.value.error)
