"""Tetrahedral meshes of closed triangulated surfaces with gmsh (layer 1; the optional extra
`pip install solfec-py[mesh]`), for TETRAHEDRALIZE and ELLIP_MESH. Solfec used TetGen.
Reference: the gmsh Python API (discrete entities, `model.mesh.generate`), gmsh's HXT 3-D
Delaunay mesher (Marot, Pellerin, Remacle 2019), and TetGen's radius-edge quality measure
(Si 2015) used to report mesh quality.

Without a maximal element volume the surface triangulation is kept as it is (it becomes
the boundary of the tetrahedral mesh) and the interior is filled with tetrahedra whose size
follows the surface triangles. With one, the surface is re-meshed too (gmsh classifies it
into patches at sharp edges, re-parametrises and meshes them) with the edge length of a
regular tetrahedron of that volume as gmsh's target size (a target, not a hard bound);
surface ids then go to the new boundary faces from the input triangles they lie on.
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import InputError, NotAvailableError
from solfec_py.geometry import mesh_import
from solfec_py.geometry.mesh import Mesh, match_rows

EXTRA = "pip install solfec-py[mesh]"
OPTIONS = ("General.Terminal", "General.Verbosity", "General.NumThreads", "Mesh.Algorithm3D", "Mesh.MeshSizeMax",
           "Mesh.OptimizeNetgen")


def require_gmsh(command: str):
    """The gmsh module, or NotAvailableError saying which extra to install."""
    try:
        import gmsh
    except ImportError as exc:   # missing package or a missing system library of it
        raise NotAvailableError(f"{command} needs the gmsh Python package ({EXTRA}); importing it failed:"
                                f" {exc}") from None
    return gmsh


def radius_edge_ratios(X: np.ndarray, tets: np.ndarray) -> np.ndarray:
    """Circumradius over shortest edge of every tetrahedron (sqrt(6)/4 for a regular one)."""
    a = X[tets[:, 0]]
    b, c, d = X[tets[:, 1]] - a, X[tets[:, 2]] - a, X[tets[:, 3]] - a
    num = (np.einsum("ij,ij->i", b, b)[:, None] * np.cross(c, d) + np.einsum("ij,ij->i", c, c)[:, None]
           * np.cross(d, b) + np.einsum("ij,ij->i", d, d)[:, None] * np.cross(b, c))
    det = 2.0 * np.einsum("ij,ij->i", b, np.cross(c, d))
    radius = np.linalg.norm(num, axis=1) / np.abs(det)
    edges = [b, c, d, c - b, d - b, d - c]
    shortest = np.min(np.stack([np.linalg.norm(e, axis=1) for e in edges]), axis=0)
    return radius / shortest


def tetrahedralize(points: np.ndarray, triangles: np.ndarray, volume: float | None = None,
                   quality: float | None = None, command: str = "TETRAHEDRALIZE") -> tuple[np.ndarray, np.ndarray]:
    """(nodes (n, 3), tetrahedra (m, 4)) filling the closed surface `triangles` (k, 3) over
    `points`; without `volume` the first len(points) nodes are the input points, in order.
    `volume` sets the element size (and re-meshes the surface), `quality` (> 1) switches
    gmsh's Netgen optimiser on. InputError when gmsh cannot mesh the surface (open,
    self-intersecting, ...). A gmsh session the caller opened keeps its models and options."""
    gmsh = require_gmsh(command)
    points = np.asarray(points, dtype=float)
    triangles = np.asarray(triangles, dtype=np.int64)
    ours = not gmsh.isInitialized()
    if ours:
        gmsh.initialize(interruptible=False)
    previous = gmsh.model.getCurrent() if not ours else None
    saved = {key: gmsh.option.getNumber(key) for key in OPTIONS}
    name = f"solfec_py_{id(points)}"
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.Verbosity", 0)
        gmsh.option.setNumber("General.NumThreads", 1)          # the same mesh on every run
        gmsh.model.add(name)
        gmsh.model.addDiscreteEntity(2, 1)
        gmsh.model.mesh.addNodes(2, 1, np.arange(1, points.shape[0] + 1), points.reshape(-1))
        gmsh.model.mesh.addElementsByType(1, 2, [], (triangles + 1).reshape(-1))
        if volume is not None:                                  # re-mesh the surface as well
            gmsh.model.mesh.classifySurfaces(np.radians(40.0), True, True, np.pi)
            gmsh.model.mesh.createGeometry()
        loop = gmsh.model.geo.addSurfaceLoop([tag for _, tag in gmsh.model.getEntities(2)])
        gmsh.model.geo.addVolume([loop])
        gmsh.model.geo.synchronize()
        gmsh.option.setNumber("Mesh.Algorithm3D", 10)          # HXT: honours the size cap
        if volume is not None:
            gmsh.option.setNumber("Mesh.MeshSizeMax", (6.0 * np.sqrt(2.0) * volume) ** (1.0 / 3.0))
        if quality is not None:
            gmsh.option.setNumber("Mesh.OptimizeNetgen", 1)
        gmsh.model.mesh.generate(3)
        tags, xyz, _ = gmsh.model.mesh.getNodes()
        _, tet = gmsh.model.mesh.getElementsByType(4)
    except Exception as exc:      # gmsh raises plain Exceptions with its log message
        raise InputError(f"Mesh generation has failed: {str(exc).strip() or type(exc).__name__}") from None
    finally:
        if gmsh.model.getCurrent() == name:
            gmsh.model.remove()
        if ours:
            gmsh.finalize()
        else:
            for key, value in saved.items():
                gmsh.option.setNumber(key, value)
            if previous:
                gmsh.model.setCurrent(previous)
    if not len(tet):
        raise InputError("Mesh generation has failed: gmsh made no tetrahedra (is the surface closed?)")
    tags = np.asarray(tags, dtype=np.int64)
    order = np.argsort(tags)
    index = np.empty(int(tags.max()) + 1, dtype=np.int64)
    index[tags[order]] = np.arange(tags.size)
    X = np.asarray(xyz, float).reshape(-1, 3)[order]
    kept = tags.size >= points.shape[0] and np.array_equal(tags[order][: points.shape[0]],
                                                             np.arange(1, points.shape[0] + 1))
    if volume is None and not kept:
        raise InputError("Mesh generation has failed: gmsh did not keep the surface nodes")
    return X, index[np.asarray(tet, dtype=np.int64).reshape(-1, 4)]


def fill(points, triangles, tri_sids, volid=0, volume: float | None = None, quality: float | None = None,
         command: str = "TETRAHEDRALIZE", notes: list | None = None):
    """A tetrahedral Mesh filling a closed surface whose triangles carry surface ids
    `tri_sids`; `volid` is an int or a callable giving the ids of element centroids."""
    notes = [] if notes is None else notes
    triangles = np.asarray(triangles, dtype=np.int64)
    tri_sids = np.asarray(tri_sids, dtype=np.int64)
    X, tets = tetrahedralize(points, triangles, volume, quality, command)
    etype = np.full(tets.shape[0], 4, dtype=np.int64)
    mesh_import.orient(X, etype, tets)
    ids = volid(X[tets].mean(axis=1)) if callable(volid) else volid
    bare = Mesh(X, etype, tets, ids)
    faces = bare.boundary_faces()[0][:, :3]
    hit = match_rows(np.sort(faces, axis=1), np.sort(triangles, axis=1))
    sids = np.where(hit >= 0, tri_sids[np.maximum(hit, 0)], 0)
    if np.any(hit < 0):                          # re-meshed surface: the input triangle under each face
        sids[hit < 0] = tri_sids[nearest_triangles(np.asarray(points, float)[triangles],
                                                   X[faces[hit < 0]].mean(axis=1))]
        if volume is None:
            notes.append(f"{command}: {int((hit < 0).sum())} boundary face(s) differ from the input surface;"
                         " they take the surface id of the input triangle nearest to them")
    if volume is not None:
        largest = float(np.max(mesh_import.signed_volumes(X, etype, tets)))
        if largest > volume:
            notes.append(f"{command}: the largest element volume is {largest:.3g} > volume {volume:g} (gmsh's"
                         " element sizes are targets, not bounds)")
    if quality is not None:
        worst = float(radius_edge_ratios(X, tets).max())
        if worst > quality:
            notes.append(f"{command}: the worst radius-edge ratio is {worst:.3g} > quality {quality:g}"
                         " (gmsh optimises the mesh but does not enforce TetGen's bound)")
    return Mesh(X, etype, tets, ids, gid=int(np.bincount(sids - sids.min()).argmax() + sids.min()),
                face_nodes=faces, face_sids=sids)


def point_triangle_distances(p: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Distances from points p (m, 3) to triangles tri (m, 3, 3), pairwise by row."""
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    ab, ac = b - a, c - a
    n = np.cross(ab, ac)
    nn = np.maximum(np.einsum("ij,ij->i", n, n), 1e-300)
    w = p - a
    # barycentric coordinates of the projection onto the plane
    v = np.einsum("ij,ij->i", np.cross(w, ac), n) / nn
    u = np.einsum("ij,ij->i", np.cross(ab, w), n) / nn
    inside = (v >= 0) & (u >= 0) & (u + v <= 1)
    best = np.where(inside, np.abs(np.einsum("ij,ij->i", w, n)) / np.sqrt(nn), np.inf)
    for s, e in ((a, b), (b, c), (c, a)):                       # else the nearest edge
        d = e - s
        t = np.clip(np.einsum("ij,ij->i", p - s, d) / np.maximum(np.einsum("ij,ij->i", d, d), 1e-300), 0, 1)
        best = np.minimum(best, np.linalg.norm(p - s - t[:, None] * d, axis=1))
    return best


def nearest_triangles(tri: np.ndarray, points: np.ndarray, candidates: int = 32) -> np.ndarray:
    """Index of the triangle (k, 3, 3) nearest to each point, among the `candidates`
    triangles with the nearest centroids."""
    from scipy.spatial import cKDTree

    k = min(candidates, tri.shape[0])
    _, near = cKDTree(tri.mean(axis=1)).query(points, k=k)
    near = near.reshape(points.shape[0], k)
    dist = point_triangle_distances(np.repeat(points, k, axis=0), tri[near.reshape(-1)]).reshape(-1, k)
    return near[np.arange(points.shape[0]), np.argmin(dist, axis=1)]


def surface_from_meshio(mesh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points, triangles, surface ids) of the triangle and quad cells of a surface file
    (quads split in two; coincident points merged, as STL files repeat them)."""
    from scipy.spatial import cKDTree

    X = np.asarray(mesh.points, dtype=float)
    X = np.column_stack([X, np.zeros(X.shape[0])]) if X.ndim == 2 and X.shape[1] == 2 else X
    tri, sid = [np.zeros((0, 3), np.int64)], [np.zeros(0, np.int64)]
    for b, c in enumerate(mesh.cells):
        kind, k = mesh_import._kind(c.type, True)
        if kind != "face" or not len(c.data):
            continue
        data = np.asarray(c.data, dtype=np.int64)[:, :k]
        tags = mesh_import._tags(mesh, b, "surfid")
        tags = np.zeros(len(data), np.int64) if tags is None else tags
        tri.append(data[:, :3])
        sid.append(tags)
        if k == 4:
            tri.append(data[:, [0, 2, 3]])
            sid.append(tags)
    tri, sid = np.vstack(tri), np.concatenate(sid)
    if not tri.size:
        raise InputError("the file has neither volume cells nor surface triangles or quads")
    if X.ndim != 2 or X.shape[1] != 3 or not np.all(np.isfinite(X)) or tri.max() >= X.shape[0]:
        raise InputError("the surface points are not finite 3-D coordinates referenced by the cells")
    diag = float(np.linalg.norm(X.max(axis=0) - X.min(axis=0)))
    pairs = cKDTree(X).query_pairs(1e-9 * diag, output_type="ndarray")
    if pairs.size:
        from solfec_py.geometry.mesh_split import components

        label = components(X.shape[0], pairs[:, 0], pairs[:, 1])
        _, first, label = np.unique(label, return_index=True, return_inverse=True)
        X, tri = X[first], label.reshape(-1)[tri]
    used = np.unique(tri)
    new = np.full(X.shape[0], -1, dtype=np.int64)
    new[used] = np.arange(used.size)
    return X[used], new[tri], sid
