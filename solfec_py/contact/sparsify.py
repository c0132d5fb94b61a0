"""Sparsification of the contacts new in a step (layer 5): drop those smaller than
`minarea`, those much smaller than a topologically adjacent contact between the same two
bodies, and duplicates closer than 2 `mindist` to another contact of one of their bodies.
Reference: docs/contact.md, Solfec-1.0 user manual, utilities CONTACT_SPARSIFY (Solfec dom.c sparsify_contacts).

Solfec loops over the new contacts one at a time; here candidate pairs come from one sweep
over boxes of half-width `mindist` around all contact points, and the rules are applied to
all pairs at once. The outcome is the loop's whenever no new contact both loses to a
neighbour and is itself the reason another one goes (chains of three or more new contacts
within 2 `mindist` with mixed areas), where the loop's order would decide.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solfec_py import constraints as C
from solfec_py.contact import broad, objects as O
from solfec_py.solvers.local_dynamics import unordered_pairs


@dataclass
class Settings:
    """CONTACT_SPARSIFY parameters of a domain (Solfec's defaults: 0.01, 0, epsilon)."""

    threshold: float = 0.01
    minarea: float = 0.0
    mindist: float = 1e-6


def adjacency_keys(table: O.ObjectTable) -> np.ndarray:
    """Sorted keys lo * N + hi of the pairs of convex objects of one body that share a
    vertex (mesh elements with a common node have identical reference coordinates); spheres
    are never adjacent. Referential, so computed once per object table."""
    keys = table.adjacency
    if keys is None:
        obj = table.v_obj
        rows = np.column_stack((table.bid[obj].astype(float), table.v_ref))
        _, vertex = np.unique(rows, axis=0, return_inverse=True)
        e, f = unordered_pairs(vertex.reshape(-1), np.arange(obj.size))
        oa, ob = obj[e], obj[f]
        other = oa != ob
        lo, hi = np.minimum(oa, ob)[other], np.maximum(oa, ob)[other]
        keys = np.unique(lo * table.count + hi)
        table.adjacency = keys
    return keys


def _on_adjacent_objects(table, cset, objects, c: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Mask over contact-row pairs (c, a) joining the same two bodies: do they touch
    adjacent objects on one of the bodies?"""
    keys = adjacency_keys(table)
    oc, oa = objects(c), objects(a)
    out = np.zeros(c.size, dtype=bool)
    for sc in (0, 1):
        for sa in (0, 1):
            x, y = oc[:, sc], oa[:, sa]
            lo, hi = np.minimum(x, y), np.maximum(x, y)
            out |= ((cset.bid[c, sc] == cset.bid[a, sa]) & (lo >= 0) & (lo != hi)
                    & np.isin(lo * table.count + hi, keys))
    return out


def sparsify(cset, new_rows: np.ndarray, settings: Settings, table: O.ObjectTable, objects) -> np.ndarray:
    """Constraint-set rows among `new_rows` to delete; `objects(rows)` gives the (k, 2)
    global object indices of contact rows (-1 where unknown)."""
    new_rows = np.asarray(new_rows, dtype=np.int64)
    if new_rows.size == 0:
        return new_rows
    kill = np.zeros(cset.count, dtype=bool)
    kill[new_rows[cset.area[new_rows] < settings.minarea]] = True
    con = np.flatnonzero((cset.kind[: cset.count] == C.CONTACT) & ~kill[: cset.count])
    is_new = np.zeros(cset.count, dtype=bool)
    is_new[new_rows] = True
    if con.size < 2 or not is_new[con].any():
        return np.flatnonzero(kill)
    bid, area = cset.bid, cset.area
    # the area rule: a new contact much smaller than another between the same two bodies,
    # on adjacent objects (wherever the two points are)
    # (a pair needs area[c] < threshold * area[a]: none when the smallest new area is not
    # below the largest threshold * area, as with equal areas; then no pairing is needed;
    # a NaN makes the test fail and the pairs are formed)
    if not area[con[is_new[con]]].min() >= (settings.threshold * area[con]).max():
        c, a = _same_pair(con, bid)
        keep = is_new[c] & (area[c] < settings.threshold * area[a])
        c, a = c[keep], a[keep]
        if c.size:
            kill[c[_on_adjacent_objects(table, cset, objects, c, a)]] = True
    # the duplicate rule: max-norm distance below 2 mindist to a contact of one of c's bodies
    if settings.mindist > 0.0:
        half = settings.mindist * (1.0 - 1e-12)           # closed boxes; the rule is strict
        pts = cset.point[con]
        pairs = broad.overlapping_pairs(pts - half, pts + half)
        if pairs.size:
            pairs = con[pairs]
            both = np.vstack((pairs, pairs[:, ::-1]))     # (c, a) in both orders
            c, a = both[:, 0], both[:, 1]
            share = is_new[c] & ((bid[c, 0] == bid[a, 0]) | (bid[c, 0] == bid[a, 1])
                                 | ((bid[c, 1] != 0) & ((bid[c, 1] == bid[a, 0]) | (bid[c, 1] == bid[a, 1]))))
            c, a = c[share], a[share]
            small = area[c] < settings.threshold * area[a]        # those went to the area rule
            dup = ~small & ((cset.id[c] < cset.id[a]) | ~is_new[a])
            kill[c[dup]] = True
    return np.flatnonzero(kill)


def _same_pair(rows: np.ndarray, bid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs (c, a), c != a, of the constraint rows joining the same two bodies."""
    lo, hi = np.minimum(bid[rows, 0], bid[rows, 1]), np.maximum(bid[rows, 0], bid[rows, 1])
    # groups numbered in the lexicographic order of (lo, hi), by one int64 key (ids >= 0)
    _, group = np.unique(lo * (int(hi.max()) + 1) + hi, return_inverse=True)
    e, f = unordered_pairs(group.reshape(-1), np.arange(rows.size))
    return np.concatenate((rows[e], rows[f])), np.concatenate((rows[f], rows[e]))
