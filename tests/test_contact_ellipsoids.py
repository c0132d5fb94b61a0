"""Ellipsoid contact (solfec_py/contact/ellipsoids.py) against brute-force searches: the
nearest boundary point of an ellipse / ellipsoid against a dense sample of its surface; the
gap and normal of ellipsoid-ellipsoid and box-ellipsoid pairs against the least of the
support function F(d) = h_S(d) + h_M(-d) over 50 000 sampled directions refined by a
simplex search, and, for pairs apart, against the least distance between dense samples of
both surfaces. Then the dynamics: an ellipsoid resting on a floor carries R_N = m g, and a
few ellipsoids dropped into a box stay in it without deep penetrations."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.spatial import cKDTree

from solfec_py.contact import ellipsoids as EL

_PATHS = itertools.count()
RNG_SEED = 7


def _directions(n: int) -> np.ndarray:
    """n nearly uniform unit vectors (Fibonacci lattice)."""
    i = np.arange(n) + 0.5
    phi, th = np.arccos(1 - 2 * i / n), np.pi * (1 + 5 ** 0.5) * i
    return np.column_stack([np.cos(th) * np.sin(phi), np.sin(th) * np.sin(phi), np.cos(phi)])


def _h_ellip(c, A, D):
    return D @ c + np.linalg.norm(D @ A, axis=1)


def _least_F(F):
    """Brute-force least of F over unit directions: a 50 000-direction sample, then a
    Nelder-Mead polish in the tangent plane of the best sample."""
    D = _directions(50_000)
    d = D[np.argmin(F(D))]
    u, w = EL._tangents(d)

    def along(x):
        e = d + x[0] * u + x[1] * w
        return F((e / np.linalg.norm(e))[None])[0]

    r = minimize(along, [0.0, 0.0], method="Nelder-Mead", options=dict(xatol=1e-13, fatol=1e-16, maxiter=4000))
    e = d + r.x[0] * u + r.x[1] * w
    return r.fun, e / np.linalg.norm(e)


def _random_rotation(rng):
    q = rng.normal(size=4)
    a, b, c, d = q / np.linalg.norm(q)
    return np.array([[a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)],
                     [2 * (b * c + a * d), a * a - b * b + c * c - d * d, 2 * (c * d - a * b)],
                     [2 * (b * d - a * c), 2 * (c * d + a * b), a * a - b * b - c * c + d * d]])


def _place(F_of_centre, e, target):
    """The centre t e of the second object at which the brute-force gap is `target`."""
    D = _directions(4000)
    lo, hi = 0.0, 5.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if -F_of_centre(mid * e)(D).min() < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi) * e


def _surface(c, A, n=40_000):
    return c + _directions(n) @ A.T


@pytest.mark.slow
def test_nearest_point_of_an_ellipse_and_an_ellipsoid_against_a_surface_sample():
    """Points inside and outside, 2-D and 3-D, including the degenerate interior case on the
    shortest axis' symmetry plane: the nearest boundary point agrees with the nearest of a
    dense boundary sample to the sample spacing (tolerance = the spacing, ~1e-3 of the axes)."""
    rng = np.random.default_rng(RNG_SEED)
    s3 = np.array([1.0, 0.6, 0.3])
    P3 = _directions(400_000) * s3
    t = np.linspace(0, 2 * np.pi, 20_000, endpoint=False)
    s2 = np.array([0.8, 0.25])
    P2 = np.column_stack([np.cos(t), np.sin(t)]) * s2
    points = [(s3, P3, rng.uniform(-1.2, 1.2, 3)) for _ in range(20)] + \
             [(s2, P2, rng.uniform(-1.0, 1.0, 2)) for _ in range(20)] + \
             [(s3, P3, np.array([0.3, 0.1, 0.0])), (s2, P2, np.array([0.2, 0.0]))]
    for s, P, y in points:
        x = EL.nearest_on_ellipse(s, y)
        assert np.sum((x / s) ** 2) == pytest.approx(1.0, abs=1e-12)       # on the boundary
        dist = np.linalg.norm(P - y, axis=1)
        assert np.linalg.norm(x - y) == pytest.approx(dist.min(), abs=2e-3)  # sample spacing
        assert np.linalg.norm(x - y) <= dist.min() + 1e-12 or np.linalg.norm(x - P[np.argmin(dist)]) < 5e-3


@pytest.mark.slow
def test_ellipsoid_pairs_against_brute_force():
    """Ellipsoid-ellipsoid and sphere-ellipsoid pairs apart and overlapping (gaps in
    [-0.05, 0.05] for semi-axes 0.3-1): the kernel's least F equals the brute-force least to
    1e-9 (the simplex polish's precision), normals within 1e-4 rad; the master point lies on
    its surface with the normal its outward normal there; for pairs apart the gap equals the
    least distance of dense surface samples (to their spacing, 3e-3)."""
    rng = np.random.default_rng(RNG_SEED)
    for trial in range(8):
        A0 = _random_rotation(rng) * rng.uniform(0.3, 1.0, 3)
        A1 = np.eye(3) * 0.5 if trial % 4 == 3 else _random_rotation(rng) * rng.uniform(0.3, 1.0, 3)
        c0, e = np.zeros(3), rng.normal(size=3)
        e /= np.linalg.norm(e)
        target = rng.uniform(-0.05, 0.05)
        c1 = _place(lambda c: (lambda D: _h_ellip(c0, A0, D) + _h_ellip(c, A1, -D)), e, target)
        touch, pm, ps, n, gap = EL.ellip_ellip(c0[None], A0[None], c1[None], A1[None], np.zeros((1, 3)), 1.0)
        F = lambda D: _h_ellip(c0, A0, D) + _h_ellip(c1, A1, -D)
        Fb, db = _least_F(F)
        assert touch[0] and F(n)[0] == pytest.approx(Fb, abs=1e-9)
        assert np.arccos(min(1.0, float(n[0] @ db))) < 1e-4
        assert gap[0] == pytest.approx(min(-Fb, 0.0), abs=1e-9)
        u = np.linalg.solve(A1, pm[0] - c1)                   # master point on its surface ...
        assert np.linalg.norm(u) == pytest.approx(1.0, abs=1e-12)
        m = np.linalg.solve(A1 @ A1.T, pm[0] - c1)            # ... with outward normal -n
        assert m / np.linalg.norm(m) == pytest.approx(-n[0], abs=1e-7)
        assert (ps[0] - pm[0]) @ n[0] == pytest.approx(Fb, abs=1e-9)
        if -Fb > 0.01:                                        # apart: the surfaces' least distance
            dist, _ = cKDTree(_surface(c0, A0)).query(_surface(c1, A1))
            assert -Fb == pytest.approx(dist.min(), abs=3e-3)


def _cube():
    V = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float) - 0.5
    normals = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
    edges = np.array([(i, j) for i in range(8) for j in range(i + 1, 8) if np.sum(V[i] != V[j]) == 1])
    return V, normals, edges


def test_box_ellipsoid_pairs_against_brute_force():
    """A turned unit cube (the slave) against ellipsoids approaching along random directions,
    so that faces, edges and vertices of the cube touch: least F equal to the brute-force
    least to 1e-8, the convex point on the cube's support plane, gap = min(-F, 0)."""
    rng = np.random.default_rng(RNG_SEED + 1)
    Vc, Nc, edges = _cube()
    for _ in range(12):
        R = _random_rotation(rng)
        V, N = Vc @ R.T, Nc @ R.T
        A1 = _random_rotation(rng) * rng.uniform(0.3, 1.0, 3)
        e = rng.normal(size=3)
        e /= np.linalg.norm(e)
        target = rng.uniform(-0.05, 0.05)
        c1 = _place(lambda c: (lambda D: (D @ V.T).max(axis=1) + _h_ellip(c, A1, -D)), e, target)
        touch, pm, ps, n, gap, sid = EL.convex_ellip(
            np.array([0]), np.array([0]), np.array([0, 8]), V, np.array([0, 6]), N, np.full(6, 0.5),
            np.ones(6, bool), np.arange(6) + 10, np.array([0, 12]), edges, c1[None], A1[None], 1.0)
        F = lambda D: (D @ V.T).max(axis=1) + _h_ellip(c1, A1, -D)
        Fb, db = _least_F(F)
        assert touch[0] and F(n)[0] == pytest.approx(Fb, abs=1e-8)
        assert gap[0] == pytest.approx(min(-Fb, 0.0), abs=1e-8)
        assert ps[0] @ n[0] == pytest.approx((V @ n[0]).max(), abs=1e-12)   # on the cube's support plane
        assert 10 <= sid[0] < 16


def _model(api, h=1e-3):
    sol = api.SOLFEC('DYNAMIC', h, f"out/ellip{next(_PATHS)}")
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.5)
    return sol, api.BULK_MATERIAL(sol, density=1000.0)


def _hull(api, lo, hi):
    return api.HULL([v for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2]) for v in (x, y, z)], 1, 1)


def test_ellipsoid_resting_on_a_floor_carries_its_weight(api):
    """An ellipsoid turned so that its middle semi-axis is vertical, resting on a floor:
    R_N = m g to the solver tolerance 1e-10, no motion, contact point below the centre
    (Signorini at velocity level keeps U_N = 0; no warning about ellipsoids any more)."""
    sol, mat = _model(api)
    api.BODY(sol, 'OBSTACLE', _hull(api, (-2, -2, -1), (2, 2, 0)), mat)
    egg = api.ELLIP((0, 0, 0.2), (0.3, 0.2, 0.1), 1, 1)
    api.ROTATE(egg, (0, 0, 0.2), (1, 0, 0), 90.0)           # the 0.2 semi-axis now vertical
    body = api.BODY(sol, 'RIGID', egg, mat)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 0.02)
    (con,) = body.constraints
    assert con.R[2] == pytest.approx(body.mass * 9.81, rel=1e-9)
    assert con.R[0:2] == pytest.approx((0, 0), abs=1e-9)
    assert body.conf[11] == pytest.approx(0.2, abs=1e-12) and np.abs(body.velo).max() < 1e-12
    assert con.point == pytest.approx((0, 0, 0), abs=1e-12) and con.gap == 0.0
    assert np.array(con.base)[6:9] == pytest.approx((0, 0, 1))


@pytest.mark.slow
def test_a_few_ellipsoids_settle_in_a_box(api):
    """Eight turned ellipsoids dropped 5 mm apart into a box made of a floor and four walls,
    0.25 s: all stay in the box above the floor, and the deepest gap seen stays within the
    impact estimate v h (v = the free-fall speed after the largest drop; contacts are found
    at mid-step and Signorini at velocity level does not push bodies apart)."""
    sol, mat = _model(api, h=5e-4)
    half, axes = 0.11, (0.05, 0.04, 0.03)
    for lo, hi in (((-0.2, -0.2, -0.1), (0.2, 0.2, 0)), ((-0.2, -0.2, 0), (-half, 0.2, 0.4)),
                   ((half, -0.2, 0), (0.2, 0.2, 0.4)), ((-half, -0.2, 0), (half, -half, 0.4)),
                   ((-half, half, 0), (half, 0.2, 0.4))):
        api.BODY(sol, 'OBSTACLE', _hull(api, lo, hi), mat)
    bodies, drop = [], 0.0
    for k, (x, y, z) in enumerate(itertools.product((-0.055, 0.055), (-0.055, 0.055), (0.07, 0.2))):
        egg = api.ELLIP((x, y, z), axes, 1, 1)
        api.ROTATE(egg, (x, y, z), (1, k % 3, 1), 5.0 * k)
        bodies.append(api.BODY(sol, 'RIGID', egg, mat))
        drop = max(drop, z)
    gaps = []
    api.CALLBACK(sol, 5e-4, (), lambda: gaps.extend(c.gap for b in bodies for c in b.constraints) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 1000), 0.25)
    z = np.array([b.conf[11] for b in bodies])
    xy = np.array([b.conf[9:11] for b in bodies])
    impact = np.sqrt(2 * 9.81 * drop) * 5e-4
    assert z.min() > min(axes) - impact and np.abs(xy).max() < half
    assert 0.0 < -min(gaps) <= impact
