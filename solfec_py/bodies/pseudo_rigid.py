"""Pseudo-rigid bodies (layer 3): the homogeneous deformation x = xc + F (X - X0) of every
PSEUDO_RIGID body of a domain as rows of one block, stepped all at once with Solfec's
DEF_EXP (explicit) and DEF_LIM (linearly implicit) schemes and its quasi-static update.
Reference: Koziara, PhD thesis (Glasgow 2008); Solfec-1.0 bod.c (PRB branch); the
formulas and the choices made where Solfec's code has quirks are in docs/pseudo_rigid.md.

Storage (Solfec's layout), one row per body:
  conf = deformation gradient F row-wise, F_ij at 3 i + j (9) + centre x (3)  -> GRADIENT, CENTER
  velo = dF/dt row-wise (9) + centre velocity v (3)                           -> GRADVEL, LINEAR
Mass matrix M = blockdiag(E0, E0, E0, m I) (E0 = rho int (X - X0)(X - X0)^T dV, BODY.tensor);
material Saint Venant-Kirchhoff with one F per body: f_int = V0 P(F), E_int = V0 psi(F).
The numba kernels over rows are in `pseudo_rigid_kernels`; the point / surface loads in
`loads.PointLoads`; materials per volume id (APPLY_BULKMAT) in `pseudo_rigid_materials`.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies import pseudo_rigid_kernels as pr_kernels
from solfec_py.bodies.base import BodyBlock
from solfec_py.bodies.loads import CONVECTED_FORCE, PRESSURE, PointLoads
from solfec_py.bodies.pseudo_rigid_materials import Materials
from solfec_py.errors import InputError, SimulationError
from solfec_py.geometry.massprops import surface_moments
from solfec_py.geometry.mesh import Mesh
from solfec_py.geometry.rotation import skew

GRADIENT = slice(0, 9)
CENTER = slice(9, 12)
GRADVEL = slice(0, 9)
LINEAR = slice(9, 12)
SCHEMES = {"DEF_EXP": pr_kernels.EXP, "DEF_LIM": pr_kernels.LIM}
CALLBACK_LAYOUT = "9 generalised forces conjugate to dF/dt row-wise, then the resultant force"


def gradients(conf: np.ndarray) -> np.ndarray:
    """(n, 3, 3) deformation gradients of conf rows (row-wise storage: a C-order reshape)."""
    return conf[:, GRADIENT].reshape(-1, 3, 3)


def cofactors(F: np.ndarray) -> np.ndarray:
    """(n, 3, 3) cof F = det(F) F^-T, columns c1 x c2, c2 x c0, c0 x c1 of F's columns."""
    c0, c1, c2 = F[:, :, 0], F[:, :, 1], F[:, :, 2]
    return np.stack((np.cross(c1, c2), np.cross(c2, c0), np.cross(c0, c1)), axis=2)


def _scaled_to(v: np.ndarray, like: np.ndarray) -> np.ndarray:
    """Rows of v rescaled to the lengths of the rows of `like` (zero rows stay zero)."""
    n = np.linalg.norm(v, axis=1)
    return v * (np.linalg.norm(like, axis=1) / np.where(n > 0, n, 1.0))[:, None]


class PseudoRigidBlock(BodyBlock):
    CONF_SIZE = 12
    VELO_SIZE = 12
    TENSOR = "euler"                   # what BODY.tensor shows and BODY_CHARS sets
    FIELDS = {
        "euler": ((3, 3), float),      # E0 (with the density)
        "Linv": ((3, 3), float),       # inverse Cholesky factor of E0 (dynamic_init)
        "Ainv": ((9, 9), float),       # inverse deformable block of the step operator
        "lame": ((2,), float),         # (lambda, mu), volume-weighted under APPLY_BULKMAT
        "material": ((), np.int64),    # index into self.materials.records, -1 = mixed
        "velo0": ((12,), float),       # velocity at the start of the step
        "fext": ((12,), float),        # applied (then + constraint) generalised force of the step
        "scheme": ((), np.int8),
        "damping": ((), float),        # stiffness-proportional damping eta
        "box": ((2, 3), float),        # reference bounding box of the shape
    }

    def __init__(self, domain, capacity: int = 8):
        super().__init__(domain, capacity)
        self.loads = PointLoads()
        self.materials = Materials(self)
        self.critical_row = None        # the row that set the last critical step

    # ------------------------------------------------------------------ bodies
    def admit(self, body) -> None:
        self.materials.check(body.bulk_material, "BODY: 'material'")

    def _init_row(self, row, body, volume, center, euler):
        density = body.bulk_material.density
        self.mass[row] = density * volume
        self.euler[row] = density * euler
        self.conf[row, GRADIENT] = (1, 0, 0, 0, 1, 0, 0, 0, 1)
        self.conf[row, CENTER] = center
        self.Ainv[row] = np.eye(9)
        self.scheme[row] = SCHEMES["DEF_LIM" if self.domain.analysis == "QUASI_STATIC" else "DEF_EXP"]
        boxes = [p.bounding_box() for p in body.shape]
        self.box[row, 0] = np.min([b[0] for b in boxes], axis=0)
        self.box[row, 1] = np.max([b[1] for b in boxes], axis=0)
        self.materials.assign(row, body)

    def on_change(self) -> None:
        self.loads.invalidate()

    def material_users(self, record) -> list:
        return self.materials.users(record)

    def material_changed(self, record) -> None:
        if self.materials.users(record):
            self.materials.refresh()

    def remove(self, body) -> None:
        self.loads.remove_body(body)
        self.materials.forget(body)
        super().remove(body)

    LOCAL_FIELDS = ("material",)       # an index into this block's material records

    def _park(self, body) -> dict:
        return {"loads": self.loads.extract(body)}

    def _unpark(self, body, parked: dict) -> None:
        if "loads" in parked:
            self.loads.restore(parked["loads"])

    def lame_constants(self) -> np.ndarray:
        return self.lame[: self.count]

    def set_characteristics(self, row, mass, volume, center, tensor) -> None:
        """BODY_CHARS: overwrite m, V, X0 and the Euler tensor E0 (conf keeps its centre, as
        for rigid bodies in Solfec)."""
        self.mass[row], self.volume[row] = mass, volume
        self.center[row] = center
        self.euler[row] = tensor

    def set_scheme(self, row: int, name: str) -> None:
        self.scheme[row] = SCHEMES[name]

    def set_damping(self, row: int, value: float) -> None:
        self.damping[row] = value

    def initial_velocity(self, row: int, linear, angular) -> None:
        """INITIAL_VELOCITY: dF/dt = [angular]x (a spin of the reference shape), v = linear."""
        self.velo[row, GRADVEL] = skew(np.asarray(angular, float)[None])[0].reshape(9)
        self.velo[row, LINEAR] = linear

    def add_pressure(self, body, surfid: int, value) -> None:
        """PRESSURE: traction value * n on the faces `surfid` of the body's single MESH,
        a follower load (current normals and areas, n da = cof(F) N dA)."""
        shape = body.shape
        if len(shape) != 1 or not isinstance(shape[0], Mesh):
            raise InputError(f"Pressure can be applied to a body with a single MESH based shape; body {body.id}"
                             f" has {len(shape)} primitive(s) of kinds {sorted({type(p).__name__.upper() for p in shape})}")
        X0 = self.center[body.row].copy()
        count, S, M = surface_moments(shape[0], surfid, X0)
        if count == 0:
            raise InputError(f"PRESSURE: body {body.id} has no boundary faces with surface id {surfid};"
                             f" its surface ids are {sorted(set(shape[0].boundary_faces()[2].tolist()))}")
        self.loads.add_pressure(body, X0, S, M, value)

    def apply_material(self, body, volid: int, record) -> bool:
        """APPLY_BULKMAT: parts of `body` with `volid` take `record`; False if none has it."""
        return self.materials.apply(body, volid, record)

    # ------------------------------------------------------------------ kinematics
    def cur_point(self, row, X):
        return self.conf[row, CENTER] + self.conf[row, GRADIENT].reshape(3, 3) @ (X - self.center[row])

    def ref_point(self, row, x):
        return self.center[row] + np.linalg.solve(self.conf[row, GRADIENT].reshape(3, 3), x - self.conf[row, CENTER])

    def point_velocity(self, row, X):
        return self.velo[row, LINEAR] + self.velo[row, GRADVEL].reshape(3, 3) @ (X - self.center[row])

    def current_primitives(self, row):
        F = self.conf[row, GRADIENT].reshape(3, 3)
        prims = [p.copy() for p in self.bodies[row].shape]
        for p in prims:
            p.set_rigid_motion(F, self.conf[row, CENTER].copy(), self.center[row].copy())
        return prims

    def stresses(self, rows, X, elem=None) -> np.ndarray:
        """(k, 7) (sx, sy, sz, sxy, sxz, syz, von Mises): the homogeneous Cauchy stress of
        each entry's body (rows may repeat)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        out = np.empty((rows.size, 7))
        pr_kernels.cauchy_stresses(self.conf, self.lame, rows, out)
        return out

    # ------------------------------------------------------------------ body interface
    # (the hooks the constraint and contact layers call; same contract as the rigid block)
    def cur_points(self, rows, X, elem=None):
        rows = np.asarray(rows, dtype=np.int64)
        q = self.conf[rows]
        return q[:, CENTER] + np.einsum("kij,kj->ki", gradients(q), X - self.center[rows])

    def ref_points(self, rows, x, elem=None):
        rows = np.asarray(rows, dtype=np.int64)
        q = self.conf[rows]
        return self.center[rows] + np.linalg.solve(gradients(q), (x - q[:, CENTER])[..., None])[..., 0]

    def point_velocities(self, rows, X, elem=None):
        rows = np.asarray(rows, dtype=np.int64)
        u = self.velo[rows]
        return u[:, LINEAR] + np.einsum("kij,kj->ki", gradients(u), X - self.center[rows])

    def cur_vectors(self, rows, d, elem=None):
        """Directions convected as material line elements, F d, kept at the length of d (a
        unit direction stays unit; see docs/pseudo_rigid.md on Solfec's F^T)."""
        F = gradients(self.conf[np.asarray(rows, dtype=np.int64)])
        return _scaled_to(np.einsum("kij,kj->ki", F, d), d)

    def ref_vectors(self, rows, d, elem=None):
        """Inverse of cur_vectors: F^-1 d kept at the length of d."""
        F = gradients(self.conf[np.asarray(rows, dtype=np.int64)])
        return _scaled_to(np.linalg.solve(F, d[..., None])[..., 0], d)

    def point_objects(self, rows, X):
        """A pseudo-rigid body deforms all its geometric objects alike: -1 everywhere."""
        return np.full(np.asarray(rows).size, -1, dtype=np.int64)

    def gen_to_loc(self, rows, X, base, elem=None):
        """H (k, 3, 12): H[i, 3 r + c] = base[r, i] (X - X0)_c, H[i, 9 + r] = base[r, i]."""
        rows = np.asarray(rows, dtype=np.int64)
        A = X - self.center[rows]
        Bt = np.asarray(base).transpose(0, 2, 1)
        H = np.empty((rows.size, 3, 12))
        H[:, :, :9] = (Bt[:, :, :, None] * A[:, None, None, :]).reshape(rows.size, 3, 9)
        H[:, :, 9:] = Bt
        return H

    def local_velocity(self, rows, H, which="free"):
        u = (self.velo0 if which == "start" else self.velo)[np.asarray(rows, dtype=np.int64)]
        return np.einsum("kij,kj->ki", H, u)

    def delassus(self, rows, Ha, Hb):
        """Ha A^-1 Hb^T with A^-1 = blockdiag(Ainv, I / m): M^-1 (DEF_EXP) or the linearly
        implicit operator (DEF_LIM, quasi-statics) of the current step."""
        return pr_kernels.delassus(np.asarray(rows, dtype=np.int64), np.ascontiguousarray(Ha),
                                   np.ascontiguousarray(Hb), self.Ainv, self.mass)

    def add_reactions(self, rows, H, R):
        np.add.at(self.reaction, np.asarray(rows, dtype=np.int64), np.einsum("kij,ki->kj", H, R))

    def contact_inert(self, rows):
        return np.zeros(np.asarray(rows).size, dtype=bool)

    def bounding_boxes(self):
        """Boxes of the affine images of the reference boxes (contain the current shapes)."""
        n = self.count
        lo, hi = self.box[:n, 0], self.box[:n, 1]
        F = gradients(self.conf[:n])
        mid = self.conf[:n, CENTER] + np.einsum("kij,kj->ki", F, 0.5 * (lo + hi) - self.center[:n])
        half = np.einsum("kij,kj->ki", np.abs(F), 0.5 * (hi - lo))
        return mid - half, mid + half

    def kinetic_energy(self) -> np.ndarray:
        """1/2 sum_r dF_r E0 dF_r + 1/2 m v.v per row (dF_r = row r of dF/dt)."""
        n = self.count
        out = np.empty(n)
        pr_kernels.kinetic_energies(self.velo[:n], self.euler[:n], self.mass[:n], out)
        return out

    # ------------------------------------------------------------------ time stepping
    def critical_step(self) -> float:
        """min 2 / sqrt(lambda_max(M_F^-1 K)) over the DEF_EXP bodies (the domain takes half).
        Exact wherever it is below twice the domain's step, the only place it changes the
        step: bodies whose Gershgorin bound proves them slower skip the eigenvalues and
        contribute 2 / sqrt(bound) (a lower bound of theirs, itself >= twice the step)."""
        n = self.count
        rows = np.flatnonzero(self.scheme[:n] == pr_kernels.EXP)
        if rows.size == 0:
            return np.inf
        S, bound = np.empty((rows.size, 9, 9)), np.empty(rows.size)
        pr_kernels.scaled_stiffness(self.conf, self.lame, self.volume, self.Linv, rows, S, bound)
        lmax = bound.copy()
        near = bound * self.domain.step ** 2 > 1.0      # 2 / sqrt(bound) < 2 h: may limit
        if near.any():
            lmax[near] = np.linalg.eigvalsh(S[near])[:, -1]   # LAPACK over the batch
        k = int(np.argmax(lmax))
        top = lmax[k]
        self.critical_row = int(rows[k])
        return float(2.0 / np.sqrt(top)) if top > 0 else np.inf

    def critical_source(self) -> str:
        """The body that set the last critical step, with its size and material."""
        row = self.critical_row
        if row is None or row >= self.count:
            return ""
        body = self.bodies[row]
        mat = body.bulk_material
        return (f"pseudo-rigid body {body.id} (volume {self.volume[row]:.3g}, mass {self.mass[row]:.3g};"
                f" young {mat.young:.3g}, poisson {mat.poisson:g}, density {mat.density:.3g})")

    def dynamic_init(self) -> None:
        """Lamé constants of the current materials, E0 factors, M_F^-1 of DEF_EXP rows and
        the initial kinetic and internal energies."""
        n = self.count
        self.materials.refresh()
        try:
            L = np.linalg.cholesky(self.euler[:n])
        except np.linalg.LinAlgError:
            bad = next(k for k in range(n) if not np.all(np.linalg.eigvalsh(self.euler[k]) > 0))
            raise InputError(f"pseudo-rigid body {self.bodies[bad].id} has a singular Euler tensor;"
                             " check its shape or BODY_CHARS") from None
        self.Linv[:n] = np.linalg.inv(L)
        Einv = np.linalg.inv(self.euler[:n])
        exp = self.scheme[:n] == pr_kernels.EXP
        self.Ainv[:n][exp] = np.einsum("ab,kij->kaibj", np.eye(3), Einv[exp]).reshape(-1, 9, 9)
        self.energy[:n, 0] = self.kinetic_energy()
        self.energy[:n, 4] = self._internal(self.domain.time)[1]

    def _internal(self, t: float):
        """(f_int (n, 9), energy (n,)) at the present F; stops the run if some det F <= 0."""
        n = self.count
        fint, energy, det = np.empty((n, 9)), np.empty(n), np.empty(n)
        pr_kernels.internal_forces(self.conf[:n], self.lame[:n], self.volume[:n], fint, energy, det)
        bad = np.flatnonzero(~(det > 0))
        if bad.size:
            body = self.bodies[int(bad[0])]
            label = f" ({body.label!r})" if body.label else ""
            raise SimulationError(
                f"pseudo-rigid body {body.id}{label} inverted (det F = {det[bad[0]]:.3g}) at time {t:g};"
                " reduce the time step or check loads and constraints")
        return fint, energy

    def _loads(self, t: float, h: float) -> np.ndarray:
        """(n, 12) applied generalised force at the present configuration and time t."""
        n = self.count
        f = np.zeros((n, 12))
        g = self.domain.gravity_at(t)
        if np.any(g):
            f[:, LINEAR] += self.mass[:n, None] * g
        if len(self.loads):
            rows, kinds, points, dirs = self.loads.arrays()
            s = self.loads.magnitudes(t)
            F = gradients(self.conf[rows])
            force = s[:, None] * dirs
            conv = kinds == CONVECTED_FORCE
            force[conv] = np.einsum("kij,kj->ki", F[conv], force[conv])
            gen = np.empty((rows.size, 12))
            gen[:, :9] = (force[:, :, None] * (points - self.center[rows])[:, None, :]).reshape(-1, 9)
            gen[:, 9:] = force
            pres = kinds == PRESSURE           # follower pressure: n da = cof(F) N dA
            if pres.any():
                cof, S = cofactors(F[pres]), dirs[pres]
                M = self.loads.pressure_moments()[pres] - S[:, :, None] * (self.center[rows[pres]] - points[pres])[:, None, :]
                gen[pres, :9] = (s[pres, None, None] * cof @ M).reshape(-1, 9)
                gen[pres, 9:] = s[pres, None] * np.einsum("kij,kj->ki", cof, S)
            np.add.at(f, rows, gen)
        for cb in self.loads.callbacks:
            row = cb.body.row
            f[row] += cb.values(tuple(self.conf[row].tolist()), tuple(self.velo0[row].tolist()), t, h, 12,
                                CALLBACK_LAYOUT)
        return f

    def _free_velocity(self, t: float, h: float, quasi_static: bool) -> None:
        """Out-of-balance force at the present configuration, then the free velocity."""
        n = self.count
        self.fext[:n] = self._loads(t, h)
        force = self.fext[:n].copy()
        force[:, :9] -= self._internal(t)[0]
        bad = pr_kernels.free_velocity(self.conf[:n], self.velo[:n], force, self.lame[:n], self.volume[:n],
                                       self.euler[:n], self.Linv[:n], self.mass[:n], self.damping[:n],
                                       self.scheme[:n], h, self.Ainv[:n], quasi_static)
        if bad >= 0:
            body = self.bodies[bad]
            why = "the stiffness has no positive eigenvalue" if quasi_static else "the step operator is singular"
            raise SimulationError(f"pseudo-rigid body {body.id}: {why} at time {t:g}; check its material,"
                                  " loads and time step")

    def step_begin(self, t: float, h: float) -> None:
        """q(t+h/2) = q + h/2 u; f = f_ext(t+h/2) - f_int(q(t+h/2)) (- eta K u); u_free = u + h A^-1 f."""
        n = self.count
        self.velo0[:n] = self.velo[:n]
        self.reaction[:n] = 0.0
        self.conf[:n] += 0.5 * h * self.velo[:n]
        self._free_velocity(t + 0.5 * h, h, False)

    def step_end(self, t: float, h: float) -> None:
        """u += h A^-1 r; q(t+h) = q(t+h/2) + h/2 u; energies."""
        n = self.count
        self.fext[:n] += self.reaction[:n]
        pr_kernels.add_reaction_velocity(self.velo[:n], self.reaction[:n], self.Ainv[:n], self.mass[:n], h)
        self.conf[:n] += 0.5 * h * self.velo[:n]
        self.energy[:n, 1] += 0.5 * h * np.einsum("ni,ni->n", self.velo0[:n] + self.velo[:n], self.fext[:n])
        self.energy[:n, 4] = self._internal(t + h)[1]
        self.energy[:n, 0] = self.kinetic_energy()

    def qs_step_begin(self, t: float, h: float) -> None:
        """Quasi-static predictor: u = h A^-1 (f_ext(t+h) - f_int(q)), no memory of u."""
        n = self.count
        self.velo0[:n] = self.velo[:n]
        self.reaction[:n] = 0.0
        self._free_velocity(t + h, h, True)

    def qs_step_end(self, t: float, h: float) -> None:
        """u += h A^-1 r; q += h u; the internal energy of the new configuration."""
        n = self.count
        pr_kernels.add_reaction_velocity(self.velo[:n], self.reaction[:n], self.Ainv[:n], self.mass[:n], h)
        self.conf[:n] += h * self.velo[:n]
        self.energy[:n, 4] = self._internal(t + h)[1]
