"""Figures of `solfec-py verify` (layer 8, matplotlib imported here only): log-log
convergence of the max errors per case, error histories at the finest step, and the heavy
top's Hamiltonian error and nutation period per scheme.
"""
from __future__ import annotations

import math
import os

import numpy as np

LABELS = {"x": "centre x", "v": "velocity v", "omega": "angular velocity \u03c9", "E": "rotation E"}
MARKERS = "osD^v<>ph*X"


def _style(scheme: str) -> dict:
    """One colour and marker per scheme, the same in every figure (11 schemes: tab20)."""
    from matplotlib import colormaps

    from solfec_py.integrators import SCHEME_NAMES

    i = SCHEME_NAMES.index(scheme) if scheme in SCHEME_NAMES else 0
    return {"color": colormaps["tab20"](2 * (i % 10) + i // 10), "marker": MARKERS[i % len(MARKERS)]}


def _pyplot():
    import matplotlib

    if not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _legend(fig, ax) -> None:
    """The schemes' legend right of the last panel."""
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout(rect=(0, 0, 1, 0.93))


def convergence(case, studies, path: str) -> str:
    """One panel per compared quantity: max error against the step, one line per scheme,
    dashed slopes 1 to 4 through the finest error of the panel for reference."""
    plt = _pyplot()
    q = case.compare
    fig, axes = plt.subplots(1, len(q), figsize=(4.2 * len(q), 4.0), squeeze=False)
    for k, name in enumerate(q):
        ax = axes[0, k]
        finest = []
        for s in studies:
            e = s.errors[:, k]
            ok = np.isfinite(e) & (e > 0)
            if ok.sum() >= 2:
                ax.loglog(np.asarray(s.steps)[ok], e[ok], "-", label=s.scheme, ms=4, **_style(s.scheme))
                finest.append(e[ok][-1])
        dt = np.asarray(studies[0].steps) if studies else np.zeros(0)
        if finest and dt.size:
            anchor = float(np.exp(np.mean(np.log(finest))))
            for p in (1, 2, 3, 4):
                ax.loglog(dt, anchor * (dt / dt[-1]) ** p, "k--", lw=0.6, alpha=0.5)
                ax.annotate(f"{p}", (dt[0], anchor * (dt[0] / dt[-1]) ** p), fontsize=7, alpha=0.6)
        ax.set_xlabel("time step")
        ax.set_ylabel(f"max error of {LABELS[name]}")
        ax.grid(True, which="both", alpha=0.3)
    _legend(fig, axes[0, -1])
    fig.suptitle(f"{case.name}: {case.title}")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def histories(case, studies, path: str) -> str:
    """Error against time at the finest step, one panel per quantity."""
    plt = _pyplot()
    q = case.compare
    fig, axes = plt.subplots(1, len(q), figsize=(4.2 * len(q), 4.0), squeeze=False)
    for s in studies:
        t, err = s.histories[-1]
        if not t.size:
            continue
        for k in range(len(q)):
            axes[0, k].semilogy(t[1:], np.maximum(err[1:, k], 1e-17), label=s.scheme, lw=1,
                                color=_style(s.scheme)["color"])
    for k, name in enumerate(q):
        axes[0, k].set_xlabel("time")
        axes[0, k].set_ylabel(f"error of {LABELS[name]}")
        axes[0, k].grid(True, alpha=0.3)
    _legend(fig, axes[0, -1])
    dt = studies[0].steps[-1] if studies else math.nan
    fig.suptitle(f"{case.name}: error history at dt = {dt:g}")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def heavy_top(runs, period: float, path: str) -> str:
    """Left: |H - H0|/H0 against time at the largest step; right: relative error of the
    nutation period per scheme and step."""
    plt = _pyplot()
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    steps = sorted({r.step for r in runs}, reverse=True)
    schemes = list(dict.fromkeys(r.scheme for r in runs))
    for r in runs:
        if r.step == steps[0] and r.H.size:
            a.semilogy(r.t[1:], np.maximum(np.abs(r.H[1:]), 1e-17), label=r.scheme, lw=1,
                       color=_style(r.scheme)["color"])
    a.set_xlabel("time [s]")
    a.set_ylabel("|H - H0| / H0")
    a.set_title(f"Hamiltonian error, h = {steps[0]:g}")
    a.grid(True, alpha=0.3)
    a.legend(fontsize=7, ncol=2, loc="lower right", framealpha=0.6)
    by = {(r.scheme, r.step): r for r in runs}
    width = 0.8 / max(len(steps), 1)
    for j, h in enumerate(steps):
        err = [abs(by[(s, h)].period - period) / period if (s, h) in by else math.nan for s in schemes]
        b.bar(np.arange(len(schemes)) + j * width, err, width, label=f"h = {h:g}")
    b.set_yscale("log")
    b.set_xticks(np.arange(len(schemes)) + 0.4 - width / 2)
    b.set_xticklabels(schemes, rotation=45, ha="right", fontsize=8)
    b.set_ylabel("|T - T_exact| / T_exact")
    b.set_title(f"nutation period (exact {period:.5f} s)")
    b.grid(True, axis="y", alpha=0.3)
    b.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
