"""numba kernels of Solfec's rigid schemes RIG_POS / RIG_NEG / RIG_IMP (layer 3): the half
step and the three finishes as one loop over the rows each, in place on the block's arrays
with 3 x 3 algebra on scalars (no (n, 3, 3) temporaries). Reference: Koziara & Bicanic,
IJNME 81 (2009) 1073-1092 (NEW1/2/3); Solfec-1.0 bod.c; the formulas in `solfec.py`.

Rotations are stored column-major in conf[r, 0:9] (conf[r, 3 j + i] = R[i, j]); the
exponential map uses the Taylor coefficients of geometry/rotation.py below 10 degrees.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from solfec_py.geometry.rotation import _A, _B, _SMALL, _coefficients_scalar

POS, NEG, IMP, OTHER = 0, 1, 2, -1          # finish kinds (OTHER: keep the half-step rotation)


@njit(cache=True, inline="always", error_model="numpy")
def _identity_skew_square(w0, w1, w2, n2, a, b, E):
    """E = I + a [w] + b [w]^2, with [w]^2 = w w^T - |w|^2 I and n2 = |w|^2."""
    E[0, 0] = 1.0 + b * (w0 * w0 - n2)
    E[1, 1] = 1.0 + b * (w1 * w1 - n2)
    E[2, 2] = 1.0 + b * (w2 * w2 - n2)
    E[0, 1], E[1, 0] = -a * w2 + b * w0 * w1, a * w2 + b * w0 * w1
    E[0, 2], E[2, 0] = a * w1 + b * w0 * w2, -a * w1 + b * w0 * w2
    E[1, 2], E[2, 1] = -a * w0 + b * w1 * w2, a * w0 + b * w1 * w2


@njit(cache=True, inline="always", error_model="numpy")
def _ab(t2):
    """sin(t)/t and (1-cos t)/t^2 at t^2 = t2: geometry.rotation._coefficients_scalar's
    operations (inlined here, without the third coefficient where it is not used)."""
    if t2 < _SMALL:
        a, b = _A[6], _B[6]
        for k in range(5, -1, -1):
            a = a * t2 + _A[k]
            b = b * t2 + _B[k]
        return a, b
    t = np.sqrt(t2)
    return np.sin(t) / t, (1.0 - np.cos(t)) / t2


@njit(cache=True, inline="always", error_model="numpy")
def _exp(w0, w1, w2, E):
    """E = exp[w] (Rodrigues, as geometry.rotation.expmap)."""
    n2 = w0 * w0 + w1 * w1 + w2 * w2
    a, b = _ab(n2)
    _identity_skew_square(w0, w1, w2, n2, a, b, E)


@njit(cache=True, inline="always", error_model="numpy")
def _get_rot(conf, r, R):
    for j in range(3):
        for i in range(3):
            R[i, j] = conf[r, 3 * j + i]


@njit(cache=True, inline="always", error_model="numpy")
def _put_rot_times(conf, r, R, E, tmp):
    """conf rotation of row r := R @ E."""
    for i in range(3):
        for j in range(3):
            tmp[i, j] = R[i, 0] * E[0, j] + R[i, 1] * E[1, j] + R[i, 2] * E[2, j]
    for j in range(3):
        for i in range(3):
            conf[r, 3 * j + i] = tmp[i, j]


@njit(cache=True, inline="always", error_model="numpy")
def _mv3(M, x0, x1, x2, out):
    for i in range(3):
        out[i] = M[i, 0] * x0 + M[i, 1] * x1 + M[i, 2] * x2


@njit(cache=True, inline="always", error_model="numpy")
def _mtv3(M, x0, x1, x2, out):
    for i in range(3):
        out[i] = M[0, i] * x0 + M[1, i] * x1 + M[2, i] * x2


@njit(cache=True, inline="always", error_model="numpy")
def _rotate_row(r, conf, velo, s, R, E, tmp):
    """Lambda(t+h/2) = Lambda exp[h/2 Omega], x(t+h/2) = x + h/2 v of row r; leaves
    E = exp[h/2 Omega] and R = Lambda(t)."""
    _exp(s * velo[r, 0], s * velo[r, 1], s * velo[r, 2], E)
    _get_rot(conf, r, R)
    _put_rot_times(conf, r, R, E, tmp)
    for i in range(3):
        conf[r, 9 + i] += s * velo[r, 3 + i]


@njit(cache=True, inline="always", error_model="numpy")
def _velocity_row(r, conf, velo, J, Jinv, mass, f0, f1, f2, T, E, momentum, fext, h, JO, L, Oh, JOh, v):
    """Row r given E = exp[h/2 Omega], the force f and the referential torque T (h/2 = s):
    momentum a = E^T J Omega + h T, predictor G = T - Omega_half x J Omega_half with
    Omega_half = J^-1 (E^T J Omega + h/2 T), free velocity Omega + h J^-1 G, v + h f / m."""
    s = 0.5 * h
    O0, O1, O2 = velo[r, 0], velo[r, 1], velo[r, 2]
    _mv3(J[r], O0, O1, O2, JO)
    _mtv3(E, JO[0], JO[1], JO[2], L)
    for i in range(3):
        momentum[r, i] = L[i] + h * T[i]
    _mv3(Jinv[r], L[0] + s * T[0], L[1] + s * T[1], L[2] + s * T[2], Oh)
    _mv3(J[r], Oh[0], Oh[1], Oh[2], JOh)
    G0 = T[0] - (Oh[1] * JOh[2] - Oh[2] * JOh[1])
    G1 = T[1] - (Oh[2] * JOh[0] - Oh[0] * JOh[2])
    G2 = T[2] - (Oh[0] * JOh[1] - Oh[1] * JOh[0])
    fext[r, 0], fext[r, 1], fext[r, 2] = G0, G1, G2
    fext[r, 3], fext[r, 4], fext[r, 5] = f0, f1, f2
    _mv3(Jinv[r], G0, G1, G2, v)
    velo[r, 0], velo[r, 1], velo[r, 2] = O0 + h * v[0], O1 + h * v[1], O2 + h * v[2]
    m = mass[r] if mass[r] > 0.0 else 1.0
    velo[r, 3] += h / m * f0
    velo[r, 4] += h / m * f1
    velo[r, 5] += h / m * f2


@njit(cache=True, error_model="numpy")
def half_rotate(rows, conf, velo, h):
    """The half-step configuration of every row (before loads that depend on it)."""
    R, E, tmp = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    for r in rows:
        _rotate_row(r, conf, velo, 0.5 * h, R, E, tmp)


@njit(cache=True, error_model="numpy")
def half_velocity(rows, conf, velo, J, Jinv, mass, f, ts, tr, momentum, fext, h):
    """The free velocity of every row after `half_rotate`, with loads f, ts (spatial
    torque), tr (referential torque) indexed by position in rows."""
    R, E = np.empty((3, 3)), np.empty((3, 3))
    T, JO, L, Oh, JOh, v = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    s = 0.5 * h
    for k in range(rows.size):
        r = rows[k]
        _exp(s * velo[r, 0], s * velo[r, 1], s * velo[r, 2], E)
        _get_rot(conf, r, R)
        _mtv3(R, ts[k, 0], ts[k, 1], ts[k, 2], T)
        for i in range(3):
            T[i] += tr[k, i]
        _velocity_row(r, conf, velo, J, Jinv, mass, f[k, 0], f[k, 1], f[k, 2], T, E, momentum, fext, h,
                      JO, L, Oh, JOh, v)


@njit(cache=True, error_model="numpy")
def half_step_gravity(rows, conf, velo, J, Jinv, mass, obstacle, g, momentum, fext, h):
    """`half_rotate` and `half_velocity` in one pass when the only load is gravity g (the
    force m g; none on obstacles, as bodies.loads.rigid_loads)."""
    R, E, tmp = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    T, JO, L, Oh, JOh, v = np.zeros(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for r in rows:
        _rotate_row(r, conf, velo, 0.5 * h, R, E, tmp)
        m = 0.0 if obstacle[r] else mass[r]
        _velocity_row(r, conf, velo, J, Jinv, mass, m * g[0], m * g[1], m * g[2], T, E, momentum, fext, h,
                      JO, L, Oh, JOh, v)


@njit(cache=True, error_model="numpy")
def begin_half_step_gravity(n, conf, velo, J, Jinv, mass, obstacle, g, momentum, fext, h, velo0, reaction,
                            norotation):
    """Rows 0..n-1 in one pass: the start of the step (support._begin_rows: the angular
    velocity of `norotation` rows zeroed, velo0 = velo, reaction = 0) then `half_step_gravity`,
    row by row (the rows are independent: the same numbers as the two passes)."""
    R, E, tmp = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    T, JO, L, Oh, JOh, v = np.zeros(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for r in range(n):
        if norotation[r]:
            velo[r, 0] = velo[r, 1] = velo[r, 2] = 0.0
        for i in range(6):
            velo0[r, i] = velo[r, i]
            reaction[r, i] = 0.0
        _rotate_row(r, conf, velo, 0.5 * h, R, E, tmp)
        m = 0.0 if obstacle[r] else mass[r]
        _velocity_row(r, conf, velo, J, Jinv, mass, m * g[0], m * g[1], m * g[2], T, E, momentum, fext, h,
                      JO, L, Oh, JOh, v)


@njit(cache=True, error_model="numpy")
def _solve_imp(J, a, s, O, E, Jr, jac, tmp, JO, res, maxiter):
    """Newton for exp[s Omega] J Omega = a from O (in place); False when not converged."""
    scale = max(1.0, np.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]))
    for _ in range(maxiter):
        w0, w1, w2 = s * O[0], s * O[1], s * O[2]
        n2 = w0 * w0 + w1 * w1 + w2 * w2
        ca, cb, cc = _coefficients_scalar(n2)                # exp[w] and Jr(w) = I - b [w] + c [w]^2 share them
        _identity_skew_square(w0, w1, w2, n2, ca, cb, E)
        _mv3(J, O[0], O[1], O[2], JO)
        _mv3(E, JO[0], JO[1], JO[2], res)
        worst = 0.0
        for i in range(3):
            res[i] -= a[i]
            worst = max(worst, abs(res[i]))
        if worst <= 1e-13 * scale:
            return True
        _identity_skew_square(w0, w1, w2, n2, -cb, cc, Jr)
        # jac = -s E [J O]x Jr + E J
        for i in range(3):                   # tmp = [J O]x Jr
            for j in range(3):
                c0, c1, c2 = Jr[0, j], Jr[1, j], Jr[2, j]
                if i == 0:
                    tmp[i, j] = JO[1] * c2 - JO[2] * c1
                elif i == 1:
                    tmp[i, j] = JO[2] * c0 - JO[0] * c2
                else:
                    tmp[i, j] = JO[0] * c1 - JO[1] * c0
        for i in range(3):
            for j in range(3):
                acc = 0.0
                for l in range(3):
                    acc += E[i, l] * (J[l, j] - s * tmp[l, j])
                jac[i, j] = acc
        # O -= jac^-1 res (cofactors; jac is near E J, far from singular)
        c00 = jac[1, 1] * jac[2, 2] - jac[1, 2] * jac[2, 1]
        c01 = jac[0, 2] * jac[2, 1] - jac[0, 1] * jac[2, 2]
        c02 = jac[0, 1] * jac[1, 2] - jac[0, 2] * jac[1, 1]
        c10 = jac[1, 2] * jac[2, 0] - jac[1, 0] * jac[2, 2]
        c11 = jac[0, 0] * jac[2, 2] - jac[0, 2] * jac[2, 0]
        c12 = jac[0, 2] * jac[1, 0] - jac[0, 0] * jac[1, 2]
        c20 = jac[1, 0] * jac[2, 1] - jac[1, 1] * jac[2, 0]
        c21 = jac[0, 1] * jac[2, 0] - jac[0, 0] * jac[2, 1]
        c22 = jac[0, 0] * jac[1, 1] - jac[0, 1] * jac[1, 0]
        det = jac[0, 0] * c00 + jac[0, 1] * c10 + jac[0, 2] * c20
        O[0] -= (c00 * res[0] + c01 * res[1] + c02 * res[2]) / det
        O[1] -= (c10 * res[0] + c11 * res[1] + c12 * res[2]) / det
        O[2] -= (c20 * res[0] + c21 * res[1] + c22 * res[2]) / det
    return False


@njit(cache=True, inline="always", error_model="numpy")
def row_energies(k, velo, velo0, fext, reaction, obstacle, J, mass, energy, half_h):
    """End-of-step bookkeeping of row k: fext += reaction; the external work h/2 (velo0 +
    velo).fext added to energy[k, 1] and the kinetic energy 1/2 Omega.J Omega + 1/2 m v.v
    stored in energy[k, 0], both 0 for obstacles. The operations and their order are those
    of the array expressions this replaced (the 6-term dot summed in numpy einsum's pairing
    ((0 + 2) + 4) + ((1 + 3) + 5); x + 0.0 for obstacles' work, as np.where did; the kinetic
    energy as bodies.rigid._kinetic_energy), so the energies are theirs bit for bit."""
    for i in range(6):
        fext[k, i] += reaction[k, i]
    p0 = (velo0[k, 0] + velo[k, 0]) * fext[k, 0]
    p1 = (velo0[k, 1] + velo[k, 1]) * fext[k, 1]
    p2 = (velo0[k, 2] + velo[k, 2]) * fext[k, 2]
    p3 = (velo0[k, 3] + velo[k, 3]) * fext[k, 3]
    p4 = (velo0[k, 4] + velo[k, 4]) * fext[k, 4]
    p5 = (velo0[k, 5] + velo[k, 5]) * fext[k, 5]
    live = not obstacle[k]
    work = half_h * (((p0 + p2) + p4) + ((p1 + p3) + p5))
    energy[k, 1] += work if live else 0.0
    if live:
        rot = 0.0
        for i in range(3):
            rot += velo[k, i] * (J[k, i, 0] * velo[k, 0] + J[k, i, 1] * velo[k, 1] + J[k, i, 2] * velo[k, 2])
        lin = velo[k, 3] ** 2 + velo[k, 4] ** 2 + velo[k, 5] ** 2
        energy[k, 0] = 0.5 * rot + 0.5 * mass[k] * lin
    else:
        energy[k, 0] = 0.0


@njit(cache=True, error_model="numpy")
def finish(n, rows, scheme, kinds, conf, velo, reaction, J, Jinv, mass, momentum, norot, h, maxiter,
           energies, velo0, fext, obstacle, energy, total):
    """The second half step of n rows, rows[k] (rows 0..n-1 when `rows` is empty), each with
    the finish kinds[scheme[row]] (POS, NEG, IMP or OTHER; scheme the block's codes): constrained
    velocity Omega1 = Omega + h J^-1 Tc, x(t+h) = x(t+h/2) + h/2 v(t+h), the rotation finish;
    with `energies`, each row's `row_energies` right after it (one pass over the rows) and
    total[0] = the sum of the rows' conf and velo entries (finite only if every entry is:
    the finite-state check of the step, without another pass). RIG_IMP rows keep the
    rotation increment of their last Newton iterate (the exp[h/2 Omega] the finish would
    compute again from the same Omega). Returns the position in rows of a RIG_IMP row whose
    Newton solve failed, else -1."""
    R, E, Jr, jac, tmp = np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3))
    O, a, w, JO, res = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    s = 0.5 * h
    acc = 0.0
    every = rows.size == 0
    for k in range(n):
        r = k if every else rows[k]
        m = mass[r] if mass[r] > 0.0 else 1.0
        _mv3(Jinv[r], reaction[r, 0], reaction[r, 1], reaction[r, 2], O)
        for i in range(3):
            O[i] = velo[r, i] + h * O[i]
            velo[r, 3 + i] += h / m * reaction[r, 3 + i]
            conf[r, 9 + i] += s * velo[r, 3 + i]
        kd = kinds[scheme[r]]
        if kd == NEG or kd == IMP:
            for i in range(3):
                a[i] = momentum[r, i] + h * reaction[r, i]
                momentum[r, i] = a[i]
        if norot[r]:
            velo[r, 0] = velo[r, 1] = velo[r, 2] = 0.0
        elif kd == OTHER:
            velo[r, 0], velo[r, 1], velo[r, 2] = O[0], O[1], O[2]
        else:
            if kd == IMP:               # converged: E = exp[s O] of the final O
                if not _solve_imp(J[r], a, s, O, E, Jr, jac, tmp, JO, res, maxiter):
                    return k
            else:
                _exp(s * O[0], s * O[1], s * O[2], E)
            _get_rot(conf, r, R)
            _put_rot_times(conf, r, R, E, tmp)
            if kd == NEG:                                   # Omega = J^-1 dR^T a
                _mtv3(E, a[0], a[1], a[2], w)
                _mv3(Jinv[r], w[0], w[1], w[2], O)
            velo[r, 0], velo[r, 1], velo[r, 2] = O[0], O[1], O[2]
        if energies:
            row_energies(r, velo, velo0, fext, reaction, obstacle, J, mass, energy, s)
            # (a short tree per row, one add on the chain across rows)
            c = ((conf[r, 0] + conf[r, 1]) + (conf[r, 2] + conf[r, 3])) + ((conf[r, 4] + conf[r, 5])
                                                                             + (conf[r, 6] + conf[r, 7]))
            c += ((conf[r, 8] + conf[r, 9]) + (conf[r, 10] + conf[r, 11]))
            c += ((velo[r, 0] + velo[r, 1]) + (velo[r, 2] + velo[r, 3])) + (velo[r, 4] + velo[r, 5])
            acc += c
    total[0] = acc
    return -1
