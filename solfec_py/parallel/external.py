"""The exchanges of one distributed constraint solve (layer 5): each rank's constraints sent
to the ranks that hold one of their bodies (there they are external rows, written past the
set's last row for the solve), the colouring of the ranks, the class of every row and the
reactions exchanged between sweeps. Reference: Solfec-1.0 bgs.c (GAUSS_SEIDEL_Solve under
MPI: processor colouring, the BOTTOM / MIDDLE / TOP / INTERNAL sets and their send
patterns), dom.c (external constraints).

A row's neighbour ranks are those where one of its bodies is a row too (owned or ghost):
exactly where another rank's constraint can share a body with it. Obstacles do not count:
they take no reaction from contacts nor from constraints that link them to another body
(solvers/local_dynamics.py), so rows meeting only at an obstacle are not coupled, and the
single-body constraints that do act on an obstacle are all its owner's. Ranks with common rows are
coloured greedily (lowest rank first); a row is TOP when all its neighbour ranks have lower
colours, BOTTOM when all have higher ones, MIDDLE when both, INTERNAL without neighbours.
Both ends of an exchange know every message's rows and order from the rows sent at the start
of the solve, so the reactions travel as bare (k, 3) arrays.
"""
from __future__ import annotations

import numpy as np

from solfec_py.parallel import constraint_rows as CR

INTERNAL, TOP, BOTTOM, MIDDLE = 0, 1, 2, 3
ALL = 4                                  # every boundary row at once (BOUNDARY_JACOBI, Newton)


class External:
    """The rows and messages of one solve (owned rows first, then the external rows)."""

    def __init__(self, decomposition, domain, cset, own: np.ndarray):
        self.comm = comm = decomposition.comm
        self.rank, self.size = decomposition.rank, decomposition.size
        where = decomposition.where
        own = np.asarray(own, dtype=np.int64)
        self.n_own = own.size
        bid = cset.bid[own]
        couples = ~decomposition.obstacle              # (an obstacle couples no rows: module docstring)
        mask = (np.where((bid[:, 0] > 0) & couples[bid[:, 0]], where[bid[:, 0]], 0)
                | np.where((bid[:, 1] > 0) & couples[bid[:, 1]], where[bid[:, 1]], 0))
        mask &= ~np.int64(1 << self.rank)
        self.colour, self.ncolours = _colours(comm, int(np.bitwise_or.reduce(mask)) if mask.size else 0)
        cls = np.full(own.size, INTERNAL, dtype=np.int64)
        below = np.zeros(own.size, dtype=bool)
        above = np.zeros(own.size, dtype=bool)
        for t in range(self.size):
            hit = ((mask >> t) & 1) == 1
            if hit.any():
                below |= hit & (self.colour[t] < self.colour[self.rank])
                above |= hit & (self.colour[t] > self.colour[self.rank])
        cls[below & ~above] = TOP
        cls[above & ~below] = BOTTOM
        cls[above & below] = MIDDLE
        self.cls = cls
        tables, self.send = [], {}
        boundary = np.flatnonzero(mask != 0)              # (only these rows travel: packed once)
        packed = np.column_stack((CR.pack(cset, own[boundary]), cls[boundary].astype(float)))
        for t in range(self.size):
            hit = ((mask[boundary] >> t) & 1) == 1 if t != self.rank else np.zeros(boundary.size, dtype=bool)
            self.send[t] = boundary[hit]
            tables.append(packed[hit])
        got = comm.alltoall_rows(tables)
        received = np.concatenate(got) if got else np.zeros((0, CR.WIDTH + 1))
        self.scratch = CR.scratch(cset, received[:, :CR.WIDTH]) if received.shape[0] else np.zeros(0, dtype=np.int64)
        self.crow = np.concatenate((own, self.scratch))
        self.recv, start = {}, self.n_own
        self.recv_cls = {}
        for r, part in enumerate(got):
            k = part.shape[0]
            self.recv[r] = np.arange(start, start + k)
            self.recv_cls[r] = part[:, CR.WIDTH].astype(np.int64)
            start += k
        self._exchange = None                   # (sends, receives) of `exchange`, made at its first call
        self._phases: dict = {}                 # (class, colour) -> messages (`_pairs`)

    # ------------------------------------------------------------------ phases
    def rows_of(self, which: int) -> np.ndarray:
        """Owned local-dynamics rows of a class (ALL: every boundary row)."""
        if which == ALL:
            return np.flatnonzero(self.cls != INTERNAL)
        return np.flatnonzero(self.cls == which)

    def _pairs(self, which: int, colour: int | None = None):
        """(rank, send rows, receive rows) of the messages of a phase: sends of my rows of the
        class, receives of the external rows of the class (from ranks of `colour` only, if
        given); worked out once a solve (a sweep's phases repeat every iteration)."""
        key = (which, colour)
        got = self._phases.get(key)
        if got is None:
            got = self._phases[key] = [(t, s, r) for t, s, r in self._find_pairs(which, colour) if s.size or r.size]
        return got

    def _find_pairs(self, which: int, colour: int | None):
        out = []
        for t in range(self.size):
            if t == self.rank:
                continue
            s = self.send[t]
            s = s if which == ALL else s[self.cls[s] == which]
            r = self.recv[t]
            rc = self.recv_cls[t]
            r = r[rc != INTERNAL] if which == ALL else r[rc == which]
            if colour is not None and self.colour[t] != colour:
                r = r[:0]
            out.append((t, s, r))
        return out

    def exchange(self, values: np.ndarray) -> None:
        """Every boundary row's values (n, 3) to the ranks that hold it as an external row
        (persistent requests made at the first exchange of the solve, freed by `release`)."""
        if self._exchange is None:
            self._exchange = (self.sending(ALL), self.receiving(ALL))
        sends, receives = self._exchange
        receives.start()
        sends.send(values)
        receives.wait(values)
        sends.complete()

    def release(self, cset) -> None:
        """The external rows were only borrowed: nothing of them stays in the set; the
        exchange's requests are freed."""
        if self._exchange is not None:
            for phase in self._exchange:
                phase.free()
            self._exchange = None

    def sending(self, which: int) -> "Phase":
        """The sends of my rows of class `which`, as a Phase to start once a sweep."""
        return Phase(self, [(t, s) for t, s, _ in self._pairs(which) if s.size], [], which)

    def receiving(self, which: int, colour: int | None = None) -> "Phase":
        """The receives of the external rows of class `which` (from ranks of `colour` only,
        if given), as a Phase to start once a sweep."""
        return Phase(self, [], [(t, r) for t, _, r in self._pairs(which, colour) if r.size], which)


class Phase:
    """The messages of one phase of every sweep of a solve as persistent MPI requests
    (MPI 4.0 section 3.9) over buffers kept for the solve: the rows and partners are the
    same in every sweep, so a sweep only fills the send buffers and starts the requests.
    Receives are started (`start`) before the sweep begins and completed where the sweep
    needs them (`wait`); sends are started by `send` and completed by `complete`. The
    buffers and requests are made at the first of these calls: a solve that runs its
    sweeps compiled (solvers/distributed_kernels.py) makes its own from `sends` / `recvs`
    (partner rank, rows) and `tag`."""

    def __init__(self, ext, sends: list, recvs: list, tag: int):
        self.world = ext.comm
        self.sends = [(t, s) for t, s in sends]
        self.recvs = [(t, r) for t, r in recvs]
        self.tag = tag
        self.nbytes = sum(24 * s.size for _, s in self.sends)
        self._made = None                       # (send buffers, receive buffers, send requests, receive requests)

    def __bool__(self) -> bool:
        return bool(self.sends or self.recvs)

    def _requests(self):
        if self._made is None:
            comm = self.world.comm
            sbufs = [np.empty((s.size, 3)) for _, s in self.sends]
            rbufs = [np.empty((r.size, 3)) for _, r in self.recvs]
            self._made = (sbufs, rbufs,
                          [comm.Send_init(buf, dest=t, tag=self.tag) for buf, (t, _) in zip(sbufs, self.sends)],
                          [comm.Recv_init(buf, source=t, tag=self.tag) for buf, (t, _) in zip(rbufs, self.recvs)])
        return self._made

    def send(self, values: np.ndarray) -> None:
        sbufs, _, requests, _ = self._requests()
        for buf, (_, rows) in zip(sbufs, self.sends):
            np.take(values, rows, axis=0, out=buf)
        self.world.MPI.Prequest.Startall(requests)
        self.world.bytes_sent += self.nbytes

    def start(self) -> None:
        self.world.MPI.Prequest.Startall(self._requests()[3])

    def wait(self, values: np.ndarray) -> None:
        _, rbufs, _, requests = self._requests()
        self.world.MPI.Prequest.Waitall(requests)
        for buf, (_, rows) in zip(rbufs, self.recvs):
            values[rows] = buf

    def complete(self) -> None:
        self.world.MPI.Prequest.Waitall(self._requests()[2])

    def free(self) -> None:
        if self._made is not None:
            for req in self._made[2] + self._made[3]:
                req.Free()
            self._made = None


def _colours(comm, neighbours: int):
    """Greedy colouring of the rank graph (ranks are neighbours when one's rows touch the
    other's bodies, in either direction); returns (colour of every rank, count)."""
    masks = comm.allgather_fixed(np.array([neighbours], dtype=np.int64)).reshape(-1)
    size = masks.size
    adj = [set() for _ in range(size)]
    for r in range(size):
        for t in range(size):
            if t != r and (int(masks[r]) >> t) & 1:
                adj[r].add(t)
                adj[t].add(r)
    colour = np.full(size, -1, dtype=np.int64)
    for r in range(size):
        used = {int(colour[t]) for t in adj[r] if colour[t] >= 0}
        c = 0
        while c in used:
            c += 1
        colour[r] = c
    return colour, int(colour.max()) + 1 if size else 1
