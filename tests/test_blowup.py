"""The blow-up detector of dynamic runs: a kinetic energy that grows by more than
SOLFEC.blowup (default 1e6) in one step, or an energy that becomes infinite, stops RUN with
a SimulationError naming the body, the time and the energy; the frames written before stay
readable (the model re-opened on the same path is in READ mode and HISTORY reads them)."""
from __future__ import annotations

import pytest

from solfec_py.errors import InputTypeError, SimulationError


def spring_model(api, path, stiffness, damping=0.0, h=1e-2):
    """A unit mass on a spring k to an obstacle, moving at 2 m/s (2 J): with k = 1e8 and
    h = 1e-2 the step is 100 times the period / (2 pi), far beyond any stable step."""
    sol = api.SOLFEC('DYNAMIC', h, path)
    sol.verbose = 'OFF'
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    anchor = api.BODY(sol, 'OBSTACLE', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0), 0.1, 1, 1), mat, label='ball')
    api.BODY_CHARS(ball, 1.0, 1.0, (1, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    api.PUT_SPRING(anchor, (0, 0, 0), ball, (1, 0, 0), lambda s, v: -stiffness * s - damping * v, (-1, 1))
    api.INITIAL_VELOCITY(ball, (2, 0, 0), (0, 0, 0))
    return sol, ball


def test_stiff_spring_at_a_large_step_stops_at_the_first_blown_up_step(api):
    """2 J -> 5e7 J in the first step (a factor 2.5e7 > 1e6): the run stops at t = 0.01
    naming body 2 ('ball'); without the detector ('OFF') the same run goes on silently."""
    sol, ball = spring_model(api, 'out/spring', 1e8)
    assert api.ENERGY(sol)[0] == pytest.approx(2.0)
    with pytest.raises(SimulationError, match=r"kinetic energy blow-up.* from 2 J to 4\.998e\+07 J"
                                              r".*of body 2 \('ball'\) at time 0\.01 after 1 steps"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.05)
    sol2, _ = spring_model(api, 'out/spring_off', 1e8)
    sol2.blowup = 'OFF'
    api.RUN(sol2, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.05)
    assert sol2.time == pytest.approx(0.05) and sol2.blowup == 'OFF'


def test_the_factor_is_settable(api):
    """With SOLFEC.blowup = 1e8 the first step (factor 2.5e7) passes; the damped spring's
    next jump (4.5e8 J -> 4.5e16 J, a factor 1e8 ... exactly at the limit) is caught by 1e7."""
    sol, ball = spring_model(api, 'out/spring_factor', 1e8, damping=1e6)
    sol.blowup = 1e9
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.02)          # 2 J -> 4.5e8 J: 2.2e8 < 1e9
    assert api.ENERGY(sol)[0] == pytest.approx(4.4994e8, rel=1e-3)
    sol.blowup = 1e7
    with pytest.raises(SimulationError, match="factor SOLFEC.blowup = 1e\\+07"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.02)        # 4.5e8 J -> 4.5e16 J
    for bad in (1.0, 0.5, float('inf'), 'ON'):
        with pytest.raises((InputTypeError, ValueError)):
            sol.blowup = bad


def test_huge_force_gives_infinite_energy_and_results_stay_readable(api):
    """FORCE 1e300 N on a 1 kg ball: v = 1e298 m/s after one step of 1e-2 s, so the kinetic
    energy (1e596 J) is infinite: RUN stops naming the body and the time. The frames stored
    before (t = 0, 0.01 ... 0.05 of a first RUN without the force) re-open in READ mode."""
    sol = api.SOLFEC('DYNAMIC', 1e-2, 'out/force')
    sol.verbose = 'OFF'
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat, label='ball')
    api.BODY_CHARS(ball, 1.0, 1.0, (0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    api.INITIAL_VELOCITY(ball, (1, 0, 0), (0, 0, 0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.05)
    api.FORCE(ball, 'SPATIAL', (0, 0, 0), (1, 0, 0), 1e300)
    with pytest.raises(SimulationError, match=r"infinite energy .* of body 1 \('ball'\) at time 0\.06"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.05)
    again = api.SOLFEC('DYNAMIC', 1e-2, 'out/force')
    assert again.mode == 'READ'
    api.BODY(again, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(again, density=1000.0))
    assert api.DURATION(again) == pytest.approx((0.0, 0.05))      # nothing of the blown-up step
    t, ke = api.HISTORY(again, [(again, 'KINETIC')], 0, 0.05)
    assert t[0] == 0.0 and len(t) >= 5
    assert ke == pytest.approx([0.5] * len(t))                     # free flight at 1 m/s


def test_damping_past_the_explicit_stable_step_names_the_damping(api):
    """Stiffness-proportional damping eta lowers the stable step of the explicit scheme
    (central difference with the damping force -eta K u at the step's start): stable while
    h < 2 / omega_max (sqrt(1 + xi^2) - xi), xi = eta omega_max / 2. A single HEX8 element
    stepped at half its critical step (RUN's cut, h = 1 / omega_max) is stable without
    damping and unstable with xi = 2 (a limit of 0.24 x 2 / omega_max, half the step): the
    element inverts and the error names the damping; the undamped run ends normally."""
    def cube(path, eta):
        sol = api.SOLFEC('DYNAMIC', 1.0, path)
        sol.verbose = 'OFF'
        mat = api.BULK_MATERIAL(sol, young=1e6, poisson=0.3, density=1000.0)
        shape = api.HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1], 1, 1, 1, 0, [0] * 6)
        body = api.BODY(sol, 'FINITE_ELEMENT', shape, mat)
        api.INITIAL_VELOCITY(body, (0, 0, 0), (0.3, 0.2, 1.0))
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 1e-9)     # one step: RUN cuts h to h_crit / 2
        h = sol.step
        body.damping = 4.0 * h                                      # xi = eta omega_max / 2 = 2
        if eta == 0.0:
            body.damping = 0.0
        return sol, h

    sol, h = cube('out/damped_fe', 1.0)
    with pytest.raises(SimulationError, match=r"inverted .*\(its damping .* lowers the stable step of the explicit"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 2000 * h)
    sol, h = cube('out/undamped_fe', 0.0)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 2000 * h)
    assert sol.time >= 2000 * h                                 # ran to its end
