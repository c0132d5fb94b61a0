"""A mesh file's format told by its first bytes, for files whose extension does not tell it
(Solfec-1.0 decks name meshes `.dat`, `.poly`, `.mesh`, ...) (layer 1). Reference: the
formats' own headers: gmsh `$MeshFormat`, VTK `# vtk DataFile`, VTU `<VTKFile`, XDMF
`<Xdmf`, Abaqus keyword lines `*HEADING` / `*NODE`, STL `solid` (text) or an 84-byte header
with the triangle count (binary), OFF, PLY, Medit `MeshVersionFormatted`, TetGen .poly
(tetgen_poly.looks_like_poly).
"""
from __future__ import annotations

import os
import struct


def _head(path: str, size: int = 4096) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except OSError:
        return b""


def _binary_stl(path: str, head: bytes) -> bool:
    if len(head) < 84:
        return False
    (count,) = struct.unpack("<I", head[80:84])
    try:
        return os.path.getsize(path) == 84 + 50 * count
    except OSError:
        return False


def sniff(path: str) -> str | None:
    """The reader name (as mesh_import.formats() lists them) of the file at `path`, or None."""
    head = _head(path)
    if not head:
        return None
    text = head.lstrip().upper()
    first = text.split(b"\n", 1)[0].strip()
    if text.startswith(b"$MESHFORMAT") or text.startswith(b"$NOD"):
        return "gmsh"
    if text.startswith(b"# VTK DATAFILE"):
        return "vtk"
    if b"<VTKFILE" in text[:512] and b"UNSTRUCTUREDGRID" in text:
        return "vtu"
    if b"<XDMF" in text[:512]:
        return "xdmf"
    if first.startswith(b"*HEADING") or first.startswith(b"*NODE") or first.startswith(b"*PART"):
        return "abaqus"
    if first in (b"OFF", b"COFF", b"NOFF"):
        return "off"
    if first == b"PLY":
        return "ply"
    if text.startswith(b"MESHVERSIONFORMATTED"):
        return "medit"
    if _binary_stl(path, head):
        return "stl"
    if first.startswith(b"SOLID") and b"FACET" in text:
        return "stl"
    from solfec_py.geometry.tetgen_poly import looks_like_poly

    if b"\0" not in head and looks_like_poly(path):
        return "poly"
    return None
