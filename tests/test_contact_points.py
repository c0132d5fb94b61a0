"""CONTACT_POINTS (contact/polygon_points.py): the argument checks, the corners of a
face-face contact, and the acceptance cases of a single HEX 1x1x1 box on a floor in
'POLYGON' mode against closed-form references: resting for 10 s it keeps its angular
velocity below 1e-12 (exact statics: any rotation is spurious); pushed with v0 along the
floor under Coulomb friction it slides without tipping (centre height constant to 1e-6)
and stops after the analytic distance v0^2 / (2 mu g) (within 1 %: the time discretisation
stops the box within one step, h v0 / 2 = 5e-4 m of 0.10 m)."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.errors import InputError

EDGE, RHO, G = 0.1, 1000.0, 9.81


def _box(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    return [x0, y0, z0, x1, y0, z0, x1, y1, z0, x0, y1, z0, x0, y0, z1, x1, y0, z1, x1, y1, z1, x0, y1, z1]


def _scene(api, mode, friction=0.5, h=1e-3):
    sol = api.SOLFEC("DYNAMIC", h, f"out/points_{mode}_{friction}")
    sol.verbose = 'OFF'
    api.GRAVITY(sol, (0, 0, -G))
    mat = api.BULK_MATERIAL(sol, density=RHO)
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=friction)
    assert api.CONTACT_POINTS(sol, mode) == mode
    api.BODY(sol, 'OBSTACLE', api.HEX(_box((-1, -1, -0.1), (1, 1, 0)), 1, 1, 1, 0, [1] * 6), mat)
    box = api.BODY(sol, 'RIGID', api.HEX(_box((0, 0, 0), (EDGE,) * 3), 1, 1, 1, 0, [2] * 6), mat)
    return sol, box


def test_contact_points_arguments(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, "out/points")
    assert api.CONTACT_POINTS(sol) == 'CENTROID'
    with pytest.raises(InputError, match=r"'CENTROID', 'POLYGON'"):
        api.CONTACT_POINTS(sol, 'CORNERS')
    with pytest.raises(TypeError, match="mode"):
        api.CONTACT_POINTS(sol, 4)
    with pytest.raises(TypeError, match="solfec"):
        api.CONTACT_POINTS(None, 'POLYGON')


def test_face_contact_gets_the_four_corners(api):
    """A box on the floor: 'CENTROID' one contact at the face centre with the area of the
    face; 'POLYGON' four at the corners of the face (to eps, the plane swelling), each with
    a quarter of the area."""
    for mode, count in (('CENTROID', 1), ('POLYGON', 4)):
        sol, box = _scene(api, mode)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 1000), 1e-3)
        cons = [c for c in box.constraints if c.kind == 'CONTACT']
        assert len(cons) == count
        pts = np.array([c.point for c in cons])
        area = sum(c.area for c in cons)
        assert area == pytest.approx(EDGE * EDGE, rel=1e-3)
        if mode == 'POLYGON':
            corners = {(round(x / EDGE), round(y / EDGE)) for x, y in pts[:, :2]}
            assert corners == {(0, 0), (0, 1), (1, 0), (1, 1)}
            assert np.abs(pts[:, :2] - np.round(pts[:, :2] / EDGE) * EDGE).max() < 1e-5
        else:
            assert pts[0, :2] == pytest.approx((EDGE / 2, EDGE / 2), abs=1e-9)


@pytest.mark.slow
def test_polygon_box_rests_without_rotation(api):
    """10 s at rest: |omega| < 1e-12 throughout and the weight carried (sum R_N = m g)."""
    sol, box = _scene(api, 'POLYGON')
    worst = [0.0]

    def watch():
        worst[0] = max(worst[0], float(np.abs(box.velo[:3]).max()))
        return 1

    api.CALLBACK(sol, 1e-3, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 10.0)
    assert worst[0] < 1e-12
    rn = sum(c.R[2] for c in box.constraints if c.kind == 'CONTACT')
    assert rn == pytest.approx(box.mass * G, rel=1e-8)


@pytest.mark.slow
def test_polygon_box_slides_without_tipping(api):
    """v0 = 1 m/s, mu = 0.5: stops after v0^2 / (2 mu g) = 0.1019 m; centre height constant
    to 1e-6 all the way, no rotation beyond 1e-9 rad/s."""
    v0, mu = 1.0, 0.5
    sol, box = _scene(api, 'POLYGON', friction=mu)
    api.INITIAL_VELOCITY(box, (v0, 0, 0), (0, 0, 0))
    z0, x0 = box.conf[11], box.conf[9]
    dz, spin = [0.0], [0.0]

    def watch():
        dz[0] = max(dz[0], abs(box.conf[11] - z0))
        spin[0] = max(spin[0], float(np.abs(box.velo[:3]).max()))
        return 1

    api.CALLBACK(sol, 1e-3, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.3)
    distance = box.conf[9] - x0
    assert distance == pytest.approx(v0 ** 2 / (2 * mu * G), rel=0.01)
    assert dz[0] < 1e-6 and spin[0] < 1e-9
    assert abs(box.velo[3]) < 1e-9                     # stopped
