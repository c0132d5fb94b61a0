"""MBFCP_EXPORT read back: a model with a rigid CONVEX, a rigid SPHERE, a finite-element HEX
block, two surface materials, two bulk materials, a time-series GRAVITY, a FORCE, a TORQUE
and one constraint of each exported kind is written, parsed by an independent reader of the
format of Solfec-1.0 (sol.c SOLFEC_2_MBFCP and the writers it calls) and compared with what
the deck defined. Numbers are C's %g (6 significant digits): compared to relative 1e-5.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import CUBE


class Reader:
    """Reads the file token line by token line: `key(name)` checks a 'NAME:<tab>value' line."""

    def __init__(self, path):
        self.lines = [ln for ln in open(path).read().splitlines()]
        self.i = 0

    def next(self) -> str:
        while self.lines[self.i] == "":
            self.i += 1
        self.i += 1
        return self.lines[self.i - 1]

    def key(self, name: str) -> str:
        line = self.next()
        key, _, value = line.partition(":")
        assert key == name, (self.i, line, name)
        return value.strip()

    def numbers(self) -> np.ndarray:
        return np.array([float(v) for v in self.next().split()])

    def series(self):
        line = self.next()
        key, _, value = line.partition(":")
        if key == "CONSTANT":
            return float(value)
        assert key == "TIME_SERIES"
        return np.array([self.numbers() for _ in range(int(value))])

    def shapes(self) -> dict:
        out = {"convexes": [], "meshes": [], "spheres": []}
        n, done = int(self.key("SHAPES")), 0
        while done < n:
            key, _, value = self.next().partition(":")
            if key == "CONVEXES":
                for _ in range(int(value)):
                    ver = np.array([self.numbers() for _ in range(int(self.key("VERTEXES")))])
                    faces = [self.numbers().astype(int) for _ in range(int(self.key("FACES")))]
                    out["convexes"].append((ver, faces))
                done += 1
            elif key == "MESHES":
                for _ in range(int(value)):
                    nodes = np.array([self.numbers() for _ in range(int(self.key("NODES")))])
                    elems = [self.numbers().astype(int) for _ in range(int(self.key("ELEMENTS")))]
                    faces = [self.numbers().astype(int) for _ in range(int(self.key("FACES")))]
                    out["meshes"].append((nodes, elems, faces))
                done += int(value)
            elif key == "SPHERES":
                for _ in range(int(value)):
                    out["spheres"].append((np.array(self.key("CENTER").split(), float), float(self.key("RADIUS")),
                                           int(self.key("SURFID"))))
                done += int(value)
            else:
                raise AssertionError(key)
        return out

    def model(self) -> dict:
        m = {"surface": [], "bulk": {}, "bodies": {}, "constraints": {}}
        for _ in range(int(self.key("SURFACE_MATERIALS"))):
            e = {"surf": (self.key("SURF1"), self.key("SURF2")), "model": self.key("MODEL"),
                 "friction": float(self.key("FRICTION")), "cohesion": float(self.key("COHESION"))}
            if e["model"] == "SPRING_DASHPOT":
                e["spring"], e["dashpot"] = float(self.key("SPRING")), float(self.key("DASHPOT"))
            else:
                e["restitution"] = float(self.key("RESTITUTION"))
            m["surface"].append(e)
        for _ in range(int(self.key("BULK_MATERIALS"))):
            label = self.key("LABEL")
            m["bulk"][label] = (self.key("MODEL"), float(self.key("YOUNG")), float(self.key("POISSON")),
                                float(self.key("DENSITY")))
        line = self.next()
        if line == "GRAVITY:":
            m["gravity"] = [self.series() for _ in range(3)]
            line = self.next()
        assert line.startswith("BODIES:")
        for _ in range(int(line.split()[1])):
            b = {"id": int(self.key("ID")), "label": self.key("LABEL"), "kind": self.key("KINEMATICS"),
                 "material": self.key("BULK_MATERIAL")}
            b["shapes"] = self.shapes()
            b["velocity"] = np.array(self.key("VELOCITY").split(), float)
            b["forces"] = [(self.key("KIND"), np.array(self.key("POINT").split(), float),
                            np.array(self.key("DIRECTION").split(), float), self.series())
                           for _ in range(int(self.key("FORCES")))]
            m["bodies"][b["id"]] = b
        for _ in range(int(self.key("CONSTRAINTS"))):
            cid, kind = int(self.key("ID")), self.key("KIND")
            if kind == "RIGLNK":
                c = {"bodies": (self.key("BODY1"), self.key("BODY2")),
                     "points": (np.array(self.key("POINT1").split(), float), np.array(self.key("POINT2").split(), float))}
            else:
                c = {"body": int(self.key("BODY")), "point": np.array(self.key("POINT").split(), float)}
                if kind != "FIXPNT":
                    c["direction"] = np.array(self.key("DIRECTION").split(), float)
                if kind == "VELODIR":
                    c["series"] = [self.series()]
                if kind == "VELODIR3":
                    c["series"] = [self.series() for _ in range(3)]
            c["kind"] = kind
            m["constraints"][cid] = c
        return m


def close(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-5, atol=1e-12)


def _model(api):
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/mbfcp")
    api.SURFACE_MATERIAL(sol, model="SIGNORINI_COULOMB", friction=0.3, restitution=0.25)
    api.SURFACE_MATERIAL(sol, 1, 2, model="SPRING_DASHPOT", friction=0.1, spring=1e6, dashpot=10.0)
    steel = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=2e11, poisson=0.3, density=7800, label="steel")
    rubber = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e6, poisson=0.45, density=1100, label="rubber")
    g = api.TIME_SERIES([0, 0, 1, -10])
    api.GRAVITY(sol, (0, 0, g))
    ver = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    faces = [3, 0, 2, 1, 1, 3, 0, 1, 3, 2, 3, 1, 2, 3, 3, 3, 0, 3, 2, 4]
    tet = api.BODY(sol, "RIGID", api.CONVEX(ver, faces, 7), steel, label="tet")
    ball = api.BODY(sol, "RIGID", api.SPHERE((3, 0, 0), 0.5, 2, 5), steel, label="ball")
    block = api.BODY(sol, "FINITE_ELEMENT", api.HEX(eval(CUBE), 1, 1, 1, 3, [1, 2, 3, 4, 5, 6]), rubber, label="block")
    api.INITIAL_VELOCITY(tet, (1, 2, 3), (0.1, 0.2, 0.3))
    api.FORCE(tet, "SPATIAL", (0.1, 0.1, 0.1), (0, 0, 2), api.TIME_SERIES([0, 0, 2, 5]))
    api.TORQUE(ball, "CONVECTED", (1, 0, 0), 4.5)
    fp = api.FIX_POINT(ball, (3, 0, 0))
    fd = api.FIX_DIRECTION(block, (0.5, 0.5, 0.5), (0, 1, 0))
    sv = api.SET_VELOCITY(block, (1, 1, 1), (0, 0, 1), api.TIME_SERIES([0, 0, 1, 2]))
    sv3 = api.SET_VELOCITY3(tet, (0.2, 0.2, 0.2), (1, 0, 0, 0, 1, 0, 0, 0, 1), (1.5, 0, 0))
    link = api.PUT_RIGID_LINK(tet, ball, (0.1, 0.1, 0.1), (3, 0, 0.4))
    return sol, (tet, ball, block), (fp, fd, sv, sv3, link)


def test_export_reads_back_as_the_model(api, tmp_path):
    sol, (tet, ball, block), (fp, fd, sv, sv3, link) = _model(api)
    api.MBFCP_EXPORT(sol, str(tmp_path / "m.mbfcp"))
    m = Reader(tmp_path / "m.mbfcp").model()
    assert [e["surf"] for e in m["surface"]] == [("ANY", "ANY"), ("1", "2")]
    assert m["surface"][0]["friction"] == 0.3 and m["surface"][0]["restitution"] == 0.25
    assert m["surface"][1]["model"] == "SPRING_DASHPOT" and m["surface"][1]["spring"] == 1e6
    assert m["bulk"] == {"rubber": ("KIRCHHOFF", 1e6, 0.45, 1100.0), "steel": ("KIRCHHOFF", 2e11, 0.3, 7800.0)}
    assert m["gravity"][:2] == [0.0, 0.0]
    close(m["gravity"][2], [[0, 0], [1, -10]])
    assert list(m["bodies"]) == [block.id, ball.id, tet.id]          # newest first, as Solfec's list
    t = m["bodies"][tet.id]
    assert (t["label"], t["kind"], t["material"]) == ("tet", "RIGID", "steel")
    (ver, faces), = t["shapes"]["convexes"]
    close(ver, np.reshape([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], (4, 3)))
    # n, vertex offsets (3 x vertex number, as Solfec writes them), surface id
    assert [list(f) for f in faces] == [[3, 0, 6, 3, 1], [3, 0, 3, 9, 2], [3, 3, 6, 9, 3], [3, 0, 9, 6, 4]]
    close(t["velocity"], list(tet.velo))
    close(t["velocity"][3:], (1, 2, 3))
    (kind, point, direction, value), = t["forces"]
    assert kind == "SPATIAL"
    close(point, (0.1, 0.1, 0.1)), close(direction, (0, 0, 1)), close(value, [[0, 0], [2, 5]])
    b = m["bodies"][ball.id]
    (centre, radius, surf), = b["shapes"]["spheres"]
    close(centre, (3, 0, 0))
    assert (radius, surf) == (0.5, 5)
    assert [(f[0], f[3]) for f in b["forces"]] == [("CONVECTED_TORQUE", 4.5)]
    fe = m["bodies"][block.id]
    assert fe["kind"] == "FINITE_ELEMENT" and fe["velocity"].size == 24
    (nodes, elems, bfaces), = fe["shapes"]["meshes"]
    close(sorted(map(tuple, nodes)), sorted(map(tuple, np.reshape(eval(CUBE), (8, 3)))))   # HEX numbers its own nodes
    assert len(elems) == 1 and elems[0][0] == 8 and sorted(elems[0][1:]) == list(range(8))
    assert len(bfaces) == 6 and all(f[0] == 4 for f in bfaces)
    assert sorted(f[-1] for f in bfaces) == [1, 2, 3, 4, 5, 6]
    for f in bfaces:        # each face's nodes share the coordinate its surface id stands for
        X = nodes[f[1:5]]
        assert np.any(np.ptp(X, axis=0) == 0)
    c = m["constraints"]
    assert list(c) == sorted(c, reverse=True)                          # newest first
    assert c[fp.id]["kind"] == "FIXPNT" and c[fp.id]["body"] == ball.id
    close(c[fp.id]["point"], (3, 0, 0))
    assert c[fd.id]["kind"] == "FIXDIR" and c[fd.id]["body"] == block.id
    close(c[fd.id]["direction"], (0, 1, 0))
    assert c[sv.id]["kind"] == "VELODIR"
    close(c[sv.id]["series"][0], [[0, 0], [1, 2]])
    assert c[sv3.id]["kind"] == "VELODIR3" and c[sv3.id]["series"] == [1.5, 0.0, 0.0]
    assert c[link.id]["kind"] == "RIGLNK" and c[link.id]["bodies"] == (str(tet.id), str(ball.id))
    close(c[link.id]["points"][0], (0.1, 0.1, 0.1))
    close(c[link.id]["points"][1], (3, 0, 0.4))


def test_contacts_are_left_out_and_errors(api, tmp_path):
    from solfec_py.errors import InputError, InputTypeError

    sol, *_ = _model(api)
    with pytest.raises(InputTypeError, match="'solfec' must be a SOLFEC object"):
        api.MBFCP_EXPORT("sol", str(tmp_path / "x"))
    with pytest.raises(InputTypeError, match="'path'"):
        api.MBFCP_EXPORT(sol, None)
    with pytest.raises(InputError, match="File open failed"):
        api.MBFCP_EXPORT(sol, str(tmp_path / "missing" / "x"))
    api.BODY(sol, "RIGID", api.ELLIP((0, 9, 0), (1, 2, 3), 1, 1), "steel")
    with pytest.raises(InputError, match="ELLIP|Ellip"):
        api.MBFCP_EXPORT(sol, str(tmp_path / "e"))
