"""SIMPLIFIED_CRACK, RT_SPLIT and FRACTURE_EXPORT_YAFFEMS on small finite-element bars.

References: a bar of length L pulled at both ends with speed v carries sigma = E 2 v t / L
once the elastic waves have crossed it many times (Poisson ratio 0: uniaxial stress); with
E = 1e6, rho = 1 (wave speed c = 1000) the stress in the middle rises in steps of
2 rho c v = 20 (1e-3 s of the 0.05 s to reach ft = 1e3), and the Saint Venant-Kirchhoff law
departs from linear by 1.5 eps = 1.5e-3: the split time is checked to 3 %. Momentum: the
fragments' nodes take the parent's velocities (interpolated inside the parent's elements
where the cut made new nodes), exact for a velocity linear in X, so the momenta (lumped
masses, exact for these linear elements) agree to round-off (1e-12 relative).
"""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.errors import InputError, InputTypeError

NODES = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
L, A, E, RHO, V, FT = 1.0, 0.1, 1e6, 1.0, 0.01, 1e3


def bar(api, n=4, out="out/bar", step=1e-4):
    sol = api.SOLFEC("DYNAMIC", step, out)
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=E, poisson=0.0, density=RHO)
    msh = api.HEX(NODES, n, 1, 1, 1, [1] * 6)
    api.SCALE(msh, (L, A, A))
    body = api.BODY(sol, "FINITE_ELEMENT", msh, mat, label="bar")
    body.scheme = "DEF_LIM"
    return sol, body


def momentum(body) -> np.ndarray:
    blk = body.block
    lay = blk.prepared()
    sl = blk.nodes_of(body.row)
    return (lay.mass[sl][:, None] * blk.u[sl]).sum(axis=0)


def test_bar_pulled_apart_splits_when_the_normal_stress_reaches_ft(api):
    sol, body = bar(api)
    api.SIMPLIFIED_CRACK(body, (0.5, 0.05, 0.05), (1, 0, 0), (7, 8), "TENSILE", ft=FT)
    for x, s in ((0.0, -1), (L, 1)):
        for y in (0, A):
            for z in (0, A):
                api.SET_VELOCITY(body, (x, y, z), (1, 0, 0), s * V)
    seen = []

    def watch(sol):
        seen.append((sol.time, len(sol.bodies)))
        return 1

    api.CALLBACK(sol, 1e-4, sol, watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000), 0.07)
    split = next(t for t, n in seen if n == 2)
    expected = FT * L / (2 * E * V)                      # sigma = E * 2 v t / L reaches ft
    assert abs(split / expected - 1) < 0.03, (split, expected)
    labels = sorted(b.label for b in sol.bodies)
    assert labels == ["bar/1", "bar/2"]
    assert body.deleted
    # each fragment kept the SET_VELOCITY constraints of its end (4 + 4): its end nodes
    # still move at -v / +v (its crack face recoils: the released stress ft / (rho c))
    for b in sol.bodies:
        assert b.ncon == 4
        sl = b.block.nodes_of(b.row)
        X, u = b.block.X[sl], b.block.u[sl]
        end = np.isclose(X[:, 0], 0.0) | np.isclose(X[:, 0], L)
        assert end.sum() == 4
        assert np.allclose(u[end, 0], np.where(X[end, 0] > 0.5, V, -V), rtol=1e-6)


def test_fragments_carry_the_momentum_and_positions_of_the_whole(api):
    from solfec_py.api.fracture_split import split_by_crack

    sol, body = bar(api)
    api.SIMPLIFIED_CRACK(body, (0.375, 0.05, 0.05), (1, 0, 0), (7, 8), "TENSILE", ft=1e30)
    api.INITIAL_VELOCITY(body, (0.1, 0.2, -0.3), (0.5, -1.0, 2.0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.01)
    whole = momentum(body)
    blk = body.block
    sl = blk.nodes_of(body.row)
    before = {x.tobytes(): c for x, c in zip(blk.X[sl], blk.X[sl] + blk.q[sl])}
    works = blk.energies()[body.row][1:4].copy()        # EXTERNAL, CONTWORK, FRICWORK
    parts = split_by_crack(body, body._cracks[0])
    assert len(parts) == 2
    assert np.allclose(sum(b.block.energies()[b.row][1:4] for b in parts), works, rtol=1e-12)
    total = sum(momentum(b) for b in parts)
    assert np.allclose(total, whole, rtol=1e-12, atol=1e-14 * np.abs(whole).max()), (total, whole)
    assert abs(sum(b.mass for b in parts) - RHO * L * A * A) < 1e-12
    for b in parts:                                  # nodes of the parent stay where they were
        s = b.block.nodes_of(b.row)
        for X, x in zip(b.block.X[s], b.block.X[s] + b.block.q[s]):
            if X.tobytes() in before:
                assert np.allclose(x, before[X.tobytes()], rtol=0, atol=1e-14)


def test_new_faces_carry_surfid(api):
    from solfec_py.api.fracture_split import split_by_crack

    sol, body = bar(api)
    api.SIMPLIFIED_CRACK(body, (0.375, 0.05, 0.05), (1, 0, 0), (7, 8), "TENSILE")
    parts = split_by_crack(body, body._cracks[0])
    for b in parts:
        mesh = b.block.records[b.row].mesh
        nodes, size, sids, _ = mesh.boundary_faces()
        behind = mesh.ref[:, 0].mean() < 0.375
        for sid in (7, 8):
            mine = sids == sid
            if (sid == 7) != behind:          # 7 on the part whose new face looks along +x
                assert not mine.any()
                continue
            assert mine.any()
            faces = nodes[mine]
            assert np.allclose(mesh.ref[faces[faces >= 0]][:, 0], 0.375)
        assert not np.isin(sids, (7, 8)).all()           # the old faces kept their id 1
        assert (sids == 1).any()
        area = sum(np.linalg.norm(np.cross(mesh.ref[f[1]] - mesh.ref[f[0]], mesh.ref[f[2]] - mesh.ref[f[0]]))
                   * (0.5 if f[3] < 0 else 1.0) for f in nodes[np.isin(sids, (7, 8))])
        assert abs(area - A * A) < 1e-12                  # the whole section (quads or fans of triangles)


@pytest.mark.parametrize("call, exc, words", [
    ("SIMPLIFIED_CRACK(None, (0, 0, 0), (1, 0, 0), (1, 2), 'TENSILE')", InputTypeError, "'body'"),
    ("SIMPLIFIED_CRACK(b, [0.5, 0, 0], (1, 0, 0), (1, 2), 'TENSILE')", InputTypeError, "'point'"),
    ("SIMPLIFIED_CRACK(b, (0.5, 0, 0), (0, 0, 0), (1, 2), 'TENSILE')", InputError, "'normal'"),
    ("SIMPLIFIED_CRACK(b, (0.5, 0, 0), (1, 0, 0), (1, 2, 3), 'TENSILE')", InputError, "'surfid'"),
    ("SIMPLIFIED_CRACK(b, (0.5, 0, 0), (1, 0, 0), 'a', 'TENSILE')", InputTypeError, "'surfid'"),
    ("SIMPLIFIED_CRACK(b, (0.5, 0, 0), (1, 0, 0), (1, 2), 'SHEAR')", InputError, "'criterion'"),
    ("SIMPLIFIED_CRACK(b, (0.5, 0, 0), (1, 0, 0), (1, 2), 'TENSILE', topoadj='YES')", InputError, "topoadj"),
    ("SIMPLIFIED_CRACK(b, (0.5, 0, 0), (1, 0, 0), (1, 2), 'TENSILE', ft='x')", InputTypeError, "'ft'"),
    ("SIMPLIFIED_CRACK(b, (5, 0, 0), (1, 0, 0), (1, 2), 'TENSILE')", InputError, "does not intersect"),
    ("SIMPLIFIED_CRACK(r, (0.5, 0, 0), (1, 0, 0), (1, 2), 'TENSILE')", InputError, "Invalid body kind"),
    ("RT_SPLIT(b, [[0, 1, 2]], 'a')", InputTypeError, "'sid1'"),
    ("RT_SPLIT(b, [(0, 1, 2)])", InputError, "'surf' must be a list of lists"),
    ("RT_SPLIT(b, [[0, 1]])", InputError, "neither 3 nor 4"),
    ("RT_SPLIT(b, [[0, 1, 2, 3]])", InputError, "No splitting happened"),
    ("RT_SPLIT(b, [[0, 1, 99]])", InputError, "'surf'"),
    ("FRACTURE_EXPORT_YAFFEMS(b, 'out/y')", InputError, "fracturecheck"),
    ("FRACTURE_EXPORT_YAFFEMS(b, 'out/y', quality=1.0)", InputError, "'quality'"),
    ("FRACTURE_EXPORT_YAFFEMS(b, 'out/y', volume=-1.0)", InputError, "'volume'"),
])
def test_errors_name_the_argument(api, call, exc, words):
    sol, b = bar(api, n=2)
    mat = api.BULK_MATERIAL(sol, label="m2")
    r = api.BODY(sol, "RIGID", api.HEX(NODES, 1, 1, 1, 1, [1] * 6), mat)
    with pytest.raises(exc, match=words):
        eval(call, dict(vars(api)), {"b": b, "r": r})


def test_rt_split_two_fragments_with_the_state(api):
    sol, b = bar(api, n=2)
    api.INITIAL_VELOCITY(b, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    whole = momentum(b)
    old_id = b.id
    # the face between the two elements, counter-clockwise seen from x > 0.5 (body2's side)
    mesh = b.block.records[b.row].mesh
    mid = [int(k) for k in np.flatnonzero(np.isclose(mesh.ref[:, 0], 0.5))]
    P = mesh.ref[mid]
    ang = np.arctan2(P[:, 2] - 0.05, P[:, 1] - 0.05)
    face = [mid[k] for k in np.argsort(ang)]            # counter-clockwise about +x
    b2, lst1, lst2 = api.RT_SPLIT(b, [face], 5, 6, "left", "right")
    assert b.id != old_id and b.label == "left" and b2.label == "right"
    assert sorted(x.label for x in sol.bodies) == ["left", "right"]
    left, right = b.block.records[b.row].mesh, b2.block.records[b2.row].mesh
    assert left.ref[:, 0].max() == 0.5 and right.ref[:, 0].min() == 0.5
    assert len(lst1) == left.nnod == 8 and len(lst2) == right.nnod == 8
    assert np.allclose(left.ref, mesh.ref[lst1]) and np.allclose(right.ref, mesh.ref[lst2])
    assert set(left.boundary_faces()[2].tolist()) == {1, 5} and set(right.boundary_faces()[2].tolist()) == {1, 6}
    assert np.allclose(momentum(b) + momentum(b2), whole, atol=1e-15)


def test_yaffems_export_file(api, tmp_path):
    sol, b = bar(api, n=2)
    b.fracturecheck = "ON"
    assert api.FRACTURE_EXPORT_YAFFEMS(b, str(tmp_path / "fra"), 0.5) == 0
    assert (tmp_path / "fra.vtk").read_text() == ""     # no recorded fracture instance: nothing exported


def test_pseudo_rigid_body_splits_with_its_motion(api):
    """A stretched PSEUDO_RIGID bar (F11 = 1.01: sigma_x = E (F11^2 - 1) / 2 F11 (F S F^T / J)
    ~ 1e4 > ft) splits after its first step; the fragments keep F, dF/dt and the motion of
    their points: momenta sum to the whole's (exact: sum m_i (X0_i - X0) = 0)."""
    sol = api.SOLFEC("DYNAMIC", 1e-4, "out/prb")
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e6, poisson=0.0, density=1000.0)
    b = api.BODY(sol, "PSEUDO_RIGID", api.HEX(NODES, 4, 1, 1, 1, [1] * 6), mat, label="p")
    api.SIMPLIFIED_CRACK(b, (0.4, 0.5, 0.5), (1, 0, 0), (7, 8), "TENSILE", ft=1e3)
    conf = list(b.conf)
    conf[0] = 1.01
    b.conf = tuple(conf)
    b.velo = (0, 0.3, 0, -0.3, 0, 0, 0, 0, 0, 1, 2, 3)
    whole = b.mass * np.array(b.velo[9:])
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 1e-4)
    parts = sol.bodies
    assert sorted(x.label for x in parts) == ["p/1", "p/2"]
    assert sorted(round(x.mass, 9) for x in parts) == [400.0, 600.0]
    total = sum(x.mass * np.array(x.velo[9:]) for x in parts)
    assert np.allclose(total, whole, rtol=1e-12)
    F = [np.array(x.conf[:9]) for x in parts]
    assert np.allclose(F[0], F[1], rtol=0, atol=1e-15)
    # one homogeneous motion for both: fragment 1 maps fragment 2's centre onto it
    a, b2 = parts
    X0a, X0b = a.block.center[a.row], b2.block.center[b2.row]
    xa, xb = np.array(a.conf[9:]), np.array(b2.conf[9:])
    assert np.allclose(xa + F[0].reshape(3, 3) @ (X0b - X0a), xb, rtol=0, atol=1e-14)
    va, vb = np.array(a.velo[9:]), np.array(b2.velo[9:])
    assert np.allclose(va + np.array(a.velo[:9]).reshape(3, 3) @ (X0b - X0a), vb, rtol=0, atol=1e-14)
