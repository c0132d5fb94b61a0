"""Histories of finite-element bodies from stored frames (layer 6): point values (current
place, displacement, velocity, stress) and energies of bodies whose states are flat runs of
different lengths, evaluated from the results file alone — the reference mesh comes from
the file's `geometry/` datasets, the nodal values of each frame from `state/<family>`.
Reference: Solfec-1.0 user manual, HISTORY (HISTORY point entities); Solfec sol.c SOLFEC_History (which
replays the frames through the live model instead).

Only the nodes of the element holding the point (or, at a mesh node, of the elements
around it: Solfec's nodal stress average) are read per frame.
"""
from __future__ import annotations

import numpy as np

from solfec_py import session
from solfec_py.bodies import fe_points
from solfec_py.errors import ResultsError
from solfec_py.output import frames


class StoredMesh:
    """A body's reference mesh as stored: X (nn, 3), econn (ne, w), ecode (ne,), emat (ne, 3)."""

    def __init__(self, store, bid: int):
        geo = store.geometry(bid)
        if geo is None:
            raise ResultsError(f"results file {store.path!r} holds no mesh of finite-element body {bid}"
                               " (written by an older solfec-py); its point histories need the live model")
        nodes, cells, mats = geo
        self.X = np.ascontiguousarray(nodes, dtype=float)
        self.ecode = np.ascontiguousarray(cells[:, 0], dtype=np.int64)
        self.econn = np.ascontiguousarray(cells[:, 1:], dtype=np.int64)
        self.emat = np.ascontiguousarray(mats, dtype=float)

    def point(self, X: np.ndarray):
        """(elements, local nodes they use, node of the point or -1, element, xi) of a
        referential point: the element holding it, and at a mesh node (within
        GEOMETRIC_EPSILON in every coordinate, as Solfec) all elements around."""
        X = np.asarray(X, float).reshape(1, 3)
        d = np.abs(self.X - X).max(axis=1)
        hit = np.flatnonzero(d == 0.0)
        if not hit.size and d.size and d.min() < session.geometric_epsilon():
            hit = np.array([int(np.argmin(d))])
        if hit.size:
            node = int(hit[0])
            elems = np.flatnonzero((self.econn == node).any(axis=1))
        else:
            node = -1
            found = np.empty(1, dtype=np.int64)
            fe_points.scan(self.econn, self.ecode, self.X, 0, self.ecode.size, np.ascontiguousarray(X), 1e-9, found)
            if found[0] < 0:
                raise ResultsError(f"point {tuple(X[0].tolist())} is outside the referential mesh")
            elems = found
        e = int(elems[0])
        xi = np.empty((1, 3))
        fe_points.reference_coordinates(self.econn, self.ecode, self.X, np.array([e]), X, xi)
        return elems, node, e, xi


def _frame_records(store, fr, family: str, bid: int):
    """Per frame index of fr: start of the body's record in state/<family> (-1 absent),
    and the body's (len(conf), len(velo))."""
    starts = np.full(fr.idx.size, -1, dtype=np.int64)
    shape = None
    col = store.col
    F = family.upper()
    for k, i in enumerate(fr.idx.tolist()):
        ids = fr.ids(family, i)
        pos = np.flatnonzero(ids == bid)
        if not pos.size:
            continue
        row = store.table[i]
        idoff = int(row[col(f"{F}_IDOFF")])
        sizes = store._sizes[family][idoff:idoff + ids.size]
        off = frames.value_offsets(sizes)
        starts[k] = int(row[col(f"{F}_OFF")]) + off[pos[0]]
        shape = tuple(int(v) for v in sizes[pos[0]])
    return starts, shape


def point_values(store, fr, family: str, bid: int, point, entity: str) -> np.ndarray:
    """HISTORY (body, point, entity) of a finite-element body, NaN in frames without it."""
    out = np.full(fr.idx.size, np.nan)
    starts, shape = _frame_records(store, fr, family, bid)
    if shape is None:
        return out
    mesh = fr.cache.get(("mesh", bid))
    if mesh is None:
        mesh = fr.cache[("mesh", bid)] = StoredMesh(store, bid)
    elems, node, e, xi = mesh.point(np.asarray(point, float))
    stress = entity in ("SX", "SY", "SZ", "SXY", "SXZ", "SYZ", "MISES")
    used = np.unique(mesh.econn[elems][mesh.econn[elems] >= 0]) if stress else \
        mesh.econn[e][mesh.econn[e] >= 0]
    live = np.flatnonzero(starts >= 0)
    nc = shape[0]
    base = 0 if entity[0] in "CDS" or entity == "MISES" else nc          # velocities follow conf
    data = np.stack([store.read_ranges(f"state/{family}", starts[live] + base + 3 * a, 3) for a in used], axis=1)
    local = np.full(mesh.X.shape[0], -1, dtype=np.int64)
    local[used] = np.arange(used.size)
    econn = np.where(mesh.econn[elems] >= 0, local[np.maximum(mesh.econn[elems], 0)], -1)
    X = mesh.X[used]
    k = int(np.flatnonzero(elems == e)[0])
    if stress:
        comp = ("SX", "SY", "SZ", "SXY", "SXZ", "SYZ", "MISES").index(entity)
        lnode = int(local[node]) if node >= 0 else -1
        adj_ptr = np.zeros(X.shape[0] + 1, dtype=np.int64)        # the point's node: every element
        if lnode >= 0:
            adj_ptr[lnode + 1:] = elems.size
        adj = np.arange(elems.size, dtype=np.int64)
        res = np.empty((1, 7))
        for j, f in enumerate(live.tolist()):
            fe_points.stresses(econn, mesh.ecode[elems], mesh.emat[elems], X, np.ascontiguousarray(data[j]),
                               np.array([k]), xi, np.array([lnode]), adj_ptr, adj, res)
            out[f] = res[0, comp]
        return out
    comp = "XYZ".index(entity[1])
    vals = np.empty((1, 3))
    for j, f in enumerate(live.tolist()):
        fe_points.interpolate(econn, mesh.ecode[elems], np.array([k]), xi, np.ascontiguousarray(data[j]), vals)
        v = vals[0, comp]
        out[f] = v + point[comp] if entity[0] == "C" else v
    return out


def energy(store, fr, family: str, bid: int, slot: int) -> np.ndarray:
    """Energy slot of a finite-element body per frame (NaN where absent)."""
    out = np.full(fr.idx.size, np.nan)
    starts, shape = _frame_records(store, fr, family, bid)
    live = np.flatnonzero(starts >= 0)
    if live.size:
        out[live] = store.read_ranges(f"state/{family}", starts[live] + sum(shape) + slot, 1)[:, 0]
    return out
