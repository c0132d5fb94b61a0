"""How a rigid block hands its rows to the schemes (layer 3): the scheme of each row, the
groups stepped together, the loads a scheme evaluates at its stages, the state schemes
carry between steps (and its rows in the results), the constraints a scheme cannot couple
with. `SchemeSupport` is mixed into bodies.rigid.RigidBlock. Reference: docs/integrators.md.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.rigid_schemes import CARRY_WIDTH, SCHEME_CODES, SCHEME_LIST
from solfec_py.bodies.rigid_schemes.base import mv
from solfec_py.bodies.rigid_schemes.solfec_kernels import begin_row, row_energies
from solfec_py.compilation import njit
from solfec_py.errors import InputError

_GROUP_KEYS = list(dict.fromkeys(s.GROUP or s.name for s in SCHEME_LIST))
_CODE_GROUP = np.array([_GROUP_KEYS.index(s.GROUP or s.name) for s in SCHEME_LIST], dtype=np.int64)
_CARRYING = np.array([s.CARRY > 0 for s in SCHEME_LIST])
_NO_ADDED_MASS = np.zeros((0, 6, 6))
_IMP = SCHEME_CODES["RIG_IMP"]
_DECK_COMMAND = {"FIXPNT": "FIX_POINT", "FIXDIR": "FIX_DIRECTION", "VELODIR": "SET_VELOCITY, SET_DISPLACEMENT or"
                 " SET_ACCELERATION", "VELODIR3": "SET_VELOCITY3, SET_DISPLACEMENT3 or SET_ACCELERATION3",
                 "RIGLNK": "PUT_RIGID_LINK", "SPRING": "PUT_SPRING", "CONTACT": "contact"}


class SchemeSupport:
    """Scheme bookkeeping of a rigid block (see the module docstring); the block provides the
    state arrays (`scheme`, `carry`, `carry_h`, `carry_ok`, ...), `bodies`, `domain` and
    `loads_at`."""

    def set_scheme(self, row: int, name: str) -> None:
        """Integrate the body of `row` with the rigid scheme `name` (a key of SCHEMES);
        obstacles keep theirs (they accept the deformable names, as in Solfec)."""
        if name in SCHEME_CODES and (not self.obstacle[row] or name == "PRESCRIBED"):
            self.scheme[row] = SCHEME_CODES[name]
            self.carry_ok[row] = False
            self._group_cache = None

    def state_changed(self, rows) -> None:
        """conf or velo of `rows` were set from outside the step: schemes that carry state
        between steps start afresh."""
        self.carry_ok[rows] = False

    def prescribe(self, body, motion) -> None:
        """Drive the obstacle `body` by `motion` (solfec_py.motion.Motion)."""
        self.motions[body] = motion
        self.set_scheme(body.row, "PRESCRIBED")

    def scheme_table(self) -> list:
        """(code, scheme object) pairs."""
        return list(enumerate(self.schemes))

    def _groups(self) -> list:
        """(scheme, rows) per scheme group in use; rows is a slice when the group has every row.
        Cached until a scheme or the set of bodies changes (`set_scheme`, `on_change`)."""
        cache = getattr(self, "_group_cache", None)
        if cache is not None and cache[0] == self.count:
            return cache[1]
        n = self.count
        gid = _CODE_GROUP[self.scheme[:n]]
        counts = np.bincount(gid, minlength=len(_GROUP_KEYS))
        out = []
        for key in np.flatnonzero(counts):
            first = self.schemes[int(np.flatnonzero(_CODE_GROUP == key)[0])]
            out.append((first, slice(0, n) if counts[key] == n else np.flatnonzero(gid == key)))
        self._group_cache = (n, out)
        return out

    def _resting(self) -> bool:
        """Is every row an obstacle at rest, stepped by its RIG_IMP finish (not driven by a
        PRESCRIBED_MOTION, zero velocity)? Such a block (a deck's floor and walls around
        deformable bodies) stays where it is, and its step needs none of the schemes' kernels,
        so a deck without rigid bodies does not compile them (bench/first_run.py)."""
        n = self.count
        return bool(n and self.obstacle[:n].all() and (self.scheme[:n] == _IMP).all()
                    and not self.velo[:n].any())

    def _rest(self) -> None:
        """`step_end` of a resting block (`_resting`) with zero reactions: what the RIG_IMP
        finish and the end-of-step energies leave of it (solfec_kernels.finish with Omega = 0,
        v = 0, reaction = 0: the positions and rotations unchanged, momentum + 0, obstacles'
        energies 0) and the step's finite-state check."""
        n = self.count
        self.fext[:n] += self.reaction[:n]
        self.momentum[:n] += 0.0
        self.energy[:n, 0] = 0.0
        self.energy[:n, 1] += 0.0
        self.finite_after_step = bool(np.isfinite(self.conf[:n]).all())

    def carried_rows(self) -> np.ndarray:
        """Rows [body id, scheme code, step, carry...] of the bodies whose scheme carries
        state between steps (stored with every frame so that -c continues exactly)."""
        n = self.count
        codes = self.scheme[:n].astype(np.int64)
        rows = np.flatnonzero(self.carry_ok[:n] & _CARRYING[codes])
        out = np.empty((rows.size, 3 + CARRY_WIDTH))
        out[:, 0] = [self.bodies[r].id for r in rows.tolist()]
        out[:, 1], out[:, 2], out[:, 3:] = codes[rows], self.carry_h[rows], self.carry[rows]
        return out

    def restore_carried(self, data: np.ndarray) -> None:
        """Inverse of `carried_rows` (rows of bodies with another scheme now are skipped)."""
        row_of = {b.id: b.row for b in self.bodies}
        for rec in np.atleast_2d(data):
            row = row_of.get(int(rec[0]))
            if row is not None and int(rec[1]) == self.scheme[row]:
                width = min(CARRY_WIDTH, rec.size - 3)
                self.carry[row, :width], self.carry_h[row], self.carry_ok[row] = rec[3:3 + width], rec[2], True

    def check_constraints(self) -> None:
        """RUN stops when a body's scheme cannot couple with one of its constraints
        (RigidScheme.UNSUPPORTED), naming the body, the scheme and the constraint."""
        cset = self.domain.constraints
        limited = [(code, s) for code, s in enumerate(self.schemes) if s.UNSUPPORTED]
        if not len(cset) or not hasattr(cset, "live") or not limited:
            return
        from solfec_py.constraints import KINDS

        codes = self.scheme[:self.count]
        scheme_of = {self.bodies[r].id: s for code, s in limited for r in np.flatnonzero(codes == code).tolist()}
        if not scheme_of:
            return
        kinds, bid, cid = cset.live("kind"), cset.live("bid"), cset.live("id")
        bad_kinds = [KINDS.index(name) for _, s in limited for name in s.UNSUPPORTED]
        suspect = np.isin(bid, list(scheme_of)).any(axis=1) & np.isin(kinds, bad_kinds)
        for k in np.flatnonzero(suspect).tolist():
            for b in bid[k].tolist():
                s = scheme_of.get(b)
                if s is not None and KINDS[kinds[k]] in s.UNSUPPORTED:
                    kind = KINDS[kinds[k]]
                    raise InputError(
                        f"body {b} uses the scheme {s.name}, which cannot couple with its {kind} constraint"
                        f" {cid[k]} ({_DECK_COMMAND[kind]}; docs/integrators.md); choose another scheme"
                        " for the body or drop the constraint")

    def stage_forces(self, rows, R, x, Omega, v, t, h, accel=None, implicit=False):
        """Spatial force and torque (k, 3) of `rows` (index array) at a state of a scheme's
        stage: rotation R, centre x, referential angular velocity Omega, velocity v.
        `accel`/`implicit` concern added-mass forces, which deck bodies do not have
        (solfec_py.integrators)."""
        q = np.concatenate((R.transpose(0, 2, 1).reshape(-1, 9), x), axis=1)
        u = np.concatenate((Omega, v), axis=1)
        f, ts, tr = self.loads_at(rows, R, x, t, h, conf=q, velo=u)
        return f, ts + mv(R, tr)

    def added_mass(self, rows, implicit: bool) -> np.ndarray:
        """Spatial added-mass matrices (k, 6, 6) a scheme puts in its mass matrix; none here."""
        return _NO_ADDED_MASS

    def lagged_accel(self, rows):
        """Acceleration estimate explicit schemes give added-mass forces; none here."""
        return None

    def record_accel(self, rows, accel) -> None:
        """A scheme's estimate of the end-of-step acceleration (for added-mass forces)."""

    def step_begin(self, t: float, h: float) -> None:
        """Before the constraint solve: every scheme group computes its free motion
        (Solfec's half step for RIG_POS / RIG_NEG / RIG_IMP, docs/integrators.md)."""
        self.finite_after_step = False
        self._resting_step = self._resting()
        if self._resting_step:                  # a floor or walls alone: nothing moves
            n = self.count
            self.velo0[:n] = self.velo[:n]
            self.reaction[:n] = 0.0
            return
        self._begin_schemes(t, h)

    def _begin_schemes(self, t: float, h: float) -> None:
        """`step_begin` by the schemes' kernels."""
        groups = self._step_groups = self._groups()
        if len(groups) == 1 and isinstance(groups[0][1], slice) and hasattr(groups[0][0], "begin_every_row") \
                and groups[0][0].begin_every_row(self, t, h):   # one scheme group, gravity only: one pass
            return
        _begin_rows(self.count, self.velo, self.velo0, self.reaction, self.norotation)
        for scheme, rows in self._step_groups:
            scheme.begin(self, rows, t, h)

    def step_end(self, t: float, h: float) -> None:
        """After the solve: reactions, scheme finish, energies."""
        n = self.count
        resting = getattr(self, "_resting_step", False)
        if resting and not self.reaction[:n].any():
            self._rest()
            return
        if resting:                             # a reaction on an obstacle after all: the schemes' way
            reaction = self.reaction[:n].copy()     # (the solve changed no conf or velo: begin now)
            self._begin_schemes(t, h)
            self.reaction[:n] = reaction
        groups = self._step_groups
        if len(groups) == 1 and isinstance(groups[0][1], slice) and hasattr(groups[0][0], "finish_with_energies"):
            groups[0][0].finish_with_energies(self, t, h)     # one scheme group: one pass
            return
        for scheme, rows in groups:
            scheme.finish(self, rows, t, h)
        _step_energies(n, self.velo, self.velo0, self.fext, self.reaction, self.obstacle, self.J, self.mass,
                       self.energy, 0.5 * h)


@njit
def _begin_rows(n, velo, velo0, reaction, norotation):
    """Rows 0..n-1 in one pass: the angular velocity of `norotation` rows zeroed, velo0 = velo,
    reaction = 0."""
    for k in range(n):
        begin_row(k, velo, velo0, reaction, norotation)


@njit
def _step_energies(n, velo, velo0, fext, reaction, obstacle, J, mass, energy, half_h):
    """solfec_kernels.row_energies of rows 0..n-1."""
    for k in range(n):
        row_energies(k, velo, velo0, fext, reaction, obstacle, J, mass, energy, half_h)
