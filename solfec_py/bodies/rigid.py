"""Rigid and obstacle bodies (layer 3): state block, loads, dynamic and quasi-static
stepping of all rigid bodies at once. Reference: Solfec-1.0 bod.c (RIG branch);
the schemes live in bodies/rigid_schemes (docs/integrators.md).

Storage (Solfec-1.0 user manual, BODY conf and velo), one row per body:
  conf = rotation Lambda column-major (9) + mass centre x (3)   -> ROTATION, CENTER
  velo = referential angular velocity Omega (3) + spatial centre velocity v (3)
         -> ANGULAR, LINEAR
Motion of a referential point X: x = xc + Lambda (X - X0), X0 = reference mass centre.
Obstacles share the block (kind flag): they ignore loads and, as in Solfec, take the
RIG_IMP finish (Solfec's obstacle quirk), or follow a PRESCRIBED_MOTION.

A dynamic step runs each scheme group (`RigidScheme.GROUP`) on the rows that use it: one
`begin` before the constraint solve and one `finish` after it (rigid_schemes/base.py).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import obstacle_points
from solfec_py.bodies.base import BodyBlock
from solfec_py.bodies.loads import CONVECTED_FORCE, PointLoads, rigid_loads
from solfec_py.bodies.rigid_schemes import CARRY_WIDTH, SCHEME_CODES, SCHEME_FIELDS, SCHEME_LIST
from solfec_py.bodies.rigid_schemes.base import ANGULAR, CENTER, LINEAR, ROTATION, mtv, mv, rotations
from solfec_py.bodies.rigid_schemes.prescribed import states as prescribed_states
from solfec_py.bodies.rigid_schemes.support import SchemeSupport
from solfec_py.compilation import njit
from solfec_py.errors import InputError
from solfec_py.geometry.massprops import inertia_from_euler, pressure_resultant, volume_pieces
from solfec_py.geometry.mesh import Mesh
from solfec_py.geometry.rotation import expmap

IMP_CODE = SCHEME_CODES["RIG_IMP"]
PRESCRIBED_CODE = SCHEME_CODES["PRESCRIBED"]
_mv, _mtv = mv, mtv


def store_rotations(conf: np.ndarray, R: np.ndarray) -> None:
    conf[:, ROTATION] = R.transpose(0, 2, 1).reshape(-1, 9)


@njit
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


@njit
def _cur_points(rows, X, conf, center):
    """x = xc + Lambda (X - X0) per entry (Lambda column-major in conf[row, 0:9])."""
    out = np.empty((rows.size, 3))
    for k in range(rows.size):
        r = rows[k]
        a0, a1, a2 = X[k, 0] - center[r, 0], X[k, 1] - center[r, 1], X[k, 2] - center[r, 2]
        for i in range(3):
            out[k, i] = conf[r, 9 + i] + conf[r, i] * a0 + conf[r, 3 + i] * a1 + conf[r, 6 + i] * a2
    return out


@njit
def _ref_points(rows, x, conf, center):
    """X = X0 + Lambda^T (x - xc) per entry (Lambda column-major in conf[row, 0:9]); the
    sums pair as numpy's einsum nji,nj->ni does for 3 terms, (p0 + p2) + p1, so the points
    are those of the einsum expression this replaced, bit for bit."""
    out = np.empty((rows.size, 3))
    for k in range(rows.size):
        r = rows[k]
        d0, d1, d2 = x[k, 0] - conf[r, 9], x[k, 1] - conf[r, 10], x[k, 2] - conf[r, 11]
        for i in range(3):
            out[k, i] = center[r, i] + ((conf[r, 3 * i] * d0 + conf[r, 3 * i + 2] * d2) + conf[r, 3 * i + 1] * d1)
    return out


@njit
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


@njit
def _delassus(rows, Ha, Hb, ia, ib, Jinv, mass, out):
    """Entry k (of out[:ia.size]): rows[ia[k]], Ha[ia[k]], Hb[ib[k]] (indices instead of
    gathered copies)."""
    for k in range(ia.size):
        a, b = ia[k], ib[k]
        r = rows[a]
        m = mass[r]
        inv_m = 1.0 / m if m > 0.0 else 0.0
        # T = Ha_ang J^-1 (3 x 3), then T Hb_ang^T + inv_m Ha_lin Hb_lin^T
        for i in range(3):
            t0 = Ha[a, i, 0] * Jinv[r, 0, 0] + Ha[a, i, 1] * Jinv[r, 1, 0] + Ha[a, i, 2] * Jinv[r, 2, 0]
            t1 = Ha[a, i, 0] * Jinv[r, 0, 1] + Ha[a, i, 1] * Jinv[r, 1, 1] + Ha[a, i, 2] * Jinv[r, 2, 1]
            t2 = Ha[a, i, 0] * Jinv[r, 0, 2] + Ha[a, i, 1] * Jinv[r, 1, 2] + Ha[a, i, 2] * Jinv[r, 2, 2]
            for j in range(3):
                ang = t0 * Hb[b, j, 0] + t1 * Hb[b, j, 1] + t2 * Hb[b, j, 2]
                lin = Ha[a, i, 3] * Hb[b, j, 3] + Ha[a, i, 4] * Hb[b, j, 4] + Ha[a, i, 5] * Hb[b, j, 5]
                out[k, i, j] = ang + inv_m * lin


@njit
def _gen_to_loc(rows, X, base, conf, center):
    """H = [base^T Lambda [A]x^T | base^T], A = X - X0, per entry (Lambda column-major in
    conf[row, 0:9]); sums in the order of the einsum expressions it replaces, zero
    products of [A]x included, so the entries are those numpy computes."""
    n = rows.size
    H = np.empty((n, 3, 6))
    BtL = np.empty((3, 3))
    S = np.zeros((3, 3))
    for k in range(n):
        r = rows[k]
        a0, a1, a2 = X[k, 0] - center[r, 0], X[k, 1] - center[r, 1], X[k, 2] - center[r, 2]
        S[0, 1], S[0, 2], S[1, 0], S[1, 2], S[2, 0], S[2, 1] = -a2, a1, a2, -a0, -a1, a0
        for i in range(3):
            for l in range(3):      # (base^T Lambda)[i, l] = sum_j base[j, i] Lambda[j, l]
                acc = 0.0
                for j in range(3):
                    acc += base[k, j, i] * conf[r, 3 * l + j]
                BtL[i, l] = acc
        for i in range(3):
            for j in range(3):
                acc = 0.0
                for l in range(3):
                    acc += BtL[i, l] * S[l, j]
                H[k, i, j] = -acc
                H[k, i, 3 + j] = base[k, j, i]
    return H


@njit
def _local_velocity(rows, H, velo):
    """U = H u per entry, u = velo[rows[k]] (6): summed as numpy's einsum kij,kj->ki sums six
    contiguous products (two lanes, p0 + p2 + p4 and p1 + p3 + p5, then the lanes added)."""
    out = np.empty((rows.size, 3))
    for k in range(rows.size):
        r = rows[k]
        for i in range(3):
            lane0 = ((0.0 + H[k, i, 0] * velo[r, 0]) + H[k, i, 2] * velo[r, 2]) + H[k, i, 4] * velo[r, 4]
            lane1 = ((0.0 + H[k, i, 1] * velo[r, 1]) + H[k, i, 3] * velo[r, 3]) + H[k, i, 5] * velo[r, 5]
            out[k, i] = (lane0 + lane1) + 0.0
    return out


@njit
def _add_reactions(reaction, rows, H, R):
    """reaction[rows[k]] += H[k]^T R[k]: each product summed over i from zero (the einsum
    kij,ki->kj it replaces), added to the rows in entry order (np.add.at)."""
    for k in range(rows.size):
        r = rows[k]
        for j in range(H.shape[2]):
            acc = 0.0
            for i in range(3):
                acc += H[k, i, j] * R[k, i]
            reaction[r, j] += acc


@njit
def _add_signed_reactions(reaction, rows, H, con, sign, R, inert):
    """_add_reactions of the entries k not `inert`, with R[k] = sign[k] R[con[k]] formed
    in place (the gathered, masked numpy arguments it replaces; same products and order)."""
    Rk = np.empty(3)
    for k in range(rows.size):
        if inert[k]:
            continue
        c = con[k]
        for i in range(3):
            Rk[i] = sign[k] * R[c, i]
        r = rows[k]
        for j in range(H.shape[2]):
            acc = 0.0
            for i in range(3):
                acc += H[k, i, j] * Rk[i]
            reaction[r, j] += acc


class RigidBlock(SchemeSupport, BodyBlock):
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
        self._part_materials: dict = {}       # body id -> {volid: BulkMaterial} (APPLY_BULKMAT)

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
        self._group_cache = None
        self._only_obstacles = None

    def remove(self, body) -> None:
        self.loads.remove_body(body)
        self.motions.pop(body, None)
        super().remove(body)

    def _park(self, body) -> dict:
        parked = {"loads": self.loads.extract(body)}
        if body in self.motions:
            parked["motion"] = self.motions.pop(body)
        return parked

    def _unpark(self, body, parked: dict) -> None:
        if "loads" in parked:
            self.loads.restore(parked["loads"])
        if "motion" in parked:
            self.motions[body] = parked["motion"]

    def movable(self, rows) -> str:
        if self.domain.joints:
            return "links of JOINT trees (articulated bodies) stay on one process"
        return ""

    TENSOR = "J"

    def initial_velocity(self, row: int, linear, angular) -> None:
        """velo = (angular as the referential Omega, linear)."""
        self.velo[row, ANGULAR], self.velo[row, LINEAR] = angular, linear

    def obstacles(self) -> np.ndarray:
        return self.obstacle[: self.count]

    def add_pressure(self, body, surfid: int, value) -> None:
        """PRESSURE: as Solfec-1.0 bod.c applies it to a rigid body, one force value * S at
        the mean point of the faces `surfid` of the body's single MESH, S = ∫N dA (the area
        vector of those faces). S turns with the body, so the record is a convected force
        with the unnormalised direction S."""
        shape = body.shape
        if len(shape) != 1 or not isinstance(shape[0], Mesh):
            raise InputError(f"Pressure can be applied to a body with a single MESH based shape; body {body.id}"
                             f" has {len(shape)} primitive(s) of kinds {sorted({type(p).__name__.upper() for p in shape})}")
        count, point, S = pressure_resultant(shape[0], surfid)
        if count == 0:
            raise InputError(f"PRESSURE: body {body.id} has no boundary faces with surface id {surfid};"
                             f" its surface ids are {sorted(set(shape[0].boundary_faces()[2].tolist()))}")
        self.loads.add(body, CONVECTED_FORCE, point, S, value)
        self.loads.directions[-1] = S

    def apply_material(self, body, volid: int, record) -> int:
        """APPLY_BULKMAT: the parts of `body` with volume id `volid` (mesh elements, convexes,
        spheres, ellipsoids) take `record`; the body's mass, centre and inertia follow the
        densities of its parts (Solfec-1.0 bod.c BODY_Material records the part materials
        only) and its motion is kept: the centre and its velocity are re-expressed about the
        new centre. Returns how many parts have `volid` (0: none, nothing changes)."""
        pieces = volume_pieces(body.shape)
        count = sum(1 for p in pieces if p[0] == volid)
        if count == 0:
            return 0
        mixed = self._part_materials.setdefault(body.id, {})
        mixed[volid] = record
        density = np.array([mixed.get(p[0], body.bulk_material).density for p in pieces])
        vol = np.array([p[1] for p in pieces])
        centres = np.array([p[2] for p in pieces])
        m = float(density @ vol)
        row = body.row
        X0 = (density * vol) @ centres / m if m > 0 else self.center[row].copy()
        E0 = sum(rho * (p[3] + p[1] * np.outer(p[2] - X0, p[2] - X0)) for rho, p in zip(density, pieces))
        R = rotations(self.conf[row:row + 1])[0]
        d = X0 - self.center[row]
        self.conf[row, CENTER] += R @ d
        self.velo[row, LINEAR] += R @ np.cross(self.velo[row, ANGULAR], d)
        self.center[row], self.mass[row] = X0, m
        self.J[row] = inertia_from_euler(E0, 1.0)
        self.radius[row] = _shape_radius(body.shape, X0)
        self.carry_ok[row] = False
        return count

    def material_users(self, record) -> list:
        return [b for b in self.bodies
                if b.bulk_material is record or any(r is record for r in self._part_materials.get(b.id, {}).values())]

    def set_characteristics(self, row, mass, volume, center, inertia) -> None:
        """BODY_CHARS: overwrite m, V, X0, J (conf keeps its centre: a Solfec lng.c quirk)."""
        self.mass[row], self.volume[row] = mass, volume
        self.center[row] = center
        self.J[row] = inertia
        self.carry_ok[row] = False

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
    # (bodies/base.py contract items 4-5; docs/integrators.md; Solfec-1.0 ldy.c, local dynamics; Solfec-1.0 ldy.c, velocity update). All work on arrays of
    # rows (k,) with one point / frame per entry; `elem` is ignored (a rigid body moves
    # all its geometric objects alike). H (k, 3, 6) = the local velocity of a point as a
    # linear map of the 6 body velocities.
    def _obstacles_only(self) -> bool:
        """Every row an obstacle: the point maps go by numpy (bodies/obstacle_points.py, the
        same bits), and a deck whose rigid bodies are all obstacles compiles no kernel here.
        Known until the rows change (on_change)."""
        known = self.__dict__.get("_only_obstacles")
        if known is None:
            n = self.count
            known = self._only_obstacles = n > 0 and bool(self.obstacle[:n].all())
        return known

    def cur_points(self, rows, X, elem=None):
        if self._obstacles_only():
            return obstacle_points.cur_points(np.asarray(rows, dtype=np.int64).reshape(-1), np.asarray(X, dtype=float),
                                              self.conf, self.center)
        return _cur_points(np.asarray(rows, dtype=np.int64), np.ascontiguousarray(X, dtype=float),
                           self.conf, self.center)

    def ref_points(self, rows, x, elem=None):
        """X = X0 + Lambda^T (x - xc) per entry (numba, bit for bit the einsum form)."""
        if self._obstacles_only():
            return obstacle_points.ref_points(np.asarray(rows, dtype=np.int64).reshape(-1), np.asarray(x, dtype=float),
                                              self.conf, self.center)
        return _ref_points(np.asarray(rows, dtype=np.int64).reshape(-1), np.ascontiguousarray(x, dtype=float),
                           self.conf, self.center)

    def cur_vectors(self, rows, d, elem=None):
        return _mv(rotations(self.conf[np.asarray(rows, dtype=np.int64)]), d)

    def ref_vectors(self, rows, d, elem=None):
        return _mtv(rotations(self.conf[np.asarray(rows, dtype=np.int64)]), d)

    def point_velocities(self, rows, X, elem=None):
        """v = vc + Lambda (Omega x (X - X0)) per entry (numba)."""
        if self._obstacles_only():
            return obstacle_points.point_velocities(np.asarray(rows, dtype=np.int64).reshape(-1),
                                                    np.asarray(X, dtype=float), self.conf, self.velo, self.center)
        return _point_velocities(np.asarray(rows, dtype=np.int64).reshape(-1), np.ascontiguousarray(X, dtype=float),
                                 self.conf, self.velo, self.center)

    def point_objects(self, rows, X):
        return np.full(np.asarray(rows).size, -1, dtype=np.int64)

    def gen_to_loc(self, rows, X, base, elem=None):
        """H = [base^T Lambda [A]x^T | base^T], A = X - X0 (docs/integrators.md; numba)."""
        if self._obstacles_only():
            return obstacle_points.gen_to_loc(np.asarray(rows, dtype=np.int64).reshape(-1), np.asarray(X, dtype=float),
                                              np.asarray(base, dtype=float), self.conf, self.center)
        return _gen_to_loc(np.asarray(rows, dtype=np.int64).reshape(-1), np.ascontiguousarray(X, dtype=float),
                           np.ascontiguousarray(base, dtype=float), self.conf, self.center)

    def local_velocity(self, rows, H, which="free"):
        """H u of the velocities at the step start or free (numba, bit for bit the einsum form)."""
        if self._obstacles_only():
            return obstacle_points.local_velocity(np.asarray(rows, dtype=np.int64).reshape(-1),
                                                  np.asarray(H, dtype=float), self.velo0 if which == "start" else self.velo)
        return _local_velocity(np.asarray(rows, dtype=np.int64).reshape(-1), np.ascontiguousarray(H, dtype=float),
                               self.velo0 if which == "start" else self.velo)

    delassus_indexed = True     # delassus takes ia / ib (solvers/local_dynamics.py)

    def delassus(self, rows, Ha, Hb, rows_b=None, ia=None, ib=None, out=None):
        """Ha A^-1 Hb^T per entry: Ha_ang J^-1 Hb_ang^T + Ha_lin Hb_lin^T / m (numba); for
        links of articulated trees (JOINT) the tree's inverse inertia between the two links
        (bodies/articulated/system.py). With index arrays ia, ib entry k is rows[ia[k]],
        Ha[ia[k]], Hb[ib[k]] (and rows_b[ib[k]]), read in place: the same numbers as the
        gathered call, without copying the (k, 3, 6) rows; `out` a (k, 3, 3) array to
        fill (e.g. reused memory) instead of a new one."""
        rows = np.asarray(rows, dtype=np.int64)
        Ha, Hb = np.ascontiguousarray(Ha), np.ascontiguousarray(Hb)
        if ia is None:
            ia = ib = np.arange(rows.size)
        else:
            ia, ib = np.asarray(ia, dtype=np.int64), np.asarray(ib, dtype=np.int64)
        out = np.empty((ia.size, 3, 3)) if out is None else out
        _delassus(rows, Ha, Hb, ia, ib, self.Jinv, self.mass, out)
        system = self._articulated()
        if system is not None:
            rb = rows if rows_b is None else np.asarray(rows_b, dtype=np.int64)
            if ia is ib:
                system.delassus(rows, rb, Ha, Hb, out)
            else:
                system.delassus(rows[ia], rb[ib] if rows_b is not None else rows[ia], Ha[ia], Hb[ib], out)
        return out

    def coupling_groups(self, rows):
        """Links of one articulated tree form one group (their points couple); None without trees."""
        system = self._articulated()
        return None if system is None else system.coupling_groups(rows, self.count)

    def _articulated(self):
        """The joint trees stepping in this block now (rigid_schemes/articulated.py), or None."""
        system = self.articulated_system
        return system if system is not None and system.step is not None else None

    def add_reactions(self, rows, H, R):
        """reaction += H^T R per entry (numba, bit for bit the einsum / np.add.at form)."""
        _add_reactions(self.reaction, np.asarray(rows, dtype=np.int64).reshape(-1), np.ascontiguousarray(H, dtype=float),
                       np.ascontiguousarray(R, dtype=float))

    def add_signed_reactions(self, rows, H, con, sign, R, inert):
        """add_reactions(rows[live], H[live], sign[live, None] * R[con[live]]) for the live
        (not `inert`) entries, without the gathered copies (solvers/local_dynamics.py); a
        subclass with its own add_reactions gets the gathered call."""
        if type(self).add_reactions is not RigidBlock.add_reactions:
            live = ~np.asarray(inert, dtype=bool)
            self.add_reactions(rows[live], H[live], sign[live, None] * R[con[live]])
            return
        if self._obstacles_only():
            obstacle_points.add_signed_reactions(self.reaction, np.asarray(rows, dtype=np.int64), np.asarray(H, dtype=float),
                                                 np.asarray(con, dtype=np.int64), np.asarray(sign, dtype=float),
                                                 np.asarray(R, dtype=float), inert)
            return
        _add_signed_reactions(self.reaction, np.asarray(rows, dtype=np.int64), np.ascontiguousarray(H, dtype=float),
                              np.asarray(con, dtype=np.int64), np.ascontiguousarray(sign, dtype=float),
                              np.ascontiguousarray(R, dtype=float), np.asarray(inert, dtype=np.bool_))

    def contact_inert(self, rows):
        return self.obstacle[np.asarray(rows, dtype=np.int64)].copy()
    # ============================================================ end body interface

    def nonfinite_rows(self) -> np.ndarray:
        """BodyBlock.nonfinite_rows, answered at once (no rows) when the finish of the step
        just made found every conf and velo entry finite (`finite_after_step`, set by the
        one-pass finish of Solfec's schemes, cleared at the start of every step and here)."""
        if getattr(self, "finite_after_step", False):
            self.finite_after_step = False
            return np.zeros(0, dtype=np.int64)
        return super().nonfinite_rows()

    def bounding_boxes(self):
        n = self.count
        x = self.conf[:n, CENTER]
        r = self.radius[:n, None]
        return x - r, x + r

    def kinetic_energy(self) -> np.ndarray:
        """1/2 Omega.J Omega + 1/2 m v.v of every row (obstacles included)."""
        n = self.count
        if self._obstacles_only():
            return obstacle_points.kinetic_energy(self.velo[:n], self.J[:n], self.mass[:n])
        return _kinetic_energy(self.velo[:n], self.J[:n], self.mass[:n])

    # ------------------------------------------------------------------ time stepping
    def critical_step(self) -> float:
        return np.inf

    def dynamic_init(self) -> None:
        """Invert inertia (after any BODY_CHARS), place driven obstacles, set the initial
        kinetic energy."""
        n = self.count
        live = ~self.obstacle[:n] | (self.mass[:n] > 0)
        if not self._inverses_current(n, live):
            bad = np.flatnonzero(live & ~(np.linalg.det(self.J[:n]) > 0))
            if bad.size:
                body = self.bodies[int(bad[0])]
                raise InputError(f"body {body.id} has a singular inertia tensor; check its shape or BODY_CHARS")
            self.Jinv[:n] = np.linalg.inv(self.J[:n])
            self._inverted = (live.copy(), self.J[:n].copy(), self.Jinv[:n].copy())
        self.check_constraints()
        driven = np.flatnonzero(self.scheme[:n] == PRESCRIBED_CODE)
        if driven.size:
            self.conf[driven], self.velo[driven] = prescribed_states(self, driven, self.domain.time)
        energy = self.kinetic_energy()
        energy[self.obstacle[:n]] = 0.0
        self.energy[:n, 0] = energy

    def _inverses_current(self, n: int, live: np.ndarray) -> bool:
        """Do J, Jinv and the live rows equal those of the last inversion (a later RUN with the
        same bodies and inertias: the inverses and the singularity check stand)?"""
        last = getattr(self, "_inverted", None)
        return (last is not None and last[0].size == n and np.array_equal(last[0], live)
                and np.array_equal(last[1], self.J[:n]) and np.array_equal(last[2], self.Jinv[:n]))

    def gravity_only(self) -> bool:
        """True when gravity is the only load of every row (no point loads, no FORCE
        callbacks): Solfec's schemes then evaluate it inside their half-step kernel."""
        return not len(self.loads) and not self.loads.callbacks

    def loads_at(self, rows, R, x, t, h, conf=None, velo=None):
        """Force, spatial and referential torque of `rows` at (R, x) (bodies.loads.rigid_loads)."""
        return rigid_loads(self, rows, R, x, t, h, conf, velo)

    def _loads(self, R, x, t, h):
        """loads_at for every row (Solfec's half step and quasi-static predictor)."""
        return self.loads_at(slice(0, self.count), R, x, t, h)

    def qs_step_begin(self, t: float, h: float) -> None:
        """Quasi-static predictor (docs/integrators.md): velocity without memory."""
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


def _shape_radius(primitives, center) -> float:
    """Radius of a sphere about `center` containing the reference shape."""
    r = 0.0
    for p in primitives:
        lo, hi = p.bounding_box()
        corners = np.array([[a, b, c] for a in (lo[0], hi[0]) for b in (lo[1], hi[1]) for c in (lo[2], hi[2])])
        r = max(r, float(np.linalg.norm(corners - center, axis=1).max()))
    return r
