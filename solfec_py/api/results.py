"""Deck commands over stored results (layer 7): HISTORY item checking, XDMF_EXPORT,
INITIALIZE_STATE and the READ-mode constraint list. Reference: LANGUAGE §13.9, §14.2, §15.6,
§10.1, §1.3 (Solfec lng.c HISTORY, XDMF_EXPORT, INITIALIZE_STATE, CONSTRAINT).
"""
from __future__ import annotations

import os
import re

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.common import readonly, require_body, require_solfec
from solfec_py.api.constraints import CONSTRAINT
from solfec_py.errors import InputError, InputTypeError, ResultsError
from solfec_py.output import history as H
from solfec_py.output import replay
from solfec_py.output.frames import BASE, CCOL, CON_KINDS, POINT, REAC, RELV
from solfec_py.output.xdmf import ATTRIBUTES, DEFAULT_ATTRIBUTES, XdmfSeries


# ---------------------------------------------------------------------- HISTORY items
def _body_set(solfec, obj, where: str):
    """None for the SOLFEC object (all bodies), else a tuple of body ids."""
    from solfec_py.api.body import BODY
    from solfec_py.api.solfec import SOLFEC

    if isinstance(obj, SOLFEC):
        return None
    if isinstance(obj, BODY):
        return (require_body(where, obj).id,)
    if isinstance(obj, list) and all(isinstance(b, BODY) for b in obj):
        return tuple(require_body(f"{where}[{i}]", b).id for i, b in enumerate(obj))
    raise InputTypeError(f"{where}: 'object' must be a SOLFEC a BODY object or a list of BODY objects,"
                         f" got {V.describe(obj)}")


def _entity(where: str, value, options) -> str:
    if not isinstance(value, str):
        raise InputTypeError(f"{where}: the entity must be a string, got {V.describe(value)}")
    if value not in options:
        raise InputError(f"{where}: Invalid entity kind: {value}; expected one of {list(options)}")
    return value


def history_item(solfec, item, where: str):
    """One HISTORY item (LANGUAGE §15.6) as an output.history item."""
    from solfec_py.api.body import BODY

    if isinstance(item, str):
        if item not in H.STRINGS:
            raise InputError(f"{where}: Invalid string value {item!r}; expected an energy/point/constraint"
                             f" tuple or one of {list(H.STRINGS)}")
        return H.StringItem(item)
    if not isinstance(item, tuple):
        raise InputError(f"{where}: Invalid history item {V.describe(item)}; expected a tuple or a string")
    if len(item) == 2:
        bodies = _body_set(solfec, item[0], where)
        kind = _entity(where, item[1], tuple(H.ENERGY_KINDS) + H.CONSTRAINT_ENTITIES)
        return H.TotalItem(bodies, kind)
    if len(item) == 3:
        body, point, entity = item
        if isinstance(body, BODY):
            ref = require_body(f"{where} body", body).id
        elif isinstance(body, str):
            ref = body
        else:
            raise InputTypeError(f"{where}: the body must be a BODY object or a label string, got {V.describe(body)}")
        X = V.point(f"{where} point", point)
        return H.PointItem(ref, tuple(X.tolist()), _entity(where, entity, H.POINT_ENTITIES))
    if len(item) == 4:
        obj, direction, pair, entity = item
        bodies = _body_set(solfec, obj, where)
        d = None if direction is None else tuple(V.point(f"{where} direction", direction).tolist())
        if pair is not None:
            pair = tuple(V.tuple_of_numbers(f"{where} surface pair", pair, 2).tolist())
        return H.ConstraintItem(bodies, d, pair, _entity(where, entity, H.CONSTRAINT_ENTITIES))
    raise InputError(f"{where}: Invalid tuple size {len(item)}; a history tuple has 2, 3 or 4 items")


def history_items(solfec, domain, items) -> list:
    if not isinstance(items, list):
        return [history_item(solfec, items, "HISTORY item")]
    return [history_item(solfec, it, f"HISTORY item {k}") for k, it in enumerate(items)]


# ---------------------------------------------------------------------- subsets
def _bbox_overlaps(body, box) -> bool:
    lo, hi = body.block.bounding_boxes()
    lo, hi = lo[body.row], hi[body.row]
    return bool(np.all(lo <= box[3:]) and np.all(hi >= box[:3]))


def subset_bodies(domain, subset) -> list:
    """Bodies selected by a subset specification (LANGUAGE §14.2)."""
    from solfec_py.api.body import BODY

    items = subset if isinstance(subset, list) else [subset]
    chosen: dict = {}
    for item in items:
        if isinstance(item, str):
            try:
                pattern = replay.compile_patterns([item])[0]
            except re.error as exc:
                raise InputError(f"Invalid subset definition: bad regular expression {item!r} ({exc})") from None
            found = [b for b in domain.bodies if b.label and pattern.search(b.label)]
        elif isinstance(item, BODY):
            found = [require_body("subset", item)]
        elif isinstance(item, int) and not isinstance(item, bool):
            found = [domain.by_id[item]] if item in domain.by_id else []
        elif isinstance(item, tuple) and len(item) == 6:
            box = V.tuple_of_numbers("subset", item, 6)
            found = [b for b in domain.bodies if _bbox_overlaps(b, box)]
        else:
            raise InputError(f"Invalid subset definition: {V.describe(item)}; expected a label regular"
                             " expression, a BODY, a body id or a 6-tuple box")
        for b in found:
            chosen[b.id] = b
    if not chosen:
        raise InputError(f"Invalid subset definition (matching bodies not found): {subset!r}")
    return [chosen[i] for i in sorted(chosen)]


# ---------------------------------------------------------------------- XDMF_EXPORT
def _export_times(time):
    """('list', [t...]) or ('range', (t0, t1))."""
    if isinstance(time, tuple):
        if len(time) != 2:
            raise InputError(f"The 'time' tuple size should be two: (t0, t1), got {len(time)} items")
        return "range", tuple(V.number(f"time[{i}]", t) for i, t in enumerate(time))
    if isinstance(time, list):
        return "list", [V.number(f"time[{i}]", t) for i, t in enumerate(time)]
    return "list", [V.number("time", time)]


def _attributes(attributes):
    if not V.given(attributes):
        return DEFAULT_ATTRIBUTES
    if not isinstance(attributes, list):
        raise InputError("'attributes' should be a list of attributes, e.g. ['DISP', 'VELO', 'REAC', 'GAP'],"
                         f" got {V.describe(attributes)}")
    for a in attributes:
        if not isinstance(a, str):
            raise InputError(f"An attribute must be a string, got {V.describe(a)}")
        if a not in ATTRIBUTES:
            raise InputError(f"Invalid attribute name: {a}; expected one of {list(ATTRIBUTES)}")
    return tuple(attributes)


@V.command
def XDMF_EXPORT(solfec, time, path, subset=V.MISSING, attributes=V.MISSING):
    """Write `path/<name>_grids.xmf`, `path/<name>_constraints.xmf` (when there are
    constraints) and `path/<name>.h5`, name = last component of `path`, for the stored
    frames at `time` (a number, a list, or all frames in a (t0, t1) range); WRITE mode:
    the current state only."""
    domain = require_solfec("solfec", solfec)
    how, times = _export_times(time)
    path = V.string("path", path)
    attrs = _attributes(attributes)
    name = os.path.basename(os.path.normpath(path))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create 'path' directory {path!r}: {exc.strerror}") from None
    series = XdmfSeries(path, name, name + ".h5", attrs)
    series.start()
    try:
        _export(solfec, domain, series, how, times, subset)
    finally:
        series.close()
    return None


def _export(solfec, domain, series, how, times, subset) -> None:
    if solfec.mode != "READ":
        bodies = subset_bodies(domain, subset) if V.given(subset) else list(domain.bodies)
        from solfec_py.output.frames import constraint_rows

        series.write_frame(0, domain.time, bodies, constraint_rows(domain))
        return
    replay.ensure_loaded(solfec)
    store = solfec.store
    if how == "range":
        frames = H.all_frames(store, *times)
    else:
        frames = sorted({store.frame_index(t) for t in times})
    before = store.current
    try:
        bodies = None
        for k, i in enumerate(frames):
            replay.load(solfec, int(i))
            if bodies is None:
                bodies = subset_bodies(domain, subset) if V.given(subset) else list(domain.bodies)
            cons = store.frame_constraints(int(i))
            if bodies is not domain.bodies and V.given(subset) and cons.shape[0]:
                from solfec_py.output.frames import CCOL

                ids = [b.id for b in bodies]
                cons = cons[np.isin(cons[:, CCOL["BID1"]], ids) | np.isin(cons[:, CCOL["BID2"]], ids)]
            series.write_frame(k, domain.time, bodies, cons)
    finally:
        replay.load(solfec, before)


# ---------------------------------------------------------------------- INITIALIZE_STATE
@V.command
def INITIALIZE_STATE(solfec, path, time, subset=V.MISSING):
    """Overwrite the bodies' conf and velo with the frame at `time` of the results in the
    output directory `path` (another analysis): by id, or with `subset` (label regular
    expressions) by label. WRITE mode only (LANGUAGE §13.9)."""
    domain = require_solfec("solfec", solfec)
    path = V.string("path", path)
    t = V.number("time", time)
    if t < 0:
        raise InputError(f"'time' must be >= 0, got {t!r}")
    patterns = None
    if V.given(subset):
        if isinstance(subset, str):
            subset = [subset]
        elif isinstance(subset, list):
            if not subset:
                raise InputError("'subset' must be a string or a non-empty list of strings, got []")
            if not all(isinstance(s, str) for s in subset):
                raise InputTypeError("All elements of the 'subset' list must be strings")
        else:
            raise InputTypeError(f"'subset' must be a string or a list of strings, got {V.describe(subset)}")
        try:
            patterns = replay.compile_patterns(subset)
        except re.error as exc:
            raise ResultsError(f"State initialization has failed: bad regular expression in 'subset' ({exc})") from None
    if solfec.mode == "READ":
        session.warn("INITIALIZE_STATE has been ignored in the 'READ' mode")
        return None
    replay.initialize_state(domain, path, t, patterns)
    return None


# ---------------------------------------------------------------------- stored constraints
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
    """READ mode, a frame shown: the constraints of that frame, newest first (LANGUAGE §10.1,
    §1.3) — the deck's CONSTRAINT object where the model holds the same constraint (same
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
