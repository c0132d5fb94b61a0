"""Deck geometry commands (Solfec-1.0 user manual, shape utilities; Solfec-1.0 lng.c argument checks): exact names, keywords, defaults, emptying,
attributes, results against hand-worked values, and every argument check (exception type
and a message that names the argument).

Numerical tolerances: 1e-12 for coordinates produced by a few exact operations on O(1)
values (ROTATE by 90 degrees carries cos(pi/2) ~ 6e-17 of round-off).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from solfec_py.api import mesh_generators as G, shapes as S
from solfec_py.errors import InputError, InputTypeError

CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
CUBE_FACES = [4, 0, 3, 2, 1, 1, 4, 0, 1, 5, 4, 2, 4, 1, 2, 6, 5, 3,
              4, 2, 3, 7, 6, 4, 4, 0, 4, 7, 3, 5, 4, 4, 5, 6, 7, 6]
# unit cube as three pyramids with apex node 6 (bases x=0, y=0, z=0), volume ids 1, 2, 3
PYRAMIDS = [5, 0, 3, 7, 4, 6, 1, 5, 0, 4, 5, 1, 6, 2, 5, 0, 1, 2, 3, 6, 3]


def cube_convex(volid=1):
    return S.CONVEX(CUBE, CUBE_FACES, volid)


def cube_hex(i=2, j=2, k=2):
    return G.HEX(CUBE, i, j, k, 1, [1, 2, 3, 4, 5, 6])


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=0, atol=tol)


# ---------------------------------------------------------------------- CONVEX, HULL, MESH2CONVEX

def test_convex_members_and_collection():
    a = cube_convex(1)
    assert a.nver == 8 and a.vertex(6) == (1.0, 1.0, 1.0)
    b = S.CONVEX([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], [3, 0, 2, 1, 7, 3, 0, 1, 3, 7, 3, 1, 2, 3, 7, 3, 2, 0, 3, 7],
                 2, convex=a)
    assert b.nver == 4                         # the new polyhedron is the first member
    assert a.is_empty and len(b._prims) == 2
    with pytest.raises(ValueError, match="The CONVEX object is empty"):
        a.nver
    with pytest.raises(ValueError, match="The CONVEX object is empty"):
        a.vertex(0)
    assert S.MASS_CENTER(b) == pytest.approx(((0.5 + 1 / 4 / 6) / (1 + 1 / 6),) * 3, abs=1e-12)


def test_convex_argument_checks():
    with pytest.raises(InputTypeError, match="'vertices' must be a list"):
        S.CONVEX(tuple(CUBE), CUBE_FACES, 1)
    with pytest.raises(InputError, match="'vertices' must have N \\* 3 elements, where N >= 4"):
        S.CONVEX(CUBE[:9], CUBE_FACES, 1)
    with pytest.raises(InputTypeError, match="'faces' must be a list"):
        S.CONVEX(CUBE, tuple(CUBE_FACES), 1)
    with pytest.raises(InputTypeError, match="'volid' must be an integer"):
        S.CONVEX(CUBE, CUBE_FACES, 1.0)
    with pytest.raises(InputTypeError, match=r"'faces\[1\]' must be an integer"):
        S.CONVEX(CUBE, [4, 0.5] + CUBE_FACES[2:], 1)
    with pytest.raises(InputError, match="'faces': A face must have more than 2 vertices"):
        S.CONVEX(CUBE, [2, 0, 1, 1] + CUBE_FACES, 1)
    with pytest.raises(InputError, match="'faces': The last face definition is incomplete"):
        S.CONVEX(CUBE, CUBE_FACES[:-1], 1)
    with pytest.raises(InputError, match="'faces': At least 4 faces must be defined"):
        S.CONVEX(CUBE, CUBE_FACES[:18], 1)
    with pytest.raises(InputError, match=r"'faces': Vertex 8 in face 1 is outside of range \[0, 7\]"):
        S.CONVEX(CUBE, CUBE_FACES[:6] + [4, 0, 1, 8, 4, 2] + CUBE_FACES[12:], 1)
    with pytest.raises(InputError, match="'faces': Vertices 1 and 1 .* in face 0 are the same"):
        S.CONVEX(CUBE, [4, 0, 1, 1, 2, 1] + CUBE_FACES[6:], 1)
    with pytest.raises(InputTypeError, match="'convex' must be a non-empty CONVEX object"):
        S.CONVEX(CUBE, CUBE_FACES, 1, convex=cube_hex())
    with pytest.raises(InputTypeError, match="CONVEX: missing a required argument: 'volid'"):
        S.CONVEX(CUBE, CUBE_FACES)
    c = cube_convex()
    with pytest.raises(InputTypeError, match="'n' must be an integer"):
        c.vertex(1.0)
    with pytest.raises(InputError, match="Vertex index out of bounds"):
        c.vertex(8)
    with pytest.raises(InputError, match="Writing to a read-only member 'nver'"):
        c.nver = 3


def test_hull_and_joining():
    base = cube_convex()
    hull = S.HULL([0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0.1, 0.1, 0.1], 4, 9, convex=base)
    assert isinstance(hull, S.CONVEX) and hull.nver == 4 and base.is_empty
    # volumes 4/3 (tetrahedron 2^3/6) and 1: centre ((4/3)(0.5) + 1(0.5)) / (7/3) per axis
    assert S.MASS_CENTER(hull) == pytest.approx((0.5,) * 3, abs=1e-12)
    with pytest.raises(RuntimeError, match="'points': Failed to create convex hull"):
        S.HULL([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0], 1, 1)
    with pytest.raises(InputError, match="'points' must have N \\* 3 elements, where N >= 4"):
        S.HULL([0, 0, 0, 1, 0, 0, 0, 1, 0], 1, 1)
    with pytest.raises(InputTypeError, match="'surfid' must be an integer"):
        S.HULL(CUBE, 1, "1")


def test_mesh2convex():
    mesh = S.MESH(CUBE, PYRAMIDS, 4)
    cvx = S.MESH2CONVEX(mesh)
    assert isinstance(cvx, S.CONVEX) and len(cvx._prims) == 3 and not mesh.is_empty
    assert [p.volid for p in cvx._prims] == [1, 2, 3]
    # each pyramid: one outer square (id 4), two outer triangles (id 4), two shared ones
    for p in cvx._prims:
        assert sorted(p.surfids.tolist()) == [-2147483647, -2147483647, 4, 4, 4]
    assert S.MASS_CENTER(cvx) == pytest.approx((0.5, 0.5, 0.5), abs=1e-12)
    with pytest.raises(InputTypeError, match="'mesh' must be a MESH object"):
        S.MESH2CONVEX(cube_convex())
    S.take_shape("shape", mesh)
    with pytest.raises(RuntimeError, match="The mesh object is empty"):
        S.MESH2CONVEX(mesh)


# ---------------------------------------------------------------------- MESH

def test_mesh_members():
    mesh = S.MESH(CUBE, PYRAMIDS, [9, 3, 5, 1, 6, 3, 3, 1, 2, 6, 3])   # face x = 1 -> id 3
    assert mesh.nnod == 8
    assert mesh.nodes_on_surface(3) == [1, 2, 5, 6]
    assert mesh.nodes_on_surface(9) == list(range(8))
    assert mesh.nodes_on_surface(1) is None
    faces = mesh.inter_element_faces()
    assert sorted(sorted(f) for f in faces) == [[0, 1, 6], [0, 3, 6], [0, 4, 6]]
    # the shared face (0, 1, 6) lies in the plane y = z
    on = mesh.inter_element_faces_on_plane((0, 0, 0), (0, 1, -1))
    assert [sorted(f) for f in on] == [[0, 1, 6]]
    assert mesh.inter_element_faces_on_plane((0, 0, 0), (0, 1, -1), False, 1e-3) == on
    # node(n | x, y, z): returns current coordinates; given ones overwrite both configurations
    assert mesh.node(6) == (1.0, 1.0, 1.0)
    assert mesh.node(6, z=1.5) == (1.0, 1.0, 1.5)
    assert mesh._prims[0].ref[6, 2] == 1.5 and mesh._prims[0].cur[6, 2] == 1.5
    assert mesh.set_volid(7) == 7 and set(mesh._prims[0].volids.tolist()) == {7}


def test_mesh_integration_points():
    mesh = cube_hex(1, 1, 1)
    g = 0.5 / math.sqrt(3)
    pts = mesh.volume_integration_points()
    assert len(pts) == 8 and all(isinstance(p, tuple) for p in pts)
    assert sorted({round(p[0], 12) for p in pts}) == [round(0.5 - g, 12), round(0.5 + g, 12)]
    assert len(mesh.surface_integration_points()) == 24
    top = mesh.surface_integration_points(6)
    assert len(top) == 4 and all(p[2] == pytest.approx(1.0) for p in top)
    assert mesh.volume_integration_points(2) == []
    with pytest.raises(InputTypeError, match="'surfid' must be an integer"):
        mesh.surface_integration_points(1.5)


def test_mesh_get_data_round_trip_and_quirks():
    # 3 x 3 x 3 block: the centre element (13) is the only interior one, listed first
    mesh = G.HEX(CUBE, 3, 3, 3, 2, [0, 0, 0, 0, 0, 5])
    nodes, elements, surfids = mesh.get_data()
    assert len(nodes) == 3 * 64
    assert elements[:10] == [8] + mesh._prims[0].conn[13].tolist() + [2]
    assert surfids[0] == 0 and len(surfids) == 1 + 9 * 6      # only the 9 top faces (id 5)
    again = S.MESH(nodes, elements, surfids)
    assert again.nodes_on_surface(5) == mesh.nodes_on_surface(5)
    close(again._prims[0].ref, mesh._prims[0].ref, 0)
    e1 = {tuple(r) for r in mesh._prims[0].conn.tolist()}
    e2 = {tuple(r) for r in again._prims[0].conn.tolist()}
    assert e1 == e2


def test_mesh_argument_checks():
    with pytest.raises(InputError, match="'elements': An element must have 4, 5, 6, 8, 10, 15, or 20 nodes"):
        S.MESH(CUBE, [7, 0, 1, 2, 3, 4, 5, 6, 1], 1)
    with pytest.raises(InputError, match="'elements': The last element definition is incomplete"):
        S.MESH(CUBE, [4, 0, 1, 2, 3], 1)
    with pytest.raises(InputError, match=r"'elements': Node 9 in element 0 is outside of range \[0, 7\]"):
        S.MESH(CUBE, [4, 0, 1, 2, 9, 1], 1)
    with pytest.raises(InputError, match="'elements': Nodes 2 and 2 .* in element 1 are the same"):
        S.MESH(CUBE, [4, 0, 1, 3, 4, 1, 4, 0, 2, 2, 4, 1], 1)
    with pytest.raises(InputTypeError, match="'elements' must be a list"):
        S.MESH(CUBE, (4, 0, 1, 2, 3, 1), 1)
    with pytest.raises(InputTypeError, match="'surfids' must be an integer or a list"):
        S.MESH(CUBE, PYRAMIDS, 1.0)
    with pytest.raises(InputError, match="'surfids': A face must have 3 or 4 nodes"):
        S.MESH(CUBE, PYRAMIDS, [0, 5, 0, 1, 2, 3, 4, 1])
    with pytest.raises(InputError, match=r"'surfids': Node 8 in face 0 is outside of range \[0, 7\]"):
        S.MESH(CUBE, PYRAMIDS, [0, 3, 0, 1, 8, 1])
    with pytest.raises(InputError, match="'surfids': Nodes 1 and 1 .* in face 0 are the same"):
        S.MESH(CUBE, PYRAMIDS, [0, 3, 0, 1, 1, 1])
    with pytest.raises(InputError, match="'surfids': The last face definition is incomplete"):
        S.MESH(CUBE, PYRAMIDS, [0, 3, 0, 1, 2])
    mesh = S.MESH(CUBE, PYRAMIDS, [0])
    with pytest.raises(InputError, match="Node index out of bounds"):
        mesh.node(8)
    with pytest.raises(InputTypeError, match="'n' must be an integer"):
        mesh.node(1.0)
    with pytest.raises(InputTypeError, match="'x' must be a number"):
        mesh.node(1, "0")
    with pytest.raises(InputError, match="'ref' must be boolean"):
        mesh.inter_element_faces_on_plane((0, 0, 0), (0, 0, 1), 1)
    with pytest.raises(InputError, match="'eps' must be positive"):
        mesh.inter_element_faces_on_plane((0, 0, 0), (0, 0, 1), True, 0.0)
    with pytest.raises(InputTypeError, match="'normal' must be a tuple"):
        mesh.inter_element_faces_on_plane((0, 0, 0), [0, 0, 1])
    with pytest.raises(InputTypeError, match="'volid' must be an integer"):
        mesh.set_volid(2.0)
    with pytest.raises(InputError, match="Writing to a read-only member 'nnod'"):
        mesh.nnod = 3
    S.take_shape("shape", mesh)
    for call in (lambda: mesh.nnod, lambda: mesh.node(0), lambda: mesh.nodes_on_surface(0),
                 lambda: mesh.get_data(), lambda: mesh.inter_element_faces(), lambda: mesh.set_volid(1),
                 lambda: mesh.volume_integration_points(), lambda: mesh.surface_integration_points()):
        with pytest.raises(ValueError, match="The MESH object is empty"):
            call()


# ---------------------------------------------------------------------- HEX, PIPE

def test_hex_keywords_and_results():
    mesh = G.HEX(nodes=CUBE, i=2, j=1, k=1, volid=3, surids=[1, 2, 3, 4, 5, 6], dx=[1, 3])
    assert mesh.nnod == 12 and mesh.node(1) == (0.25, 0.0, 0.0)
    assert mesh.nodes_on_surface(4) == [2, 5, 8, 11]        # x = +1 side
    assert S.MASS_CENTER(mesh) == pytest.approx((0.5, 0.5, 0.5), abs=1e-12)


def test_hex_argument_checks():
    with pytest.raises(InputTypeError, match="'i' must be an integer"):
        G.HEX(CUBE, 2.0, 1, 1, 1, [1] * 6)
    with pytest.raises(InputError, match="'k' must be positive"):
        G.HEX(CUBE, 1, 1, 0, 1, [1] * 6)
    with pytest.raises(InputError, match="'nodes' must have N \\* 3 elements, where N >= 8"):
        G.HEX(CUBE[:21], 1, 1, 1, 1, [1] * 6)
    with pytest.raises(InputError, match="'surids' must have at least 6 elements"):
        G.HEX(CUBE, 1, 1, 1, 1, [1] * 5)
    with pytest.raises(InputTypeError, match="'surids' must be a list"):
        G.HEX(CUBE, 1, 1, 1, 1, (1,) * 6)
    with pytest.raises(InputError, match=r"'dy\[i\] for all i' must be positive, got dy\[1\] = -1.0"):
        G.HEX(CUBE, 1, 2, 1, 1, [1] * 6, dy=[1, -1])
    with pytest.raises(InputError, match="'dz' must have N \\* 1 elements, where N >= 3"):
        G.HEX(CUBE, 1, 1, 3, 1, [1] * 6, dz=[1, 1])
    # the keyword is spelled 'surids' (Solfec-1.0 user manual, HEX)
    with pytest.raises(InputTypeError, match="HEX: missing a required argument: 'surids'"):
        G.HEX(CUBE, 1, 1, 1, 1, surfids=[1] * 6)
    with pytest.raises(InputTypeError, match="HEX: got an unexpected keyword argument 'surfids'"):
        G.HEX(CUBE, 1, 1, 1, 1, [1] * 6, surfids=[1] * 6)


def test_pipe():
    mesh = G.PIPE((0, 0, 0), (0, 0, 2), 1.0, 0.5, ndri=3, nrad=8, nthi=2, volid=1, surids=[1, 2, 3, 4])
    assert mesh.nnod == (3 + 1) * 8 * (2 + 1)
    assert S.MASS_CENTER(mesh) == pytest.approx((0.0, 0.0, 1.0), abs=1e-12)
    for n in mesh.nodes_on_surface(3):
        x, y, _ = mesh.node(n)
        assert math.hypot(x, y) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(InputError, match="'rin' must be positive"):
        G.PIPE((0, 0, 0), (0, 0, 2), 0.0, 0.5, 3, 8, 2, 1, [1, 2, 3, 4])
    with pytest.raises(InputError, match="'thi' must be positive"):
        G.PIPE((0, 0, 0), (0, 0, 2), 1.0, -0.5, 3, 8, 2, 1, [1, 2, 3, 4])
    with pytest.raises(InputTypeError, match="'ndri' must be an integer"):
        G.PIPE((0, 0, 0), (0, 0, 2), 1.0, 0.5, 3.0, 8, 2, 1, [1, 2, 3, 4])
    with pytest.raises(InputError, match="'nrad' must be at least 3"):
        G.PIPE((0, 0, 0), (0, 0, 2), 1.0, 0.5, 3, 2, 2, 1, [1, 2, 3, 4])
    with pytest.raises(InputTypeError, match="'dir' must be a tuple"):
        G.PIPE((0, 0, 0), [0, 0, 2], 1.0, 0.5, 3, 8, 2, 1, [1, 2, 3, 4])
    with pytest.raises(InputError, match="'dir' must be non-zero"):
        G.PIPE((0, 0, 0), (0, 0, 0), 1.0, 0.5, 3, 8, 2, 1, [1, 2, 3, 4])
    with pytest.raises(InputError, match="'surids' must have at least 4 elements"):
        G.PIPE((0, 0, 0), (0, 0, 2), 1.0, 0.5, 3, 8, 2, 1, [1, 2, 3])
    with pytest.raises(InputTypeError, match="PIPE: missing a required argument: 'surids'"):
        G.PIPE((0, 0, 0), (0, 0, 2), 1.0, 0.5, 3, 8, 2, 1)


# ---------------------------------------------------------------------- SPHERE, ELLIP

def test_sphere_and_ellip_attributes():
    s = S.SPHERE((1, 2, 3), 0.5, 1, 2)
    assert s.center == (1.0, 2.0, 3.0) and s.radius == 0.5
    e = S.ELLIP(center=(0, 0, 0), radii=(1, 2, 3), volid=1, surfid=1)
    assert e.radii == (1.0, 2.0, 3.0) and e.rot == (1, 0, 0, 0, 1, 0, 0, 0, 1)
    S.ROTATE(e, (0, 0, 0), (0, 0, 1), 90)
    # columns = principal axes: the first axis is now +y, the second -x (column-major tuple)
    close(e.rot, (0, 1, 0, -1, 0, 0, 0, 0, 1))
    for obj, name in ((s, "center"), (s, "radius"), (e, "radii"), (e, "rot"), (e, "center")):
        with pytest.raises(InputError, match=f"Writing to a read-only member '{name}'"):
            setattr(obj, name, 1)
    S.take_shape("shape", [s, e])
    with pytest.raises(ValueError, match="The SPHERE object is empty"):
        s.center
    with pytest.raises(ValueError, match="The ELLIP object is empty"):
        e.rot


def test_sphere_and_ellip_argument_checks():
    with pytest.raises(InputTypeError, match="'center' must be a tuple"):
        S.SPHERE([0, 0, 0], 1, 1, 1)
    with pytest.raises(InputError, match="'center' must have 3 elements"):
        S.SPHERE((0, 0), 1, 1, 1)
    with pytest.raises(InputTypeError, match="'radius' must be a number"):
        S.SPHERE((0, 0, 0), "1", 1, 1)
    with pytest.raises(InputError, match="'radius' must be positive"):
        S.SPHERE((0, 0, 0), -1, 1, 1)
    with pytest.raises(InputTypeError, match="'surfid' must be an integer"):
        S.SPHERE((0, 0, 0), 1, 1, 1.0)
    with pytest.raises(InputTypeError, match="'radii' must be a tuple"):
        S.ELLIP((0, 0, 0), [1, 1, 1], 1, 1)
    with pytest.raises(InputError, match=r"'radii' must be positive, got radii\[2\] = 0.0"):
        S.ELLIP((0, 0, 0), (1, 1, 0), 1, 1)


# ---------------------------------------------------------------------- utilities

def test_tuple_transformations():
    assert S.TRANSLATE((1, 2, 3), (1, 1, 1)) == (2.0, 3.0, 4.0)
    close(S.ROTATE((2, 0, 5), (1, 0, 0), (0, 0, 2), 90), (1, 1, 5))
    close(S.ROTATE((0, 1, 0), (0, 0, 0), (1, 0, 0), -90), (0, 0, -1))
    assert S.SCALE((1, 2, 3), (2, 3, 4)) == (2.0, 6.0, 12.0)


def test_shape_transformations_in_place():
    c = cube_convex()
    assert S.TRANSLATE(c, (1, 0, 0)) is c
    assert c.vertex(0) == (1.0, 0.0, 0.0)
    assert S.ROTATE(c, (1, 0, 0), (0, 0, 1), 90) is c
    close(c.vertex(1), (1, 1, 0))
    assert S.SCALE(c, (2, 2, 2)) is c
    close(S.MASS_CENTER(c), (1.0, 1.0, 1.0))
    # lists are transformed member by member and returned as given
    s, m = S.SPHERE((0, 0, 0), 1, 1, 1), cube_hex()
    group = [s, m]
    assert S.TRANSLATE(group, (0, 0, 5)) is group
    assert s.center == (0.0, 0.0, 5.0) and m.node(0) == (0.0, 0.0, 5.0)
    # SCALE of a sphere: radius *= cx, centre kept (Solfec's documented behaviour)
    S.SCALE(s, (3, 7, 7))
    assert s.radius == 3.0 and s.center == (0.0, 0.0, 5.0)
    e = S.ELLIP((1, 1, 1), (1, 2, 3), 1, 1)
    S.SCALE(e, (2, 3, 4))
    assert e.center == (2.0, 3.0, 4.0) and e.radii == (2.0, 6.0, 12.0)


def test_transformation_argument_checks():
    c = cube_convex()
    with pytest.raises(InputTypeError, match="'vector' must be a tuple"):
        S.TRANSLATE(c, [1, 0, 0])
    with pytest.raises(InputError, match="'shape' must have 3 elements"):
        S.TRANSLATE((1, 2), (1, 0, 0))
    with pytest.raises(InputTypeError, match=r"'shape' must be a non-empty CONVEX/MESH/SPHERE/ELLIP object, a list"
                                             r" of those or a \(x, y, z\) tuple"):
        S.SCALE([1, 2, 3], (1, 1, 1))
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty"):
        S.TRANSLATE([], (1, 0, 0))
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty"):
        S.ROTATE([c, "x"], (0, 0, 0), (0, 0, 1), 1)
    with pytest.raises(InputError, match="Rotation direction is zero"):
        S.ROTATE(c, (0, 0, 0), (0, 0, 0), 30)
    with pytest.raises(InputTypeError, match="'angle' must be a number"):
        S.ROTATE(c, (0, 0, 0), (0, 0, 1), "30")
    with pytest.raises(InputTypeError, match="'coefs' must be a tuple"):
        S.SCALE(c, 2.0)
    with pytest.raises(InputTypeError, match="ROTATE: missing a required argument: 'angle'"):
        S.ROTATE(c, (0, 0, 0), (0, 0, 1))


def test_copy_is_independent():
    c = S.CONVEX(CUBE, CUBE_FACES, 1, convex=cube_convex(2))
    d = S.COPY(c)
    assert isinstance(d, S.CONVEX) and len(d._prims) == 2      # a collection stays one CONVEX
    S.TRANSLATE(d, (5, 0, 0))
    assert c.vertex(0) == (0.0, 0.0, 0.0) and d.vertex(0) == (5.0, 0.0, 0.0)
    m, s = cube_hex(), S.SPHERE((0, 0, 0), 1, 1, 1)
    copies = S.COPY([m, s])
    assert isinstance(copies, list) and isinstance(copies[0], S.MESH) and isinstance(copies[1], S.SPHERE)
    copies[0].node(0, x=-1.0)
    assert m.node(0) == (0.0, 0.0, 0.0)
    S.take_shape("shape", copies)
    assert not m.is_empty and not s.is_empty
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty"):
        S.COPY(copies[0])


def test_take_and_peek_shape():
    a, b = cube_convex(), S.SPHERE((0, 0, 0), 1, 1, 1)
    peeked = S.peek_shape("shape", [a, b])
    assert len(peeked) == 2 and not a.is_empty and peeked[0] is not a._prims[0]
    prims = S.take_shape("shape", [a, b])
    assert len(prims) == 2 and a.is_empty and b.is_empty
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty CONVEX/MESH/SPHERE/ELLIP object or a list"):
        S.take_shape("shape", a)
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty"):
        S.take_shape("shape", [])
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty"):
        S.take_shape("shape", (0, 0, 0))
    c = cube_convex()
    with pytest.raises(InputTypeError, match="'shape' lists the same object twice"):
        S.take_shape("shape", [c, c])
    assert not c.is_empty                            # a refused call empties nothing
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty"):
        S.take_shape("shape", [c, a])
    assert not c.is_empty


def test_mass_center():
    m = cube_hex()
    S.TRANSLATE(m, (1, 2, 3))
    assert S.MASS_CENTER(m) == pytest.approx((1.5, 2.5, 3.5), abs=1e-12)
    assert not m.is_empty
    # a unit cube and a sphere of volume 4/3 pi at x = 10: volume-weighted mean
    s = S.SPHERE((10, 0, 0), 1, 1, 1)
    V = 4 / 3 * math.pi
    assert S.MASS_CENTER([cube_convex(), s])[0] == pytest.approx((0.5 + 10 * V) / (1 + V), rel=1e-12)
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty .* or a BODY object"):
        S.MASS_CENTER(3)

    class FakeBody:                                   # the BODY duck type: current primitives
        deleted = False

        def current_primitives(self):
            prim = cube_convex()._prims[0]
            prim.set_rigid_motion(np.eye(3), (7.0, 8.0, 9.0), (0.5, 0.5, 0.5))
            return [prim]

    assert S.MASS_CENTER(FakeBody()) == pytest.approx((7.0, 8.0, 9.0), abs=1e-12)
    gone = FakeBody()
    gone.deleted = True
    with pytest.raises(InputTypeError, match="'shape' is a recently deleted BODY object"):
        S.MASS_CENTER(gone)


def test_body_takes_shape_and_mesh_view(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/shapes")
    mat = api.BULK_MATERIAL(sol, density=2.0)
    box = api.HEX([0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, 0, 0, 0, 1, 2, 0, 1, 2, 1, 1, 0, 1, 1], 2, 1, 1, 1, [1] * 6)
    body = api.BODY(sol, "RIGID", box, mat)
    assert box.is_empty
    # 2 x 1 x 1 box, density 2: J = rho V / 12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2)
    assert body.volume == pytest.approx(2.0, rel=1e-12) and body.mass == pytest.approx(4.0, rel=1e-12)
    close(body.center, (1.0, 0.5, 0.5))
    close(body.tensor, np.diag([2 * 2 / 12 * 2, 2 * 2 / 12 * 5, 2 * 2 / 12 * 5]).reshape(-1))
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty"):
        api.BODY(sol, "RIGID", box, mat)
    view = body.mesh
    assert isinstance(view, S.MESH) and view.nnod == 12 and view.node(5) == (2.0, 1.0, 0.0)
    # rotate the body by 90 degrees about z and move its centre to (5, 0.5, 0.5): the view
    # follows, x = xc + R (X - X0) with X0 = (1, 0.5, 0.5)
    body.conf = (0, 1, 0, -1, 0, 0, 0, 0, 1, 5.0, 0.5, 0.5)
    close(view.node(0), (5.5, -0.5, 0.0))
    assert S.MASS_CENTER(body) == pytest.approx((5.0, 0.5, 0.5), abs=1e-12)
    assert S.MASS_CENTER(view) == pytest.approx((5.0, 0.5, 0.5), abs=1e-12)
    copy = S.COPY(view)                                    # a free copy of the current configuration
    close(copy.node(0), (5.5, -0.5, 0.0))
    close(copy._prims[0].ref, copy._prims[0].cur, 0)
    assert not view.is_empty and view.node(0) == copy.node(0)


def test_number_lists_refuse_strings_and_nan(api):
    """Lists of numbers (HEX nodes here) take ints, floats and bools only: a numeric string
    is a TypeError naming the item, NaN a ValueError (Solfec-1.0 lng.c argument checks)."""
    nodes = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
    with pytest.raises(TypeError, match=r"'nodes\[4\]' must be a number, got '0' \(str\)"):
        api.HEX(nodes[:4] + ['0'] + nodes[5:], 1, 1, 1, 0, [1] * 6)
    with pytest.raises(ValueError, match=r"'nodes\[2\]' must be a number, got NaN"):
        api.HEX(nodes[:2] + [float('nan')] + nodes[3:], 1, 1, 1, 0, [1] * 6)
