"""Constraints of a stored frame as deck objects (layer 7): STORED_CONSTRAINT and
`frame_constraints`, the READ-mode `SOLFEC.constraints` / `BODY.constraints` list.
Reference: Solfec-1.0 lng.c, the CONSTRAINT type over read-back results (docs/results.md).
"""
from __future__ import annotations

from solfec_py.api.common import readonly
from solfec_py.api.constraints import CONSTRAINT
from solfec_py.output import replay
from solfec_py.output.frames import BASE, CCOL, CON_KINDS, POINT, REAC, RELV

_VELO = slice(CCOL["VT1"], CCOL["VN"] + 1)
_POINT2 = slice(CCOL["P2X"], CCOL["P2Z"] + 1)


def _kind(r) -> str:
    return CON_KINDS[int(r[CCOL["KIND"]]) - 1]


def _stored(fn):
    """A read-only attribute computed from the stored row (None when there is none)."""

    def getter(self):
        r = self._stored_row()
        return None if r is None else fn(self, r)

    getter.__name__ = fn.__name__
    getter.__doc__ = fn.__doc__
    return readonly(getter)


class STORED_CONSTRAINT(CONSTRAINT):
    """A constraint of the stored frame shown by a READ-mode SOLFEC object that the deck did
    not create (a contact, or a constraint missing from the rebuilt model): the attributes
    of CONSTRAINT read from the results. Like CONSTRAINT it refers to its constraint by id:
    after SEEK / FORWARD / BACKWARD the attributes read the row of the frame shown with the
    same id, kind and bodies, or None when that frame has no such constraint. A row stored
    without an id (ID 0) is bound to the frame it was listed in."""

    __slots__ = ("_solfec", "_key", "_frame", "_index")

    @classmethod
    def _of(cls, solfec, key, frame, index):
        obj = object.__new__(cls)
        obj.cset, obj.cid, obj.serial = None, key[0], 0
        obj._solfec, obj._key, obj._frame, obj._index = solfec, key, frame, index
        return obj

    @property
    def row(self):                      # never a row of the live ConstraintSet
        return None

    def _stored_row(self):
        store = self._solfec.store
        i = store.current
        if i is None:
            return None
        if self._key[0] == 0:
            return store.frame_constraints(i)[self._index] if i == self._frame else None
        k = store.constraint_index(i).get(self._key)
        return None if k is None else store.frame_constraints(i)[k]

    @_stored
    def kind(self, r):
        return _kind(r)

    @_stored
    def id(self, r):
        return int(r[CCOL["ID"]]) or None

    @_stored
    def R(self, r):
        return tuple(r[REAC].tolist())

    @_stored
    def U(self, r):
        return tuple(r[RELV].tolist())

    @_stored
    def V(self, r):
        return tuple(r[_VELO].tolist())

    @_stored
    def base(self, r):
        """Column-major 9-tuple (t1, t2, n)."""
        return tuple(r[BASE].tolist())

    @_stored
    def point(self, r):
        p = r[POINT].tolist()
        return tuple(p + r[_POINT2].tolist() if _kind(r) == "RIGLNK" else p)

    @_stored
    def area(self, r):
        return float(r[CCOL["AREA"]])

    @_stored
    def gap(self, r):
        """Contact gap, spring stroke; 0 for the other kinds."""
        return float(r[CCOL["GAP"]]) if _kind(r) in ("CONTACT", "SPRING") else 0.0

    @_stored
    def merit(self, r):
        return float(r[CCOL["MERIT"]])

    @_stored
    def adjbod(self, r):
        by_id = self._solfec.domain.by_id
        b1, b2 = int(r[CCOL["BID1"]]), int(r[CCOL["BID2"]])
        return by_id.get(b1) if b2 == 0 else (by_id.get(b1), by_id.get(b2))

    @_stored
    def spair(self, r):
        return (int(r[CCOL["SURF1"]]), int(r[CCOL["SURF2"]])) if _kind(r) == "CONTACT" else None

    @_stored
    def matlab(self, r):
        """The label of the SURFACE_MATERIAL of the surface pair in the rebuilt model."""
        table = getattr(self._solfec.domain, "surface_materials", None)
        if _kind(r) != "CONTACT" or table is None:
            return None
        return getattr(table.lookup(int(r[CCOL["SURF1"]]), int(r[CCOL["SURF2"]])), "label", None)

    def delete(self) -> None:
        """Stored results are not changed: nothing happens."""

    def __repr__(self) -> str:
        r = self._stored_row()
        if r is None:
            return f"<CONSTRAINT {self._key[0]} (not in the frame shown)>"
        return f"<CONSTRAINT {self._key[0]} {_kind(r)} (stored)>"


def frame_constraints(solfec) -> list:
    """READ mode, a frame shown: the constraints of that frame, newest first (Solfec-1.0 user manual, CONSTRAINT,
    READ and WRITE modes) — the deck's CONSTRAINT object where the model holds the same constraint (same
    id, kind and bodies; replay shows the stored values through it), else a
    STORED_CONSTRAINT (one object per constraint and SOLFEC object, reused across frames)."""
    store = solfec.store
    i = store.current
    rows = store.frame_constraints(i)
    cset = solfec.domain.constraints
    src, dst = replay.match_constraints(cset, rows)
    live = dict(zip(src.tolist(), dst.tolist()))
    cache = solfec._stored_constraints
    keys = store.constraint_keys(i)
    out = []
    for k in range(rows.shape[0] - 1, -1, -1):
        if k in live:
            out.append(cset.handle(int(cset.id[live[k]])))
            continue
        key = keys[k]
        ck = (0, i, k) if key[0] == 0 else key          # no id: bound to this frame and row
        obj = cache.get(ck)
        if obj is None:
            obj = cache[ck] = STORED_CONSTRAINT._of(solfec, key, i, k)
        out.append(obj)
    return out
