"""Element types as data: identities of the shape functions, derivatives against finite
differences, face tables against Solfec's manual, node orders against Gmsh + meshio."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from fem_meshes import random_inside

from solfec_py.errors import InputError
from solfec_py.fem.elements import BY_CODE, ELEMENTS, FACE_ELEMENTS, FIRST_ORDER, element

NAMES = sorted(ELEMENTS)


@pytest.mark.parametrize("name", NAMES)
def test_partition_of_unity_and_derivative_sums(name):
    el = ELEMENTS[name]
    xi = random_inside(el)
    # identities: exact up to round-off of O(10) terms of size <= 1 -> 1e-13
    np.testing.assert_allclose(el.shape(xi).sum(axis=1), 1.0, atol=1e-13)
    np.testing.assert_allclose(el.dshape(xi).sum(axis=1), 0.0, atol=1e-13)
    # linear completeness: sum_k N_k X_k = xi (isoparametric reference map is the identity)
    np.testing.assert_allclose(el.shape(xi) @ el.ref_nodes, xi, atol=1e-13)
    np.testing.assert_allclose(np.einsum("pkj,ki->pij", el.dshape(xi), el.ref_nodes),
                               np.broadcast_to(np.eye(3), (xi.shape[0], 3, 3)), atol=1e-13)


@pytest.mark.parametrize("name", NAMES)
def test_kronecker_property(name):
    el = ELEMENTS[name]
    np.testing.assert_allclose(el.shape(el.ref_nodes), np.eye(el.nnodes), atol=1e-14)


@pytest.mark.parametrize("name", NAMES)
def test_derivatives_against_central_differences(name):
    # catches e.g. Solfec's pyramid slip (d/dz of xyz/(1-z) written as xy); central
    # differences with step 1e-6 on functions of size 1 are accurate to ~1e-9
    el = ELEMENTS[name]
    xi = random_inside(el, n=20, seed=3, margin=0.05)
    h = 1e-6
    fd = np.stack([(el.shape(xi + h * e) - el.shape(xi - h * e)) / (2 * h) for e in np.eye(3)], axis=2)
    np.testing.assert_allclose(el.dshape(xi), fd, atol=1e-8)


def test_pyramid_is_the_collapsed_hexahedron():
    # independent construction: N_k of the pyramid = bilinear base function at
    # (u, v) = (x, y) / (1 - z) times (1 - z), apex z
    el = ELEMENTS["pyramid"]
    xi = random_inside(el, seed=5)
    u, v, z = xi[:, 0] / (1 - xi[:, 2]), xi[:, 1] / (1 - xi[:, 2]), xi[:, 2]
    base = el.ref_nodes[:4, :2]
    expect = np.column_stack([0.25 * (1 + s[0] * u) * (1 + s[1] * v) * (1 - z) for s in base] + [z])
    np.testing.assert_allclose(el.shape(xi), expect, atol=1e-14)


@pytest.mark.parametrize("name", ["tetra10", "hexahedron20", "wedge15"])
def test_quadratic_elements_reproduce_quadratic_polynomials(name):
    el = ELEMENTS[name]
    rng = np.random.default_rng(7)
    c = rng.standard_normal(10)

    def poly(p):
        x, y, z = p.T
        return (c[0] + c[1] * x + c[2] * y + c[3] * z + c[4] * x * x + c[5] * y * y + c[6] * z * z
                + c[7] * x * y + c[8] * y * z + c[9] * x * z)

    xi = random_inside(el, seed=11)
    np.testing.assert_allclose(el.shape(xi) @ poly(el.ref_nodes), poly(xi), atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_faces_point_outward_and_close_the_element(name):
    el = ELEMENTS[name]
    centre = el.shape(el.centroid()[None]) @ el.ref_nodes
    total = np.zeros(3)
    for face in el.faces:
        fe = FACE_ELEMENTS[{3: "triangle", 4: "quad", 6: "triangle6", 8: "quad8"}[len(face)]]
        N, dN, w = fe.tables()
        x = el.ref_nodes[list(face)]
        n = np.cross(dN[:, :, 0] @ x, dN[:, :, 1] @ x) * w[:, None]       # area-weighted normals
        assert np.all(np.einsum("gi,gi->g", n, N @ x - centre) > 0), face
        total += n.sum(axis=0)
    np.testing.assert_allclose(total, 0.0, atol=1e-14)   # closed surface: sum of n dA = 0
    # every edge of the corner cycle of a face is shared by exactly two faces
    corners = [f[:len(f) // 2] if el.order == 2 else f for f in el.faces]
    edges = {}
    for f in corners:
        for i in range(len(f)):
            key = frozenset((f[i], f[(i + 1) % len(f)]))
            edges[key] = edges.get(key, 0) + 1
    assert set(edges.values()) == {2}


def test_first_order_faces_are_solfec_manual_table():
    # the 1-based face table of Solfec's manual (MESH command), copied as data
    table = {4: "{1,3,2},{1,2,4},{2,3,4},{3,1,4}",
             5: "{1,4,3,2},{1,2,5},{2,3,5},{3,4,5},{4,1,5}",
             6: "{1,3,2},{4,5,6},{1,2,5,4},{2,3,6,5},{3,1,4,6}",
             8: "{1,4,3,2},{1,2,6,5},{2,3,7,6},{3,4,8,7},{1,5,8,4},{5,6,7,8}"}
    for n, text in table.items():
        faces = tuple(tuple(int(v) - 1 for v in f.split(",")) for f in re.findall(r"\{([\d,]+)\}", text))
        assert FIRST_ORDER[n].faces == faces


def test_quadratic_mid_nodes_sit_on_their_edges():
    for el in ELEMENTS.values():
        for k, (a, b) in el.edges:
            np.testing.assert_array_equal(el.ref_nodes[k], 0.5 * (el.ref_nodes[a] + el.ref_nodes[b]))
        for face in el.faces if el.order == 2 else ():
            m = len(face) // 2
            where = {frozenset(e): k for k, e in el.edges}
            assert face[m:] == tuple(where[frozenset((face[i], face[(i + 1) % m]))] for i in range(m))


def test_node_orders_match_gmsh_through_meshio():
    gmsh = pytest.importorskip("gmsh")
    from meshio.gmsh.common import _gmsh_to_meshio_order

    types = {"tetra": 4, "tetra10": 11, "hexahedron": 5, "hexahedron20": 17, "wedge": 6, "wedge15": 18,
             "pyramid": 7}
    gmsh.initialize()
    try:
        for name, gtype in types.items():
            local = np.array(gmsh.model.mesh.getElementProperties(gtype)[4]).reshape(-1, 3)
            local = local[_gmsh_to_meshio_order(name, np.arange(local.shape[0])[None])[0]]
            mine = ELEMENTS[name].ref_nodes
            if name == "pyramid":     # Solfec's base is Gmsh's turned by 180 degrees: same cycle
                local = local[[2, 3, 0, 1, 4]]
            np.testing.assert_array_equal(local, mine, err_msg=name)
    finally:
        gmsh.finalize()


def test_registry_and_codes():
    assert [c.code for c in BY_CODE] == list(range(7))
    assert element("hexahedron") is ELEMENTS["hexahedron"]
    with pytest.raises(InputError, match=r"Invalid element type 'hex'; expected one of \['hexahedron'"):
        element("hex")
    for el in ELEMENTS.values():
        assert el.inside(el.ref_nodes, 1e-12).all()
        assert np.all(el.ref_nodes >= el.box[0]) and np.all(el.ref_nodes <= el.box[1])


def test_fem_layer_imports_nothing_above_layer_one():
    # layer 1 (fem, geometry) may use layer 0 and itself only
    root = pathlib.Path(__file__).resolve().parents[1] / "solfec_py" / "fem"
    allowed = ("solfec_py.fem", "solfec_py.errors", "solfec_py.validate", "solfec_py.geometry", "solfec_py.compilation")
    for path in root.rglob("*.py"):
        for mod in re.findall(r"^\s*(?:from|import)\s+(solfec_py[\w.]*)", path.read_text(), re.M):
            assert mod.startswith(allowed), f"{path.name} imports {mod}"
