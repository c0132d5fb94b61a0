"""The abaqusreader module decks import (Solfec-1.0 scripts/abaqusreader's interface) on a small
.inp written here: a two-HEX8 block part with a SURF7 node set, a 10-node tetrahedron part
(element data over two lines), an assembly whose block instance is translated then rotated
90 degrees about a vertical axis, and an elastic material. Checked: the MESH arguments of
each part (0-based nodes in order of first use, corner nodes only, `volid`, the faces of
SURF7 and `gid`), the instance's MESH nodes against the exact placement x = p + Rz(90)(X +
t - p) (1e-12), the BULK_MATERIAL values, the errors, and a deck importing it by name.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

INP = """\
*Heading
** a comment
*Part, name=Block
*Node
  1, 0., 0., 0.
  2, 1., 0., 0.
  3, 2., 0., 0.
  4, 0., 1., 0.
  5, 1., 1., 0.
  6, 2., 1., 0.
  7, 0., 0., 1.
  8, 1., 0., 1.
  9, 2., 0., 1.
 10, 0., 1., 1.
 11, 1., 1., 1.
 12, 2., 1., 1.
*Element, type=C3D8
 101, 1, 2, 5, 4, 7, 8, 11, 10
 102, 2, 3, 6, 5, 8, 9, 12, 11
*Nset, nset=SURF7
 1, 4, 7, 10
*Nset, nset=_Picked, internal, generate
 1, 12, 1
*Solid Section, elset=_Picked, material=Steel
*End Part
*Part, name="Tet"
*Node
 1, 0., 0., 0.
 2, 1., 0., 0.
 3, 0., 1., 0.
 4, 0., 0., 1.
 5, .5, 0., 0.
 6, .5, .5, 0.
 7, 0., .5, 0.
 8, 0., 0., .5
 9, .5, 0., .5
 10, 0., .5, .5
*Element, type=C3D10
 1, 1, 2, 3, 4, 5, 6, 7, 8,
 9, 10
*Solid Section, elset=x, material=Steel
*End Part
*Assembly, name=Assembly
*Instance, name=B-1, part=Block
 5., 0., 0.
 5., 0., 0., 5., 0., 1., 90.
*End Instance
*Instance, name=T-1, part=Tet
*End Instance
*End Assembly
*Material, name=Steel
*Density
 7800.,
*Elastic
 2e+11, 0.3
"""


@pytest.fixture
def reader():
    from solfec_py.lang.helpers import abaqusreader

    return abaqusreader


def test_parts_instances_and_materials(api, reader, tmp_path):
    path = tmp_path / "model.inp"
    path.write_text(INP)
    sol = api.SOLFEC("DYNAMIC", 1e-3, "out/abq")
    model = reader.AbaqusInput(str(path), sol, gid=3, volid=9)
    assert str(model) == f"AbaqusObject from {str(path)!r} with 2 parts, 2 instances, 1 materials"
    block, tet = model.parts["BLOCK"], model.parts["TET"]
    assert block.nodes[:6] == [0.0, 0, 0, 1, 0, 0] and len(block.nodes) == 36
    assert block.elements == [8, 0, 1, 2, 3, 4, 5, 6, 7, 9, 8, 1, 8, 9, 2, 5, 10, 11, 6, 9]
    s = block.surfids                                          # gid, then the x = 0 face of element 101
    assert len(s) == 7 and s[:2] == [3, 4] and sorted(s[2:6]) == [0, 3, 4, 7] and s[6] == 7
    assert "_PICKED" not in block.nodesets and block.nodesets["SURF7"] == [0, 3, 4, 7]
    assert tet.elements == [4, 0, 1, 2, 3, 9] and len(tet.nodes) == 12 and tet.surfids == [3]
    assert (block.materialname, tet.materialname) == ("STEEL", "STEEL")
    inst = model.assembly.instances["B-1"]
    assert inst.part is block and inst.translate == (5.0, 0, 0) and inst.angle == 90.0
    assert inst.material is model.assembly.instances["T-1"].material
    assert (inst.material.label, inst.material.young, inst.material.poisson, inst.material.density) == \
        ("STEEL", 2e11, 0.3, 7800.0)
    X = np.reshape(block.nodes, (-1, 3))
    p = np.array([5.0, 0, 0])
    c, s = math.cos(math.pi / 2), math.sin(math.pi / 2)
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    expected = p + (X + [5.0, 0, 0] - p) @ Rz.T
    nodes, elements, surfids = inst.mesh.get_data()
    np.testing.assert_allclose(np.reshape(nodes, (-1, 3)), expected, atol=1e-12)
    sids, i = [], 1                                           # [0, n, nodes..., sid, ...]
    while i < len(surfids):
        sids.append(surfids[i + surfids[i] + 1])
        i += surfids[i] + 2
    assert sorted(sids) == [3] * 9 + [7]                       # SURF7's face, the 9 others gid 3
    body = api.BODY(sol, "FINITE_ELEMENT", inst.mesh, inst.material, label=inst.name)
    assert body.mass == pytest.approx(7800.0 * 2.0, rel=1e-12)


def test_no_convert_and_errors(reader, tmp_path):
    from solfec_py.errors import InputError

    path = tmp_path / "model.inp"
    path.write_text(INP)
    model = reader.AbaqusInput(str(path), convert=False)
    assert model.parts["BLOCK"].elements == [] and model.assembly.instances["B-1"].mesh is None
    model = reader.AbaqusInput(str(path))                     # no SOLFEC: meshes without materials
    assert model.assembly.instances["B-1"].material is None and model.assembly.instances["B-1"].mesh is not None
    with pytest.raises(InputError, match="cannot read 'path'"):
        reader.AbaqusInput(str(tmp_path / "missing.inp"))
    (tmp_path / "bad.inp").write_text("*Part, name=x\n")
    with pytest.raises(InputError, match=r"\*HEADING not found"):
        reader.AbaqusInput(str(tmp_path / "bad.inp"))
    (tmp_path / "shell.inp").write_text(INP.replace("type=C3D8", "type=S4R"))
    with pytest.raises(InputError, match="shell.inp:17: cannot tell the node count of element type 'S4R'"):
        reader.AbaqusInput(str(tmp_path / "shell.inp"))
    (tmp_path / "membrane.inp").write_text(INP.replace("type=C3D8", "type=M3D8"))
    with pytest.raises(InputError, match="'M3D8' elements of part 'BLOCK'.*3D solids"):
        reader.AbaqusInput(str(tmp_path / "membrane.inp"))


def test_a_deck_imports_it_by_name(tmp_path):
    from solfec_py.cli import main

    (tmp_path / "model.inp").write_text(INP)
    deck = tmp_path / "d.py"
    deck.write_text(textwrap.dedent("""\
        from abaqusreader import AbaqusInput
        sol = SOLFEC('DYNAMIC', 1E-3, 'out/d')
        model = AbaqusInput('model.inp', sol)
        for inst in model.assembly.instances.values():
            BODY(sol, 'FINITE_ELEMENT', inst.mesh, inst.material, inst.name)
        assert len(sol.bodies) == 2
    """))
    assert main([str(deck)]) == 0
