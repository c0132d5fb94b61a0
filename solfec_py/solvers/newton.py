"""NEWTON_SOLVER (layer 5): projected semismooth Newton over all constraints at once.
Reference: Solfec-1.0 nts.c, Newton solver (Solfec nts.c, "PQN"), bgs.c (the contact law C(U, R)), mrf.c (merit).

Every constraint a is linearised as C_a + X_a dU_a + Y_a dR_a = 0 with dU = W dR (all
blocks), giving (X W + Y + delta I) dR = -C:
  contacts  C = R - proj_{K^c}(R - rho F(U)), X = rho P F'(U), Y = I - P, P = d proj / dS
            at S = R - rho F(U), rho = 1 / W_aa,NN (the generalised Jacobian of the unsmoothed
            cone projection; Solfec smooths it with omega, which is accepted and unused here);
  FIXPNT    C = U + V (dynamic) / U;  VELODIR3  C = U - v;  X = I, Y = 0;
  FIXDIR, VELODIR, RIGLNK, SPRING at a limit: dR_T = -R_T and one normal row: U_N + V_N,
            U_N - v, or the link-length residual (|Y + hh U| - d0) / hh linearised in U;
  SPRING    R_N - f(stroke, b_N) with f evaluated at the current velocities (lagged).
linver='GMRES' (PQN1) solves with scipy GMRES (restart = linmaxiter, relative tolerance
epsilon, preconditioned by the inverse diagonal blocks); linver='DIAG' (PQN2) takes the
damped block-Jacobi step dR = (1 - theta) dR_prev - theta (X_aa W_aa + Y_aa)^-1 C_a. Then
R <- R + dR, contact reactions are projected onto their cones and U = B + W R. It stops
when merit <= meritval, iters >= maxiter or matvecs >= maxmatvec; without convergence and
with gsflag 'ON' the initial R is restored and Gauss-Seidel (epsilon 1, the Newton meritval
and maxiter, semismooth Newton) finishes the solve (Solfec's fallback). locdyn='OFF' is
accepted; W is assembled all the same (rigid bodies need it anyway). Implicit FE bodies
whose constraint points touch fewer nodes than there are points keep their part of W
factored, h P S P^T (solvers/factored_delassus.py): its products are added to the CSR ones
in the matrix-vector products, U = B + W R and the merit; the Gauss-Seidel fallback
assembles the pairs.

Departure from Solfec: the contact function is scaled by rho = 1 / W_aa,NN (as in the
Alart-Curnier augmented Lagrangian, and as Solfec's own Gauss-Seidel diagonal solvers do);
Solfec's Newton linearises it with rho = 1. Both functions vanish at the same solutions, and
the merit (Solfec-1.0 mrf.c, unscaled) is unchanged, but with rho = 1 the comparison
R - F(U) adds a force to a velocity: on stiff, strongly coupled contacts (W entries ~1e-9
against reactions ~1e7) almost every contact counts as active, the full steps cycle between
active sets and the merit jumps 1e-9 -> 1e+8 -> 1e-9 ... Two elastic plates pressed together
quasi-statically (Solfec's BM14 deck) had 4 of 21 sampled solves end at maxiter = 1000 without
convergence; scaled, all 21 converge in 4-86 iterations (tests/test_solvers_newton.py has a
small version of this problem).
"""
from __future__ import annotations

import sys

import numpy as np
from scipy.sparse.linalg import LinearOperator, gmres

from solfec_py import constraints as C
from solfec_py.compilation import njit
from solfec_py.constraints import CONTACT, FIXDIR, FIXPNT, RIGLNK, SPRING, VELODIR, VELODIR3
from solfec_py.solvers import gauss_seidel as gs
from solfec_py.solvers.common import finish, spring_forces, timed_assemble
from solfec_py.solvers.diagonal import _cone_derivative, cone_project
from solfec_py.solvers.merit import _spring_locked, merit


@njit
def linearize(kind, W, B, V, U, R, par, force, dynamic, h, X, Y, rhs):
    n = kind.size
    ws = np.empty((3, 3))
    Cc = np.empty(3)
    tmp = np.empty(3)
    for a in range(n):
        for i in range(3):
            rhs[a, i] = 0.0
            for j in range(3):
                X[a, i, j] = 0.0
                Y[a, i, j] = 0.0
        k = kind[a]
        if k == CONTACT:
            p = par[a]
            if (dynamic and p[3] > 0.0) or int(p[4]) == 1:   # open gap / penalty contact: R = 0
                for i in range(3):
                    Y[a, i, i] = 1.0
                    rhs[a, i] = -R[a, i]
                continue
            mu, c = p[0], p[2]
            rho = 1.0 / W[a, 2, 2] if W[a, 2, 2] > 0.0 else 1.0
            ut = np.sqrt(U[a, 0] ** 2 + U[a, 1] ** 2)
            un = U[a, 2] + (p[1] * min(V[a, 2], 0.0) if dynamic else max(p[3], 0.0) / h)
            tmp[0] = R[a, 0] - rho * U[a, 0]
            tmp[1] = R[a, 1] - rho * U[a, 1]
            tmp[2] = R[a, 2] + c - rho * (un + mu * ut)
            cone_project(mu, tmp, Cc)
            _cone_derivative(mu, tmp, ws)
            rhs[a, 0] = Cc[0] - R[a, 0]
            rhs[a, 1] = Cc[1] - R[a, 1]
            rhs[a, 2] = Cc[2] - c - R[a, 2]
            for i in range(3):
                for j in range(3):
                    X[a, i, j] = rho * ws[i, j]
                    Y[a, i, j] = -ws[i, j]
                Y[a, i, i] += 1.0
                if ut > 0.0:
                    X[a, i, 0] += rho * ws[i, 2] * mu * U[a, 0] / ut
                    X[a, i, 1] += rho * ws[i, 2] * mu * U[a, 1] / ut
        elif k == FIXPNT or k == VELODIR3:
            for i in range(3):
                X[a, i, i] = 1.0
                if k == FIXPNT:
                    rhs[a, i] = -(U[a, i] + V[a, i]) if dynamic else -U[a, i]
                else:
                    rhs[a, i] = par[a, i] - U[a, i]
        else:
            Y[a, 0, 0] = Y[a, 1, 1] = 1.0
            rhs[a, 0], rhs[a, 1] = -R[a, 0], -R[a, 1]
            locked = k == SPRING and _spring_locked(par[a], U[a, 2] - W[a, 2, 2] * R[a, 2])
            if k == FIXDIR or locked:
                X[a, 2, 2] = 1.0
                rhs[a, 2] = -(U[a, 2] + V[a, 2]) if dynamic else -U[a, 2]
            elif k == VELODIR:
                X[a, 2, 2] = 1.0
                rhs[a, 2] = par[a, 2] - U[a, 2]
            elif k == RIGLNK:
                hh = 0.5 * h if dynamic else h
                z0, z1, z2 = par[a, 0] + hh * U[a, 0], par[a, 1] + hh * U[a, 1], par[a, 2] + hh * U[a, 2]
                length = np.sqrt(z0 * z0 + z1 * z1 + z2 * z2)
                X[a, 2, 0], X[a, 2, 1], X[a, 2, 2] = z0 / length, z1 / length, z2 / length
                rhs[a, 2] = -(length - par[a, 3]) / hh
            else:                                    # SPRING inside its limits
                Y[a, 2, 2] = 1.0
                rhs[a, 2] = force[a] - R[a, 2]


@njit
def apply(v, W, indptr, adj, Wadj, X, Y, delta, out):
    """out = (X W + Y + delta I) v for stacked 3-vectors v (n, 3)."""
    n = W.shape[0]
    wv = np.empty(3)
    for a in range(n):
        for i in range(3):
            s = W[a, i, 0] * v[a, 0] + W[a, i, 1] * v[a, 1] + W[a, i, 2] * v[a, 2]
            for j in range(indptr[a], indptr[a + 1]):
                c = adj[j]
                s += Wadj[j, i, 0] * v[c, 0] + Wadj[j, i, 1] * v[c, 1] + Wadj[j, i, 2] * v[c, 2]
            wv[i] = s
        for i in range(3):
            out[a, i] = (X[a, i, 0] * wv[0] + X[a, i, 1] * wv[1] + X[a, i, 2] * wv[2]
                         + Y[a, i, 0] * v[a, 0] + Y[a, i, 1] * v[a, 1] + Y[a, i, 2] * v[a, 2] + delta * v[a, i])


@njit
def project_contacts(kind, par, R):
    out = np.empty(3)
    s = np.empty(3)
    for a in range(kind.size):
        if kind[a] == CONTACT and int(par[a, 4]) == 0:
            c = par[a, 2]
            s[0], s[1], s[2] = R[a, 0], R[a, 1], R[a, 2] + c
            cone_project(par[a, 0], s, out)
            R[a, 0], R[a, 1], R[a, 2] = out[0], out[1], out[2] - c


def _delta(obj, W) -> float:
    delta = float(obj.delta)
    mode = getattr(obj, "reldelta_mode", "OFF")
    if mode != "OFF" and W.shape[0]:
        d = np.einsum("kii->ki", W).reshape(-1)
        delta *= {"avgWii": d.mean(), "minWii": d.min(), "maxWii": d.max()}[mode]
    return delta


def run(obj, ld, springs):
    """Newton iterations on ld (in place). Returns (iters, merhist, mvhist, converged, merit, num)."""
    n = ld.n
    dynamic, h = bool(ld.dynamic), float(ld.h)
    efree = ld.free_energy() or 1.0
    maxiter, maxmatvec = int(obj.maxiter), int(obj.maxmatvec)
    meritval, theta, restart = float(obj.meritval), float(obj.theta), int(obj.linmaxiter)
    delta = _delta(obj, ld.W)
    X, Y = np.zeros((n, 3, 3)), np.zeros((n, 3, 3))
    rhs, num, Ut = np.zeros((n, 3)), np.zeros(n), np.zeros((n, 3))
    ws = np.empty((9, 3))
    force = np.zeros(n)
    dR = np.zeros((n, 3))
    merhist, mvhist = [], []
    matvecs = 0
    out = np.empty((n, 3))
    ld.U[:] = ld.velocities()
    blast = ld.U - np.einsum("kij,kj->ki", ld.W, ld.R)
    it, converged, g = 0, False, np.inf
    while True:
        if springs is not None:
            force = springs(blast)
        Bf = ld.B + ld.factored_offdiagonal(ld.R) if ld.bodies else ld.B
        g = merit(ld.kind, ld.W, ld.Winv, Bf, ld.V, ld.R, ld.indptr, ld.adj, ld.Wadj, ld.par, force,
                  blast, dynamic, h, efree, num, Ut, ws)
        if not np.isfinite(g):
            break
        if g <= meritval:
            converged = True
            break
        if it >= maxiter or matvecs >= maxmatvec:
            break
        linearize(ld.kind, ld.W, ld.B, ld.V, ld.U, ld.R, ld.par, force, dynamic, h, X, Y, rhs)
        D = np.einsum("kij,kjl->kil", X, ld.W) + Y + delta * np.eye(3)
        good = np.abs(np.linalg.det(D)) > 1e-300
        Dinv = np.tile(np.eye(3), (n, 1, 1))
        Dinv[good] = np.linalg.inv(D[good])
        if obj.linver == "DIAG":
            dR = (1.0 - theta) * dR + theta * np.einsum("kij,kj->ki", Dinv, rhs)
            matvecs += 1
            mvhist.append(1)
        else:
            count = [0]

            def matvec(v):
                count[0] += 1
                v = v.reshape(n, 3)
                apply(v, ld.W, ld.indptr, ld.adj, ld.Wadj, X, Y, delta, out)
                if ld.bodies:                # the factored bodies' off-diagonal part of W v
                    return (out + np.einsum("kij,kj->ki", X, ld.factored_offdiagonal(v))).reshape(-1)
                return out.reshape(-1).copy()

            A = LinearOperator((3 * n, 3 * n), matvec=matvec, dtype=float)
            M = LinearOperator((3 * n, 3 * n), dtype=float,
                               matvec=lambda v: np.einsum("kij,kj->ki", Dinv, v.reshape(n, 3)).reshape(-1))
            x, _ = gmres(A, rhs.reshape(-1), rtol=float(obj.epsilon), atol=0.0, restart=restart,
                         maxiter=1, M=M)
            dR = x.reshape(n, 3)
            matvecs += count[0]
            mvhist.append(count[0])
        ld.R += dR
        project_contacts(ld.kind, ld.par, ld.R)
        ld.U[:] = ld.velocities()
        blast = ld.U - np.einsum("kij,kj->ki", ld.W, ld.R)
        it += 1
        merhist.append(g)
    if converged:
        merhist.append(g)
    ld.U[:] = Ut if np.isfinite(g) else ld.U
    return it, merhist, mvhist, converged, g, num


def gs_fallback_settings(obj) -> gs.Settings:
    meritval, maxiter = float(obj.meritval), int(obj.maxiter)
    return gs.Settings(epsilon=1.0, maxiter=maxiter, meritval=meritval, diagsolver=0,
                       diagepsilon=max(sys.float_info.epsilon, 0.01 * min(1.0, meritval, 1e-4)),
                       diagmaxiter=max(100, maxiter // 100))


def solve(obj, domain, h: float) -> None:
    cset = C.constraint_set(domain)
    # bodies whose W is cheaper factored keep it so (solvers/factored_delassus.py); the
    # overlap correction reuses the solved W as CSR pairs
    ld = timed_assemble(domain, cset, h, factored=domain.overlap_correction is None)
    springs = spring_forces(cset, ld)
    R0, U0 = ld.R.copy(), ld.U.copy()
    iters, merhist, mvhist, converged, g, num = run(obj, ld, springs)
    result = gs.Result(iters=iters, error="OK", rerhist=np.zeros(0), merhist=np.array(merhist),
                       merit=float(g), num=num)
    if not converged:
        result.error = "DIVERGED"
        if obj.gsflag == "ON":
            if ld.bodies:                    # Gauss-Seidel sweeps the CSR pairs
                ld = timed_assemble(domain, cset, h)
            ld.R[:], ld.U[:] = R0, U0
            result = gs.run(ld, gs_fallback_settings(obj), springs=springs)
            merhist = merhist + result.merhist.tolist()
            iters += result.iters
    finish(domain, cset, ld, result)
    obj.record_solve(iters, merhist=merhist, mvhist=mvhist,
                     error="OK" if result.error == "OK" else "DIVERGED")
    domain.statistics = {"NTITERS": iters, "MERIT": result.merit}
