"""Per-step constraint update (layer 5): current points, frames, link vectors, gaps and
prescribed velocities of all non-contact constraints at the mid-step configuration,
removal of constraints whose bodies are gone, and the strength-based deletion after the
step. Reference: Solfec-1.0 ldy.c, constraint kinds (per-step updates), Solfec-1.0 dom.c, the time step (Solfec dom.c
update_fixpnt / update_fixdir / update_velodir / update_riglnk / update_spring,
DOM_Update_End).

Points are mapped family by family with the block methods `cur_points`, `ref_points`,
`cur_vectors` (bodies/base.py, through bodies.points.per_family), so every kind is updated
with a few array operations.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from solfec_py import constraints as C, session
from solfec_py.bodies.points import per_family
from solfec_py.solvers.local_dynamics import body_rows
from solfec_py.timeseries import evaluate


@dataclass
class _Step:
    """What the refreshers below read: the constraint set, its body rows (count, 2), the
    kinds, the two-body mask, the end time t + h of the step and the geometric epsilon."""

    domain: object
    cset: C.ConstraintSet
    brow: np.ndarray
    kind: np.ndarray
    two: np.ndarray
    time: float
    eps: float

    def map(self, idx, side, method, values) -> np.ndarray:
        """block.method(rows, values, elem) for constraint rows idx of `side`."""
        cset = self.cset
        return per_family(self.domain, cset.families, cset.family[idx, side], self.brow[idx, side], method,
                          values, cset.elem[idx, side])


def _point_on_body1(step: _Step, idx: np.ndarray) -> None:
    """The constrained point moves with the first body."""
    cset = step.cset
    cset.point[idx] = step.map(idx, 0, "cur_points", cset.mpnt[idx])


def _slider(step: _Step, idx: np.ndarray) -> None:
    """FIXDIR between two bodies: the point follows body 2, the direction body 1."""
    cset = step.cset
    x = step.map(idx, 1, "cur_points", cset.spnt[idx])
    cset.point[idx] = x
    cset.mpnt[idx] = step.map(idx, 0, "ref_points", x)
    nrm = step.map(idx, 0, "cur_vectors", cset.direction[idx])
    cset.base[idx] = C.local_base(nrm, step.eps)


def _prescribed_values(step: _Step, idx: np.ndarray) -> None:
    """VELODIR / VELODIR3 targets at t + h (few rows: a loop over their series)."""
    cset, kind = step.cset, step.kind
    for k in idx.tolist():
        series = cset.series[k]
        values = [evaluate(s, step.time) for s in series]
        if kind[k] == C.VELODIR:
            cset.target[k] = (0.0, 0.0, values[0])
        else:
            cset.target[k] = values


def _links(step: _Step, idx: np.ndarray) -> None:
    """RIGLNK and SPRING: both ends, the link vector, the normal (along the link, or the
    spring's fixed / convected direction), the gap (stroke - length) and the local base."""
    cset, kind = step.cset, step.kind
    x1 = step.map(idx, 0, "cur_points", cset.mpnt[idx])
    x2 = cset.spnt[idx].copy()                  # fixed spatial point unless a slave exists
    s2 = np.flatnonzero(step.two[idx])
    if s2.size:
        x2[s2] = step.map(idx[s2], 1, "cur_points", cset.spnt[idx[s2]])
    cset.point[idx], cset.point2[idx] = x1, x2
    v = x1 - x2
    length = np.linalg.norm(v, axis=1)
    nrm = np.zeros_like(v)
    nrm[:, 2] = 1.0
    follow = (kind[idx] == C.RIGLNK) | (cset.update[idx] == C.FOLLOW)
    ok = follow & (length > 0)
    nrm[ok] = v[ok] / length[ok, None]
    stroke = length.copy()
    for upd, side in ((C.FIXED, None), (C.CONV1, 0), (C.CONV2, 1)):
        m = np.flatnonzero(~follow & (cset.update[idx] == upd))
        if m.size:
            d = cset.direction[idx[m]]
            nrm[m] = d if side is None else step.map(idx[m], side, "cur_vectors", d)
            stroke[m] = np.einsum("ki,ki->k", nrm[m], v[m])
    cset.link[idx] = v
    cset.gap[idx] = stroke - cset.length[idx]
    cset.base[idx] = C.local_base(nrm, step.eps)


# constraint kinds -> their per-step refresh, applied in this order; `bodies` 1 or 2 keeps
# only the constraints on that many bodies (a one-body FIXDIR keeps its point on body 1,
# a two-body FIXDIR is a slider), None keeps all
REFRESH = (
    ((C.FIXPNT, C.VELODIR, C.VELODIR3), None, _point_on_body1),
    ((C.FIXDIR,), 1, _point_on_body1),
    ((C.FIXDIR,), 2, _slider),
    ((C.VELODIR, C.VELODIR3), None, _prescribed_values),
    ((C.RIGLNK, C.SPRING), None, _links),
)


def _kind_table(kinds) -> np.ndarray:
    """Boolean lookup table over the kind codes: table[kind] is the row mask of `kinds`."""
    table = np.zeros(len(C.KINDS), dtype=bool)
    table[list(kinds)] = True
    return table


_REFRESH_TABLES = tuple((_kind_table(kinds), bodies, refresh) for kinds, bodies, refresh in REFRESH)


# constraint set -> (version, count, body rows, refreshes of the kinds present) of the last
# check for rows whose bodies are gone: while the set's rows (`version`) and the body rows
# (the cached body_rows array, rebuilt when a block's bodies change) stay the same, no
# row has lost a body and the kinds present are the same
_CHECKED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def update(domain, t: float, h: float) -> np.ndarray:
    """Refresh all constraints for the step [t, t + h] with the bodies at the mid-step;
    returns the body rows (count, 2) used (input of local_dynamics.assemble)."""
    cset = C.constraint_set(domain)
    brow = body_rows(domain, cset)
    n = cset.count
    checked = _CHECKED.get(cset)
    if checked is not None and checked[0] == cset.version and checked[1] == n and checked[2] is brow:
        refreshes = checked[3]      # same rows, kinds and body rows as at the last check
    else:
        lost = ((cset.bid[:n] > 0) & (brow < 0)).any(axis=1)
        if lost.any():                              # a body was DELETEd or left the extents
            cset.remove_rows(np.flatnonzero(lost))
            brow = body_rows(domain, cset)
            n = cset.count
        present = np.bincount(cset.kind[:n], minlength=len(C.KINDS)).astype(bool)   # kinds in the set
        refreshes = tuple(entry for entry in _REFRESH_TABLES if (entry[0] & present).any())
        _CHECKED[cset] = (cset.version, n, brow, refreshes)
    if not refreshes:                               # e.g. a set of contacts only
        return brow
    kind = cset.kind[:n]
    two = cset.bid[:n, 1] > 0
    step = None
    for table, bodies, refresh in refreshes:
        if step is None:
            step = _Step(domain, cset, brow, kind, two, t + h, session.geometric_epsilon())
        rows = table[kind]
        if bodies is not None:
            rows &= two if bodies == 2 else ~two
        idx = np.flatnonzero(rows)
        if idx.size:
            refresh(step, idx)
    return brow


def overstressed(cset) -> np.ndarray:
    """Rows of breakable constraints whose last reaction exceeded their strength: FIXPNT
    when |R| > strength, RIGLNK when the tension -R_N > strength (the link normal points
    from the second end to the first, so a pulling link has R_N < 0)."""
    n = cset.count
    kind, strength, R = cset.kind[:n], cset.strength[:n], cset.R[:n]
    finite = np.isfinite(strength)
    if not finite.any():                          # nothing breakable (e.g. contacts only)
        return np.zeros(0, dtype=np.int64)
    fix = finite & (kind == C.FIXPNT) & (np.linalg.norm(R, axis=1) > strength)
    link = finite & (kind == C.RIGLNK) & (-R[:, 2] > strength)
    return np.flatnonzero(fix | link)


def delete_overstressed(domain) -> int:
    cons = domain.constraints
    if not isinstance(cons, C.ConstraintSet) or not cons.count:
        return 0
    rows = overstressed(cons)
    cons.remove_rows(rows)
    return int(rows.size)
