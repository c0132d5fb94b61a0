"""Pinned nodes of body co-rotational (BC) DEF_LIM and quasi-static bodies, eliminated from the
kept factor of A0 = M + c K0 (bodies/fe_rotated.py), against independent references: the
projected solve (T A T + I - T)^-1 T b with A = M + c R K0 R^T assembled densely (the
definition of the elimination, bodies/fe_pins.py), and the same pins held by the Gauss-Seidel
solver through the Delassus operator (Solfec's treatment)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fe_cube_row import cube_row

_RUNS = itertools.count()


def bar(api, analysis="DYNAMIC", h=1e-4, n=(6, 2, 2)):
    sol = api.SOLFEC(analysis, h, f"out/bcpin{next(_RUNS)}")
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1000.0)
    nodes = [0, 0, 0, 1, 0, 0, 1, 0.2, 0, 0, 0.2, 0, 0, 0, 0.2, 1, 0, 0.2, 1, 0.2, 0.2, 0, 0.2, 0.2]
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(nodes, *n, 1, [1] * 6), mat, form="BC")
    body.scheme = "DEF_LIM"
    X = body.block.X[: body.block.N]
    for p in X[np.abs(X[:, 0]) < 1e-12]:              # the clamp: every node at x = 0
        api.FIX_POINT(body, tuple(p.tolist()))
    for p in X[np.abs(X[:, 0] - 1.0) < 1e-12][:2]:     # two tip nodes slide in the y-z plane
        api.FIX_DIRECTION(body, tuple(p.tolist()), (1.0, 0.0, 0.0))
    tip = X[np.abs(X[:, 0] - 1.0) < 1e-12][-1]
    api.FIX_DIRECTION(body, tuple(tip.tolist()), (0.0, 0.6, 0.8))
    return sol, body


def turned(body, angle=0.4):
    """A rigid turn about the clamp's axis plus a bend: R of the body is far from I."""
    blk = body.block
    X = blk.X[: blk.N]
    c, s = np.cos(angle), np.sin(angle)
    Q = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    blk.q[: blk.N] = X @ Q.T - X + np.column_stack([0 * X[:, 0], 0 * X[:, 0], 1e-3 * X[:, 0] ** 2])


@pytest.mark.parametrize("analysis", ["DYNAMIC", "QUASI_STATIC"])
def test_rotated_pinned_solve_is_the_projected_solve(api, analysis):
    from solfec_py.bodies.fe_corotational import stiffness_at_rest

    h = 1e-4 if analysis == "DYNAMIC" else 1e-2
    sol, body = bar(api, analysis, h)
    turned(body)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), h)
    blk, st = body.block, body.block.solver
    row = body.row
    op = st.factors[row]
    R = st.rotations()[st.co.pos[row]]
    sl = blk.nodes_of(row)
    nn = sl.stop - sl.start
    c = h * h / 4 if analysis == "DYNAMIC" else h * h
    Rb = np.kron(np.eye(nn), R)
    K0 = stiffness_at_rest(blk).toarray()[3 * sl.start:3 * sl.stop, 3 * sl.start:3 * sl.stop]
    A = np.diag(np.repeat(blk.prepared().mass[sl], 3)) + c * Rb @ K0 @ Rb.T
    T = np.eye(3 * nn)
    assert op.local.size == 9 + 3                       # 9 clamped nodes, 3 sliding ones
    assert np.sum(np.einsum("kii->k", op.Pn) > 0.5) == 3
    for k, P in zip(op.local.tolist(), op.Pn):
        T[3 * k:3 * k + 3, 3 * k:3 * k + 3] = P
    b = np.random.default_rng(3).standard_normal((3 * nn, 4))
    ref = T @ np.linalg.solve(T @ A @ T + np.eye(3 * nn) - T, T @ b)
    x = op.solve(b)
    # the dense reference and the capacitance form differ by round-off of cond(A) ~ 1e4
    assert np.abs(x - ref).max() < 1e-10 * np.abs(ref).max()
    np.testing.assert_allclose(op.solve(b[:, 0]), x[:, 0], rtol=0, atol=1e-14 * np.abs(x).max())
    v = b[:, 1]
    np.testing.assert_allclose(op.A @ v, A @ v, rtol=0, atol=1e-12 * np.abs(A @ v).max())


def test_clamped_def_lim_matches_the_solver_held_pins(api, monkeypatch):
    """50 DEF_LIM steps of a bent, released BC bar clamped at one end: the pins eliminated
    (one factorisation for the run) against the same pins held by Gauss-Seidel to 1e-12."""
    from solfec_py.bodies.fe_corotational import CorotationalStepper

    def held(self, implicit):
        return np.where(implicit, 0, 1).astype(np.int8)

    confs, reacts = [], []
    for solver_held in (False, True):
        if solver_held:
            monkeypatch.setattr(CorotationalStepper, "pin_levels", held)
        sol, body = bar(api)
        X = body.block.X[: body.block.N]
        body.block.q[: body.block.N] = np.column_stack([0 * X[:, 0], 0 * X[:, 0], -1e-3 * X[:, 0] ** 2])
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 50 * 1e-4)
        confs.append(np.array(body.conf))
        st = body.block.solver
        if not solver_held:
            assert len(st.A0) == 1                         # factorised once, pins included
        cons = [c for c in sol.constraints if c.kind == "FIXPNT"]
        reacts.append(np.array([c.R for c in cons]))
    scale = np.abs(confs[0]).max()
    assert np.abs(confs[1] - confs[0]).max() < 1e-11 * scale      # measured 3e-14
    # the clamp's reactions of the last step, from the pinned rows of the step equation
    assert np.abs(reacts[1] - reacts[0]).max() < 1e-9 * np.abs(reacts[0]).max()    # measured 2e-12


def test_batched_delassus_blocks_of_small_bc_bodies_equal_the_solves_body_by_body(api, monkeypatch):
    """Small unpinned BC DEF_LIM bodies (one HEX: 24 unknowns; HEX 2 x 2 x 2: 81) have their
    Delassus blocks Ha A^-1 Hb^T formed all at once from their stacked dense inverses
    (bodies/fe_dense.py), and the steps' solves A^-1 v too; a pinned body goes body by
    body. Every block equals Ha (A^-1 Hb^T) with A^-1 Hb^T solved by the body's own operator
    (RotatedOperator.solve, its rotation far from I) to round-off, the body-by-body path
    gives the same, and so do the solves."""
    from solfec_py.bodies.finite_element import PointOperator

    h = 1e-3
    sol, bodies = cube_row(api, f"out/bcpin{next(_RUNS)}", (1, 2, 1, 2, 1), form="BC", h=h)
    api.FIX_POINT(bodies[4], (8.0, 0.0, 0.0))              # pinned: body by body
    for body in bodies:                                    # turned far from the reference
        blk = body.block
        sl = blk.nodes_of(body.row)
        X = blk.X[sl]
        c, s = np.cos(0.7), np.sin(0.7)
        Q = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        blk.q[sl] = (X - X.mean(axis=0)) @ Q.T + X.mean(axis=0) - X
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), h)
    blk, st = bodies[0].block, bodies[0].block.solver
    dense = st.dense_set()
    assert [int(dense.group[b.row] >= 0) for b in bodies] == [1, 1, 1, 1, 0]
    assert sorted(3 * g.stack.shape[1] for g in dense.groups) == [24, 81]
    rng = np.random.default_rng(3)
    rows, na, nb = [], [], []
    for body in bodies:                                    # 12 point pairs a body
        start, nn = int(blk.nstart[body.row]), int(blk.nnodes[body.row])
        rows += [body.row] * 12
        na.append(start + rng.integers(0, nn, (12, 8)))
        nb.append(start + rng.integers(0, nn, (12, 8)))
    rows = np.array(rows)
    k = rows.size
    weights = rng.random((2, k, 8))
    weights[:, :, 6:] = 0.0                                # padded slots
    bases = np.linalg.qr(rng.standard_normal((2, k, 3, 3)))[0]
    Ha = PointOperator(np.concatenate(na), weights[0], bases[0])
    Hb = PointOperator(np.concatenate(nb), weights[1], bases[1])
    ref = np.empty((k, 3, 3))
    for e in range(k):
        row = int(rows[e])
        start, nn = int(blk.nstart[row]), int(blk.nnodes[row])
        Hta, Htb = np.zeros((3 * nn, 3)), np.zeros((3 * nn, 3))
        for H, Ht in ((Ha, Hta), (Hb, Htb)):
            for a, w in zip(H.nodes[e] - start, H.N[e]):
                Ht[3 * a:3 * a + 3] += w * H.base[e]
        ref[e] = Hta.T @ st._solve(row, Htb)
    batched = st.delassus(rows, Ha, Hb)
    monkeypatch.setattr(type(st), "dense_set", lambda self: None)               # body by body
    single = st.delassus(rows, PointOperator(Ha.nodes, Ha.N, Ha.base), PointOperator(Hb.nodes, Hb.N, Hb.base))
    scale = np.abs(ref).max()
    # measured 6e-16 (all at once) and 3e-16 (body by body) of the largest block: round-off
    assert np.abs(batched - ref).max() < 1e-13 * scale
    assert np.abs(single - ref).max() < 1e-13 * scale
    # the steps' solves A^-1 v of the same bodies all at once (DenseSet.solve)
    v = rng.standard_normal((blk.N, 3))
    nodes, x = dense.solve(blk, v)
    for body in bodies[:4]:
        sl = blk.nodes_of(body.row)
        mine = (nodes >= sl.start) & (nodes < sl.stop)
        assert np.array_equal(np.sort(nodes[mine]), np.arange(sl.start, sl.stop))
        one = st._solve(body.row, v[sl].reshape(-1)).reshape(-1, 3)
        assert np.abs(x[mine][np.argsort(nodes[mine])] - one).max() < 1e-13 * np.abs(one).max()
