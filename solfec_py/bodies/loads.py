"""Point forces, torques and force callbacks of one body block, kept as arrays
(layer 3). Reference: LANGUAGE §11.2-§11.3, NUMERICS §1.3 (Solfec bod.c rig_force).

Records are appended by FORCE/TORQUE; `values(t)` evaluates all magnitudes at once (each
distinct time series is interpolated once, constants are one array), so evaluating the
loads of 10^5 bodies is a handful of numpy calls. Callback forces are Python calls by
nature and are kept in a separate list. `rigid_loads` evaluates them for rows of the rigid
block at any configuration (a scheme's half step or stages).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from solfec_py.errors import InputError, InputTypeError
from solfec_py.timeseries import TimeSeries

SPATIAL_FORCE, CONVECTED_FORCE, SPATIAL_TORQUE, CONVECTED_TORQUE = range(4)


@dataclass
class ForceCallback:
    body: Any
    function: Callable
    data: Any
    has_data: bool

    def call(self, q, u, t, h):
        if not self.has_data:
            return self.function(q, u, t, h)
        if isinstance(self.data, tuple):
            return self.function(*self.data, q, u, t, h)
        return self.function(self.data, q, u, t, h)


class PointLoads:
    """FORCE/TORQUE records: body, kind code, referential point, unit direction, value."""

    def __init__(self):
        self.bodies: list = []
        self.kinds: list[int] = []
        self.points: list = []
        self.directions: list = []
        self.values: list = []          # float or TimeSeries
        self.callbacks: list[ForceCallback] = []
        self._cache = None

    def add(self, body, kind: int, point, direction, value) -> None:
        d = np.asarray(direction, dtype=float)
        norm = np.linalg.norm(d)
        self.bodies.append(body)
        self.kinds.append(kind)
        self.points.append(np.zeros(3) if point is None else np.asarray(point, dtype=float))
        self.directions.append(d / norm if norm > 0 else d)
        self.values.append(value)
        self._cache = None

    def add_callback(self, callback: ForceCallback) -> None:
        self.callbacks.append(callback)

    def remove_body(self, body) -> None:
        keep = [i for i, b in enumerate(self.bodies) if b is not body]
        for name in ("bodies", "kinds", "points", "directions", "values"):
            seq = getattr(self, name)
            setattr(self, name, [seq[i] for i in keep])
        self.callbacks = [c for c in self.callbacks if c.body is not body]
        self._cache = None

    def invalidate(self) -> None:
        """Row numbers changed (a body was deleted): rebuild index arrays on next use."""
        self._cache = None

    def __len__(self) -> int:
        return len(self.bodies)

    def arrays(self):
        """(rows, kinds, points, directions) as arrays, cached until the records change."""
        if self._cache is None:
            rows = np.array([b.row for b in self.bodies], dtype=np.int64)
            kinds = np.array(self.kinds, dtype=np.int64)
            points = np.array(self.points, dtype=float).reshape(-1, 3)
            dirs = np.array(self.directions, dtype=float).reshape(-1, 3)
            constant = np.array([0.0 if isinstance(v, TimeSeries) else float(v) for v in self.values])
            series: dict[int, tuple[TimeSeries, list[int]]] = {}
            for i, v in enumerate(self.values):
                if isinstance(v, TimeSeries):
                    series.setdefault(id(v), (v, []))[1].append(i)
            groups = [(ts, np.array(idx)) for ts, idx in series.values()]
            self._cache = (rows, kinds, points, dirs, constant, groups)
        return self._cache[:4]

    def magnitudes(self, t: float) -> np.ndarray:
        """All load magnitudes at time t."""
        self.arrays()
        constant, groups = self._cache[4], self._cache[5]
        s = constant.copy()
        for ts, idx in groups:
            s[idx] = ts(t)
        return s


def rigid_loads(self, rows, R, x, t, h, conf=None, velo=None):
    """Force f, spatial torque ts, referential torque tr (k, 3) of `rows` of the rigid block
    `self` (a slice of every row or an index array) at the configuration (R, x) (k rows) and
    time t (Solfec-1.0 bod.c, rig_force). FORCE callbacks receive `conf`/`velo` (k rows) or, when not
    given, the block's current conf and the start-of-step velocity (Solfec's half step)."""
    n = self.count
    k = R.shape[0]
    everything = isinstance(rows, slice)
    f = np.zeros((k, 3))
    ts = np.zeros((k, 3))
    tr = np.zeros((k, 3))
    g = self.domain.gravity_at(t)
    if np.any(g):
        f += self.mass[rows, None] * g
    where = None
    if not everything:
        where = np.full(n, -1, dtype=np.int64)
        where[rows] = np.arange(k)
    if len(self.loads):
        lrows, kinds, points, dirs = self.loads.arrays()
        mags = self.loads.magnitudes(t)
        pos = lrows
        if where is not None:
            pos = where[lrows]
            keep = pos >= 0
            pos, lrows, kinds, points, dirs, mags = (pos[keep], lrows[keep], kinds[keep], points[keep],
                                                     dirs[keep], mags[keep])
        sd = mags[:, None] * dirs
        Rr = R[pos]
        is_force = kinds <= CONVECTED_FORCE
        force = np.where((kinds == CONVECTED_FORCE)[:, None], _mv(Rr, sd), sd)
        arm = _mv(Rr, points - self.center[lrows])
        np.add.at(f, pos[is_force], force[is_force])
        np.add.at(ts, pos[is_force], np.cross(arm, force)[is_force])
        np.add.at(ts, pos[kinds == SPATIAL_TORQUE], sd[kinds == SPATIAL_TORQUE])
        np.add.at(tr, pos[kinds == CONVECTED_TORQUE], sd[kinds == CONVECTED_TORQUE])
    for cb in self.loads.callbacks:
        row = cb.body.row
        p = row if where is None else int(where[row])
        if p < 0:
            continue
        q = self.conf[row] if conf is None else conf[p]
        u = self.velo0[row] if velo is None else velo[p]
        out = cb.call(tuple(q.tolist()), tuple(u.tolist()), t, h)
        f[p], ts[p], tr[p] = _callback_result(cb, out, f[p], ts[p], tr[p])
    obstacles = self.obstacle[rows]
    if obstacles.any():
        f[obstacles] = ts[obstacles] = tr[obstacles] = 0.0
    return f, ts, tr


def _callback_result(cb, out, f, ts, tr):
    """Check a FORCE callback result (a 9-tuple for rigid bodies) and add it to the loads."""
    name = getattr(cb.function, "__name__", "callback")
    if not isinstance(out, tuple):
        raise InputTypeError(
            f"FORCE callback {name!r} of body {cb.body.id} must return a tuple of 9 numbers"
            f" (force, spatial torque, referential torque), got {type(out).__name__}")
    if len(out) != 9:
        raise InputError(
            f"FORCE callback {name!r} of body {cb.body.id} returned a tuple of {len(out)} items;"
            " a rigid body needs 9 (force, spatial torque, referential torque)")
    try:
        vals = np.array(out, dtype=float)
    except (TypeError, ValueError):
        raise InputTypeError(f"FORCE callback {name!r} of body {cb.body.id} returned non-numbers: {out!r}") from None
    return f + vals[0:3], ts + vals[3:6], tr + vals[6:9]


def _mv(M, v):
    return np.einsum("nij,nj->ni", M, v)
