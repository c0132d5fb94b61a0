"""Bulk materials of the pseudo-rigid block (layer 3): the Lamé constants of every row,
read from the BULK_MATERIAL records when they change and at each RUN (a deck may change
young / poisson after BODY: materials.py states the rule), and per-volume-id materials from
APPLY_BULKMAT. Reference: Solfec-1.0 bod.c
(BODY_Material), mat.c; docs/pseudo_rigid.md.

One F per body makes a body of several materials exact to model: the elastic energy
sum_i V_i psi(F; lambda_i, mu_i) is V psi(F; lambda, mu) with the volume-weighted Lamé
constants (psi is linear in them), and the mass and Euler tensor follow from the parts
with their own densities. (Solfec stores the per-part materials but steps a pseudo-rigid
body with its global material.)
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry.massprops import volume_pieces
from solfec_py.materials import check_for_kind


class Materials:
    """Distinct material records of a block (rows index them) and the APPLY_BULKMAT
    assignments of mixed bodies (row index -1)."""

    def __init__(self, block):
        self.block = block
        self.records: list = []
        self._index: dict = {}         # id(record) -> position in records
        self.mixed: dict = {}          # body id -> {volid: record}
        self.pieces: dict = {}         # body id -> volume_pieces of its shape

    @staticmethod
    def check(record, where: str) -> None:
        """Saint Venant-Kirchhoff needs young > 0 and poisson < 0.5 (materials.check_for_kind)."""
        check_for_kind("PSEUDO_RIGID", record.label, record.young, record.poisson, where)

    def _position(self, record) -> int:
        k = self._index.get(id(record))
        if k is None:
            k = self._index[id(record)] = len(self.records)
            self.records.append(record)
        return k

    def assign(self, row: int, body) -> None:
        self.block.material[row] = self._position(body.bulk_material)
        self.block.lame[row] = body.bulk_material.lame()

    def users(self, record) -> list:
        """Bodies of the block made of `record` (as their material or a part's)."""
        block = self.block
        return [b for b in block.bodies[: block.count]
                if b.bulk_material is record or any(r is record for r in self.mixed.get(b.id, {}).values())]

    def forget(self, body) -> None:
        self.mixed.pop(body.id, None)
        self.pieces.pop(body.id, None)

    def refresh(self) -> None:
        """Lamé constants of every row from the records as they are now."""
        block, n = self.block, self.block.count
        index = block.material[:n]
        for k in np.unique(index[index >= 0]).tolist():
            self.check(self.records[k], f"pseudo-rigid body {block.bodies[int(np.argmax(index == k))].id}")
        if self.records:
            table = np.array([r.lame() if r.poisson < 0.5 else (0.0, 0.0) for r in self.records])
            block.lame[:n][index >= 0] = table[index[index >= 0]]
        for bid in self.mixed:
            self._mixed_lame(block.domain.by_id[bid])

    def _parts(self, body):
        """[(volid, V, centre, Euler), record] of the parts of a mixed body."""
        pieces = self.pieces.setdefault(body.id, volume_pieces(body.shape))
        chosen = self.mixed.get(body.id, {})
        return [(p, chosen.get(p[0], body.bulk_material)) for p in pieces]

    def _mixed_lame(self, body) -> None:
        parts = self._parts(body)
        for _, record in parts:
            self.check(record, f"pseudo-rigid body {body.id}")
        V = sum(p[1] for p, _ in parts)
        self.block.lame[body.row] = sum(p[1] * np.array(r.lame()) for p, r in parts) / V

    def apply(self, body, volid: int, record) -> bool:
        """APPLY_BULKMAT: the parts with `volid` take `record`; the body's mass, centre and
        Euler tensor follow the densities of its parts, its motion is kept (centre and
        centre velocity re-expressed about the new centre). False when no part has `volid`."""
        self.check(record, "APPLY_BULKMAT: 'material'")
        self.pieces.setdefault(body.id, volume_pieces(body.shape))
        if volid not in [p[0] for p in self.pieces[body.id]]:
            return False
        self.mixed.setdefault(body.id, {})[volid] = record
        block, row = self.block, body.row
        parts = self._parts(body)
        masses = np.array([r.density * p[1] for p, r in parts])
        m = masses.sum()
        centres = np.array([p[2] for p, _ in parts])
        X0 = masses @ centres / m if m > 0 else block.center[row].copy()
        E0 = sum(r.density * (p[3] + p[1] * np.outer(p[2] - X0, p[2] - X0)) for p, r in parts)
        d = X0 - block.center[row]
        block.conf[row, 9:12] += block.conf[row, :9].reshape(3, 3) @ d
        block.velo[row, 9:12] += block.velo[row, :9].reshape(3, 3) @ d
        block.center[row], block.mass[row], block.euler[row] = X0, m, E0
        block.material[row] = -1
        self._mixed_lame(body)
        return True
