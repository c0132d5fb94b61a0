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
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.articulated import stepping
from solfec_py.bodies.articulated.limits import enforce_limits, place_stops
from solfec_py.bodies.articulated.system import CARRY, ArticulatedSystem, spatial_forces
from solfec_py.bodies.rigid_schemes.base import ANGULAR, LINEAR, RigidScheme, mtv, mv, rotations
from solfec_py.errors import InputError


def system_of(block, scheme) -> ArticulatedSystem:
    """The domain's articulated system, built at the first step (checked to start at rest in
    the reference configuration); its links must all use `scheme`."""
    system = getattr(block, "articulated_system", None)
    fresh = system is None or len(system.records) < len(block.domain.joints)
    if fresh:
        system = ArticulatedSystem(block.domain.joints)
    rows = system.rows()
    moved = np.flatnonzero(block.scheme[rows] != block.schemes.index(scheme))
    if moved.size:
        body = system.stored[int(moved[0])]
        raise InputError(f"body {body.id} is a link of an articulated body (JOINT); its scheme must stay"
                         f" ARTICULATED, got {block.schemes[int(block.scheme[body.row])].name}")
    if fresh:
        system.check_reference(block)
        system.check_drives(block.domain.time)
        block.articulated_system = system
    system.map_rows(block.count)
    return system


class Articulated(RigidScheme):
    name, order = "ARTICULATED", 2
    GROUP = "articulated"
    CARRY = CARRY           # a link carries its parent joint's q, dq, reaction (-c, HISTORY)

    def begin(self, block, rows, t, h):
        system = system_of(block, self)
        tree, rows = system.tree, system.rows()
        q_half = tree.advance(system.q, system.u, 0.5 * h)
        drive = system.drive_step(q_half, t, h)       # driven coordinates on their drive
        conf, velo = tree.rigid_states(q_half, system.u)
        R, x = rotations(conf), conf[:, 9:12]
        f, ts, tr = block.loads_at(rows, R, x, t + 0.5 * h, h, conf=conf, velo=velo)
        system.loads = spatial_forces(R, x, f, ts + mv(R, tr))
        system.step = stepping.begin(tree, system.q, system.u, h, tau=system.joint_forces, fext=system.loads,
                                     q_half=q_half, drive=drive, held=system.held)
        block.conf[rows] = conf
        # constraints see the start rates at the mid-step configuration, like the free rates:
        # a point's mean velocity h/2 (V + U) is then its motion over the step to O(h^3)
        block.velo0[rows] = velo
        block.velo[rows] = tree.rigid_states(q_half, system.step.u_free)[1]
        block.fext[rows, ANGULAR] = mtv(R, ts) + tr
        block.fext[rows, LINEAR] = f

    def finish(self, block, rows, t, h):
        system = block.articulated_system
        tree, rows, step = system.tree, system.rows(), system.step
        R, x = rotations(block.conf[rows]), block.conf[rows, 9:12]
        reaction = block.reaction[rows]
        fR = spatial_forces(R, x, reaction[:, LINEAR], mv(R, reaction[:, ANGULAR]))
        tau = None
        if np.any(reaction):                          # T^T r: the links' reactions in joint space
            tau = -tree.bias(step.q_half, np.zeros(tree.nv), fext=fR)
        u0 = system.u.copy()
        u = step.u_free if tau is None else step.u_free + h * step.solve(tau)
        system.u[:], stops = enforce_limits(tree, system.limits, step.q_half, u, h, solve=step.solve,
                                            ball_limits=system.ball_limits)
        system.q[:] = tree.advance(step.q_half, system.u, 0.5 * h)
        place_stops(system.q, stops)                  # stopped on a joint limit within the step
        system.held = (system.u - step.u_free) / h if (tau is not None or stops) else None
        system.place_drives(t + h)
        block.conf[rows], block.velo[rows] = tree.rigid_states(system.q, system.u)
        # what the joints transmit over the step: the motion's mean acceleration and rate
        system.reactions[:] = tree.joint_reactions(step.q_half, 0.5 * (u0 + system.u), (system.u - u0) / h,
                                                   fext=system.loads + fR)
        system.store_carry(block, h)
