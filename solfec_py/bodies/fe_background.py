"""Background meshes of finite-element bodies (layer 3): a shape of CONVEX pieces whose motion is
carried by a coarser FE mesh. Reference: Solfec-1.0 fem.c (FEM_Create with a mesh); docs/fem.md.

Every (element, convex) pair whose boxes overlap is intersected; an element that meets no
convex is dropped (and the nodes only it used: nodes are renumbered in their old order), as
Solfec does. An element the shape fills keeps its own rule; one it fills in part is
integrated over its pieces (the intersections), each cut into tetrahedra from its centroid
with one point per tetrahedron, or one point at its centroid when the piece holds less than
a tenth of the element's cut volume (Solfec's cut-cell rule; bodies/fe_layout.py builds the
element groups from these points). Convex vertices and contact points are located in the
kept elements (the element holding them, else the nearest) and move by interpolation of the
nodal displacements (bodies/finite_element.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from solfec_py import session
from solfec_py.errors import InputError
from solfec_py.geometry.mesh import Mesh

CUT_TOL = 1e-3          # relative shape volume the cut elements may miss before a warning (Solfec's CUT_TOL)


@dataclass
class Background:
    """The kept part of a background mesh and how the shape sits in it."""

    mesh: Mesh                  # the kept elements, nodes renumbered
    fraction: np.ndarray        # (ne,) shape volume inside each kept element / element volume
    rules: dict                 # kept element -> (points (m, 3), volumes (m,)) of a partly filled one
    cut_volume: float           # the shape volume found inside the elements
    convex_elem: np.ndarray     # (nconvex,) the kept element (mesh order) most of each convex lies in
    kept: np.ndarray            # (ne,) index of each kept element in the given mesh
    nodes: np.ndarray           # (nn,) index of each kept node in the given mesh


def _hull(points: np.ndarray):
    """(vertices, planes (m, 4): n . x + d <= 0 inside, edges (k, 2, 3)) of the convex hull."""
    hull = ConvexHull(points)
    tri = hull.simplices
    pairs = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)
    return points[hull.vertices], hull.equations, points[pairs]


def _crossings(edges: np.ndarray, planes: np.ndarray) -> np.ndarray:
    """Points where the edges (k, 2, 3) cross the planes (m, 4)."""
    s = edges @ planes[:, :3].T + planes[:, 3]                  # (k, 2, m)
    a, b = s[:, 0, :], s[:, 1, :]
    hit = (a * b) < 0.0
    k, m = np.nonzero(hit)
    t = a[k, m] / (a[k, m] - b[k, m])
    p, q = edges[k, 0], edges[k, 1]
    return p + t[:, None] * (q - p)


def intersection(one, two, tol: float) -> tuple[float, np.ndarray]:
    """(volume, points whose hull it is) of the intersection of two convex polytopes given
    as `_hull` triples: the hull of the vertices of each inside the other and of the
    edge-plane crossings that lie in both."""
    va, pa, ea = one
    vb, pb, eb = two
    cand = np.concatenate([va, vb, _crossings(ea, pb), _crossings(eb, pa)])
    inside = np.ones(cand.shape[0], dtype=bool)
    for planes in (pa, pb):
        inside &= (cand @ planes[:, :3].T + planes[:, 3]).max(axis=1) <= tol
    pts = cand[inside]
    if pts.shape[0] < 4:
        return 0.0, pts
    try:
        return float(ConvexHull(pts).volume), pts
    except QhullError:           # flat: the polytopes only touch
        return 0.0, pts


def embed(mesh: Mesh, convexes: list) -> Background:
    """The background `mesh` cut by the `convexes` (referential coordinates of both)."""
    cells = [mesh.ref[mesh.conn[e, : mesh.etype[e]]] for e in range(mesh.nele)]
    elo = np.array([c.min(axis=0) for c in cells])
    ehi = np.array([c.max(axis=0) for c in cells])
    size = float(np.max(mesh.ref.max(axis=0) - mesh.ref.min(axis=0)))
    tol = 1e-10 * max(size, 1e-300)
    ehull = [None] * mesh.nele
    evol = np.zeros(mesh.nele)
    cut = np.zeros(mesh.nele)
    share = np.zeros((len(convexes), mesh.nele))
    pieces: dict = {}                           # element -> [(points, volume) of each intersection]
    for c, cvx in enumerate(convexes):
        lo, hi = cvx.ref.min(axis=0), cvx.ref.max(axis=0)
        near = np.flatnonzero(np.all(elo <= hi + tol, axis=1) & np.all(ehi >= lo - tol, axis=1))
        if not near.size:
            continue
        chull = _hull(cvx.ref)
        for e in near.tolist():
            if ehull[e] is None:
                ehull[e] = _hull(cells[e])
                evol[e] = float(ConvexHull(cells[e]).volume)
            v, pts = intersection(chull, ehull[e], tol)
            share[c, e] = v
            cut[e] += v
            if v > 0.0:
                pieces.setdefault(e, []).append((pts, v))
    kept = np.flatnonzero(cut > 1e-9 * np.maximum(evol, 1e-300))
    if not kept.size:
        raise InputError("'mesh' does not contain the shape: no element of the background mesh meets a convex")
    fraction = np.minimum(cut[kept] / evol[kept], 1.0)
    fraction[fraction > 1.0 - session.geometric_epsilon()] = 1.0      # filled: the element's own rule
    used = np.zeros(mesh.nnod, dtype=bool)
    conn = mesh.conn[kept]
    used[conn[conn >= 0]] = True
    new = np.cumsum(used) - 1
    renum = lambda a: np.where(a >= 0, new[np.maximum(a, 0)], -1)   # noqa: E731
    faces = np.all((mesh.face_nodes < 0) | used[np.maximum(mesh.face_nodes, 0)], axis=1)
    sub = Mesh(mesh.ref[used], mesh.etype[kept], renum(conn), mesh.volids[kept], mesh.gid,
               renum(mesh.face_nodes[faces]), mesh.face_sids[faces], cur=mesh.cur[used])
    where = np.full(mesh.nele, -1, dtype=np.int64)
    where[kept] = np.arange(kept.size)
    best = share.argmax(axis=1) if share.size else np.zeros(0, np.int64)
    convex_elem = np.where(share.max(axis=1) > 0, where[best], 0) if share.size else best
    rules = {int(where[e]): _cut_rule(pieces[e], cut[e]) for e in kept.tolist() if fraction[where[e]] < 1.0}
    return Background(sub, fraction, rules, float(cut.sum()), convex_elem.astype(np.int64), kept,
                      np.flatnonzero(used))


def _cut_rule(pieces: list, total: float) -> tuple[np.ndarray, np.ndarray]:
    """(points, volumes) integrating over the pieces of a cut element (module docstring)."""
    P, W = [], []
    for pts, vol in pieces:
        hull = ConvexHull(pts)
        tri = pts[hull.simplices]                                     # (t, 3, 3)
        centre = pts[hull.vertices].mean(axis=0)
        v = np.abs(np.einsum("ti,ti->t", np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]),
                             centre - tri[:, 0])) / 6.0
        c = (tri.sum(axis=1) + centre) / 4.0
        if vol < 0.1 * total:                                         # a small piece: its centroid
            P.append(((v[:, None] * c).sum(axis=0) / v.sum())[None])
            W.append(np.array([vol]))
        else:
            keep = v > 0.0
            P.append(c[keep])
            W.append(v[keep])
    return np.concatenate(P), np.concatenate(W)
