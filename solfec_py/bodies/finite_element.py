"""Finite-element bodies (layer 3): the block that keeps every FINITE_ELEMENT body of a
domain in flat node arrays and steps them with total-Lagrangian kinematics.
Reference: Solfec-1.0 fem.c (TL branch), NUMERICS-style storage of Solfec-1.0 user manual, BODY conf and velo; the
element mathematics is solfec_py.fem (docs/fem.md); time stepping is bodies/fe_dynamics.py,
loads bodies/fe_loads.py, the point interface bodies/fe_point_map.py, point kernels
bodies/fe_points.py.

Storage: body b owns nodes nstart[b] .. nstart[b] + nnodes[b] - 1 of the node arrays
  X (N, 3) referential coordinates, q (N, 3) displacements x - X, u (N, 3) velocities,
so `BODY.conf` = q[nodes].ravel() (node-major displacements, 3 per node) and
`BODY.velo` = u[nodes].ravel() are views. Elements live in a layout rebuilt when bodies
change (bodies/fe_layout.py): grouped by type across bodies, one numba call per group.
The per-body rows of the common block keep mass, volume, centre, energies, scheme, form,
damping and the node / element offsets. Formulations are a registry (`FORMS`; 'TL' now,
the co-rotational and reduced ones of Solfec plug in there), schemes `SCHEMES`.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import fe_points, fe_step_kernels as FK
from solfec_py.bodies.fe_corotational import CorotationalStepper
from solfec_py.bodies.fe_reduced import check_base
from solfec_py.bodies.base import BodyBlock, _rows
from solfec_py.bodies.fe_layout import MeshRecord, build, mass_properties
from solfec_py.bodies.fe_point_map import PointMap
from solfec_py.bodies.fe_loads import FELoads
from solfec_py.errors import InputError, NotAvailableError
from solfec_py.materials import check_for_kind

SCHEMES = {"DEF_EXP": 0, "DEF_LIM": 1}
DEF_EXP, DEF_LIM = 0, 1
# deck formulations (Solfec-1.0 user manual, BODY) -> implemented formulation code; None: not yet
FORMS = {"TL": 0, "BC": 1, "BC-MODAL": 2, "BC-RO": 3}   # BC*: bodies/fe_corotational.py, fe_reduced.py


def form_code(form: str) -> int:
    """Code of an FE formulation; unknown names list the registry, known but missing ones
    say so."""
    if form not in FORMS:
        raise InputError(f"Invalid FEM formulation {form!r}; expected one of {sorted(FORMS)}")
    if FORMS[form] is None:
        raise NotAvailableError(f"FEM formulation {form!r} is not available in solfec-py yet; available:"
                                f" {sorted(k for k, v in FORMS.items() if v is not None)}")
    return FORMS[form]


class PointOperator:
    """H of points on FE bodies: H = base^T [N_1 I ... N_w I] over the nodes of each
    point's element (padded with weight 0). Indexing gives the operator of a subset; `key`
    remembers each point's position in the operator it was cut from (`source`), so a block
    can cache per-point work (A^-1 H^T columns of implicit bodies) for one assembly."""

    __slots__ = ("nodes", "N", "base", "key", "source", "cache")

    def __init__(self, nodes, N, base, key=None, source=None):
        self.nodes, self.N, self.base = nodes, N, base
        self.key = np.arange(nodes.shape[0]) if key is None else key
        self.source = self if source is None else source
        self.cache = {}

    def __getitem__(self, index) -> "PointOperator":
        return PointOperator(self.nodes[index], self.N[index], self.base[index], self.key[index], self.source)

    def __len__(self) -> int:
        return self.nodes.shape[0]


class FiniteElementBlock(PointMap, BodyBlock):
    CONF_SIZE = 0
    VELO_SIZE = 0
    FIELDS = {
        "nstart": ((), np.int64),      # first node in the node arrays
        "nnodes": ((), np.int64),
        "scheme": ((), np.int8),       # SCHEMES
        "form": ((), np.int8),         # FORMS codes
        "damping": ((), float),        # stiffness-proportional damping eta
        "euler": ((3, 3), float),      # referential Euler tensor rho int (X-X0)(X-X0)^T dV
        "hcrit": ((), float),          # the body's critical step of this RUN (0: not evaluated yet)
        "background": ((), np.bool_),  # the shape (convices) is carried by a background mesh
    }

    def __init__(self, domain, capacity: int = 8):
        super().__init__(domain, capacity)
        self.records: list[MeshRecord] = []
        self.N = 0                      # nodes in use
        self.X = np.zeros((0, 3))
        self.q = np.zeros((0, 3))
        self.u = np.zeros((0, 3))
        self.u0 = np.zeros((0, 3))      # velocity at the start of the step
        self.r = np.zeros((0, 3))       # generalised reactions of the step
        self.fext = np.zeros((0, 3))    # external force of the step (work)
        self.node_row = np.zeros(0, dtype=np.int64)
        self._grow_nodes(64)
        self.layout = None
        self.loads = FELoads(self)
        self.solver = CorotationalStepper(self)     # TL, and BC through its overrides
        self._node_keys: dict = {}      # row -> {coordinate bytes: local node}
        self._located = None            # (layout, {(rows, X) bytes: elements}) of point_objects
        self._xi_cache = None           # (layout, {(elements, X) bytes: reference coordinates}) of _xi
        self.internal_stale = False

    # ------------------------------------------------------------------ bodies
    def _grow_nodes(self, capacity: int) -> None:
        for name in ("X", "q", "u", "u0", "r", "fext"):
            old = getattr(self, name)
            new = np.zeros((capacity, 3))
            new[: old.shape[0]] = old
            setattr(self, name, new)
        rows = np.zeros(capacity, dtype=np.int64)
        rows[: self.node_row.size] = self.node_row
        self.node_row = rows

    @staticmethod
    def mesh_of(primitives):
        from solfec_py.geometry.mesh import Mesh

        meshes = [p for p in primitives if isinstance(p, Mesh)]
        return meshes[0] if len(meshes) == 1 and len(primitives) == 1 else None

    def fe_mesh(self, body):
        """The mesh that carries a body's motion: the kept background mesh, else its shape."""
        background = getattr(body, "_background", None)
        return background.mesh if background is not None else self.mesh_of(body.shape)

    def admit(self, body) -> None:
        """Errors of a new FE body before it is inserted: a single MESH shape, a usable
        Poisson ratio, no inverted or flat element (named by its 0-based mesh index)."""
        form = getattr(body, "_form", None)
        form_code("TL" if form is None else form)
        mesh = self.fe_mesh(body)
        who = f"BODY{' ' + repr(body.label) if body.label else ''}"
        if mesh is None:
            raise InputError(f"{who}: 'shape' must be a single MESH object for a FINITE_ELEMENT body")
        material = body.bulk_material
        _check_material(material, who)
        base = getattr(body, "_base", None)
        if base is not None:
            check_base(form, base[0], base[1], mesh.nnod)
        record = MeshRecord.of(mesh, material, getattr(getattr(body, "_background", None), "rules", None))
        lay = build([record], np.zeros(1, np.int64), mesh.nnod, mesh.ref)
        if lay.bad is not None:
            e = int(record.order[lay.bad[1]])
            background = getattr(body, "_background", None)
            which = "mesh" if background is None else "background mesh"
            if background is not None:
                e = int(background.kept[e])
            raise InputError(f"{who}: element {e} of the {which} is inverted or has zero volume (non-positive"
                             f" Jacobian); list its nodes as the element type requires (docs/fem.md)")

    def _init_row(self, row, body, volume, center, euler):
        mesh = self.fe_mesh(body)
        background = getattr(body, "_background", None)
        record = MeshRecord.of(mesh, body.bulk_material, None if background is None else background.rules)
        self.background[row] = background is not None
        n = mesh.nnod
        if self.N + n > self.X.shape[0]:
            self._grow_nodes(max(2 * self.X.shape[0], self.N + n))
        s = self.N
        self.X[s:s + n], self.q[s:s + n], self.u[s:s + n] = mesh.ref, 0.0, 0.0
        self.node_row[s:s + n] = row
        self.nstart[row], self.nnodes[row] = s, n
        self.N += n
        self.records.append(record)
        if mesh.is_quadratic:                   # curved elements: the integrals of the elements
            volume, center, euler = mass_properties(mesh)
            self.volume[row], self.center[row] = volume, center
        density = body.bulk_material.density
        self.mass[row] = density * volume
        self.euler[row] = density * euler
        self.scheme[row] = DEF_EXP
        self.form[row] = form_code(getattr(body, "_form", None) or "TL")
        if self.form[row] >= 2:                 # reduced forms are always DEF_LIM (fe_reduced.py)
            self.scheme[row] = DEF_LIM

    def remove(self, body) -> None:
        row = body.row
        s, n = int(self.nstart[row]), int(self.nnodes[row])
        for name in ("X", "q", "u", "u0", "r", "fext", "node_row"):
            arr = getattr(self, name)
            arr[s:self.N - n] = arr[s + n:self.N]
        self.N -= n
        later = np.arange(row + 1, self.count)
        self.nstart[later] -= n
        self.node_row[:self.N][self.node_row[:self.N] > row] -= 1
        del self.records[row]
        self.loads.remove_body(body)
        super().remove(body)

    LOCAL_FIELDS = ("nstart",)          # where the body's nodes start in this block's arrays

    def _pack_ragged(self, rows):
        """Displacements and velocities of the bodies' nodes (6 per node)."""
        parts = [np.concatenate((self.q[self.nodes_of(r)], self.u[self.nodes_of(r)]), axis=1).reshape(-1)
                 for r in rows.tolist()]
        lengths = np.array([p.size for p in parts], dtype=np.int64)
        return (np.concatenate(parts) if parts else np.zeros(0)), lengths

    def _unpack_ragged(self, rows, flat, lengths) -> None:
        start = 0
        for r, n in zip(rows.tolist(), lengths.tolist()):
            sl = self.nodes_of(r)
            if n != 6 * (sl.stop - sl.start):
                raise InputError(f"finite-element body {self.bodies[r].id} arrived with {n // 6} nodes; its mesh"
                                 f" here has {sl.stop - sl.start}")
            qu = flat[start:start + n].reshape(-1, 6)
            self.q[sl], self.u[sl] = qu[:, :3], qu[:, 3:]
            start += n

    def state_arrived(self, rows) -> None:
        self.solver.reduced_changed(rows)
        self.internal_stale = True

    def movable(self, rows) -> str:
        if (self.form[_rows(rows)] >= 2).any():
            return "reduced finite-element bodies (BC-MODAL, BC-RO) stay on one process"
        if self.background[_rows(rows)].any():
            return "finite-element bodies carried by a background mesh stay on one process"
        return ""

    def _park(self, body) -> dict:
        rec = self.records[body.row]
        return {"loads": self.loads.extract(body),
                "materials": (rec.mat.copy(), list(rec.materials), rec.matid.copy())}

    def _unpark(self, body, parked: dict) -> None:
        if "loads" in parked:
            self.loads.restore(parked["loads"])
        if "materials" in parked:               # APPLY_BULKMAT's element materials and their records
            mat, materials, matid = parked["materials"]
            rec = self.records[body.row]
            if rec.mat.shape == mat.shape:
                rec.mat[:], rec.materials, rec.matid = mat, materials, matid
                self.on_change()                # the body's own materials back: its hcrit holds

    def on_change(self) -> None:
        self.layout = None
        self._node_keys = {}
        self.loads.invalidate()
        self.solver.invalidate()

    def materials_changed(self) -> None:
        """Element materials were set (APPLY_BULKMAT): masses, stiffness and critical steps follow."""
        self.hcrit[: self.count] = 0.0
        self.solver.forget_operators()
        self.on_change()

    def prepared(self):
        """The element layout, built when bodies or materials changed."""
        if self.layout is None:
            nstart = self.nstart[: self.count]
            self.layout = build(self.records, nstart, self.N, self.X)
        return self.layout

    def set_scheme(self, row: int, name: str) -> None:
        if name == "DEF_EXP" and self.form[row] >= 2:
            raise InputError(f"Invalid integration scheme 'DEF_EXP' for a reduced (BC-MODAL, BC-RO) body"
                             f" {self.bodies[row].id}: it is always integrated with DEF_LIM")
        self.scheme[row] = SCHEMES[name]
        self.solver.invalidate()

    def set_damping(self, row: int, eta: float) -> None:
        self.damping[row] = eta

    def set_characteristics(self, row, mass, volume, center, tensor) -> None:
        """BODY_CHARS: overwrite m, V, X0 and the Euler tensor, as Solfec-1.0 bod.c does; the
        nodal masses and the stiffness keep coming from the elements and their density (as
        in fem.c). X0 is the centre INITIAL_VELOCITY and RIGID_DISPLACEMENTS turn about."""
        self.mass[row], self.volume[row] = mass, volume
        self.center[row] = center
        self.euler[row] = tensor

    def apply_material(self, body, volid: int, material) -> int:
        """APPLY_BULKMAT: elements of `body` with volume id `volid` take `material`;
        returns how many."""
        _check_material(material, f"APPLY_BULKMAT (body {body.id})")
        rec = self.records[body.row]
        sel = rec.mesh.volids[rec.order] == volid
        rec.assign(sel, material)
        self.materials_changed()
        return int(sel.sum())

    def material_users(self, record) -> list:
        return [b for b, rec in zip(self.bodies, self.records) if rec.uses(record)]

    def material_changed(self, record) -> None:
        if any([rec.refresh(record) for rec in self.records]):
            self.materials_changed()

    # ------------------------------------------------------------------ state views
    def nodes_of(self, row: int) -> slice:
        s = int(self.nstart[row])
        return slice(s, s + int(self.nnodes[row]))

    def conf_view(self, row: int) -> np.ndarray:
        if self.form[row] >= 2:                 # (q, R) of a reduced body (bodies/fe_reduced.py)
            return self.solver.reduced_state(row).conf
        return self.q[self.nodes_of(row)].reshape(-1)

    def velo_view(self, row: int) -> np.ndarray:
        if self.form[row] >= 2:
            return self.solver.reduced_state(row).velo
        return self.u[self.nodes_of(row)].reshape(-1)

    def state_sizes(self) -> np.ndarray:
        n = self.nnodes[: self.count]
        return np.column_stack([3 * n, 3 * n]).astype(np.int64)

    def state_values(self) -> np.ndarray:
        energy = self.energies()
        parts = []
        for row in range(self.count):
            sl = self.nodes_of(row)
            parts += [self.q[sl].reshape(-1), self.u[sl].reshape(-1), energy[row]]
        return np.concatenate(parts) if parts else np.zeros(0)

    def set_state_values(self, rows, values, sizes, parts=("conf", "velo", "energy")) -> None:
        rows = _rows(rows)
        values = np.asarray(values, dtype=float)
        sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
        offset = 0
        for row, (nc, nv) in zip(rows.tolist(), sizes.tolist()):
            sl = self.nodes_of(row)
            if nc != 3 * (sl.stop - sl.start):
                raise InputError(f"stored state of body {self.bodies[row].id} has {nc} displacements; its mesh"
                                 f" has {sl.stop - sl.start} nodes (the deck differs from the one that wrote it)")
            if "conf" in parts:
                self.q[sl] = values[offset:offset + nc].reshape(-1, 3)
            if "velo" in parts:
                self.u[sl] = values[offset + nc:offset + nc + nv].reshape(-1, 3)
            if "energy" in parts:
                self.energy[row] = values[offset + nc + nv:offset + nc + nv + 5]
            offset += nc + nv + 5
        self.internal_stale = "conf" in parts and "energy" not in parts

    def energies(self) -> np.ndarray:
        if self.internal_stale:
            self.solver.internal_energy()
        return self.energy[: self.count]

    def nonfinite_rows(self) -> np.ndarray:
        N = self.N
        if FK.first_nonfinite(self.q[:N], self.u[:N]) < 0:
            return np.empty(0, dtype=np.int64)
        bad = ~(np.isfinite(self.q[:N]).all(axis=1) & np.isfinite(self.u[:N]).all(axis=1))
        return np.unique(self.node_row[:N][bad])

    TENSOR = "euler"

    def state_changed(self, rows) -> None:
        self.solver.reduced_changed(rows)
        self.internal_stale = True

    # ------------------------------------------------------------------ time stepping
    def dynamic_init(self) -> None:
        self.solver.dynamic_init()

    def critical_step(self) -> float:
        return self.solver.critical_step()

    def critical_source(self) -> str:
        return self.solver.critical_source()

    def step_begin(self, t: float, h: float) -> None:
        self.solver.step_begin(t, h)

    def step_end(self, t: float, h: float) -> None:
        self.solver.step_end(t, h)

    def qs_step_begin(self, t: float, h: float) -> None:
        self.solver.qs_step_begin(t, h)

    def qs_step_end(self, t: float, h: float) -> None:
        self.solver.qs_step_end(t, h)

    def kinetic_energy(self) -> np.ndarray:
        N = self.N
        lay = self.prepared()
        e = 0.5 * lay.mass * np.einsum("ni,ni->n", self.u[:N], self.u[:N])
        return np.bincount(self.node_row[:N], weights=e, minlength=self.count)

    def initial_velocity(self, row: int, linear, angular) -> None:
        """u_k = v + omega x (X_k - X0) (docs/fem.md)."""
        sl = self.nodes_of(row)
        self.u[sl] = np.asarray(linear, float) + np.cross(np.asarray(angular, float), self.X[sl] - self.center[row])

    # ------------------------------------------------------------------ constraints
    def gen_to_loc(self, rows, X, base, elem=None, corners=None) -> PointOperator:
        """H of points; entries flagged in `corners` (k,) bool use the shape functions of
        the corner (linear) element of a quadratic one (see `local_operator`)."""
        X = np.ascontiguousarray(X, dtype=float).reshape(-1, 3)
        gid = self._gid(rows, X, elem)
        lay = self.layout
        w = lay.econn.shape[1]
        nodes, N = np.empty((gid.size, w), dtype=np.int64), np.empty((gid.size, w))
        lin = np.zeros(gid.size, dtype=bool) if corners is None else np.asarray(corners, bool) & (
            lay.ecode_linear[gid] != lay.ecode[gid])
        for sel, ecode in ((np.flatnonzero(~lin), lay.ecode), (np.flatnonzero(lin), lay.ecode_linear)):
            if sel.size:
                n_s, N_s = np.empty((sel.size, w), dtype=np.int64), np.empty((sel.size, w))
                fe_points.shape_values(lay.econn, ecode, gid[sel], self._xi(gid[sel], X[sel], ecode=ecode), n_s, N_s)
                nodes[sel], N[sel] = n_s, N_s
        return PointOperator(nodes, N, np.ascontiguousarray(base, dtype=float))

    def local_operator(self, rows, X, base, elem, contact) -> PointOperator:
        """Contact points on quadratic elements move with the element's corners: contact
        detection sees the straight-sided corner elements, and the quadratic shape functions
        on a face are negative at its corners (a contact at a HEX20 face centre would pull
        the corners into the obstacle); other constraints use the quadratic element."""
        return self.gen_to_loc(rows, X, base, elem, corners=contact)

    def local_velocity(self, rows, H, which="free") -> np.ndarray:
        out = np.empty((len(H), 3))
        fe_points.local_velocities(H.nodes, H.N, H.base, self.u0 if which == "start" else self.u, out)
        return out

    def delassus(self, rows, Ha, Hb) -> np.ndarray:
        return self.solver.delassus(_rows(rows), Ha, Hb)

    def delassus_factors(self, rows, H, live) -> list:
        return self.solver.delassus_factors(_rows(rows), H, live)

    def couples(self, rows, Ha, Hb):
        """Points of an explicit body interact only through common nodes (diagonal mass,
        Solfec-1.0 ldy.c, local dynamics sparsity shortcut); implicit bodies couple all their points."""
        rows = _rows(rows)
        near = fe_points.share_nodes(Ha.nodes, Ha.N, Hb.nodes, Hb.N)
        return near | (self.solver.implicit_rows()[rows])

    def add_reactions(self, rows, H, R) -> None:
        fe_points.add_reactions(H.nodes, H.N, H.base, np.ascontiguousarray(R, dtype=float), self.r)

    def contact_inert(self, rows) -> np.ndarray:
        return np.zeros(_rows(rows).size, dtype=bool)

    def absorbed(self, cset) -> np.ndarray:
        rows = self.solver.pins.rows(cset)
        return rows[rows >= 0]

    def refresh_absorbed(self, cset) -> int:
        pins = self.solver.pins
        if not len(pins):
            return 0
        rows = pins.rows(cset)
        ok = rows >= 0
        node = pins.node[pins.con_node[ok]]
        cset.point[rows[ok]] = self.X[node] + self.q[node]     # pins sit at mesh nodes
        return int(ok.sum())

    def stored_geometry(self, row: int):
        """(reference nodes (nn, 3), cells (ne, 1 + MAXN): element code then local nodes,
        -1 padded, in object order, element materials (ne, 3))."""
        rec = self.records[row]
        cells = np.full((rec.nele, 1 + fe_points.MAXN), -1, dtype=np.int64)
        cells[:, 0] = rec.codes
        cells[:, 1:1 + rec.conn.shape[1]] = rec.conn
        return self.X[self.nodes_of(row)], cells, rec.mat

    def add_pressure(self, body, surfid: int, value) -> None:
        self.loads.add_pressure(body, surfid, value)


def _check_material(material, who: str) -> None:
    check_for_kind("FINITE_ELEMENT", material.label, material.young, material.poisson, who)
