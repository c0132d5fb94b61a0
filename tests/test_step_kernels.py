"""Per-step kernels of contact runs (issue 13) against the numpy expressions they replaced,
which serve as the independent references: the segment sum (np.bincount), the W_aa
inverses and spectral radii (np.linalg.eigvalsh / inv / pinv), the rigid operator H
(einsum of base^T Lambda [A]x^T), the face planes of convexes (np.cross / bincount / norm)
and the known-pair filter (np.isin). The kernels add in the references' order, so the
tolerance is equality (bit for bit); the W inverse is also checked against W W^-1 = I to
1e-12 (round-off of a 3x3 solve of condition < 1e3). The cached body rows must equal rows
looked up body by body after constraints are added and removed and a body is deleted."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from scipy.spatial.transform import Rotation

from solfec_py import constraints as C
from solfec_py.bodies import rigid
from solfec_py.contact import objects as O
from solfec_py.contact.detect import _member
from solfec_py.geometry import linalg3
from solfec_py.solvers import local_dynamics as LD, local_dynamics_kernels as K


def test_segment_sum_equals_bincount_in_order():
    rng = np.random.default_rng(0)
    index = rng.integers(0, 50, 400)
    values = rng.normal(size=(400, 3, 3)) * 10.0 ** rng.integers(-8, 8, (400, 1, 1))
    ref = np.stack([np.bincount(index, weights=values.reshape(400, 9)[:, j], minlength=60)
                    for j in range(9)], axis=1).reshape(60, 3, 3)
    out = LD.segment_sum(index, values, 60)
    assert out.shape == (60, 3, 3)
    assert np.array_equal(out, ref)


@pytest.mark.parametrize("count", [12, 200, 3000])
def test_block_inverses_and_rho_equal_lapack_through_numpy(count):
    rng = np.random.default_rng(1)
    A = rng.normal(size=(count, 3, 3))
    W = A @ A.transpose(0, 2, 1) + 0.3 * np.eye(3) + 0.05 * rng.normal(size=(count, 3, 3))  # not symmetric
    W[7] = np.outer([1.0, 2.0, 0.5], [1.0, 2.0, 0.5])          # rank one: pseudo-inverse
    W[8] = 0.0                                                  # empty row: rho = 0
    lam = np.linalg.eigvalsh(0.5 * (W + W.transpose(0, 2, 1)))
    regular = lam[:, 0] > 1e-14 * np.maximum(lam[:, -1], 1e-300)
    rho_ref = np.where(lam[:, -1] > 0, 1.0 / np.where(lam[:, -1] > 0, lam[:, -1], 1.0), 0.0)
    assert regular.sum() == count - 2
    # closed forms (the kernel) against LAPACK (numpy): equal to rounding
    Winv_b, rho_b, reg_b = K.blocks_inverse_and_rho(np.ascontiguousarray(W), 1e-14)
    assert np.array_equal(reg_b, regular)
    assert_numpy_rounding(rho_b, rho_ref)
    assert_inverse_rounding(Winv_b[regular], np.linalg.inv(W[regular]), W[regular])
    Winv, rho = LD._inverse_and_rho(W)
    assert_inverse_rounding(Winv[regular], np.linalg.inv(W[regular]), W[regular])
    assert np.allclose(Winv[~regular], np.linalg.pinv(W[~regular]), rtol=1e-12, atol=1e-12)
    assert_numpy_rounding(rho, rho_ref)
    cond = np.linalg.cond(W[regular])
    ok = cond < 1e3
    assert ok.sum() > 0.5 * count
    assert np.abs(W[regular][ok] @ Winv[regular][ok] - np.eye(3)).max() < 1e-12


def hard_blocks(rng, count):
    """3x3 blocks Q diag(lam) Q^T (random rotations Q) with spectra that challenge closed
    forms: well separated, all equal or nearly (identity multiples), a nearly repeated top
    or bottom pair (splits 0 to 1e-6: the trigonometric formula alone loses half the digits
    there), one or two small eigenvalues down to 1e-16 (nearly singular), rank one or zero;
    half of them scaled by 10^+-150, a third given a non-symmetric perturbation of 1e-16
    ||W||; then diagonal blocks, identity multiples and extreme diagonals."""
    Q, _ = np.linalg.qr(rng.normal(size=(count, 3, 3)))
    lam = rng.uniform(0.1, 10.0, (count, 3))
    split = rng.choice([0.0, 1e-16, 1e-13, 1e-10, 1e-6], count)
    small = 10.0 ** -rng.uniform(0, 16, count)
    kind = np.arange(count) % 7
    lam[kind == 1] = (rng.uniform(0.5, 2.0, count)[:, None] * (1.0 + np.outer(split, [0, 0, 1])))[kind == 1]
    lam[kind == 2] = np.column_stack([np.ones(count), 2.0 + 0 * split, 2.0 + split])[kind == 2]
    lam[kind == 3] = np.column_stack([np.ones(count), 1.0 + split, 3.0 + 0 * split])[kind == 3]
    lam[kind == 4] = np.column_stack([small, np.ones(count), 2.0 * np.ones(count)])[kind == 4]
    lam[kind == 5] = np.column_stack([small, small * rng.uniform(1, 2, count), np.ones(count)])[kind == 5]
    lam[kind == 6] = np.outer(rng.uniform(0, 1, count) * (rng.uniform(size=count) < 0.8), [0, 0, 1])[kind == 6]
    W = np.einsum("kij,kj,klj->kil", Q, lam, Q)
    W *= np.where(np.arange(count) % 2 == 0, 1.0, 10.0 ** rng.uniform(-150, 150, count))[:, None, None]
    skew = rng.uniform(size=count) < 0.3
    W[skew] += 1e-16 * rng.normal(size=(skew.sum(), 3, 3)) * np.abs(W[skew]).max(axis=(1, 2))[:, None, None]
    diag = [np.diag([3.0, 1.0, 2.0]), 7.0 * np.eye(3), 1e-300 * np.eye(3), np.zeros((3, 3)),
            np.diag([1e200, 1.0, 1e-200]), np.diag([-1.0, 2.0, 0.5]), 0.1 * np.eye(3)]
    return np.concatenate([W, np.array(diag)])


@njit(cache=True)
def _extremes(S):
    out = np.empty((S.shape[0], 2))
    for k in range(S.shape[0]):
        out[k, 0], out[k, 1] = linalg3.symmetric3_extremes(S[k, 0, 0], S[k, 0, 1], S[k, 0, 2], S[k, 1, 1],
                                                           S[k, 1, 2], S[k, 2, 2])
    return out


def test_closed_form_blocks_equal_lapack_to_rounding():
    """The closed-form extreme eigenvalues (geometry/linalg3.symmetric3_extremes) and the
    pivoted 3x3 inverse (linalg3.lu_inverse3, through blocks_inverse_and_rho) against
    np.linalg.eigvalsh / inv (LAPACK) on hard_blocks. Tolerances: both eigenvalue methods
    err by at most a few eps ||W||_2 (LAPACK Users' Guide, 4.7: p(n) eps ||A||_2; the
    closed form is computed on the shifted, normalised matrix, same order), so their
    difference is allowed 16 eps ||W||_2 (7.2 was the largest in 2e5 blocks); both inverses
    are backward stable, so their difference is allowed 10 eps cond(W) |W^-1| and W W^-1 - I
    10 eps cond(W) (1.4 and 1.4 the largest measured; LAPACK's own residual 1.9). Diagonal
    blocks give their diagonal exactly (as LAPACK does), so rho of those is bit-equal. The
    regularity test lambda_min > 1e-14 lambda_max decides as with LAPACK's eigenvalues,
    except within the eigenvalue tolerance of the threshold."""
    rng = np.random.default_rng(11)
    W = hard_blocks(rng, 7000)
    eps = np.finfo(float).eps
    S = 0.5 * (W + W.transpose(0, 2, 1))
    lam = np.linalg.eigvalsh(S)
    norm = np.abs(lam).max(axis=1)
    ext = _extremes(S)
    assert np.all(np.abs(ext[:, 0] - lam[:, 0]) <= 16 * eps * norm)
    assert np.all(np.abs(ext[:, 1] - lam[:, -1]) <= 16 * eps * norm)
    d = np.all(S == S * np.eye(3), axis=(1, 2))
    diagonal = np.diagonal(S[d], axis1=1, axis2=2)
    assert d.sum() >= 7 and np.array_equal(ext[d], np.column_stack([diagonal.min(axis=1), diagonal.max(axis=1)]))
    Winv, rho, regular = K.blocks_inverse_and_rho(W, 1e-14)
    big = lam[:, -1]
    top = diagonal.max(axis=1)
    assert np.array_equal(rho[d], np.where(top > 0, 1.0 / np.where(top > 0, top, 1.0), 0.0))
    assert_numpy_rounding(rho * big, (big > 0).astype(float))
    reg_ref = lam[:, 0] > 1e-14 * np.maximum(big, 1e-300)
    near = np.abs(lam[:, 0] - 1e-14 * big) <= 32 * eps * norm
    assert np.array_equal(regular[~near], reg_ref[~near])
    assert 0.5 * W.shape[0] < regular.sum() < W.shape[0]       # both branches taken
    r = regular
    cond = np.linalg.cond(W[r])
    ref = np.linalg.inv(W[r])
    assert_inverse_rounding(Winv[r], ref, W[r])
    assert np.all(np.abs(W[r] @ Winv[r] - np.eye(3)).max(axis=(1, 2)) <= 10 * eps * cond)
    assert np.all(Winv[~r] == 0.0)
    Winv2, rho2 = LD._inverse_and_rho(W)                        # singular blocks: pinv
    assert np.array_equal(Winv2[r], Winv[r]) and np.array_equal(rho2, rho)
    assert np.allclose(Winv2[~r], np.linalg.pinv(W[~r]), rtol=1e-12, atol=0)


def test_block_inverses_of_non_finite_blocks_go_through_numpy():
    """LAPACK in the kernel would not report a NaN block; numpy's eigvalsh does."""
    W = np.tile(np.eye(3), (4, 1, 1))
    W[2, 0, 1] = np.nan
    with pytest.raises(np.linalg.LinAlgError):
        LD._inverse_and_rho(W)


def assert_numpy_rounding(out, ref):
    """`out` equals numpy's `ref` to rounding. The kernels add in the order numpy's einsum
    uses on the machine they were written on (two vector lanes), so there they are equal bit
    for bit (the benchmarks' state hashes check that); how einsum pairs its terms depends on
    numpy's build and the CPU, so the test asks only for agreement to rounding: 1e-14 of the
    largest entry (a few ulps of sums of at most 6 products of O(1) numbers)."""
    out, ref = np.asarray(out), np.asarray(ref)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-14, atol=1e-14 * float(np.abs(ref).max()))


def assert_inverse_rounding(out, ref, W):
    """Inverses of the 3 x 3 blocks W equal to rounding: per block, within 10 eps cond(W_a)
    of its largest entry (the error bound of a backward-stable inverse)."""
    cond = np.linalg.cond(W)
    bound = 10 * np.finfo(float).eps * cond * np.abs(ref).max(axis=(1, 2))
    assert np.all(np.abs(out - ref).max(axis=(1, 2)) <= bound)


def test_rigid_gen_to_loc_equals_the_einsum_form():
    rng = np.random.default_rng(2)
    n, k = 40, 300

    class Block(rigid.RigidBlock):
        def __init__(self):                                   # rigid bodies (not obstacles)
            self.conf, self.center = np.zeros((n, 12)), rng.normal(size=(n, 3))
            self.bodies, self.obstacle = [None] * n, np.zeros(n, dtype=bool)

    block = Block()
    R = Rotation.from_rotvec(rng.normal(size=(n, 3))).as_matrix()
    block.conf[:, 0:9] = R.transpose(0, 2, 1).reshape(-1, 9)      # column-major
    block.conf[:, 9:12] = rng.normal(size=(n, 3))
    rows = rng.integers(0, n, k)
    X = rng.normal(size=(k, 3))
    base = C.local_base(rng.normal(size=(k, 3)) / 1.7)
    H = block.gen_to_loc(rows, X, base)
    A = X - block.center[rows]
    skew = np.zeros((k, 3, 3))
    skew[:, 0, 1], skew[:, 0, 2], skew[:, 1, 2] = -A[:, 2], A[:, 1], -A[:, 0]
    skew[:, 1, 0], skew[:, 2, 0], skew[:, 2, 1] = A[:, 2], -A[:, 1], A[:, 0]
    BtL = np.einsum("kji,kjl->kil", base, R[rows])
    ref = np.concatenate((-np.einsum("kil,klj->kij", BtL, skew), base.transpose(0, 2, 1)), axis=2)
    assert_numpy_rounding(H, ref)


def _face_planes_numpy(v_cur, tri, t_face, nf):
    a, b, c = v_cur[tri[:, 0]], v_cur[tri[:, 1]], v_cur[tri[:, 2]]
    area = np.cross(b - a, c - a)
    normal = np.stack([np.bincount(t_face, weights=area[:, j], minlength=nf) for j in range(3)], axis=1)
    size = np.linalg.norm(normal, axis=1)
    normal /= np.where(size > 0, size, 1.0)[:, None]
    anchor = np.zeros((nf, 3))
    anchor[t_face] = a
    return normal, np.einsum("fi,fi->f", normal, anchor)


def test_face_planes_equal_the_array_expressions():
    rng = np.random.default_rng(3)
    nf = 500
    t_face = np.repeat(np.arange(nf), rng.integers(1, 5, nf))
    v = rng.normal(size=(800, 3)) * rng.uniform(0.01, 100.0, (800, 1))
    tri = rng.integers(0, 800, (t_face.size, 3))
    tri[:3, 1] = tri[:3, 2] = tri[:3, 0]                        # degenerate triangles: zero normal
    n1, d1 = O.face_planes(v, tri, t_face, nf)
    n0, d0 = _face_planes_numpy(v, tri, t_face, nf)
    assert_numpy_rounding(n1, n0)
    assert_numpy_rounding(d1, d0)


def test_face_planes_of_a_rotated_cube(api):
    """Geometric check: the six planes of a rotated unit cube centred at c are +-R e_i with
    offsets 0.5 + n.c (to 1e-14, round-off of unit vectors)."""
    shape = api.HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1], 1, 1, 1, 0, [1] * 6)
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/facecube')
    mat = api.BULK_MATERIAL(sol, density=1.0)
    body = api.BODY(sol, 'RIGID', shape, mat)
    R = Rotation.from_rotvec((0.3, -0.7, 0.4)).as_matrix()
    body.conf = tuple(R.T.reshape(-1).tolist()) + (2.0, -1.0, 0.5)
    table = O.table_for(sol.domain)
    geo = O.current(sol.domain, table, 1e-6)
    expected = np.concatenate((R.T, -R.T))                     # rows +-R e_i
    c = np.array([2.0, -1.0, 0.5])
    for n, d in zip(geo.f_normal, geo.f_offset):
        match = np.abs(expected - n).max(axis=1) < 1e-14
        assert match.sum() == 1
        assert d == pytest.approx(0.5 + n @ c, abs=1e-14)


def test_known_pair_filter_equals_isin():
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 1000, 3000)
    known = rng.choice(1000, 200, replace=False)
    assert np.array_equal(_member(keys, known), np.isin(keys, known))
    assert np.array_equal(_member(np.array([5, 999, 0]), np.array([999])), [False, True, False])


def _rows_by_lookup(domain, cset):
    out = np.full((cset.count, 2), -1)
    for k in range(cset.count):
        for s in range(2):
            b = domain.by_id.get(int(cset.bid[k, s]))
            if b is not None and not b.deleted:
                out[k, s] = b.block.bodies.index(b)
    return out


def test_body_rows_cache_follows_the_constraint_set_and_the_bodies(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/brows')
    mat = api.BULK_MATERIAL(sol, density=1.0)
    balls = [api.BODY(sol, 'RIGID', api.SPHERE((3.0 * i, 0, 0), 0.5, 1, 1), mat) for i in range(5)]
    api.FIX_POINT(balls[1], (3.0, 0, 0))
    api.PUT_RIGID_LINK(balls[0], balls[3], (0, 0, 0), (9.0, 0, 0))
    domain = sol.domain
    cset = C.constraint_set(domain)
    first = LD.body_rows(domain, cset)
    assert np.array_equal(first, _rows_by_lookup(domain, cset))
    assert LD.body_rows(domain, cset) is first                 # unchanged set: the cached array
    assert not first.flags.writeable
    api.PUT_RIGID_LINK(balls[4], None, (12.0, 0, 0), (12.0, 1.0, 0))
    again = LD.body_rows(domain, cset)
    assert again is not first and np.array_equal(again, _rows_by_lookup(domain, cset))
    api.DELETE(sol, balls[0])                                     # rows of the later balls move up
    after = LD.body_rows(domain, cset)
    assert cset.count == 2
    assert np.array_equal(after, _rows_by_lookup(domain, cset))
    assert after[1, 0] == balls[4].block.bodies.index(balls[4]) == 3


def _signed_random(rng, *shape):
    """Values over 12 decades with exact zeros of both signs (where orders of addition show)."""
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 6, shape)
    x[rng.random(shape) < 0.1] = 0.0
    x[rng.random(shape) < 0.05] = -0.0
    return x


def test_assembly_and_finish_kernels_equal_their_numpy_forms():
    """coupled (einsum + segment sum), add_signed (segment sum of sign * values), contact
    work and rigid add_reactions (einsum + np.add.at) against the numpy expressions they
    replaced: the segment sums and contact work bit for bit, signs of zeros included; the
    einsum forms to rounding (assert_numpy_rounding)."""
    rng = np.random.default_rng(5)
    n, E = 300, 2000
    B, R, Wadj = _signed_random(rng, n, 3), _signed_random(rng, n, 3), _signed_random(rng, E, 3, 3)
    counts = np.bincount(rng.integers(0, n, E), minlength=n)
    indptr = np.concatenate(([0], np.cumsum(counts)))
    adj = rng.integers(0, n, E)
    rowsof = np.repeat(np.arange(n), counts)
    ref = B + LD.segment_sum(rowsof, np.einsum("eij,ej->ei", Wadj, R[adj]), n)
    out = K.coupled(B, R, indptr, adj, Wadj)
    assert_numpy_rounding(out, ref)
    con, rows = rng.integers(0, n, E), rng.integers(0, 50, E)
    sign = np.where(rng.random(E) < 0.5, 1.0, -1.0)
    values = _signed_random(rng, E, 3)
    ref = B + LD.segment_sum(con, sign[:, None] * values, n)
    out = B.copy()
    K.add_signed(out, con, sign, values)
    assert np.array_equal(out, ref) and np.array_equal(np.signbit(out), np.signbit(ref))
    U, V, h = _signed_random(rng, n, 3), _signed_random(rng, n, 3), 1e-3
    ref = _signed_random(rng, 50, 5)
    out = ref.copy()
    _contact_work_numpy(ref, rows, con, U, V, R, 0.5 * h)
    K.contact_work_live(out, rows, con, np.full(n, C.CONTACT, dtype=np.int64), np.zeros(E, dtype=np.bool_),
                        U, V, R, 0.5 * h, C.CONTACT)
    assert np.array_equal(out, ref)
    H, Rk = _signed_random(rng, E, 3, 6), _signed_random(rng, E, 3)
    ref = _signed_random(rng, 50, 6)
    out = ref.copy()
    np.add.at(ref, rows, np.einsum("kij,ki->kj", H, Rk))
    rigid._add_reactions(out, rows, H, Rk)
    assert_numpy_rounding(out, ref)


def _contact_work_numpy(energy, rows, con, U, V, R, half_h):
    """The numpy expressions contact work replaced: np.add.at in entry order."""
    s = U[con] + V[con]
    np.add.at(energy[:, 2], rows, half_h * s[:, 2] * R[con, 2])
    np.add.at(energy[:, 3], rows, half_h * np.einsum("ki,ki->k", s[:, :2], R[con, :2]))


def _csr_numpy(n, a, b, values):
    """The off-diagonal CSR by numpy: np.unique of a * n + b, duplicates added in entry order
    (np.add.at) onto zeros."""
    uniq, inv = np.unique(a * n + b, return_inverse=True)
    W = np.zeros((uniq.size, 3, 3))
    np.add.at(W, inv, values)
    indptr = np.concatenate(([0], np.cumsum(np.bincount(uniq // n, minlength=n))))
    return indptr, uniq % n, W


@pytest.mark.parametrize("n, E, width", [(300, 2000, 300), (40, 6000, 1000)])   # short rows; rows of ~150 blocks
def test_counting_sort_csr_equals_numpy_unique(n, E, width):
    """K.off_diagonal_csr (counting sort on rows, insertion or merge sort within a row)
    against np.unique's order of a * n + b with duplicates added in entry order: the same
    arrays bit for bit (the same additions in the same order)."""
    rng = np.random.default_rng(6)
    a, b = rng.integers(0, n, E), rng.integers(0, width, E)
    values = _signed_random(rng, E, 3, 3)
    N = max(n, width)
    ref = _csr_numpy(N, a, b, values)
    out = K.off_diagonal_csr(N, a, b, values)
    for x, y in zip(out, ref):
        assert np.array_equal(x, y) and np.array_equal(np.signbit(x), np.signbit(y))


def test_rigid_local_velocity_equals_the_einsum_form():
    """rigid._local_velocity against einsum kij,kj->ki of H and the gathered velocities (to
    rounding: assert_numpy_rounding)."""
    rng = np.random.default_rng(7)
    H, velo = _signed_random(rng, 3000, 3, 6), _signed_random(rng, 40, 6)
    rows = rng.integers(0, 40, 3000)
    ref = np.einsum("kij,kj->ki", H, velo[rows])
    out = rigid._local_velocity(rows, H, velo)
    assert_numpy_rounding(out, ref)


def test_pair_blocks_equal_the_numpy_expression():
    """K.pair_blocks against the numpy expression local_dynamics.assemble had: blocks =
    (h s_e s_f) Wef, pairs of one constraint summed as blocks + blocks^T onto the diagonal,
    the others as entries [(c_e, c_f, blocks), (c_f, c_e, blocks^T)]; equal bit for bit
    (the same products and sums), signs of zeros included."""
    rng = np.random.default_rng(11)
    E, entries, h = 500, 120, 1e-3
    con = rng.integers(0, 60, entries)                   # several entries per constraint
    sign = np.where(rng.random(entries) < 0.5, 1.0, -1.0)
    e, f = rng.integers(0, entries, E), rng.integers(0, entries, E)
    Wef = _signed_random(rng, E, 3, 3)
    blocks = (h * (sign[e] * sign[f]))[:, None, None] * Wef
    trans = blocks.transpose(0, 2, 1)
    same = con[e] == con[f]
    assert 0 < same.sum() < E
    drow, dval, a, b, val = K.pair_blocks(h, sign, con, e, f, Wef)
    other = ~same
    ref = (con[e[same]], blocks[same] + trans[same], np.concatenate((con[e[other]], con[f[other]])),
           np.concatenate((con[f[other]], con[e[other]])), np.concatenate((blocks[other], trans[other])))
    for x, y in zip((drow, dval, a, b, val), ref):
        assert np.array_equal(x, y) and np.array_equal(np.signbit(x), np.signbit(y))


def test_masked_and_in_place_kernels_equal_their_gathered_forms():
    """The kernels that take the masks and index arrays themselves against the kernels on
    the gathered, masked arguments they replace (the same additions in the same order, so
    bit for bit): unordered_pairs by counting sorts against the lexsort order (the numpy
    expression it replaced), contact_work_live against the numpy expression on the masked entries, rigid
    _add_signed_reactions against _add_reactions."""
    rng = np.random.default_rng(12)
    n, E = 300, 1500
    rows, con = rng.integers(0, 80, E), rng.integers(0, n, E)
    order = np.lexsort((np.arange(E), con, rows))
    ref_e, ref_f = [], []
    for r in np.unique(rows):
        members = order[rows[order] == r]
        for i in range(members.size):
            ref_e.extend(members[i] for _ in range(i + 1, members.size))
            ref_f.extend(members[i + 1:])
    e, f = K.unordered_pairs(rows, con)
    assert np.array_equal(e, ref_e) and np.array_equal(f, ref_f)
    kind = np.where(rng.random(n) < 0.8, C.CONTACT, C.FIXPNT).astype(np.int64)
    inert = rng.random(E) < 0.1
    U, V, R = _signed_random(rng, n, 3), _signed_random(rng, n, 3), _signed_random(rng, n, 3)
    live = (kind[con] == C.CONTACT) & ~inert
    ref = _signed_random(rng, 80, 5)
    out = ref.copy()
    _contact_work_numpy(ref, rows[live], con[live], U, V, R, 5e-4)
    K.contact_work_live(out, rows, con, kind, inert, U, V, R, 5e-4, C.CONTACT)
    assert np.array_equal(out, ref)
    H, sign = _signed_random(rng, E, 3, 6), np.where(rng.random(E) < 0.5, 1.0, -1.0)
    ref = _signed_random(rng, 80, 6)
    out = ref.copy()
    rigid._add_reactions(ref, rows[~inert], H[~inert], sign[~inert, None] * R[con[~inert]])
    rigid._add_signed_reactions(out, rows, H, con, sign, R, inert)
    assert np.array_equal(out, ref) and np.array_equal(np.signbit(out), np.signbit(ref))


@pytest.mark.parametrize("n", [1, 500, 910, 911, 2000, 5000])     # one einsum buffer and several
def test_quadratic_sum_equals_numpy_einsum(n):
    """K.quadratic_sum against np.einsum("ki,kij,kj->") (free energy of the local dynamics).
    The kernel adds in the order numpy 2.4's einsum uses on the machine it was written on,
    where the two are equal bit for bit; that order depends on numpy's build and the CPU, so
    the test asks for agreement within the worst-case bound of any summation order of the
    N = 9 n products: N eps sum |terms| (Higham, Accuracy and Stability, eq. 4.4)."""
    rng = np.random.default_rng(13)
    B, Winv = _signed_random(rng, n, 3), _signed_random(rng, n, 3, 3)
    ref = np.einsum("ki,kij,kj->", B, Winv, B)
    bound = 9 * n * np.finfo(float).eps * np.einsum("ki,kij,kj->", np.abs(B), np.abs(Winv), np.abs(B))
    assert abs(K.quadratic_sum(B, Winv) - ref) <= bound
