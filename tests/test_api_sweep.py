"""SWEEP_RESULT (solfec_py/api/sweep.py): argument checks, the local record outside a sweep,
the JSON lines written inside one, and a deck that reports values through the CLI."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from solfec_py.api import sweep as S
from solfec_py.cli import main
from solfec_py.errors import InputError, InputTypeError


def test_outside_a_sweep_values_are_kept_for_the_program_run(api, monkeypatch):
    monkeypatch.delenv(S.ENV, raising=False)
    assert api.SWEEP_RESULT("ke", 1.5) == 1.5
    assert api.SWEEP_RESULT("n", np.int64(3)) == 3 and isinstance(S.reported()["n"], int)
    assert api.SWEEP_RESULT("ok", np.bool_(True)) is True
    assert api.SWEEP_RESULT("state", "stands") == "stands"
    api.SWEEP_RESULT("ke", 2.5)                       # a later call replaces the value
    assert S.reported() == {"ke": 2.5, "n": 3, "ok": True, "state": "stands"}
    from solfec_py import session

    session.start()                                   # a new program run starts empty
    assert S.reported() == {}


def test_inside_a_sweep_every_call_appends_a_json_line(api, monkeypatch, tmp_path):
    path = tmp_path / "values.jsonl"
    monkeypatch.setenv(S.ENV, str(path))
    api.SWEEP_RESULT("x", 1)
    api.SWEEP_RESULT("y", float("inf"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0] == {"name": "x", "value": 1}
    assert lines[1]["name"] == "y" and math.isinf(lines[1]["value"])


@pytest.mark.parametrize("args, exc, words", [
    ((1, 2.0), InputTypeError, "'name' must be a string"),
    (("2ke", 2.0), InputError, "'name' must be an identifier"),
    (("k e", 2.0), InputError, "'name' must be an identifier"),
    (("status", 2.0), InputError, "'status' is a column of the sweep table"),
    (("ke", [1, 2]), InputTypeError, "'value' must be a number, a boolean or a string, got [1, 2] (list)"),
    (("ke", None), InputTypeError, "'value' must be"),
    (("ke", float("nan")), InputError, "got NaN"),
    (("ke",), InputTypeError, "SWEEP_RESULT: missing a required argument: 'value'"),
])
def test_bad_arguments_name_the_argument(api, args, exc, words):
    with pytest.raises(exc) as info:
        api.SWEEP_RESULT(*args)
    assert words in str(info.value)


def test_deck_error_at_the_report_line(tmp_path, capsys):
    deck = tmp_path / "r.py"
    deck.write_text("x = 1\nSWEEP_RESULT('energy', 'a', 3)\n")
    assert main([str(deck)]) == 1
    assert f"{deck}:2: SWEEP_RESULT" in capsys.readouterr().err


def test_deck_name_is_importable_from_solfec():
    import solfec

    assert solfec.SWEEP_RESULT is S.SWEEP_RESULT
