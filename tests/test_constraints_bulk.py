"""ConstraintSet.add_many against the reference it must equal: the same sequence of
single add() calls (ids with recycling of the smallest spare ids, serials, handles, body
lists, family codes), and the bookkeeping of remove_rows after a bulk insertion."""
from __future__ import annotations

import numpy as np

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
