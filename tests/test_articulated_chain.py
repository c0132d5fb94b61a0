"""A chain of n revolute JOINTs against the same chain of rigid bodies held by
PUT_RIGID_LINK (the absolute-coordinate model Solfec uses): point masses at unit
distances, hanging from the origin, released from rest in the x-z plane. The JOINT chain
is run by RUN in joint coordinates (the links read as rigid bodies; the same motion as
bodies/articulated/stepping gives), the linked chain by RUN (RIG_NEG, Gauss-Seidel). Both are second-order approximations of the same motion, so their
positions agree to O(h^2); the JOINT chain keeps its link lengths exactly (zero drift by
construction) and the drift of both is printed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from solfec_py.bodies.articulated import domain_tree, stepping

G = math.pi ** 2
ANGLES = (0.3, 0.6, 0.9, 1.2, 1.5)


def chain(api, n, h, joints, tag=""):
    sol = api.SOLFEC('DYNAMIC', h, f"out/chain_{n}_{'joint' if joints else 'link'}{tag}")
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -G))
    mat = api.BULK_MATERIAL(sol, density=1.0)
    pts = [np.zeros(3)]
    for phi in ANGLES[:n]:
        pts.append(pts[-1] + (math.sin(phi), 0.0, -math.cos(phi)))
    balls = []
    for k in range(n):
        c = tuple(pts[k + 1])
        ball = api.BODY(sol, 'RIGID', api.SPHERE(c, 0.05, 1, 1), mat)
        # a point mass: the rotation of a ball linked at its centre does not couple
        api.BODY_CHARS(ball, 1.0, 1.0, c, (1e-9, 0, 0, 0, 1e-9, 0, 0, 0, 1e-9))
        balls.append(ball)
    for k in range(n):
        parent = None if k == 0 else balls[k - 1]
        if joints:
            api.JOINT('REVOLUTE', parent, balls[k], tuple(pts[k]), (0, 1, 0))
        else:
            api.PUT_RIGID_LINK(balls[k], parent, tuple(pts[k + 1]), tuple(pts[k]))
    return sol, balls


def _drift(x):
    prev = np.concatenate((np.zeros((x.shape[0], 1, 3)), x[:, :-1]), axis=1)
    return float(np.abs(np.linalg.norm(x - prev, axis=2) - 1.0).max())


def run_motion(api, n, h, duration, joints):
    """Mass-centre trace (steps, n, 3) of the chain run by RUN (links read as rigid bodies)."""
    sol, balls = chain(api, n, h, joints=joints)
    trace = []

    def watch():
        trace.append([b.conf[9:12] for b in balls])
        return 1

    api.CALLBACK(sol, h, (), watch)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-10, 10000, failure='EXIT'), duration)
    return np.array(trace), sol


def joint_motion(api, n, h, duration):
    sol, balls = chain(api, n, h, joints=True, tag="_tree")
    tree, links = domain_tree(sol.domain.joints)
    assert links == balls
    trace = []
    stepping.integrate(tree, tree.zero_q(), np.zeros(tree.nv), h, int(round(duration / h)), gravity=(0, 0, -G),
                       record=lambda q, u: trace.append(tree.rigid_states(q, u)[0][tree.index, 9:12]))
    return np.array(trace)


# (chain length, duration, tolerance on the position difference in m): measured at h = 1e-3
# over 1 s: 8.7e-9 (n = 1), 7.9e-8 (n = 2), 6.4e-7 (n = 5), each shrinking 4x when h halves
# (both schemes are second order); the tolerances leave a factor of ~5 over the swing of ~1 m
@pytest.mark.parametrize("n, duration, tol", [(1, 0.5, 5e-8), (2, 0.5, 5e-7),
                                              (5, 1.0, 3e-6)])
def test_joint_chain_matches_linked_chain(api, n, duration, tol, capsys):
    h = 1e-3
    linked, _ = run_motion(api, n, h, duration, joints=False)
    jointed, sol = run_motion(api, n, h, duration, joints=True)
    assert linked.shape == jointed.shape == (round(duration / h), n, 3)
    # the deck run steps the links exactly as the joint-space integrator does
    np.testing.assert_allclose(jointed, joint_motion(api, n, h, duration), rtol=0, atol=1e-13)
    diff = float(np.abs(linked - jointed).max())
    with capsys.disabled():
        print(f"\nchain of {n}: max position difference {diff:.3g} m; link-length drift: PUT_RIGID_LINK"
              f" {_drift(linked):.3g} m, JOINT {_drift(jointed):.3g} m")
    assert diff < tol
    assert _drift(jointed) < 1e-12                         # rounding only: lengths are built in
