"""Mass properties of shapes (layer 1): volume, centre and Euler tensor, and the rigid
inertia tensor from them. Reference: docs/integrators.md (Solfec cvx.c / msh.c / sph.c / eli.c
characteristics).

Polyhedra (Convex members, each element of a Mesh) are integrated with the divergence
theorem: every face is fanned into triangles (a, b, c) and each tetrahedron (o, a, b, c)
with o a common shift point contributes its exact integrals
    ∫1 = d/6,  ∫x = d/24 (a+b+c),  ∫x x^T = d/120 (a a^T + b b^T + c c^T + s s^T),
with d = det[a, b, c] and s = a + b + c (all relative to o). This is vectorised over all
triangles. Spheres and ellipsoids use closed forms. The shift o (mean of all vertices and
centres) keeps round-off small for shapes far from the origin.
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry.ellip import Ellip
from solfec_py.geometry.mesh import Mesh
from solfec_py.geometry.sphere import Sphere


def _triangle_chunks(prim, config: str):
    chunks = getattr(prim, "triangle_chunks", None)
    if chunks is not None:
        yield from chunks(config)
    else:
        yield prim.triangle_points(config)


def _shift_point(primitives, config: str) -> np.ndarray:
    points = []
    for p in primitives:
        if isinstance(p, (Sphere, Ellip)):
            points.append((p.ref_center if config == "ref" else p.cur_center)[None])
        else:
            points.append(p.ref if config == "ref" else p.cur)
    return np.concatenate(points).mean(axis=0) if points else np.zeros(3)


def polyhedral_integrals(tri: np.ndarray, origin: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(∫1, ∫y, ∫y y^T) with y = x - origin over the solid bounded by the closed,
    outward-oriented triangles `tri` (k, 3, 3)."""
    a, b, c = tri[:, 0] - origin, tri[:, 1] - origin, tri[:, 2] - origin
    d = np.einsum("ki,ki->k", a, np.cross(b, c))
    s = a + b + c
    vol = d.sum() / 6.0
    first = (d[:, None] * s).sum(axis=0) / 24.0
    second = np.einsum("k,ki,kj->ij", d, a, a) + np.einsum("k,ki,kj->ij", d, b, b) \
        + np.einsum("k,ki,kj->ij", d, c, c) + np.einsum("k,ki,kj->ij", d, s, s)
    return float(vol), first, second / 120.0


def mass_properties(primitives, config: str = "ref") -> tuple[float, np.ndarray, np.ndarray]:
    """(volume, centre (3,), Euler tensor (3, 3) = ∫(X - X0)⊗(X - X0) dV about the centre)
    of a list of primitives in the reference ('ref') or current ('cur') configuration."""
    origin = _shift_point(primitives, config)
    V, S, E = 0.0, np.zeros(3), np.zeros((3, 3))
    for p in primitives:
        if isinstance(p, (Sphere, Ellip)):
            c = (p.ref_center if config == "ref" else p.cur_center) - origin
            v = p.volume
            if isinstance(p, Sphere):
                Ec = v * p.radius ** 2 / 5.0 * np.eye(3)
            else:
                Ec = p.euler(config)
            V, S, E = V + v, S + v * c, E + Ec + v * np.outer(c, c)
            continue
        for tri in _triangle_chunks(p, config):
            v, s, e = polyhedral_integrals(tri, origin)
            V, S, E = V + v, S + s, E + e
    if V == 0.0:
        return 0.0, origin.copy(), np.zeros((3, 3))
    d = S / V
    euler = E - V * np.outer(d, d)
    return V, origin + d, 0.5 * (euler + euler.T)


def inertia_from_euler(euler, density: float) -> np.ndarray:
    """Rigid inertia tensor J = ρ (tr(E) I - E) for E of shape (..., 3, 3)."""
    E = np.asarray(euler, dtype=float)
    tr = np.trace(E, axis1=-2, axis2=-1)[..., None, None]
    return density * (tr * np.eye(3) - E)


def volume_pieces(primitives) -> list:
    """The parts of a shape by volume id, each with its own mass properties:
    [(volid, volume, centre (3,), Euler tensor about that centre (3, 3)), ...] in order of
    first appearance (mesh elements grouped by their volume ids, other primitives whole)."""
    groups: dict = {}
    for p in primitives:
        if isinstance(p, Mesh):
            for v in np.unique(p.volids).tolist():
                groups.setdefault(int(v), []).append((p, np.flatnonzero(p.volids == v)))
        else:
            groups.setdefault(int(p.volid), []).append((p, None))
    out = []
    for volid, parts in groups.items():
        V, S, E = 0.0, np.zeros(3), np.zeros((3, 3))
        origin = _shift_point([p for p, _ in parts], "ref")
        for p, elements in parts:
            if elements is None:
                v, c, e = mass_properties([p])
                d = c - origin
                V, S, E = V + v, S + v * d, E + e + v * np.outer(d, d)
                continue
            for tri in p.triangle_chunks("ref", elements):
                v, s, e = polyhedral_integrals(tri, origin)
                V, S, E = V + v, S + s, E + e
        d = S / V if V else np.zeros(3)
        euler = E - V * np.outer(d, d)
        out.append((volid, V, origin + d, 0.5 * (euler + euler.T)))
    return out


def surface_moments(mesh: Mesh, surfid: int, origin) -> tuple[int, np.ndarray, np.ndarray]:
    """(number of faces, S = ∫N dA, M = ∫N⊗(X - origin) dA) over the reference boundary
    faces of `mesh` with surface id `surfid` (N the unit outward normal; quadrilaterals
    as two triangles, so both integrals are exact for the faceted surface)."""
    nodes, sizes, sids, _ = mesh.boundary_faces()
    sel = sids == surfid
    quad = sel & (sizes == 4)
    tri = np.vstack([nodes[sel][:, [0, 1, 2]], nodes[quad][:, [0, 2, 3]]])
    x = mesh.ref[tri]                                              # (t, 3, 3)
    area = 0.5 * np.cross(x[:, 1] - x[:, 0], x[:, 2] - x[:, 0])    # a N per triangle
    arm = x.mean(axis=1) - np.asarray(origin, float)               # centroid - origin
    return int(sel.sum()), area.sum(axis=0), np.einsum("ti,tj->ij", area, arm)


def pressure_resultant(mesh: Mesh, surfid: int) -> tuple[int, np.ndarray, np.ndarray]:
    """(number of faces, point, S) of the reference boundary faces of `mesh` with surface id
    `surfid`, as Solfec-1.0 bod.c (resultant_pressure) reduces a pressure on a rigid body to
    one force: S = ∫N dA (quadrilaterals as two triangles) and the point the mean of the
    faces' node averages (each face counts once, whatever its area)."""
    nodes, sizes, sids, _ = mesh.boundary_faces()
    sel = np.flatnonzero(sids == surfid)
    count, S, _ = surface_moments(mesh, surfid, np.zeros(3))
    if count == 0:
        return 0, np.zeros(3), np.zeros(3)
    X = mesh.ref[np.maximum(nodes[sel], 0)]                            # (f, 4, 3); padding masked below
    mask = (np.arange(4)[None, :] < sizes[sel][:, None])[:, :, None]
    centroids = (X * mask).sum(axis=1) / sizes[sel][:, None]
    return count, centroids.mean(axis=0), S
