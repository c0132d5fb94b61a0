"""The general body and the per-kind state block (layer 3), after Solfec's
`struct general_body` and the BODY_* interface of bod.h: a Body is a handle (kind, id,
label, shape, material) whose `conf`/`velo` are views into arrays owned by the BodyBlock
of its kind.

BodyBlock keeps the invariants (per-body rows of the common fields, growth, deletion, row
bookkeeping) and calls hooks that each kind implements. The solver, contact and output
layers see bodies only through the methods below: they never test the kind.

Subclass contract:

1. `CONF_SIZE`, `VELO_SIZE` (ints) and `FIELDS`: extra per-body arrays as
   {name: (trailing shape, dtype)}; every field becomes an attribute of shape (capacity, ...).
   A kind whose bodies have states of different lengths (finite elements: 3 numbers per
   node) sets both sizes to 0, keeps its state in arrays of its own and overrides
   `conf_view`, `velo_view`, `state_sizes`, `state_values`, `set_state_values`,
   `nonfinite_rows` — the per-body rows then hold only the common fields (mass, volume,
   centre, energies) and the kind's FIELDS.
2. `_init_row(row, body, volume, center, euler)`: fill the fields of a new body from its
   mass properties (reference configuration, `euler` = ∫(X-X0)⊗(X-X0) dV about `center`).
3. Time stepping of all rows at once: `dynamic_init()`, `critical_step()` (and
   `critical_source()`, the body and element that set it, for messages),
   `step_begin(t, h)` / `step_end(t, h)` (half steps: first half, loads and free velocity /
   reactions and second half) and the quasi-static pair `qs_step_begin`, `qs_step_end`.
   Between begin and end the constraint solvers accumulate generalised reactions through
   `add_reactions`.
4. Kinematics of referential points, on arrays of entries (k,) — one block row, point and
   geometric object `elem` per entry (`elem` is the index of the body's geometric object
   holding the point, as contact objects and constraints store it; -1 or None: unknown,
   the block locates the point itself): `cur_points`, `ref_points`, `cur_vectors`,
   `ref_vectors`, `point_velocities`, `point_objects` (the `elem` of referential points),
   `stresses` (zero by default: rigid bodies carry no stress).
5. Constraint support (Solfec's BODY_Gen_To_Loc_Operator and the local dynamics):
   `gen_to_loc(rows, X, base, elem) -> H` maps the body's velocity to the local velocity
   of a point in frame `base` (columns t1, t2, n); H is opaque to the solvers (an array or
   any object supporting `H[index]`) and only comes back to the same block, in
   `local_velocity`, `delassus` (h-free Ha A^-1 Hb^T of two points of one body),
   `couples` (which pairs of points interact at all) and `add_reactions` (H^T R into the
   body's generalised reaction). `contact_inert(rows)` marks bodies that neither react to
   contacts nor couple them (obstacles). Defaults a kind may override for speed:
   `add_signed_reactions(rows, H, con, sign, R, inert)` (add_reactions of the signed,
   gathered reactions of the entries that are not inert) and `delassus_indexed` (True:
   `delassus` also takes index arrays `ia`, `ib` into H and reads H in place), and
   `delassus_factors(rows, H, live)` (the points of bodies whose W is cheaper kept as
   h P S P^T than as pairs, solvers/factored_delassus.py: [(entries, tidx, S)]; [] none).
6. `kinetic_energy()` per row, `energies()`, `bounding_boxes()` of current shapes,
   `current_primitives(row)` (shape primitives placed in the current configuration).
7. Deck-facing hooks, with defaults here where a kind may have nothing to do:
   `admit(body)` (refuse a body before it is inserted: kind, label, material, shape and
   `form` are set), `set_scheme(row, name)`, `set_damping(row, eta)`,
   `initial_velocity(row, linear, angular)`, `point_stress(row, X)`, `TENSOR` (the name of
   the (3, 3) field BODY.tensor shows and BODY_CHARS sets), `add_pressure(body, surfid,
   value)`, `apply_material(body, volid, record)`, `stored_geometry(row)` (what the
   results file keeps to evaluate points without the deck), `state_changed(rows)` (the
   deck set conf / velo: state a scheme carries between steps is void),
   `set_characteristics(row, mass, volume, center, tensor)` (BODY_CHARS; not available by
   default), `loads` (the kind's load records FORCE / TORQUE / GRAVITY go to; None by
   default: the kind takes none).
8. Optional hooks: `on_change()` (the set of bodies changed), `remove(body)` (extend to
   drop per-kind records of the body), `obstacles()` (rows that never move: no kinetic
   energy; None by default), `lame_constants()` ((count, 2) Lamé constants with which
   HISTORY evaluates stresses from stored states; None by default: stresses come from
   the stored geometry, or are zero), `articulated_system` (the JOINT trees whose links
   are rows of the block, rigid_schemes/articulated.py; None by default).
9. Moving a body between the blocks of two processes (solfec_py/parallel): `pack_rows` /
   `unpack_rows` carry every per-row field but `LOCAL_FIELDS` (bookkeeping of this block
   only, such as node offsets) as float rows, plus `_pack_ragged` / `_unpack_ragged` for
   per-body state of varying length (finite-element nodes); `detach(body)` takes a row out
   of the block keeping the body's definition (`_park` hands over its per-kind records:
   loads, prescribed motions) and `attach(body, parked)` puts it back (`_unpark`). Kinds
   that cannot move say so in `movable(rows)`.

Hooks a kind does not implement raise NotImplementedError naming the block (never
AttributeError, which `hasattr` would swallow).
"""
from __future__ import annotations

import math

import numpy as np

from solfec_py.bodies import row_tables
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

    # state (numpy views; the block may reallocate, so never cache them)
    @property
    def q(self) -> np.ndarray:
        return self.block.conf_view(self.row)

    @property
    def u(self) -> np.ndarray:
        return self.block.velo_view(self.row)

    def cur_point(self, X) -> np.ndarray:
        return self.block.cur_point(self.row, np.asarray(X, dtype=float))

    def ref_point(self, x) -> np.ndarray:
        return self.block.ref_point(self.row, np.asarray(x, dtype=float))

    def point_velocity(self, X) -> np.ndarray:
        return self.block.point_velocity(self.row, np.asarray(X, dtype=float))

    def stress(self, X) -> np.ndarray:
        """(sx, sy, sz, sxy, sxz, syz, von Mises) at referential point X."""
        return self.block.stresses(np.array([self.row]), np.asarray(X, dtype=float).reshape(1, 3))[0]

    def current_primitives(self) -> list:
        """Copies of the shape primitives placed in the current configuration."""
        return self.block.current_primitives(self.row)

    def critical_step(self) -> float:
        return self.block.critical_step()


def _rows(rows) -> np.ndarray:
    return np.asarray(rows, dtype=np.int64).reshape(-1)


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
        "bid": ((), np.int64),     # the row's body id (bodies[row].id, for vectorised lookups)
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
        self.bid[row] = body.id
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

    # ------------------------------------------------------------------ moving rows (contract item 9)
    LOCAL_FIELDS: tuple = ()

    def moved_fields(self) -> list:
        """The per-row fields `pack_rows` carries, in a fixed order."""
        return [name for name, *_ in self._moved_layout()]

    def _moved_layout(self) -> tuple:
        """(name, row shape, dtype, numbers a row) of every moved field (worked out once)."""
        layout = self.__dict__.get("_layout")
        if layout is None:
            layout = self._layout = tuple(
                (name, tail, dtype, int(np.prod(tail, dtype=np.int64))) for name, (tail, dtype) in self._specs.items()
                if name not in self.LOCAL_FIELDS and name != "bid")
        return layout

    def row_width(self) -> int:
        """Numbers in a packed row (`pack_rows`)."""
        return sum(width for *_, width in self._moved_layout())

    def pack_rows(self, rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(k, row_width) float table of the moved fields of `rows`, the flat float values of
        their per-body state of varying length and each row's share of it (k,)."""
        rows = _rows(rows)
        table = row_tables.pack(self, self._moved_layout(), rows, self.row_width())
        flat, lengths = self._pack_ragged(rows)
        return table, flat, lengths

    def unpack_rows(self, rows, table, flat, lengths) -> None:
        """Write what `pack_rows` gave (of another block of this kind) into `rows`."""
        rows = _rows(rows)
        row_tables.unpack(self, self._moved_layout(), rows, np.asarray(table, dtype=float).reshape(rows.size, -1))
        self._unpack_ragged(rows, np.asarray(flat, dtype=float), np.asarray(lengths, dtype=np.int64))
        self.state_arrived(rows)

    def _pack_ragged(self, rows) -> tuple[np.ndarray, np.ndarray]:
        """Hook: per-body state that the fixed fields do not hold (flat, lengths)."""
        return np.zeros(0), np.zeros(_rows(rows).size, dtype=np.int64)

    def _unpack_ragged(self, rows, flat, lengths) -> None:
        """Hook: the inverse of `_pack_ragged`."""

    def state_arrived(self, rows) -> None:
        """Hook: the state of `rows` was written by `unpack_rows` (derived data is stale)."""

    def movable(self, rows) -> str:
        """Hook: '' when the bodies of `rows` can be moved to another process, else why not."""
        return ""

    def detach(self, body) -> dict:
        """Take `body`'s row out of the block, keeping the body itself (its shape, material
        and settings); returns its per-kind records (`_park`) for `attach`."""
        parked = self._park(body)
        self.remove(body)
        return parked

    def attach(self, body, parked: dict | None) -> int:
        """Make `body` (detached, or defined by the deck but never here) a row again with its
        mass properties of creation; `parked` records (from `detach`) come back. The row's
        state is then set by `unpack_rows`."""
        volume, center, euler = body.mass_properties
        row = self.add(body, volume, center, euler)
        self._unpark(body, parked or {})
        return row

    def _park(self, body) -> dict:
        """Hook: take the body's per-kind records (loads, motions) out of the block."""
        return {}

    def _unpark(self, body, parked: dict) -> None:
        """Hook: put back what `_park` took."""

    # ------------------------------------------------------------------ deck-level hooks
    TENSOR = ""   # name of the (3, 3) field BODY.tensor reads and BODY_CHARS writes
    loads = None  # the kind's load records (bodies/loads.py); None: FORCE and the like refused
    articulated_system = None   # JOINT trees of the block's rows (rigid_schemes/articulated.py)
    delassus_indexed = False    # `delassus` takes index arrays ia / ib into H (contract item 5)

    def admit(self, body) -> None:
        """Hook: raise an InputError if `body` (kind, label, material, shape and `form` set;
        not inserted yet) cannot become a row of this block."""

    def set_scheme(self, row: int, name: str) -> None:
        """Hook: BODY.scheme of row `row` became `name` (checked against the kind's schemes)."""

    def set_damping(self, row: int, value: float) -> None:
        """Hook: BODY.damping = value (ignored by kinds without damping)."""

    def state_changed(self, rows) -> None:
        """Hook: conf / velo of `rows` were set from outside the time step."""

    def initial_velocity(self, row: int, linear, angular) -> None:
        """INITIAL_VELOCITY: the velocity of the rigid motion (v, omega) about the centre."""
        raise self._missing("initial_velocity")

    def point_stress(self, row: int, X) -> np.ndarray:
        """(sx, sy, sz, sxy, sxz, syz, von Mises) at referential X."""
        return self.stresses(_rows(row), np.asarray(X, float).reshape(1, 3))[0]

    def stored_geometry(self, row: int):
        """Hook: (nodes, cells, materials) the results file keeps for the body's points to
        be evaluated without a live model (finite elements), or None."""
        return None

    def add_pressure(self, body, surfid: int, value) -> None:
        """PRESSURE on the faces of surface id `surfid` (value: number or time series)."""
        from solfec_py.errors import NotAvailableError

        raise NotAvailableError(f"PRESSURE on {body.kind} bodies is not available in solfec-py yet"
                                " (finite-element and pseudo-rigid bodies take it)")

    def set_characteristics(self, row: int, mass: float, volume: float, center, tensor) -> None:
        """BODY_CHARS: the body's mass, volume, mass centre and inertia / Euler tensor."""
        from solfec_py.errors import NotAvailableError

        raise NotAvailableError(f"BODY_CHARS of a {self.bodies[row].kind} body is not available yet")

    def obstacles(self) -> np.ndarray | None:
        """(count,) bool: rows that never move (obstacles: no kinetic energy); None: none."""
        return None

    def lame_constants(self) -> np.ndarray | None:
        """(count, 2) Lamé constants (lambda, mu) of the rows, with which stresses are
        evaluated from stored states (HISTORY); None when the kind keeps none."""
        return None

    def apply_material(self, body, volid: int, record) -> int:
        """APPLY_BULKMAT: parts of `body` with volume id `volid` take `record`; returns how
        many parts changed (0: the body has no such volume id)."""
        from solfec_py.errors import NotAvailableError

        raise NotAvailableError(f"APPLY_BULKMAT is not available in solfec-py for {body.kind} bodies"
                                f" (body {body.id} keeps its global material)")

    def material_users(self, record) -> list:
        """Bodies of this block made of the BulkMaterial `record` (their own material, or a
        part's from APPLY_BULKMAT)."""
        return [b for b in self.bodies if b.bulk_material is record]

    def material_changed(self, record) -> None:
        """Hook: the elastic constants of `record` changed (materials.py: bodies use the
        record's young and poisson as they are; masses stay those computed when made)."""

    # ------------------------------------------------------------------ state of the rows
    # Fixed-size rows (rigid: 12 + 6) are the default; a kind with bodies of different
    # state lengths overrides these five (contract item 1).
    def conf_view(self, row: int) -> np.ndarray:
        """Writable view of the body's `conf` (Solfec's layout of its kind)."""
        return self.conf[row]

    def velo_view(self, row: int) -> np.ndarray:
        return self.velo[row]

    def state_sizes(self) -> np.ndarray:
        """(n, 2) lengths of conf and velo of every row."""
        return np.tile(np.array([self.CONF_SIZE, self.VELO_SIZE], dtype=np.int64), (self.count, 1))

    def state_values(self) -> np.ndarray:
        """conf | velo | energy (5) of every row, concatenated row after row (flat)."""
        n = self.count
        return np.concatenate((self.conf[:n], self.velo[:n], self.energy[:n]), axis=1).reshape(-1)

    def set_state_values(self, rows, values, sizes, parts=("conf", "velo", "energy")) -> None:
        """Write states read back (`state_values` layout, `sizes` (k, 2)) into `rows`."""
        rows = _rows(rows)
        width = self.CONF_SIZE + self.VELO_SIZE + 5
        flat = np.asarray(values, dtype=float).reshape(rows.size, width)
        nc, nv = self.CONF_SIZE, self.VELO_SIZE
        if "conf" in parts:
            self.conf[rows] = flat[:, :nc]
        if "velo" in parts:
            self.velo[rows] = flat[:, nc:nc + nv]
        if "energy" in parts:
            self.energy[rows] = flat[:, nc + nv:]

    def energies(self) -> np.ndarray:
        """(n, 5) energy slots of every row, current (a kind that updates a slot lazily
        refreshes it here)."""
        return self.energy[: self.count]

    def nonfinite_rows(self) -> np.ndarray:
        n = self.count
        # a finite sum means every entry is finite (a sum of large finite entries may
        # overflow: then the row by row test decides)
        if math.isfinite(float(self.conf[:n].sum()) + float(self.velo[:n].sum())):
            return np.zeros(0, dtype=np.int64)
        ok = np.isfinite(self.conf[:n]).all(axis=1) & np.isfinite(self.velo[:n]).all(axis=1)
        return np.flatnonzero(~ok)

    # ------------------------------------------------------------------ hooks
    def _missing(self, name: str):
        return NotImplementedError(f"{type(self).__name__} does not implement {name}() (bodies/base.py contract)")

    def _init_row(self, row, body, volume, center, euler):
        raise self._missing("_init_row")

    # time stepping (contract item 3)
    def dynamic_init(self) -> None:
        raise self._missing("dynamic_init")

    def critical_step(self) -> float:
        raise self._missing("critical_step")

    def critical_source(self) -> str:
        """Words naming the body (and element, material) that set the last critical_step;
        "" for kinds without one."""
        return ""

    def step_begin(self, t: float, h: float) -> None:
        raise self._missing("step_begin")

    def step_end(self, t: float, h: float) -> None:
        raise self._missing("step_end")

    def qs_step_begin(self, t: float, h: float) -> None:
        raise self._missing("qs_step_begin")

    def qs_step_end(self, t: float, h: float) -> None:
        raise self._missing("qs_step_end")

    # kinematics of referential points (contract item 4)
    def cur_points(self, rows, X, elem=None) -> np.ndarray:
        """Current places (k, 3) of referential points X (k, 3) of bodies `rows` (k,)."""
        raise self._missing("cur_points")

    def ref_points(self, rows, x, elem=None) -> np.ndarray:
        """Referential points (k, 3) of current points x (k, 3)."""
        raise self._missing("ref_points")

    def cur_vectors(self, rows, d, elem=None) -> np.ndarray:
        """Push forward of referential directions d (k, 3) (rotation / deformation)."""
        raise self._missing("cur_vectors")

    def ref_vectors(self, rows, d, elem=None) -> np.ndarray:
        """Pull back of current directions d (k, 3)."""
        raise self._missing("ref_vectors")

    def point_velocities(self, rows, X, elem=None) -> np.ndarray:
        """Spatial velocities (k, 3) of the material points at referential X."""
        raise self._missing("point_velocities")

    def point_objects(self, rows, X) -> np.ndarray:
        """`elem` of referential points (k,): the geometric object holding each point
        (-1 where the kind needs none or the point lies outside the body)."""
        raise self._missing("point_objects")

    def stresses(self, rows, X, elem=None) -> np.ndarray:
        """(k, 7) Cauchy stress (sx, sy, sz, sxy, sxz, syz) and von Mises at X (zero by
        default: rigid bodies carry no stress)."""
        return np.zeros((_rows(rows).size, 7))

    # single points (deck commands); kinds may override with faster code
    def cur_point(self, row: int, X) -> np.ndarray:
        return self.cur_points(_rows(row), np.asarray(X, float).reshape(1, 3))[0]

    def ref_point(self, row: int, x) -> np.ndarray:
        return self.ref_points(_rows(row), np.asarray(x, float).reshape(1, 3))[0]

    def point_velocity(self, row: int, X) -> np.ndarray:
        return self.point_velocities(_rows(row), np.asarray(X, float).reshape(1, 3))[0]

    # constraint support (contract item 5)
    def gen_to_loc(self, rows, X, base, elem=None):
        raise self._missing("gen_to_loc")

    def local_operator(self, rows, X, base, elem, contact):
        """H of constraint points for the local dynamics: `gen_to_loc`, told which entries
        are contacts (`contact` (k,) bool; finite elements of second order map contact
        points through their corners, bodies/finite_element.py)."""
        return self.gen_to_loc(rows, X, base, elem)

    def local_velocity(self, rows, H, which: str = "free") -> np.ndarray:
        """H u per entry (k, 3): u(t) for `which` = 'start', the free velocity otherwise."""
        raise self._missing("local_velocity")

    def delassus(self, rows, Ha, Hb, rows_b=None) -> np.ndarray:
        """Ha A^-1 Hb^T per entry (k, 3, 3) for two points of the same body; `rows_b`: the
        rows of the second points where they lie on another body of the same coupling
        group (see `coupling_groups`)."""
        raise self._missing("delassus")

    def delassus_factors(self, rows, H, live) -> list:
        """[(entries, tidx, S)] of the bodies among rows[live] whose W is kept factored
        (contract item 5); none by default."""
        return []

    def coupling_groups(self, rows) -> np.ndarray | None:
        """Group of every row (k,): points on different rows of one group couple through
        the block's dynamics (links of an articulated tree); None: every body couples only
        with itself."""
        return None

    def couples(self, rows, Ha, Hb) -> np.ndarray | None:
        """Which pairs of points of one body interact (bool (k,)); None: all of them."""
        return None

    def add_reactions(self, rows, H, R) -> None:
        """Accumulate H^T R (R (k, 3) local reactions, rows may repeat)."""
        raise self._missing("add_reactions")

    def add_signed_reactions(self, rows, H, con, sign, R, inert) -> None:
        """add_reactions of sign * R[con] for the entries that are not `inert` (the local
        dynamics' scatter of the reactions, solvers/local_dynamics.py)."""
        live = ~inert
        if live.all():
            self.add_reactions(rows, H, sign[:, None] * R[con])
        elif live.any():
            self.add_reactions(rows[live], H[live], sign[live, None] * R[con[live]])

    def contact_inert(self, rows) -> np.ndarray:
        raise self._missing("contact_inert")

    def absorbed(self, cset) -> np.ndarray:
        """Constraint-set rows this block enforces itself in the current step (e.g. the
        pinned nodes of quasi-static finite-element bodies, bodies/fe_pins.py): the
        solvers leave them out and the block stores their reactions at step end."""
        return np.zeros(0, dtype=np.int64)

    def refresh_absorbed(self, cset) -> int:
        """Refresh the points of the constraints in `absorbed` at the mid-step
        configuration (what the constraint update would do for them); returns how many
        there are."""
        return 0

    # energies, boxes, shapes (contract item 6)
    def kinetic_energy(self) -> np.ndarray:
        raise self._missing("kinetic_energy")

    def bounding_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        raise self._missing("bounding_boxes")

    def current_primitives(self, row: int) -> list:
        raise self._missing("current_primitives")
