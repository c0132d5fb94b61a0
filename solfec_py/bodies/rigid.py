"""Rigid and obstacle bodies (layer 3): state block, loads, dynamic and quasi-static
stepping of all rigid bodies at once. Reference: NUMERICS §1 (Solfec bod.c, RIG branch);
the schemes live in bodies/rigid_schemes (docs/integrators.md).

Storage (LANGUAGE §7.4), one row per body:
  conf = rotation Lambda column-major (9) + mass centre x (3)   -> ROTATION, CENTER
  velo = referential angular velocity Omega (3) + spatial centre velocity v (3)
         -> ANGULAR, LINEAR
Motion of a referential point X: x = xc + Lambda (X - X0), X0 = reference mass centre.
Obstacles share the block (kind flag): they ignore loads and, as in Solfec, take the
RIG_IMP finish (NUMERICS §1.5 remark), or follow a PRESCRIBED_MOTION.

A dynamic step runs each scheme group (`RigidScheme.GROUP`) on the rows that use it: one
`begin` before the constraint solve and one `finish` after it (rigid_schemes/base.py).
"""
from __future__ import annotations

import numba
import numpy as np

from solfec_py.bodies.base import BodyBlock
from solfec_py.bodies.loads import (CONVECTED_FORCE, CONVECTED_TORQUE, SPATIAL_FORCE,
                                    SPATIAL_TORQUE, PointLoads)
from solfec_py.bodies.rigid_schemes import CARRY_WIDTH, SCHEME_CODES, SCHEME_FIELDS, SCHEME_LIST
from solfec_py.bodies.rigid_schemes.base import (ANGULAR, CENTER, LINEAR, ROTATION, mtv, mv,
                                                 rotations)
from solfec_py.bodies.rigid_schemes.prescribed import states as prescribed_states
from solfec_py.errors import InputTypeError, InputError
from solfec_py.geometry.massprops import inertia_from_euler
from solfec_py.geometry.rotation import expmap, skew

IMP_CODE = SCHEME_CODES["RIG_IMP"]
PRESCRIBED_CODE = SCHEME_CODES["PRESCRIBED"]
_GROUP_KEYS = list(dict.fromkeys(s.GROUP or s.name for s in SCHEME_LIST))
_CODE_GROUP = np.array([_GROUP_KEYS.index(s.GROUP or s.name) for s in SCHEME_LIST], dtype=np.int64)
_CARRYING = np.array([s.CARRY > 0 for s in SCHEME_LIST])
_mv, _mtv = mv, mtv
_NO_ADDED_MASS = np.zeros((0, 6, 6))
_DECK_COMMAND = {"FIXPNT": "FIX_POINT", "FIXDIR": "FIX_DIRECTION", "VELODIR": "SET_VELOCITY, SET_DISPLACEMENT or"
                 " SET_ACCELERATION", "VELODIR3": "SET_VELOCITY3, SET_DISPLACEMENT3 or SET_ACCELERATION3",
                 "RIGLNK": "PUT_RIGID_LINK", "SPRING": "PUT_SPRING", "CONTACT": "contact"}


def store_rotations(conf: np.ndarray, R: np.ndarray) -> None:
    conf[:, ROTATION] = R.transpose(0, 2, 1).reshape(-1, 9)


@numba.njit(cache=True)
def _kinetic_energy(velo, J, mass):
    out = np.empty(velo.shape[0])
    for k in range(velo.shape[0]):
        w = velo[k, 0:3]
        rot = 0.0
        for i in range(3):
            rot += w[i] * (J[k, i, 0] * w[0] + J[k, i, 1] * w[1] + J[k, i, 2] * w[2])
        lin = velo[k, 3] ** 2 + velo[k, 4] ** 2 + velo[k, 5] ** 2
        out[k] = 0.5 * rot + 0.5 * mass[k] * lin
    return out


@numba.njit(cache=True)
def _cur_points(rows, X, conf, center):
    """x = xc + Lambda (X - X0) per entry (Lambda column-major in conf[row, 0:9])."""
    out = np.empty((rows.size, 3))
    for k in range(rows.size):
        r = rows[k]
        a0, a1, a2 = X[k, 0] - center[r, 0], X[k, 1] - center[r, 1], X[k, 2] - center[r, 2]
        for i in range(3):
            out[k, i] = conf[r, 9 + i] + conf[r, i] * a0 + conf[r, 3 + i] * a1 + conf[r, 6 + i] * a2
    return out


@numba.njit(cache=True)
def _delassus(rows, Ha, Hb, Jinv, mass):
    out = np.empty((rows.size, 3, 3))
    for k in range(rows.size):
        r = rows[k]
        m = mass[r]
        inv_m = 1.0 / m if m > 0.0 else 0.0
        # T = Ha_ang J^-1 (3 x 3), then T Hb_ang^T + inv_m Ha_lin Hb_lin^T
        for i in range(3):
            t0 = Ha[k, i, 0] * Jinv[r, 0, 0] + Ha[k, i, 1] * Jinv[r, 1, 0] + Ha[k, i, 2] * Jinv[r, 2, 0]
            t1 = Ha[k, i, 0] * Jinv[r, 0, 1] + Ha[k, i, 1] * Jinv[r, 1, 1] + Ha[k, i, 2] * Jinv[r, 2, 1]
            t2 = Ha[k, i, 0] * Jinv[r, 0, 2] + Ha[k, i, 1] * Jinv[r, 1, 2] + Ha[k, i, 2] * Jinv[r, 2, 2]
            for j in range(3):
                ang = t0 * Hb[k, j, 0] + t1 * Hb[k, j, 1] + t2 * Hb[k, j, 2]
                lin = Ha[k, i, 3] * Hb[k, j, 3] + Ha[k, i, 4] * Hb[k, j, 4] + Ha[k, i, 5] * Hb[k, j, 5]
                out[k, i, j] = ang + inv_m * lin
    return out


class RigidBlock(BodyBlock):
    CONF_SIZE = 12
    VELO_SIZE = 6
    FIELDS = {
        "J": ((3, 3), float),          # referential inertia about the mass centre
        "Jinv": ((3, 3), float),
        "momentum": ((3,), float),     # auxiliary vector a of RIG_NEG / RIG_IMP
        "velo0": ((6,), float),        # velocity at the start of the step
        "fext": ((6,), float),         # out-of-balance generalised force of the step
        "scheme": ((), np.int8),
        "obstacle": ((), bool),
        "norotation": ((), bool),
        "radius": ((), float),         # bounding radius of the shape about X0
        # state a scheme carries from step to step (stored with every frame, rigid_schemes)
        "carry": ((CARRY_WIDTH,), float),
        "carry_h": ((), float),        # step length that produced it
        "carry_ok": ((), bool),        # False: the scheme starts afresh at the next step
        **SCHEME_FIELDS,
    }

    def __init__(self, domain, capacity: int = 8):
        super().__init__(domain, capacity)
        self.loads = PointLoads()
        self.motions: dict = {}               # body -> motion.Motion (PRESCRIBED_MOTION)
        self.schemes = list(SCHEME_LIST)      # code -> scheme object
        self._step_groups: list = []

    # ------------------------------------------------------------------ bodies
    def _init_row(self, row, body, volume, center, euler):
        density = body.bulk_material.density
        self.mass[row] = density * volume
        self.J[row] = inertia_from_euler(euler, density)
        self.conf[row, ROTATION] = (1, 0, 0, 0, 1, 0, 0, 0, 1)
        self.conf[row, CENTER] = center
        self.obstacle[row] = body.kind == "OBSTACLE"
        self.scheme[row] = IMP_CODE if self.obstacle[row] else SCHEME_CODES["RIG_NEG"]
        self.radius[row] = _shape_radius(body.shape, center)

    def on_change(self) -> None:
        self.loads.invalidate()

    def remove(self, body) -> None:
        self.loads.remove_body(body)
        self.motions.pop(body, None)
        super().remove(body)

    def set_characteristics(self, row, mass, volume, center, inertia) -> None:
        """BODY_CHARS: overwrite m, V, X0, J (conf keeps its centre: Solfec quirk §14)."""
        self.mass[row], self.volume[row] = mass, volume
        self.center[row] = center
        self.J[row] = inertia
        self.carry_ok[row] = False

    # ------------------------------------------------------------------ schemes
    def set_scheme(self, row: int, name: str) -> None:
        """Integrate the body of `row` with the rigid scheme `name` (a key of SCHEMES);
        obstacles keep theirs (they accept the deformable names, as in Solfec)."""
        if name in SCHEME_CODES and (not self.obstacle[row] or name == "PRESCRIBED"):
            self.scheme[row] = SCHEME_CODES[name]
            self.carry_ok[row] = False

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
        """(scheme, rows) per scheme group in use; rows is a slice when the group has every row."""
        n = self.count
        gid = _CODE_GROUP[self.scheme[:n]]
        counts = np.bincount(gid, minlength=len(_GROUP_KEYS))
        out = []
        for key in np.flatnonzero(counts):
            first = self.schemes[int(np.flatnonzero(_CODE_GROUP == key)[0])]
            out.append((first, slice(0, n) if counts[key] == n else np.flatnonzero(gid == key)))
        return out

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

    # ------------------------------------------------------------------ kinematics
    def cur_point(self, row, X):
        R = rotations(self.conf[row:row + 1])[0]
        return self.conf[row, CENTER] + R @ (X - self.center[row])

    def ref_point(self, row, x):
        R = rotations(self.conf[row:row + 1])[0]
        return self.center[row] + R.T @ (x - self.conf[row, CENTER])

    def point_velocity(self, row, X):
        R = rotations(self.conf[row:row + 1])[0]
        Omega, v = self.velo[row, ANGULAR], self.velo[row, LINEAR]
        return v + R @ np.cross(Omega, X - self.center[row])

    def current_primitives(self, row):
        R = rotations(self.conf[row:row + 1])[0]
        prims = [p.copy() for p in self.bodies[row].shape]
        for p in prims:
            p.set_rigid_motion(R, self.conf[row, CENTER].copy(), self.center[row].copy())
        return prims

    # ================================================================ constraint support
    # (owned by the constraints issue; NUMERICS §1.2, §4.2, §4.9)
    # The general body interface the solver layer uses; other kinds implement the same
    # methods. All work on arrays of rows (k,) with one point / frame per entry:
    #   cur_points(rows, X) / ref_points(rows, x)  referential <-> current points (k, 3)
    #   cur_vectors(rows, d) / ref_vectors(rows, d)  push forward / pull back of directions
    #   gen_to_loc(rows, X, base) -> H (k, 3, m): local velocity = H u_row; m = the dofs a
    #       point touches (rigid: all 6; a finite element: those of its element); H stays
    #       opaque to the solvers and comes back to the same block
    #   local_velocity(rows, H, which) -> (k, 3): H u with u(t) ('start') or the current
    #       (free, after step_begin) velocity ('free')
    #   delassus(rows, Ha, Hb) -> (k, 3, 3): Ha A^-1 Hb^T for two points of the same body
    #   add_reactions(rows, H, R): reaction[rows] += H^T R (rows may repeat)
    #   contact_inert(rows) -> bool (k,): True where contacts neither react nor couple
    #       (obstacles, NUMERICS §1.2)
    def cur_points(self, rows, X, elem=None):
        return _cur_points(np.asarray(rows, dtype=np.int64), np.ascontiguousarray(X, dtype=float),
                           self.conf, self.center)

    def ref_points(self, rows, x, elem=None):
        rows = np.asarray(rows, dtype=np.int64)
        return self.center[rows] + _mtv(rotations(self.conf[rows]), x - self.conf[rows, CENTER])

    def cur_vectors(self, rows, d):
        return _mv(rotations(self.conf[np.asarray(rows, dtype=np.int64)]), d)

    def ref_vectors(self, rows, d):
        return _mtv(rotations(self.conf[np.asarray(rows, dtype=np.int64)]), d)

    def gen_to_loc(self, rows, X, base, elem=None):
        """H = [base^T Lambda [A]x^T | base^T], A = X - X0 (NUMERICS §1.2)."""
        rows = np.asarray(rows, dtype=np.int64)
        A = X - self.center[rows]
        BtL = np.einsum("kji,kjl->kil", base, rotations(self.conf[rows]))   # base^T Lambda
        H = np.empty((rows.size, 3, 6))
        # base^T Lambda [A]x^T Omega = base^T Lambda (Omega x A): column j is BtL (e_j x A)
        H[:, :, 0:3] = -np.einsum("kil,klj->kij", BtL, skew(A))
        H[:, :, 3:6] = base.transpose(0, 2, 1)
        return H

    def local_velocity(self, rows, H, which="free"):
        u = (self.velo0 if which == "start" else self.velo)[np.asarray(rows, dtype=np.int64)]
        return np.einsum("kij,kj->ki", H, u)

    def delassus(self, rows, Ha, Hb):
        """Ha A^-1 Hb^T per entry: Ha_ang J^-1 Hb_ang^T + Ha_lin Hb_lin^T / m (numba)."""
        rows = np.asarray(rows, dtype=np.int64)
        return _delassus(rows, np.ascontiguousarray(Ha), np.ascontiguousarray(Hb), self.Jinv, self.mass)

    def add_reactions(self, rows, H, R):
        np.add.at(self.reaction, np.asarray(rows, dtype=np.int64), np.einsum("kij,ki->kj", H, R))

    def contact_inert(self, rows):
        return self.obstacle[np.asarray(rows, dtype=np.int64)].copy()
    # ============================================================ end constraint support

    def bounding_boxes(self):
        n = self.count
        x = self.conf[:n, CENTER]
        r = self.radius[:n, None]
        return x - r, x + r

    def kinetic_energy(self) -> np.ndarray:
        """1/2 Omega.J Omega + 1/2 m v.v of every row (obstacles included)."""
        n = self.count
        return _kinetic_energy(self.velo[:n], self.J[:n], self.mass[:n])

    # ------------------------------------------------------------------ time stepping
    def critical_step(self) -> float:
        return np.inf

    def dynamic_init(self) -> None:
        """Invert inertia (after any BODY_CHARS), place driven obstacles, set the initial
        kinetic energy."""
        n = self.count
        live = ~self.obstacle[:n] | (self.mass[:n] > 0)
        bad = np.flatnonzero(live & ~(np.linalg.det(self.J[:n]) > 0))
        if bad.size:
            body = self.bodies[int(bad[0])]
            raise InputError(f"body {body.id} has a singular inertia tensor; check its shape or BODY_CHARS")
        self.Jinv[:n] = np.linalg.inv(self.J[:n])
        self._check_constraints()
        driven = np.flatnonzero(self.scheme[:n] == PRESCRIBED_CODE)
        if driven.size:
            self.conf[driven], self.velo[driven] = prescribed_states(self, driven, self.domain.time)
        energy = self.kinetic_energy()
        energy[self.obstacle[:n]] = 0.0
        self.energy[:n, 0] = energy

    def _check_constraints(self) -> None:
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

    def loads_at(self, rows, R, x, t, h, conf=None, velo=None):
        """Force f, spatial torque ts, referential torque tr (k, 3) of `rows` (a slice of
        every row or an index array) at the configuration (R, x) (k rows) and time t.
        FORCE callbacks receive `conf`/`velo` (k rows) or, when not given, the block's
        current conf and the start-of-step velocity (Solfec's half step)."""
        n = self.count
        k = R.shape[0]
        everything = isinstance(rows, slice)
        f = np.zeros((k, 3))
        ts = np.zeros((k, 3))
        tr = np.zeros((k, 3))
        g = self.domain.gravity_at(t)
        if np.any(g):
            f += self.mass[rows, None] * g
        where = None
        if not everything:
            where = np.full(n, -1, dtype=np.int64)
            where[rows] = np.arange(k)
        if len(self.loads):
            lrows, kinds, points, dirs = self.loads.arrays()
            mags = self.loads.magnitudes(t)
            pos = lrows
            if where is not None:
                pos = where[lrows]
                keep = pos >= 0
                pos, lrows, kinds, points, dirs, mags = (pos[keep], lrows[keep], kinds[keep], points[keep],
                                                         dirs[keep], mags[keep])
            sd = mags[:, None] * dirs
            Rr = R[pos]
            is_force = kinds <= CONVECTED_FORCE
            force = np.where((kinds == CONVECTED_FORCE)[:, None], _mv(Rr, sd), sd)
            arm = _mv(Rr, points - self.center[lrows])
            np.add.at(f, pos[is_force], force[is_force])
            np.add.at(ts, pos[is_force], np.cross(arm, force)[is_force])
            np.add.at(ts, pos[kinds == SPATIAL_TORQUE], sd[kinds == SPATIAL_TORQUE])
            np.add.at(tr, pos[kinds == CONVECTED_TORQUE], sd[kinds == CONVECTED_TORQUE])
        for cb in self.loads.callbacks:
            row = cb.body.row
            p = row if where is None else int(where[row])
            if p < 0:
                continue
            q = self.conf[row] if conf is None else conf[p]
            u = self.velo0[row] if velo is None else velo[p]
            out = cb.call(tuple(q.tolist()), tuple(u.tolist()), t, h)
            f[p], ts[p], tr[p] = _callback_result(cb, out, f[p], ts[p], tr[p])
        obstacles = self.obstacle[rows]
        if obstacles.any():
            f[obstacles] = ts[obstacles] = tr[obstacles] = 0.0
        return f, ts, tr

    def stage_forces(self, rows, R, x, Omega, v, t, h, accel=None, implicit=False):
        """Spatial force and torque (k, 3) of `rows` (index array) at a state of a scheme's
        stage: rotation R, centre x, referential angular velocity Omega, velocity v.
        `accel`/`implicit` concern added-mass forces, which deck bodies do not have
        (solfec_py.integrators)."""
        q = np.concatenate((R.transpose(0, 2, 1).reshape(-1, 9), x), axis=1)
        u = np.concatenate((Omega, v), axis=1)
        f, ts, tr = self.loads_at(rows, R, x, t, h, conf=q, velo=u)
        return f, ts + _mv(R, tr)

    def added_mass(self, rows, implicit: bool) -> np.ndarray:
        """Spatial added-mass matrices (k, 6, 6) a scheme puts in its mass matrix; none here."""
        return _NO_ADDED_MASS

    def lagged_accel(self, rows):
        """Acceleration estimate explicit schemes give added-mass forces; none here."""
        return None

    def record_accel(self, rows, accel) -> None:
        """A scheme's estimate of the end-of-step acceleration (for added-mass forces)."""

    def _loads(self, R, x, t, h):
        """loads_at for every row (Solfec's half step and quasi-static predictor)."""
        return self.loads_at(slice(0, self.count), R, x, t, h)

    def step_begin(self, t: float, h: float) -> None:
        """Before the constraint solve: every scheme group computes its free motion
        (NUMERICS §1.5 items 1-7 for Solfec's schemes)."""
        n = self.count
        velo = self.velo[:n]
        velo[self.norotation[:n], ANGULAR] = 0.0
        self.velo0[:n] = velo
        self.reaction[:n] = 0.0
        self._step_groups = self._groups()
        for scheme, rows in self._step_groups:
            scheme.begin(self, rows, t, h)

    def step_end(self, t: float, h: float) -> None:
        """After the solve: reactions, scheme finish, energies."""
        n = self.count
        for scheme, rows in self._step_groups:
            scheme.finish(self, rows, t, h)
        velo = self.velo[:n]
        self.fext[:n] += self.reaction[:n]
        live = ~self.obstacle[:n]
        work = 0.5 * h * np.einsum("ni,ni->n", self.velo0[:n] + velo, self.fext[:n])
        self.energy[:n, 1] += np.where(live, work, 0.0)
        self.energy[:n, 0] = np.where(live, self.kinetic_energy(), 0.0)

    def qs_step_begin(self, t: float, h: float) -> None:
        """Quasi-static predictor (NUMERICS §1.6): velocity without memory."""
        n = self.count
        conf, velo = self.conf[:n], self.velo[:n]
        self.velo0[:n] = velo
        self.reaction[:n] = 0.0
        Omega, v = velo[:, ANGULAR].copy(), velo[:, LINEAR].copy()
        R = rotations(conf)
        f, ts, tr = self._loads(R @ expmap(h * Omega), conf[:, CENTER] + h * v, t + h, h)
        T = _mtv(R, ts) + tr
        J, Jinv = self.J[:n], self.Jinv[:n]
        Omega_s = _mv(Jinv, _mtv(expmap(h * Omega), _mv(J, Omega)) + h * T)
        G = T - np.cross(Omega_s, _mv(J, Omega_s))
        mass = np.where(self.mass[:n] > 0, self.mass[:n], 1.0)
        velo[:, ANGULAR] = h * _mv(Jinv, G)
        velo[:, LINEAR] = (h / mass)[:, None] * f
        velo[self.norotation[:n], ANGULAR] = 0.0

    def qs_step_end(self, t: float, h: float) -> None:
        n = self.count
        conf, velo = self.conf[:n], self.velo[:n]
        mass = np.where(self.mass[:n] > 0, self.mass[:n], 1.0)
        velo[:, ANGULAR] += h * _mv(self.Jinv[:n], self.reaction[:n, ANGULAR])
        velo[:, LINEAR] += (h / mass)[:, None] * self.reaction[:n, LINEAR]
        velo[self.norotation[:n], ANGULAR] = 0.0
        conf[:, CENTER] += h * velo[:, LINEAR]
        store_rotations(conf, rotations(conf) @ expmap(h * velo[:, ANGULAR]))


def _callback_result(cb, out, f, ts, tr):
    """Check a FORCE callback result (a 9-tuple for rigid bodies) and add it to the loads."""
    name = getattr(cb.function, "__name__", "callback")
    if not isinstance(out, tuple):
        raise InputTypeError(
            f"FORCE callback {name!r} of body {cb.body.id} must return a tuple of 9 numbers"
            f" (force, spatial torque, referential torque), got {type(out).__name__}")
    if len(out) != 9:
        raise InputError(
            f"FORCE callback {name!r} of body {cb.body.id} returned a tuple of {len(out)} items;"
            " a rigid body needs 9 (force, spatial torque, referential torque)")
    try:
        vals = np.array(out, dtype=float)
    except (TypeError, ValueError):
        raise InputTypeError(f"FORCE callback {name!r} of body {cb.body.id} returned non-numbers: {out!r}") from None
    return f + vals[0:3], ts + vals[3:6], tr + vals[6:9]


def _shape_radius(primitives, center) -> float:
    """Radius of a sphere about `center` containing the reference shape."""
    r = 0.0
    for p in primitives:
        lo, hi = p.bounding_box()
        corners = np.array([[a, b, c] for a in (lo[0], hi[0]) for b in (lo[1], hi[1]) for c in (lo[2], hi[2])])
        r = max(r, float(np.linalg.norm(corners - center, axis=1).max()))
    return r
