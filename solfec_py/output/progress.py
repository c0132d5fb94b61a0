"""Progress output of RUN (layer 6) for SOLFEC.verbose: 'ON' (a tqdm bar on a terminal;
elsewhere silent, or a statistics line every -i seconds when the deck set 'ON' itself),
'%' (Solfec's 4-character percentage meter that decks overwrite with '\\b\\b\\b\\bPASSED'),
'OFF' (silent); HISTORY's percentage meter. Reference: Solfec-1.0's manual (SOLFEC.verbose).
"""
from __future__ import annotations

import io
import os
import shutil
import sys
import time as wallclock

from solfec_py.constraints import CONTACT


class Progress:
    """The progress of one RUN.

    verbose 'ON' (Solfec's default) on a terminal: a tqdm bar of simulated time with the
    steps, the ETA, the contacts and the solver iterations. Elsewhere (output not a
    terminal, or the CLI's --no-progress) nothing, unless the deck asked for the
    statistics itself (`explicit`: it set SOLFEC.verbose = 'ON'): then a TIME line every
    `interval` wall-clock seconds (-i) and one at the end. '%' / '%\n': Solfec's percentage
    meter; 'OFF': silent.
    """

    def __init__(self, verbose: str, t0: float, t1: float, interval: float = 1.0,
                 stream=None, tty: bool | None = None, explicit: bool = False):
        self.verbose = verbose
        self.t0, self.t1 = t0, t1
        self.interval = interval
        self.stream = stream or sys.stdout
        self.tty = _isatty(self.stream) if tty is None else tty
        self.lines = verbose == "ON" and not self.tty and explicit
        self.started = wallclock.perf_counter()
        self.last_print = self.started
        self.steps = 0
        self.percent = -1
        self.bar = None
        if verbose == "ON" and self.tty:
            from tqdm import tqdm

            self.bar = tqdm(total=round(t1 - t0, 12), unit="s", unit_scale=False, leave=True,
                            bar_format="{percentage:3.0f}%|{bar}| t={n:.4g}/{total:.4g} s"
                                       " [{elapsed}<{remaining}{postfix}]",
                            file=self.stream, **_width(self.stream))
        elif verbose.startswith("%"):
            self._percent(0)

    @property
    def talks(self) -> bool:
        """Is anything shown besides the percentage meter (a bar, statistics lines)? Then
        RUN also prints its summary at the end."""
        return self.bar is not None or self.lines

    def _percent(self, value: int) -> None:
        if value != self.percent:
            prefix = "" if self.percent < 0 else "\b\b\b\b"
            self.stream.write(f"{prefix}{value:3d}%")
            self.stream.flush()
            self.percent = value

    def _line(self, domain) -> str:
        wall = wallclock.perf_counter() - self.started
        rate = self.steps / wall if wall > 0 else 0.0
        stats = "".join(f" {k}: {v:.4g}" for k, v in _statistics(domain))
        par = getattr(domain, "parallel", None)
        balance = "" if par is None else f" IMBALANCE: {par.imbalance:.4g} REBALANCED: {par.rebalanced}"
        counts = _model_counts(domain)
        ncons = len(domain.constraints) if counts is None else counts[0]
        return (f"TIME: {domain.time:.6g} STEP: {domain.step:.3g} BODIES: {len(domain.bodies)}"
                f" CONSTRAINTS: {ncons}{stats}{balance} STEPS/s: {rate:.4g}")

    def _postfix(self, domain) -> str:
        """'steps=N, contacts=C, iters=I' (what the last solve reported)."""
        parts = [f"steps={self.steps}"]
        for name, value in _statistics(domain):
            if name == "CONTACTS":
                parts.append(f"contacts={value:.0f}")
            elif name.endswith("ITERS"):
                parts.append(f"iters={value:.0f}")
        return ", ".join(parts)

    def update(self, domain) -> None:
        self.steps += 1
        span = self.t1 - self.t0
        if self.verbose.startswith("%"):
            self._percent(min(100, int(100 * (domain.time - self.t0) / span)) if span > 0 else 100)
        elif self.bar is not None:
            self.bar.n = min(round(domain.time - self.t0, 12), self.bar.total)
            now = wallclock.perf_counter()
            if now - self.last_print > 0.1:
                self.bar.set_postfix_str(self._postfix(domain), refresh=False)
                self.bar.refresh()
                self.last_print = now
        elif self.lines:
            now = wallclock.perf_counter()
            if now - self.last_print >= self.interval:
                print(self._line(domain), file=self.stream, flush=True)
                self.last_print = now

    def close(self, domain) -> None:
        if self.verbose.startswith("%"):
            self._percent(100 if domain.time >= self.t1 - 1e-12 else self.percent)
            if self.verbose == "%\n":
                self.stream.write("\n")
            self.stream.flush()
        elif self.bar is not None:
            self.bar.n = min(round(domain.time - self.t0, 12), self.bar.total)
            self.bar.set_postfix_str(self._postfix(domain), refresh=False)   # the final counts
            self.bar.close()
        elif self.lines:
            print(self._line(domain), file=self.stream, flush=True)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _width(stream) -> dict:
    """tqdm's size options: follow the terminal's width as it changes, unless the terminal
    reports no size (a pseudo-terminal opened without one, as `script` or a CI runner
    does: tqdm then takes 0 columns and rows and draws nothing, not even a line); then
    $COLUMNS x $LINES or 80 x 24, fixed."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        columns = None                  # not a file: tqdm asks the stream itself
    if columns == 0:
        size = shutil.get_terminal_size((80, 24))
        return {"ncols": size.columns, "nrows": size.lines}
    return {"dynamic_ncols": True}


def _statistics(domain) -> list:
    """(name, value) of the last solve (solver iterations, merit; docs/results.md names) and
    the number of contacts."""
    out = [(k, float(v)) for k, v in sorted(getattr(domain, "statistics", {}).items())
           if isinstance(v, (int, float))]
    cons = domain.constraints
    kind = getattr(cons, "kind", None)
    counts = _model_counts(domain)
    if counts is not None:
        out.append(("CONTACTS", float(counts[1])))
    elif kind is not None:
        out.append(("CONTACTS", float((kind[: cons.count] == CONTACT).sum())))
    return out


def _model_counts(domain):
    """(constraints, contacts) of the whole model on several ranks (parallel/checks.py), else None."""
    par = getattr(domain, "parallel", None)
    return None if par is None else par.model_counts


class Percent:
    """HISTORY's progress (Solfec-1.0 user manual, HISTORY `progress='ON'`): `label` and a 4-character
    percentage meter rewritten in place ('\\b\\b\\b\\b'), ended by a newline."""

    def __init__(self, label: str = "HISTORY: ", stream=None):
        self.stream = stream or sys.stdout
        self.percent = -1
        self.stream.write(label)
        self(0.0)

    def __call__(self, fraction: float) -> None:
        value = min(100, max(0, int(100 * fraction)))
        if value > self.percent:
            prefix = "" if self.percent < 0 else "\b\b\b\b"
            self.stream.write(f"{prefix}{value:3d}%")
            self.stream.flush()
            self.percent = value

    def close(self) -> None:
        self(1.0)
        self.stream.write("\n")
        self.stream.flush()
