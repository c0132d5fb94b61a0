"""Benchmark: importing a large tetrahedral mesh (MESH_IMPORT's reader path).

A cube of m^3 unit cells, each cut into 6 tetrahedra (m = 55: 998 250 elements, 175 616
nodes), with its 36 300 boundary triangles in 6 surface groups, is written once per format;
then each file is imported in a fresh process by `geometry.mesh_import.read_mesh` (the
reader, the cell mapping, the orientation and duplicate checks, the Mesh) and, for the
surface ids, the mesh's boundary faces are matched once. One JSON line per format: the
import time (wall clock, and the process's CPU time, which a busy shared machine inflates
less), the peak RSS of the importing process and its growth over the process before the
import (numpy, scipy, meshio and solfec-py already loaded). Goal: 10^6 elements in under
10 s and 1 GB.

    python bench/mesh_import.py [m] [format ...]     (default: 55 gmsh vtu gmsh22 abaqus)
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

EXT = {"gmsh": ".msh", "gmsh22": ".msh", "vtu": ".vtu", "abaqus": ".inp", "med": ".med"}


def cube_mesh(m: int):
    """(points, tetrahedra, boundary triangles, their side 1..6) of the m^3 cube of 6-tet cells."""
    g = np.arange(m + 1)
    k, j, i = np.meshgrid(g, g, g, indexing="ij")
    points = np.column_stack([i.ravel(), j.ravel(), k.ravel()]).astype(float) / m

    def node(a, b, c):
        return (c * (m + 1) + b) * (m + 1) + a

    c = np.arange(m)
    K, J, I = (x.ravel() for x in np.meshgrid(c, c, c, indexing="ij"))
    corner = [node(I + (v & 1), J + ((v >> 1) & 1), K + (v >> 2)) for v in range(8)]
    # Kuhn's 6 tetrahedra of a cell, all along the diagonal 0-7 (conforming across cells)
    paths = [(1, 3), (1, 5), (2, 3), (2, 6), (4, 5), (4, 6)]
    tets = np.concatenate([np.column_stack([corner[0], corner[a], corner[b], corner[7]]) for a, b in paths])
    X = points[tets]
    flip = np.einsum("ij,ij->i", np.cross(X[:, 1] - X[:, 0], X[:, 2] - X[:, 0]), X[:, 3] - X[:, 0]) < 0
    tets[flip] = tets[flip][:, [0, 2, 1, 3]]
    tris, sides = [], []
    for side, (axis, value) in enumerate([(2, 0), (2, m), (0, 0), (0, m), (1, 0), (1, m)], start=1):
        a, b = np.meshgrid(c, c, indexing="ij")
        a, b = a.ravel(), b.ravel()
        coords = [None, None, None]
        free = [d for d in range(3) if d != axis]
        quad = []
        for da, db in ((0, 0), (1, 0), (1, 1), (0, 1)):
            coords[free[0]], coords[free[1]], coords[axis] = a + da, b + db, np.full(a.size, value)
            quad.append(node(*coords))
        quad = np.column_stack(quad)
        tris += [quad[:, [0, 1, 2]], quad[:, [0, 2, 3]]]
        sides += [np.full(2 * a.size, side)]
    return points, tets, np.concatenate(tris), np.concatenate(sides)


def write(mesh, fmt: str, directory: str) -> str:
    from solfec_py.geometry.mesh_export import write_mesh

    path = os.path.join(directory, f"cube_{fmt}{EXT[fmt]}")
    write_mesh(mesh, path, fmt, config="ref")
    return path


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(path: str, fmt: str) -> None:
    """Import `path` in this (fresh) process and print the measurements as JSON."""
    import meshio  # noqa: F401  (modules loaded before the baseline)
    import scipy.sparse.csgraph  # noqa: F401
    import scipy.spatial  # noqa: F401

    from solfec_py.geometry.mesh_import import read_mesh

    before = rss_mb()
    start, cpu = time.perf_counter(), time.process_time()
    mesh = read_mesh(path)
    read_s = time.perf_counter() - start
    sids = mesh.boundary_faces()[2]                      # the surface ids on the boundary faces
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"elements": int(mesh.nele), "nodes": int(mesh.nnod), "read_s": round(read_s, 3),
                      "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "peak_rss_mb": round(peak, 1),
                      "import_rss_mb": round(peak - before, 1),
                      "surface_ids": sorted(set(sids.tolist()))}))


def main(argv: list[str]) -> None:
    m = int(argv[0]) if argv and argv[0].isdigit() else 55
    formats = [a for a in argv if not a.isdigit()] or ["gmsh", "vtu", "gmsh22", "abaqus"]
    from solfec_py import __version__

    from solfec_py.geometry.mesh import Mesh

    points, tets, tris, sides = cube_mesh(m)
    mesh = Mesh(points, np.full(len(tets), 4), tets, 1, face_nodes=tris, face_sids=sides)
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in formats:
            path = write(mesh, fmt, tmp)
            out = subprocess.run([sys.executable, __file__, "--child", path, fmt], capture_output=True, text=True,
                                 check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
            got = json.loads(out.stdout.strip().splitlines()[-1])
            size = round(os.path.getsize(path) / 2**20, 1)
            print(json.dumps({"code": "solfec-py", "version": __version__, "scene": "mesh import",
                              "n": got["elements"], "dt": None, "steps": None, "format": fmt, "file_mb": size,
                              **got}), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1:])
