"""What the step driver checks after every step of a run on several ranks (layer 5): states
that are not finite, the kinetic energy blow-up test of `Domain.check_energy` over the whole
model, bodies leaving EXTENTS, a STOP file; each over the bodies a rank owns, then agreed on
by all ranks, so that every rank stops at the same step with the same message.
Reference: domain.py (the serial checks), Solfec-1.0 dom.c (statistics reduced over ranks).
"""
from __future__ import annotations

import math

import numpy as np

from solfec_py.constraints import CONTACT
from solfec_py.errors import SimulationError


def _stop(domain, what: str, bid: int):
    """The SimulationError every rank raises (Domain._stop's message), marked collective:
    the command line prints it once."""
    try:
        domain._stop(what, domain.by_id[bid])
    except SimulationError as exc:
        exc.collective = True
        raise


def kinetic_energy(domain) -> float:
    """The model's kinetic energy stored by the blocks at the end of the last step."""
    dec = domain.parallel
    total = 0.0
    for block in domain.active_blocks():
        own = dec.owned_rows(block)
        total += float(block.energy[: block.count, 0][own].sum())
    return float(dec.comm.allreduce_sum([total])[0])


def _owned_counts(domain) -> tuple[float, float]:
    """(constraints, contacts) this rank owns (each constraint of the model counted once)."""
    dec, cons = domain.parallel, domain.constraints
    n = len(cons)
    kind = getattr(cons, "kind", None)
    if not n or kind is None:
        return float(n if kind is None else 0), 0.0
    mine = dec.constraint_owners(cons, np.arange(n)) == dec.rank
    return float(mine.sum()), float((mine & (kind[:n] == CONTACT)).sum())


def after_step(domain, before: float, h: float) -> float:
    """Finite states and energies, the blow-up test (dynamic runs); returns the model's
    kinetic energy and leaves the model's numbers of constraints and contacts in
    `domain.parallel.model_counts` (for the progress line and the run summary). As
    `Domain.check_energy`, the size scale and the body of the largest share are worked out
    only when the total grew by more than `blowup` (a second reduction, on every rank then)."""
    dec = domain.parallel
    comm = dec.comm
    bad = None
    total = 0.0
    owned = []
    for block in domain.active_blocks():
        n = block.count
        own = dec.owned_rows(block)
        owned.append((block, own))
        rows = block.nonfinite_rows()
        rows = rows[own[rows]] if rows.size else rows
        if rows.size and bad is None:
            bad = ("non-finite state", block.bodies[int(rows[0])].id)
        energy = block.energy[:n][own]
        # a finite sum means every entry is finite (else, or on overflow, the rows decide)
        if bad is None and not math.isfinite(float(energy.sum())) and not np.isfinite(energy).all():
            k = int(np.flatnonzero(~np.isfinite(energy).all(axis=1))[0])
            first = int(np.flatnonzero(own)[k])
            bad = (f"infinite energy {tuple(energy[k].tolist())} (kinetic, external, contact, friction,"
                   " internal)", block.bodies[first].id)           # (Domain.check_energy's words)
        total += float(energy[:, 0].sum())
    total, flag, ncons, ncontacts = comm.allreduce_sum([total, 0.0 if bad is None else 1.0, *_owned_counts(domain)])
    dec.model_counts = (int(ncons), int(ncontacts))
    if flag:
        found = [b for b in comm.allgather_object(bad) if b is not None]
        _stop(domain, found[0][0], found[0][1])
    if domain.dynamic and domain.blowup < math.inf and total > domain.blowup * before:
        scale, worst = 0.0, (-math.inf, 0)
        for block, own in owned:
            n = block.count
            if not own.any():
                continue
            kinetic = np.where(own, block.energy[:n, 0], -np.inf)
            r = int(np.argmax(kinetic))
            if kinetic[r] > worst[0]:
                worst = (float(kinetic[r]), block.bodies[r].id)
            lo, hi = block.bounding_boxes()
            size = 0.5 * np.linalg.norm(hi[:n] - lo[:n], axis=1)
            scale += float(np.sum(np.where(own, 0.5 * block.mass[:n] * (size / h) ** 2, 0.0)))
        scale = float(comm.allreduce_sum([scale])[0])
        if total > scale:
            worst_all = max(comm.allgather_object(worst))
            _stop(domain, f"kinetic energy blow-up: the total kinetic energy grew from {before:.4g} J to {total:.4g} J"
                          f" in one step (more than the factor SOLFEC.blowup = {domain.blowup:g}); {worst_all[0]:.4g} J",
                  worst_all[1])
    return total


def outside_extents(domain) -> list:
    """Owned bodies that left EXTENTS (the step driver deletes them; the other ranks drop
    their copies at the next exchange)."""
    dec = domain.parallel
    out = [b for b in domain.outside_extents() if dec.here(b)]
    dec.deleted += [b.id for b in out]
    return out


def any_rank(comm, flag: bool) -> bool:
    """True on every rank when `flag` is true on one."""
    return bool(comm.allreduce_max([1.0 if flag else 0.0])[0])
