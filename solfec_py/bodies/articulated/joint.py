"""The joint record and the tree of a domain's joints (layer 3): what a JOINT command
leaves in the domain (kind, parent and child bodies, frame, limits, spring, damper,
drive, current coordinates) and how the joints of a domain become a JointTree whose
links are the child bodies, with their mass properties. Reference: docs/joints.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solfec_py.bodies.articulated.kinds import JOINT_KINDS, JointKind, joint_frame, zero_coordinates
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
    side: str = "PARENT"          # where the frame of a mixed joint lies: PARENT, or CHILD (split)
    whole: Any = None             # a part of a split joint: the user's joint (split_parts)
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


SPLIT_KINDS = ("CYLINDRICAL", "PLANAR", "FREE")     # translations and rotations: the side matters


def is_split(joint) -> bool:
    """A joint with translations and rotations whose frame lies on the child side."""
    return joint.side == "CHILD" and joint.kind.name in SPLIT_KINDS


def split_parts(joint) -> list:
    """The parent-to-child chain of a child-side mixed joint: its rotation on the parent
    side (REVOLUTE about a, or SPHERICAL), then one PRISMATIC joint per translation axis,
    fixed in massless links that turn with the child. Joint records (parent, child None)
    carrying the user's spring, damper and limits of their freedoms; `coordinate_order`
    maps the chain's coordinates to the user's (translations first)."""
    E, kind = joint.frame, joint.kind.name
    rotation = ("REVOLUTE", E) if kind != "FREE" else ("SPHERICAL", E)
    axes = {"CYLINDRICAL": (0,), "PLANAR": (1, 2), "FREE": (0, 1, 2)}[kind]
    slides = [("PRISMATIC", E if kind == "CYLINDRICAL" else joint_frame(E[:, i])) for i in axes]
    limits = joint.limits or ()
    nt = len(axes)
    part_limits = [tuple(limits[nt:]) or None] + [(limits[i],) if limits else None for i in range(nt)]
    spring = None if joint.spring is None else (joint.spring[0], 0.0)   # several freedoms: rest 0
    return [Joint(JOINT_KINDS[name], None, None, joint.point, frame, joint.label, lim, spring, joint.damper,
                  whole=joint) for (name, frame), lim in zip([rotation] + slides, part_limits)]


def tree_records(joints) -> tuple[JointTree, list, list]:
    """The JointTree of `joints`, its links and the joint of every link (user order). A
    parent body that is no joint's child becomes a root link joined to the ground by a FREE
    joint at its mass centre (a floating base). A child-side mixed joint (`is_split`) puts
    massless links (link None, appended last) between its parent and its child: its
    `split_parts` from the parent down, the child's record the last part (its `whole` the user's joint)."""
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
    kinds, frames = [r.kind.name for r in records], [r.frame for r in records]
    mass = [b.block.mass[b.row] for b in links]
    center = [b.block.center[b.row] for b in links]
    inertia = [b.block.J[b.row] for b in links]
    for u, joint in enumerate(list(joints)):
        if not is_split(joint):
            continue
        parts = split_parts(joint)
        above = parents[u]
        for part in parts[:-1]:                      # massless links: no body, never in output
            parents.append(above)
            above = len(links)
            links.append(None)
            records.append(part)
            kinds.append(part.kind.name)
            frames.append(part.frame)
            mass.append(0.0)
            center.append(joint.point)
            inertia.append(np.zeros((3, 3)))
        parents[u], kinds[u], frames[u], records[u] = above, parts[-1].kind.name, parts[-1].frame, parts[-1]
    tree = JointTree(parents, kinds, [r.point for r in records], frames, mass, center, inertia)
    return tree, links, records
