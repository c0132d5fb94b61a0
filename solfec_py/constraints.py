"""Constraint records (layer 2): every constraint of a domain as one row of a structure of
arrays — kind, bodies, referential points, local frame, reactions and velocities, gap,
strength, prescribed values, spring data — with Solfec's recycled ids and stable handles.
Reference: Solfec-1.0 ldy.c, local dynamics; Solfec-1.0 ldy.c, constraint kinds; Solfec-1.0 dom.c, the time step (local frames); Solfec-1.0 user manual, constraints (Solfec dom.h `struct
constraint`, dom.c insert / DOM_Remove_Constraint).

Rows are kept in creation order (`SOLFEC.constraints` lists them newest first; the
Gauss-Seidel sweep also runs newest first, as Solfec's prepended lists). Removing a row
moves the later rows up. A row refers to its bodies by id and family (the body-kind block
that stores them) so the solver layer resolves block rows with array lookups, never with a
Python loop over constraints.

Side 0 is the master (sign +1), side 1 the slave (sign -1); `bid[k, 1] == 0` means no
slave (for a one-body RIGLNK `spnt` is then a fixed spatial point).
"""
from __future__ import annotations

from itertools import compress

import numpy as np

from solfec_py.compilation import njit

KINDS = ("CONTACT", "FIXPNT", "FIXDIR", "VELODIR", "VELODIR3", "RIGLNK", "SPRING")
CONTACT, FIXPNT, FIXDIR, VELODIR, VELODIR3, RIGLNK, SPRING = range(len(KINDS))
KIND_CODE = {name: code for code, name in enumerate(KINDS)}

# PUT_SPRING direction update (Solfec-1.0 user manual, PUT_SPRING); FOLLOW has no deck keyword
SPRING_UPDATES = ("FOLLOW", "FIXED", "CONV1", "CONV2")
FOLLOW, FIXED, CONV1, CONV2 = range(len(SPRING_UPDATES))

_FIELDS = {
    "id": ((), np.int64),
    "serial": ((), np.int64),       # distinguishes a recycled id from the constraint a handle knew
    "kind": ((), np.int8),
    "bid": ((2,), np.int64),        # body ids (0 = none)
    "family": ((2,), np.int8),      # index into ConstraintSet.families (-1 = none)
    "elem": ((2,), np.int64),       # geometric object / element of each side (-1 = whole body)
    "mpnt": ((3,), float),          # referential point of the master
    "spnt": ((3,), float),          # referential point of the slave, or a fixed spatial point
    "point": ((3,), float),         # current spatial point (master side)
    "point2": ((3,), float),        # current second end (RIGLNK, SPRING)
    "base": ((3, 3), float),        # local frame, columns (t1, t2, n)
    "R": ((3,), float),             # mean reaction over the last step, local
    "U": ((3,), float),             # local relative velocity at t + h
    "V": ((3,), float),             # local relative velocity at t
    "B": ((3,), float),             # local free velocity of the last step
    "gap": ((), float),
    "area": ((), float),
    "merit": ((), float),
    "strength": ((), float),        # FIXPNT |R| / RIGLNK tensile limit (inf = unbreakable)
    "length": ((), float),          # RIGLNK d0, SPRING L0
    "link": ((3,), float),          # RIGLNK current link vector x1 - x2 (spatial)
    "direction": ((3,), float),     # FIXDIR with body2 / convected SPRING: referential direction
    "update": ((), np.int8),        # SPRING direction update kind
    "limits": ((2,), float),        # SPRING stroke limits
    "target": ((3,), float),        # VELODIR / VELODIR3 prescribed local velocity at t + h
    "friction": ((), float),        # contacts (filled by contact detection)
    "restitution": ((), float),
    "cohesion": ((), float),        # cohesion force (cohesion x area), 0 once lost
    "model": ((), np.int8),         # 0 Signorini-Coulomb, 1 spring-dashpot
    "spring": ((), float),
    "dashpot": ((), float),
    "hpow": ((), float),
    "spair": ((2,), np.int64),
}
_OBJECTS = ("bodies", "series", "function", "material")


def local_base(n: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """(k, 3, 3) frames with columns (t1, t2, n) for normals n (k, 3) (Solfec-1.0 dom.c, the time step):
    t1 = normalise(e_x x n), or e_y x n when |e_x x n| < eps; t2 = t1 x n (left-handed)."""
    n = np.ascontiguousarray(np.atleast_2d(np.asarray(n, dtype=float)))
    out = np.empty(n.shape + (3,))
    _local_base(n, float(eps), out)
    return out


@njit
def _local_base(n, eps, out):
    """`local_base` row by row (numba; the operations of the former numpy version, so the
    same numbers)."""
    for k in range(n.shape[0]):
        x, y, z = n[k, 0], n[k, 1], n[k, 2]
        a, b, c = 0.0, -z, y                                # e_x x n
        size = np.sqrt(y * y + z * z)
        if size < eps:                                      # e_y x n
            a, b, c = z, 0.0, -x
            size = np.sqrt(x * x + z * z)
        if not size > 0:
            size = 1.0
        a, b, c = a / size, b / size, c / size
        out[k, 0, 0], out[k, 1, 0], out[k, 2, 0] = a, b, c
        out[k, 0, 1], out[k, 1, 1], out[k, 2, 1] = b * z - c * y, c * x - a * z, a * y - b * x   # t1 x n
        out[k, 0, 2], out[k, 1, 2], out[k, 2, 2] = x, y, z


@njit
def _compact(arr, keep, start, n):
    """Move the kept rows of arr[start:n] (2-D, rows `keep`) up, in order, from row
    `start` (in place: a row only moves to an earlier one)."""
    dst = start
    for src in range(start, n):
        if keep[src]:
            if dst != src:
                for j in range(arr.shape[1]):
                    arr[dst, j] = arr[src, j]
            dst += 1


def body_list(body) -> list:
    """The list behind `body.constraints` (a deck BODY exposes a copy through a property
    and keeps the list as `_constraints`)."""
    state = vars(body)
    lst = state.get("_constraints", state.get("constraints"))
    if lst is None:
        lst = state["constraints"] = []
    return lst


def _drop_last(lst: list, h) -> None:
    """Delete the last entry of `lst` that is `h` (if any). The search runs at C speed on a
    reversed copy (an obstacle's list holds a handle per contact); handles compare by
    identity, and the hit is checked to be `h` itself before it goes."""
    try:
        i = len(lst) - 1 - lst[::-1].index(h)
    except ValueError:
        return
    if lst[i] is h:
        del lst[i]
        return
    for i in range(len(lst) - 1, -1, -1):          # an entry equal to h but not h: by identity
        if lst[i] is h:
            del lst[i]
            return


class ConstraintHandle:
    """Refers to a constraint by id (as Solfec's CONSTRAINT objects do). `row` is None once
    the constraint is gone; a handle never follows a recycled id to a newer constraint."""

    __slots__ = ("cset", "cid", "serial")

    def __init__(self, cset: "ConstraintSet", cid: int, serial: int):
        self.cset, self.cid, self.serial = cset, cid, serial

    @property
    def row(self) -> int | None:
        return self.cset.row_of(self.cid, self.serial)


class ConstraintSet:
    """All constraints of one domain (see module docstring). Iterating gives handles in
    creation order; `len()` is the number of constraints."""

    handle_factory = ConstraintHandle   # the deck layer installs its CONSTRAINT type here

    def __init__(self, capacity: int = 16):
        self.count = 0
        self.capacity = 0
        self.families: list[str] = []     # family names used by `family` codes
        self._row = np.full(16, -1, dtype=np.int64)   # id -> row (-1: no such constraint)
        self._spare: list[int] = []       # freed ids (smallest reused first)
        self._next_id = 1
        self._serial = 0
        self.version = 0                  # bumped on every insertion / removal
        for name, (tail, dtype) in _FIELDS.items():
            setattr(self, name, np.zeros((0,) + tail, dtype=dtype))
        for name in _OBJECTS:
            setattr(self, name, [])
        self._handles: list = []
        self._grow(capacity)

    # ------------------------------------------------------------------ container
    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0

    def __iter__(self):
        return iter([self.handle(int(self.id[k])) for k in range(self.count)])

    def __reversed__(self):
        return iter([self.handle(int(self.id[k])) for k in range(self.count - 1, -1, -1)])

    def __getitem__(self, index: int):
        k = range(self.count)[index]
        return self.handle(int(self.id[k]))

    def handle(self, cid: int):
        """The (single, cached) handle object of constraint `cid`."""
        k = self.row_of(cid)
        if k is None:
            raise KeyError(cid)
        return self._handles[k]

    def row_of(self, cid: int, serial: int | None = None) -> int | None:
        cid = int(cid)
        k = int(self._row[cid]) if 0 <= cid < self._row.size else -1
        if k < 0 or (serial is not None and int(self.serial[k]) != serial):
            return None
        return k

    def _map_ids(self, ids, rows) -> None:
        """Record rows `rows` (or -1) of constraint ids `ids` in the id -> row map."""
        ids = np.asarray(ids, dtype=np.int64)
        if ids.size and int(ids.max()) >= self._row.size:
            grown = np.full(max(2 * self._row.size, int(ids.max()) + 1), -1, dtype=np.int64)
            grown[: self._row.size] = self._row
            self._row = grown
        self._row[ids] = rows

    def family_code(self, name: str) -> int:
        if name not in self.families:
            self.families.append(name)
        return self.families.index(name)

    # ------------------------------------------------------------------ storage
    def _grow(self, capacity: int) -> None:
        for name, (tail, dtype) in _FIELDS.items():
            old = getattr(self, name)
            new = np.zeros((capacity,) + tail, dtype=dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)
        self.capacity = capacity

    def add(self, kind: int, master, slave, family_of) -> int:
        """Append a constraint of `kind` between Body objects `master` and `slave` (None
        allowed for the slave); `family_of(body)` names the block family of a body.
        Returns the new row; the caller fills the geometric fields."""
        names, bid, fam = [], np.zeros((1, 2), dtype=np.int64), np.full((1, 2), -1, dtype=np.int64)
        for s, body in enumerate((master, slave)):
            if body is not None:
                name = family_of(body)
                if name not in names:
                    names.append(name)
                bid[0, s], fam[0, s] = body.id, names.index(name)
        return int(self.add_many(kind, [master], [slave], bid, fam, names)[0])

    def add_many(self, kind: int, masters: list, slaves: list, bid: np.ndarray, family: np.ndarray,
                 names: list, ids: list | None = None) -> np.ndarray:
        """Append k constraints of `kind` at once (as k calls of `add` would, in order): Body
        objects `masters`, `slaves` (None entries allowed), their ids `bid` (k, 2) (0 = none)
        and family codes `family` (k, 2) into the list of family `names` (-1 = none).
        `ids`: the constraint ids (not in use; a constraint arriving from another rank of a
        parallel run keeps its id) instead of allocated ones. Returns the new rows; the
        caller fills the geometric fields."""
        k = len(masters)
        start = self.count
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        if start + k > self.capacity:
            self._grow(max(16, 2 * self.capacity, start + k))
        rows = np.arange(start, start + k)
        for name in _FIELDS:
            getattr(self, name)[start:start + k] = 0
        if ids is None:
            ids = self._allocate(k)
        serials = range(self._serial + 1, self._serial + k + 1)
        self._serial += k
        self.id[rows], self.serial[rows], self.kind[rows] = ids, serials, kind
        family = np.asarray(family, dtype=np.int64)
        codes = np.full(len(names) + 1, -1, dtype=np.int64)
        for c in np.unique(family[family >= 0]).tolist():     # only the families used
            codes[c] = self.family_code(names[c])
        self.family[rows] = codes[np.where(family >= 0, family, len(names))]
        self.bid[rows] = np.where(family >= 0, bid, 0)
        self.elem[rows] = -1
        self.strength[rows] = np.inf
        self.base[rows] = np.eye(3)
        pairs = list(zip(masters, slaves))
        self.bodies.extend(pairs)
        for name in ("series", "function", "material"):
            getattr(self, name).extend([None] * k)
        make = self.handle_factory
        handles = [make(self, cid, serial) for cid, serial in zip(ids, serials)]
        self._handles.extend(handles)
        self._map_ids(ids, rows)
        self.count += k
        self.version += 1
        for (master, slave), h in zip(pairs, handles):
            body_list(master).append(h)
            if slave is not None:
                body_list(slave).append(h)
        return rows

    def _allocate(self, k: int) -> list:
        """k ids: the smallest spare ids first, then fresh ones in increasing order;
        fresh ids step by `id_stride` (the ranks of a parallel run allocate from disjoint
        residue classes, so that an id names one constraint in the whole model)."""
        self._spare.sort()
        reuse = self._spare[:k]
        del self._spare[:k]
        fresh = k - len(reuse)
        stride = self.id_stride
        ids = reuse + list(range(self._next_id, self._next_id + fresh * stride, stride))
        self._next_id += fresh * stride
        return ids

    id_stride = 1

    def remove_rows(self, rows, recycle: bool = True) -> None:
        """Delete the constraints at `rows` (ids become spare unless not `recycle`: a
        constraint that moved to another rank keeps its id there; later rows move up)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if rows.size == 0:
            return
        if rows.size > 1 and not bool((rows[1:] > rows[:-1]).all()):   # sorted and distinct already?
            rows = np.unique(rows)
        n = self.count
        keep = np.ones(n, dtype=bool)
        keep[rows] = False
        for k, cid in zip(rows.tolist(), self.id[rows].tolist()):
            h = self._handles[k]
            for body in self.bodies[k]:
                if body is not None:
                    _drop_last(body_list(body), h)
            if recycle:
                self._spare.append(cid)
        self._row[self.id[rows]] = -1
        m = int(keep.sum())
        tail = int(rows[0])                 # rows before the first removed one stay put
        for name in _FIELDS:                # each field as (capacity, width), moved up in place
            arr = getattr(self, name)
            _compact(arr.reshape(arr.shape[0], -1), keep, tail, n)
        lists = [getattr(self, name) for name in _OBJECTS] + [self._handles]
        if rows.size <= 64:                 # few rows: deleting them moves the tails at C speed
            for k in reversed(rows.tolist()):
                for lst in lists:
                    del lst[k]
        else:
            flags = keep[tail:].tolist()
            for lst in lists:
                lst[tail:] = compress(lst[tail:], flags)
        self.count = m
        self._row[self.id[tail:m]] = np.arange(tail, m)
        self.version += 1

    def remove_body(self, body) -> int:
        """Delete every constraint attached to `body` (for DELETE of a body); returns how
        many went. Without this they go at the next step's update."""
        rows = [h.row for h in list(body_list(body)) if h.cset is self and h.row is not None]
        self.remove_rows(rows)
        return len(rows)

    def transfer(self, row: int, side: int, body) -> None:
        """Attach side `side` of the constraint at `row` to `body` (of the same family, with
        the same referential coordinates: a fragment of the body it held), as Solfec's
        DOM_Transfer_Constraint; the element it sits in is located again."""
        pair = list(self.bodies[row])
        old, h = pair[side], self._handles[row]
        if old is not None:
            _drop_last(body_list(old), h)
        pair[side] = body
        self.bodies[row] = tuple(pair)
        self.bid[row, side] = body.id
        self.elem[row, side] = -1
        body_list(body).append(h)
        self.version += 1

    def remove(self, cid: int) -> None:
        k = self.row_of(cid)
        if k is not None:
            self.remove_rows([k])

    def live(self, name: str) -> np.ndarray:
        """The used part of field `name` (a view)."""
        return getattr(self, name)[: self.count]

    # ------------------------------------------------------------------ restoring a stored set
    def add_with_ids(self, kind: int, masters: list, slaves: list, bid: np.ndarray, family: np.ndarray,
                     names: list, ids) -> np.ndarray:
        """`add_many` with the given constraint ids (positive, distinct, none of them live)
        instead of allocated ones; then the id allocator is reset (`reset_ids`). New serials
        and handles as `add_many`. For restoring stored constraints (-c)."""
        ids = [int(i) for i in ids]
        if len(ids) != len(masters):
            raise ValueError(f"{len(ids)} ids for {len(masters)} constraints")
        if len(set(ids)) != len(ids) or any(i <= 0 or self.row_of(i) is not None for i in ids):
            raise ValueError(f"constraint ids must be positive, distinct and not in use: {ids}")
        rows = self.add_many(kind, masters, slaves, bid, family, names)
        self._row[self.id[rows]] = -1          # two passes: an allocated id may be a given one
        self._map_ids(ids, rows)
        for r, cid in zip(rows.tolist(), ids):
            self._handles[r].cid = cid
        self.id[rows] = ids
        self.reset_ids()
        return rows

    def reorder(self, order) -> None:
        """Put the rows in the order `order` (a permutation of range(count): new row j is
        old row order[j]); ids, serials and handles move with their rows, and each body's
        list of constraints of this set follows the new row order."""
        order = np.asarray(order, dtype=np.int64)
        n = self.count
        if order.shape != (n,) or not np.array_equal(np.sort(order), np.arange(n)):
            raise ValueError(f"reorder needs a permutation of the {n} rows")
        if np.array_equal(order, np.arange(n)):
            return
        for name in _FIELDS:
            arr = getattr(self, name)
            arr[:n] = arr[:n][order]
        index = order.tolist()
        for name in _OBJECTS:
            lst = getattr(self, name)
            lst[:n] = [lst[k] for k in index]
        self._handles[:n] = [self._handles[k] for k in index]
        self._row[self.id[:n]] = np.arange(n)
        self.version += 1
        seen = set()
        for pair in self.bodies:
            for body in pair:
                if body is None or id(body) in seen:
                    continue
                seen.add(id(body))
                lst = body_list(body)
                slots = [i for i, h in enumerate(lst) if getattr(h, "cset", None) is self and h.row is not None]
                mine = sorted((lst[i] for i in slots), key=lambda h: h.row)
                for i, h in zip(slots, mine):
                    lst[i] = h

    def reset_ids(self) -> None:
        """Make the id allocator what it is in any run holding exactly these live ids: the
        next new constraint gets the smallest positive id not in use (the spare ids are
        1..max(live) minus the live ones, then fresh ids follow max(live))."""
        live = set(self.id[: self.count].tolist())
        top = max(live, default=0)
        self._next_id = top + 1
        self._spare = [i for i in range(1, top + 1) if i not in live]


def constraint_set(domain) -> ConstraintSet:
    """The domain's ConstraintSet, installed in place of the initial empty list."""
    cons = domain.constraints
    if isinstance(cons, ConstraintSet):
        return cons
    if len(cons):
        raise TypeError("domain.constraints holds objects that are not a ConstraintSet")
    cset = ConstraintSet()
    domain.constraints = cset
    return cset
