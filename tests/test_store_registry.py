"""The body registry of the results store (output/store.py register_bodies, registry_dict):
rows written only for bodies new since the last registration or whose kind or reference
mass centre changed, in creation order, with their labels; the registry read back (also after
the store was reopened for a later RUN) holds the latest row of every body. Reference: the
bodies the test made, their ids, kinds, labels and centres (independent of the store)."""
from __future__ import annotations

import numpy as np

from solfec_py import session
from solfec_py.api import NAMES as A
from solfec_py.bodies import BODY_KINDS
from solfec_py.output.store_reader import StoreReader


def _bodies(sol, mat, specs):
    out = []
    for kind, x, label in specs:
        shape = A["SPHERE"]((x, 0.0, 0.0), 0.1, 1, 1)
        out.append(A["BODY"](sol, kind, shape, mat, label) if label is not None else A["BODY"](sol, kind, shape, mat))
    return out


def _rows(path):
    f = StoreReader.open_existing(path)
    return f.read_all("bodies"), f.read_all("labels").tobytes()


def _expected(bodies):
    return [(b.id, BODY_KINDS[b.kind].code, float(b.block.center[b.row][0]), b.label or "") for b in bodies]


def _stored(rows, text, start=0):
    return [(int(r[0]), int(r[1]), float(r[2]), text[int(r[5]):int(r[5] + r[6])].decode())
            for r in rows[start:]]


def test_registry_rows_for_new_and_changed_bodies_only(tmp_path):
    session.start(progress=False)
    sol = A["SOLFEC"]("DYNAMIC", 1e-3, str(tmp_path / "out"))
    sol.verbose = "OFF"
    mat = A["BULK_MATERIAL"](sol, density=1000.0)
    first = _bodies(sol, mat, [("RIGID", 0.0, "a"), ("OBSTACLE", 2.0, None), ("RIGID", 4.0, "ü"),
                               ("RIGID", 6.0, "")])
    solver = A["GAUSS_SEIDEL_SOLVER"](1e-6, 10)
    A["RUN"](sol, solver, 2e-3)                       # frame 0 (OUTPUT: every step)
    path = sol.store.path
    rows, text = _rows(path)
    assert _stored(rows, text) == _expected(first)   # creation order, every body once
    # later bodies: rows for them only, after the store was closed and reopened by RUN
    later = _bodies(sol, mat, [("OBSTACLE", 8.0, "w"), ("RIGID", 10.0, "b")])
    A["RUN"](sol, solver, 2e-3)
    rows, text = _rows(path)
    assert rows.shape[0] == 6 and _stored(rows, text, 4) == _expected(later)
    # a changed reference mass centre (as BODY_CHARS sets it): one more row, that body's
    blk = first[2].block
    blk.center[first[2].row, 0] += 0.5
    sol.store._registry_next_id = None                # (registration runs when bodies change)
    A["RUN"](sol, solver, 2e-3)
    rows, text = _rows(path)
    assert rows.shape[0] == 7 and _stored(rows, text, 6) == _expected([first[2]])
    # read back: the latest row of every body, ids ascending
    reg = StoreReader.open_existing(path).registry
    everyone = first + later
    np.testing.assert_array_equal(reg["id"], [b.id for b in everyone])
    assert reg["kind"] == [b.kind for b in everyone]
    assert reg["label"] == [b.label or "" for b in everyone]
    np.testing.assert_array_equal(reg["X0"], [b.block.center[b.row] for b in everyone])


def test_lazy_registry_lists_answer_get_and_in():
    """registry_dict makes the kind names and labels on first use; `get` and `in` must see
    them as ordinary keys (dict.get alone would skip __missing__ and answer None)."""
    import numpy as np
    from solfec_py.output.store_reader import KINDS, registry_dict

    rows = np.array([[3, 2, 0, 0, 0, 0, 2], [5, 1, 1, 1, 1, 2, 0], [3, 2, 0, 0, 1, 2, 0]], dtype=float)
    reg = registry_dict(rows, b"ab")
    assert "label" in reg and "kind" in reg and "nothing" not in reg
    assert reg.get("label") == ["", ""]                 # body 3's last row has no label
    assert reg.get("kind") == [KINDS[1], KINDS[0]]
    assert reg.get("nothing", 7) == 7
    assert reg["id"].tolist() == [3, 5]
