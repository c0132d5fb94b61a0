"""Plots and CSV of stored results (layer 6): `solfec-py plot OUTDIR [options]` and the deck
helper `plot_history`. Reads the results file alone (no deck needed) and draws energies,
solver statistics and any HISTORY entity with matplotlib (Agg backend, PNG, SVG or PDF):
SI units on the axes, series that are zero at every frame left out (with a note), any
entity against any other (--x), titled with the deck's name.
Reference: Solfec-1.0 user manual, HISTORY (the entities), docs/results.md (usage).
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import sys

import numpy as np

from solfec_py.errors import ResultsError
from solfec_py.output import history
from solfec_py.output.store import ResultsStore, exists, results_path

ENTITY_HELP = """\
entity syntax (-e, repeatable; quote it for the shell):
  KINETIC | EXTERNAL | CONTACT | FRICTION | INTERNAL   energy of all bodies
  GAP | R | CR | U | CU                                constraint totals of all bodies
  STEP | BODS | CONS | GSITERS | MERIT | NTITERS | TIMINT | CONSOL | ...  frame statistics
  BODY,KIND              energy or constraint total of one body, e.g. 3,KINETIC  ball,GAP
  BODY,(X,Y,Z),ENTITY    value at a referential point, ENTITY in CX..CZ DX..DZ VX..VZ
                         SX..SYZ MISES, e.g. '1,(0,0,0),DZ'  'ball,(0,0,0.1),VX'
  BODY is a body id (a number) or a label (resolved at every frame; NaN where absent);
  quote a numeric label: '"7",(0,0,0),DX'.
Without -e: the energies, plus the solver statistics that are not all zero.
The plot and the CSV use every stored frame in [--t0, --t1], the last one included; the
plot leaves out series that are zero at every frame (the CSV keeps them).
--x ENTITY plots the entities against that one instead of time.
"""

# SI units of the entities (the deck's own units when it uses others consistently)
UNITS = {**{e: "J" for e in history.ENERGY_KINDS},
         "GAP": "m", "R": "N", "CR": "N", "U": "m/s", "CU": "m/s",
         "CX": "m", "CY": "m", "CZ": "m", "DX": "m", "DY": "m", "DZ": "m",
         "VX": "m/s", "VY": "m/s", "VZ": "m/s", "MISES": "Pa",
         "SX": "Pa", "SY": "Pa", "SZ": "Pa", "SXY": "Pa", "SXZ": "Pa", "SYZ": "Pa",
         "STEP": "s", "GSITERS": "iterations", "NTITERS": "iterations", "BSITERS": "iterations",
         "MERIT": "-", "BODS": "bodies", "CONS": "constraints", "NEWCONS": "constraints",
         "NEWBODS": "bodies"}


def unit(label: str) -> str:
    """The unit of an entity label: 'J' for '3,KINETIC', 's' for a timer like 'TIMINT'."""
    name = _split(label)[-1].upper()
    if name in UNITS:
        return UNITS[name]
    return "s" if name in history.STRINGS and name not in history.COUNTS else ""


def _axis_label(name: str, label: str) -> str:
    u = unit(label)
    return f"{name} [{u}]" if u else name


def drop_zero(curves) -> tuple:
    """(kept curves, labels of the curves that are zero at every frame); all are kept when
    every one of them is zero."""
    zero = [label for label, values in curves if not np.any(np.nan_to_num(np.asarray(values, float)))]
    if len(zero) == len(curves):
        return list(curves), []
    return [(label, v) for label, v in curves if label not in zero], zero


def deck_title(store: ResultsStore) -> str:
    """The deck's name (its copy kept in the output directory), else the results file's."""
    directory = os.path.dirname(store.path)
    base = os.path.basename(os.path.normpath(directory)) if directory else ""
    if base and os.path.isfile(os.path.join(directory, base + ".py")):
        return base + ".py"
    return os.path.splitext(os.path.basename(store.path))[0]


def _split(text: str) -> list:
    """Split at commas outside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def _body(text: str):
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return int(text) if re.fullmatch(r"[0-9]+", text) else text


def parse_entity(text: str, store: ResultsStore):
    """An entity string (see ENTITY_HELP) as an output.history item."""
    parts = _split(text)
    totals = tuple(history.ENERGY_KINDS) + history.CONSTRAINT_ENTITIES
    if len(parts) == 1:
        name = parts[0].upper()
        if name in totals:
            return history.TotalItem(None, name)
        if name in history.STRINGS:
            return history.StringItem(name)
        raise ResultsError(f"unknown entity {text!r}: expected one of {list(totals) + list(history.STRINGS)} or"
                           " BODY,KIND or BODY,(X,Y,Z),ENTITY")
    body = _body(parts[0])
    if isinstance(body, str):
        reg = store.registry
        if body not in reg["label"]:
            raise ResultsError(f"entity {text!r}: no body labelled {body!r} in {store.path!r}")
    elif body not in set(store.registry["id"].tolist()):
        raise ResultsError(f"entity {text!r}: no body with id {body} in {store.path!r}")
    if len(parts) == 2:
        kind = parts[1].upper()
        if kind not in totals:
            raise ResultsError(f"entity {text!r}: unknown kind {parts[1]!r}; expected one of {list(totals)}")
        if isinstance(body, str):
            reg = store.registry
            body = int(reg["id"][reg["label"].index(body)])
        return history.TotalItem((body,), kind)
    if len(parts) == 3:
        try:
            point = tuple(float(v) for v in parts[1].strip("()[] ").split(","))
        except ValueError:
            point = ()
        if len(point) != 3:
            raise ResultsError(f"entity {text!r}: the point must be (X,Y,Z), got {parts[1]!r}")
        entity = parts[2].upper()
        if entity not in history.POINT_ENTITIES:
            raise ResultsError(f"entity {text!r}: unknown point entity {parts[2]!r}; expected one of"
                               f" {list(history.POINT_ENTITIES)}")
        return history.PointItem(body, point, entity)
    raise ResultsError(f"entity {text!r}: expected 1, 2 or 3 comma-separated parts, got {len(parts)}")


def open_results(path: str) -> ResultsStore:
    """The results of an output directory (or its `.results` directory, or an .h5 file of an
    older solfec-py)."""
    own = path.rstrip("/").endswith(".results") or path.endswith(".h5")
    file = path.rstrip("/") if own and exists(path.rstrip("/")) else results_path(path)
    if not exists(file):
        raise ResultsError(f"no results at {path!r} (expected {file!r})")
    store = ResultsStore.open_existing(file)
    if not store.nframes:
        raise ResultsError(f"results file {file!r} holds no frames")
    return store


def default_entities(store: ResultsStore) -> list:
    names = list(history.ENERGY_KINDS)
    for stat in ("GSITERS", "NTITERS", "MERIT"):
        if np.any(store.column(stat)):
            names.append(stat)
    return names


def series(store: ResultsStore, entities, t0=None, t1=None, skip: int = 1):
    """(times, [(label, values), ...]) over every frame in [t0, t1]."""
    items = [parse_entity(e, store) for e in entities]
    idx = history.all_frames(store, t0, t1, skip)
    values = history.evaluate(store, items, idx)
    return store.times[idx], list(zip(entities, values))


def _groups(curves):
    """Consecutive energies share one axes; every other entity gets its own."""
    groups = []
    for label, values in curves:
        energy = _split(label)[-1].upper() in history.ENERGY_KINDS
        if energy and groups and groups[-1][0]:
            groups[-1][1].append((label, values))
        else:
            groups.append((energy, [(label, values)]))
    return groups


def build_figure(times, curves, title: str | None = None, xlabel: str = "time [s]"):
    """A matplotlib Figure: one row of axes per group of curves, `times` (or another
    quantity, named by `xlabel`) on x; y axes name their units."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    groups = _groups(curves)
    fig = Figure(figsize=(8, 2.2 + 2.0 * len(groups)))
    axes = fig.subplots(len(groups), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (energy, members) in zip(axes, groups):
        for label, values in members:
            ax.plot(times, values, label=label)
        ax.set_ylabel("energy [J]" if energy else _axis_label(members[0][0], members[0][0]))
        ax.grid(True, alpha=0.3)
        if energy or len(members) > 1:
            ax.legend(fontsize="small")
    axes[-1].set_xlabel(xlabel)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def write_csv(path: str, times, curves) -> None:
    handle = sys.stdout if path == "-" else open(path, "w", newline="")
    try:
        w = csv.writer(handle)
        w.writerow(["time"] + [label for label, _ in curves])
        for k, t in enumerate(times):
            w.writerow([repr(float(t))] + [repr(float(v[k])) for _, v in curves])
    finally:
        if handle is not sys.stdout:
            handle.close()


def plot_history(history, labels=None, path: str | None = None, title: str | None = None):
    """Plot what HISTORY returned, `(times, values_1, ...)`, in a deck; saves to `path`
    (PNG or PDF by extension) when given and returns the matplotlib Figure."""
    times, *values = history
    labels = list(labels) if labels is not None else [f"item {k}" for k in range(len(values))]
    if len(labels) != len(values):
        raise ValueError(f"plot_history: {len(values)} series but {len(labels)} labels")
    fig = build_figure(np.asarray(times), [(lab, np.asarray(v)) for lab, v in zip(labels, values)], title)
    if path:
        fig.savefig(path)
    return fig


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="solfec-py plot", formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Plot stored results (energies, statistics, HISTORY entities).",
                                epilog=ENTITY_HELP)
    p.add_argument("results", help="output directory of an analysis (or its .results directory)")
    p.add_argument("-e", "--entity", action="append", default=[], help="what to plot (repeatable; see below)")
    p.add_argument("-o", "--output", help="image file, .png, .svg or .pdf (default OUTDIR/<name>_plot.png)")
    p.add_argument("--x", metavar="ENTITY", help="plot against this entity instead of time")
    p.add_argument("--csv", metavar="FILE", help="also write the series as CSV ('-' for stdout)")
    p.add_argument("--no-plot", action="store_true", help="only write the CSV")
    p.add_argument("--t0", type=float, help="first time (default: the first frame)")
    p.add_argument("--t1", type=float, help="last time (default: the last frame)")
    p.add_argument("--skip", type=int, default=1, help="use every SKIP-th frame")
    p.add_argument("--title", help="figure title (default: the deck's name)")
    p.add_argument("--list", action="store_true", help="print the frames and bodies stored and exit")
    return p


def _listing(store: ResultsStore) -> str:
    t0, t1 = store.duration()
    reg = store.registry
    lines = [f"{store.path}: {store.nframes} frames, t = {t0:g} .. {t1:g}", "bodies (id kind label):"]
    lines += [f"  {i} {k} {lab}" for i, k, lab in zip(reg["id"].tolist(), reg["kind"], reg["label"])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.skip < 1:
        print("solfec-py plot: --skip must be >= 1", file=sys.stderr)
        return 2
    try:
        store = open_results(args.results)
        if args.list:
            print(_listing(store))
            return 0
        entities = args.entity or default_entities(store)
        times, curves = series(store, entities + ([args.x] if args.x else []), args.t0, args.t1, args.skip)
    except ResultsError as exc:
        print(f"solfec-py plot: {exc}", file=sys.stderr)
        return 1
    x, xlabel = times, "time [s]"
    if args.x:
        (_, x), curves = curves[-1], curves[:-1]
        xlabel = _axis_label(args.x, args.x)
    if args.csv:
        write_csv(args.csv, times, curves + ([(args.x, x)] if args.x else []))
    if not args.no_plot:
        out = args.output or os.path.join(os.path.dirname(store.path),
                                          os.path.splitext(os.path.basename(store.path))[0] + "_plot.png")
        if os.path.splitext(out)[1].lower() not in (".png", ".svg", ".pdf"):
            print(f"solfec-py plot: {out!r}: the image file must end in .png, .svg or .pdf", file=sys.stderr)
            return 2
        shown, zero = drop_zero(curves)
        if zero:
            print(f"solfec-py plot: left out (zero at every frame): {', '.join(zero)}", file=sys.stderr)
        fig = build_figure(x, shown, args.title or deck_title(store), xlabel)
        try:
            fig.savefig(out)
        except (OSError, ValueError) as exc:
            print(f"solfec-py plot: cannot write {out!r}: {exc}", file=sys.stderr)
            return 1
        if args.csv != "-":
            print(out)
    return 0
