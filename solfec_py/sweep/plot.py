"""Plots of a sweep table (layer 8): Y against X over the finished runs, a response curve per
combination of the other swept parameters (a scatter for sampled studies). Reads
SWEEPDIR/sweep.csv alone, so it needs neither Dask nor pandas:
`solfec-py plot SWEEPDIR --x NAME --y NAME` or `solfec-py sweep ... --plot X,Y`.
Usage: docs/sweeps.md.
"""
from __future__ import annotations

import argparse
import json
import numbers
import os
import sys

from solfec_py.sweep import table as T
from solfec_py.sweep.plan import SweepError


def is_sweep_dir(path: str) -> bool:
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, T.CSV))


def _meta(sweepdir: str) -> dict:
    try:
        with open(os.path.join(sweepdir, "sweep.json"), encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def _numeric(rows: list, name: str) -> bool:
    values = [r[name] for r in rows if r.get(name) is not None]
    return bool(values) and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)


def plot_sweep(sweepdir: str, x: str, y: str, output: str | None = None, logy: bool | None = None) -> str:
    """Draw `y` against `x` for the finished runs of the sweep in `sweepdir`; returns the
    image path (default SWEEPDIR/sweep_<y>_vs_<x>.png). Runs that failed, timed out or did
    not report `y` are left out (their number is in the title)."""
    if not is_sweep_dir(sweepdir):
        raise SweepError(f"{sweepdir!r} is not a sweep directory (no {T.CSV} in it)")
    rows = T.read(sweepdir)
    numeric = sorted(n for n in (rows[0] if rows else {}) if _numeric(rows, n))
    for axis, name in (("x", x), ("y", y)):
        if not rows or name not in rows[0] or not _numeric(rows, name):
            raise SweepError(f"--{axis} {name!r} is not a numeric column of {os.path.join(sweepdir, T.CSV)};"
                             f" numeric columns: {numeric}")
    meta = _meta(sweepdir)
    swept = [n for n in list(meta.get("params", {})) + [d.split("=")[0] for d in meta.get("dists", [])]
             if n in rows[0] and n != x]
    varying = [n for n in swept if len({r[n] for r in rows}) > 1]
    good = [r for r in rows if r["status"] == "done" and r.get(x) is not None and r.get(y) is not None]
    left_out = len(rows) - len(good)

    import matplotlib

    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    if meta.get("samples"):
        ax.scatter([r[x] for r in good], [r[y] for r in good], s=18)
    else:
        groups: dict = {}
        for r in good:
            groups.setdefault(tuple(r[n] for n in varying), []).append(r)
        for key, members in sorted(groups.items(), key=lambda kv: str(kv[0])):
            members.sort(key=lambda r: r[x])
            label = ", ".join(f"{n}={v}" for n, v in zip(varying, key)) or None
            ax.plot([r[x] for r in members], [r[y] for r in members], "o-", ms=4, label=label)
        if varying:
            ax.legend(fontsize="small")
    ys = [r[y] for r in good]
    if logy is None:
        logy = bool(ys) and min(ys) > 0 and max(ys) >= 1e3 * min(ys)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    title = os.path.basename(os.path.normpath(sweepdir))
    ax.set_title(title + (f" ({left_out} of {len(rows)} runs left out: not done)" if left_out else ""),
                 fontsize="medium")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    output = output or os.path.join(sweepdir, f"sweep_{y}_vs_{x}.png")
    try:
        fig.savefig(output)
    except (OSError, ValueError) as exc:
        raise SweepError(f"cannot write the plot {output!r}: {exc}") from None
    finally:
        plt.close(fig)
    return output


def main(argv: list | None = None) -> int:
    """`solfec-py plot SWEEPDIR --x NAME --y NAME [-o FILE] [--logy | --linear]`."""
    p = argparse.ArgumentParser(prog="solfec-py plot", description="Plot a column of a sweep table against another.")
    p.add_argument("sweepdir", help="a sweep directory (holding sweep.csv)")
    p.add_argument("--x", required=True, help="column on the horizontal axis (a parameter)")
    p.add_argument("--y", required=True, help="column on the vertical axis (a SWEEP_RESULT value, wall_s, ...)")
    p.add_argument("-o", dest="output", help="image file (default SWEEPDIR/sweep_Y_vs_X.png)")
    scale = p.add_mutually_exclusive_group()
    scale.add_argument("--logy", action="store_true", default=None, help="logarithmic y axis")
    scale.add_argument("--linear", dest="logy", action="store_false", default=None, help="linear y axis")
    args = p.parse_args(argv)
    try:
        print(plot_sweep(args.sweepdir, args.x, args.y, args.output, args.logy))
    except SweepError as exc:
        print(f"solfec-py plot: {exc}", file=sys.stderr)
        return 1
    return 0
