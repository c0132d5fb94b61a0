"""Tunnelling checks of contact detection (layer 5): a body that passes through another
within one step, which a time-stepping contact method cannot see or undo. Both checks run
on arrays the detection has already made (contact normals and gaps, the objects' boxes), so
they cost a few vectorised operations per step. Reference: solfec-py's own (Solfec-1.0 has
no such check); docs/limits.md.

1. A contact whose gap is below minus the thickness of the thinner of its two objects (the
   width of the object's box along the contact normal): one object is through the other.
2. An object that moved, between two detections, by more than its own smallest width, with
   its centre path crossing another body's object box through two opposite faces, and no
   contact between the two bodies (nor a CONTACT_EXCLUDE_BODIES of them): it jumped through
   that object without ever touching it.

`Domain.tunnelling` says what a finding does: 'WARN' (a warning naming the bodies and the
time, once per pair of bodies), 'STOP' (a SimulationError) or 'OFF'.
"""
from __future__ import annotations

import numpy as np

from solfec_py import session
from solfec_py.errors import SimulationError

MODES = ("WARN", "STOP", "OFF")
MAX_WARNINGS = 10                    # distinct pairs warned about, per domain
CHUNK = 1 << 20                      # (fast object, object) pairs tested in one array operation


class State:
    """What the checks keep between steps: the object boxes of the last detection, the
    pairs already reported."""

    def __init__(self):
        self.table = None
        self.lo = self.hi = None
        self.geo, self.narrowest = None, np.inf
        self.reported: set = set()


def _state(domain) -> State:
    state = domain.tunnel_state
    if state is None:
        state = domain.tunnel_state = State()
    return state


def check_gaps(domain, table, geo, om, os, normal, gap, eps) -> None:
    """Check 1 on contacts: objects om / os, unit normals (k, 3), gaps (k,). A box is at
    least as wide along a unit normal as along its narrowest axis, so only gaps below minus
    the narrowest box of all are looked at closely (none in a settled scene)."""
    if domain.tunnelling == "OFF" or not gap.size:
        return
    floor = -(_narrowest(domain, geo) - 2.0 * eps)
    if not gap.min() < floor:
        return
    deep = np.flatnonzero(gap < floor)
    n = np.abs(normal[deep])
    wm = np.einsum("ij,ij->i", n, geo.hi[om[deep]] - geo.lo[om[deep]])
    ws = np.einsum("ij,ij->i", n, geo.hi[os[deep]] - geo.lo[os[deep]])
    thin = np.minimum(wm, ws) - 2.0 * eps
    through = np.flatnonzero(-gap[deep] > thin)
    if through.size:
        k = int(deep[through[0]])
        _report(domain, table, int(os[k]), int(om[k]),
                f"their contact gap is {gap[k]:.4g}, deeper than the thinner object is thick"
                f" ({thin[through[0]]:.4g} along the contact normal)")


def _narrowest(domain, geo) -> float:
    """The smallest width of any object box of this detection (computed once per detection)."""
    state = _state(domain)
    if state.geo is not geo:
        state.geo, state.narrowest = geo, float((geo.hi - geo.lo).min()) if geo.lo.size else np.inf
    return state.narrowest


def check_sweeps(domain, table, geo, contact_bodies) -> None:
    """Check 2 between this detection and the last (`contact_bodies()`: (k, 2) body ids of
    the contacts now, asked for only when a path crossed a box). Keeps this detection's
    boxes (arrays made anew by every detection) for the next one."""
    state = _state(domain)
    if domain.tunnelling == "OFF":
        state.table = None
        return
    prev = (state.table, state.lo, state.hi)
    state.table, state.lo, state.hi = table, geo.lo, geo.hi
    if prev[0] is not table or prev[1].shape != geo.lo.shape:
        return                                   # first detection, or the objects changed
    twice = np.abs((geo.lo + geo.hi) - (prev[1] + prev[2]))  # twice the move of each box centre
    if not twice.max() > 2.0 * _narrowest(domain, geo):       # (flat reductions: most steps end here)
        return
    width = geo.hi - geo.lo
    fast = np.flatnonzero(np.maximum(np.maximum(twice[:, 0], twice[:, 1]), twice[:, 2])
                          > 2.0 * np.minimum(np.minimum(width[:, 0], width[:, 1]), width[:, 2]))
    if not fast.size:
        return
    c0, c1 = 0.5 * (prev[1] + prev[2]), 0.5 * (geo.lo + geo.hi)
    hits = _crossings(table, geo, c0, c1, fast)
    if not hits.size:
        return
    touching = {(min(a, b), max(a, b)) for a, b in np.asarray(contact_bodies(), dtype=np.int64).tolist()}
    touching |= domain.excluded_bodies                # pairs without contact detection (by the deck)
    for a, b in hits.tolist():
        ba, bb = int(table.bid[a]), int(table.bid[b])
        if (min(ba, bb), max(ba, bb)) not in touching:
            _report(domain, table, a, b, f"it moved {np.linalg.norm(c1[a] - c0[a]):.4g} in one step, through"
                    " the box of the other body from one side to the opposite one, without a contact")
            return


def _crossings(table, geo, c0, c1, fast) -> np.ndarray:
    """(k, 2) pairs (fast object, other body's object) whose relative centre path enters the
    other's box through one face and leaves it through the opposite one (fast objects taken
    CHUNK // n at a time against every object)."""
    per = max(1, CHUNK // max(table.count, 1))
    parts = [_crossed(table, geo, c0, c1, fast[k:k + per]) for k in range(0, fast.size, per)]
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _crossed(table, geo, c0, c1, fast) -> np.ndarray:
    n = table.count
    a = np.repeat(fast, n)
    b = np.tile(np.arange(n), fast.size)
    keep = table.bid[a] != table.bid[b]
    a, b = a[keep], b[keep]
    if not a.size:
        return np.zeros((0, 2), dtype=np.int64)
    start = c0[a] + (c1[b] - c0[b])               # the path in the other object's current frame
    d = c1[a] - start
    lo, hi = geo.lo[b], geo.hi[b]
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = (lo - start) / d, (hi - start) / d
    tmin, tmax = np.minimum(t1, t2), np.maximum(t1, t2)
    tmin = np.where(d == 0.0, np.where((start >= lo) & (start <= hi), -np.inf, np.inf), tmin)
    tmax = np.where(d == 0.0, np.where((start >= lo) & (start <= hi), np.inf, -np.inf), tmax)
    enter, leave = tmin.max(axis=1), tmax.min(axis=1)
    axis_in, axis_out = tmin.argmax(axis=1), tmax.argmin(axis=1)
    # in and out through the two faces of one axis, both within the step (both ends outside)
    through = (enter <= leave) & (enter > 0.0) & (leave < 1.0) & (axis_in == axis_out)
    return np.stack([a[through], b[through]], axis=1)


def _report(domain, table, first: int, second: int, why: str) -> None:
    """Warn about, or stop at, objects `first` and `second` passing through each other."""
    if table.inert[first] and not table.inert[second]:        # the moving one first
        first, second = second, first
    b1, b2 = table.bodies[first], table.bodies[second]
    pair = (min(b1.id, b2.id), max(b1.id, b2.id))
    state = _state(domain)
    name = lambda b: f"body {b.id}{' (' + repr(b.label) + ')' if b.label else ''}"
    h = domain.step
    what = "passed through" if table.inert[second] else "and {} passed through each other"
    what = what if table.inert[second] else what.format(name(b2))
    whom = f" {name(b2)}" if table.inert[second] else ""
    text = (f"{name(b1)} {what}{whom} between t = {domain.time:g} and {domain.time + h:g}: {why};"
            " the contact law cannot push it back (reduce the time step, stiffen the contact or thicken"
            " the bodies")
    if domain.tunnelling == "STOP":
        raise SimulationError(text + "; the run stopped as SOLFEC.tunnelling = 'STOP' asks)")
    text += "; SOLFEC.tunnelling = 'STOP' stops the run here, docs/limits.md)"
    if pair in state.reported:
        return
    state.reported.add(pair)
    if len(state.reported) <= MAX_WARNINGS:
        session.warn(text)
        if len(state.reported) == MAX_WARNINGS:
            session.warn(f"{MAX_WARNINGS} pairs of bodies passed through each other: further ones are not reported")
