"""The summary RUN prints when it ends (layer 6): simulated time, steps, wall-clock and CPU
time, where the results are, and the health of the constraint solver (solves that stopped at
the iteration cap, the worst merit, contacts), with the command that plots them, and on
several ranks the load balance (imbalance, rebalancing, migrated bodies). Printed
when RUN's progress output is on (output.progress: a bar on a terminal, or the statistics
lines a deck asked for); docs/results.md shows an example.

`solver` is a deck solver object (api/solvers.py, duck-typed): `kind`, `solve_record()`
((solves so far, error code of the last solve)) and, for Gauss-Seidel and Newton,
`maxiter`.
"""
from __future__ import annotations

import math
import os
import time

import numpy as np

from solfec_py.constraints import CONTACT


class RunSummary:
    """What one RUN did, gathered after every step (`update`) and told at its end (`text`)."""

    def __init__(self, solver, domain, duration: float):
        self.solver = solver
        self.t0, self.requested = domain.time, duration
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()
        self.solves0 = self.last_solves = solver.solve_record()[0]
        self.steps = 0
        self.failed = {}                # error code -> (count, time of the first)
        self.worst_merit = -math.inf
        self.contacts = self.max_contacts = 0
        self._count = -1                # constraints after the last step (contacts counted when it changes)
        par = getattr(domain, "parallel", None)      # parallel/decomposition.py: the load balance
        self.rebalanced0 = par.rebalanced if par is not None else 0
        self.worst_imbalance, self.migrated = 1.0, 0

    def update(self, domain) -> None:
        """After a step: the solve it made (if any) and its contacts."""
        self.steps += 1
        solves, error = self.solver.solve_record()
        if solves != self.last_solves:
            self.last_solves = solves
            if error != "OK":
                count, first = self.failed.get(error, (0, domain.time))
                self.failed[error] = (count + 1, first)
            merit = (domain.statistics or {}).get("MERIT")
            if merit is not None and merit > self.worst_merit:
                self.worst_merit = float(merit)
        par = getattr(domain, "parallel", None)
        if par is not None:             # the imbalance of the step's partition and its migrations
            self.worst_imbalance = max(self.worst_imbalance, par.imbalance)
            self.migrated += par.migrated
        if par is not None and par.model_counts is not None:     # every rank's contacts
            self.contacts = par.model_counts[1]
            self.max_contacts = max(self.max_contacts, self.contacts)
            return
        cons = domain.constraints
        count = len(cons)
        if count != self._count or (domain.statistics or {}).get("NEWCONS"):   # else the same contacts
            self._count = count
            kind = getattr(cons, "kind", None)
            self.contacts = int(np.count_nonzero(kind[:count] == CONTACT)) if kind is not None else 0
            self.max_contacts = max(self.max_contacts, self.contacts)

    def text(self, domain, store, outpath: str) -> str:
        """The summary: three lines, indented after the first; on several ranks a fourth, the
        load balance (parallel/decomposition.py: max / mean of the ranks' loads)."""
        wall, cpu = time.perf_counter() - self.wall0, time.process_time() - self.cpu0
        span = f"t = {self.t0:.6g} -> {domain.time:.6g} s"
        if domain.time < self.t0 + self.requested - 0.5 * domain.step:
            span += f" (stopped before the {self.requested:.6g} s asked for)"
        lines = [f"RUN: {span} in {self.steps} steps; {_seconds(wall)} wall, {_seconds(cpu)} CPU"]
        frames = store.nframes if store is not None else 0
        where = os.path.relpath(store.path) if store is not None else outpath
        lines.append(f"  results: {where} ({frames} frames); plot them: solfec-py plot {outpath}")
        lines.append(f"  solver: {self._health()}; contacts: {self.contacts} at the end, at most {self.max_contacts}")
        par = getattr(domain, "parallel", None)
        if par is not None:
            lines.append(f"  parallel: {par.size} ranks; load imbalance {par.imbalance:.4g} at the end, at most"
                         f" {self.worst_imbalance:.4g} (tolerance {par.tolerance:g}); rebalanced"
                         f" {par.rebalanced - self.rebalanced0} times, {self.migrated} bodies migrated")
        return "\n".join(lines)

    def _health(self) -> str:
        kind = getattr(self.solver, "kind", type(self.solver).__name__)
        solves = self.last_solves - self.solves0
        if solves == 0:
            return f"{kind} not called (no constraints to solve)"
        parts = []
        capped = self.failed.get("DIVERGED")
        if capped:
            cap = getattr(self.solver, "maxiter", None)
            limit = f" (maxiter = {cap})" if cap is not None else ""
            parts.append(f"{kind} stopped at its iteration cap{limit} without converging in {capped[0]}"
                         f" of {solves} steps, first at t = {capped[1]:.6g} s")
        for code, (count, first) in sorted(self.failed.items()):
            if code != "DIVERGED":
                parts.append(f"{code} in {count} of {solves} steps, first at t = {first:.6g} s")
        if not parts:
            parts.append(f"{kind} converged in all {solves} steps that solved constraints")
        if self.worst_merit > -math.inf:
            parts.append(f"worst merit {self.worst_merit:.3g}")
        return "; ".join(parts)


def _seconds(value: float) -> str:
    if value < 60.0:
        return f"{value:.3g} s"
    minutes, seconds = divmod(value, 60.0)
    return f"{int(minutes)} min {seconds:02.0f} s"
