"""External forces on finite-element bodies (layer 3): gravity through the unit body force,
point forces at referential points (spatial or convected, constant, TIME_SERIES or
callback) and PRESSURE on surface ids, all evaluated into one nodal force array.
Reference: Solfec-1.0 fem.c (``FEM_Dynamic_Step_Begin`` external force, ``fem_body_force``,
point forces through ``element_shapes``, ``FEM_Pressure``); Solfec-1.0 user manual, loads.

PRESSURE is a *dead* load, as in Solfec: the referential outward normals and areas of the
faces are integrated once (fem.surface), and the nodal forces only scale with the value
p(t); positive values pull the surface outward. docs/fem.md discusses the choice
against the BM decks.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import fe_points
from solfec_py.bodies.loads import CONVECTED_FORCE, PointLoads
from solfec_py.errors import InputError, InputTypeError
from solfec_py.fem import surface
from solfec_py.fem.elements import Quad4, Quad8, Tri3, Tri6
from solfec_py.timeseries import evaluate

FACES = {3: Tri3, 4: Quad4}
CURVED = {3: Tri6, 4: Quad8}     # faces of quadratic cells: corners, then mid-edge nodes


class FELoads(PointLoads):
    """FORCE records (as the rigid block's, plus their element and reference coordinates,
    found once per layout) and PRESSURE records (unit nodal forces, integrated once)."""

    def __init__(self, block):
        super().__init__()
        self.block = block
        self.pressures: list = []       # (body, surfid, value)
        self._located = None            # (gid, xi) of the point forces
        self._unit = None               # per pressure: (global nodes, unit nodal forces)

    def add(self, body, kind, point, direction, value) -> None:
        # locate now: a point outside the mesh is an error of the FORCE command
        if self.block.point_objects([body.row], np.asarray(point, float).reshape(1, 3))[0] < 0:
            raise InputError(f"Point outside of a finite-element body shape: {tuple(np.asarray(point).tolist())}"
                             f" is not inside the reference mesh of body {body.id}")
        super().add(body, kind, point, direction, value)
        self._located = None

    def add_pressure(self, body, surfid: int, value) -> None:
        mesh = self.block.records[body.row].mesh
        _, _, sids, _ = mesh.boundary_faces()
        if not (sids == surfid).any():
            raise InputError(f"PRESSURE: body {body.id} has no boundary face with surface id {surfid}; its"
                             f" surface ids are {sorted(set(sids.tolist()))}")
        self.pressures.append((body, int(surfid), value))
        self._unit = None

    def extract(self, body) -> list:
        pressures = [p for p in self.pressures if p[0] is body]
        return super().extract(body) + [pressures]

    def restore(self, taken: list) -> None:
        super().restore(taken[:2])
        self.pressures.extend(taken[2])
        self.invalidate()

    def remove_body(self, body) -> None:
        super().remove_body(body)
        self.pressures = [p for p in self.pressures if p[0] is not body]
        self.invalidate()

    def invalidate(self) -> None:
        super().invalidate()
        self._located = None
        self._unit = None

    # ------------------------------------------------------------------ evaluation
    def _locations(self):
        if self._located is None:
            rows, _, points, _ = self.arrays()
            gid = self.block._gid(rows, points, None)
            self._located = (gid, self.block._xi(gid, points))
        return self._located

    def _units(self) -> list:
        if self._unit is None:
            blk = self.block
            out = []
            for body, sid, value in self.pressures:
                mesh = blk.records[body.row].mesh
                nodes, sizes, sids, _ = mesh.boundary_faces()
                f = np.zeros((mesh.nnod, 3))
                X = blk.X[blk.nodes_of(body.row)]
                mids = mesh.boundary_midside()
                curved = mids[:, 0] >= 0
                for size in FACES:
                    for quadratic, face in ((False, FACES[size]), (True, CURVED[size])):
                        sel = (sids == sid) & (sizes == size) & (curved == quadratic)
                        if sel.any():
                            faces = nodes[sel][:, :size]
                            if quadratic:
                                faces = np.hstack([faces, mids[sel][:, :size]])
                            surface.pressure_load(face, faces, surface.face_normals(face, X, faces), 1.0, f)
                used = np.flatnonzero(np.abs(f).sum(axis=1) > 0)
                out.append((int(blk.nstart[body.row]) + used, f[used], value))
            self._unit = out
        return self._unit

    def evaluate(self, t: float, h: float, f: np.ndarray) -> None:
        """Add the external forces at time t to f (N, 3) (gravity excluded)."""
        blk = self.block
        if len(self):
            rows, kinds, points, dirs = self.arrays()
            gid, xi = self._locations()
            d = self.magnitudes(t)[:, None] * dirs
            conv = np.flatnonzero(kinds == CONVECTED_FORCE)
            if conv.size:
                lay = blk.layout
                F = np.empty((conv.size, 3, 3))
                fe_points.gradients(lay.econn, lay.ecode, blk.X, blk.q, gid[conv], np.ascontiguousarray(xi[conv]), F)
                d[conv] = np.einsum("kij,kj->ki", F, d[conv])
            w = blk.layout.econn.shape[1]
            nodes, N = np.empty((gid.size, w), dtype=np.int64), np.empty((gid.size, w))
            fe_points.shape_values(blk.layout.econn, blk.layout.ecode, gid, xi, nodes, N)
            np.add.at(f, nodes.reshape(-1), (N[:, :, None] * d[:, None, :]).reshape(-1, 3))
        for nodes, unit, value in self._units():
            f[nodes] += evaluate(value, t) * unit
        for cb in self.callbacks:
            row = cb.body.row
            sl = blk.nodes_of(row)
            out = cb.call(tuple(blk.q[sl].reshape(-1).tolist()), tuple(blk.u0[sl].reshape(-1).tolist()), t, h)
            f[sl] += _callback_forces(cb, out, 3 * (sl.stop - sl.start))


def _callback_forces(cb, out, n: int) -> np.ndarray:
    """A FORCE callback's result for a finite-element body: a tuple of len(velo) numbers."""
    name = getattr(cb.function, "__name__", "callback")
    if not isinstance(out, tuple):
        raise InputTypeError(f"FORCE callback {name!r} of body {cb.body.id} must return a tuple of {n} nodal"
                             f" forces (3 per node), got {type(out).__name__}")
    if len(out) != n:
        raise InputError(f"FORCE callback {name!r} of body {cb.body.id} returned a tuple of {len(out)} items;"
                         f" a finite-element body with {n // 3} nodes needs {n}")
    try:
        return np.array(out, dtype=float).reshape(-1, 3)
    except (TypeError, ValueError):
        raise InputTypeError(f"FORCE callback {name!r} of body {cb.body.id} returned non-numbers") from None
