"""MESH_IMPORT and MESH.export through real files: round trips of the mixed block in every
format, the same block from each format dropped as a RIGID body, the surface ids in the
ParaView series, quadratic meshes as rigid bodies, bad arguments and files, and a fuzz of
truncated and random bytes.

Tolerances: volumes and coordinates at 1e-12 (exact round trips: ASCII writers print 17
significant digits); mass and inertia of the 2 x 2 x 1 box against the closed form at 1e-12
relative; the bodies from different formats differ only in element and node order, so
their states agree to round-off (1e-12) after the drop, and rest at the box's half height
within the penetration of the impact step (v h).
"""
from __future__ import annotations

import os
import signal

import h5py
import meshio
import numpy as np
import pytest

from mesh_samples import SIDES, VOLIDS, element_volumes_by_volid, mixed_block, surface_points
from solfec_py.errors import InputError, InputTypeError, SolfecError
from solfec_py.geometry.mesh_export import to_meshio, write_mesh
from solfec_py.geometry.mesh_import import signed_volumes

# file name, format name, writer options (None: written by MESH.export / write_mesh)
FILES = [("g22.msh", "gmsh22", {"binary": False}), ("g22b.msh", "gmsh22", {"binary": True}),
         ("g41.msh", "gmsh", {"binary": False}), ("g41b.msh", "gmsh", {"binary": True}),
         ("block.inp", "abaqus", None), ("block.vtu", "vtu", {}), ("block.vtk", "vtk", {}),
         ("block.xdmf", "xdmf", {}), ("block.med", "med", {}), ("block.bdf", "nastran", {}),
         ("block.mesh", "medit", None)]
CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def write(name: str, fmt: str, options) -> str:
    block = mixed_block()
    if options is None:
        write_mesh(block, name, fmt)
    else:
        meshio.write(name, to_meshio(block, format=fmt), file_format=fmt, **options)
    return name


@pytest.mark.parametrize("name, fmt, options", FILES, ids=[f[0] for f in FILES])
def test_round_trip(api, name, fmt, options):
    block = mixed_block()
    mesh = api.MESH_IMPORT(write(name, fmt, options))._mesh()
    assert (mesh.nele, mesh.nnod) == (19, 20)
    volumes = signed_volumes(mesh.ref, mesh.etype, mesh.conn)
    assert volumes.min() > 0                                     # every element positively oriented
    assert volumes.sum() == pytest.approx(4.0, abs=1e-12)
    assert element_volumes_by_volid(mesh) == pytest.approx(element_volumes_by_volid(block), abs=1e-12)
    assert {int(v): int(c) for v, c in zip(*np.unique(mesh.volids, return_counts=True))} == VOLIDS
    for sid, (axis, value) in SIDES.items():                     # surface ids on the right faces
        assert surface_points(mesh, sid) == surface_points(block, sid)
        assert len(surface_points(mesh, sid)) == (9 if axis == 2 else 6)


def test_same_block_from_every_format_rests_identically(api):
    """Each format's block dropped 5 mm onto one floor, side by side (3 m apart): equal
    mass and inertia (the box's closed form), equal states after 0.08 s, at rest on the floor."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/formats")
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    api.GRAVITY(sol, (0, 0, -9.81))
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.5)
    floor = list((np.array(CUBE, float).reshape(8, 3) * (3 * len(FILES) + 2, 4, 1) - (1, 1, 1)).ravel())
    api.BODY(sol, 'OBSTACLE', api.HEX(floor, 1, 1, 1, 0, [1] * 6), mat)
    bodies = []
    for k, (name, fmt, options) in enumerate(FILES):
        mesh = api.TRANSLATE(api.MESH_IMPORT(write(name, fmt, options)), (3.0 * k, 0, 0.005))
        bodies.append(api.BODY(sol, 'RIGID', mesh, mat))
    m = 4000.0                                                    # 2 x 2 x 1 m of 1000 kg/m^3
    J = m / 12 * np.diag([2 ** 2 + 1, 2 ** 2 + 1, 2 ** 2 + 2 ** 2])
    for b in bodies:
        assert b.mass == pytest.approx(m, rel=1e-12)
        np.testing.assert_allclose(np.array(b.tensor).reshape(3, 3), J, rtol=1e-12, atol=1e-12 * J.max())
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.08)
    first = np.array(bodies[0].conf)
    for k, b in enumerate(bodies):
        conf = np.array(b.conf) - np.r_[np.zeros(9), 3.0 * k, 0, 0]
        np.testing.assert_allclose(conf, first, atol=1e-12)
        assert np.abs(b.velo).max() < 1e-9
    # at rest on the floor: the penetration made at impact is at most v h = sqrt(2 g 0.005) 1e-3 = 3.1e-4
    assert first[9:] == pytest.approx((1.0, 1.0, 0.5), abs=3.2e-4)


def test_surface_ids_in_the_paraview_series(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/ids")
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    write("block.vtu", "vtu", {})
    body = api.BODY(sol, 'RIGID', api.MESH_IMPORT("block.vtu"), mat)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.002)
    with h5py.File("out/ids/ids_xdmf.h5", "r") as f:
        sid, bid = f["mesh/0/SURFID"][()], f["mesh/0/BID"][()]
        tri, x = f["mesh/0/topology"][()], f["frames/0/points"][()]
    assert set(sid.tolist()) == set(SIDES) and set(bid.tolist()) == {body.id}
    for s, (axis, value) in SIDES.items():                       # each id on its side of the box
        np.testing.assert_allclose(x[tri[sid == s]][..., axis], value, atol=1e-6)
    assert 'Name="SURFID"' in open("out/ids/ids_grids.xmf").read()


def test_groups_scale_and_defaults_from_an_abaqus_file(api):
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "cae_block.inp")
    mesh = api.MESH_IMPORT(data, surfid=9, groups={"Steel": 1, "ALU": 2, "TOP": 3, "End": 4}, scale=0.001)
    m = mesh._mesh()
    assert m.volids.tolist() == [1, 2] and m.gid == 9
    assert np.allclose(m.ref[m.nodes_on_surface(3)][:, 2], 0.001)
    assert mesh.nodes_on_surface(9) is not None and mesh.nodes_on_surface(5) is None


def test_export_writes_the_current_configuration(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/export")
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    body = api.BODY(sol, 'RIGID', api.HEX(CUBE, 2, 1, 1, 5, [1, 2, 3, 4, 5, 6]), mat)
    body.conf = (0, 1, 0, -1, 0, 0, 0, 0, 1, 5.0, 0.5, 0.5)              # turned 90 degrees about z, moved
    for name in ("now.vtu", "now.msh", "now.inp"):
        assert body.mesh.export(name) in ("vtu", "gmsh", "abaqus")
        back = api.MESH_IMPORT(name)._mesh()
        X = np.array([body.mesh.node(i) for i in range(body.mesh.nnod)])
        assert {tuple(np.round(p, 9)) for p in back.ref} == {tuple(np.round(p, 9)) for p in X}
        assert set(back.volids.tolist()) == {5} and back.nodes_on_surface(1).size == 6
    assert api.HEX(CUBE, 1, 1, 1, 0, [0] * 6).export("x.mesh", format="medit") == "medit"
    with pytest.raises(InputError, match=r"Invalid mesh format 'nope'; expected one of \["):
        body.mesh.export("x.vtu", format="nope")
    with pytest.raises(InputError, match="cannot tell the mesh format of 'x.unknown'"):
        body.mesh.export("x.unknown")
    with pytest.raises(InputTypeError, match="'path' must be a string"):
        body.mesh.export(3)
    with pytest.raises(InputError, match="cannot write 'nodir/x.vtu'"):
        body.mesh.export("nodir/x.vtu")


def test_quadratic_mesh_as_a_rigid_body_uses_corners(api, capsys):
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    mids = [(pts[a] + pts[b]) / 2 for a, b in [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]]
    meshio.write("t10.vtu", meshio.Mesh(np.vstack([pts, mids]), [("tetra10", np.arange(10)[None])]))
    mesh = api.MESH_IMPORT("t10.vtu")
    assert mesh.nnod == 10 and mesh._mesh().is_quadratic
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/t10")
    body = api.BODY(sol, 'RIGID', mesh, api.BULK_MATERIAL(sol, density=6.0))
    assert "quadratic cells ['tetra10'] used by their corners" in capsys.readouterr().err
    assert body.mesh.nnod == 4 and body.mass == pytest.approx(1.0, rel=1e-12)
    assert api.MESH_IMPORT("t10.vtu", linear=True).nnod == 4


def test_notes_go_to_stderr_unless_warnings_off(api, capsys):
    m = to_meshio(mixed_block())
    m.points = np.vstack([m.points, [[7.0, 7.0, 7.0]]])
    meshio.write("extra.vtu", m)
    api.MESH_IMPORT("extra.vtu")
    assert "NOTE: MESH_IMPORT extra.vtu: 1 node(s) used by no volume cell were dropped" in capsys.readouterr().err
    api.WARNINGS('OFF')
    api.MESH_IMPORT("extra.vtu")
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("call, error, message", [
    (lambda api: api.MESH_IMPORT(42), InputTypeError, "'path' must be a string, got 42"),
    (lambda api: api.MESH_IMPORT("missing.msh"), InputError, "mesh file 'missing.msh' not found"),
    (lambda api: api.MESH_IMPORT("."), InputError, r"mesh file '\.' is a directory, not a file"),
    (lambda api: api.MESH_IMPORT("block.vtu", format="bogus"), InputError,
     r"Invalid mesh format 'bogus'; expected one of \['abaqus', "),
    (lambda api: api.MESH_IMPORT("mesh.foo"), InputError, "cannot tell the mesh format of 'mesh.foo'"),
    (lambda api: api.MESH_IMPORT("block.vtu", scale=0), InputError, "'scale' must be positive, got 0.0"),
    (lambda api: api.MESH_IMPORT("block.vtu", groups=[1]), InputTypeError, "'groups' must be a dict"),
    (lambda api: api.MESH_IMPORT("block.vtu", groups={"a": 1.5}), InputTypeError,
     r"'groups\['a'\]' must be an integer"),
    (lambda api: api.MESH_IMPORT("block.vtu", linear="yes"), InputError, "'linear' must be boolean"),
    (lambda api: api.MESH_IMPORT("block.vtu", volid=1.0), InputTypeError, "'volid' must be an integer"),
    (lambda api: api.MESH_IMPORT("garbage.msh"), InputError, "cannot read 'garbage.msh' as a gmsh mesh"),
    (lambda api: api.MESH_IMPORT("garbage.msh", format="vtu"), InputError, "cannot read 'garbage.msh' as a vtu"),
    (lambda api: api.MESH_IMPORT("surface.vtu"), InputError,
     r"surface.vtu: the mesh has no volume cells .* it has \['triangle'\]"),
    (lambda api: api.MESH_IMPORT("twins.vtu"), InputError, r"twins.vtu: nodes \d+ and \d+ coincide"),
    (lambda api: api.MESH_IMPORT("block.vtu", groups={"x": 1}), InputError, r"'groups' names \['x'\] are not"),
    (lambda api: api.MESH_IMPORT(), InputTypeError, "MESH_IMPORT: missing a required argument: 'path'"),
])
def test_bad_input(api, call, error, message):
    write("block.vtu", "vtu", {})
    with open("garbage.msh", "wb") as fh:
        fh.write(b"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n3 garbage\n")
    with open("mesh.foo", "w"):
        pass
    meshio.write("surface.vtu", meshio.Mesh(np.eye(3), [("triangle", np.array([[0, 1, 2]]))]))
    twins = to_meshio(mixed_block())
    twins.points[19] = twins.points[18]
    meshio.write("twins.vtu", twins)
    with pytest.raises(error, match=message):
        call(api)


def test_bad_input_in_a_deck_names_the_line(tmp_path, capsys):
    from solfec_py.cli import main

    (tmp_path / "deck.py").write_text("x = 1\nMESH_IMPORT('nowhere.msh')\n")
    assert main([str(tmp_path / "deck.py"), "--no-progress"]) == 1
    assert "deck.py:2: mesh file 'nowhere.msh' not found" in capsys.readouterr().err


def test_fuzz_truncated_and_random_bytes(api):
    """Truncated, mutated and random files of every format: each import returns a MESH or
    raises a solfec-py error, within 10 s (no uncaught exception, no hang)."""
    def timeout(*_):
        raise TimeoutError("a reader hung")

    rng = np.random.default_rng(20240611)
    previous = signal.signal(signal.SIGALRM, timeout)
    try:
        for name, fmt, options in FILES[:7]:
            data = open(write(name, fmt, options), "rb").read()
            ext = os.path.splitext(name)[1]
            cases = [data[: int(k)] for k in rng.integers(0, len(data), 20)]
            for _ in range(20):
                b = bytearray(data)
                for i in rng.integers(0, len(b), rng.integers(1, 16)):
                    b[i] = rng.integers(0, 256)
                cases.append(bytes(b))
            cases += [rng.bytes(int(rng.integers(0, 4096))) for _ in range(10)]
            for k, case in enumerate(cases):
                path = f"fuzz{k}{ext}"
                with open(path, "wb") as fh:
                    fh.write(case)
                signal.alarm(10)
                try:
                    api.MESH_IMPORT(path)
                except SolfecError:
                    pass
                finally:
                    signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
