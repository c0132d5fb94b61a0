"""Constraint rows between ranks (layer 5): every numeric field of a row of a ConstraintSet
as one float row, and back as a row of another rank's set: inserted for good (a constraint
whose owner changed), or written past the set's last row for one solve (an external row:
a constraint of another rank that acts on a body here). Reference: Solfec-1.0 dom.c
(pack_constraint / unpack_constraint, external constraints), constraints.py (the fields).

Family codes are per set, so rows travel with the family's index in `FAMILIES` instead.
The numeric fields are copied by bodies/row_tables.py (one compiled call per dtype).
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C
from solfec_py.bodies import families, row_tables

FAMILIES = tuple(families())            # the order of body families in every message

NUMERIC = tuple(name for name in C._FIELDS if name not in ("serial", "family"))
_SHAPES = {name: C._FIELDS[name][0] for name in NUMERIC}
_WIDTHS = {name: int(np.prod(shape, dtype=np.int64)) for name, shape in _SHAPES.items()}
WIDTH = sum(_WIDTHS.values()) + 2          # + the two sides' family indices
COLUMN = {}
_at = 0
for _name in NUMERIC:
    COLUMN[_name] = _at
    _at += _WIDTHS[_name]
FAMILY_COLUMN = _at
del _at, _name
_LAYOUT = tuple((name, _SHAPES[name], C._FIELDS[name][1], _WIDTHS[name]) for name in NUMERIC)


def pack(cset, rows) -> np.ndarray:
    """(k, WIDTH) float rows of the constraint-set rows `rows`."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    k = rows.size
    table = row_tables.pack(cset, _LAYOUT, rows, WIDTH)
    codes = np.array([FAMILIES.index(name) for name in cset.families] + [-1], dtype=float)
    fam = cset.family[rows]
    table[:, FAMILY_COLUMN:] = codes[np.where(fam >= 0, fam, len(cset.families))].reshape(k, 2)
    return table


def unpack(cset, rows, table: np.ndarray) -> None:
    """Write packed rows into the set's rows `rows` (which may lie past `count`)."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    table = np.asarray(table, dtype=float).reshape(rows.size, WIDTH)
    row_tables.unpack(cset, _LAYOUT, rows, table)
    local = np.array([cset.family_code(name) for name in FAMILIES] + [-1], dtype=np.int8)
    fam = table[:, FAMILY_COLUMN:FAMILY_COLUMN + 2].astype(np.int64)
    cset.family[rows] = local[np.where(fam >= 0, fam, len(FAMILIES))]


def scratch(cset, table: np.ndarray) -> np.ndarray:
    """Write packed rows past the set's last row (for one solve): their rows."""
    k = table.shape[0]
    if cset.count + k > cset.capacity:
        cset._grow(max(16, 2 * cset.capacity, cset.count + k))
    rows = np.arange(cset.count, cset.count + k)
    unpack(cset, rows, table)
    return rows


def insert(domain, cset, table: np.ndarray, definitions: dict) -> np.ndarray:
    """Insert packed rows for good, keeping their ids; a row whose bodies are not all rows
    here is left out. `definitions`: constraint id -> (series, function, material) of user
    constraints parked on this rank (contacts take their material from their surface pair).
    Returns the rows inserted."""
    from solfec_py.contact.detect import assign_material

    by_id = domain.by_id
    bid = table[:, COLUMN["bid"]:COLUMN["bid"] + 2].astype(np.int64)
    kinds = table[:, COLUMN["kind"]].astype(np.int64)
    keep = []
    for j in range(table.shape[0]):
        ok = True
        for s in range(2):
            b = int(bid[j, s])
            body = by_id.get(b) if b else None
            if b and (body is None or body.row < 0 or body.deleted):
                ok = False
        keep.append(ok)
    out = []
    for kind in np.unique(kinds[keep]).tolist() if any(keep) else []:
        sel = np.flatnonzero(np.array(keep) & (kinds == kind))
        masters = [by_id[int(b)] for b in bid[sel, 0].tolist()]
        slaves = [by_id[int(b)] if b else None for b in bid[sel, 1].tolist()]
        ids = table[sel, COLUMN["id"]].astype(np.int64).tolist()
        fam = table[sel, FAMILY_COLUMN:FAMILY_COLUMN + 2].astype(np.int64)
        rows = cset.add_many(int(kind), masters, slaves, bid[sel], fam, list(FAMILIES), ids=ids)
        if kind == C.CONTACT:
            cset.spair[rows] = table[sel, COLUMN["spair"]:COLUMN["spair"] + 2].astype(np.int64)
            assign_material(domain.surface_materials, cset, rows)
        for r, cid in zip(rows.tolist(), ids):
            if cid in definitions:
                cset.series[r], cset.function[r], cset.material[r] = definitions.pop(cid)
        unpack(cset, rows, table[sel])
        out.append(rows)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
