"""What every constraint solver does around its iteration (layer 5): assemble the local
dynamics (timed as LOCDYN), evaluate user springs, and finish a solve (reactions stored and
applied to the bodies, contact and friction work, loss of cohesion). Used by the
Gauss-Seidel, penalty and Newton solves. Reference: Solfec-1.0 bgs.c, contact laws; docs/results.md (Solfec ldy.c, dom.c).
"""
from __future__ import annotations

import time as wallclock

import numpy as np

from solfec_py import constraints as C
from solfec_py.errors import InputTypeError
from solfec_py.solvers.local_dynamics import LocalDynamics, assemble
from solfec_py.solvers.local_dynamics_kernels import contact_work_live

__all__ = ["timed_assemble", "spring_forces", "finish"]


def timed_assemble(domain, cset, h: float, **kwargs) -> LocalDynamics:
    domain.last_local_dynamics = None    # released: the assembly reuses the buffers its arrays view
    start = wallclock.perf_counter()
    ld = assemble(domain, cset, h, **kwargs)
    domain.timers["LOCDYN"] = domain.timers.get("LOCDYN", 0.0) + wallclock.perf_counter() - start
    return ld


def spring_forces(cset, ld: LocalDynamics):
    """None without SPRING rows; else f(b) -> (n,) spring forces R_N = function(stroke, b_N)."""
    rows = np.flatnonzero(ld.kind == C.SPRING)
    if rows.size == 0:
        return None
    funcs = [cset.function[int(ld.crow[r])] for r in rows]
    strokes = ld.par[rows, 2].tolist()
    ids = cset.id[ld.crow[rows]].tolist()

    def evaluate(b: np.ndarray) -> np.ndarray:
        force = np.zeros(ld.n)
        vel = b[rows, 2].tolist()
        for i, r in enumerate(rows.tolist()):
            value = funcs[i](strokes[i], vel[i])
            try:
                force[r] = float(value)
            except (TypeError, ValueError):
                name = getattr(funcs[i], "__name__", "function")
                raise InputTypeError(f"PUT_SPRING 'function' {name!r} (constraint {ids[i]}) must return a"
                                     f" number (the spring force), got {value!r}") from None
        return force

    return evaluate


def finish(domain, cset, ld: LocalDynamics, result=None) -> None:
    """Store R, U, V, B (and merit) in the constraint set, add the reactions to the bodies,
    accumulate contact and friction work (dynamic runs) and update cohesion. The domain keeps
    the solved local dynamics with the ids of its rows (`last_local_dynamics`) until the next
    assembly."""
    r = slice(0, ld.n) if ld.whole else ld.crow
    cset.R[r], cset.U[r], cset.V[r], cset.B[r] = ld.R, ld.U, ld.V, ld.B
    if result is not None:
        cset.merit[r] = result.num
    ld.scatter_reactions()
    domain.last_local_dynamics = (ld, cset.id[ld.crow], cset.serial[ld.crow])   # for LOCDYN_DUMP
    if domain.overlap_correction is not None:
        domain.solved_local_dynamics = ld   # OVERLAP_CORRECTION reuses its W, then lets it go
    contact = ld.kind == C.CONTACT
    if contact.any():
        if domain.dynamic:
            _contact_work(ld)
        _cohesion(cset, ld, contact)


def _contact_work(ld: LocalDynamics) -> None:
    """CONTWORK += h/2 (U_N + V_N) R_N, FRICWORK += h/2 (U_T + V_T) R_T on both bodies of a
    contact (obstacles excluded), docs/results.md."""
    for side in ld.sides:              # the masking in the kernel (contact_work of the live contact entries)
        contact_work_live(side.block.energy, side.rows, side.con, ld.kind, side.inert, ld.U, ld.V, ld.R,
                          0.5 * ld.h, C.CONTACT)


def _cohesion(cset, ld: LocalDynamics, contact: np.ndarray) -> None:
    """A cohesive Signorini contact loses cohesion for good in mode I (R_N + c < 1e-8 c) or
    mode II (|R_T| + 1e-8 c >= mu (R_N + c)) (Solfec-1.0 bgs.c, contact laws)."""
    r = ld.crow[contact]
    c = cset.cohesion[r]
    live = (c > 0) & (cset.model[r] == 0)
    if not live.any():
        return
    R = ld.R[contact]
    mu = cset.friction[r]
    lost = live & ((R[:, 2] + c < 1e-8 * c) | (np.hypot(R[:, 0], R[:, 1]) + 1e-8 * c >= mu * (R[:, 2] + c)))
    cset.cohesion[r[lost]] = 0.0

