"""What stored results were computed from (layer 6): the deck's words (NON_SOLFEC_ARGV), the
deck's text up to its RUN, and the input files it read through solfec-py commands (meshes,
time series, scripts; session.record_input), kept beside the results as
`<outpath>/<basename>.provenance.json` and compared when a later run finds the results, so
that READ mode never shows another model's results. Reference: docs/results.md ("Which
results a run reads"); Solfec-1.0 user manual, READ and WRITE modes.

The deck's text compared is the text up to the end of the top-level statement during which
the last RUN of the writing run was called: a `RUN(...)` line, a loop or an `if` holding
RUN, or the call of a function that runs it. Lines after that statement (post-processing)
may change; anything before it, the words, or the contents of an input file read before it
may not. Modules the deck imports, files it opens itself and the environment are not
compared. Another deck file (a view or post-processing deck, as Solfec-1.0's examples have)
may read the results when it builds the same model: its words and text are not compared,
its bodies are, at its first data command (output/replay.model_differences).
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import shlex
import sys

FORMAT, VERSION = "solfec-py provenance", 1


def record_path(outpath: str) -> str:
    base = os.path.basename(os.path.normpath(outpath))
    return os.path.join(outpath, base + ".provenance.json")


def read(outpath: str) -> dict | None:
    """The record beside the results in `outpath`; None when there is none (results of an
    older solfec-py) or it cannot be read."""
    try:
        with open(record_path(outpath), encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("format") == FORMAT else None


def remove(outpath: str) -> None:
    try:
        os.remove(record_path(outpath))
    except OSError:
        pass


def remember(outpath: str, session, previous: dict | None = None, write: bool = True) -> dict:
    """Before a RUN writes results to `outpath`: the record of this run (words, deck text up
    to the statement running RUN now, inputs read so far), written (by the process that
    writes the results: `write`) when it differs from `previous` (the one this analysis
    wrote last); returns it."""
    from solfec_py import __version__

    record = {"format": FORMAT, "version": VERSION, "solfec_py": __version__,
              "words": [str(w) for w in session.extra_argv], "deck": _deck_record(session),
              "inputs": [{"path": path, "sha256": digest} for path, digest in session.inputs.items()]}
    if write and record != previous:
        target = record_path(outpath)
        temporary = target + ".tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1)
        os.replace(temporary, target)
    return record


def other_deck(record: dict, session) -> str | None:
    """The name of the deck that computed the results of `record` when this run's deck is
    another file (a deck that reads them, as Solfec's view and post-processing decks do);
    None for the same deck or outside a deck run."""
    deck = record.get("deck")
    if not deck or session.deck_path is None or session.deck_source is None:
        return None
    name = deck.get("name")
    return name if name and name != os.path.basename(session.deck_path) else None


def differences(record: dict, session, outpath: str, deck_and_words: bool = True) -> list:
    """What this run has that differs from `record` so far, as phrases (empty: none);
    without `deck_and_words` only the input files are compared (another deck: its model is
    compared instead, output/replay.model_differences)."""
    found = []
    words = [str(w) for w in session.extra_argv]
    if deck_and_words and record.get("words", []) != words:
        found.append(f"the words: {_words(record.get('words', []))} then, {_words(words)} now")
    deck = record.get("deck")
    if deck_and_words and deck and session.deck_source is not None:
        found += _deck_differences(deck, session, outpath)
    for path, digest in session.inputs.items():
        found += input_differences(record, path, digest)
    return found


def input_differences(record: dict, path: str, digest: str) -> list:
    """A phrase when the input file `path` was read for the results with other contents."""
    for entry in record.get("inputs", []):
        if entry.get("path") == path and entry.get("sha256") != digest:
            return [f"the file {path!r}: other contents (sha256 {entry.get('sha256', '')[:12]} then,"
                    f" {digest[:12]} now)"]
    return []


def mismatch_message(outpath: str, found: list, session, output: str) -> str:
    """The error of a run that finds results of another model: what differs, what to type."""
    lines = [f"the results in {outpath} were computed from other inputs than this run's, so they"
             " are neither read nor overwritten:"]
    lines += [f"  - {phrase}" for phrase in found]
    if session.deck_path:
        tail = " ".join(shlex.quote(w) for w in [session.deck_path, *map(str, session.extra_argv)])
        base = (session.output_override or output).rstrip("/")
        lines.append(f"  type 'solfec-py -w {tail}' to compute them again with these inputs, or"
                     f" 'solfec-py -s NAME {tail}' to write this run's results to {base}/NAME")
    else:
        lines.append(f"  remove {outpath} to compute them again, or give SOLFEC another output directory")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the deck's text

def _deck_record(session) -> dict | None:
    """{name, lines, sha256} of the deck text up to the end of the top-level statement that
    is running now (None outside a deck run by solfec-py)."""
    if session.deck_path is None or session.deck_source is None:
        return None
    line = _deck_line(session.deck_path)
    if line is None:
        return None
    end = _statement_end(session.deck_code or session.deck_source, line)
    return {"name": os.path.basename(session.deck_path), "lines": end,
            "sha256": _prefix_digest(session.deck_source, end)}


def _deck_line(path: str) -> int | None:
    """The deck's line executing now (its module frame on the call stack)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == path and frame.f_code.co_name == "<module>":
            return frame.f_lineno
        frame = frame.f_back
    return None


_SPANS: dict = {"code": None, "spans": []}


def _spans(code: str) -> list:
    """(first, last) line of every top-level statement of the deck (parsed once per text)."""
    if _SPANS["code"] is not code:
        try:
            body = ast.parse(code).body
        except (SyntaxError, ValueError):
            body = []
        _SPANS["code"], _SPANS["spans"] = code, [(s.lineno, s.end_lineno) for s in body]
    return _SPANS["spans"]


def _statement_end(code: str, line: int) -> int:
    for first, last in _spans(code):
        if first <= line <= last:
            return last
    return line


def _prefix_digest(source: str, lines: int) -> str:
    text = "\n".join(source.splitlines()[:lines])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _deck_differences(deck: dict, session, outpath: str) -> list:
    end = int(deck.get("lines", 0))
    same = _prefix_digest(session.deck_source, end) == deck.get("sha256")
    # the stored statement must still end there (no line added to a loop or an if after it)
    if same and not any(first <= end < last for first, last in _spans(session.deck_code or session.deck_source)):
        return []
    where = f"the deck's text before its RUN (lines 1-{end} of {deck.get('name', 'the deck')})"
    changed = _first_changed_line(deck, session.deck_source, outpath)
    return [where + (f" differs at line {changed}" if changed else " differs")]


def _first_changed_line(deck: dict, source: str, outpath: str) -> str:
    """'N: <then> then, <now> now' from the copy of the deck kept with the results, when it
    is the text they were computed from; '' otherwise."""
    base = os.path.basename(os.path.normpath(outpath))
    try:
        with open(os.path.join(outpath, base + ".py"), "rb") as handle:
            kept = handle.read().decode("utf-8", "surrogateescape")
    except OSError:
        return ""
    end = int(deck.get("lines", 0))
    if _prefix_digest(kept, end) != deck.get("sha256"):
        return ""
    old, new = kept.splitlines()[:end], source.splitlines()
    for k in range(end):
        then, now = old[k] if k < len(old) else "", new[k] if k < len(new) else ""
        if then != now:
            return f"{k + 1}: {_clip(then)} then, {_clip(now)} now"
    return f"{end}: the statement goes on after it now"


def _clip(text: str, width: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _words(words: list) -> str:
    return " ".join(shlex.quote(w) for w in words) if words else "none"
