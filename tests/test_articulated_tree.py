"""Joint trees (bodies/articulated): the recursive mass matrix (CRBA) and bias forces
(RNEA) against a direct Lagrangian computation for random trees with every joint kind.

The reference is independent of the recursions: link placements come from a plain numpy
forward kinematics written from the documented conventions (docs/joints.md), the
Jacobians of mass centres and rotations from finite differences of those placements in a
chart q (+) xi (scalar coordinates add xi, ball rotations R expmap(xi)), the mass matrix
from the kinetic energy T = 1/2 xi' M(xi) xi' of the links, and the bias from Lagrange's
equations  c = (sum_k dM/dxi_k v_k) v - 1/2 [v . dM/dxi_k v]_k + dV/dxi  at xi = 0 (where
the chart rates equal the joint rates and their derivatives too, since
d/dt dexp(xi) xi' = xi'' - 1/2 xi' x xi' = xi'' at xi = 0).
"""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.bodies.articulated import JOINT_KINDS, CycleError, JointTree, joint_frame, topological_order
from solfec_py.bodies.articulated.kinds import T
from solfec_py.geometry.rotation import expmap

KINDS = sorted(JOINT_KINDS)


def _axis_rot(a, t):
    return expmap(t * np.eye(3)[a][None, :])[0]


def _fk(tree_def, q_user):
    """Plain forward kinematics: (Lam, xc) per user link from per-joint coordinate lists."""
    parents, kinds, P, E, _, X0, _ = tree_def
    n = len(parents)
    Lam, xc = [None] * n, [None] * n
    for i in topological_order(parents):
        p = parents[i]
        Lp, xp, Xp = (np.eye(3), np.zeros(3), np.zeros(3)) if p < 0 else (Lam[p], xc[p], X0[p])
        kind, q = JOINT_KINDS[kinds[i]], q_user[i]
        Ep = Lp @ E[i]
        centre = xp + Lp @ (P[i] - Xp)
        ntr = kind.translations
        for k in range(ntr):
            centre = centre + q[k] * Ep[:, kind.dofs[k][1]]
        if kind.ball:
            Rr = q[ntr:].reshape(3, 3).T
        else:
            Rr = np.eye(3)
            for k in range(ntr, kind.nv):
                Rr = Rr @ _axis_rot(kind.dofs[k][1], q[k])
        Lam[i] = Ep @ Rr @ E[i].T
        xc[i] = centre + Lam[i] @ (X0[i] - P[i])
    return Lam, xc


def _chart(tree_def, q_user, xi_user):
    out = []
    for i, kind in enumerate(JOINT_KINDS[k] for k in tree_def[1]):
        q, xi = q_user[i].copy(), xi_user[i]
        if kind.ball:
            ntr = kind.translations
            q[:ntr] += xi[:ntr]
            R = q[ntr:].reshape(3, 3).T @ expmap(xi[ntr:][None, :])[0]
            q[ntr:] = R.T.reshape(-1)
        else:
            q += xi
        out.append(q)
    return out


def _split(tree_def, flat):
    sizes = [JOINT_KINDS[k].nv for k in tree_def[1]]
    return np.split(flat, np.cumsum(sizes)[:-1])


def _jacobians(tree_def, q_user, xi, eps=1e-3):
    """d xc / d xi and angular-velocity columns vee(dLam Lam^T) per link, 4th-order FD."""
    nv = xi.size
    n = len(tree_def[0])
    Jv, Jw = np.zeros((n, 3, nv)), np.zeros((n, 3, nv))
    Lam0, _ = _fk(tree_def, _chart(tree_def, q_user, _split(tree_def, xi)))
    for k in range(nv):
        poses = []
        for s in (-2, -1, 1, 2):
            d = xi.copy()
            d[k] += s * eps
            poses.append(_fk(tree_def, _chart(tree_def, q_user, _split(tree_def, d))))
        for i in range(n):
            dx = (poses[0][1][i] - 8 * poses[1][1][i] + 8 * poses[2][1][i] - poses[3][1][i]) / (12 * eps)
            dL = (poses[0][0][i] - 8 * poses[1][0][i] + 8 * poses[2][0][i] - poses[3][0][i]) / (12 * eps)
            W = dL @ Lam0[i].T
            Jv[i, :, k], Jw[i, :, k] = dx, (W[2, 1], W[0, 2], W[1, 0])
    return Jv, Jw, Lam0


def _direct_mass(tree_def, q_user, xi):
    mass, inertia = tree_def[4], tree_def[6]
    Jv, Jw, Lam = _jacobians(tree_def, q_user, xi)
    M = 0.0
    for i in range(len(mass)):
        Iw = Lam[i] @ inertia[i] @ Lam[i].T
        M = M + mass[i] * Jv[i].T @ Jv[i] + Jw[i].T @ Iw @ Jw[i]
    return M, Jv


def _kinetic(tree_def, q_user, xi, v, eps=1e-3):
    """T = 1/2 v.M(xi) v from the link velocities along v (one directional difference)."""
    mass, inertia = tree_def[4], tree_def[6]
    poses = [_fk(tree_def, _chart(tree_def, q_user, _split(tree_def, xi + s * eps * v))) for s in (-2, -1, 1, 2)]
    Lam0, _ = _fk(tree_def, _chart(tree_def, q_user, _split(tree_def, xi)))
    T = 0.0
    for i in range(len(mass)):
        dx = (poses[0][1][i] - 8 * poses[1][1][i] + 8 * poses[2][1][i] - poses[3][1][i]) / (12 * eps)
        W = (poses[0][0][i] - 8 * poses[1][0][i] + 8 * poses[2][0][i] - poses[3][0][i]) / (12 * eps) @ Lam0[i].T
        w = np.array((W[2, 1], W[0, 2], W[1, 0]))
        T += 0.5 * mass[i] * dx @ dx + 0.5 * w @ Lam0[i] @ inertia[i] @ Lam0[i].T @ w
    return T


def _direct_bias(tree_def, q_user, v, g, eps=1e-3):
    """Lagrange: d/dt (M v) along xi = s v, minus dT/dxi, plus dV/dxi (4th-order differences)."""
    nv = v.size
    Mv = [_direct_mass(tree_def, q_user, s * eps * v)[0] @ v for s in (-2, -1, 1, 2)]
    dMv = (Mv[0] - 8 * Mv[1] + 8 * Mv[2] - Mv[3]) / (12 * eps)
    dT = np.zeros(nv)
    for k in range(nv):
        Ts = []
        for s in (-2, -1, 1, 2):
            xi = np.zeros(nv)
            xi[k] = s * eps
            Ts.append(_kinetic(tree_def, q_user, xi, v))
        dT[k] = (Ts[0] - 8 * Ts[1] + 8 * Ts[2] - Ts[3]) / (12 * eps)
    _, Jv = _direct_mass(tree_def, q_user, np.zeros(nv))
    gravity = -sum(tree_def[4][i] * Jv[i].T @ g for i in range(len(tree_def[4])))   # dV/dxi, V = -m g.xc
    return dMv - dT + gravity


def random_tree(rng, n, kinds):
    parents = [int(rng.integers(-1, i)) if i else -1 for i in range(n)]
    perm = rng.permutation(n)                       # user order differs from topological order
    inv = np.argsort(perm)
    parents = [-1 if parents[perm[u]] < 0 else int(inv[parents[perm[u]]]) for u in range(n)]
    kinds = [kinds[perm[u]] for u in range(n)]
    P = rng.normal(size=(n, 3))
    E = np.array([joint_frame(rng.normal(size=3), rng.normal(size=3)) for _ in range(n)])
    mass = rng.uniform(0.5, 2.0, n)
    X0 = rng.normal(size=(n, 3))
    inertia = []
    for _ in range(n):
        A = rng.normal(size=(3, 3))
        inertia.append(A @ A.T + np.eye(3))
    return parents, kinds, P, E, mass, X0, np.array(inertia)


def random_state(rng, tree_def):
    q_user, v_user = [], []
    for k in tree_def[1]:
        kind = JOINT_KINDS[k]
        q = rng.uniform(-1, 1, kind.nq)
        if kind.ball:
            ntr = kind.translations
            q[ntr:] = expmap(rng.normal(size=(1, 3)))[0].T.reshape(-1)
        q_user.append(q)
        v_user.append(rng.uniform(-1, 1, kind.nv))
    return q_user, v_user


def _stored(tree, user_lists):
    return np.concatenate([user_lists[u] for u in tree.order] + [np.zeros(0)])


def _perm(tree, tree_def):
    """Rate permutation: stored rate index -> user rate index."""
    sizes = [JOINT_KINDS[k].nv for k in tree_def[1]]
    starts = np.concatenate(([0], np.cumsum(sizes)))
    return np.concatenate([np.arange(starts[u], starts[u + 1]) for u in tree.order] + [np.zeros(0, int)]).astype(int)


CASES = [(seed, n) for seed, n in enumerate((2, 3, 4, 5, 6, 8, 10))]


@pytest.mark.parametrize("seed,n", CASES)
def test_mass_matrix_and_bias_match_lagrangian(seed, n):
    rng = np.random.default_rng(seed)
    kinds = [KINDS[(seed + i) % len(KINDS)] for i in range(n)]    # every kind over the cases
    tree_def = random_tree(rng, n, kinds)
    tree = JointTree(*tree_def)
    q_user, v_user = random_state(rng, tree_def)
    q, v = _stored(tree, q_user), _stored(tree, v_user)
    perm = _perm(tree, tree_def)
    g = np.array([0.3, -0.5, -9.81])
    M_ref, _ = _direct_mass(tree_def, q_user, np.zeros(v.size))
    M = tree.mass_matrix(q)
    # finite differences of order 4 with step 1e-3: truncation ~1e-12, rounding ~1e-13
    np.testing.assert_allclose(M, M_ref[np.ix_(perm, perm)], atol=1e-9 * np.abs(M_ref).max())
    c_ref = _direct_bias(tree_def, q_user, np.concatenate(v_user + [np.zeros(0)]), g)
    c = tree.bias(q, v, g)
    # nested differences: rounding 1e-13 / 1e-3 -> 1e-10 relative; 1e-7 leaves margin
    np.testing.assert_allclose(c, c_ref[perm], atol=1e-7 * max(1.0, np.abs(c_ref).max()))
    # the acceleration path of RNEA against CRBA: tau(vdot) - tau(0) = M vdot
    vdot = rng.normal(size=v.size)
    np.testing.assert_allclose(tree.inverse_dynamics(q, v, vdot, g) - c, M @ vdot, atol=1e-11 * np.abs(M).max())


def test_every_kind_is_covered():
    covered = {KINDS[(seed + i) % len(KINDS)] for seed, n in CASES for i in range(n)}
    assert covered == set(KINDS)


@pytest.mark.parametrize("seed", [1, 2])
def test_point_jacobian_and_external_force(seed):
    """Point Jacobians (partial velocities) against finite differences of the point's place,
    and a force f at that point enters the bias as -J^T f (virtual work)."""
    rng = np.random.default_rng(seed + 10)
    n = 6
    tree_def = random_tree(rng, n, KINDS[seed:seed + n])
    tree = JointTree(*tree_def)
    q_user, _ = random_state(rng, tree_def)
    q = _stored(tree, q_user)
    perm = _perm(tree, tree_def)
    u = int(rng.integers(n))                     # user link carrying the point
    Lam, xc = _fk(tree_def, q_user)
    X = rng.normal(size=3)                       # referential point
    x = xc[u] + Lam[u] @ (X - tree_def[5][u])
    Jv, Jw, _ = _jacobians(tree_def, q_user, np.zeros(tree.nv))
    J_ref = Jv[u] + np.cross(Jw[u].T, Lam[u] @ (X - tree_def[5][u])).T
    J = tree.point_jacobians(q, [tree.index[u]], x[None])[0]
    np.testing.assert_allclose(J, J_ref[:, perm], atol=1e-9)
    f = rng.normal(size=3)
    fext = np.zeros((n, 6))
    fext[tree.index[u]] = np.concatenate((np.cross(x, f), f))
    np.testing.assert_allclose(tree.bias(q, np.zeros(tree.nv), fext=fext), -J.T @ f, atol=1e-12)


def test_cycle_and_order():
    assert list(topological_order([1, -1, 1])) in ([1, 0, 2], [1, 2, 0])
    with pytest.raises(CycleError) as info:
        topological_order([-1, 2, 3, 1])
    assert sorted(info.value.links) == [1, 2, 3]


def test_joint_frame_errors():
    with pytest.raises(ValueError, match="zero axis"):
        joint_frame((0, 0, 0))
    with pytest.raises(ValueError, match="parallel"):
        joint_frame((1, 0, 0), (2, 0, 0))
    E = joint_frame((0, 0, 2), (1, 1, 0))
    np.testing.assert_allclose(E.T @ E, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(E[:, 0], (0, 0, 1))
    assert np.linalg.det(E) > 0


def test_kind_tables():
    for kind in JOINT_KINDS.values():
        ntr = kind.translations
        assert all(d[0] == T for d in kind.dofs[:ntr]) and all(d[0] != T for d in kind.dofs[ntr:])
        assert kind.nq == kind.nv + (6 if kind.ball else 0)


def test_rigid_states_and_local_operator():
    """Links read as rigid bodies: placements and velocities by forward kinematics agree with
    the plain numpy kinematics and with finite differences in time; H u is base^T of the
    rigid point velocity v + Lam (Omega x (X - X0))."""
    rng = np.random.default_rng(42)
    n = 7
    tree_def = random_tree(rng, n, [KINDS[i % len(KINDS)] for i in range(n)])
    tree = JointTree(*tree_def)
    q_user, v_user = random_state(rng, tree_def)
    q, v = _stored(tree, q_user), _stored(tree, v_user)
    conf, velo = tree.rigid_states(q, v)
    Lam, xc = _fk(tree_def, q_user)
    for u in range(n):
        k = tree.index[u]
        np.testing.assert_allclose(conf[k, 0:9].reshape(3, 3).T, Lam[u], atol=1e-13)
        np.testing.assert_allclose(conf[k, 9:12], xc[u], atol=1e-13)
    eps = 1e-6          # central difference in time: error ~ eps^2
    cp, _ = tree.rigid_states(tree.advance(q, v, eps), v)
    cm, _ = tree.rigid_states(tree.advance(q, v, -eps), v)
    np.testing.assert_allclose(velo[:, 3:6], (cp[:, 9:12] - cm[:, 9:12]) / (2 * eps), atol=1e-8)
    links = rng.integers(0, n, 5)
    X = rng.normal(size=(5, 3))
    base = np.array([joint_frame(rng.normal(size=3)) for _ in range(5)])
    H = tree.gen_to_loc(q, links, X, base)
    R = conf[links, 0:9].reshape(-1, 3, 3).transpose(0, 2, 1)
    xdot = velo[links, 3:6] + np.einsum("kij,kj->ki", R, np.cross(velo[links, 0:3], X - tree.X0[links]))
    np.testing.assert_allclose(H @ v, np.einsum("kji,kj->ki", base, xdot), atol=1e-12)


@pytest.mark.parametrize("seed,n", CASES[::2])
def test_articulated_body_algorithm_inverts_the_mass_matrix(seed, n):
    """ABA's accelerations solve M vdot = tau - bias (CRBA and RNEA, checked above)."""
    rng = np.random.default_rng(seed + 100)
    tree_def = random_tree(rng, n, [KINDS[(seed + i) % len(KINDS)] for i in range(n)])
    tree = JointTree(*tree_def)
    q_user, v_user = random_state(rng, tree_def)
    q, v = _stored(tree, q_user), _stored(tree, v_user)
    g, tau = np.array([0.3, -0.5, -9.81]), rng.normal(size=tree.nv)
    fext = rng.normal(size=(n, 6))
    vdot = tree.forward_dynamics(q, v, tau, g, fext)
    M = tree.mass_matrix(q)
    residual = M @ vdot - (tau - tree.bias(q, v, g, fext))
    assert np.abs(residual).max() < 1e-10 * np.abs(M).max() * max(1.0, np.abs(vdot).max())


@pytest.mark.parametrize("seed,n", CASES[1::2])
def test_link_inverse_inertia_is_the_dense_delassus(seed, n):
    """J_a M^-1 J_b^T between links in the rigid layout (what couples constraint rows on
    links of one tree) against the dense product: T_l = d(rigid velocity of link l)/d(rates)
    from the links' rigid states (linear in the rates) and M from CRBA (checked above)."""
    rng = np.random.default_rng(seed + 200)
    tree_def = random_tree(rng, n, [KINDS[(seed + i) % len(KINDS)] for i in range(n)])
    tree = JointTree(*tree_def)
    q = _stored(tree, random_state(rng, tree_def)[0])
    T = np.stack([tree.rigid_states(q, e)[1] for e in np.eye(tree.nv)], axis=-1)     # (n, 6, nv)
    links = rng.choice(n, size=max(2, n // 2), replace=False)
    dense = np.einsum("aik,kl,bjl->abij", T[links], np.linalg.inv(tree.mass_matrix(q)), T[links])
    Phi = tree.link_inverse_inertia(q, links)
    assert np.abs(Phi - dense).max() < 1e-10 * np.abs(dense).max()
