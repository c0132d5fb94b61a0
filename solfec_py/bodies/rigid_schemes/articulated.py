"""ARTICULATED: the links of joint trees (JOINT), stepped in joint coordinates (layer 3).
Reference: docs/joints.md; Featherstone, Rigid Body Dynamics Algorithms (2008).

Links stay rows of the rigid block; this scheme (internal, set by JOINT) replaces their
rigid update: `begin` takes the tree's half step and free rates (bodies/articulated/
stepping.py) with the links' loads at t + h/2 as spatial forces, and writes the links'
mid-step configuration and free velocities as rigid rows, so that output and point
queries see rigid bodies; `finish` maps the links' generalised reactions into joint space
(H^T R through the partial velocities), applies joint limits, ends the step, writes the
rows again and the joints' reactions (the JOINT records view the joint state).

Constraints and contacts act on links through the rigid block's H (a link is a rigid body
at the mid-step configuration); the block's Delassus blocks of link points are the tree's
(ArticulatedSystem.delassus: W = h H T M^-1 T^T H^T, T the links' partial velocities), and
the links of one tree form one coupling group, so rows on different links of a tree couple
(solvers/local_dynamics.py). The reactions the solver returns reach joint space as
T^T H^T R, the same operator, so the end velocities are the ones the solver saw.

ARTICULATED_GEN_ALPHA (links whose BODY.scheme is GEN_ALPHA) replaces only the free motion
(a generalized-alpha step, bodies/articulated/gen_alpha.py, driven freedoms prescribed)
and the end coordinates; ARTICULATED_RK4 (BODY.scheme RK4) does the same with a classical
Runge-Kutta step (bodies/articulated/rk4.py).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.articulated import gen_alpha, rk4, stepping
from solfec_py.bodies.articulated.limits import enforce_limits, place_stops
from solfec_py.bodies.articulated.system import CARRY, ArticulatedSystem, spatial_forces
from solfec_py.bodies.rigid_schemes.base import ANGULAR, LINEAR, RigidScheme, mtv, mv, rotations
from solfec_py.bodies.rigid_schemes.gen_alpha import coefficients
from solfec_py.errors import InputError, SimulationError


def system_of(block, scheme) -> ArticulatedSystem:
    """The domain's articulated system, built at the first step (checked to start at rest in
    the reference configuration); its links must all use `scheme`."""
    system = block.articulated_system
    fresh = system is None or len(system.records) < len(block.domain.joints)
    if fresh:
        system = ArticulatedSystem(block.domain.joints)
    rows = system.rows()
    moved = np.flatnonzero(block.scheme[rows] != block.schemes.index(scheme))
    if moved.size:
        body = system.stored[int(moved[0])]
        other = block.schemes[int(block.scheme[body.row])]
        if not isinstance(other, Articulated):
            raise InputError(f"body {body.id} is a link of an articulated body (JOINT); its scheme must be"
                             f" one of {_user_names()}, got {other.name}")
        raise InputError(f"body {body.id} is a link of an articulated body (JOINT) with scheme {other.USER},"
                         f" another link has {scheme.USER}; the links of every JOINT tree of a model share one"
                         f" scheme (one of {_user_names()})")
    if fresh:
        scheme.check(system)
        system.check_reference(block, alpha=scheme.USER == "GEN_ALPHA")
        system.check_drives(block.domain.time)
        block.articulated_system = system
    system.map_rows(block.count)
    return system


class Articulated(RigidScheme):
    name, order = "ARTICULATED", 2
    GROUP = "articulated"
    USER = "ARTICULATED"    # what BODY.scheme of a link reads
    CARRY = CARRY           # a link carries its parent joint's q, dq, reaction (-c, HISTORY)

    def begin(self, block, rows, t, h):
        system = system_of(block, self)
        tree, rows = system.tree, system.rows()
        q_half = tree.advance(system.q, system.u, 0.5 * h)
        drive = system.drive_step(q_half, t, h)       # driven coordinates on their drive
        conf, velo = map(system.link_rows, tree.rigid_states(q_half, system.u))
        R, x = rotations(conf), conf[:, 9:12]
        f, ts, tr = block.loads_at(rows, R, x, t + 0.5 * h, h, conf=conf, velo=velo)
        system.loads = system.link_array(spatial_forces(R, x, f, ts + mv(R, tr)))
        system.step = self.free_step(block, system, q_half, drive, t, h)
        block.conf[rows] = conf
        # constraints see the start rates at the mid-step configuration, like the free rates:
        # a point's mean velocity h/2 (V + U) is then its motion over the step to O(h^3)
        block.velo0[rows] = velo
        block.velo[rows] = system.link_rows(tree.rigid_states(q_half, system.step.u_free)[1])
        block.fext[rows, ANGULAR] = mtv(R, ts) + tr
        block.fext[rows, LINEAR] = f

    def finish(self, block, rows, t, h):
        system = block.articulated_system
        tree, rows, step = system.tree, system.rows(), system.step
        R, x = rotations(block.conf[rows]), block.conf[rows, 9:12]
        reaction = block.reaction[rows]
        fR = system.link_array(spatial_forces(R, x, reaction[:, LINEAR], mv(R, reaction[:, ANGULAR])))
        tau = None
        if np.any(reaction):                          # T^T r: the links' reactions in joint space
            tau = -tree.bias(step.q_half, np.zeros(tree.nv), fext=fR)
        u0 = system.u.copy()
        u = step.u_free if tau is None else step.u_free + h * step.solve(tau)
        system.u[:], stops = enforce_limits(tree, system.limits, step.q_half, u, h, solve=step.solve,
                                            ball_limits=system.ball_limits)
        system.q[:] = self.end_coordinates(step, system.u, h)
        place_stops(system.q, stops)                  # stopped on a joint limit within the step
        system.held = (system.u - step.u_free) / h if (tau is not None or stops) else None
        system.place_drives(t + h)
        block.conf[rows], block.velo[rows] = map(system.link_rows, tree.rigid_states(system.q, system.u))
        # what the joints transmit over the step: the motion's mean acceleration and rate
        system.reactions[:] = tree.joint_reactions(step.q_half, 0.5 * (u0 + system.u), (system.u - u0) / h,
                                                   fext=system.loads + fR)
        system.store_carry(block, h)

    def check(self, system) -> None:
        """Hook: refuse what the scheme cannot step (called once, when the system is built)."""

    def free_step(self, block, system, q_half, drive, t, h) -> stepping.FreeStep:
        """The free motion of the step: Solfec's half step in joint space (stepping.begin)."""
        return stepping.begin(system.tree, system.q, system.u, h, tau=system.joint_forces, fext=system.loads,
                              q_half=q_half, drive=drive, held=system.held)

    def end_coordinates(self, step, u, h) -> np.ndarray:
        """q(t+h) = q(t+h/2) (+) h/2 u(t+h)."""
        return step.tree.advance(step.q_half, u, 0.5 * h)


class ArticulatedGenAlpha(Articulated):
    """GEN_ALPHA on the links of joint trees: the free motion is a generalized-alpha step in
    joint coordinates (bodies/articulated/gen_alpha.py) from the carried accelerations, the
    loads evaluated at every iterate's end state; constraint reactions are velocity jumps
    u = u_free + h M^-1 H^T R that do not enter the alpha accelerations, and the coordinates
    move by h/2 of the jump more, q(t+h) = q_free (+) h/2 (u - u_free), as the rigid
    GEN_ALPHA's finish (docs/integrators.md), so the constraint rows see the same end
    motion as with the ARTICULATED half step."""

    name = "ARTICULATED_GEN_ALPHA"
    GROUP = ""
    USER = "GEN_ALPHA"
    RHO_INF = 0.9           # as the rigid GEN_ALPHA in decks

    def free_step(self, block, system, q_half, drive, t, h) -> stepping.FreeStep:
        tree = system.tree
        prescribe, wanted = None, {}
        if drive is not None:               # driven freedoms: known functions of time (drive_motion)
            coordinates, q_end, wanted[t + h], wanted[t] = drive_motion(system, t, h)

            def prescribe(q1, u1):
                q1[coordinates], u1[drive.index] = q_end, drive.target

        loaded = free_accelerations(block, system, h)

        def accel(q, u, time=t + h):
            ud = loaded(q, u, time)
            if drive is None:
                return ud
            # the actuators impose the drives' accelerations: M^-1 E^T lambda added at (q, u)
            return stepping.Drive.at(tree, q, drive.index, drive.target).project(ud, wanted[time])

        alpha = system.alpha
        if alpha is None:                   # at a start: consistent accelerations ud_0 = a_0
            ud = accel(system.q, system.u, t)
            alpha = (ud, ud)
        end = gen_alpha.step(tree, system.q, system.u, alpha[0], alpha[1], h, coefficients(self.RHO_INF), accel,
                             prescribe=prescribe)
        if end is None:
            body = system.stored[0]
            raise SimulationError(f"GEN_ALPHA: the joint-space iteration of the articulated body with root body"
                                  f" {body.id} did not converge at time {t + h:g}; reduce the time step")
        system.alpha = (end.ud, end.a)      # reactions are jumps: they do not enter the accelerations
        return stepping.FreeStep(tree, q_half, end.u, drive, q_free=end.q)

    def end_coordinates(self, step, u, h) -> np.ndarray:
        return step.tree.advance(step.q_free, u - step.u_free, 0.5 * h)


class ArticulatedRk4(Articulated):
    """RK4 on the links of joint trees: the free motion is a classical fourth-order
    Runge-Kutta step in joint coordinates (bodies/articulated/rk4.py), the loads, springs
    and dampers evaluated at every stage; constraint reactions are velocity jumps u = u_free
    + h M^-1 H^T R and the coordinates move by h/2 of the jump more, q(t+h) = q_free (+) h/2
    (u - u_free), as on GEN_ALPHA trees. Driven joints are refused (their prescribed
    coordinates would need the drive's acceleration at every stage)."""

    name = "ARTICULATED_RK4"
    GROUP = ""
    USER = "RK4"

    def check(self, system) -> None:
        if system.drives:
            body = system.drives[0][3].child
            raise InputError(f"body {body.id}: a driven JOINT (drive=) on a tree whose links use scheme RK4;"
                             " driven trees take ARTICULATED or GEN_ALPHA")

    def free_step(self, block, system, q_half, drive, t, h) -> stepping.FreeStep:
        q, u = rk4.step(system.tree, system.q, system.u, h, free_accelerations(block, system, h), t)
        return stepping.FreeStep(system.tree, q_half, u, drive, q_free=q)

    def end_coordinates(self, step, u, h) -> np.ndarray:
        return step.tree.advance(step.q_free, u - step.u_free, 0.5 * h)


def _user_names() -> list:
    """The BODY.scheme values of links (for messages)."""
    return sorted(cls.USER for cls in (Articulated, ArticulatedGenAlpha, ArticulatedRk4))


def free_accelerations(block, system, h: float):
    """accel(q, u, time): the tree's joint accelerations M^-1 (tau - bias) with the links'
    loads at `time` in the state (q, u), the joints' springs and dampers included."""
    tree, rows = system.tree, system.rows()

    def accel(q, u, time):
        conf, velo = map(system.link_rows, tree.rigid_states(q, u))
        R, x = rotations(conf), conf[:, 9:12]
        f, ts, tr = block.loads_at(rows, R, x, time, h, conf=conf, velo=velo)
        loads = system.link_array(spatial_forces(R, x, f, ts + mv(R, tr)))
        return tree.forward_dynamics(q, u, system.joint_forces(q, u), fext=loads)

    return accel


def drive_motion(system, t: float, h: float) -> tuple:
    """Driven freedoms of a GEN_ALPHA step: their coordinate indices, coordinates at t + h
    (on the drive), and accelerations at t + h and at t by second differences of the drive
    with the step's spacing (central at t + h, one-sided second-order at t, where a start
    needs them), O(h^2) as the rate the half step uses (ArticulatedSystem.drive_step)."""
    value = system.drive_values
    coordinates = np.array([d[1] for d in system.drives], dtype=np.int64)
    q0, q1, q2, q3 = (value(t + k * h) for k in range(4))
    return coordinates, q1, (q2 - 2 * q1 + q0) / h ** 2, (2 * q0 - 5 * q1 + 4 * q2 - q3) / h ** 2
