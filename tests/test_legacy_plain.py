"""`solfec-py translate` writes plain Python 3 (lang.legacy.plain): no helper imports, 2to3
style rewrites, integer divisions kept as `//`, syntax errors as `file:LINE:COL: message`;
the translated legacy decks of inputs/legacy run with plain `python`."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from solfec_py.cli import main
from solfec_py.lang.legacy import LegacySyntaxError, translate

from conftest import INPUTS, REPO

LEGACY = os.path.join(INPUTS, "legacy")
DECKS = sorted(f for f in os.listdir(LEGACY) if f.endswith("_py2.py"))


def plain(source: str) -> str:
    return translate(source, "t.py", plain=True)


@pytest.mark.parametrize("source, expected", [
    ("print 'a', 1\n", "print('a', 1)\n"),
    ("print 'a',\n", "print('a', end=' ')\n"),
    ("print\n", "print()\n"),
    ("print ('x')\n", "print ('x')\n"),
    ("import sys\nprint >>sys.stderr, 'e', 2\n", "import sys\nprint('e', 2, file=sys.stderr)\n"),
    ("x = range(3)\nfor i in xrange(3): pass\n", "x = list(range(3))\nfor i in range(3): pass\n"),
    ("for i in range(3): pass\n", "for i in range(3): pass\n"),
    ("d = {}\nk = d.keys()\nfor v in d.values(): pass\n",
     "d = {}\nk = list(d.keys())\nfor v in d.values(): pass\n"),
    ("d = {}\nd.has_key(1)\nd.iteritems()\n", "d = {}\nd.__contains__(1)\nd.items()\n"),
    ("it = iter([1])\nit.next()\n", "it = iter([1])\nit.__next__()\n"),
    ("m = map(abs, [1])\n", "m = list(map(abs, [1]))\n"),
    ("exec 'x = 1' in g\n", "exec('x = 1', g)\n"),
    ("execfile('a.py')\n", "exec(open('a.py').read())\n"),
    ("raise ValueError, 'bad'\n", "raise ValueError('bad')\n"),
    ("try:\n  pass\nexcept IOError, e:\n  pass\n", "try:\n  pass\nexcept IOError as e:\n  pass\n"),
    ("n = 7\nm = n / 2\nf = n / 2.0\ng = 1.0 / n\n", "n = 7\nm = n // 2\nf = n / 2.0\ng = 1.0 / n\n"),
    ("x = 1\nx = 0.5\ny = x / 2\n", "x = 1\nx = 0.5\ny = x / 2\n"),   # not surely an int
    ("for i in range(4):\n  h = i / 2\n", "for i in range(4):\n  h = i // 2\n"),
    ("file = 'a'\nprint file\n", "file = 'a'\nprint(file)\n"),        # the deck's own name
    ("s = unicode(1)\nl = long(2)\n", "s = str(1)\nl = int(2)\n"),
    ("import sys\nsys.maxint\n", "import sys\nsys.maxsize\n"),
    ("a = `1`\nb = 1 <> 2\nc = 0777\n", "a = repr(1)\nb = 1 != 2\nc = 0o777\n"),
    ("l = []\nl.sort(cmp=lambda a, b: 0)\n",
     "import functools  # added by solfec-py translate\n"
     "l = []\nl.sort(key=functools.cmp_to_key(lambda a, b: 0))\n"),
])
def test_plain_translation(source, expected):
    out = plain(source)
    assert out == expected
    compile(out, "t.py", "exec")
    assert "_p2_" not in out and "legacy_runtime" not in out


def test_solfec_names_get_the_solfec_import():
    out = plain("sol = SOLFEC('DYNAMIC', 1E-3, 'out')\nprint sol.time\n")
    assert out.splitlines()[0] == "from solfec import *  # added by solfec-py translate"


def test_tuple_parameters_have_no_plain_spelling():
    with pytest.raises(LegacySyntaxError, match="tuple parameters") as err:
        plain("def f(a, (b, c)):\n  return b\n")
    assert err.value.lineno == 1


def test_translate_syntax_error_reads_file_line_col(tmp_path, capsys):
    deck = tmp_path / "bad.py"
    deck.write_text("x = 1\nprint 'a' +\n")
    assert main(["translate", str(deck)]) == 1
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"{deck}:2:") and "SyntaxError" in first
    line, col = first[len(str(deck)) + 1:].split(":")[:2]
    assert line == "2" and col.isdigit()


@pytest.mark.slow
@pytest.mark.parametrize("name", DECKS)
def test_translated_legacy_deck_runs_with_plain_python(name, tmp_path, capsys):
    """The translation runs with `python` alone and prints what the Python 3 twin prints
    (up to the space a trailing-comma print leaves before the newline)."""
    target = tmp_path / name
    assert main(["translate", os.path.join(LEGACY, name), "-o", str(target)]) == 0
    text = target.read_text()
    assert "_p2_" not in text and "legacy_runtime" not in text
    env = dict(os.environ, PYTHONPATH=REPO, MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, str(target)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert main(["--no-progress", os.path.join(LEGACY, name.replace("_py2", "_py3"))]) == 0
    twin = capsys.readouterr().out
    strip = lambda s: [ln.rstrip() for ln in s.splitlines()]   # noqa: E731
    assert strip(run.stdout) == strip(twin)
