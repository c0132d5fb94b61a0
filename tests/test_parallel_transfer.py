"""Moving body rows between blocks (bodies/base.py contract item 9), serially: a body taken
out of its block (`detach`) and made a row again from another model's packed row
(`attach` + `unpack_rows`) steps on bit for bit as the body it copies. The reference is the
same deck run without the move: any field the packing forgets (a scheme's carried state,
a load, a prescribed motion, FE nodal state, element materials) shows as a difference."""
from __future__ import annotations

import numpy as np
import pytest

CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def moved(api, shape, d):
    api.TRANSLATE(shape, d)
    return shape


def build(api, path='out/transfer'):
    """Free bodies of every movable kind, with loads and schemes that carry state."""
    sol = api.SOLFEC('DYNAMIC', 1e-3, path)
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    mat = api.BULK_MATERIAL(sol, young=1e6, poisson=0.25, density=1000.0)
    soft = api.BULK_MATERIAL(sol, young=5e5, poisson=0.3, density=800.0)
    bodies = []
    for i, scheme in enumerate(('RIG_NEG', 'DIRK3', 'GEN_ALPHA', 'RIG_POS')):
        b = api.BODY(sol, 'RIGID', moved(api, api.HEX(CUBE, 1, 1, 1, 0, [1] * 6), (3.0 * i, 0, 0)), mat)
        b.scheme = scheme
        api.INITIAL_VELOCITY(b, (0.1 * i, 0.2, 1.0), (1.0, 2.0 - i, 0.5))
        api.FORCE(b, 'SPATIAL', (3.0 * i + 0.5, 0.5, 0.5), (0, 1, 0), api.TIME_SERIES([0, 0, 1, 50]))
        bodies.append(b)
    pr = api.BODY(sol, 'PSEUDO_RIGID', moved(api, api.HEX(CUBE, 1, 1, 1, 0, [1] * 6), (0, 5, 0)), mat)
    pr.scheme, pr.damping = 'DEF_LIM', 1e-3
    api.INITIAL_VELOCITY(pr, (0, 0, 1), (0, 3, 0))
    fe = api.BODY(sol, 'FINITE_ELEMENT', moved(api, api.HEX(CUBE, 2, 2, 2, 0, [1] * 6), (5, 5, 0)), mat, form='BC')
    fe.scheme = 'DEF_LIM'
    api.APPLY_BULKMAT(sol, fe, 0, soft)     # element materials of a volume id (0: the HEX default)
    api.INITIAL_VELOCITY(fe, (0, 0, 1), (0, 0, 4))
    api.FORCE(fe, 'CONVECTED', (5.5, 5.5, 1.0), (1, 0, 0), 20.0)
    ob = api.BODY(sol, 'OBSTACLE', moved(api, api.HEX(CUBE, 1, 1, 1, 0, [1] * 6), (0, -5, 0)), mat)
    api.PRESCRIBED_MOTION(ob, ('TRANSLATION', (0, 0, 1), ('SINE', 0.01, 5.0)))
    return sol, bodies + [pr, fe, ob]


def states(bodies):
    return [np.array(b.conf + b.velo) for b in bodies]


def test_detached_and_reattached_bodies_step_on_bit_for_bit(api):
    from solfec_py import session

    solver = api.GAUSS_SEIDEL_SOLVER(1e-8, 100)
    sol_a, bod_a = build(api)
    api.RUN(sol_a, solver, 0.05)
    packed = {b.id: (b.block.pack_rows([b.row])) for b in bod_a}
    api.RUN(sol_a, solver, 0.05)
    reference = states(bod_a)

    session.start(progress=False)
    sol_b, bod_b = build(api, 'out/transfer2')
    api.RUN(sol_b, solver, 0.05)
    for b in bod_b:                            # every body out and back, from the other model's rows
        block = b.block
        parked = block.detach(b)
        assert b.row == -1 and b not in block.bodies
        row = block.attach(b, parked)
        block.unpack_rows([row], *packed[b.id])
    api.RUN(sol_b, solver, 0.05)
    for b, ref, got in zip(bod_b, reference, states(bod_b)):
        assert np.array_equal(ref, got), f"body {b.id} ({b.kind}) differs after the move"


def test_packed_rows_have_the_declared_width(api):
    sol, bodies = build(api)
    for b in bodies:
        table, flat, lengths = b.block.pack_rows([b.row])
        assert table.shape == (1, b.block.row_width())
        assert flat.size == int(lengths.sum())


def test_many_rows_pack_and_unpack_as_field_by_field_copies(api):
    """The compiled table copy (bodies/row_tables.py) against numpy field by field: rows
    packed in reverse order and unpacked in forward order swap every field of the block's
    rows end for end, flags and scheme codes (not float64) included; a float field that
    is not C-contiguous takes numpy's path and is copied the same."""
    from solfec_py.bodies import row_tables

    sol, bodies = build(api, 'out/transfer_tables')
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.01)
    block = bodies[0].block                    # the rigid block: 4 rigid bodies and an obstacle
    layout = block._moved_layout()
    assert {np.dtype(d) for _, _, d, _ in layout} >= {np.dtype(float), np.dtype(bool), np.dtype(np.int8)}
    rows = np.arange(block.count)
    before = {name: getattr(block, name)[: block.count].copy() for name, *_ in layout}
    table, _, _ = block.pack_rows(rows[::-1])
    col = 0
    for name, _, _, width in layout:
        want = before[name][::-1].reshape(rows.size, width).astype(float)
        assert np.array_equal(table[:, col:col + width], want), name
        col += width
    row_tables.unpack(block, layout, rows, table)
    for name, *_ in layout:
        assert np.array_equal(getattr(block, name)[: block.count], before[name][::-1]), name

    class Strided:                              # one float field as a strided view
        def __init__(self):
            self.base = np.arange(40.0).reshape(10, 4)
            self.a, self.b = self.base[:, ::2], np.arange(10.0)
    holder = Strided()
    lay = (("a", (2,), float, 2), ("b", (), float, 1))
    got = row_tables.pack(holder, lay, np.array([3, 1]), 3)
    assert np.array_equal(got, [[12.0, 14.0, 3.0], [4.0, 6.0, 1.0]])
    row_tables.unpack(holder, lay, np.array([0, 9]), got)
    assert np.array_equal(holder.base[0], [12.0, 1.0, 14.0, 3.0]) and holder.b[9] == 1.0
