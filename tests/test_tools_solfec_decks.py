"""tools/solfec_decks.py: the outcome of one deck run from its exit code and output, the
table, and the deck list of a tree (a survey tool, so only its pure parts are tested)."""
from __future__ import annotations

import importlib.util
import os

import pytest

from conftest import REPO

spec = importlib.util.spec_from_file_location("solfec_decks", os.path.join(REPO, "tools", "solfec_decks.py"))
decks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(decks)


@pytest.mark.parametrize("code, out, err, outcome", [
    (0, "Testing ... PASSED\n", "", "passed"),
    (0, "FAILED\n", "", "failed check"),
    (0, "", "", "ran"),
    (None, "", "", "ran"),
    (-9, "", "", "crash"),
    (1, "", "deck.py:3: NotAvailableError: BODY kind 'FINITE_ELEMENT' is not available", "not available"),
    (1, "", "Traceback...\nsolfec_py.errors.InputError: bad", "refused"),
    (1, "", "deck.py:1: SyntaxError: invalid syntax", "language"),
    (1, "", "ModuleNotFoundError: No module named 'x'", "language"),
    (1, "", "ZeroDivisionError: division by zero", "crash"),
    (1, "READ ERROR\n", "", "failed check"),
    (1, "usage: deck.py N\n", "", "exited"),
])
def test_classify(code, out, err, outcome):
    assert decks.classify(code, out, err)[0] == outcome


def test_table_counts_and_lists(tmp_path):
    rows = [{"deck": "a.py", "outcome": "passed", "detail": "", "seconds": 1.0},
            {"deck": "b.py", "outcome": "crash", "detail": "ZeroDivisionError: x", "seconds": 1.0}]
    text = decks.table(rows)
    assert "| passed | 1 |" in text and "| total | 2 |" in text and "b.py" in text
    for folder in ("inp", "tests/BM01", "out"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "inp" / "d.py").write_text("")
    (tmp_path / "tests" / "BM01" / "e.py").write_text("")
    (tmp_path / "out" / "f.py").write_text("")
    assert decks.decks(str(tmp_path)) == ["inp/d.py", "tests/BM01/e.py"]
