"""TIME_SERIES and number_or_series (Solfec-1.0 user manual, TIME_SERIES): the three point formats, every argument
check, the labelled-series table, read-only attributes, and derivative / integral objects
against hand-computed values."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py import session
from solfec_py.api.series import TIME_SERIES, labelled_series, number_or_series
from solfec_py.errors import InputError, InputTypeError
from solfec_py.timeseries import TimeSeries


def test_flat_list():
    ts = TIME_SERIES([0, 1.0, 2, 3.0, 4, -1])
    assert ts.times == [0.0, 2.0, 4.0] and ts.values == [1.0, 3.0, -1.0]
    assert isinstance(ts.series, TimeSeries)
    assert ts.series(1.0) == 2.0 and ts.series(5.0) == -1.0     # midpoint; end held


def test_list_of_pairs_uses_first_two_numbers():
    ts = TIME_SERIES([[0, 1], [1, 2, 77, 88], [2.5, 0]])
    assert ts.times == [0.0, 1.0, 2.5] and ts.values == [1.0, 2.0, 0.0]


def test_file_points(tmp_path):
    path = tmp_path / "acc.txt"
    path.write_text("# time value\n0 0\n0.5 1\n1 0\n\n9 9\n")
    ts = TIME_SERIES(str(path), cache=10)
    assert ts.times == [0.0, 0.5, 1.0] and ts.values == [0.0, 1.0, 0.0]
    assert ts.cache == 10


@pytest.mark.parametrize("points, exc, fragment", [
    ((0, 1, 2, 3), InputTypeError, "'points' must be a list or a string"),
    (np.array([0.0, 1.0, 2.0, 3.0]), InputTypeError, "'points' must be a list or a string"),
    (5, InputTypeError, "'points' must be a list or a string"),
    ([], InputError, "'points' must have N \\* 2 elements"),
    ([0, 1], InputError, "'points' must have N \\* 2 elements, where N >= 2"),
    ([0, 1, 2], InputError, "'points' must have N \\* 2 elements"),
    ([0, 1, "2", 3], InputTypeError, "'points\\[2\\]' must be a number"),
    ([0, 1, None, 3], InputTypeError, "'points\\[2\\]' must be a number"),
    ([[0, 1]], InputError, "at least 2 \\[t, v\\] pairs"),
    ([[0, 1], (1, 2)], InputTypeError, "'\\[t,v\\]' must be a list object: 'points\\[1\\]'"),
    ([[0, 1], 1, 2], InputTypeError, "'points\\[1\\]'"),
    ([[0, 1], [1, 2, 3]], InputError, "'points\\[1\\]' has 3"),
    ([[0, 1], []], InputError, "'points\\[1\\]' has 0"),
    ([[0, 1], [1, "x"]], InputTypeError, "'points\\[1\\]\\[1\\]' must be a number"),
    ([0, 0, 1, 1, 1, 2], InputError, "increasing: point 2"),
    ([[0, 0], [2, 1], [1, 2]], InputError, "increasing: point 2"),
    ([0, 0, float("nan"), 1], InputError, "'points\\[2\\]' must be a number, got NaN"),
])
def test_points_errors(points, exc, fragment):
    with pytest.raises(exc, match=fragment):
        TIME_SERIES(points)


def test_file_errors(tmp_path):
    with pytest.raises(ValueError, match="Could not open file"):
        TIME_SERIES(str(tmp_path / "missing.txt"))
    bad = tmp_path / "bad.txt"
    bad.write_text("0 0\n1 one\n")
    with pytest.raises(ValueError, match=r"'points' file .*bad\.txt:2"):
        TIME_SERIES(str(bad))
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match="File empty"):
        TIME_SERIES(str(empty))
    down = tmp_path / "down.txt"
    down.write_text("0 0\n2 1\n1 1\n")
    with pytest.raises(ValueError, match="increasing: point 2"):
        TIME_SERIES(str(down))


@pytest.mark.parametrize("kwargs, exc, fragment", [
    ({"cache": 1.0}, InputTypeError, "'cache' must be an integer"),
    ({"cache": -1}, InputError, "'cache' must be non-negative"),
    ({"label": 3}, InputTypeError, "'label' must be a string"),
    ({"lable": "x"}, InputTypeError, "TIME_SERIES: .*lable"),
])
def test_keyword_errors(kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        TIME_SERIES([0, 0, 1, 1], **kwargs)


def test_arity_errors():
    with pytest.raises(InputTypeError, match="TIME_SERIES: missing a required argument: 'points'"):
        TIME_SERIES()
    with pytest.raises(InputTypeError, match="TIME_SERIES: too many positional"):
        TIME_SERIES([0, 0, 1, 1], "a", 0, 4)


def test_labelled_series_registry():
    ts = TIME_SERIES([0, 0, 1, 1], label="ramp")
    assert ts.label == "ramp" and labelled_series()["ramp"] is ts
    with pytest.raises(InputError, match="label 'ramp' already exists"):
        TIME_SERIES([0, 0, 1, 2], label="ramp")
    assert labelled_series()["ramp"] is ts           # the failed call changed nothing
    assert TIME_SERIES([0, 0, 1, 1]).label is None   # unlabelled series are not registered
    session.start(progress=False)                    # a new program run starts a new table
    assert "ramp" not in labelled_series()
    TIME_SERIES([0, 0, 1, 1], label="ramp")


@pytest.mark.parametrize("name", ["times", "values", "derivative", "integral", "label"])
def test_read_only_attributes(name):
    ts = TIME_SERIES([0, 0, 1, 1])
    with pytest.raises(ValueError, match="Writing to a read-only member"):
        setattr(ts, name, [1, 2])


def test_unknown_attribute():
    ts = TIME_SERIES([0, 0, 1, 1])
    with pytest.raises(AttributeError):
        ts.tims = [0.0]


def test_derivative_object():
    # v: (0, 0), (2, 4), (3, 1): slopes 2 and -3
    d = TIME_SERIES([0, 0, 2, 4, 3, 1]).derivative
    assert isinstance(d, TIME_SERIES) and d.label is None
    assert len(d.times) == 4                                  # 2 (N - 1)
    assert d.times == [0.0, 2.0 - 2e-10, 2.0, 3.0 - 1e-10]
    assert d.values == [2.0, 2.0, -3.0, -3.0]


def test_integral_object():
    # integral of the same series: trapezoids 4 on [0, 2] and 2.5 on [2, 3]
    i = TIME_SERIES([0, 0, 2, 4, 3, 1]).integral
    assert isinstance(i, TIME_SERIES)
    assert i.times == [0.0, 2.0, 3.0] and i.values == [0.0, 4.0, 6.5]


def test_derivative_of_integral_of_ramp_object_chain():
    # v = 2t on [0, 1]: integral t^2 at the knots 0, 0.5, 1 is exact (trapezoid of a
    # linear function); its derivative (secant slopes) is 0.5 on [0, .5] and 1.5 on [.5, 1]
    i = TIME_SERIES([0, 0, 0.5, 1.0, 1, 2.0]).integral
    assert i.values == [0.0, 0.25, 1.0]
    assert i.derivative.values == [0.5, 0.5, 1.5, 1.5]


def test_number_or_series():
    ts = TIME_SERIES([0, 0, 1, 1])
    assert number_or_series("value", ts) is ts.series
    assert number_or_series("value", ts.series) is ts.series
    assert number_or_series("value", 3) == 3.0 and isinstance(number_or_series("value", 3), float)
    assert number_or_series("value", np.float32(0.5)) == 0.5
    with pytest.raises(InputTypeError, match="'value' must be a number or a TIME_SERIES object, got 'x'"):
        number_or_series("value", "x")
    with pytest.raises(InputTypeError, match="'vector\\[2\\]' must be a number or a TIME_SERIES"):
        number_or_series("vector[2]", [0, 1])
    with pytest.raises(InputError, match="NaN"):
        number_or_series("value", float("nan"))


def test_gravity_takes_series_and_numbers():
    from solfec_py.api.loads import GRAVITY
    from solfec_py.api.solfec import SOLFEC

    sol = SOLFEC("DYNAMIC", 1e-3, "out")
    GRAVITY(sol, (0, TIME_SERIES([0, 0, 2, -4]), -9.81))
    # g_y ramps from 0 to -4 over [0, 2]: -1 at t = 0.5, held at -4 after t = 2
    assert sol.domain.gravity_at(0.5).tolist() == [0.0, -1.0, -9.81]
    assert sol.domain.gravity_at(7.0).tolist() == [0.0, -4.0, -9.81]
    with pytest.raises(InputTypeError, match="'vector\\[0\\]' must be a number or a TIME_SERIES object"):
        GRAVITY(sol, ("0", 0, 0))
