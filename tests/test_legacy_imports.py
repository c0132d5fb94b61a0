"""Python 2 modules imported by a legacy deck are translated on import (lang.legacy.imports)
and the translations cached (lang.legacy.cache); `sys.argv`, `time.clock` and `execfile`
while a deck runs.  The expected outputs are what Python 2.7 prints for the same files."""
from __future__ import annotations

import os
import sys
import textwrap

import pytest

from solfec_py.cli import main
from solfec_py.lang.legacy import cache

DECK = """\
import os, sys
sys.path.append(os.path.join(os.path.dirname(__file__), 'lib'))
from p2helpers import core
from p2helpers.core import area
import flat
print 'area', area(3, 3)
print 'ratio', core.ratio(1, 0), core.ratio(7, 2)
print 'flat', flat.TABLE.keys()
"""

INIT = "from core import ratio\n"          # implicit relative import (Python 2)

CORE = ("import base\n"                     # implicit relative: p2helpers.base
        "def ratio(a, b):\n"
        "    try:\n"
        "\treturn a / b\n"                 # a tab after four spaces: column 8 in Python 2
        "    except ZeroDivisionError, e:\n"
        "        print 'caught', e.__class__.__name__,\n"
        "        return None\n"
        "def area(a, b):\n"
        "    return base.half(a * b)\n")

BASE = "def half(x):\n    return x / 2\n"   # valid Python 3 too: a legacy deck's module is Python 2

FLAT = "TABLE = {'k': 1}\nprint 'flat imported'\n"

# Python 2.7 on the same files
EXPECTED = ("flat imported\narea 4\nratio caught ZeroDivisionError None 3\nflat ['k']\n")


def _tree(root):
    lib = root / "lib" / "p2helpers"
    lib.mkdir(parents=True)
    (root / "deck.py").write_text(DECK)
    (lib / "__init__.py").write_text(INIT)
    (lib / "core.py").write_text(CORE)
    (lib / "base.py").write_text(BASE)
    (root / "flat.py").write_text(FLAT)
    return root / "deck.py"


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "solfec-py" / "legacy"


def test_python2_package_imported_by_a_python2_deck(tmp_path, cache_home, capsys):
    deck = _tree(tmp_path / "d")
    assert main(["--no-progress", str(deck)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == EXPECTED
    # the helpers are forgotten after the run: a second run imports them again (from cache)
    assert not any(m.startswith("p2helpers") for m in sys.modules) and "flat" not in sys.modules
    entries = sorted(os.listdir(cache_home))
    assert len(entries) >= 5          # the deck and its four modules
    assert main(["--no-progress", str(deck)]) == 0
    assert capsys.readouterr().out == EXPECTED
    assert sorted(os.listdir(cache_home)) == entries   # nothing translated again


def test_cache_entry_follows_the_file(tmp_path, cache_home, capsys):
    deck = _tree(tmp_path / "d")
    assert main(["--no-progress", str(deck)]) == 0
    capsys.readouterr()
    flat = tmp_path / "d" / "flat.py"
    flat.write_text(FLAT.replace("'k'", "'changed'"))
    os.utime(flat, ns=(os.stat(flat).st_atime_ns, os.stat(flat).st_mtime_ns + 10**9))
    assert main(["--no-progress", str(deck)]) == 0
    assert capsys.readouterr().out == EXPECTED.replace("['k']", "['changed']")


def test_module_error_is_reported_at_the_module_line(tmp_path, cache_home, capsys):
    deck = _tree(tmp_path / "d")
    (tmp_path / "d" / "flat.py").write_text("TABLE = {}\nprint 'x' +\n")
    assert main(["--no-progress", str(deck)]) != 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'd' / 'flat.py'}:2" in err and "deck.py:5" in err


def test_python3_deck_imports_python2_module_only_when_it_is_not_python3(tmp_path, cache_home,
                                                                        capsys):
    root = tmp_path / "d"
    root.mkdir()
    (root / "p3mod.py").write_text("def f():\n    return 7 / 2\n")
    (root / "p2mod.py").write_text("def g():\n    print 'g', 7 / 2\n")
    (root / "deck.py").write_text("import p3mod, p2mod\nprint(p3mod.f())\np2mod.g()\n")
    assert main(["--no-progress", str(root / "deck.py")]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == "3.5\ng 3\n"


def test_sys_argv_time_clock_and_execfile(tmp_path, cache_home, capsys):
    root = tmp_path / "d"
    root.mkdir()
    (root / "inc.py").write_text("INCLUDED = 7 / 2\n")
    (root / "deck.py").write_text(textwrap.dedent("""\
        import sys, time
        print sys.argv[1:], NON_SOLFEC_ARGV()
        print type(time.clock()).__name__
        execfile(__file__.replace('deck.py', 'inc.py'))
        print INCLUDED
        """))
    argv_before = list(sys.argv)
    assert main(["--no-progress", str(root / "deck.py"), "alpha", "--beta", "-i", "2"]) == 0, \
        capsys.readouterr().err
    assert capsys.readouterr().out == "['alpha', '--beta'] ['alpha', '--beta']\nfloat\n3\n"
    assert sys.argv == argv_before


def test_python3_deck_gets_execfile_but_keeps_python3_builtins(tmp_path, cache_home, capsys):
    root = tmp_path / "d"
    root.mkdir()
    (root / "inc.py").write_text("X = 1\n")
    (root / "deck.py").write_text(
        "import sys\nexecfile(__file__.replace('deck.py', 'inc.py'))\n"
        "print(X, list(map(abs, [-1])), round(2.5), sys.argv[0] == __file__)\n")
    assert main(["--no-progress", str(root / "deck.py")]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == "1 [1] 2 True\n"
    assert main(["--no-progress", "--legacy", "off", str(root / "deck.py")]) != 0
    assert "execfile" in capsys.readouterr().err


def test_translation_version_changes_with_translator_sources():
    assert len(cache.translator_version()) == 20
    key = cache.text_key("print 1\n", "x.py", "auto")
    assert key != cache.text_key("print 2\n", "x.py", "auto")
