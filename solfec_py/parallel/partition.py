"""Recursive coordinate bisection of weighted points into K parts (layer 1): the tree of cut
planes, the assignment of points to parts and the imbalance of a partition. Reference:
Berger & Bokhari, "A partitioning strategy for nonuniform problems on multiprocessors",
IEEE Trans. Computers C-36 (1987); Zoltan's RCB as Solfec-1.0 dom.c uses it (a tree kept
between rebalancing and queried point by point in between).

A node of the tree splits its points across the longest extent of their bounding box, at
the weighted quantile k1 / k of its k parts (k1 = k // 2 go below the cut), choosing the cut
between two distinct coordinates so that lattices of equal coordinates are never split
inside a layer. The tree depends on the points, their weights and their order only, so every
rank that builds it from the same gathered arrays gets the same tree.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Tree:
    """Node i: split dimension dim[i], cut value cut[i]; children below[i], above[i] are
    node indices, or -(part + 1) for a leaf."""

    dim: np.ndarray
    cut: np.ndarray
    below: np.ndarray
    above: np.ndarray
    parts: int

    def assign(self, points) -> np.ndarray:
        """The part of every point (n, 3): below a cut means coordinate < cut."""
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        if self.dim.size == 0:
            return np.zeros(points.shape[0], dtype=np.int64)
        node = np.zeros(points.shape[0], dtype=np.int64)
        live = np.ones(points.shape[0], dtype=bool)
        while live.any():
            i = np.flatnonzero(live)
            n = node[i]
            go_below = points[i, self.dim[n]] < self.cut[n]
            node[i] = np.where(go_below, self.below[n], self.above[n])
            live[i] = node[i] >= 0
        return -node - 1

    def boxes(self, lo, hi) -> np.ndarray:
        """(parts, 2, 3) the region of every part within the box [lo, hi]."""
        out = np.zeros((self.parts, 2, 3))
        out[:, 0], out[:, 1] = lo, hi

        def visit(node, box):
            if node < 0:
                out[-node - 1] = box
                return
            d, c = self.dim[node], self.cut[node]
            below, above = box.copy(), box.copy()
            below[1, d] = min(below[1, d], c)
            above[0, d] = max(above[0, d], c)
            visit(self.below[node], below)
            visit(self.above[node], above)

        if self.dim.size:
            visit(0, np.array([lo, hi], dtype=float))
        return out


def bisect(points, weights, parts: int) -> Tree:
    """The RCB tree of `points` (n, 3) with positive `weights` (n,) for `parts` parts."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    weights = np.asarray(weights, dtype=float).reshape(-1)
    dims, cuts, below, above = [], [], [], []

    def split(index: np.ndarray, first: int, k: int) -> int:
        if k == 1:
            return -(first + 1)
        node = len(dims)
        dims.append(0)
        cuts.append(0.0)
        below.append(0)
        above.append(0)
        k1 = k // 2
        if index.size:
            p = points[index]
            d = int(np.argmax(p.max(axis=0) - p.min(axis=0)))
            order = np.argsort(p[:, d], kind="stable")
            x = p[order, d]
            w = np.cumsum(weights[index][order])
            cut = _quantile_cut(x, w, w[-1] * k1 / k)
        else:
            d, cut = 0, 0.0
        dims[node], cuts[node] = d, cut
        lower = index[points[index, d] < cut] if index.size else index
        upper = index[points[index, d] >= cut] if index.size else index
        below[node] = split(lower, first, k1)
        above[node] = split(upper, first + k1, k - k1)
        return node

    split(np.arange(points.shape[0]), 0, int(parts))
    return Tree(np.array(dims, dtype=np.int64), np.array(cuts, dtype=float), np.array(below, dtype=np.int64),
                np.array(above, dtype=np.int64), int(parts))


def _quantile_cut(x: np.ndarray, w: np.ndarray, target: float) -> float:
    """A cut between two distinct sorted coordinates x with cumulative weights w, nearest to
    the weight `target` below it; past the ends when all coordinates are equal."""
    distinct = np.flatnonzero(x[1:] > x[:-1])          # a cut between x[j] and x[j + 1]
    if distinct.size == 0:
        return float(x[-1]) + 1.0                      # everything below
    j = distinct[int(np.argmin(np.abs(w[distinct] - target)))]
    return 0.5 * (float(x[j]) + float(x[j + 1]))


def imbalance(loads) -> float:
    """max / mean of the per-part loads (1 for a perfect balance; 1 without load)."""
    loads = np.asarray(loads, dtype=float)
    mean = loads.mean() if loads.size else 0.0
    return float(loads.max() / mean) if mean > 0 else 1.0
