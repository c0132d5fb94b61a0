"""The heavy symmetric top of Solfec-1.0's validation (validation/heavy-symmetrical-top) run
with every rigid scheme: Hamiltonian drift and nutation period against the exact period
(layer 8). References: Solfec-1.0's write-up (J = diag(5, 5, 1), M g l = 20,
Omega(0) = (0, 0, 50), Lambda(0) = exp[(0.05, 0, 0)], H0 = 1269.975); the nutation of the
heavy symmetric top: H. Goldstein, Classical Mechanics, Sec. 5.7.

With u = cos(theta) of the symmetry axis, u'^2 = f(u) = (1 - u^2)(alpha - beta u) - (b - a u)^2,
a = I3 w3 / I1, b = L_z / I1, beta = 2 M g l / I1, alpha = 2 E' / I1. Released with theta' =
phi' = 0 at u0, f = (u0 - u) [beta (1 - u^2) - a^2 (u0 - u)] = beta (u0 - u)(u - u1)(u2 - u),
and u oscillates between u1 and u0 with period T = 4 K(k) / sqrt(beta (u2 - u1)),
k^2 = (u0 - u1) / (u2 - u1) (docs/integrators.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solfec_py.errors import SimulationError
from solfec_py.geometry.rotation import expmap
from solfec_py.integrators import integrate

I1, I3, MGL, THETA0, SPIN = 5.0, 1.0, 20.0, 0.05, 50.0
STEPS = (0.009, 0.003, 0.001)
DURATION = 10.0


def hamiltonian0() -> float:
    return 0.5 * I3 * SPIN ** 2 + MGL * math.cos(THETA0)


def exact_nutation_period() -> float:
    """T = 4 K(k) / sqrt(beta (u2 - u1)) (module docstring)."""
    from scipy.special import ellipk

    a, beta, u0 = I3 * SPIN / I1, 2.0 * MGL / I1, math.cos(THETA0)
    # beta u^2 - a^2 u - (beta - a^2 u0) = 0
    disc = math.sqrt(a ** 4 + 4.0 * beta * (beta - a * a * u0))
    u1, u2 = (a * a - disc) / (2 * beta), (a * a + disc) / (2 * beta)
    return 4.0 * ellipk((u0 - u1) / (u2 - u1)) / math.sqrt(beta * (u2 - u1))


@dataclass
class TopRun:
    scheme: str
    step: float
    t: np.ndarray
    H: np.ndarray            # relative Hamiltonian error (H - H0) / H0 at every step
    period: float            # mean nutation period (NaN when the run failed)
    failure: str = ""

    @property
    def drift(self) -> float:
        return float(np.abs(self.H).max()) if self.H.size else math.nan


def run_top(scheme: str, step: float, duration: float = DURATION) -> TopRun:
    J = np.diag([I1, I1, I3])
    E0 = expmap(np.array([THETA0, 0.0, 0.0]))
    e3 = np.array([0.0, 0.0, 1.0])
    try:
        tr = integrate(scheme, 1.0, J, dt=step, t1=round(duration / step) * step, E0=E0, omega0=E0 @ (SPIN * e3),
                       torque=lambda t, s: -MGL * np.cross(s.E[:, 2], e3))
    except SimulationError as exc:
        return TopRun(scheme, step, np.zeros(0), np.zeros(0), math.nan, str(exc))
    Omega = np.einsum("nji,nj->ni", tr.E, tr.omega)
    H = 0.5 * np.einsum("ni,ij,nj->n", Omega, J, Omega) + MGL * tr.E[:, 2, 2]
    H0 = hamiltonian0()
    return TopRun(scheme, step, tr.t, (H - H0) / H0, nutation_period(tr.t, tr.E[:, 2, 2]))


def nutation_period(t: np.ndarray, u: np.ndarray) -> float:
    """Mean spacing of the maxima of u(t), each located by a parabola through three samples."""
    i = np.flatnonzero((u[1:-1] > u[:-2]) & (u[1:-1] >= u[2:])) + 1
    if i.size < 2:
        return math.nan
    den = u[i - 1] - 2.0 * u[i] + u[i + 1]
    shift = np.where(den != 0, 0.5 * (u[i - 1] - u[i + 1]) / np.where(den != 0, den, 1.0), 0.0)
    peaks = t[i] + shift * (t[1] - t[0])
    return float((peaks[-1] - peaks[0]) / (peaks.size - 1))


def format_table(runs: list) -> str:
    T = exact_nutation_period()
    steps = sorted({r.step for r in runs}, reverse=True)
    head = (f"{'scheme':<13}" + "".join(f"  {'drift h=' + format(h, 'g'):>14}" for h in steps)
            + "".join(f"  {'T err h=' + format(h, 'g'):>14}" for h in steps))
    lines = [f"heavy top: max |H - H0|/H0 over {DURATION:g} s (H0 = {hamiltonian0():.3f}) and relative error of"
             f" the nutation period (exact T = {T:.6f} s)", head, "-" * len(head)]
    by = {(r.scheme, r.step): r for r in runs}
    for scheme in dict.fromkeys(r.scheme for r in runs):
        cells = [by[(scheme, h)] for h in steps]
        drift = "".join(f"  {c.drift:14.2e}" if not c.failure else f"  {'failed':>14}" for c in cells)
        per = "".join(f"  {(c.period - T) / T:14.2e}" if not c.failure else f"  {'failed':>14}" for c in cells)
        lines.append(f"{scheme:<13}{drift}{per}")
    return "\n".join(lines)
