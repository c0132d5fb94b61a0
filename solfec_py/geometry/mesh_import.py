"""Meshes from files (layer 1): meshio's cell types mapped onto solfec's elements, volume and
surface ids from tags, physical groups and named sets, orientation checked and fixed,
quadratic cells kept. Reference: meshio (cell types, VTK node orders, `reader_map`),
scikit-fem's io/meshio.py (a cell-type map plus permutations), the gmsh reference manual
(physical groups), docs/meshes.md (the rules below, for users).

`from_meshio(mesh, ...)` is pure (a meshio.Mesh in, a `geometry.mesh.Mesh` out) and
`read_mesh(path, ...)` reads a file first (meshio, or `abaqus_inp` for .inp files), turning
any reader failure into an InputError naming the path. Ids, in increasing precedence:
`volid` for volume cells without one (faces without one get the mesh's `surfid`); cells in
named sets of formats without tags (Abaqus element sets and surfaces; sets named VOLID_<n> /
SURFID_<n> get n, others 1, 2, ... in order, with a note); integer tags stored per cell (gmsh
physical groups, medit/Nastran/MED references, our own `volid`/`surfid` cell data), 0
meaning none; names listed in `groups` (gmsh physical names, MED groups, named sets).
"""
from __future__ import annotations

import os
import re

import numpy as np

from solfec_py.errors import InputError
from solfec_py.geometry import mesh_tables
from solfec_py.geometry.mesh import Mesh
from solfec_py.geometry.mesh_check import FLAT, check, signed_volumes  # noqa: F401 (signed_volumes re-exported)
from solfec_py.geometry.mesh_files import check_file, reader_failure

# meshio cell type -> solfec element (corner count); quadratic cells (those of fem.elements)
# keep all their nodes
VOLUME_CELLS = {**{name: k for k, name in mesh_tables.MESHIO_NAMES.items()}, **mesh_tables.QUADRATIC}
# meshio -> solfec node order of each volume cell: meshio's (VTK's) order is solfec's, mid-edge
# nodes in mesh_tables.EDGES order (checked in the tests against VTK's parametric coordinates
# and gmsh's reference elements); negatively oriented cells are flipped with FLIPS
PERMUTATION = {name: np.arange(k + (len(mesh_tables.EDGES[k]) if name in mesh_tables.QUADRATIC else 0))
               for name, k in VOLUME_CELLS.items()}
FLIPS = {name: (np.array(mesh_tables.FLIP[k]) if name not in mesh_tables.QUADRATIC
                else mesh_tables.quadratic_permutation(k, mesh_tables.FLIP[k]))
         for name, k in VOLUME_CELLS.items()}
# higher-order Lagrange cells (corners first) accepted as their corners with linear=True
_HIGHER = re.compile(r"^(tetra|pyramid|wedge|hexahedron)(\d+)$")
# surface cells -> corner count (higher-order faces: their corners)
FACE_CELLS = {"triangle": 3, "quad": 4, "triangle6": 3, "quad8": 4, "quad9": 4}
_FACES = re.compile(r"^(triangle|quad)(\d+)$")
# per-cell integer tags, first found wins (our own export writes `volid` / `surfid`)
TAG_KEYS = ("gmsh:physical", "medit:ref", "nastran:ref", "cell_tags", "CellEntityIds", "su2:tag",
            "avsucd:material", "ugrid:ref", "netgen:index", "tetgen:ref", "flac3d:zone")
_CONVENTION = re.compile(r"^(VOLID|SURFID)_(-?\d+)$", re.IGNORECASE)


def _kind(cell: str, linear: bool) -> tuple[str, int]:
    """('volume' | 'face' | 'ignore', corner count) of a meshio cell type."""
    if cell in VOLUME_CELLS:
        return "volume", VOLUME_CELLS[cell]
    m = _HIGHER.match(cell)
    if m and linear:
        return "volume", {"tetra": 4, "pyramid": 5, "wedge": 6, "hexahedron": 8}[m.group(1)]
    if m or cell.startswith("polyhedron"):
        raise InputError(f"{cell} cells are not supported (supported: {sorted(VOLUME_CELLS)}"
                         + ("; linear=True takes the corners of higher-order cells)" if m else ")"))
    if cell in FACE_CELLS or _FACES.match(cell):
        return "face", FACE_CELLS.get(cell) or (3 if cell.startswith("triangle") else 4)
    return "ignore", 0


def orient(X, etype, conn) -> tuple[np.ndarray, int]:
    """Flip negatively oriented elements of a generated mesh in place (corner rows of
    `conn`); InputError for a zero volume (mesh_check.FLAT). Returns (volumes, number
    flipped). Meshes on their way into a body get mesh_check.check, which also refuses
    folded and duplicate elements."""
    vol = signed_volumes(X, etype, conn)
    size = np.zeros(etype.size)
    for k in mesh_tables.ETYPES:
        e = np.flatnonzero(etype == k)
        if e.size:
            x = X[conn[e, :k]]
            size[e] = np.abs((x - x[:, :1]).reshape(e.size, -1)).max(axis=1)
    flat = np.abs(vol) <= FLAT * size ** 3
    if flat.any():
        e = int(np.flatnonzero(flat)[0])
        raise InputError(f"element {e} ({mesh_tables.NAMES[int(etype[e])]}, nodes {conn[e, :etype[e]].tolist()})"
                         f" has zero volume; {int(flat.sum())} such element(s)")
    neg = np.flatnonzero(vol < 0)
    for k in mesh_tables.ETYPES:
        e = neg[etype[neg] == k]
        if e.size:
            conn[e, :k] = conn[e][:, list(mesh_tables.FLIP[k])]
    vol[neg] = -vol[neg]
    return vol, neg.size


def _tags(mesh, b: int, key0: str) -> np.ndarray | None:
    n = len(mesh.cells[b].data)
    for key in (key0,) + TAG_KEYS:
        data = mesh.cell_data.get(key)
        if data is None or b >= len(data):
            continue
        arr = np.asarray(data[b])
        if arr.shape[:1] == (n,) and arr.ndim == 1 and arr.dtype.kind in "iu":
            return arr.astype(np.int64)
        if arr.shape[:1] == (n,) and arr.ndim == 1 and arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            return arr.astype(np.int64)
    return None


def _block_ids(mesh, kinds, groups: dict | None, notes: list) -> list:
    """Per block: the id of every cell (0 for none), by the precedence of the module docstring."""
    ids = [np.zeros(len(c.data), np.int64) if kinds[b] != "ignore" else None for b, c in enumerate(mesh.cells)]
    tagged = []
    for b, kind in enumerate(kinds):
        if kind != "ignore":
            t = _tags(mesh, b, "volid" if kind == "volume" else "surfid")
            tagged.append(t is not None)
            if t is not None:
                ids[b] = t
        else:
            tagged.append(False)
    groups = dict(groups or {})
    sets = {k: v for k, v in (getattr(mesh, "cell_sets", None) or {}).items() if not k.startswith("gmsh:")}
    taken = set(groups.values()) | {int(v) for b, x in enumerate(ids) if x is not None for v in np.unique(x)}
    numbered, unused, counter = {}, [], 0
    for name, per_block in sets.items():           # named sets of formats without tags
        m = _CONVENTION.match(name)
        if name in groups:
            continue
        if m:
            value = int(m.group(2))
        elif groups:
            unused.append(name)
            continue
        else:
            counter += 1
            while counter in taken:
                counter += 1
            value = numbered[name] = counter
        for b, rows in enumerate(per_block[: len(ids)]):
            if ids[b] is not None and not tagged[b] and len(rows):
                ids[b][np.asarray(rows, np.int64)] = value
    if numbered:
        notes.append("named sets numbered in file order (pass groups={name: id} to choose): "
                     + ", ".join(f"{k!r} -> {v}" for k, v in numbered.items()))
    if unused:
        notes.append(f"named sets not in 'groups' ignored: {unused}")
    if not groups:
        return ids
    known = set()
    for name, (tag, dim) in ((k, tuple(np.asarray(v).reshape(-1)[:2])) for k, v in
                             (getattr(mesh, "field_data", None) or {}).items() if np.asarray(v).size >= 2):
        if name in groups:                          # gmsh physical names
            known.add(name)
            for b, kind in enumerate(kinds):
                if kind == ("volume" if int(dim) == 3 else "face" if int(dim) == 2 else "") and tagged[b]:
                    t = _tags(mesh, b, "")
                    ids[b][t == int(tag)] = groups[name]
    for tag, names in (getattr(mesh, "cell_tags", None) or {}).items():   # MED families
        for name in names:
            if name in groups:
                known.add(name)
                for b, kind in enumerate(kinds):
                    t = _tags(mesh, b, "") if kind != "ignore" else None
                    if t is not None:
                        ids[b][t == int(tag)] = groups[name]
    for name, per_block in sets.items():
        if name in groups:
            known.add(name)
            for b, rows in enumerate(per_block[: len(ids)]):
                if ids[b] is not None and len(rows):
                    ids[b][np.asarray(rows, np.int64)] = groups[name]
    missing = sorted(set(groups) - known)
    if missing:
        raise InputError(f"'groups' names {missing} are not in the mesh; its named groups are"
                         f" {sorted(set(getattr(mesh, 'field_data', {}) or {}) | set(sets))}")
    return ids


def from_meshio(mesh, volid: int = 0, surfid: int = 0, groups: dict | None = None, scale: float = 1.0,
                linear: bool = False, notes: list | None = None) -> Mesh:
    """A solfec Mesh from a meshio.Mesh (see the module docstring for the id rules).

    Parameters
    ----------
    mesh : meshio.Mesh
        Points and cell blocks; volume cells become elements, surface cells carry surface
        ids onto the boundary faces with the same corner nodes, lines and vertices are ignored.
    volid, surfid : int
        Ids of volume cells and boundary faces that no group names.
    groups : dict, optional
        Group name -> id, overriding the ids stored in the file.
    scale : float
        Coordinates are multiplied by it.
    linear : bool
        Quadratic (and higher-order) cells become their corners; by default quadratic cells
        are kept (`Mesh.quadratic`).
    notes : list, optional
        Receives informative messages (dropped nodes, flipped elements, numbered sets).
    """
    notes = [] if notes is None else notes
    X = np.asarray(mesh.points, dtype=float)
    if X.ndim != 2 or X.shape[1] not in (2, 3) or X.shape[0] == 0:
        raise InputError(f"the mesh has no 3-D points (points array of shape {X.shape})")
    if X.shape[1] == 2:
        X = np.column_stack([X, np.zeros(X.shape[0])])
    kinds = [_kind(c.type, linear) for c in mesh.cells]
    ids = _block_ids(mesh, [k for k, _ in kinds], groups, notes)
    vol = [(b, c) for b, c in enumerate(mesh.cells) if kinds[b][0] == "volume" and len(c.data)]
    if not vol:
        found = sorted({c.type for c in mesh.cells}) or "no cells"
        raise InputError(f"the mesh has no volume cells (tetra, pyramid, wedge, hexahedron); it has {found}")
    for b, c in enumerate(mesh.cells):
        data = np.asarray(c.data)
        if kinds[b][0] != "ignore" and len(data) and (data.dtype.kind not in "iu" or data.min() < 0
                                                      or data.max() >= X.shape[0]):
            raise InputError(f"{c.type} cells refer to nodes outside of [0, {X.shape[0] - 1}]")
    etype = np.concatenate([np.full(len(c.data), kinds[b][1], np.int64) for b, c in vol])
    conn = np.full((etype.size, 8), -1, dtype=np.int64)
    volids = np.concatenate([np.where(ids[b] != 0, ids[b], volid) for b, _ in vol])
    quad, offset = {}, 0
    for b, c in vol:
        data = np.asarray(c.data, dtype=np.int64)
        k = kinds[b][1]
        conn[offset: offset + len(data), :k] = data[:, :k]
        if c.type in mesh_tables.QUADRATIC and not linear:
            e0, d0 = quad.get(c.type, (np.zeros(0, np.int64), np.zeros((0, data.shape[1]), np.int64)))
            quad[c.type] = (np.concatenate([e0, offset + np.arange(len(data))]), np.vstack([d0, data]))
        offset += len(data)
    # nodes: unreferenced ones dropped (noted), coincident ones refused
    used = np.zeros(X.shape[0], dtype=bool)
    for b, c in vol:
        used[np.asarray(c.data).reshape(-1)] = True
    if not used.all():
        notes.append(f"{int((~used).sum())} node(s) used by no volume cell were dropped")
    keep = np.zeros(X.shape[0], dtype=bool)
    keep[conn[conn >= 0]] = True
    for _, full in quad.values():
        keep[full.reshape(-1)] = True
    new = np.cumsum(keep) - 1
    X = X[keep] * float(scale)
    conn = np.where(conn >= 0, new[np.maximum(conn, 0)], -1)
    quad = {name: (e, new[full]) for name, (e, full) in quad.items()}
    if not np.all(np.isfinite(X)):
        raise InputError(f"node {int(np.flatnonzero(~np.all(np.isfinite(X), axis=1))[0])} has a non-finite coordinate")
    _refuse_coincident(X)
    notes.extend(check(X, etype, conn, quad)[1])          # the elements' check of every path into a body
    fnodes, fsids = _faces(mesh, kinds, ids, keep, new)
    return Mesh(X, etype, conn, volids, gid=surfid, face_nodes=fnodes, face_sids=fsids, quadratic=quad)


def _faces(mesh, kinds, ids, keep, new) -> tuple[np.ndarray, np.ndarray]:
    rows, sids = [np.zeros((0, 4), np.int64)], [np.zeros(0, np.int64)]
    for b, c in enumerate(mesh.cells):
        kind, k = kinds[b]
        if kind != "face" or not len(c.data):
            continue
        data = np.asarray(c.data, dtype=np.int64)[:, :k]
        ok = (ids[b] != 0) & np.all(keep[data], axis=1)
        face = np.full((int(ok.sum()), 4), -1, dtype=np.int64)
        face[:, :k] = new[data[ok]]
        rows.append(face)
        sids.append(ids[b][ok])
    return np.vstack(rows), np.concatenate(sids)


def _refuse_coincident(X: np.ndarray) -> None:
    from scipy.spatial import cKDTree

    diag = float(np.linalg.norm(X.max(axis=0) - X.min(axis=0)))
    dist, near = cKDTree(X).query(X, k=2)
    close = np.flatnonzero(dist[:, 1] <= 1e-9 * diag)
    if close.size:
        a = int(close[0])
        b = int(near[a, 1] if near[a, 1] != a else near[a, 0])
        raise InputError(f"nodes {a} and {b} coincide at {X[a].tolist()} ({close.size // 2 or 1}"
                         " pair(s)); merge duplicate nodes in the mesher (gmsh: Coherence) before importing")


# ---------------------------------------------------------------------- files

GENERIC = (".dat", ".txt")     # extensions that say little: the content is looked at first


def formats() -> list:
    """Names accepted by `format=` (meshio's readers and solfec-py's own 'abaqus' and 'poly',
    TetGen's piecewise linear complexes)."""
    import meshio

    return sorted(set(meshio._helpers.reader_map) | {"abaqus", "poly"})


def file_format(path: str, format: str | None = None) -> str:
    """The reader for `path`: `format` if given, else from the file extension, else from
    the file's first bytes (mesh_sniff.py); for the GENERIC extensions the first bytes come
    first."""
    if format is not None:
        if format not in formats():
            raise InputError(f"Invalid mesh format {format!r}; expected one of {formats()}")
        return format
    import meshio

    lower = str(path).lower()
    if lower.endswith(".poly"):
        return "poly"
    if lower.endswith(GENERIC):                     # meshio takes .dat for Tecplot; decks use it for anything
        from solfec_py.geometry.mesh_sniff import sniff

        found = sniff(path)
        if found is not None:
            return found
    for ext in sorted(meshio._helpers.extension_to_filetypes, key=len, reverse=True):
        if lower.endswith(ext):
            kinds = meshio._helpers.extension_to_filetypes[ext]
            return "gmsh" if "gmsh" in kinds else kinds[0]          # .msh: gmsh before ansys
    from solfec_py.geometry.mesh_sniff import sniff

    found = sniff(path)
    if found is not None:
        return found
    raise InputError(f"cannot tell the mesh format of {path!r} from its extension or its content; pass format="
                     f" one of {formats()}")


def read_raw(path, format: str | None = None, notes: list | None = None):
    """The meshio.Mesh of a file (Abaqus files by `abaqus_inp`); any reader failure (missing,
    unreadable or corrupt file) raises InputError naming the path. What the reader prints
    goes to `notes`."""
    import contextlib
    import io
    import warnings

    notes = [] if notes is None else notes
    path = os.fspath(path)
    check_file(path, empty=False)
    fmt = file_format(path, format)
    check_file(path)
    said = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            warnings.simplefilter("ignore")
            if fmt == "abaqus":
                from solfec_py.geometry.abaqus_inp import read_inp

                mesh, more = read_inp(path)
                notes.extend(more)
            elif fmt == "poly":
                from solfec_py.geometry.tetgen_poly import read_poly

                mesh = read_poly(path)
            else:
                import meshio

                mesh = meshio._helpers.reader_map[fmt](path)   # meshio.read would sys.exit on a bad file
    except InputError:                       # solfec-py's own readers say what is wrong themselves
        raise
    except (Exception, SystemExit) as exc:   # any reader failure: bad bytes in, a clear error out
        raise reader_failure(exc, fmt, path) from None
    notes.extend(f"meshio: {line.strip()}" for line in said.getvalue().splitlines() if line.strip())
    return mesh


def read_mesh(path, format: str | None = None, notes: list | None = None, **options) -> Mesh:
    """Read a mesh file into a solfec Mesh; `options` are those of `from_meshio`. Reader
    failures (missing, unreadable or corrupt files) raise InputError naming the path."""
    mesh = read_raw(path, format, notes)
    fmt = file_format(path, format)
    try:
        return from_meshio(mesh, notes=notes, **options)
    except InputError as exc:
        raise InputError(f"{os.fspath(path)}: {exc}") from None
    except (ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:   # inconsistent reader output
        raise InputError(f"{os.fspath(path)}: not a valid {fmt} mesh ({type(exc).__name__}: {exc})") from None

