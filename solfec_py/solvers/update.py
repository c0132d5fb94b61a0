"""Per-step constraint update (layer 5): current points, frames, link vectors, gaps and
prescribed velocities of all non-contact constraints at the mid-step configuration,
removal of constraints whose bodies are gone, and the strength-based deletion after the
step. Reference: NUMERICS §4.3 (per-step updates), §4.10 items 3 and 11 (Solfec dom.c
update_fixpnt / update_fixdir / update_velodir / update_riglnk / update_spring,
DOM_Update_End).

Points are mapped family by family with the block methods `cur_points`, `ref_points`,
`cur_vectors` (bodies/rigid.py), so every kind is updated with a few array operations.
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C, session
from solfec_py.solvers.local_dynamics import body_rows
from solfec_py.timeseries import evaluate


def _map(domain, cset, brow, idx, side, method, values):
    """block.method(rows, values) for constraint rows idx of `side`, family by family."""
    out = np.zeros((idx.size, 3))
    fam = cset.family[idx, side]
    for code in np.unique(fam):
        m = fam == code
        block = domain.blocks[cset.families[int(code)]]
        out[m] = getattr(block, method)(brow[idx[m], side], values[m])
    return out


def update(domain, t: float, h: float) -> np.ndarray:
    """Refresh all constraints for the step [t, t + h] with the bodies at the mid-step;
    returns the body rows (count, 2) used (input of local_dynamics.assemble)."""
    cset = C.constraint_set(domain)
    brow = body_rows(domain, cset)
    n = cset.count
    lost = ((cset.bid[:n] > 0) & (brow < 0)).any(axis=1)
    if lost.any():                                  # a body was DELETEd or left the extents
        cset.remove_rows(np.flatnonzero(lost))
        brow = body_rows(domain, cset)
        n = cset.count
    kind = cset.kind[:n]
    two = cset.bid[:n, 1] > 0
    eps = session.geometric_epsilon()

    idx = np.flatnonzero(((kind == C.FIXPNT) | (kind == C.VELODIR) | (kind == C.VELODIR3)
                          | ((kind == C.FIXDIR) & ~two)))
    if idx.size:
        cset.point[idx] = _map(domain, cset, brow, idx, 0, "cur_points", cset.mpnt[idx])

    idx = np.flatnonzero((kind == C.FIXDIR) & two)   # slider: point follows body 2
    if idx.size:
        x = _map(domain, cset, brow, idx, 1, "cur_points", cset.spnt[idx])
        cset.point[idx] = x
        cset.mpnt[idx] = _map(domain, cset, brow, idx, 0, "ref_points", x)
        nrm = _map(domain, cset, brow, idx, 0, "cur_vectors", cset.direction[idx])
        cset.base[idx] = C.local_base(nrm, eps)

    idx = np.flatnonzero((kind == C.VELODIR) | (kind == C.VELODIR3))
    for k in idx.tolist():                          # prescribed values at t + h (few rows)
        series = cset.series[k]
        values = [evaluate(s, t + h) for s in series]
        if kind[k] == C.VELODIR:
            cset.target[k] = (0.0, 0.0, values[0])
        else:
            cset.target[k] = values

    idx = np.flatnonzero((kind == C.RIGLNK) | (kind == C.SPRING))
    if idx.size:
        x1 = _map(domain, cset, brow, idx, 0, "cur_points", cset.mpnt[idx])
        x2 = cset.spnt[idx].copy()                  # fixed spatial point unless a slave exists
        s2 = np.flatnonzero(two[idx])
        if s2.size:
            x2[s2] = _map(domain, cset, brow, idx[s2], 1, "cur_points", cset.spnt[idx[s2]])
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
                nrm[m] = d if side is None else _map(domain, cset, brow, idx[m], side, "cur_vectors", d)
                stroke[m] = np.einsum("ki,ki->k", nrm[m], v[m])
        cset.link[idx] = v
        cset.gap[idx] = stroke - cset.length[idx]
        cset.base[idx] = C.local_base(nrm, eps)
    return brow


def overstressed(cset) -> np.ndarray:
    """Rows of breakable constraints whose last reaction exceeded their strength: FIXPNT
    when |R| > strength, RIGLNK when the tension -R_N > strength (the link normal points
    from the second end to the first, so a pulling link has R_N < 0)."""
    n = cset.count
    kind, strength, R = cset.kind[:n], cset.strength[:n], cset.R[:n]
    finite = np.isfinite(strength)
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
