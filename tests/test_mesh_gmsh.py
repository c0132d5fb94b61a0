"""Meshes made by gmsh (the optional [mesh] extra): a cylinder with physical groups meshed by
gmsh's Python API and imported, TETRAHEDRALIZE of a HEX box (with its file cache) and of a
surface file, ELLIP_MESH; and the clear errors without gmsh (these run everywhere).

Tolerances: volumes of tetrahedralized polyhedra equal the polyhedron's to 1e-9 relative
(sums of O(10^3) positive terms of O(1e-3); the issue's bound); the cylinder's volume is bounded by its
faceting (inscribed polygons) and equals the volume of its own boundary triangulation to
1e-12; ellipsoid surface nodes lie on the ellipsoid to 1e-12.
"""
from __future__ import annotations

import builtins
import os

import numpy as np
import pytest

from solfec_py.errors import InputError, InputTypeError, NotAvailableError
from solfec_py.geometry.massprops import mass_properties, polyhedral_integrals

try:
    import gmsh
except ImportError as exc:            # the reason is printed in the skip message
    gmsh, REASON = None, f"gmsh (pip install solfec-py[mesh]) is not importable: {exc}"
else:
    REASON = ""
needs_gmsh = pytest.mark.skipif(gmsh is None, reason=REASON)
CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def cylinder(path: str, version: float, binary: bool, size: float = 0.25) -> None:
    """A cylinder of radius 0.5 and height 1 on z = 0: physical volume 7 'steel', surfaces
    11 'side', 12 'top', 13 'bottom'."""
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add("cylinder")
        vol = gmsh.model.occ.addCylinder(0, 0, 0, 0, 0, 1, 0.5)
        gmsh.model.occ.synchronize()
        faces = {}
        for dim, tag in gmsh.model.getBoundary([(3, vol)], oriented=False):
            z = gmsh.model.occ.getCenterOfMass(dim, tag)[2]
            faces["top" if z > 0.99 else "bottom" if z < 0.01 else "side"] = tag
        gmsh.model.addPhysicalGroup(3, [vol], 7, name="steel")
        for name, tag in (("side", 11), ("top", 12), ("bottom", 13)):
            gmsh.model.addPhysicalGroup(2, [faces[name]], tag, name=name)
        gmsh.option.setNumber("Mesh.MeshSizeMax", size)
        gmsh.model.mesh.generate(3)
        gmsh.option.setNumber("Mesh.MshFileVersion", version)
        gmsh.option.setNumber("Mesh.Binary", int(binary))
        gmsh.write(path)
    finally:
        gmsh.finalize()


@needs_gmsh
@pytest.mark.parametrize("version, binary", [(2.2, False), (4.1, False), (4.1, True)])
def test_gmsh_cylinder_with_physical_groups(api, version, binary):
    cylinder("cyl.msh", version, binary)
    mesh = api.MESH_IMPORT("cyl.msh")
    m = mesh._mesh()
    assert set(m.volids.tolist()) == {7} and set(m.etype.tolist()) == {4}
    X = m.ref
    side, top, bottom = (X[m.nodes_on_surface(s)] for s in (11, 12, 13))
    np.testing.assert_allclose(np.hypot(side[:, 0], side[:, 1]), 0.5, atol=1e-9)
    assert np.all(top[:, 2] == 1.0) and np.all(bottom[:, 2] == 0.0)
    assert set(m.boundary_faces()[2].tolist()) == {11, 12, 13}          # every boundary face in a group
    volume = mass_properties([m])[0]
    pts, tri, _ = m.surface_triangles()
    assert volume == pytest.approx(polyhedral_integrals(pts[tri], np.zeros(3))[0], rel=1e-12)
    assert 0.97 * np.pi / 4 < volume < np.pi / 4                       # inscribed faceting
    named = api.MESH_IMPORT("cyl.msh", groups={"steel": 1, "top": 2})._mesh()
    assert set(named.volids.tolist()) == {1} and named.nodes_on_surface(2).size == top.shape[0]
    assert named.nodes_on_surface(11).size == side.shape[0]            # unnamed groups keep their tags


@needs_gmsh
def test_tetrahedralize_hex_box_and_cache(api, monkeypatch, capsys):
    box = api.HEX(CUBE, 2, 2, 1, 3, [1, 2, 3, 4, 5, 6])
    api.SCALE(box, (2.0, 1.0, 0.5))
    from solfec_py.geometry.mesh_import import signed_volumes

    kept = api.TETRAHEDRALIZE(box, "out/kept.vtu")._mesh()          # no volume: the surface is kept
    assert sorted(map(tuple, kept.surface_triangles()[0].round(12))) == sorted(
        map(tuple, box._mesh().surface_triangles()[0].round(12)))
    assert signed_volumes(kept.ref, kept.etype, kept.conn).sum() == pytest.approx(1.0, rel=1e-9)
    mesh = api.TETRAHEDRALIZE(box, "out/box.vtu", volume=0.002, quality=1.5)
    m = mesh._mesh()
    assert set(m.etype.tolist()) == {4}
    v = signed_volumes(m.ref, m.etype, m.conn)
    assert v.min() > 0 and v.sum() == pytest.approx(1.0, rel=1e-9)      # the box's volume
    assert v.mean() <= 0.002                                             # gmsh's target size drives the mesh
    err = capsys.readouterr().err
    assert ("largest element volume" in err) == (v.max() > 0.002)       # a note when the target is exceeded
    assert set(m.volids.tolist()) == {3}
    for sid, (axis, value) in {1: (2, 0.0), 2: (0, 0.0), 3: (1, 1.0), 4: (0, 2.0), 5: (1, 0.0), 6: (2, 0.5)}.items():
        assert np.allclose(m.ref[m.nodes_on_surface(sid)][:, axis], value)
    assert not box.is_empty                                              # the input mesh is not emptied
    # the cache: the file is read back, the arguments are ignored and gmsh is not needed
    monkeypatch.setattr("solfec_py.geometry.tetrahedralize.require_gmsh",
                        lambda command: pytest.fail("gmsh called for a cached mesh"))
    again = api.TETRAHEDRALIZE(None, "out/box.vtu", volume=-1)._mesh()
    assert again.nele == m.nele and np.allclose(again.ref, m.ref)
    assert set(again.boundary_faces()[2].tolist()) == {1, 2, 3, 4, 5, 6}


@needs_gmsh
def test_tetrahedralize_surface_file_and_overrides(api):
    import meshio

    cube = np.array(CUBE, float).reshape(8, 3)
    tri = np.array([[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5],
                    [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]])
    meshio.write("cube.stl", meshio.Mesh(cube, [("triangle", tri)]), binary=False)
    m = api.TETRAHEDRALIZE("cube.stl", "out/cube.msh", volid=4, surid=9)._mesh()
    assert mass_properties([m])[0] == pytest.approx(1.0, rel=1e-9)
    assert set(m.volids.tolist()) == {4} and set(m.boundary_faces()[2].tolist()) == {9}
    assert api.TETRAHEDRALIZE(None, "out/cube.msh")._mesh().nele == m.nele    # cached as gmsh


@needs_gmsh
def test_ellip_mesh(api):
    radii = np.array([0.6, 0.8, 1.0])
    m = api.ELLIP_MESH((1.0, 2.0, 3.0), tuple(radii), 0.01, 1, 2)._mesh()
    X = m.ref - [1.0, 2.0, 3.0]
    on = m.nodes_on_surface(2)
    np.testing.assert_allclose(np.sum((X[on] / radii) ** 2, axis=1), 1.0, atol=1e-12)
    from solfec_py.geometry.ellip_mesh import deviation

    pts, tri, _ = m.surface_triangles()
    assert deviation(pts - [1.0, 2.0, 3.0], tri, radii) <= 0.01
    volume = mass_properties([m])[0]
    exact = 4 / 3 * np.pi * radii.prod()
    assert volume == pytest.approx(polyhedral_integrals(pts[tri], np.zeros(3))[0], rel=1e-12)
    assert exact * (1 - 3 * 0.01 / radii.min()) < volume < exact        # inscribed, within the error
    assert set(m.volids.tolist()) == {1}


@needs_gmsh
def test_tetrahedralize_inside_a_users_gmsh_session(api):
    gmsh.initialize(interruptible=False)
    try:
        gmsh.model.add("mine")
        gmsh.option.setNumber("Mesh.MeshSizeMax", 0.7)
        m = api.TETRAHEDRALIZE(api.HEX(CUBE, 1, 1, 1, 0, [0] * 6), "t.vtu", volume=0.01)._mesh()
        assert mass_properties([m])[0] == pytest.approx(1.0, rel=1e-9)
        assert gmsh.isInitialized() and gmsh.model.getCurrent() == "mine"
        assert gmsh.option.getNumber("Mesh.MeshSizeMax") == 0.7
    finally:
        gmsh.finalize()


def test_tetrahedralize_and_ellip_mesh_arguments(api):
    box = api.HEX(CUBE, 1, 1, 1, 0, [0] * 6)
    with pytest.raises(InputTypeError, match="'path' must be a string object"):
        api.TETRAHEDRALIZE(box, 3)
    with pytest.raises(InputError, match="Maximal volume must be positive"):
        api.TETRAHEDRALIZE(box, "t.vtu", volume=0)
    with pytest.raises(InputError, match=r"Quality must be > 1.0"):
        api.TETRAHEDRALIZE(box, "t.vtu", quality=1.0)
    with pytest.raises(InputError, match="Shape must be either a MESH object or string"):
        api.TETRAHEDRALIZE(api.SPHERE((0, 0, 0), 1, 0, 0), "t.vtu")
    with pytest.raises(InputError, match="'shape' file 'none.stl' not found"):
        api.TETRAHEDRALIZE("none.stl", "t.vtu")
    with pytest.raises(InputError, match="'error' must be positive"):
        api.ELLIP_MESH((0, 0, 0), (1, 1, 1), 0, 1, 1)
    with pytest.raises(InputError, match=r"'radii' must be positive, got radii\[1\] = -1.0"):
        api.ELLIP_MESH((0, 0, 0), (1, -1, 1), 0.1, 1, 1)
    with pytest.raises(InputTypeError, match="'volid' must be an integer"):
        api.ELLIP_MESH((0, 0, 0), (1, 1, 1), 0.1, 1.5, 1)


def test_without_gmsh_the_error_names_the_extra(api, monkeypatch):
    real = builtins.__import__

    def no_gmsh(name, *args, **kwargs):
        if name == "gmsh":
            raise ImportError("No module named 'gmsh'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_gmsh)
    box = api.HEX(CUBE, 1, 1, 1, 0, [0] * 6)
    for call in (lambda: api.TETRAHEDRALIZE(box, "t.vtu"), lambda: api.ELLIP_MESH((0, 0, 0), (1, 1, 1), 0.1, 1, 1)):
        with pytest.raises(NotAvailableError, match=r"needs the gmsh Python package \(pip install solfec-py\[mesh\]\)"):
            call()
    assert not os.path.exists("t.vtu")


@needs_gmsh
def test_tetrahedralize_beside_a_solfec_cache(api, monkeypatch, capsys):
    """A TETRAHEDRALIZE path holding Solfec-1.0's own cache (an HDF5 file with a 'compressed
    mesh data' set, as its decks ship) is left as it is: the mesh is made again and kept in
    path + '.vtu', which later runs read (gmsh not called); the volume equals the box's."""
    import h5py

    from solfec_py.geometry.mesh_import import signed_volumes

    os.makedirs("out", exist_ok=True)
    with h5py.File("out/pipe.mesh", "w") as f:
        f["compressed mesh data"] = np.arange(7, dtype=np.uint8)
    before = open("out/pipe.mesh", "rb").read()
    box = api.HEX(CUBE, 2, 2, 1, 3, [1, 2, 3, 4, 5, 6])
    m = api.TETRAHEDRALIZE(box, "out/pipe.mesh", volume=0.01)._mesh()
    assert signed_volumes(m.ref, m.etype, m.conn).sum() == pytest.approx(1.0, rel=1e-9)
    assert open("out/pipe.mesh", "rb").read() == before and os.path.isfile("out/pipe.mesh.vtu")
    assert "a mesh cache of Solfec-1.0" in capsys.readouterr().err
    monkeypatch.setattr("solfec_py.geometry.tetrahedralize.require_gmsh",
                        lambda command: pytest.fail("gmsh called for a cached mesh"))
    again = api.TETRAHEDRALIZE(box, "out/pipe.mesh")._mesh()
    assert again.nele == m.nele and np.allclose(again.ref, m.ref)
