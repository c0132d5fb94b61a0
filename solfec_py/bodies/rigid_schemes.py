"""Second-half finishes of Solfec's rigid schemes RIG_POS / RIG_NEG / RIG_IMP (layer 3).
Reference: NUMERICS §1.5; Koziara & Bicanic, IJNME 81 (2009) 1073-1092 (NEW1/2/3).

Every scheme shares the first half step (RigidBlock.step_begin); a scheme class only
says how the end-of-step rotation and angular velocity follow from the constrained
angular velocity Omega1. Each class works on index arrays of the bodies that use it, so
bodies with different schemes step in the same few vectorised calls. Further rigid
integrators plug in here as more classes (DESIGN §2).
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import SimulationError
from solfec_py.geometry.rotation import expmap, right_jacobian, skew


class RigidScheme:
    """Contract: `finish(block, idx, h, R_half, Omega1, torque_c)` returns (R_end, Omega_end)."""

    name = ""

    def finish(self, block, idx, h, R_half, Omega1, torque_c):  # pragma: no cover - abstract
        raise AttributeError("scheme classes implement finish()")


class RigPos(RigidScheme):
    """NEW1: explicit, Lambda = Lambda_half exp[h/2 Omega1], Omega = Omega1."""

    name = "RIG_POS"

    def finish(self, block, idx, h, R_half, Omega1, torque_c):
        return R_half @ expmap(0.5 * h * Omega1), Omega1


class RigNeg(RigidScheme):
    """NEW2: explicit, exact spatial momentum balance Lambda J Omega = Lambda_half a."""

    name = "RIG_NEG"

    def finish(self, block, idx, h, R_half, Omega1, torque_c):
        a = block.momentum[idx] + h * torque_c
        block.momentum[idx] = a
        dR = expmap(0.5 * h * Omega1)
        Omega = np.einsum("nij,nj->ni", block.Jinv[idx], np.einsum("nji,nj->ni", dR, a))
        return R_half @ dR, Omega


class RigImp(RigidScheme):
    """NEW3: semi-explicit, solves exp[h/2 Omega] J Omega = a by Newton (no energy drift)."""

    name = "RIG_IMP"
    MAXITER = 50

    def finish(self, block, idx, h, R_half, Omega1, torque_c):
        a = block.momentum[idx] + h * torque_c
        block.momentum[idx] = a
        J = block.J[idx]
        Omega = Omega1.copy()
        scale = np.maximum(1.0, np.linalg.norm(a, axis=1))
        active = np.arange(len(idx))
        for _ in range(self.MAXITER):
            O = Omega[active]
            w = 0.5 * h * O
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
            jac = -0.5 * h * E @ skew(JO) @ right_jacobian(w) + E @ J[active_next]
            Omega[active_next] -= np.linalg.solve(jac, res[..., None])[..., 0]
            active = active_next
        else:
            body = block.bodies[int(idx[active[0]])]
            raise SimulationError(
                f"RIG_IMP momentum solve did not converge in {self.MAXITER} iterations for body"
                f" {body.id} at time {block.domain.time:g}; reduce the time step")
        return R_half @ expmap(0.5 * h * Omega), Omega


SCHEMES = {cls.name: cls() for cls in (RigPos, RigNeg, RigImp)}
SCHEME_CODES = {name: code for code, name in enumerate(SCHEMES)}
SCHEME_LIST = list(SCHEMES.values())
