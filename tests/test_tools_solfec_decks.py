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
    (0, "", "", "ran to end"),
    (None, "", "", "still running"),
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


def test_known_stops_and_docs_block(tmp_path):
    # a stopped deck named in KNOWN_STOPS carries its reason; one not named carries none;
    # a deck that runs carries no reason even when a pattern would match it
    assert "PARMEC" in decks.known_stop("examples/hybrid-solver2/hs2-parmec.py")
    assert decks.known_stop("inp/some-new-deck.py") == ""
    rows = [{"deck": "inp/16-bars.py", "outcome": "refused", "detail": "InputTypeError: a | b",
             "seconds": 2.0},
            {"deck": "inp/new.py", "outcome": "crash", "detail": "ZeroDivisionError: x", "seconds": 1.0},
            {"deck": "examples/hybrid-solver2/hs2-parmec.py", "outcome": "still running", "detail": "",
             "seconds": 60.0, "limit": 60.0}]
    doc = tmp_path / "legacy.md"
    doc.write_text(f"intro\n{decks.DOCS_BEGIN}\nold table\n{decks.DOCS_END}\nafter\n")
    decks.write_docs(str(doc), rows, 60.0)
    text = doc.read_text()
    assert text.startswith("intro\n") and text.endswith("after\n") and "old table" not in text
    line = {ln.split("`")[1]: ln for ln in text.splitlines() if ln.startswith("| `")}
    assert "a \\| b" in line["inp/16-bars.py"] and "`modal`" in line["inp/16-bars.py"]
    assert line["inp/new.py"].endswith("ZeroDivisionError: x |")
    assert "still running at 60 s" in line["examples/hybrid-solver2/hs2-parmec.py"]
    assert "PARMEC" not in line["examples/hybrid-solver2/hs2-parmec.py"]
    (tmp_path / "plain.md").write_text("no block")
    with pytest.raises(SystemExit):
        decks.write_docs(str(tmp_path / "plain.md"), rows, 60.0)


def test_chains_and_deck_roots(tmp_path):
    # a deck that reads another's results runs right after it; the others alone
    todo = ["inp/a.py", "inp/devel/rigid-to-fem-1.py", "inp/devel/rigid-to-fem-2.py", "inp/z.py"]
    assert decks.chains(todo) == [["inp/a.py"], ["inp/devel/rigid-to-fem-1.py", "inp/devel/rigid-to-fem-2.py"],
                                  ["inp/z.py"]]
    assert decks.chains(["inp/devel/rigid-to-fem-2.py"]) == [["inp/devel/rigid-to-fem-2.py"]]
    # each deck root sees the scratch tree's entries and an empty out/ of its own
    (tmp_path / "inp").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "old").write_text("")
    one, two = decks.deck_root(str(tmp_path)), decks.deck_root(str(tmp_path))
    for root in (one, two):
        assert sorted(os.listdir(root)) == ["inp", "out"] and os.listdir(os.path.join(root, "out")) == []
        assert os.path.realpath(os.path.join(root, "inp")) == os.path.realpath(tmp_path / "inp")
