"""Run Solfec-1.0's own decks as they are and classify what happens to each (not a unit
test: a survey of how far solfec-py gets with the decks shipped in Solfec's source tree).

    python tools/solfec_decks.py /path/to/solfec-1.0 [-t SECONDS] [-j JOBS] [-k WORD]
                                 [--limit DECK=SECONDS] [--json FILE] [--merge JSON] [--docs FILE]

Every `*.py` under inp/, tests/, examples/ and validation/ runs with `python -m solfec_py`
from a scratch copy of the tree's root (copies of the deck folders, links to the rest and
a fresh `out/` for each deck, so the decks' relative paths work, nothing they write lands
in the source tree and no deck reads another's results; a deck that reads what another
wrote, AFTER (RIGID_TO_FEM, INITIALIZE_STATE), runs right after it with its `out/`), with
stdin closed and a short time limit. The aim is to see that each deck starts and fails only
for capabilities solfec-py does not have yet. Outcomes:

* passed       the deck printed its own PASSED (and no FAILED) and exited 0
* failed check the deck ran and printed FAILED (its own check against its reference values)
* ran to end   exited 0 without a verdict
* still running  no error within the time limit (stopped there)
* exited       the deck ended itself with sys.exit(code != 0), no error (usage, missing file)
* not available stopped by a capability solfec-py does not provide yet (NotAvailableError)
* refused      stopped by a solfec-py input error (the deck asks for something it checks)
* language     a Python-level error: syntax, a missing Python 2 name or module, ...
* crash        any other exception, or a signal

The table groups decks by outcome with the last line of each error.  `--json FILE` writes
the rows for comparison between two versions (`--merge JSON` takes the rows of the decks
not run now from an earlier such file, to rerun a few); `--docs FILE` replaces the text between the
markers `<!-- deck survey: begin -->` and `<!-- deck survey: end -->` in FILE with a table
of every deck (its outcome, time and, for a deck that stops, why: KNOWN_STOPS names the
decks that stop for a reason outside solfec-py).  Reference: docs/legacy.md.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FOLDERS = ("inp", "tests", "examples", "validation")
OUTCOMES = ("passed", "failed check", "ran to end", "still running", "exited", "not available",
            "refused", "language", "crash")
STOPPED = ("exited", "not available", "refused", "language", "crash")
# the serial suite runs every BM deck in turn: it gets longer than the others
LIMITS = {"tests/serial-tests.py": 600.0}
LANGUAGE_ERRORS = ("SyntaxError", "IndentationError", "TabError", "LegacySyntaxError",
                   "NameError", "ImportError", "ModuleNotFoundError", "LegacyImportError",
                   "AttributeError", "UnboundLocalError")
REFUSALS = ("InputError", "InputTypeError", "GeometryError", "ResultsError", "DeletedBodyError")
# decks that stop for a reason outside solfec-py (fnmatch pattern: why), checked one by one
# against Solfec-1.0's sources (lng.c's keyword lists) and tree (the files a deck reads)
KNOWN_STOPS = {
    "examples/hybrid-solver*/*parmec*.py": "external: a deck of PARMEC, the code HYBRID_SOLVER couples",
    "examples/hybrid-solver*/*.py": "external: the hybrid examples need PARMEC (parmec4 on PATH, its Python"
                                    " helpers, HYBRID_SOLVER's library)",
    "inp/devel/hybrid_modeling/hybrid_solver.py": "external: HYBRID_SOLVER needs a PARMEC library",
    "inp/16-bars.py": "Solfec-1.0 refuses it too: its BODY takes `base`, not `modal` (lng.c)",
    "inp/flexbend.py": "Solfec-1.0 refuses it too: its BODY takes `base`, not `modal` (lng.c)",
    "inp/impacting-bar.py": "Solfec-1.0 refuses it too: its BODY takes `base`, not `modal` (lng.c)",
    "inp/ro.py": "Solfec-1.0 refuses it too: its BODY takes `base`, not `modal` (lng.c)",
    "inp/tetgen.py": "Solfec-1.0 refuses it too: TETRAHEDRALIZE takes shape, path, volume, quality, "
                     "volid, surfid (lng.c), not `min_angle`",
    "inp/devel/long-input-motion/long-series.py": "Solfec-1.0 stops too: series.txt is not in the tree",
    "tests/mesh_getdata.py": "Solfec-1.0 stops too: inp/mesh/81fbi.inp is not in the tree "
                             "(examples/81array/ has it)",
    "inp/fratest.py": "Solfec-1.0 stops too: inp/mesh/81fbi.inp is not in the tree "
                      "(examples/81array/ has it)",
    "examples/time-series/ts-gen.py": "a script run with an argument N (its usage message)",
    "inp/devel/rt_split.py": "Solfec-1.0 stops too: 'No splitting happened' (the faces it names "
                             "are not between elements)",
    "inp/cohesion.py": "Solfec-1.0 diverges too: explicit step above the stable one (below)",
    "inp/amtball.py": "Solfec-1.0 diverges too: explicit step above the stable one (below)",
}
# decks that read what another deck wrote: they run right after it, in its deck root
AFTER = {"inp/devel/rigid-to-fem-2.py": "inp/devel/rigid-to-fem-1.py",
         "inp/devel/initialise-state-2.py": "inp/devel/initialise-state-1.py"}
DOCS_BEGIN, DOCS_END = "<!-- deck survey: begin -->", "<!-- deck survey: end -->"
# `Name: message`, also after the CLI's `deck.py:LINE[:COL]: ` prefix
_EXC_LINE = re.compile(r"^(?:\S+?:\d+(?::\d+)?: )?"
                       r"([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)): ?(.*)$")


def decks(root: str) -> list[str]:
    found = []
    for folder in FOLDERS:
        for base, dirs, files in os.walk(os.path.join(root, folder)):
            dirs.sort()
            found += [os.path.relpath(os.path.join(base, f), root) for f in sorted(files)
                      if f.endswith(".py")]
    return found


def deck_root(work: str) -> str:
    """A root of one deck's run: links to every entry of the scratch tree `work` but `out`,
    and an empty `out` of its own, so that decks writing to the same results directory
    (five write out/domino) each start as on a fresh tree."""
    mine = tempfile.mkdtemp(prefix="deck-", dir=work)
    for name in os.listdir(work):
        if name != "out" and not name.startswith("deck-"):
            os.symlink(os.path.join(work, name), os.path.join(mine, name))
    os.mkdir(os.path.join(mine, "out"))
    return mine


def scratch_root(root: str) -> str:
    """A scratch tree: copies of the deck folders (decks write plots and meshes beside
    themselves), links to the other entries of `root`, and an empty `out`."""
    work = tempfile.mkdtemp(prefix="solfec-decks-")
    for name in os.listdir(root):
        if name in FOLDERS:
            shutil.copytree(os.path.join(root, name), os.path.join(work, name), symlinks=True)
        elif name != "out":
            os.symlink(os.path.join(root, name), os.path.join(work, name))
    os.mkdir(os.path.join(work, "out"))
    return work


def _first_failure(out: str) -> str:
    """'printed FAILED', with the deck's first explanation when it gives one."""
    for ln in out.replace("\b", "").splitlines():
        if "FAILED" in ln:
            why = ln.split("FAILED", 1)[1].strip()
            return ("printed FAILED " + why)[:160].rstrip() if why else "printed FAILED"
    return "printed FAILED"


def classify(code: int | None, out: str, err: str) -> tuple[str, str]:
    """(outcome, detail) of one run: exit code (None: time limit), stdout, stderr."""
    if code is None:
        return "still running", "no error within the time limit"
    lines = [ln for ln in err.splitlines() if ln.strip()]
    exc = None
    for ln in reversed(lines):
        m = _EXC_LINE.match(ln.strip())
        if m:
            exc = (m.group(1).rsplit(".", 1)[-1], m.group(2))
            break
    if code == 0:
        if "FAILED" in out:
            return "failed check", _first_failure(out)
        return ("passed", "") if "PASSED" in out else ("ran to end", "")
    if code < 0:
        return "crash", f"signal {-code}"
    last = lines[-1].strip() if lines else f"exit code {code}"
    if exc is None:
        if "FAILED" in out or "READ ERROR" in out:
            return "failed check", "printed FAILED" if "FAILED" in out else "READ ERROR"
        return ("exited", f"exit code {code}") if not lines else ("crash", last)
    kind, message = exc
    detail = f"{kind}: {message}"[:160]
    if kind == "NotAvailableError":
        return "not available", detail
    if kind in REFUSALS:
        return "refused", detail
    if kind in LANGUAGE_ERRORS:
        return "language", detail
    if kind == "SystemExit":
        return ("failed check" if "FAILED" in out else "crash"), detail
    return "crash", detail


def run_chain(work: str, chain: list[str], limits: dict, limit: float) -> list[dict]:
    """Run the decks of `chain` one after another in one deck root (a deck that reads what
    an earlier one wrote, AFTER, follows it); their rows."""
    mine = deck_root(work)
    return [run_one(mine, deck, limits.get(deck, limit)) for deck in chain]


def chains(todo: list[str]) -> list[list[str]]:
    """The decks to run, as chains: a deck named in AFTER runs right after its predecessor
    (when both are to run), every other deck alone."""
    follows = {before: after for after, before in AFTER.items() if after in todo and before in todo}
    out = []
    for deck in todo:
        if deck in follows.values():
            continue
        chain = [deck]
        while chain[-1] in follows:
            chain.append(follows[chain[-1]])
        out.append(chain)
    return out


def run_one(work: str, deck: str, limit: float) -> dict:
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "solfec_py", "--no-progress", "--traceback", deck]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, start_new_session=True)
        try:
            code = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            code = None
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    outcome, detail = classify(code, stdout, stderr)
    return {"deck": deck, "outcome": outcome, "detail": detail,
            "seconds": round(time.perf_counter() - start, 1), "limit": limit}


def table(rows: list[dict]) -> str:
    by = collections.defaultdict(list)
    for row in rows:
        by[row["outcome"]].append(row)
    text = ["| outcome | decks |", "|---|---|"]
    text += [f"| {name} | {len(by[name])} |" for name in OUTCOMES if by[name]]
    text.append(f"| total | {len(rows)} |")
    for name in OUTCOMES:
        if not by[name]:
            continue
        text.append(f"\n{name} ({len(by[name])}):")
        text += [f"  {r['deck']:<60} {r['detail']}" for r in by[name]]
    return "\n".join(text)


def known_stop(deck: str) -> str:
    """Why `deck` stops for a reason outside solfec-py ('' when KNOWN_STOPS does not say)."""
    for pattern, why in KNOWN_STOPS.items():
        if fnmatch.fnmatchcase(deck, pattern):
            return why
    return ""


def deck_table(rows: list[dict], limit: float) -> str:
    """Markdown: the counts by outcome, then one line per deck (outcome, seconds, the check a
    deck failed, and for a deck that stops the last error line and the known reason)."""
    count = collections.Counter(r["outcome"] for r in rows)
    text = ["| outcome | decks |", "|---|---|"]
    text += [f"| {name} | {count[name]} |" for name in OUTCOMES if count[name]]
    text += [f"| total | {len(rows)} |", "",
             "| deck | outcome | s | the failed check, or why it stops (last error line; reason) |", "|---|---|---|---|"]
    for r in rows:
        why = r["detail"].replace("|", "\\|") if r["outcome"] in STOPPED + ("failed check",) else ""
        if r["outcome"] in STOPPED:
            known = known_stop(r["deck"])
            why += f"; **{known}**" if known else ""
        outcome = r["outcome"] + (f" at {r.get('limit', limit):g} s" if r["outcome"] == "still running" else "")
        text.append(f"| `{r['deck']}` | {outcome} | {r['seconds']:.0f} | {why} |")
    return "\n".join(text)


def write_docs(path: str, rows: list[dict], limit: float) -> None:
    """Replace the survey block of `path` (between DOCS_BEGIN and DOCS_END) with deck_table."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    head, sep, rest = text.partition(DOCS_BEGIN)
    _, sep2, tail = rest.partition(DOCS_END)
    if not sep or not sep2:
        raise SystemExit(f"{path}: no '{DOCS_BEGIN}' ... '{DOCS_END}' block to replace")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(head + DOCS_BEGIN + "\n" + deck_table(rows, limit) + "\n" + DOCS_END + tail)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("root", help="Solfec-1.0 source tree (holding inp/, tests/, ...)")
    p.add_argument("-t", "--timeout", type=float, default=20.0, help="seconds per deck (20)")
    p.add_argument("-j", "--jobs", type=int, default=1, help="decks run at once (1)")
    p.add_argument("-k", dest="match", help="only decks whose path contains this text")
    p.add_argument("--limit", action="append", default=[], metavar="DECK=SECONDS",
                   help="another limit for one deck (tests/serial-tests.py has 600 s)")
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--merge", metavar="JSON",
                   help="rows of an earlier run (--json) for the decks not run now")
    p.add_argument("--docs", help="write the deck table into this Markdown file's survey block")
    args = p.parse_args(argv)
    root = os.path.abspath(args.root)
    todo = [d for d in decks(root) if not args.match or args.match in d]
    limits = dict(LIMITS)
    for item in args.limit:
        deck, _, seconds = item.partition("=")
        limits[deck] = float(seconds)
    work = scratch_root(root)
    rows = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = [pool.submit(run_chain, work, chain, limits, args.timeout) for chain in chains(todo)]
            for f in concurrent.futures.as_completed(futures):
                for row in f.result():
                    rows.append(row)
                    print(f"{row['outcome']:<14} {row['seconds']:6.1f}s  {row['deck']}  {row['detail']}",
                          file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.merge:
        with open(args.merge, encoding="utf-8") as handle:
            ran = {r["deck"] for r in rows}
            rows += [r for r in json.load(handle) if r["deck"] not in ran]
    rows.sort(key=lambda r: r["deck"])
    print(table(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1)
    if args.docs:
        write_docs(args.docs, rows, args.timeout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
