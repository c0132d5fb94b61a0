"""numba kernels of Solfec's rigid schemes RIG_POS / RIG_NEG / RIG_IMP (layer 3): the half
step and the three finishes as one loop over the rows each, in place on the block's arrays
with 3 x 3 algebra on scalars (no (n, 3, 3) temporaries). Reference: Koziara & Bicanic,
IJNME 81 (2009) 1073-1092 (NEW1/2/3); Solfec-1.0 bod.c; the formulas in `solfec.py`.

Rotations are stored column-major in conf[r, 0:9] (conf[r, 3 j + i] = R[i, j]); the
exponential map uses the Taylor coefficients of geometry/rotation.py below 10 degrees.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit
from solfec_py.geometry.linalg3 import adjugate_solve3
from solfec_py.geometry.rotation import _A, _B, _SMALL, _coefficients_scalar

POS, NEG, IMP, OTHER = 0, 1, 2, -1          # finish kinds (OTHER: keep the half-step rotation)


@njit(inline="always")
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


# 3 x 3 algebra on row-major 9-tuples of scalars (kept in registers: no stores to small
# arrays that the compiler must assume alias the block's arrays); each formula is the one the
# array helpers used, term for term, so the numbers are the same
@njit(inline="always")
def _iss9(w0, w1, w2, n2, a, b):
    """I + a [w] + b [w]^2, with [w]^2 = w w^T - |w|^2 I and n2 = |w|^2."""
    return (1.0 + b * (w0 * w0 - n2), -a * w2 + b * w0 * w1, a * w1 + b * w0 * w2,
            a * w2 + b * w0 * w1, 1.0 + b * (w1 * w1 - n2), -a * w0 + b * w1 * w2,
            -a * w1 + b * w0 * w2, a * w0 + b * w1 * w2, 1.0 + b * (w2 * w2 - n2))


@njit(inline="always")
def _exp9(w0, w1, w2):
    """exp[w] (Rodrigues, as geometry.rotation.expmap)."""
    n2 = w0 * w0 + w1 * w1 + w2 * w2
    a, b = _ab(n2)
    return _iss9(w0, w1, w2, n2, a, b)


@njit(inline="always")
def _rot9(conf, r):
    """The rotation of row r (column-major in conf)."""
    return (conf[r, 0], conf[r, 3], conf[r, 6], conf[r, 1], conf[r, 4], conf[r, 7], conf[r, 2], conf[r, 5], conf[r, 8])


@njit(inline="always")
def _put_rot9(conf, r, M):
    conf[r, 0], conf[r, 1], conf[r, 2] = M[0], M[3], M[6]
    conf[r, 3], conf[r, 4], conf[r, 5] = M[1], M[4], M[7]
    conf[r, 6], conf[r, 7], conf[r, 8] = M[2], M[5], M[8]


@njit(inline="always")
def _m9(M, r):
    """The 3 x 3 matrix M[r]."""
    return (M[r, 0, 0], M[r, 0, 1], M[r, 0, 2], M[r, 1, 0], M[r, 1, 1], M[r, 1, 2], M[r, 2, 0], M[r, 2, 1], M[r, 2, 2])


@njit(inline="always")
def _mm9(A, B):
    """A B."""
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6], A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8], A[3] * B[0] + A[4] * B[3] + A[5] * B[6],
            A[3] * B[1] + A[4] * B[4] + A[5] * B[7], A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6], A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])


@njit(inline="always")
def _mv9(M, x0, x1, x2):
    """M x."""
    return (M[0] * x0 + M[1] * x1 + M[2] * x2, M[3] * x0 + M[4] * x1 + M[5] * x2, M[6] * x0 + M[7] * x1 + M[8] * x2)


@njit(inline="always")
def _mtv9(M, x0, x1, x2):
    """M^T x."""
    return (M[0] * x0 + M[3] * x1 + M[6] * x2, M[1] * x0 + M[4] * x1 + M[7] * x2, M[2] * x0 + M[5] * x1 + M[8] * x2)


@njit(inline="always")
def _rotate_row(r, conf, velo, s):
    """Lambda(t+h/2) = Lambda exp[h/2 Omega], x(t+h/2) = x + h/2 v of row r (s = h/2);
    returns E = exp[h/2 Omega]."""
    E = _exp9(s * velo[r, 0], s * velo[r, 1], s * velo[r, 2])
    _put_rot9(conf, r, _mm9(_rot9(conf, r), E))
    for i in range(3):
        conf[r, 9 + i] += s * velo[r, 3 + i]
    return E


@njit(inline="always")
def _velocity_row(r, velo, J, Jinv, mass, f0, f1, f2, T0, T1, T2, E, momentum, fext, h):
    """Row r given E = exp[h/2 Omega], the force f and the referential torque T (h/2 = s):
    momentum a = E^T J Omega + h T, predictor G = T - Omega_half x J Omega_half with
    Omega_half = J^-1 (E^T J Omega + h/2 T), free velocity Omega + h J^-1 G, v + h f / m."""
    s = 0.5 * h
    Jr, Ji = _m9(J, r), _m9(Jinv, r)
    O0, O1, O2 = velo[r, 0], velo[r, 1], velo[r, 2]
    JO = _mv9(Jr, O0, O1, O2)
    L = _mtv9(E, JO[0], JO[1], JO[2])
    momentum[r, 0], momentum[r, 1], momentum[r, 2] = L[0] + h * T0, L[1] + h * T1, L[2] + h * T2
    Oh = _mv9(Ji, L[0] + s * T0, L[1] + s * T1, L[2] + s * T2)
    JOh = _mv9(Jr, Oh[0], Oh[1], Oh[2])
    G0 = T0 - (Oh[1] * JOh[2] - Oh[2] * JOh[1])
    G1 = T1 - (Oh[2] * JOh[0] - Oh[0] * JOh[2])
    G2 = T2 - (Oh[0] * JOh[1] - Oh[1] * JOh[0])
    fext[r, 0], fext[r, 1], fext[r, 2] = G0, G1, G2
    fext[r, 3], fext[r, 4], fext[r, 5] = f0, f1, f2
    v = _mv9(Ji, G0, G1, G2)
    velo[r, 0], velo[r, 1], velo[r, 2] = O0 + h * v[0], O1 + h * v[1], O2 + h * v[2]
    m = mass[r] if mass[r] > 0.0 else 1.0
    velo[r, 3] += h / m * f0
    velo[r, 4] += h / m * f1
    velo[r, 5] += h / m * f2


@njit
def half_rotate(rows, conf, velo, h):
    """The half-step configuration of every row (before loads that depend on it)."""
    for r in rows:
        _rotate_row(r, conf, velo, 0.5 * h)


@njit
def half_velocity(rows, conf, velo, J, Jinv, mass, f, ts, tr, momentum, fext, h):
    """The free velocity of every row after `half_rotate`, with loads f, ts (spatial
    torque), tr (referential torque) indexed by position in rows."""
    s = 0.5 * h
    for k in range(rows.size):
        r = rows[k]
        E = _exp9(s * velo[r, 0], s * velo[r, 1], s * velo[r, 2])
        T = _mtv9(_rot9(conf, r), ts[k, 0], ts[k, 1], ts[k, 2])
        _velocity_row(r, velo, J, Jinv, mass, f[k, 0], f[k, 1], f[k, 2], T[0] + tr[k, 0], T[1] + tr[k, 1],
                      T[2] + tr[k, 2], E, momentum, fext, h)


@njit(inline="always")
def _gravity_row(r, conf, velo, J, Jinv, mass, obstacle, g, momentum, fext, h):
    """`_rotate_row` then `_velocity_row` of row r under gravity g alone (the force m g; none
    on obstacles)."""
    E = _rotate_row(r, conf, velo, 0.5 * h)
    m = 0.0 if obstacle[r] else mass[r]
    _velocity_row(r, velo, J, Jinv, mass, m * g[0], m * g[1], m * g[2], 0.0, 0.0, 0.0, E, momentum, fext, h)


@njit
def half_step_gravity(rows, conf, velo, J, Jinv, mass, obstacle, g, momentum, fext, h):
    """`half_rotate` and `half_velocity` in one pass when the only load is gravity g (the
    force m g; none on obstacles, as bodies.loads.rigid_loads)."""
    for r in rows:
        _gravity_row(r, conf, velo, J, Jinv, mass, obstacle, g, momentum, fext, h)


@njit(inline="always")
def begin_row(r, velo, velo0, reaction, norotation):
    """The start of the step for row r: the angular velocity of a `norotation` row zeroed,
    velo0 = velo, reaction = 0."""
    if norotation[r]:
        velo[r, 0] = velo[r, 1] = velo[r, 2] = 0.0
    for i in range(6):
        velo0[r, i] = velo[r, i]
        reaction[r, i] = 0.0


@njit
def begin_half_step_gravity(n, conf, velo, J, Jinv, mass, obstacle, g, momentum, fext, h, velo0, reaction,
                            norotation):
    """Rows 0..n-1 in one pass: the start of the step (`begin_row`) then `half_step_gravity`,
    row by row (the rows are independent: the same numbers as the two passes)."""
    for r in range(n):
        begin_row(r, velo, velo0, reaction, norotation)
        _gravity_row(r, conf, velo, J, Jinv, mass, obstacle, g, momentum, fext, h)


@njit(inline="always")
def _solve_imp9(J, a0, a1, a2, s, O0, O1, O2, maxiter):
    """`_solve_imp` on scalars (J a 9-tuple): (converged, Omega, exp[s Omega] of that Omega)."""
    scale = max(1.0, np.sqrt(a0 * a0 + a1 * a1 + a2 * a2))
    for _ in range(maxiter):
        w0, w1, w2 = s * O0, s * O1, s * O2
        n2 = w0 * w0 + w1 * w1 + w2 * w2
        ca, cb, cc = _coefficients_scalar(n2)                # exp[w] and Jr(w) = I - b [w] + c [w]^2 share them
        E = _iss9(w0, w1, w2, n2, ca, cb)
        JO = _mv9(J, O0, O1, O2)
        res = _mv9(E, JO[0], JO[1], JO[2])
        r0, r1, r2 = res[0] - a0, res[1] - a1, res[2] - a2
        worst = max(max(max(0.0, abs(r0)), abs(r1)), abs(r2))
        if worst <= 1e-13 * scale:
            return True, O0, O1, O2, E
        Jr = _iss9(w0, w1, w2, n2, -cb, cc)
        # jac = -s E [J O]x Jr + E J; K = J - s [J O]x Jr, row by row
        K0 = (J[0] - s * (JO[1] * Jr[6] - JO[2] * Jr[3]), J[1] - s * (JO[1] * Jr[7] - JO[2] * Jr[4]),
              J[2] - s * (JO[1] * Jr[8] - JO[2] * Jr[5]))
        K1 = (J[3] - s * (JO[2] * Jr[0] - JO[0] * Jr[6]), J[4] - s * (JO[2] * Jr[1] - JO[0] * Jr[7]),
              J[5] - s * (JO[2] * Jr[2] - JO[0] * Jr[8]))
        K2 = (J[6] - s * (JO[0] * Jr[3] - JO[1] * Jr[0]), J[7] - s * (JO[0] * Jr[4] - JO[1] * Jr[1]),
              J[8] - s * (JO[0] * Jr[5] - JO[1] * Jr[2]))
        j00 = ((0.0 + E[0] * K0[0]) + E[1] * K1[0]) + E[2] * K2[0]
        j01 = ((0.0 + E[0] * K0[1]) + E[1] * K1[1]) + E[2] * K2[1]
        j02 = ((0.0 + E[0] * K0[2]) + E[1] * K1[2]) + E[2] * K2[2]
        j10 = ((0.0 + E[3] * K0[0]) + E[4] * K1[0]) + E[5] * K2[0]
        j11 = ((0.0 + E[3] * K0[1]) + E[4] * K1[1]) + E[5] * K2[1]
        j12 = ((0.0 + E[3] * K0[2]) + E[4] * K1[2]) + E[5] * K2[2]
        j20 = ((0.0 + E[6] * K0[0]) + E[7] * K1[0]) + E[8] * K2[0]
        j21 = ((0.0 + E[6] * K0[1]) + E[7] * K1[1]) + E[8] * K2[1]
        j22 = ((0.0 + E[6] * K0[2]) + E[7] * K1[2]) + E[8] * K2[2]
        det = j00 * (j11 * j22 - j12 * j21) + j01 * (j12 * j20 - j10 * j22) + j02 * (j10 * j21 - j11 * j20)
        x0, x1, x2 = adjugate_solve3(j00, j01, j02, j10, j11, j12, j20, j21, j22, det, r0, r1, r2)
        O0 -= x0
        O1 -= x1
        O2 -= x2
    return False, O0, O1, O2, _iss9(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@njit(inline="always")
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


@njit
def finish(n, rows, scheme, kinds, conf, velo, reaction, J, Jinv, mass, momentum, norot, h, maxiter,
           energies, velo0, fext, obstacle, energy, total, imp):
    """The second half step of n rows, rows[k] (rows 0..n-1 when `rows` is empty), each with
    the finish kinds[scheme[row]] (POS, NEG, IMP or OTHER; scheme the block's codes): constrained
    velocity Omega1 = Omega + h J^-1 Tc, x(t+h) = x(t+h/2) + h/2 v(t+h), the rotation finish;
    with `energies`, each row's `row_energies` right after it (one pass over the rows) and
    total[0] = the sum of the rows' conf and velo entries (finite only if every entry is:
    the finite-state check of the step, without another pass). RIG_IMP rows keep the
    rotation increment of their last Newton iterate (the exp[h/2 Omega] the finish would
    compute again from the same Omega). `imp` None: no RIG_IMP row needs its Newton solve
    (`newton_needed` is False), and numba leaves the solve out of the kernel it compiles
    (obstacles take the RIG_IMP finish, and most decks' obstacles stay at rest). Returns the
    position in rows of a RIG_IMP row whose Newton solve failed, else -1."""
    s = 0.5 * h
    acc = 0.0
    every = rows.size == 0
    for k in range(n):
        r = k if every else rows[k]
        m = mass[r] if mass[r] > 0.0 else 1.0
        Ji = _m9(Jinv, r)
        dO = _mv9(Ji, reaction[r, 0], reaction[r, 1], reaction[r, 2])
        O0, O1, O2 = velo[r, 0] + h * dO[0], velo[r, 1] + h * dO[1], velo[r, 2] + h * dO[2]
        for i in range(3):
            velo[r, 3 + i] += h / m * reaction[r, 3 + i]
            conf[r, 9 + i] += s * velo[r, 3 + i]
        kd = kinds[scheme[r]]
        a0 = a1 = a2 = 0.0
        if kd == NEG or kd == IMP:
            a0, a1, a2 = momentum[r, 0] + h * reaction[r, 0], momentum[r, 1] + h * reaction[r, 1], \
                momentum[r, 2] + h * reaction[r, 2]
            momentum[r, 0], momentum[r, 1], momentum[r, 2] = a0, a1, a2
        if norot[r]:
            velo[r, 0] = velo[r, 1] = velo[r, 2] = 0.0
        elif kd == OTHER:
            velo[r, 0], velo[r, 1], velo[r, 2] = O0, O1, O2
        else:
            if imp is None:             # every RIG_IMP row at rest (`newton_needed`): exp[0]
                E = _exp9(s * O0, s * O1, s * O2)
            elif kd == IMP:             # converged: E = exp[s O] of the final O
                ok, O0, O1, O2, E = _solve_imp9(_m9(J, r), a0, a1, a2, s, O0, O1, O2, maxiter)
                if not ok:
                    return k
            else:
                E = _exp9(s * O0, s * O1, s * O2)
            _put_rot9(conf, r, _mm9(_rot9(conf, r), E))
            if kd == NEG:                                   # Omega = J^-1 dR^T a
                w = _mtv9(E, a0, a1, a2)
                O0, O1, O2 = _mv9(Ji, w[0], w[1], w[2])
            velo[r, 0], velo[r, 1], velo[r, 2] = O0, O1, O2
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


@njit
def newton_needed(n, rows, scheme, kinds, velo, reaction, Jinv, momentum, norot, h):
    """Does some RIG_IMP row of `finish`'s rows (same arguments) start its Newton solve from a
    nonzero Omega = Omega + h J^-1 Tc or momentum a = a + h Tc? A row at rest (both exactly 0,
    as a static obstacle's) converges before its first iteration with E = exp[0], which is
    the rotation update `finish(..., imp=None)` makes for it, bit for bit."""
    every = rows.size == 0
    for k in range(n):
        r = k if every else rows[k]
        if kinds[scheme[r]] != IMP or norot[r]:
            continue
        dO = _mv9(_m9(Jinv, r), reaction[r, 0], reaction[r, 1], reaction[r, 2])
        if velo[r, 0] + h * dO[0] != 0.0 or velo[r, 1] + h * dO[1] != 0.0 or velo[r, 2] + h * dO[2] != 0.0:
            return True
        if (momentum[r, 0] + h * reaction[r, 0] != 0.0 or momentum[r, 1] + h * reaction[r, 1] != 0.0
                or momentum[r, 2] + h * reaction[r, 2] != 0.0):
            return True
    return False
