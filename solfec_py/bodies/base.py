"""The general body and the per-kind state block (layer 3), after Solfec's
`struct general_body` (bod.h): a Body is a handle (kind, id, label, shape, material) whose
`conf`/`velo` are rows of arrays owned by the BodyBlock of its kind.

BodyBlock keeps the invariants (storage, growth, deletion, row bookkeeping) and calls
hooks that each kind implements. Subclass contract:

1. `CONF_SIZE`, `VELO_SIZE` (ints) and `FIELDS`: extra per-body arrays as
   {name: (trailing shape, dtype)}; every field becomes an attribute of shape (capacity, ...).
2. `_init_row(row, body, volume, center, euler)`: fill the fields of a new body from its
   mass properties (reference configuration, `euler` = ∫(X-X0)⊗(X-X0) dV about `center`).
3. `dynamic_init()`, `critical_step()`, `step_begin(t, h)`, `step_end(t, h)` and the
   quasi-static pair `qs_step_begin`, `qs_step_end`: advance all rows at once. Between begin
   and end the generalised reactions of constraints are accumulated in `self.reaction`.
4. `cur_point(row, X)`, `ref_point(row, x)`, `point_velocity(row, X)`: kinematics of a
   referential point; `kinetic_energy()` per row; `bounding_boxes()` of current shapes.
5. Deck-facing hooks with defaults here: `admit(body)` (refuse a body before it is
   inserted), `set_scheme(row, name)`, `set_damping(row, eta)`, `initial_velocity(row,
   linear, angular)`, `point_stress(row, X)` (zero: rigid bodies carry no stress) and
   `TENSOR`, the name of the (3, 3) field BODY.tensor shows and BODY_CHARS sets.
6. `state_changed(rows)` (the deck set conf / velo: state a scheme carries between steps is
   void; a no-op here).
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import InputTypeError


class Body:
    """A body of any kind; the state lives in `self.block` at row `self.row`."""

    def __init__(self):
        self.id = 0
        self.kind = ""
        self.label = ""
        self.shape: list = []          # internal geometry primitives (reference + current)
        self.bulk_material = None      # materials.BulkMaterial record
        self.block: BodyBlock | None = None
        self.row = -1
        self.deleted = False
        self.constraints: list = []
        self.loads: list = []

    # state rows (numpy views; the block may reallocate, so never cache them)
    @property
    def q(self) -> np.ndarray:
        return self.block.conf[self.row]

    @property
    def u(self) -> np.ndarray:
        return self.block.velo[self.row]

    def cur_point(self, X) -> np.ndarray:
        return self.block.cur_point(self.row, np.asarray(X, dtype=float))

    def ref_point(self, x) -> np.ndarray:
        return self.block.ref_point(self.row, np.asarray(x, dtype=float))

    def point_velocity(self, X) -> np.ndarray:
        return self.block.point_velocity(self.row, np.asarray(X, dtype=float))

    def current_primitives(self) -> list:
        """Copies of the shape primitives placed in the current configuration."""
        return self.block.current_primitives(self.row)

    def critical_step(self) -> float:
        return self.block.critical_step()


class DeletedBodyError(InputTypeError, AttributeError):
    """An attribute of a deleted body was read (also an AttributeError, so that
    `getattr(body, name, default)` keeps working)."""


class DeletedBlock:
    """Stands in for the block of a deleted body: reading anything of it raises
    DeletedBodyError naming the body and when it was deleted."""

    __slots__ = ("message",)

    def __init__(self, body: Body, time: float):
        label = f" ({body.label!r})" if body.label else ""
        self.message = (f"body {body.id}{label} was deleted at time {time:g} (DELETE, or it left the"
                        " EXTENTS): its state can no longer be read")

    def __getattr__(self, name):
        raise DeletedBodyError(object.__getattribute__(self, "message"))


class BodyBlock:
    """Contiguous state of all bodies of one family in one domain (see module docstring)."""

    CONF_SIZE = 0
    VELO_SIZE = 0
    FIELDS: dict = {}
    COMMON = {
        "mass": ((), float),
        "volume": ((), float),
        "center": ((3,), float),
        "energy": ((5,), float),   # KINETIC, EXTERNAL, CONTWORK, FRICWORK, INTERNAL
    }

    def __init__(self, domain, capacity: int = 8):
        self.domain = domain
        self.bodies: list[Body] = []
        self.capacity = 0
        self._specs = {"conf": ((self.CONF_SIZE,), float), "velo": ((self.VELO_SIZE,), float),
                       "reaction": ((self.VELO_SIZE,), float), **self.COMMON, **self.FIELDS}
        for name, (tail, dtype) in self._specs.items():
            setattr(self, name, np.zeros((0,) + tail, dtype=dtype))
        self._grow(capacity)

    @property
    def count(self) -> int:
        return len(self.bodies)

    def _grow(self, capacity: int) -> None:
        for name, (tail, dtype) in self._specs.items():
            old = getattr(self, name)
            new = np.zeros((capacity,) + tail, dtype=dtype)
            new[: old.shape[0]] = old
            setattr(self, name, new)
        self.capacity = capacity

    def add(self, body: Body, volume: float, center, euler) -> int:
        """Append `body`; its mass properties are those of its reference shape."""
        if self.count == self.capacity:
            self._grow(max(8, 2 * self.capacity))
        row = self.count
        self.bodies.append(body)
        body.block, body.row = self, row
        for name, (tail, dtype) in self._specs.items():
            getattr(self, name)[row] = 0
        self.volume[row] = volume
        self.center[row] = center
        self._init_row(row, body, volume, np.asarray(center, float), np.asarray(euler, float))
        self.on_change()
        return row

    def remove(self, body: Body) -> None:
        """Delete `body`'s row, moving later rows up (row indices of later bodies change)."""
        row = body.row
        n = self.count
        for name in self._specs:
            arr = getattr(self, name)
            arr[row: n - 1] = arr[row + 1: n]
        del self.bodies[row]
        for k in range(row, n - 1):
            self.bodies[k].row = k
        body.block, body.row = None, -1
        self.on_change()

    def on_change(self) -> None:
        """Hook: the set of bodies changed (rebuild cached index arrays)."""

    def set_scheme(self, row: int, name: str) -> None:
        """Hook: BODY.scheme of the body of `row` was set to `name` (checked against the
        kind's schemes)."""

    def state_changed(self, rows) -> None:
        """Hook: conf / velo of `rows` were set from outside the time step."""

    def nonfinite_rows(self) -> np.ndarray:
        n = self.count
        ok = np.isfinite(self.conf[:n]).all(axis=1) & np.isfinite(self.velo[:n]).all(axis=1)
        return np.flatnonzero(~ok)

    # hooks ----------------------------------------------------------------------
    TENSOR = ""

    def _init_row(self, row, body, volume, center, euler):  # pragma: no cover - abstract
        raise AttributeError(f"{type(self).__name__} must implement _init_row")

    def admit(self, body) -> None:
        """Raise an InputError if `body` (kind, shape, material set; not inserted yet)
        cannot become a row of this block."""

    def set_damping(self, row: int, value: float) -> None:
        """BODY.damping = value (ignored by kinds without damping)."""

    def initial_velocity(self, row: int, linear, angular) -> None:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement initial_velocity")

    def point_stress(self, row: int, X) -> np.ndarray:
        """(sx, sy, sz, sxy, sxz, syz, von Mises) at referential X: zero by default."""
        return np.zeros(7)
