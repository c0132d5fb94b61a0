"""TetGen .poly files (piecewise linear complexes) read as closed triangulated surfaces (layer 1):
the point list (or the .node file beside it when the list is empty) and the facets, each
polygon of a facet cut into triangles (ear clipping in the facet's plane, so non-convex
polygons are fine) carrying the facet's boundary marker as its surface id. Reference:
TetGen's file format description (.poly: parts 1-4; .node), which Solfec-1.0's
TETRAHEDRALIZE hands to TetGen.

Facet holes, hole points and region attributes (parts 3 and 4) are not read: a facet with
holes is refused; polygons of fewer than three corners (segments, points) are skipped.
"""
from __future__ import annotations

import os

import numpy as np

from solfec_py.errors import InputError


def _records(path: str):
    """Lines as lists of words, comments ('#' onward) and blank lines dropped."""
    with open(path, encoding="latin-1") as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if words:
                yield number, words


class _Cursor:
    def __init__(self, path: str):
        self.path, self.rows, self.k = path, list(_records(path)), 0

    def next(self, what: str) -> list:
        if self.k >= len(self.rows):
            raise InputError(f"{self.path}: the file ends where {what} was expected")
        self.k += 1
        return self.rows[self.k - 1][1]

    def where(self) -> str:
        return f"{self.path}:{self.rows[self.k - 1][0]}"

    def ints(self, words, what: str) -> list[int]:
        try:
            return [int(w) for w in words]
        except ValueError:
            raise InputError(f"{self.where()}: {what} must be integers, got {' '.join(words)!r}") from None


def _points(cur: _Cursor, count: int, markers: int, attrs: int):
    """(first index, (count, 3) coordinates) of a point list."""
    first, X = None, np.empty((count, 3))
    for i in range(count):
        words = cur.next(f"point {i + 1} of {count}")
        if len(words) < 4:
            raise InputError(f"{cur.where()}: a point line holds its index and x y z, got {' '.join(words)!r}")
        try:
            index, X[i] = int(words[0]), [float(w) for w in words[1:4]]
        except ValueError:
            raise InputError(f"{cur.where()}: not a point line (index x y z): {' '.join(words)!r}") from None
        if first is None:
            first = index
        elif index != first + i:
            raise InputError(f"{cur.where()}: point {index} out of order (expected {first + i})")
    return (0 if first is None else first), X


def _node_file(path: str):
    node = os.path.splitext(path)[0] + ".node"
    if not os.path.isfile(node):
        raise InputError(f"{path}: the point list is empty and there is no {node!r} to read the points from")
    cur = _Cursor(node)
    head = cur.ints(cur.next("the .node header")[:4], "the .node header")
    head += [0] * (4 - len(head))
    return _points(cur, head[0], head[3], head[2])


def triangulate_polygon(P: np.ndarray) -> list[tuple[int, int, int]]:
    """Ear clipping of a simple polygon with 3-d corners P (m, 3): triangles of corner
    numbers, oriented as the polygon."""
    m = P.shape[0]
    if m == 3:
        return [(0, 1, 2)]
    normal = np.zeros(3)
    for i in range(m):                                      # Newell's normal
        a, b = P[i], P[(i + 1) % m]
        normal += np.cross(a, b)
    if not np.linalg.norm(normal) > 0:
        raise InputError("a facet polygon has no area")
    n = normal / np.linalg.norm(normal)
    u = P[1] - P[0] - ((P[1] - P[0]) @ n) * n
    u = u / np.linalg.norm(u) if np.linalg.norm(u) > 0 else np.cross(n, [1.0, 0, 0])
    v = np.cross(n, u)
    Q = np.column_stack([(P - P[0]) @ u, (P - P[0]) @ v])     # counter-clockwise in (u, v)
    left = list(range(m))
    out = []

    def cross(o, a, b):
        return (Q[a, 0] - Q[o, 0]) * (Q[b, 1] - Q[o, 1]) - (Q[a, 1] - Q[o, 1]) * (Q[b, 0] - Q[o, 0])

    def ear(k: int, closed: bool) -> bool:
        a, b, c = left[k - 1], left[k], left[(k + 1) % len(left)]
        if cross(a, b, c) <= 0:
            return False                                    # reflex (or flat) corner
        for p in left:                                      # no other corner inside (or, when
            if p in (a, b, c):                              # `closed`, on the sides)
                continue
            s = (cross(a, b, p), cross(b, c, p), cross(c, a, p))
            if all(x >= 0 for x in s) if closed else all(x > 0 for x in s):
                return False
        return True

    while len(left) > 3:
        k = next((k for k in range(len(left)) if ear(k, True)), None)
        if k is None:                                       # corners on a diagonal (collinear sides)
            k = next((k for k in range(len(left)) if ear(k, False)), None)
        if k is None:
            raise InputError("a facet polygon is not simple (it crosses itself or repeats a corner)")
        out.append((left[k - 1], left[k], left[(k + 1) % len(left)]))
        del left[k]
    out.append(tuple(left))
    return out


def read_poly(path: str):
    """The surface of a .poly file as a meshio.Mesh: one triangle block, cell data 'surfid'
    (the facet markers; 0 without markers)."""
    import meshio

    cur = _Cursor(path)
    head = cur.ints(cur.next("the point-list header")[:4], "the point-list header")
    head += [0] * (4 - len(head))
    if head[1] != 3:
        raise InputError(f"{cur.where()}: a 3-d .poly file has dimension 3, got {head[1]}")
    first, X = _points(cur, head[0], head[3], head[2]) if head[0] > 0 else _node_file(path)
    fhead = cur.ints(cur.next("the facet-list header")[:2], "the facet-list header") + [0]
    tri, sid = [], []
    for f in range(fhead[0]):
        words = cur.ints(cur.next(f"facet {f + 1} of {fhead[0]}"), "a facet line")
        polygons, holes = words[0], (words[1] if len(words) > 1 else 0)
        marker = words[2] if fhead[1] and len(words) > 2 else 0
        if holes:
            raise InputError(f"{cur.where()}: facet {f + 1} has {holes} hole(s); facets with holes are not read")
        for _ in range(polygons):
            corners = cur.ints(cur.next("a polygon"), "a polygon line")
            ids = np.array(corners[1:1 + corners[0]], dtype=np.int64) - first
            if ids.size != corners[0] or ids.min(initial=0) < 0 or ids.max(initial=0) >= X.shape[0]:
                raise InputError(f"{cur.where()}: a polygon lists {corners[0]} corners among points"
                                 f" {first}..{first + X.shape[0] - 1}, got {' '.join(map(str, corners))!r}")
            if ids.size < 3:
                continue
            try:
                tri += [ids[list(t)] for t in triangulate_polygon(X[ids])]
            except InputError as exc:
                raise InputError(f"{cur.where()}: {exc}") from None
            sid += [marker] * (ids.size - 2)
    if not tri:
        raise InputError(f"{path}: no facet polygons to make a surface of")
    return meshio.Mesh(X, [("triangle", np.array(tri, dtype=np.int64))], cell_data={"surfid": [np.array(sid, np.int64)]})


def looks_like_poly(path: str) -> bool:
    """Does the file start as a 3-d .poly point list (4 integers, the second 3, then a point
    line `index x y z`)?"""
    try:
        rows = []
        for _, words in _records(path):
            rows.append(words)
            if len(rows) == 2:
                break
    except (OSError, UnicodeDecodeError):
        return False
    if not rows or len(rows[0]) != 4 or not all(w.lstrip("-").isdigit() for w in rows[0]) or rows[0][1] != "3":
        return False
    if len(rows) < 2:
        return False
    try:
        int(rows[1][0])
        if int(rows[0][0]) > 0:
            [float(w) for w in rows[1][1:4]]
    except ValueError:
        return False
    return True
