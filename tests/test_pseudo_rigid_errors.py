"""Bad input on pseudo-rigid bodies gets a solfec_py error naming what was wrong; an
inverted body stops the run naming the body and the time, and the frames written before
stay readable."""
from __future__ import annotations

import pytest

from solfec_py.cli import main
from solfec_py.errors import InputError, InputTypeError, SimulationError
from solfec_py.output.store import ResultsStore

from conftest import CUBE, write_deck


@pytest.fixture
def sol(api):
    s = api.SOLFEC("DYNAMIC", 1e-3, "out/bad")
    s.verbose = "OFF"
    return s


def cube(api, sol, mat, **kw):
    return api.BODY(sol, "PSEUDO_RIGID", api.HEX(eval(CUBE), 1, 1, 1, 1, [1] * 6), mat, **kw)


def test_incompressible_material_is_refused_at_body_creation(api, sol):
    mat = api.BULK_MATERIAL(sol, poisson=0.5, label="rubber")
    shape = api.HEX(eval(CUBE), 1, 1, 1, 1, [1] * 6)
    with pytest.raises(InputError, match=r"BODY: 'material': .*poisson < 0.5; BULK_MATERIAL 'rubber' has poisson 0.5"):
        api.BODY(sol, "PSEUDO_RIGID", shape, mat)
    assert sol.domain.bodies == [] and shape.nnod == 8        # nothing inserted, shape not taken
    api.BODY(sol, "RIGID", shape, mat)                        # rigid bodies do not use poisson


def test_incompressible_material_set_later_is_refused_naming_the_body(api, sol):
    """The setter makes BODY's check on every body made of the material (BULK_MATERIAL's rule)."""
    mat = api.BULK_MATERIAL(sol, poisson=0.3)
    body = cube(api, sol, mat)
    with pytest.raises(InputError, match=f"poisson = 0.7: body {body.id}: a pseudo-rigid body .*has poisson 0.7"):
        mat.poisson = 0.7
    assert mat.poisson == 0.3
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 0.01)


def test_unknown_scheme_lists_the_schemes(api, sol):
    body = cube(api, sol, api.BULK_MATERIAL(sol))
    with pytest.raises(InputError, match=r"Invalid integration scheme 'RIG_NEG' for a PSEUDO_RIGID body;"
                                         r" expected one of \['DEFAULT', 'DEF_EXP', 'DEF_LIM'\]"):
        body.scheme = "RIG_NEG"
    with pytest.raises(InputTypeError, match="'scheme' must be a string"):
        body.scheme = 1
    with pytest.raises(InputTypeError, match="'damping' must be a number >= 0"):
        body.damping = -1.0


def test_callback_must_return_twelve_numbers(api, sol):
    body = cube(api, sol, api.BULK_MATERIAL(sol))

    def nine(q, u, t, h):
        return (0.0,) * 9
    api.FORCE(body, "SPATIAL", (0, 0, 0), (0, 0, 0), nine)
    with pytest.raises(InputError, match=r"FORCE callback 'nine' of body 1 returned a tuple of 9 items;"
                                         r" a PSEUDO_RIGID body needs 12 \(9 generalised forces"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 0.01)


def test_torque_pressure_and_apply_bulkmat_errors(api, sol):
    mat = api.BULK_MATERIAL(sol)
    body = cube(api, sol, mat)
    with pytest.raises(InputError, match="Torque can be applied to RIGID bodies only"):
        api.TORQUE(body, "SPATIAL", (0, 0, 1), 1.0)
    with pytest.raises(InputError, match=r"body 1 has no boundary faces with surface id 5; its surface ids are \[1\]"):
        api.PRESSURE(body, 5, 1.0)
    with pytest.raises(InputTypeError, match="'value' must be"):
        api.PRESSURE(body, 1, "x")
    ball = api.BODY(sol, "PSEUDO_RIGID", api.SPHERE((3, 0, 0), 1, 1, 1), mat)
    with pytest.raises(InputError, match=r"single MESH based shape; body 2 has 1 primitive\(s\) of kinds \['SPHERE'\]"):
        api.PRESSURE(ball, 1, 1.0)
    rigid = api.BODY(sol, "RIGID", api.HEX(eval(CUBE), 1, 1, 1, 1, [1] * 6), mat)
    api.PRESSURE(rigid, 1, 1.0)         # rigid bodies take it too (tests/test_body_chars_pressure.py)
    with pytest.raises(InputError, match="APPLY_BULKMAT: 'material': .*poisson 0.5"):
        api.APPLY_BULKMAT(sol, body, 1, api.BULK_MATERIAL(sol, poisson=0.5))


INVERT = f"""\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/inv')
sol.verbose = 'OFF'
mat = BULK_MATERIAL(sol, young=1E3, poisson=0.25, density=1000.0)
b = BODY(sol, 'PSEUDO_RIGID', HEX({CUBE}, 1, 1, 1, 1, [1]*6), mat, label='crushed')
b.velo = (-20.0, 0, 0, 0, -20.0, 0, 0, 0, -20.0, 0, 0, 0)
OUTPUT(sol, 0.005)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 10), 1.0)
"""


def test_inverted_body_stops_the_run_naming_body_and_time(tmp_path, capsys):
    """A soft cube collapsed at 20 /s: Saint Venant-Kirchhoff does not resist inversion, so
    det F crosses zero near t = 0.05 s; the run stops there and the frames before it stay."""
    deck = write_deck(tmp_path / "inv.py", INVERT)
    assert main([deck]) != 0
    err = capsys.readouterr().err
    assert "inv.py:7: " in err
    assert "pseudo-rigid body 1 ('crushed') inverted (det F = " in err
    t = float(err.split("at time ")[1].split(";")[0])
    assert 0.04 < t < 0.06
    store = ResultsStore.open_existing(str(tmp_path / "out/inv/inv.results"))
    assert store.nframes >= 9 and store.duration()[1] < t


def test_inverted_body_error_type(api, sol):
    body = cube(api, sol, api.BULK_MATERIAL(sol, young=1e3))
    body.velo = (-20.0, 0, 0, 0, -20.0, 0, 0, 0, -20.0, 0, 0, 0)
    with pytest.raises(SimulationError, match="pseudo-rigid body 1 inverted"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 1.0)
