"""The `solfec-py` command (layer 8): run a deck with Solfec's switches, or a sub-command
(`translate` a legacy deck, `plot` results, `sweep` parameters). Reference: Solfec-1.0 user manual, command line.

    solfec-py [-w] [-c] [-s SUBDIR] [-i SECONDS] [--legacy auto|on|off] deck.py [words...]
    solfec-py translate old_deck.py [-o new_deck.py]
    solfec-py sweep deck.py --param NAME=V1,V2,... (solfec_py.sweep.cli, docs/sweeps.md)
    solfec-py verify [--scheme S] [--case C]     (rigid schemes against exact solutions)
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback

from solfec_py import __version__

SUBCOMMANDS = ("translate", "plot", "sweep", "verify")


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="solfec-py",
        description="Run a Solfec input deck (Python 3 or legacy Python 2). Words after the deck "
                    "that are not options are returned by NON_SOLFEC_ARGV().",
        epilog="Sub-commands: 'solfec-py translate OLD.py [-o NEW.py]' prints the Python 3 "
               "translation of a legacy deck; 'solfec-py plot OUTDIR' plots stored results; "
               "'solfec-py sweep deck.py --param NAME=V1,V2' runs a parameter sweep "
               "('solfec-py plot SWEEPDIR --x NAME --y NAME' plots its table).")
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


def _resolve_deck(path: str):
    """(deck file, output override) per Solfec-1.0 user manual, command line: a directory means its stored deck."""
    if os.path.isdir(path):
        directory = path.rstrip("/") or path
        return os.path.join(directory, os.path.basename(directory) + ".py"), directory
    return path, None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "sweep":
        from solfec_py.sweep.cli import main as sweep_main

        return sweep_main(argv[1:])
    if argv and argv[0] == "verify":      # convergence studies of the rigid schemes (docs/integrators.md)
        from solfec_py.verify import main as verify_main

        return verify_main(argv[1:])
    if argv and argv[0] in SUBCOMMANDS:
        return _translate(argv[1:]) if argv[0] == "translate" else _plot(argv[1:])
    args, unknown = _run_parser().parse_known_args(argv)
    from solfec_py import session
    from solfec_py.lang.runner import DeckFailure, run_deck

    deck, override = _resolve_deck(args.deck)
    if not os.path.isfile(deck):
        print(f"solfec-py: cannot open deck {deck!r}: no such file", file=sys.stderr)
        return 2
    if args.viewer:
        print("solfec-py: -v ignored: there is no interactive viewer (open the XDMF results in ParaView)",
              file=sys.stderr)
    session.start(deck_path=deck, extra_argv=list(args.words) + unknown, subdir=args.subdir,
                  overwrite=args.overwrite or args.continue_run, continue_run=args.continue_run,
                  interval=args.interval, output_override=override,
                  progress=False if args.no_progress else None, notices=True)
    try:
        run_deck(deck, legacy=args.legacy)
    except DeckFailure as failure:
        if args.traceback:
            traceback.print_exception(failure.error)
        sys.stdout.flush()
        print(failure.message(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nsolfec-py: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
