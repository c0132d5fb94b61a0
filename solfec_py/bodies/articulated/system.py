"""The joint trees of one domain while it runs (layer 3): the JointTree of all its joints
(a forest), the joint coordinates and rates, the rigid-block rows of the links, and the
copy of the joint state into the JOINT records (joint.q, joint.dq).
Reference: docs/joints.md.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.articulated.joint import tree_records
from solfec_py.errors import NotAvailableError


class ArticulatedSystem:
    """Joint-space state of a domain's joints; links are rows of the rigid block."""

    def __init__(self, joints):
        self.tree, self.links, self.records = tree_records(joints)
        tree = self.tree
        self.q = tree.zero_q()
        self.u = np.zeros(tree.nv)
        self.step = None                     # stepping.FreeStep between begin and finish
        self.stored = [self.links[u] for u in tree.order]

    def rows(self) -> np.ndarray:
        """Rigid-block rows of the links in stored (topological) order."""
        return np.array([b.row for b in self.stored], dtype=np.int64)

    def check_reference(self, block) -> None:
        """The tree starts in the reference configuration at rest: refuse links that moved
        (a continued run, -c, or a deck that set conf / velo of a link)."""
        conf, velo = self.tree.rigid_states(self.q, self.u)
        rows = self.rows()
        moved = ~(np.isclose(block.conf[rows], conf, rtol=0, atol=1e-12).all(axis=1)
                  & (np.abs(block.velo[rows]) <= 1e-12).all(axis=1))
        if moved.any():
            body = self.stored[int(np.flatnonzero(moved)[0])]
            raise NotAvailableError(
                f"body {body.id} is a link of an articulated body but is not at rest in its reference"
                " configuration when the run starts; articulated bodies start at rest where their JOINTs"
                " were made (continuing such a run, -c, is not available yet)")

    def sync_joints(self) -> None:
        """Copy the coordinates and rates into the JOINT records."""
        tree = self.tree
        for k, u in enumerate(tree.order.tolist()):
            record = self.records[u]
            record.q[:] = self.q[tree.qoff[k]:tree.qoff[k + 1]]
            record.dq[:] = self.u[tree.voff[k]:tree.voff[k + 1]]


def spatial_forces(R, x, force, torque) -> np.ndarray:
    """(k, 6) world spatial forces at the origin of forces `force` through the mass centres
    x with world torques `torque`: (x x f + torque, f)."""
    return np.concatenate((np.cross(x, force) + torque, force), axis=1)
