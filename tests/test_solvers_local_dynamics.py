"""Local dynamics (solvers/local_dynamics.py) against a dense reference: the operators H are
rebuilt from finite differences of the rigid motion x(q) = x_c + Lambda (X - X0) with
Lambda' = Lambda [Omega]x (not from gen_to_loc), W = h H M^-1 H^T from the body masses and
inertia tensors, B = H u_free, V = H u(t); the reactions added to the bodies must equal the
dense H^T R sum."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from solfec_py import constraints as C, solvers, timestep
from solfec_py.solvers.local_dynamics import assemble

H = 1e-3


def model(api):
    sol = api.SOLFEC('DYNAMIC', H, 'out/ld')
    mat = api.BULK_MATERIAL(sol, density=2.0)
    api.GRAVITY(sol, (0.3, -0.2, -9.8))
    rng = np.random.default_rng(5)
    bodies = []
    for i in range(4):
        c = (1.0 * i, 0.0, 0.0)                 # neighbouring boxes overlap
        corners = [v for dx in (-0.5, 0.6) for dy in (-0.4, 0.3) for dz in (-0.3, 0.5)
                   for v in (c[0] + dx, dy, dz)]
        shape = api.HULL(corners, 1, 1)
        b = api.BODY(sol, 'RIGID', shape, mat)
        R = Rotation.from_rotvec(rng.normal(size=3) * 0.3).as_matrix()
        b.conf = tuple(R.T.reshape(-1).tolist()) + tuple(b.conf[9:12])
        b.velo = tuple(rng.normal(size=6).tolist())
        bodies.append(b)
    b0, b1, b2, b3 = bodies
    X = [np.array(b.center) for b in bodies]
    api.FIX_POINT(b0, tuple(X[0] + (0.2, 0.1, 0.1)))
    api.PUT_RIGID_LINK(b0, b1, tuple(X[0] + (0.3, 0, 0)), tuple(X[1] - (0.3, 0, 0)))
    api.PUT_RIGID_LINK(b1, b2, (1.55, 0.0, 0.1), (1.55, 0.0, 0.1))            # glue (FIXPNT)
    api.FIX_DIRECTION(b2, tuple(X[2]), (0, 0.6, 0.8), b3, tuple(X[3] + (0, 0.1, 0)))
    api.SET_VELOCITY(b3, tuple(X[3] + (0.1, 0, 0.2)), (1, 0, 0), 0.5)
    api.PUT_SPRING(b3, tuple(X[3]), b1, tuple(X[1]), lambda s, v: -10 * s, (-1, 1))
    api.PUT_RIGID_LINK(None, b2, (2.0, 3.0, 1.0), tuple(X[2] + (0, 0.2, 0)))
    api.SET_VELOCITY3(b1, tuple(X[1]), (1, 0, 0, 0, 0.6, 0.8, 0, -0.8, 0.6), (0.1, 0.2, 0.3))
    return sol, bodies


def _rotation(conf):
    return np.array(conf[:9]).reshape(3, 3).T


def point_velocity_fd(body, X, u):
    """d/dt of x = x_c + Lambda (X - X0) for generalised velocity u = (Omega, v), by central
    differences of Lambda exp(+-dt [Omega]x), x_c +- dt v."""
    L = _rotation(body.conf)
    xc = np.array(body.conf[9:12])
    A = X - np.array(body.center)
    dt = 1e-6
    plus = xc + dt * u[3:] + L @ Rotation.from_rotvec(dt * u[:3]).as_matrix() @ A
    minus = xc - dt * u[3:] + L @ Rotation.from_rotvec(-dt * u[:3]).as_matrix() @ A
    return (plus - minus) / (2 * dt)


def dense_operators(sol, cset):
    """H (3 ncon x 6 nbod), the slots of each body, and M^-1 (6 nbod square)."""
    bodies = sol.domain.bodies
    slot = {b.id: i for i, b in enumerate(bodies)}
    n = cset.count
    Hd = np.zeros((3 * n, 6 * len(bodies)))
    for k in range(n):
        base = cset.base[k]
        for s, (b, X) in enumerate(zip(cset.bodies[k], (cset.mpnt[k], cset.spnt[k]))):
            if b is None:
                continue
            sign = 1.0 if s == 0 else -1.0
            for j in range(6):
                e = np.zeros(6)
                e[j] = 1.0
                Hd[3 * k:3 * k + 3, 6 * slot[b.id] + j] += sign * base.T @ point_velocity_fd(b, X, e)
    Minv = np.zeros((6 * len(bodies),) * 2)
    for i, b in enumerate(bodies):
        Minv[6 * i:6 * i + 3, 6 * i:6 * i + 3] = np.linalg.inv(np.array(b.tensor).reshape(3, 3).T)
        Minv[6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] = np.eye(3) / b.mass
    return Hd, Minv, slot


@pytest.fixture
def prepared(api):
    sol, bodies = model(api)
    domain = sol.domain
    timestep.initialize(domain)
    u0 = np.concatenate([np.array(b.velo) for b in domain.bodies])
    for block in domain.active_blocks():
        block.step_begin(0.0, H)
    solvers.update(domain, 0.0, H)
    cset = C.constraint_set(domain)
    ld = assemble(domain, cset, H)
    return sol, cset, ld, u0


def test_blocks_match_dense_delassus_operator(prepared):
    sol, cset, ld, _ = prepared
    Hd, Minv, _ = dense_operators(sol, cset)
    Wd = H * Hd @ Minv @ Hd.T
    n = cset.count
    Wld = np.zeros_like(Wd)
    for a in range(n):
        Wld[3 * a:3 * a + 3, 3 * a:3 * a + 3] = ld.W[a]
        for j in range(ld.indptr[a], ld.indptr[a + 1]):
            b = ld.adj[j]
            Wld[3 * a:3 * a + 3, 3 * b:3 * b + 3] = ld.Wadj[j]
    scale = np.abs(Wd).max()
    assert np.abs(Wld - Wd).max() <= 1e-8 * scale       # finite differences: ~1e-10 relative
    assert np.allclose(Wld, Wld.T, atol=1e-12 * scale)
    # structure: two constraints are coupled exactly when they share a body
    shared = [[bool({id(b) for b in cset.bodies[a] if b} & {id(b) for b in cset.bodies[c] if b}) and a != c
               for c in range(n)] for a in range(n)]
    for a in range(n):
        listed = set(ld.adj[ld.indptr[a]:ld.indptr[a + 1]].tolist())
        assert listed == {c for c in range(n) if shared[a][c]}


def test_free_and_initial_velocities(prepared):
    sol, cset, ld, u0 = prepared
    Hd, _, _ = dense_operators(sol, cset)
    ufree = np.concatenate([np.array(b.velo) for b in sol.domain.bodies])
    assert ld.B.reshape(-1) == pytest.approx(Hd @ ufree, abs=1e-8)
    assert ld.V.reshape(-1) == pytest.approx(Hd @ u0, abs=1e-8)
    assert ld.velocities() == pytest.approx(ld.B + np.einsum("kij,kj->ki", ld.W, ld.R) + (ld.coupled() - ld.B))


def test_reactions_reach_the_bodies_as_HT_R(prepared):
    sol, cset, ld, _ = prepared
    Hd, _, slot = dense_operators(sol, cset)
    rng = np.random.default_rng(1)
    ld.R[:] = rng.normal(size=ld.R.shape)
    block = sol.domain.bodies[0].block
    block.reaction[:] = 0.0
    ld.scatter_reactions()
    expected = Hd.T @ ld.R.reshape(-1)
    got = np.concatenate([block.reaction[b.row] for b in sol.domain.bodies])
    assert got == pytest.approx(expected, abs=1e-8)


def test_inverse_and_rho(prepared):
    _, _, ld, _ = prepared
    for W, Wi, rho in zip(ld.W, ld.Winv, ld.rho):
        assert W @ Wi == pytest.approx(np.eye(3), abs=1e-9)
        assert rho == pytest.approx(1.0 / np.linalg.eigvalsh(W)[-1])


def test_local_base_is_the_documented_frame():
    n = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.6, 0.0, 0.8]])
    B = C.local_base(n)
    for k in range(3):
        t1, t2, nn = B[k].T
        assert nn == pytest.approx(n[k])
        assert B[k].T @ B[k] == pytest.approx(np.eye(3))
        assert np.cross(t1, t2) == pytest.approx(-nn)        # left-handed (Solfec-1.0 dom.c, the time step)
    assert B[1][:, 0] == pytest.approx(np.cross([0, 1, 0], [1, 0, 0]))   # e_y fallback


def test_pair_and_csr_kernels_against_brute_force():
    """local_dynamics.unordered_pairs and _csr (numba kernels) against brute-force loops on
    random small inputs: every pair of entries on one row once, listed by the sorted
    (row, constraint, entry) position of e then of f; off-diagonal blocks summed per
    (a, b) in entry order (so bit-equal: tolerance 0), CSR rows sorted by column."""
    from solfec_py.solvers.local_dynamics import _csr, unordered_pairs

    rng = np.random.default_rng(3)
    for _ in range(200):
        E = int(rng.integers(0, 25))
        rows, con = rng.integers(0, 6, E), rng.integers(0, 15, E)
        pos = sorted(range(E), key=lambda i: (rows[i], con[i], i))
        want = [(pos[i], pos[j]) for i in range(E) for j in range(i + 1, E) if rows[pos[i]] == rows[pos[j]]]
        e, f = unordered_pairs(rows, con)
        assert list(zip(e.tolist(), f.tolist())) == want
        n = int(rng.integers(1, 8))
        a, b, v = rng.integers(0, n, E + 1), rng.integers(0, n, E + 1), rng.normal(size=(E + 1, 3, 3))
        indptr, adj, W = _csr(n, [a], [b], [v])
        dense = {}
        for k in range(E + 1):
            dense[(a[k], b[k])] = dense.get((a[k], b[k]), np.zeros((3, 3))) + v[k]
        got = {(i, adj[u]): W[u] for i in range(n) for u in range(indptr[i], indptr[i + 1])}
        assert sorted(got) == sorted(dense) and all(np.array_equal(got[key], dense[key]) for key in dense)
        assert all(np.all(np.diff(adj[indptr[i]:indptr[i + 1]]) > 0) for i in range(n))


@pytest.mark.parametrize("inert_rows", [(), (1,), (0, 2)])
def test_indexed_delassus_assembles_the_gathered_arrays(prepared, monkeypatch, inert_rows):
    """Rigid blocks read H in place at index arrays (RigidBlock.delassus ia / ib, taken by
    assemble when `delassus_indexed`): the local dynamics must be the arrays of the gathered
    calls bit for bit (same products in the same order: tolerance 0), with every entry live
    and with some bodies' entries inert (a partial `live`)."""
    from solfec_py.bodies.rigid import RigidBlock

    sol, cset, _, _ = prepared
    domain = sol.domain
    block = domain.bodies[0].block
    assert isinstance(block, RigidBlock) and block.delassus_indexed
    inert = np.zeros(block.count, dtype=bool)
    inert[list(inert_rows)] = True
    monkeypatch.setattr(block, "contact_inert", lambda rows: inert[np.asarray(rows)])
    got = assemble(domain, cset, H)
    monkeypatch.setattr(block, "delassus_indexed", False)
    want = assemble(domain, cset, H)
    for name in ("W", "Winv", "rho", "B", "V", "indptr", "adj", "Wadj"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    # the kernel itself: random index pairs against the gathered call
    rng = np.random.default_rng(7)
    side = got.sides[0]
    ia, ib = rng.integers(0, side.rows.size, 40), rng.integers(0, side.rows.size, 40)
    gathered = block.delassus(side.rows[ia], side.H[ia], side.H[ib])
    assert np.array_equal(block.delassus(side.rows, side.H, side.H, ia=ia, ib=ib), gathered)


def test_reused_buffers_never_overwrite_live_local_dynamics(prepared):
    """assemble writes the off-diagonal CSR and the pair blocks into module buffers kept from
    call to call (local_dynamics._buffer); a LocalDynamics still referenced must keep its
    arrays (a second assemble then takes new memory), and a later assemble after it is gone
    reuses the memory with the same numbers (tolerance 0: the same arithmetic)."""
    from solfec_py.solvers import local_dynamics as LD
    from solfec_py.solvers import local_dynamics_kernels as K

    sol, cset, first, _ = prepared
    keep = [first.indptr.copy(), first.adj.copy(), first.Wadj.copy()]
    rng = np.random.default_rng(11)
    n = 30
    for _ in range(3):                      # other CSR builds while `first` is alive
        E = int(rng.integers(50, 400))
        a, b, v = rng.integers(0, n, E), rng.integers(0, n, E), rng.normal(size=(E, 3, 3))
        got = LD._csr(n, [a], [b], [v])
        want = K.off_diagonal_csr(n, a, b, v)
        assert all(np.array_equal(x, y) for x, y in zip(got, want))
        assert all(np.array_equal(x, y) for x, y in zip((first.indptr, first.adj, first.Wadj), keep))
        assert not np.shares_memory(got[2], first.Wadj)
    del got
    again = assemble(sol.domain, cset, H)
    address = again.Wadj.base.ctypes.data
    del again
    later = assemble(sol.domain, cset, H)
    assert later.Wadj.base.ctypes.data == address       # the freed buffer is taken again
    assert all(np.array_equal(x, y) for x, y in zip((later.indptr, later.adj, later.Wadj), keep))


def test_rows_taken_by_a_block_are_left_out_of_the_local_dynamics(prepared, monkeypatch):
    """Rows a block takes over (`absorbed`, e.g. FE pins eliminated from the body's equations)
    are not rows of the local dynamics: its U and R must be those of the remaining rows, in
    order, and finish must not store them by slice (`whole` False), even when every entry of
    every body side is live (the rigid blocks' indexed Delassus path)."""
    sol, cset, _, _ = prepared
    domain = sol.domain
    block = domain.bodies[0].block
    taken = np.array([0, 2])
    monkeypatch.setattr(block, "absorbed", lambda cs: taken)
    cset.U[:cset.count] = np.arange(3 * cset.count, dtype=float).reshape(-1, 3)   # rows told apart
    cset.R[:cset.count] = -cset.U[:cset.count]
    ld = assemble(domain, cset, H)
    rest = np.setdiff1d(np.arange(cset.count), taken)
    assert not ld.whole
    assert np.array_equal(ld.crow, rest)
    assert np.array_equal(ld.U, cset.U[rest]) and np.array_equal(ld.R, cset.R[rest])
