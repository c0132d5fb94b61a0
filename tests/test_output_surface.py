"""Visualisation surfaces: the coarse (live ParaView) tessellation of spheres and ellipsoids
puts its 42 points on the exact surface and keeps the closed, outward triangulation."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.output.surface import reference_triangles


def enclosed_volume(points, triangles):
    a, b, c = (points[triangles[:, i]] for i in range(3))
    return np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0


@pytest.mark.parametrize("coarse, npts", [(True, 42), (False, 162)])
def test_ellipsoid_tessellation_lies_on_the_ellipsoid(api, coarse, npts):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/surf')
    mat = api.BULK_MATERIAL(sol)
    e = api.ELLIP((1, 2, 3), (0.1, 0.2, 0.3), 1, 1)
    api.ROTATE(e, (1, 2, 3), (1, 1, 0), 30)
    body = api.BODY(sol, 'RIGID', e, mat)
    pts, tri = reference_triangles(body, coarse)
    assert pts.shape == (npts, 3) and tri.max() == npts - 1
    prim = body.shape[0]
    local = (pts - prim.ref_center) @ prim.ref_rot / prim.radii      # back to the unit sphere
    assert np.linalg.norm(local, axis=1) == pytest.approx(1.0, abs=1e-12)
    # closed and outward: the enclosed volume is positive and below the exact 4/3 pi abc
    exact = 4 / 3 * np.pi * 0.1 * 0.2 * 0.3
    vol = enclosed_volume(pts, tri)
    assert 0.6 * exact < vol < exact
