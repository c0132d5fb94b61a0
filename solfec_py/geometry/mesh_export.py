"""Meshes to files (layer 1): a solfec Mesh as a meshio.Mesh with its volume and surface ids
as cell data, written in any format meshio writes (Abaqus by `abaqus_inp`, with element sets
and element-face surfaces). Reference: meshio's writers; VTK's cell node orders.

Elements are written grouped by cell type (quadratic cells with all their nodes); every
boundary face is written as a triangle or quad cell carrying its surface id. Cell data:
`volid` and `surfid` on every cell (0 where not applicable) and, for gmsh files, the same
ids as physical and geometrical tags, so gmsh and `read_mesh` see the groups. Node orders
are meshio's, which are solfec's (VTK's, checked in the tests against VTK's and gmsh's
reference elements).
"""
from __future__ import annotations

import os

import numpy as np

from solfec_py.errors import InputError



# formats that keep one integer tag per cell under their own name
TAG_KEYS = {"nastran": "nastran:ref", "medit": "medit:ref"}


def to_meshio(mesh, config: str = "cur", format: str = "vtu"):
    """The meshio.Mesh of `mesh` in the current ('cur') or reference ('ref') configuration,
    with the ids stored as `format` keeps them."""
    import meshio

    X = mesh.cur if config == "cur" else mesh.ref
    blocks = []                                  # (cell type, dim, nodes, volid, surfid)
    for name, elems, nodes in mesh.cells():
        blocks.append((name, 3, nodes, mesh.volids[elems], np.zeros(elems.size, np.int64)))
    fnodes, sizes, sids, _ = mesh.boundary_faces()
    for size, name in ((3, "triangle"), (4, "quad")):
        sel = sizes == size
        if sel.any():
            blocks.append((name, 2, fnodes[sel, :size], np.zeros(int(sel.sum()), np.int64), sids[sel]))
    if format.startswith("gmsh"):
        return _gmsh(meshio, X, blocks, format == "gmsh")
    cells = [meshio.CellBlock(b[0], b[2]) for b in blocks]
    volid = [np.asarray(b[3], np.int64) for b in blocks]
    surfid = [np.asarray(b[4], np.int64) for b in blocks]
    if format in TAG_KEYS:
        return meshio.Mesh(X, cells, cell_data={TAG_KEYS[format]: [v + s for v, s in zip(volid, surfid)]})
    return meshio.Mesh(X, cells, cell_data={"volid": volid, "surfid": surfid})


def _gmsh(meshio, X, blocks, entities: bool):
    """Cells split by (type, id) so that every block is one gmsh entity whose physical tag
    is the id; msh 4.1 also needs a node on every entity (`gmsh:dim_tags`)."""
    cells, phys, geom, count = [], [], [], {2: 0, 3: 0}
    dim_tags = np.tile([3, 1], (X.shape[0], 1))
    taken = np.zeros(X.shape[0], dtype=bool)
    for name, dim, nodes, volid, surfid in blocks:
        ids = volid + surfid
        for value in np.unique(ids):
            rows = nodes[ids == value]
            count[dim] += 1
            cells.append(meshio.CellBlock(name, rows))
            phys.append(np.full(len(rows), value, np.int64))
            geom.append(np.full(len(rows), count[dim], np.int64))
            if entities and (dim, count[dim]) != (3, 1):
                free = np.flatnonzero(~taken[rows.reshape(-1)])
                if not free.size:
                    raise InputError("too many groups for the nodes of this mesh in gmsh 4.1 (each group needs"
                                     " a node of its own); write format='gmsh22'")
                node = rows.reshape(-1)[free[0]]
                taken[node] = True
                dim_tags[node] = (dim, count[dim])
    point_data = {"gmsh:dim_tags": dim_tags} if entities else {}
    return meshio.Mesh(X, cells, point_data=point_data,
                       cell_data={"gmsh:physical": phys, "gmsh:geometrical": geom})


def write_formats() -> list:
    import meshio

    return sorted(meshio._helpers._writer_map)


def write_mesh(mesh, path, format: str | None = None, config: str = "cur") -> str:
    """Write `mesh` to `path` in `format` (default: from the extension); returns the format."""
    import meshio

    path = os.fspath(path)
    if format is None:
        lower = path.lower()
        exts = sorted(meshio._helpers.extension_to_filetypes, key=len, reverse=True)
        ext = next((e for e in exts if lower.endswith(e)), None)
        if ext is None:
            raise InputError(f"cannot tell the mesh format of {path!r} from its extension; pass format="
                             f" one of {write_formats()}")
        kinds = meshio._helpers.extension_to_filetypes[ext]
        format = "gmsh" if "gmsh" in kinds else kinds[0]
    elif format not in write_formats():
        raise InputError(f"Invalid mesh format {format!r}; expected one of {write_formats()}")
    if format == "abaqus":
        from solfec_py.geometry.abaqus_inp import write_inp

        write_inp(path, mesh, config)
        return format
    out = to_meshio(mesh, config, format)
    try:
        meshio.write(path, out, file_format=format)
    except OSError as exc:
        raise InputError(f"cannot write {path!r}: {exc.strerror or exc}") from None
    except Exception as exc:     # a format that cannot hold these cells or data
        raise InputError(f"cannot write the mesh as {format} to {path!r}: {exc}") from None
    return format
