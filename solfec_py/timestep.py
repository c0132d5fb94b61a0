"""The step driver (layer 6): one time step in Solfec's order and the RUN loop with
output, CALLBACK, STOP-file and progress hooks. Reference: Solfec-1.0 dom.c, the time step, Solfec-1.0 user manual, time stepping
(Solfec dom.c DOM_Update_Begin/End, sol.c SOLFEC_Run).
"""
from __future__ import annotations

import gc
import math
import time as wallclock
from dataclasses import dataclass, field
from typing import Callable

from solfec_py import constraints as C, contact, session, solvers
from solfec_py.domain import Domain
from solfec_py.errors import InputError, InputTypeError, SimulationError
from solfec_py.validate import LIMITS
from solfec_py.solvers.overlap_correction import correct as correct_overlaps

TIMERS = ("TIMINT", "CONUPD", "CONDET", "LOCDYN", "CONSOL")


@dataclass
class RunHooks:
    """What RUN does around the steps: all optional."""

    after_step: list = field(default_factory=list)     # f(domain) after every step
    should_stop: Callable[[Domain], bool] | None = None  # e.g. a STOP file exists


class timed:
    """`with timed(domain, name):` adds the block's wall time to domain.timers[name] (a
    plain class: cheaper than a generator context manager, five times a step)."""

    __slots__ = ("domain", "name", "start")

    def __init__(self, domain: Domain, name: str):
        self.domain, self.name = domain, name

    def __enter__(self):
        self.start = wallclock.perf_counter()

    def __exit__(self, *exc):
        timers = self.domain.timers
        timers[self.name] = timers.get(self.name, 0.0) + wallclock.perf_counter() - self.start
        return False


def initialize(domain: Domain) -> None:
    """Build inverse inertias (after any BODY_CHARS) and initial energies of all blocks."""
    for block in domain.active_blocks():
        block.dynamic_init()
    domain.__dict__.pop("contact_parts_cache", None)     # shapes may have changed between RUNs
    for name in TIMERS:             # the phase timers exist from the first RUN on (TIMING)
        domain.timers.setdefault(name, 0.0)
    domain.initialized = True


def step(domain: Domain, solver=None) -> float:
    """Advance the domain by one step; returns the step length used. On several ranks
    (domain.parallel) the step opens with the exchange of body rows (PARBAL: migration,
    ghosts, constraints of new owners, parallel/decomposition.py)."""
    h = domain.step
    par = domain.parallel
    if par is not None:
        with timed(domain, "PARBAL"):
            par.exchange()
    if domain.dynamic:
        half_critical = 0.5 * domain.critical_step()
        if par is not None:
            half_critical = float(par.comm.allreduce_min([half_critical])[0])
        if half_critical < h:
            h = domain.step = half_critical
    t = domain.time
    blocks = domain.active_blocks()
    with timed(domain, "TIMINT"):
        for block in blocks:
            (block.step_begin if domain.dynamic else block.qs_step_begin)(t, h)
    absorbed = 0
    if domain.constraints:
        with timed(domain, "CONUPD"):   # points, frames, gaps, targets at q(t + h/2)
            absorbed = _absorbed(domain, blocks)
            if absorbed < C.constraint_set(domain).count:
                solvers.update(domain, t, h)
    with timed(domain, "CONDET"):       # existing contacts re-evaluated, new ones found
        new = contact.detect(domain)
    solve = bool(domain.constraints) and C.constraint_set(domain).count > absorbed
    if par is not None:                 # every rank takes part in the solve when one has rows
        solve = bool(par.comm.allreduce_max([float(solve)])[0])
    if solve:
        if solver is not None:          # (constraints the blocks enforce themselves need no solve)
            with timed(domain, "CONSOL"):
                solver.solve(domain, h)
    domain.statistics = dict(getattr(domain, "statistics", None) or {}, NEWCONS=new)
    with timed(domain, "TIMINT"):
        for block in blocks:
            (block.step_end if domain.dynamic else block.qs_step_end)(t, h)
    correct_overlaps(domain, h)         # OVERLAP_CORRECTION (opt-in; configuration only, docs/contact.md)
    if domain.constraints:
        solvers.delete_overstressed(domain)   # broken links / fixed points (Solfec-1.0 ldy.c, constraint kinds)
    domain.steps_done += 1
    return h


# a step cut by the critical step below the deck's step by more than this factor is
# reported (with the body and element that cause it) before the run starts
FAR_BELOW = 1e3


def check_step_budget(domain: Domain, t_end: float, steps: int = 0, h: float | None = None) -> float:
    """The step the run goes on with (before the first step: the deck's step, cut to half the
    critical step of a dynamic analysis as `step` will cut it); an error when the steps
    taken so far and those left to t_end at that step exceed LIMITS.steps, naming the body
    and element that set the critical step (docs/limits.md). Before the first step, a step
    cut more than FAR_BELOW times below the deck's is reported with a warning."""
    deck = domain.step
    if h is None:
        h = deck
        if domain.dynamic:
            h = min(h, 0.5 * domain.critical_step())
    left = (t_end - domain.time) / h if h > 0 else math.inf
    if steps + left > LIMITS.steps:
        cut = domain.dynamic and h >= 0.5 * domain.critical_step()     # h is the critical cut
        source = domain.critical_source() if cut else ""
        cause = f"half the critical step of {source}" if source else "the step"
        where = f"at t = {domain.time:g}, after {steps} steps, " if steps else ""
        message = (f"{where}RUN needs {steps + left:.3g} steps of {h:.3g} ({cause}) to reach t = {t_end:g};"
                   f" one RUN may take at most {LIMITS.steps:.3g} (solfec-py's limit, docs/limits.md): "
                   + ("check that body's material and mesh, or shorten the run" if source
                      else "enlarge the step or shorten the run"))
        raise (SimulationError if steps else InputError)(message)
    if not steps and h * FAR_BELOW < deck:
        session.warn(f"the step {deck:g} is cut to {h:.3g}, half the critical step of"
                     f" {domain.critical_source() or 'a body'}: {left:.3g} steps to reach t = {t_end:g}")
    return h


def _absorbed(domain: Domain, blocks) -> int:
    """How many constraints the blocks enforce themselves this step (BodyBlock.absorbed,
    e.g. the pinned nodes of finite-element bodies); their points are refreshed by the
    blocks (BodyBlock.refresh_absorbed), so when nothing else is constrained the step
    skips the constraint update and the solver."""
    cset = C.constraint_set(domain)
    count = 0
    for block in blocks:
        count += block.refresh_absorbed(cset)
    return count


def _call_callback(domain: Domain) -> bool:
    """Run the CALLBACK if due; False when it asked RUN to stop (returned 0)."""
    cb = domain.callback
    if cb is None or domain.time < cb.next_time:
        return True
    cb.next_time += cb.interval
    result = cb.function(*cb.data) if isinstance(cb.data, tuple) else cb.function(cb.data)
    try:
        return int(result) != 0
    except (TypeError, ValueError):
        name = getattr(cb.function, "__name__", "callback")
        raise InputTypeError(
            f"CALLBACK function {name!r} must return an int (0 stops the run), got {result!r}") from None


def run(domain: Domain, solver, duration: float, hooks: RunHooks | None = None,
        until: float | None = None) -> int:
    """Integrate for `duration` from the current time; returns the number of steps made.

    Solfec's clock (sol.c SOLFEC_Run, dom.c DOM_Update_End): the time accumulates,
    t += h, after every step, and the run goes on while t < t0 + duration, so the number
    of steps, the output frames and the CALLBACK times are those Solfec computes (with a
    step that divides the duration, round-off may add one last step, as in Solfec).
    `until` replaces t0 + duration (a continued run ends where the uninterrupted one did)."""
    hooks = hooks or RunHooks()
    initialize(domain)   # cheap and vectorised; picks up bodies and BODY_CHARS since the last RUN
    gc.freeze()          # the model built so far: out of the collector's scans while it runs
    try:
        return _steps(domain, solver, duration, hooks, until)
    finally:
        gc.unfreeze()    # collectable again after the RUN (a sweep runs many models in one process)


def _steps(domain: Domain, solver, duration: float, hooks: RunHooks, until: float | None) -> int:
    """The stepping loop of `run`."""
    t_end = domain.time + abs(duration) if until is None else until
    steps = 0
    par = domain.parallel
    if par is not None:
        from solfec_py.parallel import checks
    kinetic = domain.kinetic_energy_now() if par is None else checks.kinetic_energy(domain)
    h_seen = check_step_budget(domain, t_end)
    while domain.time < t_end:
        h = step(domain, solver)
        domain.time += h
        steps += 1
        if h != h_seen or steps > LIMITS.steps:        # the critical step cut the step again
            h_seen = check_step_budget(domain, t_end, steps, h)
        if par is not None:                     # the same checks over the ranks (parallel/checks.py)
            kinetic = checks.after_step(domain, kinetic, h)
            gone = checks.outside_extents(domain)
        else:
            domain.check_finite()
            if domain.dynamic:                  # blow-ups that stay finite (NaN check above)
                kinetic = domain.check_energy(kinetic, h)
            gone = domain.outside_extents()
        for body in gone:
            domain.delete(body)
        for hook in hooks.after_step:
            hook(domain)
        if not _call_callback(domain):
            break
        stop = hooks.should_stop is not None and hooks.should_stop(domain)
        if (stop if par is None else checks.any_rank(par.comm, stop)):
            break
    return steps


__all__ = ["RunHooks", "initialize", "step", "run", "SimulationError", "TIMERS"]
