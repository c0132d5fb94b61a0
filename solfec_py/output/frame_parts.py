"""A results frame as arrays before it is written (layer 6): the body states of each family,
the state the schemes carry, the constraint rows, the registry entries and meshes of the
bodies, the energies. A serial run writes what `collect` takes from its domain; each rank of
a parallel run collects the bodies and constraints it owns, rank 0 `merge`s the parts (in the
order of body and constraint ids) and writes one model. Reference: output/frames.py (the
layout), docs/results.md, docs/parallel.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solfec_py.bodies import BODY_KINDS
from solfec_py.bodies.base import BodyBlock
from solfec_py.output import frames

KIND_CODE = {kind: spec.code for kind, spec in BODY_KINDS.items()}


@dataclass
class FrameParts:
    fixed: dict = field(default_factory=dict)       # family -> (ids (n,), states (n, width))
    ragged: dict = field(default_factory=dict)      # family -> (ids (n,), sizes (n, 2), values flat)
    carried: dict = field(default_factory=dict)     # family -> rows (k, width), body id first
    constraints: np.ndarray = None                  # (k, len(CON_COLUMNS))
    registry: tuple = None                          # (ids, kind codes, X0 (n, 3)) of the bodies
    geometry: dict = field(default_factory=dict)    # body id -> (nodes, cells, materials)
    energy: np.ndarray = None                       # (5,) summed over the bodies
    bodies: int = 0


def collect(domain, owned=None, geometry_known=frozenset(), stepped: bool = False) -> FrameParts:
    """The frame of `domain`'s rows (those where `owned(block)` (a mask) is true, or all);
    meshes of finite-element bodies whose id is not in `geometry_known`."""
    parts = FrameParts()
    reg_ids, reg_codes, reg_x0, chosen = [], [], [], []
    for fam in frames.ALL_FAMILIES:
        block = domain.blocks.get(fam)
        n = block.count if block is not None else 0
        mask = np.ones(n, dtype=bool) if owned is None or not n else owned(block)
        rows = np.flatnonzero(mask)
        ids = frames.body_ids(block)[rows] if n else np.zeros(0, np.int64)
        if fam in frames.RAGGED:
            sizes = block.state_sizes()[rows] if n else np.zeros((0, 2), np.int64)
            values = block.state_values() if n else np.zeros(0)
            if n and rows.size < n:
                values = frames.pick(values, block.state_sizes(), rows)
            parts.ragged[fam] = (ids, sizes, values)
        else:
            width = frames.state_width(fam)
            states = np.zeros((rows.size, width))
            if rows.size:
                a, b = block.conf.shape[1], block.velo.shape[1]
                states[:, :a], states[:, a:a + b], states[:, a + b:] = block.conf[rows], block.velo[rows], \
                    block.energy[rows]
            parts.fixed[fam] = (ids, states)
        if fam in frames.CARRIED:
            carried = block.carried_rows() if n else np.zeros((0, frames.CARRIED[fam]))
            if n and rows.size < n and carried.shape[0]:
                carried = carried[np.isin(carried[:, 0].astype(np.int64), ids)]
            parts.carried[fam] = carried
        if rows.size:
            bodies = [block.bodies[r] for r in rows.tolist()]
            chosen += bodies
            reg_ids.append(ids)
            reg_codes.append(np.fromiter((KIND_CODE[b.kind] for b in bodies), dtype=np.int64, count=len(bodies)))
            reg_x0.append(np.asarray(block.center[rows], dtype=float))
            if type(block).stored_geometry is not BodyBlock.stored_geometry:
                for b in bodies:
                    if b.id not in geometry_known:
                        geo = block.stored_geometry(b.row)
                        if geo is not None:
                            parts.geometry[b.id] = geo
    cons = frames.constraint_rows(domain)
    if owned is None or not len(domain.constraints):
        parts.constraints = cons
    else:
        parts.constraints = cons[: domain.constraints.count]
    parts.registry = (np.concatenate(reg_ids) if reg_ids else np.zeros(0, np.int64),
                      np.concatenate(reg_codes) if reg_codes else np.zeros(0, np.int64),
                      np.concatenate(reg_x0) if reg_x0 else np.zeros((0, 3)))
    parts.energy = domain.energy(stepped=stepped) if owned is None else domain.energy(chosen, stepped=stepped)
    parts.bodies = len(chosen)
    return parts


def merge(every: list) -> FrameParts:
    """One frame of the parts of all ranks: rows in the order of body and constraint ids."""
    out = FrameParts()
    for fam in frames.FAMILIES:
        ids = np.concatenate([p.fixed[fam][0] for p in every])
        states = np.concatenate([p.fixed[fam][1] for p in every])
        order = np.argsort(ids, kind="stable")
        out.fixed[fam] = (ids[order], states[order])
    for fam in frames.RAGGED:
        ids = np.concatenate([p.ragged[fam][0] for p in every])
        sizes = np.concatenate([p.ragged[fam][1] for p in every]).reshape(-1, 2)
        values = np.concatenate([p.ragged[fam][2] for p in every])
        order = np.argsort(ids, kind="stable")
        out.ragged[fam] = (ids[order], sizes[order], frames.pick(values, sizes, order) if order.size else values)
    for fam in frames.CARRIED:
        rows = np.concatenate([p.carried[fam].reshape(-1, frames.CARRIED[fam]) for p in every])
        out.carried[fam] = rows[np.argsort(rows[:, 0], kind="stable")] if rows.shape[0] else rows
    cons = np.concatenate([p.constraints for p in every])
    out.constraints = cons[np.argsort(cons[:, frames.CCOL["ID"]], kind="stable")] if cons.shape[0] else cons
    ids = np.concatenate([p.registry[0] for p in every])
    order = np.argsort(ids, kind="stable")
    out.registry = (ids[order], np.concatenate([p.registry[1] for p in every])[order],
                    np.concatenate([p.registry[2] for p in every])[order])
    for p in every:
        out.geometry.update(p.geometry)
    out.energy = np.sum([p.energy for p in every], axis=0)
    out.bodies = sum(p.bodies for p in every)
    return out
