"""Mesh files whose extension does not tell their format: the format told by the content
(gmsh, VTK, VTU, Abaqus, STL text and binary, OFF, TetGen .poly), and TetGen .poly files read
as surfaces. An L-shaped prism .poly (non-convex facets, facet markers as surface ids)
tetrahedralized by TETRAHEDRALIZE has the prism's volume and each marked facet's area to
1e-12 relative (the tetrahedra fill the polyhedron exactly), and the ear-clipped polygon
triangles cover the polygon's area with the polygon's orientation.
"""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

# an L-shaped section in the x-z plane, extruded 4 along y; markers: 1 the two L faces,
# 2 the bottom, 3 the other sides
L = [(10, 0), (0, 0), (0, 7), (4, 7), (4, 3), (8, 3), (8, 2), (10, 2)]
L_AREA = 10 * 2 + 4 * 5 + 4 * 1


def poly_text() -> str:
    pts = [(x, 0, z) for x, z in L] + [(x, 4, z) for x, z in L]
    lines = ["# an L prism", f"{len(pts)} 3 0 0"]
    lines += [f"{i + 1} {x} {y} {z}" for i, (x, y, z) in enumerate(pts)]
    lines += ["", "10 1"]
    lines += ["1 0 1", "8 " + " ".join(str(i) for i in range(1, 9))]
    lines += ["1 0 1", "8 " + " ".join(str(i) for i in range(9, 17))]
    for k in range(8):
        a, b = k + 1, (k + 1) % 8 + 1
        marker = 2 if k == 0 else 3
        lines += [f"1 0 {marker}", f"4 {a} {b} {b + 8} {a + 8}"]
    lines += ["", "0", "", "0"]
    return "\n".join(lines) + "\n"


def test_ear_clipping_covers_a_non_convex_polygon():
    from solfec_py.geometry.tetgen_poly import triangulate_polygon

    P = np.array([(x, 0.0, z) for x, z in L])
    tri = triangulate_polygon(P)
    assert len(tri) == len(L) - 2
    normal = np.zeros(3)
    for i in range(len(L)):
        normal += np.cross(P[i], P[(i + 1) % len(L)])
    area = 0.0
    for a, b, c in tri:
        n = 0.5 * np.cross(P[b] - P[a], P[c] - P[a])
        assert n @ normal > 0                                  # the polygon's orientation
        area += np.linalg.norm(n)
    assert area == pytest.approx(L_AREA, rel=1e-12)


def test_poly_file_tetrahedralized_has_the_prism_volume(api, tmp_path):
    pytest.importorskip("gmsh")
    (tmp_path / "prism.poly").write_text(poly_text())
    shutil.copy(tmp_path / "prism.poly", tmp_path / "prism.dat")     # told by content alike
    for name in ("prism.poly", "prism.dat"):
        mesh = api.TETRAHEDRALIZE(str(tmp_path / name), str(tmp_path / (name + ".vtu")))
        sol = api.SOLFEC("DYNAMIC", 1e-3, f"out/{name}")
        mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e6, poisson=0.3, density=1.0)
        body = api.BODY(sol, "FINITE_ELEMENT", mesh, mat)
        assert body.volume == pytest.approx(4 * L_AREA, rel=1e-12)
        m = body.shape[0]                                       # BODY emptied the MESH object
        nodes, sizes, sids, _ = m.boundary_faces()
        X = m.ref
        area = {}
        for f, s in zip(nodes, sids):
            a = 0.5 * np.linalg.norm(np.cross(X[f[1]] - X[f[0]], X[f[2]] - X[f[0]]))
            area[int(s)] = area.get(int(s), 0.0) + a
        assert area[1] == pytest.approx(2 * L_AREA, rel=1e-12)
        assert area[2] == pytest.approx(10 * 4, rel=1e-12)                # the bottom z = 0
        perimeter = sum(np.hypot(L[(k + 1) % 8][0] - L[k][0], L[(k + 1) % 8][1] - L[k][1]) for k in range(8))
        assert area[3] == pytest.approx(4 * (perimeter - 10), rel=1e-12)


def test_formats_told_by_content(api, tmp_path):
    import meshio

    from solfec_py.geometry.mesh_import import file_format

    cube = api.HEX([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1], 1, 1, 1, 1, [1] * 6)
    nodes, elements, _ = cube.get_data()                       # [8, n0 .. n7, volid]
    m = meshio.Mesh(np.reshape(nodes, (-1, 3)), [("hexahedron", np.array([elements[1:9]]))])
    written = {"gmsh": ("a.msh", {"file_format": "gmsh22"}), "vtk": ("a.vtk", {}), "vtu": ("a.vtu", {}),
               "abaqus": ("a.inp", {})}
    for fmt, (name, kw) in written.items():
        meshio.write(str(tmp_path / name), m, **kw)
        os.rename(tmp_path / name, tmp_path / f"{fmt}.dat")
        assert file_format(str(tmp_path / f"{fmt}.dat")) == fmt
        got = api.MESH_IMPORT(str(tmp_path / f"{fmt}.dat"))
        assert np.allclose(sorted(map(tuple, np.reshape(got.get_data()[0], (-1, 3)))),
                           sorted(map(tuple, m.points)))
    surface = meshio.Mesh(m.points, [("triangle", np.array([[0, 1, 2], [0, 2, 3]]))])
    for fmt, kw in (("stl", {"binary": True}), ("stl", {"binary": False}), ("off", {})):
        meshio.write(str(tmp_path / f"s.{fmt}"), surface, file_format=fmt, **kw)
        os.rename(tmp_path / f"s.{fmt}", tmp_path / "s.dat")
        assert file_format(str(tmp_path / "s.dat")) == fmt
    (tmp_path / "p.dat").write_text(poly_text())
    assert file_format(str(tmp_path / "p.dat")) == "poly"
    (tmp_path / "notes.dat").write_text("hello\n1 2 3\n")
    assert file_format(str(tmp_path / "notes.dat")) == "tecplot"     # content silent: the extension's (meshio's)
    shutil.copy(tmp_path / "notes.dat", tmp_path / "notes.xyz")
    from solfec_py.errors import InputError

    with pytest.raises(InputError, match="cannot tell the mesh format of .* from its extension or its content"):
        file_format(str(tmp_path / "notes.xyz"))


def test_poly_errors(tmp_path):
    from solfec_py.errors import InputError
    from solfec_py.geometry.tetgen_poly import read_poly

    text = poly_text()
    (tmp_path / "hole.poly").write_text(text.replace("1 0 2\n", "1 1 2\n", 1))
    with pytest.raises(InputError, match="hole.poly:.*facets with holes are not read"):
        read_poly(str(tmp_path / "hole.poly"))
    (tmp_path / "range.poly").write_text(text.replace("4 1 2 10 9", "4 1 2 10 99"))
    with pytest.raises(InputError, match="range.poly:.*a polygon lists 4 corners among points 1..16"):
        read_poly(str(tmp_path / "range.poly"))
    (tmp_path / "short.poly").write_text("\n".join(text.splitlines()[:10]))
    with pytest.raises(InputError, match="short.poly: the file ends where point 9 of 16 was expected"):
        read_poly(str(tmp_path / "short.poly"))
    (tmp_path / "nodes.poly").write_text("0 3 0 0\n10 1\n")
    with pytest.raises(InputError, match="the point list is empty and there is no .*nodes.node"):
        read_poly(str(tmp_path / "nodes.poly"))
