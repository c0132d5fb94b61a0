"""MESH_IMPORT says what is wrong with a file in words (geometry/mesh_files.py), not in a
reader's raw text ("... as a gmsh mesh: 77") nor wrongly ("mesh file '/dev/null' not
found" for a file that exists): the file itself (a device, a directory, empty) and what a
reader's failure says about it (an unknown element type, a truncated file, another format,
broken XML), the reader's own words kept after them."""
from __future__ import annotations

import os

import pytest

from solfec_py.errors import InputError

GMSH_HEAD = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
CASES = {
    "element77.msh": (GMSH_HEAD + "$Elements\n1\n1 77 2 0 0 1 2\n$EndElements\n",
                      r"as a gmsh mesh: it uses element type 77, which is not one of the gmsh element types the"
                      r" reader knows \(reader: KeyError: 77\)"),
    "truncated.msh": (GMSH_HEAD + "$Nodes\n2\n1 0 0 0\n$EndNodes\n",
                      r"as a gmsh mesh: it ends before its data do \(a truncated file\), or a line holds fewer"
                      r" values than its header announces"),
    "picture.msh": ("\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
                    r"as a gmsh mesh: it does not start as a gmsh file does \(\$MeshFormat or \$NOD or"
                    r" \$Comments\); it begins with b'\\x89PNG"),
    "broken.vtu": ('<?xml version="1.0"?><VTKFile type="UnstructuredGrid"><UnstructuredGrid>',
                   r"as a vtu mesh: it is not well-formed XML \(no element found: line 1, column 72\): a"
                   r" truncated or damaged file"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_bad_file_is_described_in_words(api, tmp_path, name):
    text, words = CASES[name]
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError, match=rf"cannot read '{path}' {words}"):
        api.MESH_IMPORT(str(path))


@pytest.mark.parametrize("make, words", [
    (lambda d: "/dev/null", "mesh file '/dev/null' is a character device, not a file holding a mesh"),
    (lambda d: str(d), "is a directory, not a file"),
    (lambda d: str(d / "missing.msh"), "missing.msh' not found"),
    (lambda d: (d / "empty.msh").write_text("") and None or str(d / "empty.msh"), "empty.msh' is empty (0 bytes)"),
])
def test_the_file_itself(api, tmp_path, make, words):
    with pytest.raises(InputError) as err:
        api.MESH_IMPORT(make(tmp_path))
    assert words in str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file(api, tmp_path):
    path = tmp_path / "locked.msh"
    path.write_text(GMSH_HEAD)
    path.chmod(0)
    with pytest.raises(InputError, match="locked.msh' cannot be read \\(permission denied\\)"):
        api.MESH_IMPORT(str(path))
