"""Time stepping of finite-element bodies (layer 3): total-Lagrangian DEF_EXP (explicit,
lumped mass), DEF_LIM (linearly implicit) and quasi-static steps of every FE body of a
block at once (the critical step: bodies/fe_critical.py), and the inverse operators the
local dynamics needs.
Reference: Solfec-1.0 fem.c (``TL_dynamic_explicit_*``, ``TL_dynamic_implicit_*``,
``TL_static_*``, ``FEM_Dynamic_Critical_Step``); Zhang & Skeel (1997) for the linearly
implicit midpoint rule; docs/fem.md.

With h the step, M the lumped mass, f = f_ext(t + h/2) - f_int(q^{t+h/2}) - eta K u^t:
  DEF_EXP: q += h/2 u; u = u^t + h M^-1 f;          after the solve u += h M^-1 r, q += h/2 u
  DEF_LIM: the same with A = M + (eta h/2 + h^2/4) K(q^{t+h/2}) in place of M
  quasi-static: A = M + h^2 K(q^t), u = h A^-1 (f_ext(t+h) - f_int(q^t)); u += h A^-1 r,
  q += h u (one regularised Newton step per step; loads ramp with their time series).
Internal forces of all elements are one kernel call per element type; the tangent is
refilled into one cached CSR pattern (as M + c K itself where the block is one body) and
factorised body by body (scipy's SuperLU; conjugate gradients for the largest bodies),
reused within the step for the free velocity, the Delassus blocks and the reactions. Small
bodies without pins (DENSE_BATCH unknowns at most, the cubes of an array) are inverted
densely instead, all bodies of one size at once, and their solves and Delassus blocks are
made for all of them at once (bodies/fe_dense.py), with no Python loop over the bodies.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import fe_points
from solfec_py.bodies import fe_step_kernels as FK
from solfec_py.bodies.fe_critical import CriticalStep
from solfec_py.bodies.fe_dense import (DENSE_BATCH, DenseGroup, DenseOperator, DenseSet, block_entries,
                                       invert_blocks)
from solfec_py.bodies.fe_direct import Operator
from solfec_py.bodies.fe_iterative import ITERATIVE_DOFS, IterativeOperator
from solfec_py.bodies.fe_pins import Pins
from solfec_py.errors import SimulationError
from solfec_py.fem import kernels as fem_kernels
from solfec_py.fem.assembly import TangentPattern


class Stepper(CriticalStep):
    """Time stepping state of one FiniteElementBlock (see the module docstring)."""

    def __init__(self, block):
        self.block = block
        self.invalidate()

    def invalidate(self) -> None:
        self.pattern = None
        self.Kmat = None               # the tangent of the step (over `data`)
        self.fused = None              # c where Kmat holds M + c K instead (_tangent)
        self.data = None
        self.operator_data = None      # M + c K over the pattern (the whole-block operator's data)
        self.operator_diagonal = None  # (that operator, its diagonal)
        self.factors: dict = {}        # row -> Operator of this step
        self.kept: dict = {}           # row -> (splu factor, budget, key), ('amg', row) -> (key, AMG
                                       # hierarchy): reused by later steps
        self.pins = Pins()             # pinned nodes eliminated (bodies/fe_pins.py)
        self._pins_key = None          # the constraint set they were collected from
        self.h_crit = None             # min of block.hcrit over the explicit rows (critical_step)
        self.h_crit_row = None         # the row that set it
        self.fint = None
        self.factorisations = 0         # SuperLU factorisations made (bench figure)
        self._tl_dense: list = []       # DenseGroups of the step's small bodies (_factorise)
        self._dense = None              # (dense_set of the step,) once made
        self._dense_plan = None         # (pattern, {rows: where the bodies' entries lie in it})

    def forget_operators(self) -> None:
        """Hook: materials changed; operators kept across `invalidate` go."""

    # ------------------------------------------------------------------ helpers
    def _collect_pins(self, levels=None) -> Pins:
        """The pins of this step (`levels` per body row in a dynamic step, pin_levels; None
        quasi-statically: every pin), collected again only when constraints were added or
        removed, the levels changed (or the bodies changed: invalidate)."""
        blk = self.block
        cons = blk.domain.constraints
        tag = None if levels is None else levels.tobytes()
        key = (id(cons), len(cons), getattr(cons, "_serial", None), id(blk.layout), tag)
        if key != self._pins_key:
            allowed = None if levels is None else levels[blk.node_row[: blk.N]]
            self.pins = Pins.collect(blk, allowed)
            self._pins_key = key
        return self.pins

    def pin_levels(self, implicit: np.ndarray) -> np.ndarray:
        """Per body row, which pins a dynamic step eliminates (Pins.collect): FIXPNT of
        explicit bodies (1), FIXPNT and FIXDIR of implicit ones (2)."""
        return np.where(implicit, 2, 1).astype(np.int8)

    def implicit_rows(self) -> np.ndarray:
        blk = self.block
        n = blk.count
        if not blk.domain.dynamic:
            return np.ones(n, dtype=bool)
        return blk.scheme[:n] == 1

    def _scratch(self) -> np.ndarray:
        N = self.block.N
        if self.fint is None or self.fint.shape[0] < N:
            self.fint = np.zeros((max(N, 1), 3))
        return self.fint[:N]

    def internal_forces(self, t: float, out: np.ndarray) -> None:
        """out (N, 3) = f_int(q); element energies into the groups; an inverted element
        stops the run naming body, element and time."""
        blk = self.block
        lay = blk.prepared()
        out[:] = 0.0
        for g in lay.groups:
            bad = fem_kernels.internal_force(blk.q, g.conn, g.dNdX, g.wJ, g.mat, out, g.energy)
            if bad >= 0:
                e = int(g.gid[bad])
                row = int(lay.erow[e])
                body = blk.bodies[row]
                mesh_e = int(blk.records[row].order[e - lay.estart[row]])
                label = f" ({body.label!r})" if body.label else ""
                hint = ""
                eta = float(blk.damping[row])
                if eta > 0.0 and blk.domain.dynamic and not self.implicit_rows()[row]:
                    hint = (f" (its damping {eta:g} lowers the stable step of the explicit scheme"
                            f" {body.scheme}: about h < 2 / omega_max (sqrt(1 + xi^2) - xi), xi = damping"
                            " omega_max / 2)")
                raise SimulationError(
                    f"element {mesh_e} of finite-element body {body.id}{label} inverted (det F <= 0) at time"
                    f" {t:g}; reduce the time step{hint} or check loads and constraints")

    def internal_energy(self) -> None:
        """INTERNAL energy slot of every body at the current configuration."""
        blk = self.block
        self.internal_forces(blk.domain.time, self._scratch())
        self._store_internal()

    def _store_internal(self) -> None:
        blk = self.block
        lay = blk.layout
        total = np.zeros(blk.count)
        for g in lay.groups:
            total += np.bincount(g.row, weights=g.energy, minlength=blk.count)
        blk.energy[: blk.count, 4] = total
        blk.internal_stale = False

    def external_forces(self, t: float, h: float) -> np.ndarray:
        """f_ext(t) (N, 3) into the block's fext array: gravity, point loads, pressure."""
        blk = self.block
        N = blk.N
        f = blk.fext[:N]
        f[:] = 0.0
        g = blk.domain.gravity_at(t)
        if np.any(g):
            f += blk.layout.unit_force[:, None] * g
        blk.loads.evaluate(t, h, f)
        return f

    def _tangent(self, c=None):
        """K(q) (3N x 3N CSR) refilled into the cached pattern; with a coefficient c (a block
        of one implicit body, whose tangent serves only its operator): M + c K itself, filled
        in the same pass (`fused` = c; a 10^5-element body saves a pass over 2 10^8 bytes)."""
        blk = self.block
        lay = blk.prepared()
        if self.pattern is None:
            self.pattern = TangentPattern(blk.N, [g.conn for g in lay.groups])
            self.data = self.pattern.zeros()
        data = self.data
        data[:] = 0.0
        fuse = c is not None and self.pattern.full_diagonal
        scale = float(c) if fuse else 1.0
        for g, slot in zip(lay.groups, self.pattern.slots):
            fem_kernels.add_stiffness_csr(blk.q, g.conn, g.dNdX, g.wJ, g.mat, slot, self.pattern.nbptr, scale, data)
        if fuse:
            data[self.pattern.diagonal] += np.repeat(lay.mass, 3)
        self.fused = scale if fuse else None
        self.Kmat = self.pattern.matrix(data)
        return self.Kmat

    def _stiffness_product(self, Kmat, v: np.ndarray) -> np.ndarray:
        """K v (3N,) with the matrix `_tangent` returned (K, or M + c K when fused)."""
        if self.fused is None or Kmat is not self.Kmat:
            return Kmat @ v
        return (Kmat @ v - np.repeat(self.block.layout.mass, 3) * v) / self.fused

    def _fusable(self, rows: np.ndarray) -> bool:
        """Whether this step's tangent may be filled as the operator of its one body."""
        return self.block.count == 1 and rows.size == 1

    def _factorise(self, Kmat, rows, coef) -> None:
        """A_b = M_b + coef_b K_b for the listed rows. A large body's factorisation of an
        earlier step with the same coefficient and pins is reused (bodies/fe_direct.py:
        refinement against the new A, a fresh factorisation when it has drifted)."""
        blk = self.block
        self.factors = {}
        self._tl_dense, self._dense = [], None
        rows, coef = self._factorise_dense(Kmat, np.asarray(rows, dtype=np.int64), np.asarray(coef, dtype=float))
        for row, c in zip(rows.tolist(), coef.tolist()):
            sl = blk.nodes_of(row)
            A = self._body_operator(Kmat, sl, c)
            local, Pn = self.pins.of_body(sl)
            key = (c, sl.start, sl.stop, local.tobytes(), Pn.tobytes())
            kept = self.kept.get(row)
            kept = kept[:2] if kept is not None and kept[2] == key else None
            made = self.operator_diagonal               # (A, its diagonal) of the whole-block path
            diagonal = made[1] if made is not None and made[0] is A else None
            if A.shape[0] >= ITERATIVE_DOFS:       # no LU of this size fits (bodies/fe_iterative.py)
                self.factors[row] = IterativeOperator(self, row, sl, local, Pn, A, key, diagonal)
                continue
            self.factors[row] = Operator(self, row, sl, local, Pn, A, key, kept, diagonal)

    def _factorise_dense(self, Kmat, rows: np.ndarray, coef: np.ndarray):
        """A_b = M_b + coef_b K_b of the small bodies among `rows` without pins (DENSE_BATCH
        unknowns at most) inverted densely, all bodies of one size at once (bodies/fe_dense.py),
        as DenseGroups; returns the other rows and their coefficients."""
        blk = self.block
        if self.fused is not None or Kmat is not self.Kmat or not rows.size:
            return rows, coef
        dofs = 3 * blk.nnodes[rows]
        pinned = np.zeros(blk.count, dtype=bool)
        if len(self.pins):
            pinned[blk.node_row[self.pins.node]] = True
        small = (dofs <= DENSE_BATCH) & ~pinned[rows]
        if not small.any():
            return rows, coef
        if self._dense_plan is None or self._dense_plan[0] is not self.pattern:
            self._dense_plan = (self.pattern, {})        # where the bodies' entries lie in the pattern
        for d in np.unique(dofs[small]).tolist():
            pick = np.flatnonzero(small & (dofs == d))
            group = rows[pick]
            key = group.tobytes()
            entries = self._dense_plan[1].get(key)
            if entries is None:
                entries = self._dense_plan[1][key] = block_entries(Kmat, blk.nstart[group], d)
            inverse = invert_blocks(Kmat, entries, np.repeat(blk.layout.mass, 3), blk.nstart[group], coef[pick], d)
            self._tl_dense.append(DenseGroup(group, inverse.reshape(group.size, d // 3, 3, d // 3, 3)))
            for i, row in enumerate(group.tolist()):
                self.factors[row] = DenseOperator(inverse[i], blk.nodes_of(row))
        return rows[~small], coef[~small]

    def _body_operator(self, Kmat, sl: slice, c: float):
        """M + c K of the bodies' node range `sl` (CSR): the refilled tangent's data scaled,
        with the lumped masses added at its diagonal, when the body is the whole block (into an
        array the next call overwrites: a step's operators are made anew every step)."""
        import scipy.sparse as sp

        blk = self.block
        pattern = self.pattern
        if self.fused is not None and Kmat is self.Kmat and self.fused == c and sl.start == 0 and sl.stop == blk.N:
            self.operator_diagonal = (Kmat, self.data[pattern.diagonal])
            return Kmat                         # filled as M + c K by _tangent
        mass = np.repeat(blk.layout.mass[sl], 3)
        if (pattern is not None and Kmat is getattr(self, "Kmat", None) and sl.start == 0 and sl.stop == blk.N
                and pattern.full_diagonal):
            data = self.operator_data       # reused: a fresh array of this size costs its page
            if data is None or data.shape != self.data.shape:     # faults every step
                data = self.operator_data = np.empty_like(self.data)
            np.multiply(self.data, c, out=data)
            data[pattern.diagonal] += mass
            A = sp.csr_matrix((data, pattern.indices, pattern.indptr), shape=Kmat.shape)
            self.operator_diagonal = (A, data[pattern.diagonal])
            return A
        d = slice(3 * sl.start, 3 * sl.stop)
        return (Kmat[d, d] * c + sp.diags(mass)).tocsr()

    def _solve(self, row: int, rhs: np.ndarray) -> np.ndarray:
        oper = self.factors[row]
        if not rhs.any():
            return np.zeros(rhs.shape)          # no reactions on the body: skip the solve
        if not oper.local.size:
            return oper.solve(rhs)
        rhs = Pins.project(oper.local, oper.Pn, np.array(rhs, dtype=float))
        return Pins.project(oper.local, oper.Pn, oper.solve(rhs))

    # ------------------------------------------------------------------ dynamic steps
    def dynamic_init(self) -> None:
        blk = self.block
        lay = blk.prepared()
        if lay.bad is not None:
            row, obj, _ = lay.bad
            raise SimulationError(f"element {int(blk.records[row].order[obj])} of finite-element body"
                                  f" {blk.bodies[row].id} has a non-positive Jacobian")
        zero = ~(lay.mass > 0) & blk.domain.dynamic
        if zero.any():
            row = int(blk.node_row[np.flatnonzero(zero)[0]])
            raise SimulationError(f"finite-element body {blk.bodies[row].id} has nodes without mass (density 0);"
                                  " a dynamic analysis needs a positive density")
        blk.energy[: blk.count, 0] = blk.kinetic_energy()
        blk.internal_stale = True
        blk.hcrit[: blk.count] = 0.0     # evaluated again in this RUN's configuration
        self.h_crit = None

    def step_begin(self, t: float, h: float) -> None:
        blk = self.block
        lay = blk.prepared()
        N = blk.N
        q, u, u0 = blk.q[:N], blk.u[:N], blk.u0[:N]
        FK.begin_half_step(q, u, u0, blk.r[:N], h)         # u0 = u, r = 0, q += h/2 u
        f = self._scratch()
        self.internal_forces(t + 0.5 * h, f)
        np.subtract(self.external_forces(t + 0.5 * h, h), f, out=f)
        implicit = self.implicit_rows()
        explicit = ~implicit[blk.node_row[:N]]
        # pins at mesh nodes (bodies/fe_pins.py): FIXPNT of explicit bodies, FIXPNT and
        # FIXDIR of implicit ones (eliminated from their operator before it is factorised)
        self.pins = self._collect_pins(self.pin_levels(implicit))
        pinned_exp = explicit[self.pins.node]
        eta = blk.damping[: blk.count]
        if implicit.any() or (eta > 0).any():
            rows = np.flatnonzero(implicit)
            coef = eta[rows] * 0.5 * h + 0.25 * h * h
            Kmat = self._tangent(coef[0] if self._fusable(rows) else None)
            if (eta > 0).any():
                f -= eta[blk.node_row[:N], None] * self._stiffness_product(Kmat, u0.reshape(-1)).reshape(-1, 3)
            if rows.size:
                self._factorise(Kmat, rows, coef)
        FK.lumped_velocity(u, u0, f, lay.mass, explicit, h, False)      # u = u0 + h M^-1 f
        dense = self.dense_set()
        for row in self._rows_one_by_one(dense):
            sl = blk.nodes_of(row)
            u[sl] = u0[sl] + self._pinned_increment(row, h, f[sl], u0[sl])
        if dense is not None:                   # small unpinned bodies all at once
            nodes, du = dense.solve(blk, h * f)
            u[nodes] = u0[nodes] + du
        if len(self.pins):
            nodes = self.pins.node
            self.pins.f = f[nodes].copy()       # implicit pins: the step's force
            e = nodes[pinned_exp]               # explicit pins: the node does not move
            free = u[e].copy()
            u[e] = -u0[e]
            self.pins.f[pinned_exp] = lay.mass[e, None] * (u[e] - free) / h
        blk.internal_stale = True

    def _pinned_increment(self, row: int, h: float, f: np.ndarray, u0: np.ndarray) -> np.ndarray:
        """du (nn, 3) of an implicit body with A du = h (f + r_pin): Solfec's dynamic
        FIXPNT / FIXDIR condition U + V = 0 gives du = -2 u0 along the fixed directions of
        its pinned nodes (0 for nodes at rest), the free components solve the supported
        body's operator T A T + I - T (bodies/fe_pins.py)."""
        oper = self.factors[row]
        rhs = h * f.reshape(-1)
        local = getattr(oper, "local", None)               # None: another formulation's factors
        if local is None or not local.size:
            return self._solve(row, rhs).reshape(-1, 3)
        g = np.zeros_like(u0)
        g[oper.local] = -2.0 * (u0[oper.local] - np.einsum("kij,kj->ki", oper.Pn, u0[oper.local]))
        if np.any(g):
            rhs = rhs - oper.A @ g.reshape(-1)
        return g + self._solve(row, rhs).reshape(-1, 3)

    def step_end(self, t: float, h: float) -> None:
        blk = self.block
        lay = blk.layout
        N, n = blk.N, blk.count
        q, u, u0, r = blk.q[:N], blk.u[:N], blk.u0[:N], blk.r[:N]
        explicit = ~self.implicit_rows()[blk.node_row[:N]]
        pins = self.pins
        if len(pins):
            e = pins.node[explicit[pins.node]]
            keep = u[e].copy()
        FK.lumped_velocity(u, u0, r, lay.mass, explicit, h, True)       # u += h M^-1 r
        dense = self.dense_set()
        for row in self._rows_one_by_one(dense):
            sl = blk.nodes_of(row)
            u[sl] += h * self._solve(row, r[sl].reshape(-1)).reshape(-1, 3)
        if dense is not None:                   # small unpinned bodies all at once
            nodes, du = dense.solve(blk, r)
            u[nodes] += h * du
        if len(pins):
            u[e] = keep
            r_node = pins.f - r[pins.node]      # explicit pins; implicit ones below
            self._pin_reactions(h, u0, r_node)
        work = np.zeros(n)
        FK.end_half_step(q, u, u0, blk.fext[:N], r, lay.mass, blk.node_row[:N], h, work, blk.energy[:n, 0])
        blk.energy[:n, 1] += work                   # q += h/2 u, work of the step, kinetic energy
        blk.internal_stale = True

    # ------------------------------------------------------------------ quasi-static steps
    def qs_step_begin(self, t: float, h: float) -> None:
        blk = self.block
        blk.prepared()
        N = blk.N
        blk.u0[:N] = blk.u[:N]
        blk.r[:N] = 0.0
        f = self._scratch()
        self.internal_forces(t + h, f)
        np.subtract(self.external_forces(t + h, h), f, out=f)
        rows = np.arange(blk.count)
        self._collect_pins()
        self.pins.f = f[self.pins.node].copy()
        self._factorise(self._tangent(h * h if self._fusable(rows) else None), rows, np.full(rows.size, h * h))
        for row in rows.tolist():
            sl = blk.nodes_of(row)
            blk.u[sl] = h * self._solve(row, f[sl].reshape(-1)).reshape(-1, 3)

    def qs_step_end(self, t: float, h: float) -> None:
        blk = self.block
        for row in self.factors:
            sl = blk.nodes_of(row)
            blk.u[sl] += h * self._solve(row, blk.r[sl].reshape(-1)).reshape(-1, 3)
        N = blk.N
        if len(self.pins):
            self._pin_reactions(h)
        blk.q[:N] += h * blk.u[:N]
        blk.internal_stale = True

    def _pin_reactions(self, h: float, u0=None, r_node=None) -> None:
        """Reactions of the eliminated pins from the pinned rows of A du = h (f + r + r_pin)
        (bodies/fe_pins.py; du = u quasi-statically, u - u0 in a dynamic step), stored as
        the constraints' local R (U = V = 0); `r_node` holds those of explicit bodies."""
        blk, pins = self.block, self.pins
        if r_node is None:
            r_node = np.zeros((pins.node.size, 3))
        for row, oper in self.factors.items():
            A = getattr(oper, "A", None)          # None: no pins (or another formulation's factors)
            if A is None:
                continue
            sl = oper.sl
            du = blk.u[sl] if u0 is None else blk.u[sl] - u0[sl]
            pinned = getattr(oper, "pinned_product", None)      # A du at the pinned nodes only
            Au = pinned(du) if pinned else (A @ du.reshape(-1)).reshape(-1, 3)[oper.local]
            m = (pins.node >= sl.start) & (pins.node < sl.stop)
            nodes = pins.node[m]
            r_node[m] = Au / h - pins.f[m] - blk.r[nodes]
        r_node -= np.einsum("kij,kj->ki", pins.P, r_node)        # the fixed components only
        self._store_pin_reactions(r_node)

    def _store_pin_reactions(self, r_node: np.ndarray) -> None:
        pins = self.pins
        cset = self.block.domain.constraints
        rows = pins.rows(cset)
        R = pins.reactions(r_node)
        ok = rows >= 0
        cset.R[rows[ok]] = R[ok]
        cset.U[rows[ok]] = 0.0
        cset.V[rows[ok]] = 0.0
        cset.B[rows[ok]] = 0.0

    # ------------------------------------------------------------------ local dynamics
    def delassus(self, rows, Ha, Hb) -> np.ndarray:
        """Ha A^-1 Hb^T per entry: lumped M^-1 for explicit bodies, the factorised A of
        the step for implicit ones (A^-1 Hb^T columns computed once per body and
        assembly, for every point of the body, and kept with the operator)."""
        blk = self.block
        out = np.zeros((rows.size, 3, 3))
        implicit = self.implicit_rows()[rows]
        exp = np.flatnonzero(~implicit)
        if exp.size:
            inv_mass = 1.0 / np.where(blk.layout.mass > 0, blk.layout.mass, np.inf)
            inv_mass[self.pins.node] = 0.0          # fixed nodes of explicit bodies do not move
            a, b = Ha[exp], Hb[exp]
            part = np.empty((exp.size, 3, 3))
            fe_points.lumped_delassus(a.nodes, a.N, a.base, b.nodes, b.N, b.base, inv_mass, part)
            out[exp] = part
        dense = self.dense_set()
        if dense is not None:               # small bodies with dense inverses: all at once
            at = np.flatnonzero(implicit & (dense.index[rows] >= 0))
            if at.size:
                out[at] = dense.delassus(self.block, rows[at], Ha[at], Hb[at])
                implicit = implicit.copy()
                implicit[at] = False
        for row in np.unique(rows[implicit]).tolist():
            sel = np.flatnonzero(implicit & (rows == row))
            Z, column = self._columns(row, Hb.source)
            a = Ha[sel]
            part = np.empty((sel.size, 3, 3))
            start = int(blk.nstart[row])
            fe_points.gathered_delassus(a.nodes - start, a.N, a.base, Z, column[Hb.key[sel]], part)
            out[sel] = part
        return out

    def dense_set(self) -> "DenseSet | None":
        """The implicit bodies of this step whose A^-1 is a small dense inverse (rotated node
        by node: `dense_groups`), as a DenseSet, or None: their solves and Delassus blocks
        are made all at once, the others' body by body."""
        if self._dense is None:
            groups = self.dense_groups()
            self._dense = (DenseSet(self.block.count, groups) if groups else None,)
        return self._dense[0]

    def _rows_one_by_one(self, dense) -> list:
        """The rows of this step's operators that `dense` does not solve (all of them when it
        is None), picked with one array operation."""
        rows = np.fromiter(self.factors, dtype=np.int64, count=len(self.factors))
        return (rows if dense is None else rows[dense.index[rows] < 0]).tolist()

    def dense_groups(self) -> list:
        """The DenseGroups of this step (total-Lagrangian bodies: `_factorise`)."""
        return list(self._tl_dense)

    def delassus_factors(self, rows, H, live):
        """[(entries, tidx, S)] for the implicit bodies among `rows[live]` whose points touch
        fewer nodes t than there are points (solvers/factored_delassus.py): the entries of H
        on the body, their node slots tidx (k, w) into the touched nodes, S = E^T A^-1 E."""
        out = []
        implicit = self.implicit_rows()
        nodes, N = H.nodes, H.N
        for row in np.unique(rows[live]).tolist():
            if not implicit[row] or row not in self.factors:
                continue
            ent = live[rows[live] == row]
            used = N[ent] != 0.0
            touched = np.unique(nodes[ent][used])
            if not 0 < touched.size < ent.size:
                continue
            start = int(self.block.nstart[row])
            nn = int(self.block.nnodes[row])
            local = touched - start
            three = np.arange(3)
            dofs = (3 * local[:, None] + three).reshape(-1)
            E = np.zeros((3 * nn, dofs.size))
            E[dofs, np.arange(dofs.size)] = 1.0
            S = np.ascontiguousarray(self._solve(row, E)[dofs])
            S = 0.5 * (S + S.T)                    # A^-1 is symmetric: rounding of the solves removed
            tidx = np.where(used, np.searchsorted(touched, np.where(used, nodes[ent], touched[0])), 0)
            out.append((ent, tidx.astype(np.int64), S))
        return out

    def _columns(self, row: int, source):
        """(A^-1 H^T for every point of `source` on body `row` (3 columns each), column of
        each point), cached on the operator."""
        cached = source.cache.get(row)
        if cached is not None:
            return cached
        blk = self.block
        sl = blk.nodes_of(row)
        start, nn = sl.start, sl.stop - sl.start
        mine = np.flatnonzero((source.nodes[:, 0] >= start) & (source.nodes[:, 0] < sl.stop))
        W = source.N[mine]
        j, a = np.nonzero(W)                     # point j of `mine` on its node slot a
        node = source.nodes[mine][j, a] - start
        three = np.arange(3)
        rows = np.broadcast_to((3 * node)[:, None, None] + three[None, :, None], (j.size, 3, 3))
        cols = np.broadcast_to((3 * j)[:, None, None] + three[None, None, :], (j.size, 3, 3))
        vals = W[j, a][:, None, None] * source.base[mine][j]
        touched = np.unique(node)
        if 0 < touched.size < mine.size:
            # fewer nodes than points (contact points share the nodes of a face): A^-1 of the
            # nodes' unit columns, G, then Z = G H_S^T with H^T's rows at those nodes (sparse)
            import scipy.sparse as sp

            E = np.zeros((3 * nn, 3 * touched.size))
            E[(3 * touched[:, None] + three).reshape(-1), np.arange(3 * touched.size)] = 1.0
            G = self._solve(row, E)
            at = np.searchsorted(touched, node)
            rows_s = np.broadcast_to((3 * at)[:, None, None] + three[None, :, None], (j.size, 3, 3))
            HS = sp.csr_matrix((vals.reshape(-1), (rows_s.reshape(-1), cols.reshape(-1))),
                               shape=(3 * touched.size, 3 * mine.size))
            Z = np.asarray((HS.T @ G.T).T)
        else:
            HT = np.zeros((3 * nn, 3 * mine.size))
            np.add.at(HT, (rows, cols), vals)
            Z = self._solve(row, HT) if mine.size else HT
        column = np.full(len(source), -1, dtype=np.int64)
        column[mine] = 3 * np.arange(mine.size)
        source.cache[row] = (np.ascontiguousarray(Z), column)
        return source.cache[row]


# ---------------------------------------------------------------------- point location
def locate(block, row: int, X: np.ndarray) -> np.ndarray:
    """Object indices of the elements of body `row` holding referential points X (k, 3)."""
    lay = block.prepared()
    out = np.empty(X.shape[0], dtype=np.int64)
    e0, e1 = int(lay.estart[row]), int(lay.estart[row + 1])
    fe_points.scan(lay.econn, lay.ecode, block.X, e0, e1, np.ascontiguousarray(X, dtype=float), 1e-9, out)
    return np.where(out >= 0, out - e0, -1)


def locate_current(block, rows, x, elem) -> np.ndarray:
    """Object indices of the elements holding current points x (entries without `elem`)."""
    lay = block.prepared()
    out = np.full(rows.size, -1, dtype=np.int64) if elem is None else np.asarray(elem, np.int64).copy()
    nodes = np.ascontiguousarray(block.X[: block.N] + block.q[: block.N])
    for row in np.unique(rows[out < 0]).tolist():
        m = np.flatnonzero((rows == row) & (out < 0))
        e0, e1 = int(lay.estart[row]), int(lay.estart[row + 1])
        found = np.empty(m.size, dtype=np.int64)
        fe_points.scan(lay.econn, lay.ecode, nodes, e0, e1, np.ascontiguousarray(x[m]), 1e-9, found)
        miss = found < 0
        if miss.any() and block.background[row]:      # off every element: the nearest one
            found[miss] = nearest(block, row, x[m][miss], nodes) + e0
        out[m] = np.where(found >= 0, found - e0, 0)
    return out


def nearest(block, row: int, X: np.ndarray, nodes=None) -> np.ndarray:
    """Object indices of the elements of body `row` nearest to points X (k, 3) by the
    distance to their boxes, ties to the nearest node centroid (referential nodes unless
    `nodes` are given): the element a point of a background-carried shape off every element
    goes to."""
    lay = block.prepared()
    nodes = block.X if nodes is None else nodes
    e0, e1 = int(lay.estart[row]), int(lay.estart[row + 1])
    conn = lay.econn[e0:e1]
    valid = conn >= 0
    x = nodes[np.maximum(conn, 0)]                                        # (e, n, 3)
    c = np.einsum("enj,en->ej", x, valid) / valid.sum(axis=1)[:, None]
    lo = np.where(valid[:, :, None], x, np.inf).min(axis=1)
    hi = np.where(valid[:, :, None], x, -np.inf).max(axis=1)
    p = np.asarray(X, float)[:, None, :]
    gap = np.maximum(np.maximum(lo[None] - p, p - hi[None]), 0.0)
    box = (gap ** 2).sum(axis=2)
    cen = ((p - c[None]) ** 2).sum(axis=2)
    best = box.min(axis=1, keepdims=True)
    return np.where(box <= best * (1 + 1e-12), cen, np.inf).argmin(axis=1).astype(np.int64)
