"""Rigid and obstacle bodies (layer 3): state block, loads, dynamic and quasi-static
stepping of all rigid bodies at once. Reference: NUMERICS §1 (Solfec bod.c, RIG branch).

Storage (LANGUAGE §7.4), one row per body:
  conf = rotation Lambda column-major (9) + mass centre x (3)   -> ROTATION, CENTER
  velo = referential angular velocity Omega (3) + spatial centre velocity v (3)
         -> ANGULAR, LINEAR
Motion of a referential point X: x = xc + Lambda (X - X0), X0 = reference mass centre.
Obstacles share the block (kind flag): they ignore loads and, as in Solfec, take the
RIG_IMP finish (NUMERICS §1.5 remark).
"""
from __future__ import annotations

import numba
import numpy as np

from solfec_py.bodies.base import BodyBlock
from solfec_py.bodies.loads import (CONVECTED_FORCE, CONVECTED_TORQUE, SPATIAL_FORCE,
                                    SPATIAL_TORQUE, PointLoads)
from solfec_py.bodies.rigid_schemes import SCHEME_CODES, SCHEME_LIST
from solfec_py.errors import InputTypeError, InputError
from solfec_py.geometry.massprops import inertia_from_euler
from solfec_py.geometry.rotation import expmap, skew

ROTATION = slice(0, 9)
CENTER = slice(9, 12)
ANGULAR = slice(0, 3)
LINEAR = slice(3, 6)
IMP_CODE = SCHEME_CODES["RIG_IMP"]


def rotations(conf: np.ndarray) -> np.ndarray:
    """(n, 3, 3) rotation matrices from column-major conf rows."""
    return conf[:, ROTATION].reshape(-1, 3, 3).transpose(0, 2, 1)


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
def _point_velocities(rows, X, conf, velo, center):
    """v = vc + Lambda (Omega x (X - X0)) per entry (Lambda column-major in conf[row, 0:9],
    Omega = velo[row, 0:3] referential, vc = velo[row, 3:6])."""
    out = np.empty((rows.size, 3))
    for k in range(rows.size):
        r = rows[k]
        a0, a1, a2 = X[k, 0] - center[r, 0], X[k, 1] - center[r, 1], X[k, 2] - center[r, 2]
        w0, w1, w2 = velo[r, 0], velo[r, 1], velo[r, 2]
        b0, b1, b2 = w1 * a2 - w2 * a1, w2 * a0 - w0 * a2, w0 * a1 - w1 * a0
        for i in range(3):
            out[k, i] = velo[r, 3 + i] + conf[r, i] * b0 + conf[r, 3 + i] * b1 + conf[r, 6 + i] * b2
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


def _mv(M, v):
    return np.einsum("nij,nj->ni", M, v)


def _mtv(M, v):
    return np.einsum("nji,nj->ni", M, v)


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
    }

    def __init__(self, domain, capacity: int = 8):
        super().__init__(domain, capacity)
        self.loads = PointLoads()

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
        super().remove(body)

    def set_scheme(self, row: int, name: str) -> None:
        if name in SCHEME_CODES:               # obstacles report DEF_* names and keep RIG_IMP
            self.scheme[row] = SCHEME_CODES[name]

    def set_initial_velocity(self, row: int, linear, angular) -> None:
        self.velo[row, ANGULAR], self.velo[row, LINEAR] = angular, linear

    def tensor(self, row: int) -> np.ndarray:
        return self.J[row]

    def set_characteristics(self, row, mass, volume, center, inertia) -> None:
        """BODY_CHARS: overwrite m, V, X0, J (conf keeps its centre: Solfec quirk §14)."""
        self.mass[row], self.volume[row] = mass, volume
        self.center[row] = center
        self.J[row] = inertia

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

    # ================================================================ body interface
    # (bodies/base.py contract items 4-5; NUMERICS §1.2, §4.2, §4.9). All work on arrays of
    # rows (k,) with one point / frame per entry; `elem` is ignored (a rigid body moves
    # all its geometric objects alike). H (k, 3, 6) = the local velocity of a point as a
    # linear map of the 6 body velocities.
    def cur_points(self, rows, X, elem=None):
        return _cur_points(np.asarray(rows, dtype=np.int64), np.ascontiguousarray(X, dtype=float),
                           self.conf, self.center)

    def ref_points(self, rows, x, elem=None):
        rows = np.asarray(rows, dtype=np.int64)
        return self.center[rows] + _mtv(rotations(self.conf[rows]), x - self.conf[rows, CENTER])

    def cur_vectors(self, rows, d, elem=None):
        return _mv(rotations(self.conf[np.asarray(rows, dtype=np.int64)]), d)

    def ref_vectors(self, rows, d, elem=None):
        return _mtv(rotations(self.conf[np.asarray(rows, dtype=np.int64)]), d)

    def point_velocities(self, rows, X, elem=None):
        """v = vc + Lambda (Omega x (X - X0)) per entry (numba)."""
        return _point_velocities(np.asarray(rows, dtype=np.int64).reshape(-1), np.ascontiguousarray(X, dtype=float),
                                 self.conf, self.velo, self.center)

    def point_objects(self, rows, X):
        return np.full(np.asarray(rows).size, -1, dtype=np.int64)

    def stresses(self, rows, X, elem=None):
        """Rigid bodies carry no stress: zeros (LANGUAGE §15.3)."""
        return np.zeros((np.asarray(rows).size, 7))

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
    # ============================================================ end body interface

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
        """Invert inertia (after any BODY_CHARS) and set the initial kinetic energy."""
        n = self.count
        live = ~self.obstacle[:n] | (self.mass[:n] > 0)
        bad = np.flatnonzero(live & ~(np.linalg.det(self.J[:n]) > 0))
        if bad.size:
            body = self.bodies[int(bad[0])]
            raise InputError(f"body {body.id} has a singular inertia tensor; check its shape or BODY_CHARS")
        self.Jinv[:n] = np.linalg.inv(self.J[:n])
        energy = self.kinetic_energy()
        energy[self.obstacle[:n]] = 0.0
        self.energy[:n, 0] = energy

    def _loads(self, R, x, t, h):
        """Force f, spatial torque ts, referential torque tr (n, 3) at configuration (R, x)."""
        n = self.count
        f = np.zeros((n, 3))
        ts = np.zeros((n, 3))
        tr = np.zeros((n, 3))
        g = self.domain.gravity_at(t)
        if np.any(g):
            f += self.mass[:n, None] * g
        if len(self.loads):
            rows, kinds, points, dirs = self.loads.arrays()
            sd = self.loads.magnitudes(t)[:, None] * dirs
            Rr = R[rows]
            is_force = kinds <= CONVECTED_FORCE
            force = np.where((kinds == CONVECTED_FORCE)[:, None], _mv(Rr, sd), sd)
            arm = _mv(Rr, points - self.center[rows])
            np.add.at(f, rows[is_force], force[is_force])
            np.add.at(ts, rows[is_force], np.cross(arm, force)[is_force])
            np.add.at(ts, rows[kinds == SPATIAL_TORQUE], sd[kinds == SPATIAL_TORQUE])
            np.add.at(tr, rows[kinds == CONVECTED_TORQUE], sd[kinds == CONVECTED_TORQUE])
        for cb in self.loads.callbacks:
            row = cb.body.row
            out = cb.call(tuple(self.conf[row].tolist()), tuple(self.velo0[row].tolist()), t, h)
            f[row], ts[row], tr[row] = _callback_result(cb, out, f[row], ts[row], tr[row])
        obstacles = self.obstacle[:n]
        if obstacles.any():
            f[obstacles] = ts[obstacles] = tr[obstacles] = 0.0
        return f, ts, tr

    def step_begin(self, t: float, h: float) -> None:
        """First half step (NUMERICS §1.5 items 1-7) for every rigid body."""
        n = self.count
        conf, velo = self.conf[:n], self.velo[:n]
        velo[self.norotation[:n], ANGULAR] = 0.0
        self.velo0[:n] = velo
        self.reaction[:n] = 0.0
        Omega, v = velo[:, ANGULAR].copy(), velo[:, LINEAR].copy()
        dR = expmap(0.5 * h * Omega)
        R_half = rotations(conf) @ dR
        store_rotations(conf, R_half)
        conf[:, CENTER] += 0.5 * h * v
        f, ts, tr = self._loads(R_half, conf[:, CENTER], t + 0.5 * h, h)
        T = _mtv(R_half, ts) + tr
        J, Jinv = self.J[:n], self.Jinv[:n]
        L = _mtv(dR, _mv(J, Omega))                 # dR^T J Omega^t
        self.momentum[:n] = L + h * T
        Omega_half = _mv(Jinv, L + 0.5 * h * T)
        G = T - np.cross(Omega_half, _mv(J, Omega_half))
        self.fext[:n, ANGULAR], self.fext[:n, LINEAR] = G, f
        velo[:, ANGULAR] = Omega + h * _mv(Jinv, G)
        velo[:, LINEAR] = v + (h / np.where(self.mass[:n] > 0, self.mass[:n], 1.0))[:, None] * f

    def step_end(self, t: float, h: float) -> None:
        """Second half step: reactions, centre update, scheme finish, energies."""
        n = self.count
        conf, velo = self.conf[:n], self.velo[:n]
        Tc, fc = self.reaction[:n, ANGULAR], self.reaction[:n, LINEAR]
        mass = np.where(self.mass[:n] > 0, self.mass[:n], 1.0)
        Omega1 = velo[:, ANGULAR] + h * _mv(self.Jinv[:n], Tc)
        velo[:, LINEAR] += (h / mass)[:, None] * fc
        conf[:, CENTER] += 0.5 * h * velo[:, LINEAR]
        norot = self.norotation[:n]
        Omega1[norot] = 0.0
        R_half = rotations(conf)
        R_end, Omega_end = R_half.copy(), Omega1.copy()
        codes = self.scheme[:n]
        for code, scheme in enumerate(SCHEME_LIST):
            idx = np.flatnonzero(codes == code)
            if idx.size:
                R_end[idx], Omega_end[idx] = scheme.finish(self, idx, h, R_half[idx], Omega1[idx], Tc[idx])
        R_end[norot], Omega_end[norot] = R_half[norot], 0.0
        store_rotations(conf, R_end)
        velo[:, ANGULAR] = Omega_end
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
