"""geometry.mesh_import and geometry.abaqus_inp: cell tables against VTK's and gmsh's own
reference elements, orientation fixing, quadratic cells, ids from tags / groups / sets, and
every refusal of a bad mesh. meshio meshes are built in memory (no files) except for the
Abaqus reader, which reads tests/data/cae_block.inp.

Tolerances: coordinates and volumes of these O(1) meshes at 1e-12 (a few flops of
round-off); integer data exactly.
"""
from __future__ import annotations

import os

import meshio
import numpy as np
import pytest

from mesh_samples import SIDES, VOLIDS, element_volumes_by_volid, mixed_block, surface_points
from solfec_py.errors import InputError
from solfec_py.geometry import mesh_tables
from solfec_py.geometry.abaqus_inp import InpError, cell_type, read_inp
from solfec_py.geometry.mesh_export import to_meshio
from solfec_py.geometry.mesh_import import FLIPS, PERMUTATION, VOLUME_CELLS, from_meshio, signed_volumes

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
VTK_CELLS = {"tetra": "vtkTetra", "pyramid": "vtkPyramid", "wedge": "vtkWedge", "hexahedron": "vtkHexahedron",
             "tetra10": "vtkQuadraticTetra", "wedge15": "vtkQuadraticWedge",
             "hexahedron20": "vtkQuadraticHexahedron"}
GMSH_TYPES = {"tetra": 4, "hexahedron": 5, "wedge": 6, "pyramid": 7, "tetra10": 11, "hexahedron20": 17,
              "wedge15": 18}


def check_reference_element(name: str, X: np.ndarray) -> None:
    """Nodes X of a reference element in meshio's order: solfec's face table sees it
    positively oriented, mid-edge nodes sit at the midpoints of mesh_tables.EDGES."""
    k = VOLUME_CELLS[name]
    conn = np.full((1, 8), -1)
    conn[0, :k] = PERMUTATION[name][:k]
    assert signed_volumes(X, np.array([k]), conn)[0] > 0
    if name in mesh_tables.QUADRATIC:
        for e, (a, b) in enumerate(mesh_tables.EDGES[k]):
            np.testing.assert_allclose(X[k + e], (X[a] + X[b]) / 2, atol=1e-12)
    flipped = X[FLIPS[name]]                                   # the flip reverses the orientation ...
    conn[0, :k] = np.arange(k)
    assert signed_volumes(flipped, np.array([k]), conn)[0] < 0
    if name in mesh_tables.QUADRATIC:                                    # ... and mid-edge nodes follow their edges
        for e, (a, b) in enumerate(mesh_tables.EDGES[k]):
            np.testing.assert_allclose(flipped[k + e], (flipped[a] + flipped[b]) / 2, atol=1e-12)


@pytest.mark.parametrize("name", sorted(VOLUME_CELLS))
def test_cell_tables_against_vtk_reference_elements(name):
    """VTK's parametric node coordinates, mapped to space by the linear cell's own
    interpolation functions (the pyramid's apex is collapsed in parametric space: its
    corners are placed at the parametric ones with the apex over the base centre)."""
    vtk = pytest.importorskip("vtk")
    cell = getattr(vtk, VTK_CELLS[name])()
    linear = getattr(vtk, VTK_CELLS[name.rstrip("0123456789")])()
    pc = cell.GetParametricCoords()
    P = np.array([pc[i] for i in range(3 * cell.GetNumberOfPoints())]).reshape(-1, 3)
    k = VOLUME_CELLS[name]
    corners = P[:k].copy()
    if k == 5:
        corners[4] = [0.5, 0.5, 1.0]
    weights = np.zeros(k)
    X = []
    for p in P:
        linear.InterpolationFunctions(p.tolist(), weights)
        X.append(weights @ corners)
    check_reference_element(name, np.array(X))


@pytest.mark.parametrize("name", sorted(VOLUME_CELLS))
def test_cell_tables_against_gmsh_reference_elements(name):
    gmsh = pytest.importorskip("gmsh", reason="gmsh (the [mesh] extra) is not installed")
    from meshio.gmsh.common import _gmsh_to_meshio_order

    gmsh.initialize(interruptible=False)
    try:
        local = np.array(gmsh.model.mesh.getElementProperties(GMSH_TYPES[name])[4]).reshape(-1, 3)
    finally:
        gmsh.finalize()
    order = _gmsh_to_meshio_order(name, np.arange(local.shape[0])[None, :])[0]
    check_reference_element(name, local[order])


# ---------------------------------------------------------------------- from_meshio

def test_mixed_block_through_meshio_in_memory():
    block = mixed_block()
    notes = []
    mesh = from_meshio(to_meshio(block), notes=notes)
    assert (mesh.nele, mesh.nnod) == (19, 20) and notes == []
    volumes = signed_volumes(mesh.ref, mesh.etype, mesh.conn)
    assert volumes.min() > 0 and volumes.sum() == pytest.approx(4.0, abs=1e-12)
    assert element_volumes_by_volid(mesh) == pytest.approx(element_volumes_by_volid(block), abs=1e-12)
    assert {int(v): int(c) for v, c in zip(*np.unique(mesh.volids, return_counts=True))} == VOLIDS
    for sid, (axis, value) in SIDES.items():
        assert surface_points(mesh, sid) == surface_points(block, sid)
        assert all(p[axis] == value for p in surface_points(mesh, sid))


def test_negative_elements_are_flipped_with_a_note():
    block = to_meshio(mixed_block())
    for c in block.cells:                                   # reflect every wedge and tetrahedron
        if c.type in ("wedge", "tetra"):
            c.data[:] = c.data[:, FLIPS[c.type]]
    notes = []
    mesh = from_meshio(block, notes=notes)
    assert len(notes) == 1 and notes[0].startswith("10 element(s) inside out (negative volume) turned the right way:")
    assert signed_volumes(mesh.ref, mesh.etype, mesh.conn).min() > 0


def quadratic_tetra_pair(flip_second: bool):
    """Two tetra10 sharing a face, mid-edge nodes at the true midpoints."""
    corners = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], float)
    tets = [[0, 1, 2, 3], [1, 2, 3, 4]]
    if np.linalg.det(corners[tets[1][1:]] - corners[tets[1][0]]) < 0:
        tets[1] = [tets[1][i] for i in mesh_tables.FLIP[4]]
    points, key, rows = list(corners), {}, []
    for t in tets:
        mids = []
        for a, b in mesh_tables.EDGES[4]:
            e = tuple(sorted((t[a], t[b])))
            if e not in key:
                key[e] = len(points)
                points.append((corners[t[a]] + corners[t[b]]) / 2)
            mids.append(key[e])
        rows.append(t + mids)
    rows = np.array(rows)
    if flip_second:
        rows[1] = rows[1][FLIPS["tetra10"]]
    return meshio.Mesh(np.array(points), [("tetra10", rows)])


def test_quadratic_cells_kept_flipped_and_reduced():
    notes = []
    mesh = from_meshio(quadratic_tetra_pair(flip_second=True), notes=notes)
    assert notes == ["1 element(s) inside out (negative volume) turned the right way: element 1 (tetrahedron,"
                     " nodes [1, 3, 2, 4])"]
    assert mesh.is_quadratic and mesh.nnod == 5 + 9
    [(name, elems, nodes)] = mesh.cells()
    assert name == "tetra10" and elems.tolist() == [0, 1] and nodes.shape == (2, 10)
    assert np.array_equal(nodes[:, :4], mesh.conn[:, :4])
    for row in nodes:                                       # mid-edge nodes still at their edges' midpoints
        for e, (a, b) in enumerate(mesh_tables.EDGES[4]):
            np.testing.assert_allclose(mesh.ref[row[4 + e]], (mesh.ref[row[a]] + mesh.ref[row[b]]) / 2, atol=1e-12)
    assert signed_volumes(mesh.ref, mesh.etype, mesh.conn).min() > 0
    # the 6 boundary triangles hold every corner and every mid-edge node (the inner face's
    # edges are edges of boundary faces too)
    assert mesh.nodes_on_surface(0).size == 14
    lin = mesh.linear()
    assert not lin.is_quadratic and lin.nnod == 5 and lin.nodes_on_surface(0).size == 5
    assert mass(lin) == pytest.approx(mass(mesh), abs=1e-15) and mass(lin) == pytest.approx(1 / 6 + 1 / 3, abs=1e-12)
    linear = from_meshio(quadratic_tetra_pair(flip_second=False), linear=True, notes=(n2 := []))
    assert not linear.is_quadratic and linear.nnod == 5 and n2 == []


def mass(mesh):
    return float(signed_volumes(mesh.ref, mesh.etype, mesh.conn).sum())


def test_quadratic_surface_nodes_include_mid_edge_nodes():
    # a single tetra10 with its face (0,1,2) named: corners 0,1,2 and the mid-edge nodes 4,5,6
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    mids = [(pts[a] + pts[b]) / 2 for a, b in mesh_tables.EDGES[4]]
    cells = [("tetra10", np.arange(10)[None]), ("triangle6", np.array([[0, 1, 2, 4, 5, 6]]))]
    m = meshio.Mesh(np.vstack([pts, mids]), cells, cell_data={"gmsh:physical": [np.array([1]), np.array([7])]})
    mesh = from_meshio(m)
    assert mesh.nodes_on_surface(7).tolist() == [0, 1, 2, 4, 5, 6]
    assert mesh.nodes_on_surface(0).tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_higher_order_cells_need_linear():
    hexa = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
    X = np.vstack([hexa, np.random.default_rng(1).uniform(0.2, 0.8, (19, 3))])   # 19 more nodes (27 in all)
    m = meshio.Mesh(X, [("hexahedron27", np.arange(27)[None])])
    with pytest.raises(InputError, match=r"hexahedron27 cells are not supported.*linear=True"):
        from_meshio(m)
    mesh = from_meshio(m, linear=True)
    assert (mesh.nele, mesh.nnod, mass(mesh)) == (1, 8, pytest.approx(1.0, abs=1e-12))
    with pytest.raises(InputError, match="polyhedron8 cells are not supported"):
        from_meshio(meshio.Mesh(X, [("polyhedron8", np.arange(8)[None])]))


def test_ids_from_tags_groups_and_named_sets():
    base = to_meshio(mixed_block(), format="gmsh22")          # gmsh physical tags = ids
    base.field_data = {"A": np.array([10, 3]), "bottom": np.array([1, 2])}
    mesh = from_meshio(base, groups={"A": 100, "bottom": 50})
    assert sorted(set(mesh.volids.tolist())) == [11, 12, 13, 100]
    assert mesh.nodes_on_surface(1).size == 0 and mesh.nodes_on_surface(50).size == 9
    with pytest.raises(InputError, match=r"'groups' names \['nope'\] are not in the mesh; its named groups are"
                                         r" \['A', 'bottom'\]"):
        from_meshio(base, groups={"nope": 1})
    # named sets of a format without tags: numbered in order with a note, or VOLID_<n> / SURFID_<n>
    block = mixed_block()
    plain = meshio.Mesh(block.ref, [(name, nodes) for name, _, nodes in block.cells()])
    order = np.concatenate([e for _, e, _ in block.cells()])
    plain.cell_sets = {"steel": [np.flatnonzero(block.volids[order][:8] == 13)] + [np.zeros(0, int)] * 3,
                       "VOLID_7": [np.zeros(0, int), np.arange(8), np.zeros(0, int), np.zeros(0, int)]}
    notes = []
    mesh = from_meshio(plain, volid=3, notes=notes)
    assert notes == ["named sets numbered in file order (pass groups={name: id} to choose): 'steel' -> 1"]
    assert {int(v): int(c) for v, c in zip(*np.unique(mesh.volids, return_counts=True))} == {1: 8, 7: 8, 3: 3}
    mesh = from_meshio(plain, groups={"steel": 9}, notes=(notes := []))
    assert sorted(set(mesh.volids.tolist())) == [0, 7, 9] and notes == []


def test_faces_off_the_boundary_are_ignored_and_default_ids_apply():
    m = to_meshio(mixed_block(), format="gmsh22")
    inner = np.array([[1, 4, 13, 10]])                      # the quad x = 1, y in [0, 1]: between A and B
    m.cells.append(meshio.CellBlock("quad", inner))
    m.cell_data["gmsh:physical"].append(np.array([77]))
    m.cell_data["gmsh:geometrical"].append(np.array([77]))
    mesh = from_meshio(m, surfid=5)
    assert mesh.nodes_on_surface(77).size == 0 and mesh.gid == 5


def test_unreferenced_nodes_are_dropped_and_scale_applies():
    block = to_meshio(mixed_block())
    block.points = np.vstack([block.points, [[9.0, 9.0, 9.0]]])
    notes = []
    mesh = from_meshio(block, scale=1e-3, notes=notes)
    assert notes == ["1 node(s) used by no volume cell were dropped"]
    assert mesh.nnod == 20 and mass(mesh) == pytest.approx(4e-9, rel=1e-12)


@pytest.mark.parametrize("edit, message", [
    (lambda m: setattr(m, "cells", [c for c in m.cells if c.type in ("triangle", "quad")]),
     r"the mesh has no volume cells \(tetra, pyramid, wedge, hexahedron\); it has \['quad', 'triangle'\]"),
    (lambda m: m.points.__setitem__(19, m.points[18]), r"nodes 1[89] and 1[89] coincide at \[0.5, 1.5, 0.5\]"),
    (lambda m: m.cells.__setitem__(0, meshio.CellBlock("tetra", np.vstack([m.cells[0].data, m.cells[0].data[:1]]))),
     r"element \d+ \(.*\) and element \d+ have the same nodes"),
    (lambda m: m.points.__setitem__(18, [0.5, 1.0, 0.5]), r"element \d+ \(pyramid, nodes \[.*\]\) has zero volume"),
    (lambda m: m.cells[0].data.__setitem__((0, 0), 99), r"tetra cells refer to nodes outside of \[0, 19\]"),
    (lambda m: m.points.__setitem__((3, 1), np.nan), r"node 3 has a non-finite coordinate"),
])
def test_bad_meshes_are_refused(edit, message):
    m = to_meshio(mixed_block())
    edit(m)
    with pytest.raises(InputError, match=message):
        from_meshio(m)


# ---------------------------------------------------------------------- Abaqus reader

def test_abaqus_reader_sets_surfaces_instance():
    mesh, notes = read_inp(os.path.join(DATA, "cae_block.inp"))
    assert [c.type for c in mesh.cells] == ["hexahedron", "quad"]
    assert any("T3D2 elements (lines, springs, ...) ignored" in n for n in notes)
    assert set(mesh.cell_sets) == {"Steel", "ALU", "TOP", "End"}        # internal _Surf set left out
    notes = []
    m = from_meshio(mesh, notes=notes)
    assert notes == ["named sets numbered in file order (pass groups={name: id} to choose): 'Steel' -> 1,"
                     " 'ALU' -> 2, 'TOP' -> 3, 'End' -> 4"]
    m = from_meshio(mesh, groups={"Steel": 7, "ALU": 8, "TOP": 21, "End": 22})
    assert m.volids.tolist() == [7, 8] and mass(m) == pytest.approx(2.0, abs=1e-12)
    np.testing.assert_allclose(m.ref.min(axis=0), [10, 0, 0])                 # instance translation
    top, end = m.ref[m.nodes_on_surface(21)], m.ref[m.nodes_on_surface(22)]
    assert top.shape == (6, 3) and np.all(top[:, 2] == 1.0)
    assert end.shape == (4, 3) and np.all(end[:, 0] == 12.0)


@pytest.mark.parametrize("name, expected", [
    ("C3D4", "tetra"), ("C3D10M", "tetra10"), ("C3D5", "pyramid"), ("C3D6", "wedge"), ("C3D15", "wedge15"),
    ("C3D8R", "hexahedron"), ("c3d20rh", "hexahedron20"), ("SC8R", "hexahedron"), ("S3", "triangle"),
    ("CPS4R", "quad"), ("STRI65", "triangle6"), ("S8R5", "quad8"), ("T3D2", None), ("B31", None),
])
def test_abaqus_element_types(name, expected):
    assert cell_type(name) == expected


@pytest.mark.parametrize("text, message", [
    ("*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D99\n1, 1\n", "unsupported Abaqus element type 'C3D99'"),
    ("*NODE\n1, a, 0, 0\n", r"bad.inp:1: numbers expected, got 'a' \(item 2 of the data lines\)"),
    ("*NODE\n1, 0, 0, 0\n2, 1\n", "node lines 'label, x, y, z' expected"),
    ("*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D4\n1, 1, 2, 3\n", "do not divide into records"),
    ("*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n", "uses node 2, which no \\*NODE line defines"),
    ("*NODE\n1, 0, 0, 0\n*ELEMENT\n", r"\*ELEMENT without TYPE="),
    ("*ELEMENT, TYPE=C3D4\n", r"no \*NODE data"),
    ("*NODE\n1,0,0,0\n*ELSET, ELSET=A\nB\n", "unknown element set 'B'"),
    ("*INCLUDE, INPUT=missing.inp\n", "\\*INCLUDE file 'missing.inp' not found"),
    ("*PART, NAME=A\n*PART, NAME=B\n", "several \\*PART definitions"),
])
def test_abaqus_reader_errors(tmp_path, text, message):
    path = tmp_path / "bad.inp"
    path.write_text(text)
    with pytest.raises(InpError, match=message):
        read_inp(str(path))


def test_abaqus_include_and_generate(tmp_path):
    (tmp_path / "nodes.inp").write_text("*NODE\n1,0,0,0\n2,1,0,0\n3,0,1,0\n4,0,0,1\n5,1,1,1\n")
    (tmp_path / "main.inp").write_text("*INCLUDE, INPUT=nodes.inp\n*ELEMENT, TYPE=C3D4\n1,1,2,3,4\n2,2,3,4,5\n"
                                       "*ELSET, ELSET=ALL, GENERATE\n1, 2, 1\n")
    mesh, _ = read_inp(str(tmp_path / "main.inp"))
    assert mesh.points.shape == (5, 3) and mesh.cell_sets["ALL"][0].tolist() == [0, 1]


BLOCK_INP = """\
*NODE
1, 0, 0, 0
2, 1, 0, 0
3, 1, 1, 0
4, 0, 1, 0
5, 0, 0, 1
6, 1, 0, 1
7, 1, 1, 1
8, 0, 1, 1
9, 2, 0, 0
10, 2, 1, 0
11, 2, 0, 1
12, 2, 1, 1
*ELEMENT, TYPE=C3D8, ELSET=BLOCK
1, 1, 2, 3, 4, 5, 6, 7, 8
*ELEMENT, TYPE=C3D8
2, 2, 9, 10, 3, 6, 11, 12, 7
*ELSET, ELSET=RIGHT
2
*ELSET, ELSET=TOPFACES
1, 2
*SURFACE, NAME=TOP, TYPE=ELEMENT
TOPFACES, S2
*SURFACE, NAME=LEFT, TYPE=ELEMENT
BLOCK, S6
*SOLID SECTION, ELSET=RIGHT, MATERIAL=STEEL
*SURFACE, NAME=END, TYPE=ELEMENT
RIGHT, S4
"""


def test_abaqus_sets_given_to_elements_are_volume_groups_whatever_else_uses_them(tmp_path):
    """BLOCK (named on its *ELEMENT line) and RIGHT (a section's set) also define surfaces,
    and stay volume groups; TOPFACES serves only to define TOP and is no group of its own."""
    path = tmp_path / "block.inp"
    path.write_text(BLOCK_INP)
    mesh, _ = read_inp(str(path))
    assert set(mesh.cell_sets) == {"BLOCK", "RIGHT", "TOP", "LEFT", "END"}
    m = from_meshio(mesh, groups={"BLOCK": 5, "RIGHT": 6, "TOP": 7, "LEFT": 8, "END": 9})
    assert m.volids.tolist() == [5, 6]
    top, left, end = (m.ref[m.nodes_on_surface(k)] for k in (7, 8, 9))
    assert top.shape == (6, 3) and np.all(top[:, 2] == 1.0)          # S2: the faces z = 1
    assert left.shape == (4, 3) and np.all(left[:, 0] == 0.0)        # S6 of element 1: x = 0
    assert end.shape == (4, 3) and np.all(end[:, 0] == 2.0)          # S4 of element 2: x = 2
    with pytest.raises(InputError, match=r"'groups' names \['TOPFACES'\] are not in the mesh"):
        from_meshio(mesh, groups={"TOPFACES": 1})
