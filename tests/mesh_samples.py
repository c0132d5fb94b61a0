"""Meshes shared by the mesh-import tests: a mixed tetrahedron / pyramid / wedge / hexahedron
block with known volume, volume ids and surface ids, and helpers comparing meshes by
coordinates (formats may renumber nodes and regroup elements).
"""
from __future__ import annotations

import numpy as np

from solfec_py.geometry.mesh import Mesh

SIDES = {1: (2, 0.0), 2: (2, 1.0), 3: (0, 0.0), 4: (0, 2.0), 5: (1, 0.0), 6: (1, 2.0)}   # surfid: (axis, value)
VOLIDS = {10: 1, 11: 2, 12: 6, 13: 10}                                              # volid: element count


def mixed_block() -> Mesh:
    """The box [0,2] x [0,2] x [0,1] as four unit cubes: A = [0,1]x[0,1] one hexahedron
    (volid 10), B = [1,2]x[0,1] two wedges (11), C = [0,1]x[1,2] six pyramids about its
    centre (12), D = [1,2]x[1,2] two pyramids on the faces it shares with B and C and eight
    tetrahedra on its outer faces, about its centre (13). Conforming, 19 elements, 20 nodes,
    volume 4; boundary faces carry surface ids 1..6 by side (SIDES)."""
    def g(i, j, k):
        return k * 9 + j * 3 + i

    X = np.array([(i, j, k) for k in range(2) for j in range(3) for i in range(3)]
                 + [(0.5, 1.5, 0.5), (1.5, 1.5, 0.5)], dtype=float)
    elements = [[g(0, 0, 0), g(1, 0, 0), g(1, 1, 0), g(0, 1, 0), g(0, 0, 1), g(1, 0, 1), g(1, 1, 1), g(0, 1, 1)],
                [g(1, 0, 0), g(2, 1, 0), g(1, 1, 0), g(1, 0, 1), g(2, 1, 1), g(1, 1, 1)],
                [g(1, 0, 0), g(2, 0, 0), g(2, 1, 0), g(1, 0, 1), g(2, 0, 1), g(2, 1, 1)]]
    volids = [10, 11, 11]

    def faces(i, j):            # the six faces of cube (i, j), counter-clockwise seen from outside
        c = [g(i, j, 0), g(i + 1, j, 0), g(i + 1, j + 1, 0), g(i, j + 1, 0),
             g(i, j, 1), g(i + 1, j, 1), g(i + 1, j + 1, 1), g(i, j + 1, 1)]
        return {"z0": [c[0], c[3], c[2], c[1]], "z1": [c[4], c[5], c[6], c[7]], "y0": [c[0], c[1], c[5], c[4]],
                "x1": [c[1], c[2], c[6], c[5]], "y1": [c[2], c[3], c[7], c[6]], "x0": [c[3], c[0], c[4], c[7]]}

    for quad in faces(0, 1).values():                      # pyramid bases seen from the apex: reversed
        elements.append(quad[::-1] + [18])
        volids.append(12)
    for side, q in faces(1, 1).items():
        if side in ("x0", "y0"):
            elements.append(q[::-1] + [19])
            volids.append(13)
        else:
            elements += [[q[2], q[1], q[0], 19], [q[3], q[2], q[0], 19]]
            volids += [13, 13]
    conn = np.full((len(elements), 8), -1, dtype=np.int64)
    for r, e in enumerate(elements):
        conn[r, : len(e)] = e
    etype = [len(e) for e in elements]
    bare = Mesh(X, etype, conn, volids)
    nodes, sizes, _, _ = bare.boundary_faces()
    centre = np.array([X[n[:s]].mean(axis=0) for n, s in zip(nodes, sizes)])
    sids = np.zeros(len(sizes), dtype=np.int64)
    for sid, (axis, value) in SIDES.items():
        sids[centre[:, axis] == value] = sid
    return Mesh(X, etype, conn, volids, gid=0, face_nodes=nodes, face_sids=sids)


def surface_points(mesh: Mesh, surfid: int) -> set:
    """Coordinates of the nodes on the faces with `surfid` (rounded, as a set)."""
    return {tuple(np.round(x, 9)) for x in mesh.ref[mesh.nodes_on_surface(surfid)]}


def element_volumes_by_volid(mesh: Mesh) -> dict:
    from solfec_py.geometry.mesh_import import signed_volumes

    v = signed_volumes(mesh.ref, mesh.etype, mesh.conn)
    return {int(k): float(v[mesh.volids == k].sum()) for k in np.unique(mesh.volids)}
