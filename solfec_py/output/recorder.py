"""What RUN does with results (layer 6): the simulation clock kept in every frame, writing
a frame to the results store and to the live ParaView files, and continuing a run from
its last stored frame (-c). Reference: Solfec-1.0 user manual, command line (-c), time stepping (frame 0, output times).

`solfec` is the SOLFEC deck object (duck-typed: `domain`, `store`, `clock`, `xdmf_live`,
`outpath`, `output_time`, `output_interval`).
"""
from __future__ import annotations

from solfec_py import session, timestep
from solfec_py.errors import SolfecError
from solfec_py.output import replay, xdmf


def start_clock(solfec) -> None:
    if solfec.clock is None:
        d = solfec.domain
        solfec.clock = [d.time, d.step, 0, d.time]


def clock_hook(solfec):
    """After-step hook (must run first): time = base + k h since the last change of the
    step — the step loop's own rule — kept across RUN calls and stored in every frame, so
    a continued run computes exactly the times of an uninterrupted one."""

    def hook(domain):
        c = solfec.clock
        if domain.step != c[1]:                 # the critical step changed: re-base
            c[0], c[1], c[2] = c[3], domain.step, 0
        c[2] += 1
        domain.time = c[0] + c[2] * c[1]
        c[3] = domain.time

    return hook


def output_hook(solfec):
    """Write a frame when `time >= output_time` (every step without OUTPUT), Solfec-1.0 user manual, time stepping."""

    def hook(domain):
        if domain.time >= solfec.output_time - 1e-12 * domain.step:
            solfec.output_time += solfec.output_interval
            write_frame(solfec)
            for name in domain.timers:      # the timers go on existing (TIMING reads 0.0)
                domain.timers[name] = 0.0

    return hook


def write_frame(solfec) -> None:
    """A frame in the results store, then in the live ParaView files; when the store's
    flush is due, the ParaView series is synced first, then the store flushed: the frames
    of the results on disk are always in the ParaView files too (a continued run after a
    kill finds every frame it keeps in both)."""
    start_clock(solfec)
    c = solfec.clock
    store = solfec.store
    index, cons = store.write_frame(solfec, (c[0], c[1], c[2]), flush=False)
    live = solfec.xdmf_live
    due = store.flush_due()
    if live:
        try:
            live.write_frame(index, solfec.domain.time, solfec.domain.bodies, cons, sync=due)
        except (OSError, SolfecError) as exc:
            session.warn(f"ParaView export stopped at t = {solfec.domain.time:g}: {exc}")
            solfec.xdmf_live = False
    if due:
        store.flush()


def start_live_xdmf(solfec, keep_frames: int = 0) -> None:
    """Open the live ParaView series of the output directory (once per SOLFEC object)."""
    if solfec.xdmf_live is not None:
        return
    if not xdmf.live_enabled():
        solfec.xdmf_live = False
        return
    stem, heavy = xdmf.live_names(solfec.outpath)
    series = xdmf.XdmfSeries(solfec.outpath, stem, heavy, coarse=True)
    try:
        series.start(keep_frames)
    except OSError as exc:
        session.warn(f"ParaView export disabled: {exc}")
        series = False
    solfec.xdmf_live = series


def finish(solfec) -> None:
    """After a RUN: trim and close the results file and the live ParaView data."""
    try:
        solfec.store.close()
    finally:
        if solfec.xdmf_live:
            solfec.xdmf_live.close()


def begin(solfec) -> None:
    """Before the steps of a (not continued) RUN: open the store; frame 0 at t = 0."""
    domain = solfec.domain
    solfec.store.start_writing(compression=solfec.output_compression, domain=solfec.domain)
    start_live_xdmf(solfec)
    start_clock(solfec)
    if solfec.runs == 0 and domain.time == 0.0:
        timestep.initialize(domain)
        write_frame(solfec)


def continue_run(solfec, duration: float) -> float:
    """-c: the model's state from the last stored frame; returns the remaining duration
    (RUN's duration shortened by the time already computed, Solfec-1.0 user manual, command line)."""
    domain = solfec.domain
    t_start = domain.time
    solfec.store.start_writing(append=True)
    clock = replay.restore_last(solfec)
    solfec.clock = [clock[0], clock[1], clock[2], domain.time]
    start_live_xdmf(solfec, keep_frames=solfec.store.nframes)
    timestep.initialize(domain)
    remaining = t_start + duration - domain.time
    # the uninterrupted run called the CALLBACK right after storing this frame (every
    # frame but frame 0 is stored after a step, before the CALLBACK of that step)
    if solfec.store.nframes > 1 and remaining > 1e-9 * domain.step and not timestep._call_callback(domain):
        remaining = 0.0
    return remaining
