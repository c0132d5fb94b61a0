"""W of implicit FE bodies kept factored, h P S P^T (solvers/factored_delassus.py): the
kernels against an explicitly built dense P, the assembled local dynamics against the pair
assembly of the same step, and NEWTON_SOLVER's reactions against its run on the pairs."""
from __future__ import annotations

import numpy as np

from solfec_py.solvers import local_dynamics_kernels as K
from solfec_py.solvers import newton
from solfec_py.solvers.factored_delassus import FactoredBody, offdiagonal_product
from solfec_py.solvers.local_dynamics import assemble

from test_solvers_newton import _pressed_plates


def _random_body(rng, k=7, t=5, w=4, n=6):
    """k entries on rows of n constraints (two of them on one constraint), t touched nodes."""
    con = rng.integers(0, n, k)
    con[1] = con[0]
    tidx = rng.integers(0, t, (k, w))
    N = rng.random((k, w))
    N[2, 3] = 0.0                        # a padded slot
    tidx[2, 3] = 0
    base = np.linalg.qr(rng.standard_normal((k, 3, 3)))[0]
    sign = rng.choice([-1.0, 1.0], k)
    G = rng.standard_normal((3 * t, 3 * t))
    S = G @ G.T                          # symmetric, as E^T A^-1 E is
    return FactoredBody(con, sign, tidx, N, base, S, 0.25), n


def _dense_P(body):
    """P (3k, 3t): row 3e + i, column 3 tidx + j holds N base[j, i] (H_e = base^T [N I])."""
    k, t = body.con.size, body.S.shape[0] // 3
    P = np.zeros((3 * k, 3 * t))
    for e in range(k):
        for s in range(body.tidx.shape[1]):
            P[3 * e:3 * e + 3, 3 * body.tidx[e, s]:3 * body.tidx[e, s] + 3] += body.N[e, s] * body.base[e].T
    return P


def test_kernels_match_the_dense_product():
    """Product, diagonal share and pair blocks against P S P^T built densely; 1e-12 relative:
    the same sums of at most a few hundred products in another order (measured ~1e-15)."""
    rng = np.random.default_rng(3)
    body, n = _random_body(rng)
    P = _dense_P(body)
    D = np.diag(np.repeat(body.sign, 3))
    Wfull = body.h * D @ P @ body.S @ P.T @ D          # (3k, 3k) over entries
    C = np.zeros((3 * n, 3 * body.con.size))          # entries -> constraint rows
    for e, c in enumerate(body.con):
        C[3 * c:3 * c + 3, 3 * e:3 * e + 3] = np.eye(3)
    Wrows = C @ Wfull @ C.T
    x = rng.standard_normal((n, 3))
    out = np.zeros((n, 3))
    body.add_product(x, out)
    want = (Wrows @ x.reshape(-1)).reshape(n, 3)
    assert np.abs(out - want).max() <= 1e-12 * np.abs(want).max()
    idx, val = body.diagonal()
    diag = np.zeros((n, 3, 3))
    np.add.at(diag, idx, val)
    want_diag = np.array([Wrows[3 * a:3 * a + 3, 3 * a:3 * a + 3] for a in range(n)])
    assert np.abs(diag - want_diag).max() <= 1e-12 * np.abs(want_diag).max()
    off = offdiagonal_product([body], diag, x)
    want_off = want - np.einsum("kij,kj->ki", want_diag, x)
    assert np.abs(off - want_off).max() <= 1e-12 * np.abs(want).max()
    e, f = np.array([0, 3, 5]), np.array([4, 3, 1])
    blocks = body.dense_pairs(e, f)
    for p in range(e.size):
        want_p = P[3 * e[p]:3 * e[p] + 3] @ body.S @ P[3 * f[p]:3 * f[p] + 3].T
        assert np.abs(blocks[p] - want_p).max() <= 1e-12 * np.abs(want_p).max()


def _shifted_plates(api, path):
    """The pressed plates of test_solvers_newton (6 x 3 x 1 elements each) with the top one
    shifted by a fraction of an element, so that contact points lie inside faces and share
    their nodes: both bodies touch fewer nodes than they have points (the factored form is
    taken)."""
    return _pressed_plates(api, 6, 3, 2e-4, path=path, shift=(0.37, 0.21, 0.0))


def test_factored_local_dynamics_equals_the_pair_assembly(api, monkeypatch, tmp_path):
    """At the first Newton solve of the shifted plates (64 rows, both bodies factored) the
    diagonal blocks and the products W x equal those of the pair assembly of the same step
    to 1e-12 relative (both are sums of the same A^-1 entries times H; measured 3e-16 and
    5e-16), and so do the off-diagonal blocks assembled from the factors for LOCDYN_DUMP."""
    seen = []
    kept = newton.timed_assemble

    def both(domain, cset, h, **kwargs):
        dense = assemble(domain, cset, h)
        dense = (dense.W.copy(), dense.indptr.copy(), dense.adj.copy(), dense.Wadj.copy())
        ld = kept(domain, cset, h, **kwargs)
        seen.append((dense, ld))
        return ld

    monkeypatch.setattr(newton, "timed_assemble", both)
    sol = _shifted_plates(api, str(tmp_path / "out"))
    api.RUN(sol, api.NEWTON_SOLVER(1e-10, locdyn='OFF'), 2e-4)
    (W, indptr, adj, Wadj), ld = seen[0]
    assert len(ld.bodies) == 2 and ld.adj.size == 0 and adj.size > 0
    assert np.abs(ld.W - W).max() <= 1e-12 * np.abs(W).max()
    x = np.random.default_rng(0).standard_normal((ld.n, 3))
    want = K.coupled(np.zeros((ld.n, 3)), x, indptr, adj, Wadj)
    got = ld.factored_offdiagonal(x)           # the CSR part is empty (asserted above)
    assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max()
    dense, pairs = _dense_offdiagonal(ld.n, indptr, adj, Wadj), _dense_offdiagonal(ld.n, *ld.neighbour_blocks())
    assert np.abs(pairs - dense).max() <= 1e-12 * np.abs(dense).max()      # LOCDYN_DUMP's blocks


def _dense_offdiagonal(n, indptr, adj, Wadj):
    out = np.zeros((n, n, 3, 3))
    for a in range(n):
        for k in range(indptr[a], indptr[a + 1]):
            out[a, adj[k]] += Wadj[k]
    return out


def _reactions(api, monkeypatch, path, factored):
    if not factored:
        kept = newton.timed_assemble
        monkeypatch.setattr(newton, "timed_assemble", lambda d, c, h, **kw: kept(d, c, h))
    sol = _shifted_plates(api, path)
    nt = api.NEWTON_SOLVER(1e-10, locdyn='OFF')
    for _ in range(3):
        api.RUN(sol, nt, 2e-4)
        assert nt.merhist[-1] <= 1e-10
    monkeypatch.undo()
    return np.array([c.R for c in sol.constraints]), np.concatenate([np.array(b.conf) for b in sol.bodies])


def test_newton_on_factored_bodies_matches_the_pair_assembly(api, monkeypatch, tmp_path):
    """Three quasi-static steps of the shifted plates, factored and on the pairs: reactions
    and displacements agree to 2e-5 relative. Both runs stop once merit <= 1e-10, the squared
    energy norm of the residual over twice the free energy, so each stopping point lies within
    about sqrt(2e-10) = 1.4e-5 of the solution in that norm; W differs between the runs by
    rounding only, and the iterates part from there (measured 3.7e-6 for the reactions,
    1.2e-7 for the displacements)."""
    R1, q1 = _reactions(api, monkeypatch, str(tmp_path / "a"), True)
    R2, q2 = _reactions(api, monkeypatch, str(tmp_path / "b"), False)
    assert np.abs(R1 - R2).max() <= 2e-5 * np.abs(R2).max()
    assert np.abs(q1 - q2).max() <= 2e-5 * np.abs(q2).max()
