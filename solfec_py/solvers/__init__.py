"""Constraint solvers (layer 5): the per-step constraint update, the local dynamics and the
Gauss-Seidel, penalty and Newton solves behind the deck's solver objects, and what follows
a solve (reactions to the bodies, constraint work, cohesion, statistics).
Reference: Solfec-1.0 ldy.c and bgs.c (Solfec ldy.c, bgs.c, psc.c/pes.c, nts.c); docs/results.md (solver statistics).

Entry points: `update(domain, t, h)` and `delete_overstressed(domain)` for the step driver,
`solve(solver_object, domain, h)` for the deck solver objects (dispatch on `kind`). What
every solver does around its iteration (timed assembly, spring forces, finish) is in
`solvers/common.py`.
"""
from __future__ import annotations

from solfec_py import constraints as C
from solfec_py.solvers import gauss_seidel as gs
from solfec_py.solvers.common import finish, spring_forces, timed_assemble
from solfec_py.solvers.update import delete_overstressed, update

__all__ = ["update", "delete_overstressed", "solve"]


def solve(solver, domain, h: float) -> None:
    """Solve the constraints of `domain` for step h with the deck solver object `solver`."""
    kind = getattr(solver, "kind", "")
    if domain.parallel is not None and kind == "NEWTON_SOLVER":    # a run on several ranks
        from solfec_py.solvers.distributed_newton import solve as distributed_newton_solve

        distributed_newton_solve(solver, domain, h)
    elif domain.parallel is not None:     # (solvers/distributed.py)
        from solfec_py.solvers.distributed import solve as distributed_solve

        distributed_solve(solver, domain, h)
    elif kind == "GAUSS_SEIDEL_SOLVER":
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
    result = gs.run(ld, gs.settings_of(obj), springs=spring_forces(cset, ld))
    finish(domain, cset, ld, result)
    obj.record_solve(result.iters, rerhist=result.rerhist, merhist=result.merhist, error=result.error)
    domain.statistics = {"GSITERS": result.iters, "MERIT": result.merit}
    obj.handle_failure()
