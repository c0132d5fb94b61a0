"""Constraints and contacts on links of joint trees (JOINT): rows on links of one tree
couple through the tree's Delassus operator W = h H T M^-1 T^T H^T (solvers/local_dynamics.py,
bodies/articulated/system.py). References: the crank-rocker's closed-form transmission
angle; statics; the pendulum on a uniformly moving support (Galilean invariance); the
Signorini-Coulomb law with Newton restitution and the balance of angular momentum at an
impact, both recomputed from the tree's own kinematics, independent of the solver."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solfec_py import constraints as C


def bar(P, Q, w=0.1, ext=0.1):
    """HEX nodes of a square bar of half-width w around the segment P-Q (extended by ext)."""
    P, Q = np.array(P, float), np.array(Q, float)
    u = (Q - P) / np.linalg.norm(Q - P)
    e2 = np.array([0.0, 1.0, 0.0])
    e3 = np.cross(u, e2)
    P0, Q0 = P - ext * u, Q + ext * u
    return [float(v) for s3 in (-w, w) for s1, s2 in ((0, -w), (1, -w), (1, w), (0, w))
            for v in P0 + s1 * (Q0 - P0) + s2 * e2 + s3 * e3]


# crank a, coupler b, rocker c, ground d: Grashof crank-rocker (a + d <= b + c, a shortest)
A_, B_, C_, D_ = 1.0, 3.5, 3.0, 4.0


def closure(t2):
    """Crank pin A and coupler-rocker pin B of the assembled linkage at crank angle t2."""
    pa = np.array([A_ * math.cos(t2), 0.0, A_ * math.sin(t2)])
    o4 = np.array([D_, 0.0, 0.0])
    f = float(np.linalg.norm(o4 - pa))
    x = (B_ ** 2 - C_ ** 2 + f ** 2) / (2 * f)
    e = (o4 - pa) / f
    n = np.array([-e[2], 0.0, e[0]])
    return pa, pa + x * e + math.sqrt(B_ ** 2 - x ** 2) * (n if n[2] > 0 else -n)


def four_bar(api, h, duration, base=None, scheme=None):
    """Crank, coupler and rocker as three REVOLUTE JOINTs (axes y), the loop closed by
    PUT_RIGID_LINK gluing coupler and rocker at B; a constant torque turns the crank. With
    `base` ('drive' or 'FIX_DIRECTION'), crank and rocker hang from a base link on a PRISMATIC
    joint held by a drive or by FIX_DIRECTION, so that the glued pair is on one tree (a
    two-sided row whose ends couple through the tree). Returns the crank angles, the largest
    transmission-angle error and pin gap, and the largest slide of the base. `scheme`: the
    links' scheme (default ARTICULATED)."""
    sol = api.SOLFEC('DYNAMIC', h, f'out/fourbar{h}{base}{scheme}')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=100.0)
    t20 = math.radians(60.0)
    pa, pb = closure(t20)
    o4 = (D_, 0.0, 0.0)
    crank = api.BODY(sol, 'RIGID', api.HEX(bar((0, 0, 0), pa), 1, 1, 1, 1, [1] * 6), mat)
    coupler = api.BODY(sol, 'RIGID', api.HEX(bar(pa, pb), 1, 1, 1, 1, [1] * 6), mat)
    rocker = api.BODY(sol, 'RIGID', api.HEX(bar(o4, pb), 1, 1, 1, 1, [1] * 6), mat)
    ground, slide = None, None
    if base:
        ground = api.BODY(sol, 'RIGID', api.HEX(bar((0, 0, -1), o4), 1, 1, 1, 1, [1] * 6), mat)
        api.CONTACT_EXCLUDE_BODIES(ground, crank)
        api.CONTACT_EXCLUDE_BODIES(ground, rocker)
        if base == 'drive':                                    # held by its actuator
            slide = api.JOINT('PRISMATIC', None, ground, (0, 0, -1), (1, 0, 0), drive=0.0)
        else:                                                  # held by a constraint row
            slide = api.JOINT('PRISMATIC', None, ground, (0, 0, -1), (1, 0, 0))
            api.FIX_DIRECTION(ground, (2, 0, -0.5), (1, 0, 0))
    crank_joint = api.JOINT('REVOLUTE', ground, crank, (0, 0, 0), (0, 1, 0))
    api.JOINT('REVOLUTE', crank, coupler, tuple(pa), (0, 1, 0))
    api.JOINT('REVOLUTE', ground, rocker, o4, (0, 1, 0))
    api.PUT_RIGID_LINK(coupler, rocker, tuple(pb), tuple(pb))
    api.CONTACT_EXCLUDE_BODIES(coupler, rocker)
    for link in (crank, coupler, rocker, ground) if scheme else ():
        if link is not None:
            link.scheme = scheme
    api.TORQUE(crank, 'SPATIAL', (0, -1, 0), 300.0)
    rows = []

    def watch():
        rows.append([t20 - crank_joint.q[0], *coupler.cur_point(tuple(pa)), *coupler.cur_point(tuple(pb)),
                     *rocker.cur_point(tuple(pb)), slide.q[0] if slide else 0.0])
        return 1

    api.CALLBACK(sol, h, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), duration)
    rows = np.array(rows)
    t2, a, b1, b2 = rows[:, 0], rows[:, 1:4], rows[:, 4:7], rows[:, 7:10]
    exact = np.arccos((B_ ** 2 + C_ ** 2 - A_ ** 2 - D_ ** 2 + 2 * A_ * D_ * np.cos(t2)) / (2 * B_ * C_))
    u1, u2 = a - b1, np.array(o4) - b2
    mu = np.arccos(np.einsum("ki,ki->k", u1, u2) / np.linalg.norm(u1, axis=1) / np.linalg.norm(u2, axis=1))
    return t2, np.abs(mu - exact).max(), np.linalg.norm(b1 - b2, axis=1).max(), np.abs(rows[:, 10]).max()


@pytest.mark.slow
def test_four_bar_follows_the_crank_rocker_transmission_angle(api):
    """The three-joint tree has three freedoms; the glued pin B leaves one. Along the motion
    (the crank turns from 60 to 202 degrees) the transmission angle mu between coupler and
    rocker must be the closed form cos mu = (b^2 + c^2 - a^2 - d^2 + 2 a d cos theta2) / (2 b c)
    of the measured crank angle. The loop closure is held at velocity level (Solfec's
    FIXPNT: mean point velocity zero), so the pin drifts at second order in h: both the
    drift and the angle error must fall by ~4 when h halves (measured 1.0e-4 -> 2.5e-5 rad,
    gap 2.2e-4 -> 5.5e-5 m at h = 4 -> 2 ms); the bounds at 4 ms are those errors with 2x margin."""
    t2, err2, gap2, _ = four_bar(api, 4e-3, 0.5)
    _, err1, gap1, _ = four_bar(api, 2e-3, 0.5)
    print(f"\nfour-bar: crank {math.degrees(t2[0]):.0f} -> {math.degrees(t2[-1]):.0f} deg;"
          f" |mu - exact| {err2:.3g} / {err1:.3g} rad, pin gap {gap2:.3g} / {gap1:.3g} m (h = 4 / 2 ms)")
    assert math.degrees(t2[-1] - t2[0]) > 100                 # it turned: one freedom, not locked
    assert err2 < 2e-4 and gap2 < 4.4e-4
    assert 3.0 < err2 / err1 < 5.0 and 3.0 < gap2 / gap1 < 5.0     # second order


def test_arm_strike_obeys_the_contact_law_and_balances_momentum(api):
    """A two-link arm (shoulder and elbow REVOLUTE about y, a ball as forearm) swings down
    under gravity onto an obstacle (friction 0.4, restitution 0.5). At the impact step,
    recomputed from the tree (its point Jacobian at the mid-step configuration and the
    joint rates before and after), independently of the solver's arrays:
    - the ball's contact point velocity after the step is the solver's U, before it V, and
      U_N = -e V_N (Newton restitution, as for rigid bodies), |R_T| <= mu R_N;
    - the angular momentum about the shoulder axis changes by the moment of the contact
      impulse h R (the shoulder transmits no moment about its axis)."""
    h = 1e-3
    sol = api.SOLFEC('DYNAMIC', h, 'out/arm')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.4, restitution=0.5)
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    api.BODY(sol, 'OBSTACLE', api.HULL([v for x in (0.9, 3) for y in (-1, 1) for z in (-1, 0.2)
                                        for v in (x, y, z)], 1, 1), mat)
    upper = api.BODY(sol, 'RIGID', api.HEX(bar((0, 0, 1), (1, 0, 1), w=0.05, ext=0.05), 1, 1, 1, 1, [1] * 6), mat)
    ball = api.BODY(sol, 'RIGID', api.SPHERE((1.5, 0, 1), 0.1, 1, 1), mat)
    api.JOINT('REVOLUTE', None, upper, (0, 0, 1), (0, 1, 0))
    api.JOINT('REVOLUTE', upper, ball, (1, 0, 1), (0, 1, 0))
    hits, before = [], {}

    def watch():
        system = ball.block.articulated_system
        cset = C.constraint_set(sol.domain)
        c = np.flatnonzero(cset.kind[:cset.count] == C.CONTACT)
        if c.size and not hits:
            hits.append((system.step.q_half.copy(), before["u"], system.step.u_free.copy(), system.u.copy(),
                         {k: getattr(cset, k)[c].copy() for k in ("R", "U", "V", "bid", "mpnt", "base",
                                                                  "point")}))
        before["u"] = system.u.copy()
        return 1

    api.CALLBACK(sol, h, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 1000), 0.45)
    assert hits, "the ball never reached the obstacle"
    q_half, u0, u_free, u1, con = hits[0]
    assert con["R"].shape == (1, 3) and con["bid"][0, 0] == ball.id        # one contact, ball = master
    tree = ball.block.articulated_system.tree
    link = tree.index[1]                                                     # the ball: second JOINT's child
    G = tree.gen_to_loc(q_half, [link], con["mpnt"], con["base"])[0]
    U, V, R = con["U"][0], con["V"][0], con["R"][0]
    scale = np.abs(V).max()
    print(f"\nimpact: V = {V}, U = {U}, R = {R}; tree U - solver U = {np.abs(G @ u1 - U).max():.2g}")
    assert np.abs(G @ u1 - U).max() < 1e-9 * scale and np.abs(G @ u0 - V).max() < 1e-9 * scale
    assert V[2] < -1.0 and U[2] == pytest.approx(-0.5 * V[2], rel=1e-8)      # restitution
    assert R[2] > 0 and math.hypot(R[0], R[1]) <= 0.4 * R[2] * (1 + 1e-8)   # Coulomb cone
    shoulder = np.array([0.0, 0.0, 1.0])

    def axial_momentum(u):
        m = tree.momentum(q_half, u)                    # (angular about the origin, linear)
        return (m[0:3] - np.cross(shoulder, m[3:6]))[1]

    impulse = h * con["base"][0] @ R                    # on the ball (master side)
    moment = np.cross(con["point"][0] - shoulder, impulse)[1]
    assert axial_momentum(u1) - axial_momentum(u_free) == pytest.approx(moment, rel=1e-9)


def test_fix_point_locks_a_chain_and_the_reactions_hold_the_weight(api):
    """A two-link REVOLUTE chain whose tip is held by FIX_POINT has no freedom left: under
    gravity it stays at rest, and the shoulder joint's force plus the FIX_POINT reaction
    balance the total weight (statics)."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/locked')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    mat = api.BULK_MATERIAL(sol, density=100.0)
    first = api.BODY(sol, 'RIGID', api.HEX(bar((0, 0, 0), (1, 0, 0.5)), 1, 1, 1, 1, [1] * 6), mat)
    second = api.BODY(sol, 'RIGID', api.HEX(bar((1, 0, 0.5), (2, 0, 0)), 1, 1, 1, 1, [1] * 6), mat)
    shoulder = api.JOINT('REVOLUTE', None, first, (0, 0, 0), (0, 1, 0))
    elbow = api.JOINT('REVOLUTE', first, second, (1, 0, 0.5), (0, 1, 0))
    pin = api.FIX_POINT(second, (2, 0, 0))
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), 0.2)
    assert max(abs(shoulder.q[0]), abs(elbow.q[0])) < 1e-10
    weight = (first.mass + second.mass) * np.array([0, 0, -9.81])
    force = np.array(pin.base).reshape(3, 3).T @ np.array(pin.R)       # base columns t1, t2, n
    total = np.array(shoulder.reaction[0:3]) + force
    np.testing.assert_allclose(total, -weight, atol=1e-6 * np.abs(weight).max())


def pendulum(api, support, h=2e-3, duration=0.4):
    """A bob on a 1 m REVOLUTE arm released 40 degrees off the vertical; its pivot is the
    ground (support None) or a cart on a PRISMATIC joint along x held by FIX_DIRECTION or
    moved at 0.5 m/s by SET_VELOCITY. Returns the times, swing angles and cart slides."""
    sol = api.SOLFEC('DYNAMIC', h, f'out/pend_{support}')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    th = math.radians(40.0)
    bob = api.BODY(sol, 'RIGID', api.SPHERE((math.sin(th), 0, -math.cos(th)), 0.1, 1, 1), mat)
    cart = None
    if support is None:
        swing = api.JOINT('REVOLUTE', None, bob, (0, 0, 0), (0, 1, 0))
    else:
        cart = api.BODY(sol, 'RIGID', api.HEX(bar((-0.3, 0, 0), (0.3, 0, 0)), 1, 1, 1, 1, [1] * 6), mat)
        slide = api.JOINT('PRISMATIC', None, cart, (0, 0, 0), (1, 0, 0))
        swing = api.JOINT('REVOLUTE', cart, bob, (0, 0, 0), (0, 1, 0))
        if support == 'FIX_DIRECTION':
            api.FIX_DIRECTION(cart, (0.2, 0, 0), (1, 0, 0))
        else:
            api.SET_VELOCITY(cart, (0.2, 0, 0), (1, 0, 0), 0.5)
    rows = []
    api.CALLBACK(sol, h, (), lambda: rows.append((sol.time, swing.q[0], slide.q[0] if cart else 0.0)) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 1000), duration)
    return np.array(rows).T


@pytest.mark.slow
def test_pendulum_on_a_constrained_cart(api):
    """The cart's constraint row couples with the swinging bob through the tree (the bob
    pulls the cart). Held by FIX_DIRECTION the cart must stay and the bob swing as on a
    fixed pivot: the two runs take the same joint-space steps, the FIX_DIRECTION row only
    cancelling the cart's free rate (measured 4e-16 rad over 0.4 s; bound 1e-9 rad). Moved by SET_VELOCITY it must slide at exactly
    0.5 m/s from the end of the first step, as a rigid body would (U = target at t + h,
    Solfec's VELODIR: the first step's mean rate is 0.25 m/s) -- which holds only if the
    row sees the tree's inertia (the bob's reaction), not the cart's alone."""
    h = 2e-3
    t, fixed, _ = pendulum(api, None, h)
    _, swing, slide = pendulum(api, 'FIX_DIRECTION', h)
    print(f"\nFIX_DIRECTION: |swing - fixed pivot| = {np.abs(swing - fixed).max():.3g} rad,"
          f" |slide| = {np.abs(slide).max():.3g} m")
    assert np.ptp(fixed) > 0.3                                       # it swung
    assert np.abs(slide).max() < 1e-12 and np.abs(swing - fixed).max() < 1e-9
    _, swing, slide = pendulum(api, 'SET_VELOCITY', h)
    print(f"SET_VELOCITY: |slide - v (t - h/2)| = {np.abs(slide - 0.5 * (t - 0.5 * h)).max():.3g} m")
    np.testing.assert_allclose(slide, 0.5 * (t - 0.5 * h), rtol=0, atol=1e-12)
    assert np.abs(swing - fixed).max() > 1e-3                        # the cart's start kicked the bob


@pytest.mark.slow
def test_spring_on_a_link_oscillates_with_the_tree_mass(api):
    """A cart on a PRISMATIC joint (x) carrying a second link on a FIXED joint, tied to an
    obstacle by PUT_SPRING (force -k stroke) and pushed by a constant force F: the spring's
    reaction on the first link must move the whole tree, x(t) = F/k (1 - cos w t) with
    w^2 = k / (m1 + m2) (second-order scheme, w h = 4.9e-3: measured 2.3e-8 m of 0.025 m;
    bound 1e-6 m)."""
    h, k, F = 1e-3, 200.0, 2.5
    sol = api.SOLFEC('DYNAMIC', h, 'out/spring')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    anchor = api.BODY(sol, 'OBSTACLE', api.SPHERE((-1, 0, 0), 0.05, 1, 1), mat)
    cart = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    load = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.5), 0.1, 1, 1), mat)
    slide = api.JOINT('PRISMATIC', None, cart, (0, 0, 0), (1, 0, 0))
    api.JOINT('FIXED', cart, load, (0, 0, 0.25))
    api.PUT_SPRING(cart, (0, 0, 0), anchor, (-1, 0, 0), lambda s, v: -k * s, (-1, 1))
    api.FORCE(cart, 'SPATIAL', (0, 0, 0), (1, 0, 0), F)
    rows = []
    api.CALLBACK(sol, h, (), lambda: rows.append((sol.time, slide.q[0])) or 1)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-12, 100), 0.4)
    t, x = np.array(rows).T
    w = math.sqrt(k / (cart.mass + load.mass))
    err = np.abs(x - F / k * (1 - np.cos(w * t))).max()
    print(f"\nspring: |x - exact| = {err:.3g} m (amplitude {2 * F / k:.3g} m, w = {w:.3g} rad/s)")
    assert np.ptp(x) > 0.01 and err < 1e-6


@pytest.mark.parametrize("base", ["drive", "FIX_DIRECTION"])
def test_four_bar_on_one_tree(api, base):
    """The same linkage with crank and rocker on a base link that slides on a PRISMATIC
    joint held at 0 by a drive or by FIX_DIRECTION: the glue row's two ends now lie on one
    tree and couple through it (W with the cross blocks -h H_c T_c M^-1 T_r^T H_r^T), and
    with FIX_DIRECTION the two rows couple too (without these blocks the run blows up).
    The base must stay (1e-12 m), the loop close and the transmission angle follow the
    closed form as on two trees (bounds of the two-tree test at h = 4 ms). With the drive
    the driven rate is projected out of M^-1 everywhere, so the motion must be the two-tree
    linkage's (measured 4e-16 rad of crank angle); with FIX_DIRECTION the free step's
    mid-step predictor moves the base until the last step's constraint acceleration is added
    (stepping.begin `held`), a difference of second order (measured 9.9e-7, 3.7e-7, 1.1e-7
    rad at h = 4, 2, 1 ms; 4.7e-4 rad, first order, without `held`; bound 5e-6)."""
    t_two, _, _, _ = four_bar(api, 4e-3, 0.2)
    t_one, err, gap, moved = four_bar(api, 4e-3, 0.2, base=base)
    print(f"\n{base}: base slide {moved:.3g} m, |mu - exact| {err:.3g} rad, gap {gap:.3g} m;"
          f" crank angle vs two trees {np.abs(t_one - t_two).max():.3g} rad")
    assert np.ptp(t_one) > 0.2 and moved < 1e-12 and err < 2e-4 and gap < 4.4e-4
    assert np.abs(t_one - t_two).max() < (1e-8 if base == "drive" else 5e-6)


def test_four_bar_on_a_driven_base_under_gen_alpha(api):
    """The drive case above on GEN_ALPHA links: the driven slide is prescribed in the alpha
    iteration and projected out of M^-1 for the constraint rows (Delassus blocks and the
    reactions' joint-space map), so the base stays and the linkage moves as on two GEN_ALPHA
    trees (the held rate carries no inertia into the loop)."""
    t_two, _, _, _ = four_bar(api, 4e-3, 0.2, scheme='GEN_ALPHA')
    t_one, err, gap, moved = four_bar(api, 4e-3, 0.2, base='drive', scheme='GEN_ALPHA')
    print(f"\nGEN_ALPHA drive: base slide {moved:.3g} m, |mu - exact| {err:.3g} rad, gap {gap:.3g} m;"
          f" crank angle vs two trees {np.abs(t_one - t_two).max():.3g} rad")
    assert np.ptp(t_one) > 0.2 and moved < 1e-12 and err < 2e-4 and gap < 4.4e-4
    assert np.abs(t_one - t_two).max() < 1e-8
