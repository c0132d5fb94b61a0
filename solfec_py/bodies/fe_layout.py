"""Flat element tables of all finite-element bodies of a domain (layer 3): every element of
every body in one padded table (global element index = body's element offset + the
element's object index), the elements grouped by type across bodies with their
total-Lagrangian reference data, and node-to-element maps. Rebuilt when bodies or element
materials change; the nodal state (displacements, velocities) lives in the block.
Reference: Solfec-1.0 fem.c / msh.c (element order, surface elements), DESIGN "data layout"
of docs/fem.md (groups by type, one kernel call per group).

A body's elements are numbered in *object order*: its surface elements (those owning a
boundary face, ascending) first, then the interior ones. Object k < (number of surface
elements) is contact object k of the body, so the `elem` a contact or a constraint keeps
for a side is an object index here too.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solfec_py.fem import kernels as fem_kernels
from solfec_py.fem import points as fem_points
from solfec_py.fem.elements import BY_CODE, ELEMENTS, FIRST_ORDER
from solfec_py.fem.elements.base import evaluate


@dataclass
class MeshRecord:
    """One body's mesh as the block uses it."""

    mesh: object                   # geometry.mesh.Mesh (reference nodes, connectivity, faces)
    order: np.ndarray              # (ne,) mesh element index of object k
    nsurface: int                  # the first nsurface objects are surface elements
    codes: np.ndarray              # (ne,) element code of object k
    conn: np.ndarray               # (ne, w) local node indices of object k (-1 padded)
    mat: np.ndarray                # (ne, 3) young, poisson, density of object k (APPLY_BULKMAT)
    materials: list = field(default_factory=list)   # BulkMaterial records the elements point at
    matid: np.ndarray = None       # (ne,) position in `materials` of object k's record
    rules: dict = None             # object k -> (points (m, 3), volumes (m,)): the integration points
                                   # of an element partly filled by a background-carried shape

    @classmethod
    def of(cls, mesh, material, rules=None) -> "MeshRecord":
        """`rules` maps mesh element indices to their own integration points (cut elements)."""
        surface = mesh.surface_elements()
        interior = np.setdiff1d(np.arange(mesh.nele), surface)
        order = np.concatenate([surface, interior]).astype(np.int64)
        codes, conn = element_table(mesh)
        mat = np.tile([material.young, material.poisson, material.density], (order.size, 1))
        if rules:
            where = np.empty(order.size, dtype=np.int64)
            where[order] = np.arange(order.size)
            rules = {int(where[e]): rule for e, rule in rules.items()}
        return cls(mesh, order, int(surface.size), codes[order], conn[order], mat, [material],
                   np.zeros(order.size, dtype=np.int64), rules or None)

    @property
    def nele(self) -> int:
        return self.order.size

    def assign(self, sel: np.ndarray, material) -> None:
        """Objects `sel` take `material` (APPLY_BULKMAT): its constants now, its density for
        good (the mass is computed from the density when a body or part is made)."""
        k = next((i for i, r in enumerate(self.materials) if r is material), None)
        if k is None:
            k = len(self.materials)
            self.materials.append(material)
        self.matid[sel] = k
        self.mat[sel] = (material.young, material.poisson, material.density)

    def uses(self, material) -> bool:
        return any(r is material and np.any(self.matid == k) for k, r in enumerate(self.materials))

    def refresh(self, material) -> bool:
        """Elastic constants of the objects made of `material` as the record holds them now;
        True when some changed."""
        changed = False
        for k, r in enumerate(self.materials):
            if r is material:
                sel = self.matid == k
                new = (material.young, material.poisson)
                if sel.any() and np.any(self.mat[sel, :2] != new):
                    self.mat[sel, :2] = new
                    changed = True
        return changed


def element_table(mesh) -> tuple[np.ndarray, np.ndarray]:
    """(codes (ne,), conn (ne, w) -1 padded) of every mesh element in mesh order: the
    quadratic cells (TET10, HEX20, WED15) with all their nodes, the others with their
    corners."""
    codes = np.array([FIRST_ORDER[int(t)].code for t in mesh.etype], dtype=np.int64)
    width = max([8] + [full.shape[1] for _, full in mesh.quadratic.values()])
    conn = np.full((mesh.nele, width), -1, dtype=np.int64)
    conn[:, :8] = mesh.conn
    for name, (elems, full) in mesh.quadratic.items():
        codes[elems] = ELEMENTS[name].code
        conn[elems, :full.shape[1]] = full
    return codes, conn


def mass_properties(mesh) -> tuple[float, np.ndarray, np.ndarray]:
    """(volume, centre, int (X - c)(X - c)^T dV) of a mesh integrated with each element's
    mass rule: exact for curved quadratic elements, whose corner polyhedra the geometry
    layer sees."""
    codes, conn = element_table(mesh)
    vol, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
    for code in np.unique(codes).tolist():
        el = BY_CODE[code]
        c = np.ascontiguousarray(conn[codes == code, : el.nnodes])
        N, dN, w = el.tables("mass")
        wJ, _ = fem_kernels.jacobian_weights(mesh.ref, c, dN, w)
        x = np.einsum("gk,ekj->egj", N, mesh.ref[c])                       # rule points
        vol += wJ.sum()
        first += np.einsum("eg,egj->j", wJ, x)
        second += np.einsum("eg,egi,egj->ij", wJ, x, x)
    center = first / vol
    return vol, center, second - vol * np.outer(center, center)


@dataclass
class Group:
    """Every element of one type across the bodies: one kernel call."""

    element: type
    gid: np.ndarray                # (ne,) global element indices
    conn: np.ndarray               # (ne, n) global node indices
    mat: np.ndarray                # (ne, 3)
    dNdX: np.ndarray               # (ne, nq, n, 3) stiffness-rule reference gradients
    wJ: np.ndarray                 # (ne, nq)
    energy: np.ndarray             # (ne,) scratch: element internal energies
    row: np.ndarray                # (ne,) body row of each element
    vscale: np.ndarray | None = None   # (ne,) whole / integrated volume of cut elements (None: 1)


@dataclass
class Layout:
    """The element side of a block (see module docstring)."""

    econn: np.ndarray              # (Ne, w) global node indices, -1 padded
    ecode: np.ndarray              # (Ne,)
    ecode_linear: np.ndarray       # (Ne,) code of the corner element (= ecode for linear ones)
    emat: np.ndarray               # (Ne, 3)
    erow: np.ndarray               # (Ne,) body row
    estart: np.ndarray             # (n + 1,) first global element of each body row
    groups: list = field(default_factory=list)
    node_elem: np.ndarray = None   # (N,) an element holding each node (surface ones first)
    adj_ptr: np.ndarray = None     # node -> elements (CSR over global element indices)
    adj: np.ndarray = None
    mass: np.ndarray = None        # (N,) lumped nodal masses
    unit_force: np.ndarray = None  # (N,) int rho N_i dV, HRZ masses on quadratic elements (gravity: x g)
    bad: tuple | None = None       # (row, object) of the first element with det J <= 0


def build(records: list, nstart: np.ndarray, nnodes: int, X: np.ndarray) -> Layout:
    """The layout of bodies with mesh `records` whose nodes start at `nstart` (rows) in the
    flat referential nodes `X` (nnodes, 3)."""
    width = max((r.conn.shape[1] for r in records), default=1)
    counts = np.array([r.nele for r in records], dtype=np.int64)
    estart = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    Ne = int(estart[-1])
    econn = np.full((Ne, width), -1, dtype=np.int64)
    ecode = np.zeros(Ne, dtype=np.int64)
    emat = np.zeros((Ne, 3))
    erow = np.repeat(np.arange(len(records), dtype=np.int64), counts)
    cut = {}                       # global element -> its own rule (cut elements of background meshes)
    for row, rec in enumerate(records):
        sl = slice(estart[row], estart[row + 1])
        c = rec.conn
        econn[sl, : c.shape[1]] = np.where(c >= 0, c + nstart[row], -1)
        ecode[sl], emat[sl] = rec.codes, rec.mat
        for k, rule in (rec.rules or {}).items():
            cut[int(estart[row]) + k] = rule
    linear = np.array([getattr(c, "linear", c).code for c in BY_CODE], dtype=np.int64)
    lay = Layout(econn, ecode, linear[ecode], emat, erow, estart)
    X = np.ascontiguousarray(X[:nnodes])
    lay.mass, lay.unit_force = np.zeros(nnodes), np.zeros(nnodes)
    own = np.zeros(Ne, dtype=bool)
    own[list(cut)] = True
    for code in np.unique(ecode).tolist():
        el = BY_CODE[code]
        mine = np.flatnonzero((ecode == code) & own)
        if mine.size:           # cut elements by their number of points (within a factor of 2: little padding)
            size = np.ceil(np.log2([cut[int(e)][1].size for e in mine])).astype(np.int64)
            for k in np.unique(size).tolist():
                _cut_group(lay, el, mine[size == k], cut, X)
        gid = np.flatnonzero((ecode == code) & ~own)
        if not gid.size:
            continue
        conn = np.ascontiguousarray(econn[gid, : el.nnodes])
        mat = np.ascontiguousarray(emat[gid])
        _, dN, w = el.tables("stiffness")
        dNdX, wJ, bad = fem_kernels.reference_data(X, conn, dN, w)
        if bad >= 0 and (lay.bad is None or gid[bad] < lay.bad[2]):
            e = int(gid[bad])
            lay.bad = (int(erow[e]), e - int(estart[erow[e]]), e)
        N_m, dN_m, w_m = el.tables("mass")
        wJ_m, _ = fem_kernels.jacobian_weights(X, conn, dN_m, w_m)
        fem_kernels.lumped_mass(conn, N_m, wJ_m, mat, el.lumping == "hrz", lay.mass)
        if el.lumping == "hrz":     # gravity = lumped mass x g: a free body falls without strain
            fem_kernels.lumped_mass(conn, N_m, wJ_m, mat, True, lay.unit_force)
        else:                       # (the consistent load is negative at quadratic corners)
            N_l, dN_l, w_l = el.tables("load")
            wJ_l, _ = fem_kernels.jacobian_weights(X, conn, dN_l, w_l)
            fem_kernels.unit_body_force(conn, N_l, wJ_l, mat, lay.unit_force)
        lay.groups.append(Group(el, gid, conn, mat, dNdX, wJ, np.zeros(gid.size), erow[gid]))
    _node_maps(lay, records, nnodes)
    return lay


def _cut_group(lay: Layout, el, gid: np.ndarray, rules: dict, X: np.ndarray) -> None:
    """A group of elements of type `el` integrated with their own points (referential points
    and volumes: bodies/fe_background.py), padded with weightless copies of their first point
    to a common count; row-sum lumped masses and unit body forces from the same points."""
    m = gid.size
    nq = max(rules[int(e)][1].size for e in gid)
    P, W = np.empty((m, nq, 3)), np.zeros((m, nq))
    for i, e in enumerate(gid.tolist()):
        p, w = rules[e]
        P[i], W[i, : w.size] = p[0], w
        P[i, : w.size] = p
    conn = np.ascontiguousarray(lay.econn[gid, : el.nnodes])
    xi, _ = fem_points.inverse_map(el, X, conn, np.repeat(np.arange(m), nq), P.reshape(-1, 3))
    N, dN = evaluate(el.fill, el.nnodes, xi, 3)
    F0 = np.einsum("pkj,pki->pij", dN, X[np.repeat(conn, nq, axis=0)])      # sum_k X_k (x) dN_k
    det = np.linalg.det(F0)
    bad = np.flatnonzero((det <= 0.0).reshape(m, nq).any(axis=1))
    if bad.size and (lay.bad is None or gid[bad[0]] < lay.bad[2]):
        e = int(gid[bad[0]])
        lay.bad = (int(lay.erow[e]), e - int(lay.estart[lay.erow[e]]), e)
    dNdX = np.einsum("pkj,pji->pki", dN, np.linalg.inv(np.where(det[:, None, None] > 0, F0, np.eye(3))))
    mat = np.ascontiguousarray(lay.emat[gid])
    share = (N.reshape(m, nq, -1) * W[:, :, None] * mat[:, 2, None, None]).sum(axis=1)      # rho int N_i
    np.add.at(lay.mass, conn, share)
    np.add.at(lay.unit_force, conn, share)
    _, dN_s, w_s = el.tables("stiffness")
    whole = fem_kernels.jacobian_weights(X, conn, dN_s, w_s)[0].sum(axis=1)
    lay.groups.append(Group(el, gid, conn, mat, np.ascontiguousarray(dNdX.reshape(m, nq, el.nnodes, 3)),
                            W, np.zeros(m), lay.erow[gid], whole / W.sum(axis=1)))


def _node_maps(lay: Layout, records: list, nnodes: int) -> None:
    """node_elem (first element holding each node, in global object order, so a node on
    the surface gets a surface element) and the node -> elements CSR."""
    rows, cols = np.nonzero(lay.econn >= 0)
    nodes = lay.econn[rows, cols]
    order = np.lexsort((rows, nodes))
    nodes, elems = nodes[order], rows[order]
    lay.adj = elems.astype(np.int64)
    lay.adj_ptr = np.zeros(nnodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(nodes, minlength=nnodes), out=lay.adj_ptr[1:])
    lay.node_elem = np.full(nnodes, -1, dtype=np.int64)
    has = np.diff(lay.adj_ptr) > 0
    lay.node_elem[has] = lay.adj[lay.adj_ptr[:-1][has]]
