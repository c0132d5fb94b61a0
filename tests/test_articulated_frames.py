"""Joint frames on the parent side or the child side (docs/joints.md, "Where the joint
frame lies"): a PLANAR or FREE joint whose translation axes turn with the child is, in a
tree, a rotational joint on the parent side, a massless link and translations on the
child side. Built that way explicitly (REVOLUTE / SPHERICAL + massless links + PRISMATIC
joints), it moves the child exactly as the single parent-side joint does: the two are
second-order discretisations of one motion (the difference falls 4x per halving of h),
and their coordinates are related by d = R d' (R the joint rotation)."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.bodies.articulated import JointTree, joint_frame, stepping

RNG = np.random.default_rng(3)
E = joint_frame(RNG.normal(size=3), RNG.normal(size=3))        # a skew joint frame
P = np.array([0.1, -0.2, 0.3])
X0 = P + np.array([0.4, 0.1, -0.3])                            # mass centre off the joint centre
MASS, K_SPRING, GRAVITY = 2.0, 5.0, (0.0, 0.0, -9.81)
J = MASS / 12.0 * np.diag([0.2, 0.85, 0.97])
ZERO = np.zeros((3, 3))


def parent_side(kind):
    return JointTree([-1], [kind], [P], [E], [MASS], [X0], [J])


def child_side(kind):
    """PLANAR: REVOLUTE about a, then PRISMATIC along b and a x b (axes fixed in the massless
    links, which turn with the child); FREE: SPHERICAL, then PRISMATIC along a, b, a x b."""
    if kind == "PLANAR":
        kinds, frames = ["REVOLUTE", "PRISMATIC", "PRISMATIC"], [joint_frame(E[:, i]) for i in (0, 1, 2)]
    elif kind == "CYLINDRICAL":
        kinds, frames = ["REVOLUTE", "PRISMATIC"], [E, E]
    else:
        kinds, frames = ["SPHERICAL"] + ["PRISMATIC"] * 3, [E] + [joint_frame(E[:, i]) for i in (0, 1, 2)]
    n = len(kinds)
    return JointTree(list(range(-1, n - 1)), kinds, [P] * n, frames, [0.0] * (n - 1) + [MASS],
                     [P] * (n - 1) + [X0], [ZERO] * (n - 1) + [J])


def motion(tree, u0, nt, h, duration=0.5):
    """Child placements (steps, 12) under gravity and an isotropic spring k on the nt
    translations (the first freedoms of a parent-side joint, the last of a child-side
    chain); the end coordinates."""
    rates = np.arange(nt) if tree.count == 1 else np.arange(tree.nv - nt, tree.nv)
    coordinates = np.arange(nt) if tree.count == 1 else np.arange(tree.nq - nt, tree.nq)

    def tau(q, u):
        out = np.zeros(tree.nv)
        out[rates] = -K_SPRING * q[coordinates]
        return out

    trace = []
    q, _ = stepping.integrate(tree, tree.zero_q(), np.asarray(u0, float), h, round(duration / h),
                              gravity=GRAVITY, tau=tau,
                              record=lambda q, u: trace.append(tree.rigid_states(q, u)[0][tree.index[-1]]))
    return np.array(trace), q


# initial rates: translation rates (along the joint axes) and rotation rates; at the reference
# configuration (R = I, d = 0) the child-side rates are the same numbers
CASES = {"PLANAR": ([0.5, -0.3], [2.0]), "FREE": ([0.5, -0.3, 0.2], [3.0, -1.0, 2.0]),
         "CYLINDRICAL": ([0.5], [2.0])}


def test_cylindrical_needs_no_split():
    """The translation of a CYLINDRICAL joint runs along its rotation axis, which its own
    rotation leaves in place: the child-side description has the same coordinates and the
    same equations, so the steps agree to rounding."""
    trans, rot = CASES["CYLINDRICAL"]
    a, qa = motion(parent_side("CYLINDRICAL"), trans + rot, 1, 2e-3)
    b, qb = motion(child_side("CYLINDRICAL"), rot + trans, 1, 2e-3)
    print(f"\nCYLINDRICAL: parent-side vs child-side: {np.abs(a - b).max():.3g} m")
    assert np.abs(a - b).max() < 1e-12
    np.testing.assert_allclose(qa, qb[::-1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["PLANAR", "FREE"])
def test_child_side_frame_moves_the_child_as_the_parent_side_joint(kind):
    trans, rot = CASES[kind]
    nt = len(trans)
    parent, child = parent_side(kind), child_side(kind)
    diffs = []
    for h in (2e-3, 1e-3):
        a, qa = motion(parent, trans + rot, nt, h)
        b, qb = motion(child, rot + trans, nt, h)
        diffs.append(np.abs(a - b).max())
    print(f"\n{kind}: child placement, parent-side vs child-side frame: {diffs} (ratio {diffs[0] / diffs[1]:.3f})")
    # both second order in h: measured ratios 4.006 (PLANAR), 4.017 (FREE); the difference is
    # 1.5e-6 / 6.4e-6 m at h = 1e-3 for motions of ~1 m; +-0.2 on the ratio, 3x on the size
    assert 3.8 < diffs[0] / diffs[1] < 4.2 and diffs[1] < 2e-5
    # the coordinates: parent-side d (joint axes) = R d' (child-side, turned by the joint rotation)
    if kind == "PLANAR":
        th = qb[0]
        R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])  # about a, in the (b, a x b) plane
        d, d_child, rotation = qa[0:2], qb[1:3], (qa[2], qb[0])
    else:
        R = qb[0:9].reshape(3, 3).T
        d, d_child, rotation = qa[0:3], qb[9:12], (qa[3:12], qb[0:9])
    np.testing.assert_allclose(d, R @ d_child, atol=2e-5)          # O(h^2) as the placements
    np.testing.assert_allclose(*rotation, atol=2e-5)
