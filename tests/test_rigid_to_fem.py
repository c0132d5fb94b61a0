"""RIGID_TO_FEM against the rigid bodies themselves: a spinning, flying rigid brick (no
gravity; it has turned ~0.6 rad by the end) is stored, and a finite-element brick of the
same shape and id then takes its motion. Every node's displacement and velocity equal
DISPLACEMENT and VELOCITY of the rigid brick at that referential point (the rigid body's
own kinematics, an independent route) to round-off (1e-12). With a label subset only the
matching body moves; a matched rigid body takes its stored state (as INITIALIZE_STATE).
"""
from __future__ import annotations

import numpy as np
import pytest

NODES = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def brick(api, label="A"):
    """The brick of a label, each elsewhere (they never touch)."""
    shp = api.HEX(NODES, 2, 2, 2, 1, [1] * 6)
    api.SCALE(shp, (0.4, 0.2, 0.1))
    api.TRANSLATE(shp, (0, 3 * "ABC".index(label), 0))
    return shp


def _rigid_run(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/rigid")
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e9, poisson=0.25, density=1000, label="m")
    a = api.BODY(sol, "RIGID", brick(api, "A"), mat, label="A")
    b = api.BODY(sol, "RIGID", brick(api, "B"), mat, label="B")
    api.INITIAL_VELOCITY(a, (1, 0.5, 0), (0.3, 2.0, 1.0))
    api.INITIAL_VELOCITY(b, (0, 0, -1), (0, 0, 5))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 0.3)
    return sol, a, b


def _fe_model(api, labels=("A", "B")):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/fe")
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e9, poisson=0.25, density=1000, label="m")
    return sol, [api.BODY(sol, "FINITE_ELEMENT", brick(api, lab), mat, label=lab) for lab in labels]


def _nodes(fe):
    blk = fe.block
    sl = blk.nodes_of(fe.row)
    return blk.X[sl], np.reshape(fe.conf, (-1, 3)), np.reshape(fe.velo, (-1, 3))


def _check(api, rigid, fe):
    X, q, u = _nodes(fe)
    d = np.array([api.DISPLACEMENT(rigid, tuple(x)) for x in X])
    v = np.array([api.VELOCITY(rigid, tuple(x)) for x in X])
    np.testing.assert_allclose(q, d, atol=1e-12)
    np.testing.assert_allclose(u, v, atol=1e-12)


def test_finite_element_bodies_take_the_rigid_motion(api):
    _, a, b = _rigid_run(api)
    R = np.reshape(a.conf[:9], (3, 3)).T
    assert np.arccos((np.trace(R) - 1) / 2) > 0.3                  # it has turned
    sol, (fa, fb) = _fe_model(api)
    assert (fa.id, fb.id) == (a.id, b.id) and np.allclose(fa.center, a.center)
    api.RIGID_TO_FEM("out/rigid", 0.3, sol)
    _check(api, a, fa)
    _check(api, b, fb)


def test_subset_by_label_and_rigid_bodies(api):
    _, a, b = _rigid_run(api)
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/mixed")
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e9, poisson=0.25, density=1000, label="m")
    rb = api.BODY(sol, "RIGID", brick(api, "A"), mat, label="A")
    fb = api.BODY(sol, "FINITE_ELEMENT", brick(api, "B"), mat, label="B")
    other = api.BODY(sol, "FINITE_ELEMENT", brick(api, "C"), mat, label="C")
    api.RIGID_TO_FEM("out/rigid", 0.3, sol, subset=["A", "B"])
    np.testing.assert_allclose(rb.conf, a.conf, atol=1e-15)       # stored state, as INITIALIZE_STATE
    np.testing.assert_allclose(rb.velo, a.velo, atol=1e-15)
    _check(api, b, fb)
    assert not np.any(other.conf) and not np.any(other.velo)     # 'C' matches nothing stored


def test_errors_and_read_mode(api):
    from solfec_py.errors import InputError, InputTypeError, ResultsError

    sol, _ = _fe_model(api, ("A",))
    with pytest.raises(ResultsError, match="Rigid to FEM state mapping has failed"):
        api.RIGID_TO_FEM("out/none", 0.0, sol)
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object"):
        api.RIGID_TO_FEM("out/rigid", 0.0, "sol")
    with pytest.raises(InputError, match="'time' must be >= 0"):
        api.RIGID_TO_FEM("out/rigid", -1.0, sol)
    with pytest.raises(ResultsError, match="Rigid to FEM state mapping has failed: bad regular expression"):
        api.RIGID_TO_FEM("out/rigid", 0.0, sol, subset="A\\(")
