"""A mesh read from a file (Abaqus .inp with element sets and *Surface, tests/data) becomes a
finite-element body: element sets as volume ids, the lumped mass of both HEX8 bricks, and free
fall under gravity.

Reference: with no other load a free elastic body translates rigidly, x(t) = x0 - g t^2 / 2,
v(t) = -g t; the explicit DEF_EXP step (central differences) integrates a constant
acceleration exactly, so the tolerance is round-off over ~100 steps (1e-9 relative).
"""
from __future__ import annotations

import os

import numpy as np

DATA = os.path.join(os.path.dirname(__file__), "data")
G = 9.81


def test_imported_abaqus_mesh_as_a_finite_element_body_falls_freely(api):
    mesh = api.MESH_IMPORT(os.path.join(DATA, "cae_block.inp"))
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/fe_import")
    sol.verbose = "OFF"
    api.GRAVITY(sol, (0, 0, -G))
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e9, poisson=0.25, density=2e3)
    body = api.BODY(sol, "FINITE_ELEMENT", mesh, mat)
    body.scheme = "DEF_EXP"
    assert body.mass == 2e3 * 2.0                    # two unit bricks (instance at x = 10)
    assert len(body.conf) == 3 * 12                  # 12 nodes, unreferenced truss ignored
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.1)
    t = sol.time
    point = (10.5, 0.5, 0.5)
    d = np.array(api.DISPLACEMENT(body, point))
    v = np.array(api.VELOCITY(body, point))
    assert np.allclose(d, (0, 0, -0.5 * G * t * t), rtol=1e-9, atol=1e-12)
    assert np.allclose(v, (0, 0, -G * t), rtol=1e-9, atol=1e-12)
    # a rigid translation leaves the body unstressed (von Mises at round-off of E * strain)
    assert abs(api.STRESS(body, point)[6]) < 1e-6
