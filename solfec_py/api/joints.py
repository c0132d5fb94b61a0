"""JOINT: articulated bodies built from rigid bodies joined in a tree (layer 7).
`JOINT(kind, parent, child, point | axis, axis2, label, limits, spring, damper, drive, frame)`
checks its arguments, refuses what cannot make a tree (a cycle, a second parent, a
non-rigid child) with errors naming the joint, and leaves a bodies.articulated.Joint in
the domain. Reference: docs/joints.md.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.common import readonly
from solfec_py.api.series import number_or_series
from solfec_py.bodies import BODY_KINDS
from solfec_py.bodies.articulated import JOINT_KINDS, Joint, joint_frame
from solfec_py.bodies.articulated.joint import ancestry, parent_joint
from solfec_py.bodies.base import Body
from solfec_py.bodies.rigid_schemes import LINK_SCHEMES
from solfec_py.errors import InputError, InputTypeError, NotAvailableError

__all__ = ["JOINT"]

FRAME_SIDES = ("PARENT", "CHILD")      # where the joint frame lies (docs/joints.md)


@contextmanager
def _naming(who: str):
    """Prefix argument errors with the joint they concern."""
    try:
        yield
    except (InputError, InputTypeError) as exc:
        raise type(exc)(f"{who}: {exc}") from None


def _body(name: str, value, allow_none: bool):
    if value is None and allow_none:
        return None
    if not isinstance(value, Body):
        expected = "a RIGID BODY object or None (the ground)" if allow_none else "a RIGID BODY object"
        raise InputTypeError(f"'{name}' must be {expected}, got {V.describe(value)}")
    if value.deleted:
        raise InputTypeError(f"'{name}' is a deleted BODY object (id {value.id})")
    if value.kind != "RIGID":
        raise InputError(f"'{name}' must be a RIGID body (links of articulated bodies are rigid),"
                         f" got body {value.id} of kind {value.kind}")
    return value


def _pairs(name: str, value, nv: int) -> tuple:
    """limits: (lower, upper) of a one-freedom joint, or a tuple of nv such pairs."""
    if nv == 0:
        raise InputError(f"'{name}' needs a joint with freedoms; a FIXED joint has none")
    pairs = (value,) if nv == 1 and isinstance(value, tuple) and len(value) == 2 and V._is_number(value[0]) \
        else value
    if not isinstance(pairs, tuple) or len(pairs) != nv:
        raise InputTypeError(f"'{name}' must be a (lower, upper) tuple{' per freedom' if nv > 1 else ''}"
                             f" ({nv} pair{'s' if nv > 1 else ''}), got {V.describe(value)}")
    out = []
    for k, pair in enumerate(pairs):
        lo, hi = V.tuple_of_numbers(f"{name}[{k}]" if nv > 1 else name, pair, 2)
        if not lo < hi:
            raise InputError(f"'{name}' must have lower < upper, got ({lo:g}, {hi:g})")
        out.append((float(lo), float(hi)))
    return tuple(out)


def _spring(value, nv: int) -> tuple:
    """spring: stiffness, or (stiffness, rest coordinate) of a one-freedom joint."""
    if nv == 0:
        raise InputError("'spring' needs a joint with freedoms; a FIXED joint has none")
    if isinstance(value, tuple) and nv == 1:
        k, rest = V.tuple_of_numbers("spring", value, 2)
    else:
        k, rest = V.number("spring", value), 0.0
    if k < 0:
        raise InputError(f"'spring' stiffness must be non-negative, got {k:g}")
    return float(k), float(rest)


class JOINT:
    """A joint of an articulated body: `child` moves relative to `parent` with the freedoms
    of `kind`.

    ``JOINT(kind, parent, child, point | axis, axis2, label, limits, spring, damper, drive,
    frame='PARENT')``. Rigid bodies joined by JOINTs form trees integrated in joint
    coordinates (docs/joints.md); the links stay RIGID bodies whose conf and velo follow
    from the joints. A link's ``scheme`` is ``'ARTICULATED'`` (Solfec's half step in joint
    space), ``'GEN_ALPHA'`` (generalized-alpha in joint space) or ``'RK4'`` (classical
    Runge-Kutta in joint space, fourth order, trees without drives); all trees of a model
    share one. The joint frame (`point`, `axis` at creation) is fixed in the parent,
    translations before rotations; ``frame='CHILD'`` fixes it in the child (the slides of a
    CYLINDRICAL, PLANAR or FREE joint turn with the child: a rotation on the parent side,
    massless links and slides on the child side; docs/joints.md, "Where the joint frame
    lies"). Contacts,
    FIX_POINT, FIX_DIRECTION, PUT_RIGID_LINK (closing loops), PUT_SPRING and SET_* act on
    links through the tree's dynamics; the two bodies of a joint do not contact each other.
    HISTORY takes ``(joint, 'Q' | 'DQ' | 'Qk' | 'DQk' | 'FX' ... 'MZ')`` items.

    Parameters
    ----------
    kind : str
        ``'REVOLUTE'``, ``'PRISMATIC'``, ``'CYLINDRICAL'``, ``'UNIVERSAL'``, ``'SPHERICAL'``,
        ``'PLANAR'``, ``'FIXED'`` or ``'FREE'``.
    parent : BODY or None
        A RIGID body, or None for the ground.
    child : BODY
        The RIGID body the joint moves; it has at most one parent joint.
    point : tuple
        [length]. The joint centre (x, y, z) in the current configuration.
    axis : tuple, optional
        The joint axis; required for REVOLUTE, PRISMATIC, CYLINDRICAL, UNIVERSAL and PLANAR.
    axis2 : tuple, optional
        A second axis (made orthogonal to `axis`): the second axis of a UNIVERSAL joint.
    label : str, optional
        A name used in messages.
    limits : tuple, optional
        [length] for slides, radians for rotations.
        ``(lower, upper)`` of a one-freedom joint, or one pair per freedom: inelastic stops
        (rotations of SPHERICAL and FREE joints: on the components of the rotation vector).
    spring : float or tuple, optional
        [force / length] for slides, [force x length / angle] for rotations (radians).
        Stiffness on every freedom (rest at creation), or ``(stiffness, rest)``.
    damper : float, optional
        [force x time / length] for slides, [force x length x time / angle] for rotations.
        Damping coefficient on every freedom.
    drive : float or TIME_SERIES, optional
        Prescribed coordinate of a one-freedom joint (an actuator that imposes it; it must
        start at the joint's coordinate, 0 at creation).
    frame : str, optional
        Keyword: ``'PARENT'`` (default) or ``'CHILD'``, the body the joint frame is fixed
        in. With ``'CHILD'`` a CYLINDRICAL, PLANAR or FREE joint reports its slides along the
        child-turned axes (``q``: slides, then the rotation) and its spring, damper and
        limits act on those; other kinds are the same on either side.

    Attributes
    ----------
    kind, parent, child, label, point, axis : read-only
    q : read-only
        Joint coordinates (rotations of SPHERICAL and FREE joints: 9 numbers, column-major).
    dq : read-only
        Joint rates (SPHERICAL, FREE: the child-frame angular velocity).
    reaction : read-only
        ``(fx, fy, fz, mx, my, mz)``: force and moment about the joint centre (world axes)
        the joint exerted on its child over the last step.

    Raises
    ------
    InputTypeError
        A parent or child that is not a BODY (None allowed for the parent).
    InputError
        A non-rigid child, a child with a parent joint already, a joint closing a cycle
        (close loops with PUT_RIGID_LINK or FIX_POINT), a zero or missing axis, bad limits,
        spring, damper or frame; the message names the joint.

    Examples
    --------
    >>> elbow = JOINT('REVOLUTE', upper_arm, forearm, (0, 0, -1), (0, 1, 0), label='elbow')
    >>> elbow.q
    (0.0,)
    >>> forearm.scheme = 'GEN_ALPHA'     # with every other link of the model's trees
    >>> slider = JOINT('PLANAR', None, puck, (0, 0, 0), (0, 0, 1), spring=5.0, frame='CHILD')
    >>> len(slider.q)                    # two slides along child axes, the angle
    3
    """

    @V.command
    def __init__(self, kind, parent, child, point, axis=V.MISSING, axis2=V.MISSING, label=V.MISSING,
                 limits=V.MISSING, spring=V.MISSING, damper=V.MISSING, drive=V.MISSING, frame=V.MISSING):
        kind = JOINT_KINDS[V.choice("kind", kind, JOINT_KINDS, what="JOINT kind", listed=sorted(JOINT_KINDS))]
        label = "" if label is V.MISSING else V.string("label", label)
        who = f"JOINT {label!r}" if label else f"JOINT {kind.name}"
        with _naming(who):
            child = _body("child", child, allow_none=False)
            who = who if label else f"{who} of child body {child.id}"
        with _naming(who):
            parent = _body("parent", parent, allow_none=True)
            domain = child.block.domain
            if parent is not None and parent.block.domain is not domain:
                raise InputError("'parent' and 'child' belong to different SOLFEC objects")
            if not domain.dynamic:
                raise NotAvailableError("JOINT in a QUASI_STATIC analysis is not available in solfec-py yet")
            if domain.initialized:
                raise NotAvailableError("JOINT after RUN is not available in solfec-py yet; create the joints"
                                        " before the first RUN")
            if parent is child:
                raise InputError(f"'parent' and 'child' are the same body ({child.id})")
            point = V.point("point", point)
            if V.given(axis):
                a = _unit(V.vector("axis", axis))
                b = _unit(V.vector("axis2", axis2)) if V.given(axis2) else None
                if b is not None and _parallel(a, b):
                    raise InputError(f"'axis2' must not be parallel to 'axis', got {tuple(b.tolist())}")
                axes = joint_frame(a, b)
            elif kind.needs_axis:
                raise InputError(f"'axis' is required for a {kind.name} joint")
            elif V.given(axis2):
                raise InputError("'axis2' needs 'axis'")
            else:
                axes = np.eye(3)
            limits = _pairs("limits", limits, kind.nv) if V.given(limits) else None
            spring = _spring(spring, kind.nv) if V.given(spring) else None
            damper = V.nonnegative("damper", damper) if V.given(damper) else 0.0
            if V.given(drive):
                if kind.nv != 1:
                    raise InputError(f"'drive' prescribes the coordinate of a one-freedom joint (REVOLUTE,"
                                     f" PRISMATIC); a {kind.name} joint has {kind.nv}")
                drive = number_or_series("drive", drive)
            else:
                drive = None
            side = "PARENT" if not V.given(frame) else V.choice("frame", frame, FRAME_SIDES, what="JOINT frame side")
            joints = _joints(domain)
            previous = parent_joint(joints, child)
            if previous is not None:
                raise InputError(f"child body {child.id} already has a parent joint ({previous.describe()});"
                                 " a link has one parent joint")
            above = ancestry(joints, parent) if parent is not None else []
            if any(b is child for b in above):
                cycle = above[:[b is child for b in above].index(True) + 1][::-1] + [child]
                path = " -> ".join(f"body {b.id}" for b in cycle)
                raise InputError(f"joining body {child.id} to body {parent.id} would close a cycle ({path});"
                                 " articulated bodies are trees: close the loop with PUT_RIGID_LINK or FIX_POINT"
                                 " instead")
        self._joint = Joint(kind, parent, child, point, axes, label, limits, spring, float(damper), drive, side)
        joints.append(self._joint)
        if parent is not None:                # a joint's two links touch at the joint: no contact between them
            domain.excluded_bodies.add((min(parent.id, child.id), max(parent.id, child.id)))
        for body in (child, parent):          # links are stepped in joint coordinates (GEN_ALPHA kept)
            if body is not None:
                if body._scheme not in LINK_SCHEMES:
                    if body._scheme != BODY_KINDS["RIGID"].default_scheme:
                        session.runtime_warning(f"{who}: body {body.id} becomes a link of an articulated body; its"
                                                f" scheme {body._scheme} is replaced by ARTICULATED (links take"
                                                " ARTICULATED, GEN_ALPHA or RK4)")
                    body._scheme = "ARTICULATED"
                body.block.set_scheme(body.row, LINK_SCHEMES[body._scheme])

    kind = readonly(lambda self: self._joint.kind.name)
    parent = readonly(lambda self: self._joint.parent)
    child = readonly(lambda self: self._joint.child)
    label = readonly(lambda self: self._joint.label)

    @readonly
    def point(self):
        return tuple(self._joint.point.tolist())

    @readonly
    def axis(self):
        return tuple(self._joint.frame[:, 0].tolist())

    @readonly
    def q(self):
        """Joint coordinates (ball rotations as 9 numbers, column-major)."""
        return tuple(self._joint.q.tolist())

    @readonly
    def dq(self):
        """Joint rates (ball rotations: child-frame angular velocity)."""
        return tuple(self._joint.dq.tolist())

    @readonly
    def reaction(self):
        """(fx, fy, fz, mx, my, mz): force and moment about the joint centre (world axes) the
        joint exerted on its child over the last step (zero before RUN)."""
        return tuple(self._joint.reaction.tolist())

    def __repr__(self) -> str:
        return f"<{self._joint.describe()}>"


def _unit(d) -> np.ndarray:
    """d / |d| for a non-zero finite vector (tiny components scaled first: no underflow)."""
    d = d / np.abs(d).max()
    return d / np.linalg.norm(d)


def _parallel(a, b) -> bool:
    return float(np.linalg.norm(np.cross(a, b))) <= 1e-9 * float(np.linalg.norm(a) * np.linalg.norm(b))


def _joints(domain) -> list:
    return domain.joints
