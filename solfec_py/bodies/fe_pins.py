"""Pinned nodes of finite-element bodies (layer 3): single-body FIX_POINT and FIX_DIRECTION
constraints placed at mesh nodes of quasi-static and linearly implicit (DEF_LIM, TL) bodies,
and FIX_POINT at mesh nodes of explicit (DEF_EXP) bodies, are eliminated from the body's
operator instead of being solved through the Delassus operator. Reference: docs/fem.md (the
quasi-static step); the elimination is the textbook treatment of homogeneous Dirichlet
conditions (e.g. Hughes, The Finite Element Method, §1.14), applied as a projector.

Why: a quasi-static step solves A u = h (f + r) with A = M + h^2 K (Solfec-1.0's
``TL_static_inverse``). Only the lumped mass M keeps the rigid modes of an unsupported
body in A, and the tangent K of a loaded body is indefinite along rotations (geometric
stiffness), so for h of the order of a second A is nearly singular or indefinite and
W = h H A^-1 H^T of the pins carries round-off of the size of its small eigenvalues: the
constraint solvers then diverge (Gauss-Seidel) or leave the pins drifting (Newton).

With T the projector that zeroes the pinned components (I - d d^T per fixed direction d
of a node, 0 for a fixed point), the body solves
    (T A T + I - T) x = T b,     x = T x,
which is the constrained problem exactly (A restricted to the free dofs is the stiffness
of the supported body). Every other constraint or contact on the body sees the inverse
operator T (T A T + I - T)^-1 T. The reactions of the pins follow from the pinned rows of
the step equation, r_pin = A u / h - f - r, split over the constraints of each node
(their local frames) and stored as their reactions R (local U = V = 0).

DEF_LIM bodies: the same projector on A = M + (eta h/2 + h^2/4) K, with Solfec's dynamic
condition U + V = 0 as du = -2 u(t) along the fixed directions (0 for nodes at rest); the
operator no longer depends on the pins' Delassus columns, so its factorisation is kept
across steps (bodies/fe_dynamics.Operator).

Explicit bodies: a fixed node ends the step with u = -u(t) (Solfec's FIXPNT condition
U + V = 0: the node does not move over the step), its lumped inverse mass is 0 for every
other constraint, and its reaction is r_pin = m (u - u_free) / h - r. This removes the
constraint machinery from clamped explicit models (B3 cantilever, bench/fem_cantilever.py).
"""
from __future__ import annotations

import numpy as np

from solfec_py import constraints as C

ONE = 1.0 - 1e-6          # a shape value this close to 1 puts the point at that node


class Pins:
    """The eliminated constraints of one FiniteElementBlock for the current step."""

    def __init__(self):
        self.ids = np.zeros(0, dtype=np.int64)       # constraint ids (rows may move)
        self.node = np.zeros(0, dtype=np.int64)       # global node of each pinned node
        self.P = np.zeros((0, 3, 3))                  # projector of each pinned node
        self.con_node = np.zeros(0, dtype=np.int64)   # pinned-node index of each constraint
        self.dirs = np.zeros((0, 3, 3))               # constraint local frames (columns)
        self.kind = np.zeros(0, dtype=np.int8)
        self.f = np.zeros((0, 3))                     # f of the step at the pinned nodes
        self._split = None                            # reaction splitting data (reactions)
        self._rows = None                             # constraint rows of the last `rows`

    def __len__(self) -> int:
        return self.ids.size

    # ------------------------------------------------------------------ set-up
    @classmethod
    def collect(cls, block, allowed=None) -> "Pins":
        """Single-body FIXPNT / FIXDIR constraints of the block's bodies at mesh nodes.
        `allowed` (per global node) limits them in a dynamic step: 0 none, 1 FIXPNT only
        (explicit bodies, whose lumped inverse mass can only drop whole nodes), 2 both
        (implicit bodies, eliminated by the projector like quasi-static ones); a bool
        array means 1 where True."""
        pins = cls()
        cons = block.domain.constraints
        if not isinstance(cons, C.ConstraintSet) or not cons.count or not block.count:
            return pins
        name = next((k for k, b in block.domain.blocks.items() if b is block), None)
        if name not in cons.families:
            return pins
        n = cons.count
        code = cons.families.index(name)
        kind = cons.kind[:n]
        cand = (((kind == C.FIXPNT) | (kind == C.FIXDIR)) & (cons.bid[:n, 1] == 0)
                & (cons.family[:n, 0] == code))
        rows_c = np.flatnonzero(cand)
        if rows_c.size == 0:
            return pins
        lookup = {b.id: r for r, b in enumerate(block.bodies)}
        brow = np.array([lookup.get(int(b), -1) for b in cons.bid[rows_c, 0]], dtype=np.int64)
        rows_c, brow = rows_c[brow >= 0], brow[brow >= 0]
        if rows_c.size == 0:
            return pins
        H = block.gen_to_loc(brow, cons.mpnt[rows_c], cons.base[rows_c], cons.elem[rows_c, 0])
        top = H.N.argmax(axis=1)
        at_node = H.N[np.arange(top.size), top] > ONE
        rows_c, top = rows_c[at_node], top[at_node]
        if rows_c.size == 0:
            return pins
        node = H.nodes[np.flatnonzero(at_node), top]
        if allowed is not None:
            level = np.asarray(allowed).astype(np.int8)[node]
            keep = (level == 2) | ((level == 1) & (cons.kind[rows_c] == C.FIXPNT))
            rows_c, node = rows_c[keep], node[keep]
            if rows_c.size == 0:
                return pins
        uniq, con_node = np.unique(node, return_inverse=True)
        base = cons.base[rows_c]
        G = np.zeros((uniq.size, 3, 3))
        fix = cons.kind[rows_c] == C.FIXPNT
        np.add.at(G, con_node[fix], np.eye(3))
        d = base[~fix, :, 2]
        np.add.at(G, con_node[~fix], d[:, :, None] * d[:, None, :])
        lam, vec = np.linalg.eigh(G)
        free = (lam < 1e-8)[:, None, :]                      # directions nobody fixes
        pins.P = np.einsum("kij,kj,klj->kil", vec, free[:, 0, :].astype(float), vec)
        pins.ids = cons.id[rows_c].copy()
        pins.node, pins.con_node, pins.dirs = uniq, con_node, base.copy()
        pins.kind = cons.kind[rows_c].copy()
        return pins

    def rows(self, cons) -> np.ndarray:
        """Current constraint-set rows of the eliminated constraints (-1: gone); the rows of
        the last call while they still hold these constraints."""
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        last = getattr(self, "_rows", None)
        if (last is not None and last.size and last.min() >= 0 and last.max() < cons.count
                and np.array_equal(cons.id[last], self.ids)):
            return last
        self._rows = self._find_rows(cons)
        return self._rows

    def _find_rows(self, cons) -> np.ndarray:
        live = cons.id[: cons.count]
        order = np.argsort(live)
        at = np.minimum(np.searchsorted(live[order], self.ids), max(live.size - 1, 0))
        if not live.size:
            return np.full(self.ids.size, -1, dtype=np.int64)
        rows = order[at]
        return np.where(live[rows] == self.ids, rows, -1)

    def of_body(self, sl: slice):
        """(local node indices, projectors) of the pinned nodes in node range `sl`."""
        m = (self.node >= sl.start) & (self.node < sl.stop)
        return self.node[m] - sl.start, self.P[m]

    # ------------------------------------------------------------------ operators
    @staticmethod
    def projector(nn: int, local, P):
        """T (3 nn x 3 nn, CSR): identity with the 3 x 3 blocks P at the local nodes."""
        import scipy.sparse as sp

        keep = np.ones(nn, dtype=bool)
        keep[local] = False
        diag = np.repeat(keep.astype(float), 3)
        T = sp.diags(diag).tocsr()
        if local.size:
            r = (3 * local[:, None, None] + np.arange(3)[None, :, None]).repeat(3, axis=2)
            c = (3 * local[:, None, None] + np.arange(3)[None, None, :]).repeat(3, axis=1)
            T = T + sp.csr_matrix((P.ravel(), (r.ravel(), c.ravel())), shape=(3 * nn, 3 * nn))
        return T

    @staticmethod
    def project(local, P, v: np.ndarray) -> np.ndarray:
        """T v for v (3 nn,) or (3 nn, k), in place; returns v."""
        if local.size:
            w = v.reshape(-1, 3, *v.shape[1:])
            if P.any():
                w[local] = np.einsum("kij,kj...->ki...", P, w[local])
            else:
                w[local] = 0.0                  # fixed points only
        return v

    # ------------------------------------------------------------------ reactions
    def reactions(self, r_node: np.ndarray) -> np.ndarray:
        """Local reactions R (k, 3) of the constraints from the pinned-node forces
        r_node (pinned nodes, 3): the least-squares split over each node's fixed
        directions (a FIXPNT fixes its three frame directions, a FIXDIR its normal)."""
        if self._split is None:
            self._split = self._splitting()
        owner, column, snode, pos, Dinv = self._split
        coef = np.einsum("kij,kj->ki", Dinv, r_node)
        R = np.zeros((len(self), 3))
        R[owner, column] = coef[snode, pos]
        return R

    def _splitting(self):
        """Slots of the fixed directions and the per-node pseudo-inverses (computed once)."""
        k = len(self)
        fix = self.kind == C.FIXPNT
        slots = np.where(fix, 3, 1)
        # every fixed direction is one slot of its node: (slot node, direction, owner, column)
        owner = np.repeat(np.arange(k), slots)
        offs = np.arange(owner.size) - np.repeat(np.cumsum(slots) - slots, slots)
        column = np.where(fix[owner], offs, 2)
        snode = self.con_node[owner]
        direc = self.dirs[owner, :, column]
        order = np.argsort(snode, kind="stable")
        first = np.searchsorted(snode[order], snode[order])
        pos = np.empty(owner.size, dtype=np.int64)
        pos[order] = np.arange(owner.size) - first
        S = int(pos.max(initial=-1)) + 1
        D = np.zeros((self.node.size, 3, max(S, 1)))
        D[snode, :, pos] = direc
        return owner, column, snode, pos, np.linalg.pinv(D)


def projected_product(A, local, Pn, x: np.ndarray) -> np.ndarray:
    """(T A T + I - T) x for the pinned nodes `local` with projectors Pn (`Pins.project`)."""
    if not local.size:
        return A @ x
    Tx = Pins.project(local, Pn, np.array(x, dtype=float))
    return Pins.project(local, Pn, A @ Tx) + (x - Tx)
