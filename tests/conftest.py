"""Shared fixtures: every test runs in its own temporary directory with a fresh session,
so decks writing to 'out/...' never touch the repository."""
from __future__ import annotations

import os

import matplotlib
import pytest

matplotlib.use("Agg")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUTS = os.path.join(REPO, "inputs")


@pytest.fixture(autouse=True)
def _fresh_session(tmp_path, monkeypatch):
    from solfec_py import session

    monkeypatch.chdir(tmp_path)
    session.start(progress=False)
    yield
    session.start()


@pytest.fixture
def api():
    """The deck names as a namespace object: api.SOLFEC, api.BODY, ..."""
    import types

    from solfec_py.api import NAMES

    return types.SimpleNamespace(**NAMES)
