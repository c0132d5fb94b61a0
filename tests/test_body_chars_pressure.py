"""BODY_CHARS on finite-element bodies, PRESSURE and APPLY_BULKMAT on rigid bodies against
analytic values. An a x b x c block of density rho: m = rho a b c, the centre, the inertia
J = m/12 diag(b^2+c^2, a^2+c^2, a^2+b^2) (rigid) and the Euler tensor m/12 diag(a^2, b^2,
c^2) (finite element) to 1e-12 (polyhedral integration is exact for a box). PRESSURE p on
the faces of a surface id of a rigid box is Solfec-1.0's resultant (bod.c): the force p S,
S the faces' area vector, at the mean of the faces' centres; after one step from rest
without gravity v = h p S / m and Omega = h J^-1 (r x p S), to 1e-9 relative (h = 1e-4: the
rotation within the step changes the angular velocity by O(h^2 |Omega|)). APPLY_BULKMAT:
two unit cubes, the second one with thrice the density: m, centre and inertia by the
parallel-axis rule, to 1e-12.
"""
from __future__ import annotations

import numpy as np
import pytest

RHO = 1000.0


def box(api, a, b, c, x0=(0, 0, 0), volid=1, surf=(1, 2, 3, 4, 5, 6), n=(2, 2, 2)):
    nodes = [0, 0, 0, a, 0, 0, a, b, 0, 0, b, 0, 0, 0, c, a, 0, c, a, b, c, 0, b, c]
    shp = api.HEX(nodes, *n, volid, list(surf))
    api.TRANSLATE(shp, tuple(x0))
    return shp


def _model(api):
    sol = api.SOLFEC("DYNAMIC", 1e-4, "out/chars")
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e9, poisson=0.25, density=RHO, label="m")
    return sol, mat


def test_finite_element_block_has_the_rigid_blocks_characteristics(api):
    sol, mat = _model(api)
    a, b, c, x0 = 2.0, 1.0, 0.5, np.array([1.0, -2.0, 3.0])
    fe = api.BODY(sol, "FINITE_ELEMENT", box(api, a, b, c, x0), mat)
    rb = api.BODY(sol, "RIGID", box(api, a, b, c, x0), mat)
    m = RHO * a * b * c
    centre = x0 + 0.5 * np.array([a, b, c])
    euler = m / 12 * np.diag([a * a, b * b, c * c])
    J = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    for body in (fe, rb):
        assert body.mass == pytest.approx(m, rel=1e-12) and body.volume == pytest.approx(a * b * c, rel=1e-12)
        np.testing.assert_allclose(body.center, centre, rtol=1e-12)
    np.testing.assert_allclose(np.reshape(fe.tensor, (3, 3)), euler, atol=1e-12 * m)
    np.testing.assert_allclose(np.reshape(rb.tensor, (3, 3)), J, atol=1e-12 * m)
    # J = tr(E) I - E relates the two
    np.testing.assert_allclose(np.trace(euler) * np.eye(3) - euler, J, atol=1e-12 * m)


def test_body_chars_overwrites_a_finite_element_body(api):
    sol, mat = _model(api)
    fe = api.BODY(sol, "FINITE_ELEMENT", box(api, 1.0, 1.0, 1.0), mat)
    E = (1.0, 0.1, 0.0, 0.1, 2.0, 0.0, 0.0, 0.0, 3.0)
    api.BODY_CHARS(fe, 7.0, 0.9, (0.25, 0.5, 0.75), E)
    assert (fe.mass, fe.volume, fe.center, fe.tensor) == (7.0, 0.9, (0.25, 0.5, 0.75), E)
    # INITIAL_VELOCITY turns about the new centre (Solfec fem.c FEM_Initial_Velocity: X0 = ref_center)
    w = np.array([0.0, 0.0, 2.0])
    api.INITIAL_VELOCITY(fe, (1, 0, 0), tuple(w))
    X = fe.block.X[fe.block.nodes_of(fe.row)]
    expected = np.array([1.0, 0, 0]) + np.cross(w, X - np.array([0.25, 0.5, 0.75]))
    np.testing.assert_allclose(np.reshape(fe.velo, (-1, 3)), expected, atol=1e-12)
    # the nodal masses still come from the elements: total rho V
    assert fe.block.prepared().mass[fe.block.nodes_of(fe.row)].sum() == pytest.approx(RHO, rel=1e-12)


@pytest.mark.parametrize("surfids, p", [((6,), 2.0e4), ((2, 6), -3.0e4)])
def test_pressure_on_a_rigid_box_is_its_resultant(api, surfids, p):
    sol, mat = _model(api)
    a, b, c = 2.0, 1.0, 0.5
    # HEX surface ids, in the order bottom, -x, +y, +x, -y, top
    surf = [10 + k for k in range(6)]
    for s in surfids:
        surf[s - 1] = 99
    body = api.BODY(sol, "RIGID", box(api, a, b, c, surf=surf), mat)
    api.PRESSURE(body, 99, p)
    h = 1e-4
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 10), h)
    m = RHO * a * b * c
    J = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    normal = {1: (0, 0, -1), 2: (-1, 0, 0), 3: (0, 1, 0), 4: (1, 0, 0), 5: (0, -1, 0), 6: (0, 0, 1)}
    area = {1: a * b, 2: b * c, 3: a * c, 4: b * c, 5: a * c, 6: a * b}
    centre_of = {1: (a / 2, b / 2, 0), 2: (0, b / 2, c / 2), 3: (a / 2, b, c / 2), 4: (a, b / 2, c / 2),
                 5: (a / 2, 0, c / 2), 6: (a / 2, b / 2, c)}
    S = sum(area[s] * np.array(normal[s], float) for s in surfids)
    # faces of the 2 x 2 x 2 HEX: 4 a face, all of one size, so the mean point of the faces'
    # centres is the mean of the box faces' centres
    point = np.mean([centre_of[s] for s in surfids], axis=0)
    force = p * S
    torque = np.cross(point - np.array([a, b, c]) / 2, force)
    v = np.array(body.velo[3:])
    Omega = np.array(body.velo[:3])
    np.testing.assert_allclose(v, h * force / m, rtol=1e-9, atol=1e-12 * np.abs(h * force / m).max())
    np.testing.assert_allclose(Omega, h * np.linalg.solve(J, torque), rtol=1e-9,
                               atol=1e-9 * max(1.0, np.abs(h * np.linalg.solve(J, torque)).max()))
    if len(surfids) > 1:
        assert np.abs(Omega).max() > 0          # an off-centre resultant turns the box


def test_pressure_needs_a_single_mesh_and_the_surface(api):
    from solfec_py.errors import InputError

    sol, mat = _model(api)
    body = api.BODY(sol, "RIGID", box(api, 1, 1, 1), mat)
    with pytest.raises(InputError, match="no boundary faces with surface id 42"):
        api.PRESSURE(body, 42, 1.0)
    ball = api.BODY(sol, "RIGID", api.SPHERE((5, 0, 0), 1, 1, 1), mat)
    with pytest.raises(InputError, match="single MESH"):
        api.PRESSURE(ball, 1, 1.0)


def test_apply_bulkmat_on_a_rigid_body(api):
    sol, mat = _model(api)
    api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e9, poisson=0.25, density=3 * RHO, label="heavy")
    body = api.BODY(sol, "RIGID", [box(api, 1, 1, 1, volid=1), box(api, 1, 1, 1, (1, 0, 0), volid=2)], mat)
    np.testing.assert_allclose(body.center, (1.0, 0.5, 0.5), rtol=1e-12)
    api.APPLY_BULKMAT(sol, body, 2, "heavy")
    m1, m2 = RHO, 3 * RHO
    c1, c2 = np.array([0.5, 0.5, 0.5]), np.array([1.5, 0.5, 0.5])
    X0 = (m1 * c1 + m2 * c2) / (m1 + m2)
    assert body.mass == pytest.approx(m1 + m2, rel=1e-12)
    np.testing.assert_allclose(body.center, X0, rtol=1e-12)
    J = np.zeros((3, 3))
    for mi, ci in ((m1, c1), (m2, c2)):
        d = ci - X0
        J += mi / 6 * np.eye(3) + mi * (d @ d * np.eye(3) - np.outer(d, d))     # unit cube: m/6 I
    np.testing.assert_allclose(np.reshape(body.tensor, (3, 3)), J, atol=1e-12 * (m1 + m2))
    np.testing.assert_allclose(body.conf[9:12], X0, rtol=1e-12)                 # at rest: the centre moved
    from solfec_py.errors import InputError

    with pytest.raises(InputError, match="no part with volume id 7"):
        api.APPLY_BULKMAT(sol, body, 7, "heavy")
