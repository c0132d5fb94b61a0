"""Process-wide settings of one solfec-py program run (layer 0): command-line switches
(-w, -c, -s, -i, extra words), GEOMETRIC_EPSILON, WARNINGS, the deck's text and the input
files the run read (what results are computed from: output/provenance.py). Mirrors the
globals of Solfec-1.0's solfec.c / lng.c (Solfec-1.0 user manual, command line,
GEOMETRIC_EPSILON, WARNINGS).

The deck runner calls `start(...)` before a deck runs; library users and tests get the
defaults. Nothing here imports numpy, so reading a setting is cheap.
"""
from __future__ import annotations

import sys
import warnings as _warnings
from dataclasses import dataclass, field


@dataclass
class Session:
    deck_path: str | None = None       # path of the deck being run (for the copy in outputs)
    extra_argv: list = field(default_factory=list)  # NON_SOLFEC_ARGV words
    subdir: str | None = None          # -s NAME
    overwrite: bool = False            # -w
    continue_run: bool = False         # -c / --continue
    interval: float = 1.0              # -i SECONDS between verbose statistics
    output_override: str | None = None  # deck given as an output directory (Solfec's command line)
    geometric_epsilon: float = 1e-6
    warnings: bool = True
    progress: bool | None = None       # None: a progress bar only on a terminal
    notes_given: set = field(default_factory=set)  # notes printed once per program run
    deck_source: str | None = None     # the deck's text as read, and as compiled (legacy decks
    deck_code: str | None = None       # translated), set by the deck runner
    inputs: dict = field(default_factory=dict)  # input file (as the deck named it) -> sha256
    input_watchers: list = field(default_factory=list)  # called as w(path, sha256) on each input
    notices: bool = False              # the CLI's line on kernels compiled by a first run (compilation.py)
    speaks: bool = True                # prints warnings and notes (rank 0 of a parallel run only)


_current = Session()


def current() -> Session:
    """The settings in force."""
    return _current


def start(**settings) -> Session:
    """Begin a fresh program run with `settings` (fields of `Session`)."""
    global _current
    _current = Session(**settings)
    return _current


def geometric_epsilon() -> float:
    return _current.geometric_epsilon


def warn(message: str) -> None:
    """A Solfec warning on stderr, unless WARNINGS('OFF')."""
    if _current.warnings and _current.speaks:
        print(f"WARNING: {message}", file=sys.stderr)


def note(message: str) -> None:
    """An informational line on stderr for the user of the CLI (not a warning), printed
    once per program run."""
    if message not in _current.notes_given:
        _current.notes_given.add(message)
        if _current.speaks:
            print(f"solfec-py: {message}", file=sys.stderr)


def inform(message: str) -> None:
    """An informative note on stderr (what an import dropped or fixed), unless WARNINGS('OFF')."""
    if _current.warnings and _current.speaks:
        print(f"NOTE: {message}", file=sys.stderr)


def runtime_warning(message: str) -> None:
    """Solfec's Python RuntimeWarning (e.g. ignored attribute assignments)."""
    if _current.warnings and _current.speaks:
        _warnings.warn(message, RuntimeWarning, stacklevel=3)


def record_input(path) -> str:
    """Note that the deck read the file `path` (a mesh, a time series, a script) through a
    solfec-py command: its sha256 joins `inputs`, and each input watcher is told (a READ-mode
    analysis compares it with the inputs its results were computed from, and may raise).
    Returns the digest."""
    import hashlib
    import os

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    name, value = os.fspath(path), digest.hexdigest()
    _current.inputs[name] = value
    for watcher in list(_current.input_watchers):
        watcher(name, value)
    return value
