"""Element quantities at arbitrary points (layer 1, numba): shape functions, the inverse
isoparametric map, point location, interpolation, deformation gradient and stress at
points, nodal stress averaging.
Reference: Solfec-1.0 fem.c (``global_to_local``, ``cauchy_stress``,
``FEM_Cur_Node_Values``); docs/fem.md.

A point in a group is (element index ``e`` within the group, reference coordinates ``xi``
(3,)). Array contracts as in :mod:`solfec_py.fem.kernels`: ``nodes`` / ``X`` / ``q`` (nn, 3),
``conn`` (ne, n), ``mat`` (ne, 3) rows (young, poisson, density), points (k, 3). Every
public function takes the element class first and dispatches on ``element.code`` inside
numba, so one compiled kernel serves all element types.

Inverse map (Solfec's): Newton iterations on sum_k N_k(xi) x_k = x from the reference
centroid, a 3 x 3 solve per iteration, stop when |dxi| < 1e-9, failure after 64 iterations;
the result is clamped into the element's reference box.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.fem.elements import BY_CODE, PRISM, PYRAMID, SIMPLEX, Hex8, Hex20, Pyr5, Tet4, Tet10, Wed6, Wed15
from solfec_py.fem.laws import fe_stress_mises, lame

IMP_EPS, MAX_ITERS = 1e-9, 64

# element data for the kernels, by element code: the reference domain of each type
DOMAINS = np.array([c.domain for c in BY_CODE], dtype=np.int64)

# each element's fill compiled for scalar points, dispatched on its code. numba needs the
# dispatch spelled out (a tuple of functions, indexed, uses its experimental first-class
# functions and compiles 3x slower): one branch per element class, checked against the table
TET4, PYR5, WED6, HEX8, TET10, HEX20, WED15 = (c.code for c in (Tet4, Pyr5, Wed6, Hex8, Tet10, Hex20, Wed15))
_fill_tet4, _fill_pyr5, _fill_wed6, _fill_hex8, _fill_tet10, _fill_hex20, _fill_wed15 = (
    njit(c.fill) for c in (Tet4, Pyr5, Wed6, Hex8, Tet10, Hex20, Wed15))
if set(BY_CODE) != {Tet4, Pyr5, Wed6, Hex8, Tet10, Hex20, Wed15}:   # pragma: no cover - a new element type
    raise ImportError("fem/points.py: fill_point has no branch for some element type of fem.elements")


@njit
def fill_point(code, x, y, z, N, dN):
    """Shape values N (n,) and reference derivatives dN (n, 3) of element type ``code``."""
    if code == TET4:
        _fill_tet4(x, y, z, N, dN)
    elif code == PYR5:
        _fill_pyr5(x, y, z, N, dN)
    elif code == WED6:
        _fill_wed6(x, y, z, N, dN)
    elif code == HEX8:
        _fill_hex8(x, y, z, N, dN)
    elif code == TET10:
        _fill_tet10(x, y, z, N, dN)
    elif code == HEX20:
        _fill_hex20(x, y, z, N, dN)
    else:
        _fill_wed15(x, y, z, N, dN)


@njit
def inside(domain, xi, tol):
    """Is the reference point xi within `tol` of the reference `domain` (SIMPLEX, PYRAMID,
    PRISM, CUBE; DOMAINS[code] of an element type)?"""
    x, y, z = xi[0], xi[1], xi[2]
    if domain == SIMPLEX:
        return x >= -tol and y >= -tol and z >= -tol and x + y + z <= 1.0 + tol
    if domain == PYRAMID:
        return z >= -tol and z <= 1.0 + tol and abs(x) <= 1.0 - z + tol and abs(y) <= 1.0 - z + tol
    if domain == PRISM:
        return x >= -tol and y >= -tol and x + y <= 1.0 + tol and abs(z) <= 1.0 + tol
    return abs(x) <= 1.0 + tol and abs(y) <= 1.0 + tol and abs(z) <= 1.0 + tol


@njit
def _inverse_one(code, nodes, conn, e, p, start, xi, N, dN):
    """Newton for element e: writes xi (unclamped); returns iterations, -1 on failure."""
    n = conn.shape[1]
    xi[:] = start
    J = np.empty((3, 3))
    r = np.empty(3)
    for it in range(MAX_ITERS):
        fill_point(code, xi[0], xi[1], xi[2], N, dN)
        r[:] = p
        J[:, :] = 0.0
        for k in range(n):
            node = conn[e, k]
            for i in range(3):
                r[i] -= N[k] * nodes[node, i]
                for j in range(3):
                    J[i, j] += nodes[node, i] * dN[k, j]
        if abs(np.linalg.det(J)) < 1e-300:
            return -1
        d = np.linalg.solve(J, r)
        xi += d
        if np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) < IMP_EPS:
            return it + 1
    return -1


@njit
def _inverse_map(code, nodes, conn, elems, points, start, lo, hi, clamp, xi, status):
    n = conn.shape[1]
    N, dN = np.empty(n), np.empty((n, 3))
    for m in range(elems.size):
        status[m] = _inverse_one(code, nodes, conn, elems[m], points[m], start, xi[m], N, dN)
        if clamp:
            for i in range(3):
                xi[m, i] = min(max(xi[m, i], lo[i]), hi[i])


def inverse_map(element, nodes, conn, elems, points, clamp: bool = True):
    """Reference coordinates of ``points`` (k, 3) in elements ``elems`` (k,) whose node
    coordinates are ``nodes`` (referential X, or current X + q for spatial points).
    Returns (xi (k, 3), iterations (k,)); iterations -1 marks a failed Newton solve."""
    elems = np.ascontiguousarray(elems, dtype=np.int64).reshape(-1)
    points = np.ascontiguousarray(points, dtype=float).reshape(-1, 3)
    xi, status = np.empty((elems.size, 3)), np.empty(elems.size, dtype=np.int64)
    _inverse_map(element.code, np.ascontiguousarray(nodes, dtype=float), np.ascontiguousarray(conn, np.int64),
                 elems, points, element.centroid(), element.box[0], element.box[1], clamp, xi, status)
    return xi, status


def element_boxes(nodes, conn) -> np.ndarray:
    """Axis-aligned box of every element (ne, 2, 3): [min corner, max corner]."""
    x = np.asarray(nodes, dtype=float)[np.asarray(conn, dtype=np.int64)]
    return np.stack([x.min(axis=1), x.max(axis=1)], axis=1)


@njit
def _locate(code, domain, nodes, conn, boxes, points, start, lo, hi, tol, elem, xi, dist):
    n = conn.shape[1]
    N, dN = np.empty(n), np.empty((n, 3))
    z = np.empty(3)
    for m in range(points.shape[0]):
        p = points[m]
        elem[m], dist[m] = -1, np.inf
        for e in range(conn.shape[0]):
            pad = tol * (1.0 + abs(boxes[e, 1, 0] - boxes[e, 0, 0]) + abs(boxes[e, 1, 1] - boxes[e, 0, 1])
                         + abs(boxes[e, 1, 2] - boxes[e, 0, 2]))
            if (p[0] < boxes[e, 0, 0] - pad or p[0] > boxes[e, 1, 0] + pad or p[1] < boxes[e, 0, 1] - pad
                    or p[1] > boxes[e, 1, 1] + pad or p[2] < boxes[e, 0, 2] - pad or p[2] > boxes[e, 1, 2] + pad):
                continue
            if _inverse_one(code, nodes, conn, e, p, start, z, N, dN) < 0:
                continue
            if inside(domain, z, tol):
                elem[m], dist[m] = e, 0.0
                xi[m, :] = z
                break
            for i in range(3):
                z[i] = min(max(z[i], lo[i]), hi[i])
            fill_point(code, z[0], z[1], z[2], N, dN)
            d2 = 0.0
            for i in range(3):
                s = -p[i]
                for k in range(n):
                    s += N[k] * nodes[conn[e, k], i]
                d2 += s * s
            if np.sqrt(d2) < dist[m]:
                elem[m], dist[m] = e, np.sqrt(d2)
                xi[m, :] = z


def locate(element, nodes, conn, points, boxes=None, tol: float = 1e-9):
    """Which element of the group contains each point (k, 3).

    Returns (elem (k,), xi (k, 3), dist (k,)): ``dist`` is 0 for a containing element
    (reference coordinates inside the domain within ``tol``); otherwise the element whose
    clamped inverse image lies nearest, among those whose box (padded by ``tol`` times its
    size) holds the point, at that distance; ``elem`` -1 when no box holds the point. A
    mixed mesh calls this per group and keeps the smallest ``dist``.
    """
    points = np.ascontiguousarray(points, dtype=float).reshape(-1, 3)
    nodes = np.ascontiguousarray(nodes, dtype=float)
    conn = np.ascontiguousarray(conn, dtype=np.int64)
    boxes = element_boxes(nodes, conn) if boxes is None else np.ascontiguousarray(boxes, dtype=float)
    k = points.shape[0]
    elem, xi, dist = np.empty(k, dtype=np.int64), np.zeros((k, 3)), np.empty(k)
    _locate(element.code, element.domain, nodes, conn, boxes, points, element.centroid(), element.box[0],
            element.box[1], tol, elem, xi, dist)
    return elem, xi, dist


def interpolate(element, conn, elems, xi, values) -> np.ndarray:
    """sum_k N_k(xi) v_k at each point: values (nn, d) -> (k, d) (displacement, velocity,
    referential or current position)."""
    N = element.shape(xi)                                        # (k, n)
    v = np.asarray(values, dtype=float)[np.asarray(conn)[np.asarray(elems, dtype=np.int64)]]
    return np.einsum("kn,knd->kd", N, v)


@njit
def _gradient(code, X, q, conn, e, xi, N, dN, F):
    """Deformation gradient F (3, 3) of element e at reference point xi."""
    n = conn.shape[1]
    fill_point(code, xi[0], xi[1], xi[2], N, dN)
    F0 = np.zeros((3, 3))
    for k in range(n):
        for i in range(3):
            for j in range(3):
                F0[i, j] += X[conn[e, k], i] * dN[k, j]
    inv = np.linalg.inv(F0)
    for i in range(3):
        for J in range(3):
            s = 1.0 if i == J else 0.0
            for k in range(n):
                s += q[conn[e, k], i] * (inv[0, J] * dN[k, 0] + inv[1, J] * dN[k, 1] + inv[2, J] * dN[k, 2])
            F[i, J] = s


@njit
def _stress_points(code, X, q, conn, mat, elems, xi, F, out):
    n = conn.shape[1]
    N, dN = np.empty(n), np.empty((n, 3))
    for m in range(elems.size):
        e = elems[m]
        _gradient(code, X, q, conn, e, xi[m], N, dN, F[m])
        lam, mu = lame(mat[e, 0], mat[e, 1])
        G = F[m]
        s = fe_stress_mises(G[0, 0], G[0, 1], G[0, 2], G[1, 0], G[1, 1], G[1, 2], G[2, 0], G[2, 1], G[2, 2], lam, mu)
        for i in range(7):
            out[m, i] = s[i]


def _prepared(X, q, conn, mat, elems, xi):
    return (np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(q, dtype=float),
            np.ascontiguousarray(conn, dtype=np.int64), np.ascontiguousarray(mat, dtype=float),
            np.ascontiguousarray(elems, dtype=np.int64).reshape(-1),
            np.ascontiguousarray(xi, dtype=float).reshape(-1, 3))


def stress_at_points(element, X, q, conn, mat, elems, xi):
    """(F (k, 3, 3), stress (k, 7)) at points (elems, xi): the deformation gradient and
    Solfec's finite-element stress (sx, sy, sz, sxy, sxz, syz) of F P / det F
    (:func:`solfec_py.fem.laws.fe_stress_mises`) with the von Mises stress last."""
    X, q, conn, mat, elems, xi = _prepared(X, q, conn, mat, elems, xi)
    F, out = np.empty((elems.size, 3, 3)), np.empty((elems.size, 7))
    _stress_points(element.code, X, q, conn, mat, elems, xi, F, out)
    return F, out


@njit
def _nodal_stress(code, X, q, conn, mat, ref_nodes, acc, count):
    ne, n = conn.shape[0], conn.shape[1]
    N, dN, F = np.empty(n), np.empty((n, 3)), np.empty((3, 3))
    for e in range(ne):
        lam, mu = lame(mat[e, 0], mat[e, 1])
        for a in range(n):
            _gradient(code, X, q, conn, e, ref_nodes[a], N, dN, F)
            s = fe_stress_mises(F[0, 0], F[0, 1], F[0, 2], F[1, 0], F[1, 1], F[1, 2], F[2, 0], F[2, 1], F[2, 2],
                             lam, mu)
            node = conn[e, a]
            for i in range(7):
                acc[node, i] += s[i]
            count[node] += 1


def nodal_stress(element, X, q, conn, mat, acc, count) -> None:
    """Accumulate, for every node of the group, the stress (7 values as
    :func:`stress_at_points`) of each element around it evaluated at that node into
    ``acc`` (nn, 7), and the number of such elements into ``count`` (nn,). Solfec's nodal
    value is the plain mean ``acc / count`` (von Mises averaged, not recomputed); call
    for every group, then divide (:func:`nodal_average`)."""
    X, q, conn, mat, _, _ = _prepared(X, q, conn, mat, np.zeros(0), np.zeros((0, 3)))
    _nodal_stress(element.code, X, q, conn, mat, element.ref_nodes, acc, count)


def nodal_average(acc: np.ndarray, count: np.ndarray) -> np.ndarray:
    """acc / count row-wise; nodes without elements get NaN."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return acc / count[:, None]

