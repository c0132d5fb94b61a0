"""Constraint solvers (layer 5): the per-step constraint update, the local dynamics and the
Gauss-Seidel, penalty and Newton solves behind the deck's solver objects, and what follows
a solve (reactions to the bodies, constraint work, cohesion, statistics).
Reference: NUMERICS §4 (Solfec ldy.c, bgs.c, psc.c/pes.c, nts.c), §6.1.

Entry points: `update(domain, t, h)` and `delete_overstressed(domain)` for the step driver,
`solve(solver_object, domain, h)` for the deck solver objects (dispatch on `kind`).
"""
from __future__ import annotations

import time as wallclock

import numpy as np

from solfec_py import constraints as C
from solfec_py.errors import InputTypeError
from solfec_py.solvers import gauss_seidel as gs
from solfec_py.solvers.diagonal import DIAGONAL_SOLVERS
from solfec_py.solvers.local_dynamics import LocalDynamics, assemble
from solfec_py.solvers.update import delete_overstressed, update

__all__ = ["update", "delete_overstressed", "solve", "gauss_seidel_settings"]

def gauss_seidel_settings(obj) -> gs.Settings:
    """Settings of a GAUSS_SEIDEL_SOLVER object (api/solvers.py attributes)."""
    return gs.Settings(epsilon=obj.epsilon, maxiter=int(obj.maxiter), meritval=obj.merit_threshold,
                       diagsolver=DIAGONAL_SOLVERS.index(obj.diagsolver), diagepsilon=obj.diagepsilon,
                       diagmaxiter=int(obj.diagmaxiter), reverse=obj.reverse == "ON",
                       stop_on_fail=obj.failure_action == "EXIT")


def solve(solver, domain, h: float) -> None:
    """Solve the constraints of `domain` for step h with the deck solver object `solver`."""
    kind = getattr(solver, "kind", "")
    if kind == "GAUSS_SEIDEL_SOLVER":
        _gauss_seidel(solver, domain, h)
    elif kind == "PENALTY_SOLVER":
        from solfec_py.solvers.penalty import solve as penalty_solve

        penalty_solve(solver, domain, h)
    elif kind == "NEWTON_SOLVER":
        from solfec_py.solvers.newton import solve as newton_solve

        newton_solve(solver, domain, h)
    else:
        raise TypeError(f"no constraint solver implementation for {kind or type(solver).__name__!r}")


def _gauss_seidel(obj, domain, h: float) -> None:
    cset = C.constraint_set(domain)
    ld = timed_assemble(domain, cset, h)
    result = gs.run(ld, gauss_seidel_settings(obj), springs=spring_forces(cset, ld))
    finish(domain, cset, ld, result)
    obj.record_solve(result.iters, rerhist=result.rerhist, merhist=result.merhist, error=result.error)
    domain.statistics = {"GSITERS": result.iters, "MERIT": result.merit}
    obj.handle_failure()


def timed_assemble(domain, cset, h: float, **kwargs) -> LocalDynamics:
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
    accumulate contact and friction work (dynamic runs) and update cohesion."""
    r = ld.crow
    cset.R[r], cset.U[r], cset.V[r], cset.B[r] = ld.R, ld.U, ld.V, ld.B
    if result is not None:
        cset.merit[r] = result.num
    ld.scatter_reactions()
    contact = ld.kind == C.CONTACT
    if contact.any():
        if domain.dynamic:
            _contact_work(ld)
        _cohesion(cset, ld, contact)


def _contact_work(ld: LocalDynamics) -> None:
    """CONTWORK += h/2 (U_N + V_N) R_N, FRICWORK += h/2 (U_T + V_T) R_T on both bodies of a
    contact (obstacles excluded), NUMERICS §6.1."""
    for side in ld.sides:
        m = (ld.kind[side.con] == C.CONTACT) & ~side.inert
        if not m.any():
            continue
        c = side.con[m]
        s = ld.U[c] + ld.V[c]
        normal = 0.5 * ld.h * s[:, 2] * ld.R[c, 2]
        tangent = 0.5 * ld.h * np.einsum("ki,ki->k", s[:, :2], ld.R[c, :2])
        np.add.at(side.block.energy[:, 2], side.rows[m], normal)
        np.add.at(side.block.energy[:, 3], side.rows[m], tangent)


def _cohesion(cset, ld: LocalDynamics, contact: np.ndarray) -> None:
    """A cohesive Signorini contact loses cohesion for good in mode I (R_N + c < 1e-8 c) or
    mode II (|R_T| + 1e-8 c >= mu (R_N + c)) (NUMERICS §4.4)."""
    r = ld.crow[contact]
    c = cset.cohesion[r]
    live = (c > 0) & (cset.model[r] == 0)
    if not live.any():
        return
    R = ld.R[contact]
    mu = cset.friction[r]
    lost = live & ((R[:, 2] + c < 1e-8 * c) | (np.hypot(R[:, 0], R[:, 1]) + 1e-8 * c >= mu * (R[:, 2] + c)))
    cset.cohesion[r[lost]] = 0.0

