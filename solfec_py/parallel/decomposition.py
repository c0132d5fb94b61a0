"""Bodies over ranks (layer 5): which rank owns each body (recursive coordinate bisection of
the body centres, kept between rebalancing and queried every step), the migration of the
bodies that crossed a cut, and the ghost copies of the bodies near each rank's bodies.
Reference: Solfec-1.0 dom.c (domain_balancing: Zoltan RCB, point assignment between
rebalancing, parent and child bodies), docs/parallel.md.

Obstacles are assigned by the bisection but are not its points, and their costs are not
counted in the loads: they have no degrees of freedom and their contacts are worked by the
owners of the other bodies (`owns_pairs`).

Every rank holds the definition of every body (the deck ran everywhere); a body is a row of
a block on its owner and, as a ghost, on the ranks whose bodies come within reach of it.
Rows move as float tables (`BodyBlock.pack_rows`) in one Alltoallv per exchange; nothing is
pickled on the way. A ghost is stepped like the owner's row (so that its free velocity is the
owner's) and overwritten from the owner at the start of every step. The exchanges of new and
deleted bodies, migrations and constraints with a new owner run only when some rank has any:
their counts ride with the load sum and the regions' gather that every step makes (five
collectives a step when nothing moves).

Regions: rank r's region is the bounding box of its owned bodies that are not obstacles,
grown by `margin`; a body is a ghost on r while its box meets r's region (it stays one until
its box is more than 3 margins away, so that bodies on a boundary do not come and go every
step). Two bodies in contact have meeting boxes, so each is local where the other is owned.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import BODY_KINDS
from solfec_py.errors import NotAvailableError
from solfec_py.parallel import constraint_rows as CR
from solfec_py.parallel import replicas
from solfec_py.parallel.constraint_rows import FAMILIES
from solfec_py.parallel.partition import bisect, imbalance
from solfec_py.parallel.replicas import ElsewhereBlock

HYSTERESIS = 3.0                         # a ghost goes when its box is this many margins away


class Decomposition:
    """The parallel state of one domain (see the module docstring)."""

    def __init__(self, domain, comm):
        self.domain, self.comm = domain, comm
        self.rank, self.size = comm.rank, comm.size
        self.owner = np.full(0, -1, dtype=np.int64)      # body id -> owner rank
        self.where = np.zeros(0, dtype=np.int64)         # body id -> bit mask of ranks holding a row
        self.parked: dict = {}                           # body id -> records of a detached body
        self.sent = np.zeros(0, dtype=np.int64)          # owned body id -> bit mask of its ghost ranks
        self.geometry_sent: set = set()                  # FE bodies whose mesh this rank sent to rank 0
        self.tree = None
        self.tolerance, self.weightfactor, self.updatefreq = domain.balance
        self.margin = 0.0
        self.regions = np.zeros((self.size, 2, 3))
        self.steps = 0
        self.deleted: list = []                          # ids this rank deleted since the last exchange
        self.obstacle = np.zeros(0, dtype=bool)          # body id -> an OBSTACLE
        self.parked_constraints: dict = {}               # constraint id -> (series, function, material)
        self.links = np.zeros((0, 2), dtype=np.int64)    # bodies of the deck's two-body constraints
        self.seen_next_id = -1                           # domain.next_body_id at the last look for new bodies
        self.imbalance = 1.0
        self.achieved = 1.0                              # the imbalance the last bisection gave
        self.measure_next = False                        # measure it at the next step
        self.rebalanced = 0
        self.migrated = 0
        self.model_counts = None                         # (constraints, contacts) of the whole model

    # ------------------------------------------------------------------ lookups
    def _grow(self, top: int) -> None:
        if top >= self.owner.size:
            n = max(top + 1, 2 * self.owner.size, 64)
            owner, where, obstacle = np.full(n, -1, np.int64), np.zeros(n, np.int64), np.zeros(n, bool)
            sent = np.zeros(n, np.int64)
            owner[: self.owner.size], where[: self.where.size] = self.owner, self.where
            obstacle[: self.obstacle.size], sent[: self.sent.size] = self.obstacle, self.sent
            self.owner, self.where, self.obstacle, self.sent = owner, where, obstacle, sent

    def owns_pairs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Which body pairs (ids) have their contacts owned here: the owner of the body of
        smaller id, unless it is an obstacle (then the other body's owner)."""
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        first = np.where(self.obstacle[lo], hi, lo)
        return self.owner[first] == self.rank

    def constraint_owners(self, cset, rows: np.ndarray) -> np.ndarray:
        """The rank owning each constraint-set row: contacts as `owns_pairs`, other
        constraints with their first body."""
        bid = cset.bid[rows]
        contact = cset.kind[rows] == 0
        lo = np.where(bid[:, 1] > 0, np.minimum(bid[:, 0], bid[:, 1]), bid[:, 0])
        hi = np.maximum(bid[:, 0], bid[:, 1])
        first = np.where(contact & self.obstacle[lo], hi, np.where(contact, lo, bid[:, 0]))
        return self.owner[first]

    def here(self, body) -> bool:
        """Is `body` owned by this rank?"""
        return 0 < body.id < self.owner.size and int(self.owner[body.id]) == self.rank

    def local(self, body) -> bool:
        return body.row >= 0 and not isinstance(body.block, ElsewhereBlock)

    def owned_rows(self, block) -> np.ndarray:
        """Mask of the block's rows owned here (the others are ghosts)."""
        return self.owner[block.bid[: block.count]] == self.rank

    # ------------------------------------------------------------------ the first RUN
    def start(self) -> None:
        """Partition the bodies every rank built from the deck, keep this rank's rows and
        its ghosts, and park the rest. Bodies only rank 0 built stay there until the first
        exchange moves them (`_check_same_bodies`)."""
        domain = self.domain
        if domain.overlap_correction is not None:
            raise NotAvailableError("parallel runs: OVERLAP_CORRECTION is serial only (its projected sweep does"
                                    " not exchange boundary rows); run this deck on one process")
        adopted = self._check_same_bodies()
        bodies = [b for b in sorted(domain.bodies, key=lambda b: b.id) if not isinstance(b.block, ElsewhereBlock)]
        for block in domain.active_blocks():
            why = block.movable(np.arange(block.count))
            if why:
                raise NotAvailableError(f"parallel runs: {why}; run this deck on one process")
        ids, centres, boxes = self._geometry(bodies)
        weights = self._weights(bodies)
        if adopted:                                  # rank 0 alone has them all
            ids, centres, boxes, weights = self.comm.bcast_object((ids, centres, boxes, weights))
        self._grow(max(int(ids.max(initial=0)), max(adopted, default=0)))
        every = [b.id for b in domain.bodies]
        self.obstacle[every] = [b.kind == "OBSTACLE" for b in domain.bodies]
        moving = ~self.obstacle[ids]
        if not moving.any():
            moving[:] = True
        self.tree = bisect(centres[moving], weights[moving], self.size)
        self.owner[ids] = self.tree.assign(centres)
        if adopted:
            self.owner[sorted(adopted)] = 0
        self.margin = self._margin(boxes)
        self._park_constraints()
        for body in bodies:
            if int(self.owner[body.id]) != self.rank:
                self._detach(body)
        self.where[ids] = 1 << self.owner[ids]
        self.sent[:] = 0
        self.seen_next_id = domain.next_body_id

    def _park_constraints(self) -> None:
        """The deck's constraints stay with the owner of their first body; elsewhere their
        objects (time series, spring functions) are kept for when they move here. Constraint
        ids allocated from now on are distinct over the ranks."""
        from solfec_py import constraints as C

        cset = C.constraint_set(self.domain)
        n = cset.count
        two = np.flatnonzero(cset.bid[:n, 1] > 0)
        self.links = cset.bid[two].copy()
        away = np.flatnonzero(self.constraint_owners(cset, np.arange(n)) != self.rank)
        for r in away.tolist():
            self.parked_constraints[int(cset.id[r])] = (cset.series[r], cset.function[r], cset.material[r])
        cset.remove_rows(away, recycle=False)
        top = int(self.comm.allreduce_max([float(cset._next_id)])[0])
        cset.id_stride = self.size
        cset._next_id = top + self.rank
        cset._spare = []

    def _check_same_bodies(self) -> set:
        """Bodies the ranks built differently (a BODY under 'if RANK() == 0:', as Solfec-1.0
        allows: there bodies live on rank 0 until balanced) are rank 0's on every rank; the
        others must have made the same bodies themselves (no pickling then)."""
        mine = sorted((b.id, b.kind) for b in self.domain.bodies)
        every = self.comm.allgather_object(mine)
        if all(other == every[0] for other in every):
            return set()
        common = set(every[0]).intersection(*map(set, every[1:]))
        return replicas.from_rank0(self, [b for b in self.domain.bodies if (b.id, b.kind) not in common])

    def _geometry(self, bodies):
        """ids (k,), centres (k, 3) and boxes (k, 2, 3) of attached `bodies` (any order)."""
        k = len(bodies)
        ids = np.fromiter((b.id for b in bodies), dtype=np.int64, count=k)
        boxes = np.zeros((k, 2, 3))
        by_block: dict = {}
        for i, b in enumerate(bodies):
            by_block.setdefault(id(b.block), (b.block, []))[1].append((i, b.row))
        for block, pairs in by_block.values():
            lo, hi = block.bounding_boxes()
            at = np.array([p[0] for p in pairs], dtype=np.int64)
            rows = np.array([p[1] for p in pairs], dtype=np.int64)
            boxes[at, 0], boxes[at, 1] = lo[rows], hi[rows]
        return ids, 0.5 * (boxes[:, 0] + boxes[:, 1]), boxes

    def _weights(self, bodies) -> np.ndarray:
        """Cost of each body: its degrees of freedom over 6 (a rigid body 1) plus its
        constraints times the weight factor (Solfec dom.c body_weight, constraint_weight)."""
        ids = np.fromiter((b.id for b in bodies), dtype=np.int64, count=len(bodies))
        dofs = np.fromiter((b.u.size for b in bodies), dtype=float, count=len(bodies))
        return self._cost(ids, dofs)

    def _cost(self, ids: np.ndarray, dofs: np.ndarray) -> np.ndarray:
        """`_weights` of bodies given by ids and degrees of freedom."""
        cset = self.domain.constraints
        out = np.maximum(1.0, dofs / 6.0)
        if len(cset) and ids.size:
            used = cset.bid[: cset.count].reshape(-1)
            used = used[used > 0]
            count = np.bincount(used, minlength=int(ids.max()) + 1)
            out += self.weightfactor * count[ids]
        return out

    def _owned(self):
        """The rows owned here: [(family, block, rows)], and over them in that order the ids
        (k,), boxes (k, 2, 3) and costs (`_weights`, k)."""
        parts, ids, boxes, costs = [], [], [], []
        for fam, block in self.domain.blocks.items():
            rows = np.flatnonzero(self.owned_rows(block))
            if not rows.size:
                continue
            lo, hi = block.bounding_boxes()
            parts.append((fam, block, rows))
            ids.append(block.bid[rows])
            boxes.append(np.concatenate((lo[rows], hi[rows]), axis=1).reshape(rows.size, 2, 3))
            costs.append(self._cost(block.bid[rows], block.state_sizes()[rows, 1].astype(float)))
        if not parts:
            return [], np.zeros(0, dtype=np.int64), np.zeros((0, 2, 3)), np.zeros(0)
        return parts, np.concatenate(ids), np.concatenate(boxes), np.concatenate(costs)

    @staticmethod
    def _rows_at(parts, positions: np.ndarray, values: np.ndarray | None = None) -> dict:
        """{family: rows} of the owned rows at `positions` of the order of `_owned`, or with
        `values` (one per position) {family: (rows, values)}."""
        starts = np.cumsum([0] + [rows.size for _, _, rows in parts])
        out = {}
        for p, (fam, _, rows) in enumerate(parts):
            sel = (positions >= starts[p]) & (positions < starts[p + 1])
            if sel.any():
                picked = rows[positions[sel] - starts[p]]
                out[fam] = picked if values is None else (picked, values[sel])
        return out

    def _margin(self, boxes: np.ndarray) -> float:
        """How far beyond a rank's bodies ghosts are kept: a tenth of the median body size
        (global), and at least 100 geometric epsilons."""
        from solfec_py import session

        size = np.median(np.max(boxes[:, 1] - boxes[:, 0], axis=1)) if boxes.shape[0] else 0.0
        return max(0.1 * float(size), 100.0 * session.geometric_epsilon())

    # ------------------------------------------------------------------ rows in and out
    def _detach(self, body) -> None:
        self.parked[body.id] = body.block.detach(body)
        body.block = ElsewhereBlock(body, self.rank)

    def _send_rows(self, outgoing: dict) -> list:
        """Send packed rows to ranks (outgoing: rank -> {family: (rows of its block, an int
        sent with each row)}); returns, per source rank, per family, (ids, table, flat,
        lengths, ints) received, rows in ascending ids (None for a family without rows).
        One float buffer a rank: the count of integers, the integers (row counts, ids,
        lengths, tags: exact as floats), then the float rows."""
        buffers = []
        for dest in range(self.size):
            mine = outgoing.get(dest, {})
            f_parts, i_parts = [], []
            for fam in FAMILIES:
                rows, tags = mine.get(fam, (np.zeros(0, dtype=np.int64), None))
                if not rows.size:
                    i_parts.append(np.zeros(1, dtype=np.int64))
                    continue
                block = self.domain.blocks[fam]
                order = np.argsort(block.bid[rows], kind="stable")
                rows = rows[order]
                tags = np.zeros(rows.size, dtype=np.int64) if tags is None else np.asarray(tags, np.int64)[order]
                table, flat, lengths = block.pack_rows(rows)
                i_parts += [np.array([rows.size], dtype=np.int64), block.bid[rows], lengths, tags]
                f_parts += [table.reshape(-1), flat]
            ints = np.concatenate(i_parts)
            buffers.append(np.concatenate([np.array([ints.size], dtype=float), ints.astype(float)] + f_parts))
        out = []
        for buf in self.comm.alltoall_rows(buffers):
            nints = int(buf[0])
            ibuf, fbuf = buf[1:1 + nints].astype(np.int64), buf[1 + nints:]
            per, fpos, ipos = [], 0, 0
            for fam in FAMILIES:
                k = int(ibuf[ipos])
                ipos += 1
                if k == 0:
                    per.append(None)
                    continue
                ids = ibuf[ipos:ipos + k]
                lengths = ibuf[ipos + k:ipos + 2 * k]
                tags = ibuf[ipos + 2 * k:ipos + 3 * k]
                ipos += 3 * k
                width = self.domain.block_for(_kind_of(fam)).row_width()
                table = fbuf[fpos:fpos + k * width].reshape(k, width)
                fpos += k * width
                total = int(lengths.sum())
                flat = fbuf[fpos:fpos + total]
                fpos += total
                per.append((ids, table, flat, lengths, tags))
            out.append(per)
        return out

    # ------------------------------------------------------------------ every step
    def exchange(self) -> None:
        """Before a step: bodies the deck created since the last step, deletions, ownership
        (rebalance every `updatefreq` steps when the imbalance passed the tolerance),
        migration, ghosts, constraints of new owners."""
        made = self._made()
        counts = self.comm.allreduce_sum([float(len(made)), float(len(self.deleted))])
        if counts[0]:
            self._new_bodies(made)
        else:
            self.seen_next_id = self.domain.next_body_id
        if counts[1]:
            self._deletions()
        owned = self._ownership()
        if self.exchange_ghosts(owned, self._constraints_away().size):   # (any rank's count, with the regions)
            self._move_constraints()
        self.steps += 1

    def _constraints_away(self) -> np.ndarray:
        """Rows of the constraint set owned by another rank (a body migrated, or the deck
        made them here)."""
        from solfec_py import constraints as C

        cset = C.constraint_set(self.domain)
        rows = np.arange(cset.count)
        return rows[self.constraint_owners(cset, rows) != self.rank] if rows.size else rows

    def _move_constraints(self) -> None:
        """Constraints whose owner changed (a body migrated) go to their new owner, with
        their reactions and state."""
        from solfec_py import constraints as C

        cset = C.constraint_set(self.domain)
        away = self._constraints_away()
        owners = self.constraint_owners(cset, away) if away.size else away
        parts = []
        for t in range(self.size):
            sel = away[owners == t]
            parts.append(CR.pack(cset, sel) if sel.size else np.zeros((0, CR.WIDTH)))
        got = self.comm.alltoall_rows(parts)
        if away.size:
            for r in away.tolist():
                if cset.kind[r] != C.CONTACT:
                    self.parked_constraints[int(cset.id[r])] = (cset.series[r], cset.function[r], cset.material[r])
            cset.remove_rows(away, recycle=False)
        table = np.concatenate(got)
        if table.shape[0]:
            CR.insert(self.domain, cset, table, self.parked_constraints)

    def _ownership(self):
        """Rebalance and migrate (see `exchange`); returns `_owned()` when no body changed
        owner (else None)."""
        self.tolerance, self.weightfactor, self.updatefreq = self.domain.balance
        parts, ids, boxes, weights = self._owned()
        moving = ~self.obstacle[ids]
        centres = 0.5 * (boxes[:, 0] + boxes[:, 1])
        new = self.tree.assign(centres) if ids.size else np.zeros(0, dtype=np.int64)
        load = np.zeros(self.size + 1)            # (+ how many bodies leave this rank)
        load[self.rank] = weights[moving].sum()
        load[self.size] = np.count_nonzero(new != self.rank)
        load = self.comm.allreduce_sum(load)
        leaving = load[self.size]
        load = load[: self.size]
        self.imbalance = imbalance(load)
        if self.measure_next:
            self.achieved, self.measure_next = self.imbalance, False
        if self.steps % self.updatefreq == 0 and self._worth_bisecting():
            rows = np.column_stack((ids.astype(float), centres, weights))[moving]
            every, _ = self.comm.allgather_rows(rows)
            every = every[np.argsort(every[:, 0], kind="stable")]
            self.tree = bisect(every[:, 1:4], every[:, 4], self.size)
            self.rebalanced += 1
            self.measure_next = True
            new = self.tree.assign(centres) if ids.size else np.zeros(0, dtype=np.int64)
            leaving = 1.0                          # (not known before the bisection)
        if not leaving:
            self.migrated = 0
            return parts, ids, boxes, weights
        moving = np.flatnonzero(new != self.rank)
        changes, _ = self.comm.allgather_rows(np.column_stack((ids[moving], new[moving])))
        self.migrated = changes.shape[0]
        if changes.shape[0] == 0:
            return parts, ids, boxes, weights
        outgoing = {int(dest): {fam: (rows, None) for fam, rows in
                                self._rows_at(parts, moving[new[moving] == dest]).items()}
                    for dest in np.unique(new[moving]).tolist()}
        arrived = self._send_rows(outgoing)
        self.owner[changes[:, 0]] = changes[:, 1]
        self.sent[ids[moving]] = 0              # a row here still: a ghost, if the new owner sends it
        self._take_rows(arrived, ghost=False)
        return None

    def _worth_bisecting(self) -> bool:
        """Above the tolerance, and worse than what the last bisection reached by more than
        half the tolerance's allowance: when the loads a bisection balances (contacts
        counted by their owners) shift with the partition, the imbalance can stay above the
        tolerance after every bisection, and bisecting again only migrates bodies."""
        slack = 0.5 * (self.tolerance - 1.0)
        return self.imbalance > self.tolerance and self.imbalance > self.achieved + slack

    def _take_rows(self, arrived: list, ghost: bool) -> np.ndarray:
        """Attach or update the rows received (per source, per family); returns the ids.
        Bodies not here get a row first; then each block takes its rows in one
        `unpack_rows` (a call per body costs about 100 times more on a cube array)."""
        by_id = self.domain.by_id
        taken = []
        for per in arrived:
            for fam, got in zip(FAMILIES, per):
                if got is None:
                    continue
                ids, table, flat, lengths, tags = got
                block = self.domain.block_for(_kind_of(fam))
                held = block.bid[: block.count]
                known = held <= ids.max()
                row_of = np.full(int(ids.max()) + 1, -1, dtype=np.int64)   # body id -> its row here
                row_of[held[known]] = np.flatnonzero(known)
                rows = row_of[ids]
                for j in np.flatnonzero(rows < 0).tolist():      # not here yet: a row first
                    body = by_id[int(ids[j])]
                    rows[j] = block.attach(body, self.parked.pop(body.id, None))
                block.unpack_rows(rows, table, flat, lengths)
                if ghost:
                    self.where[ids] = tags
                taken.append(ids)
        return np.concatenate(taken) if taken else np.zeros(0, dtype=np.int64)

    def _regions(self, ids: np.ndarray, boxes: np.ndarray, extra: float = 0.0) -> tuple:
        """(size, 2, 3) every rank's region (module docstring) from the boxes of the bodies
        owned here (`_owned`; obstacles left out), empty regions as inverted boxes, and the
        sum over the ranks of `extra` (a count that rides with the regions)."""
        moving = boxes[~self.obstacle[ids]] if ids.size else boxes
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        if moving.shape[0]:
            for i in range(3):          # column by column (a reduction over axis 0 of (k, 3) is slow)
                lo[i], hi[i] = moving[:, 0, i].min(), moving[:, 1, i].max()
        mine = np.concatenate((lo - self.margin, hi + self.margin, [float(extra)]))
        every = self.comm.allgather_fixed(mine)
        return every[:, :6].reshape(self.size, 2, 3), float(every[:, 6].sum())

    def exchange_ghosts(self, owned=None, away: int = 0) -> bool:
        """Send every owned body near another rank's region to it (full rows), tell each
        rank which ghosts it no longer needs, and take the ghosts sent here (`owned`: what
        `_owned()` returns now, if known). `away` (this rank's count of constraints owned
        elsewhere) travels with the regions: returns whether any rank has such constraints."""
        outgoing: dict = {}
        parts, ids, boxes, _ = self._owned() if owned is None else owned
        self.regions, away_anywhere = self._regions(ids, boxes, away)
        regions = self.regions
        if ids.size:
            bits = np.left_shift(1, np.arange(self.size, dtype=np.int64))
            apart = _separation(boxes, regions)                 # (k, size)
            near, kept = apart <= 0.0, apart <= HYSTERESIS * self.margin
            want = near | (kept & ((self.sent[ids][:, None] & bits) != 0))
            want[:, self.rank] = False
            mask = self._bound_ranks()[ids]
            for r in range(self.size):                          # (a sum over a short trailing axis is slow)
                mask |= np.where(want[:, r], bits[r], 0)
            self.sent[ids] = mask
            self.where[ids] = mask | bits[self.rank]
            for r in range(self.size):
                sel = np.flatnonzero(mask & bits[r])
                if sel.size:
                    outgoing[r] = self._rows_at(parts, sel, mask[sel] | bits[self.rank])
        arrived = self._send_rows(outgoing)
        taken = np.zeros(self.owner.size, dtype=bool)
        taken[self._take_rows(arrived, ghost=True)] = True
        for block in list(self.domain.active_blocks()):          # ghosts no longer sent go
            bid = block.bid[: block.count]
            gone = np.flatnonzero((self.owner[bid] != self.rank) & ~taken[bid])
            for row in gone[::-1].tolist():                     # from the end: the fewest rows move
                body = block.bodies[row]
                self._detach(body)
                self.where[body.id] = 0
        return away_anywhere > 0

    def _bound_ranks(self) -> np.ndarray:
        """Body id -> mask of the ranks owning a body bound to it by a constraint of the
        deck, for the bodies owned here (there it must be a row, however far it is)."""
        out = np.zeros(self.owner.size, dtype=np.int64)
        if self.links.shape[0]:
            x = np.concatenate((self.links[:, 0], self.links[:, 1]))
            y = np.concatenate((self.links[:, 1], self.links[:, 0]))
            ok = (x > 0) & (x < self.owner.size) & (y > 0) & (y < self.owner.size)
            x, y = x[ok], y[ok]
            ok = (self.owner[x] == self.rank) & (self.owner[y] != -1) & (self.owner[y] != self.rank)
            np.bitwise_or.at(out, x[ok], np.left_shift(1, self.owner[y[ok]]))
        return out

    # ------------------------------------------------------------------ bodies made during a run
    def _made(self) -> list:
        """Bodies the deck made since the last look that have no owner yet (`_new_bodies`)."""
        domain = self.domain
        if domain.next_body_id == self.seen_next_id:     # (ids come from next_body_id)
            return []
        return [b for b in domain.bodies if b.id >= self.owner.size or self.owner[b.id] < 0]

    def _new_bodies(self, made: list) -> None:
        """Bodies a deck creates after the first RUN (in a CALLBACK, between RUNs) are kept
        from rank 0, as in Solfec-1.0 (dom.c DOM_Insert_Body: bodies are created on rank 0,
        the others come by migration): rank 0 owns them until the next partition query and
        sends their definitions (shape, material, settings; pickled: a rare event) to the
        other ranks, which replace what they made themselves by them and keep rank 0's body
        ids from then on."""
        domain = self.domain
        kept = replicas.from_rank0(self, made)
        self.seen_next_id = domain.next_body_id
        ids = np.array(sorted(kept), dtype=np.int64)
        if not ids.size:
            return
        self._grow(int(ids.max()))
        self.owner[ids] = 0
        self.where[ids] = 1
        self.obstacle[ids] = [domain.by_id[i].kind == "OBSTACLE" for i in ids.tolist()]

    # ------------------------------------------------------------------ deletions
    def _deletions(self) -> None:
        gone = np.array(sorted(self.deleted), dtype=np.int64)
        self.deleted = []
        every, _ = self.comm.allgather_rows(gone)
        for bid in every.tolist():
            body = self.domain.by_id.get(bid)
            if body is None or body.deleted:
                continue
            if self.local(body):
                self.domain.delete(body)
            else:
                self.parked.pop(bid, None)
                self.domain.forget(body)
            self.owner[bid] = -1
            self.where[bid] = 0


def _kind_of(family: str) -> str:
    return next(k for k, spec in BODY_KINDS.items() if spec.family == family and spec.block is not None)


def _separation(boxes: np.ndarray, regions: np.ndarray) -> np.ndarray:
    """(k, size) the largest gap along an axis between box k and region r (<= g: the box
    meets the region grown by g). Axis by axis on (k, size) arrays: a reduction over a
    trailing axis of 3 costs numpy ten times more."""
    out = None
    for i in range(3):
        gap = np.maximum(boxes[:, 0, i, None] - regions[None, :, 1, i], regions[None, :, 0, i] - boxes[:, 1, i, None])
        out = gap if out is None else np.maximum(out, gap, out=out)
    return out


__all__ = ["Decomposition", "ElsewhereBlock", "FAMILIES"]
