"""TIME_SERIES, the deck's piecewise-linear function of time (layer 7), and
`number_or_series`, the argument check of GRAVITY / FORCE / TORQUE / SET_VELOCITY values.
Reference: Solfec-1.0 user manual, TIME_SERIES (Solfec lng.c TIME_SERIES type, tms.c).

A TIME_SERIES object wraps the numerical `timeseries.TimeSeries` the bodies and
constraints evaluate; it is exposed as `obj.series` and is what `number_or_series`
returns. Labelled series live in a table shared by the whole program run (one table per
`session`), where a label can be used only once.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.common import readonly
from solfec_py.errors import InputError, InputTypeError
from solfec_py.timeseries import TimeSeries, read_series_file

__all__ = ["TIME_SERIES", "number_or_series", "labelled_series"]

_registry: dict = {"session": None, "labels": {}}


def labelled_series() -> dict:
    """label -> TIME_SERIES of the current program run (emptied when a new session starts)."""
    current = session.current()
    if _registry["session"] is not current:
        _registry["session"], _registry["labels"] = current, {}
    return _registry["labels"]


def _points(value: Any) -> tuple[np.ndarray, np.ndarray]:
    """(times, values) from a flat list, a list of [t, v] lists or a file path."""
    if isinstance(value, str):
        points = read_series_file(value, "points")
        session.record_input(value)     # results record what they were computed from
        return points
    if not isinstance(value, list):
        raise InputTypeError(f"'points' must be a list or a string object (file path), got {V.describe(value)}")
    if value and isinstance(value[0], list):
        if len(value) < 2:
            raise InputError(f"'points' must hold at least 2 [t, v] pairs, got {len(value)}")
        times, values = np.empty(len(value)), np.empty(len(value))
        for i, pair in enumerate(value):
            if not isinstance(pair, list):
                raise InputTypeError(f"'[t,v]' must be a list object: 'points[{i}]' is {V.describe(pair)}")
            if len(pair) < 2 or len(pair) % 2:
                raise InputError(f"'[t,v]' must have N * 2 elements, where N >= 1: 'points[{i}]' has {len(pair)}")
            times[i] = V.number(f"points[{i}][0]", pair[0])
            values[i] = V.number(f"points[{i}][1]", pair[1])
        return times, values
    if len(value) < 4 or len(value) % 2:
        raise InputError(f"'points' must have N * 2 elements, where N >= 2, got {len(value)} elements")
    flat = np.array([V.number(f"points[{i}]", v) for i, v in enumerate(value)])
    return flat[0::2].copy(), flat[1::2].copy()


class TIME_SERIES:
    """A piecewise-linear function of time.

    ``TIME_SERIES(points | label, cache)``: values are interpolated linearly between the
    points and held constant before the first and after the last. Used wherever a load or a
    prescribed motion varies in time (GRAVITY, FORCE, TORQUE, PRESSURE, SET_VELOCITY, ...).

    Parameters
    ----------
    points : list or str
        Times in [time], values in the unit of what the series drives.
        ``[t0, v0, t1, v1, ...]`` (at least two points), ``[[t0, v0], [t1, v1], ...]``, or the
        path of a text file of ``t v`` lines (``#`` starts a comment; a blank line ends the
        data). Times must increase.
    label : str, optional
        A label can be used once per program run.
    cache : int, optional
        >= 0; accepted for compatibility (the whole series is always kept in memory).

    Attributes
    ----------
    times, values : list, read-only
    derivative : TIME_SERIES, read-only
        The slopes, as a step function.
    integral : TIME_SERIES, read-only
        The running integral from the first time.
    label : str or None, read-only

    Raises
    ------
    InputTypeError, InputError
        Points that are not numbers, fewer than two points, times that do not increase, a
        missing file, a label used before.

    Examples
    --------
    >>> ramp = TIME_SERIES([0, 0, 1, 10, 2, 10])     # 0 -> 10 over 1 s, then 10
    >>> FORCE(box, 'SPATIAL', (0, 0, 0), (1, 0, 0), ramp)
    >>> ramp.integral.values
    [0.0, 5.0, 15.0]
    """

    __slots__ = ("series", "_label", "cache")

    @V.command(name="TIME_SERIES")
    def __init__(self, points, label=V.MISSING, cache=V.MISSING):
        label = None if label is V.MISSING else V.string("label", label)
        cache = 0 if cache is V.MISSING else V.integer("cache", cache)
        if cache < 0:
            raise InputError(f"'cache' must be non-negative, got {cache!r}")
        times, values = _points(points)
        registry = labelled_series() if label is not None else None
        if registry is not None and label in registry:
            raise InputError(f"A time series object with label {label!r} already exists ('label')")
        self.series = TimeSeries(times, values, label=label, name="points")
        self._label, self.cache = label, cache
        if registry is not None:
            registry[label] = self

    @classmethod
    def wrap(cls, series: TimeSeries) -> "TIME_SERIES":
        """An unlabelled TIME_SERIES object around an existing TimeSeries."""
        obj = cls.__new__(cls)
        obj.series, obj._label, obj.cache = series, None, 0
        return obj

    @readonly
    def times(self):
        return self.series.times.tolist()

    @readonly
    def values(self):
        return self.series.values.tolist()

    @readonly
    def derivative(self):
        return TIME_SERIES.wrap(self.series.derivative())

    @readonly
    def integral(self):
        return TIME_SERIES.wrap(self.series.integral())

    @readonly
    def label(self):
        return self._label

    def __repr__(self) -> str:
        t = self.series.times
        name = f"{self._label!r}, " if self._label else ""
        return f"TIME_SERIES({name}{t.size} points on [{t[0]:g}, {t[-1]:g}])"


def number_or_series(name: str, value: Any) -> float | TimeSeries:
    """A constant (float) or the TimeSeries of a TIME_SERIES object."""
    if isinstance(value, TIME_SERIES):
        return value.series
    if isinstance(value, TimeSeries):
        return value
    if not V._is_number(value):
        raise InputTypeError(f"'{name}' must be a number or a TIME_SERIES object, got {V.describe(value)}")
    return V.number(name, value)
