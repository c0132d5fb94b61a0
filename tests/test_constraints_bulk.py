"""ConstraintSet.add_many against the reference it must equal: the same sequence of
single add() calls (ids with recycling of the smallest spare ids, serials, handles, body
lists, family codes), and the bookkeeping of remove_rows after a bulk insertion."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py import constraints as C
from solfec_py.bodies import BODY_KINDS


def _bodies(api, n=4):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/bulk')
    mat = api.BULK_MATERIAL(sol, density=1.0)
    obstacle = api.BODY(sol, 'OBSTACLE', api.SPHERE((0, 0, -5), 1.0, 1, 1), mat)
    balls = [api.BODY(sol, 'RIGID', api.SPHERE((float(i), 0, 0), 0.1, 1, 1), mat) for i in range(n)]
    return [obstacle] + balls


def _family(body):
    return BODY_KINDS[body.kind].family           # 'rigid' for RIGID and OBSTACLE bodies


def _state(cset):
    n = cset.count
    return (cset.id[:n].tolist(), cset.serial[:n].tolist(), cset.kind[:n].tolist(), cset.bid[:n].tolist(),
            [cset.families[c] if c >= 0 else None for c in cset.family[:n, 0].tolist()],
            [cset.families[c] if c >= 0 else None for c in cset.family[:n, 1].tolist()],
            cset.elem[:n].tolist(), cset.strength[:n].tolist(), cset.base[:n].tolist(),
            sorted(cset._spare), [(h.cid, h.serial, h.row) for h in cset])


def _lists(bodies):
    return [[(h.cid, h.serial) for h in C.body_list(b)] for b in bodies]


def _pairs(bodies):
    return [(bodies[1], bodies[0]), (bodies[2], bodies[1]), (bodies[3], None), (bodies[4], bodies[2]),
            (bodies[1], bodies[3])]


def _prime(cset, bodies):
    """Four single constraints, two of them removed: ids 1 and 3 become spare."""
    for m, s in _pairs(bodies)[:4]:
        cset.add(C.FIXPNT, m, s, _family)
    cset.remove_rows([0, 2])


def test_add_many_equals_repeated_add(api):
    ref_bodies, bulk_bodies = _bodies(api), _bodies(api)
    ref, bulk = C.ConstraintSet(), C.ConstraintSet()
    _prime(ref, ref_bodies)
    _prime(bulk, bulk_bodies)
    pairs_ref, pairs_bulk = _pairs(ref_bodies), _pairs(bulk_bodies)
    for m, s in pairs_ref:
        ref.add(C.CONTACT, m, s, _family)
    bid = np.array([[m.id, 0 if s is None else s.id] for m, s in pairs_bulk])
    fam = np.array([[0, -1 if s is None else 0] for m, s in pairs_bulk])
    rows = bulk.add_many(C.CONTACT, [m for m, _ in pairs_bulk], [s for _, s in pairs_bulk], bid, fam, ['rigid'])
    assert rows.tolist() == list(range(2, 7))
    assert _state(bulk) == _state(ref)
    assert _lists(bulk_bodies) == _lists(ref_bodies)
    # ids 1 and 3 were reused first (smallest spare first), then fresh ids 5, 6, 7
    assert bulk.id[2:7].tolist() == [1, 3, 5, 6, 7]


def test_remove_after_bulk_insert_keeps_rows_handles_and_body_lists(api):
    bodies = _bodies(api)
    cset = C.ConstraintSet(capacity=2)                  # forces growth inside add_many
    pairs = _pairs(bodies) * 3
    bid = np.array([[m.id, 0 if s is None else s.id] for m, s in pairs])
    fam = np.array([[0, -1 if s is None else 0] for m, s in pairs])
    cset.add_many(C.CONTACT, [m for m, _ in pairs], [s for _, s in pairs], bid, fam, ['rigid'])
    handles = list(cset)
    gone = [1, 4, 5, 11]
    cset.remove_rows(gone)
    kept = [h for k, h in enumerate(handles) if k not in gone]
    assert [h.row for h in kept] == list(range(len(kept)))
    assert all(handles[k].row is None for k in gone)
    assert [h.cid for h in cset] == [h.cid for h in kept]
    for body in bodies:                             # every body lists exactly its live constraints
        want = [h.cid for h in kept if body in cset.bodies[h.row]]
        assert sorted(h.cid for h in C.body_list(body)) == sorted(want)
    assert sorted(cset._spare) == sorted(handles[k].cid for k in gone)


def _history(cset, bodies):
    """A run's history: deck constraints 1-3, contacts 4-7, constraint 2 and contacts 4, 6
    removed, a contact reusing id 2, one more (id 4), two more (6, 8) removed: live ids
    1, 3, 5, 7, 2, 4 in rows, spare 6 and 8."""
    pairs = _pairs(bodies)
    for m, s in pairs[:3]:
        cset.add(C.FIXPNT, m, s, _family)
    for m, s in pairs[:4]:
        cset.add(C.CONTACT, m, s, _family)
    cset.remove(2)
    cset.remove(4)
    cset.remove(6)
    cset.add(C.CONTACT, *pairs[4], _family)
    cset.add(C.CONTACT, *pairs[0], _family)
    cset.add(C.CONTACT, *pairs[1], _family)            # ids 6 and 8, both gone again
    cset.add(C.CONTACT, *pairs[2], _family)
    cset.remove(6)
    cset.remove(8)


def test_restore_rebuilds_the_rows_ids_and_allocator_of_a_history(api):
    """Rebuilding a set as -c does — the deck's constraints, the stored contacts added with
    their ids, the absent deck constraint removed, rows put in the stored order — gives
    the rows, ids, handles, body lists of the set that lived through the history, and the
    next constraints get the same ids (smallest spare id first) in both."""
    ref_bodies, new_bodies = _bodies(api), _bodies(api)
    ref = C.ConstraintSet()
    _history(ref, ref_bodies)
    assert ref.id[:ref.count].tolist() == [1, 3, 5, 7, 2, 4] and sorted(ref._spare) == [6, 8]
    new = C.ConstraintSet()
    pairs = _pairs(new_bodies)
    for m, s in pairs[:3]:                              # the deck again: ids 1, 2, 3
        new.add(C.FIXPNT, m, s, _family)
    new.remove(2)                                       # absent from the stored rows
    stored = [(5, pairs[1]), (7, pairs[3]), (2, pairs[4]), (4, pairs[0])][::-1]  # stored contacts,
    # added in another order than their rows: reorder() puts rows and body lists right
    bid = np.array([[m.id, 0 if s is None else s.id] for _, (m, s) in stored])
    fam = np.array([[0, -1 if s is None else 0] for _, (m, s) in stored])
    rows = new.add_with_ids(C.CONTACT, [m for _, (m, _) in stored], [s for _, (_, s) in stored], bid, fam,
                            ['rigid'], [cid for cid, _ in stored])
    assert rows.tolist() == [2, 3, 4, 5]
    row_of = {int(cid): k for k, cid in enumerate(new.id[:new.count].tolist())}
    new.reorder([row_of[cid] for cid in (1, 3, 5, 7, 2, 4)])

    def state(cset):           # serials differ (a new run's handles), the spare-id lists may
        s = _state(cset)       # (equivalent: the future ids below); everything else equal
        return s[:1] + s[2:9] + ([(h.cid, h.row) for h in cset],)

    def lists(bodies):
        return [[h.cid for h in C.body_list(b)] for b in bodies]

    assert state(new) == state(ref)
    assert lists(new_bodies) == lists(ref_bodies)
    assert all(h.cset.handle(h.cid) is h for h in new)
    for cset, bodies in ((ref, ref_bodies), (new, new_bodies)):   # the same future in both
        pairs = _pairs(bodies)
        cset.add(C.CONTACT, *pairs[1], _family)
        cset.remove(3)
        bid = np.array([[m.id, 0 if s is None else s.id] for m, s in pairs[:3]])
        fam = np.array([[0, -1 if s is None else 0] for m, s in pairs[:3]])
        cset.add_many(C.CONTACT, [m for m, _ in pairs[:3]], [s for _, s in pairs[:3]], bid, fam, ['rigid'])
    assert new.id[:new.count].tolist() == ref.id[:ref.count].tolist() == [1, 5, 7, 2, 4, 6, 3, 8, 9]
    assert state(new) == state(ref)
    assert lists(new_bodies) == lists(ref_bodies)


def test_add_with_ids_and_reorder_refuse_bad_input(api):
    bodies = _bodies(api)
    cset = C.ConstraintSet()
    cset.add(C.FIXPNT, bodies[1], None, _family)
    bid, fam = np.array([[bodies[2].id, 0]]), np.array([[0, -1]])
    for ids in ([1], [0], [2, 3]):                      # in use, not positive, too many
        with pytest.raises(ValueError):
            cset.add_with_ids(C.CONTACT, [bodies[2]], [None], bid, fam, ['rigid'], ids)
    assert cset.count == 1
    with pytest.raises(ValueError):
        cset.reorder([1])
    rows = cset.add_with_ids(C.CONTACT, [bodies[2]], [None], bid, fam, ['rigid'], [5])
    assert cset.id[rows].tolist() == [5] and cset._next_id == 6 and cset._spare == [2, 3, 4]
    cset.reorder([1, 0])
    assert [h.cid for h in cset] == [5, 1] and [h.row for h in cset] == [0, 1]
