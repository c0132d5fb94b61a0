"""Prescribed rigid motions composed of rotations about lines and translations along lines,
driven by functions of time, with analytic velocity and acceleration (layer 2). After
Overture's MatrixMotion / TimeFunction (W. D. Henshaw, "Moving bodies with Overture and
the CG solvers", 2016). The deck command is PRESCRIBED_MOTION (docs/integrators.md).

A motion maps a referential point X to  x(t) = R(t) X + g(t).
    rotation about the line through p along the unit d by the angle theta(t):
        R = exp[theta d], g = p - R p
    translation along the unit d by the distance s(t):  R = I, g = s d
    composition, m1 first then m2:  R = R2 R1, g = R2 g1 + g2
`kinematics(t)` returns (R, g, dR, dg, ddR, ddg), the first and second time derivatives
by the product rule; a composition differentiates its factors the same way.
"""
from __future__ import annotations

import math

import numpy as np

from solfec_py.timeseries import TimeSeries


# ------------------------------------------------------------------ functions of time
class TimeFunction:
    """f(t) with f'(t) and f''(t): `values(t) -> (f, df, ddf)`."""

    def values(self, t: float) -> tuple[float, float, float]:  # pragma: no cover - abstract
        raise NotImplementedError


class Linear(TimeFunction):
    """a0 + a1 t (a constant when a1 = 0)."""

    def __init__(self, a0: float, a1: float = 0.0):
        self.a0, self.a1 = float(a0), float(a1)

    def values(self, t):
        return self.a0 + self.a1 * t, self.a1, 0.0

    def __repr__(self):
        return f"Linear({self.a0!r}, {self.a1!r})"


class Sine(TimeFunction):
    """offset + amplitude sin(2 pi frequency t + phase)."""

    def __init__(self, amplitude: float, frequency: float, phase: float = 0.0, offset: float = 0.0):
        self.amplitude, self.frequency = float(amplitude), float(frequency)
        self.phase, self.offset = float(phase), float(offset)

    def values(self, t):
        w = 2.0 * math.pi * self.frequency
        s, c = math.sin(w * t + self.phase), math.cos(w * t + self.phase)
        return self.offset + self.amplitude * s, self.amplitude * w * c, -self.amplitude * w * w * s

    def __repr__(self):
        return f"Sine({self.amplitude!r}, {self.frequency!r}, {self.phase!r}, {self.offset!r})"


class Series(TimeFunction):
    """A piecewise-linear TIME_SERIES: its value, slope (a step function) and zero
    acceleration between the knots."""

    def __init__(self, series: TimeSeries):
        self.series = series
        self._slope = series.derivative()

    def values(self, t):
        return float(self.series(t)), float(self._slope(t)), 0.0

    def __repr__(self):
        return f"Series({self.series!r})"


# ------------------------------------------------------------------ motions
def _skew(d):
    return np.array([[0.0, -d[2], d[1]], [d[2], 0.0, -d[0]], [-d[1], d[0], 0.0]])


def _unit(d) -> np.ndarray:
    d = np.asarray(d, dtype=float)
    return d / np.linalg.norm(d)


class Motion:
    """x = R(t) X + g(t); subclasses give `kinematics(t)`."""

    def kinematics(self, t: float):  # pragma: no cover - abstract
        raise NotImplementedError

    def then(self, other: "Motion") -> "Composed":
        """This motion followed by `other`."""
        return Composed([self, other])

    def point(self, X, t):
        R, g = self.kinematics(t)[:2]
        return R @ np.asarray(X, float) + g

    def point_velocity(self, X, t):
        dR, dg = self.kinematics(t)[2:4]
        return dR @ np.asarray(X, float) + dg

    def point_acceleration(self, X, t):
        ddR, ddg = self.kinematics(t)[4:6]
        return ddR @ np.asarray(X, float) + ddg

    def angular_velocity(self, t):
        """Spatial angular velocity w with dR R^T = [w]x."""
        R, _, dR = self.kinematics(t)[:3]
        W = dR @ R.T
        return 0.5 * np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]])


class Rotation(Motion):
    """Rotation about the line through `point` along `direction` by `angle(t)` radians."""

    def __init__(self, point, direction, angle: TimeFunction):
        self.p = np.asarray(point, dtype=float)
        self.d = _unit(direction)
        self.angle = angle
        self._D = _skew(self.d)

    def kinematics(self, t):
        th, dth, ddth = self.angle.values(t)
        D = self._D
        R = np.eye(3) + math.sin(th) * D + (1.0 - math.cos(th)) * (D @ D)
        dR = dth * D @ R
        ddR = ddth * D @ R + dth * dth * D @ D @ R
        return R, self.p - R @ self.p, dR, -dR @ self.p, ddR, -ddR @ self.p

    def __repr__(self):
        return f"Rotation({self.p.tolist()}, {self.d.tolist()}, {self.angle!r})"


class Translation(Motion):
    """Translation along `direction` by `distance(t)`."""

    def __init__(self, direction, distance: TimeFunction):
        self.d = _unit(direction)
        self.distance = distance

    def kinematics(self, t):
        s, ds, dds = self.distance.values(t)
        z = np.zeros((3, 3))
        return np.eye(3), s * self.d, z, ds * self.d, z.copy(), dds * self.d

    def __repr__(self):
        return f"Translation({self.d.tolist()}, {self.distance!r})"


class Composed(Motion):
    """motions[0] first, then motions[1], ...: R = R2 R1, g = R2 g1 + g2, differentiated by
    the product rule."""

    def __init__(self, motions):
        self.motions = list(motions)

    def kinematics(self, t):
        R, g, dR, dg, ddR, ddg = self.motions[0].kinematics(t)
        for m in self.motions[1:]:
            R2, g2, dR2, dg2, ddR2, ddg2 = m.kinematics(t)
            ddR, ddg = (ddR2 @ R + 2.0 * dR2 @ dR + R2 @ ddR,
                        ddR2 @ g + 2.0 * dR2 @ dg + R2 @ ddg + ddg2)
            dR, dg = dR2 @ R + R2 @ dR, dR2 @ g + R2 @ dg + dg2
            R, g = R2 @ R, R2 @ g + g2
        return R, g, dR, dg, ddR, ddg

    def __repr__(self):
        return f"Composed({self.motions!r})"


def body_state(motion: Motion, X0, t: float):
    """(conf, velo) rows in the rigid layout of bodies driven by `motion` whose reference
    mass centres are the rows of X0 (k, 3): rotation column-major + centre R X0 + g;
    referential angular velocity R^T w + centre velocity dR X0 + dg."""
    X0 = np.atleast_2d(np.asarray(X0, dtype=float))
    R, g, dR, dg = motion.kinematics(t)[:4]
    W = R.T @ dR                      # [Omega]x = R^T dR
    Omega = 0.5 * np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]])
    k = X0.shape[0]
    conf = np.concatenate((np.tile(R.T.reshape(-1), (k, 1)), X0 @ R.T + g), axis=1)
    velo = np.concatenate((np.tile(Omega, (k, 1)), X0 @ dR.T + dg), axis=1)
    return conf, velo
