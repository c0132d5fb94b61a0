"""Layout of a results frame (layer 6): the columns of the per-frame table, of the body
state rows and of the constraint rows, and the gathering of those arrays from a live
domain. Reference: LANGUAGE §1.4, §15 (Solfec's HDF5 output, sol.c / dom.c output
routines); the layout itself is solfec-py's (documented in docs/results.md).

A frame is one row of the table `frames` (float64, columns `FRAME_COLUMNS`) plus, per body
family, a block of rows of `state/<family>` (conf | velo | energy, one row per body, in the
order of `ids/<family>`; for families whose bodies differ in state length, one flat run of
values, see RAGGED), a block of rows of `carry/<family>` (the state integration schemes
carry between steps, bodies that have some only) and a block of rows of `constraints`
(columns `CON_COLUMNS`).
Row blocks are addressed by offset/count columns of the frame table, so frames are
appended without rewriting anything and a half-written frame is simply not referenced.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import families
from solfec_py.bodies.rigid_schemes import CARRY_WIDTH as RIGID_CARRY_WIDTH
from solfec_py.constraints import KINDS

TIMERS = ("TIMINT", "CONUPD", "CONDET", "LOCDYN", "CONSOL", "PARBAL", "GSINIT", "GSRUN",
          "GSCOM", "GSMCOM", "LININIT", "LINUPD", "LINMV", "LINPRE", "LINRUN", "LINCOM")
# labelled solver statistics of LANGUAGE §15.6 item 4 (zeros until a solver fills them)
STATISTICS = ("GSITERS", "MERIT", "NTITERS", "GSCOLORS", "GSBOT", "GSMID", "GSTOP", "GSINN",
              "NEWCONS", "NEWBODS", "BSITERS")
ENERGIES = ("KINETIC", "EXTERNAL", "CONTACT", "FRICTION", "INTERNAL")  # storage order

# body families with fixed-width state rows: width of conf and velo (energy adds 5)
FAMILIES = {fam: sizes for fam, sizes in families().items() if sizes is not None}
# families whose bodies have states of different lengths (finite elements: 3 per node):
# `state/<family>` is flat (conf | velo | energy of each body in turn) and `sizes/<family>`
# holds (len(conf), len(velo)) of every body, addressed like `ids/<family>` (format 4)
RAGGED = tuple(fam for fam, sizes in families().items() if sizes is None)
ALL_FAMILIES = tuple(FAMILIES) + RAGGED
# families whose blocks carry scheme state between steps (`carried_rows()`, rows of
# body id, scheme code, step, state): width of a row of `carry/<family>` (format version 4)
CARRIED = {"rigid": 3 + RIGID_CARRY_WIDTH}

BASE_COLUMNS = (
    "TIME", "STEP", "STEPS", "BODS", "CONS",
    "CLOCK_BASE", "CLOCK_H", "CLOCK_K",                 # time = CLOCK_BASE + CLOCK_K * CLOCK_H
    "OUTPUT_TIME", "OUTPUT_INTERVAL", "CALLBACK_TIME",  # NaN CALLBACK_TIME: no callback
    "CON_OFF", "CON_CNT",
)


def _family_columns(family: str) -> tuple:
    f = family.upper()
    return (f"{f}_OFF", f"{f}_CNT", f"{f}_IDOFF")


# VALID (last, 1.0) marks a written row: the table is allocated ahead of the frames
FRAME_COLUMNS = (BASE_COLUMNS + tuple(f"E_{e}" for e in ENERGIES) + TIMERS + STATISTICS
                 + tuple(c for fam in ALL_FAMILIES for c in _family_columns(fam))
                 + tuple(f"{fam.upper()}_CARRY_{w}" for fam in CARRIED for w in ("OFF", "CNT")) + ("VALID",))
COL = {name: i for i, name in enumerate(FRAME_COLUMNS)}


def family_col(family: str, what: str) -> int:
    """Column index of OFF / CNT / IDOFF of a family."""
    return COL[f"{family.upper()}_{what}"]


def state_width(family: str) -> int:
    nc, nv = FAMILIES[family]
    return nc + nv + 5


# constraint rows ----------------------------------------------------------------------
CON_KINDS = KINDS                   # constraints.KINDS: CONTACT, FIXPNT, ... (stored code = index + 1)
CON_KIND_CODE = {k: i + 1 for i, k in enumerate(CON_KINDS)}
CON_COLUMNS = ("KIND", "BID1", "BID2", "SURF1", "SURF2",
               "PX", "PY", "PZ", "P2X", "P2Y", "P2Z",
               "B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8",   # base, column-major (t1, t2, n)
               "RT1", "RT2", "RN", "UT1", "UT2", "UN", "VT1", "VT2", "VN",
               "GAP", "AREA", "MERIT", "ID",      # ID: the constraint id (0 = unknown)
               # format version 3: what a continued run (-c) needs to rebuild the constraint
               # set exactly — the geometric object of each side (-1 whole body), the
               # referential points of master and slave (or the fixed spatial point), cohesion
               "ELEM1", "ELEM2", "MX", "MY", "MZ", "SX", "SY", "SZ", "COHESION")
CCOL = {name: i for i, name in enumerate(CON_COLUMNS)}
POINT = slice(CCOL["PX"], CCOL["PZ"] + 1)
BASE = slice(CCOL["B0"], CCOL["B8"] + 1)
REAC = slice(CCOL["RT1"], CCOL["RN"] + 1)
RELV = slice(CCOL["UT1"], CCOL["UN"] + 1)
VELO = slice(CCOL["VT1"], CCOL["VN"] + 1)
POINT2 = slice(CCOL["P2X"], CCOL["P2Z"] + 1)
ELEM = slice(CCOL["ELEM1"], CCOL["ELEM2"] + 1)
MPNT = slice(CCOL["MX"], CCOL["MZ"] + 1)
SPNT = slice(CCOL["SX"], CCOL["SZ"] + 1)


def _body_id(b) -> float:
    if b is None:
        return 0.0
    return float(b if isinstance(b, (int, np.integer)) else getattr(b, "id", 0) or 0)


def constraint_rows(domain) -> np.ndarray:
    """(ncon, len(CON_COLUMNS)) rows of the domain's constraints (empty when none).

    A constraint block may provide `results_rows()` returning this table directly (the fast
    path); otherwise each record is read through its attributes `kind`, `point`, `base`
    (3x3 with columns t1, t2, n, or a column-major 9-sequence), `R`, `U`, `V`, `gap`,
    `area`, `merit`, `bodies` (BODY objects or ids), `spair`/`surfaces`, `id` and, when
    present, `elem`, `mpnt`, `spnt`, `cohesion` (ELEM1/2 read -1 without `elem`).
    """
    cons = getattr(domain, "constraints", None)
    if cons is None:
        return np.zeros((0, len(CON_COLUMNS)))
    if hasattr(cons, "results_rows"):
        return np.asarray(cons.results_rows(), dtype=float).reshape(-1, len(CON_COLUMNS))
    if hasattr(cons, "live"):           # constraints.ConstraintSet: a structure of arrays
        return _set_rows(cons)
    rows = np.zeros((len(cons), len(CON_COLUMNS)))
    for i, c in enumerate(cons):
        row = rows[i]
        row[CCOL["KIND"]] = CON_KIND_CODE.get(str(getattr(c, "kind", "")), 0)
        bodies = getattr(c, "bodies", None) or getattr(c, "adjbod", None) or ()
        if not isinstance(bodies, (tuple, list)):
            bodies = (bodies,)
        for k, b in enumerate(list(bodies)[:2]):
            row[CCOL["BID1"] + k] = _body_id(b)
        pair = getattr(c, "spair", None) or getattr(c, "surfaces", None)
        if pair is not None:
            row[CCOL["SURF1"]:CCOL["SURF2"] + 1] = np.asarray(pair, float)[:2]
        p = np.asarray(getattr(c, "point", (0.0, 0.0, 0.0)), float).reshape(-1)
        row[CCOL["PX"]:CCOL["PX"] + min(6, p.size)] = p[:6]
        base = getattr(c, "base", None)
        if base is not None:
            b = np.asarray(base, float)
            row[BASE] = b.T.reshape(-1) if b.shape == (3, 3) else b.reshape(-1)[:9]
        for name, sl in (("R", REAC), ("U", RELV), ("V", slice(CCOL["VT1"], CCOL["VN"] + 1))):
            v = getattr(c, name, None)
            if v is not None:
                row[sl] = np.asarray(v, float).reshape(-1)[:3]
        for name in ("gap", "area", "merit", "id", "cohesion"):
            v = getattr(c, name, None)
            if v is not None:
                row[CCOL[name.upper()]] = float(v)
        elem = getattr(c, "elem", None)
        row[ELEM] = (-1.0, -1.0) if elem is None else np.asarray(elem, float).reshape(-1)[:2]
        for name, sl in (("mpnt", MPNT), ("spnt", SPNT)):
            v = getattr(c, name, None)
            if v is not None:
                row[sl] = np.asarray(v, float).reshape(-1)[:3]
    return rows


def _set_rows(cset) -> np.ndarray:
    """Rows of a constraints.ConstraintSet (kinds in the same order, codes from 0)."""
    n = len(cset)
    rows = np.zeros((n, len(CON_COLUMNS)))
    if not n:
        return rows
    live = cset.live
    rows[:, CCOL["KIND"]] = live("kind") + 1
    rows[:, CCOL["BID1"]:CCOL["BID2"] + 1] = live("bid")
    rows[:, CCOL["SURF1"]:CCOL["SURF2"] + 1] = live("spair")
    rows[:, POINT] = live("point")
    rows[:, POINT2] = live("point2")
    rows[:, BASE] = live("base").transpose(0, 2, 1).reshape(n, 9)     # columns t1, t2, n
    rows[:, REAC] = live("R")
    rows[:, RELV] = live("U")
    rows[:, VELO] = live("V")
    for name in ("gap", "area", "merit", "id", "cohesion"):
        rows[:, CCOL[name.upper()]] = live(name)
    rows[:, ELEM] = live("elem")
    rows[:, MPNT] = live("mpnt")
    rows[:, SPNT] = live("spnt")
    return rows


# gathering a frame from a live domain --------------------------------------------------
def body_ids(block) -> np.ndarray:
    """Ids (n,) of the bodies of a block, in row order."""
    return np.fromiter((b.id for b in block.bodies), dtype=np.int64, count=block.count)


def value_offsets(sizes: np.ndarray) -> np.ndarray:
    """(n + 1,) offsets of the bodies' records (conf | velo | energy) in a flat state."""
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
    return np.concatenate([[0], np.cumsum(sizes.sum(axis=1) + 5)]).astype(np.int64)


def pick(values: np.ndarray, sizes: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The records of bodies `which` (indices into sizes) of a flat state, in that order."""
    off = value_offsets(sizes)
    which = np.asarray(which, dtype=np.int64)
    if not which.size:
        return np.zeros(0)
    return np.concatenate([values[off[k]:off[k + 1]] for k in which.tolist()])


def solver_statistics(domain, solver) -> dict:
    """The labelled statistics of the last solve: `domain.statistics` if a solver filled
    it, else what the solver object recorded (iterations, last merit value)."""
    stats = dict(getattr(domain, "statistics", None) or {})
    if solver is not None:
        kind = getattr(solver, "kind", "")
        iters = getattr(solver, "_iters", 0) or 0
        if kind.startswith("GAUSS_SEIDEL"):
            stats.setdefault("GSITERS", iters)
        elif kind.startswith("NEWTON"):
            stats.setdefault("NTITERS", iters)
        merhist = getattr(solver, "_merhist", None)
        if merhist:
            stats.setdefault("MERIT", merhist[-1])
    return stats


def table_row(solfec, clock, con_count: int, energy_total) -> np.ndarray:
    """The frame-table row of the current state (offsets are filled by the store)."""
    domain = solfec.domain
    row = np.zeros(len(FRAME_COLUMNS))
    row[COL["TIME"]] = domain.time
    row[COL["STEP"]] = domain.step
    row[COL["STEPS"]] = domain.steps_done
    row[COL["BODS"]] = len(domain.bodies)
    row[COL["CONS"]] = con_count
    row[COL["CLOCK_BASE"]], row[COL["CLOCK_H"]], row[COL["CLOCK_K"]] = clock
    row[COL["OUTPUT_TIME"]] = solfec.output_time
    row[COL["OUTPUT_INTERVAL"]] = solfec.output_interval
    cb = domain.callback
    row[COL["CALLBACK_TIME"]] = np.nan if cb is None else cb.next_time
    row[COL["E_KINETIC"]:COL["E_KINETIC"] + 5] = energy_total
    for name in TIMERS:
        row[COL[name]] = domain.timers.get(name, np.nan)
    for name, value in solver_statistics(domain, getattr(solfec, "_run_solver", None)).items():
        if name in COL:
            row[COL[name]] = float(value)
    row[COL["VALID"]] = 1.0
    return row
