"""Sparsification of the contacts new in a step (layer 5): drop those smaller than
`minarea`, those much smaller than a topologically adjacent contact between the same two
bodies, and duplicates closer than 2 `mindist` to another contact of one of their bodies.
Reference: NUMERICS §5.4, LANGUAGE §14 CONTACT_SPARSIFY (Solfec dom.c sparsify_contacts).

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


def _adjacent(table: O.ObjectTable, obj_a: int, obj_b: int) -> bool:
    """Two convex objects of one body sharing a vertex (mesh elements with a common node
    give identical coordinates); spheres are never adjacent."""
    if obj_a == obj_b or table.kind[obj_a] != O.CONVEX or table.kind[obj_b] != O.CONVEX:
        return False
    ia, ib = table.part[obj_a], table.part[obj_b]
    va = table.v_ref[table.c_vstart[ia]: table.c_vstart[ia + 1]]
    vb = table.v_ref[table.c_vstart[ib]: table.c_vstart[ib + 1]]
    return bool((np.abs(va[:, None, :] - vb[None, :, :]).max(axis=2) == 0.0).any())


def _same_side_objects(table, cset, objects, c: int, a: int) -> bool:
    """Do contacts c and a (constraint rows joining the same two bodies) touch adjacent
    objects on one of the bodies?"""
    for side_c in (0, 1):
        for side_a in (0, 1):
            if cset.bid[c, side_c] == cset.bid[a, side_a]:
                oc, oa = objects[c][side_c], objects[a][side_a]
                if oc >= 0 and oa >= 0 and _adjacent(table, oc, oa):
                    return True
    return False


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
    c, a = _same_pair(con, bid)
    keep = is_new[c] & (area[c] < settings.threshold * area[a])
    c, a = c[keep], a[keep]
    if c.size:
        rows = np.unique(np.concatenate((c, a)))
        obj = dict(zip(rows.tolist(), objects(rows).tolist()))
        for ci, ai in zip(c.tolist(), a.tolist()):
            if _same_side_objects(table, cset, obj, ci, ai):
                kill[ci] = True
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
    _, group = np.unique(np.column_stack((lo, hi)), axis=0, return_inverse=True)
    e, f = unordered_pairs(group.reshape(-1), np.arange(rows.size))
    return np.concatenate((rows[e], rows[f])), np.concatenate((rows[f], rows[e]))
