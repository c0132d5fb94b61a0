"""PENALTY_SOLVER (layer 5): every contact gets the spring-dashpot force once (implicit or
explicit normal force, friction-limited stick estimate), then the other constraints
(joints, prescribed motion, springs) are solved by Gauss-Seidel (epsilon 1e-4, maxiter
1000, semismooth Newton, diagepsilon 1e-9, diagmaxiter 100, no merit) with the contact
reactions folded into their free velocities; no iteration back to the contacts.
Reference: Solfec-1.0 pes.c, penalty solver; Solfec-1.0 bgs.c, contact laws (Solfec psc.c / pes.c).
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C
from solfec_py.compilation import njit
from solfec_py.solvers import gauss_seidel as gs
from solfec_py.solvers.common import finish, spring_forces, timed_assemble
from solfec_py.solvers.diagonal import spring_dashpot

SETTINGS = gs.Settings(epsilon=1e-4, maxiter=1000, meritval=1.0, diagsolver=0, diagepsilon=1e-9,
                       diagmaxiter=100)


@njit
def contacts(rows, W, B, V, U, R, par, dynamic, h, implicit):
    for a in rows:
        spring_dashpot(dynamic, h, par[a], W[a], B[a], V[a], U[a], R[a], implicit)


def solve(obj, domain, h: float) -> None:
    cset = C.constraint_set(domain)
    ld = timed_assemble(domain, cset, h)
    is_contact = ld.kind == C.CONTACT
    crows = np.flatnonzero(is_contact)
    if crows.size:
        contacts(crows, ld.W, ld.B, ld.V, ld.U, ld.R, ld.par, bool(ld.dynamic), float(ld.h),
                 obj.variant == "IMPLICIT")
    others = np.flatnonzero(~is_contact)[::-1].copy()      # newest first
    iters = 0
    result = None
    if others.size:
        result = gs.run(ld, SETTINGS, springs=spring_forces(cset, ld), order=others)
        iters = result.iters
    finish(domain, cset, ld, result)
    obj.record_solve(iters)
    domain.statistics = {"GSITERS": iters}
