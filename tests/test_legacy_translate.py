"""The translation itself: layout kept (comments, unchanged lines, tabs expanded to the
columns Python 2 read), the standalone form written by `solfec-py translate`, the
print_function variant, exec/execfile sharing the deck's globals, Python 2 module names,
and the packaged grammar.  Reference: issue 3, Solfec-1.0 user manual, the deck namespace; docs/legacy.md.
"""
from __future__ import annotations

import builtins
import contextlib
import io
import os
import re
import subprocess
import sys

import pytest

from solfec_py.lang import legacy

HERE = os.path.dirname(os.path.abspath(__file__))


def run(code: str, with_helpers: bool = True) -> tuple[str, dict]:
    ns = {"__name__": "__main__", "__builtins__": builtins}
    if with_helpers:
        ns.update(legacy.legacy_builtins())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "deck.py", "exec", dont_inherit=True), ns)
    return out.getvalue(), ns


def test_grammar_ships_inside_the_package():
    from importlib import resources

    grammar = resources.files("solfec_py") / "grammar" / "python2.lark"
    assert grammar.is_file()
    assert "print_stmt" in grammar.read_text(encoding="utf-8")


def test_grammar_is_found_in_the_source_tree_too(monkeypatch, tmp_path):
    """Without the packaged copy (e.g. a checkout where the solfec_py/grammar link is not
    followed) the parser reads grammar/python2.lark of the source tree."""
    from solfec_py.lang.legacy import parse as legacy_parse

    packaged = legacy_parse._grammar_path()
    assert packaged.is_file()
    monkeypatch.setattr(legacy_parse.resources, "files", lambda package: tmp_path)
    source_tree = legacy_parse._grammar_path()
    assert source_tree.is_file() and source_tree.parent.name == "grammar"
    assert source_tree.read_text(encoding="utf-8") == packaged.read_text(encoding="utf-8")


# `solfec-py translate` output of a Python 2 deck, written before the translator moved into
# the solfec_py/lang/legacy/ package: such files import solfec_py.lang.legacy_runtime.
OLD_TRANSLATIONS = {
    "helpers": (
        "from solfec_py.lang.legacy_runtime import _p2_attr, _p2_div, _p2_exec, _p2_flushline,"
        " _p2_print, map, range, reduce, xrange  # Python 2 semantics (added by solfec-py translate)\n"
        "import _solfec_py2_string as string\n"
        "d = {1: 2}\n"
        "for i in xrange(3):\n"
        "    _p2_print(_p2_div(i * 7, 2))\n"
        "_p2_print(_p2_attr(d, 'has_key')(1)); _p2_print(string.letters[:2]);"
        " _p2_print(reduce(lambda a, b: a + b, map(str, range(3)))); _p2_print()\n"
        "_p2_exec(\"x = 9 / 2\")\n"
        "_p2_print(x); _p2_print()\n"
        "_p2_flushline()\n",
        # Python 2: 0*7/2, 7/2, 14/2 floor; has_key; string.letters; '0'+'1'+'2'; 9/2 floor
        "0 3 7 True ab 012\n4\n"),
    "module names only": (
        "import solfec_py.lang.legacy_runtime  # Python 2 module names (solfec-py translate)\n"
        "import _solfec_py2_string as string\n"
        "print(string.letters[:3], string.uppercase[-1])\n",
        "abc Z\n"),
}


@pytest.mark.parametrize("name", sorted(OLD_TRANSLATIONS))
def test_translations_written_before_the_package_move_still_run(name, tmp_path):
    code, expected = OLD_TRANSLATIONS[name]
    deck = tmp_path / "old.py"
    deck.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(deck)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected


def test_comments_and_plain_lines_are_kept():
    source = "# header comment\nx = 1  # keep me\nprint x  # and me\ny = [1,  # inside\n  2]\n"
    out = legacy.translate(source)
    lines = out.split("\n")
    assert lines[0] == "# header comment"
    assert lines[1] == "x = 1  # keep me"
    assert lines[2].endswith("# and me")
    assert lines[3] == "y = [1,  # inside"


def test_tabs_become_the_columns_python2_read():
    source = "if 1:\n        a = 1\n\tb = 2\n    \tc = a + b\nprint c\n"
    out = legacy.translate(source)
    assert "\t" not in out
    assert out.split("\n")[1:4] == ["        a = 1", "        b = 2", "        c = a + b"]
    assert run(out)[0] == "3\n"


def test_tabs_inside_strings_are_not_touched():
    source = "s = '''a\n\tb'''\nprint len(s)\n"
    out = legacy.translate(source)
    assert "\tb'''" in out and run(out)[0] == "4\n"


def test_standalone_translation_runs_without_injected_names():
    source = ('"""A deck."""\nfrom __future__ import absolute_import\n'
              "import string\nprint 'letters', string.letters[:3],\nx = xrange(3)\n"
              "print len(range(4)), 7 / 2, `x[1]`,\n")
    code = legacy.translate(source, "deck.py", standalone=True)
    lines = code.split("\n")
    assert lines[0] == '"""A deck."""'
    assert lines[1] == "from __future__ import absolute_import"
    assert lines[2].startswith("from solfec_py.lang.legacy_runtime import ")
    assert lines[3] == "import _solfec_py2_string as string"
    imported = set(re.findall(r"\w+", lines[2].split(" import ", 1)[1].split("#")[0]))
    assert {"_p2_print", "_p2_div", "xrange", "range", "_p2_flushline"} <= imported
    assert not legacy.compiles_as_python3(source, "deck.py")
    assert legacy.compiles_as_python3(code, "deck.py")
    out, _ = run(code, with_helpers=False)
    assert out == "letters abc 4 3 1\n"


def test_print_function_future_import_selects_the_function_grammar():
    source = ("from __future__ import print_function\nprint('a', 'b', sep='-')\n"
              "x = 7 / 2\nprint(x)\nexec 'print(`x`)'\n")
    code, is_legacy = legacy.detect_and_prepare(source, "deck.py")
    assert is_legacy
    assert run(code)[0] == "a-b\n3\n3\n"


def test_python3_keywords_used_as_names_are_renamed():
    out, ns = run(legacy.translate("async = 2\nawait = async * 3\nprint async, await\n"))
    assert out == "2 6\n" and ns["async_"] == 2


def test_exec_and_execfile_share_the_deck_globals(tmp_path):
    lib = tmp_path / "library.py"
    lib.write_text("def half(n):\n    return n / 2\nprint 'library loaded',\n")
    source = (f"execfile({str(lib)!r})\nprint half(7)\n"
              f"f = open({str(lib)!r})\nexec f\nprint half(9)\n"
              "exec 'nine = half(9)' in globals()\n")
    out, ns = run(legacy.translate(source))
    assert out == "library loaded 3\nlibrary loaded 4\n"
    assert ns["nine"] == 4


def test_execfile_runs_python3_files_too(tmp_path):
    lib = tmp_path / "py3lib.py"
    lib.write_text("def f():\n    print('py3', end='!')\n")
    out, _ = run(legacy.translate(f"execfile({str(lib)!r})\nf()\n"))
    assert out == "py3!"


def test_gui_module_import_is_a_clear_import_error():
    from solfec_py.lang.legacy.shims import LegacyImportError

    with pytest.raises(LegacyImportError, match="Tkinter.*without a GUI"):
        run(legacy.translate("import Tkinter\n"))
    assert issubclass(LegacyImportError, ImportError)


def test_legacy_builtins_are_fresh_each_time():
    first = legacy.legacy_builtins()
    first["xrange"] = None
    assert legacy.legacy_builtins()["xrange"] is range
    assert {"_p2_div", "_p2_print", "execfile", "raw_input", "reduce", "cmp", "apply",
            "unicode", "basestring", "long", "file", "map", "filter", "zip",
            "range"} <= set(legacy.legacy_builtins())


def test_attribute_targets_are_not_rewritten():
    """`d.keys = ...` assigns the attribute; only reads go through the Python 2 fixes."""
    source = ("class O: pass\no = O()\no.keys = 5\no.items = []\no.items += [1]\n"
              "print o.keys, o.items, {'a': 1}.keys()\n")
    assert run(legacy.translate(source))[0] == "5 [1] ['a']\n"


def test_flush_softspace_ends_a_pending_line():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(legacy.translate("print 'x',\n"), "d", "exec"), legacy.legacy_builtins())
        legacy.flush_softspace()
        legacy.flush_softspace()   # only once
    assert out.getvalue() == "x\n"


def test_translation_of_the_benchmark_deck_keeps_its_line_count():
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
    try:
        from translate_legacy import generated_deck
    finally:
        sys.path.pop(0)
    deck = generated_deck(600)
    out = legacy.translate(deck, "bench.py")
    assert out.count("\n") == deck.count("\n")
    assert legacy.compiles_as_python3(out, "bench.py")
