"""Time stepping of body co-rotational (form 'BC') finite-element bodies (layer 3): the
total-Lagrangian stepper of bodies/fe_dynamics.py with, for BC bodies, the internal force
R K0 d of a constant stiffness, the critical step of the undeformed mesh, and the implicit
operator A0 = M + c K0 factorised once and applied as R A0^-1 R^T.
Reference: Solfec-1.0 fem.c (``BC_dynamic_step_begin``, ``BC_matvec``, ``BC_static_*``);
docs/corotational.md; the kinematics are solfec_py/fem/corotational.py.

TL and BC bodies share one block; the TL stepper drives the step and calls, through the
methods overridden here, the BC internal force, damping R K0 R^T u, factorisation and solve.
Because every application of A^-1 (free velocity, Delassus columns, reactions) goes through
`_solve`, the rotation reaches the local dynamics (W = h H R A0^-1 R^T H^T) and contact
without any special case. Pinned nodes of implicit BC bodies (bodies/fe_pins.py) are
eliminated from the kept factor of A0 (bodies/fe_rotated.py), so a clamped body solves what a
free one does.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from solfec_py.bodies import fe_dense, fe_dynamics
from solfec_py.bodies import fe_step_kernels as FK
from solfec_py.bodies.fe_banded import band_plan, banded
from solfec_py.bodies.fe_dynamics import Stepper
from solfec_py.bodies.fe_iterative import ConjugateGradients, rigid_modes
from solfec_py.bodies.fe_reduced import MODAL, ReducedBody
from solfec_py.bodies.fe_rotated import DenseInverse, PinnedFactor, RotatedOperator
from solfec_py.errors import SimulationError
from solfec_py.fem import corotational as corot
from solfec_py.fem import kernels as fem_kernels
from solfec_py.fem.assembly import TangentPattern

BC = 1          # FORMS code of 'BC' (bodies/finite_element.py)


class CorotationalStepper(Stepper):
    """Stepper of a block holding TL and BC bodies (module docstring)."""

    #: add the variation of R to the BC force of DEF_EXP bodies (exact gradient of d.K0 d / 2;
    #: keeps angular momentum to round-off); False gives Solfec-1.0's R K0 d, which implicit
    #: (DEF_LIM, quasi-static) bodies always use
    consistent = True

    def invalidate(self) -> None:
        """The bodies of the block changed. The factorised A0 = M + c K0 are a body's own
        (its mesh, materials and density) and stay, keyed by body id: a block on several
        ranks gains and loses copies of bodies every few steps."""
        super().invalidate()
        if not hasattr(self, "A0"):
            self.A0: dict = {}          # (body id, coef, pins) -> PinnedFactor of M + coef K0
        self.co = None                  # BC data of the current layout (_setup)
        self.R = self.S = None          # rotations / stretches of the BC bodies at the last force
        self.rotated: set = set()       # rows of `factors` that are RotatedOperators
        self._dense_stacks = None       # the BC inverses dense_groups stacked, kept across steps
        self._pinned_setup: dict = {}   # row -> the pins of a BC body as its last step found them
        self.reduced_coef: dict = {}    # BC-MODAL / BC-RO rows of `factors` -> c of A_r
        self._bc_plan = None            # _plan_bc of the last step, with what it depends on
        self.bc_energy = None

    def bc_rows(self) -> np.ndarray:
        """Co-rotated rows: BC, BC-MODAL and BC-RO (bodies/fe_reduced.py)."""
        blk = self.block
        return blk.form[: blk.count] >= BC

    # ------------------------------------------------------------------ setup
    def _setup(self):
        """Nodes, nodal gradient integrals, volumes and K0 of the BC bodies (once per layout)."""
        if self.co is not None:
            return self.co
        blk = self.block
        lay = blk.prepared()
        rows = np.flatnonzero(self.bc_rows())
        counts = blk.nnodes[rows]
        nodes = np.concatenate([np.arange(blk.nstart[r], blk.nstart[r] + blk.nnodes[r]) for r in rows])
        vol = np.zeros(blk.count)
        for g in lay.groups:
            vol += np.bincount(g.row, weights=g.wJ.sum(axis=1), minlength=blk.count)
        pos = np.full(blk.count, -1, dtype=np.int64)
        pos[rows] = np.arange(rows.size)
        Kfull = stiffness_at_rest(blk)
        if nodes.size == blk.N:
            K0 = Kfull.copy()
        else:
            dofs = (3 * nodes[:, None] + np.arange(3)).reshape(-1)
            K0 = Kfull[dofs][:, dofs]
        self.co = SimpleNamespace(
            rows=rows, nodes=nodes.astype(np.int64), body=np.repeat(np.arange(rows.size), counts).astype(np.int64),
            off=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), pos=pos, vol=vol[rows],
            G=corot.nodal_gradients(lay.groups, blk.N), K0=K0.tobsr(blocksize=(3, 3)), K0csr=K0.tocsr(),
            K0up=FK.upper_blocks(K0), d=np.empty((nodes.size, 3)), y=np.empty((nodes.size, 3)), reduced={})
        for row in rows[blk.form[rows] >= MODAL].tolist():
            sl = blk.nodes_of(row)
            p = pos[row]
            d = slice(3 * self.co.off[p], 3 * self.co.off[p + 1])
            self.co.reduced[row] = ReducedBody(int(blk.form[row]), blk.bodies[row]._base[1], self.co.K0csr[d, d],
                                               lay.mass[sl])
        return self.co

    def _rotations(self, q):
        """(R, S) of every BC body at displacements q; an inverted mean deformation stops."""
        co, blk = self._setup(), self.block
        nb = co.rows.size
        Fbar = np.empty((nb, 3, 3))
        corot.average_gradients(blk.X, q, co.G, co.nodes, co.body, nb, co.vol, Fbar)
        bad = np.flatnonzero(~(np.linalg.det(Fbar) > 0))
        if bad.size:
            body = blk.bodies[int(co.rows[bad[0]])]
            raise SimulationError(f"co-rotational finite-element body {body.id} turned inside out (mean"
                                  f" deformation gradient det <= 0) at time {blk.domain.time:g}")
        return corot.polar_rotations(Fbar)

    def rotations(self) -> np.ndarray:
        """R of the BC bodies used by the step (computed from q when none is cached)."""
        if self.R is None:
            self.R, self.S = self._rotations(self.block.q)
        return self.R

    # ------------------------------------------------------------------ forces
    def internal_forces(self, t: float, out: np.ndarray) -> None:
        bc = self.bc_rows()
        if not bc.any():
            return super().internal_forces(t, out)
        if not bc.all():
            super().internal_forces(t, out)
        blk = self.block
        co = self._setup()
        self.R, self.S = R, S = self._rotations(blk.q)
        d = co.d
        corot.corotated(blk.X, blk.q, co.nodes, co.body, R, d)
        full = len(co.reduced) < co.rows.size          # some BC body needs K0 d
        y = co.y
        if full:
            FK.symmetric_matvec(*co.K0up, d, y)
        qr = {}
        for row, rb in co.reduced.items():          # f = R K0 E q (bodies/fe_reduced.py)
            seg = slice(co.off[co.pos[row]], co.off[co.pos[row] + 1])
            qr[row] = rb.coordinates(d[seg].reshape(-1))
            y[seg] = (rb.KE @ qr[row]).reshape(-1, 3)
        energy, torque = np.zeros(co.rows.size), np.zeros((co.rows.size, 3))
        centre = np.ascontiguousarray(blk.center[co.rows])
        corot.rotate_back(blk.X, blk.q, co.nodes, co.body, R, centre, d, y, out, energy, torque)
        explicit = ~self.implicit_rows()[co.rows]
        if self.consistent and explicit.any():
            # explicit bodies only: A0 = M + c K0 of an implicit body does not hold the
            # stiffness of this term, which then makes the implicit step unstable (BM22)
            c = corot.rotation_variation(R, S, torque, co.vol) * explicit[:, None]
            corot.add_rotated_variation(co.G, co.nodes, co.body, R, c, out)
        for row, q in qr.items():
            energy[co.pos[row]] = 0.5 * q @ (co.reduced[row].Kr @ q)
        self.bc_energy = energy

    def internal_energy(self) -> None:
        keep = (self.R, self.S)         # the step's rotation stays for the step's solves
        super().internal_energy()
        self.R, self.S = keep

    def _store_internal(self) -> None:
        bc = self.bc_rows()
        if not bc.all():
            super()._store_internal()
        if bc.any():
            blk = self.block
            blk.energy[self.co.rows, 4] = self.bc_energy
            blk.internal_stale = False

    def _row_critical(self, rows: np.ndarray) -> np.ndarray:
        """BC bodies: 2 / sqrt(lambda_max(M^-1 K0)) of the whole body (K0 is constant;
        Solfec takes the TL estimate of one element of the undeformed mesh, which can exceed
        the stability limit: its nodal masses are those of the whole mesh); the others: the
        element estimate."""
        bc = self.bc_rows()[rows]
        out = np.empty(rows.size)
        if (~bc).any():
            out[~bc] = super()._row_critical(rows[~bc])
        if bc.any():
            blk = self.block
            co, mass = self._setup(), blk.prepared().mass
            for i in np.flatnonzero(bc).tolist():
                row = int(rows[i])
                p = int(np.searchsorted(co.rows, row))
                d = slice(3 * co.off[p], 3 * co.off[p + 1])
                scale = 1.0 / np.sqrt(np.repeat(mass[blk.nodes_of(row)], 3))
                out[i] = 2.0 / np.sqrt(largest_eigenvalue(co.K0csr[d, d], scale))
        return out

    def _row_source(self, row: int) -> str:
        if self.bc_rows()[row]:
            return (f"finite-element body {self.block.bodies[row].id} (its whole mesh: the highest"
                    " frequency of its stiffness K0)")
        return super()._row_source(row)

    # ------------------------------------------------------------------ reduced state
    def reduced_state(self, row: int):
        """The (conf, velo) buffers of a BC-MODAL / BC-RO body, refreshed from the mesh state."""
        blk, co = self.block, self._setup()
        rb = co.reduced[row]
        sl = blk.nodes_of(row)
        R = self._rotations(blk.q)[0][co.pos[row]]
        rb.refresh(R, blk.X[sl], blk.q[sl], blk.u[sl])
        rb.seen = (blk.q[sl].copy(), blk.u[sl].copy())
        return rb

    def project_reduced(self) -> None:
        """Mesh state of the reduced bodies back into R (X + E q), R E u (Solfec re-projects
        at the end of every step, so the mesh state never leaves the base)."""
        co = self._setup()
        if not co.reduced:
            return
        blk = self.block
        R = self._rotations(blk.q)[0]
        for row, rb in co.reduced.items():
            sl = blk.nodes_of(row)
            rb.refresh(R[co.pos[row]], blk.X[sl], blk.q[sl], blk.u[sl])
            blk.q[sl], blk.u[sl] = rb.lift(blk.X[sl])
        blk.energy[: blk.count, 0] = blk.kinetic_energy()

    def forget_operators(self) -> None:
        """Materials changed: the factorised operators of every body go."""
        self.A0 = {}

    def dynamic_init(self) -> None:
        super().dynamic_init()
        if self.bc_rows().any():
            self.project_reduced()

    def step_end(self, t: float, h: float) -> None:
        super().step_end(t, h)
        if self.co is not None and self.co.reduced:
            self.project_reduced()

    def qs_step_end(self, t: float, h: float) -> None:
        super().qs_step_end(t, h)
        if self.co is not None and self.co.reduced:
            self.project_reduced()

    def reduced_changed(self, rows) -> None:
        """conf / velo of reduced bodies were written (through the buffers): lift them to the
        mesh, unless the mesh state itself changed since the buffers were read."""
        if self.co is None:
            return
        blk = self.block
        for row in np.atleast_1d(rows).tolist():
            rb = self.co.reduced.get(int(row))
            seen = getattr(rb, "seen", None)
            if seen is None:
                continue
            sl = blk.nodes_of(int(row))
            if np.array_equal(seen[0], blk.q[sl]) and np.array_equal(seen[1], blk.u[sl]):
                blk.q[sl], blk.u[sl] = rb.lift(blk.X[sl])
            rb.seen = None

    # ------------------------------------------------------------------ operators
    def pin_levels(self, implicit: np.ndarray) -> np.ndarray:
        """Implicit BC bodies eliminate their pins like TL ones (bodies/fe_rotated.py); the
        reduced bodies (BC-MODAL, BC-RO) keep theirs in the solvers in a dynamic step."""
        levels = super().pin_levels(implicit)
        blk = self.block
        levels[(blk.form[: blk.count] > BC) & implicit] = 0
        return levels

    def _tangent(self, c=None):
        if self.bc_rows().any():
            self.fused = None
            return MixedTangent(self)
        return super()._tangent(c)

    def rotated_stiffness(self, v: np.ndarray) -> np.ndarray:
        """R K0 R^T v on the BC nodes (v (m, 3) in the order of the BC nodes)."""
        co = self.co
        R = self.rotations()
        a = np.empty((v.size, 1))
        corot.rotate_nodal(R, co.body, np.ascontiguousarray(v).reshape(-1, 1), a, True)
        b = (co.K0 @ a[:, 0]).reshape(-1, 1)
        corot.rotate_nodal(R, co.body, b, a, False)
        return a[:, 0].reshape(-1, 3)

    def _factorise(self, Kmat, rows, coef) -> None:
        rows, coef = np.asarray(rows, dtype=np.int64), np.asarray(coef, dtype=float)
        key = (rows.tobytes(), coef.tobytes(), len(self.pins))
        plan = self._bc_plan
        if plan is None or plan[0] != key or plan[1] is not self.pins or self.co is None or plan[2] is not self.co:
            made = self._plan_bc(rows, coef)
            plan = self._bc_plan = (key, self.pins, self.co) + made
        other_rows, other_coef, reduced, rotated, rotated_rows = plan[3:]
        super()._factorise(Kmat, other_rows, other_coef)
        self.reduced_coef = {}
        self._dense = None                  # dense_set of this step, made at its first use
        for row, c, sl in reduced:
            self.factors[row] = (None, sl, np.zeros(0, np.int64), None, None)
            self.reduced_coef[row] = c
        R = self.rotations() if rotated else None
        for row, p, entry, sl, local, Pn in rotated:
            self.factors[row] = RotatedOperator(entry[0], entry[1], R[p], sl, local, Pn)
        self.rotated = rotated_rows

    def _plan_bc(self, rows: np.ndarray, coef: np.ndarray) -> tuple:
        """What `_factorise` does for the rows and coefficients of a step, kept while they,
        the pins and the layout stay (all but the rotations of the step): (the rows and
        coefficients left to Stepper._factorise, [(row, c, nodes)] of the reduced bodies,
        [(row, its position among the BC bodies, its (PinnedFactor, A0), nodes, pinned
        nodes, their projectors)] of the BC bodies, the set of their rows)."""
        blk, bc = self.block, self.bc_rows()
        mine, other = [], []
        pinned_rows = set(blk.node_row[self.pins.node].tolist()) if len(self.pins) else set()
        reduced_rows = self._setup().reduced if bc.any() else {}
        for row, c in zip(rows.tolist(), coef.tolist()):
            pinned = row in pinned_rows
            reduced = bc[row] and row in reduced_rows
            (mine if bc[row] and not (reduced and pinned) else other).append((row, c))
        reduced, rotated = [], []
        for row, c in mine:
            sl = blk.nodes_of(row)
            if row in self.co.reduced:
                reduced.append((row, c, sl))
                continue
            setup = self._pinned_setup.get(row)
            if setup is None or setup[0] is not self.pins or setup[1] != (c, sl.start, sl.stop):
                local, Pn = self.pins.of_body(sl)
                whole = local[np.einsum("kii->k", Pn) < 0.5]        # fixed in every direction
                part = local[np.einsum("kii->k", Pn) >= 0.5]
                key = (blk.bodies[row].id, c, whole.tobytes(), part.tobytes(),
                       Pn[np.isin(local, part)].tobytes())
                setup = self._pinned_setup[row] = (self.pins, (c, sl.start, sl.stop), local, Pn, whole, part, key)
            local, Pn, whole, part, key = setup[2:]
            entry = self.A0.get(key)
            if entry is None:
                if len(self.A0) > 4 * max(1, len(self.co.rows)):
                    self.A0.clear()
                A0 = self._operator_A0(row, c)
                entry = self.A0[key] = (PinnedFactor(A0, whole, part, lambda op: self._factor(row, op, whole)), A0)
            rotated.append((row, int(self.co.pos[row]), entry, sl, local, Pn))
        return (np.array([r for r, _ in other], np.int64), np.array([c for _, c in other]), reduced, rotated,
                {r for r, *_ in rotated})

    def _operator_A0(self, row: int, c: float):
        """A0 = M + c K0 of BC body `row` (CSR)."""
        import scipy.sparse as sp

        blk, co = self.block, self._setup()
        p = co.pos[row]
        d = slice(3 * co.off[p], 3 * co.off[p + 1])
        return (co.K0csr[d, d] * c + sp.diags(np.repeat(blk.layout.mass[blk.nodes_of(row)], 3))).tocsr()

    def _factor(self, row: int, op, whole: np.ndarray):
        """A solver of the constant operator op (its wholly fixed nodes eliminated): SuperLU, or
        a band Cholesky factor where the band holds no more numbers than SuperLU's factors
        (bodies/fe_banded.py: a slender body, solved about three times faster), or conjugate
        gradients for a body of ITERATIVE_DOFS unknowns or more (bodies/fe_iterative.py: no LU
        of that size fits in memory), its preconditioner kept with op."""
        blk = self.block
        if op.shape[0] < fe_dynamics.ITERATIVE_DOFS:
            order, kd = band_plan(op, blk.X[blk.nodes_of(row)])
            lu = self._splu(row, op)
            if op.shape[0] * (kd + 1) > lu.nnz:         # (lu.L, lu.U would be copies)
                return lu
            del lu                                   # (the peak memory is the larger factor's)
            return banded(op, order, kd) or self._splu(row, op)
        op = op.tocsr()

        def modes():
            B = rigid_modes(blk.X[blk.nodes_of(row)]).reshape(-1, 3, 6)
            B[whole] = 0.0
            return B.reshape(-1, 6)

        def failed(it: int, res: float):
            raise SimulationError(
                f"conjugate gradients did not converge on the implicit operator of co-rotational body"
                f" {blk.bodies[row].id} (residual {res:.1e} after {it} iterations)")

        return ConjugateGradients(lambda x: op @ x, op.diagonal(), lambda: op, modes, failed)

    def _splu(self, row: int, op):
        from scipy.sparse.linalg import splu

        try:
            return splu(op.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.01,
                        options={"SymmetricMode": True})
        except RuntimeError:
            raise SimulationError(f"the implicit operator of co-rotational body {self.block.bodies[row].id} is"
                                  " singular (no mass along some motion: give it a density)") from None

    def dense_groups(self) -> list:
        """Stepper.dense_groups, with the BC bodies of this step without pins whose constant
        operator is a dense inverse (fe_rotated.DenseInverse) of at most DENSE_BATCH
        unknowns. Their stacks of inverses are kept while the bodies' inverses are the same
        objects (A0 and its factor stay with the body); the rotations are the step's."""
        groups = super().dense_groups()
        rows, inverses = [], []
        for row in sorted(self.rotated):
            oper = self.factors[row]
            lu = oper.factor.lu
            if (isinstance(lu, DenseInverse) and not oper.local.size and not oper.factor.part.size
                    and lu.inverse.shape[0] <= fe_dense.DENSE_BATCH):
                rows.append(row)
                inverses.append(lu.inverse)
        if not rows:
            return groups
        kept = self._dense_stacks
        if kept is None or kept[0] != rows or any(a is not b for a, b in zip(kept[1], inverses)):
            sizes = np.array([a.shape[0] for a in inverses])
            stacks = []
            for d in np.unique(sizes).tolist():
                pick = np.flatnonzero(sizes == d)
                stacks.append((np.asarray(rows)[pick],
                               np.stack([inverses[g] for g in pick]).reshape(pick.size, d // 3, 3, d // 3, 3)))
            kept = self._dense_stacks = (rows, inverses, stacks)
        rotations = self.rotations()                # (the RotatedOperators' R of this step)
        for members, stack in kept[2]:
            groups.append(fe_dense.DenseGroup(members, stack, rotations[self.co.pos[members]]))
        return groups

    def _solve(self, row: int, rhs: np.ndarray) -> np.ndarray:
        if (row in self.rotated or row in self.reduced_coef) and not rhs.any():
            return np.zeros(rhs.shape)          # no reactions on the body: skip the solve
        if row in self.reduced_coef:
            R = self.rotations()[self.co.pos[row]]
            return self.co.reduced[row].solve(R, self.reduced_coef[row], np.asarray(rhs, dtype=float))
        if row not in self.rotated:
            return super()._solve(row, rhs)
        return self.factors[row].solve(rhs)


def corotated_displacements(blk, row: int) -> np.ndarray:
    """R^T x - X (n, 3) of body `row` of a block (any form), R the polar rotation of its mean
    deformation gradient (COROTATED_DISPLACEMENTS snapshots)."""
    lay = blk.prepared()
    st = blk.solver
    if getattr(st, "_gradients", (None,))[0] is not lay:
        vol = np.zeros(blk.count)
        for g in lay.groups:
            vol += np.bincount(g.row, weights=g.wJ.sum(axis=1), minlength=blk.count)
        st._gradients = (lay, corot.nodal_gradients(lay.groups, blk.N), vol)
    _, G, vol = st._gradients
    sl = blk.nodes_of(row)
    x = blk.X[sl] + blk.q[sl]
    R = corot.polar_rotations((x.T @ G[sl] / vol[row])[None])[0][0]
    return x @ R - blk.X[sl]


def largest_eigenvalue(K, s) -> float:
    """lambda_max of diag(s) K diag(s) (Lanczos; dense for small matrices)."""
    import scipy.sparse as sp

    A = sp.diags(s) @ K @ sp.diags(s)
    if A.shape[0] <= 600:
        return float(np.linalg.eigvalsh(A.toarray())[-1])
    from scipy.sparse.linalg import eigsh

    return float(eigsh(A.tocsr(), k=1, which="LA", tol=1e-6, return_eigenvectors=False)[0])


def stiffness_at_rest(blk):
    """K0 = K(q = 0) of every FE body of a block (3N x 3N CSR, block diagonal by body)."""
    return element_stiffness(blk, np.zeros((blk.N, 3)))


def element_stiffness(blk, q: np.ndarray):
    """The tangent stiffness of the elements at nodal displacements q (N, 3) of every FE body
    of a block (3N x 3N CSR, block diagonal by body): total-Lagrangian, whatever the body's
    form (Solfec-1.0 fem.c tangent_stiffness)."""
    lay = blk.prepared()
    pattern = TangentPattern(blk.N, [g.conn for g in lay.groups])
    data = pattern.zeros()
    q = np.ascontiguousarray(q[: blk.N], dtype=float)
    for g, slot in zip(lay.groups, pattern.slots):
        fem_kernels.add_stiffness_csr(q, g.conn, g.dNdX, g.wJ, g.mat, slot, pattern.nbptr, 1.0, data)
    return pattern.matrix(data)


def body_matrices(blk, row: int):
    """(K0 (3n x 3n CSR), lumped nodal masses (n,)) of body `row` of a block (modal analysis)."""
    sl = blk.nodes_of(row)
    d = slice(3 * sl.start, 3 * sl.stop)
    return stiffness_at_rest(blk)[d, d].tocsr(), blk.prepared().mass[sl].copy()


class MixedTangent:
    """The stiffness operator of a block with BC bodies, built only as far as it is used:
    products (damping) and one body's diagonal block (implicit factorisations with pins).
    TL bodies: K(q); BC bodies: R K0 R^T."""

    def __init__(self, stepper: CorotationalStepper):
        self.st = stepper
        self._tl = None

    def tl(self):
        if self._tl is None:
            self._tl = Stepper._tangent(self.st)
        return self._tl

    def __matmul__(self, v):
        st = self.st
        co = st._setup()
        v = np.asarray(v, dtype=float).reshape(-1, 3)
        out = np.zeros_like(v) if st.bc_rows().all() else (self.tl() @ v.reshape(-1)).reshape(-1, 3)
        out[co.nodes] = st.rotated_stiffness(v[co.nodes])
        return out.reshape(-1)

    def __getitem__(self, key):
        import scipy.sparse as sp

        st = self.st
        blk = st.block
        d = key[0]
        row = int(blk.node_row[d.start // 3])
        if not st.bc_rows()[row]:
            return self.tl()[key]
        co = st._setup()
        p = co.pos[row]
        dof = slice(3 * co.off[p], 3 * co.off[p + 1])
        Rb = sp.kron(sp.identity(co.off[p + 1] - co.off[p]), st.rotations()[p], format="csr")
        return (Rb @ co.K0csr[dof, dof] @ Rb.T).tocsr()
