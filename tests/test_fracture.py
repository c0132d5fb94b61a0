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


def test_split_along_element_faces_keeps_both_momenta_and_both_energies(api):
    """A crack plane on element faces (inp/spaghetti.py's 199 planes) cuts no element: the
    fragments' nodes are the parent's, each with its displacement and velocity, and a node
    on the plane keeps in each fragment the lumped mass of that fragment's elements. The
    lumped masses, momenta and energies are sums over elements, so linear and angular
    momentum, kinetic energy and the elastic energy of the spinning, deformed bar add up to
    the parent's to round-off (1e-12 relative)."""
    from solfec_py.api.fracture_split import split_by_crack

    sol, body = bar(api)
    api.SIMPLIFIED_CRACK(body, (0.5, 0.05, 0.05), (1, 0, 0), 1, "TENSILE", ft=1e30)
    api.INITIAL_VELOCITY(body, (0.1, 0.2, -0.3), (0.5, -1.0, 2.0))
    api.SET_VELOCITY(body, (0.0, 0.0, 0.0), (1, 0, 0), -0.5)       # one corner held back: strain
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.01)

    def totals(b):
        blk = b.block
        sl = blk.nodes_of(b.row)
        m, x, u = blk.prepared().mass[sl], blk.X[sl] + blk.q[sl], blk.u[sl]
        blk.internal_stale = True
        return np.concatenate([(m[:, None] * u).sum(axis=0), (m[:, None] * np.cross(x, u)).sum(axis=0),
                               [0.5 * (m * (u * u).sum(axis=1)).sum(), blk.energies()[b.row][4]]])

    whole = totals(body)
    assert whole[7] > 1e-6 * whole[6]                    # the bar is strained
    parts = split_by_crack(body, body._cracks[0])
    assert len(parts) == 2
    assert sorted(b.block.nnodes[b.row] for b in parts) == [12, 12]     # no element was cut
    total = sum(totals(b) for b in parts)
    scale = np.array([np.abs(whole[:3]).max()] * 3 + [np.abs(whole[3:6]).max()] * 3 + [whole[6], whole[7]])
    assert np.all(np.abs(total - whole) <= 1e-12 * scale), (total, whole)


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
    ("FRACTURE_EXPORT_YAFFEMS(b, 3)", InputTypeError, "'path'"),
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


YAFFEMS_DECK = """
import json
nodes = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
sol = SOLFEC('DYNAMIC', 1E-4, 'out/fra')
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.0, density=1.0, fracene=0.005)
msh = HEX(nodes, 2, 1, 1, 1, [1] * 6)
SCALE(msh, (1.0, 0.1, 0.1))
b = BODY(sol, 'FINITE_ELEMENT', msh, mat, label='b')
b.scheme = 'DEF_LIM'
b.fracturecheck = 'ON'
for x, v in ((0.0, -0.01), (1.0, 0.01)):
    for y in (0.0, 0.1):
        for z in (0.0, 0.1):
            SET_VELOCITY(b, (x, y, z), (1, 0, 0), v)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 1000), 0.01)
n = FRACTURE_EXPORT_YAFFEMS(b, 'out/fra/yaf')
json.dump([sol.mode, n], open('n_' + sol.mode + '.json', 'w'))
"""


def parse_vtk(text: str) -> dict:
    lines = text.split("\n")
    out = {"header": lines[:5], "vectors": {}}
    k = 0
    while k < len(lines):
        words = lines[k].split()
        if words and words[0] in ("POINTS", "CELLS", "CELL_TYPES", "POINT_DATA", "CELL_DATA"):
            out[words[0]] = [int(w) for w in words[1:] if w.isdigit()]
            count = int(words[1])
            if words[0] in ("POINTS", "CELLS", "CELL_TYPES"):
                out[words[0] + "_rows"] = [r.split() for r in lines[k + 1:k + 1 + count]]
                k += count
            data = words[0] if words[0] in ("POINT_DATA", "CELL_DATA") else None
            if data:
                size = count
        elif words and words[0] == "VECTORS":
            out["vectors"][words[1]] = np.array([[float(v) for v in r.split()] for r in lines[k + 1:k + 1 + size]])
            k += size
        k += 1
    return out


def test_yaffems_export_read_back(tmp_path):
    """fracturecheck records every step in which the internal energy of the stretched bar
    (E eps^2 / 2 per volume, eps = 2 v t / L) reaches fracene x volume; READ mode exports
    them: the tetrahedral mesh of the bar, one displacement field per record (the latest
    first; at the bar's nodes the recorded displacements, to the file's 6 decimals) and
    one face-pressure field per record (zero rows for the tetrahedra)."""
    import json

    from solfec_py.cli import main
    from conftest import write_deck

    deck = write_deck(tmp_path / "fra.py", YAFFEMS_DECK)
    assert main([deck]) == 0
    assert json.load(open(tmp_path / "n_WRITE.json")) == ["WRITE", 0]
    assert (tmp_path / "out/fra/yaf.vtk").read_text() == ""
    records = [json.loads(r) for r in open(tmp_path / "out/fra/fracture.jsonl")]
    assert 20 < len(records) < 80                         # eps >= 1e-4 from t ~ 0.005 s of 0.01 s
    assert main([deck]) == 0
    mode, n = json.load(open(tmp_path / "n_READ.json"))
    assert mode == "READ" and n == len(records)
    vtk = parse_vtk((tmp_path / "out/fra/yaf.vtk").read_text())
    assert vtk["header"] == ["# vtk DataFile Version 2.0", "Test Title", "ASCII", "", "DATASET UNSTRUCTURED_GRID"]
    npts = vtk["POINTS"][0]
    X = np.array(vtk["POINTS_rows"], dtype=float)
    types = [int(r[0]) for r in vtk["CELL_TYPES_rows"]]
    ne, nf = types.count(10), types.count(5)
    assert vtk["CELLS"] == [ne + nf, 5 * ne + 4 * nf] and types == [10] * ne + [5] * nf
    assert abs(sum(abs(np.linalg.det(X[[int(i) for i in r[2:5]]] - X[int(r[1])])) / 6
                   for r in vtk["CELLS_rows"][:ne]) - 0.01) < 1e-5             # the bar's volume
    assert sorted(vtk["vectors"]) == sorted([f"disp{m + 1}" for m in range(n)] + [f"pres{m}" for m in range(n)])
    latest = np.array(records[-1]["disp"]).reshape(-1, 3)
    nodes = np.array([[x, y, z] for z in (0, 0.1) for y in (0, 0.1) for x in (0, 0.5, 1.0)])
    d1 = vtk["vectors"]["disp1"]
    assert d1.shape == (npts, 3)
    for p in nodes:
        k = int(np.argmin(np.linalg.norm(X - p, axis=1)))
        assert np.linalg.norm(X[k] - p) < 1e-6
        j = int(np.argmin(np.linalg.norm(np.array([[x, y, z] for x, y, z in _hex_nodes()]) - p, axis=1)))
        assert np.allclose(d1[k], latest[j], atol=1e-6)
    pres = vtk["vectors"]["pres0"]
    assert pres.shape == (ne + nf, 3) and not pres[:ne].any() and pres[ne:].any()


def _hex_nodes():
    """Nodes of HEX(nodes, 2, 1, 1, ...) scaled to 1 x 0.1 x 0.1, in HEX's order."""
    from solfec_py.api import NAMES

    msh = NAMES["HEX"](NODES, 2, 1, 1, 1, [1] * 6)
    NAMES["SCALE"](msh, (1.0, 0.1, 0.1))
    return msh._current_prims()[0].ref.tolist()


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


def test_topoadj_crack_inside_a_ring_leaves_one_body_with_self_contact(api):
    """A ring cut by the plane x = 0.05 has two sections; topoadj='ON' at a point of the
    one at y > 0 opens only that one: one body (mass unchanged) carrying both new surface
    ids, with self-contact on (Solfec's half-crack)."""
    from solfec_py.api.fracture_split import split_by_crack

    sol = api.SOLFEC("DYNAMIC", 1e-4, "out/ring")
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e6, poisson=0.3, density=1000.0)
    ring = api.BODY(sol, "FINITE_ELEMENT", api.PIPE((0, 0, 0), (0, 0, 1), 1.0, 0.5, 1, 12, 1, 1, [1] * 4), mat,
                    label="ring")
    api.SIMPLIFIED_CRACK(ring, (0.05, 1.25, 0.5), (1, 0, 0), (5, 6), "TENSILE", topoadj="ON")
    mass = ring.mass
    new = split_by_crack(ring, ring._cracks[0])
    assert len(new) == 1 and new[0].label == "ring/1" and new[0].selfcontact == "ON"
    assert abs(new[0].mass - mass) < 1e-9 * mass
    mesh = new[0].block.records[new[0].row].mesh
    sids = mesh.boundary_faces()[2]
    assert set(sids.tolist()) == {1, 5, 6}
    with pytest.raises(InputError, match="does not belong"):
        api.SIMPLIFIED_CRACK(new[0], (0.0, 0.0, 0.5), (1, 0, 0), (5, 6), "TENSILE", topoadj="ON")


BOX_FACES = [4, 0, 1, 5, 4, 3, 4, 1, 2, 6, 5, 3, 4, 2, 3, 7, 6, 3, 4, 3, 0, 4, 7, 3, 4, 0, 3, 2, 1, 3, 4, 4, 5, 6, 7, 3]
BOX_VERTICES = [1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1]


def test_body_on_a_background_mesh_splits_shape_and_mesh(api):
    """Two touching CONVEX boxes [0, 0.5] and [0.5, 1] carried by a 4x1x1 background mesh,
    cracked at x = 0.5: each fragment keeps one box (CONVEX shape) and the half of the mesh
    under it; momenta sum to the whole's (the nodes keep their velocities)."""
    from solfec_py.api.fracture_split import split_by_crack

    sol = api.SOLFEC("DYNAMIC", 1e-4, "out/bg")
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e6, poisson=0.0, density=RHO)
    boxes = []
    for x0 in (0.0, 0.5):
        c = api.CONVEX(BOX_VERTICES, BOX_FACES, 1)
        api.SCALE(c, (0.5, A, A))
        api.TRANSLATE(c, (x0, 0, 0))
        boxes.append(c)
    msh = api.HEX(NODES, 4, 1, 1, 1, [1] * 6)
    api.SCALE(msh, (L, A, A))
    body = api.BODY(sol, "FINITE_ELEMENT", boxes, mat, mesh=msh, label="bg")
    api.SIMPLIFIED_CRACK(body, (0.5, 0.05, 0.05), (1, 0, 0), (7, 8), "TENSILE")
    api.INITIAL_VELOCITY(body, (0.1, 0.0, 0.0), (0.0, 0.0, 1.0))
    whole = momentum(body)
    parts = split_by_crack(body, body._cracks[0])
    assert [b.label for b in parts] == ["bg/1", "bg/2"]
    for b, (lo, hi) in zip(parts, ((0.0, 0.5), (0.5, 1.0))):
        assert len(b.shape) == 1
        X = b.block.records[b.row].mesh.ref
        assert np.isclose(X[:, 0].min(), lo) and np.isclose(X[:, 0].max(), hi)
        assert abs(b.mass - RHO * 0.5 * A * A) < 1e-12
    assert np.allclose(sum(momentum(b) for b in parts), whole, rtol=1e-12)


def test_pseudo_rigid_convex_collection_splits_into_touching_groups(api):
    """Four touching CONVEX boxes along x (a PSEUDO_RIGID body) cracked along the plane
    between the second and the third: two fragments of two boxes each (pieces are joined
    where they touch, Solfec's convex adjacency), masses 2 x 2 boxes; the later crack at
    x = 0.25 stays with the first fragment only."""
    from solfec_py.api.fracture_split import _propagate_prb

    sol = api.SOLFEC("DYNAMIC", 1e-4, "out/cvx")
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e6, poisson=0.0, density=RHO)
    boxes = []
    for k in range(4):
        c = api.CONVEX(BOX_VERTICES, BOX_FACES, 1)
        api.SCALE(c, (0.25, A, A))
        api.TRANSLATE(c, (0.25 * k, 0, 0))
        boxes.append(c)
    b = api.BODY(sol, "PSEUDO_RIGID", boxes, mat, label="c")
    api.SIMPLIFIED_CRACK(b, (0.25, 0.05, 0.05), (1, 0, 0), (7, 8), "TENSILE", ft=1e9)
    api.SIMPLIFIED_CRACK(b, (0.5, 0.05, 0.05), (1, 0, 0), (7, 8), "TENSILE", ft=0.0)
    conf = list(b.conf)
    conf[0] = 1.001
    b.conf = tuple(conf)
    _propagate_prb([b])
    parts = sorted(sol.bodies, key=lambda x: x.label)
    assert [x.label for x in parts] == ["c/1", "c/2"]
    assert [len(x.shape) for x in parts] == [2, 2]
    assert all(abs(x.mass - 2 * RHO * 0.25 * A * A) < 1e-12 for x in parts)
    assert [len(getattr(x, "_cracks", [])) for x in parts] == [1, 0]
