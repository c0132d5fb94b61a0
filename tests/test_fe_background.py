"""FINITE_ELEMENT bodies whose CONVEX shape is carried by a background mesh (BODY ``mesh=``)
against independent references: the same body meshed directly (a coincident background
mesh must change nothing: equal states to round-off), exact reproduction of affine nodal
displacement fields by HEX8 and TET4 interpolation (isoparametric elements reproduce
x = A X + c; tolerance 1e-12 relative), Galilean free fall before an impact (v = -g t, kinetic
energy m (g t)^2 / 2 with the shape's mass m, not the mesh's), and the argument errors.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from solfec_py.errors import InputError, InputTypeError

_RUNS = itertools.count()
CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def scaled(lo, hi):
    """The 8 corners of the box [lo, hi] in HEX order."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return (lo + np.asarray(CUBE, float).reshape(8, 3) * (hi - lo)).ravel().tolist()


def model(api, step=1e-4):
    sol = api.SOLFEC("DYNAMIC", step, f"out/bg{next(_RUNS)}")
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1000.0)
    return sol, mat


def vertices(body):
    """Current vertices of the body's convices (through the body block)."""
    return np.concatenate([p.cur for p in body.block.current_primitives(body.row)])


def test_coincident_background_mesh_is_the_plain_fe_body(api):
    runs = []
    for embedded in (False, True):
        sol, mat = model(api)
        box = scaled((0, 0, 0), (2, 1, 1))
        mesh = api.HEX(box, 2, 2, 2, 1, [1, 2, 3, 4, 5, 6])
        if embedded:
            body = api.BODY(sol, "FINITE_ELEMENT", api.HULL(box, 1, 1), mat, mesh=mesh)
        else:
            body = api.BODY(sol, "FINITE_ELEMENT", mesh, mat)
        api.INITIAL_VELOCITY(body, (0.1, 0, 0), (1.0, 2.0, 3.0))
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.05)
        runs.append((body, np.array(body.conf), np.array(body.velo)))
    (plain, q0, u0), (carried, q1, u1) = runs
    assert carried.mass == pytest.approx(plain.mass, rel=1e-12)
    assert len(q1) == len(q0) == 27 * 3
    assert np.abs(q1 - q0).max() <= 1e-12 * np.abs(q0).max()
    assert np.abs(u1 - u0).max() <= 1e-12 * np.abs(u0).max()
    assert np.abs(q0).max() > 1e-2                      # it moved and turned
    # the hull's corners follow the nodes at the corners of the mesh
    corners = np.array(scaled((0, 0, 0), (2, 1, 1))).reshape(8, 3)
    x = vertices(carried)
    want = corners + np.array([api.DISPLACEMENT(plain, tuple(c)) for c in corners])
    for p in want:
        assert np.linalg.norm(x - p, axis=1).min() < 1e-12


def _tet_mesh(api, nodes):
    """A cube of 5 TET4 (Solfec element lists: 4, nodes, volume id)."""
    tets = [(0, 1, 3, 4), (1, 2, 3, 6), (1, 3, 4, 6), (1, 4, 5, 6), (3, 4, 6, 7)]
    X = np.asarray(nodes).reshape(8, 3)
    elements = []
    for t in tets:
        a, b, c, d = X[list(t)]
        t = t if np.dot(np.cross(b - a, c - a), d - a) > 0 else (t[0], t[2], t[1], t[3])
        elements += [4, *t, 1]
    return api.MESH(list(nodes), elements, 1)


@pytest.mark.parametrize("kind", ["HEX8", "TET4"])
def test_vertices_follow_an_affine_field_exactly(api, kind):
    sol, mat = model(api)
    rng = np.random.default_rng(3)
    if kind == "HEX8":
        corners = np.array(scaled((0, 0, 0), (1, 1, 1))).reshape(8, 3)
        corners += 0.08 * rng.uniform(-1, 1, corners.shape)                # a distorted block
        mesh = api.HEX(corners.ravel().tolist(), 2, 2, 2, 1, [1] * 6)
    else:
        mesh = _tet_mesh(api, scaled((0, 0, 0), (1, 1, 1)))
    shape = [api.HULL(scaled((0.1, 0.15, 0.2), (0.45, 0.9, 0.5)), 1, 1),
             api.HULL(scaled((0.45, 0.15, 0.2), (0.8, 0.9, 0.85)), 1, 1)]
    body = api.BODY(sol, "FINITE_ELEMENT", shape, mat, mesh=mesh)
    X = np.array([body.mesh.node(n) for n in range(body.mesh.nnod)])      # still the reference
    A = np.eye(3) + 0.2 * rng.standard_normal((3, 3))
    c = rng.standard_normal(3)
    body.conf = tuple((X @ A.T + c - X).ravel().tolist())
    ref = np.concatenate([p.ref for p in body.block.current_primitives(body.row)])
    assert np.abs(vertices(body) - (ref @ A.T + c)).max() < 1e-12
    for p in ([0.3, 0.5, 0.3], [0.7, 0.2, 0.8], [0.45, 0.15, 0.2]):
        d = np.array(api.DISPLACEMENT(body, tuple(p)))
        assert np.abs(d - ((A - np.eye(3)) @ p + c)).max() < 1e-12


def test_block_in_a_larger_mesh_falls_with_the_shape_mass_then_lands(api):
    g, h = 10.0, 1e-4
    sol, mat = model(api, h)
    api.SURFACE_MATERIAL(sol, model="SIGNORINI_COULOMB", friction=0.3)
    api.GRAVITY(sol, (0, 0, -g))
    api.BODY(sol, "OBSTACLE", api.HULL(scaled((-1, -1, -0.2), (2, 2, 0)), 1, 1), mat)
    # a 0.6 x 0.5 x 0.3 block at z = 0.05 in a 2 x 2 x 2 mesh of [-0.1, 0.9] x [-0.1, 0.8] x [0, 0.5]
    # four convex pieces (2 x 2 in plan): a contact point each on the floor (one per convex pair)
    block = [api.HULL(scaled((x0, y0, 0.05), (x0 + 0.3, y0 + 0.25, 0.35)), 1, 1)
             for x0 in (0.1, 0.4) for y0 in (0.1, 0.35)]
    mesh = api.HEX(scaled((-0.1, -0.1, 0.0), (0.9, 0.8, 0.5)), 2, 2, 2, 1, [1] * 6)
    body = api.BODY(sol, "FINITE_ELEMENT", block, mat, mesh=mesh)
    m = 1000.0 * 0.6 * 0.5 * 0.3
    assert body.mass == pytest.approx(m, rel=1e-12)
    t = 0.05                                            # the block's bottom is 1.25 cm lower, no contact yet
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), t)
    v = np.array(body.velo).reshape(-1, 3)
    assert np.abs(v[:, 2] + g * t).max() < 1e-9 * g * t
    assert np.abs(v[:, :2]).max() < 1e-12
    kinetic = api.ENERGY(sol, body)[0]
    assert kinetic == pytest.approx(0.5 * m * (g * t) ** 2, rel=1e-9)
    blk = body.block                                    # momentum: the lumped masses add up to m
    sl = blk.nodes_of(body.row)
    assert blk.prepared().mass[sl].sum() == pytest.approx(m, rel=1e-9)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.15)    # lands at t = 0.1 and stays
    x = vertices(body)
    # on the floor, not through it (free fall would put the bottom at -0.15; the pieces' corners
    # between the contact points may sink a little) and no faster than it landed
    assert -1e-2 < x[:, 2].min() < 4e-2
    ref = np.concatenate([p.ref for p in body.block.current_primitives(body.row)])
    v = np.array([api.VELOCITY(body, tuple(p)) for p in ref])
    assert np.abs(v[:, 2]).max() < g * 0.1


def test_errors_name_the_argument(api):
    sol, mat = model(api)
    box = scaled((0, 0, 0), (1, 1, 1))
    with pytest.raises(InputTypeError, match="'mesh'"):
        api.BODY(sol, "FINITE_ELEMENT", api.HULL(box, 1, 1), mat, mesh=api.HULL(box, 1, 1))
    with pytest.raises(InputTypeError, match="'shape'"):
        api.BODY(sol, "FINITE_ELEMENT", api.HEX(box, 1, 1, 1, 1, [1] * 6), mat,
                 mesh=api.HEX(box, 1, 1, 1, 1, [1] * 6))
    with pytest.raises(InputTypeError, match="'mesh'"):
        api.BODY(sol, "RIGID", api.HULL(box, 1, 1), mat, mesh=[1, 2])
    with pytest.raises(InputError, match="'mesh'"):          # the mesh misses the shape
        api.BODY(sol, "FINITE_ELEMENT", api.HULL(box, 1, 1), mat,
                 mesh=api.HEX(scaled((5, 5, 5), (6, 6, 6)), 1, 1, 1, 1, [1] * 6))
    mesh = api.HEX(box, 1, 1, 1, 1, [1] * 6)
    rigid = api.BODY(sol, "RIGID", api.HULL(box, 1, 1), mat, mesh=mesh)       # ignored by other kinds
    assert rigid.mass == pytest.approx(1000.0)
    assert mesh.nnod == 8                               # and not emptied
    carried = api.BODY(sol, "FINITE_ELEMENT", api.HULL(box, 1, 1), mat, mesh=mesh)
    assert len(carried.conf) == 24
    with pytest.raises(Exception, match="empt"):        # the background mesh now belongs to the body
        mesh.nnod


READ_DECK = """\
import json
sol = SOLFEC('DYNAMIC', 1E-4, 'out/bg')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, young=1E6, poisson=0.3, density=1000.0)
def box(x0, y0, z0, x1, y1, z1):
    return [x0,y0,z0, x1,y0,z0, x1,y1,z0, x0,y1,z0, x0,y0,z1, x1,y0,z1, x1,y1,z1, x0,y1,z1]
pieces = [HULL(box(0, 0, 0, 0.5, 1, 0.5), 1, 1), HULL(box(0.5, 0, 0, 1.2, 1, 0.5), 1, 1)]
a = BODY(sol, 'FINITE_ELEMENT', pieces, mat, form='BC', mesh=ROUGH_HEX(pieces, 2, 2, 2), label='a')
a.scheme = 'DEF_LIM'
INITIAL_VELOCITY(a, (0.1, 0, 0.5), (1.0, -0.5, 2.0))
FORCE(a, 'SPATIAL', (1.1, 0.9, 0.4), (1, 1, 0), 300.0)
OUTPUT(sol, 0.002)
P = (0.7, 0.3, 0.2)
rec = []
def record():
    rec.append([sol.time] + list(DISPLACEMENT(a, P)) + list(VELOCITY(a, P)) + list(STRESS(a, P)))
    return 1
record()
CALLBACK(sol, 5E-5, (), record)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 1000), 0.01)
if sol.mode == 'WRITE':
    json.dump(rec, open('rec.json', 'w'))
else:
    items = [(a, P, e) for e in ('DX', 'DY', 'DZ', 'VX', 'VY', 'VZ', 'SX', 'SY', 'SZ', 'SXY', 'SXZ', 'SYZ', 'MISES')]
    json.dump(HISTORY(sol, items, 0, 0.01), open('hist.json', 'w'))
"""


def test_results_of_a_carried_body_read_back(tmp_path):
    """READ-mode HISTORY of a point of a ROUGH_HEX-carried body (BC, DEF_LIM) equals what the
    run computed at the frame times (1e-12 relative), and the ParaView files show the convices."""
    import json

    from solfec_py.cli import main

    from conftest import write_deck

    deck = write_deck(tmp_path / "bg.py", READ_DECK)
    assert main([deck]) == 0
    assert main([deck]) == 0
    rec = np.array(json.load(open(tmp_path / "rec.json")))
    hist = np.array(json.load(open(tmp_path / "hist.json")))
    live = rec[np.isin(rec[:, 0], hist[0])]
    assert live.shape[0] == hist.shape[1] >= 4
    np.testing.assert_allclose(hist[1:].T, live[:, 1:], rtol=1e-12, atol=1e-12 * np.abs(live).max())
    assert np.abs(live[:, 7:14]).max() > 1.0            # stressed: not a zero check
    assert list((tmp_path / "out" / "bg").glob("*.xmf"))
    import h5py

    with h5py.File(tmp_path / "out" / "bg" / "bg_xdmf.h5", "r") as f:      # the convices' surfaces
        assert f["frames/0/points"].shape == (16, 3)                      # two hulls of 8 vertices
        assert np.abs(f["frames/1/DISP"][:]).max() > 0


def test_cut_elements_integrate_over_the_shape(api):
    """Partly filled elements integrate over their pieces: the lumped masses have the shape's
    mass and centre (row-sum lumping and one point per tetrahedron integrate 1 and X
    exactly), and a homogeneous stretch F of the mesh stores the Saint Venant-Kirchhoff energy
    W(F) times the shape's volume, not the mesh's (1e-12 relative)."""
    sol, mat = model(api)
    shape = [api.HULL(scaled((0.1, 0.15, 0.2), (0.45, 0.9, 0.5)), 1, 1),
             api.HULL([0.45, 0.15, 0.2, 0.8, 0.15, 0.2, 0.8, 0.9, 0.2, 0.45, 0.9, 0.2, 0.6, 0.5, 0.85], 1, 1)]
    mesh = api.HEX(scaled((0, 0, 0), (1, 1, 1)), 3, 2, 2, 1, [1] * 6)
    body = api.BODY(sol, "FINITE_ELEMENT", shape, mat, mesh=mesh)
    blk = body.block
    sl = blk.nodes_of(body.row)
    m = blk.prepared().mass[sl]
    assert m.sum() == pytest.approx(body.mass, rel=1e-12)
    np.testing.assert_allclose((m[:, None] * blk.X[sl]).sum(axis=0) / m.sum(), body.center, rtol=1e-12)
    F = np.array([[1.02, 0.01, 0.0], [0.0, 0.99, 0.02], [0.01, 0.0, 1.03]])
    X = blk.X[sl]
    body.conf = tuple((X @ F.T - X).ravel().tolist())
    E = 0.5 * (F.T @ F - np.eye(3))
    young, nu = 1e7, 0.25
    lam, mu = young * nu / ((1 + nu) * (1 - 2 * nu)), young / (2 * (1 + nu))
    W = 0.5 * lam * np.trace(E) ** 2 + mu * np.trace(E @ E)
    assert api.ENERGY(sol, body)[4] == pytest.approx(W * body.volume, rel=1e-12)


def test_vertices_off_the_mesh_go_to_the_nearest_element(api, capsys):
    """A shape sticking out of its mesh by 3e-4 (Solfec's 0.1 % volume tolerance holds): the
    outside vertices take the nearest element and move with the displacement at its nearest
    point (reference coordinates clamped, as Solfec's fem.c), so a translation moves them
    exactly and an affine field within |grad u| times the overhang; a shape half out of the
    mesh is warned about."""
    sol, mat = model(api)
    mesh = api.HEX(scaled((0, 0, 0), (1, 1, 1)), 2, 2, 2, 1, [1] * 6)
    body = api.BODY(sol, "FINITE_ELEMENT", api.HULL(scaled((0.2, 0.2, 0.2), (1.0003, 0.8, 0.8)), 1, 1),
                    mat, mesh=mesh)
    assert "WARNING" not in capsys.readouterr().err
    X = np.array([body.mesh.node(n) for n in range(body.mesh.nnod)])
    ref = np.concatenate([p.ref for p in body.block.current_primitives(body.row)])
    c = np.array([0.3, -0.2, 0.1])
    body.conf = tuple(np.tile(c, X.shape[0]).tolist())
    assert np.abs(vertices(body) - (ref + c)).max() < 1e-14
    G = np.array([[0.01, 0.02, 0.0], [0.0, -0.01, 0.03], [0.02, 0.0, 0.01]])
    body.conf = tuple((X @ G.T).ravel().tolist())
    err = np.abs(vertices(body) - (ref + ref @ G.T)).max(axis=1)
    outside = ref[:, 0] > 1.0
    assert outside.sum() == 4 and err[~outside].max() < 1e-14
    assert err[outside].max() == pytest.approx(0.02 * 3e-4, rel=1e-6)        # G[:, 0] times the overhang
    api.BODY(sol, "FINITE_ELEMENT", api.HULL(scaled((0.5, 0.2, 0.2), (1.5, 0.8, 0.8)), 1, 1), mat,
             mesh=api.HEX(scaled((0, 0, 0), (1, 1, 1)), 2, 2, 2, 1, [1] * 6))
    assert "the mesh should contain the whole shape" in capsys.readouterr().err


def test_modal_analysis_of_a_coincident_carried_body(api, tmp_path):
    """MODAL_ANALYSIS of a HULL in a coincident mesh has the meshed body's frequencies
    (the same mass and stiffness: 1e-9 relative), and its base drives a BC-MODAL body."""
    out = []
    for k, embedded in enumerate((False, True)):
        sol, mat = model(api)
        box = scaled((0, 0, 0), (2, 1, 1))
        mesh = api.HEX(box, 2, 2, 2, 1, [1] * 6)
        shape = api.HULL(box, 1, 1) if embedded else mesh
        body = api.BODY(sol, "FINITE_ELEMENT", shape, mat, mesh=mesh) if embedded else \
            api.BODY(sol, "FINITE_ELEMENT", shape, mat)
        vals, vecs = api.MODAL_ANALYSIS(body, 12, str(tmp_path / f"modes{k}.h5"))
        out.append(np.array(vals))
    np.testing.assert_allclose(out[1][6:], out[0][6:], rtol=1e-9)
    assert out[1][6] > 1.0
    box = scaled((3, 0, 0), (5, 1, 1))
    reduced = api.BODY(sol, "FINITE_ELEMENT", api.HULL(box, 1, 1), mat, form="BC-MODAL", base=(vals, vecs),
                       mesh=api.HEX(box, 2, 2, 2, 1, [1] * 6))
    api.INITIAL_VELOCITY(reduced, (0, 0, 0), (0, 0, 1.0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.01)
    assert np.isfinite(reduced.conf).all() and np.abs(reduced.conf).max() > 0


def test_landing_of_element_pieces_in_their_own_mesh_is_the_meshed_body_landing(api):
    """Contact through the background mesh: the elements of a mesh as CONVEX pieces
    (MESH2CONVEX) carried by that mesh land on a floor as the meshed body does (the same
    contact points, each mapped to its element: H and the Delassus blocks agree; states
    equal to 1e-9 of the motion after the landing)."""
    runs = []
    for embedded in (False, True):
        sol, mat = model(api, 1e-4)
        api.SURFACE_MATERIAL(sol, model="SIGNORINI_COULOMB", friction=0.3)
        api.GRAVITY(sol, (0, 0, -10.0))
        api.BODY(sol, "OBSTACLE", api.HULL(scaled((-1, -1, -0.2), (2, 2, 0)), 1, 1), mat)
        box = scaled((0, 0, 0.02), (0.6, 0.4, 0.32))
        mesh = api.HEX(box, 2, 2, 2, 1, [1] * 6)
        if embedded:
            body = api.BODY(sol, "FINITE_ELEMENT", api.MESH2CONVEX(api.HEX(box, 2, 2, 2, 1, [1] * 6)), mat,
                            mesh=mesh)
        else:
            body = api.BODY(sol, "FINITE_ELEMENT", mesh, mat)
        api.INITIAL_VELOCITY(body, (0.2, 0, 0), (0, 0, 0.5))
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.12)
        runs.append((np.array(body.conf), np.array(body.velo)))
    (q0, u0), (q1, u1) = runs
    assert u0[2::3].mean() > -0.9                         # landed at t = 0.063 (free fall: -1.2 by now)
    assert np.abs(q1 - q0).max() <= 1e-9 * np.abs(q0).max()
    assert np.abs(u1 - u0).max() <= 1e-9 * np.abs(u0).max()
