"""The layout of a joint tree (layer 3): links in topological order with parent indices,
offsets of every joint's coordinates and rates, joint frames, link mass properties, and
the joint-space quantities of a configuration (forward kinematics, mass matrix, bias
forces, point Jacobians) through the compiled recursions of kernels.py.
Reference: Featherstone, Rigid Body Dynamics Algorithms (Springer 2008), ch. 4-6.

Joint i moves link i relative to its parent link (or the ground). Its frame is fixed in
the parent and given in the reference configuration (all links at rest in their
reference placement, Solfec's Lambda = I): centre `point` P_i, axes E_i (kinds.joint_frame).
A link point X (referential) is at  x = xc_i + Lam_i (X - X0_i)  with X0_i its mass centre.
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.articulated import kernels as tree_kernels
from solfec_py.bodies.articulated.kinds import JOINT_KINDS, tables, zero_coordinates

_TABLES = tables()   # nv, nq, ball, dof type, dof axis, dof fixed per kind code


class CycleError(ValueError):
    """The parent links do not form a tree (`links` lists the cycle, in user numbering)."""

    def __init__(self, links):
        self.links = list(links)
        super().__init__(f"links {self.links} form a cycle")


def topological_order(parents) -> np.ndarray:
    """An order of the links (indices into `parents`, -1 = ground) with every parent before
    its children; CycleError if the links are not a forest."""
    parents = [int(p) for p in parents]
    n = len(parents)
    state = [0] * n          # 0 unvisited, 1 on the path, 2 placed
    order: list[int] = []
    for start in range(n):
        path = []
        i = start
        while i >= 0 and state[i] == 0:
            state[i] = 1
            path.append(i)
            i = parents[i]
        if i >= 0 and state[i] == 1:
            raise CycleError(path[path.index(i):])
        for j in reversed(path):
            state[j] = 2
            order.append(j)
    return np.array(order, dtype=np.int64)


class JointTree:
    """A forest of links joined to their parents (or the ground) by joints.

    Parameters
    ----------
    parents : sequence of int
        Parent link of every link (index into the same sequence), -1 for the ground.
    kinds : sequence of str
        Joint kind (a key of `JOINT_KINDS`) of the joint above every link.
    points, frames : array_like (n, 3), (n, 3, 3)
        Joint centres and frames (columns: kinds.joint_frame) in the reference configuration.
    mass, center, inertia : array_like (n,), (n, 3), (n, 3, 3)
        Link masses, reference mass centres and inertia tensors about them (reference axes).

    Links are stored in topological order: `order[k]` is the user index of stored link k
    and `index[u]` the stored index of user link u. Joint coordinates q and rates v are
    in stored order (joint k's at `qoff[k]:qoff[k+1]`, `voff[k]:voff[k+1]`).
    """

    def __init__(self, parents, kinds, points, frames, mass, center, inertia):
        self.order = topological_order(parents)
        n = self.order.size
        self.index = np.empty(n, dtype=np.int64)
        self.index[self.order] = np.arange(n)
        self.parent = np.array([-1 if parents[u] < 0 else self.index[parents[u]] for u in self.order], np.int64)
        self.kinds = [JOINT_KINDS[kinds[u]] for u in self.order]
        self.kind = np.array([k.code for k in self.kinds], np.int64)
        self.qoff = np.concatenate(([0], np.cumsum([k.nq for k in self.kinds]))).astype(np.int64)
        self.voff = np.concatenate(([0], np.cumsum([k.nv for k in self.kinds]))).astype(np.int64)
        take = lambda a, shape: np.ascontiguousarray(np.asarray(a, float).reshape((-1,) + shape)[self.order])
        self.P, self.E = take(points, (3,)), take(frames, (3, 3))
        self.mass, self.X0, self.J = take(mass, ()), take(center, (3,)), take(inertia, (3, 3))

    @property
    def count(self) -> int:
        return self.order.size

    @property
    def nq(self) -> int:
        return int(self.qoff[-1])

    @property
    def nv(self) -> int:
        return int(self.voff[-1])

    def zero_q(self) -> np.ndarray:
        """Coordinates of the reference configuration."""
        return np.concatenate([zero_coordinates(k) for k in self.kinds] or [np.zeros(0)])

    # ---------------------------------------------------------------- recursions
    def kinematics(self, q):
        """(Lam (n, 3, 3), xc (n, 3), S (nv, 6), crossed (nv,)) in stored link order; the last
        two configurations are remembered (a step asks for its mid-step one many times)."""
        q = np.ascontiguousarray(q, dtype=float)
        cache = self.__dict__.setdefault("_kinematics", [])
        for known, result in cache:
            if np.array_equal(known, q):
                return result
        nvk, _, ballk, dtype, daxis, dfixed = _TABLES
        result = tree_kernels.forward_kinematics(q, self.parent, self.kind, self.qoff, self.voff, self.E, self.P,
                                                 self.X0, nvk, ballk, dtype, daxis, dfixed)
        cache.insert(0, (q.copy(), result))
        del cache[2:]
        return result

    def inertias(self, Lam, xc) -> np.ndarray:
        """World spatial inertias (n, 6, 6) of the links placed at (Lam, xc); remembered with
        the configuration they belong to (`kinematics`)."""
        for known, result in self.__dict__.get("_inertias", ()):
            if known is Lam:
                return result
        out = tree_kernels.spatial_inertias(Lam, xc, self.mass, self.J)
        cache = self.__dict__.setdefault("_inertias", [])
        cache.insert(0, (Lam, out))
        del cache[2:]
        return out

    def mass_matrix(self, q) -> np.ndarray:
        """Joint-space mass matrix M(q) (nv, nv), CRBA."""
        Lam, xc, S, _ = self.kinematics(q)
        return tree_kernels.crba(self.inertias(Lam, xc), S, self.parent, self.voff)

    def inverse_dynamics(self, q, v, vdot, gravity=(0.0, 0.0, 0.0), fext=None) -> np.ndarray:
        """Joint forces tau = M vdot + bias (RNEA); fext (n, 6) world spatial forces
        (moment about the origin, force) on the links in stored order."""
        return self._rnea(q, v, vdot, gravity, fext)[0]

    def joint_reactions(self, q, v, vdot, gravity=(0.0, 0.0, 0.0), fext=None) -> np.ndarray:
        """(n, 6) force (3) and moment about the joint centre (3), world axes, that every
        joint exerts on its child (and the subtree below) during the motion (q, v, vdot)."""
        _, F, Lam, xc = self._rnea(q, v, vdot, gravity, fext)
        centre = xc + np.einsum("nij,nj->ni", Lam, self.P - self.X0)
        return np.concatenate((F[:, 3:6], F[:, 0:3] - np.cross(centre, F[:, 3:6])), axis=1)

    def _rnea(self, q, v, vdot, gravity, fext):
        Lam, xc, S, crossed = self.kinematics(q)
        fext = np.zeros((self.count, 6)) if fext is None else np.ascontiguousarray(fext, dtype=float)
        tau, F = tree_kernels.rnea(self.inertias(Lam, xc), S, crossed, self.parent, self.voff, np.asarray(v, float),
                                   np.asarray(vdot, float), np.asarray(gravity, float), fext)
        return tau, F, Lam, xc

    def forward_dynamics(self, q, v, tau=None, gravity=(0.0, 0.0, 0.0), fext=None) -> np.ndarray:
        """Joint accelerations M^-1 (tau - bias) by the articulated-body algorithm, O(n)."""
        Lam, xc, S, crossed = self.kinematics(q)
        fext = np.zeros((self.count, 6)) if fext is None else np.ascontiguousarray(fext, dtype=float)
        tau = np.zeros(self.nv) if tau is None else np.asarray(tau, float)
        return tree_kernels.aba(self.inertias(Lam, xc), S, crossed, self.parent, self.voff, np.asarray(v, float), tau,
                                np.asarray(gravity, float), fext)

    @property
    def tables(self) -> tuple:
        """(nvk, ballk, dtype): rates per joint kind, whether a kind has a ball rotation, the
        type of each of its rates (kinds.tables), as the compiled kernels take them."""
        nvk, _, ballk, dtype, _, _ = _TABLES
        return nvk, ballk, dtype

    def kernel_args(self, tau, gravity, fext):
        """tau, gravity, fext as the compiled stepping kernels take them, then the tree's arrays."""
        nvk, _, ballk, dtype, daxis, dfixed = _TABLES
        fext = np.zeros((self.count, 6)) if fext is None else np.ascontiguousarray(fext, dtype=float)
        tau = np.zeros(self.nv) if tau is None else np.asarray(tau, float)
        return (tau, np.asarray(gravity, float), fext, self.parent, self.kind, self.qoff, self.voff, self.E, self.P,
                self.X0, self.mass, self.J, nvk, ballk, dtype, daxis, dfixed)

    def free_rates(self, q_half, u, h, tau=None, gravity=(0.0, 0.0, 0.0), fext=None) -> np.ndarray:
        """End rates of a free half step at constant joint forces (kernels.free_rates); the
        kinematics and inertias of q_half join the caches (`kinematics`, `inertias`)."""
        q_half = np.ascontiguousarray(q_half, dtype=float)
        u_free, Lam, xc, S, crossed, I6 = tree_kernels.free_rates(q_half, np.asarray(u, float), float(h),
                                                                  *self.kernel_args(tau, gravity, fext))
        cache = self.__dict__.setdefault("_kinematics", [])
        cache.insert(0, (q_half.copy(), (Lam, xc, S, crossed)))
        del cache[2:]
        cache = self.__dict__.setdefault("_inertias", [])
        cache.insert(0, (Lam, I6))
        del cache[2:]
        return u_free

    def integrate_free(self, q, u, h, steps, tau=None, gravity=(0.0, 0.0, 0.0), fext=None):
        """(q, u) after `steps` free half steps at constant joint forces (kernels.integrate_free)."""
        return tree_kernels.integrate_free(np.ascontiguousarray(q, dtype=float), np.asarray(u, float), float(h),
                                           int(steps), *self.kernel_args(tau, gravity, fext))

    def bias(self, q, v, gravity=(0.0, 0.0, 0.0), fext=None) -> np.ndarray:
        """Velocity, gravity and external-load terms: tau at zero joint acceleration."""
        return self.inverse_dynamics(q, v, np.zeros(self.nv), gravity, fext)

    def advance(self, q, v, h: float) -> np.ndarray:
        """q (+) h v (ball rotations by the exponential map)."""
        nvk, _, ballk, dtype, _, _ = _TABLES
        return tree_kernels.advance(np.asarray(q, float), np.asarray(v, float), float(h), self.kind, self.qoff,
                                    self.voff, nvk, ballk, dtype)

    def link_velocities(self, q, v) -> np.ndarray:
        """(n, 6) spatial link velocities (w, v at the world origin)."""
        _, _, S, _ = self.kinematics(q)
        return tree_kernels.link_velocities(S, np.asarray(v, float), self.parent, self.voff)

    def point_jacobians(self, q, links, x) -> np.ndarray:
        """(k, 3, nv) velocity of world points x (k, 3) on stored links per joint rate."""
        _, _, S, _ = self.kinematics(q)
        return tree_kernels.point_jacobians(np.asarray(links, np.int64), np.ascontiguousarray(x, float), S, self.parent,
                                            self.voff)

    def rigid_states(self, q, v) -> tuple[np.ndarray, np.ndarray]:
        """Links' states in the rigid layout (bodies/rigid.py), stored order:
        conf (n, 12) = Lam column-major + mass centre, velo (n, 6) = referential angular
        velocity Lam^T w + mass-centre velocity v_O + w x xc."""
        Lam, xc, S, _ = self.kinematics(q)
        V = tree_kernels.link_velocities(S, np.asarray(v, float), self.parent, self.voff)
        return tree_kernels.rigid_rows(Lam, xc, V)

    def gen_to_loc(self, q, links, X, base) -> np.ndarray:
        """H (k, 3, nv): local velocity base^T xdot of referential points X (k, 3) of
        stored `links` (k,) as a linear map of the joint rates (frames base (k, 3, 3),
        columns t1, t2, n); H^T R maps local reactions to joint forces."""
        Lam, xc, S, _ = self.kinematics(q)
        links = np.asarray(links, np.int64)
        x = xc[links] + np.einsum("kij,kj->ki", Lam[links], np.asarray(X, float) - self.X0[links])
        J = tree_kernels.point_jacobians(links, np.ascontiguousarray(x), S, self.parent, self.voff)
        return np.einsum("kji,kjl->kil", np.asarray(base, float), J)

    def link_inverse_inertia(self, q, links) -> np.ndarray:
        """(L, L, 6, 6) J_a M^-1 J_b^T between stored `links` (L,) in the rigid-body layout of
        bodies/rigid.py (referential angular, mass-centre linear): block [a, b] maps the
        generalised force (referential torque, force) on link b to the velocity jump per
        unit time of link a (the links' share of the Delassus operator)."""
        Lam, xc, S, _ = self.kinematics(q)
        links = np.asarray(links, np.int64)
        Phi = tree_kernels.link_responses(self.inertias(Lam, xc), S, self.parent, self.voff, links)
        # rigid velocity of link l = A_l (w, v_O), A_l = [[Lam^T, 0], [-[xc]x, I]]
        A = np.zeros((links.size, 6, 6))
        A[:, 0:3, 0:3] = Lam[links].transpose(0, 2, 1)
        c = xc[links]
        A[:, 3, 1], A[:, 3, 2], A[:, 4, 0] = c[:, 2], -c[:, 1], -c[:, 2]
        A[:, 4, 2], A[:, 5, 0], A[:, 5, 1] = c[:, 0], c[:, 1], -c[:, 0]
        A[:, 3:6, 3:6] = np.eye(3)
        return np.einsum("aij,abjk,blk->abil", A, Phi, A)

    def kinetic_energy(self, q, v) -> float:
        Lam, xc, _, _ = self.kinematics(q)
        V = self.link_velocities(q, v)
        I6 = self.inertias(Lam, xc)
        return 0.5 * float(np.einsum("ni,nij,nj->", V, I6, V))

    def momentum(self, q, v) -> np.ndarray:
        """Total spatial momentum (angular about the origin, linear) (6,)."""
        Lam, xc, _, _ = self.kinematics(q)
        return np.einsum("nij,nj->i", self.inertias(Lam, xc), self.link_velocities(q, v))
