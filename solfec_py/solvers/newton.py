"""NEWTON_SOLVER (layer 5). The projected quasi-Newton method of NUMERICS §4.8 is not
implemented yet: a NEWTON_SOLVER runs Solfec's own fallback path instead — Gauss-Seidel
with epsilon 1 (only the merit criterion counts), the Newton `meritval` and `maxiter`,
semismooth-Newton diagonal solver — and says so once per program run.
Reference: NUMERICS §4.8 ("on failure with gsflag='ON' ... run Gauss-Seidel"), §4.5.
"""
from __future__ import annotations

import sys

from solfec_py import constraints as C
from solfec_py.solvers import finish, gauss_seidel as gs, spring_forces, timed_assemble, warn_once


def settings(obj) -> gs.Settings:
    meritval = float(obj.meritval)
    maxiter = int(obj.maxiter)
    return gs.Settings(epsilon=1.0, maxiter=maxiter, meritval=meritval, diagsolver=0,
                       diagepsilon=max(sys.float_info.epsilon, 0.01 * min(1.0, meritval, 1e-4)),
                       diagmaxiter=max(100, maxiter // 100))


def solve(obj, domain, h: float) -> None:
    warn_once("newton", "NEWTON_SOLVER: the projected quasi-Newton solver is not available in"
                        " solfec-py yet; constraints are solved by Gauss-Seidel to the same"
                        f" merit value {obj.meritval:g} (Solfec's gsflag fallback)")
    cset = C.constraint_set(domain)
    ld = timed_assemble(domain, cset, h)
    result = gs.run(ld, settings(obj), springs=spring_forces(cset, ld))
    finish(domain, cset, ld, result)
    error = "OK" if result.error == "OK" else "DIVERGED"
    obj.record_solve(result.iters, merhist=result.merhist, error=error)
    domain.statistics = {"NTITERS": result.iters, "MERIT": result.merit}
