"""Mesh topology, element tables, the HEX and PIPE generators (Solfec-1.0 user manual, MESH, HEX, PIPE;
docs/fem.md) against counts and coordinates worked out by hand.

Exact integer comparisons for topology; coordinates at 1e-12 (a few flops of round-off on
O(1) values); the PIPE volume against the exact polygonal-annulus prism and against the
circular pipe within the faceting error derived in the test.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from solfec_py.geometry import mesh_tables
from solfec_py.geometry.hexgen import hex_mesh, pipe_mesh
from solfec_py.geometry.massprops import mass_properties, polyhedral_integrals
from solfec_py.geometry.mesh import Mesh

UNIT = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
REF_NODES = {
    4: np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float),
    5: np.array([[1, 1, 0], [-1, 1, 0], [-1, -1, 0], [1, -1, 0], [0, 0, 1]], float),
    6: np.array([[0, 0, -1], [1, 0, -1], [0, 1, -1], [0, 0, 1], [1, 0, 1], [0, 1, 1]], float),
    8: UNIT * 2 - 1,
}
REF_VOLUME = {4: 1 / 6, 5: 4 / 3, 6: 1.0, 8: 8.0}   # tet, pyramid on [-1,1]^2 of height 1, wedge, cube


# ---------------------------------------------------------------------- element tables

@pytest.mark.parametrize("etype", mesh_tables.ETYPES)
def test_shape_functions_are_interpolating_partition_of_unity(etype):
    N = mesh_tables.shape_functions(etype, REF_NODES[etype])
    np.testing.assert_allclose(N, np.eye(etype), atol=1e-14)           # N_k(node_j) = delta_kj
    rng = np.random.default_rng(etype)
    xi = rng.uniform(0.05, 0.3, (20, 3))
    np.testing.assert_allclose(mesh_tables.shape_functions(etype, xi).sum(axis=1), 1.0, atol=1e-14)
    # linear completeness: sum_k N_k(xi) X_k = xi for the reference nodes
    np.testing.assert_allclose(mesh_tables.shape_functions(etype, xi) @ REF_NODES[etype], xi, atol=1e-14)


@pytest.mark.parametrize("etype", mesh_tables.ETYPES)
def test_face_table_is_closed_and_outward(etype):
    # the fan triangles of the faces enclose the reference element with positive volume
    tri = REF_NODES[etype][mesh_tables.TRI_TABLE[etype]]
    vol, _, _ = polyhedral_integrals(tri, np.zeros(3))
    assert vol == pytest.approx(REF_VOLUME[etype], rel=1e-14)
    # every edge of the face polygons is used twice, once in each direction
    edges = [(f[a], f[(a + 1) % len(f)]) for f in mesh_tables.FACES[etype] for a in range(len(f))]
    assert sorted(edges) == sorted((b, a) for a, b in edges)


# ---------------------------------------------------------------------- mixed meshes

def cube_as_three_pyramids():
    """Unit cube = three square pyramids with the apex at node 6 = (1,1,1), bases on the
    faces x=0, y=0, z=0 (each base listed counter-clockwise seen from the apex)."""
    elements = [(0, 3, 7, 4, 6), (0, 4, 5, 1, 6), (0, 1, 2, 3, 6)]
    return Mesh(UNIT, [5, 5, 5], elements, [1, 2, 3], gid=9)


def cube_as_six_tetrahedra():
    """Kuhn triangulation: tets (0, e_a, e_a + e_b, 1,1,1), oriented positively."""
    code = {tuple(p): k for k, p in enumerate(UNIT.astype(int).tolist())}
    tets = []
    for perm in itertools.permutations(range(3)):
        p = np.zeros(3, int)
        chain = [code[tuple(p)]]
        for axis in perm:
            p[axis] = 1
            chain.append(code[tuple(p)])
        a, b, c, d = UNIT[chain]
        if np.dot(np.cross(b - a, c - a), d - a) < 0:
            chain[1], chain[2] = chain[2], chain[1]
        tets.append(chain)
    return Mesh(UNIT, [4] * 6, tets, 1)


def cube_as_two_wedges():
    # prisms over the triangles (0,1,2) and (0,2,3) of the bottom face
    return Mesh(UNIT, [6, 6], [(0, 1, 2, 4, 5, 6), (0, 2, 3, 4, 6, 7)], 4)


@pytest.mark.parametrize("make, nboundary, nshared", [
    (cube_as_three_pyramids, 3 + 6, 3),     # 3 squares + 6 outer triangles; 3 shared triangles
    (cube_as_six_tetrahedra, 12, 6),        # 2 triangles per cube face; 6 internal triangles
    (cube_as_two_wedges, 2 * 2 + 4, 1),     # 2 triangles on top and bottom + 4 sides; 1 shared diagonal quad
])
def test_mixed_meshes_of_the_unit_cube(make, nboundary, nshared):
    mesh = make()
    V, c, E = mass_properties([mesh])
    assert V == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(c, 0.5, atol=1e-12)
    np.testing.assert_allclose(E, np.eye(3) / 12, atol=1e-12)
    nodes, sizes, sids, owner = mesh.boundary_faces()
    assert len(sizes) == nboundary
    assert len(mesh.inter_element_faces()[1]) == nshared
    # the boundary is closed and outward: its divergence-theorem volume is the cube's
    pts, tri, _ = mesh.surface_triangles()
    assert polyhedral_integrals(pts[tri], np.zeros(3))[0] == pytest.approx(1.0, rel=1e-12)
    # every element of these meshes touches the boundary
    np.testing.assert_array_equal(mesh.surface_elements(), np.arange(mesh.nele))


def test_explicit_surface_ids_matched_by_node_set():
    # face x = 1 of the pyramid cube is the triangles (5,1,6) and (1,2,6) (apex 6); they are
    # listed in other node orders, plus a face that is not on the boundary (ignored)
    mesh = Mesh(UNIT, [5, 5, 5], [(0, 3, 7, 4, 6), (0, 4, 5, 1, 6), (0, 1, 2, 3, 6)], 1, gid=9,
                face_nodes=[(6, 5, 1), (2, 6, 1), (0, 6, 4)], face_sids=[3, 3, 8])
    np.testing.assert_array_equal(mesh.nodes_on_surface(3), [1, 2, 5, 6])
    np.testing.assert_array_equal(mesh.nodes_on_surface(9), np.arange(8))
    assert mesh.nodes_on_surface(4).size == 0 and mesh.nodes_on_surface(8).size == 0
    sids = mesh.face_surfids()
    assert (sids == -2147483647).sum() == 2 * 3       # 3 shared faces, seen from both elements


def test_meshes_of_equal_connectivity_share_one_topology():
    """Small meshes with the same element types and connectivity (copies of one shape in a
    scene) share one topology, read-only, equal to one derived on its own; their surface
    ids stay their own (the mesh's gid and listed faces, here those of
    test_explicit_surface_ids_matched_by_node_set), and moved nodes do not matter."""
    from solfec_py.geometry.mesh import _Topology

    elements = [(0, 3, 7, 4, 6), (0, 4, 5, 1, 6), (0, 1, 2, 3, 6)]
    a = Mesh(UNIT, [5, 5, 5], elements, 1, gid=9, face_nodes=[(6, 5, 1), (2, 6, 1)], face_sids=[3, 3])
    b = Mesh(UNIT + 2.0, [5, 5, 5], elements, 1, gid=7)
    c = cube_as_six_tetrahedra()
    assert a.topology is b.topology and c.topology is not a.topology
    own = _Topology(a.etype, a.conn)
    for name in ("elem", "local", "size", "nodes", "keys", "group", "count", "boundary", "pairs", "shared"):
        np.testing.assert_array_equal(getattr(a.topology, name), getattr(own, name))
        assert not getattr(a.topology, name).flags.writeable
    np.testing.assert_array_equal(a.nodes_on_surface(3), [1, 2, 5, 6])
    np.testing.assert_array_equal(b.nodes_on_surface(7), np.arange(8))
    assert b.nodes_on_surface(3).size == 0 and a.nodes_on_surface(7).size == 0
    a2 = Mesh(UNIT, [5, 5, 5], elements, 1, gid=9, face_nodes=[(6, 5, 1), (2, 6, 1)], face_sids=[3, 3])
    assert a2.boundary_faces()[2] is a.boundary_faces()[2]          # same ids: derived once


def test_element_polyhedra_carry_ids():
    mesh = cube_as_two_wedges()
    cvx = mesh.element_polyhedra()
    assert [c.nver for c in cvx] == [6, 6] and [c.volid for c in cvx] == [4, 4]
    assert sum(mass_properties([c])[0] for c in cvx) == pytest.approx(1.0, rel=1e-12)
    # one interior face per wedge
    assert [int((c.surfids == -2147483647).sum()) for c in cvx] == [1, 1]


# ---------------------------------------------------------------------- HEX generator

def test_hex_node_numbering_and_grading():
    i, j, k = 3, 2, 4
    dx, dz = [1, 2, 3], [4, 3, 2, 1]
    mesh = hex_mesh(UNIT * [6.0, 1.0, 10.0], i, j, k, 5, range(1, 7), dx=dx, dz=dz)
    assert mesh.nnod == (i + 1) * (j + 1) * (k + 1) and mesh.nele == i * j * k
    xs = 6.0 * np.concatenate([[0], np.cumsum(dx)]) / sum(dx)       # graded positions
    ys = np.linspace(0, 1, j + 1)
    zs = 10.0 * np.concatenate([[0], np.cumsum(dz)]) / sum(dz)
    for kk, jj, ii in itertools.product(range(k + 1), range(j + 1), range(i + 1)):
        n = kk * (i + 1) * (j + 1) + jj * (i + 1) + ii
        np.testing.assert_allclose(mesh.ref[n], [xs[ii], ys[jj], zs[kk]], atol=1e-12)
    # first element: the MESH hexahedron order on nodes (0,0,0)-(1,1,1) of the grid
    np.testing.assert_array_equal(mesh.conn[0], [0, 1, 5, 4, 12, 13, 17, 16])
    assert set(mesh.volids.tolist()) == {5}


def test_hex_surface_ids_map_to_block_faces():
    i, j, k = 2, 3, 4
    mesh = hex_mesh(UNIT * [2.0, 3.0, 4.0], i, j, k, 1, [10, 11, 12, 13, 14, 15])
    X = mesh.ref
    # surids: [z-, x-, y+, x+, y-, z+]
    for sid, (axis, value) in zip(range(10, 16), [(2, 0.0), (0, 0.0), (1, 3.0), (0, 2.0), (1, 0.0), (2, 4.0)]):
        nodes = mesh.nodes_on_surface(sid)
        expected = np.flatnonzero(np.isclose(X[:, axis], value))
        np.testing.assert_array_equal(nodes, expected)
    counts = np.bincount(mesh.boundary_faces()[2], minlength=16)[10:]
    np.testing.assert_array_equal(counts, [i * j, j * k, i * k, j * k, i * k, i * j])


def test_hex_orientation_flip_swaps_bottom_and_top():
    flipped = UNIT[[4, 5, 6, 7, 0, 1, 2, 3]]           # given upside down: negative orientation
    mesh = hex_mesh(flipped, 1, 1, 2, 1, [10, 11, 12, 13, 14, 15])
    assert mass_properties([mesh])[0] == pytest.approx(1.0, rel=1e-12)
    # after the swap, corner c0 is the original c4 = (0,0,0); so surids[0] is on z = 0
    np.testing.assert_allclose(mesh.ref[0], [0, 0, 0])
    assert np.allclose(mesh.ref[mesh.nodes_on_surface(10), 2], 0.0)
    assert np.allclose(mesh.ref[mesh.nodes_on_surface(15), 2], 1.0)


def test_hex_boundary_and_shared_face_counts():
    i, j, k = 3, 2, 4
    mesh = hex_mesh(UNIT, i, j, k, 1, range(6))
    assert len(mesh.boundary_faces()[1]) == 2 * (i * j + j * k + i * k)
    assert len(mesh.inter_element_faces()[1]) == (i - 1) * j * k + i * (j - 1) * k + i * j * (k - 1)
    # interior elements: (i-2)(j-2)(k-2) when positive; here j = 2 gives none
    assert mesh.surface_elements().size == i * j * k


def test_mesh_contains_only_surface_elements():
    mesh = hex_mesh(UNIT * 3.0, 3, 3, 3, 1, range(6))
    assert mesh.surface_elements().size == 26
    assert mesh.contains([0.5, 0.5, 0.5])            # corner element
    assert mesh.contains([3.0, 1.5, 1.5])            # on the boundary, within tolerance
    assert not mesh.contains([1.5, 1.5, 1.5])        # strictly inside the interior element
    assert not mesh.contains([3.1, 1.5, 1.5])


def test_rigid_motion_bounding_box_and_copy_independence():
    mesh = hex_mesh(UNIT, 2, 2, 2, 1, range(6))
    R = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])      # 90 deg about z
    copy = mesh.copy()
    mesh.set_rigid_motion(R, [10.0, 0.0, 0.0], [0.5, 0.5, 0.5])
    np.testing.assert_allclose(mesh.cur, 10.0 * np.eye(3)[0] + (mesh.ref - 0.5) @ R.T, atol=1e-14)
    lo, hi = mesh.bounding_box()
    np.testing.assert_allclose(lo, [9.5, -0.5, -0.5], atol=1e-14)
    np.testing.assert_allclose(hi, [10.5, 0.5, 0.5], atol=1e-14)
    np.testing.assert_allclose(copy.cur, copy.ref)                           # copy untouched
    copy.set_volid(7)
    assert set(mesh.volids.tolist()) == {1}


def test_integration_points():
    # HEX8 2x2x2 Gauss on the unit cube: coordinates 0.5 +- 0.5/sqrt(3); quads 2x2 likewise
    mesh = hex_mesh(UNIT, 1, 1, 1, 1, range(6))
    g = 0.5 / np.sqrt(3)
    pts = mesh.volume_points()
    expected = np.array([[0.5 + sx, 0.5 + sy, 0.5 + sz] for sz in (-g, g) for sy in (-g, g) for sx in (-g, g)])
    np.testing.assert_allclose(np.sort(pts, axis=0), np.sort(expected, axis=0), atol=1e-14)
    top = mesh.surface_points(5)
    np.testing.assert_allclose(np.sort(top[:, :2], axis=0),
                               np.sort([[0.5 + a, 0.5 + b] for a in (-g, g) for b in (-g, g)], axis=0), atol=1e-14)
    np.testing.assert_allclose(top[:, 2], 1.0)
    assert mesh.surface_points().shape == (24, 3) and mesh.volume_points(2).shape == (0, 3)
    # tetrahedra: 4 points per element, the affine images of the rule; triangle faces: centroids
    tets = cube_as_six_tetrahedra()
    assert tets.volume_points().shape == (24, 3) and tets.surface_points().shape == (12, 3)
    X = UNIT[tets.conn[0, :4]]
    np.testing.assert_allclose(tets.volume_points()[:4], mesh_tables.VOLUME_N[4] @ X, atol=1e-14)
    centroids = np.sort(tets.surface_points(), axis=0)
    nodes, _, _, _ = tets.boundary_faces()
    np.testing.assert_allclose(centroids, np.sort(UNIT[nodes[:, :3]].mean(axis=1), axis=0), atol=1e-14)


# ---------------------------------------------------------------------- PIPE generator

def test_pipe_counts_volume_and_surfaces():
    rin, thi, L, nrad, ndir, nthi = 1.0, 0.25, 3.0, 24, 5, 2
    direction = np.array([1.0, 2.0, 2.0]) * L / 3.0                # length L, oblique axis
    base = np.array([1.0, -1.0, 0.5])
    mesh = pipe_mesh(base, direction, rin, thi, ndir, nrad, nthi, 3, [1, 2, 3, 4])
    assert mesh.nnod == (ndir + 1) * nrad * (nthi + 1)
    assert mesh.nele == ndir * nrad * nthi
    V, c, _ = mass_properties([mesh])
    # each element is a prism over a planar trapezoid: the mesh is the polygonal annulus
    # prism with area (n/2) sin(2 pi/n) (ro^2 - ri^2) exactly
    ro = rin + thi
    exact_polygon = L * nrad / 2 * np.sin(2 * np.pi / nrad) * (ro ** 2 - rin ** 2)
    assert V == pytest.approx(exact_polygon, rel=1e-12)
    # faceting error against the circular pipe: 1 - sin(t)/t <= t^2/6, t = 2 pi / n
    circle = np.pi * (ro ** 2 - rin ** 2) * L
    t = 2 * np.pi / nrad
    assert 0 < 1 - V / circle <= t * t / 6
    np.testing.assert_allclose(c, base + direction / 2, atol=1e-12)
    axis = direction / L
    X = mesh.ref - base

    def radius(nodes):
        along = X[nodes] @ axis
        return np.linalg.norm(X[nodes] - np.outer(along, axis), axis=1), along

    r_in, _ = radius(mesh.nodes_on_surface(3))
    r_out, _ = radius(mesh.nodes_on_surface(4))
    _, z_bottom = radius(mesh.nodes_on_surface(1))
    _, z_top = radius(mesh.nodes_on_surface(2))
    np.testing.assert_allclose(r_in, rin, atol=1e-12)
    np.testing.assert_allclose(r_out, ro, atol=1e-12)
    np.testing.assert_allclose(z_bottom, 0.0, atol=1e-12)
    np.testing.assert_allclose(z_top, L, atol=1e-12)
    assert mesh.nodes_on_surface(3).size == (ndir + 1) * nrad
    assert mesh.nodes_on_surface(1).size == nrad * (nthi + 1)
