"""Diagonal (single-constraint) block solvers (layer 5, numba): the contact solvers
SEMISMOOTH_NEWTON, PROJECTED_GRADIENT, DE_SAXCE_FENG, PROJECTED_NEWTON on one 3x3 block,
the spring-dashpot contact formula, and the direct solvers of FIXPNT, FIXDIR, VELODIR,
VELODIR3, RIGLNK and SPRING. Reference: Solfec-1.0 ldy.c, constraint kinds; Solfec-1.0 bgs.c, Gauss-Seidel (Solfec dbs.c, pes.c, vic.c).

Every contact solver solves C(b + W R, R) = 0 for one local reaction R = (R_T1, R_T2, R_N)
with the Signorini-Coulomb law: bar U_N = U_N + e min(V_N, 0) (dynamic) or max(g, 0)/h + U_N
(quasi-static), bar U_N >= 0, R_N + c >= 0, bar U_N (R_N + c) = 0, |R_T| <= mu (R_N + c),
sliding opposite to U_T (c = cohesion force, usually 0). It updates R and U in place and
returns its iteration count, or -1 on a singular or non-finite step. Dynamic contacts with a
positive gap are skipped (R = 0, U = b). Convergence: |dR| / max(|R|, 1) < epsilon.

The contact parameter vector `par` holds (mu, e, c, gap, model, spring, dashpot, hpow).
"""
from __future__ import annotations

import math

from solfec_py.compilation import njit
from solfec_py.geometry.linalg3 import solve3s

SEMISMOOTH_NEWTON, PROJECTED_GRADIENT, DE_SAXCE_FENG, PROJECTED_NEWTON = range(4)
DIAGONAL_SOLVERS = ("SEMISMOOTH_NEWTON", "PROJECTED_GRADIENT", "DE_SAXCE_FENG", "PROJECTED_NEWTON")
SIGNORINI_COULOMB, SPRING_DASHPOT = 0, 1


# --------------------------------------------------------------------------- helpers
@njit
def solve3(A, x):
    """Solve A y = x in place (x <- y) by Gaussian elimination with partial pivoting
    (`solve3s`); A is left unchanged. Returns False when A is singular or the result is not
    finite."""
    ok, x[0], x[1], x[2] = solve3s(A[0, 0], A[0, 1], A[0, 2], A[1, 0], A[1, 1], A[1, 2],
                                   A[2, 0], A[2, 1], A[2, 2], x[0], x[1], x[2])
    return ok


@njit
def cone_project_s(mu, s0, s1, s2):
    """The projection of s onto K_mu = {|s_T| <= mu s_N} (closed form, Solfec-1.0 bgs.c,
    contact laws), on scalars: returns its three components."""
    st = math.sqrt(s0 * s0 + s1 * s1)
    if st <= mu * s2:
        return s0, s1, s2
    if mu * st <= -s2:
        return 0.0, 0.0, 0.0
    a = (s2 + mu * st) / (1.0 + mu * mu)
    return mu * a * s0 / st, mu * a * s1 / st, a


@njit
def cone_project(mu, s, out):
    """out = projection of s onto K_mu (`cone_project_s`); out may be s."""
    out[0], out[1], out[2] = cone_project_s(mu, s[0], s[1], s[2])


@njit
def _ubar(dynamic, h, e, gap, UN, VN):
    if dynamic:
        return UN + e * min(VN, 0.0)
    return max(gap, 0.0) / h + UN


@njit
def _set_u(W, b, R, U):
    for i in range(3):
        U[i] = b[i] + W[i, 0] * R[0] + W[i, 1] * R[1] + W[i, 2] * R[2]


@njit
def contact_residual_s(dynamic, h, mu, e, c, gap, U0, U1, U2, V2, R0, R1, R2):
    """C = R - proj_{K^c}(R - F(U)), F(U) = (U_T, bar U_N + mu |U_T|) (De Saxce-Feng form);
    the cohesive cone is handled by shifting R_N by c. On scalars: returns (C0, C1, C2, |C|)."""
    ut = math.sqrt(U0 * U0 + U1 * U1)
    p0, p1, p2 = cone_project_s(mu, R0 - U0, R1 - U1, R2 + c - (_ubar(dynamic, h, e, gap, U2, V2) + mu * ut))
    C0 = R0 - p0
    C1 = R1 - p1
    C2 = R2 + c - p2
    return C0, C1, C2, math.sqrt(C0 * C0 + C1 * C1 + C2 * C2)


@njit
def contact_residual(dynamic, h, par, U, V, R, C, tmp):
    """`contact_residual_s` on arrays: C receives the residual; returns |C| (`tmp`, a work
    row of the callers, is not used)."""
    C[0], C[1], C[2], norm = contact_residual_s(dynamic, h, par[0], par[1], par[2], par[3], U[0], U[1], U[2],
                                                V[2], R[0], R[1], R[2])
    return norm


# --------------------------------------------------------------------------- contact solvers
@njit
def _fixed_point(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws, dsf):
    """The two fixed-point contact solvers: R <- proj(R - rho (U_T, u_N)) onto the friction
    cone (projected gradient, `dsf` False) or R <- proj_cone(R - rho (U_T, u_N + mu |U_T|))
    (De Saxce-Feng, `dsf` True), with cohesion c shifting R_N. Stops when the relative
    change sqrt(|dR|^2 / max(|R|^2, 1)) <= eps or after maxiter sweeps; -1 when R is no
    longer finite, else the iteration count."""
    mu, e, c, gap = par[0], par[1], par[2], par[3]
    tau, out = ws[0], ws[1]
    it = 0
    while True:
        r0, r1, r2 = R[0], R[1], R[2]
        _set_u(W, b, R, U)
        un = _ubar(dynamic, h, e, gap, U[2], V[2])
        if dsf:
            ut = math.sqrt(U[0] * U[0] + U[1] * U[1])
            tau[0] = R[0] - rho * U[0]
            tau[1] = R[1] - rho * U[1]
            tau[2] = R[2] + c - rho * (un + mu * ut)
            cone_project(mu, tau, out)
            R[0], R[1], R[2] = out[0], out[1], out[2] - c
        else:
            R[0] -= rho * U[0]
            R[1] -= rho * U[1]
            R[2] = max(0.0, R[2] - rho * un + c)
            t = math.sqrt(R[0] * R[0] + R[1] * R[1])
            if t >= mu * R[2]:
                f = mu * R[2] / t if t > 0.0 else 0.0
                R[0] *= f
                R[1] *= f
            R[2] -= c
        d = (R[0] - r0) ** 2 + (R[1] - r1) ** 2 + (R[2] - r2) ** 2
        it += 1
        if not math.isfinite(d):
            return -1
        if it >= maxiter or math.sqrt(d / max(R[0] ** 2 + R[1] ** 2 + R[2] ** 2, 1.0)) <= eps:
            break
    _set_u(W, b, R, U)
    return it


@njit
def projected_gradient(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws):
    return _fixed_point(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws, False)


@njit
def de_saxce_feng(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws):
    return _fixed_point(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws, True)


@njit
def ssn_block(dynamic, h, mu, e, c, gap, rho, W00, W01, W02, W10, W11, W12, W20, W21, W22,
              b0, b1, b2, V2, U0, U1, U2, R0, R1, R2, eps, maxiter):
    """Alart-Curnier-type generalised Newton with active sets open / stick / slip
    (Solfec-1.0 bgs.c, Gauss-Seidel) on scalars: the block W (row by row), b, V_N, the
    carried-over U and the start R; res = b + W R - U is folded into each step. Unlike
    Solfec, a step chosen from a stale U (res != 0) never ends the iteration. Returns
    (iterations or -1, R0, R1, R2, U0, U1, U2)."""
    divi = max(1, maxiter // 10)
    it = 0
    while True:
        un = _ubar(dynamic, h, e, gap, U2, V2)
        dT0 = R0 - rho * U0
        dT1 = R1 - rho * U1
        dN = R2 + c - rho * un
        res0 = b0 + W00 * R0 + W01 * R1 + W02 * R2 - U0
        res1 = b1 + W10 * R0 + W11 * R1 + W12 * R2 - U1
        res2 = b2 + W20 * R0 + W21 * R1 + W22 * R2 - U2
        stale = abs(res0) + abs(res1) + abs(res2) > 1e-13 * (1.0 + abs(U0) + abs(U1) + abs(U2))
        if dN >= 0.0:
            norm = math.sqrt(dT0 * dT0 + dT1 * dT1)
            lim = mu * dN
            x2 = -un - res2
            if norm >= lim:                      # slip
                if lim > 0.0:
                    ln = math.sqrt(R0 * R0 + R1 * R1)
                    den = max(lim, ln) * norm
                    ee = lim / norm
                    beta = 1.0
                    if ln > 0.0:
                        alpha = (R0 * dT0 + R1 * dT1) / (ln * norm)
                        delta = min(ln / lim, 1.0)
                        if alpha < 0.0:
                            beta = 1.0 / (1.0 - alpha * delta)
                    F00, F01 = R0 * dT0 / den, R0 * dT1 / den
                    F10, F11 = R1 * dT0 / den, R1 * dT1 / den
                    M00, M01, M10, M11 = ee * (1.0 - F00), -ee * F01, -ee * F10, ee * (1.0 - F11)
                    a00 = 1.0 - beta * M00 + rho * (M00 * W00 + M01 * W10)
                    a01 = -beta * M01 + rho * (M00 * W01 + M01 * W11)
                    a10 = -beta * M10 + rho * (M10 * W00 + M11 * W10)
                    a11 = 1.0 - beta * M11 + rho * (M10 * W01 + M11 * W11)
                    a02 = rho * (M00 * W02 + M01 * W12) - mu * dT0 / norm
                    a12 = rho * (M10 * W02 + M11 * W12) - mu * dT1 / norm
                    x0 = mu * dT0 / norm * (R2 + c) - R0 - rho * (M00 * res0 + M01 * res1)
                    x1 = mu * dT1 / norm * (R2 + c) - R1 - rho * (M10 * res0 + M11 * res1)
                else:                            # degenerate slip: zero tangential force
                    a00, a01, a02, a10, a11, a12 = 1.0, 0.0, 0.0, 0.0, 1.0, 0.0
                    x0 = -R0 - res0
                    x1 = -R1 - res1
            else:                                # stick
                a00, a01, a02 = W00, W01, W02 + U0 / dN
                a10, a11, a12 = W10, W11, W12 + U1 / dN
                x0 = -(1.0 + rho * U2 / dN) * U0 - res0
                x1 = -(1.0 + rho * U2 / dN) * U1 - res1
            ok, x0, x1, x2 = solve3s(a00, a01, a02, a10, a11, a12, W20, W21, W22, x0, x1, x2)
        else:                                    # open: R = (0, 0, -c)
            ok, x0, x1, x2 = solve3s(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, -R0, -R1, -R2 - c)
        if not ok:
            return -1, R0, R1, R2, U0, U1, U2
        U0 += res0 + W00 * x0 + W01 * x1 + W02 * x2
        U1 += res1 + W10 * x0 + W11 * x1 + W12 * x2
        U2 += res2 + W20 * x0 + W21 * x1 + W22 * x2
        R0 += x0
        R1 += x1
        R2 += x2
        err = math.sqrt((x0 ** 2 + x1 ** 2 + x2 ** 2) / max(R0 ** 2 + R1 ** 2 + R2 ** 2, 1.0))
        it += 1
        if it % divi == 0:
            rho *= 10.0
            if not math.isfinite(rho):
                return -1, R0, R1, R2, U0, U1, U2
        # the active set of a step taken from a stale U (res != 0) is not trusted: converged
        # only after a step from a consistent U = b + W R
        if it >= maxiter or (err <= eps and not stale):
            return it, R0, R1, R2, U0, U1, U2


@njit
def semismooth_newton(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws, A):
    """`ssn_block` on arrays: updates R and U in place, returns its iteration count or -1
    (then R, U are left as the failed iteration had them)."""
    it, R[0], R[1], R[2], U[0], U[1], U[2] = ssn_block(
        dynamic, h, par[0], par[1], par[2], par[3], rho, W[0, 0], W[0, 1], W[0, 2], W[1, 0], W[1, 1],
        W[1, 2], W[2, 0], W[2, 1], W[2, 2], b[0], b[1], b[2], V[2], U[0], U[1], U[2], R[0], R[1], R[2],
        eps, maxiter)
    return it


@njit
def _cone_derivative(mu, s, P):
    """P = d proj_{K_mu}(s) / ds (3x3)."""
    st = math.sqrt(s[0] * s[0] + s[1] * s[1])
    for i in range(3):
        for j in range(3):
            P[i, j] = 0.0
    if st <= mu * s[2]:
        P[0, 0] = P[1, 1] = P[2, 2] = 1.0
    elif mu * st <= -s[2]:
        pass
    else:
        k = 1.0 / (1.0 + mu * mu)
        a = (s[2] + mu * st) * k
        t0, t1 = s[0] / st, s[1] / st
        g = mu * a / st
        P[0, 0] = mu * mu * k * t0 * t0 + g * (1.0 - t0 * t0)
        P[0, 1] = mu * mu * k * t0 * t1 - g * t0 * t1
        P[1, 0] = P[0, 1]
        P[1, 1] = mu * mu * k * t1 * t1 + g * (1.0 - t1 * t1)
        P[0, 2] = mu * k * t0
        P[1, 2] = mu * k * t1
        P[2, 0] = mu * k * t0
        P[2, 1] = mu * k * t1
        P[2, 2] = k


@njit
def projected_newton(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws, A):
    """Newton on the unsmoothed C(U, R) = 0: (X W + Y) dR = -C with X = P F'(U), Y = I - P,
    then R <- proj_{K^c}(R + t dR), U = b + W R, with t = 1, 1/2, ... until |C| decreases
    (a safeguard Solfec does not have; -1 when no step decreases |C|, so the Gauss-Seidel
    fallback takes over); stops when |C| <= eps max(|R|, 1)."""
    mu, e, c, gap = par[0], par[1], par[2], par[3]
    C, S, tmp, P, X = ws[0], ws[1], ws[2], ws[3:6], ws[6:9]
    _set_u(W, b, R, U)
    if R[0] == 0.0 and R[1] == 0.0 and R[2] == 0.0:
        # the apex is a poor Newton start (steps get projected back onto it): begin from one
        # De Saxce-Feng projection step instead
        S[0] = -rho * U[0]
        S[1] = -rho * U[1]
        S[2] = c - rho * (_ubar(dynamic, h, e, gap, U[2], V[2]) + mu * math.sqrt(U[0] ** 2 + U[1] ** 2))
        cone_project(mu, S, tmp)
        R[0], R[1], R[2] = tmp[0], tmp[1], tmp[2] - c
        _set_u(W, b, R, U)
    it = 0
    while True:
        nc = contact_residual(dynamic, h, par, U, V, R, C, tmp)
        nr = math.sqrt(R[0] ** 2 + R[1] ** 2 + R[2] ** 2)
        if not math.isfinite(nc):
            return -1
        if nc <= eps * max(nr, 1.0):
            return it
        if it >= maxiter:
            return it
        ut = math.sqrt(U[0] * U[0] + U[1] * U[1])
        S[0] = R[0] - U[0]
        S[1] = R[1] - U[1]
        S[2] = R[2] + c - (_ubar(dynamic, h, e, gap, U[2], V[2]) + mu * ut)
        _cone_derivative(mu, S, P)
        # F'(U): identity plus the mu |U_T| row
        for i in range(3):
            for j in range(3):
                X[i, j] = P[i, j]
        if ut > 0.0:
            for i in range(3):
                X[i, 0] += P[i, 2] * mu * U[0] / ut
                X[i, 1] += P[i, 2] * mu * U[1] / ut
        for i in range(3):
            for j in range(3):
                A[i, j] = X[i, 0] * W[0, j] + X[i, 1] * W[1, j] + X[i, 2] * W[2, j] - P[i, j]
            A[i, i] += 1.0
            S[i] = -C[i]
        if not solve3(A, S):
            return -1
        # step R <- proj(R + t dR) with t halved while |C| does not decrease (safeguard)
        r0, r1, r2 = R[0], R[1], R[2]
        t = 1.0
        decreased = False
        for _ in range(30):
            tmp[0], tmp[1], tmp[2] = r0 + t * S[0], r1 + t * S[1], r2 + t * S[2] + c
            cone_project(mu, tmp, X[0])
            R[0], R[1], R[2] = X[0, 0], X[0, 1], X[0, 2] - c
            _set_u(W, b, R, U)
            if contact_residual(dynamic, h, par, U, V, R, C, tmp) < nc:
                decreased = True
                break
            t *= 0.5
        if not decreased:      # stalled (typically at the cone apex): let the caller fall back
            return -1
        it += 1


@njit
def spring_dashpot(dynamic, h, par, W, b, V, U, R, implicit):
    """Penalty contact (Solfec-1.0 bgs.c, contact laws): normal force from the gap, stick estimate of R_T
    limited by friction. Uses R_T of the previous solve in the implicit normal velocity."""
    mu, c, gap, s, d, m = par[0], par[2], par[3], par[5], par[6], par[7]
    if implicit:
        bN = b[2] + W[2, 0] * R[0] + W[2, 1] * R[1]
        g1 = min(gap + 0.25 * h * (bN - V[2]), 0.0)
        s1 = s * m * (-g1) ** (m - 1.0) if g1 < 0.0 else (s if m == 1.0 else 0.0)
        if d < 0.0:
            d = 2.0 * math.sqrt(h * s1 / W[2, 2])
        RN = (s * (-g1) ** m - 0.5 * d * (bN + V[2])) / (1.0 + (0.25 * h * s1 + 0.5 * d) * W[2, 2])
    else:
        RN = s * (-min(gap, 0.0)) ** m - max(d, 0.0) * V[2]
    if c <= 0.0 and RN < 0.0:
        R[0] = R[1] = R[2] = 0.0
        U[0], U[1], U[2] = b[0], b[1], b[2]
        return 0
    if c > 0.0 and RN < -c:
        RN = -c
    # stick estimate R_T = -W_TT^-1 (b_T + W_TN R_N)
    det = W[0, 0] * W[1, 1] - W[0, 1] * W[1, 0]
    y0 = -(b[0] + W[0, 2] * RN)
    y1 = -(b[1] + W[1, 2] * RN)
    R[0] = (W[1, 1] * y0 - W[0, 1] * y1) / det
    R[1] = (W[0, 0] * y1 - W[1, 0] * y0) / det
    R[2] = RN
    t = math.sqrt(R[0] ** 2 + R[1] ** 2)
    lim = mu * abs(RN)
    if t > lim:
        f = lim / t
        R[0] *= f
        R[1] *= f
    _set_u(W, b, R, U)
    return 0


@njit
def contact_solve(solver, dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws, A):
    if dynamic and par[3] > 0.0:
        R[0] = R[1] = R[2] = 0.0
        U[0], U[1], U[2] = b[0], b[1], b[2]
        return 0
    if int(par[4]) == SPRING_DASHPOT:
        return spring_dashpot(dynamic, h, par, W, b, V, U, R, True)
    if solver == SEMISMOOTH_NEWTON:
        return semismooth_newton(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws, A)
    if solver == PROJECTED_GRADIENT:
        return projected_gradient(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws)
    if solver == DE_SAXCE_FENG:
        return de_saxce_feng(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws)
    return projected_newton(dynamic, h, par, rho, W, b, V, U, R, eps, maxiter, ws, A)


# --------------------------------------------------------------------------- other kinds
@njit
def point_solve(Winv, W, b, target, U, R):
    """FIXPNT / VELODIR3: W R = target - b (3x3 SPD, through the stored inverse), U = target."""
    x0, x1, x2 = target[0] - b[0], target[1] - b[1], target[2] - b[2]
    for i in range(3):
        R[i] = Winv[i, 0] * x0 + Winv[i, 1] * x1 + Winv[i, 2] * x2
    _set_u(W, b, R, U)
    return 0


@njit
def normal_solve(W, b, target_n, U, R):
    """FIXDIR / VELODIR: R = (0, 0, (target - b_N) / W_NN), U = b + W R."""
    R[0] = R[1] = 0.0
    R[2] = (target_n - b[2]) / W[2, 2]
    _set_u(W, b, R, U)
    return 0 if math.isfinite(R[2]) else -1


@njit
def rigid_link_solve(W, b, Y, d0, hh, fallback_n, U, R):
    """RIGLNK: the smallest R_N (minimum 1/2 W_NN R_N^2) with |Y + hh (b + W_.N R_N)| = d0,
    Y = local link vector at the mid-step, hh = h/2 (dynamic) or h (quasi-static): the
    constraint is a quadratic q r^2 + 2 p r + c = 0 whose smaller root is taken in
    closed form. Without a real root: R_N gives U_N = fallback_n. Returns 1 on fallback."""
    a0, a1, a2 = Y[0] + hh * b[0], Y[1] + hh * b[1], Y[2] + hh * b[2]
    w0, w1, w2 = hh * W[0, 2], hh * W[1, 2], hh * W[2, 2]
    q = w0 * w0 + w1 * w1 + w2 * w2
    p = a0 * w0 + a1 * w1 + a2 * w2
    c = a0 * a0 + a1 * a1 + a2 * a2 - d0 * d0
    disc = p * p - q * c
    R[0] = R[1] = 0.0
    flag = 0
    if q > 0.0 and disc >= 0.0:
        s = math.sqrt(disc)
        den = -p - s if p >= 0.0 else -p + s
        R[2] = c / den if den != 0.0 else 0.0
    else:
        R[2] = (fallback_n - b[2]) / W[2, 2]
        flag = 1
    _set_u(W, b, R, U)
    return flag if math.isfinite(R[2]) else -1
