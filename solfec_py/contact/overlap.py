"""Which free shapes overlap which (layer 5), for OVERLAPPING: the shapes' spheres, ellipsoids and convex
polyhedra (CONVEX members, surface elements of meshes) go through the contact pipeline
(object table, broad phase, narrow phase) as bodies standing still, and a shape overlaps an
obstacle when one of their object pairs is in contact with gap <= the given gap.
Reference: Solfec lng.c OVERLAPPING (overlap_create0: gobjcontact, gap <= gap).
"""
from __future__ import annotations

import numpy as np

from solfec_py.contact import broad, objects as O
from solfec_py.contact.detect import evaluate


class _Still:
    """A free shape standing in for a body: its current configuration as the reference."""

    def __init__(self, index: int, prims: list):
        self.id = index + 1
        self.shape = [_as_reference(p) for p in prims]


def _as_reference(prim):
    q = prim.copy()
    if hasattr(q, "cur_center"):
        q.ref_center = q.cur_center.copy()
        if hasattr(q, "cur_rot"):                       # ellipsoids: their current axes too
            q.ref_rot = q.cur_rot.copy()
    else:
        q.ref = q.cur.copy()
    return q


class _Block:
    """The block interface the object table needs: bodies, inert flags, identity placement."""

    def __init__(self, bodies, inert):
        self.bodies, self.count, self._inert = bodies, len(bodies), np.asarray(inert, dtype=bool)

    def contact_inert(self, rows):
        return self._inert[np.asarray(rows, dtype=np.int64)]

    def cur_points(self, rows, X, elem=None):
        return np.asarray(X, dtype=float).copy()


class _Domain:
    def __init__(self, block):
        self.blocks = {"FREE": block}


def overlapping(obstacles: list, shapes: list, gap: float, eps: float) -> np.ndarray:
    """For each shape (a list of primitives) of `shapes`: does it overlap any obstacle
    (lists of primitives) with contact gap <= `gap`?"""
    items = [_Still(k, p) for k, p in enumerate(list(obstacles) + list(shapes))]
    n_obs = len(obstacles)
    domain = _Domain(_Block(items, [k < n_obs for k in range(len(items))]))
    table = O.build(domain)
    out = np.zeros(len(shapes), dtype=bool)
    if table.count == 0:
        return out
    geo = O.current(domain, table, eps)
    pairs = broad.overlapping_pairs(geo.lo, geo.hi, group=table.bid, flag=table.inert)
    pairs = pairs[table.inert[pairs[:, 0]] != table.inert[pairs[:, 1]]]
    if not pairs.size:
        return out
    touch, found = evaluate(table, geo, pairs[:, 0], pairs[:, 1], eps, fixed=False)
    hit = pairs[touch][found.gap <= gap]
    shape_obj = np.where(table.inert[hit[:, 0]], hit[:, 1], hit[:, 0])
    out[np.unique(table.bid[shape_obj]) - 1 - n_obs] = True
    return out
