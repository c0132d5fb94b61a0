"""PRESCRIBED: obstacles whose motion is a function of time (PRESCRIBED_MOTION), layer 3.
Reference: solfec_py.motion; docs/integrators.md.

The body follows its motion exactly: constraints see the configuration at t + h/2 and the
velocity at t + h (contacts take the obstacle's point velocity, as for any obstacle), the
step ends at the motion's state at t + h. Bodies sharing a motion object are evaluated
together; distinct motions (a model has few) one after the other.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.rigid_schemes.base import RigidScheme
from solfec_py.motion import body_state


class Prescribed(RigidScheme):
    name, order = "PRESCRIBED", 0
    GROUP = "prescribed"
    UNSUPPORTED = ("FIXPNT", "FIXDIR", "VELODIR", "VELODIR3", "RIGLNK", "SPRING")   # all but contacts

    def begin(self, block, rows, t, h):
        rows = np.arange(block.count)[rows]
        block.velo0[rows] = states(block, rows, t)[1]
        block.conf[rows] = states(block, rows, t + 0.5 * h)[0]
        block.velo[rows] = states(block, rows, t + h)[1]
        block.fext[rows] = 0.0

    def finish(self, block, rows, t, h):
        rows = np.arange(block.count)[rows]
        block.conf[rows], block.velo[rows] = states(block, rows, t + h)


def states(block, rows: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
    """(conf, velo) rows of the driven bodies `rows` at time t."""
    conf, velo = np.empty((rows.size, 12)), np.empty((rows.size, 6))
    groups: dict = {}
    for k, row in enumerate(rows.tolist()):
        motion = block.motions[block.bodies[row]]
        groups.setdefault(id(motion), (motion, []))[1].append(k)
    for motion, ks in groups.values():
        conf[ks], velo[ks] = body_state(motion, block.center[rows[ks]], t)
    return conf, velo
