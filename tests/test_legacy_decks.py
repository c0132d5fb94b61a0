"""The legacy decks in inputs/legacy/ (Python 2, Solfec-1.0 style) run through solfec-py and
print exactly the same bytes as their Python 3 twins (issue 3 acceptance)."""
from __future__ import annotations

import os

import pytest

from solfec_py.cli import main

from conftest import INPUTS

LEGACY = os.path.join(INPUTS, "legacy")
PAIRS = sorted(f[:-len("_py2.py")] for f in os.listdir(LEGACY) if f.endswith("_py2.py"))


@pytest.mark.parametrize("name", PAIRS)
def test_legacy_deck_matches_python3_twin(name, capsys):
    assert main([os.path.join(LEGACY, name + "_py2.py")]) == 0, capsys.readouterr().err
    old = capsys.readouterr().out
    assert main([os.path.join(LEGACY, name + "_py3.py")]) == 0, capsys.readouterr().err
    new = capsys.readouterr().out
    assert old == new
    assert len(old.splitlines()) >= 1 and "%" not in old


def test_three_legacy_decks_present():
    assert len(PAIRS) >= 3
