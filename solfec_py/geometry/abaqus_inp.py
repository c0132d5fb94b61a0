"""Abaqus input files (.inp) read and written by solfec-py itself (layer 1): nodes, solid and
surface elements, element sets and element-face surfaces (`*Surface`, faces S1..S6), which
meshio's reader does not read. Reference: the Abaqus Keywords Reference (*NODE, *ELEMENT,
*ELSET, *SURFACE, *PART, *INSTANCE, *INCLUDE) and the Abaqus element library face tables.

`read_inp(path)` returns a meshio.Mesh: one cell block per *ELEMENT keyword in file order,
element sets as `cell_sets` (except internal ones, named _..., and those that only serve to
define surfaces: named by a *SURFACE, not on an *ELEMENT line nor a section's ELSET=), and
each element-face surface as extra triangle/quad blocks
(the faces' corner nodes) named in `cell_sets` by the surface name. Names are matched
case-insensitively, as Abaqus does. One part (with its instance's translation/rotation) or a
flat file; node-based surfaces are skipped with a note. `write_inp(path, mesh)` writes a
`geometry.mesh.Mesh` with element sets VOLID_<id> and surfaces SURFID_<id>.
"""
from __future__ import annotations

import os
import re

import numpy as np

from solfec_py.geometry import mesh_tables

# Abaqus solid-element faces (zero-based corners; the node sets are what matters)
FACES = {
    "tetra": [(0, 1, 2), (0, 3, 1), (1, 3, 2), (2, 3, 0)],
    "pyramid": [(0, 1, 2, 3), (0, 4, 1), (1, 4, 2), (2, 4, 3), (3, 4, 0)],
    "wedge": [(0, 1, 2), (3, 5, 4), (0, 3, 4, 1), (1, 4, 5, 2), (2, 5, 3, 0)],
    "hexahedron": [(0, 1, 2, 3), (4, 7, 6, 5), (0, 4, 5, 1), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 4, 0)],
}
SOLID = {4: "tetra", 5: "pyramid", 6: "wedge", 8: "hexahedron", 10: "tetra10", 13: "pyramid13",
         15: "wedge15", 20: "hexahedron20", 27: "hexahedron27"}
SHELL = {3: "triangle", 4: "quad", 6: "triangle6", 8: "quad8", 9: "quad9"}
NODES = {"tetra": 4, "pyramid": 5, "wedge": 6, "hexahedron": 8, "tetra10": 10, "pyramid13": 13,
         "wedge15": 15, "hexahedron20": 20, "hexahedron27": 27, "triangle": 3, "quad": 4,
         "triangle6": 6, "quad8": 8, "quad9": 9}
_LINES = re.compile(r"^(T2D|T3D|B2|B3|PIPE|ELBOW|SPRING|DASHPOT|CONN|MASS|ROTARYI|GAP|JOINT|ITS|"
                    r"R2D|RB2D|RB3D|FRAME|DC1D|DCC1D|SFMGAX|MGAX)")
_SHELLS = re.compile(r"^(STRI|SFM3D|SFMAX|CPEG|CPS|CPE|M3D|R3D|DS|S|CAX|CGAX|DC2D|DCC2D|WARP2D)(\d)")
MAX_INCLUDE_DEPTH = 8


class InpError(ValueError):
    """An Abaqus input file that cannot be read (message names the file and line)."""


def cell_type(name: str) -> str | None:
    """meshio cell type of an Abaqus element type; None for line-like elements (ignored)."""
    up = name.upper()
    if up.startswith("STRI65"):
        return "triangle6"
    m = re.match(r"^(?:C3D|DC3D|DCC3D|AC3D)(\d+)", up) or re.match(r"^SC(6|8)R", up)
    if m and int(m.group(1)) in SOLID:
        return SOLID[int(m.group(1))]
    if _LINES.match(up):
        return None
    m = _SHELLS.match(up)
    if m and int(m.group(2)) in SHELL:
        return SHELL[int(m.group(2))]
    raise InpError(f"unsupported Abaqus element type {name!r}")


def _params(line: str) -> tuple[str, dict]:
    words = [w.strip() for w in line[1:].split(",")]
    out = {}
    for w in words[1:]:
        if w:
            key, _, value = w.partition("=")
            out[key.strip().upper()] = value.strip()
    return words[0].upper(), out


def _lines(path: str, depth: int = 0):
    """(path, line number, text) of the data and keyword lines, *INCLUDE files inlined."""
    if depth > MAX_INCLUDE_DEPTH:
        raise InpError(f"{path}: *INCLUDE nested deeper than {MAX_INCLUDE_DEPTH} levels")
    with open(path, "r", errors="replace") as fh:
        for number, text in enumerate(fh, 1):
            text = text.strip()
            if not text or text.startswith("**"):
                continue
            if text.startswith("*") and text[1:].upper().startswith("INCLUDE"):
                name = _params(text)[1].get("INPUT", "").strip('"')
                inner = name if os.path.isabs(name) else os.path.join(os.path.dirname(path), name)
                if not os.path.isfile(inner):
                    raise InpError(f"{path}:{number}: *INCLUDE file {name!r} not found")
                yield from _lines(inner, depth + 1)
                continue
            yield path, number, text


def _ints(words, where) -> list:
    try:
        return [int(w) for w in words if w]
    except ValueError:
        raise InpError(f"{where}: integers expected, got {','.join(words)!r}") from None


def _numbers(lines: list, dtype, where: str) -> np.ndarray:
    """All comma-separated numbers of data lines, parsed in C (np.fromstring); a bad token
    raises InpError naming it."""
    import warnings

    text = ",".join(line.rstrip().rstrip(",") for line in lines)
    if not text.strip():
        return np.zeros(0, dtype=dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = np.fromstring(text, dtype=dtype, sep=",")
        if out.size == text.count(",") + 1:
            return out
    except (ValueError, DeprecationWarning):
        pass
    convert = int if dtype is np.int64 else float
    for k, token in enumerate(text.split(",")):
        try:
            convert(token)
        except ValueError:
            kind = "integers" if dtype is np.int64 else "numbers"
            raise InpError(f"{where}: {kind} expected, got {token.strip()!r} (item {k + 1} of the data lines)"
                           ) from None
    raise InpError(f"{where}: unreadable data lines")  # pragma: no cover - fromstring and int() disagree


def _rotation(data: list, where: str):
    """The *INSTANCE placement: translation line, then rotation (axis point a, b, angle deg)."""
    R, t = np.eye(3), np.zeros(3)
    if data:
        t = np.array((data[0] + [0.0, 0.0, 0.0])[:3])
    if len(data) > 1:
        if len(data[1]) < 7:
            raise InpError(f"{where}: the instance rotation needs 7 numbers, got {len(data[1])}")
        a, b = np.array(data[1][:3]), np.array(data[1][3:6])
        axis = (b - a) / max(np.linalg.norm(b - a), 1e-300)
        th = np.radians(data[1][6])
        K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        R = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
        t = t + a - R @ a
    return R, t


class _Reader:
    def __init__(self):
        self.nodes = []                         # (labels (n,), coordinates (n, 3)) per *NODE block
        self.blocks = []                        # (meshio type, element labels, node labels (m, n))
        self.elsets, self.names = {}, {}        # UPPER name -> list of labels / set names; spelling
        self.volume_sets = set()                # UPPER names given to elements (*ELEMENT, sections)
        self.surfaces = {}                      # UPPER name -> [(label or set name, face number)]
        self.notes, self.parts = [], 0
        self.skipped = set()                    # first labels of ignored element blocks
        self.placement = None

    def run(self, path: str):
        key, params, where, data = None, {}, path, []
        for fname, number, text in _lines(path):
            if text.startswith("*"):
                if key is not None:
                    self.keyword(key, params, data, where)
                key, params = _params(text)
                where, data = f"{fname}:{number}", []
            elif key is not None:
                data.append(text)
        if key is not None:
            self.keyword(key, params, data, where)
        return self

    def keyword(self, key, params, data, where):
        """One keyword with its data lines; errors name the keyword's line."""
        if key == "NODE":
            widths = {line.rstrip().rstrip(",").count(",") + 1 for line in data}
            if not data:
                return
            if len(widths) != 1 or widths.pop() not in (3, 4):
                raise InpError(f"{where}: node lines 'label, x, y, z' expected (all with the same number of"
                               " coordinates)")
            values = _numbers(data, float, where).reshape(len(data), -1)
            xyz = np.zeros((len(data), 3))
            xyz[:, : values.shape[1] - 1] = values[:, 1:]
            self.nodes.append((values[:, 0].astype(np.int64), xyz))
        elif key == "ELEMENT":
            if "TYPE" not in params:
                raise InpError(f"{where}: *ELEMENT without TYPE=")
            try:
                kind = cell_type(params["TYPE"])
            except InpError as exc:
                raise InpError(f"{where}: {exc}") from None
            if kind is None:
                self.notes.append(f"{where}: {params['TYPE']} elements (lines, springs, ...) ignored")
                self.skipped.update(_ints([t.split(",")[0] for t in data], where))
                return
            values = _numbers(data, np.int64, where)
            n = NODES[kind] + 1
            if values.size % n:
                raise InpError(f"{where}: {params['TYPE']} element lines must hold a label and "
                               f"{n - 1} nodes each; {values.size} numbers do not divide into records")
            rows = values.reshape(-1, n)
            self.blocks.append((kind, rows[:, 0], rows[:, 1:]))
            if "ELSET" in params:
                self._set(params["ELSET"]).extend(rows[:, 0].tolist())
                self.volume_sets.add(params["ELSET"].upper())
        elif key == "ELSET":
            if "ELSET" not in params:
                raise InpError(f"{where}: *ELSET without ELSET=")
            target = self._set(params["ELSET"])
            words = [w.strip() for t in data for w in t.split(",") if w.strip()]
            if "GENERATE" in params:
                v = _ints(words, where)
                if len(v) % 3 or (len(v) and min(v[2::3]) <= 0):
                    raise InpError(f"{where}: GENERATE lines are 'first, last, increment', got {words}")
                for a, b, c in zip(v[0::3], v[1::3], v[2::3]):
                    target.extend(range(a, b + 1, c))
            else:
                target.extend(int(w) if w.lstrip("-").isdigit() else w.upper() for w in words)
        elif key == "SURFACE":
            name = params.get("NAME")
            if not name:
                raise InpError(f"{where}: *SURFACE without NAME=")
            if params.get("TYPE", "ELEMENT").upper() != "ELEMENT":
                self.notes.append(f"{where}: {params['TYPE']}-based surface {name!r} ignored (element-face"
                                  " surfaces only)")
                return
            faces = self.surfaces.setdefault(name.upper(), [])
            self.names.setdefault(name.upper(), name)
            for text in data:
                words = [w.strip() for w in text.split(",")]
                what = words[0]
                face = words[1].upper() if len(words) > 1 and words[1] else ""
                m = re.fullmatch(r"S([1-6])", face)
                if face and not m:
                    self.notes.append(f"{where}: face {face!r} of surface {name!r} ignored (S1..S6 only)")
                    continue
                faces.append((int(what) if what.lstrip("-").isdigit() else what.upper(), int(m.group(1)) if m else 0))
        elif key == "PART":
            self.parts += 1
            if self.parts > 1:
                raise InpError(f"{where}: several *PART definitions; write a flat input file (no parts and"
                               " assemblies) or one part")
        elif key == "INSTANCE":
            self.placement = _rotation([_numbers([text], float, where).tolist() for text in data], where)
        elif key.endswith("SECTION") and "ELSET" in params:     # *SOLID SECTION, ELSET=...: a material
            self.volume_sets.add(params["ELSET"].upper())

    def _set(self, name: str) -> list:
        self.names.setdefault(name.upper(), name)
        return self.elsets.setdefault(name.upper(), [])

    def labels_of(self, name, seen=()) -> list:
        """Element labels of a set (nested set names expanded)."""
        if name not in self.elsets:
            raise InpError(f"unknown element set {self.names.get(name, name)!r}")
        if name in seen:
            raise InpError(f"element set {self.names[name]!r} includes itself")
        out = []
        for item in self.elsets[name]:
            out.extend([item] if isinstance(item, int) else self.labels_of(item, seen + (name,)))
        return out


class _Locator:
    """Element labels -> (cell block, row), ignoring the labels of skipped elements."""

    def __init__(self, blocks, skipped, path):
        labels = np.concatenate([lab for _, lab, _ in blocks]) if blocks else np.zeros(0, np.int64)
        self.block = np.repeat(np.arange(len(blocks)), [lab.size for _, lab, _ in blocks])
        self.row = np.concatenate([np.arange(lab.size) for _, lab, _ in blocks]) if blocks else labels
        self.order = np.argsort(labels, kind="stable")
        self.sorted = labels[self.order]
        self.skipped = np.array(sorted(skipped), dtype=np.int64)
        self.path = path

    def __call__(self, labels, what: str):
        labels = np.asarray(labels, dtype=np.int64)
        labels = labels[~np.isin(labels, self.skipped)]
        pos = np.minimum(np.searchsorted(self.sorted, labels), max(self.sorted.size - 1, 0))
        bad = (self.sorted[pos] != labels) if self.sorted.size else np.ones(labels.size, bool)
        if bad.any():
            raise InpError(f"{self.path}: element {labels[bad][0]} of {what} is not defined")
        k = self.order[pos]
        return self.block[k], self.row[k]


def read_inp(path: str):
    """The meshio.Mesh of an Abaqus input file (see the module docstring) and a list of notes."""
    import meshio

    r = _Reader().run(path)
    if not r.nodes:
        raise InpError(f"{path}: no *NODE data")
    points = np.concatenate([xyz for _, xyz in r.nodes])
    if r.placement is not None:
        R, t = r.placement
        points = points @ R.T + t
    cells = []
    labels = np.concatenate([lab for lab, _ in r.nodes])
    order = np.argsort(labels, kind="stable")
    known, index = labels[order], order          # a label defined twice: its first definition
    for kind, elabels, nodes in r.blocks:
        pos = np.minimum(np.searchsorted(known, nodes), known.size - 1)
        bad = known[pos] != nodes
        if bad.any():
            raise InpError(f"{path}: element {elabels[np.argwhere(bad)[0][0]]} uses node {nodes[bad][0]},"
                           " which no *NODE line defines")
        cells.append(meshio.CellBlock(kind, index[pos]))
    locate = _Locator(r.blocks, r.skipped, path)
    nb = len(cells)
    sets = {}
    # sets that only serve to define surfaces: named by a *SURFACE, and neither given to
    # elements on their *ELEMENT line nor to a section (those are volume groups whatever
    # else uses them)
    for_surfaces = {what for items in r.surfaces.values() for what, _ in items if isinstance(what, str)}
    for_surfaces -= r.volume_sets
    for name in r.elsets:
        if name.startswith("_") or name in for_surfaces:      # internal and surface-only sets
            continue
        block, row = locate(r.labels_of(name), f"set {r.names[name]!r}")
        sets[r.names[name]] = [row[block == b] for b in range(nb)]
    faces = {3: [], 4: []}
    face_sets = {}
    for name, items in r.surfaces.items():
        mine = face_sets.setdefault(r.names[name], {3: [], 4: []})
        for what, k in items:
            block, row = locate([what] if isinstance(what, int) else r.labels_of(what), f"surface {r.names[name]!r}")
            for b in np.unique(block).tolist():
                kind = cells[b].type
                base = kind.rstrip("0123456789")
                if base not in FACES:
                    r.notes.append(f"surface {r.names[name]!r}: faces of {kind} elements ignored")
                    continue
                if k > len(FACES[base]):
                    raise InpError(f"{path}: surface {r.names[name]!r} names face S{k} of a {base} element,"
                                   f" which has {len(FACES[base])} faces")
                data = cells[b].data[row[block == b]]
                for f in (FACES[base] if k == 0 else [FACES[base][k - 1]]):
                    start = sum(len(x) for x in faces[len(f)])
                    faces[len(f)].append(data[:, list(f)])
                    mine[len(f)].append(start + np.arange(len(data)))
    empty = np.zeros(0, dtype=np.int64)
    for size, kind in ((3, "triangle"), (4, "quad")):
        if faces[size]:
            cells.append(meshio.CellBlock(kind, np.concatenate(faces[size]).astype(np.int64)))
            for v in sets.values():
                v.append(empty)
            for name, lists in face_sets.items():
                sets.setdefault(name, [empty] * (len(cells) - 1))
                sets[name][len(cells) - 1:] = [np.concatenate(lists[size]) if lists[size] else empty]
    return meshio.Mesh(points, cells, cell_sets=sets), r.notes


# ---------------------------------------------------------------------- writing

ABAQUS_TYPES = {"tetra": "C3D4", "pyramid": "C3D5", "wedge": "C3D6", "hexahedron": "C3D8",
                "tetra10": "C3D10", "pyramid13": "C3D13", "wedge15": "C3D15", "hexahedron20": "C3D20"}


def face_numbers(etype: int) -> np.ndarray:
    """Abaqus face number (1..) of each of solfec's local faces of a linear element type."""
    abq = FACES[mesh_tables.MESHIO_NAMES[etype]]
    return np.array([1 + [set(a) for a in abq].index(set(f)) for f in mesh_tables.FACES[etype]], dtype=np.int64)


def _rows(f, values, per_line: int = 8) -> None:
    for i in range(0, len(values), per_line):
        f.write(", ".join(str(v) for v in values[i: i + per_line]) + "\n")


def write_inp(path: str, mesh, config: str = "cur") -> None:
    """Write `mesh` (current or reference nodes) with VOLID_<id> element sets and
    SURFID_<id> element-face surfaces for every boundary surface id."""
    X = mesh.cur if config == "cur" else mesh.ref
    label = np.zeros(mesh.nele, dtype=np.int64)
    with open(path, "w") as f:
        f.write("*HEADING\nwritten by solfec-py\n*NODE\n")
        np.savetxt(f, np.column_stack([np.arange(1, X.shape[0] + 1), X]), fmt=["%d"] + ["%.17g"] * 3,
                   delimiter=", ")
        count = 0
        for name, elems, nodes in mesh.cells():
            f.write(f"*ELEMENT, TYPE={ABAQUS_TYPES[name]}\n")
            label[elems] = count + 1 + np.arange(elems.size)
            rows = np.column_stack([label[elems], nodes + 1])
            fmt = ", ".join(["%d"] * min(rows.shape[1], 15))      # at most 16 items per line
            if rows.shape[1] > 15:
                fmt += ",\n" + ", ".join(["%d"] * (rows.shape[1] - 15))
            np.savetxt(f, rows, fmt=fmt)
            count += elems.size
        for vid in np.unique(mesh.volids).tolist():
            f.write(f"*ELSET, ELSET=VOLID_{vid}\n")
            _rows(f, label[mesh.volids == vid].tolist())
        _, _, sids, owner = mesh.boundary_faces()
        local = mesh.topology.local[mesh.topology.boundary]
        number = np.zeros(sids.size, dtype=np.int64)
        for k in mesh_tables.ETYPES:
            sel = mesh.etype[owner] == k
            number[sel] = face_numbers(k)[local[sel]]
        for sid in np.unique(sids).tolist():
            lines = []
            for s in range(1, 7):
                pick = (sids == sid) & (number == s)
                if pick.any():
                    f.write(f"*ELSET, ELSET=_SURFID_{sid}_S{s}\n")
                    _rows(f, label[owner[pick]].tolist())
                    lines.append(f"_SURFID_{sid}_S{s}, S{s}\n")
            f.write(f"*SURFACE, NAME=SURFID_{sid}, TYPE=ELEMENT\n" + "".join(lines))
