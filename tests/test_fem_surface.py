"""Surface integrals: face normals and areas, dead pressure loads."""
from __future__ import annotations

import numpy as np
import pytest
from fem_meshes import block

from solfec_py.fem.elements import ELEMENTS, FACE_ELEMENTS
from solfec_py.fem.surface import face_normals, pressure_load


def boundary_faces(name, X, conn):
    """Boundary faces of a mesh grouped by face type: {ftype: (nf, m) node arrays}."""
    el = ELEMENTS[name]
    faces = [(ftype, conn[:, list(f)]) for f, ftype in zip(el.faces, el.face_types())]
    keys = {}
    for ftype, nodes in faces:
        for row in nodes:
            k = frozenset(row.tolist())
            keys[k] = keys.get(k, 0) + 1
    out = {}
    for ftype, nodes in faces:
        keep = [row for row in nodes if keys[frozenset(row.tolist())] == 1]
        if keep:
            out.setdefault(ftype, []).extend(keep)
    return {t: np.array(v) for t, v in out.items()}


@pytest.mark.parametrize("name", sorted(ELEMENTS))
def test_uniform_pressure_on_a_closed_surface(name):
    X, conn, interior = block(name, m=2, seed=1)
    faces = boundary_faces(name, X, conn)
    f = np.zeros_like(X)
    area = 0.0
    for ftype, fnodes in faces.items():
        n = face_normals(FACE_ELEMENTS[ftype], X, fnodes)
        area += np.linalg.norm(n, axis=2).sum()
        pressure_load(FACE_ELEMENTS[ftype], fnodes, n, 2.5, f)
    # the block [0, 1]^3 keeps its flat faces (only interior nodes moved): area 6; a
    # uniform pressure on a closed surface has zero resultant; interior nodes get nothing
    assert area == pytest.approx(6.0, rel=1e-13)
    np.testing.assert_allclose(f.sum(axis=0), 0.0, atol=1e-13)
    assert np.all(f[interior] == 0.0)


def test_pressure_on_one_face_pulls_outward():
    X, conn, _ = block("hexahedron", m=1)
    top = conn[:, list(ELEMENTS["hexahedron"].faces[5])]           # z = 1, outward +z
    quad = FACE_ELEMENTS["quad"]
    n = face_normals(quad, X, top)
    f = np.zeros_like(X)
    pressure_load(quad, top, n, 3.0, f)
    # positive pressure pulls outward: +z, p A / 4 on each node of the unit square
    np.testing.assert_allclose(f[top[0]], np.tile([0.0, 0.0, 0.75], (4, 1)), atol=1e-15)
    f[:] = 0
    pressure_load(quad, top, n, [-1.0], f)
    assert f[:, 2].sum() == pytest.approx(-1.0, rel=1e-14)


def test_quadratic_face_load_is_consistent():
    # on a flat 8-node face the consistent nodal loads of a uniform pressure are
    # -1/12 A at corners and 1/3 A at mid-edge nodes (serendipity quadrilateral)
    X, conn, _ = block("hexahedron20", m=1, distort=0, curve=0)
    el = ELEMENTS["hexahedron20"]
    top = conn[:, list(el.faces[5])]
    q8 = FACE_ELEMENTS["quad8"]
    f = np.zeros_like(X)
    pressure_load(q8, top, face_normals(q8, X, top), 1.0, f)
    np.testing.assert_allclose(f[top[0], 2], [-1 / 12] * 4 + [1 / 3] * 4, atol=1e-14)
