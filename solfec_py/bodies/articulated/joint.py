"""The joint record and the tree of a domain's joints (layer 3): what a JOINT command
leaves in the domain (kind, parent and child bodies, frame, limits, spring, damper,
drive, current coordinates) and how the joints of a domain become a JointTree whose
links are the child bodies, with their mass properties. Reference: docs/joints.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solfec_py.bodies.articulated.kinds import JOINT_KINDS, JointKind, zero_coordinates
from solfec_py.bodies.articulated.tree import JointTree


@dataclass(eq=False)
class Joint:
    """One joint: `child` moves relative to `parent` (a body, or None for the ground).

    `point` and `frame` (columns: axis, axis2, axis x axis2) are given in the reference
    configuration; `q` and `dq` are the joint's coordinates and rates (kinds.py layout).
    `limits` = ((lower, upper) per freedom), `spring` = (stiffness, rest coordinates),
    `damper` = damping coefficient, `drive` = prescribed coordinate (number or time series)
    of a one-freedom joint; None where not given. `reaction` = force (3) and moment about
    the joint centre (3), world axes, the joint exerted on the child over the last step.
    """

    kind: JointKind
    parent: Any
    child: Any
    point: np.ndarray
    frame: np.ndarray
    label: str = ""
    limits: tuple | None = None
    spring: tuple | None = None
    damper: float = 0.0
    drive: Any = None
    q: np.ndarray = field(default=None)
    dq: np.ndarray = field(default=None)
    reaction: np.ndarray = field(default_factory=lambda: np.zeros(6))   # force, moment about the centre

    def __post_init__(self):
        if self.q is None:
            self.q = zero_coordinates(self.kind)
        if self.dq is None:
            self.dq = np.zeros(self.kind.nv)

    def describe(self) -> str:
        """How messages name the joint: its label, else its kind and child body."""
        if self.label:
            return f"JOINT {self.label!r}"
        return f"JOINT {self.kind.name} of child body {self.child.id}"


def parent_joint(joints, body):
    """The joint whose child is `body`, or None."""
    for joint in joints:
        if joint.child is body:
            return joint
    return None


def ancestry(joints, body) -> list:
    """Bodies from `body` up to its root body (following parent joints)."""
    parent_of = {id(j.child): j.parent for j in joints}
    out = [body]
    parent = parent_of.get(id(body))
    while parent is not None:
        out.append(parent)
        parent = parent_of.get(id(parent))
    return out


def domain_tree(joints) -> tuple[JointTree, list]:
    """The JointTree of `joints` and its links (bodies, user order); see `tree_records`."""
    tree, links, _ = tree_records(joints)
    return tree, links


def tree_records(joints) -> tuple[JointTree, list, list]:
    """The JointTree of `joints`, its links and the joint of every link (user order). A
    parent body that is no joint's child becomes a root link joined to the ground by a FREE
    joint at its mass centre (a floating base)."""
    links = [j.child for j in joints]
    records = list(joints)
    children = {id(b) for b in links}
    for joint in joints:
        if joint.parent is not None and id(joint.parent) not in children:
            children.add(id(joint.parent))
            base = joint.parent
            links.append(base)
            centre = base.block.center[base.row].copy()
            records.append(Joint(JOINT_KINDS["FREE"], None, base, centre, np.eye(3)))
    position = {id(b): k for k, b in enumerate(links)}
    parents = [-1 if r.parent is None else position[id(r.parent)] for r in records]
    mass = [b.block.mass[b.row] for b in links]
    center = [b.block.center[b.row] for b in links]
    inertia = [b.block.J[b.row] for b in links]
    tree = JointTree(parents, [r.kind.name for r in records], [r.point for r in records],
                     [r.frame for r in records], mass, center, inertia)
    return tree, links, records
