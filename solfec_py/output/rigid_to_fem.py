"""A rigid run's motion mapped onto finite-element bodies (RIGID_TO_FEM). Reference:
Solfec-1.0 sol.c SOLFEC_Rigid_To_FEM, dio.c dom_rigid_to_fem, fem.c FEM_From_Rigid.

The bodies of the model are matched with the stored frame as INITIALIZE_STATE matches
them (by id, or with label patterns by label); a matched body of the same family takes the
stored state, and a FINITE_ELEMENT body matched with a stored RIGID body takes its rigid
motion: every node X gets the displacement x_c + R (X - X0) - X and the velocity
v + R (Omega x (X - X0)), X0 the FE body's centre (BODY.center), (R, x_c) the stored
rotation and centre, (Omega, v) the stored referential angular and linear velocity.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import BODY_KINDS
from solfec_py.errors import ResultsError
from solfec_py.output import replay
from solfec_py.output.store import ResultsStore, results_path

RIGID_CODE = BODY_KINDS["RIGID"].code


def _stored_rigid(store, i: int, patterns) -> dict:
    """key (body id, or label with patterns) -> stored rigid state row (conf 12 | velo 6 ...)."""
    ids, rows = store.frame_state("rigid", i)
    reg = store.registry
    kind_of = dict(zip(reg["id"].tolist(), reg["kind_code"].tolist()))
    label_of = dict(zip(reg["id"].tolist(), reg["label"]))
    out: dict = {}
    for k, bid in enumerate(ids.tolist()):
        if kind_of.get(bid) != RIGID_CODE:
            continue
        if patterns is None:
            out[bid] = rows[k]
        else:
            lab = label_of.get(bid, "")
            if lab and any(p.search(lab) for p in patterns):
                out.setdefault(lab, rows[k])
    return out


def rigid_to_fem(domain, path: str, time: float, patterns=None) -> int:
    """Initialise the model from the frame at `time` of the results in directory `path`;
    returns the number of finite-element bodies given a rigid motion."""
    replay.initialize_state(domain, path, time, patterns)     # bodies of the stored families
    block = domain.blocks.get("finite_element")
    if block is None or not block.count:
        return 0
    try:
        store = ResultsStore.open_existing(results_path(path))
        i = store.frame_index(time)
    except ResultsError as exc:
        raise ResultsError(f"Rigid to FEM state mapping has failed: {exc}") from None
    stored = _stored_rigid(store, i, patterns)
    rows, values, sizes = [], [], []
    for body in block.bodies:
        key = body.id if patterns is None else body.label
        state = stored.get(key)
        if state is None:
            continue
        R = state[0:9].reshape(3, 3).T                 # column-major rotation
        xc, Omega, v = state[9:12], state[12:15], state[15:18]
        X = block.X[block.nodes_of(body.row)]
        A = X - block.center[body.row]
        q = xc + A @ R.T - X
        u = v + np.cross(Omega, A) @ R.T
        rows.append(body.row)
        values.append(np.concatenate([q.reshape(-1), u.reshape(-1), np.zeros(5)]))
        sizes.append((q.size, u.size))
    if rows:
        block.set_state_values(np.array(rows), np.concatenate(values), np.array(sizes), parts=("conf", "velo"))
    return len(rows)
