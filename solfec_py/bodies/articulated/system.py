"""The joint trees of one domain while it runs (layer 3): the JointTree of all its joints
(a forest), the joint coordinates and rates, the rigid-block rows of the links, and the
copy of the joint state into the JOINT records (joint.q, joint.dq).
Reference: docs/joints.md.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.articulated.joint import is_split, tree_records
from solfec_py.bodies.articulated.kinds import zero_coordinates
from solfec_py.bodies.articulated.stepping import Drive
from solfec_py.timeseries import evaluate
from solfec_py.errors import InputError, NotAvailableError


class ArticulatedSystem:
    """Joint-space state of a domain's joints; links are rows of the rigid block. `q`, `u`
    and `reactions` are updated in place: the JOINT records view them (`bind_joints`)."""

    def __init__(self, joints):
        self.tree, self.links, self.records = tree_records(joints)
        tree = self.tree
        self.q = tree.zero_q()
        self.u = np.zeros(tree.nv)
        self.step = None                     # stepping.FreeStep between begin and finish
        self.held = None                     # rate change per time the constraints caused last step
        self.alpha = None                    # GEN_ALPHA trees: accelerations (ud, a) at the step's end
        self.loads = np.zeros((tree.count, 6))       # links' loads of the step (spatial forces)
        self.reactions = np.zeros((tree.count, 6))   # force, moment about the centre per joint
        # links with a body (rigid-block rows), stored indices; massless links of split joints have none
        self.bodied = np.array([k for k, u in enumerate(tree.order.tolist()) if self.links[u] is not None],
                               dtype=np.int64)
        self.stored = [self.links[tree.order[k]] for k in self.bodied]
        self.slots = self._slots()
        self.bind_joints()
        self.root = np.arange(tree.count)                # the root link of every stored link
        for k in range(tree.count):
            if tree.parent[k] >= 0:
                self.root[k] = self.root[tree.parent[k]]
        self.row_link = np.zeros(0, dtype=np.int64)      # rigid-block row -> stored link (-1)
        self._inverse = (None, np.zeros(0, dtype=np.int64), None)   # per step: links, their J M^-1 J^T
        self._elements()

    def _elements(self) -> None:
        """Joint springs and dampers as per-rate arrays (scalar freedoms: tau = -k (q - rest)
        - c dq; ball rotations: tau = -k log(R) - c Omega), the limits of scalar freedoms and
        of ball rotations (components of log R), the drives."""
        tree = self.tree
        self.stiffness, self.rest, self.damping = np.zeros(tree.nv), np.zeros(tree.nv), np.zeros(tree.nv)
        self.scalar = np.zeros(tree.nv, dtype=bool)      # rates whose coordinate is q itself
        self.balls = []                                   # (q offset of R, v offset of Omega, k)
        self.limits = []                                  # (rate index, coordinate index, lower, upper)
        self.ball_limits = []                             # (rates of Omega, q of R, component, lower, upper)
        self.drives = []                                  # (rate index, coordinate index, value, record)
        for k, u in enumerate(tree.order.tolist()):
            record, kind = self.records[u], tree.kinds[k]
            v0, q0 = int(tree.voff[k]), int(tree.qoff[k])
            if record.drive is not None:                  # one-freedom joints only (JOINT checks)
                self.drives.append((v0, q0, record.drive, record))
            ntr = kind.translations
            nscalar = ntr if kind.ball else kind.nv
            for d, (lo, hi) in enumerate(record.limits or ()):
                if d < nscalar:
                    self.limits.append((v0 + d, q0 + d, lo, hi))
                else:                                    # component of the rotation vector log(R)
                    self.ball_limits.append((v0 + ntr, q0 + ntr, d - nscalar, lo, hi))
            self.scalar[v0:v0 + nscalar] = True
            self.damping[v0:v0 + kind.nv] = record.damper
            if record.spring is not None:
                stiffness, rest = record.spring
                self.stiffness[v0:v0 + kind.nv] = stiffness
                self.rest[v0:v0 + nscalar] = rest
                if kind.ball:
                    self.balls.append((q0 + ntr, v0 + ntr, stiffness))
        self.coordinate = np.flatnonzero(self.scalar)
        self.qindex = np.concatenate([np.arange(tree.qoff[k], tree.qoff[k] + (kind.translations if kind.ball
                                                                                 else kind.nv))
                                      for k, kind in enumerate(tree.kinds)] + [np.zeros(0, int)]).astype(np.int64)

    def _slots(self) -> list:
        """(user's joint, its kind, coordinate indices, rate indices, stored link) of every
        link with a body, in `stored` order: a split joint (joint.split_parts) gathers the
        coordinates of its chain of massless links in the user's order (translations, then
        the rotation); its reaction is the last part's, on the child."""
        tree, out = self.tree, []
        for k in self.bodied.tolist():
            record = self.records[tree.order[k]]
            chain = [k]
            if record.whole is not None:
                while True:
                    above = int(tree.parent[chain[0]])
                    if above < 0 or self.records[tree.order[above]].whole is not record.whole:
                        break
                    chain.insert(0, above)
                chain = chain[1:] + chain[:1]           # user order: translations, then the rotation
            qidx = np.concatenate([np.arange(tree.qoff[c], tree.qoff[c + 1]) for c in chain]).astype(np.int64)
            vidx = np.concatenate([np.arange(tree.voff[c], tree.voff[c + 1]) for c in chain]).astype(np.int64)
            user = record.whole if record.whole is not None else record
            out.append((user, user.kind, qidx, vidx, k))
        return out

    def joint_forces(self, q, u) -> np.ndarray:
        """Spring and damper joint forces (nv,) at coordinates q and rates u."""
        tau = -self.damping * u
        tau[self.coordinate] -= self.stiffness[self.coordinate] * (q[self.qindex] - self.rest[self.coordinate])
        for qo, vo, stiffness in self.balls:
            tau[vo:vo + 3] -= stiffness * _log(q[qo:qo + 9].reshape(3, 3).T)
        return tau

    # ------------------------------------------------------------------ drives
    def drive_values(self, t: float) -> np.ndarray:
        """Prescribed coordinates of the driven joints at time t."""
        return np.array([evaluate(value, t) for _, _, value, _ in self.drives])

    def check_drives(self, t: float) -> None:
        """A drive must start where its joint is (no jump of the coordinate)."""
        for (j, qi, value, record), want in zip(self.drives, self.drive_values(t)):
            if abs(want - self.q[qi]) > 1e-9 * max(1.0, abs(want)):
                raise InputError(f"{record.describe()}: the drive prescribes the coordinate {want:g} at time"
                                 f" {t:g} but the joint is at {self.q[qi]:g}; a drive starts where its joint is"
                                 " (0 at creation)")

    def drive_step(self, q_half, t: float, h: float):
        """Driven coordinates placed on their drive at t + h/2 in q_half (in place) and the
        stepping.Drive of the step (end rates = the drive's rate at t + h by a central difference,
        so the actuators' impulse h q''(t + h/2) is centred like the step's forces), or None."""
        if not self.drives:
            return None
        qi = np.array([d[1] for d in self.drives])
        q_half[qi] = self.drive_values(t + 0.5 * h)
        rate = (self.drive_values(t + 1.5 * h) - self.drive_values(t + 0.5 * h)) / h   # centred on t + h
        return Drive.at(self.tree, q_half, [d[0] for d in self.drives], rate)

    def place_drives(self, t: float) -> None:
        """Driven coordinates exactly on their drive at time t (the end of a step)."""
        if self.drives:
            self.q[[d[1] for d in self.drives]] = self.drive_values(t)

    def rows(self) -> np.ndarray:
        """Rigid-block rows of the links in stored (topological) order."""
        return np.array([b.row for b in self.stored], dtype=np.int64)

    def link_rows(self, per_link) -> np.ndarray:
        """The entries of a per-stored-link array (n, ...) that belong to rows (`rows` order)."""
        return per_link[self.bodied]

    def link_array(self, per_row) -> np.ndarray:
        """A per-row array (`rows` order) as a per-stored-link one, zero on massless links."""
        out = np.zeros((self.tree.count,) + per_row.shape[1:])
        out[self.bodied] = per_row
        return out

    def map_rows(self, count: int) -> None:
        """Rebuild the row -> link lookup for a rigid block of `count` rows."""
        self.row_link = np.full(count, -1, dtype=np.int64)
        self.row_link[self.rows()] = self.bodied

    def coupling_groups(self, rows, count: int) -> np.ndarray:
        """Rows of constraint points on one tree (one root link) share a group, count + root;
        other rows are their own group (a rigid body couples only with itself)."""
        rows = np.asarray(rows, dtype=np.int64)
        link = self.row_link[rows]
        return np.where(link >= 0, count + self.root[np.maximum(link, 0)], rows)

    def delassus(self, rows_a, rows_b, Ha, Hb, out) -> None:
        """Overwrite out[e] = Ha_e Phi_ab Hb_e^T for entries whose rows are links (both on one
        tree): Phi = the links' inverse inertia through the tree at the step's mid-point
        configuration (JointTree.link_inverse_inertia), so constraint rows on links couple
        as the tree's joint-space dynamics dictates."""
        la, lb = self.row_link[rows_a], self.row_link[rows_b]
        on = np.flatnonzero((la >= 0) & (lb >= 0))
        if on.size == 0:
            return
        la, lb = la[on], lb[on]
        step, links, Phi = self._inverse
        wanted = np.union1d(la, lb)
        if step is not self.step or not np.isin(wanted, links).all():
            links = np.union1d(links if step is self.step else np.zeros(0, np.int64), wanted)
            Phi = self.tree.link_inverse_inertia(self.step.q_half, links)
            drive = self.step.drive
            if drive is not None:               # actuators hold the driven rates: M^-1 projected
                L = np.stack([self.tree.rigid_states(self.step.q_half, y)[1][links] for y in drive.Y.T], axis=-1)
                Phi = Phi - np.einsum("aic,cd,bjd->abij", L, drive.Dinv, L)
            self._inverse = (self.step, links, Phi)
        ia, ib = np.searchsorted(links, la), np.searchsorted(links, lb)
        out[on] = np.einsum("kij,kjl,kml->kim", Ha[on], Phi[ia, ib], Hb[on])

    def check_reference(self, block, alpha: bool = False) -> None:
        """The tree starts in the reference configuration at rest, or (a continued run, -c)
        in the joint state its links carry: refuse links whose rigid state is another one (a
        deck that set conf / velo of a link)."""
        restored = self.restore_carry(block, alpha)
        conf, velo = map(self.link_rows, self.tree.rigid_states(self.q, self.u))
        rows = self.rows()
        moved = ~(np.isclose(block.conf[rows], conf, rtol=0, atol=1e-12).all(axis=1)
                  & np.isclose(block.velo[rows], velo, rtol=0, atol=1e-12).all(axis=1))
        if moved.any():
            body = self.stored[int(np.flatnonzero(moved)[0])]
            where = ("the joint state it carries" if restored else
                     "its reference configuration at rest (articulated bodies start where their JOINTs were made)")
            raise NotAvailableError(
                f"body {body.id} is a link of an articulated body but is not in {where} when the run starts;"
                " set the motion of links through their joints, not their conf / velo")

    # ------------------------------------------------------------ carried state (-c, HISTORY)
    def store_carry(self, block, h: float) -> None:
        """Every link's carry row (results store, rigid_schemes/support.py): its parent joint's
        coordinates, rates and reaction and the scheme's tail (`carry_columns`), gathered in
        one array operation."""
        rows = self.rows()
        alpha = self.alpha is not None
        gather = getattr(self, "_gather", None)
        if gather is None or gather.shape[1] != block.carry.shape[1] or self._gather_alpha != alpha:
            gather = self._gather = self._carry_gather(block.carry.shape[1], alpha)
            self._gather_alpha = alpha
        if alpha:
            tail = np.concatenate(self.alpha)
        else:
            tail = np.zeros(self.tree.nv) if self.held is None else self.held
        source = np.concatenate((self.q, self.u, self.reactions.reshape(-1), tail, [0.0]))
        block.carry[rows] = source[gather]
        block.carry_h[rows] = h
        block.carry_ok[rows] = True
        self.publish()

    def _carry_gather(self, width: int, alpha: bool) -> np.ndarray:
        """(n, width) indices into [q, u, reactions (n x 6), tail, 0] of every link's carry
        row; the tail is `held` (nv) or, with `alpha`, the generalized-alpha ud and a (2 nv)."""
        tree = self.tree
        nq, nv = tree.nq, tree.nv
        base = nq + nv + 6 * tree.count
        out = np.full((len(self.slots), width), base + (2 if alpha else 1) * nv, dtype=np.int64)
        for i, (_, kind, qidx, rates, k) in enumerate(self.slots):
            cq, cv, nr, nh = carry_columns(kind, alpha)
            out[i, :cq] = qidx
            out[i, cq:cq + cv] = nq + rates
            out[i, cq + cv:cq + cv + nr] = nq + nv + 6 * k + np.arange(nr)
            if nh:
                out[i, cq + cv + nr:cq + cv + nr + nh] = base + (np.concatenate((rates, nv + rates)) if alpha
                                                                 else rates)
        return out

    def restore_carry(self, block, alpha: bool = False) -> bool:
        """Joint state from the links' carry rows (a continued run, -c); False when a link
        has none. With `alpha` (GEN_ALPHA trees) the tails are the accelerations ud, a: they
        are restored when every joint's row holds them (else the scheme starts afresh)."""
        rows = self.rows()
        if not block.carry_ok[rows].all():
            return False
        tree = self.tree
        tail = np.zeros(2 * tree.nv if alpha else tree.nv)
        whole = True
        for (_, kind, qidx, vidx, k), row in zip(self.slots, rows.tolist()):
            q, dq, reaction, rest = unpack(kind, block.carry[row], alpha)
            self.q[qidx], self.u[vidx] = q, dq
            self.reactions[k] = reaction
            if alpha:
                whole &= carry_columns(kind, True)[3] == 2 * vidx.size
                tail[vidx], tail[tree.nv + vidx] = rest[:vidx.size], rest[vidx.size:]
            else:
                tail[vidx] = rest
        if alpha:
            self.alpha = (tail[:tree.nv].copy(), tail[tree.nv:].copy()) if whole else None
        else:
            self.held = tail if tail.any() else None
        self.publish()
        return True

    def bind_joints(self) -> None:
        """Make the JOINT records' q, dq and reaction views of the system's arrays (joint.q
        reads the state without a copy per step); the arrays are updated in place. Split
        joints (coordinates not contiguous) get copies, refreshed by `publish`."""
        self._copies = [slot for slot in self.slots if is_split(slot[0])]
        for record, _, qidx, vidx, k in self.slots:
            if is_split(record):
                record.q, record.dq = self.q[qidx], self.u[vidx]
            else:
                record.q = self.q[qidx[0]:qidx[-1] + 1] if qidx.size else self.q[0:0]
                record.dq = self.u[vidx[0]:vidx[-1] + 1] if vidx.size else self.u[0:0]
            record.reaction = self.reactions[k]

    def publish(self) -> None:
        """Refresh the copies of split joints' coordinates and rates (`bind_joints`)."""
        for record, _, qidx, vidx, _ in self._copies:
            record.q[:], record.dq[:] = self.q[qidx], self.u[vidx]


def carry_columns(kind, alpha: bool = False) -> tuple[int, int, int, int]:
    """Layout of a link's carry row (nq, nv, nr, nt): q (kind.nq), dq (kind.nv), the
    reaction (nr = 6) and a tail of nt numbers, as far as they fit in the 18 numbers. The
    tail is `held` (nt = kind.nv: the rate change the constraints caused in the step, which
    the next step's predictor uses) or, for GEN_ALPHA trees (`alpha`), the accelerations ud
    and a (nt = 2 kind.nv). SPHERICAL keeps no tail (a continued run restarts its predictor
    term, or its generalized-alpha accelerations, from the state), FREE neither a reaction
    nor a tail (its q and dq fill the row; HISTORY reads its reaction as 0)."""
    nr = 6 if kind.nq + kind.nv + 6 <= CARRY else 0
    wanted = (2 if alpha else 1) * kind.nv
    nt = wanted if kind.nq + kind.nv + nr + wanted <= CARRY else 0
    return kind.nq, kind.nv, nr, nt


CARRY = 18        # floats per link (the rigid block's carry width)


def unpack(kind, row, alpha: bool = False) -> tuple:
    """(q, dq, reaction (6), tail) from a carry row: the tail is `held` (nv) or, with
    `alpha`, (ud, a) (2 nv); zeros for what the row does not hold."""
    nq, nv, nr, nt = carry_columns(kind, alpha)
    reaction, tail = np.zeros(6), np.zeros((2 if alpha else 1) * nv)
    reaction[:nr] = row[nq + nv:nq + nv + nr]
    tail[:nt] = row[nq + nv + nr:nq + nv + nr + nt]
    return row[:nq], row[nq:nq + nv], reaction, tail


def joints_from_carry(joints, rows) -> None:
    """Set joint.q, dq, reaction from stored carry rows (body id, scheme, step, carry...)
    of their child links (READ mode); joints whose link carries none show their creation
    state (zero coordinates, at rest)."""
    by_body = {int(r[0]): r[3:] for r in np.atleast_2d(rows)} if len(rows) else {}
    for joint in joints:
        row = by_body.get(joint.child.id)
        if row is None:
            q, dq, reaction = zero_coordinates(joint.kind), np.zeros(joint.kind.nv), np.zeros(6)
        else:
            q, dq, reaction, _ = unpack(joint.kind, row)
        joint.q[:], joint.dq[:], joint.reaction[:] = q, dq, reaction


def _log(R) -> np.ndarray:
    """Rotation vector of the rotation matrix R."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_matrix(R).as_rotvec()


def spatial_forces(R, x, force, torque) -> np.ndarray:
    """(k, 6) world spatial forces at the origin of forces `force` through the mass centres
    x with world torques `torque`: (x x f + torque, f)."""
    x, f = np.asarray(x, float), np.asarray(force, float)
    moment = np.empty_like(f)          # x x f written out (np.cross costs more than the products)
    moment[:, 0] = x[:, 1] * f[:, 2] - x[:, 2] * f[:, 1]
    moment[:, 1] = x[:, 2] * f[:, 0] - x[:, 0] * f[:, 2]
    moment[:, 2] = x[:, 0] * f[:, 1] - x[:, 1] * f[:, 0]
    return np.concatenate((moment + torque, f), axis=1)
