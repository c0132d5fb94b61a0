"""Joint kinds of articulated bodies as data (layer 3): each kind is a list of elementary
freedoms in the joint frame — translations first, rotations after — with the body each
freedom's axis is fixed in. Reference: Featherstone, Rigid Body Dynamics Algorithms
(Springer 2008), ch. 4 (joint models); docs/joints.md.

Joint frame E = (a, b, a x b): a = the joint `axis`, b = `axis2` made orthogonal to a (or
any unit vector orthogonal to a). An elementary freedom is (type, axis, fixed):
  type  T (translation along E e_axis) or R (rotation about E e_axis through the joint
        centre), axis 0, 1, 2 (a, b, a x b);
  fixed P (the axis is fixed in the parent; e.g. a translation direction or the first
        axis of a universal joint) or C (fixed in the child).
Scalar rotations (REVOLUTE, CYLINDRICAL, UNIVERSAL, PLANAR) compose in order: the relative
rotation is Rot(e_a1, q1) Rot(e_a2, q2) ... and the axis of freedom k is the previous
product applied to e_ak. BALL kinds (SPHERICAL, FREE) keep the relative rotation as a
3x3 matrix (9 numbers, column-major, in conf) and their rate is the child-frame angular
velocity Omega: the rotation is updated by R <- R expmap(h Omega), with no singularity.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

T, R = 0, 1          # freedom types
PARENT, CHILD = 0, 1  # where a freedom's axis is fixed
MAX_DOFS = 6


@dataclass(frozen=True)
class JointKind:
    """One joint kind: `dofs` = ((type, axis, fixed), ...), `ball` = rotations stored as a
    matrix with child-frame angular velocity rates; `needs_axis` = the deck must give an axis."""

    name: str
    code: int
    dofs: tuple
    ball: bool = False
    needs_axis: bool = True

    @property
    def nv(self) -> int:
        """Number of joint rates (velocity coordinates)."""
        return len(self.dofs)

    @property
    def nq(self) -> int:
        """Number of joint coordinates in conf: one per freedom, 9 for a ball's rotation."""
        return self.nv + 6 if self.ball else self.nv

    @property
    def translations(self) -> int:
        return sum(1 for d in self.dofs if d[0] == T)


_RX, _RY, _RZ = ((R, 0, CHILD), (R, 1, CHILD), (R, 2, CHILD))

JOINT_KINDS = {
    "REVOLUTE": JointKind("REVOLUTE", 0, ((R, 0, CHILD),)),
    "PRISMATIC": JointKind("PRISMATIC", 1, ((T, 0, PARENT),)),
    "CYLINDRICAL": JointKind("CYLINDRICAL", 2, ((T, 0, PARENT), (R, 0, CHILD))),
    "UNIVERSAL": JointKind("UNIVERSAL", 3, ((R, 0, PARENT), (R, 1, CHILD))),
    "SPHERICAL": JointKind("SPHERICAL", 4, (_RX, _RY, _RZ), ball=True, needs_axis=False),
    "PLANAR": JointKind("PLANAR", 5, ((T, 1, PARENT), (T, 2, PARENT), (R, 0, CHILD))),
    "FIXED": JointKind("FIXED", 6, (), needs_axis=False),
    "FREE": JointKind("FREE", 7, ((T, 0, PARENT), (T, 1, PARENT), (T, 2, PARENT), _RX, _RY, _RZ),
                      ball=True, needs_axis=False),
}
KIND_BY_CODE = {k.code: k for k in JOINT_KINDS.values()}


def tables() -> tuple[np.ndarray, ...]:
    """Kind tables for the compiled kernels, indexed by kind code:
    (nv, nq, ball, dof type (k, MAX_DOFS), dof axis, dof fixed)."""
    n = len(JOINT_KINDS)
    nv, nq, ball = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    dtype, daxis, dfixed = (np.zeros((n, MAX_DOFS), np.int64) for _ in range(3))
    for kind in JOINT_KINDS.values():
        c = kind.code
        nv[c], nq[c], ball[c] = kind.nv, kind.nq, kind.ball
        for k, (t, a, f) in enumerate(kind.dofs):
            dtype[c, k], daxis[c, k], dfixed[c, k] = t, a, f
    return nv, nq, ball, dtype, daxis, dfixed


def joint_frame(axis, axis2=None) -> np.ndarray:
    """E = (a, b, a x b) columns from the joint axis and an optional second axis (made
    orthogonal to a); None axis: the global frame. Raises ValueError for a zero axis or an
    axis2 parallel to axis (callers turn it into a deck error naming the joint)."""
    if axis is None:
        return np.eye(3)
    a = np.asarray(axis, float)
    na = np.linalg.norm(a)
    if not na > 1e-12 * max(1.0, np.abs(a).max(initial=0.0)) or not np.isfinite(na):
        raise ValueError("zero axis")
    a = a / na
    if axis2 is None:
        trial = np.eye(3)[int(np.argmin(np.abs(a)))]
        b = trial - a * (a @ trial)
    else:
        b = np.asarray(axis2, float)
        b = b - a * (a @ b)
        if not np.linalg.norm(b) > 1e-9 * max(1.0, np.linalg.norm(axis2)):
            raise ValueError("axis2 parallel to axis")
    b = b / np.linalg.norm(b)
    return np.column_stack((a, b, np.cross(a, b)))


def zero_coordinates(kind: JointKind) -> np.ndarray:
    """Joint coordinates of the reference configuration (zero motion, identity rotation)."""
    q = np.zeros(kind.nq)
    if kind.ball:
        q[kind.translations:] = np.eye(3).reshape(-1)   # symmetric: row- or column-major alike
    return q
