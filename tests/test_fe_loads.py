"""Loads on finite-element bodies against elasticity solutions: a thick open-ended cylinder
under internal PRESSURE against Lame's solution.

Reference: the open-ended thick cylinder (sigma_z = 0, uniform axial strain) is an exact
solution of linear elasticity (Timoshenko & Goodier, Theory of Elasticity, section 28):
u_r(r) = p a^2 / (E (b^2 - a^2)) ((1 - nu) r + (1 + nu) b^2 / r). Tolerance 1 % (the
acceptance of the finite-element work); the mesh (48 around, 8 through the wall) keeps the
polygonal faceting and the HEX8 discretisation error at -0.4 % (4 through the wall: -1.1 %),
and p / E = 1e-5 keeps the Saint Venant-Kirchhoff law within 1e-4 of linear.
"""
from __future__ import annotations

import numpy as np

RIN, THICK, LENGTH = 1.0, 1.0, 0.5
E, NU, P = 1e9, 0.3, 1e4


def lame_ur(r):
    a, b = RIN, RIN + THICK
    return P * a * a / (E * (b * b - a * a)) * ((1 - NU) * r + (1 + NU) * b * b / r)


def test_thick_cylinder_under_internal_pressure_matches_lame(api):
    # a free body: the pressure is self-equilibrated; quasi-static steps with h = 1 s converge
    # by 1 / (1 + (w h)^2) per step (w the lowest elastic frequency, ~1e3 rad/s here)
    sol = api.SOLFEC("QUASI_STATIC", 1.0, "out/cylinder")
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=E, poisson=NU, density=1000.0)
    mesh = api.PIPE((0, 0, 0), (0, 0, LENGTH), RIN, THICK, 2, 48, 8, 1, [1, 2, 3, 4])
    body = api.BODY(sol, "FINITE_ELEMENT", mesh, mat)
    api.PRESSURE(body, 3, -P)                    # value x outward normal: -P pushes the inner wall out
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 3.0)
    blk = body.block
    sl = blk.nodes_of(body.row)
    X, q = blk.X[sl], blk.q[sl]
    r = np.hypot(X[:, 0], X[:, 1])
    radial = (X[:, 0] * q[:, 0] + X[:, 1] * q[:, 1]) / r
    for rad in (RIN, RIN + 0.5 * THICK, RIN + THICK):
        at = np.abs(r - rad) < 1e-9
        ur = radial[at].mean()
        assert abs(ur / lame_ur(rad) - 1) < 0.01, (rad, ur, lame_ur(rad), ur / lame_ur(rad) - 1)
        assert np.ptp(radial[at]) < 1e-2 * abs(ur)        # axisymmetric (0.2 % along z measured)
