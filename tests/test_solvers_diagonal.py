"""Diagonal block solvers (solvers/diagonal.py) on random SPD 3x3 blocks against an
independent reference solve of the single-contact Signorini-Coulomb problem (case
analysis: open / stick / slip, the slip direction found by a scan and brentq), the
complementarity conditions checked directly, and the direct solvers of the joint kinds
against their defining equations."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from solfec_py.solvers import diagonal as D

H = 1e-3
DIAGEPS = 1e-12     # requested |dR| / max(|R|, 1): answers are compared at 1e-6 (a million
MAXITER = 2000      # times looser, covering the conditioning of the random blocks)


def reference(W, b, V, mu, e):
    """All solutions R of: U = b + W R, bar U_N = U_N + e min(V_N, 0) >= 0, R_N >= 0,
    bar U_N R_N = 0, |R_T| <= mu R_N, R_T = -mu R_N U_T / |U_T| when sliding."""
    u0 = -e * min(V[2], 0.0)
    sols = []
    if b[2] - u0 >= 0:                                     # open
        sols.append(np.zeros(3))
    R = np.linalg.solve(W, np.array([0.0, 0.0, u0]) - b)   # stick
    if R[2] >= 0 and np.hypot(R[0], R[1]) <= mu * R[2] * (1 + 1e-12):
        sols.append(R)
    if mu > 0:                                             # slip along t(phi)
        def state(phi):
            t = np.array([np.cos(phi), np.sin(phi)])
            g = np.array([-mu * t[0], -mu * t[1], 1.0])
            Wg = W @ g
            RN = (u0 - b[2]) / Wg[2]
            return RN, g, b + Wg * RN, t

        def cross(phi):
            _, _, U, t = state(phi)
            return U[0] * t[1] - U[1] * t[0]

        grid = np.linspace(0, 2 * np.pi, 3601)
        with np.errstate(all="ignore"):
            vals = np.array([cross(p) for p in grid])
            dens = np.array([(W @ [-mu * np.cos(p), -mu * np.sin(p), 1.0])[2] for p in grid])
        for i in range(grid.size - 1):
            if not np.isfinite(vals[i:i + 2]).all() or dens[i] * dens[i + 1] <= 0:
                continue                                   # a pole of R_N(phi)
            if vals[i] * vals[i + 1] < 0:
                RN, g, U, t = state(brentq(cross, grid[i], grid[i + 1], xtol=1e-15))
                if RN > 0 and U[:2] @ t > 0:
                    sols.append(RN * g)
    unique = []
    for s in sols:
        if not any(np.linalg.norm(s - u) < 1e-7 * max(1, np.linalg.norm(s)) for u in unique):
            unique.append(s)
    return unique


def kkt_violation(W, b, V, R, mu, e, c=0.0):
    """Largest violation of the (cohesive) Signorini-Coulomb conditions at R."""
    U = b + W @ R
    un = U[2] + e * min(V[2], 0.0)
    rn = R[2] + c
    rt = np.hypot(R[0], R[1])
    ut = np.hypot(U[0], U[1])
    v = [max(-un, 0.0), max(-rn, 0.0), abs(un * rn), max(rt - mu * rn, 0.0)]
    if ut > 1e-9:    # sliding: R_T opposite to U_T and on the cone
        v.append(np.linalg.norm(R[:2] + mu * rn * U[:2] / ut))
    return max(v) / max(1.0, np.linalg.norm(R))


def random_blocks(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        A = rng.normal(size=(3, 3))
        W = A @ A.T + 0.2 * np.eye(3)
        yield W, rng.normal(size=3), rng.normal(size=3), rng.uniform(0, 1), rng.choice([0.0, 0.5])


def run(solver, W, b, V, mu, e, c=0.0, gap=-0.01, dynamic=True, R=None, U=None):
    R = np.zeros(3) if R is None else R
    U = np.zeros(3) if U is None else U
    par = np.array([mu, e, c, gap, D.SIGNORINI_COULOMB, 0, 0, 1.0])
    rho = 1.0 / np.linalg.eigvalsh(W)[-1]
    it = D.contact_solve(solver, dynamic, H, par, rho, W, b, V, U, R, DIAGEPS, MAXITER,
                         np.zeros((9, 3)), np.zeros((3, 3)))
    return it, R, U


@pytest.mark.parametrize("solver", [D.SEMISMOOTH_NEWTON, D.PROJECTED_GRADIENT, D.DE_SAXCE_FENG])
def test_contact_solvers_match_reference(solver):
    checked = 0
    for W, b, V, mu, e in random_blocks(7, 150):
        sols = reference(W, b, V, mu, e)
        assert len(sols) >= 1           # a single contact with SPD W always has a solution
        if len(sols) > 1:
            continue
        it, R, U = run(solver, W, b, V, mu, e)
        assert 0 <= it <= MAXITER
        assert np.linalg.norm(R - sols[0]) <= 1e-6 * max(1.0, np.linalg.norm(sols[0]))
        assert np.allclose(U, b + W @ R, atol=1e-9 * max(1.0, np.linalg.norm(U)))
        assert kkt_violation(W, b, V, R, mu, e) < 1e-6
        checked += 1
    assert checked >= 140


def test_projected_newton_converges_or_reports_failure():
    """PN either reaches the reference or returns -1 (the Gauss-Seidel fallback then runs
    the other solvers); it never returns a wrong answer as a success."""
    converged = 0
    for W, b, V, mu, e in random_blocks(11, 150):
        sols = reference(W, b, V, mu, e)
        it, R, U = run(D.PROJECTED_NEWTON, W, b, V, mu, e)
        if it < 0:
            continue
        assert it < MAXITER
        assert len(sols) >= 1
        assert min(np.linalg.norm(R - s) for s in sols) <= 1e-6 * max(1.0, np.linalg.norm(R))
        converged += 1
    assert converged >= 135            # measured: 146 of 150


@pytest.mark.parametrize("solver", range(4))
def test_frictionless_case_is_a_projection(solver):
    """mu = 0: R_T = 0 and R_N = max(0, (u0 - b_N) / W_NN) ... with W_TN coupling the
    normal equation is W_NN R_N = u0 - b_N exactly (R_T = 0)."""
    for W, b, V, _, e in random_blocks(3, 30):
        it, R, U = run(solver, W, b, V, 0.0, e)
        if it < 0:
            continue
        u0 = -e * min(V[2], 0.0)
        assert R[0] == pytest.approx(0.0, abs=1e-9) and R[1] == pytest.approx(0.0, abs=1e-9)
        assert R[2] == pytest.approx(max(0.0, (u0 - b[2]) / W[2, 2]), rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("solver", [D.SEMISMOOTH_NEWTON, D.PROJECTED_GRADIENT, D.DE_SAXCE_FENG])
def test_cohesion_shifts_the_cone(solver):
    """With cohesion c the conditions hold for R_N + c (so R_N may reach -c)."""
    c = 0.7
    for W, b, V, mu, e in random_blocks(5, 40):
        it, R, U = run(solver, W, b, V, mu, e, c=c)
        assert 0 <= it < MAXITER
        assert R[2] >= -c - 1e-9
        assert kkt_violation(W, b, V, R, mu, e, c=c) < 1e-6


def test_quasi_static_normal_velocity_uses_the_gap():
    """Quasi-static: bar U_N = max(g, 0)/h + U_N; a frictionless contact with g > 0 allows
    U_N = -g/h (closing the gap in one step) and no more."""
    W = np.diag([2.0, 2.0, 2.0])
    b = np.array([0.0, 0.0, -10.0])
    g = 0.004
    it, R, U = run(D.SEMISMOOTH_NEWTON, W, b, np.zeros(3), 0.0, 0.0, gap=g, dynamic=False)
    assert U[2] == pytest.approx(-g / H)
    assert R[2] == pytest.approx((-g / H - b[2]) / 2.0)


def test_dynamic_open_gap_is_skipped():
    W = np.eye(3)
    b = np.array([1.0, 2.0, -3.0])
    it, R, U = run(D.SEMISMOOTH_NEWTON, W, b, np.zeros(3), 0.5, 0.0, gap=0.01)
    assert it == 0 and not R.any() and np.array_equal(U, b)


def test_spring_dashpot_implicit_formula():
    """Hand-worked: s = 1e4, d = 10, m = 1, g = -1e-3, V_N = -0.2, b = (0, 0, -0.1), W = I:
    g1 = g + h/4 (b_N - V_N), R_N = (s (-g1) - d/2 (b_N + V_N)) / (1 + (h/4 s + d/2) W_NN);
    R_T from the stick estimate -W_TT^-1 (b_T + W_TN R_N) = 0."""
    s, d, g = 1e4, 10.0, -1e-3
    W = np.eye(3)
    b = np.array([0.0, 0.0, -0.1])
    V = np.array([0.0, 0.0, -0.2])
    par = np.array([0.5, 0.0, 0.0, g, D.SPRING_DASHPOT, s, d, 1.0])
    R, U = np.zeros(3), np.zeros(3)
    D.spring_dashpot(True, H, par, W, b, V, U, R, True)
    g1 = g + H / 4 * (b[2] - V[2])
    expected = (s * -g1 - d / 2 * (b[2] + V[2])) / (1 + (H / 4 * s + d / 2))
    assert R[2] == pytest.approx(expected, rel=1e-13)
    assert R[0] == 0 and R[1] == 0
    assert U == pytest.approx(b + W @ R)


def test_fixed_point_and_prescribed_velocity_solvers():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(3, 3))
    W = A @ A.T + np.eye(3)
    b, target = rng.normal(size=3), rng.normal(size=3)
    R, U = np.zeros(3), np.zeros(3)
    D.point_solve(np.linalg.inv(W), W, b, target, U, R)
    assert U == pytest.approx(target, abs=1e-12)
    assert W @ R == pytest.approx(target - b, abs=1e-12)
    D.normal_solve(W, b, 0.25, U, R)
    assert R[:2].tolist() == [0.0, 0.0] and U[2] == pytest.approx(0.25)
    assert U == pytest.approx(b + W @ R)


def test_rigid_link_keeps_length_with_smallest_reaction():
    """|Y + hh (b + W_.N R_N)| = d0 has two roots; the solver returns the one of smaller
    magnitude (minimum of 1/2 W_NN R_N^2 on the constraint)."""
    rng = np.random.default_rng(4)
    for _ in range(50):
        A = rng.normal(size=(3, 3))
        W = A @ A.T + np.eye(3)
        Y = np.array([0.0, 0.0, 1.0]) + 0.01 * rng.normal(size=3)
        b = rng.normal(size=3)
        hh = 0.5e-3
        R, U = np.zeros(3), np.zeros(3)
        flag = D.rigid_link_solve(W, b, Y, 1.0, hh, 0.0, U, R)
        assert flag == 0
        assert np.linalg.norm(Y + hh * U) == pytest.approx(1.0, abs=1e-12)
        # the other root of the quadratic in R_N
        w = hh * W[:, 2]
        a = Y + hh * b
        roots = np.roots([w @ w, 2 * a @ w, a @ a - 1.0])
        assert abs(R[2]) == pytest.approx(min(abs(roots)), rel=1e-9)


def test_rigid_link_without_solution_falls_back():
    """A free velocity that cannot be brought back to the link length in one step (no real
    root) gives R_N with U_N equal to the fallback target and flag 1."""
    W = np.eye(3)
    b = np.array([4000.0, 0.0, 0.0])     # the tangential end motion alone exceeds the length
    R, U = np.zeros(3), np.zeros(3)
    flag = D.rigid_link_solve(W, b, np.array([0.0, 0.0, 1.0]), 1.0, 0.5e-3, -3.0, U, R)
    assert flag == 1 and U[2] == pytest.approx(-3.0)


def test_cone_projection_identities():
    rng = np.random.default_rng(9)
    out, twice = np.zeros(3), np.zeros(3)
    for _ in range(200):
        mu = rng.uniform(0, 2)
        s = rng.normal(size=3) * 3
        D.cone_project(mu, s, out)
        D.cone_project(mu, out, twice)
        assert twice == pytest.approx(out, abs=1e-12)                     # idempotent
        assert np.hypot(out[0], out[1]) <= mu * out[2] + 1e-12              # feasible
        assert (s - out) @ out == pytest.approx(0.0, abs=1e-9)              # orthogonal


def gepp(A, x):
    """Textbook Gaussian elimination with partial pivoting (first largest |pivot|), in plain
    Python floats: the reference of solve3s, operation for operation."""
    A = [list(map(float, r)) for r in A]
    x = list(map(float, x))
    for c in range(3):
        p = max(range(c, 3), key=lambda r: (abs(A[r][c]), -r))
        if abs(A[p][c]) == 0.0:
            return None
        A[c], A[p] = A[p], A[c]
        x[c], x[p] = x[p], x[c]
        for r in range(c + 1, 3):
            f = A[r][c] / A[c][c]
            for j in range(c, 3):
                A[r][j] -= f * A[c][j]
            x[r] -= f * x[c]
    for c in (2, 1, 0):
        s = x[c]
        for j in range(c + 1, 3):
            s -= A[c][j] * x[j]
        x[c] = s / A[c][c]
    return x


def test_scalar_solve3_is_partial_pivoting():
    """solve3s (the 3x3 solve of the SEMISMOOTH_NEWTON step) against a textbook elimination
    with partial pivoting, bit for bit, and against LAPACK's dgesv (numpy) to 1e-10 relative
    (these matrices have condition numbers below 1e4, so both are within ~1e-12); the pivot
    cases (largest entry in row 1 or 2, swaps in column 1) are all exercised."""
    rng = np.random.default_rng(11)
    pivots = set()
    for k in range(400):
        A = rng.normal(size=(3, 3))
        if k % 4 == 1:
            A[0, 0] = 0.0                     # forces a row swap in column 0
        if k % 4 == 2:
            A[1, 1] = A[0, 1] * A[1, 0] / A[0, 0]   # zero pivot in column 1 after elimination
        if np.linalg.cond(A) > 1e4:
            continue
        x = rng.normal(size=3)
        ok, *y = D.solve3s(*A.ravel(), *x)
        assert ok
        assert y == gepp(A, x)                                   # same bits
        ref = np.linalg.solve(A, x)
        assert np.linalg.norm(np.array(y) - ref) <= 1e-10 * np.linalg.norm(ref)
        pivots.add((int(np.argmax(np.abs(A[:, 0]))), k % 4 == 2))
        xa = x.copy()
        assert D.solve3(A.copy(), xa) and list(xa) == y          # the array form is the same solve
    assert {(0, False), (1, False), (2, False)} <= pivots
    assert not D.solve3s(*np.zeros(9), 1.0, 2.0, 3.0)[0]         # singular
    assert not D.solve3s(*np.array([[1.0, 2, 3], [2, 4, 6], [0, 1, 1]]).ravel(), 1.0, 2.0, 3.0)[0]
    assert not D.solve3s(*np.diag([1.0, np.inf, 1.0]).ravel(), 1.0, 2.0, 3.0)[0]
