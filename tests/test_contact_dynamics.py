"""Contact dynamics through detection and the Gauss-Seidel solver, against closed forms:
a ball at rest on a floor (R_N = m g, no drift), Newton restitution and the contact's
disappearance after the bounce, rolling without slip and sliding down an incline, a
central collision of two spheres (momentum and restitution), the double pendulum of
Solfec's test suite (Solfec-1.0 tests/double-pendulum.py) and the errors of contact runs."""
from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from solfec_py.cli import main

from conftest import write_deck

INPUTS = os.path.join(os.path.dirname(__file__), os.pardir, "inputs")
_PATHS = itertools.count()


def model(api, h=1e-3, gravity=(0, 0, -9.81), **surface):
    sol = api.SOLFEC('DYNAMIC', h, f"out/contact{next(_PATHS)}")
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, gravity)
    if surface:
        api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', **surface)
    return sol, api.BULK_MATERIAL(sol, density=1000.0)


def floor(api, sol, mat, lo=(-2, -2, -1), hi=(2, 2, 0)):
    pts = [v for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2]) for v in (x, y, z)]
    return api.BODY(sol, 'OBSTACLE', api.HULL(pts, 1, 1), mat)


def test_ball_at_rest_on_a_floor(api):
    """Signorini at velocity level: U_N = 0 keeps the ball exactly still and the mean
    reaction equals the weight (to the solver tolerance 1e-10)."""
    sol, mat = model(api, friction=0.5)
    floor(api, sol, mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.1), 0.1, 1, 1), mat)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 0.05)
    (con,) = ball.constraints
    assert con.kind == 'CONTACT' and con.R[2] == pytest.approx(ball.mass * 9.81, rel=1e-9)
    assert con.R[0:2] == pytest.approx((0, 0), abs=1e-9)
    assert ball.conf[11] == pytest.approx(0.1, abs=1e-12) and abs(ball.velo[5]) < 1e-12
    assert con.gap == 0.0 and con.area == 1.0 and con.matlab == 'DEFAULT' and con.spair == (1, 1)
    assert con.point == pytest.approx((0, 0, 0), abs=1e-12)
    assert np.array(con.base)[6:9] == pytest.approx((0, 0, 1))        # normal out of the floor


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
def test_bounce_follows_newton_restitution_and_the_contact_goes(api, e):
    """A ball dropped from rest at height H hits the floor at v = sqrt(2 g H) (to O(h))
    and leaves with e v; once it is off the floor the contact is deleted."""
    g, H, r = 9.81, 0.2, 0.1
    sol, mat = model(api, gravity=(0, 0, -g), restitution=e)
    floor(api, sol, mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, r + H), r, 1, 1), mat)
    trace = []

    def watch():
        trace.append((sol.time, ball.velo[5], len(ball.constraints)))
        return 1

    api.CALLBACK(sol, 1e-3, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 100), 0.25)
    v = np.array([t[1] for t in trace])
    k = int(np.flatnonzero(np.diff(v) > 0.1)[0]) + 1          # the step of the impact
    before, after = v[k - 1], v[k]
    assert before == pytest.approx(-math.sqrt(2 * g * H), rel=0.01)     # O(h) impact time error
    # Newton restitution at the impact step: U_N = -e V_N with V_N the velocity at its start
    assert after == pytest.approx(-e * before, abs=1e-9)
    contacts = [t[2] for t in trace]
    assert max(contacts) == 1
    if e > 0:
        assert contacts[-1] == 0          # flying again: the contact was removed
    else:
        assert contacts[-1] == 1 and abs(v[-1]) < 1e-9


def incline(api, theta, mu, r=0.1):
    """A solid sphere (J = 2/5 m r^2) touching a plane inclined by theta about y."""
    sol, mat = model(api, friction=mu)
    pts = [v for x in (-3, 3) for y in (-1, 1) for z in (-1, 0) for v in (x, y, z)]
    plane = api.HULL(pts, 1, 1)
    api.ROTATE(plane, (0, 0, 0), (0, 1, 0), math.degrees(theta))   # the top normal becomes (sin, 0, cos)
    api.BODY(sol, 'OBSTACLE', plane, mat)
    normal = np.array([math.sin(theta), 0, math.cos(theta)])
    center = tuple(r * normal)
    ball = api.BODY(sol, 'RIGID', api.SPHERE(center, r, 1, 1), mat)
    return sol, ball, normal


@pytest.mark.parametrize("theta, mu, rolls", [(math.radians(20), 0.5, True), (math.radians(40), 0.1, False)])
def test_sphere_rolls_or_slides_down_an_incline(api, theta, mu, rolls):
    """Rolling without slip (tan theta <= 7/2 mu): a = 5/7 g sin theta; sliding: a =
    g (sin theta - mu cos theta). The velocity-level scheme integrates a constant
    acceleration exactly, so the speed after 0.2 s matches to the solver tolerance."""
    g, T = 9.81, 0.2
    sol, ball, normal = incline(api, theta, mu)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), T)
    down = np.array([-math.cos(theta), 0, math.sin(theta)])
    if np.dot(down, [0, 0, -1]) < 0:
        down = -down
    v = np.array(ball.velo[3:6])
    a = 5 / 7 * g * math.sin(theta) if rolls else g * (math.sin(theta) - mu * math.cos(theta))
    assert np.dot(v, down) == pytest.approx(a * T, rel=1e-6)
    assert abs(np.dot(v, normal)) < 1e-9                               # stays on the plane
    spin = np.linalg.norm(ball.velo[0:3])
    if rolls:
        assert spin * 0.1 == pytest.approx(a * T, rel=1e-6)             # v = omega r
    else:                                                              # friction torque mu m g cos r / J
        m = ball.mass
        assert spin == pytest.approx(mu * m * g * math.cos(theta) * 0.1 / (0.4 * m * 0.01) * T, rel=1e-6)


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
def test_central_collision_of_two_spheres(api, e):
    """Equal spheres, one at rest: v1' = (1 - e) v / 2, v2' = (1 + e) v / 2 (momentum
    conserved, relative velocity reversed times e)."""
    sol, mat = model(api, gravity=(0, 0, 0), restitution=e)
    a = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    b = api.BODY(sol, 'RIGID', api.SPHERE((0.2, 0, 0), 0.1, 1, 1), mat)
    api.INITIAL_VELOCITY(a, (1, 0, 0), (0, 0, 0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 100), 0.01)
    assert a.velo[3] == pytest.approx((1 - e) / 2, abs=1e-10)
    assert b.velo[3] == pytest.approx((1 + e) / 2, abs=1e-10)
    assert a.velo[3] + b.velo[3] == pytest.approx(1.0, abs=1e-12)


def test_double_pendulum_matches_solfec(tmp_path, capsys):
    """Solfec-1.0 tests/double-pendulum.py: total energy at steps 0/600/1000/1500/2400 within 1e-3 max(1, ref)
    of Solfec's stored values; the deck re-opens its results in READ mode to read them."""
    assert main([os.path.join(INPUTS, "double_pendulum.py"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith("PASSED")
    errors = [float(line.rsplit("error", 1)[1]) for line in out.splitlines() if line.startswith("step")]
    assert len(errors) == 5 and max(errors) <= 1e-3
    assert (tmp_path / "out" / "double_pendulum" / "double_pendulum.png").stat().st_size > 0


def test_polyhedral_contact_runs_from_a_deck(tmp_path, capsys):
    """Two stacked HEX cubes (the pair once refused with a "not available" error): one
    polyhedral contact whose normal reaction carries the top cube's weight (GS tolerance 1e-10)."""
    deck = write_deck(tmp_path / "boxes.py", """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/boxes')
mat = BULK_MATERIAL(sol, density=100.0)
GRAVITY(sol, (0, 0, -10))
cube = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
BODY(sol, 'OBSTACLE', HEX(cube, 1, 1, 1, 0, [1]*6), mat)
box = HEX(cube, 1, 1, 1, 0, [1]*6)
TRANSLATE(box, (0, 0, 1))
top = BODY(sol, 'RIGID', box, mat)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 100), 0.01)
(con,) = top.constraints
print('contact', con.kind, con.R[2], top.mass * 10, top.velo[5])
""")
    assert main([deck, "--no-progress"]) == 0
    words = capsys.readouterr().out.splitlines()[-1].split()
    kind, rn, weight, vz = words[1], float(words[2]), float(words[3]), float(words[4])
    assert kind == "CONTACT" and rn == pytest.approx(weight, rel=1e-9) and abs(vz) < 1e-12


def test_unphysical_penetration_stops_the_run(tmp_path, capsys):
    deck = write_deck(tmp_path / "fast.py", """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/fast')
mat = BULK_MATERIAL(sol)
pts = [-1,-1,-1, 1,-1,-1, -1,1,-1, 1,1,-1, -1,-1,0, 1,-1,0, -1,1,0, 1,1,0]
BODY(sol, 'OBSTACLE', HULL(pts, 1, 1), mat)
ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0.15), 0.1, 1, 1), mat, label='bullet')
INITIAL_VELOCITY(ball, (0, 0, -200), (0, 0, 0))
UNPHYSICAL_PENETRATION(sol, 0.02)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.01)
""")
    assert main([deck, "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "fast.py:8:" in err and "unphysical penetration of depth 0.05" in err
    assert "bodies 2 and 1" in err and "time 0" in err
    # the results written before the error stay readable
    assert (tmp_path / "out" / "fast" / "fast.results").exists()


def test_progress_line_shows_solver_statistics_and_contacts(api):
    """verbose 'ON' without a terminal prints a statistics line: the Gauss-Seidel iterations
    and merit of the last solve and the number of contacts (issue: statistics in the
    progress output)."""
    import io

    from solfec_py.output.progress import Progress

    sol, mat = model(api)
    floor(api, sol, mat)
    api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.1), 0.1, 1, 1), mat)
    gs = api.GAUSS_SEIDEL_SOLVER(1e-10, 100)
    api.RUN(sol, gs, 2e-3)
    stream = io.StringIO()
    Progress("ON", 0.0, 1.0, stream=stream, tty=False, explicit=True).close(sol.domain)
    line = stream.getvalue()
    assert f"GSITERS: {gs.iters}" in line and "MERIT:" in line and "CONTACTS: 1" in line


def test_stack_of_two_balls_carries_the_weights(api):
    """A ball dropped 2 mm onto a ball resting on the floor (e = 0): one sphere-convex contact
    from the first step and one sphere-sphere contact created later, both re-evaluated
    together every step; at rest the floor carries 2 m g, the upper contact m g."""
    sol, mat = model(api, friction=0.3)
    floor(api, sol, mat)
    low = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.1), 0.1, 1, 1), mat)
    top = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.302), 0.1, 1, 1), mat)   # lands after ~0.02 s
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.1)
    m, g = low.mass, 9.81
    (upper,) = top.constraints
    lower = [c for c in low.constraints if c is not upper and c.adjbod is not None]
    assert len(sol.constraints) == 2 and len(lower) == 1
    assert upper.R[2] == pytest.approx(m * g, rel=1e-9)
    assert lower[0].R[2] == pytest.approx(2 * m * g, rel=1e-9)
    assert upper.point == pytest.approx((0, 0, 0.2), abs=1e-4) and upper.gap <= 0
    assert lower[0].point == pytest.approx((0, 0, 0), abs=1e-12) and lower[0].gap == 0.0
    assert low.conf[11] == pytest.approx(0.1, abs=1e-12)
    assert top.conf[11] == pytest.approx(0.3, abs=1e-4)         # landed within one step's fall
    assert abs(top.velo[5]) < 1e-9 and abs(low.velo[5]) < 1e-9


def test_contact_counts_and_gaps_in_the_history(tmp_path, capsys):
    """A ball dropped 1 mm onto the floor with e = 0 (lands within ~14 steps and stays):
    HISTORY 'CONS' is 0 then 1, 'NEWCONS' adds up to 1, and the minimum contact gap is 0 or
    a penetration smaller than one step's fall."""
    deck = write_deck(tmp_path / "land.py", """\
import json
sol = SOLFEC('DYNAMIC', 1E-3, 'out/land')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1000.0)
pts = [-1,-1,-1, 1,-1,-1, -1,1,-1, 1,1,-1, -1,-1,0, 1,-1,0, -1,1,0, 1,1,0]
BODY(sol, 'OBSTACLE', HULL(pts, 1, 1), mat)
ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0.101), 0.1, 1, 1), mat)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 100), 0.05)
if sol.mode == 'READ':
    h = HISTORY(sol, ['CONS', 'NEWCONS', (sol, 'GAP')], 0, 1)
    print(json.dumps(h))
""")
    assert main([deck, "--no-progress"]) == 0
    assert main([deck, "--no-progress"]) == 0
    t, cons, new, gap = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert cons[0] == 0 and cons[-1] == 1 and set(cons) == {0, 1}
    assert sum(new) == 1 and new[cons.index(1)] == 1
    assert min(gap) > -9.81 * 0.015 * 1e-3 and max(gap) <= 0


def test_deleting_a_body_removes_its_contacts_at_once(api):
    sol, mat = model(api)
    floor(api, sol, mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.1), 0.1, 1, 1), mat)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 2e-3)
    (con,) = ball.constraints
    assert con.kind == 'CONTACT'
    api.DELETE(sol, ball)
    assert con.kind is None and len(sol.constraints) == 0
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 2e-3)     # the floor alone: no contact
    assert len(sol.constraints) == 0


def test_excluded_bodies_and_surfaces_pass_through_each_other(api):
    """CONTACT_EXCLUDE_BODIES / CONTACT_EXCLUDE_SURFACES: the excluded ball falls through
    the floor in free fall (z = z0 - g t^2 / 2, exact for RIG_NEG), the others rest on it."""
    sol, mat = model(api)
    floor(api, sol, mat)                                   # floor surfaces: 1
    free = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.1), 0.1, 1, 1), mat)
    resting = api.BODY(sol, 'RIGID', api.SPHERE((1, 0, 0.1), 0.1, 1, 2), mat)
    ghost = api.BODY(sol, 'RIGID', api.SPHERE((-1, 0, 0.1), 0.1, 1, 3), mat)
    floor_body = sol.bodies[-1]                            # the first inserted (newest first list)
    api.CONTACT_EXCLUDE_BODIES(free, floor_body)
    api.CONTACT_EXCLUDE_SURFACES(sol, 3, 1)                # unordered pair
    T = 0.1
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), T)
    for ball in (free, ghost):
        assert ball.conf[11] == pytest.approx(0.1 - 9.81 * T ** 2 / 2, abs=1e-12) and not ball.constraints
    assert resting.conf[11] == pytest.approx(0.1, abs=1e-12) and len(resting.constraints) == 1


def test_contact_exclusion_arguments(api):
    sol, mat = model(api)
    other, mat2 = model(api)
    a = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    b = api.BODY(other, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat2)
    with pytest.raises(ValueError, match="Bodies from different domains"):
        api.CONTACT_EXCLUDE_BODIES(a, b)
    with pytest.raises(TypeError, match="'body2' must be a BODY object"):
        api.CONTACT_EXCLUDE_BODIES(a, sol)
    with pytest.raises(TypeError, match="'surf2' must be an integer"):
        api.CONTACT_EXCLUDE_SURFACES(sol, 1, 2.5)


def test_excluded_polyhedral_pair_runs(tmp_path, capsys):
    """Two touching boxes whose contact is excluded: no contact is made."""
    deck = write_deck(tmp_path / "boxes_ok.py", """\
sol = SOLFEC('DYNAMIC', 1E-3, 'out/boxes_ok')
mat = BULK_MATERIAL(sol)
cube = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
floor = BODY(sol, 'OBSTACLE', HEX(cube, 1, 1, 1, 0, [1]*6), mat)
box = HEX(cube, 1, 1, 1, 0, [1]*6)
TRANSLATE(box, (0, 0, 1))
top = BODY(sol, 'RIGID', box, mat)
CONTACT_EXCLUDE_BODIES(floor, top)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.01)
print('constraints', len(top.constraints))
""")
    assert main([deck, "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split() == ["constraints", "0"]


def meshed_floor_and_ball(api, x):
    """A floor of 2 x 1 x 1 HEX elements over [-1, 1] x [-1, 1] x [-1, 0] and a ball resting
    on it at (x, 0): at x = 0 it touches both elements at one point (their shared face)."""
    sol, mat = model(api)
    nodes = [-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0]
    api.BODY(sol, 'OBSTACLE', api.HEX(nodes, 2, 1, 1, 0, [1] * 6), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((x, 0, 0.1), 0.1, 1, 2), mat)
    return sol, ball


def test_default_sparsification_merges_duplicate_contacts(api):
    """Solfec sparsifies new contacts by default (mindist = GEOMETRIC_EPSILON): the two
    sphere-element contacts at the same point become one; with mindist 0 both stay and
    share the weight. Either way the ball rests (sum R_N = m g)."""
    for mindist, count in ((None, 1), (0.0, 2)):
        sol, ball = meshed_floor_and_ball(api, 0.0)
        if mindist is not None:
            api.CONTACT_SPARSIFY(sol, mindist=mindist)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.01)
        assert len(ball.constraints) == count
        assert sum(c.R[2] for c in ball.constraints) == pytest.approx(ball.mass * 9.81, rel=1e-9)
        assert ball.conf[11] == pytest.approx(0.1, abs=1e-12)
    sol, ball = meshed_floor_and_ball(api, 0.5)                # inside one element: one contact
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.01)
    assert len(ball.constraints) == 1


def test_sparsify_minarea_and_arguments(api):
    """Point contacts have area 1 (docs/contact.md): minarea 2 drops them all, so the ball
    falls freely through the floor."""
    sol, ball = meshed_floor_and_ball(api, 0.5)
    api.CONTACT_SPARSIFY(sol, 0.01, 2.0)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.05)
    assert not ball.constraints and ball.conf[11] == pytest.approx(0.1 - 9.81 * 0.05 ** 2 / 2, abs=1e-12)
    with pytest.raises(ValueError, match=r"'threshold' outside of \[0, 1\] bounds"):
        api.CONTACT_SPARSIFY(sol, 1.5)
    with pytest.raises(ValueError, match="'mindist' must be non-negative"):
        api.CONTACT_SPARSIFY(sol, mindist=-1.0)
    with pytest.raises(TypeError, match="'solfec' must be a SOLFEC object"):
        api.CONTACT_SPARSIFY(ball)


def test_area_rule_drops_a_tiny_contact_next_to_a_big_one_on_adjacent_objects(api):
    """docs/contact.md area rule: a new contact whose area is below threshold x the area of a
    contact between the same bodies on an adjacent object (elements sharing nodes) goes;
    the same contact next to a non-adjacent element's contact stays. (Point contacts all
    have area 1, so the areas are set by hand here.)"""
    from solfec_py.contact import objects as O, sparsify as SP
    from solfec_py.contact.detect import _objects

    sol, mat = model(api)
    nodes = [-1, -1, -1, 2, -1, -1, 2, 1, -1, -1, 1, -1, -1, -1, 0, 2, -1, 0, 2, 1, 0, -1, 1, 0]
    api.BODY(sol, 'OBSTACLE', api.HEX(nodes, 3, 1, 1, 0, [1] * 6), mat)   # elements x in [-1,0],[0,1],[1,2]
    for x in (0.0, 1.5):
        api.BODY(sol, 'RIGID', api.SPHERE((x, 0, 0.1), 0.1, 1, 2), mat)
    api.CONTACT_SPARSIFY(sol, mindist=0.0)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 100), 1e-3)
    domain = sol.domain
    cset, table = domain.constraints, O.table_for(domain)
    objs = lambda r: _objects(domain, table, cset, r)
    rows = np.arange(cset.count)
    elems = objs(rows)[:, 1]
    assert len(rows) == 3 and sorted(table.elem[elems].tolist()) == [0, 1, 2]
    settings = SP.Settings(threshold=0.01, minarea=0.0, mindist=0.0)
    on = {int(table.elem[e]): int(r) for r, e in zip(rows, elems)}
    # the first ball touches elements 0 and 1 (adjacent): shrink one of its two contacts
    cset.area[on[0]] = 1e-3
    assert SP.sparsify(cset, np.array([on[0]]), settings, table, objs).tolist() == [on[0]]
    assert SP.sparsify(cset, np.array([on[1]]), settings, table, objs).tolist() == []   # the big one stays
    # the second ball's contact is on element 2 and joins other bodies: never compared
    cset.area[on[2]] = 1e-3
    assert SP.sparsify(cset, np.array([on[2]]), settings, table, objs).tolist() == []
