"""Opt-in overlap (position) correction after a dynamic step (layer 5): solfec-py's
OVERLAP_CORRECTION, not part of Solfec-1.0. Reference: post-stabilisation / split impulse as in
Box2D and Bullet (E. Catto, "Iterative dynamics with temporal coherence", GDC 2005;
Bullet's split-impulse position correction); docs/contact.md, "Overlap correction".

Solfec's velocity-level Signorini law stops the approach of overlapping bodies but never
removes the overlap. After the step (velocities and configuration at t + h) this module
solves a second, frictionless, normal-only complementarity problem on the local dynamics of
the contacts,

    0 <= R'_N  _|_  U'_N - t >= 0,   U'_N = (W R')_N,   t = fraction * max(-g - slop, 0) / h,

with g = gap + h/2 U_N the contact gap linearised to the end of the step (the gap is
evaluated at the mid-step, U_N is the local velocity of the step), by projected
Gauss-Seidel (`normal_pgs`, numba; warm-started with the last step's R' of persisting
contacts) over the diagonal W_NN and the CSR off-diagonal blocks of the contacts: the step's
solved W (mid-step configuration) when every constraint is a contact (`_reused`), else
local_dynamics.assemble of the contact rows at the end-of-step configuration (`_assembled`). The
generalised pseudo-velocity u' = h A^-1 H^T R' (the step's A, the same operator as in W) moves
the CONFIGURATION only, q <- q + h u' (a rigid body: centre += h v', rotation Lambda <-
Lambda expmap(h Omega')); the velocities are not touched, so neither the kinetic energy nor
the momentum change. Contacts with t = 0 take part with U'_N >= 0 (a correction does not
push bodies into each other), and a step without overlap deeper than `slop` costs nothing.

Kinds: RIGID (obstacles and prescribed-motion rows do not move), PSEUDO_RIGID (conf is
linear in the velocity: conf += h u'). FINITE_ELEMENT bodies raise (their step operator is
factorised per step with pinned nodes eliminated and their internal state marked stale in
step_end; a configuration update outside it is not written), as do links of articulated
trees (a correction would break the joints). Non-contact constraints do not take part.
"""
from __future__ import annotations

import time as wallclock
from dataclasses import dataclass

import numpy as np

from solfec_py import constraints as C
from solfec_py.bodies import pseudo_rigid_kernels as PK
from solfec_py.bodies.pseudo_rigid import PseudoRigidBlock
from solfec_py.bodies.rigid import RigidBlock
from solfec_py.bodies.rigid_schemes import SCHEME_LIST
from solfec_py.compilation import njit
from solfec_py.errors import NotAvailableError
from solfec_py.geometry.rotation import _coefficients_scalar
from solfec_py.solvers.local_dynamics import LocalDynamics, assemble

__all__ = ["Settings", "correct", "normal_pgs", "check_kinds", "TIMER"]

TIMER = "OVLCOR"          # domain.timers entry of the correction (TIMING(solfec, 'OVLCOR'))

# rigid scheme codes whose rows are not moved (prescribed motion) or cannot be (joint trees)
_PRESCRIBED = np.array([s.GROUP == "prescribed" for s in SCHEME_LIST])
_ARTICULATED = np.array([s.GROUP == "articulated" or "ARTICULATED" in s.name.upper() for s in SCHEME_LIST])


@dataclass(frozen=True)
class Settings:
    """OVERLAP_CORRECTION's parameters (api/contact.py): the fraction of the overlap removed
    per step, the overlap left alone (slop), and the projected Gauss-Seidel's relative
    tolerance, sweep limit and relaxation (omega = 1: plain PGS; projected SOR with omega
    1.8 needs a quarter of the sweeps on S2's columns but was not kept)."""

    fraction: float = 0.5
    slop: float = 0.0
    epsilon: float = 1e-3          # a relative error of the removed overlap, not of a force:
                                   # 1e-3 keeps S2's heights and penetrations to their printed
                                   # digits with 28 sweeps a step against 73 at 1e-5
    maxiter: int = 1000
    omega: float = 1.0


@njit
def normal_pgs(Wnn, indptr, adj, Wadj, target, R, epsilon, maxiter, omega):
    """Projected Gauss-Seidel for 0 <= R _|_ W R - target >= 0 on the normal components:
    diagonal Wnn (m,), off-diagonal blocks Wadj (E, 3, 3) of row a at indptr[a]:indptr[a+1]
    with neighbours adj (their [2, 2] entries). R (m,) is the start and the result. Each row
    takes R_a = max(0, R_a + omega ((t_a - sum W_ab R_b) / W_aa - R_a)) for its neighbours'
    latest values (omega = 1: the row solved exactly); stops when |R - R_prev| <= epsilon |R| (2-norms) or after maxiter sweeps; returns
    the sweeps made. Rows with W_aa <= 0 (no mobile body) keep R_a = 0."""
    m = target.size
    for it in range(maxiter):
        dr2 = 0.0
        r2 = 0.0
        for a in range(m):
            w = Wnn[a]
            if w <= 0.0:
                R[a] = 0.0
                continue
            s = target[a]
            for j in range(indptr[a], indptr[a + 1]):
                s -= Wadj[j, 2, 2] * R[adj[j]]
            r = R[a] + omega * (s / w - R[a])
            if r < 0.0:
                r = 0.0
            d = r - R[a]
            dr2 += d * d
            r2 += r * r
            R[a] = r
        if dr2 <= epsilon * epsilon * r2:
            return it + 1
    return maxiter


def check_kinds(domain, cset=None, rows=None) -> None:
    """Raise NotAvailableError naming the body kind when a body the correction would have to
    move is of a kind it cannot move: FINITE_ELEMENT, or a link of an articulated tree.
    With `rows` (constraint-set rows) only their bodies are checked, else every block."""
    used = np.unique(cset.family[rows]) if cset is not None and rows is not None else None
    for code, name in enumerate(cset.families if cset is not None else domain.blocks):
        block = domain.blocks.get(name)
        if block is None or block.count == 0 or (used is not None and code not in used):
            continue
        if isinstance(block, RigidBlock):
            if _ARTICULATED[block.scheme[:block.count]].any():
                raise NotAvailableError("OVERLAP_CORRECTION cannot move links of articulated trees (JOINT):"
                                        " a configuration correction would break their joints")
            continue
        if isinstance(block, PseudoRigidBlock):
            continue
        kinds = sorted({b.kind for b in block.bodies}) if getattr(block, "bodies", None) else [name]
        raise NotAvailableError(f"OVERLAP_CORRECTION supports RIGID and PSEUDO_RIGID bodies; got bodies of kind"
                                f" {', '.join(map(str, kinds))} in contact (their configuration is not"
                                " corrected by solfec-py)")


def targets(cset, rows: np.ndarray, h: float, settings: Settings) -> np.ndarray:
    """t = fraction max(-g - slop, 0) / h with g = gap + h/2 U_N (the end-of-step gap).
    (A hysteresis that skipped steps once every overlap was below slop + GEOMETRIC_EPSILON
    was tried and dropped: switching the correction on and off excited S2's rocking mode.)"""
    g = cset.gap[rows] + 0.5 * h * cset.U[rows, 2]
    return settings.fraction * np.maximum(-g - settings.slop, 0.0) / h


def correct(domain, h: float) -> int:
    """Apply the correction of the step just made, when OVERLAP_CORRECTION is on and the
    analysis is dynamic; returns the projected Gauss-Seidel sweeps (0: nothing to do)."""
    settings = domain.overlap_correction
    if settings is None or not domain.dynamic:
        return 0
    cset = domain.constraints
    if not isinstance(cset, C.ConstraintSet) or cset.count == 0:
        return 0
    start = wallclock.perf_counter()
    try:
        return _correct(domain, cset, h, settings)
    finally:
        domain.timers[TIMER] = domain.timers.get(TIMER, 0.0) + wallclock.perf_counter() - start


def _correct(domain, cset, h: float, settings: Settings) -> int:
    solved = domain.solved_local_dynamics
    domain.solved_local_dynamics = None     # released: its buffers are reused by the next assembly
    n = cset.count
    rows = np.flatnonzero(cset.kind[:n] == C.CONTACT)
    if rows.size == 0:
        return 0
    target = targets(cset, rows, h, settings)
    if not (target > 0.0).any():
        return 0
    check_kinds(domain, cset, rows)
    ld = _reused(solved, rows) if solved is not None else None
    if ld is None:
        ld = _assembled(domain, cset, h, rows)        # W at the end-of-step configuration
    R = _warm_start(domain, cset.id[rows])
    sweeps = normal_pgs(ld.Wnn, ld.indptr, ld.adj, ld.Wadj, target, R, settings.epsilon, settings.maxiter,
                        settings.omega)
    domain.overlap_warm = (cset.id[rows].copy(), R.copy())
    pseudo = np.zeros((rows.size, 3))
    pseudo[:, 2] = R
    for block, force in _generalised(ld, pseudo).items():
        _move(block, force, h)
    return int(sweeps)


def _warm_start(domain, ids: np.ndarray) -> np.ndarray:
    """The last correction's R' of the contacts (by constraint id) that persist, 0 for new ones."""
    last = domain.overlap_warm
    R = np.zeros(ids.size)
    if last is None or last[0].size == 0:
        return R
    prev_ids, prev_R = last
    order = np.argsort(prev_ids, kind="stable")
    k = np.searchsorted(prev_ids, ids, sorter=order)
    k = np.minimum(k, prev_ids.size - 1)
    hit = prev_ids[order[k]] == ids
    R[hit] = prev_R[order[k[hit]]]
    return R


def _reused(solved, rows: np.ndarray):
    """The step's solved LocalDynamics as the correction's W when its rows are exactly the
    contact rows (e.g. every constraint is a contact): its normal entries at the mid-step
    configuration, a linearisation as good as the gap's own (the target is the gap moved to
    the end of the step at first order); None otherwise (then `_assembled` assembles W at
    the end-of-step configuration)."""
    if solved.n != rows.size or not np.array_equal(solved.crow, rows):
        return None
    solved.Wnn = np.ascontiguousarray(solved.W[:, 2, 2])
    return solved


def _assembled(domain, cset, h: float, rows: np.ndarray) -> LocalDynamics:
    """The local dynamics of the contact rows alone (off-diagonal blocks among them), by
    local_dynamics.assemble at the current, end-of-step configuration, with its normal
    entries Wnn: the correction's W when other constraints share the set."""
    ld = assemble(domain, cset, h, crow=rows)
    ld.Wnn = np.ascontiguousarray(ld.W[:, 2, 2])
    return ld


def _generalised(ld, pseudo: np.ndarray) -> dict:
    """block -> (count, dofs) generalised force sum s H^T R' of the pseudo-reactions, by the
    blocks' own scatter (LocalDynamics.scatter_reactions into a zeroed `reaction`, the
    block's array restored afterwards)."""
    blocks = {id(side.block): side.block for side in ld.sides}
    saved = {key: block.reaction for key, block in blocks.items()}
    out = {}
    try:
        for key, block in blocks.items():
            block.reaction = np.zeros_like(saved[key])
        ld.R = pseudo
        ld.scatter_reactions()
        for key, block in blocks.items():
            out[block] = block.reaction
    finally:
        for key, block in blocks.items():
            block.reaction = saved[key]
    return out


def _move(block, force: np.ndarray, h: float) -> None:
    """q += h u', u' = h A^-1 force, on the rows that got a pseudo-reaction."""
    n = block.count
    rows = np.flatnonzero(np.any(force[:n] != 0.0, axis=1))
    if rows.size == 0:
        return
    f = force[rows]
    if isinstance(block, RigidBlock):
        rows = rows[~block.obstacle[rows] & ~_PRESCRIBED[block.scheme[rows]]]
        if rows.size:
            rigid_move(block.conf, rows, np.ascontiguousarray(force), block.Jinv, block.mass, block.norotation, h)
    elif isinstance(block, PseudoRigidBlock):
        du = np.zeros((rows.size, block.VELO_SIZE))
        PK.add_reaction_velocity(du, np.ascontiguousarray(f), np.ascontiguousarray(block.Ainv[rows]),
                                 np.ascontiguousarray(block.mass[rows]), h)     # du = h A^-1 r'
        block.conf[rows] += h * du
    else:                                       # check_kinds refused it before
        raise NotAvailableError(f"OVERLAP_CORRECTION cannot move bodies of {type(block).__name__}")


@njit
def rigid_move(conf, rows, force, Jinv, mass, norotation, h):
    """Rigid rows (conf: rotation column-major (9), centre (3); force: referential torque (3),
    spatial force (3)): the pseudo-velocities Omega' = h J^-1 torque, v' = h force / m (the
    velocity update's h A^-1 r), then x += h v' and Lambda <- Lambda exp[h Omega']."""
    E = np.empty((3, 3))
    L = np.empty((3, 3))
    for k in range(rows.size):
        r = rows[k]
        inv_m = 1.0 / mass[r] if mass[r] > 0.0 else 0.0
        for i in range(3):
            conf[r, 9 + i] += h * (h * inv_m * force[r, 3 + i])
        if norotation[r]:
            continue
        w = np.empty(3)
        for i in range(3):
            w[i] = h * h * (Jinv[r, i, 0] * force[r, 0] + Jinv[r, i, 1] * force[r, 1] + Jinv[r, i, 2] * force[r, 2])
        x, y, z = w[0], w[1], w[2]
        n2 = x * x + y * y + z * z
        a, b, c = _coefficients_scalar(n2)
        E[0, 0], E[1, 1], E[2, 2] = 1.0 + b * (x * x - n2), 1.0 + b * (y * y - n2), 1.0 + b * (z * z - n2)
        E[0, 1], E[1, 0] = -a * z + b * x * y, a * z + b * x * y
        E[0, 2], E[2, 0] = a * y + b * x * z, -a * y + b * x * z
        E[1, 2], E[2, 1] = -a * x + b * y * z, a * x + b * y * z
        for i in range(3):
            for j in range(3):
                L[i, j] = conf[r, 3 * j + i]
        for i in range(3):
            for j in range(3):
                conf[r, 3 * j + i] = L[i, 0] * E[0, j] + L[i, 1] * E[1, j] + L[i, 2] * E[2, j]
