"""The merit function of a constraint solve (layer 5): g(R), each row's residual of its own
equation measured in the energy norm of its diagonal block, over the free energy, as the
Gauss-Seidel and Newton solvers test it. Reference: Solfec-1.0 mrf.c (merit function).
"""
from __future__ import annotations

import math

from solfec_py.compilation import njit
from solfec_py.constraints import CONTACT, FIXDIR, FIXPNT, RIGLNK, SPRING, VELODIR, VELODIR3
from solfec_py.solvers.diagonal import contact_residual_s


@njit
def _spring_locked(par, bN):
    """A spring at a stroke limit and moving further out behaves as FIXDIR."""
    return (par[2] <= par[0] and bN < 0.0) or (par[2] >= par[1] and bN > 0.0)



@njit
def merit(kind, W, Winv, B, V, R, indptr, adj, Wadj, par, force, blast, dynamic, h, efree, num, Ut, ws):
    """g(R) = 1/2 sum C_a W_aa^-1 C_a / E_free with U = B + W R recomputed (Solfec-1.0 mrf.c, merit function);
    num[a] receives the share of constraint a (so that sum(num) == g)."""
    n = kind.size
    C = ws[0]
    total = 0.0
    for a in range(n):
        for i in range(3):
            s = B[a, i] + W[a, i, 0] * R[a, 0] + W[a, i, 1] * R[a, 1] + W[a, i, 2] * R[a, 2]
            for j in range(indptr[a], indptr[a + 1]):
                c = adj[j]
                s += Wadj[j, i, 0] * R[c, 0] + Wadj[j, i, 1] * R[c, 1] + Wadj[j, i, 2] * R[c, 2]
            Ut[a, i] = s
        k = kind[a]
        full = True
        if k == CONTACT:
            C[0], C[1], C[2], _ = contact_residual_s(dynamic, h, par[a, 0], par[a, 1], par[a, 2], par[a, 3],
                                                     Ut[a, 0], Ut[a, 1], Ut[a, 2], V[a, 2], R[a, 0], R[a, 1],
                                                     R[a, 2])
        elif k == FIXPNT or k == VELODIR3:
            for i in range(3):
                C[i] = (Ut[a, i] + V[a, i] if dynamic else Ut[a, i]) if k == FIXPNT else par[a, i] - Ut[a, i]
        else:
            full = False
            if k == FIXDIR or (k == SPRING and _spring_locked(par[a], blast[a, 2])):
                C[2] = Ut[a, 2] + V[a, 2] if dynamic else Ut[a, 2]
            elif k == VELODIR:
                C[2] = par[a, 2] - Ut[a, 2]
            elif k == RIGLNK:
                hh = 0.5 * h if dynamic else h
                x0, x1, x2 = par[a, 0] + hh * Ut[a, 0], par[a, 1] + hh * Ut[a, 1], par[a, 2] + hh * Ut[a, 2]
                C[2] = (math.sqrt(x0 * x0 + x1 * x1 + x2 * x2) - par[a, 3]) / hh
            else:  # SPRING inside its limits: force residual as a velocity
                C[2] = (force[a] - R[a, 2]) * W[a, 2, 2]
        if full:
            up = 0.0
            for i in range(3):
                up += C[i] * (Winv[a, i, 0] * C[0] + Winv[a, i, 1] * C[1] + Winv[a, i, 2] * C[2])
        else:
            up = Winv[a, 2, 2] * C[2] * C[2]
        num[a] = 0.5 * up / efree
        total += num[a]
    return total
