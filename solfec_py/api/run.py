"""Running and querying a model: RUN, OUTPUT, EXTENTS, CALLBACK, UNPHYSICAL_PENETRATION,
DURATION, ENERGY, TIMING, DISPLACEMENT, VELOCITY, STRESS (layer 7; the READ-mode
navigation commands are in api/navigation.py). Reference: Solfec-1.0 user manual, time stepping, running simulations, results access.
"""
from __future__ import annotations

import os
import time

from solfec_py import session, timestep, validate as V
from solfec_py.api import fracture_export
from solfec_py.api.common import elsewhere, require_body
from solfec_py.api.solfec import SOLFEC, require_solfec
from solfec_py.api.solvers import is_solver
from solfec_py.bodies.base import Body
from solfec_py.domain import Callback
from solfec_py.errors import InputError, InputTypeError
from solfec_py.output import provenance, recorder, replay
from solfec_py.output.progress import Progress
from solfec_py.output.run_summary import RunSummary


STOP_POLL_S = 0.1        # wall-clock seconds between looks for the STOP file


def _stop_file(solfec):
    """The run's stop test: does the output directory hold a file named STOP? Looked for at
    most every STOP_POLL_S of wall-clock time (a file-system call a step costs a small
    model's step a few per cent)."""
    path = os.path.join(solfec.outpath, "STOP")
    next_look = [0.0]

    def should_stop(domain) -> bool:
        now = time.monotonic()
        if now < next_look[0]:
            return False
        next_look[0] = now + STOP_POLL_S
        return os.path.exists(path)
    return should_stop


@V.command
def RUN(solfec, solver, duration):
    """Integrate the model over ``duration`` of simulated time.

    ``RUN(solfec, solver, duration)`` steps from the current time with ``solfec.step``,
    solving the constraints with ``solver`` at every step and storing frames as OUTPUT says.
    In READ mode it does nothing (the results exist). With ``solfec-py -c`` the first RUN
    continues from the last stored frame. A run that produces NaN or infinite values, or
    whose kinetic energy blows up (``SOLFEC.blowup``), stops with an error naming the body and
    the time; the frames stored until then stay readable. Creating a file named ``STOP`` in
    the output directory ends the run at the end of a step (looked for every 0.1 s of wall-clock time). A body that passes through
    another within one step is reported (``SOLFEC.tunnelling``). The frames reach the
    results every 0.2 s of wall-clock time and at the end, in files renamed into place: a
    run killed at any instant keeps every frame written until then (docs/results.md).
    A RUN that shows progress ends with a summary: times, results, solver health
    (docs/results.md, "After a RUN").

    Parameters
    ----------
    solfec : SOLFEC
        The analysis.
    solver : GAUSS_SEIDEL_SOLVER, PENALTY_SOLVER or NEWTON_SOLVER
        The constraint solver.
    duration : float
        [time]. Simulated time to integrate, >= 0; at most 10**8 steps per RUN, counted at the step
        the run takes (a dynamic run cuts the step to half the critical step of its
        pseudo-rigid and explicit finite-element bodies; docs/limits.md).

    Returns
    -------
    None

    Raises
    ------
    InputTypeError
        ``solfec`` or ``solver`` of the wrong type.
    InputError
        A negative or non-finite duration, too many steps (also at the step cut by the
        critical step: the body, element and material that set it are named), a second RUN
        of a continued analysis.
    SimulationError
        The run blew up, a body penetrated deeper than UNPHYSICAL_PENETRATION allows, the
        step shrank during the run to more steps than the limit, or a body passed through
        another with ``SOLFEC.tunnelling = 'STOP'``.

    Examples
    --------
    >>> sol = SOLFEC('DYNAMIC', 1E-3, 'out/drop')
    >>> ball = BODY(sol, 'RIGID', SPHERE((0, 0, 1), 0.1, 1, 1), BULK_MATERIAL(sol))
    >>> GRAVITY(sol, (0, 0, -9.81))
    >>> RUN(sol, GAUSS_SEIDEL_SOLVER(1E-4, 100), 0.5)
    """
    domain = require_solfec("solfec", solfec)
    if not is_solver(solver):
        raise InputTypeError(f"'solver' must be a constraint solver object, got {V.describe(solver)}")
    duration = V.duration("duration", duration, domain.step)
    if solfec.mode == "READ":
        replay.warn_short_store(solfec, duration)
        return None
    if solfec.continued and solfec.runs:
        raise InputError("Multiple RUN commands are not allowed in case of a continued [-c] analysis")
    solfec._run_solver = solver
    solfec.provenance = provenance.remember(solfec.outpath, session.current(), solfec.provenance,
                                            write=recorder.writes(solfec))
    until = None
    try:
        if solfec.continued:
            until = domain.time + duration       # where the uninterrupted run ends
            duration = recorder.continue_run(solfec, duration)
        else:
            recorder.begin(solfec)
        _distribute(domain)                      # after frame 0 or the restored state
        solfec.runs += 1
        if duration <= 0.0:
            return None
        verbose = solfec._verbose if session.current().speaks else "OFF"     # rank 0 of a parallel run
        progress = Progress(verbose, domain.time, domain.time + duration, session.current().interval,
                            tty=session.current().progress, explicit=solfec.verbose_set)
        summary = RunSummary(solver, domain, duration) if progress.talks else None
        hooks = timestep.RunHooks(
            after_step=[*fracture_export.after_step_hooks(solfec), recorder.output_hook(solfec), progress.update, *([summary.update] if summary else ()),
                        *getattr(domain, "samplers", ())],
            should_stop=_stop_file(solfec))
        try:
            timestep.run(domain, solver, duration, hooks, until)
        finally:
            progress.close(domain)
    finally:
        recorder.finish(solfec)
    if summary is not None:
        print(summary.text(domain, solfec.store, solfec.outpath), file=progress.stream, flush=True)
    return None


def _distribute(domain) -> None:
    """On several ranks, the first RUN partitions the bodies (parallel/decomposition.py)
    once every rank holds the whole model: built by the deck, or restored by -c from the
    last stored frame (so -c continues with any number of ranks)."""
    from solfec_py.parallel import comm

    if domain.parallel is None and comm.size() > 1:
        from solfec_py.parallel.decomposition import Decomposition

        domain.parallel = Decomposition(domain, comm.world())
        domain.parallel.start()


@V.command
def OUTPUT(solfec, interval, compression=V.MISSING):
    """Set how often frames are stored.

    ``OUTPUT(solfec, interval | compression)``: a frame every ``interval`` of simulated time
    (0 stores every step). Without OUTPUT every step is stored. Ignored in READ mode.

    Parameters
    ----------
    solfec : SOLFEC
    interval : float
        [time]. >= 0.
    compression : str, optional
        ``'ON'`` or ``'OFF'``: compressed HDF5 datasets.

    Raises
    ------
    InputTypeError, InputError
        A wrong ``solfec``, a negative interval, a compression value other than ON/OFF.

    Examples
    --------
    >>> OUTPUT(sol, 0.01)
    """
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
    """Delete bodies that leave a box.

    ``EXTENTS(solfec, extents)``: during RUN a body whose bounding box leaves the box
    ``(xmin, ymin, zmin, xmax, ymax, zmax)`` is deleted. Ignored in
    READ mode.

    Parameters
    ----------
    solfec : SOLFEC
    extents : tuple of 6 floats
        [length]. Minima, then maxima; each minimum must be below its maximum.

    Raises
    ------
    InputTypeError, InputError
        A wrong ``solfec``, a tuple of the wrong size, min >= max.

    Examples
    --------
    >>> EXTENTS(sol, (-10, -10, -1, 10, 10, 20))
    """
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
    """Call a Python function at regular intervals of simulated time during RUN.

    ``CALLBACK(solfec, interval, data, callback)`` calls ``callback(*data)`` when ``data`` is a
    tuple, else ``callback(data)``, after the first step and then every ``interval`` of
    simulated time. The callback returns an integer: 0 stops the RUN. Ignored in READ mode.

    Parameters
    ----------
    solfec : SOLFEC
    interval : float
        [time]. > 0.
    data : object
        Passed to the callback (a tuple is unpacked).
    callback : callable

    Raises
    ------
    InputTypeError, InputError
        A wrong ``solfec``, a non-positive interval, a callback that is not callable.

    Examples
    --------
    >>> def watch(body):
    ...     print(body.velo)
    ...     return 1              # 0 would stop the run
    >>> CALLBACK(sol, 0.1, (ball,), watch)
    """
    domain = require_solfec("solfec", solfec)
    interval = V.positive("interval", interval)
    V.is_callable("callback", callback)
    if solfec.mode == "READ":
        return None
    domain.callback = Callback(interval, data, callback, next_time=domain.time)
    return None


@V.command
def UNPHYSICAL_PENETRATION(solfec, depth):
    """Stop a run when a new contact penetrates deeper than ``depth``.

    ``UNPHYSICAL_PENETRATION(solfec, depth)``: RUN stops with an error when a
    contact is detected with a gap below ``-depth``. Ignored in READ mode.

    Parameters
    ----------
    solfec : SOLFEC
    depth : float
        [length]. > 0.

    Raises
    ------
    InputTypeError, InputError
        A wrong ``solfec``, a non-positive depth.

    Examples
    --------
    >>> UNPHYSICAL_PENETRATION(sol, 0.01)
    """
    domain = require_solfec("solfec", solfec)
    depth = V.positive("depth", depth)
    if solfec.mode != "READ":
        domain.penetration_depth = depth
    return None


@V.command
def DURATION(solfec):
    """The stored time range (READ mode) or the current time (WRITE mode).

    ``DURATION(solfec)`` returns ``(t_first, t_last)`` of the stored frames in READ mode and
    ``solfec.time`` in WRITE mode.

    Parameters
    ----------
    solfec : SOLFEC

    Returns
    -------
    tuple of 2 floats or float

    Examples
    --------
    >>> t0, t1 = DURATION(sol)      # READ mode
    """
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
    """Energies of all bodies or of some.

    ``ENERGY(solfec | object)`` returns ``(kinetic, external, contact, friction, internal)``:
    the kinetic energy, the work of external loads, the work of contact and of friction
    forces and the internal (strain) energy, summed over all bodies or over ``object``.

    Parameters
    ----------
    solfec : SOLFEC
    object : BODY or list of BODY, optional
        The bodies to sum over (default: all).

    Returns
    -------
    tuple of 5 floats

    Raises
    ------
    InputTypeError
        ``object`` not a BODY or a list of BODY objects, a deleted body.

    Examples
    --------
    >>> kin, ext, con, fri, internal = ENERGY(sol)
    >>> ENERGY(sol, ball)[0]
    """
    domain = require_solfec("solfec", solfec)
    return tuple(domain.energy(_bodies_of("object", object, domain)).tolist())


@V.command
def TIMING(solfec, kind):
    """Wall-clock seconds spent in a phase of the time step.

    ``TIMING(solfec, kind)``: the time spent since the last stored frame in ``kind``, one of
    ``'TIMINT'`` (time integration), ``'CONUPD'`` (constraint update), ``'CONDET'`` (contact
    detection), ``'LOCDYN'`` (local dynamics), ``'CONSOL'`` (constraint solution). In READ
    mode: the value stored in the current frame.

    Parameters
    ----------
    solfec : SOLFEC
    kind : str

    Returns
    -------
    float

    Raises
    ------
    InputError
        A kind that has no timer (the message lists the timers).

    Examples
    --------
    >>> RUN(sol, gs, 1.0)
    >>> TIMING(sol, 'CONDET')
    """
    domain = require_solfec("solfec", solfec)
    kind = V.string("kind", kind)
    if kind not in domain.timers:
        raise InputError(f"Invalid timing kind {kind!r}; timers so far: {sorted(domain.timers)}")
    return domain.timers[kind]


@V.command
def DISPLACEMENT(body, point):
    """Displacement of a material point.

    ``DISPLACEMENT(body, point)`` returns ``x(point) - point``, where ``point`` is given in
    the reference configuration and ``x`` maps it to the current one.

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length]. Referential point.

    Returns
    -------
    tuple of 3 floats

    Raises
    ------
    InputTypeError, InputError
        Not a live BODY, a point that is not 3 finite numbers.

    Examples
    --------
    >>> dx, dy, dz = DISPLACEMENT(ball, (0, 0, 1))
    """
    body = require_body("body", body)
    X = V.point("point", point)
    if elsewhere(body):
        return None
    return tuple((body.cur_point(X) - X).tolist())


@V.command
def VELOCITY(body, point):
    """Velocity of a material point.

    ``VELOCITY(body, point)`` returns the spatial velocity of the material point that was at
    ``point`` in the reference configuration.

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].

    Returns
    -------
    tuple of 3 floats

    Raises
    ------
    InputTypeError, InputError
        Not a live BODY, a point that is not 3 finite numbers.

    Examples
    --------
    >>> vx, vy, vz = VELOCITY(ball, (0, 0, 1))
    """
    body = require_body("body", body)
    X = V.point("point", point)
    if elsewhere(body):
        return None
    return tuple(body.point_velocity(X).tolist())


@V.command
def STRESS(body, point):
    """Cauchy stress at a material point.

    ``STRESS(body, point)`` returns ``(sx, sy, sz, sxy, sxz, syz, mises)`` at the referential
    ``point``: zero for rigid bodies, uniform over a pseudo-rigid body, and at a node of a
    finite-element mesh the mean over the node's elements. On finite-element bodies the
    values are Solfec-1.0's (fem.c): entries (0,0), (1,1), (2,2), (0,1), (0,2), (2,0) of
    F P / det F, which is the Cauchy stress P F^T / det F without rotation and differs
    from it at second order in the displacement gradient (docs/fem.md).

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length].

    Returns
    -------
    tuple of 7 floats

    Raises
    ------
    InputTypeError, InputError
        Not a live BODY, a point that is not 3 finite numbers.

    Examples
    --------
    >>> sx, sy, sz, sxy, sxz, syz, mises = STRESS(block, (0.5, 0.5, 0.5))
    """
    body = require_body("body", body)
    X = V.point("point", point)
    if elsewhere(body):
        return None
    return tuple(float(v) for v in body.block.point_stress(body.row, X))
