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
