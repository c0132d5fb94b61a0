"""Point forces, torques, surface pressures and force callbacks of one body block, kept as
arrays (layer 3). Reference: Solfec-1.0 user manual, FORCE, TORQUE, docs/integrators.md (Solfec bod.c rig_force;
prb_dynamic_force for pseudo-rigid bodies, docs/pseudo_rigid.md).

Records are appended by FORCE/TORQUE/PRESSURE; `values(t)` evaluates all magnitudes at once (each
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

SPATIAL_FORCE, CONVECTED_FORCE, SPATIAL_TORQUE, CONVECTED_TORQUE, PRESSURE = range(5)


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

    def values(self, q, u, t, h, size: int, layout: str) -> np.ndarray:
        """Call the routine and check that it returned a tuple of `size` numbers (`layout`
        names them in the error messages)."""
        out = self.call(q, u, t, h)
        name = getattr(self.function, "__name__", "callback")
        if not isinstance(out, tuple):
            raise InputTypeError(
                f"FORCE callback {name!r} of body {self.body.id} must return a tuple of {size} numbers"
                f" ({layout}), got {type(out).__name__}")
        if len(out) != size:
            raise InputError(
                f"FORCE callback {name!r} of body {self.body.id} returned a tuple of {len(out)} items;"
                f" a {self.body.kind} body needs {size} ({layout})")
        try:
            return np.array(out, dtype=float)
        except (TypeError, ValueError):
            raise InputTypeError(
                f"FORCE callback {name!r} of body {self.body.id} returned non-numbers: {out!r}") from None


class PointLoads:
    """FORCE/TORQUE records: body, kind code, referential point, unit direction, value.
    PRESSURE records (pseudo-rigid bodies) keep, instead of a point and a unit direction,
    the referential integrals S = int N dA (in `directions`) and M = int N (x) (X - X0) dA
    (in `moments`, with X0 in `points`) over the loaded faces."""

    def __init__(self):
        self.bodies: list = []
        self.kinds: list[int] = []
        self.points: list = []
        self.directions: list = []
        self.values: list = []          # float or TimeSeries
        self.moments: list = []         # (3, 3) per record; zero but for PRESSURE
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
        self.moments.append(np.zeros((3, 3)))
        self._cache = None

    def add_pressure(self, body, origin, area_vector, moment, value) -> None:
        """A PRESSURE record (see the class docstring); `moment` is taken about `origin`
        (kept as the record's point, so M about another centre is M - S (x) (X0 - origin))."""
        self.add(body, PRESSURE, origin, np.zeros(3), value)
        self.directions[-1] = np.asarray(area_vector, dtype=float)
        self.moments[-1] = np.asarray(moment, dtype=float)

    def add_callback(self, callback: ForceCallback) -> None:
        self.callbacks.append(callback)

    def remove_body(self, body) -> None:
        keep = [i for i, b in enumerate(self.bodies) if b is not body]
        for name in ("bodies", "kinds", "points", "directions", "values", "moments"):
            seq = getattr(self, name)
            setattr(self, name, [seq[i] for i in keep])
        self.callbacks = [c for c in self.callbacks if c.body is not body]
        self._cache = None

    def extract(self, body) -> list:
        """Take out the records and callbacks of `body` (for `restore`)."""
        names = ("bodies", "kinds", "points", "directions", "values", "moments")
        mine = [i for i, b in enumerate(self.bodies) if b is body]
        records = [tuple(getattr(self, name)[i] for name in names) for i in mine]
        callbacks = [c for c in self.callbacks if c.body is body]
        self.remove_body(body)
        return [records, callbacks]

    def restore(self, taken: list) -> None:
        """Put back what `extract` took."""
        records, callbacks = taken
        names = ("bodies", "kinds", "points", "directions", "values", "moments")
        for record in records:
            for name, value in zip(names, record):
                getattr(self, name).append(value)
        self.callbacks.extend(callbacks)
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
            moments = np.array(self.moments, dtype=float).reshape(-1, 3, 3)
            self._cache = (rows, kinds, points, dirs, constant, groups, moments)
        return self._cache[:4]

    def pressure_moments(self) -> np.ndarray:
        """(records, 3, 3) the M sums of PRESSURE records (zero for the others)."""
        self.arrays()
        return self._cache[6]

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
        vals = cb.values(tuple(q.tolist()), tuple(u.tolist()), t, h, 9, "force, spatial torque, referential torque")
        f[p] += vals[0:3]
        ts[p] += vals[3:6]
        tr[p] += vals[6:9]
    obstacles = self.obstacle[rows]
    if obstacles.any():
        f[obstacles] = ts[obstacles] = tr[obstacles] = 0.0
    return f, ts, tr


def _mv(M, v):
    return np.einsum("nij,nj->ni", M, v)
