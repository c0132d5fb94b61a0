"""GEN_ALPHA: the Lie-group generalized-alpha scheme for the rigid body (layer 3).
Reference: O. Bruls, A. Cardona, M. Arnold, "Lie group generalized-alpha time integration
of constrained flexible multibody systems", Mech. Mach. Theory 48 (2012) 121-137; the
inertial-frame rigid body (mass matrix M(R) = diag(m I, R J R^T), gyroscopic matrix
C = [w]x A - [A w]x, rotation stiffness K) as in Kynema's rigid body; parameters of
Chung & Hulbert (1993) from the spectral radius rho_inf. Derivation: docs/integrators.md.

Group SO(3) x R^3 with spatial velocities u = (v, w) and R_{n+1} = exp[h dq_ang] R_n:
    dq      = u_n + h (1/2 - beta) a_n + h beta a_{n+1},   q_{n+1} = q_n o exp(h dq)
    u_{n+1} = u_n + h (1 - gamma) a_n + h gamma a_{n+1}
    (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) ud_{n+1} + alpha_f ud_n
    M(R_{n+1}) ud_{n+1} + (0, w x A w)_{n+1} = F(t_{n+1}, q_{n+1}, u_{n+1})
Newton on ud_{n+1} with S = M + gamma' C + beta' K, gamma' = h gamma (1 - alpha_f)/(1 - alpha_m),
beta' = h^2 beta (1 - alpha_f)/(1 - alpha_m), K = A[ud_w]x - [A ud_w]x + [w]x (A[w]x - [A w]x)
(loads are re-evaluated at every iterate, their Jacobian is left out). Added mass enters M.

Carried state (block.carry, 12 floats): ud_n (6) and a_n (6), spatial (linear first); at a
start ud_0 = a_0 = M^-1 (F - gyroscopic). Constraint reactions are velocity jumps that do
not enter the alpha-accelerations (as in the nonsmooth generalized-alpha of Chen, Bruls &
Arnold, IJNME 96 (2013) 487-511).
"""
from __future__ import annotations

import numpy as np

from solfec_py.bodies.rigid_schemes import kernels as scheme_kernels
from solfec_py.bodies.rigid_schemes.base import OneStepScheme, mtv
from solfec_py.compilation import njit
from solfec_py.errors import SimulationError
from solfec_py.geometry.rotation import expmap


def coefficients(rho_inf: float) -> tuple[float, float, float, float]:
    """(alpha_m, alpha_f, gamma, beta) of Chung & Hulbert for spectral radius rho_inf in [0, 1]."""
    am = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
    af = rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + af - am
    return am, af, gamma, 0.25 * (gamma + 0.5) ** 2


class GenAlpha(OneStepScheme):
    name, order = "GEN_ALPHA", 2
    CARRY = 12
    IMPLICIT_ADDED_MASS = True
    MAXITER = 50
    TOL = 1e-12

    def __init__(self, rho_inf: float = 0.9):
        self.rho_inf = rho_inf
        self.am, self.af, self.gamma, self.beta = coefficients(rho_inf)

    def free_step(self, block, rows, t, h, st):
        g = np.arange(block.count)[rows]
        k = g.size
        Ma = block.added_mass(g, implicit=True)
        u0 = np.hstack((st.v, st.w))
        start = ~block.carry_ok[g]
        if start.any():                      # consistent accelerations at a start
            s = np.flatnonzero(start)
            f, tau = block.stage_forces(g[s], st.R[s], st.x[s], st.Omega[s], st.v[s], t, h, implicit=True)
            ud = _accelerations(st.R[s], st.J[s], st.mass[s], Ma[s] if Ma.shape[0] else Ma, st.w[s],
                                np.hstack((f, tau)))
            block.carry[g[s], 0:6] = ud
            block.carry[g[s], 6:12] = ud
        ud_n, a_n = block.carry[g, 0:6].copy(), block.carry[g, 6:12].copy()
        am, af, gamma, beta = self.am, self.af, self.gamma, self.beta
        ud = ud_n.copy()
        gp = h * gamma * (1 - af) / (1 - am)
        bp = h * h * beta * (1 - af) / (1 - am)
        R1, x1, u1, a1 = np.empty((k, 3, 3)), np.empty((k, 3)), np.empty((k, 6)), np.empty((k, 6))
        active = np.arange(k)
        for _ in range(self.MAXITER):
            a = active
            an = ((1 - af) * ud[a] + af * ud_n[a] - am * a_n[a]) / (1 - am)
            un = u0[a] + h * ((1 - gamma) * a_n[a] + gamma * an)
            dq = u0[a] + h * ((0.5 - beta) * a_n[a] + beta * an)
            Rn = expmap(h * dq[:, 3:6]) @ st.R[a]
            xn = st.x[a] + h * dq[:, 0:3]
            R1[a], x1[a], u1[a], a1[a] = Rn, xn, un, an
            f, tau = block.stage_forces(g[a], Rn, xn, mtv(Rn, un[:, 3:6]), un[:, 0:3], t + h, h, implicit=True)
            contiguous = scheme_kernels.contiguous
            res, S, scale = _residual(contiguous(Rn), contiguous(st.J[a]), contiguous(st.mass[a]),
                                      contiguous(Ma[a] if Ma.shape[0] else Ma), contiguous(un), contiguous(ud[a]),
                                      np.hstack((f, tau)), gp, bp)
            done = np.abs(res).max(axis=1) <= self.TOL * scale
            active = a[~done]
            if not active.size:
                break
            keep = ~done
            ud[active] -= np.linalg.solve(S[keep], res[keep][..., None])[..., 0]
        else:
            body = block.bodies[int(g[active[0]])]
            raise SimulationError(f"GEN_ALPHA: the Newton iteration did not converge for body {body.id}"
                                  f" at time {t + h:g}; reduce the time step")
        block.carry[g, 0:6], block.carry[g, 6:12] = ud, a1
        block.carry_h[g], block.carry_ok[g] = h, True
        return R1, x1, mtv(R1, u1[:, 3:6]), u1[:, 0:3]


def _accelerations(R, J, mass, Ma, w, F):
    """ud = M(R)^-1 (F - (0, w x A w)) for rows."""
    A = R @ J @ R.transpose(0, 2, 1)
    rhs = F.copy()
    rhs[:, 3:6] -= np.cross(w, np.einsum("nij,nj->ni", A, w))
    return np.hstack(scheme_kernels.velocities(R, J, mass, Ma, rhs))


@njit
def _residual(R, J, mass, Ma, u, ud, F, gp, bp):
    """Residual M(R) ud + (0, w x A w) - F, iteration matrix S and residual scale per row."""
    k = R.shape[0]
    res = np.empty((k, 6))
    S = np.zeros((k, 6, 6))
    scale = np.empty(k)
    RJ, A = np.empty((3, 3)), np.empty((3, 3))
    for n in range(k):
        scheme_kernels._spatial_inertia(R[n], J[n], RJ, A)
        w, wd = u[n, 3:6].copy(), ud[n, 3:6].copy()
        Aw, Awd = A @ w, A @ wd
        gyro = np.cross(w, Aw)
        res[n, 0:3] = mass[n] * ud[n, 0:3] - F[n, 0:3]
        res[n, 3:6] = Awd + gyro - F[n, 3:6]
        for i in range(3):
            S[n, i, i] = mass[n]
        Sw = scheme_kernels._skew(w)
        C = Sw @ A - scheme_kernels._skew(Aw)
        Kr = A @ scheme_kernels._skew(wd) - scheme_kernels._skew(Awd) + Sw @ (A @ Sw - scheme_kernels._skew(Aw))
        S[n, 3:6, 3:6] = A + gp * C + bp * Kr
        if Ma.shape[0]:
            res[n] += Ma[n] @ ud[n].copy()
            S[n] += Ma[n]
        scale[n] = (np.abs(mass[n] * ud[n, 0:3]).max() + np.abs(Awd).max() + np.abs(gyro).max()
                    + np.abs(F[n]).max() + 1e-300)
    return res, S, scale
