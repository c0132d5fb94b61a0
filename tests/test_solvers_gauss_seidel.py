"""Gauss-Seidel and penalty solves on whole models: convergence on a
1000-link chain with the momentum balance of the reactions, a block sliding on four
Coulomb contacts (v = v0 - mu g t exactly, friction work = kinetic energy lost) for every
diagonal solver, Newton restitution, failure actions, reverse sweeps, merit and statistics.
Contacts come from contact detection (sphere feet or a ball on a polyhedral floor).
Every model writes to its own output path: a second SOLFEC object on a path written earlier in
the same run would open it in READ mode, as Solfec does."""
from __future__ import annotations


import itertools

import numpy as np
import pytest

from solfec_py import constraints as C
from solfec_py.errors import SimulationError


def box(api, lo, hi):
    pts = [v for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2]) for v in (x, y, z)]
    return api.HULL(pts, 1, 1)


_PATHS = itertools.count()


def fresh(name: str) -> str:
    """A new output path (one per model built in a test)."""
    return f"out/{name}{next(_PATHS)}"


def chain(api, n, h=1e-3, horizontal=True):
    sol = api.SOLFEC('DYNAMIC', h, fresh('chain'))
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    api.GRAVITY(sol, (0, 0, -10.0))
    balls, prev = [], None
    for i in range(1, n + 1):
        p = (0.1 * i, 0.0, 0.0) if horizontal else (0.0, 0.0, -0.1 * i)
        b = api.BODY(sol, 'RIGID', api.SPHERE(p, 0.02, 1, 1), mat)
        api.BODY_CHARS(b, 1.0, 1.0, p, (1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3))
        api.PUT_RIGID_LINK(b, None if prev is None else prev[0], p, (0, 0, 0) if prev is None else prev[1])
        balls.append(b)
        prev = (b, p)
    return sol, balls


def test_chain_of_1000_links_converges_and_balances_momentum(api):
    """Released horizontally: GS reaches epsilon 1e-4 within maxiter; whatever the link
    forces, sum m dv = h (weights + pin force of the first link) (internal reactions cancel),
    and every link keeps its length (the link solver enforces it at the end of the step)."""
    sol, balls = chain(api, 1000)
    gs = api.GAUSS_SEIDEL_SOLVER(1e-4, 20000)
    api.RUN(sol, gs, 1e-3)
    assert gs.error == 'OK' and gs.iters < 20000
    assert gs.rerhist[-1] <= 1e-4 and len(gs.rerhist) == gs.iters
    top = sol.constraints[-1]                      # the oldest: ball 1 to the fixed point
    f_pin = np.array(top.base).reshape(3, 3).T @ np.array(top.R)
    p = sum(np.array(b.velo[3:6]) for b in balls)
    assert p == pytest.approx(1e-3 * (np.array([0, 0, -10.0 * 1000]) + f_pin), abs=1e-9)
    x = np.array([b.conf[9:12] for b in balls])
    lengths = np.linalg.norm(np.diff(np.vstack([[0, 0, 0], x]), axis=0), axis=1)
    assert np.abs(lengths - 0.1).max() < 1e-6


def test_hanging_chain_reactions_are_static_tensions(api):
    """A short chain hanging at rest: link i carries the weight below it, (n - i + 1) m g;
    the link normal points from the upper end to the ball, so tension is R_N < 0."""
    sol, balls = chain(api, 5, horizontal=False)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 3e-3)
    links = list(reversed(sol.constraints))
    assert [l.R[2] for l in links] == pytest.approx([-50.0, -40.0, -30.0, -20.0, -10.0], rel=1e-9)
    assert all(abs(b.velo[5]) < 1e-12 for b in balls)


def sliding_block(api, mu, v0=1.0, g=10.0, diagsolver='SEMISMOOTH_NEWTON', solver=None):
    """A rigid block standing on four spherical feet (r = 0.1 at x, y = +-0.5) on a
    polyhedral obstacle floor: four sphere-convex contacts of friction mu."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, fresh('slide'))
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    api.GRAVITY(sol, (0, 0, -g))
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=mu)
    api.BODY(sol, 'OBSTACLE', box(api, (-5, -5, -1), (5, 5, 0)), mat)
    feet = [api.SPHERE((x, y, 0.1), 0.1, 1, 1) for x in (-0.5, 0.5) for y in (-0.5, 0.5)]
    block = api.BODY(sol, 'RIGID', feet, mat)
    api.INITIAL_VELOCITY(block, (v0, 0, 0), (0, 0, 0))
    gs = solver or api.GAUSS_SEIDEL_SOLVER(1e-10, 1000, diagsolver=diagsolver)
    return sol, block, gs


@pytest.mark.parametrize("diagsolver", ['SEMISMOOTH_NEWTON', 'PROJECTED_GRADIENT', 'DE_SAXCE_FENG',
                                        'PROJECTED_NEWTON'])
def test_block_sliding_on_coulomb_contacts(api, diagsolver):
    """Each step of sliding removes exactly mu g h of speed (mean friction force mu m g), the
    block sticks once stopped; the friction work equals the kinetic energy lost (the
    trapezoidal work of a constant force is exact) and the normal work is zero."""
    mu, v0, g = 0.5, 1.0, 10.0
    sol, block, gs = sliding_block(api, mu, v0, g, diagsolver)
    speeds = []
    api.CALLBACK(sol, 1e-3, (), lambda: speeds.append(block.velo[3]) or 1)
    api.RUN(sol, gs, 0.3)
    t = 1e-3 * np.arange(1, len(speeds) + 1)
    assert np.array(speeds) == pytest.approx(np.maximum(v0 - mu * g * t, 0.0), abs=1e-8)
    assert abs(block.velo[5]) < 1e-8 and np.abs(block.velo[0:3]).max() < 1e-8
    kinetic, external, contact, friction, _ = api.ENERGY(sol, block)
    assert friction == pytest.approx(-0.5 * block.mass * v0**2, rel=1e-8)
    assert abs(contact) < 1e-10
    assert sum(c.R[2] for c in block.constraints) == pytest.approx(block.mass * g, rel=1e-8)


def test_newton_restitution_on_impact(api):
    """A ball hitting the floor at v0 leaves with e v0 (Newton restitution, frictionless)."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, fresh('bounce'))
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1.0)
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', restitution=0.4)
    api.BODY(sol, 'OBSTACLE', box(api, (-1, -1, -1), (1, 1, 0)), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.1), 0.1, 1, 1), mat)
    api.INITIAL_VELOCITY(ball, (0.3, 0, -2.0), (0, 0, 0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 1e-3)
    assert len(ball.constraints) == 1 and ball.constraints[0].kind == 'CONTACT'
    assert ball.velo[5] == pytest.approx(0.8, rel=1e-12)
    assert ball.velo[3] == pytest.approx(0.3, rel=1e-12)       # frictionless: tangent kept


def test_failure_actions(api, capsys):
    sol, _ = chain(api, 30)
    with pytest.raises(SimulationError, match="GAUSS_SEIDEL_SOLVER failed with error code DIVERGED"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 2, failure='EXIT'), 1e-3)

    sol, _ = chain(api, 30)
    calls = []

    def on_failure(gs, tag):
        calls.append((gs.error, gs.iters, tag))
        return 1

    gs = api.GAUSS_SEIDEL_SOLVER(1e-12, 3, failure='CALLBACK', callback=on_failure, data='x')
    api.RUN(sol, gs, 3e-3)
    assert calls == [('DIVERGED', 3, 'x')] * 3

    sol, _ = chain(api, 30)
    gs = api.GAUSS_SEIDEL_SOLVER(1e-12, 3, failure='CALLBACK', callback=lambda g: 0)
    with pytest.raises(SimulationError, match="DIVERGED"):
        api.RUN(sol, gs, 1e-3)

    sol, _ = chain(api, 30)
    gs = api.GAUSS_SEIDEL_SOLVER(1e-12, 3)                      # CONTINUE
    api.RUN(sol, gs, 2e-3)
    assert gs.error == 'DIVERGED' and gs.iters == 3 and len(gs.rerhist) == 3


def test_reverse_sweeps_reach_the_same_solution(api):
    results = []
    for reverse in ('OFF', 'ON'):
        sol, balls = chain(api, 20)
        gs = api.GAUSS_SEIDEL_SOLVER(1e-13, 100000)
        gs.reverse = reverse
        api.RUN(sol, gs, 1e-3)
        assert gs.error == 'OK'
        results.append(np.array([c.R for c in sol.constraints]))
    assert results[1] == pytest.approx(results[0], rel=1e-8, abs=1e-8)


def test_merit_history_and_threshold(api):
    """meritval < 1 adds the merit to the stopping rule: the last merit is below it, every
    constraint's share is non-negative and the shares add up to the total."""
    sol, _ = chain(api, 40)
    gs = api.GAUSS_SEIDEL_SOLVER(1.0, 100000, meritval=1e-10)
    api.RUN(sol, gs, 1e-3)
    assert gs.error == 'OK'
    assert len(gs.merhist) == gs.iters and gs.merhist[-1] <= 1e-10
    assert gs.merhist[0] > gs.merhist[-1]
    shares = [c.merit for c in sol.constraints]
    assert min(shares) >= 0.0 and sum(shares) == pytest.approx(gs.merhist[-1], rel=1e-6, abs=1e-14)
    assert sol.domain.statistics['GSITERS'] == gs.iters



@pytest.mark.parametrize("meritval", [1.0, 3.0])
def test_a_threshold_of_one_or_more_is_the_unchecked_merit(api, meritval):
    """A meritval of 1 or more does not take part in the stopping rule, so the solver
    passes None to its kernels and numba leaves the merit out of them. Reference: the
    same sweep end with the number itself, bit for bit."""
    from solfec_py.solvers.gauss_seidel import _sweep_done

    n = 4
    arrays = (np.zeros(n, dtype=np.int64), np.zeros((n, 3, 3)), np.zeros((n, 3, 3)), np.zeros((n, 3)),
              np.zeros((n, 3)), np.zeros((n, 3)), np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
              np.zeros((0, 3, 3)), np.zeros((n, 8)), np.zeros(n), np.zeros((n, 3)))
    for up, lo, epsilon in ((1e-8, 1.0, 1e-3), (1.0, 1.0, 1e-3), (0.0, 0.0, 1e-3)):
        out = []
        for value in (meritval, None):
            rerhist, merhist = np.full(5, -1.0), np.full(5, -1.0)
            got = _sweep_done(2, up, lo, *arrays, True, 1e-3, epsilon, 5, value, 1.0, rerhist, merhist,
                              np.zeros(n), np.zeros((n, 3)))
            out.append((got, rerhist.tobytes(), merhist.tobytes()))
        assert out[0] == out[1]


def test_penalty_solver_spring_dashpot_contact_and_joints(api):
    """PENALTY_SOLVER: a ball overlapping the floor by d (gap -d at the mid-step, as it starts
    at rest) with a spring s, explicit variant, no dashpot, is pushed with R_N = s d; the joints of the same model are solved by Gauss-Seidel
    (a hanging 3-chain keeps its static tensions)."""
    sol, balls = chain(api, 3, horizontal=False)
    mat = api.BULK_MATERIAL(sol, label='m2', density=1.0)
    api.SURFACE_MATERIAL(sol, model='SPRING_DASHPOT', spring=1e4, dashpot=0.0, hpow=1.0)
    api.BODY(sol, 'OBSTACLE', box(api, (-1, -1, -3), (1, 1, -2)), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0.5, 0, -2 + 0.1 - 1e-3), 0.1, 1, 1), mat)   # overlap 1e-3
    api.RUN(sol, api.PENALTY_SOLVER('EXPLICIT'), 1e-3)
    contact = ball.constraints[0]
    assert contact.R[2] == pytest.approx(10.0, rel=1e-12)
    links = [c for c in reversed(sol.constraints) if c.kind == 'RIGLNK']
    # the inner Gauss-Seidel stops at a relative change of 1e-4 (Solfec's fixed setting),
    # which on a 3-chain solved from zero leaves errors of a few 1e-4
    assert [l.R[2] for l in links] == pytest.approx([-30.0, -20.0, -10.0], rel=2e-3)


def sphere_column(api, n, relaxation, epsilon):
    """n unit-mass balls (r = 0.05) stacked in contact on an obstacle floor: one step of
    GS(epsilon) with the given over-relaxation; returns (solver, R_N bottom to top)."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, fresh('column'))
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -10.0))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
    api.BODY(sol, 'OBSTACLE', box(api, (-1, -1, -1), (1, 1, 0)), mat)
    for i in range(n):
        p = (0.0, 0.0, 0.05 + 0.1 * i)
        b = api.BODY(sol, 'RIGID', api.SPHERE(p, 0.05, 1, 1), mat)
        api.BODY_CHARS(b, 1.0, 1.0, p, (1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3))
    gs = api.GAUSS_SEIDEL_SOLVER(epsilon, 100000)
    gs.relaxation = relaxation
    api.RUN(sol, gs, 1e-3)
    cons = sorted((c for c in sol.constraints if c.kind == 'CONTACT'), key=lambda c: c.point[2])
    return gs, np.array([c.R[2] for c in cons])


def test_over_relaxation_keeps_the_solution_with_fewer_sweeps(api):
    """A column of 12 balls resting on a floor: the reactions of one step from rest are the
    static loads R_N = (12 - k) m g of the k-th contact from the floor (exact; tolerance
    1e-6 relative from the stopping rule at 1e-10). Over-relaxation 1.5 reaches the same
    reactions (the relaxed sweep has the same fixed points) in fewer sweeps."""
    n = 12
    plain, r_plain = sphere_column(api, n, 1.0, 1e-10)
    over, r_over = sphere_column(api, n, 1.5, 1e-10)
    exact = 10.0 * np.arange(n, 0, -1)
    assert plain.error == over.error == 'OK'
    assert r_plain == pytest.approx(exact, rel=1e-6) and r_over == pytest.approx(exact, rel=1e-6)
    assert over.iters < plain.iters
    gs = api.GAUSS_SEIDEL_SOLVER(1e-3, 10)
    with pytest.raises(TypeError, match="relaxation"):
        gs.relaxation = 2.5
    assert gs.relaxation == 1.0


def random_contact_problem(seed, n=40, bodies=12):
    """Local dynamics of n frictional contacts between random pairs of `bodies` free bodies
    (6 dofs, random SPD inverse mass): W = J M^-1 J^T cut into 3x3 blocks, CSR neighbours
    for the blocks that share a body, approaching free velocities B."""
    from solfec_py.solvers.local_dynamics import NPAR, LocalDynamics

    rng = np.random.default_rng(seed)
    Minv = []
    for _ in range(bodies):
        L = rng.normal(size=(6, 6))
        Minv.append(L @ L.T + np.eye(6))
    pairs = [rng.choice(bodies, 2, replace=False) for _ in range(n)]
    J = np.zeros((3 * n, 6 * bodies))
    for a, (i, k) in enumerate(pairs):
        J[3 * a:3 * a + 3, 6 * i:6 * i + 6] = rng.normal(size=(3, 6))
        J[3 * a:3 * a + 3, 6 * k:6 * k + 6] = rng.normal(size=(3, 6))
    G = np.zeros((3 * n, 3 * n))
    for i in range(bodies):
        G += J[:, 6 * i:6 * i + 6] @ Minv[i] @ J[:, 6 * i:6 * i + 6].T
    W = np.array([G[3 * a:3 * a + 3, 3 * a:3 * a + 3] for a in range(n)])
    indptr, adj, Wadj = [0], [], []
    for a in range(n):
        for c in range(n):
            if c != a and set(pairs[a]) & set(pairs[c]):
                adj.append(c)
                Wadj.append(G[3 * a:3 * a + 3, 3 * c:3 * c + 3])
        indptr.append(len(adj))
    B = rng.normal(size=(n, 3))
    B[:, 2] = -np.abs(B[:, 2])
    par = np.zeros((n, NPAR))
    par[:, 0], par[:, 3], par[:, 7] = 0.3, -1e-3, 1.0
    return LocalDynamics(crow=np.arange(n), kind=np.full(n, C.CONTACT, dtype=np.int64), W=W,
                         Winv=np.linalg.inv(W), rho=1.0 / np.linalg.eigvalsh(W)[:, -1], B=B, V=B.copy(),
                         U=B.copy(), R=np.zeros((n, 3)), par=par, indptr=np.array(indptr, dtype=np.int64),
                         adj=np.array(adj, dtype=np.int64), Wadj=np.array(Wadj).reshape(-1, 3, 3),
                         dynamic=True, h=1e-3)


def test_scalar_contact_row_is_the_array_row():
    """The sweep solves SEMISMOOTH_NEWTON contact rows on scalars (gauss_seidel.
    _contact_row_ssn); the array row (solve_row, which every other kind and solver uses)
    must give the same bits: 20 sweeps of both over a coupled random contact problem
    compare exactly (R, U and the coupled velocities b); converged (epsilon 1e-12) every
    contact satisfies the Signorini-Coulomb conditions with U = B + W R of the whole problem
    (test_solvers_diagonal.kkt_violation, 1e-8 relative: the reactions converge to ~1e-12)."""
    from test_solvers_diagonal import kkt_violation

    from solfec_py.solvers import gauss_seidel as gs

    ld = random_contact_problem(3)
    fast = random_contact_problem(3)
    n, sweeps = ld.n, 20
    order = np.arange(n - 1, -1, -1, dtype=np.int64)
    ws, A, b, R0, U0 = np.empty((9, 3)), np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    blast, blast_fast = np.zeros((n, 3)), np.zeros((n, 3))
    for _ in range(sweeps):
        for a in order:
            assert gs.solve_row(a, ld.kind, ld.W, ld.Winv, ld.rho, ld.B, ld.V, ld.U, ld.R, ld.indptr, ld.adj,
                                ld.Wadj, ld.par, np.zeros(n), blast, True, ld.h, 0, 1e-6, 100, ws, A, b,
                                R0, U0) == 0
    hist = np.zeros(sweeps)
    it, _, _, code = gs.iterate(order, fast.kind, fast.W, fast.Winv, fast.rho, fast.B, fast.V, fast.U, fast.R,
                                fast.indptr, fast.adj, fast.Wadj, fast.par, np.zeros(n), blast_fast, True,
                                fast.h, 0.0, sweeps, 1.0, 0, 1e-6, 100, False, False, 1.0, 0, sweeps,
                                hist, hist.copy(), np.zeros(n), np.zeros((n, 3)))
    assert it == sweeps and code == 0
    assert np.abs(ld.R).max() > 0.1                      # the contacts carry load
    assert np.array_equal(fast.R, ld.R) and np.array_equal(fast.U, ld.U)
    assert np.array_equal(blast_fast, blast)
    settings = gs.Settings(epsilon=1e-12, maxiter=5000)
    result = gs.run(fast, settings)
    assert result.error == "OK"
    U = fast.velocities()
    worst = max(kkt_violation(fast.W[a], U[a] - fast.W[a] @ fast.R[a], fast.V[a], fast.R[a], 0.3, 0.0)
                for a in range(n))
    assert worst <= 1e-8
    loaded = fast.R[:, 2] > 1e-9
    on_cone = np.hypot(*fast.R[:, :2].T) >= 0.3 * fast.R[:, 2] - 1e-9
    assert np.sum(loaded & on_cone) >= 1 and np.sum(loaded & ~on_cone) >= 1     # slip and stick rows


@pytest.mark.parametrize("omega, dmaxiter", [(1.0, 100), (1.0, 2), (1.5, 100), (1.5, 2)])
def test_inlined_contact_row_is_the_array_row_on_every_branch(omega, dmaxiter):
    """When every row is a SEMISMOOTH_NEWTON contact the sweep is gauss_seidel.
    _sweep_contacts: diagonal.ssn_block inlined into its code, compiled with numba's
    error_model="numpy", solve_row called for a row whose Newton iteration fails; the array
    row (solve_row, calling the separately compiled ssn_block, then _relax when omega != 1)
    must give the same bits. 20 alternating (reverse) sweeps of a coupled random problem
    whose rows are open (separating B_N), stick, slip, frictionless (mu = 0: the degenerate
    slip), cohesive (c > 0) and with restitution (e > 0) compare exactly (R, U, b and the
    diagonal error code); with 2 Newton iterations allowed most rows go to the fallbacks of
    solve_row. With 100, each kind of row is present at the end (open: R = (0, 0, -c); slip:
    |R_T| = mu (R_N + c) to 1e-9 (1 + |R_N|); stick: inside the cone by more than that;
    cohesive and restitution rows that are not open)."""
    from solfec_py.solvers import gauss_seidel as gs

    sweeps = 20
    ld, fast = random_contact_problem(11, n=60), random_contact_problem(11, n=60)
    n = ld.n
    for p in (ld, fast):
        p.B[::5, 2] = np.abs(p.B[::5, 2]) + 0.5           # separating: open
        p.par[1::7, 0] = 0.0                               # frictionless
        p.par[2::6, 2] = 0.05                              # cohesion
        p.par[3::4, 1] = 0.5                               # restitution (V_N < 0: approaching)
    order = np.arange(n - 1, -1, -1, dtype=np.int64)
    ws, A, b, R0, U0 = np.empty((9, 3)), np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    blast, blast_fast = np.zeros((n, 3)), np.zeros((n, 3))
    code = 0
    for it in range(sweeps):
        for a in (order[::-1] if it % 2 else order):
            Rp = ld.R[a].copy()
            st = gs.solve_row(a, ld.kind, ld.W, ld.Winv, ld.rho, ld.B, ld.V, ld.U, ld.R, ld.indptr, ld.adj,
                              ld.Wadj, ld.par, np.zeros(n), blast, True, ld.h, 0, 1e-6, dmaxiter, ws, A, b, R0, U0)
            code = code or st
            if st == 0 and omega != 1.0:
                gs._relax(a, omega, ld.par, ld.W, blast, ld.R, ld.U, Rp)
    hist = np.zeros(sweeps)
    it, _, _, code_fast = gs.iterate(order, fast.kind, fast.W, fast.Winv, fast.rho, fast.B, fast.V, fast.U, fast.R,
                                     fast.indptr, fast.adj, fast.Wadj, fast.par, np.zeros(n), blast_fast, True,
                                     fast.h, 0.0, sweeps, 1.0, 0, 1e-6, dmaxiter, True, False, 1.0, 0, sweeps,
                                     hist, hist.copy(), np.zeros(n), np.zeros((n, 3)), omega)
    assert it == sweeps and code_fast == code
    assert np.array_equal(fast.R, ld.R) and np.array_equal(fast.U, ld.U) and np.array_equal(blast_fast, blast)
    if dmaxiter < 100:
        return
    R, mu, c = ld.R, ld.par[:, 0], ld.par[:, 2]
    tangential, cone = np.hypot(R[:, 0], R[:, 1]), mu * (R[:, 2] + c)
    open_ = (R[:, 0] == 0.0) & (R[:, 1] == 0.0) & (R[:, 2] == -c)
    slip = ~open_ & (np.abs(tangential - cone) <= 1e-9 * (1.0 + np.abs(R[:, 2])))
    stick = ~open_ & (tangential < cone - 1e-9 * (1.0 + np.abs(R[:, 2])))
    counts = [int(rows.sum()) for rows in (open_, slip & (mu > 0), slip & (mu == 0), stick, ~open_ & (c > 0),
                                            ~open_ & (ld.par[:, 1] > 0))]
    assert min(counts) > 0, counts


def test_relaxed_row_is_the_array_row_and_the_error_is_the_row_update():
    """Over-relaxed sweeps (omega 1.5) solve SEMISMOOTH_NEWTON contact rows inline on
    scalars (_contact_row_ssn, then _relax); the array row (solve_row) followed by _relax
    must give the same bits over 20 sweeps of a coupled random contact problem. The error of
    each sweep is the row's own Gauss-Seidel update before relaxation, |q - R_prev| / |R|,
    accumulated in row order (compared exactly), and is smaller than the relaxed change
    |R - R_prev| / |R| (about omega times it)."""
    from solfec_py.solvers import gauss_seidel as gs

    omega, sweeps = 1.5, 20
    ld = random_contact_problem(5)
    fast = random_contact_problem(5)
    n = ld.n
    order = np.arange(n - 1, -1, -1, dtype=np.int64)
    ws, A, b, R0, U0 = np.empty((9, 3)), np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    blast, blast_fast = np.zeros((n, 3)), np.zeros((n, 3))
    errors, relaxed = [], []
    for _ in range(sweeps):
        up = lo = moved = 0.0
        for a in order:
            Rp = ld.R[a].copy()
            assert gs.solve_row(a, ld.kind, ld.W, ld.Winv, ld.rho, ld.B, ld.V, ld.U, ld.R, ld.indptr, ld.adj,
                                ld.Wadj, ld.par, np.zeros(n), blast, True, ld.h, 0, 1e-6, 100, ws, A, b,
                                R0, U0) == 0
            for i in range(3):
                up += (ld.R[a, i] - Rp[i]) * (ld.R[a, i] - Rp[i])
            gs._relax(a, omega, ld.par, ld.W, blast, ld.R, ld.U, Rp)
            for i in range(3):
                lo += ld.R[a, i] * ld.R[a, i]
                moved += (ld.R[a, i] - Rp[i]) ** 2
        errors.append(np.sqrt(up) / np.sqrt(lo))
        relaxed.append(np.sqrt(moved) / np.sqrt(lo))
    hist = np.zeros(sweeps)
    it, _, _, code = gs.iterate(order, fast.kind, fast.W, fast.Winv, fast.rho, fast.B, fast.V, fast.U, fast.R,
                                fast.indptr, fast.adj, fast.Wadj, fast.par, np.zeros(n), blast_fast, True,
                                fast.h, 0.0, sweeps, 1.0, 0, 1e-6, 100, False, False, 1.0, 0, sweeps,
                                hist, hist.copy(), np.zeros(n), np.zeros((n, 3)), omega)
    assert it == sweeps and code == 0
    assert np.abs(ld.R).max() > 0.1
    assert np.array_equal(fast.R, ld.R) and np.array_equal(fast.U, ld.U) and np.array_equal(blast_fast, blast)
    assert np.array_equal(hist, np.array(errors))
    assert np.all(np.array(errors)[1:] < np.array(relaxed)[1:])
