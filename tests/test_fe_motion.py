"""Finite-element bodies in free motion against conservation laws and the rigid body:
the spatial angular momentum of a free spinning body (the explicit midpoint step conserves
it exactly for a rotation-invariant energy and a lumped mass: sum m x_mid x f_int = 0), and a
stiff body turned by 90 degrees in 0.1 s following the rigid rotation to within its elastic
strain.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from conftest import solfec_clock

_RUNS = itertools.count()
A = 0.5                                   # half edge of the test box (2A x A x A)


def box(api, step, young=1e7, scheme=None, divisions=(2, 2, 2), form="TL"):
    sol = api.SOLFEC("DYNAMIC", step, f"out/fe{next(_RUNS)}")
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=young, poisson=0.25, density=1000.0)
    x0, y0, z0, x1, y1, z1 = -2 * A, -A, -A / 2, 2 * A, A, A / 2
    nodes = [x0, y0, z0, x1, y0, z0, x1, y1, z0, x0, y1, z0, x0, y0, z1, x1, y0, z1, x1, y1, z1, x0, y1, z1]
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(nodes, *divisions, 1, [1, 2, 3, 4, 5, 6]), mat, form=form)
    if scheme:
        body.scheme = scheme
    return sol, body


def loaded_bar(api):
    """A quasi-static 1 x 0.2 x 0.2 bar of 5 HEX8, its end x = 0 pinned at four corners, a
    100 N load down at the far corner."""
    sol = api.SOLFEC("QUASI_STATIC", 1e-2, f"out/qs{next(_RUNS)}")
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1e3)
    nodes = [0, 0, 0, 1, 0, 0, 1, 0.2, 0, 0, 0.2, 0, 0, 0, 0.2, 1, 0, 0.2, 1, 0.2, 0.2, 0, 0.2, 0.2]
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(nodes, 5, 1, 1, 1, [1] * 6), mat)
    for p in ((0, 0, 0), (0, 0.2, 0), (0, 0, 0.2), (0, 0.2, 0.2)):
        api.FIX_POINT(body, p)
    api.FORCE(body, "SPATIAL", (1, 0.2, 0.2), (0, 0, -1), 100.0)
    return sol, body


def momentum(body):
    blk = body.block
    sl = blk.nodes_of(body.row)
    m = blk.prepared().mass[sl]
    x, v = blk.X[sl] + blk.q[sl], blk.u[sl]
    return (m[:, None] * v).sum(axis=0), (m[:, None] * np.cross(x, v)).sum(axis=0)


@pytest.mark.parametrize("scheme", ["DEF_EXP", "DEF_LIM"])
def test_free_spin_keeps_angular_momentum(api, scheme):
    sol, body = box(api, 2e-4, scheme=scheme)
    # a spin about an axis that is not principal: the body tumbles and deforms
    api.INITIAL_VELOCITY(body, (0.1, 0.0, 0.0), (1.0, 2.0, 3.0))
    p0, l0 = momentum(body)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.1)      # 500 steps, a sixth of a turn
    p1, l1 = momentum(body)
    assert np.linalg.norm(l1 - l0) < 1e-10 * np.linalg.norm(l0)   # round-off only
    assert np.linalg.norm(p1 - p0) < 1e-12 * np.linalg.norm(p0)
    assert np.abs(np.array(body.conf)).max() > 1e-2               # it did move


def test_def_lim_angular_momentum_balance_of_a_damped_free_body(api):
    """DEF_LIM's exact discrete balance for a free body. With x_mid = X + q + h/2 u,
    L(t+h) - L(t) = sum x_mid x M du, and the step solves
    (M + c K(q_mid)) du = h (-f_int(q_mid) - eta K(q_mid) u), c = eta h / 2 + h^2 / 4.
    f_int is frame invariant, so sum x_mid x f_int = 0 and K(q_mid) [w]x x_mid = [w]x f_int,
    hence the torque of K v is sum f_int x v and
        L(t+h) - L(t) = -sum f_int(q_mid) x (h eta u + c du):
    not zero once the body is strained, so DEF_LIM (Solfec-1.0 fem.c's scheme) does not keep
    the angular momentum of a free body; with the damping eta K u acting on a spin it can
    feed it (docs/fem.md). Checked step by step on inp/spaghetti.py's 4-element fragment
    (6 x 2 x 2 mm, young 1e6, density 500, eta = 1e-4, h = 1e-3) to round-off of the terms."""
    h, eta = 1e-3, 1e-4
    sol = api.SOLFEC("DYNAMIC", h, f"out/fe{next(_RUNS)}")
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e6, poisson=0.25, density=500.0)
    nodes = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
    mesh = api.HEX(nodes, 4, 1, 1, 1, [1] * 6)
    api.SCALE(mesh, (6e-3, 2e-3, 2e-3))
    body = api.BODY(sol, "FINITE_ELEMENT", mesh, mat)
    body.scheme, body.damping = "DEF_LIM", eta
    api.INITIAL_VELOCITY(body, (0.01, 0.0, 0.0), (0.5, -10.0, 1.0))
    blk = body.block
    sl = blk.nodes_of(body.row)
    X = blk.X[sl]
    blk.u[sl] += 1e-3 * np.sin(X[:, :1] * np.pi / 6e-3) * np.array([1.0, 0.5, -0.5])   # a strain rate
    m = blk.prepared().mass[sl]
    c = 0.5 * eta * h + 0.25 * h * h
    solver = api.GAUSS_SEIDEL_SOLVER(1e-8, 100)
    for _ in range(30):
        q, u = blk.q[sl].copy(), blk.u[sl].copy()
        blk.q[sl] = q + 0.5 * h * u
        fint = np.zeros_like(blk.q[: blk.N])
        blk.solver.internal_forces(sol.time, fint)
        fint = fint[sl]
        blk.q[sl] = q
        blk.state_changed(np.array([body.row]))
        api.RUN(sol, solver, h)
        du = blk.u[sl] - u
        dL = (m[:, None] * (np.cross(X + blk.q[sl], blk.u[sl]) - np.cross(X + q, u))).sum(axis=0)
        terms = np.cross(fint, h * eta * u + c * du)
        scale = np.abs(terms).sum() + 1e-12 * np.abs(m[:, None] * np.cross(X + q, u)).sum()
        assert np.abs(dL + terms.sum(axis=0)).max() <= 1e-9 * scale, (dL, -terms.sum(axis=0))
    assert np.abs(terms.sum(axis=0)).max() > 1e-6 * np.abs((m[:, None] * np.cross(X + q, u)).sum(axis=0)).max()


def test_stiff_body_quarter_turn_follows_the_rigid_rotation(api):
    # 90 degrees about z in 0.1 s: omega = 5 pi rad/s; the centrifugal strain of the box is
    # about rho omega^2 (2A)^2 / E = 2.5e-4 with E = 1e9, so every node must be within a few
    # of those strains times the size of the rigid place R X (tolerance 4 eps * 2A)
    omega = 0.5 * np.pi / 0.1
    sol, body = box(api, 5e-5, young=1e9)
    api.INITIAL_VELOCITY(body, (0.0, 0.0, 0.0), (0.0, 0.0, omega))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.1)
    blk = body.block
    sl = blk.nodes_of(body.row)
    X, x = blk.X[sl], blk.X[sl] + blk.q[sl]
    t = solfec_clock(5e-5, 0.1)[-1]        # Solfec's clock: 2001 steps, t = 0.10005
    assert sol.time == t
    c, s = np.cos(omega * t), np.sin(omega * t)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    eps = 1000.0 * omega ** 2 * (2 * A) ** 2 / 1e9
    assert np.abs(x - X @ R.T).max() < 4 * eps * 2 * A, np.abs(x - X @ R.T).max()
    assert np.abs(x - X).max() > 0.5                              # it did turn


@pytest.mark.slow
def test_def_lim_reuses_its_factorisation_to_round_off(api, monkeypatch):
    """A kept factorisation with iterative refinement (bodies/fe_dynamics.Operator, used
    for bodies of 10^4 unknowns and more; forced here on the small box) gives the motion of
    a fresh factorisation every step to round-off, with far fewer factorisations."""
    from solfec_py.bodies.fe_dynamics import Operator

    confs, counts, steps = [], [], []
    for reuse in (False, True):
        if reuse:
            monkeypatch.setattr(Operator, "REUSE_DOFS", 0)
            monkeypatch.setattr(Operator, "CG_ITERATIONS", 0)        # the factorisation, not CG first
        sol, body = box(api, 2e-4, scheme="DEF_LIM")
        api.INITIAL_VELOCITY(body, (0.1, 0.0, 0.0), (1.0, 2.0, 3.0))
        _, l0 = momentum(body)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.05)         # 250 steps, tumbling
        _, l1 = momentum(body)
        assert np.linalg.norm(l1 - l0) < 1e-10 * np.linalg.norm(l0)
        confs.append(np.array(body.conf))
        counts.append(body.block.solver.factorisations)
        steps.append(sol.domain.steps_done)
    assert counts[0] == steps[0] == steps[1] and counts[1] < 0.1 * steps[1]
    # refinement to 1e-13 of the right-hand side: the same states to round-off
    assert np.abs(confs[1] - confs[0]).max() < 1e-12 * np.abs(confs[0]).max()


def test_def_lim_pin_eliminated_matches_the_solver_held_pin(api, monkeypatch):
    """A FIX_POINT at a mesh node of a DEF_LIM body is eliminated from its operator
    (bodies/fe_pins.py), so the factorisation is kept across steps. Reference: the same pin
    held by the Gauss-Seidel solver through the Delassus operator (Solfec's dynamic
    fixed-point condition U + V = 0: the node's velocity flips sign each step, so a moving
    node stops moving); the two agree to the solver's tolerance."""
    from solfec_py.bodies import fe_pins
    from solfec_py.bodies.fe_dynamics import Operator

    monkeypatch.setattr(Operator, "REUSE_DOFS", 0)                # keep the factors (small box)
    monkeypatch.setattr(Operator, "CG_ITERATIONS", 0)             # (not CG first)
    corner = (-2 * A, -A, -A / 2)
    confs = []
    for held in (False, True):
        if held:
            monkeypatch.setattr(fe_pins.Pins, "collect", classmethod(lambda cls, *a, **k: cls()))
        sol, body = box(api, 2e-4, scheme="DEF_LIM")
        api.INITIAL_VELOCITY(body, (0.1, 0.0, 0.0), (1.0, 2.0, 3.0))
        api.FIX_POINT(body, corner)
        blk = body.block
        k = int(np.argmin(np.linalg.norm(blk.X[:blk.N] - corner, axis=1)))
        v0 = blk.u[k].copy()
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 2e-4)
        np.testing.assert_allclose(blk.u[k], -v0, atol=1e-9 * np.linalg.norm(v0))
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.01)      # 50 steps
        assert np.abs(blk.q[k]).max() < 1e-12
        confs.append(np.array(body.conf))
        if not held:
            assert blk.solver.factorisations < 10                     # kept across the 51 steps
    assert np.abs(confs[1] - confs[0]).max() < 1e-10 * np.abs(confs[0]).max()   # GS to 1e-12


@pytest.mark.parametrize("analysis", ["DYNAMIC", "QUASI_STATIC", "DYNAMIC BC"])
@pytest.mark.parametrize("precondition", ["jacobi", "amg"])
def test_conjugate_gradient_operator_matches_the_factorisation(api, monkeypatch, analysis, precondition):
    """Bodies of at least ITERATIVE_DOFS unknowns solve their implicit operator (a total-
    Lagrangian one's every step, a co-rotational one's constant A0) by preconditioned conjugate
    gradients instead of SuperLU (bodies/fe_iterative.py: the diagonal, and smoothed
    aggregation AMG with pyamg once the diagonal needs more than AMG_AFTER iterations; here 0
    forces it from the second solve on). Reference: the same DEF_LIM (or quasi-static) run
    with the LU factorisation; with the CG residual at 1e-12 of the right-hand side the states
    agree to 1e-9 of their size, and the pinned node stays fixed exactly (the projector acts
    outside CG)."""
    from solfec_py.bodies import fe_corotational, fe_dynamics, fe_iterative, fe_rotated

    monkeypatch.setattr(fe_rotated, "DENSE_LIMIT", 0)           # BC: no dense inverse of A0
    if precondition == "amg":
        pytest.importorskip("pyamg")
        monkeypatch.setattr(fe_iterative, "AMG_AFTER", 0)
    else:
        monkeypatch.setattr(fe_iterative, "amg_available", lambda: False)

    corner = (-2 * A, -A, -A / 2)
    confs, made, built = [], [], []
    real, build = fe_iterative.ConjugateGradients, fe_iterative.ConjugateGradients._build

    def counted(*args):
        made[-1] += 1
        return real(*args)

    def counted_build(self):
        built[-1] += 1
        return build(self)

    monkeypatch.setattr(real, "_build", counted_build)
    monkeypatch.setattr(fe_iterative, "ConjugateGradients", counted)
    monkeypatch.setattr(fe_corotational, "ConjugateGradients", counted)
    for threshold in (10 ** 9, 0):
        monkeypatch.setattr(fe_dynamics, "ITERATIVE_DOFS", threshold)
        made.append(0)
        built.append(0)
        if analysis.startswith("DYNAMIC"):
            sol, body = box(api, 2e-4, scheme="DEF_LIM", form="BC" if analysis.endswith("BC") else "TL")
            api.INITIAL_VELOCITY(body, (0.1, 0.0, 0.0), (1.0, 2.0, 3.0))
        else:
            sol, body = loaded_bar(api)
            corner = (0, 0, 0)
        api.FIX_POINT(body, corner)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 10 * sol.domain.step)
        blk = body.block
        k = int(np.argmin(np.linalg.norm(blk.X[:blk.N] - corner, axis=1)))
        assert np.abs(blk.q[k]).max() < 1e-14
        assert (made[-1] > 0) == (threshold == 0)                   # the CG operator was used
        assert (built[-1] > 0) == (threshold == 0 and precondition == "amg")    # and AMG when asked
        confs.append(np.array(body.conf))
    assert np.abs(confs[1] - confs[0]).max() < 1e-9 * np.abs(confs[0]).max()


@pytest.mark.parametrize("analysis", ["DYNAMIC", "QUASI_STATIC"])
def test_operator_filled_with_the_tangent_matches_the_operator_made_after(api, monkeypatch, analysis):
    """A block of one implicit body fills M + c K in the tangent's own pass (Stepper._tangent
    with a coefficient) and recovers the damping product K u0 from it as (A u0 - M u0) / c.
    Reference: the same runs with K filled alone and M + c K made from it afterwards (the
    earlier path); both sum the same element terms in another order, so states agree to
    round-off, 1e-12 of their size (measured about 1e-15). The damped DEF_LIM run has a
    pinned corner, so the pin elimination works on the filled operator too."""
    from solfec_py.bodies import fe_dynamics

    confs, fused = [], []
    for fuse in (True, False):
        if not fuse:
            monkeypatch.setattr(fe_dynamics.Stepper, "_fusable", lambda self, rows: False)
        if analysis == "DYNAMIC":
            sol, body = box(api, 2e-4, scheme="DEF_LIM")
            body.damping = 1e-3
            api.INITIAL_VELOCITY(body, (0.1, 0.0, 0.0), (1.0, 2.0, 3.0))
            api.FIX_POINT(body, (-2 * A, -A, -A / 2))
        else:
            sol, body = loaded_bar(api)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 20 * sol.domain.step)
        fused.append(body.block.solver.fused)
        confs.append(np.array(body.conf))
    assert fused[0] is not None and fused[1] is None        # the two paths were taken
    assert np.abs(confs[1] - confs[0]).max() < 1e-12 * np.abs(confs[0]).max()
    assert np.abs(confs[0]).max() > 1e-4                    # it did move
