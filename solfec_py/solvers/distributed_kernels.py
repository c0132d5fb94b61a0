"""The distributed Gauss-Seidel iteration in one compiled call (layer 5): the sweeps of a
rank's contact rows, the boundary reactions sent and received between them and the sums of
every iteration, with MPI called from inside the kernel (parallel/mpi_calls.py). It runs
the plan solvers/distributed.py makes (`_plan`, flattened by `_Flat`) with the same
operations in the same order as that module's Python loop, so the same bits; what it
saves is the Python around some 5 to 8 short calls an iteration (bench/README.md, "MPI
scaling"). Reference: Solfec-1.0 bgs.c (GAUSS_SEIDEL_Solve under MPI).

A plan is a table of operations for each sweep direction (row 0 forward, row 1 backward):
(SWEEP, first, end) sweeps rows[first:end]; (START, p) starts phase p's receives; (SEND, p)
copies the reactions of phase p's rows into its send buffer and starts its sends; (WAIT, p)
completes phase p's receives and writes the reactions they brought; (COMPLETE, p) completes
phase p's sends. A phase's requests are requests[req[p, 0]:req[p, 1]], its messages
messages[msg[p, 0]:msg[p, 1]], each (first, end, buffer row): rows msg_rows[first:end] at
buffer rows from `buffer row` on (the send buffer for a sending phase, the receive buffer
for a receiving one).
"""
from __future__ import annotations

import math

import numpy as np

from solfec_py.compilation import njit
from solfec_py.parallel import mpi_calls as mc
from solfec_py.solvers import gauss_seidel as gs
from solfec_py.solvers.merit import merit

SWEEP, START, SEND, WAIT, COMPLETE = range(5)


@njit
def sweep_contacts(order, start, backward, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
                   dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, omega, up, lo, code):
    """A sweep of contact rows from position `start` of `order` with the sums up and lo
    (`gauss_seidel._sweep_contacts`, a row whose Newton iteration failed redone by
    `_contact_fallback`); returns (up, lo, code, abort). distributed.sweep_rows serves
    contacts with it."""
    n = order.size
    while True:
        m, up, lo = gs._sweep_contacts(order, start, backward, W, rho, B, V, U, R, indptr, adj, Wadj, par, blast,
                                       dynamic, h, deps, dmaxiter, omega, up, lo)
        if m >= n:
            return up, lo, code, False
        a = order[n - 1 - m] if backward else order[m]
        up, lo, code, abort = gs._contact_fallback(a, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force,
                                                   blast, dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, omega,
                                                   up, lo, code)
        if abort:
            return up, lo, code, True
        start = m + 1


@njit
def _phase_messages(p, ops_msg, messages, msg_rows, values, buffer, into_buffer):
    """Copy phase p's rows of `values` into `buffer` (into_buffer) or back."""
    for k in range(ops_msg[p, 0], ops_msg[p, 1]):
        first, end, row = messages[k, 0], messages[k, 1], messages[k, 2]
        for i in range(end - first):
            a = msg_rows[first + i]
            for j in range(3):
                if into_buffer:
                    buffer[row + i, j] = values[a, j]
                else:
                    values[a, j] = buffer[row + i, j]


@njit
def iterate(functions, world, ops, nops, rows, req, msg, messages, msg_rows, requests, send_buffer, recv_buffer,
            phase_bytes, statuses, kind, kind_own, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
            dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, omega, epsilon, maxiter, meritval, reverse, efree,
            rerhist, merhist, num, Ut, keep):
    """The iterations of distributed.gauss_seidel over contact rows (module docstring):
    returns (iterations, converged, last error, diagonal error code, abort, MPI error code,
    payload bytes sent). `meritval` None: the merit is not checked (numba then compiles no
    merit here). The first sweep of an iteration (ops[d, 0], at most keep.shape[1] rows) is
    swept while the sums of the previous one travel, and undone if they end the solve."""
    sums, total = np.zeros(4), np.zeros(4)
    request = np.zeros(1, dtype=requests.dtype)
    ws = np.empty((9, 3))
    up, lo, code, abort = 0.0, 0.0, np.int64(0), False
    error, converged, it, sent = 0.0, False, 0, 0.0
    ahead = False                     # the first sweep of iteration `it` was swept ahead
    saved_code, saved_abort = code, abort
    while True:
        d = 1 if (reverse and it % 2 == 1) else 0
        if not ahead:
            up, lo = 0.0, 0.0
        for k in range(1 if ahead else 0, nops[d]):
            op, x, y = ops[d, k, 0], ops[d, k, 1], ops[d, k, 2]
            status = 0
            if op == SWEEP:
                if not abort:         # each set's sums start from 0 (as in the Python loop: the same bits)
                    u, v, code, abort = sweep_contacts(rows[x:y], 0, d == 1, kind, W, Winv, rho, B, V, U, R,
                                                       indptr, adj, Wadj, par, force, blast, dynamic, h, dsolver,
                                                       deps, dmaxiter, stop_on_fail, omega, 0.0, 0.0, code)
                    up += u
                    lo += v
            elif op == START:
                status = mc.startall(functions[mc.STARTALL], requests, req[x, 0], req[x, 1] - req[x, 0])
            elif op == SEND:
                _phase_messages(x, msg, messages, msg_rows, R, send_buffer, True)
                status = mc.startall(functions[mc.STARTALL], requests, req[x, 0], req[x, 1] - req[x, 0])
                sent += phase_bytes[x]
            elif op == WAIT:
                status = mc.waitall(functions[mc.WAITALL], requests, req[x, 0], req[x, 1] - req[x, 0], statuses)
                _phase_messages(x, msg, messages, msg_rows, R, recv_buffer, False)
            else:
                status = mc.waitall(functions[mc.WAITALL], requests, req[x, 0], req[x, 1] - req[x, 0], statuses)
            if status != 0:
                return it, False, error, code, abort, status, sent
        mer = 0.0
        if meritval is not None:
            mer = merit(kind_own, W, Winv, B, V, R, indptr, adj, Wadj, par, force, blast, dynamic, h, efree, num, Ut,
                        ws)
        sums[0], sums[1], sums[2], sums[3] = up, lo, mer, 1.0 if abort else 0.0
        status = mc.iallreduce_sum(functions[mc.IALLREDUCE], sums, total, world, request)
        if status != 0:
            return it, False, error, code, abort, status, sent
        sent += 32.0
        ahead = False                 # the next iteration's first sweep, while the sums travel
        nxt = 1 if (reverse and (it + 1) % 2 == 1) else 0
        if it + 1 < maxiter and not abort and nops[nxt] > 0 and ops[nxt, 0, 0] == SWEEP:
            x, y = ops[nxt, 0, 1], ops[nxt, 0, 2]
            for i in range(y - x):
                a = rows[x + i]
                for j in range(3):
                    keep[0, i, j], keep[1, i, j], keep[2, i, j] = R[a, j], U[a, j], blast[a, j]
            saved_code, saved_abort = code, abort
            up, lo, code, abort = sweep_contacts(rows[x:y], 0, nxt == 1, kind, W, Winv, rho, B, V, U, R, indptr,
                                                 adj, Wadj, par, force, blast, dynamic, h, dsolver, deps, dmaxiter,
                                                 stop_on_fail, omega, 0.0, 0.0, code)
            ahead = True
        status = mc.wait(functions[mc.WAIT], request, statuses)
        if status != 0:
            return it, False, error, code, abort, status, sent
        error = math.sqrt(total[0]) / (math.sqrt(total[1]) if total[1] > 0.0 else 1.0)
        rerhist[it], merhist[it] = error, total[2]
        it += 1
        stop = total[3] != 0.0
        converged = not stop and error <= epsilon and (meritval is None or total[2] <= meritval)
        if stop or converged or it >= maxiter:
            if ahead:                 # the sweep ahead is not part of the solution
                x, y = ops[nxt, 0, 1], ops[nxt, 0, 2]
                for i in range(y - x):
                    a = rows[x + i]
                    for j in range(3):
                        R[a, j], U[a, j], blast[a, j] = keep[0, i, j], keep[1, i, j], keep[2, i, j]
                code, abort = saved_code, saved_abort
            return it, converged, error, code, stop, 0, sent
