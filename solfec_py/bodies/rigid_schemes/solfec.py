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

from solfec_py.bodies.rigid_schemes import solfec_kernels
from solfec_py.bodies.rigid_schemes.base import CENTER, RigidScheme, rotations
from solfec_py.errors import SimulationError
from solfec_py.geometry.rotation import expmap, right_jacobian, skew


class SolfecScheme(RigidScheme):
    """The half step shared by NEW1/2/3 (numba kernels over the rows, `solfec_kernels.py`);
    subclasses give the `KIND` of their rotation finish."""

    GROUP = "solfec"
    order = 2
    KIND = solfec_kernels.OTHER

    def begin(self, block, rows, t, h):
        idx = _indices(block, rows)
        conf, velo = block.conf, block.velo
        if block.gravity_only():                                    # gravity alone: one pass
            g = np.asarray(block.domain.gravity_at(t + 0.5 * h), dtype=float)
            solfec_kernels.half_step_gravity(idx, conf, velo, block.J, block.Jinv, block.mass, block.obstacle, g,
                                             block.momentum, block.fext, h)
            return
        solfec_kernels.half_rotate(idx, conf, velo, h)
        # point loads need the half-step rotations; gravity and callbacks do not
        R_half = rotations(conf[rows]) if len(block.loads) else np.broadcast_to(np.eye(3), (idx.size, 3, 3))
        f, ts, tr = block.loads_at(rows, R_half, conf[rows, CENTER], t + 0.5 * h, h)
        solfec_kernels.half_velocity(idx, conf, velo, block.J, block.Jinv, block.mass, np.ascontiguousarray(f),
                                     np.ascontiguousarray(ts), np.ascontiguousarray(tr), block.momentum, block.fext, h)

    def begin_every_row(self, block, t, h) -> bool:
        """The start of the step (support._begin_rows) and `begin` of every row of the block
        in one pass when gravity is the only load; False (nothing done) otherwise."""
        if not block.gravity_only():
            return False
        g = np.asarray(block.domain.gravity_at(t + 0.5 * h), dtype=float)
        solfec_kernels.begin_half_step_gravity(block.count, block.conf, block.velo, block.J, block.Jinv, block.mass,
                                               block.obstacle, g, block.momentum, block.fext, h, block.velo0,
                                               block.reaction, block.norotation)
        return True

    def finish(self, block, rows, t, h):
        idx = _indices(block, rows)
        kinds = _kinds(block)
        failed = solfec_kernels.finish(idx.size, idx, block.scheme, kinds, block.conf, block.velo,
                                       block.reaction, block.J, block.Jinv, block.mass, block.momentum,
                                       block.norotation, h, MAXITER, False, block.velo0, block.fext, block.obstacle,
                                       block.energy, np.zeros(1), _imp(block, idx.size, idx, kinds, h))
        if failed >= 0:
            _not_converged(block, int(idx[failed]))

    def finish_with_energies(self, block, t, h):
        """`finish` of every row of the block, each row's end-of-step energies
        (support.SchemeSupport.step_end) right after it: one pass over the block. Whether
        every conf and velo entry came out finite is left in block.finite_after_step (the
        sum of them all is finite), for the step's finite-state check."""
        total = np.zeros(1)
        kinds = _kinds(block)
        failed = solfec_kernels.finish(block.count, _EVERY, block.scheme, kinds, block.conf, block.velo,
                                       block.reaction, block.J, block.Jinv, block.mass, block.momentum,
                                       block.norotation, h, MAXITER, True, block.velo0, block.fext, block.obstacle,
                                       block.energy, total, _imp(block, block.count, _EVERY, kinds, h))
        if failed >= 0:
            _not_converged(block, failed)
        block.finite_after_step = bool(np.isfinite(total[0]))


_EVERY = np.zeros(0, dtype=np.int64)     # K.finish's rows: every row of the block


def _imp(block, n, idx, kinds, h):
    """finish's `imp`: None while no RIG_IMP row needs its Newton solve (a deck whose only
    RIG_IMP rows are obstacles at rest then never compiles the solve), else True."""
    need = solfec_kernels.newton_needed(n, idx, block.scheme, kinds, block.velo, block.reaction, block.Jinv,
                                        block.momentum, block.norotation, h)
    return True if need else None


def _kinds(block) -> np.ndarray:
    """The finish kind (solfec_kernels POS, NEG, IMP or OTHER) of every scheme code (kept on
    the block while its scheme objects are the same ones: integrators.py may replace one)."""
    key = tuple(block.schemes)
    cached = getattr(block, "_finish_kinds", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    kinds = np.full(len(block.schemes), solfec_kernels.OTHER, dtype=np.int64)
    for code, scheme in block.scheme_table():
        if isinstance(scheme, SolfecScheme):
            kinds[code] = scheme.KIND
    block._finish_kinds = (key, kinds)
    return kinds


def _not_converged(block, row: int):
    body = block.bodies[row]
    raise SimulationError(
        f"RIG_IMP momentum solve did not converge in {MAXITER} iterations for body"
        f" {body.id} at time {block.domain.time:g}; reduce the time step")


def _indices(block, rows) -> np.ndarray:
    """rows (a slice or an index array) as an int64 index array."""
    if isinstance(rows, slice):
        return np.arange(block.count, dtype=np.int64)[rows]
    return np.ascontiguousarray(rows, dtype=np.int64)


class RigPos(SolfecScheme):
    """NEW1: explicit, Lambda = Lambda_half exp[h/2 Omega1], Omega = Omega1."""

    name = "RIG_POS"
    KIND = solfec_kernels.POS


class RigNeg(SolfecScheme):
    """NEW2: explicit, exact spatial momentum balance Lambda J Omega = Lambda_half a
    (a += h Tc; Omega = J^-1 exp[h/2 Omega1]^T a)."""

    name = "RIG_NEG"
    KIND = solfec_kernels.NEG


class RigImp(SolfecScheme):
    """NEW3: semi-explicit, solves exp[h/2 Omega] J Omega = a by Newton (no energy drift)."""

    name = "RIG_IMP"
    KIND = solfec_kernels.IMP


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
