"""The one check of volume elements on their way into a body (layer 1): MESH, HEX and the
other mesh generators, MESH_IMPORT and BODY of every kind run it, so a mesh meets the same
rules whichever way it came. Reference: the corner Jacobians of isoparametric elements
(a trilinear hexahedron is valid where the Jacobian keeps its sign; its corners are the
usual test, e.g. Knupp, "Achieving finite element mesh quality via optimization of the
Jacobian matrix norm", IJNME 48 (2000)); Solfec-1.0's elements are convex polyhedra
(msh.c ELEMENT_Convex), its node orders are fem.elements'.

Rules, in this order, each error naming the element (0-based, mesh order), its type and
its nodes:
- a node listed twice in one element, and two elements with the same nodes (a duplicate
  doubles the mass) are refused;
- an element of zero volume (|V| <= 1e-12 of the cube of its extent) is refused;
- an element whose corners do not all turn the same way (a corner's edge triple of the
  other sign than the element's volume: a self-intersecting or folded element, whose
  Jacobian changes sign inside it) is refused;
- an element inside out (every corner negative) is turned the right way (FLIP), and a
  note names it.
"""
from __future__ import annotations

import numpy as np

from solfec_py.errors import InputError
from solfec_py.geometry import mesh_tables

# the corner edge triples (corner, three neighbours in right-handed order) of each element
# type in its node order: positive for a positively oriented element
CORNERS = {
    4: [(0, 1, 2, 3)],
    5: [(i, (i + 1) % 4, (i + 3) % 4, 4) for i in range(4)],
    6: [(i, (i + 1) % 3, (i + 2) % 3, i + 3) for i in range(3)]
       + [(3 + i, 3 + (i + 2) % 3, 3 + (i + 1) % 3, i) for i in range(3)],
    8: [(i, (i + 1) % 4, (i + 3) % 4, i + 4) for i in range(4)]
       + [(4 + i, 4 + (i + 3) % 4, 4 + (i + 1) % 4, i) for i in range(4)],
}
_CHUNK = 1 << 16
FLAT = 1e-12              # |volume| below FLAT x extent^3: no volume


def _chunks(etype: np.ndarray):
    """(element type, element indices) in chunks of at most _CHUNK elements of one type."""
    for k in mesh_tables.ETYPES:
        sel = np.flatnonzero(etype == k)
        for lo in range(0, sel.size, _CHUNK):
            yield k, sel[lo: lo + _CHUNK]


def _volumes(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(signed volumes, extents) of elements of type k with corner coordinates x (m, k, 3):
    the determinant for tetrahedra, the divergence theorem over the face triangles otherwise;
    the extent is the largest coordinate difference from the first corner."""
    x = x - x[:, :1]                                               # relative to the first corner
    size = np.abs(x.reshape(x.shape[0], -1)).max(axis=1)
    if k == 4:
        return np.einsum("ij,ij->i", x[:, 1], np.cross(x[:, 2], x[:, 3])) / 6.0, size
    tri = mesh_tables.TRI_TABLE[k][mesh_tables.TRI_FACE[k] >= 0]
    a, b, c = x[:, tri[:, 0]], x[:, tri[:, 1]], x[:, tri[:, 2]]
    return np.einsum("eti,eti->e", a, np.cross(b, c)) / 6.0, size


def signed_volumes(X: np.ndarray, etype: np.ndarray, conn: np.ndarray) -> np.ndarray:
    """Volume of every element (negative for a negatively oriented element)."""
    out = np.zeros(etype.size)
    for k, e in _chunks(etype):
        out[e] = _volumes(X[conn[e, :k]], k)[0]
    return out


def _corner_signs(x: np.ndarray, k: int, sign: np.ndarray, size: np.ndarray) -> np.ndarray:
    """(m, corners) True where a corner's edge triple turns against `sign` (beyond rounding:
    a straight corner, as in a hexahedron filling a triangle, has a zero triple and passes)."""
    c = np.array(CORNERS[k])
    x = x - x[:, :1]
    e1, e2, e3 = (x[:, c[:, j]] - x[:, c[:, 0]] for j in (1, 2, 3))
    det = np.einsum("eci,eci->ec", e1, np.cross(e2, e3))
    return det * sign[:, None] < -FLAT * size[:, None] ** 3


def _name(etype, conn, e: int) -> str:
    k = int(etype[e])
    return f"element {e} ({mesh_tables.NAMES[k]}, nodes {conn[e, :k].tolist()})"


def _refuse_repeats(etype: np.ndarray, conn: np.ndarray) -> None:
    """A node twice in an element; two elements with the same node set."""
    s = np.sort(np.where(conn >= 0, conn, -1), axis=1)
    twice = np.any((s[:, 1:] == s[:, :-1]) & (s[:, 1:] >= 0), axis=1)
    if twice.any():
        e = int(np.flatnonzero(twice)[0])
        raise InputError(f"{_name(etype, conn, e)} lists a node twice; {int(twice.sum())} such element(s)")
    from solfec_py.geometry.mesh import group_rows

    s = s + 1                                                # element node sets, two per int64
    group, counts = group_rows((s[:, 0::2] << 32) | s[:, 1::2])
    if np.any(counts > 1):
        twin = np.flatnonzero(counts[group] > 1)
        a = int(twin[0])
        b = int(twin[1:][group[twin[1:]] == group[a]][0])
        raise InputError(f"{_name(etype, conn, a)} and element {b} have the same nodes (a duplicate element"
                         f" would count its mass twice); {int(counts[counts > 1].sum() - (counts > 1).sum())}"
                         " duplicate(s)")


def check(X, etype, conn, full=None) -> tuple[np.ndarray, list]:
    """Check the elements (conn (ne, >= 8) corner rows, -1 padded) against the rules of the
    module docstring and turn inside-out ones the right way in place (`conn` and, for
    quadratic cells, `full`: {meshio name: (element indices, all nodes)} as Mesh.quadratic).
    Returns (signed volumes after turning, notes); InputError for the refused ones."""
    X = np.asarray(X, dtype=float)
    etype = np.asarray(etype)
    _refuse_repeats(etype, conn)
    vol = np.zeros(etype.size)
    flat = np.zeros(etype.size, dtype=bool)
    folded, where = np.zeros(etype.size, dtype=bool), {}
    for k, e in _chunks(etype):
        x = X[conn[e, :k]]
        vol[e], size = _volumes(x, k)
        flat[e] = np.abs(vol[e]) <= FLAT * size ** 3
        bad = _corner_signs(x, k, np.sign(vol[e]), size) & ~flat[e][:, None]
        hit = bad.any(axis=1)
        folded[e[hit]] = True
        where.update({int(i): np.flatnonzero(b).tolist() for i, b in zip(e[hit][:1], bad[hit][:1])})
    if flat.any():
        e = int(np.flatnonzero(flat)[0])
        raise InputError(f"{_name(etype, conn, e)} has zero volume; {int(flat.sum())} such element(s)")
    if folded.any():
        e = int(np.flatnonzero(folded)[0])
        corners = [int(conn[e, CORNERS[int(etype[e])][c][0]]) for c in where.get(e, [])]
        raise InputError(f"{_name(etype, conn, e)} is self-intersecting or folded: its corners at node(s) {corners} turn"
                         f" the other way from the rest (the Jacobian changes sign inside it); list its nodes"
                         f" as the element type requires (docs/meshes.md); {int(folded.sum())} such element(s)")
    notes = []
    neg = np.flatnonzero(vol < 0)
    if neg.size:
        shown = ", ".join(_name(etype, conn, int(e)) for e in neg[:3]) + (", ..." if neg.size > 3 else "")
        _flip(etype, conn, full or {}, neg)
        notes.append(f"{neg.size} element(s) inside out (negative volume) turned the right way: {shown}")
        vol[neg] = -vol[neg]
    return vol, notes


def _flip(etype, conn, full: dict, neg: np.ndarray) -> None:
    """Reverse the orientation of elements `neg` (corners by FLIP, quadratic cells' full node
    lists by the matching permutation)."""
    quad = np.zeros(etype.size, dtype=bool)
    for name, (elems, nodes) in full.items():
        hit = np.isin(elems, neg)
        if hit.any():
            k = mesh_tables.QUADRATIC[name]
            nodes[hit] = nodes[hit][:, mesh_tables.quadratic_permutation(k, mesh_tables.FLIP[k])]
            conn[elems[hit], :k] = nodes[hit][:, :k]
            quad[elems[hit]] = True
    for k in mesh_tables.ETYPES:
        e = neg[(etype[neg] == k) & ~quad[neg]]
        if e.size:
            conn[e, :k] = conn[e][:, list(mesh_tables.FLIP[k])]


def check_mesh(mesh) -> list:
    """`check` on a geometry.mesh.Mesh (reference nodes); its topology is derived anew when
    an element was turned. Returns the notes."""
    conn = mesh.conn.copy()                  # copies of a mesh share their connectivity
    full = {name: (elems, nodes.copy()) for name, (elems, nodes) in mesh.quadratic.items()}
    _, notes = check(mesh.ref, mesh.etype, conn, full)
    if notes:
        mesh.conn, mesh.quadratic = conn, full
        mesh._topo, mesh._bsurf = None, None
    return notes
