"""A slender HEX8 cantilever against beam theory: the quasi-static tip deflection under its
own weight and the first bending frequency after release from that static shape (DEF_LIM,
and DEF_EXP as a slow test).

References (independent of the code): Timoshenko beam theory for a uniformly loaded
cantilever, w = q L^4 / (8 E I) + q L^2 / (2 k G A) with k = 5/6 (Timoshenko & Gere,
Mechanics of Materials), and the first Euler-Bernoulli cantilever frequency
f1 = (1.87510^2 / (2 pi L^2)) sqrt(E I / (rho A)) (Blevins, Formulas for Natural Frequency
and Mode Shape, table 8-1). Tolerance 2 % for both (the acceptance of the finite-element
work). The mesh is chosen so the tolerance holds with room: full-integration HEX8 elements
are stiff in bending by about (a/b)^2 (a element length, b thickness); 80 x 1 x 1 elements
(a/b = 1/8) and Poisson's ratio 0 (no anticlastic constraint at the clamp) give -0.3 %
(static) and +0.8 % (frequency) here.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from solfec_py import constraints as C

L, B = 1.0, 0.1                          # length and square section side (L / B = 10)
E, NU, RHO, G = 1e9, 0.0, 1e3, 10.0
NX = 80
I_AREA, AREA = B ** 4 / 12.0, B * B
Q = RHO * G * AREA                       # weight per unit length
W_EB = Q * L ** 4 / (8 * E * I_AREA)
W_TIMOSHENKO = W_EB + Q * L ** 2 / (2 * (5.0 / 6.0) * (E / (2 * (1 + NU))) * AREA)
F1_EB = 1.87510 ** 2 / (2 * np.pi * L ** 2) * np.sqrt(E * I_AREA / (RHO * AREA))
TIP = (L, 0.5 * B, 0.5 * B)
_RUNS = itertools.count()


def beam(api, analysis, step):
    sol = api.SOLFEC(analysis, step, f"out/beam{next(_RUNS)}")
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=E, poisson=NU, density=RHO)
    nodes = [0, 0, 0, L, 0, 0, L, B, 0, 0, B, 0, 0, 0, B, L, 0, B, L, B, B, 0, B, B]
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(nodes, NX, 1, 1, 1, [1, 2, 3, 4, 5, 6]), mat)
    pins = []
    for y in (0.0, B):
        for z in (0.0, B):
            pins.append(api.FIX_POINT(body, (0.0, y, z)))   # the clamped end: its four nodes pinned
    body.pins = pins
    return sol, body


def static_shape(api, step=0.05, stop=0.3, solver=None):
    """Quasi-static steps (one regularised Newton step each, A = M + h^2 K restricted to the
    free nodes: the iteration contracts by 1 / (1 + (w1 h)^2), ~0.04 per step at 0.05 s)."""
    sol, body = beam(api, "QUASI_STATIC", step)
    api.GRAVITY(sol, (0.0, 0.0, -G))
    api.RUN(sol, solver or api.NEWTON_SOLVER(), stop)
    return body


def _check_static(api, body):
    w = -api.DISPLACEMENT(body, TIP)[2]
    assert abs(w / W_TIMOSHENKO - 1) < 0.02, (w, W_TIMOSHENKO)
    assert abs(w / W_EB - 1) < 0.02, (w, W_EB)
    # the pinned nodes are eliminated from the body's operator (bodies/fe_pins.py): exact
    clamp = np.array(body.conf).reshape(-1, 3)[np.abs(body.block.X[:body.block.N, 0]) < 1e-12]
    assert np.abs(clamp).max() == 0.0
    # their reactions carry the weight rho g V (equilibrium; 1e-6: the last step's residual)
    lift = sum(np.asarray(c.base).reshape(3, 3).T @ np.asarray(c.R) for c in body.pins)
    assert lift == pytest.approx([0.0, 0.0, RHO * G * L * AREA], rel=1e-6, abs=1e-6 * RHO * G * L * AREA)
    return w


def test_static_tip_deflection_within_2_percent_of_beam_theory(api):
    _check_static(api, static_shape(api))


@pytest.mark.parametrize("solver", ["NEWTON_SOLVER", "GAUSS_SEIDEL_SOLVER"])
def test_static_steps_of_one_second_converge_with_either_solver(api, solver):
    # w1 h ~ 100: A = M + h^2 K alone is indefinite along the rotations of the loaded beam
    # (geometric stiffness), so the pins must not go through W = h H A^-1 H^T
    make = api.NEWTON_SOLVER() if solver == "NEWTON_SOLVER" else api.GAUSS_SEIDEL_SOLVER(1e-8, 100)
    w = _check_static(api, static_shape(api, 1.0, 3.0, make))
    assert w == pytest.approx(-api.DISPLACEMENT(static_shape(api), TIP)[2], rel=1e-6)


def _first_frequency(api, scheme, step, solver):
    q0 = np.array(static_shape(api).conf)
    sol, body = beam(api, "DYNAMIC", step)
    body.scheme = scheme
    body.conf = tuple(q0.tolist())                # released from the static shape, no gravity
    times, w = [], []
    while sol.time < 0.05:                        # past 3/4 of the first period (T1 = 0.062 s)
        api.RUN(sol, solver, 5 * step)
        times.append(sol.time)
        w.append(api.DISPLACEMENT(body, TIP)[2])
    t, w = np.array(times), np.array(w)
    k = np.flatnonzero(np.sign(w[1:]) != np.sign(w[:-1]))[:2]
    crossings = t[k] - w[k] * (t[k + 1] - t[k]) / (w[k + 1] - w[k])
    return 1.0 / (2.0 * (crossings[1] - crossings[0]))   # zero crossings half a period apart


def test_released_beam_vibrates_at_the_first_bending_frequency_def_lim(api):
    # h = 2e-4 s: w1 h = 0.02, the midpoint rule's period error (w1 h)^2 / 12 ~ 3e-5
    f = _first_frequency(api, "DEF_LIM", 2e-4, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000))
    assert abs(f / F1_EB - 1) < 0.02, (f, F1_EB)


def test_def_lim_clamp_is_exact_and_its_reactions_carry_the_momentum_change(api):
    # DEF_LIM pins at mesh nodes are eliminated from the factorised operator (bodies/fe_pins.py).
    # Reference: momentum balance of the step, A du = h (f + r_pin) with A = M + (h^2/4) K;
    # the rows of K and the internal forces sum to zero (translation invariance), so with no
    # load sum(m du) / h equals the pins' total reaction (to round-off: 1e-9 relative)
    q0 = np.array(static_shape(api).conf)
    sol, body = beam(api, "DYNAMIC", 2e-4)
    body.scheme = "DEF_LIM"
    body.conf = tuple(q0.tolist())
    blk = body.block
    clamp = np.abs(blk.X[:blk.N, 0]) < 1e-12
    m = blk.layout.mass[:blk.N]
    for _ in range(3):
        p0 = m @ np.array(body.velo).reshape(-1, 3)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000), 2e-4)
        p1 = m @ np.array(body.velo).reshape(-1, 3)
        reaction = sum(np.asarray(c.base).reshape(3, 3).T @ np.asarray(c.R) for c in body.pins)
        assert np.linalg.norm((p1 - p0) / 2e-4 - reaction) <= 1e-9 * np.linalg.norm(reaction)
        assert np.abs(np.array(body.conf).reshape(-1, 3)[clamp]).max() == 0.0
        assert np.abs(np.array(body.velo).reshape(-1, 3)[clamp]).max() == 0.0
    assert len(blk.absorbed(C.constraint_set(blk.domain))) == 4     # not in the solver


@pytest.mark.slow
def test_released_beam_vibrates_at_the_first_bending_frequency_def_exp(api):
    # below the critical step of the 12.5 mm elements (about 1.1e-5 s)
    f = _first_frequency(api, "DEF_EXP", 1e-5, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000))
    assert abs(f / F1_EB - 1) < 0.02, (f, F1_EB)
