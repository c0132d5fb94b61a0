"""Constraint solves of a run on several ranks (layer 5): the local dynamics of the rows a
rank owns plus the external rows that share its bodies, Gauss-Seidel with Solfec's three
parallel variants over them and the penalty solver, with the same stopping rules as the
serial solves (the projected Newton solver is solvers/distributed_newton.py). Reference:
Solfec-1.0 bgs.c (GAUSS_SEIDEL_Solve under MPI), pes.c (the penalty solver); docs/parallel.md.

Gauss-Seidel variants (Solfec's names; `ext` is parallel/external.py):
  FULL            TOP rows, their reactions sent, the first half of the INTERNAL rows, the
                  TOP reactions of other ranks received; the MIDDLE rows colour by colour,
                  each colour's reactions sent before the next colour sweeps; BOTTOM rows,
                  sent, the second half of the INTERNAL rows, received. Across every pair
                  of neighbour ranks the rows are swept in one order (the higher colour's
                  first): a Gauss-Seidel sweep of the whole model with one message each way.
  MIDDLE_JACOBI   the same, but the MIDDLE rows of all colours at once, then exchanged.
  BOUNDARY_JACOBI every row swept, then all boundary reactions exchanged (Jacobi across
                  ranks).
Backward sweeps (reverse 'ON') run the phases in the opposite order. Sweep errors and merits
are summed over the ranks every iteration, so every rank stops at the same iteration. A
sweep's messages are persistent MPI requests made once a solve (external.Phase), and the
sum is a non-blocking allreduce: while it travels, the next iteration's first rows (which
need nothing from other ranks) are swept, and undone if the sum ends the solve, so the
result is that of the iteration that met the stopping rule. Over contact rows without
SPRING forces (the common case) the iterations run in one compiled call
(solvers/distributed_kernels.py: MPI called from the kernel, the same operations in the
same order, so the same bits); other row sets run the Python loop `_iterate`.

PENALTY_SOLVER: each rank gives its owned contacts their spring-dashpot forces (one row at a
time, no communication), sends them to the ranks that hold them as external rows, and the
other rows (joints, prescribed motion, springs) are swept by the Gauss-Seidel above with
the serial penalty solver's settings, contact reactions fixed.

After every solve (these and the Newton solve) the owners' final local velocities U of the
boundary rows are sent as well: the contact and friction work of a body (solvers/common.py)
takes U of its contacts, also of those another rank owns.
"""
from __future__ import annotations

import math

import numpy as np

from solfec_py import constraints as C
from solfec_py.errors import NotAvailableError, SimulationError
from solfec_py.solvers import gauss_seidel as gs
from solfec_py.solvers import local_dynamics_kernels as K
from solfec_py.solvers.common import finish, spring_forces, timed_assemble
from solfec_py.solvers.local_dynamics import body_rows, row_lookup
from solfec_py.solvers.merit import merit

VARIANTS = ("FULL", "MIDDLE_JACOBI", "BOUNDARY_JACOBI")


def prepare(domain, cset, h: float):
    """(External, LocalDynamics) of this rank's rows for a step of length h."""
    from solfec_py.parallel.external import External

    own = np.arange(cset.count)
    taken = [b.absorbed(cset) for b in domain.active_blocks()]
    taken = np.concatenate(taken) if taken else np.zeros(0, dtype=np.int64)
    if taken.size:
        own = np.setdiff1d(own, taken)
    ext = External(domain.parallel, domain, cset, own)
    brow = _body_rows(domain, cset, ext.scratch)
    ld = timed_assemble(domain, cset, h, crow=ext.crow, brow=brow)
    return ext, ld


def _body_rows(domain, cset, scratch: np.ndarray) -> np.ndarray:
    """Block rows of the master / slave of the set's rows and of the external rows after them."""
    inside = body_rows(domain, cset)
    out = np.full((cset.count + scratch.size, 2), -1, dtype=np.int64)
    out[: cset.count] = inside
    if scratch.size:
        fam, bid = cset.family[scratch], cset.bid[scratch]
        for code, name in enumerate(cset.families):
            block = domain.blocks.get(name)
            if block is None or block.count == 0:
                continue
            lookup = row_lookup(block)
            for s in range(2):
                m = (fam[:, s] == code) & (bid[:, s] > 0) & (bid[:, s] < lookup.size)
                rows = scratch[m]
                out[rows, s] = lookup[bid[m, s]]
    return out


def solve(solver, domain, h: float) -> None:
    """GAUSS_SEIDEL_SOLVER and PENALTY_SOLVER (NEWTON_SOLVER: solvers/distributed_newton.py)."""
    kind = getattr(solver, "kind", "")
    if kind == "GAUSS_SEIDEL_SOLVER":
        _gauss_seidel(solver, domain, h)
    elif kind == "PENALTY_SOLVER":
        _penalty(solver, domain, h)
    else:
        raise NotAvailableError(f"{kind or type(solver).__name__!r} is not available in parallel runs; use"
                                " GAUSS_SEIDEL_SOLVER, NEWTON_SOLVER or PENALTY_SOLVER")


def _gauss_seidel(obj, domain, h: float) -> None:
    from solfec_py.solvers.gauss_seidel import settings_of

    cset = C.constraint_set(domain)
    ext, ld = prepare(domain, cset, h)
    variant = getattr(obj, "variant", "FULL")
    result = gauss_seidel(ld, settings_of(obj), ext, spring_forces(cset, ld), variant)
    ext.exchange(ld.U)              # the owners' final velocities of the external rows (contact work)
    finish(domain, cset, ld, result)
    ext.release(cset)
    obj.record_solve(result.iters, rerhist=result.rerhist, merhist=result.merhist, error=result.error)
    domain.statistics = {"GSITERS": result.iters, "MERIT": result.merit,
                         "GSCOLORS": ext.ncolours, "GSBOT": int((ext.cls == 2).sum()),
                         "GSMID": int((ext.cls == 3).sum()), "GSTOP": int((ext.cls == 1).sum()),
                         "GSINN": int((ext.cls == 0).sum())}
    obj.handle_failure()


def _penalty(obj, domain, h: float) -> None:
    """penalty.solve over the owned rows: each owned contact gets its spring-dashpot force
    (no communication), the contact reactions go to the ranks holding them as external rows,
    then the distributed Gauss-Seidel solves the other rows with the serial settings."""
    from solfec_py.solvers import penalty

    cset = C.constraint_set(domain)
    ext, ld = prepare(domain, cset, h)
    n_own = ext.n_own
    is_contact = ld.kind[:n_own] == C.CONTACT
    crows = np.flatnonzero(is_contact)
    if crows.size:
        penalty.contacts(crows, ld.W, ld.B, ld.V, ld.U, ld.R, ld.par, bool(ld.dynamic), float(ld.h),
                         obj.variant == "IMPLICIT")
    ext.exchange(ld.R)              # (the Gauss-Seidel phases send them again, if it runs)
    others = np.flatnonzero(~is_contact)
    result, iters = None, 0
    if ext.comm.allreduce_sum([float(others.size)])[0] > 0:
        result = gauss_seidel(ld, penalty.SETTINGS, ext, spring_forces(cset, ld), "FULL", rows=others)
        iters = result.iters
    ext.exchange(ld.U)              # the owners' final velocities of the external rows (contact work)
    finish(domain, cset, ld, result)
    ext.release(cset)
    obj.record_solve(iters)
    domain.statistics = {"GSITERS": iters}


def free_energy(ld, n: int, comm) -> float:
    """LocalDynamics.free_energy of the first n rows summed over the ranks (1 when not positive)."""
    e = 0.5 * K.quadratic_sum(np.ascontiguousarray(ld.B[:n]), np.ascontiguousarray(ld.Winv[:n])) if n else 0.0
    vel = np.flatnonzero(ld.kind[:n] == C.VELODIR)
    if vel.size:
        e += 0.5 * float(np.sum(ld.Winv[vel, 2, 2] * ld.par[vel, 2] ** 2))
    total = float(comm.allreduce_sum([e])[0])
    return total if total > 0.0 else 1.0


def sweep_rows(order, backward, contacts, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
               dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, code, omega, start=0, up=0.0, lo=0.0):
    """One sweep over the rows `order` with the kernels gauss_seidel.iterate would choose
    (`contacts`: `_ssn_contacts` of the rows); returns (sum |R - R_prev|^2, sum |R|^2, first diagonal
    error code, aborted). The distributed solve sweeps its row classes one by one with it.
    Contacts: `start`, `up`, `lo` go on with a sweep that stopped at row position `start`
    (`gauss_seidel._sweep_contacts`) with those sums."""
    if contacts:
        from solfec_py.solvers.distributed_kernels import sweep_contacts

        return sweep_contacts(order, start, backward, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force,
                              blast, dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, omega, up, lo, code)
    ws, A, b, R0, U0 = np.empty((9, 3)), np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    if omega == 1.0:
        return gs._sweep(order, backward, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
                      dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, code, ws, A, b, R0, U0)
    return gs._sweep_relaxed(order, backward, kind, W, Winv, rho, B, V, U, R, indptr, adj, Wadj, par, force, blast,
                          dynamic, h, dsolver, deps, dmaxiter, stop_on_fail, code, ws, A, b, R0, U0, omega)


_SWEEP, _SEND, _RECEIVE = 0, 1, 2
COMPILED = True         # iterations over contact rows in one compiled call (`_iterate_compiled`) where MPI allows
AHEAD = 128             # rows swept ahead while an iteration's sums travel: about the allreduce's time


def _plan(ext, variant: str, sets: dict, backward: bool):
    """The steps of one sweep of `variant` on this rank (module docstring): a list of
    (_SWEEP, rows) / (_SEND, Phase) / (_RECEIVE, Phase) with the empty ones left out and
    consecutive row sets swept in one call, and the receive and send phases it uses."""
    from solfec_py.parallel.external import ALL, BOTTOM, MIDDLE, TOP

    steps = []

    def sweep(key):
        rows = sets[key]
        if not rows.size:
            return
        if steps and steps[-1][0] == _SWEEP:             # one call: a backward sweep runs its rows last to first
            prev = steps[-1][1]
            steps[-1] = (_SWEEP, np.concatenate((rows, prev) if backward else (prev, rows)))
        else:
            steps.append((_SWEEP, rows))

    def message(op, phase):
        if phase:
            steps.append((op, phase))

    if variant == "BOUNDARY_JACOBI":
        sweep("all")
        message(_SEND, ext.sending(ALL))
        message(_RECEIVE, ext.receiving(ALL))
    else:
        first, last = (BOTTOM, TOP) if backward else (TOP, BOTTOM)
        int_a, int_b = ("int1", "int2") if backward else ("int2", "int1")
        sweep(first)
        message(_SEND, ext.sending(first))
        sweep(int_a)
        message(_RECEIVE, ext.receiving(first))
        if variant == "FULL":
            colours = range(ext.ncolours - 1, -1, -1) if backward else range(ext.ncolours)
            for c in colours:
                if c == ext.colour[ext.rank]:
                    sweep(MIDDLE)
                    message(_SEND, ext.sending(MIDDLE))
                message(_RECEIVE, ext.receiving(MIDDLE, colour=c))
        else:
            sweep(MIDDLE)
            message(_SEND, ext.sending(MIDDLE))
            message(_RECEIVE, ext.receiving(MIDDLE))
        sweep(last)
        message(_SEND, ext.sending(last))
        sweep(int_b)
        message(_RECEIVE, ext.receiving(last))
    if steps and steps[0][0] == _SWEEP and steps[0][1].size > AHEAD:   # the rows `_sweep_ahead` sweeps first
        rows = steps[0][1]
        head, rest = (rows[-AHEAD:], rows[:-AHEAD]) if backward else (rows[:AHEAD], rows[AHEAD:])
        steps[0:1] = [(_SWEEP, head), (_SWEEP, rest)]
    receives = [what for op, what in steps if op == _RECEIVE]
    sends = [what for op, what in steps if op == _SEND]
    return steps, receives, sends


def _sweep_ahead(plans, settings, it, maxiter, state, ld, blast, force, springs, sweep, keep):
    """Sweep the first rows of iteration `it` (at most AHEAD, `_plan`) while the sums of the
    previous one travel (an iteration's first rows need nothing from other ranks); returns what undoes it if that
    iteration is not to be: (rows, the force, the error code and abort flag before it, the
    force for the iteration) and in `keep` (3, AHEAD, 3) the rows' R, U and neighbour sums
    before it; or None."""
    if it >= maxiter or state["abort"]:
        return None
    backward = settings.reverse and it % 2 == 1
    steps = plans[backward][0]
    if not steps or steps[0][0] != _SWEEP:
        return None
    rows = steps[0][1]
    k = rows.size
    for j, values in enumerate((ld.R, ld.U, blast)):
        np.take(values, rows, axis=0, out=keep[j, :k])
    undo = (rows, force, state["code"], state["abort"])
    if springs is not None:
        force = springs(blast)
    state["up"] = state["lo"] = 0.0
    sweep(rows, backward, force)
    return undo + (force,)


def gauss_seidel(ld, settings, ext, springs, variant: str, rows=None) -> gs.Result:
    """Solve the local dynamics `ld` (owned rows first, then external rows) in place; the
    external rows' reactions come from their owners between the phases of every sweep.
    `rows`: the owned rows to sweep (default all); the others keep their reactions."""
    from solfec_py.parallel.external import BOTTOM, INTERNAL, MIDDLE, TOP

    comm = ext.comm
    n_own = ext.n_own
    n = ld.n
    force = np.zeros(n)
    blast = ld.coupled()
    efree = free_energy(ld, n_own, comm)
    maxiter = max(1, int(settings.maxiter))
    rerhist, merhist = np.zeros(maxiter), np.zeros(maxiter)
    num, Ut = np.zeros(n), np.zeros((n, 3))
    ws = np.empty((9, 3))
    newest_first = lambda rows: np.ascontiguousarray(rows[::-1], dtype=np.int64)   # noqa: E731
    swept = np.ones(n_own, dtype=bool)
    if rows is not None:
        swept[:] = False
        swept[rows] = True
    internal = np.flatnonzero((ext.cls == INTERNAL) & swept)
    half = internal.size // 2
    sets = {TOP: newest_first(ext.rows_of(TOP)), BOTTOM: newest_first(ext.rows_of(BOTTOM)),
            MIDDLE: newest_first(ext.rows_of(MIDDLE))}
    if rows is not None:
        sets = {c: order[swept[order]] for c, order in sets.items()}
    sets.update({"int1": newest_first(internal[half:]), "int2": newest_first(internal[:half]),
                 "all": newest_first(np.flatnonzero(swept))})
    contacts = bool(gs._ssn_contacts(sets["all"], int(settings.diagsolver), ld.kind, ld.par, bool(ld.dynamic)))
    args = (ld.kind, ld.W, ld.Winv, ld.rho, ld.B, ld.V, ld.U, ld.R, ld.indptr, ld.adj, ld.Wadj, ld.par)
    dynamic, h = bool(ld.dynamic), float(ld.h)
    dsolver, deps, dmax = int(settings.diagsolver), float(settings.diagepsilon), int(settings.diagmaxiter)
    stop, omega = bool(settings.stop_on_fail), float(settings.relaxation)
    state = {"up": 0.0, "lo": 0.0, "code": 0, "abort": False}
    fast = (ld.W, ld.rho, ld.B, ld.V, ld.U, ld.R, ld.indptr, ld.adj, ld.Wadj, ld.par, blast, dynamic, h, deps, dmax,
            omega, 0.0, 0.0)

    def sweep(order, backward, force):             # (the plan's row sets are not empty)
        if state["abort"]:
            return
        m, up, lo = 0, 0.0, 0.0
        if contacts:                               # the common case in one call (`sweep_rows` for the rest)
            m, up, lo = gs._sweep_contacts(order, 0, backward, *fast)
            if m >= order.size:
                state["up"] += up
                state["lo"] += lo
                return
        up, lo, code, abort = sweep_rows(order, backward, contacts, *args, force, blast, dynamic, h, dsolver,
                                         deps, dmax, stop, state["code"], omega, m, up, lo)
        state["up"] += up
        state["lo"] += lo
        state["code"] = code
        state["abort"] = state["abort"] or abort

    plans = {False: _plan(ext, variant, sets, False)}
    if settings.reverse:
        plans[True] = _plan(ext, variant, sets, True)
    if COMPILED and contacts and springs is None and comm.calls is not None:
        it, converged, error, code = _iterate_compiled(comm, plans, settings, ld, n_own, force, blast, efree,
                                                       rerhist, merhist, num, Ut)
        state["code"] = code
    else:
        it, converged, error, force = _iterate(plans, settings, ld, n_own, comm, force, blast, efree, rerhist,
                                               merhist, num, Ut, springs, sweep, state)
    final = merit(ld.kind[:n_own], ld.W, ld.Winv, ld.B, ld.V, ld.R, ld.indptr, ld.adj, ld.Wadj, ld.par, force,
                     blast, dynamic, h, efree, num, Ut, ws)
    final = float(comm.allreduce_sum([final])[0])
    ld.U[:n_own] = Ut[:n_own]
    code = int(comm.allreduce_max([float(state["code"])])[0])
    error_code = gs.OK
    if not converged:
        error_code = code if (code and stop) else gs.DIVERGED
    elif code:
        error_code = code
    keep = min(it, maxiter)
    return gs.Result(iters=it, error=gs.ERRORS[error_code], rerhist=rerhist[:keep].copy(),
                     merhist=merhist[:keep].copy() if settings.meritval < 1.0 else np.zeros(0),
                     merit=final, num=num)


def _iterate(plans, settings, ld, n_own, comm, force, blast, efree, rerhist, merhist, num, Ut, springs, sweep,
             state):
    """The iterations of `gauss_seidel` in Python, one call for each step of the plans (any
    rows, SPRING forces); returns (iterations, converged, last error, the SPRING forces)."""
    sums, keep, ws = np.zeros(4), np.empty((3, AHEAD, 3)), np.empty((9, 3))
    dynamic, h, maxiter = bool(ld.dynamic), float(ld.h), max(1, int(settings.maxiter))
    it, converged, error = 0, False, 0.0
    ahead = None                    # the first sweep of iteration `it`, swept while the sums of `it - 1` travelled
    try:
        while True:
            backward = settings.reverse and it % 2 == 1
            steps, receives, sends = plans[backward]
            if ahead is None:
                if springs is not None:
                    force = springs(blast)
                state["up"] = state["lo"] = 0.0
            for phase in receives:
                phase.start()
            for op, what in steps[0 if ahead is None else 1:]:
                if op == _SWEEP:
                    sweep(what, backward, force)
                elif op == _SEND:
                    what.send(ld.R)
                else:
                    what.wait(ld.R)
            for phase in sends:
                phase.complete()
            mer = 0.0
            if settings.meritval < 1.0:
                mer = merit(ld.kind[:n_own], ld.W, ld.Winv, ld.B, ld.V, ld.R, ld.indptr, ld.adj, ld.Wadj, ld.par,
                            force, blast, dynamic, h, efree, num, Ut, ws)
            sums[0], sums[1], sums[2], sums[3] = state["up"], state["lo"], mer, float(state["abort"])
            request = comm.start_sum_in_place(sums)
            ahead = _sweep_ahead(plans, settings, it + 1, maxiter, state, ld, blast, force, springs, sweep, keep)
            if ahead is not None:
                force = ahead[-1]
            request.Wait()
            up, lo, mer, abort = sums
            error = math.sqrt(up) / (math.sqrt(lo) if lo > 0.0 else 1.0)
            rerhist[it], merhist[it] = error, mer
            it += 1
            converged = not abort and error <= settings.epsilon and mer <= settings.meritval
            if abort or converged or it >= maxiter:
                if ahead is not None:               # the sweep ahead is not part of the solution
                    rows, force, state["code"], state["abort"], _ = ahead
                    k = rows.size
                    ld.R[rows], ld.U[rows], blast[rows] = keep[0, :k], keep[1, :k], keep[2, :k]
                break
    finally:
        for _, receives, sends in plans.values():
            for phase in receives + sends:
                phase.free()
    return it, converged, error, force


def _iterate_compiled(comm, plans, settings, ld, n_own, force, blast, efree, rerhist, merhist, num, Ut):
    """The iterations of `gauss_seidel` over contact rows without SPRING forces in one
    compiled call (solvers/distributed_kernels.py: the same operations in the same order
    as `_iterate`, so the same bits); returns (iterations, converged, last error, diagonal
    error code)."""
    from solfec_py.solvers import distributed_kernels as DK

    flat = _Flat(comm, plans, settings.reverse)
    try:
        meritval = float(settings.meritval) if settings.meritval < 1.0 else None
        it, converged, error, code, _, status, sent = DK.iterate(
            comm.calls.functions, comm.calls.world, flat.ops, flat.nops, flat.rows, flat.req, flat.msg,
            flat.messages, flat.msg_rows, flat.requests, flat.send_buffer, flat.recv_buffer, flat.phase_bytes,
            flat.statuses, ld.kind, np.ascontiguousarray(ld.kind[:n_own]), ld.W, ld.Winv, ld.rho, ld.B, ld.V, ld.U,
            ld.R, ld.indptr, ld.adj, ld.Wadj, ld.par, force, blast, bool(ld.dynamic), float(ld.h),
            int(settings.diagsolver), float(settings.diagepsilon), int(settings.diagmaxiter),
            bool(settings.stop_on_fail), float(settings.relaxation), float(settings.epsilon),
            max(1, int(settings.maxiter)), meritval, bool(settings.reverse), efree, rerhist, merhist, num, Ut,
            np.empty((3, AHEAD, 3)))
    finally:
        flat.free()
    comm.bytes_sent += int(sent)
    if status != 0:
        raise SimulationError(f"GAUSS_SEIDEL_SOLVER on rank {comm.rank}: MPI error {status} in iteration {it + 1}"
                              f" ({comm.MPI.Get_error_string(int(status))})")
    return int(it), bool(converged), float(error), int(code)


class _Flat:
    """The plans of one solve as the tables `distributed_kernels.iterate` runs (its module
    docstring), with persistent requests of their own over one send and one receive buffer."""

    def __init__(self, comm, plans: dict, reverse: bool):
        from solfec_py.solvers import distributed_kernels as DK

        phases, index = [], {}

        def phase(p) -> int:
            if id(p) not in index:
                index[id(p)] = len(phases)
                phases.append(p)
            return index[id(p)]

        tables, rows, nrows = [], [], 0
        for backward in (False, True):
            steps, receives, sends = plans[backward and reverse]
            body = []
            for op, what in steps:
                if op == _SWEEP:
                    body.append((DK.SWEEP, nrows, nrows + what.size))
                    rows.append(what)
                    nrows += what.size
                else:
                    body.append((DK.SEND if op == _SEND else DK.WAIT, phase(what), 0))
            head = 1 if steps and steps[0][0] == _SWEEP else 0      # (swept ahead: receives start after it)
            tables.append(body[:head] + [(DK.START, phase(p), 0) for p in receives] + body[head:]
                          + [(DK.COMPLETE, phase(p), 0) for p in sends])
        self.nops = np.array([len(t) for t in tables], dtype=np.int64)
        self.ops = np.zeros((2, max(1, int(self.nops.max())), 3), dtype=np.int64)
        for d, table in enumerate(tables):
            if table:
                self.ops[d, :len(table)] = table
        self.rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        calls, mpi = comm.calls, comm.comm
        self.send_buffer = np.empty((sum(r.size for p in phases for _, r in p.sends), 3))
        self.recv_buffer = np.empty((sum(r.size for p in phases for _, r in p.recvs), 3))
        self._requests, req, msg, messages, msg_rows = [], [], [], [], []
        at = {"send": 0, "recv": 0, "rows": 0}

        def message(kind, rows_, make):
            first = at[kind]
            at[kind] += rows_.size
            buffer = self.send_buffer if kind == "send" else self.recv_buffer
            self._requests.append(make(buffer[first:at[kind]]))
            messages.append((at["rows"], at["rows"] + rows_.size, first))
            msg_rows.append(rows_)
            at["rows"] += rows_.size

        for p in phases:
            r0, m0 = len(self._requests), len(messages)
            for t, r in p.sends:
                message("send", r, lambda buf, t=t, tag=p.tag: mpi.Send_init(buf, dest=t, tag=tag))
            for t, r in p.recvs:
                message("recv", r, lambda buf, t=t, tag=p.tag: mpi.Recv_init(buf, source=t, tag=tag))
            req.append((r0, len(self._requests)))
            msg.append((m0, len(messages)))
        self.req = np.array(req, dtype=np.int64).reshape(-1, 2)
        self.msg = np.array(msg, dtype=np.int64).reshape(-1, 2)
        self.messages = np.array(messages, dtype=np.int64).reshape(-1, 3)
        self.msg_rows = np.concatenate(msg_rows).astype(np.int64) if msg_rows else np.zeros(0, dtype=np.int64)
        self.requests = np.array([calls.handle(q) for q in self._requests], dtype=calls.dtype)
        self.phase_bytes = np.array([24.0 * sum(r.size for _, r in p.sends) for p in phases])
        self.statuses = calls.statuses(max((b - a for a, b in req), default=1))

    def free(self) -> None:
        for q in self._requests:
            q.Free()
        self._requests = []
