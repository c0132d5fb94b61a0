"""MODAL_ANALYSIS against independent references: an independent numpy assembly of the same
HEX8 mesh (linear elasticity, 2 x 2 x 2 Gauss, lumped mass rho V / 8), the convergence of the
HEX8 frequencies (second order in the element length) and Euler-Bernoulli free-free bending
for a slender beam; the results file written as Solfec's and read back; the argument errors.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

_RUNS = itertools.count()
L, A = 1.0, 0.025                  # slender free-free beam L / a = 40, square section
E, RHO = 1e7, 1e3
BETA_L = np.array([4.730040745, 7.853204624, 10.995607838])      # free-free roots of cos cosh = 1


def beam(api, n, form="TL", poisson=0.0):
    sol = api.SOLFEC("DYNAMIC", 1e-4, f"out/modal{next(_RUNS)}")
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=E, poisson=poisson, density=RHO)
    nodes = [0, 0, 0, L, 0, 0, L, A, 0, 0, A, 0, 0, 0, A, L, 0, A, L, A, A, 0, A, A]
    return sol, api.BODY(sol, "FINITE_ELEMENT", api.HEX(nodes, *n, 1, [1] * 6), mat, form=form)


def bending(vals):
    """The first three bending frequencies (Hz): after the six rigid modes the bending modes
    of a square section come in equal pairs (y, z), below torsion and extension here."""
    f = np.sqrt(np.maximum(vals, 0.0)) / (2 * np.pi)
    assert np.allclose(f[:6], 0.0, atol=1e-3 * f[6])
    assert np.allclose(f[6:12:2], f[7:12:2], rtol=1e-6)
    return f[6:12:2]


def numpy_hex8(n, poisson):
    """(K, M diagonal) of an nx x ny x nz brick mesh of [0, L] x [0, A]^2, independent of
    solfec_py: B matrices at 2 x 2 x 2 Gauss points of the rectangular element."""
    nx, ny, nz = n
    h = np.array([L / nx, A / ny, A / nz])
    lam = E * poisson / ((1 + poisson) * (1 - 2 * poisson))
    mu = E / (2 * (1 + poisson))
    D = lam * np.outer([1, 1, 1, 0, 0, 0], [1, 1, 1, 0, 0, 0]) + mu * np.diag([2, 2, 2, 1, 1, 1])
    corners = np.array(list(itertools.product([-1, 1], repeat=3)), float)
    Ke = np.zeros((24, 24))
    g = 1 / np.sqrt(3)
    for xi in itertools.product([-g, g], repeat=3):
        dN = np.array([[c[a] * np.prod([1 + c[b] * xi[b] for b in range(3) if b != a]) / 8 for a in range(3)]
                       for c in corners]) * 2 / h
        B = np.zeros((6, 24))
        for k in range(8):
            x, y, z = dN[k]
            B[:, 3 * k:3 * k + 3] = [[x, 0, 0], [0, y, 0], [0, 0, z], [y, x, 0], [z, 0, x], [0, z, y]]
        Ke += B.T @ D @ B * np.prod(h) / 8
    index = lambda i, j, k: (i * (ny + 1) + j) * (nz + 1) + k          # noqa: E731
    nn = (nx + 1) * (ny + 1) * (nz + 1)
    K, m = np.zeros((3 * nn, 3 * nn)), np.zeros(nn)
    for i, j, k in itertools.product(range(nx), range(ny), range(nz)):
        ids = [index(i + int(c[0] > 0), j + int(c[1] > 0), k + int(c[2] > 0)) for c in corners]
        dofs = np.array([[3 * v, 3 * v + 1, 3 * v + 2] for v in ids]).ravel()
        K[np.ix_(dofs, dofs)] += Ke
        m[ids] += RHO * np.prod(h) / 8
    return K, np.repeat(m, 3)


def test_modes_match_an_independent_assembly(api):
    from scipy.linalg import eigh

    n = (20, 2, 2)
    _, body = beam(api, n, poisson=0.3)
    vals, vecs = api.MODAL_ANALYSIS(body, 14, "out/indep.modal")
    K, m = numpy_hex8(n, 0.3)
    ref = eigh(K, np.diag(m), eigvals_only=True, subset_by_index=(0, 13))
    # same discretisation: equal to round-off (rigid modes compared on the elastic scale)
    assert np.allclose(vals, ref, rtol=1e-8, atol=1e-8 * ref[-1])
    phi = np.array(vecs).reshape(14, -1)
    mass = np.repeat(body.block.prepared().mass[body.block.nodes_of(body.row)], 3)
    assert np.allclose(phi @ (mass[:, None] * phi.T), np.eye(14), atol=1e-8)       # M-orthonormal


@pytest.mark.slow
def test_slender_beam_converges_to_euler_bernoulli(api):
    c, r = np.sqrt(E / RHO), A / np.sqrt(12)
    euler = BETA_L ** 2 * r * c / L ** 2 / (2 * np.pi)
    f = {}
    for nx in (160, 320):
        _, body = beam(api, (nx, 2, 2))
        f[nx] = bending(np.array(api.MODAL_ANALYSIS(body, 12, f"out/b{nx}.modal")[0]))
    # HEX8 frequencies converge at second order in the element length (locking in bending):
    # Richardson's extrapolation of the two meshes is the converged HEX8 solution
    converged = f[320] + (f[320] - f[160]) / 3
    assert np.all(np.abs(f[320] / converged - 1) < 0.01)               # acceptance: 1 %
    # and a slender beam (L / a = 40) is Euler-Bernoulli's to 2 %; the converged solution lies
    # below it by Timoshenko's shear and rotary inertia, (beta L r / L)^2 (1 + E / kG) / 2 =
    # 0.1, 0.3, 1.1 % for the three modes (measured 0.25, 0.65, 1.2 %)
    assert np.all(np.abs(f[320] / euler - 1) < 0.02)                   # acceptance: 2 %
    timoshenko = 0.5 * (BETA_L * A / np.sqrt(12) / L) ** 2 * (1 + 2 / (5 / 6))
    assert np.all(np.abs(converged / euler - 1 + timoshenko) < 0.003)


def test_results_file_is_solfecs_and_is_read_back(api, tmp_path):
    _, body = beam(api, (10, 1, 1))
    path = str(tmp_path / "sub" / "beam.modal")
    vals, vecs = api.MODAL_ANALYSIS(body, 8, path)
    raw = open(path, "rb").read()
    m = 3 * 44
    assert np.frombuffer(raw[:8], ">i4").tolist() == [m, 8]             # XDR: m, n, values, modes
    assert len(raw) == 8 + 8 * 8 * (m + 1)
    again = api.MODAL_ANALYSIS(path=path)                                # no body: read only
    assert again[0] == vals and again[1] == vecs
    assert api.MODAL_ANALYSIS(body, 8, path)[0] == vals                  # read, not recomputed
    assert len(api.MODAL_ANALYSIS(body, 7, path)[0]) == 7                # another num: computed anew


def test_modal_errors(api, tmp_path):
    from solfec_py.errors import InputError, InputTypeError

    sol, body = beam(api, (4, 1, 1))
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=E, poisson=0.0, density=RHO, label="m2")
    rigid = api.BODY(sol, "RIGID", api.HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1],
                                          1, 1, 1, 1, [1] * 6), mat)
    with pytest.raises(RuntimeError, match="FINITE_ELEMENT"):
        api.MODAL_ANALYSIS(rigid, 4, str(tmp_path / "r.modal"))
    with pytest.raises(InputError, match="'num'"):
        api.MODAL_ANALYSIS(body, 0, str(tmp_path / "b.modal"))
    with pytest.raises(RuntimeError, match="neither a body nor a valid path"):
        api.MODAL_ANALYSIS(path=str(tmp_path / "none.modal"))
    with pytest.raises(InputError, match="verbose"):
        api.MODAL_ANALYSIS(body, 4, str(tmp_path / "b.modal"), verbose="LOUD")
    with pytest.raises(InputTypeError, match="path"):
        api.MODAL_ANALYSIS(body, 4)
    with pytest.raises(InputError, match="already registered"):
        api.REGISTER_BASE(sol, ([1.0], [0.0] * 30), "b")
        api.REGISTER_BASE(sol, ([1.0], [0.0] * 30), "b")
    fields = np.array(api.RIGID_DISPLACEMENTS(body))
    assert fields.shape == (6, 3 * 20)
    assert np.allclose(np.linalg.norm(fields, axis=1), 1.0)


# ------------------------------------------------------------------ constraints='ON'
BETA_L_CLAMPED = np.array([1.875104069, 4.694091133, 7.854757438])   # roots of cos cosh = -1


def root_points(n):
    """The nodes of the x = 0 end of the beam's (nx, ny, nz) mesh."""
    return [(0.0, j * A / n[1], k * A / n[2]) for j in range(n[1] + 1) for k in range(n[2] + 1)]


def clamped(api, n, poisson=0.0):
    sol, body = beam(api, n, poisson=poisson)
    for p in root_points(n):
        api.FIX_POINT(body, p)
    return sol, body


def reduced_reference(K, m, G, num):
    """The `num` lowest eigenvalues of K on the null space of the constraint rows G, with a
    diagonal M (an independent construction: scipy's dense null space and eigh)."""
    from scipy.linalg import eigh, null_space

    Z = null_space(G)
    return eigh(Z.T @ K @ Z, Z.T @ (m[:, None] * Z), eigvals_only=True, subset_by_index=(0, num - 1))


def test_cantilever_modes_match_an_independent_assembly(api, tmp_path):
    """constraints='ON' with FIX_POINTs at the 9 root nodes: the modes of the clamped mesh,
    equal to an independent assembly with those 27 DOFs removed (same discretisation:
    round-off), zero at the root, M-orthonormal."""
    n = (20, 2, 2)
    _, body = clamped(api, n, poisson=0.3)
    vals, vecs = api.MODAL_ANALYSIS(body, 8, str(tmp_path / "c.modal"), constraints="ON")
    K, m = numpy_hex8(n, 0.3)
    root = np.flatnonzero(np.arange(m.size // 3) < 9)            # index (0, j, k): the first 9 nodes
    G = np.zeros((27, m.size))
    G[np.arange(27), (3 * root[:, None] + np.arange(3)).ravel()] = 1.0
    ref = reduced_reference(K, m, G, 8)
    assert ref[0] > 0 and np.allclose(vals, ref, rtol=1e-8)
    phi = np.array(vecs).reshape(8, -1, 3)
    X = body.block.X[body.block.nodes_of(body.row)]
    assert np.abs(phi[:, X[:, 0] == 0.0]).max() <= 1e-12 * np.abs(phi).max()
    phi = phi.reshape(8, -1)
    mass = np.repeat(body.block.prepared().mass[body.block.nodes_of(body.row)], 3)
    assert np.allclose(phi @ (mass[:, None] * phi.T), np.eye(8), atol=1e-8)
    # without constraints='ON' the same body has its six free rigid modes (Solfec's behaviour)
    free = api.MODAL_ANALYSIS(body, 8, str(tmp_path / "f.modal"))[0]
    assert np.allclose(free[:6], 0.0, atol=1e-6 * ref[0])


def test_fix_direction_holds_one_direction(api, tmp_path):
    """FIX_DIRECTION along an oblique direction at the root nodes: the modes have no
    component along it there, and their values are those of the null-space reference."""
    n = (8, 1, 1)
    _, body = beam(api, n, poisson=0.25)
    d = np.array([1.0, 2.0, 2.0]) / 3.0
    for p in root_points(n):
        api.FIX_DIRECTION(body, p, tuple(d))
    vals, vecs = api.MODAL_ANALYSIS(body, 10, str(tmp_path / "d.modal"), constraints="ON")
    K, m = numpy_hex8(n, 0.25)
    G = np.zeros((4, m.size))
    for r, node in enumerate(range(4)):                             # numpy_hex8's 4 root nodes come first
        G[r, 3 * node:3 * node + 3] = d
    ref = reduced_reference(K, m, G, 10)
    assert np.allclose(vals, ref, rtol=1e-8, atol=1e-8 * ref[-1])
    phi = np.array(vecs).reshape(10, -1, 3)
    X = body.block.X[body.block.nodes_of(body.row)]
    assert np.abs(phi[:, X[:, 0] == 0.0] @ d).max() <= 1e-12 * np.abs(phi).max()


def test_constrained_results_are_read_back_only_when_they_hold(api, tmp_path):
    """A file of free modes is not taken for constraints='ON' (computed anew); a file of
    clamped modes is read back."""
    _, body = clamped(api, (6, 1, 1))
    path = str(tmp_path / "m.modal")
    free = api.MODAL_ANALYSIS(body, 7, path)[0]
    held = api.MODAL_ANALYSIS(body, 7, path, constraints="ON")[0]
    assert free[0] < 1e-6 * held[0]
    before = open(path, "rb").read()
    assert api.MODAL_ANALYSIS(body, 7, path, constraints="ON")[0] == held
    assert open(path, "rb").read() == before


def test_constraints_errors(api, tmp_path):
    from solfec_py.errors import InputError

    _, body = beam(api, (4, 1, 1))
    with pytest.raises(InputError, match="constraints"):
        api.MODAL_ANALYSIS(body, 4, str(tmp_path / "e.modal"), constraints="YES")
    api.FIX_POINT(body, (0.1, 0.0, 0.0))                            # inside an edge, not a node
    with pytest.raises(InputError, match="FIX_POINT.*nearest node"):
        api.MODAL_ANALYSIS(body, 4, str(tmp_path / "e.modal"), constraints="ON")


@pytest.mark.slow
def test_slender_cantilever_converges_to_euler_bernoulli(api, tmp_path):
    """The issue's acceptance: the first three bending frequencies of a clamped slender beam
    (L / a = 40) within 1 % of the converged HEX8 solution (Richardson's extrapolation of two
    meshes, as for the free beam above) and within 2 % of Euler-Bernoulli's clamped-free
    frequencies (beta L)^2 r c / (2 pi L^2)."""
    c, r = np.sqrt(E / RHO), A / np.sqrt(12)
    euler = BETA_L_CLAMPED ** 2 * r * c / L ** 2 / (2 * np.pi)
    f = {}
    for nx in (160, 320):
        _, body = clamped(api, (nx, 2, 2))
        vals = np.array(api.MODAL_ANALYSIS(body, 6, str(tmp_path / f"c{nx}.modal"), constraints="ON")[0])
        hz = np.sqrt(vals) / (2 * np.pi)
        assert np.allclose(hz[0::2], hz[1::2], rtol=1e-6)           # square section: y and z pairs
        f[nx] = hz[0::2]
    converged = f[320] + (f[320] - f[160]) / 3
    assert np.all(np.abs(f[320] / converged - 1) < 0.01)               # acceptance: 1 %
    assert np.all(np.abs(f[320] / euler - 1) < 0.02)                   # acceptance: 2 %
