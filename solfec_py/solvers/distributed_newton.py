"""NEWTON_SOLVER on several ranks (layer 5): the projected Newton iteration of solvers/newton.py
over the rows each rank owns, with the external rows' values exchanged before every product
with W and every global quantity (merit, GMRES inner products, delta) summed over the ranks.
Reference: Solfec-1.0 nts.c (the Newton solver under MPI); solvers/newton.py.

The unknowns are the owned rows' reactions. A product with X W + Y + delta I needs the
current values of the external rows (owned by neighbour ranks, acting on bodies here):
they are exchanged (parallel/external.py) before each one, as are the reactions after each
Newton update. GMRES is solvers/gmres.py with allreduced inner products: on one rank it is
scipy's gmres to rounding, so the iterates follow the serial solver's. The merit is summed
over the ranks with the global free energy, so the stopping tests (merit <= meritval,
maxiter, maxmatvec, a non-finite merit) come out the same on every rank, as do the
statistics. Without convergence and with gsflag 'ON' the initial reactions are restored and
the distributed Gauss-Seidel (FULL variant) finishes the solve with the serial fallback's
settings.
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C
from solfec_py.solvers import gauss_seidel as gs
from solfec_py.solvers import gmres
from solfec_py.solvers.common import finish, spring_forces
from solfec_py.solvers.merit import merit
from solfec_py.solvers.newton import apply, gs_fallback_settings, linearize, project_contacts


def solve(obj, domain, h: float) -> None:
    """newton.solve on this rank's rows: the same statistics and record on every rank."""
    from solfec_py.solvers.distributed import free_energy, gauss_seidel, prepare

    cset = C.constraint_set(domain)
    ext, ld = prepare(domain, cset, h)
    springs = spring_forces(cset, ld)
    R0, U0 = ld.R.copy(), ld.U.copy()
    efree = free_energy(ld, ext.n_own, ext.comm)
    iters, merhist, mvhist, converged, g, num = run(obj, ld, springs, ext, efree)
    result = gs.Result(iters=iters, error="OK", rerhist=np.zeros(0), merhist=np.array(merhist),
                       merit=float(g), num=num)
    if not converged:
        result.error = "DIVERGED"
        if obj.gsflag == "ON":
            ld.R[:], ld.U[:] = R0, U0
            result = gauss_seidel(ld, gs_fallback_settings(obj), ext, springs, "FULL")
            merhist = merhist + result.merhist.tolist()
            iters += result.iters
    ext.exchange(ld.U)              # the owners' final velocities of the external rows (contact work)
    finish(domain, cset, ld, result)
    ext.release(cset)
    obj.record_solve(iters, merhist=merhist, mvhist=mvhist,
                     error="OK" if result.error == "OK" else "DIVERGED")
    domain.statistics = {"NTITERS": iters, "MERIT": result.merit}


def global_delta(obj, W: np.ndarray, comm) -> float:
    """newton._delta with the mean / min / max of the diagonal entries W_ii of all ranks."""
    delta = float(obj.delta)
    mode = getattr(obj, "reldelta_mode", "OFF")
    if mode == "OFF":
        return delta
    d = np.einsum("kii->ki", W).reshape(-1)
    total, count = comm.allreduce_sum([float(d.sum()), float(d.size)])
    if count == 0:
        return delta
    low = comm.allreduce_min([float(d.min()) if d.size else np.inf])[0]
    high = comm.allreduce_max([float(d.max()) if d.size else -np.inf])[0]
    return delta * {"avgWii": total / count, "minWii": low, "maxWii": high}[mode]


def run(obj, ld, springs, ext, efree: float):
    """Newton iterations on the owned rows of ld (in place; the external rows' reactions kept
    current). Returns (iters, merhist, mvhist, converged, merit, num), the same on every rank."""
    comm, no, n = ext.comm, ext.n_own, ld.n
    dynamic, h = bool(ld.dynamic), float(ld.h)
    maxiter, maxmatvec = int(obj.maxiter), int(obj.maxmatvec)
    meritval, theta, restart = float(obj.meritval), float(obj.theta), int(obj.linmaxiter)
    W, kind, par = ld.W[:no], ld.kind[:no], ld.par[:no]
    indptr = ld.indptr[:no + 1]
    delta = global_delta(obj, W, comm)
    size = 3 * int(comm.allreduce_sum([float(no)])[0])
    X, Y = np.zeros((no, 3, 3)), np.zeros((no, 3, 3))
    rhs, num, Ut = np.zeros((no, 3)), np.zeros(n), np.zeros((n, 3))
    ws = np.empty((9, 3))
    force = np.zeros(n)
    dR = np.zeros((no, 3))
    full, out = np.zeros((n, 3)), np.empty((no, 3))
    merhist, mvhist = [], []
    matvecs = 0

    def dot(u, v):
        return float(comm.allreduce_sum([np.dot(u, v)])[0])

    ld.U[:] = ld.velocities()
    blast = ld.U - np.einsum("kij,kj->ki", ld.W, ld.R)
    it, converged, g = 0, False, np.inf
    while True:
        if springs is not None:
            force = springs(blast)
        g = merit(kind, ld.W, ld.Winv, ld.B, ld.V, ld.R, ld.indptr, ld.adj, ld.Wadj, ld.par, force,
                  blast, dynamic, h, efree, num, Ut, ws)
        g = float(comm.allreduce_sum([g])[0])
        if not np.isfinite(g):
            break
        if g <= meritval:
            converged = True
            break
        if it >= maxiter or matvecs >= maxmatvec:
            break
        linearize(kind, W, ld.B[:no], ld.V[:no], ld.U[:no], ld.R[:no], par, force[:no], dynamic, h, X, Y, rhs)
        D = np.einsum("kij,kjl->kil", X, W) + Y + delta * np.eye(3)
        good = np.abs(np.linalg.det(D)) > 1e-300
        Dinv = np.tile(np.eye(3), (no, 1, 1))
        Dinv[good] = np.linalg.inv(D[good])
        if obj.linver == "DIAG":
            dR = (1.0 - theta) * dR + theta * np.einsum("kij,kj->ki", Dinv, rhs)
            count = 1
        else:
            def matvec(v):
                full[:no] = v.reshape(no, 3)
                ext.exchange(full)
                apply(full, W, indptr, ld.adj, ld.Wadj, X, Y, delta, out)
                return out.reshape(-1).copy()

            def psolve(v):
                return np.einsum("kij,kj->ki", Dinv, v.reshape(no, 3)).reshape(-1)

            x, count = gmres.cycle(matvec, psolve, rhs.reshape(-1), float(obj.epsilon), restart, dot, size)
            dR = x.reshape(no, 3)
        matvecs += count
        mvhist.append(count)
        ld.R[:no] += dR
        project_contacts(kind, par, ld.R[:no])
        ext.exchange(ld.R)
        ld.U[:] = ld.velocities()
        blast = ld.U - np.einsum("kij,kj->ki", ld.W, ld.R)
        it += 1
        merhist.append(g)
    if converged:
        merhist.append(g)
    if np.isfinite(g):
        ld.U[:no] = Ut[:no]
    return it, merhist, mvhist, converged, g, num
