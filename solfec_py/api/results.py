"""Deck commands over stored results (layer 7): HISTORY item checking, XDMF_EXPORT,
INITIALIZE_STATE and RIGID_TO_FEM (the READ-mode constraint list is `api/stored.py`). Reference: Solfec-1.0 user manual, INITIALIZE_STATE, XDMF_EXPORT, HISTORY (Solfec lng.c HISTORY, XDMF_EXPORT, INITIALIZE_STATE).
"""
from __future__ import annotations

import os
import re

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.common import require_body
from solfec_py.api.joints import JOINT
from solfec_py.bodies.articulated.kinds import zero_coordinates
from solfec_py.bodies.articulated.system import carry_columns
from solfec_py.api.solfec import SOLFEC, require_solfec
from solfec_py.bodies.base import Body
from solfec_py.errors import InputError, InputTypeError, ResultsError
from solfec_py.output import history
from solfec_py.output import replay
from solfec_py.output.frames import CCOL, constraint_rows
from solfec_py.output.xdmf import ATTRIBUTES, XdmfSeries, default_attributes


# ---------------------------------------------------------------------- HISTORY items
def _body_set(solfec, obj, where: str):
    """None for the SOLFEC object (all bodies), else a tuple of body ids."""
    if isinstance(obj, SOLFEC):
        return None
    if isinstance(obj, Body):
        return (require_body(where, obj).id,)
    if isinstance(obj, list) and all(isinstance(b, Body) for b in obj):
        return tuple(require_body(f"{where}[{i}]", b).id for i, b in enumerate(obj))
    raise InputTypeError(f"{where}: 'object' must be a SOLFEC a BODY object or a list of BODY objects,"
                         f" got {V.describe(obj)}")


def _entity(where: str, value, options) -> str:
    if not isinstance(value, str):
        raise InputTypeError(f"{where}: the entity must be a string, got {V.describe(value)}")
    if value not in options:
        raise InputError(f"{where}: Invalid entity kind: {value}; expected one of {list(options)}")
    return value


def history_item(solfec, item, where: str):
    """One HISTORY item (Solfec-1.0 user manual, HISTORY) as an output.history item."""
    if isinstance(item, str):
        if item not in history.STRINGS:
            raise InputError(f"{where}: Invalid string value {item!r}; expected an energy/point/constraint"
                             f" tuple or one of {list(history.STRINGS)}")
        return history.StringItem(item)
    if not isinstance(item, tuple):
        raise InputError(f"{where}: Invalid history item {V.describe(item)}; expected a tuple or a string")
    if len(item) == 2 and isinstance(item[0], JOINT):
        return _joint_item(item[0], item[1], where)
    if len(item) == 2:
        bodies = _body_set(solfec, item[0], where)
        kind = _entity(where, item[1], tuple(history.ENERGY_KINDS) + history.CONSTRAINT_ENTITIES)
        return history.TotalItem(bodies, kind)
    if len(item) == 3:
        body, point, entity = item
        if isinstance(body, Body):
            ref = require_body(f"{where} body", body).id
        elif isinstance(body, str):
            ref = body
        else:
            raise InputTypeError(f"{where}: the body must be a BODY object or a label string, got {V.describe(body)}")
        X = V.point(f"{where} point", point)
        return history.PointItem(ref, tuple(X.tolist()), _entity(where, entity, history.POINT_ENTITIES))
    if len(item) == 4:
        obj, direction, pair, entity = item
        bodies = _body_set(solfec, obj, where)
        d = None if direction is None else tuple(V.point(f"{where} direction", direction).tolist())
        if pair is not None:
            pair = tuple(V.tuple_of_numbers(f"{where} surface pair", pair, 2).tolist())
        return history.ConstraintItem(bodies, d, pair, _entity(where, entity, history.CONSTRAINT_ENTITIES))
    raise InputError(f"{where}: Invalid tuple size {len(item)}; a history tuple has 2, 3 or 4 items")


JOINT_ENTITIES = ("Q", "DQ", "FX", "FY", "FZ", "MX", "MY", "MZ")


def _joint_item(joint, entity, where: str):
    """(joint, 'Q' | 'DQ' | 'Qk' | 'DQk' | 'FX' ... 'MZ'): the k-th (1-based; 'Q' = 'Q1')
    joint coordinate, rate, or reaction component, read from the link's carried state."""
    record = joint._joint
    kind = record.kind
    nq, nv, nr, _ = carry_columns(kind)
    match = re.fullmatch(r"(DQ|Q)(\d*)", entity) if isinstance(entity, str) else None
    if match:
        k = int(match.group(2) or 1)
        size = nq if match.group(1) == "Q" else nv
        if not 1 <= k <= size:
            raise InputError(f"{where}: {record.describe()} has {size} {'coordinates' if size > 1 else 'coordinate'}"
                             f" ({match.group(1)}1 .. {match.group(1)}{size}), got {entity!r}")
        if match.group(1) == "Q":
            return history.CarryItem(record.child.id, k - 1, float(zero_coordinates(kind)[k - 1]))
        return history.CarryItem(record.child.id, nq + k - 1, 0.0)
    entity = _entity(where, entity, JOINT_ENTITIES)
    j = JOINT_ENTITIES.index(entity) - 2
    return history.CarryItem(record.child.id, nq + nv + j if j < nr else -1, 0.0)   # FREE: not stored


def history_items(solfec, domain, items) -> list:
    if not isinstance(items, list):
        return [history_item(solfec, items, "HISTORY item")]
    return [history_item(solfec, it, f"HISTORY item {k}") for k, it in enumerate(items)]


def stored_frames(solfec, first: bool = False):
    """READ mode: make the stored frames current one after another, from the second (the
    frames a CALLBACK called after every step saw) or with `first` from the first, and yield
    each frame's time; the model shows the frame while the loop body runs. A solfec-py helper
    for decks that check their stored results: `for t in stored_frames(sol): ...`. Nothing
    in WRITE mode."""
    require_solfec("solfec", solfec)
    if solfec.mode != "READ":
        return
    replay.ensure_loaded(solfec)
    with solfec.store.held_open():        # one file handle for the whole loop
        for i in range(0 if first else 1, solfec.store.nframes):
            replay.load(solfec, i)
            yield solfec.domain.time


# ---------------------------------------------------------------------- subsets
def _bbox_overlaps(body, box) -> bool:
    lo, hi = body.block.bounding_boxes()
    lo, hi = lo[body.row], hi[body.row]
    return bool(np.all(lo <= box[3:]) and np.all(hi >= box[:3]))


def subset_bodies(domain, subset) -> list:
    """Bodies selected by a subset specification (Solfec-1.0 user manual, XDMF_EXPORT)."""
    items = subset if isinstance(subset, list) else [subset]
    chosen: dict = {}
    for item in items:
        if isinstance(item, str):
            try:
                pattern = replay.compile_patterns([item])[0]
            except re.error as exc:
                raise InputError(f"Invalid subset definition: bad regular expression {item!r} ({exc})") from None
            found = [b for b in domain.bodies if b.label and pattern.search(b.label)]
        elif isinstance(item, Body):
            found = [require_body("subset", item)]
        elif isinstance(item, int) and not isinstance(item, bool):
            found = [domain.by_id[item]] if item in domain.by_id else []
        elif isinstance(item, tuple) and len(item) == 6:
            box = V.tuple_of_numbers("subset", item, 6)
            found = [b for b in domain.bodies if _bbox_overlaps(b, box)]
        else:
            raise InputError(f"Invalid subset definition: {V.describe(item)}; expected a label regular"
                             " expression, a BODY, a body id or a 6-tuple box")
        for b in found:
            chosen[b.id] = b
    if not chosen:
        raise InputError(f"Invalid subset definition (matching bodies not found): {subset!r}")
    return [chosen[i] for i in sorted(chosen)]


# ---------------------------------------------------------------------- XDMF_EXPORT
def _export_times(time):
    """('list', [t...]) or ('range', (t0, t1))."""
    if isinstance(time, tuple):
        if len(time) != 2:
            raise InputError(f"The 'time' tuple size should be two: (t0, t1), got {len(time)} items")
        return "range", tuple(V.number(f"time[{i}]", t) for i, t in enumerate(time))
    if isinstance(time, list):
        return "list", [V.number(f"time[{i}]", t) for i, t in enumerate(time)]
    return "list", [V.number("time", time)]


def _attributes(attributes, bodies):
    if not V.given(attributes):
        return default_attributes(bodies)
    if not isinstance(attributes, list):
        raise InputError("'attributes' should be a list of attributes, e.g. ['DISP', 'VELO', 'REAC', 'GAP'],"
                         f" got {V.describe(attributes)}")
    for a in attributes:
        if not isinstance(a, str):
            raise InputError(f"An attribute must be a string, got {V.describe(a)}")
        if a not in ATTRIBUTES:
            raise InputError(f"Invalid attribute name: {a}; expected one of {list(ATTRIBUTES)}")
    return tuple(attributes)


@V.command
def XDMF_EXPORT(solfec, time, path, subset=V.MISSING, attributes=V.MISSING):
    """Write stored frames (or the current state) as an XDMF series for ParaView.

    ``XDMF_EXPORT(solfec, time, path | subset, attributes)`` writes ``path/NAME_grids.xmf``,
    ``path/NAME_constraints.xmf`` (when there are constraints) and ``path/NAME.h5``, NAME being
    the last component of ``path``. In READ mode the frames at ``time``: one time, a list of
    times, or every frame in a ``(t0, t1)`` tuple; in WRITE mode the current state.

    Parameters
    ----------
    solfec : SOLFEC
    time : float, list of floats or tuple (t0, t1)
        [time].
    path : str
        Directory (created).
    subset : str, tuple or list, optional
        Bodies to export: label regular expressions, BODY objects, body ids and
        ``(xmin, ymin, zmin, xmax, ymax, zmax)`` boxes; default all.
    attributes : list of str, optional
        Any of ``'DISP' 'VELO' 'STRESS' 'REAC' 'RELV' 'GAP'``; default DISP, VELO, REAC, GAP,
        and STRESS when the model holds finite-element bodies.

    Raises
    ------
    InputTypeError, InputError
        A malformed time, an unknown attribute, a subset that selects nothing; a path the
        system cannot take (empty, a NUL character, too long, an existing file) or cannot
        write.

    Examples
    --------
    >>> XDMF_EXPORT(sol, (0.0, 1.0), 'out/drop/paraview')
    """
    domain = require_solfec("solfec", solfec)
    how, times = _export_times(time)
    path = V.file_path("path", path, "directory")
    attrs = _attributes(attributes, domain.bodies)
    name = os.path.basename(os.path.normpath(path))
    V.file_path("path", os.path.join(path, name + "_constraints.xmf"))    # the longest name written there
    try:
        os.makedirs(path, exist_ok=True)
        series = XdmfSeries(path, name, name + ".h5", attrs)
        series.start()
    except OSError as exc:
        raise InputError(f"cannot write the XDMF files in 'path' {path!r}: {exc.strerror or exc}") from None
    try:
        _export(solfec, domain, series, how, times, subset)
    finally:
        series.close()
    return None


def _export(solfec, domain, series, how, times, subset) -> None:
    if solfec.mode != "READ":
        bodies = subset_bodies(domain, subset) if V.given(subset) else list(domain.bodies)
        series.write_frame(0, domain.time, bodies, constraint_rows(domain))
        return
    replay.ensure_loaded(solfec)
    store = solfec.store
    if how == "range":
        frames = history.all_frames(store, *times)
    else:
        frames = sorted({store.frame_index(t) for t in times})
    before = store.current
    try:
        bodies = None
        for k, i in enumerate(frames):
            replay.load(solfec, int(i))
            if bodies is None:
                bodies = subset_bodies(domain, subset) if V.given(subset) else list(domain.bodies)
            cons = store.frame_constraints(int(i))
            if bodies is not domain.bodies and V.given(subset) and cons.shape[0]:
                ids = [b.id for b in bodies]
                cons = cons[np.isin(cons[:, CCOL["BID1"]], ids) | np.isin(cons[:, CCOL["BID2"]], ids)]
            series.write_frame(k, domain.time, bodies, cons)
    finally:
        replay.load(solfec, before)


# ---------------------------------------------------------------------- INITIALIZE_STATE
def _stored_state_args(command: str, solfec, path, time, subset, failure: str):
    """(domain, path, time, subset patterns) of a command that starts bodies from stored
    results (INITIALIZE_STATE, RIGID_TO_FEM), checked; None in READ mode (ignored there,
    with a warning, as in Solfec-1.0)."""
    domain = require_solfec("solfec", solfec)
    path = V.string("path", path)
    t = V.number("time", time)
    if t < 0:
        raise InputError(f"'time' must be >= 0, got {t!r}")
    patterns = _patterns(subset, failure)
    if solfec.mode == "READ":
        session.warn(f"{command} has been ignored in the 'READ' mode")
        return None
    return domain, path, t, patterns


def _patterns(subset, failure: str):
    """None, or the compiled label patterns of a 'subset' string or list of strings."""
    if not V.given(subset):
        return None
    if isinstance(subset, str):
        subset = [subset]
    elif isinstance(subset, list):
        if not subset:
            raise InputError("'subset' must be a string or a non-empty list of strings, got []")
        if not all(isinstance(s, str) for s in subset):
            raise InputTypeError("All elements of the 'subset' list must be strings")
    else:
        raise InputTypeError(f"'subset' must be a string or a list of strings, got {V.describe(subset)}")
    try:
        return replay.compile_patterns(subset)
    except re.error as exc:
        raise ResultsError(f"{failure}: bad regular expression in 'subset' ({exc})") from None


@V.command
def INITIALIZE_STATE(solfec, path, time, subset=V.MISSING):
    """Start from a stored state of another analysis.

    ``INITIALIZE_STATE(solfec, path, time | subset)`` overwrites ``conf`` and ``velo`` of the
    bodies with those stored at ``time`` in the results in directory ``path``: matched by body
    id, or with ``subset`` (label regular expressions) by label. Ignored (with a warning) in
    READ mode.

    Parameters
    ----------
    solfec : SOLFEC
    path : str
        An output directory holding results.
    time : float
        [time]. >= 0.
    subset : str or list of str, optional

    Raises
    ------
    InputTypeError, InputError
        A negative time, a malformed subset.
    ResultsError
        No results at ``path``, or a bad regular expression.

    Examples
    --------
    >>> INITIALIZE_STATE(sol, 'out/settle', 2.0)
    """
    args = _stored_state_args("INITIALIZE_STATE", solfec, path, time, subset, "State initialization has failed")
    if args is None:
        return None
    replay.initialize_state(*args)
    return None


@V.command
def RIGID_TO_FEM(path, time, solfec, subset=V.MISSING):
    """Start finite-element bodies from the motion of rigid bodies of another analysis.

    ``RIGID_TO_FEM(path, time, solfec | subset)`` (note the order) works as INITIALIZE_STATE
    with the results in directory ``path`` at ``time``: bodies are matched by id, or with
    ``subset`` (label regular expressions, POSIX basic syntax) by label, and a matched body
    of the stored kind takes the stored state; a FINITE_ELEMENT body matched with a stored
    RIGID body takes its rigid motion: every node X moves to ``x + R (X - X0)`` (X0 the FE
    body's centre, (R, x) the stored rotation and centre) with the velocity
    ``v + R (Omega x (X - X0))`` (Omega the stored referential angular velocity, v the
    centre velocity). Constraint points keep their reference positions. Ignored (with a
    warning) in READ mode.

    Parameters
    ----------
    path : str
        An output directory holding the rigid run's results.
    time : float
        [time]. >= 0.
    solfec : SOLFEC
    subset : str or list of str, optional

    Raises
    ------
    InputTypeError, InputError
        A negative time, a malformed subset.
    ResultsError
        No results at ``path``, or a bad regular expression ("Rigid to FEM state mapping
        has failed").

    Examples
    --------
    >>> RIGID_TO_FEM('out/rigid-run', 0.5, sol)      # doctest: +SKIP
    """
    args = _stored_state_args("RIGID_TO_FEM", solfec, path, time, subset, "Rigid to FEM state mapping has failed")
    if args is None:
        return None
    from solfec_py.output.rigid_to_fem import rigid_to_fem

    try:
        rigid_to_fem(*args)
    except ResultsError as exc:
        text = str(exc).replace("State initialization has failed", "Rigid to FEM state mapping has failed")
        raise ResultsError(text) from None
    return None
