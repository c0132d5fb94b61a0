"""Convergence studies of the rigid schemes on the exact and manufactured solutions of
verify/cases.py: errors at steps 0.05, 0.025, 0.0125 to t = 1, observed rates, tables
(layer 8). Reference: W. D. Henshaw, "Moving bodies with Overture and the CG solvers"
(2016), whose tables list the max errors of x, v, omega and their rates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solfec_py.bodies.rigid_schemes import SCHEMES
from solfec_py.errors import SimulationError
from solfec_py.integrators import integrate
from solfec_py.verify.cases import STEPS, T_END, Case

ROUNDOFF = 1e-12     # errors below this are round-off: no rate is shown for them


@dataclass
class Study:
    """Errors of one scheme on one case: `errors[i, q]` = max over time of the max-norm
    error of quantity `quantities[q]` at step `steps[i]`; `histories[i]` = (t, err (N+1, q))."""

    scheme: str
    case: str
    steps: tuple
    quantities: tuple
    errors: np.ndarray
    histories: list
    failure: str = ""

    @property
    def rates(self) -> np.ndarray:
        """log2 of successive error ratios (rows: step pairs); NaN where errors are round-off."""
        e = self.errors
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.log(e[:-1] / e[1:]) / np.log(np.asarray(self.steps[:-1]) / np.asarray(self.steps[1:]))[:, None]
        return np.where((e[:-1] > ROUNDOFF) & (e[1:] > ROUNDOFF), r, np.nan)

    @property
    def order(self) -> int:
        return SCHEMES[self.scheme].order


def applies(scheme: str, case: Case) -> bool:
    """Cases with added mass are run with the schemes that treat it implicitly."""
    return SCHEMES[scheme].IMPLICIT_ADDED_MASS or not case.implicit_added_mass_only


def run_study(scheme: str, case: Case, steps=STEPS, t_end: float = T_END) -> Study:
    """Integrate `case` with `scheme` at every step of `steps` and measure the errors."""
    errors, histories = [], []
    failure = ""
    for dt in steps:
        try:
            tr = integrate(scheme, dt=dt, t1=t_end, **case.integrate_kwargs())
        except SimulationError as exc:
            failure = str(exc)
            errors.append([math.nan] * len(case.compare))
            histories.append((np.zeros(0), np.zeros((0, len(case.compare)))))
            continue
        x, v, w, E = case.exact(tr.t)
        exact = {"x": x, "v": v, "omega": w, "E": E}
        got = {"x": tr.x, "v": tr.v, "omega": tr.omega, "E": tr.E}
        err = np.column_stack([np.abs(got[q] - exact[q]).reshape(tr.t.size, -1).max(axis=1) for q in case.compare])
        errors.append(err.max(axis=0))
        histories.append((tr.t, err))
    return Study(scheme, case.name, tuple(steps), tuple(case.compare), np.array(errors), histories, failure)


def format_table(case: Case, studies: list) -> str:
    """Henshaw-style table: per scheme and step the max errors and, from the second step
    on, the rates; the theoretical order in the last column."""
    q = case.compare
    head = f"{'scheme':<13} {'dt':>7}  " + "  ".join(f"{'e(' + n + ')':>9} {'rate':>5}" for n in q) + "  order"
    lines = [f"{case.name}: {case.title}, t = {T_END:g}", head, "-" * len(head)]
    for s in studies:
        if s.failure and np.isnan(s.errors).all():
            lines.append(f"{s.scheme:<13} failed: {s.failure}")
            continue
        rates = s.rates
        for i, dt in enumerate(s.steps):
            cells = []
            for k in range(len(q)):
                e = s.errors[i, k]
                r = rates[i - 1, k] if i else math.nan
                cells.append(f"{e:9.2e} {'' if math.isnan(r) else f'{r:5.2f}':>5}")
            name = s.scheme if i == 0 else ""
            lines.append(f"{name:<13} {dt:7.4f}  " + "  ".join(cells) + (f"  {s.order:5d}" if i == 0 else ""))
        if s.failure:
            lines.append(f"{'':<13} failed at some step: {s.failure}")
    return "\n".join(lines)
