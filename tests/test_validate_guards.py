"""Input guards (solfec_py/validate.py, docs/limits.md): non-finite and unrepresentable
numbers, numpy scalars and arrays, C-int ids, and the limits on RUN steps, solver
iterations and generated mesh elements, checked before anything is allocated or run.
The cases are the fuzzing findings that started these guards."""
from __future__ import annotations

import time

import numpy as np
import pytest

from solfec_py import validate as V
from solfec_py.errors import InputError, InputTypeError

from conftest import CUBE

INF = float('inf')


@pytest.fixture
def model(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/guards')
    sol.verbose = 'OFF'
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol))
    return sol, ball


def test_numbers_too_large_for_a_float(api):
    with pytest.raises(InputError, match=r"'radius' must be a number a float can represent, got an integer of about 401 digits"):
        api.SPHERE((0, 0, 0), 10 ** 400, 1, 1)
    with pytest.raises(InputError, match=r"'center\[0\]' must be a number a float can represent"):
        api.SPHERE((10 ** 400, 0, 0), 1, 1, 1)
    with pytest.raises(InputError, match=r"'nodes\[0\]' must be a number a float can represent"):
        api.HEX([10 ** 400] + eval(CUBE)[1:], 1, 1, 1, 1, [1] * 6)


@pytest.mark.parametrize("value", [INF, -INF, float('nan'), np.float64('inf'), np.array(INF)])
def test_non_finite_numbers_are_refused_naming_the_argument(api, model, value):
    sol, ball = model
    with pytest.raises(InputError, match="'duration' must be"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-4, 10), value)
    with pytest.raises(InputError, match="'step' must be"):
        api.SOLFEC('DYNAMIC', value, 'out/inf')
    with pytest.raises(InputError, match="'friction' must be"):
        api.SURFACE_MATERIAL(sol, friction=value)
    with pytest.raises(InputError, match=r"'point\[0\]' must be"):
        api.DISPLACEMENT(ball, (value, 0, 0))
    with pytest.raises(InputError, match=r"'points\[1\]' must be"):
        api.TIME_SERIES([0, value, 1, 1])
    with pytest.raises(InputTypeError, match="'epsilon' must be a number > 0"):   # a setter: TypeError
        api.GAUSS_SEIDEL_SOLVER(1e-4, 10).epsilon = value
    assert sol.time == 0.0                                   # nothing ran


def test_run_duration_is_bounded_by_the_number_of_steps(api, model):
    """1e300 s at h = 1e-3 would take 1e303 steps (the issue's RUN that never returned)."""
    sol, ball = model
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"'duration' = 1e\+300 at the time step 0\.001 takes 1e\+303 steps;"
                                         r" one RUN may take at most 1e\+08"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-4, 10), 1e300)
    sol.step = 1e-300
    with pytest.raises(InputError, match="takes 1e\\+300 steps"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-4, 10), 1.0)
    assert time.perf_counter() - start < 1.0 and sol.time == 0.0
    with V.limits(steps=5):
        sol.step = 1e-3
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-4, 10), 0.005)
        with pytest.raises(InputError, match="at most 5"):
            api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-4, 10), 0.0051)
    assert V.LIMITS.steps == 10 ** 8


def test_iteration_counts_are_bounded(api):
    with pytest.raises(InputError, match=r"'maxiter' must be an integer in \[-2147483648, 2147483647\]"):
        api.GAUSS_SEIDEL_SOLVER(1e-4, 2 ** 40)     # the 8 TiB case
    with pytest.raises(InputError, match=r"'maxiter' must be at most 1000000 iterations"):
        api.GAUSS_SEIDEL_SOLVER(1e-4, 2 ** 30)
    with pytest.raises(InputError, match=r"'maxiter' must be an integer in \[-2147483648, 2147483647\]"):
        api.GAUSS_SEIDEL_SOLVER(1e-4, 10 ** 50)
    with pytest.raises(InputError, match="'maxmatvec' must be at most"):
        api.NEWTON_SOLVER(maxmatvec=10 ** 7)
    gs = api.GAUSS_SEIDEL_SOLVER(1e-4, 10)
    with pytest.raises(InputTypeError, match="'diagmaxiter' must be at most"):
        gs.diagmaxiter = 10 ** 7
    gs.maxiter = 1e6                     # an integral float is accepted by the setter
    assert gs.maxiter == 10 ** 6


def test_generated_meshes_are_bounded_before_allocating(api):
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"HEX: 1000000 \(i\) x 1000000 \(j\) x 1000000 \(k\) = 10\*\*18|"
                                         r"HEX: 1000000 \(i\) x 1000000 \(j\) x 1000000 \(k\) = 1000000000000000000 elements"):
        api.HEX(eval(CUBE), 10 ** 6, 10 ** 6, 10 ** 6, 1, [1] * 6)
    with pytest.raises(InputError, match="PIPE: .* elements; a generated mesh may have at most 1000000"):
        api.PIPE((0, 0, 0), (0, 0, 1), 1, 0.1, 1000, 1000, 1000, 1, [1] * 4)
    assert time.perf_counter() - start < 1.0


def test_ids_are_c_ints(api, model):
    sol, ball = model
    with pytest.raises(InputError, match=r"'volid' must be an integer in \[-2147483648, 2147483647\],"
                                         r" got an integer of about 51 digits"):
        api.SPHERE((0, 0, 0), 1, 10 ** 50, 1)
    with pytest.raises(InputError, match=r"'surids\[0\]' must be an integer in"):
        api.HEX(eval(CUBE), 1, 1, 1, 1, [2 ** 40] + [1] * 5)
    with pytest.raises(InputError, match=r"'elements\[9\]' must be an integer in"):
        api.MESH(eval(CUBE), [8, 0, 1, 2, 3, 4, 5, 6, 7, 10 ** 50], 1)
    with pytest.raises(InputError, match="'surf1' must be an integer in"):
        api.SURFACE_MATERIAL(sol, surf1=-2 ** 31 - 1)


def test_numpy_scalars_and_0d_arrays_are_numbers(api, model):
    sol, ball = model
    s = api.SPHERE((np.float32(1), np.int64(0), np.array(0.5)), np.array(0.25), np.int16(3), np.array(4))
    assert s.center == (1.0, 0.0, 0.5) and s.radius == 0.25
    gs = api.GAUSS_SEIDEL_SOLVER(np.float64(1e-4), np.array(100))
    assert gs.maxiter == 100
    api.RUN(sol, gs, np.float64(0.002))
    assert sol.time == pytest.approx(0.002)


@pytest.mark.parametrize("array", [np.array([0.5]), np.zeros(3), np.zeros((2, 2))])
def test_other_arrays_get_our_message(api, model, array):
    sol, ball = model
    with pytest.raises(InputTypeError, match=r"'radius' must be a number, got an array of shape .*; pass one number"):
        api.SPHERE((0, 0, 0), array, 1, 1)
    with pytest.raises(InputTypeError, match=r"'maxiter' must be an integer, got an array of shape"):
        api.GAUSS_SEIDEL_SOLVER(1e-4, array.astype(int))
    with pytest.raises(InputTypeError, match="'center' must be a tuple of 3 numbers, got an array of shape"):
        api.SPHERE(array, 0.5, 1, 1)


def test_derived_quantities_must_be_representable(api, model):
    sol, ball = model
    big = api.SPHERE((0, 0, 0), 1e150, 1, 1)
    with pytest.raises(InputError, match="the volume, mass and inertia of 'shape' .* cannot be represented"):
        api.BODY(sol, 'RIGID', big, api.BULK_MATERIAL(sol, density=1e300))
    with pytest.raises(InputError, match="the volume, mass and inertia of 'shape' cannot be represented"):
        api.MASS_CENTER(api.SPHERE((0, 0, 0), 1e150, 1, 1))
    mesh = api.HEX(eval(CUBE), 1, 1, 1, 1, [1] * 6)
    api.SCALE(mesh, (1e50, 1e50, 1e50))              # coordinates up to 1e50: fine
    with pytest.raises(InputError, match="the shape coordinates after this 'coefs' cannot be represented"):
        api.SCALE(mesh, (1e300, 1e300, 1e300))
    with pytest.raises(InputError, match="the shape coordinates after this 'vector' cannot be represented"):
        api.TRANSLATE(mesh, (1.7e308, 1.7e308, 1.7e308))
    assert api.MASS_CENTER(mesh) == pytest.approx((0.5e50, 0.5e50, 0.5e50))     # untouched
    with pytest.raises(InputError, match="'direction' is too long"):
        api.FORCE(ball, 'SPATIAL', (0, 0, 0), (1e200, 1e200, 1e200), 1.0)


def test_limits_names_are_checked():
    with pytest.raises(InputError, match=r"unknown limits \['step'\]"):
        with V.limits(step=1):
            pass
