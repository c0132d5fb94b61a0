"""The linear solvers of implicit total-Lagrangian bodies against the fresh LU factorisation of
every step (Solfec's treatment, bodies/fe_direct.py): conjugate gradients tried first by large
bodies (converged to 1e-13 of the right-hand side, the refinement tolerance of a kept
factorisation) give the same motion to round-off, and a step far beyond the explicit limit,
where CG does not converge within its iterations, falls back to the factorisation."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fe_cube_row import cube_row

_RUNS = itertools.count()


def tumbling_box(api, h):
    sol = api.SOLFEC("DYNAMIC", h, f"out/fesolve{next(_RUNS)}")
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1000.0)
    nodes = [-1, -0.5, -0.25, 1, -0.5, -0.25, 1, 0.5, -0.25, -1, 0.5, -0.25,
             -1, -0.5, 0.25, 1, -0.5, 0.25, 1, 0.5, 0.25, -1, 0.5, 0.25]
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(nodes, 4, 2, 2, 1, [1] * 6), mat)
    body.scheme = "DEF_LIM"
    api.INITIAL_VELOCITY(body, (0.1, 0.0, 0.0), (1.0, 2.0, 3.0))
    api.FIX_POINT(body, (-1, -0.5, -0.25))
    api.FIX_DIRECTION(body, (1, 0.5, 0.25), (0.0, 0.0, 1.0))
    return sol, body


@pytest.mark.parametrize("h, cg_converges", [(2e-4, True), (0.02, False)])
def test_conjugate_gradients_first_match_the_factorisation(api, monkeypatch, h, cg_converges):
    from solfec_py.bodies.fe_direct import Operator

    confs, counts = [], []
    for cg in (False, True):
        monkeypatch.setattr(Operator, "REUSE_DOFS", 0 if cg else 10 ** 9)      # the box is small
        sol, body = tumbling_box(api, h)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 10 * h)
        confs.append(np.array(body.conf))
        counts.append(body.block.solver.factorisations)
        abandoned = ("no cg", body.row) in body.block.solver.kept
    steps = sol.domain.steps_done
    assert counts[0] == steps                                # the reference: every step
    if cg_converges:
        assert counts[1] == 0 and not abandoned              # CG every step, no factorisation
    else:
        assert counts[1] > 0 and abandoned                   # fell back to the factorisation
    # measured 4e-16 (CG) and 0 (the same factorisations)
    assert np.abs(confs[1] - confs[0]).max() < 1e-11 * np.abs(confs[0]).max()


def test_delassus_columns_through_the_touched_nodes_equal_the_direct_solve(api):
    """Points sharing few nodes (contact points on a face): A^-1 H^T is computed from the unit
    columns of the touched nodes (fe_dynamics.Stepper._columns), equal to A^-1 H^T solved
    directly to round-off."""
    from solfec_py.bodies.finite_element import PointOperator

    sol = api.SOLFEC("QUASI_STATIC", 1e-3, f"out/fesolve{next(_RUNS)}")
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=2e11, poisson=0.3, density=7850.0)
    nodes = [0, -2.5, 0.5, 10, -2.5, 0.5, 10, 2.5, 0.5, 0, 2.5, 0.5, 0, -2.5, 0, 10, -2.5, 0, 10, 2.5, 0, 0, 2.5, 0]
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(nodes, 8, 4, 1, 1, [1, 2, 3, 4, 5, 6]), mat)
    api.FIX_POINT(body, (0, -2.5, 0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 1e-3)
    blk, st = body.block, body.block.solver
    rng = np.random.default_rng(7)
    k, nn = 60, blk.nnodes[body.row]
    pts = rng.integers(0, 12, (k, 4))                      # 60 points on 12 nodes
    src = PointOperator(pts, rng.random((k, 4)), np.linalg.qr(rng.standard_normal((k, 3, 3)))[0])
    Z, column = st._columns(body.row, src)
    HT = np.zeros((3 * nn, 3 * k))
    for p in range(k):
        for a, w in zip(pts[p], src.N[p]):
            HT[3 * a:3 * a + 3, 3 * p:3 * p + 3] += w * src.base[p]
    ref = st._solve(body.row, HT)
    assert np.array_equal(column, 3 * np.arange(k))
    assert np.abs(Z - ref).max() < 1e-12 * np.abs(ref).max()


def test_small_bodies_are_inverted_all_at_once(api):
    """Small unpinned total-Lagrangian DEF_LIM bodies (one HEX: 24 unknowns; HEX 2 x 2 x 2:
    81) have A = M + h^2/4 K of the step inverted densely, all bodies of one size at once
    (fe_dynamics.Stepper._factorise_dense); a pinned body keeps its sparse factorisation.
    Each inverse times A sliced from the step's tangent (the body-by-body path's operator) is
    I to round-off, and the Delassus blocks of random points equal Ha A^-1 Hb^T solved
    densely."""
    from solfec_py.bodies.fe_dense import DenseOperator
    from solfec_py.bodies.fe_direct import Operator
    from solfec_py.bodies.finite_element import PointOperator

    h = 1e-3
    sol, bodies = cube_row(api, f"out/fesolve{next(_RUNS)}", (1, 2, 1, 2), h=h)
    api.FIX_POINT(bodies[3], (6.0, 0.0, 0.0))              # pinned: factorised on its own
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 2 * h)
    blk, st = bodies[0].block, bodies[0].block.solver
    assert [type(st.factors[b.row]) for b in bodies] == [DenseOperator] * 3 + [Operator]
    dense = st.dense_set()
    assert sorted(3 * g.stack.shape[1] for g in dense.groups) == [24, 81]
    rng = np.random.default_rng(5)
    for body in bodies[:3]:
        A = st._body_operator(st.Kmat, blk.nodes_of(body.row), 0.25 * h * h).toarray()
        # measured 4e-16: the inverse of a well-conditioned 24 or 81 square SPD matrix
        assert np.abs(st.factors[body.row].inverse @ A - np.eye(A.shape[0])).max() < 1e-12
        start, nn = int(blk.nstart[body.row]), int(blk.nnodes[body.row])
        k = 10
        ops = [PointOperator(start + rng.integers(0, nn, (k, 8)), rng.random((k, 8)),
                             np.linalg.qr(rng.standard_normal((k, 3, 3)))[0]) for _ in range(2)]
        W = st.delassus(np.full(k, body.row), *ops)
        for e in range(k):
            Ht = [np.zeros((3 * nn, 3)), np.zeros((3 * nn, 3))]
            for H, T in zip(ops, Ht):
                for a, w in zip(H.nodes[e] - start, H.N[e]):
                    T[3 * a:3 * a + 3] += w * H.base[e]
            ref = Ht[0].T @ np.linalg.solve(A, Ht[1])
            assert np.abs(W[e] - ref).max() < 1e-12 * np.abs(ref).max()
