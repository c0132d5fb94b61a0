"""Nonlinear block Gauss-Seidel over the local dynamics (layer 5): the sweep as a numba
kernel over the CSR arrays of solvers/local_dynamics.py, Solfec's stopping rule (with the
merit function of solvers/merit.py), the diagonal-solver fallbacks and the statistics of one solve.
Reference: Solfec-1.0 bgs.c, Gauss-Seidel; Solfec-1.0 mrf.c, merit function (Solfec bgs.c GAUSS_SEIDEL_Solve, mrf.c).

One iteration sweeps every block (newest constraint first; alternating directions with
`reverse`), each block solving its own kind's equation with b = B_a + sum W_ab R_b (latest
R), and ends with error = |R - R_prev| / |R| (1 when R = 0) and, when meritval < 1, the
merit g(R). It stops when iters >= maxiter or (error <= epsilon and merit <= meritval).
With over-relaxation (omega != 1, contact rows of the Signorini-Coulomb model) R - R_prev
in the error is each row's own Gauss-Seidel update, before it is relaxed: the residual of
the plain sweep at the current iterate, the quantity the test measures at omega = 1.
SPRING forces come from a Python function, so with springs the kernel is run one sweep at
a time and the forces are re-evaluated between sweeps from the velocities of the sweep.

The common row, a Signorini-Coulomb contact solved by SEMISMOOTH_NEWTON, is solved on
scalars inside the sweep (`_contact_row_ssn`, no array views); every other row goes
through `solve_row`, with the same bits. When every row is such a contact (S1, S2) the
sweep is `_sweep_contacts`: diagonal.ssn_block inlined into its own code (`_inlined`) and
compiled, as every kernel, with numba's "numpy" error model (compilation.njit: a float
division by zero gives inf / NaN instead of a test and a raise per division; the divisors of ssn_block and solve3s are nonzero by
their branches), the same operations in the same order, so the same bits, 22 - 33 % cheaper
per row on S1. Each kind of set has a kernel of its own (`iterate` chooses), so that numba
compiles only the sweep a deck uses (docs/dev/performance.md).
"""
from __future__ import annotations

import math
import types
from dataclasses import dataclass

import numba
import numpy as np

from solfec_py.compilation import njit
from solfec_py.constraints import CONTACT, FIXDIR, FIXPNT, RIGLNK, VELODIR, VELODIR3
from solfec_py.solvers.diagonal import (SEMISMOOTH_NEWTON, SPRING_DASHPOT, _ubar, contact_solve, normal_solve,
                                        point_solve, rigid_link_solve, solve3s, ssn_block)
from solfec_py.solvers.merit import _spring_locked, merit

OK, DIVERGED, DIAGONAL_DIVERGED, DIAGONAL_FAILED = range(4)
ERRORS = ("OK", "DIVERGED", "DIAGONAL_DIVERGED", "DIAGONAL_FAILED")


def _inlined(fn, **calls):
    """The numba function `fn` of diagonal.py recompiled from its Python code with
    inline="always" (numba inlines its IR into the calling kernel, which lowers it with its
    own options), calling `calls` in place of the functions of those names: the same
    operations, so the same bits, without the calls numba makes between separately compiled
    functions (docs/dev/performance.md)."""
    f = getattr(fn, "py_func", fn)          # the function itself under NUMBA_DISABLE_JIT=1
    g = dict(f.__globals__)
    g.update(calls)
    return numba.njit(inline="always")(types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__))


_ssn_block = _inlined(ssn_block, solve3s=_inlined(solve3s), _ubar=_inlined(_ubar))


@njit(inline="always")
def solve_row(a, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
              dynamic, h, dsolver, deps, dmaxiter, ws, A, b, R0, U0):
    """Solve block a for its latest neighbour reactions; returns 0, DIAGONAL_DIVERGED or
    DIAGONAL_FAILED (the reaction is then left at its previous value)."""
    b[0], b[1], b[2] = B[a, 0], B[a, 1], B[a, 2]
    for j in range(indptr[a], indptr[a + 1]):
        c = adj[j]
        for i in range(3):
            b[i] += Wadj[j, i, 0] * R[c, 0] + Wadj[j, i, 1] * R[c, 1] + Wadj[j, i, 2] * R[c, 2]
    blast[a, 0], blast[a, 1], blast[a, 2] = b[0], b[1], b[2]
    k = kind[a]
    Ra, Ua, Wa = R[a], U[a], W[a]
    if k == CONTACT:
        for i in range(3):
            R0[i], U0[i] = Ra[i], Ua[i]
        it = contact_solve(dsolver, dynamic, h, par[a], rho[a], Wa, b, V[a], Ua, Ra, deps, dmaxiter, ws, A)
        if it < 0 or it >= dmaxiter:
            first = it
            for alt in range(4):                  # Solfec's order SSN, PG, DSF, PN
                if alt == dsolver:
                    continue
                for i in range(3):
                    Ra[i], Ua[i] = R0[i], U0[i]
                it = contact_solve(alt, dynamic, h, par[a], rho[a], Wa, b, V[a], Ua, Ra, deps, dmaxiter, ws, A)
                if 0 <= it < dmaxiter:
                    return 0
            for i in range(3):
                Ra[i], Ua[i] = R0[i], U0[i]
            return DIAGONAL_FAILED if first < 0 else DIAGONAL_DIVERGED
        return 0
    if k == FIXPNT:
        if dynamic:
            for i in range(3):
                R0[i] = -V[a, i]
        else:
            R0[0] = R0[1] = R0[2] = 0.0
        point_solve(Winv[a], Wa, b, R0, Ua, Ra)
        return 0
    if k == FIXDIR:
        st = normal_solve(Wa, b, -V[a, 2] if dynamic else 0.0, Ua, Ra)
    elif k == VELODIR:
        st = normal_solve(Wa, b, par[a, 2], Ua, Ra)
    elif k == VELODIR3:
        st = point_solve(Winv[a], Wa, b, par[a], Ua, Ra)
    elif k == RIGLNK:
        st = rigid_link_solve(Wa, b, par[a], par[a, 3], 0.5 * h if dynamic else h,
                              -V[a, 2] if dynamic else 0.0, Ua, Ra)
    else:  # SPRING
        if _spring_locked(par[a], b[2]):
            st = normal_solve(Wa, b, -V[a, 2] if dynamic else 0.0, Ua, Ra)
        else:
            Ra[0] = Ra[1] = 0.0
            Ra[2] = force[a]
            for i in range(3):
                Ua[i] = b[i] + Wa[i, 2] * Ra[2]
            st = 0 if math.isfinite(Ra[2]) else -1
    return DIAGONAL_FAILED if st < 0 else 0


@njit(inline="always")
def neighbour_sum(a, B, R, indptr, adj, Wadj):
    """b = B_a + sum_b W_ab R_b over row a's CSR neighbours, on scalars (the sweep's order)."""
    b0, b1, b2 = B[a, 0], B[a, 1], B[a, 2]
    for j in range(indptr[a], indptr[a + 1]):
        c = adj[j]
        r0, r1, r2 = R[c, 0], R[c, 1], R[c, 2]
        b0 += Wadj[j, 0, 0] * r0 + Wadj[j, 0, 1] * r1 + Wadj[j, 0, 2] * r2
        b1 += Wadj[j, 1, 0] * r0 + Wadj[j, 1, 1] * r1 + Wadj[j, 1, 2] * r2
        b2 += Wadj[j, 2, 0] * r0 + Wadj[j, 2, 1] * r1 + Wadj[j, 2, 2] * r2
    return b0, b1, b2


@njit(inline="always")
def _contact_row_ssn(a, W, rho, B, V, U, R, indptr, adj, Wadj, par, blast, dynamic, h, deps, dmaxiter):
    """The common row of `solve_row` on scalars: a Signorini-Coulomb contact solved by
    SEMISMOOTH_NEWTON (diagonal.ssn_block), inlined into the sweep so that no array view is
    made per row. The same arithmetic as solve_row, so the same bits. Returns 0, or 1 when
    the solver failed (R and U are then untouched: solve_row redoes the row with fallbacks)."""
    b0, b1, b2 = neighbour_sum(a, B, R, indptr, adj, Wadj)
    it, q0, q1, q2, u0, u1, u2 = ssn_block(
        dynamic, h, par[a, 0], par[a, 1], par[a, 2], par[a, 3], rho[a],
        W[a, 0, 0], W[a, 0, 1], W[a, 0, 2], W[a, 1, 0], W[a, 1, 1], W[a, 1, 2], W[a, 2, 0], W[a, 2, 1],
        W[a, 2, 2], b0, b1, b2, V[a, 2], U[a, 0], U[a, 1], U[a, 2], R[a, 0], R[a, 1], R[a, 2],
        deps, dmaxiter)
    if it < 0 or it >= dmaxiter:
        return 1
    blast[a, 0], blast[a, 1], blast[a, 2] = b0, b1, b2
    R[a, 0], R[a, 1], R[a, 2] = q0, q1, q2
    U[a, 0], U[a, 1], U[a, 2] = u0, u1, u2
    return 0


@njit(inline="always")
def _relax_s(omega, mu, c, p0, p1, p2, q0, q1, q2):
    """Over-relaxed contact reaction r = p + omega (q - p) from the previous reaction p and
    the row's solution q, projected back onto the (cohesion-shifted) friction cone: the
    normal part clipped at -c, then the tangential part scaled into the cone. A fixed point
    of the sweep (q = p) stays one, so the converged solution is unchanged."""
    r0 = p0 + omega * (q0 - p0)
    r1 = p1 + omega * (q1 - p1)
    r2 = p2 + omega * (q2 - p2)
    sn = max(r2 + c, 0.0)
    t = math.sqrt(r0 * r0 + r1 * r1)
    if t > mu * sn:
        f = mu * sn / t
        r0 *= f
        r1 *= f
    return r0, r1, sn - c


@njit
def _relax(a, omega, par, W, blast, R, U, Rp):
    """`_relax_s` on the arrays of row a, and its U = b + W_aa R. A call of its own, not
    inlined into the sweep: inlined (and so the whole relaxed row on scalars) the relaxed
    sweep ran 2 - 7 % slower."""
    R[a, 0], R[a, 1], R[a, 2] = _relax_s(omega, par[a, 0], par[a, 2], Rp[0], Rp[1], Rp[2],
                                         R[a, 0], R[a, 1], R[a, 2])
    for i in range(3):
        U[a, i] = blast[a, i] + W[a, i, 0] * R[a, 0] + W[a, i, 1] * R[a, 1] + W[a, i, 2] * R[a, 2]


@njit
def _sweep(order, backward, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast, dynamic, h,
           dsolver, deps, dmaxiter, stop_on_fail, code, ws, A, b, R0, U0):
    """One plain Gauss-Seidel sweep over `order` (backward: in reverse); returns (sum of
    |R - R_prev|^2, sum of |R|^2, the first diagonal error code, aborted by failure='EXIT')."""
    n = order.size
    ssn = dsolver == SEMISMOOTH_NEWTON
    up = 0.0
    lo = 0.0
    for m in range(n):
        a = order[n - 1 - m] if backward else order[m]
        p0, p1, p2 = R[a, 0], R[a, 1], R[a, 2]
        st = -1
        if (ssn and kind[a] == CONTACT and int(par[a, 4]) != SPRING_DASHPOT
                and not (dynamic and par[a, 3] > 0.0)):
            st = _contact_row_ssn(a, W, rho, B, V, U, R, indptr, adj, Wadj, par, blast, dynamic, h, deps, dmaxiter)
        if st != 0:
            st = solve_row(a, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
                           dynamic, h, dsolver, deps, dmaxiter, ws, A, b, R0, U0)
        if st != 0:
            if code == 0:
                code = st
            if stop_on_fail:
                return up, lo, code, True
        d = R[a, 0] - p0
        up += d * d
        lo += R[a, 0] * R[a, 0]
        d = R[a, 1] - p1
        up += d * d
        lo += R[a, 1] * R[a, 1]
        d = R[a, 2] - p2
        up += d * d
        lo += R[a, 2] * R[a, 2]
    return up, lo, code, False


@njit
def _sweep_relaxed(order, backward, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
                   dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, code, ws, A, b, R0, U0, omega):
    """`_sweep` with the Signorini-Coulomb contact rows over-relaxed by omega; the first sum
    is of each row's own update before relaxation (the stopping test's residual)."""
    n = order.size
    ssn = dsolver == SEMISMOOTH_NEWTON
    Rp = np.empty(3)
    up = 0.0
    lo = 0.0
    for m in range(n):
        a = order[n - 1 - m] if backward else order[m]
        Rp[0], Rp[1], Rp[2] = R[a, 0], R[a, 1], R[a, 2]
        if (ssn and kind[a] == CONTACT and int(par[a, 4]) != SPRING_DASHPOT
                and not (dynamic and par[a, 3] > 0.0)):
            if _contact_row_ssn(a, W, rho, B, V, U, R, indptr, adj, Wadj, par, blast, dynamic, h, deps,
                                dmaxiter) == 0:
                for i in range(3):
                    d = R[a, i] - Rp[i]
                    up += d * d
                _relax(a, omega, par, W, blast, R, U, Rp)
                for i in range(3):
                    lo += R[a, i] * R[a, i]
                continue
        st = solve_row(a, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
                       dynamic, h, dsolver, deps, dmaxiter, ws, A, b, R0, U0)
        for i in range(3):                 # the row's own update (before relaxation)
            d = R[a, i] - Rp[i]
            up += d * d
        if st != 0:
            if code == 0:
                code = st
            if stop_on_fail:
                return up, lo, code, True
        elif kind[a] == CONTACT and par[a, 4] == 0.0:
            _relax(a, omega, par, W, blast, R, U, Rp)
        for i in range(3):
            lo += R[a, i] * R[a, i]
    return up, lo, code, False


@njit
def _contact_fallback(a, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast, dynamic, h, dsolver,
                      deps, dmaxiter, stop_on_fail, omega, up, lo, code):
    """Row a of `_sweep_contacts` whose Newton iteration failed, redone by `solve_row` (with
    its fallbacks) and relaxed as the sweep would: returns the sweep's sums and diagonal
    error code after the row and whether failure='EXIT' aborts the sweep. A kernel of its
    own, called between the two parts of a sweep that `iterate` runs on either side of the
    row, so that numba compiles `solve_row` only for a deck that needs it."""
    ws, A, b, R0, U0 = np.empty((9, 3)), np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    p0, p1, p2 = R[a, 0], R[a, 1], R[a, 2]
    st = solve_row(a, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast, dynamic, h,
                   dsolver, deps, dmaxiter, ws, A, b, R0, U0)
    d = R[a, 0] - p0
    up += d * d
    d = R[a, 1] - p1
    up += d * d
    d = R[a, 2] - p2
    up += d * d
    if st != 0:
        if code == 0:
            code = st
        if stop_on_fail:
            return up, lo, code, True
    elif omega != 1.0:
        R0[0], R0[1], R0[2] = p0, p1, p2
        _relax(a, omega, par, W, blast, R, U, R0)
    lo += R[a, 0] * R[a, 0]
    lo += R[a, 1] * R[a, 1]
    lo += R[a, 2] * R[a, 2]
    return up, lo, code, False


@njit
def _ssn_contacts(order, dsolver, kind, par, dynamic):
    """True when every row of `order` is a Signorini-Coulomb contact that the sweeps solve by
    SEMISMOOTH_NEWTON on scalars (the condition of `_sweep`'s inline row)."""
    if dsolver != SEMISMOOTH_NEWTON:
        return False
    for a in order:
        if kind[a] != CONTACT or int(par[a, 4]) == SPRING_DASHPOT or (dynamic and par[a, 3] > 0.0):
            return False
    return True


@njit
def _sweep_contacts(order, start, backward, W, rho, B, V, U, R, indptr, adj, Wadj, par, blast, dynamic, h,
                    deps, dmaxiter, omega, up, lo):
    """`_sweep` (omega 1) or `_sweep_relaxed` from position `start` of `order` over rows that
    are all Signorini-Coulomb SEMISMOOTH_NEWTON contacts (`_ssn_contacts`): the same
    operations in the same order, so the same bits, with diagonal.ssn_block inlined straight
    into the loop (not through a row function: numba copies an inlined function's code once
    per level of inlining, and the extra level cost half a second of compilation). Adds
    the rows to the sums up and lo and returns (position of the first row whose Newton
    iteration failed, or order.size; up, lo); that row is left as it was, for
    `_contact_fallback` (rare, so not compiled in: a small loop compiles faster)."""
    n = order.size
    relaxed = omega != 1.0
    for m in range(start, n):
        a = order[n - 1 - m] if backward else order[m]
        p0, p1, p2 = R[a, 0], R[a, 1], R[a, 2]
        b0, b1, b2 = neighbour_sum(a, B, R, indptr, adj, Wadj)
        it, q0, q1, q2, u0, u1, u2 = _ssn_block(
            dynamic, h, par[a, 0], par[a, 1], par[a, 2], par[a, 3], rho[a],
            W[a, 0, 0], W[a, 0, 1], W[a, 0, 2], W[a, 1, 0], W[a, 1, 1], W[a, 1, 2], W[a, 2, 0], W[a, 2, 1],
            W[a, 2, 2], b0, b1, b2, V[a, 2], U[a, 0], U[a, 1], U[a, 2], p0, p1, p2, deps, dmaxiter)
        if it < 0 or it >= dmaxiter:
            return m, up, lo
        d = q0 - p0                               # the row's own update (before relaxation)
        up += d * d
        d = q1 - p1
        up += d * d
        d = q2 - p2
        up += d * d
        if relaxed:                               # `_relax` on scalars
            q0, q1, q2 = _relax_s(omega, par[a, 0], par[a, 2], p0, p1, p2, q0, q1, q2)
            u0 = b0 + W[a, 0, 0] * q0 + W[a, 0, 1] * q1 + W[a, 0, 2] * q2
            u1 = b1 + W[a, 1, 0] * q0 + W[a, 1, 1] * q1 + W[a, 1, 2] * q2
            u2 = b2 + W[a, 2, 0] * q0 + W[a, 2, 1] * q1 + W[a, 2, 2] * q2
        blast[a, 0], blast[a, 1], blast[a, 2] = b0, b1, b2
        R[a, 0], R[a, 1], R[a, 2] = q0, q1, q2
        U[a, 0], U[a, 1], U[a, 2] = u0, u1, u2
        lo += q0 * q0
        lo += q1 * q1
        lo += q2 * q2
    return n, up, lo


@njit
def _sweep_done(it, up, lo, kind, W, Winv, B, V, R, indptr, adj, Wadj, par, force, blast, dynamic, h, epsilon,
                maxiter, meritval, efree, rerhist, merhist, num, Ut):
    """The end of sweep `it`: error = |R - R_prev| / |R| from the sweep's sums, the merit
    when meritval < 1, both recorded; returns (it + 1, error, converged, stop). meritval
    None stands for a threshold of 1 or more (the merit is not checked), and numba then
    leaves the merit out of the kernels it compiles (`run`)."""
    error = math.sqrt(up) / (math.sqrt(lo) if lo > 0.0 else 1.0)
    mer = 0.0
    converged = error <= epsilon
    if meritval is not None:
        if meritval < 1.0:
            mer = merit(kind, W, Winv, B, V, R, indptr, adj, Wadj, par, force, blast, dynamic, h, efree, num, Ut,
                        np.empty((9, 3)))
        converged = converged and mer <= meritval
    rerhist[it] = error
    merhist[it] = mer
    it += 1
    return it, error, converged, converged or it >= maxiter


@njit
def _iterate_contacts(order, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast, dynamic, h, epsilon,
                      maxiter, meritval, deps, dmaxiter, reverse, efree, it, nsweeps, rerhist, merhist, num, Ut,
                      omega, start, up, lo, error, kind):
    """`iterate` over a set of SEMISMOOTH_NEWTON contacts (`_sweep_contacts`), its first
    sweep resumed at position `start` with the sums up and lo; stops at a row whose Newton
    iteration failed. Returns (iterations, converged, error, position of that row or -1,
    up, lo)."""
    n = order.size
    for _ in range(nsweeps):
        backward = reverse and (it % 2 == 1)
        m, up, lo = _sweep_contacts(order, start, backward, W, rho, B, V, U, R, indptr, adj, Wadj, par, blast,
                                    dynamic, h, deps, dmaxiter, omega, up, lo)
        if m < n:
            return it, False, error, m, up, lo
        it, error, converged, stop = _sweep_done(it, up, lo, kind, W, Winv, B, V, R, indptr, adj, Wadj, par, force,
                                                 blast, dynamic, h, epsilon, maxiter, meritval, efree, rerhist,
                                                 merhist, num, Ut)
        if stop:
            return it, converged, error, -1, 0.0, 0.0
        start, up, lo = 0, 0.0, 0.0
    return it, False, error, -1, 0.0, 0.0


@njit
def _iterate_rows(order, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast, dynamic, h,
                  epsilon, maxiter, meritval, dsolver, deps, dmaxiter, reverse, stop_on_fail, efree, it, nsweeps,
                  rerhist, merhist, num, Ut):
    """`iterate` over a set of any rows with plain Gauss-Seidel sweeps (`_sweep`)."""
    ws, A, b, R0, U0 = np.empty((9, 3)), np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    code = np.int64(0)
    error = 0.0
    for _ in range(nsweeps):
        backward = reverse and (it % 2 == 1)
        up, lo, code, abort = _sweep(order, backward, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par,
                                     force, blast, dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, code, ws, A,
                                     b, R0, U0)
        if abort:                              # failure='EXIT': aborted in the sweep
            return it, False, error, code
        it, error, converged, stop = _sweep_done(it, up, lo, kind, W, Winv, B, V, R, indptr, adj, Wadj, par, force,
                                                 blast, dynamic, h, epsilon, maxiter, meritval, efree, rerhist,
                                                 merhist, num, Ut)
        if stop:
            return it, converged, error, code
    return it, False, error, code


@njit
def _iterate_relaxed(order, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast, dynamic, h,
                     epsilon, maxiter, meritval, dsolver, deps, dmaxiter, reverse, stop_on_fail, efree, it, nsweeps,
                     rerhist, merhist, num, Ut, omega):
    """`iterate` over a set of any rows, the contact rows over-relaxed (`_sweep_relaxed`)."""
    ws, A, b, R0, U0 = np.empty((9, 3)), np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    code = np.int64(0)
    error = 0.0
    for _ in range(nsweeps):
        backward = reverse and (it % 2 == 1)
        up, lo, code, abort = _sweep_relaxed(order, backward, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj,
                                             par, force, blast, dynamic, h, dsolver, deps, dmaxiter, stop_on_fail,
                                             code, ws, A, b, R0, U0, omega)
        if abort:
            return it, False, error, code
        it, error, converged, stop = _sweep_done(it, up, lo, kind, W, Winv, B, V, R, indptr, adj, Wadj, par, force,
                                                 blast, dynamic, h, epsilon, maxiter, meritval, efree, rerhist,
                                                 merhist, num, Ut)
        if stop:
            return it, converged, error, code
    return it, False, error, code


def iterate(order, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
            dynamic, h, epsilon, maxiter, meritval, dsolver, deps, dmaxiter, reverse, stop_on_fail,
            efree, it0, nsweeps, rerhist, merhist, num, Ut, omega=1.0):
    """Up to `nsweeps` Gauss-Seidel iterations starting at iteration count it0; contact
    rows of the Signorini-Coulomb model over-relaxed by `omega` (1: plain Gauss-Seidel).
    Returns (iterations done in total, converged, last error, diagonal error code).

    Each kind of set has a kernel of its own, so that numba compiles only the sweep a deck
    uses: a set of SEMISMOOTH_NEWTON contacts sweeps with `_sweep_contacts`, paused at a
    row whose Newton iteration fails for `_contact_fallback` and then resumed; any other
    set with `_sweep` or (omega != 1) `_sweep_relaxed`."""
    common = (order, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast, dynamic, h, epsilon,
              maxiter, meritval, dsolver, deps, dmaxiter, reverse, stop_on_fail, efree, it0, nsweeps, rerhist,
              merhist, num, Ut)
    if not _ssn_contacts(order, dsolver, kind, par, dynamic):
        return _iterate_rows(*common) if omega == 1.0 else _iterate_relaxed(*common, omega)
    it, left, start, up, lo, code, error = it0, nsweeps, 0, 0.0, 0.0, 0, 0.0
    while True:
        done, converged, error, m, up, lo = _iterate_contacts(
            order, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast, dynamic, h, epsilon, maxiter,
            meritval, deps, dmaxiter, reverse, efree, it, left, rerhist, merhist, num, Ut, omega, start, up, lo,
            error, kind)
        left -= done - it
        it = done
        if m < 0:
            return it, converged, error, code
        n = order.size
        a = order[n - 1 - m] if (reverse and it % 2 == 1) else order[m]
        up, lo, code, abort = _contact_fallback(a, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force,
                                                blast, dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, omega,
                                                up, lo, code)
        if abort:                              # failure='EXIT': aborted in the sweep
            return it, False, error, code
        start = m + 1


@dataclass
class Settings:
    """Numerical parameters of one Gauss-Seidel solve (read from a solver object)."""

    epsilon: float
    maxiter: int
    meritval: float = 1.0
    diagsolver: int = 0
    diagepsilon: float = 1e-6
    diagmaxiter: int = 100
    reverse: bool = False
    stop_on_fail: bool = False
    relaxation: float = 1.0            # over-relaxation of Signorini-Coulomb contact rows


@dataclass
class Result:
    iters: int
    error: str
    rerhist: np.ndarray
    merhist: np.ndarray
    merit: float
    num: np.ndarray       # per-constraint merit shares


def settings_of(obj) -> Settings:
    """Settings of a GAUSS_SEIDEL_SOLVER deck object (api/solvers.py attributes)."""
    from solfec_py.solvers.diagonal import DIAGONAL_SOLVERS

    return Settings(epsilon=obj.epsilon, maxiter=int(obj.maxiter), meritval=obj.merit_threshold,
                    diagsolver=DIAGONAL_SOLVERS.index(obj.diagsolver), diagepsilon=obj.diagepsilon,
                    diagmaxiter=int(obj.diagmaxiter), reverse=obj.reverse == "ON",
                    stop_on_fail=obj.failure_action == "EXIT", relaxation=obj.relaxation)


def run(ld, settings: Settings, springs=None, order=None) -> Result:
    """Solve the local dynamics `ld` in place (ld.R, ld.U); `springs(b)` returns the SPRING
    forces (n,) for the block velocities b (n, 3), or None when there are no springs.
    `order`: the rows to sweep (default all, newest constraint first); others keep R."""
    n = ld.n
    if order is None:
        order = np.arange(n - 1, -1, -1, dtype=np.int64)
    order = np.ascontiguousarray(order, dtype=np.int64)
    force = np.zeros(n)
    blast = ld.coupled()
    efree = ld.free_energy()
    efree = efree if efree > 0.0 else 1.0
    maxiter = max(1, int(settings.maxiter))
    rerhist = np.zeros(maxiter)
    merhist = np.zeros(maxiter)
    num = np.zeros(n)
    Ut = np.zeros((n, 3))
    args = (order, ld.kind, ld.W, ld.Winv, ld.rho, ld.B, ld.V, ld.U, ld.R, ld.indptr, ld.adj, ld.Wadj,
            ld.par)
    meritval = float(settings.meritval) if settings.meritval < 1.0 else None   # (None: `_sweep_done`)
    tail = (bool(ld.dynamic), float(ld.h), float(settings.epsilon), maxiter, meritval,
            int(settings.diagsolver), float(settings.diagepsilon), int(settings.diagmaxiter),
            bool(settings.reverse), bool(settings.stop_on_fail), float(efree))
    omega = float(settings.relaxation)
    it, converged, code = 0, False, 0
    if springs is None:
        it, converged, _, code = iterate(*args, force, blast, *tail, 0, maxiter, rerhist, merhist, num, Ut, omega)
    else:
        while it < maxiter and not converged:
            force = springs(blast)
            it, converged, _, c = iterate(*args, force, blast, *tail, it, 1, rerhist, merhist, num, Ut, omega)
            code = code or c
            if c and settings.stop_on_fail:
                break
    final = merit(ld.kind, ld.W, ld.Winv, ld.B, ld.V, ld.R, ld.indptr, ld.adj, ld.Wadj, ld.par, force,
                  blast, bool(ld.dynamic), float(ld.h), float(efree), num, Ut, np.empty((9, 3)))
    ld.U[:] = Ut                       # the velocities the bodies will actually get
    error = OK
    if not converged:
        error = code if (code and settings.stop_on_fail) else DIVERGED
    elif code:
        error = code
    keep = min(it, maxiter)
    return Result(iters=it, error=ERRORS[error], rerhist=rerhist[:keep].copy(),
                  merhist=merhist[:keep].copy() if settings.meritval < 1.0 else np.zeros(0),
                  merit=float(final), num=num)
