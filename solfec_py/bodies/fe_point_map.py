"""The point interface of the finite-element block (layer 3): referential points located in
elements, their current positions, velocities, vectors, deformation gradients and stresses,
the current meshes and shapes, bounding boxes. `PointMap` is mixed into
bodies.finite_element.FiniteElementBlock, which provides the node arrays and the layout.
Reference: Solfec-1.0 fem.c (FEM_Cur_Point, FEM_Ref_Point, FEM_Cur_Vector, stresses at points).
"""
from __future__ import annotations

import numpy as np

from solfec_py import session
from solfec_py.bodies import fe_dynamics, fe_points
from solfec_py.bodies.base import _rows
from solfec_py.errors import InputError


class PointMap:
    """Points, vectors and shapes of finite-element bodies (see the module docstring)."""

    def _gid(self, rows, X, elem, current=False) -> np.ndarray:
        """Global element of every entry: estart[row] + elem, located where elem < 0."""
        lay = self.prepared()
        rows = _rows(rows)
        e = np.full(rows.size, -1, dtype=np.int64) if elem is None else self._elements(rows, elem)
        miss = e < 0
        if miss.any():
            e = e.copy()
            e[miss] = self.point_objects(rows[miss], np.asarray(X, float).reshape(-1, 3)[miss])
            bad = np.flatnonzero(e < 0)
            if bad.size:
                k = int(bad[0])
                body = self.bodies[int(rows[k])]
                raise InputError(f"Point outside of a finite-element body shape: {tuple(np.asarray(X)[k].tolist())}"
                                 f" is not inside the reference mesh of body {body.id}")
        return lay.estart[rows] + e

    def _elements(self, rows, elem) -> np.ndarray:
        """`elem` of the entries as element indices: the objects of a body carried by a
        background mesh are its convices, so its points are located (-1)."""
        e = np.asarray(elem, np.int64).reshape(-1)
        bg = self.background[rows]
        if bg.any():
            e = np.where(bg, -1, e)
        return e

    def _xi(self, gid, points, current=False, ecode=None) -> np.ndarray:
        """Reference coordinates of points in elements `gid`; those of referential points are
        kept for the layout (the same vertices are mapped at every step)."""
        lay = self.prepared()
        points = np.ascontiguousarray(points, dtype=float).reshape(-1, 3)
        key = None
        which = 0 if ecode is None or ecode is lay.ecode else 1 if ecode is lay.ecode_linear else -1
        if not current and gid.size >= 64 and which >= 0:
            key = (gid.tobytes(), points.tobytes(), which)
            cache = self._xi_cache if self._xi_cache is not None and self._xi_cache[0] is lay else (lay, {})
            self._xi_cache = cache
            hit = cache[1].pop(key, None)
            if hit is not None:
                cache[1][key] = hit
                return hit.copy()
        nodes = self.X[: self.N] + self.q[: self.N] if current else self.X[: self.N]
        xi = np.empty((gid.size, 3))
        fe_points.reference_coordinates(lay.econn, lay.ecode if ecode is None else ecode, np.ascontiguousarray(nodes),
                                        gid, points, xi)
        if key is not None:
            if len(self._xi_cache[1]) >= 8:
                del self._xi_cache[1][next(iter(self._xi_cache[1]))]
            self._xi_cache[1][key] = xi.copy()
        return xi

    def point_objects(self, rows, X) -> np.ndarray:
        """Object index of the element holding each referential point: the surface element
        around a node for mesh nodes, else the element whose inverse image is nearest (0
        distance inside), searched among the body's elements."""
        lay = self.prepared()
        rows = _rows(rows)
        X = np.ascontiguousarray(X, dtype=float).reshape(-1, 3)
        key = (rows.tobytes(), X.tobytes())
        cache = self._located if self._located is not None and self._located[0] is lay else (lay, {})
        hit = cache[1].pop(key, None)
        if hit is not None:                # the same points as in an earlier step (kept last)
            cache[1][key] = hit
            return hit.copy()
        out = self._point_objects(lay, rows, X)
        if len(cache[1]) >= 16:            # the least recently used goes
            del cache[1][next(iter(cache[1]))]
        cache[1][key] = out.copy()
        self._located = cache
        return out

    def _point_objects(self, lay, rows, X) -> np.ndarray:
        out = np.full(rows.size, -1, dtype=np.int64)
        for row in np.unique(rows).tolist():
            m = np.flatnonzero(rows == row)
            keys = self._node_keys.get(row)
            if keys is None:
                sl = self.nodes_of(row)
                keys = self._node_keys[row] = {x.tobytes(): k for k, x in enumerate(self.X[sl])}
            for i in m.tolist():
                node = keys.get(X[i].tobytes())
                if node is not None:
                    out[i] = lay.node_elem[self.nstart[row] + node] - lay.estart[row]
            rest = m[out[m] < 0]
            if rest.size:
                out[rest] = fe_dynamics.locate(self, row, X[rest])
            rest = m[out[m] < 0]
            if rest.size and self.background[row]:     # off every element: the nearest one
                out[rest] = fe_dynamics.nearest(self, row, X[rest])
        return out

    def cur_points(self, rows, X, elem=None) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=float).reshape(-1, 3)
        gid = self._gid(rows, X, elem)
        xi = self._xi(gid, X)
        out = np.empty((gid.size, 3))
        fe_points.interpolate(self.layout.econn, self.layout.ecode, gid, xi, self.q, out)
        return X + out

    def point_velocities(self, rows, X, elem=None) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=float).reshape(-1, 3)
        gid = self._gid(rows, X, elem)
        out = np.empty((gid.size, 3))
        fe_points.interpolate(self.layout.econn, self.layout.ecode, gid, self._xi(gid, X), self.u, out)
        return out

    def ref_points(self, rows, x, elem=None) -> np.ndarray:
        """Referential images of current points, by the inverse map in the current
        configuration of the point's element (clamped into it)."""
        x = np.ascontiguousarray(x, dtype=float).reshape(-1, 3)
        rows = _rows(rows)
        if elem is not None:
            elem = self._elements(rows, elem)
        if elem is None or (np.asarray(elem) < 0).any():
            elem = fe_dynamics.locate_current(self, rows, x, elem)
        gid = self.layout.estart[rows] + np.asarray(elem, np.int64)
        xi = self._xi(gid, x, current=True)
        out = np.empty((gid.size, 3))
        fe_points.interpolate(self.layout.econn, self.layout.ecode, gid, xi, self.X, out)
        return out

    def _gradients(self, rows, elem) -> np.ndarray:
        """F at the centres of the entries' elements (directions carry no point)."""
        lay = self.prepared()
        rows = _rows(rows)
        e = np.zeros(rows.size, np.int64) if elem is None else np.maximum(np.asarray(elem, np.int64), 0).reshape(-1)
        for k in np.flatnonzero(self.background[rows]).tolist():      # a convex: the element most of it is in
            bg = self.bodies[int(rows[k])]._background
            e[k] = self._object_of[int(rows[k])][bg.convex_elem[min(int(e[k]), bg.convex_elem.size - 1)]]
        gid = lay.estart[rows] + e
        xi = fe_points.START[lay.ecode[gid]]
        F = np.empty((gid.size, 3, 3))
        fe_points.gradients(lay.econn, lay.ecode, self.X, self.q, gid, np.ascontiguousarray(xi), F)
        return F

    def cur_vectors(self, rows, d, elem=None) -> np.ndarray:
        """F d at the element centre, scaled back to |d| (a direction)."""
        v = np.einsum("kij,kj->ki", self._gradients(rows, elem), d)
        return _same_length(v, d)

    def ref_vectors(self, rows, d, elem=None) -> np.ndarray:
        v = np.linalg.solve(self._gradients(rows, elem), np.asarray(d, float)[..., None])[..., 0]
        return _same_length(v, d)

    def stresses(self, rows, X, elem=None) -> np.ndarray:
        """Stress and von Mises (k, 7) as Solfec's fem.c reports them (F P / det F,
        fem.laws.fe_stress_mises); at a mesh node the mean over the elements around it
        (Solfec's nodal values). A point is at a node when it lies within
        GEOMETRIC_EPSILON of a node of its element in every coordinate (Solfec's
        ``ELEMENT_Ref_Point_To_Node``)."""
        X = np.ascontiguousarray(X, dtype=float).reshape(-1, 3)
        rows = _rows(rows)
        gid = self._gid(rows, X, elem)
        lay = self.layout
        xi = self._xi(gid, X)
        node = np.full(gid.size, -1, dtype=np.int64)
        eps = session.geometric_epsilon()
        for i, row in enumerate(rows.tolist()):
            keys = self._node_keys.get(row) or {}
            k = keys.get(X[i].tobytes())
            if k is not None:
                node[i] = self.nstart[row] + k
        rest = np.flatnonzero(node < 0)
        if rest.size:                       # the nearest node of the point's element, if within eps
            conn = lay.econn[gid[rest]]
            d = np.abs(self.X[np.maximum(conn, 0)] - X[rest, None, :]).max(axis=2)
            d[conn < 0] = np.inf
            j = np.argmin(d, axis=1)
            near = d[np.arange(rest.size), j] < eps
            node[rest[near]] = conn[near, j[near]]
        out = np.empty((gid.size, 7))
        fe_points.stresses(lay.econn, lay.ecode, lay.emat, self.X, self.q, gid, xi, node, lay.adj_ptr, lay.adj, out)
        return out

    def current_mesh(self, row: int):
        """A copy of the body's FE mesh (the kept background mesh if any) placed currently."""
        mesh = self.records[row].mesh.copy()
        sl = self.nodes_of(row)
        mesh.cur = self.X[sl] + self.q[sl]
        return mesh

    def current_primitives(self, row: int) -> list:
        if not self.background[row]:
            return [self.current_mesh(row)]
        shape = self.bodies[row].shape              # convices moved by the background mesh
        ref = np.concatenate([cvx.ref for cvx in shape])
        cur = self.cur_points(np.full(ref.shape[0], row), ref)
        out, start = [], 0
        for cvx in shape:
            new = cvx.copy()
            new.cur = cur[start:start + cvx.ref.shape[0]]
            start += cvx.ref.shape[0]
            out.append(new)
        return out

    @property
    def _object_of(self) -> dict:
        """row -> (mesh element -> object index) of background-carried bodies."""
        lay = self.prepared()
        got = getattr(self, "_objects_cache", None)
        if got is None or got[0] is not lay:
            table = {}
            for row in np.flatnonzero(self.background[: self.count]).tolist():
                order = self.records[row].order
                inv = np.empty(order.size, np.int64)
                inv[order] = np.arange(order.size)
                table[row] = inv
            got = self._objects_cache = (lay, table)
        return got[1]

    def bounding_boxes(self):
        n = self.count
        lo, hi = np.full((n, 3), np.inf), np.full((n, 3), -np.inf)
        x = self.X[: self.N] + self.q[: self.N]
        some = np.flatnonzero(self.nnodes[:n] > 0)     # nodes are stored body after body
        if some.size:
            some = some[np.argsort(self.nstart[some], kind="stable")]
            start = self.nstart[some]
            lo[some] = np.minimum.reduceat(x, start, axis=0)
            hi[some] = np.maximum.reduceat(x, start, axis=0)
        return lo, hi


def _same_length(v, d):
    size = np.linalg.norm(v, axis=1)
    want = np.linalg.norm(np.asarray(d, float), axis=1)
    return v * np.where(size > 0, want / np.where(size > 0, size, 1.0), 0.0)[:, None]

