"""`solfec-py sweep` (layer 8): the command line of `solfec_py.sweep.run`.

    solfec-py sweep deck.py [WORDS...] --param NAME=V1,V2,... [--param ...] [--grid | --zip]
        [--samples N --dist NAME=uniform:A:B ...] [--workers K] [--scheduler ADDRESS]
        [--out DIR] [--timeout S] [--force] [--plot X,Y] [--yes]

Exit status 0 when every run is done, 1 when some failed or timed out (the table says
which and why), 2 when the sweep cannot start (bad options, missing extra, no scheduler).
Usage: docs/sweeps.md.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

PROG = "solfec-py sweep"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Run a deck once per parameter point, each run a separate 'solfec-py -s NAME deck.py "
                    "NAME=VALUE ...' process, as Dask tasks (a local cluster by default). The deck reads its "
                    "parameters as words NAME=VALUE from NON_SOLFEC_ARGV() and may report values with "
                    "SWEEP_RESULT(name, value).",
        epilog="Example: solfec-py sweep inputs/masonry_arch.py stop=0.75 --param ratio=0.1093,0.1094,0.1095 "
               "--plot ratio,ke  (see docs/sweeps.md)")
    p.add_argument("deck", help="the deck file")
    p.add_argument("words", nargs="*", help="fixed words given to every run before its NAME=VALUE words")
    p.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="a swept parameter and its values (repeatable)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--grid", dest="mode", action="store_const", const="grid",
                      help="every combination of the --param values (default)")
    mode.add_argument("--zip", dest="mode", action="store_const", const="zip",
                      help="the i-th values of every --param together (equal lengths)")
    p.add_argument("--samples", type=int, metavar="N", help="N random points drawn from the --dist distributions")
    p.add_argument("--dist", action="append", default=[], metavar="NAME=KIND:A:B",
                   help="a sampled parameter: uniform:A:B, loguniform:A:B, normal:MEAN:STD or randint:A:B")
    p.add_argument("--seed", type=int, default=0, help="seed of the random samples (default 0)")
    p.add_argument("--workers", type=int, metavar="K",
                   help="worker processes of the local Dask cluster (default: the cores; 0: no Dask, one run "
                        "after another)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask scheduler at ADDRESS (tcp://host:8786)")
    p.add_argument("--connect-timeout", type=float, default=10.0, metavar="S",
                   help="seconds to reach the --scheduler (default 10)")
    p.add_argument("--out", metavar="DIR", help="the sweep directory (default out/<deck name>_sweep)")
    p.add_argument("--timeout", type=float, metavar="S", help="seconds a run may take before it is killed")
    p.add_argument("--force", action="store_true", help="redo every run (default: skip the finished ones)")
    p.add_argument("--plot", metavar="X,Y", help="draw column Y against column X into the sweep directory")
    p.add_argument("--legacy", choices=("auto", "on", "off"), default="auto", help="the deck's --legacy switch")
    p.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    p.add_argument("--yes", action="store_true", help="start a sweep of more than 10 000 runs (otherwise refused)")
    return p


def _summary(df) -> str:
    counts = df["status"].value_counts()
    parts = [f"{int(counts.get(s, 0))} {w}" for s, w in (("done", "done"), ("failed", "failed"),
                                                          ("timeout", "timed out"))]
    return f"{len(df)} runs: " + ", ".join(parts) + f" ({int(df['resumed'].sum())} resumed from an earlier sweep)"


def main(argv: list | None = None) -> int:
    args = _parser().parse_intermixed_args(argv)
    from solfec_py.sweep.plan import SweepError
    from solfec_py.sweep.plot import plot_sweep
    from solfec_py.sweep.runner import ExtraMissingError, SweepWarning, plot_axes, run

    if not os.path.isfile(args.deck):
        print(f"{PROG}: cannot open deck {args.deck!r}: no such file", file=sys.stderr)
        return 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SweepWarning)
        try:
            axes = plot_axes(args.plot)
            df = run(args.deck, args.param, mode=args.mode or "grid", samples=args.samples, dists=args.dist,
                     seed=args.seed, words=args.words, workers=args.workers, scheduler=args.scheduler,
                     out=args.out, timeout=args.timeout, connect_timeout=args.connect_timeout, force=args.force,
                     legacy=args.legacy, progress=False if args.no_progress else None, yes=args.yes)
        except (SweepError, ExtraMissingError) as exc:
            print(f"{PROG}: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"\n{PROG}: interrupted (finished runs are in the table; rerun to resume)", file=sys.stderr)
            return 130
    for w in caught:
        if issubclass(w.category, SweepWarning):
            print(f"{PROG}: WARNING: {w.message}", file=sys.stderr)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    sweepdir = df.attrs["sweep_dir"]
    status = 0 if (df["status"] == "done").all() else 1
    print(f"{PROG}: {_summary(df)}")
    for _, row in df[df["status"] != "done"].iterrows():
        print(f"  {row['run']}: {row['status']}: {row['error']}")
    print(f"table: {os.path.join(sweepdir, 'sweep.csv')}")
    if axes:
        try:
            print(f"plot: {plot_sweep(sweepdir, *axes)}")
        except SweepError as exc:
            print(f"{PROG}: {exc}", file=sys.stderr)
            status = 1
    return status
