"""Solfec's rigid schemes RIG_POS / RIG_NEG / RIG_IMP (layer 3): the shared half step and
the three rotation finishes. Reference: Koziara & Bicanic, IJNME 81 (2009) 1073-1092
(NEW1/2/3); Solfec-1.0 bod.c (RIG branch of BODY_Dynamic_Step_Begin/End).

First half (every row of the group at once): Lambda(t+h/2) = Lambda exp[h/2 Omega],
x(t+h/2) = x + h/2 v, loads at (q(t+h/2), u(t), t+h/2), the momentum a = dR^T J Omega + h T
and the mid-step gyroscopic predictor give the free velocity. Second half: the constrained
velocity Omega1 = Omega + h J^-1 Tc, x(t+h) = x(t+h/2) + h/2 v(t+h), then the finish of
each scheme. Obstacles are rows of this group with the RIG_IMP finish (Solfec's quirk).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.rigid_schemes.base import (ANGULAR, CENTER, LINEAR, RigidScheme, mtv, mv,
                                                 put_rotations, rotations)
from solfec_py.errors import SimulationError
from solfec_py.geometry.rotation import expmap, right_jacobian, skew


class SolfecScheme(RigidScheme):
    """The half step shared by NEW1/2/3; subclasses give `rotation_finish`."""

    GROUP = "solfec"
    order = 2

    def begin(self, block, rows, t, h):
        conf, velo = block.conf, block.velo
        Omega, v = velo[rows, ANGULAR].copy(), velo[rows, LINEAR].copy()
        dR = expmap(0.5 * h * Omega)
        R_half = rotations(conf[rows]) @ dR
        put_rotations(conf, rows, R_half)
        conf[rows, CENTER] += 0.5 * h * v
        f, ts, tr = block.loads_at(rows, R_half, conf[rows, CENTER], t + 0.5 * h, h)
        T = mtv(R_half, ts) + tr
        J, Jinv = block.J[rows], block.Jinv[rows]
        L = mtv(dR, mv(J, Omega))                 # dR^T J Omega^t
        block.momentum[rows] = L + h * T
        Omega_half = mv(Jinv, L + 0.5 * h * T)
        G = T - np.cross(Omega_half, mv(J, Omega_half))
        block.fext[rows, ANGULAR], block.fext[rows, LINEAR] = G, f
        mass = block.mass[rows]
        velo[rows, ANGULAR] = Omega + h * mv(Jinv, G)
        velo[rows, LINEAR] = v + (h / np.where(mass > 0, mass, 1.0))[:, None] * f

    def finish(self, block, rows, t, h):
        conf, velo = block.conf, block.velo
        Tc, fc = block.reaction[rows, ANGULAR], block.reaction[rows, LINEAR]
        mass = block.mass[rows]
        mass = np.where(mass > 0, mass, 1.0)
        Omega1 = velo[rows, ANGULAR] + h * mv(block.Jinv[rows], Tc)
        velo[rows, LINEAR] += (h / mass)[:, None] * fc
        conf[rows, CENTER] += 0.5 * h * velo[rows, LINEAR]
        norot = block.norotation[rows]
        Omega1[norot] = 0.0
        R_half = rotations(conf[rows])
        R_end, Omega_end = R_half.copy(), Omega1.copy()
        glob = np.arange(block.count)[rows]
        codes = block.scheme[rows]
        for code, scheme in block.scheme_table():
            if isinstance(scheme, SolfecScheme):
                loc = np.flatnonzero(codes == code)
                if loc.size:
                    R_end[loc], Omega_end[loc] = scheme.rotation_finish(block, glob[loc], h, R_half[loc],
                                                                        Omega1[loc], Tc[loc])
        R_end[norot], Omega_end[norot] = R_half[norot], 0.0
        put_rotations(conf, rows, R_end)
        velo[rows, ANGULAR] = Omega_end

    def rotation_finish(self, block, idx, h, R_half, Omega1, torque_c):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement rotation_finish()")


class RigPos(SolfecScheme):
    """NEW1: explicit, Lambda = Lambda_half exp[h/2 Omega1], Omega = Omega1."""

    name = "RIG_POS"

    def rotation_finish(self, block, idx, h, R_half, Omega1, torque_c):
        return R_half @ expmap(0.5 * h * Omega1), Omega1


class RigNeg(SolfecScheme):
    """NEW2: explicit, exact spatial momentum balance Lambda J Omega = Lambda_half a."""

    name = "RIG_NEG"

    def rotation_finish(self, block, idx, h, R_half, Omega1, torque_c):
        a = block.momentum[idx] + h * torque_c
        block.momentum[idx] = a
        dR = expmap(0.5 * h * Omega1)
        Omega = np.einsum("nij,nj->ni", block.Jinv[idx], np.einsum("nji,nj->ni", dR, a))
        return R_half @ dR, Omega


class RigImp(SolfecScheme):
    """NEW3: semi-explicit, solves exp[h/2 Omega] J Omega = a by Newton (no energy drift)."""

    name = "RIG_IMP"

    def rotation_finish(self, block, idx, h, R_half, Omega1, torque_c):
        a = block.momentum[idx] + h * torque_c
        block.momentum[idx] = a
        Omega = solve_half_rotation(block, idx, self.name, block.J[idx], a, 0.5 * h, Omega1)
        return R_half @ expmap(0.5 * h * Omega), Omega


MAXITER = 50


def solve_half_rotation(block, idx, scheme: str, J, a, s: float, Omega0) -> np.ndarray:
    """Omega with exp[s Omega] J Omega = a (referential momentum `a` seen from the rotation
    s Omega ahead) by Newton from Omega0, rows at once; Jacobian
    -s exp[s Omega] [J Omega]x Jr(s Omega) + exp[s Omega] J (RIG_IMP, LSV_IMPLICIT)."""
    Omega = Omega0.copy()
    scale = np.maximum(1.0, np.linalg.norm(a, axis=1))
    active = np.arange(len(idx))
    for _ in range(MAXITER):
        O = Omega[active]
        w = s * O
        E = expmap(w)
        JO = np.einsum("nij,nj->ni", J[active], O)
        res = np.einsum("nij,nj->ni", E, JO) - a[active]
        # converged to round-off of the momentum (Solfec: 1e-12 h/2 absolute)
        done = np.abs(res).max(axis=1) <= 1e-13 * scale[active]
        active_next = active[~done]
        if active_next.size == 0:
            break
        keep = ~done
        E, JO, w, res = E[keep], JO[keep], w[keep], res[keep]
        jac = -s * E @ skew(JO) @ right_jacobian(w) + E @ J[active_next]
        Omega[active_next] -= np.linalg.solve(jac, res[..., None])[..., 0]
        active = active_next
    else:
        body = block.bodies[int(idx[active[0]])]
        raise SimulationError(
            f"{scheme} momentum solve did not converge in {MAXITER} iterations for body"
            f" {body.id} at time {block.domain.time:g}; reduce the time step")
    return Omega
