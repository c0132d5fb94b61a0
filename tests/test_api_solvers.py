"""GAUSS_SEIDEL_SOLVER, PENALTY_SOLVER, NEWTON_SOLVER and the unavailable solvers
(Solfec-1.0 user manual, constraint solvers; Solfec-1.0 lng.c, where it departs from its manual; Solfec-1.0 bgs.c, Gauss-Seidel defaults): default formulas, argument checks,
attribute read/write rules, statistics slots and the Gauss-Seidel failure actions."""
from __future__ import annotations

import pytest

from solfec_py.api.solvers import (GAUSS_SEIDEL_SOLVER, HYBRID_SOLVER, NEWTON_SOLVER, PENALTY_SOLVER,
                                   SICONOS_SOLVER, SOLVERS, TEST_SOLVER, ConstraintSolver, is_solver)
from solfec_py.errors import InputError, InputTypeError, NotAvailableError, SimulationError

READ_ONLY = "Writing to a read-only member"
DBL_EPSILON = 2.0 ** -52   # IEEE double


# --------------------------------------------------------------------------- Gauss-Seidel

@pytest.mark.parametrize("epsilon, maxiter, meritval, diagepsilon, diagmaxiter", [
    # diagepsilon = max(DBL_EPSILON, 0.01 min(epsilon, meritval, 1e-4)); diagmaxiter = max(100, maxiter // 100)
    (1e-3, 1000, None, 1e-6, 100),        # min is the 1e-4 cap
    (1e-8, 50000, None, 1e-10, 500),      # min is epsilon
    (1e-3, 20099, 1e-7, 1e-9, 200),       # min is meritval; 20099 // 100 = 200
    (1e-20, 10, None, DBL_EPSILON, 100),  # floor at DBL_EPSILON
])
def test_gs_default_formulas(epsilon, maxiter, meritval, diagepsilon, diagmaxiter):
    kwargs = {} if meritval is None else {"meritval": meritval}
    gs = GAUSS_SEIDEL_SOLVER(epsilon, maxiter, **kwargs)
    # 0.01 * x is one rounding away from the decimal value: rel 1e-15
    assert gs.diagepsilon == pytest.approx(diagepsilon, rel=1e-15)
    assert gs.diagmaxiter == diagmaxiter and isinstance(gs.diagmaxiter, int)
    assert gs.merit_threshold == (1.0 if meritval is None else meritval)


def test_gs_defaults_and_keywords():
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100)
    assert (gs.epsilon, gs.maxiter, gs.diagsolver) == (1e-4, 100, "SEMISMOOTH_NEWTON")
    assert (gs.failure, gs.failure_action) == ("FAILURE_CONTINUE", "CONTINUE")
    assert (gs.reverse, gs.variant, gs.innerloops) == ("OFF", "FULL", 1)
    assert (gs.error, gs.iters, gs.rerhist, gs.merhist, gs.itershist) == ("OK", 0, [], [], None)
    cb = lambda solver: 1
    gs = GAUSS_SEIDEL_SOLVER(epsilon=1e-5, maxiter=10, meritval=1e-3, failure="CALLBACK",
                             diagepsilon=1e-9, diagmaxiter=7, diagsolver="PROJECTED_GRADIENT",
                             data=(1, 2), callback=cb)
    assert gs.failure == "FAILURE_CALLBACK" and gs.failure_callback is cb and gs.failure_data == (1, 2)
    assert (gs.diagepsilon, gs.diagmaxiter, gs.diagsolver) == (1e-9, 7, "PROJECTED_GRADIENT")
    assert GAUSS_SEIDEL_SOLVER(1, 1, failure="EXIT").failure == "FAILURE_EXIT"


@pytest.mark.parametrize("args, kwargs, exc, fragment", [
    ((0.0, 10), {}, InputError, "'epsilon' must be positive, got 0.0"),
    (("a", 10), {}, InputTypeError, "'epsilon' must be a number"),
    ((1e-4, 0), {}, InputError, "'maxiter' must be positive, got 0"),
    ((1e-4, 10.0), {}, InputTypeError, "'maxiter' must be an integer, got 10.0"),
    ((1e-4, 10), {"meritval": 0.0}, InputError, "'meritval' must be positive"),     # checked on meritval itself
    ((1e-4, 10), {"failure": "STOP"}, InputError, "Invalid failure action.*'STOP'"),
    ((1e-4, 10), {"failure": 1}, InputTypeError, "'failure' must be a string"),
    ((1e-4, 10), {"failure": "CALLBACK"}, InputError,
     "A callback routine must be given with CALLBACK failure action"),
    ((1e-4, 10), {"diagepsilon": -1}, InputError, "'diagepsilon' must be positive"),
    ((1e-4, 10), {"diagmaxiter": 0}, InputError, "'diagmaxiter' must be positive"),
    ((1e-4, 10), {"diagmaxiter": 5.5}, InputTypeError, "'diagmaxiter' must be an integer"),
    ((1e-4, 10), {"diagsolver": "NEWTON"}, InputError, "Invalid diagonal solver.*'NEWTON'"),
    ((1e-4, 10), {"callback": 3}, InputTypeError, "'callback' must be callable, got 3"),
    ((1e-4,), {}, InputTypeError, "GAUSS_SEIDEL_SOLVER: missing a required argument: 'maxiter'"),
    ((1e-4, 10), {"epsilion": 1}, InputTypeError, "GAUSS_SEIDEL_SOLVER: .*epsilion"),
    ((1e-4, 10, 1, "CONTINUE", 1e-6, 10, "SEMISMOOTH_NEWTON", None, None, 9), {}, InputTypeError,
     "GAUSS_SEIDEL_SOLVER: too many positional"),
])
def test_gs_argument_errors(args, kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        GAUSS_SEIDEL_SOLVER(*args, **kwargs)


def test_gs_read_only_and_missing_attributes():
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100)
    for name in ("failure", "error", "iters", "rerhist", "merhist"):
        with pytest.raises(ValueError, match=f"{READ_ONLY} '{name}'"):
            setattr(gs, name, 1)
    with pytest.raises(AttributeError):      # not an attribute (Solfec-1.0 lng.c, where it departs from its manual)
        gs.meritval
    with pytest.raises(AttributeError):
        gs.meritval = 1.0


def test_gs_numeric_setters():
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100)
    gs.epsilon, gs.maxiter, gs.diagepsilon, gs.diagmaxiter, gs.innerloops = 1e-6, 1e4, 1e-12, 5, 3
    assert (gs.epsilon, gs.maxiter, gs.diagepsilon, gs.diagmaxiter, gs.innerloops) == (1e-6, 10000, 1e-12, 5, 3)
    assert isinstance(gs.maxiter, int)
    for name, bad, fragment in [
        ("epsilon", 0, "'epsilon' must be a number > 0, got 0"),
        ("epsilon", "x", "'epsilon' must be a number > 0, got 'x'"),
        ("maxiter", -3, "'maxiter' must be an integer > 0, got -3"),
        ("maxiter", 2.5, "'maxiter' must be an integer > 0, got 2.5"),
        ("diagepsilon", -1e-3, "'diagepsilon' must be a number > 0"),
        ("diagmaxiter", 0, "'diagmaxiter' must be an integer > 0"),
        ("innerloops", 0, "'innerloops' must be an integer >= 1"),
    ]:
        with pytest.raises(InputTypeError, match=fragment):   # setters raise TypeError (Solfec-1.0 lng.c argument checks)
            setattr(gs, name, bad)
    assert (gs.epsilon, gs.maxiter) == (1e-6, 10000)           # failed writes changed nothing


def test_gs_keyword_setters():
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100)
    gs.diagsolver, gs.reverse, gs.variant = "DE_SAXCE_FENG", "ON", "MIDDLE_JACOBI"
    assert (gs.diagsolver, gs.reverse, gs.variant) == ("DE_SAXCE_FENG", "ON", "MIDDLE_JACOBI")
    with pytest.raises(InputError, match="Invalid diagonal solver"):
        gs.diagsolver = "SSN"
    with pytest.raises(InputError, match="Invalid reverse switch \\(ON/OFF accepted\\)"):
        gs.reverse = "YES"
    with pytest.raises(InputError, match="Invalid variant"):
        gs.variant = "JACOBI"
    with pytest.raises(InputTypeError, match="'reverse' must be a string"):
        gs.reverse = True


def test_itershist():
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100)
    gs.record_solve(7)
    assert gs.itershist is None                     # not recorded until enabled
    gs.itershist = "ON"
    assert gs.itershist == []
    gs.record_solve(3, rerhist=[0.1, 0.01, 1e-5])
    gs.record_solve(5)
    assert gs.itershist == [3, 5]
    with pytest.warns(RuntimeWarning, match="ignored"):
        gs.itershist = "OFF"                        # other values are ignored
    assert gs.itershist == [3, 5]
    gs.itershist = "ON"                             # re-enabling resets
    assert gs.itershist == []


def test_record_solve_statistics():
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100)
    gs.record_solve(3, rerhist=[1.0, 0.1, 1e-5], merhist=[2.0, 0.5, 0.1], error="DIVERGED")
    assert (gs.iters, gs.rerhist, gs.merhist, gs.error) == (3, [1.0, 0.1, 1e-5], [2.0, 0.5, 0.1], "DIVERGED")
    gs.rerhist.append(99.0)                          # a copy is returned
    assert gs.rerhist == [1.0, 0.1, 1e-5]
    with pytest.raises(ValueError, match="unknown solver error code"):
        gs.record_solve(1, error="BROKEN")


# --------------------------------------------------------------------------- failure actions

def test_failure_continue_and_ok():
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100, failure="EXIT")
    gs.handle_failure()                              # error 'OK': nothing happens
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100)
    gs.record_solve(100, error="DIVERGED")
    gs.handle_failure()                              # CONTINUE: nothing happens


@pytest.mark.parametrize("error", ["DIVERGED", "DIAGONAL_DIVERGED"])
def test_failure_exit(error):
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100, failure="EXIT")
    gs.record_solve(100, error=error)
    with pytest.raises(RuntimeError, match=f"GAUSS_SEIDEL_SOLVER failed with error code {error}$"):
        gs.handle_failure()


@pytest.mark.parametrize("data, expected_args", [
    (None, ()), (5, (5,)), ((1, "a"), (1, "a")), ([1, 2], ([1, 2],)),
])
def test_failure_callback_arguments(data, expected_args):
    calls = []

    def callback(solver, *args):
        calls.append((solver, args))
        return 1

    kwargs = {} if data is None else {"data": data}
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100, failure="CALLBACK", callback=callback, **kwargs)
    gs.record_solve(100, error="DIVERGED")
    gs.handle_failure()
    assert calls == [(gs, expected_args)]


def test_failure_callback_return_values():
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100, failure="CALLBACK", callback=lambda s: 0)
    gs.record_solve(100, error="DIAGONAL_FAILED")
    with pytest.raises(SimulationError, match="failed with error code DIAGONAL_FAILED .*returned 0"):
        gs.handle_failure()
    gs = GAUSS_SEIDEL_SOLVER(1e-4, 100, failure="CALLBACK", callback=lambda s: None)
    gs.record_solve(100, error="DIVERGED")
    with pytest.raises(InputTypeError, match="'callback' must return an int"):
        gs.handle_failure()


# --------------------------------------------------------------------------- penalty

def test_penalty_solver():
    assert PENALTY_SOLVER().variant == "IMPLICIT"
    p = PENALTY_SOLVER("EXPLICIT")
    assert p.variant == "EXPLICIT"
    with pytest.raises(ValueError, match=READ_ONLY):
        p.variant = "IMPLICIT"
    with pytest.raises(InputError, match="Invalid variant.*'SEMI'"):
        PENALTY_SOLVER(variant="SEMI")
    with pytest.raises(InputTypeError, match="'variant' must be a string"):
        PENALTY_SOLVER(1)
    with pytest.raises(InputTypeError, match="PENALTY_SOLVER: too many positional"):
        PENALTY_SOLVER("IMPLICIT", 1)


# --------------------------------------------------------------------------- Newton

NEWTON_DEFAULTS = {  # Solfec-1.0 user manual, NEWTON_SOLVER with the defaults lng.c puts in effect
    "meritval": 1e-8, "maxiter": 1000, "locdyn": "ON", "linver": "GMRES", "linmaxiter": 10,
    "maxmatvec": 10000, "epsilon": 0.25, "delta": 0.0, "theta": 0.25, "omega": 1e-10, "gsflag": "ON",
}


def test_newton_defaults():
    ns = NEWTON_SOLVER()
    assert {name: getattr(ns, name) for name in NEWTON_DEFAULTS} == NEWTON_DEFAULTS
    assert ns.reldelta_mode == "OFF"
    assert (ns.iters, ns.merhist, ns.mvhist, ns.itershist) == (0, [], [], None)
    with pytest.raises(AttributeError):           # reldelta is not an attribute
        ns.reldelta


def test_newton_all_keywords():
    ns = NEWTON_SOLVER(1e-6, 50, "OFF", "DIAG", 20, 500, 0.1, 1e-3, 1.0, 1e-8, "OFF", "maxWii")
    assert (ns.meritval, ns.maxiter, ns.locdyn, ns.linver, ns.linmaxiter, ns.maxmatvec) == (
        1e-6, 50, "OFF", "DIAG", 20, 500)
    assert (ns.epsilon, ns.delta, ns.theta, ns.omega, ns.gsflag, ns.reldelta_mode) == (
        0.1, 1e-3, 1.0, 1e-8, "OFF", "maxWii")


@pytest.mark.parametrize("kwargs, exc, fragment", [
    ({"meritval": 0}, InputError, "'meritval' must be positive"),
    ({"maxiter": 0}, InputError, "'maxiter' must be positive"),
    ({"maxiter": 10.0}, InputTypeError, "'maxiter' must be an integer"),
    ({"locdyn": "YES"}, InputError, "Invalid locdyn value: neither ON nor OFF"),
    ({"locdyn": 1}, InputTypeError, "'locdyn' must be a string"),
    ({"linver": "CG"}, InputError, "Invalid linver value: neither GMRES nor DIAG"),
    ({"linver": None}, InputTypeError, "'linver' must be a string"),
    ({"linmaxiter": 0}, InputError, "'linmaxiter' must be positive"),
    ({"maxmatvec": 2.5}, InputTypeError, "'maxmatvec' must be an integer"),
    ({"epsilon": -0.1}, InputError, "'epsilon' must be positive"),
    ({"delta": -1e-9}, InputError, "'delta' must be non-negative"),
    ({"theta": 0.0}, InputTypeError, "'theta' must be a number > 0 and <= 1, got 0.0"),
    ({"theta": 1.5}, InputTypeError, "'theta' must be a number > 0 and <= 1, got 1.5"),
    ({"omega": 0}, InputError, "'omega' must be positive"),
    ({"gsflag": "MAYBE"}, InputError, "Invalid gsflag value: neither ON nor OFF"),
    ({"gsflag": 0}, InputTypeError, "'gsflag' must be a string"),
    ({"reldelta": "avg"}, InputError, "Invalid reldelta value: neither of \\{OFF, avgWii, minWii, maxWii\\}"),
    ({"reldelta": 1}, InputTypeError, "'reldelta' must be a string"),
    ({"merit": 1}, InputTypeError, "NEWTON_SOLVER: .*merit"),
])
def test_newton_argument_errors(kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        NEWTON_SOLVER(**kwargs)


def test_newton_setters():
    ns = NEWTON_SOLVER()
    ns.meritval, ns.maxiter, ns.linmaxiter, ns.maxmatvec = 1e-4, 20, 5, 100
    ns.epsilon, ns.delta, ns.theta, ns.omega = 0.5, 0.0, 0.5, 1e-6
    ns.locdyn, ns.linver, ns.gsflag = "OFF", "DIAG", "OFF"
    assert (ns.meritval, ns.maxiter, ns.linmaxiter, ns.maxmatvec) == (1e-4, 20, 5, 100)
    assert (ns.epsilon, ns.delta, ns.theta, ns.omega) == (0.5, 0.0, 0.5, 1e-6)
    assert (ns.locdyn, ns.linver, ns.gsflag) == ("OFF", "DIAG", "OFF")
    for name, bad, fragment in [
        ("meritval", 0, "'meritval' must be a number > 0"),
        ("maxiter", 0, "'maxiter' must be an integer > 0"),
        ("linmaxiter", "10", "'linmaxiter' must be an integer > 0, got '10'"),
        ("maxmatvec", -1, "'maxmatvec' must be an integer > 0"),
        ("epsilon", 0, "'epsilon' must be a number > 0"),
        ("delta", -1, "'delta' must be a number >= 0"),
        ("theta", 0.6, "'theta' must be a number > 0 and <= 0.5, got 0.6"),   # setter range (0, 0.5]
        ("omega", -1, "'omega' must be a number > 0"),
    ]:
        with pytest.raises(InputTypeError, match=fragment):
            setattr(ns, name, bad)
    with pytest.raises(InputError, match="Invalid linver value"):
        ns.linver = "CG"
    with pytest.raises(InputError, match="Invalid locdyn value"):
        ns.locdyn = "on"
    with pytest.raises(InputError, match="Invalid gsflag value"):
        ns.gsflag = "no"
    for name in ("iters", "merhist", "mvhist"):
        with pytest.raises(ValueError, match=READ_ONLY):
            setattr(ns, name, [])
    ns.itershist = "ON"
    ns.record_solve(12, merhist=[1e-2, 1e-9], mvhist=[3, 4])
    assert (ns.iters, ns.merhist, ns.mvhist, ns.itershist) == (12, [1e-2, 1e-9], [3, 4], [12])


# --------------------------------------------------------------------------- registry

def test_is_solver_and_registry():
    solvers = [GAUSS_SEIDEL_SOLVER(1e-4, 10), PENALTY_SOLVER(), NEWTON_SOLVER()]
    assert all(is_solver(s) and isinstance(s, ConstraintSolver) for s in solvers)
    assert [type(s) for s in solvers] == [SOLVERS[s.kind] for s in solvers]
    assert sorted(SOLVERS) == ["GAUSS_SEIDEL_SOLVER", "NEWTON_SOLVER", "PENALTY_SOLVER"]
    assert not any(is_solver(x) for x in (None, "GAUSS_SEIDEL_SOLVER", 1, GAUSS_SEIDEL_SOLVER))


@pytest.mark.parametrize("command", [SICONOS_SOLVER, HYBRID_SOLVER])
def test_unavailable_solvers(command):
    with pytest.raises(NotAvailableError, match=f"{command.__name__} is not available.*GAUSS_SEIDEL_SOLVER"):
        command()


def test_run_accepts_only_solver_objects():
    from solfec_py.api.run import RUN
    from solfec_py.api.solfec import SOLFEC

    sol = SOLFEC("DYNAMIC", 1e-3, "out")
    with pytest.raises(InputTypeError, match="'solver' must be a constraint solver object, got 'GS'"):
        RUN(sol, "GS", 1.0)
    RUN(sol, GAUSS_SEIDEL_SOLVER(1e-4, 10), 2e-3)      # no constraints: the solver is not called
    assert sol.time == pytest.approx(2e-3, rel=1e-12)


def test_test_solver_is_newton_with_solfecs_test_parameters():
    # Solfec-1.0 lng.c: TEST_SOLVER(meritval, maxiter, maxmatvec, linmaxiter, epsilon, delta,
    # omega), defaults 1e-8, 1000, 1000, 10, 0.25, 0.51e-7, 1e-9
    ts = TEST_SOLVER()
    assert isinstance(ts, NEWTON_SOLVER) and ts.kind == "NEWTON_SOLVER"
    assert (ts.meritval, ts.maxiter, ts.maxmatvec, ts.linmaxiter, ts.epsilon, ts.delta, ts.omega) == (
        1e-8, 1000, 1000, 10, 0.25, 0.51e-7, 1e-9)
    ts = TEST_SOLVER(1e-6, 1000, 1000, 100, 0.5, 0.5e-7, 1e-11)      # inp/cubes.py's
    assert (ts.meritval, ts.maxmatvec, ts.linmaxiter, ts.epsilon, ts.delta, ts.omega) == (
        1e-6, 1000, 100, 0.5, 0.5e-7, 1e-11)
    assert repr(ts).startswith("TEST_SOLVER(meritval=1e-06, maxiter=1000, maxmatvec=1000")
    with pytest.raises(InputError, match="delta"):
        TEST_SOLVER(1e-6, 10, 10, 10, 0.25, 0.0)                        # positive in Solfec
    with pytest.raises(InputTypeError):
        TEST_SOLVER(1e-6, 10, 10, 10, 0.25, 1e-7, 1e-9, 5)


def test_test_solver_holds_a_block_by_its_weight(api):
    """A block sliding on Coulomb contacts under TEST_SOLVER: the normal reactions carry its
    weight and friction decelerates it by mu g (as NEWTON_SOLVER's test)."""
    from test_solvers_gauss_seidel import sliding_block

    mu, v0, g = 0.5, 1.0, 10.0
    ts = api.TEST_SOLVER(1e-16, 200)
    sol, block, _ = sliding_block(api, mu, v0, g, solver=ts)
    api.RUN(sol, ts, 0.1)
    # merit 1e-16 (a relative energy error): velocities and reactions to ~1e-8
    assert block.velo[3] == pytest.approx(v0 - mu * g * 0.1, abs=1e-6)
    assert sum(c.R[2] for c in block.constraints) == pytest.approx(block.mass * g, rel=1e-6)
