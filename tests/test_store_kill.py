"""Runs and their -c continuations killed with SIGKILL at random instants (bench/store_kill.py):
after every kill the results open and every stored frame equals the uninterrupted run's bit
for bit; the last -c finishes and leaves every frame of the uninterrupted run, the final
state included. Reference: the uninterrupted run of the same deck. A few rounds here (runs
forked from the test process, ~1-2 s a round); 50 rounds with --extended; figures of
`python bench/store_kill.py` in docs/limits.md."""
from __future__ import annotations

import os
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "bench"))
import store_kill  # noqa: E402


def _check(stats, rounds):
    assert stats["errors"] == []
    assert stats["unreadable"] == 0 and stats["failed_continuations"] == 0
    assert stats["frames_differ"] == 0 and stats["final_differ"] == 0
    assert stats["kills"] >= rounds                   # at least one kill landed in every round on average
    assert stats["frames_checked"] >= rounds * stats["reference_frames"]


def test_killed_runs_and_continuations_keep_every_frame(tmp_path):
    stats = store_kill.run_rounds(3, "fork", seed=7, root=str(tmp_path), duration=0.05)
    _check(stats, 3)


@pytest.mark.extended
def test_fifty_rounds_of_kills(tmp_path):
    stats = store_kill.run_rounds(50, "fork", seed=2024, root=str(tmp_path), duration=0.2)
    _check(stats, 50)
