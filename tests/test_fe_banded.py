"""The band Cholesky factor of a co-rotational body's constant operator (bodies/fe_banded.py)
against independent references: SuperLU's solve of the same matrix, the half-bandwidth of a
structured beam numbered slice by slice worked out by hand, and the same DEF_LIM run with the
band switched off."""
from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from solfec_py.bodies import fe_banded as FB

_RUNS = itertools.count()


def grid_operator(nx, ny, nz, seed=0):
    """Nodes of an nx x ny x nz cell grid (shuffled numbering) and an SPD matrix coupling the
    3 unknowns of every two nodes of a common cell, as a HEX8 stiffness does."""
    rng = np.random.default_rng(seed)
    X = np.array([(i, j, k) for i in range(nx + 1) for j in range(ny + 1) for k in range(nz + 1)], dtype=float)
    X[:, 0] *= 3.0                                          # the beam's long axis is x
    perm = rng.permutation(X.shape[0])
    X = X[perm]
    index = {tuple(x): n for n, x in enumerate(X)}
    rows, cols = [], []
    for i, j, k in itertools.product(range(nx), range(ny), range(nz)):
        cell = [index[(3.0 * (i + a), j + b, k + c)] for a in (0, 1) for b in (0, 1) for c in (0, 1)]
        for p, q in itertools.product(cell, cell):
            for d, e in itertools.product(range(3), range(3)):
                rows.append(3 * p + d)
                cols.append(3 * q + e)
    n = 3 * X.shape[0]
    pattern = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    pattern.sum_duplicates()
    B = pattern.copy()
    B.data = rng.uniform(-1.0, 1.0, B.data.size)
    A = (B + B.T) * 0.5
    A = A + sp.diags(np.abs(A).sum(axis=1).A1 + 1.0)         # diagonally dominant: SPD
    return X, A.tocsc()


def test_band_solves_as_superlu_and_slices_a_beam_to_its_bandwidth():
    """Reference: SuperLU on the same matrix (agreement to 1e-12 relative, a few roundings of a
    well-conditioned system), and the half-bandwidth of the slice order (slices across the
    long x axis, rows along the shortest, y): a node couples to nodes at most one slice + one
    row + one node further, 3 unknowns each, plus the 2 from the first to the last unknown of
    a node pair: kd = 3 ((ny+1)(nz+1) + (ny+1) + 1) + 2."""
    nx, ny, nz = 12, 2, 3
    X, A = grid_operator(nx, ny, nz)
    order, kd = FB.band_plan(A, X)
    assert kd == 3 * ((ny + 1) * (nz + 1) + (ny + 1) + 1) + 2
    assert kd == FB.bandwidth(A, order)
    band = FB.banded(A, order, kd)
    rhs = np.random.default_rng(1).standard_normal((A.shape[0], 3))
    want = splu(A).solve(rhs)
    for b, w in ((rhs[:, 0], want[:, 0]), (rhs, want)):
        got = band.solve(b)
        assert got.shape == w.shape
        assert np.abs(got - w).max() <= 1e-12 * np.abs(w).max()


def test_band_refuses_an_indefinite_matrix():
    X, A = grid_operator(4, 1, 1)
    order, kd = FB.band_plan(A, X)
    assert FB.banded(A - 1e3 * sp.identity(A.shape[0], format="csc"), order, kd) is None


def test_bc_run_with_the_band_matches_the_superlu_run(api, monkeypatch):
    """A clamped BC beam (DEF_LIM, with FIX_DIRECTION pins, so the partly fixed nodes' columns
    are solved with the factor too) stepped with the band and with SuperLU (band refused):
    states equal to 1e-10 of their size."""
    from solfec_py.bodies import fe_corotational, fe_rotated

    monkeypatch.setattr(fe_rotated, "DENSE_LIMIT", 0)
    used = []
    real = FB.BandedCholesky

    def counted(*args):
        used.append(1)
        return real(*args)

    monkeypatch.setattr(FB, "BandedCholesky", counted)
    confs = []
    for allow in (True, False):
        if not allow:
            monkeypatch.setattr(fe_corotational, "band_plan", lambda A, X: (np.arange(A.shape[0]), A.shape[0]))
        sol = api.SOLFEC("DYNAMIC", 1e-4, f"out/band{next(_RUNS)}")
        sol.verbose = "OFF"
        api.OUTPUT(sol, 1e9)
        mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1000.0)
        nodes = [0, 0, 0, 1, 0, 0, 1, 0.2, 0, 0, 0.2, 0, 0, 0, 0.2, 1, 0, 0.2, 1, 0.2, 0.2, 0, 0.2, 0.2]
        body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(nodes, 12, 2, 2, 1, [1] * 6), mat, form="BC")
        body.scheme = "DEF_LIM"
        X = body.block.X[: body.block.N]
        for p in X[np.abs(X[:, 0]) < 1e-12]:
            api.FIX_POINT(body, tuple(p.tolist()))
        tip = X[np.abs(X[:, 0] - 1.0) < 1e-12][-1]
        api.FIX_DIRECTION(body, tuple(tip.tolist()), (0.0, 0.6, 0.8))
        api.INITIAL_VELOCITY(body, (0.0, 0.0, 0.0), (0.0, 1.0, 2.0))
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 20 * sol.domain.step)
        assert bool(used) == allow
        used.clear()
        confs.append(np.array(body.conf))
    assert np.abs(confs[0] - confs[1]).max() <= 1e-10 * np.abs(confs[1]).max()
