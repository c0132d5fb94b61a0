"""Time histories from stored frames (layer 6): the entities of HISTORY (Solfec-1.0 user manual, HISTORY,
docs/results.md) evaluated from the results file alone, vectorised over frames, without
touching the live model. Reference: Solfec lng.c HISTORY / sol.c SOLFEC_History.

Items arrive already parsed (the deck command checks and converts BODY/SOLFEC objects,
the plot CLI parses strings): `PointItem`, `TotalItem` (energies or constraint totals),
`ConstraintItem`, `StringItem`. Body identity is the body id; a label is resolved at every
frame to the first-created body carrying it; frames without the body give NaN.

Deliberate choices where Solfec's C code has quirks (Solfec-1.0 user manual, HISTORY; Solfec-1.0 lng.c, where it departs from its manual): 'R'/'CR' with a
direction d sum d·(B R) (the global reaction projected on d, B = local base) rather than
d·(Bᵀ R); 'U'/'CU' are averages (sum / count) rather than sum / (1 + count).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solfec_py.errors import NotAvailableError, ResultsError
from solfec_py.output import fe_history, frames
from solfec_py.output.store import KIND_FAMILY

POINT_ENTITIES = ("CX", "CY", "CZ", "DX", "DY", "DZ", "VX", "VY", "VZ",
                  "SX", "SY", "SZ", "SXY", "SXZ", "SYZ", "MISES")
ENERGY_KINDS = {"KINETIC": 0, "EXTERNAL": 1, "CONTACT": 2, "FRICTION": 3, "INTERNAL": 4}
CONSTRAINT_ENTITIES = ("GAP", "R", "CR", "U", "CU")
COUNTS = ("STEP", "CONS", "BODS")
STRINGS = frames.TIMERS + COUNTS + frames.STATISTICS


@dataclass(frozen=True)
class PointItem:
    body: int | str          # body id, or a label resolved per frame
    point: tuple
    entity: str


@dataclass(frozen=True)
class TotalItem:
    bodies: tuple | None     # body ids; None = all bodies (the SOLFEC object)
    kind: str                # ENERGY_KINDS or CONSTRAINT_ENTITIES


@dataclass(frozen=True)
class ConstraintItem:
    bodies: tuple | None
    direction: tuple | None
    pair: tuple | None
    entity: str


@dataclass(frozen=True)
class StringItem:
    name: str


@dataclass(frozen=True)
class CarryItem:
    """A number the scheme of a rigid body carries between steps: column `column` of its
    carry row (a link's joint coordinates, rates, reaction: HISTORY of a JOINT), `initial`
    in frames before the body carried any (the joint's creation state); column -1: always
    `initial` (a FREE joint's reaction, zero)."""
    body: int
    column: int
    initial: float


# ---------------------------------------------------------------------- sampling
def solfec_frames(store, t0: float, t1: float, skip: int = 1) -> tuple[np.ndarray, int]:
    """Frames HISTORY samples (Solfec-1.0 user manual, HISTORY): i0, i1 located like SEEK, N = (i1-i0)//skip
    slots, filled from frames i0, i0+skip, ... while the frame time is < t1."""
    times = store.times
    lo, hi = float(times[0]), float(times[-1])
    t0, t1 = min(max(t0, lo), hi), min(max(t1, lo), hi)
    i0, i1 = store.frame_index(t0), store.frame_index(t1)
    n = max((i1 - i0) // skip, 0)
    idx = i0 + skip * np.arange(n)
    tol = store.tolerance()
    below = times[idx] < t1 - tol
    stop = int(np.argmin(below)) if not below.all() else n
    return idx[:stop], n


def all_frames(store, t0: float | None = None, t1: float | None = None, skip: int = 1) -> np.ndarray:
    """Every frame with t0 <= T <= t1 (the plot and CSV sampling: the last frame included)."""
    times = store.times
    tol = store.tolerance()
    lo = -np.inf if t0 is None else t0 - tol
    hi = np.inf if t1 is None else t1 + tol
    return np.flatnonzero((times >= lo) & (times <= hi))[::skip]


def history(store, items, t0: float, t1: float, skip: int = 1, progress: bool = False,
            materials: dict | None = None) -> tuple:
    """HISTORY's result: (times, values_1, ...) as lists of N floats (zero tails); with
    `progress` a percentage meter on stdout while the frames are read (`materials`: see
    `evaluate`)."""
    idx, n = solfec_frames(store, t0, t1, skip)
    out = [np.zeros(n) for _ in range(len(items) + 1)]
    out[0][: idx.size] = store.times[idx]
    meter = None
    if progress:
        from solfec_py.output.progress import Percent

        meter = Percent()
    try:
        for k, values in enumerate(evaluate(store, items, idx, meter, materials)):
            out[k + 1][: idx.size] = values
    finally:
        if meter is not None:
            meter.close()
    return tuple(v.tolist() for v in out)


# ---------------------------------------------------------------------- evaluation
class _Frames:
    """Per-frame body ids of each family (cached by their ids block) for a frame list."""

    def __init__(self, store, idx: np.ndarray, materials: dict | None = None):
        self.store, self.idx = store, idx
        self.materials = materials or {}   # body id -> (lambda, mu) of deformable bodies (stress)
        self.tick = None             # progress within the current item: tick(fraction)
        self._ids: dict = {}
        reg = store.registry
        self.family_of = {int(i): KIND_FAMILY[k] for i, k in zip(reg["id"], reg["kind"])}
        self.X0 = {int(i): x for i, x in zip(reg["id"], reg["X0"])}
        self.labels: dict = {}
        self.cache: dict = {}        # per evaluation: stored meshes of finite-element bodies
        for i, lab in zip(reg["id"].tolist(), reg["label"]):
            if lab:
                self.labels.setdefault(lab, []).append(i)

    def ids(self, family: str, i: int) -> np.ndarray:
        row = self.store.table[i]
        F = family.upper()
        key = (family, int(row[self.store.col(f"{F}_IDOFF")]), int(row[self.store.col(f"{F}_CNT")]))
        if key not in self._ids:
            self._ids[key] = self.store.frame_ids(family, i)
        return self._ids[key]

    def rows(self, family: str, body_ids) -> np.ndarray:
        """(frames, len(body_ids)) global state rows of the bodies, -1 where absent."""
        out = np.full((self.idx.size, len(body_ids)), -1, dtype=np.int64)
        want = np.asarray(body_ids, dtype=np.int64)
        off_col = self.store.col(f"{family.upper()}_OFF")
        for k, i in enumerate(self.idx):
            if self.tick is not None and not k % 256:
                self.tick(k / self.idx.size)
            ids = self.ids(family, int(i))
            if not ids.size:
                continue
            order = np.argsort(ids, kind="stable")
            pos = np.minimum(np.searchsorted(ids[order], want), ids.size - 1)
            ok = ids[order][pos] == want
            out[k, ok] = int(self.store.table[i, off_col]) + order[pos[ok]]
        return out

    def label_ids(self, label: str) -> np.ndarray:
        """Per frame, the first-created body with `label` present in the frame (0 if none)."""
        cands = sorted(self.labels.get(label, []))
        out = np.zeros(self.idx.size, dtype=np.int64)
        for fam in {self.family_of[c] for c in cands}:
            mine = [c for c in cands if self.family_of[c] == fam]
            for k, i in enumerate(self.idx):
                present = np.isin(mine, self.ids(fam, int(i)))
                if present.any():
                    c = mine[int(np.argmax(present))]
                    out[k] = c if out[k] == 0 else min(out[k], c)
        return out


def evaluate(store, items, idx: np.ndarray, progress=None, materials: dict | None = None) -> list:
    """One float array (len(idx)) per item; `progress(fraction)` is told how far it got;
    `materials` {body id: (lambda, mu)} lets stresses of deformable bodies be evaluated."""
    fr = _Frames(store, np.asarray(idx, dtype=np.int64), materials)
    out = []
    for k, item in enumerate(items):
        if progress is not None:
            fr.tick = lambda f, k=k: progress((k + f) / len(items))
        out.append(_evaluate_one(store, fr, item))
        if progress is not None:
            progress((k + 1) / len(items))
    return out


def _evaluate_one(store, fr: _Frames, item) -> np.ndarray:
    if isinstance(item, StringItem):
        values = store.table[fr.idx, store.col(item.name)]
        return np.where(np.isfinite(values), values, 0.0)
    if isinstance(item, PointItem):
        return _point_values(store, fr, item)
    if isinstance(item, CarryItem):
        return _carried(store, fr, item)
    if isinstance(item, TotalItem) and item.kind in ENERGY_KINDS:
        return _energy(store, fr, item)
    if isinstance(item, TotalItem):
        item = ConstraintItem(item.bodies, None, None, item.kind)
    return _constraint_values(store, fr, item)


def _state(store, fr: _Frames, family: str, body_ids) -> np.ndarray:
    """(frames, len(body_ids), width) state rows, NaN where a body is absent."""
    rows = fr.rows(family, body_ids)
    width = frames.state_width(family)
    out = np.full(rows.shape + (width,), np.nan)
    ok = rows >= 0
    if ok.any():
        out[ok] = store.read_rows(f"state/{family}", rows[ok])
    return out


def _point_values(store, fr: _Frames, item: PointItem) -> np.ndarray:
    if isinstance(item.body, str):
        per_frame = fr.label_ids(item.body)
        values = np.full(fr.idx.size, np.nan)
        for bid in np.unique(per_frame[per_frame > 0]):
            sel = per_frame == bid
            values[sel] = _body_point_values(store, fr, int(bid), item)[sel]
        return values
    return _body_point_values(store, fr, int(item.body), item)


def _rigid_motion(s: np.ndarray, A: np.ndarray):
    """(x, v) (frames, 3) of the point with arm A = X - X0 from rigid state rows s."""
    R = s[:, 0:9].reshape(-1, 3, 3).transpose(0, 2, 1)      # column-major storage
    return s[:, 9:12] + R @ A, s[:, 15:18] + np.einsum("fij,fj->fi", R, np.cross(s[:, 12:15], A))


def _pseudo_rigid_motion(s: np.ndarray, A: np.ndarray):
    """(x, v) = (xc + F A, v + dF/dt A) from pseudo-rigid state rows (F row-wise)."""
    return s[:, 9:12] + s[:, 0:9].reshape(-1, 3, 3) @ A, s[:, 21:24] + s[:, 12:21].reshape(-1, 3, 3) @ A


def _pseudo_rigid_stress(s: np.ndarray, lame) -> np.ndarray:
    """(frames, 7) homogeneous Cauchy stress and von Mises value of F (row-wise) in s."""
    from solfec_py.fem.laws import cauchy_mises

    out = np.full((s.shape[0], 7), np.nan)
    for k in np.flatnonzero(np.isfinite(s[:, 0])):
        out[k] = cauchy_mises(*s[k, 0:9].tolist(), *lame)
    return out


MOTION = {"rigid": _rigid_motion, "pseudo_rigid": _pseudo_rigid_motion}
STRESS = slice(9, 16)          # SX .. MISES in POINT_ENTITIES


def _body_point_values(store, fr: _Frames, bid: int, item: PointItem) -> np.ndarray:
    family = fr.family_of.get(bid)
    if family is None:
        return np.full(fr.idx.size, np.nan)
    if family in frames.RAGGED:
        return fe_history.point_values(store, fr, family, bid, item.point, item.entity)
    if family not in MOTION:
        raise NotAvailableError(f"HISTORY point values of {family.replace('_', ' ')} bodies are not available yet")
    e = item.entity
    s = _state(store, fr, family, [bid])[:, 0, :]
    if e in POINT_ENTITIES[STRESS]:
        if family == "rigid":                 # stress of a rigid body: zero (Solfec-1.0 user manual, DISPLACEMENT)
            return np.where(np.isnan(s[:, 0]), np.nan, 0.0)
        if bid not in fr.materials:        # the results hold F, not the material
            raise ResultsError(f"the stress of pseudo-rigid body {bid} needs its material, which the results"
                               " do not hold: ask HISTORY in the deck that built the model (READ mode)")
        return _pseudo_rigid_stress(s, fr.materials[bid])[:, POINT_ENTITIES[STRESS].index(e)]
    x, v = MOTION[family](s, np.asarray(item.point, float) - fr.X0[bid])
    comp = "XYZ".index(e[1])
    if e[0] in "CD":
        return x[:, comp] - (item.point[comp] if e[0] == "D" else 0.0)
    return v[:, comp]


def _carried(store, fr: _Frames, item: CarryItem) -> np.ndarray:
    """Per frame, the carried number of a rigid body (NaN where the body is absent)."""
    present = fr.rows("rigid", [item.body])[:, 0] >= 0
    values = np.where(present, item.initial, np.nan)
    if item.column < 0:                      # a number that keeps its initial value (not stored)
        return values
    for k, i in enumerate(fr.idx.tolist()):
        rows = store.frame_carry("rigid", i)
        mine = np.flatnonzero(rows[:, 0] == item.body) if rows.shape[0] else ()
        if present[k] and len(mine):
            values[k] = rows[mine[0], 3 + item.column]
    return values


def _energy(store, fr: _Frames, item: TotalItem) -> np.ndarray:
    k = ENERGY_KINDS[item.kind]
    if item.bodies is None:
        return store.table[fr.idx, store.col(f"E_{item.kind}")].copy()
    total = np.zeros(fr.idx.size)
    by_family: dict = {}
    for bid in item.bodies:
        fam = fr.family_of.get(int(bid))
        if fam is not None:
            by_family.setdefault(fam, []).append(int(bid))
    for fam, ids in by_family.items():
        if fam in frames.RAGGED:
            for bid in ids:
                total += np.nan_to_num(fe_history.energy(store, fr, fam, bid, k))
            continue
        if fam not in frames.FAMILIES:
            raise NotAvailableError(f"HISTORY energies of {fam.replace('_', ' ')} bodies are not available yet")
        nc, nv = frames.FAMILIES[fam]
        s = _state(store, fr, fam, ids)[:, :, nc + nv + k]
        total += np.nansum(s, axis=1)
    return total


def _constraint_values(store, fr: _Frames, item: ConstraintItem) -> np.ndarray:
    C = frames.CCOL
    out = np.zeros(fr.idx.size)
    contact = frames.CON_KIND_CODE["CONTACT"]
    bodies = None if item.bodies is None else np.asarray(item.bodies, dtype=float)
    d = None if item.direction is None else np.asarray(item.direction, float)
    for k, i in enumerate(fr.idx):
        if fr.tick is not None and not k % 256:
            fr.tick(k / fr.idx.size)
        rows = store.frame_constraints(int(i))
        if not rows.size:
            continue
        keep = np.ones(rows.shape[0], dtype=bool)
        if bodies is not None:
            keep &= np.isin(rows[:, C["BID1"]], bodies) | np.isin(rows[:, C["BID2"]], bodies)
        is_contact = rows[:, C["KIND"]] == contact
        if item.pair is not None:
            p = sorted(float(v) for v in item.pair)
            s = np.sort(rows[:, [C["SURF1"], C["SURF2"]]], axis=1)
            keep &= ~is_contact | ((s[:, 0] == p[0]) & (s[:, 1] == p[1]))
        if item.entity in ("GAP", "CR", "CU"):
            keep &= is_contact
        r = rows[keep]
        if not r.shape[0]:
            continue
        if item.entity == "GAP":
            out[k] = r[:, C["GAP"]].min()
            continue
        local = r[:, frames.REAC] if item.entity in ("R", "CR") else r[:, frames.RELV]
        if d is None:
            values = local[:, 2]
        else:
            B = r[:, frames.BASE].reshape(-1, 3, 3).transpose(0, 2, 1)   # columns t1, t2, n
            values = np.einsum("nij,nj->ni", B, local) @ d
        out[k] = values.sum() if item.entity in ("R", "CR") else values.mean()
    return out
