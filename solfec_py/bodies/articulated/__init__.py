"""Articulated bodies (layer 3): trees of rigid links in joint coordinates — joint kinds
as data (kinds.py), the tree layout and its joint-space quantities (tree.py), compiled
recursions (kernels.py), time stepping with Solfec's half-step structure (stepping.py).
Reference: Featherstone, Rigid Body Dynamics Algorithms (Springer 2008); docs/joints.md.
"""
from __future__ import annotations

from solfec_py.bodies.articulated.kinds import JOINT_KINDS, JointKind, joint_frame
from solfec_py.bodies.articulated.tree import CycleError, JointTree, topological_order
from solfec_py.bodies.articulated.joint import Joint, domain_tree

__all__ = ["JOINT_KINDS", "JointKind", "joint_frame", "Joint", "domain_tree", "JointTree", "CycleError", "topological_order"]
