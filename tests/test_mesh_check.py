"""One element check on every path into a body (geometry/mesh_check.py): MESH, HEX,
MESH_IMPORT and BODY of every kind refuse a duplicated element and a self-intersecting
(folded) one, naming the element and its nodes, and turn an inside-out element the right
way with a note naming it. References: a body of the unit-cube hexahedron (10 m side here)
has mass density x volume exactly; the corner edge triples of a hexahedron with two top
nodes swapped change sign (a bow-tie top face)."""
from __future__ import annotations

import meshio
import numpy as np
import pytest

from solfec_py.errors import InputError

CUBE = [0, 0, 0, 10, 0, 0, 10, 10, 0, 0, 10, 0, 0, 0, 10, 10, 0, 10, 10, 10, 10, 0, 10, 10]
HEX8 = [0, 1, 2, 3, 4, 5, 6, 7]
DUPLICATE = [8, *HEX8, 1, 8, *HEX8, 1]
FOLDED = [0, 1, 2, 3, 4, 5, 7, 6]                  # top face a bow-tie: signed volume 2/3 of the cube
INSIDE_OUT = [4, 5, 6, 7, 0, 1, 2, 3]
KINDS = ["RIGID", "OBSTACLE", "PSEUDO_RIGID", "FINITE_ELEMENT"]


def model(api, name):
    sol = api.SOLFEC("DYNAMIC", 1e-3, f"out/mesh_check_{name}")
    sol.verbose = "OFF"
    return sol, api.BULK_MATERIAL(sol, young=1e6, poisson=0.25, density=1.0)


def imported(tmp_path, conn):
    path = str(tmp_path / "block.vtu")
    meshio.write(path, meshio.Mesh(np.array(CUBE, float).reshape(-1, 3), [("hexahedron", np.array(conn))]))
    return path


def test_duplicated_element_is_refused_by_mesh_and_mesh_import(api, tmp_path):
    """Before, MESH took it and every body of it had twice the mass (2000 for 1000)."""
    named = r"element 0 \(hexahedron, nodes \[0, 1, 2, 3, 4, 5, 6, 7\]\) and element 1 have the same nodes"
    with pytest.raises(InputError, match="MESH: " + named):
        api.MESH(CUBE, DUPLICATE, 1)
    with pytest.raises(InputError, match="block.vtu: " + named):
        api.MESH_IMPORT(imported(tmp_path, [HEX8, HEX8]))


def test_folded_element_is_refused_on_every_path(api, tmp_path):
    """MESH, MESH_IMPORT and HEX (corners given in a bow-tie order) refuse the folded
    hexahedron naming it and the nodes where its corners turn; before, MESH and MESH_IMPORT
    took it and a rigid or pseudo-rigid body of it weighed 333.3 instead of 1000 kg."""
    named = r"element 0 \(hexahedron, nodes \[0, 1, 2, 3, 4, 5, 7, 6\]\) is self-intersecting or folded: its" \
            r" corners at node\(s\) \[7, 6\] turn the other way"
    with pytest.raises(InputError, match="MESH: " + named):
        api.MESH(CUBE, [8, *FOLDED, 1], 1)
    with pytest.raises(InputError, match="block.vtu: " + named):
        api.MESH_IMPORT(imported(tmp_path, [FOLDED]))
    bow_tie = np.array(CUBE).reshape(8, 3)[FOLDED].ravel().tolist()
    with pytest.raises(InputError, match=r"HEX: element 0 \(hexahedron, nodes \[0, 1, 3, 2, 4, 5, 7, 6\]\) is"
                                         r" self-intersecting or folded"):       # HEX numbers nodes x fastest
        api.HEX(bow_tie, 1, 1, 1, 1, [1] * 6)


@pytest.mark.parametrize("kind", KINDS)
def test_body_checks_its_mesh_again(api, kind):
    """A node moved after MESH folds the element: BODY refuses it for every kind (before:
    rigid and pseudo-rigid bodies took it with a wrong mass), the shape is not taken."""
    sol, mat = model(api, f"body_{kind}")
    mesh = api.MESH(CUBE, [8, *HEX8, 1], 1)
    mesh.node(6, 0, 10, 10)                           # node 6 onto node 7's place ...
    mesh.node(7, 10, 10, 10)                          # ... and 7 onto 6's: a bow-tie top
    with pytest.raises(InputError, match=r"BODY: 'shape': element 0 \(hexahedron, nodes \[0, 1, 2, 3, 4, 5, 6, 7\]\)"
                                         r" is self-intersecting or folded"):
        api.BODY(sol, kind, mesh, mat)
    assert mesh.nnod == 8 and not sol.bodies


@pytest.mark.parametrize("kind", KINDS)
def test_inside_out_element_is_turned_with_a_note_on_every_path(api, kind, tmp_path, capsys):
    """MESH, MESH_IMPORT and BODY (after a mirroring SCALE) turn an inside-out hexahedron the
    right way and say which; every body then weighs density x volume = 1000 kg (to rounding,
    1e-12). Before, MESH kept it and BODY refused rigid and pseudo-rigid bodies of it
    (volume -1000) and finite-element ones (negative Jacobian)."""
    sol, mat = model(api, f"flip_{kind}")
    note = "element(s) inside out (negative volume) turned the right way: element 0 (hexahedron, nodes"
    shapes = [api.MESH(CUBE, [8, *INSIDE_OUT, 1], 1), api.MESH_IMPORT(imported(tmp_path, [INSIDE_OUT]))]
    err = capsys.readouterr().err
    assert f"MESH: 1 {note} [4, 5, 6, 7, 0, 1, 2, 3])" in err and f"block.vtu: 1 {note} [4, 5, 6, 7" in err
    mirrored = api.MESH(CUBE, [8, *HEX8, 1], 1)
    api.SCALE(mirrored, (-1, 1, 1))
    for shape in shapes + [mirrored]:
        body = api.BODY(sol, kind, shape, mat)
        assert body.volume == pytest.approx(1000.0, rel=1e-12)
        if kind != "OBSTACLE":
            assert body.mass == pytest.approx(1000.0, rel=1e-12)
    assert f"BODY: 'shape': 1 {note} [0, 1, 2, 3, 4, 5, 6, 7])" in capsys.readouterr().err
