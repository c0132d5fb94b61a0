"""The pieces of the parallel Newton solve on one process: solvers/gmres.py's cycle against
scipy's gmres (the serial Newton solver's linear solver), and solvers/distributed_newton.py's
iteration with no external rows against solvers/newton.py on the same local dynamics, solve
by solve through a run with contacts, a rigid link and a fixed direction."""
from __future__ import annotations

import dataclasses
import types

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator, gmres

from cube_array_deck import cube_array


@pytest.mark.parametrize("n, restart, rtol", [(30, 10, 0.25), (30, 10, 1e-6), (5, 10, 1e-8), (60, 40, 1e-10),
                                              (9, 10, 2.0)])
def test_gmres_cycle_is_scipys(n, restart, rtol):
    from solfec_py.solvers.gmres import cycle

    rng = np.random.default_rng(n + restart)
    A = 3.0 * np.eye(n) + 0.5 * rng.normal(size=(n, n))
    b = rng.normal(size=n)
    D = np.diag(1.0 / np.diag(A))
    count = [0]

    def matvec(v):
        count[0] += 1
        return A @ v

    x, _ = gmres(LinearOperator((n, n), matvec=matvec, dtype=float), b, rtol=rtol, atol=0.0, restart=restart,
                 maxiter=1, M=LinearOperator((n, n), matvec=lambda v: D @ v, dtype=float))
    y, m = cycle(lambda v: A @ v, lambda v: D @ v, b, rtol, restart, np.dot, n)
    assert m == count[0]
    # the same operations in the same order: equal to rounding (bit-equal with numpy's dot)
    assert np.allclose(y, x, rtol=1e-12, atol=1e-14 * np.abs(x).max())


def test_newton_on_one_rank_follows_the_serial_solver(api, monkeypatch):
    """Every Newton solve of the run is made twice on copies of its local dynamics: by the
    distributed iteration (a group of one, no external rows) and by the serial one; both
    take the same iterations and matrix-vector products and end at the same reactions to
    rounding (the merit, computed in the same order, to 1e-9 relative)."""
    from solfec_py.parallel.comm import Serial
    from solfec_py.solvers import distributed_newton, newton
    from solfec_py.solvers.distributed import free_energy

    serial_run = newton.run
    seen = []

    def both(obj, ld, springs):
        copy = dataclasses.replace(ld, R=ld.R.copy(), U=ld.U.copy())
        ext = types.SimpleNamespace(comm=Serial(), n_own=ld.n, exchange=lambda values: None)
        theirs = distributed_newton.run(obj, copy, springs, ext, free_energy(copy, ld.n, Serial()))
        ours = serial_run(obj, ld, springs)
        seen.append((ours, theirs, ld.R.copy(), copy.R.copy(), ld.U.copy(), copy.U.copy()))
        return ours

    monkeypatch.setattr(newton, "run", both)
    exec(cube_array("out/one", duration=0.01, meritval=1e-10), dict(vars(api)))
    assert len(seen) == 10
    assert sum(ours[0] for ours, *_ in seen) > 20
    for ours, theirs, R, R1, U, U1 in seen:
        assert theirs[0] == ours[0] and theirs[2] == ours[2] and theirs[3] == ours[3]   # iters, mvhist, converged
        assert np.allclose(theirs[1], ours[1], rtol=1e-9, atol=1e-300)
        scale = max(np.abs(R).max(), 1.0)
        assert np.abs(R1 - R).max() <= 1e-10 * scale
        assert np.abs(U1 - U).max() <= 1e-10 * max(np.abs(U).max(), 1.0)
