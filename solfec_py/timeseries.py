"""Piecewise-linear time series (layer 2): evaluation with end values held, the
derivative and running-integral series of SET_DISPLACEMENT / SET_ACCELERATION, and the
two-column text files TIME_SERIES reads. Reference: Solfec-1.0 user manual, TIME_SERIES, Solfec-1.0 tms.c (Solfec tms.c).
"""
from __future__ import annotations

from typing import Union

import numpy as np

from solfec_py.errors import InputError

DERIVATIVE_SHIFT = 1e-10  # right end of each derivative interval: t_{i+1} - 1e-10 (t_{i+1} - t_i)


class TimeSeries:
    """v(t) linear between knots (times strictly increasing), constant outside [t0, tN].

    `name` is only used in error messages (the deck argument the data came from).
    """

    __slots__ = ("times", "values", "label")

    def __init__(self, times, values, label: str | None = None, name: str = "points"):
        t = np.asarray(times, dtype=float).reshape(-1)
        v = np.asarray(values, dtype=float).reshape(-1)
        if t.size != v.size or t.size < 1:
            raise InputError(f"'{name}': a time series needs as many times as values (at least one),"
                             f" got {t.size} times and {v.size} values")
        bad = np.flatnonzero(~(np.isfinite(t) & np.isfinite(v)))
        if bad.size:
            k = int(bad[0])
            raise InputError(f"'{name}': time series times and values must be finite numbers,"
                             f" got point {k} = ({t[k]!r}, {v[k]!r})")
        if t.size > 1:
            step = np.diff(t)
            if np.any(step <= 0):
                k = int(np.flatnonzero(step <= 0)[0]) + 1
                raise InputError(
                    f"'{name}': time series time instants must be increasing: point {k} has time"
                    f" {t[k]!r}, not greater than point {k - 1} time {t[k - 1]!r}")
        self.times, self.values, self.label = t, v, label

    @classmethod
    def _trusted(cls, times: np.ndarray, values: np.ndarray) -> "TimeSeries":
        """A series built from an already validated one (no checks)."""
        obj = cls.__new__(cls)
        obj.times, obj.values, obj.label = times, values, None
        return obj

    def __call__(self, t):
        """Value(s) at time(s) t: linear interpolation, end values held outside the knots."""
        return np.interp(t, self.times, self.values)

    def derivative(self) -> "TimeSeries":
        """Piecewise-constant slope: (t_i, s_i), (t_{i+1} - 1e-10 dt_i, s_i) per interval.

        Where the shifted end rounds onto t_{i+1} (large t, tiny dt) the next float below
        t_{i+1} is used instead, so the step stays a step.
        """
        t, v = self.times, self.values
        if t.size < 2:
            return TimeSeries._trusted(t[:1].copy(), np.zeros(1))
        dt = np.diff(t)
        s = np.diff(v) / dt
        right = t[1:] - DERIVATIVE_SHIFT * dt
        collapsed = right >= t[1:]
        right[collapsed] = np.nextafter(t[1:][collapsed], -np.inf)
        times = np.column_stack([t[:-1], right]).reshape(-1)
        return TimeSeries._trusted(times, np.repeat(s, 2))

    def integral(self) -> "TimeSeries":
        """Running trapezoidal integral from 0 at the first knot, at the same knots.

        Exact for the piecewise-linear v(t) at every knot (and linear in between, so
        second-order accurate there). Solfec-1.0 returns a constant for a two-point series
        (a quirk, Solfec-1.0 user manual, TIME_SERIES); the intended ramp is returned here.
        """
        t, v = self.times, self.values
        cum = np.concatenate([[0.0], np.cumsum(0.5 * (v[1:] + v[:-1]) * np.diff(t))])
        return TimeSeries._trusted(t.copy(), cum)

    def __repr__(self) -> str:
        return f"TimeSeries({self.times.size} points on [{self.times[0]:g}, {self.times[-1]:g}])"


Scalar = Union[float, TimeSeries]


def evaluate(value: Scalar, t: float) -> float:
    """A constant or a time series at time t."""
    if isinstance(value, TimeSeries):
        return float(value(t))
    return float(value)


def read_series_file(path: str, name: str = "points") -> tuple[np.ndarray, np.ndarray]:
    """Two numbers `t v` starting every line (extra words ignored); lines starting with '#'
    are skipped; reading stops at the first blank line (Solfec-1.0 user manual, TIME_SERIES)."""
    times, values = [], []
    try:
        handle = open(path, "r", encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"Could not open file {path!r} given as '{name}': {exc.strerror}") from None
    with handle:
        for lineno, line in enumerate(handle, 1):
            if line.lstrip().startswith("#"):
                continue
            words = line.split()
            if not words:
                break
            try:
                t, v = float(words[0]), float(words[1])
            except (ValueError, IndexError):
                raise InputError(f"'{name}' file {path}:{lineno}: expected two numbers 't v',"
                                 f" got {line.strip()!r}") from None
            times.append(t)
            values.append(v)
    if not times:
        raise InputError(f"File empty: no 't v' lines in {path!r} given as '{name}'")
    return np.array(times), np.array(values)
