"""Stored frames copied into results of their own (SOLFEC_EXPORT): `<path>/<name>.results`
with the chosen frames and `<path>/<name>.py`, a copy of the deck, so that a deck whose
output directory is `path` opens them in READ mode. Reference: Solfec-1.0 scxp.c
(solfec_export: which frames, in which order) and sol.c (the output directory).
"""
from __future__ import annotations

import os
import shutil

import numpy as np

from solfec_py import session
from solfec_py.output import replay
from solfec_py.output.store import ResultsStore, exists, remove, results_path


def frames_of(store, how: str, times) -> list[int]:
    """The frames Solfec-1.0 writes: for a list, the frame SEEK lands on for each time (each
    frame once, in time order); for a range (t0, t1), the frame SEEK lands on for
    max(t0, first time), then each next frame while its time is below min(t1, last time)
    (Solfec's loop writes, steps forward, and stops at the first frame at that time or
    after: the last frame of a range reaching the end is not written)."""
    if how == "list":
        return sorted({store.frame_index(t) for t in times})
    t = store.times
    t0, t1 = max(times[0], float(t[0])), min(times[1], float(t[-1]))
    i = store.frame_index(t0)
    out = [i]
    while i + 1 < t.size and t[i + 1] < t1 - store.tolerance():
        i += 1
        out.append(i)
    return out


def create(path: str):
    """A fresh store at `path` (what was there replaced) and the deck's copy beside it."""
    os.makedirs(path, exist_ok=True)
    name = os.path.basename(os.path.normpath(path))
    target = results_path(path)
    if exists(target):
        remove(target)
    deck = session.current().deck_path
    if deck and os.path.isfile(deck):
        copy = os.path.join(path, name + ".py")
        if os.path.abspath(deck) != os.path.abspath(copy):
            shutil.copyfile(deck, copy)
    return ResultsStore(target)


def export(solfec, path: str, frames: list[int] | None) -> int:
    """Write the current state (`frames` None: WRITE mode, one frame) or the stored
    `frames` of a READ-mode `solfec` to results at `path`; returns the frames written."""
    store, domain = create(path), solfec.domain
    try:
        if frames is None:
            store.write_frame(solfec, (domain.time, domain.step, 0), flush=False)
            return 1
        source = solfec.store
        before = source.current
        try:
            for i in frames:
                replay.load(solfec, int(i))
                cons = np.asarray(source.frame_constraints(int(i)))
                store.write_frame(solfec, (domain.time, domain.step, 0), flush=False, cons=cons)
        finally:
            replay.load(solfec, before)
        return len(frames)
    finally:
        store.close()
