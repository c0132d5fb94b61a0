"""The domain (layer 4): Solfec's general-body registry for one SOLFEC object — bodies in
creation order with ids and labels, the per-kind state blocks, materials, gravity,
time, extents and run bookkeeping. Reference: Solfec dom.c / dom.h.

Bodies of one family live as rows of one block (`bodies.BODY_KINDS[kind].family`); the
domain owns the blocks and steps them as wholes, never body by body.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from solfec_py import session
from solfec_py.bodies import BODY_KINDS
from solfec_py.bodies.base import Body, BodyBlock, DeletedBlock
from solfec_py.constraints import ConstraintSet
from solfec_py.errors import NotAvailableError
from solfec_py.materials import BulkMaterial, SurfaceMaterialTable, check_for_kind
from solfec_py.timeseries import evaluate


@dataclass
class Callback:
    """CALLBACK(solfec, interval, data, callback) registration (Solfec-1.0 user manual, CALLBACK)."""

    interval: float
    data: Any
    function: Callable
    next_time: float


@dataclass
class Domain:
    analysis: str                       # 'DYNAMIC' or 'QUASI_STATIC'
    step: float
    time: float = 0.0
    bodies: list = field(default_factory=list)          # creation order
    by_id: dict = field(default_factory=dict)
    labels: dict = field(default_factory=dict)          # label -> first body with it
    blocks: dict = field(default_factory=dict)          # family name -> BodyBlock
    bulk_materials: dict = field(default_factory=dict)  # label -> BulkMaterial
    surface_materials: SurfaceMaterialTable = field(default_factory=SurfaceMaterialTable)
    fields: dict = field(default_factory=dict)
    gravity: tuple = (0.0, 0.0, 0.0)                     # numbers or time series
    extents: tuple | None = None
    callback: Callback | None = None
    constraints: list = field(default_factory=list)
    joints: list = field(default_factory=list)           # bodies.articulated.Joint records (JOINT)
    excluded_bodies: set = field(default_factory=set)     # (id1 < id2) pairs without contact detection
    excluded_surfaces: set = field(default_factory=set)   # (s1 <= s2) surface pairs without contacts
    sparsify: Any = None                                  # contact.sparsify.Settings (set by SOLFEC)
    contact_points: str = "CENTROID"                      # CONTACT_POINTS mode (contact/polygon_points.py)
    overlap_correction: Any = None                        # OVERLAP_CORRECTION settings (solvers/overlap_correction.py)
    overlap_warm: Any = None                              # (constraint ids, R') of its last correction
    solved_local_dynamics: Any = None                     # the step's solved W, kept for it until it runs
    last_local_dynamics: Any = None                       # (LocalDynamics, constraint ids, serials) of the last solve (LOCDYN_DUMP)
    next_body_id: int = 1
    initialized: bool = False
    steps_done: int = 0
    timers: dict = field(default_factory=dict)          # phase name -> seconds since last frame
    blowup: float = 1e6        # largest one-step growth factor of the kinetic energy (inf: no check)
    parallel: Any = None       # parallel.decomposition.Decomposition of a run on several ranks
    balance: tuple = (1.1, 1.0, 10)   # IMBALANCE_TOLERANCE: (tolerance, weight factor, update frequency)
    tunnelling: str = "WARN"   # a body through another in one step: WARN, STOP or OFF (contact/tunnel.py)
    tunnel_state: Any = None   # what the tunnelling checks keep between steps (contact/tunnel.py)

    @property
    def dynamic(self) -> bool:
        return self.analysis == "DYNAMIC"

    # ----------------------------------------------------------------- bodies
    def block_for(self, kind: str) -> BodyBlock:
        """The block holding bodies of `kind`, created on first use."""
        spec = BODY_KINDS[kind]
        if spec.block is None:
            raise NotAvailableError(
                f"BODY kind '{kind}' is not available in solfec-py yet; available kinds:"
                f" {sorted(k for k, s in BODY_KINDS.items() if s.block is not None)}")
        block = self.blocks.get(spec.family)
        if block is None:
            block = spec.block(self)
            self.blocks[spec.family] = block
        return block

    def insert(self, body: Body) -> None:
        body.id = self.next_body_id
        self.next_body_id += 1
        self.bodies.append(body)
        self.by_id[body.id] = body
        if body.label and body.label not in self.labels:
            self.labels[body.label] = body

    def forget(self, body: Body) -> None:
        """Drop a body that is no row of any block here (deleted on another rank of a
        parallel run) from the registry."""
        self._unregister(body)
        body.deleted = True
        body.block = DeletedBlock(body, self.time)

    def delete(self, body: Body) -> None:
        self._unregister(body)
        body.block.remove(body)
        body.deleted = True
        body.block = DeletedBlock(body, self.time)

    def _unregister(self, body: Body) -> None:
        """Out of the registry and its labels, with its constraints."""
        self.bodies.remove(body)
        del self.by_id[body.id]
        if body.label and self.labels.get(body.label) is body:
            del self.labels[body.label]
            for other in self.bodies:
                if other.label == body.label:
                    self.labels[body.label] = other
                    break
        if isinstance(self.constraints, ConstraintSet):
            self.constraints.remove_body(body)      # its CONSTRAINT objects read None at once

    # ----------------------------------------------------------------- loads
    def gravity_at(self, t: float) -> np.ndarray:
        return np.array([evaluate(g, t) for g in self.gravity], dtype=float)

    # ----------------------------------------------------------------- stepping helpers
    def critical_step(self) -> float:
        return min((b.critical_step() for b in self.blocks.values() if b.count), default=math.inf)

    def critical_source(self) -> str:
        """The body (and element, material) that sets the critical step, in words."""
        blocks = self.active_blocks()
        if not blocks:
            return ""
        return min(blocks, key=lambda b: b.critical_step()).critical_source()

    def active_blocks(self):
        return [b for b in self.blocks.values() if b.count]

    def energy(self, bodies=None, stepped: bool = False) -> np.ndarray:
        """(kinetic, external, contact, friction, internal) summed over `bodies` (all if None).
        The kinetic energy is that of the current velocities (also before the first RUN or
        after a deck changed them); `stepped` (right after a dynamic step, when the blocks'
        stored kinetic energies are current) takes the stored values instead."""
        total = np.zeros(5)
        for block in self.active_blocks():
            n = block.count
            rows = np.arange(n) if bodies is None else np.array(
                [b.row for b in bodies if b.block is block], dtype=np.int64)
            if rows.size == 0:
                continue
            energy = block.energies()
            slots = energy if bodies is None else energy[rows]
            if stepped and self.dynamic:
                total += slots.sum(axis=0)
                continue
            kinetic = block.kinetic_energy()            # obstacles have none
            still = block.obstacles()
            if still is not None:
                kinetic = np.where(still, 0.0, kinetic)
            total[0] += (kinetic if bodies is None else kinetic[rows]).sum()
            total[1:] += slots[:, 1:].sum(axis=0)
        return total

    def bulk_material(self, label: str) -> BulkMaterial | None:
        return self.bulk_materials.get(label)

    def update_bulk_material(self, record: BulkMaterial, who: str, **values) -> None:
        """Set parameters of `record` (BULK_MATERIAL's setters, or the constructor given a label
        in use) by the one rule of materials.py: first every body made of it must be able to
        take the new values (materials.check_for_kind, BODY's own check), then the record
        changes and the blocks take young and poisson at once; a new density leaves the
        masses of existing bodies as they are (computed when each was made) and says so."""
        users = [b for block in self.blocks.values() for b in block.material_users(record)]
        trial = replace(record, **values)
        for body in users:
            check_for_kind(body.kind, record.label, trial.young, trial.poisson,
                           f"{who}: body {body.id}{' ' + repr(body.label) if body.label else ''}")
        density = values.get("density", record.density)
        keep_mass = density != record.density and users
        for name, value in values.items():
            setattr(record, name, value)
        for block in self.blocks.values():
            block.material_changed(record)
        if keep_mass:
            ids = ", ".join(str(b.id) for b in users[:5]) + (", ..." if len(users) > 5 else "")
            session.warn(f"{who}: the {len(users)} bod{'y' if len(users) == 1 else 'ies'} already made of it ({ids})"
                         " keep the mass computed from the density they were made with; the new density is for"
                         " bodies made from now on (as in Solfec-1.0)")

    def outside_extents(self) -> list:
        """Bodies whose bounding box left EXTENTS (deleted by the time stepper). The blocks'
        quick boxes (e.g. about a rigid body's circumscribed sphere) select the candidates;
        a candidate goes only if the box of its current shape leaves the extents."""
        if self.extents is None:
            return []
        lo, hi = np.asarray(self.extents[:3]), np.asarray(self.extents[3:])
        out = []
        for block in self.active_blocks():
            blo, bhi = block.bounding_boxes()
            n = block.count
            bad = np.any(blo[:n] < lo, axis=1) | np.any(bhi[:n] > hi, axis=1)
            for i in np.flatnonzero(bad).tolist():
                boxes = [p.bounding_box() for p in block.current_primitives(i)]
                plo = np.min([b[0] for b in boxes], axis=0)
                phi = np.max([b[1] for b in boxes], axis=0)
                if np.any(plo < lo) or np.any(phi > hi):
                    out.append(block.bodies[i])
        return out

    def _stop(self, what: str, body: Body) -> None:
        """Stop a run that blew up, naming the body and the time (house rule 3)."""
        from solfec_py.errors import SimulationError

        raise SimulationError(
            f"{what} of body {body.id}{' (' + repr(body.label) + ')' if body.label else ''} at time"
            f" {self.time:g} after {self.steps_done} steps; reduce the time step or check loads")

    def check_finite(self) -> None:
        """Stop a run whose state became NaN or infinite, naming the first such body."""
        for block in self.active_blocks():
            bad = block.nonfinite_rows()
            if bad.size:
                self._stop("non-finite state", block.bodies[int(bad[0])])

    def kinetic_energy_now(self) -> float:
        """Sum of the kinetic energies the blocks stored at the end of the last step."""
        return float(sum(block.energy[: block.count, 0].sum() for block in self.active_blocks()))

    def check_energy(self, before: float, h: float) -> float:
        """Stop a dynamic run whose energies became infinite or whose kinetic energy grew by
        more than the factor `blowup` in the step of length `h` (the energies are those stored
        by the blocks after the step; `before` is the total kinetic energy before it). To be
        told apart from a legitimate start from rest, the grown energy must also exceed that
        of every body moving by its own size in one step (sum of m (r/h)^2 / 2, r = half the
        diagonal of its bounding box). Returns the total kinetic energy now. The size scale
        and the body with the largest share are only worked out when the total grew by more
        than `blowup` (or is not finite): most steps only sum the kinetic energies."""
        total = 0.0
        blocks = self.active_blocks()
        for block in blocks:
            energy = block.energy[: block.count]
            # a finite sum means every entry is finite (else, or on overflow, the rows decide)
            if not math.isfinite(float(energy.sum())) and not np.isfinite(energy).all():
                row = int(np.flatnonzero(~np.isfinite(energy).all(axis=1))[0])
                self._stop(f"infinite energy {tuple(energy[row].tolist())} (kinetic, external,"
                           " contact, friction, internal)", block.bodies[row])
            total += float(energy[:, 0].sum())
        if not math.isfinite(total):
            self._stop(f"infinite total kinetic energy {total!r} (largest share)", self._largest_share(blocks)[1])
        if self.blowup < math.inf and total > self.blowup * before:
            worst = self._largest_share(blocks)
            if worst is not None and total > self._motion_scale(blocks, h):
                self._stop(f"kinetic energy blow-up: the total kinetic energy grew from {before:.4g} J to"
                           f" {total:.4g} J in one step (more than the factor SOLFEC.blowup ="
                           f" {self.blowup:g}); {worst[0]:.4g} J", worst[1])
        return total

    @staticmethod
    def _largest_share(blocks):
        """(kinetic energy, body) of the body of largest kinetic energy, None without bodies."""
        worst = None
        for block in blocks:
            n = block.count
            if n:
                kinetic = block.energy[:n, 0]
                row = int(np.argmax(kinetic))
                if worst is None or kinetic[row] > worst[0]:
                    worst = (float(kinetic[row]), block.bodies[row])
        return worst

    @staticmethod
    def _motion_scale(blocks, h: float) -> float:
        """Sum over all bodies of m (r/h)^2 / 2, r half the diagonal of the bounding box."""
        scale = 0.0
        for block in blocks:
            n = block.count
            if n:
                lo, hi = block.bounding_boxes()
                size = 0.5 * np.linalg.norm(hi[:n] - lo[:n], axis=1)
                scale += float(np.sum(0.5 * block.mass[:n] * (size / h) ** 2))
        return scale
