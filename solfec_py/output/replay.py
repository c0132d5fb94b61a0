"""Stored frames back into a live model (layer 6): READ-mode navigation (first data command
loads frame 0, SEEK, FORWARD, BACKWARD), continuation of a run from its last frame (-c:
bodies, the state their schemes carry, clock and the whole constraint set, contacts included), and INITIALIZE_STATE from
another analysis. Reference: Solfec-1.0 user manual, command line (-c), READ and WRITE modes,
INITIALIZE_STATE, DURATION, SEEK (Solfec sol.c read / SOLFEC_Seek_To, dom.c DOM_Read_State, -c in solfec.c).

Bodies are matched by id (= creation order, Solfec-1.0 user manual, READ and WRITE modes); the state rows of a block are
written all at once. A body of the model absent from a frame (created later or deleted by
EXTENTS before it) shows its as-built state in READ mode.
"""
from __future__ import annotations

import re

import numpy as np

from solfec_py import session
from solfec_py.bodies.articulated.system import joints_from_carry
from solfec_py.errors import ResultsError
from solfec_py.output import frames
from solfec_py.output.store import KIND_CODE, ResultsStore, results_path
from solfec_py.output.store_reader import KINDS

PHASE_TIMERS = frames.TIMERS[:5]   # TIMINT, CONUPD, CONDET, LOCDYN, CONSOL: exist after any read


def block_ids(block) -> np.ndarray:
    return np.fromiter((b.id for b in block.bodies), dtype=np.int64, count=block.count)


def match(block, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(indices into `ids`, rows of `block`) of the stored ids that the block holds."""
    bids = block_ids(block)
    if not bids.size or not len(ids):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.argsort(bids, kind="stable")
    sorted_ids = bids[order]
    pos = np.minimum(np.searchsorted(sorted_ids, ids), sorted_ids.size - 1)
    ok = sorted_ids[pos] == ids
    return np.flatnonzero(ok), order[pos[ok]]


def apply_state(block, state: tuple, parts=("conf", "velo", "energy")) -> np.ndarray:
    """Write a stored state (ids, sizes, flat values: `store.frame_values`) into the rows of
    `block` holding those ids (state a scheme carried between steps is void for them,
    `block.state_changed`); returns the ids applied."""
    ids, sizes, values = state
    src, dst = match(block, ids)
    if src.size:
        block.state_changed(dst)
        block.set_state_values(dst, frames.pick(values, sizes, src), sizes[src], parts)
    return ids[src]


# ---------------------------------------------------------------------- READ mode
def _snapshot(domain) -> dict:
    """The as-built state of every block (restored for bodies absent from a frame)."""
    return {fam: (block_ids(block), block.state_sizes(), block.state_values())
            for fam, block in domain.blocks.items()}


def load(solfec, i: int) -> None:
    """Make frame `i` the model's state (bodies, time, step, timers)."""
    store, domain = solfec.store, solfec.domain
    if store.built is None:
        store.built = _snapshot(domain)
    for fam, block in domain.blocks.items():
        if fam not in frames.ALL_FAMILIES or not block.count:
            continue
        if fam in store.built:
            apply_state(block, store.built[fam])
        apply_state(block, store.frame_values(fam, i))
    row = store.table[i]
    domain.time = float(row[store.col("TIME")])
    domain.step = float(row[store.col("STEP")]) or domain.step
    timers = {name: 0.0 for name in PHASE_TIMERS}
    for name in frames.TIMERS:
        value = row[store.col(name)]
        if np.isfinite(value):
            timers[name] = float(value)
    domain.timers = timers
    load_constraints(solfec, i)
    if domain.joints:                          # JOINT: coordinates carried by the links
        joints_from_carry(domain.joints, store.frame_carry("rigid", i))
    store.current = i


# stored columns -> ConstraintSet fields shown by the deck's CONSTRAINT objects
_CON_FIELDS = (("point", frames.POINT), ("point2", frames.POINT2), ("R", frames.REAC), ("U", frames.RELV), ("V", frames.VELO),
               ("gap", frames.CCOL["GAP"]), ("area", frames.CCOL["AREA"]), ("merit", frames.CCOL["MERIT"]))
# ... and the further fields a continued run (-c) restores (format version 3)
_RESTART_FIELDS = _CON_FIELDS + (("mpnt", frames.MPNT), ("spnt", frames.SPNT), ("elem", frames.ELEM),
                                 ("spair", slice(frames.CCOL["SURF1"], frames.CCOL["SURF2"] + 1)),
                                 ("cohesion", frames.CCOL["COHESION"]))


def match_constraints(cset, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(indices into stored `rows`, rows of the live ConstraintSet) of the stored
    constraints that are live constraints of the model: the same id, kind and bodies
    (a stored row without an id, ID 0, matches nothing)."""
    none = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if not hasattr(cset, "live") or not len(cset) or not rows.shape[0]:
        return none
    C = frames.CCOL
    ids = cset.live("id")
    want = rows[:, C["ID"]].astype(np.int64)
    order = np.argsort(ids, kind="stable")
    pos = np.minimum(np.searchsorted(ids[order], want), ids.size - 1)
    live = order[pos]
    ok = (ids[live] == want) & (want > 0)
    ok &= cset.live("kind")[live] + 1 == rows[:, C["KIND"]]
    ok &= np.all(cset.live("bid")[live] == rows[:, C["BID1"]:C["BID2"] + 1], axis=1)
    return np.flatnonzero(ok), live[ok]


def load_constraints(solfec, i: int) -> None:
    """Show frame i through the model's constraint objects (Solfec-1.0 user manual, READ and WRITE modes: CONSTRAINT.R
    ... reflect the state read): the stored point, base, R, U, V, gap, area and merit of
    every live constraint stored in the frame (same id, kind and bodies); the others show
    their as-built values. Stored constraints that the deck did not create (contacts) are
    read through `store.frame_constraints` (SOLFEC.constraints in READ mode)."""
    store, cset = solfec.store, solfec.domain.constraints
    if not hasattr(cset, "live"):
        return
    if store.built_constraints is None:
        store.built_constraints = {name: cset.live(name).copy() for name in ("id", "base") + tuple(
            f for f, _ in _CON_FIELDS)}
    built = store.built_constraints
    if len(cset) and built["id"].size:            # as-built values first
        ids = cset.live("id")
        order = np.argsort(built["id"], kind="stable")
        pos = np.minimum(np.searchsorted(built["id"][order], ids), built["id"].size - 1)
        ok = built["id"][order][pos] == ids
        dst, src = np.flatnonzero(ok), order[pos[ok]]
        for name in built:
            if name != "id":
                getattr(cset, name)[dst] = built[name][src]
    rows = store.frame_constraints(i)
    src, dst = match_constraints(cset, rows)
    if not src.size:
        return
    r = rows[src]
    for name, col in _CON_FIELDS:
        getattr(cset, name)[dst] = r[:, col]
    cset.base[dst] = r[:, frames.BASE].reshape(-1, 3, 3).transpose(0, 2, 1)   # stored column-major


def ensure_loaded(solfec) -> None:
    """The first command that needs stored data loads the first frame (Solfec-1.0 user manual, READ and WRITE modes).
    Results computed by another deck are first compared with this deck's model."""
    if solfec.store.current is None:
        if not solfec.store.nframes:
            raise ResultsError(f"results file {solfec.store.path!r} holds no frames")
        if solfec._computed_by is not None:
            _check_model(solfec)
        load(solfec, 0)


MODEL_TOL = 1e-9    # reference centres agree to this share of the model's size (rounding only)


def model_differences(store, domain) -> list:
    """Phrases for what differs between the stored model and `domain`'s bodies (empty: the
    same model): the stored registry (latest row per body: id, kind, reference mass centre)
    must hold every body of the model with its kind and centre, and no other body of an id
    up to the model's largest (bodies the run created later, fragments, have larger ids)."""
    reg = store.registry
    bodies = sorted(domain.bodies, key=lambda b: b.id)
    ids = np.array([b.id for b in bodies], dtype=np.int64)
    top = int(ids.max()) if ids.size else 0
    stored = np.asarray(reg["id"], dtype=np.int64)
    first = stored[stored <= top]
    if not np.array_equal(ids, first):
        return [f"the bodies: {first.size} of ids up to {top} stored (ids {_span(first)}), {ids.size} in this"
                f" deck's model (ids {_span(ids)})"]
    at = np.searchsorted(stored, ids)
    kind, x0 = np.asarray(reg["kind_code"])[at], np.asarray(reg["X0"], dtype=float)[at]
    now = np.array([b.block.center[b.row] for b in bodies], dtype=float).reshape(-1, 3)
    codes = np.array([KIND_CODE[b.kind] for b in bodies], dtype=np.int64)
    size = max(float(np.ptp(np.vstack((now, x0)), axis=0).max(initial=0.0)), 1.0)
    off = np.flatnonzero((codes != kind) | (np.abs(now - x0).max(axis=1, initial=0.0) > MODEL_TOL * size))
    if not off.size:
        return []
    k = int(off[0])
    return [f"body {ids[k]}: {KINDS[kind[k] - 1]} centred at {_point(x0[k])} then, {KINDS[codes[k] - 1]} centred"
            f" at {_point(now[k])} now" + (f" ({off.size} bodies differ)" if off.size > 1 else "")]


def _check_model(solfec) -> None:
    """Results computed by another deck are read when this deck builds the same model."""
    from solfec_py.errors import ResultsMismatchError
    from solfec_py.output import provenance

    other, solfec._computed_by = solfec._computed_by, None
    found = model_differences(solfec.store, solfec.domain)
    if found:
        found.insert(0, f"the deck: {other} computed them, and this deck builds another model")
        raise ResultsMismatchError(provenance.mismatch_message(solfec._outpath, found, session.current(),
                                                               solfec._output))
    session.note(f"the results in {solfec._outpath} were computed by {other}; this deck builds the same model"
                 f" ({len(solfec.domain.bodies)} bodies of the same kinds and centres): they are read")


def _span(ids: np.ndarray) -> str:
    return "none" if not ids.size else (f"{ids[0]}" if ids.size == 1 else f"{ids[0]}..{ids[-1]}")


def _point(x) -> str:
    return "(" + ", ".join(f"{v:g}" for v in x) + ")"


def warn_short_store(solfec, duration: float) -> None:
    """READ mode, first RUN: warn when the stored frames end before the end this RUN asks for
    (less one output interval): the run that wrote them was interrupted (or a CALLBACK
    stopped it), so the deck's checks would read an earlier state without noticing. Later
    RUNs are not checked (a deck may call RUN again while reading)."""
    if getattr(solfec, "_read_run_checked", False):
        return
    solfec._read_run_checked = True
    store = solfec.store                 # the frame table only: no frame is loaded (Solfec's TIMING rule)
    if not store.nframes:
        session.warn(f"the results in {solfec.outpath!r} hold no frames: the run that wrote them "
                     f"was interrupted before its first output; -w starts it again")
        return
    t0, t1 = store.duration()
    end = t0 + duration
    interval = max(float(store.column("OUTPUT_INTERVAL")[-1]), float(store.column("STEP")[-1]))
    if t1 < end - interval - store.tolerance():
        session.warn(f"the results in {solfec.outpath!r} end at t = {t1:g}, before t = {end:g} where "
                     f"this RUN ends: the run that wrote them stopped early (interrupted, or stopped "
                     f"by a CALLBACK); solfec-py -c continues it, -w starts it again")


def seek(solfec, time: float) -> None:
    """Load the frame at `time` located as Solfec does (ResultsStore.frame_index)."""
    ensure_loaded(solfec)
    load(solfec, solfec.store.frame_index(time))


def forward(solfec, steps: int) -> None:
    """Move `steps` frames (negative: backwards), clamped to the stored range."""
    ensure_loaded(solfec)
    i = min(max(solfec.store.current + steps, 0), solfec.store.nframes - 1)
    load(solfec, i)


# ---------------------------------------------------------------------- continuation
def restore_last(solfec) -> tuple | None:
    """-c: re-initialise the model from the last stored frame — body states, deleted
    bodies, constraints (`restore_constraints`), time, step, output and CALLBACK times;
    returns the clock (base, h, k) to continue with, or None when there is nothing to
    continue from."""
    store, domain = solfec.store, solfec.domain
    if not store.nframes:
        return None
    i = store.nframes - 1
    keep = set()
    for fam, block in list(domain.blocks.items()):
        if fam not in frames.ALL_FAMILIES:
            continue
        state = store.frame_values(fam, i)
        keep.update(int(v) for v in state[0])
        apply_state(block, state)
        if fam in frames.CARRIED:
            block.restore_carried(store.frame_carry(fam, i))
    for body in list(domain.bodies):      # deleted during the stored run (EXTENTS)
        if body.id not in keep:
            domain.delete(body)
    restore_constraints(domain, store.frame_constraints(i))
    row = store.table[i]
    c = store.col
    domain.time = float(row[c("TIME")])
    domain.step = float(row[c("STEP")])
    domain.steps_done = int(row[c("STEPS")])
    solfec.output_time = float(row[c("OUTPUT_TIME")])
    solfec.output_interval = float(row[c("OUTPUT_INTERVAL")])
    if domain.callback is not None and np.isfinite(row[c("CALLBACK_TIME")]):
        domain.callback.next_time = float(row[c("CALLBACK_TIME")])
    # the statistics of the last solve, which the frames of steps without a solve repeat
    # (a zero is a statistic no solver filled: left to the solver object, as before)
    domain.statistics = {name: (int(v) if name.endswith(("ITERS", "CONS", "BODS")) else float(v))
                         for name in frames.STATISTICS if name in store.column_names
                         for v in (row[c(name)],) if v != 0.0}
    return (float(row[c("CLOCK_BASE")]), float(row[c("CLOCK_H")]), int(row[c("CLOCK_K")]))


def restore_constraints(domain, rows: np.ndarray) -> None:
    """-c: make the domain's constraint set the one stored in `rows` (one frame, format
    version 3): the deck's constraints stored there (same id, kind and bodies) keep their
    objects and take the stored values; the stored contacts are created again with their
    ids, geometry, reactions, cohesion and surface material (looked up from the surface
    pair, as contact detection does); deck constraints absent from the frame (broken or
    deleted before it) are removed; the rows end in the stored order (the order of the
    Gauss-Seidel sweep) and the next new constraint gets the id it got in the
    uninterrupted run (the smallest id not in use)."""
    from solfec_py import constraints as C

    cons = domain.constraints
    if not isinstance(cons, C.ConstraintSet):
        if not rows.shape[0]:
            return
        cons = C.constraint_set(domain)
    cset = cons
    col = frames.CCOL
    ids = rows[:, col["ID"]].astype(np.int64)
    if (ids <= 0).any():
        raise ResultsError("the stored constraint rows have no ids (results of an older solfec-py);"
                           " they cannot be continued (use -w)")
    src, dst = match_constraints(cset, rows)
    keep = np.zeros(cset.count, dtype=bool)
    keep[dst] = True
    cset.remove_rows(np.flatnonzero(~keep))         # deck constraints gone before the frame
    new = np.setdiff1d(np.arange(rows.shape[0]), src)
    if new.size:
        _recreate_contacts(domain, cset, rows[new])
    have = cset.live("id")                          # every row is now a stored one
    order = np.argsort(have, kind="stable")
    live = order[np.minimum(np.searchsorted(have[order], ids), max(have.size - 1, 0))]
    if cset.count != ids.size or not np.array_equal(have[live], ids):
        raise ResultsError(f"stored constraint ids are not distinct: {ids.tolist()}")
    for name, c in _RESTART_FIELDS:
        getattr(cset, name)[live] = rows[:, c]
    cset.base[live] = rows[:, frames.BASE].reshape(-1, 3, 3).transpose(0, 2, 1)   # stored column-major
    cset.reorder(live)
    cset.reset_ids()


def _recreate_contacts(domain, cset, rows: np.ndarray) -> None:
    """CONTACT rows for stored constraints the deck did not create, with their stored ids
    and the surface-material fields of their surface pairs (contact/detect.py assigns
    them the same way when it creates a contact; cohesion comes from the stored row)."""
    from solfec_py import constraints as C
    from solfec_py.bodies import BODY_KINDS
    from solfec_py.contact.detect import assign_material

    col = frames.CCOL
    kind = rows[:, col["KIND"]].astype(np.int64) - 1
    ids = rows[:, col["ID"]].astype(np.int64)
    bid = rows[:, col["BID1"]:col["BID2"] + 1].astype(np.int64)
    other = np.flatnonzero(kind != C.CONTACT)
    if other.size:
        k = int(other[0])
        name = C.KINDS[kind[k]] if 0 <= kind[k] < len(C.KINDS) else f"code {kind[k] + 1}"
        raise ResultsError(f"the stored constraint {ids[k]} ({name}, bodies {bid[k, 0]} and {bid[k, 1]}) is not"
                           " among the constraints the deck creates: the deck differs from the one that"
                           " wrote the results, which cannot be continued with it (use -w)")
    by_id = domain.by_id
    missing = [int(b) for b in np.unique(bid[bid > 0]).tolist() if int(b) not in by_id]
    if missing or (bid[:, 0] <= 0).any():
        raise ResultsError(f"stored contacts refer to bodies {missing or [0]} that the model does not hold;"
                           " the deck differs from the one that wrote the results (use -w)")
    masters = [by_id[b] for b in bid[:, 0].tolist()]
    slaves = [by_id[b] if b > 0 else None for b in bid[:, 1].tolist()]
    names = sorted({BODY_KINDS[b.kind].family for b in masters + slaves if b is not None})
    code = {name: i for i, name in enumerate(names)}
    family = np.array([[code[BODY_KINDS[m.kind].family], -1 if s is None else code[BODY_KINDS[s.kind].family]]
                       for m, s in zip(masters, slaves)], dtype=np.int64)
    new = cset.add_with_ids(C.CONTACT, masters, slaves, np.where(family >= 0, bid, 0), family, names, ids)
    cset.spair[new] = rows[:, col["SURF1"]:col["SURF2"] + 1].astype(np.int64)
    assign_material(domain.surface_materials, cset, new)     # cohesion: the stored value (caller)


# ---------------------------------------------------------------------- INITIALIZE_STATE
def initialize_state(domain, path: str, time: float, patterns=None) -> int:
    """Overwrite conf and velo of the model's bodies with the frame at `time` of the results
    in directory `path`: matched by id, or (with `patterns`, regular expressions searched
    in labels) matched by label. Returns the number of bodies initialised."""
    try:
        store = ResultsStore.open_existing(results_path(path))
        if not store.nframes:
            raise ResultsError(f"results file {store.path!r} holds no frames")
        i = store.frame_index(time)
    except ResultsError as exc:
        raise ResultsError(f"State initialization has failed: {exc}") from None
    reg = store.registry
    label_of = dict(zip(reg["id"].tolist(), reg["label"]))
    done = 0
    for fam, block in domain.blocks.items():
        if fam not in frames.ALL_FAMILIES or not block.count:
            continue
        ids, sizes, values = store.frame_values(fam, i)
        if patterns is None:
            src, dst = match(block, ids)
        else:
            by_label: dict = {}
            for k, bid in enumerate(ids.tolist()):
                lab = label_of.get(bid, "")
                if lab and any(p.search(lab) for p in patterns):
                    by_label.setdefault(lab, k)
            pairs = [(by_label[b.label], b.row) for b in block.bodies if b.label in by_label]
            src = np.array([p[0] for p in pairs], dtype=np.int64)
            dst = np.array([p[1] for p in pairs], dtype=np.int64)
        if src.size:
            block.set_state_values(dst, frames.pick(values, sizes, src), sizes[src], parts=("conf", "velo"))
            done += src.size
    return done


def compile_patterns(patterns) -> list:
    """POSIX basic regular expressions (Solfec-1.0 user manual, INITIALIZE_STATE, XDMF_EXPORT) as Python patterns."""
    return [re.compile(bre_to_python(p)) for p in patterns]


def bre_to_python(pattern: str) -> str:
    """Translate a POSIX basic regular expression: `+ ? | ( ) { }` are literal unless
    escaped, `\\( \\) \\{ \\} \\| \\+ \\?` are the operators."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}|+?" else "\\" + nxt)
            i += 2
            continue
        out.append("\\" + ch if ch in "(){}|+?" else ch)
        i += 1
    return "".join(out)
