"""What RUN does with results (layer 6): the output times, writing
a frame to the results store and to the live ParaView files, and continuing a run from
its last stored frame (-c). Reference: Solfec-1.0 user manual, command line (-c), time stepping (frame 0, output times).

`solfec` is the SOLFEC deck object (duck-typed: `domain`, `store`, `xdmf_live`,
`outpath`, `output_time`, `output_interval`).
"""
from __future__ import annotations

from solfec_py import session, timestep
from solfec_py.errors import SolfecError
from solfec_py.output import frame_parts, replay, xdmf


def output_hook(solfec):
    """Write a frame at the first step whose time reaches `output_time` (every step
    without OUTPUT); the next output time is the last one plus the interval (Solfec's
    sol.c: frames follow the accumulated clock, so a frame may come one step after a
    multiple of the interval)."""

    def hook(domain):
        if domain.time >= solfec.output_time:
            solfec.output_time += solfec.output_interval
            write_frame(solfec)
            for name in domain.timers:      # the timers go on existing (TIMING reads 0.0)
                domain.timers[name] = 0.0

    return hook


def writes(solfec) -> bool:
    """Does this process write the results? Serial runs do; of a parallel run, rank 0 writes
    the one model the ranks' parts make (docs/parallel.md)."""
    from solfec_py.parallel import comm

    return comm.rank() == 0


def write_frame(solfec) -> None:
    """A frame in the results store, then in the live ParaView files; when the store's
    flush is due, the ParaView series is synced first, then the store flushed: the frames
    of the results on disk are always in the ParaView files too (a continued run after a
    kill finds every frame it keeps in both). On several ranks each rank's owned bodies and
    constraints go to rank 0, which writes them as one frame (no live ParaView files: the
    XDMF_EXPORT of the stored run writes them)."""
    domain = solfec.domain
    clock = (domain.time, domain.step, 0)    # time = base + k h with k = 0: the time itself
    par = domain.parallel
    if par is not None:
        parts = frame_parts.collect(domain, owned=par.owned_rows, geometry_known=par.geometry_sent,
                                    stepped=domain.initialized)
        par.geometry_sent.update(parts.geometry)
        every = par.comm.gather_object(parts)
        if every is None:
            return
        solfec.store.write_parts(solfec, frame_parts.merge(every), clock, flush=True)
        return
    if not writes(solfec):
        return
    store = solfec.store
    index, cons = store.write_frame(solfec, clock, flush=False)
    live = solfec.xdmf_live
    due = store.flush_due()
    if live:
        try:
            live.write_frame(index, domain.time, domain.bodies, cons, sync=due)
        except (OSError, SolfecError) as exc:
            session.warn(f"ParaView export stopped at t = {domain.time:g}: {exc}")
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
    series = xdmf.XdmfSeries(solfec.outpath, stem, heavy, xdmf.default_attributes(solfec.domain.bodies),
                             coarse=True)
    try:
        series.start(keep_frames)
    except (OSError, KeyError, ValueError, RuntimeError) as exc:
        series.close_quietly()
        series = False
        if keep_frames:             # a series damaged by a killed run: start it afresh
            session.warn(f"the ParaView series in {solfec.outpath!r} cannot be continued ({exc}); it starts"
                         f" afresh at frame {keep_frames} (XDMF_EXPORT writes the earlier frames)")
            series = xdmf.XdmfSeries(solfec.outpath, stem, heavy, coarse=True)
            try:
                series.start(0)
            except (OSError, KeyError, ValueError, RuntimeError) as again:
                series.close_quietly()
                session.warn(f"ParaView export disabled: {again}")
                series = False
        else:
            session.warn(f"ParaView export disabled: {exc}")
    solfec.xdmf_live = series


def _start_live_xdmf_serial(solfec, keep_frames: int = 0) -> None:
    """The live ParaView series of a serial run; a parallel run writes none (its results
    give them afterwards: XDMF_EXPORT, docs/parallel.md) and says so once."""
    from solfec_py.parallel import comm

    if comm.size() > 1:
        if solfec.xdmf_live is None and xdmf.live_enabled():
            session.note(f"parallel run on {comm.size()} ranks: no live ParaView files; write them from the"
                         " stored results afterwards (XDMF_EXPORT)")
        solfec.xdmf_live = False
        return
    start_live_xdmf(solfec, keep_frames)


def finish(solfec) -> None:
    """After a RUN: trim and close the results file and the live ParaView data."""
    if not writes(solfec):
        return
    try:
        solfec.store.close()
    finally:
        if solfec.xdmf_live:
            solfec.xdmf_live.close()


def begin(solfec) -> None:
    """Before the steps of a (not continued) RUN: open the store; frame 0 at t = 0."""
    domain = solfec.domain
    if writes(solfec):
        solfec.store.start_writing(compression=solfec.output_compression, domain=solfec.domain)
        _start_live_xdmf_serial(solfec)
    if solfec.runs == 0 and domain.time == 0.0:
        timestep.initialize(domain)
        write_frame(solfec)


def continue_run(solfec, duration: float) -> float:
    """-c: the model's state from the last stored frame; returns the remaining duration
    (RUN's duration shortened by the time already computed, Solfec-1.0 user manual, command line)."""
    domain = solfec.domain
    t_start = domain.time
    from solfec_py.parallel import comm

    if writes(solfec):
        solfec.store.start_writing(append=True)
    comm.world().barrier()      # the other ranks of a parallel run read what rank 0 kept
    if not writes(solfec):
        solfec.store.refresh()
    replay.restore_last(solfec)
    if writes(solfec):
        _start_live_xdmf_serial(solfec, keep_frames=solfec.store.nframes)
    timestep.initialize(domain)
    remaining = t_start + duration - domain.time
    # the uninterrupted run called the CALLBACK right after storing this frame (every
    # frame but frame 0 is stored after a step, before the CALLBACK of that step)
    if solfec.store.nframes > 1 and remaining > 0.0 and not timestep._call_callback(domain):
        remaining = 0.0
    return remaining
