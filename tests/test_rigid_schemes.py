"""The rigid scheme registry and tableaux (order conditions, A-stability), the schemes of
the literature in decks (coupling with contacts and rigid links, the errors RUN gives where
a scheme cannot couple), and the exact continuation (-c) of schemes that carry state.
References: Butcher's order conditions (Hairer, Norsett & Wanner I, Sec. II.2), the
stability function of a DIRK (Hairer & Wanner II, Sec. IV.3), closed-form rest and link
geometry, the uninterrupted run for -c."""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from solfec_py.bodies.rigid_schemes import (RIGID_SCHEMES, SCHEME_CODES, SCHEMES, Dirk, Dirk1, Dirk2, Dirk3,
                                            Dirk4)
from solfec_py.cli import main
from solfec_py.errors import InputError
from solfec_py.output import frames

from conftest import stored

NEW = ("LFPC", "DIRK1", "DIRK2", "DIRK3", "DIRK4", "LSV_EXPLICIT", "LSV_IMPLICIT", "GEN_ALPHA")


def test_codes_are_append_only():
    # codes are stored per body: the first ones must never move
    assert list(SCHEME_CODES)[:12] == ["RIG_POS", "RIG_NEG", "RIG_IMP", *NEW, "PRESCRIBED"]
    assert set(NEW) <= set(RIGID_SCHEMES) and "PRESCRIBED" not in RIGID_SCHEMES


# Butcher's conditions up to order 4: (condition, exact value); identities to 1e-14
def _conditions(A, b, c):
    return {1: [(b.sum(), 1.0)],
            2: [(b @ c, 1 / 2)],
            3: [(b @ c ** 2, 1 / 3), (b @ A @ c, 1 / 6)],
            4: [(b @ c ** 3, 1 / 4), (b @ (c * (A @ c)), 1 / 8), (b @ A @ c ** 2, 1 / 12), (b @ A @ A @ c, 1 / 24)]}


@pytest.mark.parametrize("cls", [Dirk1, Dirk2, Dirk3, Dirk4])
def test_tableau_row_sums_and_order_conditions(cls):
    A, b, c = cls.A, cls.b, cls.c
    assert np.allclose(np.triu(A, 1), 0.0)                    # diagonally implicit
    np.testing.assert_allclose(A.sum(axis=1), c, atol=1e-14)  # row sums equal c
    cond = _conditions(A, b, c)
    for p in range(1, cls.order + 1):
        for value, exact in cond[p]:
            assert value == pytest.approx(exact, abs=1e-14), f"order-{p} condition"
    if cls.order < 4:                                          # and not one order more
        assert any(abs(v - e) > 1e-6 for v, e in cond[cls.order + 1])


@pytest.mark.parametrize("cls", [Dirk1, Dirk2, Dirk3, Dirk4])
def test_tableau_is_a_stable(cls):
    # R(z) = 1 + z b^T (I - z A)^-1 1: poles 1/a_ii in the right half plane and |R(iy)| <= 1
    A, b = cls.A, cls.b
    assert (np.diag(A) > 0).all()
    one = np.ones(b.size)
    for y in np.concatenate([np.linspace(-50, 50, 2001), [-1e4, 1e4]]):
        z = 1j * y
        R = 1 + z * b @ np.linalg.solve(np.eye(b.size) - z * A, one)
        assert abs(R) <= 1 + 1e-12


def test_dirk_beta_is_b_dot_c():
    assert Dirk1().BETA == 1.0
    for cls in (Dirk2, Dirk3, Dirk4):
        assert cls().BETA == pytest.approx(0.5, abs=1e-14)
    assert isinstance(SCHEMES["DIRK4"], Dirk)


def test_unknown_scheme_lists_the_registry(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/s")
    b = api.BODY(sol, "RIGID", api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol, density=1.0))
    with pytest.raises(InputError) as err:
        b.scheme = "DIRK5"
    assert "'DIRK5'" in str(err.value) and "'GEN_ALPHA'" in str(err.value) and "'LFPC'" in str(err.value)
    b.scheme = "DIRK3"
    assert b.scheme == "DIRK3" and b.block.scheme[b.row] == SCHEME_CODES["DIRK3"]


DECK = """\
import math
scheme = NON_SOLFEC_ARGV()[0]
sol = SOLFEC('DYNAMIC', 1E-3, 'out/couple')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3, restitution=0.0)
mat = BULK_MATERIAL(sol, density=1000.0)
pts = [v for x in (-3, 3) for y in (-1, 1) for z in (-1, 0) for v in (x, y, z)]
BODY(sol, 'OBSTACLE', HULL(pts, 1, 1), mat)
rest = BODY(sol, 'RIGID', SPHERE((-1, 0, 0.1), 0.1, 1, 2), mat)
rest.scheme = scheme
pend = BODY(sol, 'RIGID', SPHERE((0, 0, 1.5), 0.1, 1, 2), mat)
pend.scheme = scheme
if scheme != 'DIRK1':
    PUT_RIGID_LINK(pend, None, (0, 0, 1.5), (0.5, 0, 1.5))
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 1000), 0.2)
print('RESULT %.12e %.12e %.12e %.12e' % (rest.conf[11], rest.velo[5], math.dist(pend.conf[9:12], (0.5, 0, 1.5)),
                                          ENERGY(sol)[0] - ENERGY(sol)[1]))
"""


@pytest.mark.parametrize("scheme", NEW)
def test_schemes_couple_with_contacts_and_links(tmp_path, capsys, scheme):
    # a ball resting on the floor stays (velocity-level contact, the finish moves it by
    # BETA h du, which cancels the free fall exactly); a pendulum on a rigid link keeps its
    # length (the link solve is exact for the h/2 du position update; tolerance 1e-9 covers
    # the O(h^3) difference between the free step and Solfec's half steps); the energy
    # balance KE - work of gravity stays at its initial value 0 within 1e-3 J.
    deck = tmp_path / "couple.py"
    deck.write_text(DECK)
    assert main(["--no-progress", str(deck), scheme]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("RESULT")][0]
    z, vz, link, balance = (float(v) for v in line.split()[1:])
    assert z == pytest.approx(0.1, abs=1e-12) and abs(vz) < 1e-12
    if scheme != "DIRK1":
        assert link == pytest.approx(0.5, abs=1e-9)
        assert abs(balance) < 1e-3


def test_dirk1_with_a_rigid_link_stops_at_run_naming_body_and_scheme(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/d1")
    b = api.BODY(sol, "RIGID", api.SPHERE((0, 0, 1), 0.1, 1, 1), api.BULK_MATERIAL(sol, density=1.0))
    b.scheme = "DIRK1"
    api.PUT_RIGID_LINK(b, None, (0, 0, 1), (0, 0, 2))
    with pytest.raises(InputError, match=r"body 1 uses the scheme DIRK1, which cannot couple with its RIGLNK"
                                         r" constraint 1 \(PUT_RIGID_LINK"):
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 100), 0.01)


SPLIT = """\
args = NON_SOLFEC_ARGV()
out, stop_at = args[0], float(args[1]) if len(args) > 1 else None
CUBE = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
sol = SOLFEC('DYNAMIC', 1E-3, out)
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1000.0)
pts = [v for x in (-9, 9) for y in (-9, 9) for z in (-1, 0) for v in (x, y, z)]
BODY(sol, 'OBSTACLE', HULL(pts, 1, 1), mat)
for k, sch in enumerate(('LFPC', 'GEN_ALPHA', 'DIRK3')):
    b = BODY(sol, 'RIGID', HEX(CUBE, 1, 1, 1, 1, [1]*6), mat)
    b.conf = (1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5 + 2 * k, 0.5, 0.8)
    INITIAL_VELOCITY(b, (0, 1, 0), (1, 2, 3))
    FORCE(b, 'SPATIAL', (2 * k + 1, 1, 1.5), (1, 0, 0), TIME_SERIES([0, 0, 0.3, 700, 1, -300]))
    b.scheme = sch
OUTPUT(sol, 0.05)
def cb():
    return 0 if stop_at is not None and sol.time >= stop_at - 1e-9 else 1
CALLBACK(sol, 0.01, (), cb)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.2)
"""


def _stored(path):
    f = stored(path)
    table, cols = f.table, f.column_names
    state, carry = f.read_all("state/rigid"), f.read_all("carry/rigid")
    keep = [i for i, c in enumerate(cols) if c not in frames.TIMERS and not c.endswith("OFF")]
    return table[:, keep], state, carry


def test_continue_with_carried_scheme_state_is_bit_identical(tmp_path):
    # LFPC keeps the previous step, GEN_ALPHA its accelerations: stored with every frame,
    # restored by -c, so the continued run equals the uninterrupted one bit for bit
    # (cubes tumbling onto a floor: contacts, a time-dependent force)
    deck = tmp_path / "split.py"
    deck.write_text(textwrap.dedent(SPLIT))
    assert main(["--no-progress", str(deck), "out/straight"]) == 0
    assert main(["--no-progress", str(deck), "out/split", "0.1"]) == 0
    assert main(["--no-progress", "-c", str(deck), "out/split"]) == 0
    a = _stored(tmp_path / "out/straight")
    b = _stored(tmp_path / "out/split")
    assert a[0].shape[0] == 5 and a[2].shape == (8, 21)        # 4 frames after frame 0, 2 carrying cubes
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_setting_the_state_voids_carried_state(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/void")
    b = api.BODY(sol, "RIGID", api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol, density=1.0))
    b.scheme = "GEN_ALPHA"
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 0.003)
    assert b.block.carry_ok[b.row]
    assert b.block.carried_rows().shape == (1, 21)
    b.velo = (0, 0, 1, 0, 0, 0)              # the accelerations no longer belong to the state
    assert not b.block.carry_ok[b.row]
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-6, 10), 0.003)
    assert b.block.carry_ok[b.row]
    api.INITIAL_VELOCITY(b, (1, 0, 0), (0, 0, 0))
    assert not b.block.carry_ok[b.row]


def test_obstacle_schemes_are_unchanged(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/obs")
    o = api.BODY(sol, "OBSTACLE", api.SPHERE((0, 0, 0), 0.1, 1, 1), api.BULK_MATERIAL(sol, density=1.0))
    o.scheme = "DEF_LIM"
    assert o.scheme == "DEF_LIM" and o.block.scheme[o.row] == SCHEME_CODES["RIG_IMP"]
    with pytest.raises(InputError, match="'DIRK2' for a OBSTACLE body"):
        o.scheme = "DIRK2"
    assert math.isinf(o.block.critical_step())
