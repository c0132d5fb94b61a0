"""Piecewise-linear time series (layer 2): evaluation with end values held, the
derivative and running-integral series of SET_DISPLACEMENT / SET_ACCELERATION.
Reference: LANGUAGE §8, NUMERICS §4.11 (Solfec tms.c).
"""
from __future__ import annotations

from typing import Union

import numpy as np

from solfec_py.errors import InputError


class TimeSeries:
    """v(t) linear between knots (times strictly increasing), constant outside [t0, tN]."""

    __slots__ = ("times", "values", "label")

    def __init__(self, times, values, label: str | None = None):
        t = np.asarray(times, dtype=float).reshape(-1)
        v = np.asarray(values, dtype=float).reshape(-1)
        if t.size != v.size or t.size < 1:
            raise InputError(f"a time series needs as many times as values, got {t.size} and {v.size}")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
            raise InputError("time series times and values must be finite numbers")
        if t.size > 1 and np.any(np.diff(t) <= 0):
            k = int(np.flatnonzero(np.diff(t) <= 0)[0])
            raise InputError(
                f"Time series time instants must be increasing: t[{k}] = {t[k]!r} is followed by"
                f" t[{k + 1}] = {t[k + 1]!r}")
        self.times, self.values, self.label = t, v, label

    def __call__(self, t):
        return np.interp(t, self.times, self.values)

    def derivative(self) -> "TimeSeries":
        """Piecewise-constant slope: (t_i, s_i), (t_{i+1} - 1e-10 dt_i, s_i) per interval."""
        t, v = self.times, self.values
        if t.size < 2:
            return TimeSeries([t[0]], [0.0])
        dt = np.diff(t)
        s = np.diff(v) / dt
        times = np.column_stack([t[:-1], t[1:] - 1e-10 * dt]).reshape(-1)
        return TimeSeries(times, np.repeat(s, 2))

    def integral(self) -> "TimeSeries":
        """Running trapezoidal integral from 0 at the first knot, at the same knots.

        Solfec-1.0 returns a constant for a two-point series (a quirk, LANGUAGE §8); the
        intended ramp is returned here.
        """
        t, v = self.times, self.values
        cum = np.concatenate([[0.0], np.cumsum(0.5 * (v[1:] + v[:-1]) * np.diff(t))])
        return TimeSeries(t, cum)

    def __repr__(self) -> str:
        return f"TimeSeries({self.times.size} points on [{self.times[0]:g}, {self.times[-1]:g}])"


Scalar = Union[float, TimeSeries]


def evaluate(value: Scalar, t: float) -> float:
    """A constant or a time series at time t."""
    if isinstance(value, TimeSeries):
        return float(value(t))
    return float(value)


def read_series_file(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Two numbers `t v` per line; '#' lines skipped; reading stops at the first blank line."""
    times, values = [], []
    try:
        handle = open(path, "r")
    except OSError as exc:
        raise InputError(f"Could not open file {path!r} for 'points': {exc.strerror}") from None
    with handle:
        for number, line in enumerate(handle, 1):
            if line.startswith("#"):
                continue
            words = line.split()
            if not words:
                break
            try:
                times.append(float(words[0]))
                values.append(float(words[1]))
            except (ValueError, IndexError):
                raise InputError(f"{path}:{number}: expected two numbers 't v', got {line.strip()!r}") from None
    if not times:
        raise InputError(f"File empty: no 't v' data in {path!r}")
    return np.array(times), np.array(values)
