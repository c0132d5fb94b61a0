"""Local dynamics U = B + W R (layer 5): free and initial local velocities B, V, the
diagonal blocks W_aa = h sum H A^-1 H^T with their inverses and rho = 1 / lambda_max, and
the off-diagonal blocks W_ab = h s_a s_b H_a A^-1 H_b^T of constraints sharing a body (or
bodies of one coupling group: links of a joint tree, A^-1 their share of M^-1), as
CSR arrays for the Gauss-Seidel kernel; afterwards the reactions go back to the bodies as
+-H^T R. Reference: Solfec-1.0 ldy.c, local dynamics; Solfec-1.0 ldy.c, velocity update; Solfec-1.0 dom.c, the time step (Solfec ldy.c LOCDYN_Update_Begin / End).

Everything is assembled from arrays: the entries (constraint, side) of one body family
are handed to its block in one call (`gen_to_loc` with the geometric object `elem` of each
point, `local_velocity`, `delassus`, `couples`, `add_reactions`, `contact_inert`; the
contract is in bodies/base.py), and the pairs of entries on the same body are generated
with array arithmetic. Blocks of two constraints coupled through
two bodies are summed into one W_ab (Solfec keeps one block per shared body; the sum is
what the sweep uses). Each unordered pair of entries is evaluated once: A^-1 is symmetric,
so W_ba = W_ab^T. No assumption on the number of body dofs is made here. On request
(`factored`, NEWTON_SOLVER) the bodies whose blocks offer it keep their W as factors instead
of pairs (solvers/factored_delassus.py); their diagonal blocks are in W all the same.
"""
from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass, field

import numpy as np

from solfec_py import constraints as C
from solfec_py.bodies.base import BodyBlock
from solfec_py.errors import SimulationError
from solfec_py.solvers import local_dynamics_kernels as ld_kernels
from solfec_py.solvers.factored_delassus import FactoredBody, offdiagonal_product

NPAR = 8   # per-constraint parameter columns of the kernels (see solvers/diagonal.py)


_ROW_LOOKUP: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def row_lookup(block) -> np.ndarray:
    """Array mapping body id -> block row (-1 elsewhere), cached per block and rebuilt only
    when its list of bodies changed (body ids never change once assigned)."""
    cached = _ROW_LOOKUP.get(block)
    if cached is not None and cached[0] == block.bodies:    # identity compare of the bodies
        return cached[1]
    bodies = list(block.bodies)
    ids = np.fromiter((b.id for b in bodies), dtype=np.int64, count=len(bodies))
    lookup = np.full(int(ids.max(initial=0)) + 1, -1, dtype=np.int64)
    lookup[ids] = np.arange(ids.size)
    _ROW_LOOKUP[block] = (bodies, lookup)
    return lookup


_BODY_ROWS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def body_rows(domain, cset) -> np.ndarray:
    """(count, 2) block rows of the master / slave of every constraint; -1 where there is no
    body or the body no longer exists (deleted). Read-only: the array is cached per constraint
    set and recomputed only when the set's `version` (rows inserted, removed or reordered)
    or a block's list of bodies (`row_lookup`) changed."""
    n = cset.count
    lookups = []
    for name in cset.families:
        block = domain.blocks.get(name)
        lookups.append(None if block is None or block.count == 0 else row_lookup(block))
    cached = _BODY_ROWS.get(cset)
    if (cached is not None and cached[0] == cset.version and cached[1] == n
            and all(a is b for a, b in zip(cached[2], lookups)) and len(cached[2]) == len(lookups)):
        return cached[3]
    out = np.full((n, 2), -1, dtype=np.int64)
    fam, bid = cset.family[:n], cset.bid[:n]
    for code, lookup in enumerate(lookups):
        if lookup is None:
            continue
        mask = fam == code
        if not mask.any():
            continue
        b = bid[mask]
        out[mask] = np.where(b < lookup.size, lookup[np.minimum(b, lookup.size - 1)], -1)
    out.flags.writeable = False
    _BODY_ROWS[cset] = (cset.version, n, lookups, out)
    return out


def segment_sum(index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """out[i] = sum of values[k] over index[k] == i; values (E, ...) -> (n, ...) (a numba
    loop adding in the order of k, as np.bincount does)."""
    flat = np.ascontiguousarray(values, dtype=float).reshape(values.shape[0], -1)
    out = ld_kernels.segment_sum_flat(np.ascontiguousarray(index, dtype=np.int64), flat, n)
    return out.reshape((n,) + values.shape[1:])


@dataclass
class Side:
    """Constraint points of one body family: entry e belongs to local-dynamics row con[e]."""

    block: object
    con: np.ndarray
    sign: np.ndarray
    rows: np.ndarray
    H: object
    inert: np.ndarray      # points on bodies that do not react (obstacles in contacts and two-body constraints)


@dataclass
class LocalDynamics:
    """Arrays of one solve; row i is constraint-set row `crow[i]`."""

    crow: np.ndarray
    kind: np.ndarray
    W: np.ndarray
    Winv: np.ndarray
    rho: np.ndarray
    B: np.ndarray
    V: np.ndarray
    U: np.ndarray
    R: np.ndarray
    par: np.ndarray
    indptr: np.ndarray
    adj: np.ndarray
    Wadj: np.ndarray
    dynamic: bool
    h: float
    sides: list = field(default_factory=list)
    whole: bool = False    # crow is arange(count): every row of the set, in order
    bodies: list = field(default_factory=list)   # FactoredBody: W of their points, not in Wadj
    Wfd: np.ndarray | None = None                # their share of the diagonal blocks W

    @property
    def n(self) -> int:
        return self.crow.size

    def free_energy(self) -> float:
        """E_free = 1/2 sum B W^-1 B + 1/2 sum (W^-1)_NN v^2 over prescribed velocities."""
        B, Winv = self.B, self.Winv
        if (B.dtype == np.float64 and Winv.dtype == np.float64 and B.flags.c_contiguous
                and Winv.flags.c_contiguous and B.shape[1:] == (3,) and Winv.shape[1:] == (3, 3)):
            e = 0.5 * ld_kernels.quadratic_sum(B, Winv)      # the einsum below, its order, without its setup
        else:
            e = 0.5 * np.einsum("ki,kij,kj->", B, Winv, B)
        vel = self.kind == C.VELODIR
        if vel.any():
            e += 0.5 * float(np.sum(self.Winv[vel, 2, 2] * self.par[vel, 2] ** 2))
        return float(e)

    def coupled(self, R: np.ndarray | None = None) -> np.ndarray:
        """B + sum over neighbours W_ab R_b (without the diagonal term)."""
        R = self.R if R is None else R
        if not self.adj.size:
            out = self.B.copy()
        else:
            out = ld_kernels.coupled(self.B, np.ascontiguousarray(R, dtype=float), self.indptr, self.adj, self.Wadj)
        if self.bodies:
            out += self.factored_offdiagonal(R)
        return out

    def factored_offdiagonal(self, x: np.ndarray) -> np.ndarray:
        """The off-diagonal part of W x held by the factored bodies (zero without them)."""
        if not self.bodies:
            return np.zeros((self.n, 3))
        return offdiagonal_product(self.bodies, self.Wfd, x)

    def neighbour_blocks(self):
        """(indptr, adj, Wadj) of every off-diagonal block, the factored bodies' pairs
        assembled as the pair assembly has them (LOCDYN_DUMP writes them)."""
        if not self.bodies:
            return self.indptr, self.adj, self.Wadj
        n = self.n
        off_a, off_b, off_val = [np.repeat(np.arange(n), np.diff(self.indptr))], [self.adj], [self.Wadj]
        for body in self.bodies:
            k = body.con.size
            e, f = unordered_pairs(np.zeros(k, dtype=np.int64), body.con)
            if not e.size:
                continue
            E = e.size
            drow, dval = np.empty(E, np.int64), np.empty((E, 3, 3))
            a, b, val = np.empty(2 * E, np.int64), np.empty(2 * E, np.int64), np.empty((2 * E, 3, 3))
            _, m2 = ld_kernels.pair_blocks_into(body.h, body.sign, body.con, e, f, body.dense_pairs(e, f),
                                               drow, dval, a, b, val)
            off_a.append(a[:m2])
            off_b.append(b[:m2])
            off_val.append(val[:m2])
        indptr, adj, Wadj = _csr(n, off_a, off_b, off_val)
        return indptr.copy(), adj.copy(), Wadj.copy()

    def velocities(self) -> np.ndarray:
        """U = B + W R for all rows."""
        return self.coupled() + np.einsum("kij,kj->ki", self.W, self.R)

    def scatter_reactions(self) -> None:
        """Add s H^T R to the generalised reaction of every body (Solfec-1.0 ldy.c, velocity update)."""
        for side in self.sides:
            side.block.add_signed_reactions(side.rows, side.H, side.con, side.sign, self.R, side.inert)


def parameters(cset, crow: np.ndarray, dynamic: bool) -> np.ndarray:
    """(n, NPAR) kernel parameters of the constraint-set rows `crow` (solvers/diagonal.py)."""
    n = crow.size
    par = np.zeros((n, NPAR))
    kind = cset.kind[crow]
    m = kind == C.CONTACT
    if m.all():                         # contacts only (the other kinds' masks need not be made)
        ld_kernels.contact_parameters(par, np.arange(n), crow, cset.friction, cset.restitution, cset.cohesion, cset.gap,
                                      cset.model, cset.spring, cset.dashpot, cset.hpow)
        return par
    if m.any():
        r = crow[m]
        ld_kernels.contact_parameters(par, np.flatnonzero(m), r, cset.friction, cset.restitution, cset.cohesion,
                                      cset.gap, cset.model, cset.spring, cset.dashpot, cset.hpow)
    m = (kind == C.VELODIR) | (kind == C.VELODIR3)
    if m.any():
        par[m, 0:3] = cset.target[crow[m]]
    m = kind == C.RIGLNK
    if m.any():
        r = crow[m]
        par[m, 0:3] = np.einsum("kji,kj->ki", cset.base[r], cset.link[r])   # local link vector
        par[m, 3] = cset.length[r]
    m = kind == C.SPRING
    if m.any():
        r = crow[m]
        par[m, 0:2] = cset.limits[r]
        par[m, 2] = cset.gap[r]
    return par


def assemble(domain, cset, h: float, crow: np.ndarray | None = None, offdiag: bool = True,
             brow: np.ndarray | None = None, factored: bool = False) -> LocalDynamics:
    """Local dynamics of the constraint-set rows `crow` (all by default) at the current
    (mid-step) configuration; off-diagonal blocks only among `crow` when `offdiag`;
    `factored`: the bodies whose blocks offer it keep their W factored (`LocalDynamics.bodies`,
    solvers/factored_delassus.py) instead of as CSR pairs."""
    whole = False
    if crow is None:
        crow = np.arange(cset.count)
        taken = [b.absorbed(cset) for b in domain.active_blocks()]
        taken = np.concatenate(taken) if taken else np.zeros(0, dtype=np.int64)
        if taken.size:
            crow = np.setdiff1d(crow, taken)
        whole = crow.size == cset.count
    crow = np.asarray(crow, dtype=np.int64)
    n = crow.size
    if brow is None:
        brow = body_rows(domain, cset)
    kind = cset.kind[crow].astype(np.int64)
    B = np.zeros((n, 3))
    V = np.zeros((n, 3))
    diag_idx, diag_val, off_a, off_b, off_val = [], [], [], [], []
    sides, bodies, fac_idx, fac_val = [], [], [], []
    # obstacles take no reaction from contacts nor from constraints linking them to another
    # body (their motion is prescribed); single-body constraints (SET_VELOCITY) drive them
    passive = (kind == C.CONTACT) | (cset.bid[crow, 1] > 0)
    for code, name in enumerate(cset.families):
        block = domain.blocks.get(name)
        con, sign, rows, X, elem, base = ld_kernels.family_entries(code, crow, cset.family, brow, cset.mpnt, cset.spnt,
                                                                   cset.elem, cset.base)
        if con.size == 0:
            continue
        H = block.local_operator(rows, X, base, elem, kind[con] == C.CONTACT)
        inert = passive[con] & block.contact_inert(rows)
        sides.append(Side(block, con, sign, rows, H, inert))
        ld_kernels.add_signed(B, con, sign, np.ascontiguousarray(block.local_velocity(rows, H, "free"), dtype=float))
        ld_kernels.add_signed(V, con, sign, np.ascontiguousarray(block.local_velocity(rows, H, "start"), dtype=float))
        live = np.flatnonzero(~inert)
        if factored and live.size:
            for ent, tidx, S in block.delassus_factors(rows, H, live):
                body = FactoredBody(con[ent], np.ascontiguousarray(sign[ent], dtype=float), tidx,
                                    np.ascontiguousarray(H.N[ent], dtype=float),
                                    np.ascontiguousarray(H.base[ent], dtype=float), S, float(h))
                idx, val = body.diagonal()
                diag_idx.append(idx)
                diag_val.append(val)
                fac_idx.append(idx)
                fac_val.append(val)
                bodies.append(body)
                live = np.setdiff1d(live, ent, assume_unique=True)
        if live.size == 0:
            continue
        c, sg, rw = con[live], sign[live], rows[live]
        if block.delassus_indexed:
            # the block reads H in place at index arrays (bodies/rigid.py): no gathered
            # (k, 3, 6) copies of the live entries or of the pairs
            every = live.size == con.size
            diag_val.append(h * (block.delassus(rows, H, H) if every else block.delassus(rows, H, H, ia=live, ib=live)))
            Hl = None
        else:
            Hl = H[live]
            diag_val.append(h * block.delassus(rw, Hl, Hl))
        diag_idx.append(c)
        groups = block.coupling_groups(rw)                   # e.g. links of one joint tree
        e, f = unordered_pairs(rw if groups is None else groups, c)   # W_fe = W_ef^T (A symmetric)
        if e.size and Hl is None and type(block).couples is not BodyBlock.couples:
            Hl = H[live]                            # the block's own couples reads gathered rows
        if e.size and Hl is not None:
            re, He, Hf = rw[e], Hl[e], Hl[f]
            near = block.couples(re, He, Hf)        # e.g. FE points without common nodes
            if near is not None:
                e, f = e[near], f[near]
                re, He, Hf = rw[e], Hl[e], Hl[f]
        if e.size and Hl is None:
            ie, jf = live[e], live[f]
            Wef = block.delassus(rows, H, H, None if groups is None else rows, ia=ie, ib=jf,
                                 out=_buffer("Wef", e.size, (3, 3)))
        elif e.size:
            Wef = (block.delassus(re, He, Hf) if groups is None
                   else block.delassus(re, He, Hf, rw[f]))
        if e.size:
            # h s_e s_f Wef split into pairs of one constraint (both ends on one body: a
            # diagonal contribution W_ef + W_ef^T) and off-diagonal entries (W_ef, W_fe = W_ef^T)
            E = e.size
            drow, dval = _buffer("drow", E, (), np.int64), _buffer("dval", E, (3, 3))
            a, b, val = _buffer("a", 2 * E, (), np.int64), _buffer("b", 2 * E, (), np.int64), _buffer("val", 2 * E, (3, 3))
            same, m2 = ld_kernels.pair_blocks_into(float(h), sg, c, e, f, np.ascontiguousarray(Wef, dtype=float),
                                                   drow, dval, a, b, val)
            drow, dval, a, b, val = drow[:same], dval[:same], a[:m2], b[:m2], val[:m2]
            if drow.size:
                diag_idx.append(drow)
                diag_val.append(dval)
            if offdiag and a.size:
                off_a.append(a)
                off_b.append(b)
                off_val.append(val)
    W = segment_sum(np.concatenate(diag_idx), np.concatenate(diag_val), n) if diag_idx else np.zeros((n, 3, 3))
    par = parameters(cset, crow, domain.dynamic)
    _redundant_directions(domain, cset, crow, kind, W, par)
    indptr, adj, Wadj = _csr(n, off_a, off_b, off_val)
    Winv, rho = _inverse_and_rho(W)
    Wfd = segment_sum(np.concatenate(fac_idx), np.concatenate(fac_val), n) if fac_idx else None
    return LocalDynamics(crow=crow, kind=kind, W=W, Winv=Winv, rho=rho, B=B, V=V,
                         U=cset.U[:n].copy() if whole else cset.U[crow], R=cset.R[:n].copy() if whole else cset.R[crow],
                         par=par, indptr=indptr, adj=adj,
                         Wadj=Wadj, dynamic=domain.dynamic, h=h, sides=sides, whole=whole, bodies=bodies, Wfd=Wfd)


ONE_DIRECTION = (C.FIXDIR, C.VELODIR, C.RIGLNK, C.SPRING)
_ONE_DIRECTION = np.isin(np.arange(len(C.KINDS)), ONE_DIRECTION)   # lookup table by kind code
REDUNDANT = 1e-12      # W_NN below this share of trace(W): the bodies cannot move along N


def _redundant_directions(domain, cset, crow, kind, W, par) -> None:
    """One-direction rows (FIXDIR, VELODIR, RIGLNK, SPRING) along which their bodies cannot
    move (W_NN = 0 to rounding: H^T n = 0, e.g. a direction normal to the plane of a planar
    JOINT mechanism): their reaction would move nothing, so the row is made regular in place
    (W_NN = its tangential scale, W_N. = W_.N = 0) and its normal reaction comes out 0
    instead of 0 / 0. A FIX_DIRECTION then holds by itself (the motion has no component
    along it); a PUT_RIGID_LINK normal to the motion of its ends (a rod normal to the plane
    of a planar loop) acts from the next step on, when the ends have moved and the link has
    tilted (its length is a second-order function of their motion); a SET_VELOCITY asking
    for a velocity along such a direction cannot be met and stops the run."""
    if not kind.any():                  # contacts only (CONTACT is 0): the common case, cheap
        return
    one = _ONE_DIRECTION[kind]
    if not one.any():
        return
    trace = np.einsum("kii->k", W)
    bad = np.flatnonzero(one & (W[:, 2, 2] <= REDUNDANT * trace))
    if not bad.size:
        return
    for i in bad[(kind[bad] == C.VELODIR) & (par[bad, 2] != 0.0)].tolist():
        r = int(crow[i])
        raise SimulationError(f"{_row_name(cset, r)} at time {domain.time:g}: {_bodies(cset, r)} cannot move along"
                              f" {_direction(cset, r)}, so the prescribed velocity {par[i, 2]:g} cannot be reached"
                              " (a JOINT or another constraint holds that direction)")
    W[bad, 2, :] = 0.0
    W[bad, :, 2] = 0.0
    W[bad, 2, 2] = np.where(trace[bad] > 0, 0.5 * trace[bad], 1.0)


def _row_name(cset, r: int) -> str:
    what = {C.FIXDIR: "FIX_DIRECTION", C.VELODIR: "SET_VELOCITY", C.RIGLNK: "PUT_RIGID_LINK",
            C.SPRING: "PUT_SPRING"}[int(cset.kind[r])]
    return f"{what} (constraint {int(cset.id[r])})"


def _bodies(cset, r: int) -> str:
    ids = [int(b) for b in cset.bid[r] if b > 0]
    return f"body {ids[0]}" if len(ids) == 1 else f"bodies {ids[0]} and {ids[1]}"


def _direction(cset, r: int) -> str:
    return "(" + ", ".join(f"{v:.3g}" for v in cset.base[r][:, 2]) + ")"


def unordered_pairs(rows: np.ndarray, con: np.ndarray):
    """All unordered pairs of entries on the same body row, once each as (e, f), e != f:
    entries sorted by (row, constraint), each with its later partners in that order
    (local_dynamics_kernels.unordered_pairs)."""
    if rows.size <= 1:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return ld_kernels.unordered_pairs(np.ascontiguousarray(rows, dtype=np.int64),
                                      np.ascontiguousarray(con, dtype=np.int64))


_BUFFERS: dict = {}


def _buffer(name: str, size: int, shape=(), dtype=float) -> np.ndarray:
    """buffer[:size] of a module-wide array kept from call to call (grown by 1/4 when too
    small), reused only when nothing else refers to it: a LocalDynamics still alive that holds
    a view of it keeps it, and a new array takes its place. Reused memory is mapped already;
    fresh ~1 MB arrays cost page faults at every step (docs/dev/performance.md)."""
    if name not in _BUFFERS or _BUFFERS[name].shape[0] < size or _references(name) > _UNUSED:
        _BUFFERS[name] = np.empty((max(size, 16) + max(size, 16) // 4,) + tuple(shape), dtype=dtype)
    return _BUFFERS[name][:size]


def _references(name: str) -> int:
    return sys.getrefcount(_BUFFERS[name])


_BUFFERS["probe"] = np.empty(0)
_UNUSED = _references("probe")      # the count of a buffer nothing else refers to (this interpreter's)
del _BUFFERS["probe"]


def _csr(n, off_a, off_b, off_val):
    if not off_a:
        return np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 3, 3))
    if len(off_a) == 1:                     # one body family: no copy
        a, b = np.asarray(off_a[0], dtype=np.int64), np.asarray(off_b[0], dtype=np.int64)
        val = np.ascontiguousarray(off_val[0], dtype=float)
    else:
        a = np.concatenate(off_a).astype(np.int64)
        b = np.concatenate(off_b).astype(np.int64)
        val = np.ascontiguousarray(np.concatenate(off_val), dtype=float)
    E = a.size
    indptr, adj, W = _buffer("indptr", n + 1, (), np.int64), _buffer("adj", E, (), np.int64), _buffer("W", E, (3, 3))
    m = ld_kernels.off_diagonal_csr_into(n, a, b, val, _buffer("start", n + 1, (), np.int64),
                                         _buffer("order", E, (), np.int64), _buffer("inv", E, (), np.int64),
                                         indptr, adj, W)
    return indptr, adj[:m], W[:m]


def _inverse_and_rho(W: np.ndarray):
    """W^-1 (pseudo-inverse of singular blocks) and rho = 1 / lambda_max of the symmetric
    parts of the 3x3 blocks W: local_dynamics_kernels.blocks_inverse_and_rho (closed-form
    extreme eigenvalues and a pivoted 3x3 elimination, equal to numpy's LAPACK calls to
    rounding; tests/test_step_kernels.py), the singular blocks by np.linalg.pinv. W not
    finite: numpy's batched calls (which report it)."""
    n = W.shape[0]
    if n == 0:
        return np.zeros((0, 3, 3)), np.zeros(0)
    W = np.ascontiguousarray(W, dtype=float)
    if not ld_kernels.all_finite(W):
        return _numpy_inverse_and_rho(W)
    Winv, rho, regular = ld_kernels.blocks_inverse_and_rho(W, 1e-14)
    if not regular.all():
        Winv[~regular] = np.linalg.pinv(W[~regular])
    return Winv, rho


def _numpy_inverse_and_rho(W: np.ndarray):
    """_inverse_and_rho by numpy's batched eigvalsh / inv / pinv (any W)."""
    sym = 0.5 * (W + W.transpose(0, 2, 1))
    lam = np.linalg.eigvalsh(sym)
    big = lam[:, -1]
    rho = np.where(big > 0, 1.0 / np.where(big > 0, big, 1.0), 0.0)
    regular = lam[:, 0] > 1e-14 * np.maximum(big, 1e-300)
    Winv = np.zeros_like(W)
    if regular.all():
        Winv[:] = np.linalg.inv(W)
    else:
        Winv[regular] = np.linalg.inv(W[regular])
        Winv[~regular] = np.linalg.pinv(W[~regular])
    return Winv, rho
