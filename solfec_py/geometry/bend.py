"""Bending a mesh about an axis (layer 1), for BEND. Reference: Solfec lng.c BEND (the
facts: the bend starts at the node nearest to the axis, proceeds in the direction
v = d x (q - proj q), arc length along v becomes the angle at the smallest radius, parts
beyond the angle continue straight; an axis through the mesh is refused).

A node at arc coordinate s = (X - proj X).v > 0 is first projected along v onto the plane
of the axis and the nearest node (radius r there); it then goes to angle alpha = s / rmin
on the circle of radius r about the axis; beyond the bending angle it continues along the
tangent at the end of the bend by the remaining length. Both configurations are bent.
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry import mesh_tables
from solfec_py.geometry.convex import tolerance


def _project(X: np.ndarray, p: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Projections of points X onto the line (p, unit d)."""
    return p + np.outer((X - p) @ d, d)


def axis_stabs(mesh, p: np.ndarray, d: np.ndarray) -> bool:
    """Does the axis pass through a surface element (the projection of the element's
    centroid onto the axis lies inside the element)?"""
    X = mesh.ref
    tol = tolerance(X.min(axis=0), X.max(axis=0))
    for k in mesh_tables.ETYPES:
        elems = mesh.surface_elements()
        elems = elems[mesh.etype[elems] == k]
        if not elems.size:
            continue
        nodes = mesh.conn[elems, :k]
        q = _project(X[nodes].mean(axis=1), p, d)                       # (m, 3)
        tri = X[nodes[:, mesh_tables.TRI_TABLE[k][mesh_tables.TRI_FACE[k] >= 0]]]           # (m, t, 3, 3)
        a, b, c = tri[:, :, 0], tri[:, :, 1], tri[:, :, 2]
        n = np.cross(b - a, c - a)
        side = np.einsum("mti,mti->mt", n, q[:, None, :] - a)
        if np.any(np.all(side <= tol * np.linalg.norm(n, axis=2), axis=1)):
            return True
    return False


def bend_mesh(mesh, point, direction, angle_deg: float) -> None:
    """Bend `mesh` in place (see the module docstring); ValueError if the axis stabs it."""
    p = np.asarray(point, float)
    d = np.asarray(direction, float) / np.linalg.norm(direction)
    if axis_stabs(mesh, p, d):
        raise ValueError("Bending axis is stabbing the mesh")
    X = mesh.ref
    dif = X - _project(X, p, d)
    dist = np.einsum("ij,ij->i", dif, dif)
    near = int(np.argmin(dist))
    rmin = float(np.sqrt(dist[near]))
    if rmin <= tolerance(X.min(axis=0), X.max(axis=0)):
        raise ValueError(f"Bending axis passes through node {near} of the mesh")
    v = np.cross(d, dif[near])
    v /= np.linalg.norm(v)
    s = dif @ v                                            # arc coordinate
    sel = np.flatnonzero(s > 0)
    q = X[sel] - np.outer(s[sel], v)                       # onto the plane of the axis and `near`
    proj = _project(q, p, d)
    w = q - proj
    r = np.linalg.norm(w, axis=1)
    alpha = s[sel] / rmin
    theta = np.radians(angle_deg)
    a = np.minimum(alpha, theta)
    new = proj + np.cos(a)[:, None] * w + (r * np.sin(a))[:, None] * v
    beyond = alpha > theta
    if beyond.any():                                       # straight on along the end tangent
        u = -np.sin(theta) * w[beyond] + (r[beyond] * np.cos(theta))[:, None] * v
        u /= np.linalg.norm(u, axis=1)[:, None]
        new[beyond] += (s[sel][beyond] - theta * rmin)[:, None] * u
    mesh.ref = mesh.ref.copy()
    mesh.cur = mesh.cur.copy()
    mesh.ref[sel] = new
    mesh.cur[sel] = new
