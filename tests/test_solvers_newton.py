"""NEWTON_SOLVER (solvers/newton.py) on whole models: static chain tensions, the block
sliding on Coulomb contacts (v = v0 - mu g t), the pendulum period, both linear variants
(GMRES, DIAG), statistics, and the Gauss-Seidel fallback when Newton cannot converge."""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import record_vz_sign_changes
from test_solvers_gauss_seidel import chain, sliding_block


@pytest.mark.parametrize("linver", ['GMRES', 'DIAG'])
def test_hanging_chain_static_tensions(api, linver):
    sol, balls = chain(api, 5, horizontal=False)
    nt = api.NEWTON_SOLVER(meritval=1e-14, linver=linver, maxiter=2000)
    nt.itershist = 'ON'
    api.RUN(sol, nt, 3e-3)
    links = list(reversed(sol.constraints))
    # merit 1e-14 is a relative energy error: reactions to ~1e-7
    assert [l.R[2] for l in links] == pytest.approx([-50.0, -40.0, -30.0, -20.0, -10.0], rel=1e-6)
    assert nt.merhist[-1] <= 1e-14 and len(nt.mvhist) == nt.iters
    if linver == 'GMRES':
        assert max(nt.itershist) <= 5          # linear joints: Newton converges at once
    assert sol.domain.statistics['NTITERS'] == nt.iters


def test_sliding_block_on_coulomb_contacts(api):
    mu, v0, g = 0.5, 1.0, 10.0
    nt = api.NEWTON_SOLVER(meritval=1e-16, maxiter=200)
    sol, block, _ = sliding_block(api, mu, v0, g, solver=nt)
    speeds = []
    api.CALLBACK(sol, 1e-3, (), lambda: speeds.append(block.velo[3]) or 1)
    api.RUN(sol, nt, 0.3)
    t = 1e-3 * np.arange(1, len(speeds) + 1)
    assert np.array(speeds) == pytest.approx(np.maximum(v0 - mu * g * t, 0.0), abs=1e-6)
    assert sum(c.R[2] for c in block.constraints) == pytest.approx(block.mass * g, rel=1e-6)


def test_pendulum_period(api):
    G = math.pi ** 2
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/ntp')
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -G))
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 1), 0.05, 1, 1), api.BULK_MATERIAL(sol))
    api.BODY_CHARS(ball, 1.0, 1.0, (1, 0, 1), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    api.PUT_RIGID_LINK(ball, None, (1, 0, 1), (0, 0, 1))
    crossings = record_vz_sign_changes(api, sol, ball)
    api.RUN(sol, api.NEWTON_SOLVER(), 3.0)
    period = 4 * math.sqrt(1 / G) * 1.854074677301372
    assert crossings[4] - crossings[0] == pytest.approx(period, rel=0.005)
    x = np.array(ball.conf[9:12])
    assert np.linalg.norm(x - (0, 0, 1)) == pytest.approx(1.0, abs=1e-9)


def test_gauss_seidel_fallback(api):
    """Heavily damped block-Jacobi steps (linver 'DIAG', theta 0.001) cannot reach merit 1e-10
    in 300 iterations on a hanging 5-chain: with gsflag 'ON' Gauss-Seidel (same maxiter)
    finishes from the initial reactions and reaches the static tensions; with 'OFF' the
    solve ends DIVERGED after maxiter."""
    for flag in ('ON', 'OFF'):
        sol, _ = chain(api, 5, horizontal=False)
        nt = api.NEWTON_SOLVER(meritval=1e-10, maxiter=300, linver='DIAG', theta=0.001, gsflag=flag)
        api.RUN(sol, nt, 1e-3)
        links = list(reversed(sol.constraints))
        if flag == 'ON':
            assert nt.iters > 300 and nt.merhist[-1] <= 1e-10
            assert [l.R[2] for l in links] == pytest.approx([-50.0, -40.0, -30.0, -20.0, -10.0], rel=1e-4)
        else:
            assert nt.iters == 300 and nt.merhist[-1] > 1e-10 and len(nt.mvhist) == 300


def _pressed_plates(api, nx, ny, step, path=None, shift=None):
    """Two steel plates 10 x 5 x 0.5 (HEX nx x ny x 1 each) touching along z = 0, frictionless
    (Solfec's BM14 scene, coarser): the bottom plate simply supported along its edges, the top
    one held only in-plane and pushed by a pressure P on its top face, so at equilibrium the
    contacts carry P times the face area. `shift` (x, y, 0) moves the top plate."""
    sol = api.SOLFEC('QUASI_STATIC', step, path or f'out/plates{nx}_{step}')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    nodes = [0, -2.5, .5, 10, -2.5, .5, 10, 2.5, .5, 0, 2.5, .5, 0, -2.5, 0, 10, -2.5, 0, 10, 2.5, 0, 0, 2.5, 0]
    top = api.HEX(nodes, nx, ny, 1, 0, [1, 2, 3, 4, 5, 6])
    bottom = api.COPY(top)
    api.TRANSLATE(bottom, (0, 0, -0.5))
    if shift is not None:
        api.TRANSLATE(top, shift)
    edge = sorted({tuple(bottom.node(i)) for s in (2, 3, 4, 5) for i in bottom.nodes_on_surface(s)})
    steel = api.BULK_MATERIAL(sol, model='KIRCHHOFF', young=2e11, poisson=0.3, density=7850)
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.0)
    upper = api.BODY(sol, 'FINITE_ELEMENT', top, steel)
    lower = api.BODY(sol, 'FINITE_ELEMENT', bottom, steel)
    for p in edge:
        api.FIX_DIRECTION(lower, p, (0, 0, 1))
    for body, z in ((lower, -0.5), (upper, 0.5)):
        for p in ((5, 0, z), (5, 0, 0.0)):
            api.FIX_DIRECTION(body, p, (1, 0, 0))
            api.FIX_DIRECTION(body, p, (0, 1, 0))
    api.FIX_DIRECTION(upper, (10, 0, 0.5), (0, 1, 0))
    api.PRESSURE(upper, 6, -2.5e8)
    return sol


def _contact_load(sol):
    return sum(c.R[2] for c in sol.constraints if c.kind == 'CONTACT')


def test_stiff_plates_converge_without_cycling(api):
    """BM14-like stiff contacts (W ~ 1e-9 against reactions ~ 1e7, step 2e-4): with Solfec's
    unscaled contact function most of these solves cycled to maxiter = 1000 and fell back to
    Gauss-Seidel (measured 1022-1031 iterations on 10 of 20 steps); the rho-scaled one takes
    4-17 Newton iterations per step (bound 50 leaves room, far below 1000)."""
    sol = _pressed_plates(api, 6, 3, 2e-4)
    nt = api.NEWTON_SOLVER(1e-10, locdyn='OFF')
    nt.itershist = 'ON'
    merits = []
    for _ in range(8):
        api.RUN(sol, nt, 2e-4)
        merits.append(nt.merhist[-1])
    assert max(nt.itershist) <= 50, nt.itershist
    assert max(merits) <= 1e-10
    assert _contact_load(sol) > 0.5 * 2.5e8 * 50      # the plates are pressed together


def test_stiff_plates_carry_the_pressure_load(api):
    """Quasi-static steps of 0.05 s reach equilibrium (the plate modes, ~400 rad/s, contract by
    1 / (1 + (w h)^2) per step): the contacts carry P A = 2.5e8 * 50 N. Tolerance 1e-3: the
    pressure follows the deformed top face, whose area differs from 50 m^2 by O(nu P / E) = 4e-4
    (measured 1e-4 to 2e-4)."""
    sol = _pressed_plates(api, 4, 2, 0.05)
    nt = api.NEWTON_SOLVER(1e-10, locdyn='OFF')
    for _ in range(3):
        api.RUN(sol, nt, 0.05)
        assert nt.merhist[-1] <= 1e-10
        assert _contact_load(sol) == pytest.approx(2.5e8 * 50, rel=1e-3)
