"""The `solfec-py` command (layer 8): run a deck with Solfec's switches, or a sub-command
(`translate` a legacy deck, `plot` results, `render` a stored run's movie, `sweep`
parameters). Reference: Solfec-1.0 user manual, command line.

    solfec-py [-n K] [-w] [-c] [-s SUBDIR] [-i SECONDS] [--legacy auto|on|off] deck.py [words...]
    solfec-py translate old_deck.py [-o new_deck.py]
    solfec-py plot OUTDIR [options]                (stored results, or a sweep's table)
    solfec-py render OUTDIR [-o movie.gif|movie.mp4|frames/] [options]   (output.render_movie)
    solfec-py sweep deck.py --param NAME=V1,V2,... (solfec_py.sweep.cli, docs/sweeps.md)
    solfec-py verify [--scheme S] [--case C]     (rigid schemes against exact solutions)
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback

from solfec_py import __version__

# One BLAS thread per process unless the user chose otherwise (before numpy is imported): the
# dense products of solfec-py are small and per body, MPI runs are one process per core, and
# OpenBLAS threads spinning beside other busy processes cost up to 4 times the CPU (BM14 on
# a loaded 2-core machine: 13.0 s against 3.6 s for its first 20 steps; docs/dev/performance.md).
if not any(os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"

SUBCOMMANDS = ("translate", "plot", "render", "sweep", "verify")


USAGE = """\
solfec-py [-n K] [options] deck.py [words ...]
       solfec-py translate OLD.py [-o NEW.py]
       solfec-py plot OUTDIR [options]
       solfec-py render OUTDIR [-o movie.gif|movie.mp4|DIR/] [options]
       solfec-py sweep deck.py --param NAME=V1,V2,... [options]
       solfec-py verify [--scheme S] [--case C]"""

COMMANDS = """\
commands:
  deck.py [words ...]  run a deck (Python 3 or legacy Python 2); the words after it that
                       are not options are returned by NON_SOLFEC_ARGV(); -n K before the
                       deck runs it on K MPI ranks (the [mpi] extra, docs/parallel.md)
  translate            print (or -o write) the Python 3 translation of a legacy deck
  plot                 plot stored results (OUTDIR) or a sweep's table (SWEEPDIR)
  render               draw a stored run's bodies frame by frame: a GIF or MP4 movie or PNGs
  sweep                run a deck over parameter values, one process per point
  verify               convergence tables of the rigid schemes against exact solutions

'solfec-py COMMAND --help' lists a command's options."""


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="solfec-py", usage=USAGE, allow_abbrev=False, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a Solfec input deck, or one of the commands below.\n\n" + COMMANDS,
        epilog="A run whose results exist (same deck, words and input files) reads them: READ\n"
               "mode. Other words or inputs stop with what differs; -w overwrites, -s NAME writes\n"
               "elsewhere (docs/results.md).")
    p.add_argument("deck", help="deck file (.py) or an output directory holding results")
    p.add_argument("words", nargs="*", help="extra words for NON_SOLFEC_ARGV()")
    p.add_argument("-w", action="store_true", dest="overwrite", help="overwrite existing results (WRITE mode)")
    p.add_argument("-c", "--continue", action="store_true", dest="continue_run",
                   help="continue a previous computation from its last stored frame")
    p.add_argument("-s", dest="subdir", metavar="SUBDIR", help="write results into OUTPUT/SUBDIR")
    p.add_argument("-i", dest="interval", type=float, default=1.0, metavar="SECONDS",
                   help="seconds between progress statistics lines (default 1)")
    p.add_argument("-v", action="store_true", dest="viewer", help=argparse.SUPPRESS)
    p.add_argument("--legacy", choices=("auto", "on", "off"), default="auto",
                   help="treat the deck as Python 2 (on), Python 3 (off) or detect (auto)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    p.add_argument("--traceback", action="store_true", help="print the full Python traceback on errors")
    p.add_argument("--version", action="version", version=f"solfec-py {__version__}")
    return p


def _translate(argv: list[str]) -> int:
    from solfec_py.lang.legacy import LegacySyntaxError, translate
    from solfec_py.lang.runner import read_deck

    p = argparse.ArgumentParser(prog="solfec-py translate",
                                description="Translate a legacy Python 2 Solfec deck to Python 3.")
    p.add_argument("deck")
    p.add_argument("-o", dest="output", help="write the translation here instead of printing it")
    args = p.parse_args(argv)
    try:
        text = translate(read_deck(args.deck), args.deck, plain=True)
    except OSError as exc:
        print(f"solfec-py: cannot read {args.deck!r}: {exc.strerror}", file=sys.stderr)
        return 1
    except LegacySyntaxError as exc:   # file:LINE:COL: message, then the line and a caret
        where = ":".join(str(v) for v in (exc.filename or args.deck, exc.lineno, exc.offset) if v)
        print(f"{where}: SyntaxError: {exc}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _plot(argv: list[str]) -> int:
    from solfec_py.sweep import plot as sweep_plot

    if argv and sweep_plot.is_sweep_dir(argv[0]):   # a sweep directory: its table's columns
        return sweep_plot.main(argv)
    try:
        from solfec_py.output.plot import main as plot_main
    except ImportError:
        print("solfec-py: 'plot' is not available in this version yet", file=sys.stderr)
        return 1
    return plot_main(argv)


def _replay_model(outdir: str):
    """The SOLFEC object of the results in `outdir`, rebuilt by running the deck stored there
    in READ mode with the words of the stored run (as `solfec-py OUTDIR` does)."""
    from solfec_py import session
    from solfec_py.api.solfec import SOLFEC
    from solfec_py.errors import ResultsError
    from solfec_py.lang.runner import DeckFailure, run_deck

    directory = outdir.rstrip("/") or outdir
    if directory.endswith(".results"):
        directory = os.path.dirname(directory) or "."
    deck, override = _resolve_deck(directory)
    if not os.path.isfile(deck):
        raise ResultsError(f"no stored surfaces and no stored deck in {outdir!r} (expected {deck!r})")
    stored = _stored_words(override, None)
    session.start(deck_path=deck, extra_argv=stored or [], output_override=override, progress=False,
                  notices=_speaks(), speaks=_speaks())
    try:
        names = run_deck(deck)
    except DeckFailure as failure:
        raise ResultsError(f"rebuilding the model with {deck!r} failed: {failure.message()}") from None
    values = list(names.values())
    values += [item for value in values if isinstance(value, (list, tuple)) for item in value]
    models = [value for value in values if isinstance(value, SOLFEC) and value.mode == "READ"]
    if not models:
        raise ResultsError(f"the deck {deck!r} run in READ mode left no SOLFEC object reading the results"
                           " among its global names")
    return models[0]


def _resolve_deck(path: str):
    """(deck file, output override) per Solfec-1.0 user manual, command line: a directory means its stored deck."""
    if os.path.isdir(path):
        directory = path.rstrip("/") or path
        return os.path.join(directory, os.path.basename(directory) + ".py"), directory
    return path, None


def _stored_words(outdir: str, subdir: str | None) -> list | None:
    """The words the results in an output directory were computed with (their record), so
    that `solfec-py OUTDIR` reads them as the run that wrote them."""
    from solfec_py.output import provenance

    record = provenance.read(os.path.join(outdir, subdir) if subdir else outdir)
    return [str(w) for w in record.get("words", [])] if record else None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "sweep":
        from solfec_py.sweep.cli import main as sweep_main

        return sweep_main(argv[1:])
    if argv and argv[0] == "verify":      # convergence studies of the rigid schemes (docs/integrators.md)
        from solfec_py.verify import main as verify_main

        return verify_main(argv[1:])
    if argv and argv[0] == "render":      # a stored run's movie (docs/results.md)
        from solfec_py.output.render_movie import main as render_main

        return render_main(argv[1:], replay=_replay_model)
    if argv and argv[0] in SUBCOMMANDS:
        return _translate(argv[1:]) if argv[0] == "translate" else _plot(argv[1:])
    if not argv:                          # what to type, not argparse's "deck is required"
        print(f"usage: {USAGE}\n\n{COMMANDS}", file=sys.stderr)
        return 2
    from solfec_py.parallel.launch import run as launch, split_ranks

    ranks, argv = split_ranks(argv)
    if ranks is not None and ranks > 1:            # solfec-py -n K: the same arguments on K ranks
        status = launch(ranks, argv)
        if status >= 0:
            return status
    options, rest = _split_options(argv)
    rest = _deck_first(rest)
    args = _run_parser().parse_args(options + (["--", *rest] if rest else []))
    from solfec_py import session
    from solfec_py.lang.runner import DeckFailure, run_deck

    deck, override = _resolve_deck(args.deck)
    if not os.path.isfile(deck):
        print(f"solfec-py: cannot open deck {deck!r}: no such file", file=sys.stderr)
        return 2
    if args.viewer:
        print("solfec-py: -v ignored: there is no interactive viewer (solfec-py render OUTDIR draws a movie;"
              " ParaView opens the XDMF results)",
              file=sys.stderr)
    words = list(args.words)
    stored = _stored_words(override, args.subdir) if override and not words else None
    session.start(deck_path=deck, extra_argv=stored or words, subdir=args.subdir,
                  overwrite=args.overwrite or args.continue_run, continue_run=args.continue_run,
                  interval=args.interval, output_override=override,
                  progress=False if args.no_progress or not _speaks() else None, notices=_speaks(), speaks=_speaks())
    if stored:
        session.note("the words of the stored run: " + " ".join(stored))
    try:
        run_deck(deck, legacy=args.legacy)
    except DeckFailure as failure:
        if args.traceback:
            traceback.print_exception(failure.error)
        sys.stdout.flush()
        return _report(failure)
    except KeyboardInterrupt:
        print("\nsolfec-py: interrupted", file=sys.stderr)
        return 130
    return 0


FLAGS = {"-w", "-c", "--continue", "-v", "--no-progress", "--traceback", "--version", "-h", "--help"}
VALUED = {"-s", "-i", "--legacy"}


def _split_options(argv: list) -> tuple[list, list]:
    """(solfec-py's options, the deck and its words): an option is one of ours spelled out
    exactly (anywhere, as Solfec takes them); every other word, such as a deck's own
    `-solv GS` or `-stop 0.1`, goes to the deck (NON_SOLFEC_ARGV), never read as `-s olv`."""
    options, rest = [], []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in FLAGS or word.startswith("--legacy="):
            options.append(word)
        elif word in VALUED and i + 1 < len(argv):
            options += [word, argv[i + 1]]
            i += 1
        else:
            rest.append(word)
        i += 1
    return options, rest


def _deck_first(rest: list) -> list:
    """The deck, then its words: as Solfec-1.0 (solfec.c), the deck is the first word naming
    a file, and words before it are the deck's too (`solfec -percent deck.py -lwf 1.0` runs
    deck.py with the words -percent -lwf 1.0)."""
    if not rest or os.path.exists(rest[0]):
        return rest
    for k in range(1, len(rest)):
        if os.path.isfile(rest[k]):
            return [rest[k], *rest[:k], *rest[k + 1:]]
    return rest


def _speaks() -> bool:
    """Warnings, notes and progress come from rank 0 only of a parallel run."""
    from solfec_py.parallel import comm

    return comm.launched_size() == 1 or comm.rank() == 0


def _report(failure) -> int:
    """Print a deck failure; on several ranks, once: an error every rank raised alike
    (collective) is printed by rank 0 and every rank returns, any other error is printed
    with its rank and ends the whole run (MPI_Abort), so that no rank waits for it."""
    from solfec_py.parallel import comm

    if comm.size() == 1:
        print(failure.message(), file=sys.stderr)
        return 1
    world = comm.world()
    if getattr(failure.error, "collective", False):
        if world.rank == 0:
            print(failure.message(), file=sys.stderr)
        return 1
    if world.rank != 0:          # rank 0 first: when every rank failed alike it prints once
        import time

        time.sleep(1.0)
    print(f"[rank {world.rank}] {failure.message()}", file=sys.stderr, flush=True)
    import time

    time.sleep(0.5)              # let mpiexec forward the line before MPI_Abort ends the run
    world.abort(1)
    return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
