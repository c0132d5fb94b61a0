"""Element-group kernels: volumes, patch tests, tangents, energies, mass, critical step."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from fem_meshes import block, single
from scipy.spatial.transform import Rotation
from stress_reference import solfec_fe_stress

from solfec_py.fem import kernels as K
from solfec_py.fem.assembly import TangentPattern, coo_pattern
from solfec_py.fem.elements import ELEMENTS, FACE_ELEMENTS
from solfec_py.fem.laws import SVK
from solfec_py.fem.points import stress_at_points
from solfec_py.fem.surface import face_normals, face_points

NAMES = sorted(ELEMENTS)
YOUNG, POISSON, RHO = 1.0e6, 0.3, 1000.0


def setup(name, X, conn, use="stiffness"):
    el = ELEMENTS[name]
    _, dN, w = el.tables(use)
    dNdX, wJ, bad = K.reference_data(X, conn, dN, w)
    assert bad == -1
    mat = np.tile([YOUNG, POISSON, RHO], (conn.shape[0], 1))
    return dNdX, wJ, mat


def forces(q, conn, dNdX, wJ, mat):
    f, en = np.zeros_like(q), np.zeros(conn.shape[0])
    bad = K.internal_force(q, conn, dNdX, wJ, mat, f, en)
    return f, en, bad


def divergence_volume(el, X, conn):
    """Volume of each element by the divergence theorem on its (curved) faces,
    V = 1/3 sum_faces int x . n dA, with face rules exact for these polynomial integrands."""
    vol = np.zeros(conn.shape[0])
    for face, ftype in zip(el.faces, el.face_types()):
        fe = FACE_ELEMENTS[ftype]
        fconn = conn[:, list(face)]
        vol += np.einsum("fgi,fgi->f", face_points(fe, X, fconn), face_normals(fe, X, fconn)) / 3.0
    return vol


@pytest.mark.parametrize("name", NAMES)
def test_volume_of_distorted_elements(name):
    el = ELEMENTS[name]
    X, conn, _ = block(name, m=2, seed=4)
    expect = divergence_volume(el, X, conn)
    assert expect.min() > 0
    for use in ("stiffness", "mass", "load"):
        _, dN, w = el.tables(use)
        wJ, bad = K.jacobian_weights(X, conn, dN, w)
        # all rules integrate det J exactly (polynomial of the element's degree): round-off
        np.testing.assert_allclose(wJ.sum(axis=1), expect, rtol=1e-12)
    assert divergence_volume(el, X, conn).sum() == pytest.approx(1.0, rel=1e-13)   # block [0, 1]^3


def test_single_distorted_element_volumes():
    for name in NAMES:
        el = ELEMENTS[name]
        X, conn = single(name)
        wJ = K.jacobian_weights(X, conn, *el.tables("stiffness")[1:])[0]
        assert wJ.sum() == pytest.approx(divergence_volume(el, X, conn)[0], rel=1e-12), name


def test_inverted_element_is_reported():
    el = ELEMENTS["hexahedron"]
    X, conn, _ = block("hexahedron", m=2)
    conn = conn.copy()
    conn[5] = conn[5][[4, 5, 6, 7, 0, 1, 2, 3]]              # upside down: negative Jacobian
    dNdX, wJ, bad = K.reference_data(X, conn, *el.tables("stiffness")[1:])
    assert bad == 5
    assert K.jacobian_weights(X, conn, *el.tables("mass")[1:])[1] == 5


@pytest.mark.parametrize("name", NAMES)
def test_patch_test_linear_field(name):
    el = ELEMENTS[name]
    X, conn, interior = block(name, m=3, seed=1)
    dNdX, wJ, mat = setup(name, X, conn)
    A = np.array([[0.02, 0.01, -0.03], [0.005, -0.02, 0.01], [0.03, 0.01, 0.015]])
    q = X @ A.T + [0.1, -0.2, 0.3]
    f, en, bad = forces(q, conn, dNdX, wJ, mat)
    assert bad == -1
    scale = np.abs(f).max()
    # constant stress: interior nodal forces cancel to round-off (1e-12 of the largest force)
    assert np.abs(f[interior]).max() < 1e-12 * scale
    # the deformation gradient is I + A everywhere, the energy V psi(I + A)
    rng = np.random.default_rng(0)
    elems = rng.integers(0, conn.shape[0], 10)
    xi = np.array([el.centroid()] * 10) + 0.05 * rng.uniform(-1, 1, (10, 3))
    F, sig = stress_at_points(el, X, q, conn, mat, elems, xi)
    np.testing.assert_allclose(F, np.broadcast_to(np.eye(3) + A, F.shape), atol=1e-13)
    # the stress is Solfec's F P / det F (tests/stress_reference.py), constant like F
    np.testing.assert_allclose(sig, np.broadcast_to(solfec_fe_stress(np.eye(3) + A, YOUNG, POISSON), sig.shape),
                               rtol=1e-11, atol=1e-11 * np.abs(sig).max())
    assert en.sum() == pytest.approx(SVK.energy(np.eye(3) + A, YOUNG, POISSON) * 1.0, rel=1e-12)
    # boundary forces are the tractions P N of the constant stress: they sum to zero
    np.testing.assert_allclose(f.sum(axis=0), 0.0, atol=1e-12 * scale)


@pytest.mark.parametrize("name", NAMES)
def test_rigid_motion_gives_no_force_or_energy(name):
    X, conn, _ = block(name, m=2, seed=2)
    dNdX, wJ, mat = setup(name, X, conn)
    R = Rotation.from_rotvec([0.3, -1.2, 0.7]).as_matrix()
    q = X @ R.T - X + [1.0, 2.0, 3.0]
    f, en, _ = forces(q, conn, dNdX, wJ, mat)
    # strains of a rotation are round-off (1e-16): forces ~ E 1e-16 h^2, energy ~ E 1e-32
    assert np.abs(f).max() < 1e-9 * YOUNG * 1e-2
    assert np.abs(en).max() < 1e-20


@pytest.mark.parametrize("name", NAMES)
def test_tangent_and_energy_against_finite_differences(name):
    X, conn = single(name, seed=3)
    dNdX, wJ, mat = setup(name, X, conn)
    rng = np.random.default_rng(5)
    q = 0.05 * rng.standard_normal(X.shape)
    f, en, _ = forces(q, conn, dNdX, wJ, mat)
    Ke = K.stiffness_matrices(q, conn, dNdX, wJ, mat, np.array([0]))[0]
    np.testing.assert_allclose(Ke, Ke.T, rtol=0, atol=1e-10 * np.abs(Ke).max())
    h = 1e-6
    fd_K = np.zeros_like(Ke)
    fd_f = np.zeros(X.size)
    for d in range(X.size):
        dq = np.zeros(X.size)
        dq[d] = h
        fp, ep, _ = forces(q + dq.reshape(-1, 3), conn, dNdX, wJ, mat)
        fm, em, _ = forces(q - dq.reshape(-1, 3), conn, dNdX, wJ, mat)
        fd_K[:, d] = (fp - fm).reshape(-1) / (2 * h)
        fd_f[d] = (ep.sum() - em.sum()) / (2 * h)
    # central differences: truncation O(h^2) of quartic energy, relative 1e-6 is ample
    scale = np.abs(Ke).max()
    np.testing.assert_allclose(Ke, fd_K, rtol=1e-6, atol=1e-6 * scale)
    np.testing.assert_allclose(f.reshape(-1), fd_f, rtol=1e-6, atol=1e-6 * np.abs(f).max())


@pytest.mark.parametrize("names", [("hexahedron",), ("tetra", "pyramid"), ("wedge15", "hexahedron20")])
def test_csr_assembly_matches_coo(names):
    groups, X, offset = [], [], 0
    for k, name in enumerate(names):          # disjoint bodies sharing flat node arrays
        Xb, cb, _ = block(name, m=2, seed=k)
        X.append(Xb + [2.0 * k, 0, 0])
        groups.append((name, cb + offset))
        offset += Xb.shape[0]
    X = np.vstack(X)
    q = 0.02 * np.random.default_rng(1).standard_normal(X.shape)
    pattern = TangentPattern(X.shape[0], [c for _, c in groups])
    data = pattern.zeros()
    coo = sp.coo_matrix((3 * X.shape[0],) * 2)
    for (name, conn), slot in zip(groups, pattern.slots):
        dNdX, wJ, mat = setup(name, X, conn)
        K.add_stiffness_csr(q, conn, dNdX, wJ, mat, slot, pattern.nbptr, 0.5, data)
        Ke = K.stiffness_matrices(q, conn, dNdX, wJ, mat, np.arange(conn.shape[0]))
        rows, cols = coo_pattern(conn)
        coo = coo + sp.coo_matrix((0.5 * Ke.ravel(), (rows, cols)), shape=coo.shape)
    A = pattern.matrix(data)
    assert np.shares_memory(A.data, data) and np.shares_memory(A.indices, pattern.indices)   # refill in place
    diff = abs(A - coo.tocsr()).max()
    assert diff < 1e-12 * abs(A).max()
    np.testing.assert_array_equal(A.diagonal(), data[pattern.diagonal])
    assert A.nnz == pattern.nnz                                # no structural zeros lost or added


@pytest.mark.parametrize("name", NAMES)
def test_lumped_mass_and_body_force(name):
    el = ELEMENTS[name]
    X, conn, _ = block(name, m=2, seed=6)
    mat = np.tile([YOUNG, POISSON, RHO], (conn.shape[0], 1))
    mat[::3, 2] = 2 * RHO                                      # per-element densities (APPLY_BULKMAT)
    vol = divergence_volume(el, X, conn)
    N, dN, w = el.tables("mass")
    wJ = K.jacobian_weights(X, conn, dN, w)[0]
    m = np.zeros(X.shape[0])
    K.lumped_mass(conn, N, wJ, mat, el.lumping == "hrz", m)
    N, dN, w = el.tables("load")
    b = np.zeros(X.shape[0])
    K.unit_body_force(conn, N, K.jacobian_weights(X, conn, dN, w)[0], mat, b)
    total = mat[:, 2] @ vol
    assert m.sum() == pytest.approx(total, rel=1e-12)          # mass is conserved: sum = rho V
    assert b.sum() == pytest.approx(total, rel=1e-12)          # resultant of unit gravity = rho V
    assert m.min() > 0
    if el.order == 1:       # Solfec: both are int rho N_i (HEX8 with 64 and 8 points: both exact)
        np.testing.assert_allclose(m, b, rtol=1e-12)


def test_critical_step_against_dense_generalized_eigenproblem():
    for name in NAMES:
        el = ELEMENTS[name]
        X, conn = single(name, seed=8)
        dNdX, wJ, mat = setup(name, X, conn)
        q = 0.03 * np.random.default_rng(2).standard_normal(X.shape)
        N, dN, w = el.tables("mass")
        m = np.zeros(X.shape[0])
        K.lumped_mass(conn, N, K.jacobian_weights(X, conn, dN, w)[0], mat, el.lumping == "hrz", m)
        h = K.critical_steps(q, conn, dNdX, wJ, mat, m, np.array([0]))[0]
        Ke = K.stiffness_matrices(q, conn, dNdX, wJ, mat, np.array([0]))[0]
        lmax = scipy.linalg.eigh(Ke, np.diag(np.repeat(m, 3)), eigvals_only=True)[-1]
        assert h == pytest.approx(2 / np.sqrt(lmax), rel=1e-10), name


def test_current_volume_and_inversion_during_a_run():
    name = "hexahedron"
    X, conn, interior = block(name, m=2, seed=3)
    dNdX, wJ, mat = setup(name, X, conn)
    A = np.array([[0.1, 0.02, 0.0], [0.0, -0.05, 0.03], [0.01, 0.0, 0.2]])
    vol = K.current_volumes(X @ A.T, conn, dNdX, wJ)
    ref = wJ.sum(axis=1)
    np.testing.assert_allclose(vol, np.linalg.det(np.eye(3) + A) * ref, rtol=1e-12)
    q = np.zeros_like(X)
    node = np.flatnonzero(interior)[0]
    q[node] = [0.8, 0.1, 0.0]                  # drag the centre node through the +x elements
    f, en, bad = forces(q, conn, dNdX, wJ, mat)
    dN = ELEMENTS[name].tables("stiffness")[1]
    det = np.linalg.det(np.einsum("eki,gkj->egij", (X + q)[conn], dN))     # current Jacobians
    inverted = np.flatnonzero((det <= 0).any(axis=1))
    assert 0 < inverted.size < conn.shape[0] and bad == inverted[0]


@pytest.mark.parametrize("name", ["tetra10", "hexahedron20", "wedge15"])
def test_quadratic_field_second_order_patch_test(name):
    """Straight-sided quadratic elements represent u = H : (X X)/2 exactly: F = I + grad u
    at any point, and the small-strain operator K(0) u equals the consistent nodal load of
    the constant body force b = -div sigma at interior nodes (both exact to round-off)."""
    el = ELEMENTS[name]
    X, conn, interior = block(name, m=2, distort=0.0, curve=0.0)
    X = X @ np.array([[1.0, 0.2, 0.0], [0.0, 0.9, 0.1], [0.1, 0.0, 1.1]]).T      # an affine map
    dNdX, wJ, mat = setup(name, X, conn)
    rng = np.random.default_rng(9)
    H = rng.standard_normal((3, 3, 3)) * 1e-2
    H = 0.5 * (H + H.transpose(0, 2, 1))                     # u_i = H_ijk X_j X_k / 2
    q = 0.5 * np.einsum("ijk,nj,nk->ni", H, X, X)
    # F exact at random points
    elems = rng.integers(0, conn.shape[0], 8)
    xi = np.array([el.centroid()] * 8) + 0.05 * rng.uniform(-1, 1, (8, 3))
    F, _ = stress_at_points(el, X, q, conn, mat, elems, xi)
    Xp = np.einsum("kn,kni->ki", el.shape(xi), X[conn[elems]])
    np.testing.assert_allclose(F, np.eye(3) + np.einsum("ijk,pk->pij", H, Xp), atol=1e-14)
    # linear elasticity at q = 0: K0 u = int N b, b = -((lam + mu) H_mim + mu H_ijj)
    lam, mu = YOUNG * POISSON / ((1 + POISSON) * (1 - 2 * POISSON)), YOUNG / (2 * (1 + POISSON))
    b = -((lam + mu) * np.einsum("mim->i", H) + mu * np.einsum("ijj->i", H))
    pattern = TangentPattern(X.shape[0], [conn])
    data = pattern.zeros()
    K.add_stiffness_csr(np.zeros_like(X), conn, dNdX, wJ, mat, pattern.slots[0], pattern.nbptr, 1.0, data)
    Ku = (pattern.matrix(data) @ q.reshape(-1)).reshape(-1, 3)
    load = np.zeros(X.shape[0])
    N, dN, w = el.tables("load")
    unit = np.tile([YOUNG, POISSON, 1.0], (conn.shape[0], 1))
    K.unit_body_force(conn, N, K.jacobian_weights(X, conn, dN, w)[0], unit, load)
    expect = np.outer(load, b)
    np.testing.assert_allclose(Ku[interior], expect[interior], atol=1e-10 * np.abs(Ku).max())
