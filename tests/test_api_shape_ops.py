"""BEND, SPLIT, MESH_SPLIT, OVERLAPPING and ROUGH_HEX against results worked out by hand:
bent meshes on their circles, cut volumes and cut-face areas of planes through boxes, parts
and duplicated nodes of split pipes, overlap of spheres and boxes at known distances.

Tolerances: coordinates, volumes and areas at 1e-12 (exact in exact arithmetic, a few
flops of round-off on O(1) values).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from solfec_py.errors import GeometryError, InputError, InputTypeError, NotAvailableError
from solfec_py.geometry.massprops import mass_properties
from solfec_py.geometry.mesh_import import signed_volumes

CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def volume(shape) -> float:
    items = shape if isinstance(shape, list) else [shape]
    return sum(mass_properties(s._prims)[0] for s in items)


def box(api, lo, hi, i=1, j=1, k=1, sids=(1, 2, 3, 4, 5, 6)):
    nodes = list((np.array(CUBE, float).reshape(8, 3) * (np.array(hi) - lo) + lo).ravel())
    return api.HEX(nodes, i, j, k, 0, list(sids))


# ---------------------------------------------------------------------- BEND

def cylinder_section(api, inner=1.0, thick=1.0, height=2.0, angle=90.0, extra=0.0, divisions=10):
    """Solfec's cylinder-section idiom (inp/cylsec.py): a straight block bent about z."""
    msh = api.HEX(CUBE, 2, divisions, 2, 0, [0] * 6)
    api.SCALE(msh, (thick, math.pi * angle / 180 * inner + extra, height))
    api.TRANSLATE(msh, (-thick - inner, 0, 0))
    return msh


def test_bend_makes_a_cylinder_section(api):
    msh = cylinder_section(api)
    assert api.BEND(msh, (0, 0, 0), (0, 0, -1), 90) is msh
    X = msh._mesh().ref
    r = np.hypot(X[:, 0], X[:, 1])
    assert np.allclose(np.sort(np.unique(np.round(r, 12))), [1.0, 1.5, 2.0], atol=1e-12)
    theta = np.degrees(np.arctan2(X[:, 1], -X[:, 0]))
    np.testing.assert_allclose(np.sort(np.unique(np.round(theta, 9))), 9.0 * np.arange(11), atol=1e-9)
    np.testing.assert_allclose(msh._mesh().cur, X)
    # the volume of the polygonal annulus sector: 10 wedges of angle 9 degrees between r = 1 and 2
    exact = 0.5 * 10 * math.sin(math.radians(9)) * (2 ** 2 - 1 ** 2) * 2.0
    assert mass_properties(msh._prims)[0] == pytest.approx(exact, rel=1e-12)


def test_bend_continues_straight_beyond_the_angle(api):
    msh = cylinder_section(api, extra=0.5, divisions=1)            # one element: nodes at y = 0 and pi/2 + 0.5
    api.BEND(msh, (0, 0, 0), (0, 0, -1), 90)
    X = msh._mesh().ref
    end = X[np.isclose(X[:, 1], 1.0) & (X[:, 0] > 0)]              # inner end: the arc end (0, 1) + 0.5 along x
    np.testing.assert_allclose(np.unique(np.round(end[:, 0], 12)), [0.5], atol=1e-12)


def test_bend_errors(api):
    msh = box(api, (0, 0, 0), (1, 1, 1))
    with pytest.raises(InputError, match="Bending axis is stabbing the mesh"):
        api.BEND(msh, (0.5, 0.5, 0), (0, 0, 1), 90)
    with pytest.raises(InputError, match="'angle' must be positive"):
        api.BEND(msh, (2, 0, 0), (0, 0, 1), 0)
    with pytest.raises(InputError, match="'direction' must be non-zero"):
        api.BEND(msh, (2, 0, 0), (0, 0, 0), 90)
    with pytest.raises(InputTypeError, match="'shape' must be a MESH object"):
        api.BEND(api.SPHERE((0, 0, 0), 1, 0, 0), (2, 0, 0), (0, 0, 1), 90)
    with pytest.raises(InputTypeError, match="'point' must be a tuple"):
        api.BEND(msh, [2, 0, 0], (0, 0, 1), 90)


# ---------------------------------------------------------------------- SPLIT

def test_split_convex(api):
    cvx = api.HULL(list((np.array(CUBE, float).reshape(8, 3) * (2, 1, 1)).ravel()), 1, 1)
    one, two = api.SPLIT(cvx, (0.5, 0, 0), (1, 0, 0), (7, 8))
    assert cvx.is_empty and isinstance(one, type(cvx)) and isinstance(two, type(cvx))
    assert volume(one) == pytest.approx(1.5, rel=1e-12) and volume(two) == pytest.approx(0.5, rel=1e-12)
    # the cut face of the part below (outward normal = normal) gets surfid[0]
    assert 7 in two._prims[0].surfids and 8 in one._prims[0].surfids


def two_cube_collection(api):
    faces = [4, 0, 3, 2, 1, 1, 4, 4, 5, 6, 7, 1, 4, 0, 1, 5, 4, 1, 4, 1, 2, 6, 5, 1, 4, 2, 3, 7, 6, 1, 4, 3, 0, 4, 7, 1]
    a = api.CONVEX(CUBE, faces, 1)
    shifted = list((np.array(CUBE, float).reshape(8, 3) + (1, 0, 0)).ravel())
    return api.CONVEX(shifted, faces, 1, a)


def test_split_convex_collection(api):
    one, two = api.SPLIT(two_cube_collection(api), (0, 0, 0.25), (0, 0, 1))
    assert len(one._prims) == 2 and len(two._prims) == 2            # each side stays one collection
    assert volume(one) == pytest.approx(1.5, rel=1e-12) and volume(two) == pytest.approx(0.5, rel=1e-12)
    one, two = api.SPLIT(two_cube_collection(api), (1, 0, 0), (1, 0, 0))   # along the shared face
    assert len(one._prims) == 1 and len(two._prims) == 1
    assert one._prims[0].cur[:, 0].min() == pytest.approx(1.0) and two._prims[0].cur[:, 0].max() == pytest.approx(1.0)


def test_split_mesh_along_faces(api):
    msh = box(api, (0, 0, 0), (2, 1, 1), 2, 2, 2)
    one, two = api.SPLIT(msh, (1, 0, 0), (1, 0, 0), (7, 8), remesh='OFF')
    assert msh.is_empty and volume(one) == pytest.approx(1.0) and volume(two) == pytest.approx(1.0)
    assert len(two.nodes_on_surface(7)) == 9 and two.nodes_on_surface(8) is None
    assert len(one.nodes_on_surface(8)) == 9 and one.nnod == two.nnod == 18


def test_split_mesh_through_elements(api):
    """The plane x + 0.4 y + 0.3 z = 0.85 through the box [0,2]x[0,1]x[0,1]: the part below
    has volume 0.85 - 0.2 - 0.15 = 0.5; the cut is a parallelogram of area sqrt(1.25)."""
    msh = box(api, (0, 0, 0), (2, 1, 1), 2, 2, 2)
    one, two = api.SPLIT(msh, (0.7, 0.3, 0.1), (1, 0.4, 0.3), (7, 8))
    assert volume(two) == pytest.approx(0.5, rel=1e-12) and volume(one) == pytest.approx(1.5, rel=1e-12)
    n = np.array([1, 0.4, 0.3]) / np.linalg.norm([1, 0.4, 0.3])
    # HEX surids: 1 z-, 2 x-, 3 y+, 4 x+, 5 y-, 6 z+; the part below misses x = 2, the one above x = 0
    for part, sid, ids in ((two, 7, {1, 2, 3, 5, 6}), (one, 8, {1, 3, 4, 5, 6})):
        m = part._mesh()
        assert signed_volumes(m.ref, m.etype, m.conn).min() > 0
        nodes, sizes, sids, _ = m.boundary_faces()
        assert set(sids.tolist()) == ids | {sid}                       # old ids kept, the cut face's id
        cut = nodes[sids == sid]
        assert np.allclose((m.ref[cut[cut >= 0]] - (0.7, 0.3, 0.1)) @ n, 0.0, atol=1e-12)
        pts, tri, tsid = m.surface_triangles()
        area = 0.5 * np.linalg.norm(np.cross(pts[tri[:, 1]] - pts[tri[:, 0]], pts[tri[:, 2]] - pts[tri[:, 0]]), axis=1)
        assert area[tsid == sid].sum() == pytest.approx(math.sqrt(1.25), rel=1e-12)


def u_shape(api):
    """A U of hexahedra: a bottom row x in [0, 3], two prongs two elements tall."""
    X, elements = [], []
    index = {}

    def node(p):
        if p not in index:
            index[p] = len(X) // 3
            X.extend(p)
        return index[p]

    for (x, z) in [(0, 0), (1, 0), (2, 0), (0, 1), (0, 2), (2, 1), (2, 2)]:
        c = [(x, 0, z), (x + 1, 0, z), (x + 1, 1, z), (x, 1, z), (x, 0, z + 1), (x + 1, 0, z + 1),
             (x + 1, 1, z + 1), (x, 1, z + 1)]
        elements += [8] + [node(p) for p in c] + [1]
    return api.MESH(X, elements, 3)


def test_split_topologically_adjacent(api):
    one, two = api.SPLIT(u_shape(api), (0.5, 0.5, 2), (0, 0, 1), (7, 8), 'ON')
    assert volume(one) == pytest.approx(1.0) and volume(two) == pytest.approx(6.0)   # the left prong's top only
    one, two = api.SPLIT(u_shape(api), (0.5, 0.5, 2), (0, 0, 1), (7, 8), 'OFF')
    assert isinstance(one, list) and [volume(p) for p in one] == pytest.approx([1.0, 1.0])
    assert volume(two) == pytest.approx(5.0)


def test_split_spheres_and_lists(api):
    ball, far = api.SPHERE((0, 0, 2), 1, 1, 1), api.SPHERE((0, 0, -2), 1, 1, 1)
    one, two = api.SPLIT([ball, far], (0, 0, 0), (0, 0, 1))
    assert one.center == (0, 0, 2) and two.center == (0, 0, -2)
    ball = api.SPHERE((0, 0, 0.5), 1, 1, 1)
    with pytest.raises(NotAvailableError, match="SPLIT cannot cut SPHERE objects"):
        api.SPLIT(ball, (0, 0, 0), (0, 0, 1))
    assert not ball.is_empty                                        # nothing happened


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(surfid=[1, 2]), InputTypeError, "'surfid' must be a tuple"),
    (dict(surfid=(1, 2, 3)), InputError, "'surfid' must have 2 elements"),
    (dict(topoadj='MAYBE'), InputError, "Invalid topoadj value: neither 'ON' nor 'OFF'"),
    (dict(remesh='NO'), InputError, "Invalid remesh value: neither 'ON' nor 'OFF'"),
    (dict(normal=(0, 0, 0)), InputError, "'normal' must be non-zero"),
    (dict(remesh='OFF', point=(0.5, 0.5, 0.5), normal=(1, 1, 0)), InputError,
     "Inter-element boundary mesh splitting failed while remeshing is disabled"),
])
def test_split_errors(api, kwargs, error, message):
    msh = box(api, (0, 0, 0), (1, 1, 1), 2, 2, 2)
    args = dict(point=(0.5, 0, 0), normal=(1, 0, 0))
    args.update(kwargs)
    with pytest.raises(error, match=message):
        api.SPLIT(msh, **args)
    assert not msh.is_empty
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty"):
        api.SPLIT(None, (0, 0, 0), (1, 0, 0))


# ---------------------------------------------------------------------- MESH_SPLIT

def radial_face(r):
    """Nodes of the PIPE's radial face at angle index r (Solfec-1.0's PIPE numbering, msh.c
    MESH_Pipe; nrad = 8, nthi = 1, ndir = 1: node = i 16 + j 2 + k, i along the axis, j the
    angle, k the radius): [0, 1, 17, 16] for r = 0, as Solfec's inp/devel/mesh_split.py lists."""
    return [2 * r, 2 * r + 1, 17 + 2 * r, 16 + 2 * r]


def test_mesh_split_of_a_pipe(api):
    pipe = api.PIPE((0, 0, 0), (0, 0, 2), 0.5, 1, 1, 8, 1, 1, [1, 2, 3, 4])
    total = volume(pipe)
    (opened,) = api.MESH_SPLIT(pipe, faceset=[radial_face(0)], surfid1=5, surfid2=6)
    assert pipe.nnod == 32 and opened.nnod == 36                     # the ring opens: 4 nodes doubled
    assert volume(opened) == pytest.approx(total, rel=1e-12)
    a, b = opened.nodes_on_surface(5), opened.nodes_on_surface(6)
    assert len(a) == len(b) == 4 and not set(a) & set(b)
    X = opened._mesh().ref
    assert {tuple(p) for p in X[a].round(12)} == {tuple(p) for p in X[b].round(12)}
    parts = api.MESH_SPLIT(pipe, faceset=[radial_face(0), radial_face(3)], surfid1=5, surfid2=6)
    assert sorted(round(volume(p) / total * 8) for p in parts) == [3, 5]
    assert all(p.nnod == ((4 if round(volume(p) / total * 8) == 3 else 6) * 4) for p in parts)
    (by_nodes,) = api.MESH_SPLIT(pipe, nodeset=radial_face(2), surfid1=9)
    assert len(by_nodes.nodes_on_surface(9)) == 8
    assert radial_face(0) == [0, 1, 17, 16]
    assert api.MESH_SPLIT(pipe, faceset=[[0, 2, 18, 16]]) is None   # a boundary face (inner): nothing to split
    assert api.MESH_SPLIT(pipe) is None


def test_mesh_split_sides_follow_the_listed_normal(api):
    msh = box(api, (0, 0, 0), (2, 1, 1), 2, 1, 1)                   # nodes 1, 4, 7, 10 on x = 1
    parts = api.MESH_SPLIT(msh, faceset=[[1, 4, 10, 7]], surfid1=7, surfid2=8)   # ccw about +x
    left = next(p for p in parts if p._mesh().ref[:, 0].max() == pytest.approx(1.0))
    assert len(left.nodes_on_surface(7)) == 4 and left.nodes_on_surface(8) is None


def test_mesh_split_errors(api):
    msh = box(api, (0, 0, 0), (1, 1, 1))
    with pytest.raises(InputTypeError, match="'mesh' must be a MESH object"):
        api.MESH_SPLIT(None)
    with pytest.raises(InputError, match="'faceset' must be a list of lists"):
        api.MESH_SPLIT(msh, faceset=[1, 2, 3])
    with pytest.raises(InputError, match="invalid face size \\(neither 3 nor 4\\)"):
        api.MESH_SPLIT(msh, faceset=[[0, 1]])
    with pytest.raises(InputTypeError, match="'surfid1' must be a number"):
        api.MESH_SPLIT(msh, faceset=[[0, 1, 2]], surfid1='a')
    with pytest.raises(InputError, match=r"'faceset' node numbers must be in \[0, 7\]"):
        api.MESH_SPLIT(msh, faceset=[[0, 1, 99]])
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/ms")
    api.BODY(sol, 'RIGID', msh, api.BULK_MATERIAL(sol))
    with pytest.raises(GeometryError, match="The mesh object is empty"):
        api.MESH_SPLIT(msh, faceset=[[0, 1, 2]])


# ---------------------------------------------------------------------- OVERLAPPING

def balls(api, *zs, r=0.3):
    return [api.SPHERE((0.5, 0.5, z), r, 1, 1) for z in zs]


def test_overlapping_selects_and_empties(api):
    obstacle = box(api, (0, 0, 0), (1, 1, 1))
    shapes = balls(api, 1.2, 1.4, 3.0)                               # gaps -0.1, +0.1, far
    got = api.OVERLAPPING(obstacle, shapes)
    assert got.center == (0.5, 0.5, 1.2) and all(s.is_empty for s in shapes) and not obstacle.is_empty
    got = api.OVERLAPPING(obstacle, balls(api, 1.2, 1.4, 3.0), 'NOT')
    assert [s.center[2] for s in got] == [1.4, 3.0]                  # input order
    assert api.OVERLAPPING(obstacle, balls(api, 1.2, 1.25), gap=-0.07).center == (0.5, 0.5, 1.2)
    assert api.OVERLAPPING([obstacle], balls(api, 3.0)) is None
    cubes = [api.TRANSLATE(api.HULL(CUBE, 1, 1), shift) for shift in ((0.5, 0, 0), (2.0, 0, 0), (0, 0, 1))]
    got = api.OVERLAPPING(obstacle, cubes)                           # overlapping, far, touching
    assert len(got) == 2 and volume(got) == pytest.approx(2.0)


def test_overlapping_ellipsoids(api):
    """Ellipsoids take part like spheres: a turned ellipsoid (semi-axes 1, 0.5, 0.25) whose
    long axis, after a 90-degree turn, points at a unit box from 0.9 away overlaps it; one
    turned the other way (the 0.5 axis towards the box) does not."""
    obstacle = box(api, (0, 0, 0), (1, 1, 1))

    def egg(radii):
        e = api.ELLIP((1.9, 0.5, 0.5), radii, 1, 1)
        api.ROTATE(e, (1.9, 0.5, 0.5), (0, 0, 1), 90.0)
        return e

    near, far = egg((0.5, 1.0, 0.25)), egg((1.0, 0.5, 0.25))       # 1.0 / 0.5 axis along x
    assert api.OVERLAPPING(obstacle, [far]) is None
    assert isinstance(api.OVERLAPPING(obstacle, [near, egg((1.0, 0.5, 0.25))]), api.ELLIP)


def test_overlapping_errors(api):
    obstacle = box(api, (0, 0, 0), (1, 1, 1))
    with pytest.raises(InputTypeError, match="'gap' must be a number <= 0"):
        api.OVERLAPPING(obstacle, balls(api, 1.2), gap=0.1)
    with pytest.raises(InputError, match="Only 'NOT' is valid"):
        api.OVERLAPPING(obstacle, balls(api, 1.2), 'YES')
    with pytest.raises(InputTypeError, match="'not' must be a string"):
        api.OVERLAPPING(obstacle, balls(api, 1.2), 1)
    with pytest.raises(InputTypeError, match="'shapes' must be a non-empty"):
        api.OVERLAPPING(obstacle, [])
    with pytest.raises(InputTypeError, match="OVERLAPPING: missing a required argument: 'shapes'"):
        api.OVERLAPPING(None)
    with pytest.raises(InputTypeError, match="OVERLAPPING: multiple values for argument 'obstacles'"):
        api.OVERLAPPING(None, None, obstacles=None)
    with pytest.raises(InputTypeError, match="OVERLAPPING: too many positional arguments"):
        api.OVERLAPPING(1, 2, 3, 4, 5)
    with pytest.raises(InputTypeError, match="OVERLAPPING: got an unexpected keyword argument 'bogus'"):
        api.OVERLAPPING(None, None, bogus=1)


# ---------------------------------------------------------------------- ROUGH_HEX

def test_rough_hex_fits_the_oriented_box(api):
    corners = np.array(CUBE, float).reshape(8, 3) * (3, 1, 2)
    cvx = api.ROTATE(api.HULL(list(corners.ravel()), 1, 1), (0, 0, 0), (1, 1, 1), 30)
    rough = api.ROUGH_HEX(cvx, 2, 1, 1)
    m = rough._mesh()
    assert not cvx.is_empty and set(m.volids.tolist()) == {2147483647}
    assert set(m.boundary_faces()[2].tolist()) == {2147483647}
    assert mass_properties(rough._prims)[0] == pytest.approx(6.0, rel=1e-12)
    hull = cvx._prims[0].cur
    for corner in m.ref[[0, 2, 3, 5, 6, 8, 9, 11]]:                 # the 8 block corners are the box's
        assert np.min(np.linalg.norm(hull - corner, axis=1)) < 1e-12
    assert np.linalg.norm(m.ref[1] - m.ref[0]) == pytest.approx(0.5, rel=1e-12)   # i along the thinnest side
    graded = api.ROUGH_HEX(cvx, 2, 1, 1, dx=[1, 3])._mesh()
    assert np.linalg.norm(graded.ref[1] - graded.ref[0]) == pytest.approx(0.25, rel=1e-12)


def test_rough_hex_errors(api):
    with pytest.raises(InputTypeError, match="'shape' must be a non-empty CONVEX object or a list of those"):
        api.ROUGH_HEX(box(api, (0, 0, 0), (1, 1, 1)), 1, 1, 1)
    cvx = api.HULL(CUBE, 1, 1)
    with pytest.raises(InputError, match="'i' must be positive"):
        api.ROUGH_HEX(cvx, 0, 1, 1)
    with pytest.raises(InputError, match=r"'dx\[i\] for all i' must be positive"):
        api.ROUGH_HEX(cvx, 2, 1, 1, dx=[1, 0])
