"""READ-mode navigation (layer 7): SEEK, FORWARD, BACKWARD over the stored frames and
HISTORY of stored values. Reference: Solfec-1.0 user manual, results access.
"""
from __future__ import annotations

from solfec_py import session, validate as V
from solfec_py.api.results import history_items
from solfec_py.api.solfec import require_solfec
from solfec_py.output import history, replay


@V.command
def SEEK(solfec, time):
    """READ mode: show the stored frame at a time.

    ``SEEK(solfec, time)`` loads the frame stored at ``time``, or between two frames the one
    Solfec-1.0's binary search over the frame times probes last (either neighbour); bodies,
    constraints and ENERGY then show that frame. A time outside the stored range loads the
    first or the last frame with a warning. Does nothing in WRITE mode.

    Parameters
    ----------
    solfec : SOLFEC
    time : float
        [time].

    Examples
    --------
    >>> SEEK(sol, 0.5)
    >>> ball.conf
    """
    require_solfec("solfec", solfec)
    t = V.number("time", time)
    if solfec.mode == "READ":
        replay.ensure_loaded(solfec)
        store = solfec.store
        t0, t1 = store.duration()
        tol = store.tolerance()
        if t > t1 + tol or t < t0 - tol:
            session.warn(f"SEEK: time {t:g} is outside the stored range [{t0:g}, {t1:g}] of"
                         f" {store.path!r}; loading the {'last' if t > t1 else 'first'} frame")
        replay.seek(solfec, t)
    return None


@V.command
def FORWARD(solfec, steps, corotated_displacements=V.MISSING):
    """READ mode: move ``steps`` stored frames forward.

    ``FORWARD(solfec, steps | corotated_displacements)``. Does nothing in WRITE mode.

    Parameters
    ----------
    solfec : SOLFEC
    steps : int
        Frames to move (negative moves backward).
    corotated_displacements : str, optional
        ``'TRUE'``: after loading the frame, append its co-rotated displacements to every
        COROTATED_DISPLACEMENTS list of this SOLFEC (default ``'FALSE'``).

    Examples
    --------
    >>> SEEK(sol, 0.0)
    >>> FORWARD(sol, 10)
    """
    domain = require_solfec("solfec", solfec)
    n = V.integer("steps", steps)
    sample = False
    if V.given(corotated_displacements):
        sample = V.choice("corotated_displacements", corotated_displacements, ("TRUE", "FALSE"),
                          what="corotated_displacements string") == "TRUE"
    if solfec.mode == "READ":
        replay.forward(solfec, n)
        if sample:
            for record in getattr(domain, "frame_samplers", ()):
                record(domain)
    return None


@V.command
def BACKWARD(solfec, steps):
    """READ mode: move ``steps`` stored frames backward.

    ``BACKWARD(solfec, steps)``. Does nothing in WRITE mode.

    Parameters
    ----------
    solfec : SOLFEC
    steps : int

    Examples
    --------
    >>> BACKWARD(sol, 1)
    """
    require_solfec("solfec", solfec)
    n = V.integer("steps", steps)
    if solfec.mode == "READ":
        replay.forward(solfec, -n)
    return None


@V.command
def HISTORY(solfec, list, t0, t1, skip=V.MISSING, progress=V.MISSING):
    """READ mode: time histories of stored quantities.

    ``HISTORY(solfec, list, t0, t1 | skip, progress)`` returns ``(times, values1, values2, ...)``
    over the frames stored in ``[t0, t1]``, one list of values per item; ``None`` in WRITE
    mode, so a deck calls it after RUN and uses it when it is rerun (or builds the model
    again, see the tutorial on results). An item is

    - ``(solfec or body or [bodies], 'KINETIC' | 'EXTERNAL' | 'CONTACT' | 'FRICTION' | 'INTERNAL')``:
      an energy summed over bodies;
    - ``(body or label, point, entity)``: a value at a referential point, entity one of
      ``'CX' 'CY' 'CZ'`` (current position), ``'DX' 'DY' 'DZ'``, ``'VX' 'VY' 'VZ'``,
      ``'SX' 'SY' 'SZ' 'SXY' 'SXZ' 'SYZ' 'MISES'``;
    - ``(solfec or body or [bodies], direction or None, (surf1, surf2) or None, entity)``: a
      constraint total, entity ``'GAP'`` (minimum), ``'R'``, ``'CR'``, ``'U'``, ``'CU'``;
    - ``(joint, entity)``: a JOINT's coordinate ``'Q'`` / ``'Qk'``, rate ``'DQ'`` / ``'DQk'``
      (k-th, from 1; the layout of joint.q and joint.dq) or reaction ``'FX' 'FY' 'FZ' 'MX'
      'MY' 'MZ'`` (force and moment about the joint centre, world axes);
    - a string: a frame statistic such as ``'STEP'``, ``'CONS'``, ``'BODS'``, ``'GSITERS'``,
      ``'MERIT'`` or a timer (``'TIMINT'``, ``'CONDET'``, ...).

    Parameters
    ----------
    solfec : SOLFEC
    list : item or list of items
    t0, t1 : float
        [time]. Time range.
    skip : int, optional
        Use every skip-th frame (> 0).
    progress : str, optional
        ``'ON'`` prints a progress bar.

    Returns
    -------
    tuple of lists or None

    Raises
    ------
    InputTypeError, InputError
        A malformed item (the message says which item and why), a non-positive skip.

    Examples
    --------
    >>> t, ek, z = HISTORY(sol, [(sol, 'KINETIC'), (ball, (0, 0, 1), 'CZ')], 0, 1)
    """
    domain = require_solfec("solfec", solfec)
    t0 = V.number("t0", t0)
    t1 = V.number("t1", t1)
    if V.given(skip):
        V.positive_int("skip", skip)
    show = V.given(progress) and V.on_off("progress", progress,
                                          what="progress value (neither 'ON' nor 'OFF')")
    if solfec.mode != "READ":
        return None
    items = history_items(solfec, domain, list)
    replay.ensure_loaded(solfec)
    return history.history(solfec.store, items, t0, t1, skip if V.given(skip) else 1,
                           progress=show, materials=_lame_constants(domain))


def _lame_constants(domain) -> dict:
    """{body id: (lambda, mu)} of the bodies whose block keeps Lamé constants (stresses)."""
    out = {}
    for block in domain.blocks.values():
        lame = block.lame_constants()
        if lame is not None:
            out.update((b.id, tuple(lame[b.row].tolist())) for b in block.bodies)
    return out
