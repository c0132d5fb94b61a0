"""The one-pass kernels of the rigid free-flight step (issue 13) against the expressions they
replaced, which serve as the independent references: the end-of-step energies (numpy einsum
of (velo0 + velo).fext, np.where, bodies.rigid._kinetic_energy), the finish fused with them
(the finish then the energies, row for row), the ellipsoid boxes of a rigid family taken
straight from conf (the points mapped through the block's cur_points, then
objects.ellipsoid_boxes; and the analytic box half-widths |row i of Lambda diag(r)|) and the
grid broad phase with merged neighbour runs (the pair set of the sort-and-sweep kernel). The
kernels keep the references' operations and order, so the tolerance is equality (bit for bit),
except where the reference is numpy's einsum (its pairing of terms depends on the build and
the CPU: there to rounding, 1e-14); the analytic
box half-widths agree to 1e-12 relative (round-off of mapping three tips and a sqrt)."""
from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from solfec_py.bodies import rigid
from solfec_py.bodies.rigid_schemes import solfec_kernels as K
from solfec_py.bodies.rigid_schemes.support import _step_energies
from solfec_py.contact import broad, objects as O


def _state(n, seed):
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.integers(-6, 6, (n, 1))
    A = rng.normal(size=(n, 3, 3))
    J = A @ A.transpose(0, 2, 1) + np.eye(3)
    return dict(velo=rng.normal(size=(n, 6)) * scale, velo0=rng.normal(size=(n, 6)) * scale,
                fext=rng.normal(size=(n, 6)) * 1e3, reaction=rng.normal(size=(n, 6)),
                obstacle=rng.random(n) < 0.2, J=J, Jinv=np.linalg.inv(J), mass=rng.random(n) + 0.1,
                energy=np.where(rng.random((n, 5)) < 0.1, -0.0, rng.normal(size=(n, 5))))


def _reference_energies(s, h):
    fext = s["fext"] + s["reaction"]
    live = ~s["obstacle"]
    work = 0.5 * h * np.einsum("ni,ni->n", s["velo0"] + s["velo"], fext)
    energy = s["energy"].copy()
    energy[:, 1] += np.where(live, work, 0.0)
    energy[:, 0] = np.where(live, rigid._kinetic_energy(s["velo"], s["J"], s["mass"]), 0.0)
    return fext, energy


def test_step_energies_equal_the_numpy_expressions():
    s, h = _state(500, 0), 1e-3
    fext, energy = _reference_energies(s, h)
    _step_energies(500, s["velo"], s["velo0"], s["fext"], s["reaction"], s["obstacle"], s["J"], s["mass"],
                   s["energy"], 0.5 * h)
    assert np.array_equal(s["fext"], fext)
    other = [0, 2, 3, 4]
    assert np.array_equal(s["energy"][:, other], energy[:, other])
    # the work column sums 6 products in the order numpy's einsum uses here (bit for bit on
    # this machine); einsum's pairing depends on numpy's build and the CPU, so: to rounding
    np.testing.assert_allclose(s["energy"][:, 1], energy[:, 1], rtol=1e-14, atol=1e-14 * np.abs(energy[:, 1]).max())
    obstacle = s["obstacle"]
    assert obstacle.any() and np.array_equal(s["energy"][obstacle], energy[obstacle])
    assert np.array_equal(np.signbit(s["energy"][obstacle]), np.signbit(energy[obstacle]))   # x + 0.0 as np.where did


def test_finish_with_energies_equals_finish_then_energies():
    n, h = 300, 1e-3
    a, b = _state(n, 1), _state(n, 1)
    rng = np.random.default_rng(2)
    for s in (a, b):
        s["conf"] = np.concatenate((Rotation.random(n, random_state=3).as_matrix().transpose(0, 2, 1).reshape(n, 9),
                                    rng.normal(size=(n, 3))), axis=1) if s is a else a["conf"].copy()
        s["momentum"] = np.random.default_rng(4).normal(size=(n, 3))
        s["velo"][:, :3] = np.random.default_rng(5).normal(scale=5.0, size=(n, 3))
    kinds = np.array([K.POS, K.NEG, K.IMP, K.OTHER], dtype=np.int64)
    scheme = (np.arange(n) % 4).astype(np.int8)
    kind = kinds[scheme]
    norot = np.arange(n) % 7 == 0
    rows = np.arange(n, dtype=np.int64)

    total = np.zeros(1)
    half = a["conf"][:, :9].copy()
    c = {k: v.copy() for k, v in b.items()}

    def run(s, fused):
        every = np.zeros(0, np.int64) if fused else rows        # both ways of naming every row
        return K.finish(n, every, scheme, kinds, s["conf"], s["velo"], s["reaction"], s["J"], s["Jinv"], s["mass"], s["momentum"],
                        norot, h, 50, fused, s["velo0"], s["fext"], s["obstacle"], s["energy"], total, True)

    assert K.newton_needed(n, rows, scheme, kinds, a["velo"], a["reaction"], a["Jinv"], a["momentum"], norot, h)
    assert run(a, True) == -1
    # the finite-state sum: every conf and velo entry, row after row (a plain sum: to rounding)
    assert np.isclose(total[0], a["conf"].sum() + a["velo"].sum(), rtol=1e-12,
                      atol=1e-12 * (np.abs(a["conf"]).sum() + np.abs(a["velo"]).sum()))
    assert run(b, False) == -1
    _step_energies(n, b["velo"], b["velo0"], b["fext"], b["reaction"], b["obstacle"], b["J"], b["mass"],
                   b["energy"], 0.5 * h)
    for key in ("conf", "velo", "momentum", "fext", "energy"):
        assert np.array_equal(a[key], b[key]), key
    # RIG_IMP rows keep Newton's last exp[h/2 Omega]: the rotation is Lambda_half exp[h/2 Omega]
    # of the final Omega (geometry.rotation.expmap, numpy's matmul: to rounding, 1e-14)
    from solfec_py.geometry.rotation import expmap
    imp = np.flatnonzero((kind == K.IMP) & ~norot)
    R_half = half[imp].reshape(-1, 3, 3).transpose(0, 2, 1)
    R_end = a["conf"][imp, :9].reshape(-1, 3, 3).transpose(0, 2, 1)
    assert np.allclose(R_end, R_half @ expmap(0.5 * h * a["velo"][imp, :3]), rtol=0, atol=1e-14)
    # and Omega solves RIG_IMP's momentum equation exp[h/2 Omega] J Omega = a (a: the stored
    # momentum) to Newton's stopping test, 1e-13 max(1, |a|) (plus rounding of the numpy check)
    Om, mom = a["velo"][imp, :3], a["momentum"][imp]
    lhs = np.einsum("nij,nj->ni", expmap(0.5 * h * Om), np.einsum("nij,nj->ni", a["J"][imp], Om))
    assert np.all(np.abs(lhs - mom).max(axis=1) <= 2e-13 * np.maximum(1.0, np.linalg.norm(mom, axis=1)))
    # a non-finite entry makes the sum non-finite
    c["velo"][3, 4] = np.nan
    assert run(c, True) == -1 and not np.isfinite(total[0])


def test_imp_rows_at_rest_need_no_newton_and_finish_without_it_bit_for_bit():
    """finish(..., imp=None), the kernel without RIG_IMP's Newton solve, gives the numbers of
    the full kernel when every RIG_IMP row is at rest (Omega, momentum and reaction 0: a
    static obstacle), the other rows moving; newton_needed tells the two cases apart."""
    n, h = 200, 1e-3
    rng = np.random.default_rng(8)
    kinds = np.array([K.POS, K.NEG, K.IMP, K.OTHER], dtype=np.int64)
    scheme = (np.arange(n) % 4).astype(np.int8)
    imp = np.flatnonzero(kinds[scheme] == K.IMP)
    norot = np.arange(n) % 9 == 0
    a = _state(n, 1)
    a["conf"] = np.concatenate((Rotation.random(n, random_state=9).as_matrix().transpose(0, 2, 1).reshape(n, 9),
                                rng.normal(size=(n, 3))), axis=1)
    a["momentum"] = rng.normal(size=(n, 3))
    a["velo"][:, :3] = rng.normal(scale=5.0, size=(n, 3))
    a["reaction"][:] = rng.normal(size=(n, 6))
    for key in ("momentum", "reaction"):
        a[key][imp, :3] = 0.0
    a["velo"][imp, :3] = 0.0
    every = np.zeros(0, np.int64)
    assert not K.newton_needed(n, every, scheme, kinds, a["velo"], a["reaction"], a["Jinv"], a["momentum"], norot, h)
    b = {k: v.copy() for k, v in a.items()}
    for s, flag in ((a, True), (b, None)):
        total = np.zeros(1)
        assert K.finish(n, every, scheme, kinds, s["conf"], s["velo"], s["reaction"], s["J"], s["Jinv"], s["mass"],
                        s["momentum"], norot, h, 50, True, s["velo0"], s["fext"], s["obstacle"], s["energy"], total,
                        flag) == -1
    for key in ("conf", "velo", "momentum", "fext", "energy"):
        assert np.array_equal(a[key], b[key]), key
    # any of Omega, momentum or reaction nonzero on one RIG_IMP row (not a norotation one) needs the solve
    r = imp[~norot[imp]][0]
    for key, col in (("velo", 1), ("momentum", 2), ("reaction", 0)):
        c = {k: v.copy() for k, v in b.items()}
        c[key][r, col] = 1e-9
        assert K.newton_needed(n, every, scheme, kinds, c["velo"], c["reaction"], c["Jinv"], c["momentum"], norot, h)


class _Block(rigid.RigidBlock):
    def __init__(self, conf, center):
        self.conf, self.center = conf, center
        self.bodies = [None] * conf.shape[0]                    # rigid bodies (not obstacles)
        self.obstacle = np.zeros(conf.shape[0], dtype=bool)


class _Domain:
    def __init__(self, block):
        self.blocks = {"rigid": block}


def test_rigid_ellipsoid_boxes_equal_mapped_points_and_the_analytic_box():
    rng = np.random.default_rng(6)
    k = 200
    R = Rotation.random(k, random_state=7).as_matrix()
    conf = np.concatenate((R.transpose(0, 2, 1).reshape(k, 9), rng.normal(size=(k, 3)) * 5), axis=1)
    center = rng.normal(size=(k, 3))
    radii = 0.1 + rng.random((k, 3))
    c_ref = center + 0.1 * rng.normal(size=(k, 3))                      # ellipsoid centre off the mass centre
    ref = np.concatenate([c_ref[:, None], c_ref[:, None] + radii[:, :, None] * np.eye(3)], axis=1).reshape(-1, 3)
    rows = rng.permutation(k).astype(np.int64)                          # ellipsoid e on body rows[e]
    obj = np.arange(k, dtype=np.int64)[::-1].copy()                      # objects numbered backwards
    lo, hi = np.empty((k, 3)), np.empty((k, 3))
    c, A = O.rigid_ellipsoid_boxes(rows, ref, conf, center, obj, lo, hi)
    pts = _Block(conf, center).cur_points(np.repeat(rows, 4), ref).reshape(-1, 4, 3)
    c2, A2, lo2, hi2 = O.ellipsoid_boxes(pts)
    assert np.array_equal(c, c2) and np.array_equal(A, A2)
    assert np.array_equal(lo[obj], lo2) and np.array_equal(hi[obj], hi2)
    # analytic: tip j - centre = r_j e_j, so the half-width along i is |(Lambda diag(r))[i, :]|
    semi = R[rows] * np.linalg.norm(ref.reshape(k, 4, 3)[:, 1:] - ref.reshape(k, 4, 3)[:, :1], axis=2)[:, None, :]
    half = np.linalg.norm(semi, axis=2)
    assert np.allclose(hi[obj] - c, half, rtol=1e-12, atol=1e-14)
    assert np.allclose(c - lo[obj], half, rtol=1e-12, atol=1e-14)


def _swept(lo, hi, group, flag):
    """The pair set of the sort-and-sweep kernel (the method below GRID_FROM boxes)."""
    order = np.argsort(lo[:, 0], kind="stable").astype(np.int64)
    pairs = broad._sweep(lo, hi, order, 0, True, group, True, flag)
    return {(int(a), int(b)) for a, b in pairs}


def test_grid_with_merged_runs_finds_every_pair_once():
    rng = np.random.default_rng(8)
    n = broad.GRID_FROM + 500
    cases = []
    c = np.column_stack([np.arange(n) * 0.45, 0.05 * rng.random(n), 0.05 * rng.random(n)])   # a line: merged runs
    cases.append((c - 0.25, c + 0.25))
    c = rng.random((n, 3)) * 12.0                                                            # a pile, one floor
    lo, hi = c - 0.3, c + 0.3
    lo[0], hi[0] = (-1, -1, -1), (13, 13, 0.5)
    cases.append((lo, hi))
    for lo, hi in cases:
        group = rng.integers(0, n // 2, n)
        flag = rng.random(n) < 0.1
        pairs = broad.overlapping_pairs(lo, hi, group, flag)
        found = {(int(a), int(b)) for a, b in pairs}
        assert len(found) == pairs.shape[0]
        assert found == _swept(np.ascontiguousarray(lo), np.ascontiguousarray(hi), group, flag)
        assert pairs.shape[0] > 0


def _percentile_rule(lo, hi, group, flag):
    """overlapping_pairs' cell rule as it was (the reference): the 98th percentile q of the
    box sizes (numpy's quantile), the cell the largest size up to 4 q, the grid when at most
    2 % of the boxes are larger, else the sweep."""
    size = (hi - lo).max(axis=1)
    q = float(np.quantile(size, 0.98))
    cell = float(size[size <= 4.0 * q].max()) if q > 0.0 else 0.0
    if cell > 0.0 and np.count_nonzero(size > cell) <= 0.02 * size.size:
        return broad._grid(lo, hi, cell, True, group, True, flag)
    return None


def test_cell_without_the_percentile_is_the_percentile_rule_cell():
    """The grid's cell taken as the largest box size when fewer sizes than the percentile's
    rank lie below a quarter of it: the same pairs in the same order as the percentile rule,
    for equal sizes, spread sizes, a few walls, a heavy tail and sizes at the threshold."""
    rng = np.random.default_rng(9)
    n = broad.GRID_FROM + 100
    rank = int(0.98 * (n - 1))
    sizes = [np.full(n, 0.5),                                       # S1, S2: equal bodies
             rng.uniform(0.2, 0.6, n),                              # rotating ellipsoids
             np.concatenate([rng.uniform(0.4, 0.5, n - 40), np.full(40, 30.0)]),   # walls: the percentile
             rng.lognormal(0.0, 1.5, n),                            # heavy tail: the percentile
             np.concatenate([np.full(rank - 1, 0.2499), np.full(n - rank + 1, 1.0)]),  # just below the rank
             np.concatenate([np.full(rank + 2, 0.2499), np.full(n - rank - 2, 1.0)])]  # just above it
    for size in sizes:
        size = rng.permutation(size)
        c = rng.random((n, 3)) * np.array([40.0, 40.0, 4.0])
        lo, hi = c - 0.5 * size[:, None], c + 0.5 * size[:, None]
        group, flag = np.arange(n), rng.random(n) < 0.1
        ref = _percentile_rule(lo, hi, group, flag)
        pairs = broad.overlapping_pairs(lo, hi, group, flag)
        if ref is not None:
            assert np.array_equal(pairs, ref)
        assert {(int(a), int(b)) for a, b in pairs} == _swept(lo, hi, group, flag)


def test_grid_pair_order_is_box_then_cell_key_then_box():
    """The grid's pair order (which the contact rows inherit) is fixed: pairs (i, j) by i, then
    by the cell key of j's low corner (cells of side `cell` from the lowest corner, z fastest),
    then by j; built here with numpy from the sweep's pair set."""
    rng = np.random.default_rng(10)
    n = broad.GRID_FROM + 300
    line = np.column_stack([np.arange(n) * 0.45, 0.05 * rng.random(n), 0.05 * rng.random(n)])
    pile = rng.random((n, 3)) * 10.0
    for c in (line, pile):
        half = rng.uniform(0.1, 0.25, (n, 3))
        lo, hi = c - half, c + half
        group, flag = np.arange(n), rng.random(n) < 0.1
        pairs = broad.overlapping_pairs(lo, hi, group, flag)
        cell = (hi - lo).max()
        cx = ((lo - lo.min(axis=0)) / cell).astype(np.int64)
        dims = cx.max(axis=0) + 2
        key = (cx[:, 0] * dims[1] + cx[:, 1]) * dims[2] + cx[:, 2]
        ref = np.array(sorted(_swept(lo, hi, group, flag)), dtype=np.int64)
        ref = ref[np.lexsort((ref[:, 1], key[ref[:, 1]], ref[:, 0]))]
        assert pairs.shape[0] > 0 and np.array_equal(pairs, ref)
