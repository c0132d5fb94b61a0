"""`from abaqusreader import AbaqusInput` for decks written for Solfec-1.0's scripts/abaqusreader
package: an Abaqus .inp file (parts, one assembly of instances, elastic materials) as MESH
objects and BULK_MATERIALs. Reference: Solfec-1.0 scripts/abaqusreader (its documented
interface: AbaqusInput, Part, Instance, ElasticMaterial, Assembly); the Abaqus Keywords
Reference (*PART, *NODE, *ELEMENT, *NSET, *SOLID SECTION, *ASSEMBLY, *INSTANCE, *MATERIAL).

As there, keywords and names are read in upper case; a part's 3D solid elements (C3D...)
become linear MESH elements (the corner nodes of 10-, 15- and 20-node elements), nodes are
numbered from 0 in order of first use, every element gets `volid`, and a node set named
SURF<k> gives surface id k to the element faces whose corners are all in it (other faces
get `gid`). An instance's MESH is its part's, translated by its first data line and rotated
(point, second point on the axis, angle in degrees) by its second, as Abaqus places it.
"""
from __future__ import annotations

import os

from solfec_py.api import BULK_MATERIAL, MESH, ROTATE, TRANSLATE
from solfec_py.errors import InputError
from solfec_py.geometry.abaqus_inp import FACES

__version__ = "0.4"

LINEAR = {4: 4, 6: 6, 8: 8, 10: 4, 15: 6, 20: 8}          # element nodes -> corner nodes
FACES_OF = {4: FACES["tetra"], 6: FACES["wedge"], 8: FACES["hexahedron"]}


class AbaqusError(InputError):
    """A line of the .inp file this reader does not take (names the file and the line)."""


def _fields(line: str) -> list[str]:
    words = [w.strip().replace("'", "").replace('"', "") for w in line.upper().split(",")]
    while words and words[-1] == "":
        words.pop()
    return words


def _param(words: list[str], name: str) -> str:
    for w in words[1:]:
        key, _, value = w.partition("=")
        if key.strip() == name:
            return value.strip()
    return ""


class ElasticMaterial:
    """*MATERIAL with *DENSITY and *ELASTIC; `convert(solfec)` makes its BULK_MATERIAL once."""

    def __init__(self):
        self.name = self.density = self.Ym = self.poisson = None
        self.bulkmat = None

    def convert(self, solfec):
        if self.bulkmat is None:
            self.bulkmat = BULK_MATERIAL(solfec, "KIRCHHOFF", self.name, self.Ym, self.poisson, self.density)
        return self


class Assembly:
    def __init__(self):
        self.name = None
        self.instances: dict = {}
        self.elsets: dict = {}


class Part:
    """Abaqus data (`abqnodes`, `abqelements`, `abqnodesets`) and, after `convert`, the MESH
    arguments `nodes`, `elements`, `surfids`, with `nodesets`, `nodemap` and `elmap`."""

    def __init__(self):
        self.name = self.materialname = None
        self.abqnodes: dict = {}
        self.abqelements: dict = {}
        self.abqnodesets: dict = {}
        self.nodes: list = []
        self.elements: list = []
        self.surfids: list = []
        self.nodesets: dict = {}
        self.nodemap: dict = {}
        self.elmap: dict = {}

    def convert(self, volid: int, gid: int) -> None:
        corners = {}
        for k, (eid, (etype, *nids)) in enumerate(self.abqelements.items()):
            if "C3D" not in etype:
                raise AbaqusError(f"Cannot convert {etype!r} elements of part {self.name!r}: they must be 3D solids"
                                  " (C3D...)")
            if len(nids) not in LINEAR:
                raise AbaqusError(f"Cannot convert {etype!r} elements of part {self.name!r}: they must have 4, 6, 8,"
                                  f" 10, 15 or 20 nodes, got {len(nids)}")
            self.elmap[eid] = k
            ids = []
            for nid in nids[:LINEAR[len(nids)]]:
                if nid not in self.nodemap:
                    if nid not in self.abqnodes:
                        raise AbaqusError(f"element {eid} of part {self.name!r} uses node {nid}, which no *NODE defines")
                    self.nodemap[nid] = len(self.nodemap)
                    self.nodes.extend(self.abqnodes[nid])
                ids.append(self.nodemap[nid])
            corners[eid] = ids
            self.elements += [len(ids), *ids, volid]
        for name, nids in self.abqnodesets.items():
            self.nodesets[name] = [self.nodemap[n] for n in nids if n in self.nodemap]
        self.surfids = [gid]
        for name, nids in self.abqnodesets.items():
            if not name.startswith("SURF") or not name[4:].isdigit():
                continue
            inside = {self.nodemap[n] for n in nids if n in self.nodemap}
            for ids in corners.values():
                for face in FACES_OF[len(ids)]:
                    nodes = [ids[i] for i in face]
                    if inside.issuperset(nodes):
                        self.surfids += [len(nodes), *nodes, int(name[4:])]


class Instance:
    def __init__(self):
        self.name = self.part = None
        self.translate = (0.0, 0.0, 0.0)
        self.point = (0.0, 0.0, 0.0)
        self.direction = (0.0, 0.0, 0.0)
        self.angle = 0.0
        self.mesh = self.material = None

    def convert(self, bulkmat=None) -> None:
        part = self.part
        mesh = MESH(list(part.nodes), list(part.elements), list(part.surfids))
        if any(self.translate):
            TRANSLATE(mesh, tuple(self.translate))          # Abaqus translates first
        if any(self.direction):
            ROTATE(mesh, tuple(self.point), tuple(self.direction), self.angle)
        self.mesh, self.material = mesh, bulkmat


class AbaqusInput:
    """``AbaqusInput(path | solfec, gid, volid, verbose, convert)``: `parts` and
    `materials` (dicts by upper-case name) and `assembly` (its `instances` by name); with
    `convert` (default) every part gets its MESH arguments and every instance its `mesh`
    and, given `solfec`, its part's `material` as a BULK_MATERIAL."""

    def __init__(self, path, solfec=None, gid=0, volid=1, verbose=0, convert=True):
        self.path, self.solfec, self.gid, self.volid, self.verbose = path, solfec, gid, volid, verbose
        self.parts: dict = {}
        self.assembly = None
        self.materials: dict = {}
        self.parse()
        if self.assembly is None:
            self.assembly = Assembly()
        if convert:
            self.convert()

    def __str__(self):
        return (f"AbaqusObject from {self.path!r} with {len(self.parts)} parts, {len(self.assembly.instances)}"
                f" instances, {len(self.materials)} materials")

    def _say(self, text: str, level: int = 1) -> None:
        if self.verbose >= level:
            print(text)

    # ------------------------------------------------------------------ reading
    def _lines(self):
        try:
            with open(self.path, encoding="latin-1") as f:
                for number, line in enumerate(f, 1):
                    words = _fields(line)
                    if line.startswith("**") or not words:
                        continue
                    yield number, words
        except OSError as exc:
            raise AbaqusError(f"AbaqusInput: cannot read 'path' {self.path!r}: {exc.strerror or exc}") from None

    def parse(self) -> None:
        lines = list(self._lines())
        if not lines or lines[0][1][:1] != ["*HEADING"]:
            raise AbaqusError(f"{self.path}: *HEADING not found on the first line")
        self._k = 1
        self._rows = lines
        part = instance = material = None
        while self._k < len(lines):
            number, words = lines[self._k]
            self._k += 1
            key = words[0] if words else ""
            if key == "*PART":
                part = Part()
                part.name = _param(words, "NAME")
                self.parts[part.name] = part
            elif key == "*END PART":
                part = None
            elif key == "*NODE" and part is not None:
                for n, data in self._data():
                    part.abqnodes[int(data[0])] = tuple(float(v) for v in data[1:4])
            elif key == "*ELEMENT" and part is not None:
                self._elements(part, _param(words, "TYPE"), number)
            elif key == "*NSET" and part is not None:
                self._nset(part, words)
            elif key == "*SOLID SECTION" and part is not None:
                part.materialname = _param(words, "MATERIAL") or part.materialname
            elif key == "*ASSEMBLY":
                if self.assembly is not None:
                    raise AbaqusError(f"{self.path}:{number}: only one *ASSEMBLY is taken")
                self.assembly = Assembly()
                self.assembly.name = _param(words, "NAME")
            elif key == "*INSTANCE" and self.assembly is not None:
                instance = self._instance(words, number)
                self.assembly.instances[instance.name] = instance
            elif key == "*MATERIAL":
                material = ElasticMaterial()
                material.name = _param(words, "NAME")
                self.materials[material.name] = material
            elif key == "*DENSITY" and material is not None:
                material.density = float(self._data_line()[0])
            elif key == "*ELASTIC" and material is not None:
                values = self._data_line()
                material.Ym, material.poisson = float(values[0]), float(values[1])
        for name, mat in self.materials.items():
            if mat.density is None or mat.Ym is None:
                raise AbaqusError(f"{self.path}: *MATERIAL {name!r} needs *DENSITY and *ELASTIC")

    def _data(self):
        """The data lines that follow a keyword line (up to the next keyword)."""
        while self._k < len(self._rows) and not self._rows[self._k][1][0].startswith("*"):
            yield self._rows[self._k]
            self._k += 1

    def _data_line(self) -> list[str]:
        rows = list(self._data())
        if not rows:
            raise AbaqusError(f"{self.path}:{self._rows[self._k - 1][0]}: a data line was expected")
        return rows[0][1]

    def _elements(self, part: Part, etype: str, number: int) -> None:
        digits = "".join(ch for ch in etype.partition("3D")[2] if ch.isdigit())
        if not digits:
            raise AbaqusError(f"{self.path}:{number}: cannot tell the node count of element type {etype!r}")
        count, pending = int(digits), None
        for n, data in self._data():
            values = [int(v) for v in data]
            if pending is None:
                pending = values
            else:
                pending += values
            if len(pending) > count:
                part.abqelements[pending[0]] = (etype, *pending[1:])
                pending = None

    def _nset(self, part: Part, words: list[str]) -> None:
        name, rest = _param(words, "NSET"), words[2:]
        rows = list(self._data())
        if "INTERNAL" in rest:
            return
        nodes: list = []
        for _, data in rows:
            values = [int(v) for v in data]
            if "GENERATE" in rest:
                first, last, step = (values + [1])[:3]
                nodes.extend(range(first, last + 1, step))
            else:
                nodes.extend(values)
        part.abqnodesets[name] = nodes

    def _instance(self, words: list[str], number: int) -> Instance:
        inst = Instance()
        inst.name = _param(words, "NAME")
        part = _param(words, "PART")
        if part not in self.parts:
            raise AbaqusError(f"{self.path}:{number}: instance {inst.name!r} of part {part!r}, which no *PART defines")
        inst.part = self.parts[part]
        for n, data in self._data():
            values = [float(v) for v in data]
            if len(values) == 3:
                inst.translate = tuple(values)
            elif len(values) == 7:
                inst.point = tuple(values[:3])
                inst.direction = tuple(b - a for a, b in zip(values[:3], values[3:6]))
                inst.angle = values[6]
            else:
                raise AbaqusError(f"{self.path}:{n}: an instance data line holds 3 (translation) or 7 (rotation)"
                                  f" numbers, got {len(values)}")
        return inst

    # ------------------------------------------------------------------ converting
    def convert(self) -> None:
        for part in self.parts.values():
            self._say(f"processing part {part.name!r}")
            part.convert(self.volid, self.gid)
        for inst in self.assembly.instances.values():
            bulkmat = None
            if self.solfec is not None:
                name = inst.part.materialname
                if name not in self.materials:
                    raise AbaqusError(f"{os.path.basename(str(self.path))}: material {name!r} of part"
                                      f" {inst.part.name!r} (instance {inst.name!r}) is not defined")
                bulkmat = self.materials[name].convert(self.solfec).bulkmat
            inst.convert(bulkmat)
