"""Running and querying a model: RUN, OUTPUT, EXTENTS, CALLBACK, UNPHYSICAL_PENETRATION,
DURATION, ENERGY, TIMING, DISPLACEMENT, VELOCITY, STRESS and the READ-mode navigation
commands (layer 7). Reference: LANGUAGE §1.5, §13, §15.
"""
from __future__ import annotations

import os

import numpy as np

from solfec_py import session, timestep, validate as V
from solfec_py.api.common import require_body
from solfec_py.api.results import history_items
from solfec_py.api.solfec import SOLFEC, require_solfec
from solfec_py.api.solvers import is_solver
from solfec_py.bodies.base import Body
from solfec_py.domain import Callback
from solfec_py.errors import InputError, InputTypeError
from solfec_py.output import history, recorder, replay
from solfec_py.output.progress import Progress


def _stop_file(solfec):
    path = os.path.join(solfec.outpath, "STOP")
    return lambda domain: os.path.exists(path)


@V.command
def RUN(solfec, solver, duration):
    """Integrate `duration` from the current time (no-op in READ mode); with -c the first
    RUN continues from the last stored frame (LANGUAGE §1.2)."""
    domain = require_solfec("solfec", solfec)
    if not is_solver(solver):
        raise InputTypeError(f"'solver' must be a constraint solver object, got {V.describe(solver)}")
    duration = V.duration("duration", duration, domain.step)
    if solfec.mode == "READ":
        return None
    if solfec.continued and solfec.runs:
        raise InputError("Multiple RUN commands are not allowed in case of a continued [-c] analysis")
    solfec._run_solver = solver
    try:
        if solfec.continued:
            duration = recorder.continue_run(solfec, duration)
        else:
            recorder.begin(solfec)
        solfec.runs += 1
        if duration <= 1e-9 * domain.step:
            return None
        progress = Progress(solfec._verbose, domain.time, domain.time + duration, session.current().interval,
                            tty=session.current().progress, explicit=solfec.verbose_set)
        hooks = timestep.RunHooks(
            after_step=[recorder.clock_hook(solfec), recorder.output_hook(solfec), progress.update],
            should_stop=_stop_file(solfec))
        try:
            timestep.run(domain, getattr(solver, "engine", solver), duration, hooks)
        finally:
            progress.close(domain)
    finally:
        recorder.finish(solfec)
    return None


@V.command
def OUTPUT(solfec, interval, compression=V.MISSING):
    """Store a frame every `interval` of simulated time (0 = every step)."""
    domain = require_solfec("solfec", solfec)
    interval = V.nonnegative("interval", interval)
    on = V.given(compression) and V.on_off("compression", compression, what="compression mode")
    if solfec.mode == "READ":
        return None
    solfec.output_compression = on
    solfec.output_interval = interval
    solfec.output_time = domain.time + interval
    return None


@V.command
def EXTENTS(solfec, extents):
    """Bodies whose bounding box leaves (xmin, ymin, zmin, xmax, ymax, zmax) are deleted."""
    domain = require_solfec("solfec", solfec)
    box = V.tuple_of_numbers("extents", extents, 6)
    if not (box[:3] < box[3:]).all():
        raise InputError(f"'extents' must have min < max on every axis, got {extents!r}")
    if solfec.mode == "READ":
        return None
    domain.extents = tuple(box.tolist())
    return None


@V.command
def CALLBACK(solfec, interval, data, callback):
    """Call `callback(*data)` (tuple data) or `callback(data)` every `interval`; 0 stops RUN."""
    domain = require_solfec("solfec", solfec)
    interval = V.positive("interval", interval)
    V.is_callable("callback", callback)
    if solfec.mode == "READ":
        return None
    domain.callback = Callback(interval, data, callback, next_time=domain.time)
    return None


@V.command
def UNPHYSICAL_PENETRATION(solfec, depth):
    domain = require_solfec("solfec", solfec)
    depth = V.positive("depth", depth)
    if solfec.mode != "READ":
        domain.penetration_depth = depth
    return None


@V.command
def DURATION(solfec):
    """READ mode: (t_first, t_last) of the stored frames; WRITE mode: the current time."""
    domain = require_solfec("solfec", solfec)
    if solfec.mode == "READ":
        replay.ensure_loaded(solfec)
        return solfec.store.duration()
    return domain.time


def _bodies_of(name, value, domain):
    if V.given(value) is False or isinstance(value, SOLFEC):
        return None
    if isinstance(value, Body):
        return [require_body(name, value)]
    if isinstance(value, list) and all(isinstance(b, Body) for b in value):
        return [require_body(f"{name}[{i}]", b) for i, b in enumerate(value)]
    raise InputTypeError(f"'{name}' must be a SOLFEC a BODY object or a list of BODY objects, got {V.describe(value)}")


@V.command
def ENERGY(solfec, object=V.MISSING):
    """(kinetic, external, contact, friction, internal) over all bodies or the given ones."""
    domain = require_solfec("solfec", solfec)
    return tuple(domain.energy(_bodies_of("object", object, domain)).tolist())


@V.command
def TIMING(solfec, kind):
    """Wall-clock seconds of a phase since the last stored frame (READ mode: the value
    stored in the current frame; the phase timers read 0.0 in a frame without them)."""
    domain = require_solfec("solfec", solfec)
    kind = V.string("kind", kind)
    if kind not in domain.timers:
        raise InputError(f"Invalid timing kind {kind!r}; timers so far: {sorted(domain.timers)}")
    return domain.timers[kind]


@V.command
def DISPLACEMENT(body, point):
    """x(point) - point for a referential point."""
    body = require_body("body", body)
    X = V.point("point", point)
    return tuple((body.cur_point(X) - X).tolist())


@V.command
def VELOCITY(body, point):
    """Spatial velocity of the material point at referential `point`."""
    body = require_body("body", body)
    X = V.point("point", point)
    return tuple(body.point_velocity(X).tolist())


@V.command
def STRESS(body, point):
    """(sx, sy, sz, sxy, sxz, syz, mises): the Cauchy stress at a referential point (zero
    for rigid bodies, homogeneous in a pseudo-rigid body, at a finite-element mesh node the
    mean over its elements)."""
    body = require_body("body", body)
    X = V.point("point", point)
    return tuple(float(v) for v in body.block.point_stress(body.row, X))


@V.command
def SEEK(solfec, time):
    """READ mode: load the last frame with T <= time; a time outside the stored range
    loads the first / last frame with a warning (Solfec clamps silently)."""
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
    require_solfec("solfec", solfec)
    n = V.integer("steps", steps)
    if V.given(corotated_displacements):
        V.choice("corotated_displacements", corotated_displacements, ("TRUE", "FALSE"),
                 what="corotated_displacements string")
    if solfec.mode == "READ":
        replay.forward(solfec, n)
    return None


@V.command
def BACKWARD(solfec, steps):
    require_solfec("solfec", solfec)
    n = V.integer("steps", steps)
    if solfec.mode == "READ":
        replay.forward(solfec, -n)
    return None


@V.command
def HISTORY(solfec, list, t0, t1, skip=V.MISSING, progress=V.MISSING):
    """READ mode: (times, values...) from stored frames (LANGUAGE §15.6); WRITE mode: None."""
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
        lame = getattr(block, "lame", None)
        if lame is not None:
            out.update((b.id, tuple(lame[b.row].tolist())) for b in block.bodies)
    return out
