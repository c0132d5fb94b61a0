"""Whole decks over the finite-element, pseudo-rigid, JOINT, MESH / MESH_IMPORT and
material-setter surface, from a seeded generator (fuzz_pool.surface_deck: no hypothesis
needed), each run by the deck runner as `solfec-py deck.py` runs it. Property: every case
runs to its end or stops with a solfec_py error reported at a line of the deck
(`deck.py:LINE: message`), never another exception; and no case runs longer than BOUND
seconds (a SIGALRM ends it and fails the test: a hang). The runs are bounded by the decks
(at most 9 steps, materials whose explicit step is at most ~100 times shorter than the
deck's). The normal suite runs CASES cases (seconds); `pytest --extended` runs
EXTENDED_CASES more (minutes). A failure prints the seed and the deck: `surface_deck(seed)`
gives it back."""
from __future__ import annotations

import os
import signal
import time
from collections import Counter

import pytest

from solfec_py import session
from solfec_py import validate as V
from solfec_py.errors import SolfecError
from solfec_py.lang.runner import DeckFailure, run_deck

from fuzz_pool import surface_deck

BOUND = 30.0               # seconds per case on a loaded 2-core machine (cases take ~0.1 s)
CASES = int(os.environ.get("FUZZ_SURFACE_CASES", "40"))
EXTENDED_CASES = int(os.environ.get("FUZZ_SURFACE_EXTENDED", "1500"))


class CaseTimeout(Exception):
    """A case ran longer than BOUND seconds."""


def _alarm(signum, frame):
    raise CaseTimeout(f"case ran longer than {BOUND} s")


def run_case(seed: int, folder) -> str:
    """Run case `seed` in `folder`; returns 'ran' or the refusing error's type name, and
    fails the test on any other outcome."""
    text, files, steps = surface_deck(seed)
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    deck = folder / "deck.py"
    deck.write_text(text)
    here = os.getcwd()
    os.chdir(folder)
    session.start(progress=False, warnings=False, overwrite=True)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, BOUND)
    start = time.perf_counter()
    try:
        with V.limits(steps=steps):
            run_deck(str(deck))
        return "ran"
    except DeckFailure as failure:
        err = failure.error
        ok = isinstance(err, SolfecError) and failure.line is not None
        assert ok, f"case {seed}: {type(err).__name__} escaped ({failure.message()})\n--- deck ---\n{text}"
        assert failure.message().startswith(f"{deck}:{failure.line}: "), failure.message()
        return type(err).__name__
    except CaseTimeout:
        pytest.fail(f"case {seed} ran longer than {BOUND} s\n--- deck ---\n{text}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(here)
        session.start(progress=False)
        elapsed = time.perf_counter() - start
        assert elapsed < BOUND, f"case {seed} took {elapsed:.1f} s"


def _sweep(seeds, tmp_path) -> Counter:
    outcomes = Counter(run_case(seed, tmp_path / f"case{seed}") for seed in seeds)
    print(f"\nfuzz surface: {sum(outcomes.values())} decks: {dict(outcomes.most_common())}")
    return outcomes


def test_fuzz_surface_decks(tmp_path):
    """CASES decks: each runs or is refused with a solfec_py error at a deck line; both
    outcomes occur (the generator reaches RUN and the checks)."""
    outcomes = _sweep(range(CASES), tmp_path)
    assert outcomes["ran"] >= CASES // 10 and sum(v for k, v in outcomes.items() if k != "ran") >= CASES // 10


@pytest.mark.extended
def test_fuzz_surface_decks_extended(tmp_path):
    _sweep(range(CASES, CASES + EXTENDED_CASES), tmp_path)
