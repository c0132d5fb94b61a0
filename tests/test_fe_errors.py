"""Bad input on finite-element bodies: each error is a solfec_py error naming what is wrong,
raised before anything is inserted (or, for an element inverting during a run, stopping the
run with body, element and time named, the frames written before it still readable)."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.errors import InputError, SimulationError

CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def setup(api, poisson=0.25, young=1e6, out="out/err"):
    sol = api.SOLFEC("DYNAMIC", 1e-3, out)
    sol.verbose = "OFF"
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=young, poisson=poisson, density=1000.0)
    return sol, mat


def test_poisson_half_or_more_is_refused_at_body_creation(api):
    sol, mat = setup(api, poisson=0.5)
    mesh = api.HEX(CUBE, 1, 1, 1, 1, [1] * 6)
    with pytest.raises(InputError, match="poisson < 0.5; BULK_MATERIAL .* has poisson 0.5"):
        api.BODY(sol, "FINITE_ELEMENT", mesh, mat)
    assert not sol.bodies and mesh.nnod == 8          # nothing inserted, the shape kept


def test_inverted_element_is_turned_with_a_note_naming_it(api, capsys):
    """MESH's element check (geometry/mesh_check.py, the one of every path into a body) turns
    an inside-out element the right way and says so; the body is the unit cube."""
    sol, mat = setup(api)
    turned = CUBE[12:] + CUBE[:12]                     # top face first: every Jacobian negative
    body = api.BODY(sol, "FINITE_ELEMENT", api.MESH(turned, [8, 0, 1, 2, 3, 4, 5, 6, 7, 1], 1), mat)
    assert "MESH: 1 element(s) inside out (negative volume) turned the right way: element 0 (hexahedron," \
           " nodes [0, 1, 2, 3, 4, 5, 6, 7])" in capsys.readouterr().err
    assert body.mass == pytest.approx(1000.0, rel=1e-12) and body.volume == pytest.approx(1.0, rel=1e-12)


def test_flat_element_is_refused(api):
    sol, mat = setup(api)
    flat = CUBE[:12] + [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]
    with pytest.raises(InputError, match="zero volume|volume"):
        api.BODY(sol, "FINITE_ELEMENT", api.MESH(flat, [8, 0, 1, 2, 3, 4, 5, 6, 7, 1], 1), mat)


def test_unknown_and_unavailable_formulations(api):
    sol, mat = setup(api)
    with pytest.raises(InputError, match="form"):
        api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat, form="XX")
    with pytest.raises(InputError, match="Reduced base must be passed"):     # BC-RO needs base=
        api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat, form="BC-RO")


def test_unknown_scheme_lists_the_schemes(api):
    sol, mat = setup(api)
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat)
    with pytest.raises(InputError, match="DEF_EXP"):
        body.scheme = "RIG_NEG"


def test_shape_must_be_one_mesh(api):
    sol, mat = setup(api)
    with pytest.raises(InputError, match="single MESH"):
        api.BODY(sol, "FINITE_ELEMENT", api.SPHERE((0, 0, 0), 1, 1, 1), mat)


def test_pressure_on_a_missing_surface_and_point_outside(api):
    sol, mat = setup(api)
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat)
    with pytest.raises(InputError, match="surface id 7"):
        api.PRESSURE(body, 7, 1.0)
    with pytest.raises(InputError, match="outside"):
        api.DISPLACEMENT(body, (5.0, 5.0, 5.0))


def test_element_inverting_during_a_run_stops_it_naming_body_element_time(api):
    sol, mat = setup(api, young=1.0, out="out/invert")
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(CUBE, 1, 1, 1, 1, [1] * 6), mat, label="soft")
    body.scheme = "DEF_EXP"
    api.OUTPUT(sol, 1e-3)
    q = np.zeros(24)
    q[2::3] = 0.0
    v = np.zeros(24)
    v[14::3] = -1e3                                     # the top face falls through the bottom
    body.velo = tuple(v.tolist())
    with pytest.raises(SimulationError, match=r"element 0 of finite-element body 1 \('soft'\) inverted.*time"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 0.01)
    sol2 = api.SOLFEC("DYNAMIC", 1e-3, "out/invert")   # READ mode: the frames written before stay readable
    assert api.DURATION(sol2)[1] >= 0.0
