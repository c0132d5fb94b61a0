"""timeseries.TimeSeries and read_series_file (Solfec-1.0 user manual, TIME_SERIES, Solfec-1.0 tms.c): interpolation
against hand-computed values, constant extrapolation, derivative and integral against
exact slopes and integrals, and the two-column file format."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.errors import InputError
from solfec_py.timeseries import TimeSeries, evaluate, read_series_file

# knots (0, 0), (1, 2), (3, -2): slopes 2 on [0, 1] and -2 on [1, 3]
HAT = TimeSeries([0.0, 1.0, 3.0], [0.0, 2.0, -2.0])


@pytest.mark.parametrize("t, expected", [
    (0.0, 0.0), (0.5, 1.0), (1.0, 2.0), (1.5, 1.0), (2.0, 0.0), (2.5, -1.0), (3.0, -2.0),
    (-5.0, 0.0),   # before t0: v0 held
    (10.0, -2.0),  # after tN: vN held
])
def test_evaluation_hand_values(t, expected):
    # hand-computed linear interpolation; the only error is float rounding (1e-15)
    assert HAT(t) == pytest.approx(expected, abs=1e-15)
    assert evaluate(HAT, t) == pytest.approx(expected, abs=1e-15)


def test_vector_evaluation_matches_scalar():
    ts = np.linspace(-1.0, 4.0, 23)
    assert np.array_equal(HAT(ts), np.array([HAT(float(t)) for t in ts]))


def test_evaluate_constant():
    assert evaluate(3, 100.0) == 3.0


def test_single_point_series_is_constant():
    one = TimeSeries([2.0], [7.0])
    assert one(-1.0) == 7.0 and one(5.0) == 7.0


def test_derivative_layout_and_slopes():
    d = HAT.derivative()
    # 2(N - 1) points: (t_i, s_i), (t_{i+1} - 1e-10 dt_i, s_i)
    assert d.times.size == 4
    assert d.times.tolist() == [0.0, 1.0 - 1e-10, 1.0, 3.0 - 2e-10]   # Solfec-1.0 user manual, TIME_SERIES: shift 1e-10 dt
    assert d.values.tolist() == [2.0, 2.0, -2.0, -2.0]
    # inside each interval the derivative is the exact slope
    assert d(0.3) == 2.0 and d(2.2) == -2.0


def test_derivative_of_sampled_parabola_is_secant_slope():
    # v = t^2 sampled: on [a, b] the slope is exactly (b^2 - a^2)/(b - a) = a + b
    t = np.array([0.0, 0.3, 1.0, 1.7, 4.0])
    d = TimeSeries(t, t ** 2).derivative()
    mid = 0.5 * (t[:-1] + t[1:])
    # tolerance: rounding of (b^2 - a^2)/(b - a), a few ulps of numbers <= 6
    assert np.allclose(d(mid), t[:-1] + t[1:], rtol=0, atol=1e-14)


def test_derivative_stays_increasing_when_shift_rounds_away():
    # 1e-10 * dt = 1e-14 is below the spacing of floats near 1e4 (1.8e-12)
    t0 = 1e4
    d = TimeSeries([t0, t0 + 1e-4, t0 + 2e-4], [0.0, 1.0, 3.0]).derivative()
    assert np.all(np.diff(d.times) > 0)
    assert d.times[1] == np.nextafter(t0 + 1e-4, -np.inf)


def test_integral_of_linear_ramp_is_exact_quadratic_at_knots():
    a, b = 0.5, -1.25
    t = np.array([0.2, 0.5, 1.5, 3.0, 3.1])
    integral = TimeSeries(t, a + b * t).integral()
    exact = a * (t - t[0]) + 0.5 * b * (t ** 2 - t[0] ** 2)
    # trapezoid is exact for linear integrands; tolerance = rounding (1e-14)
    assert np.allclose(integral.values, exact, rtol=0, atol=1e-14)
    assert np.array_equal(integral.times, t)


def test_integral_hand_values_and_end_holding():
    integral = HAT.integral()
    # area under the hat: [0,1] -> 1, [1,3] -> (2 + -2)/2 * 2 = 0
    assert integral.values.tolist() == [0.0, 1.0, 1.0]
    assert integral(50.0) == 1.0 and integral(-1.0) == 0.0


def test_two_point_integral_is_a_ramp_not_a_constant():
    # Solfec-1.0 quirk (constant) not reproduced: the intended running integral
    integral = TimeSeries([0.0, 2.0], [3.0, 3.0]).integral()
    assert integral.values.tolist() == [0.0, 6.0]
    assert integral(1.0) == 3.0


def test_integral_of_derivative_recovers_increments():
    t = np.array([0.0, 0.4, 1.0, 2.5])
    v = np.array([1.0, -0.6, 2.0, 2.3])
    back = TimeSeries(t, v).derivative().integral()
    # the derivative's ramps between s_i and s_{i+1} have width 1e-10 dt_i, which changes
    # each interval's area by 1e-10 dt_i (s_{i+1} - s_i)/2: tolerance 1e-9 covers it
    assert np.allclose(back(t), v - v[0], rtol=0, atol=1e-9)


@pytest.mark.parametrize("times, values, fragment", [
    ([0.0, 1.0, 1.0], [0.0, 1.0, 2.0], "point 2"),
    ([0.0, 2.0, 1.0], [0.0, 1.0, 2.0], "point 2"),
    ([3.0, 1.0], [0.0, 1.0], "point 1"),
])
def test_non_increasing_times_name_the_point(times, values, fragment):
    with pytest.raises(ValueError, match="increasing") as info:
        TimeSeries(times, values)
    assert fragment in str(info.value) and "'points'" in str(info.value)


def test_non_finite_and_mismatched_data():
    with pytest.raises(InputError, match="finite"):
        TimeSeries([0.0, np.nan], [0.0, 1.0])
    with pytest.raises(InputError, match="finite"):
        TimeSeries([0.0, 1.0], [0.0, np.inf])
    with pytest.raises(InputError, match="as many times as values"):
        TimeSeries([0.0, 1.0], [0.0])


# --------------------------------------------------------------------------- files

def write(tmp_path, text, name="series.txt"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_file_comments_extra_words_and_blank_line_stop(tmp_path):
    path = write(tmp_path, "# t v\n0 1.5\n  # indented comment\n1.0 2.5 extra words\n2e0\t-1\n\n3 99\n")
    t, v = read_series_file(path)
    assert t.tolist() == [0.0, 1.0, 2.0]          # the line after the blank one is not read
    assert v.tolist() == [1.5, 2.5, -1.0]


@pytest.mark.parametrize("text", ["0 1\n1\n", "0 1\nx 2\n", "0 1\n1 y\n"])
def test_file_bad_line_names_path_and_line(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=r"series\.txt:2: expected two numbers"):
        read_series_file(path)


def test_file_missing_and_empty(tmp_path):
    with pytest.raises(InputError, match="Could not open file"):
        read_series_file(str(tmp_path / "nope.txt"))
    with pytest.raises(InputError, match="Could not open file"):
        read_series_file(str(tmp_path))              # a directory
    with pytest.raises(InputError, match="File empty"):
        read_series_file(write(tmp_path, "# only a comment\n"))
    with pytest.raises(InputError, match="File empty"):
        read_series_file(write(tmp_path, "\n0 1\n"))  # blank first line ends the data
