# Prescribed motion -- SET_ACCELERATION / SET_VELOCITY / SET_DISPLACEMENT / SET_VELOCITY3
# follow their time series with Solfec's semantics (Solfec-1.0's BM20 test).
#
# Ball A is BM20's driven sphere: SET_ACCELERATION along x with a_k = sin(k 10 deg) at
# t_k = (k + 1) D (D = 4/740 s, 74 knots), y and z fixed by FIX_DIRECTION and a spring
# (-1000 * stroke) to ball B (mass 100 each, as BM20). The prescribed velocity is the running
# trapezoidal integral I(t) of the series (0 before its first time), so exactly
#   v_A(t) = I(t),  x_A(t) - x_A(0) = int_0^t I(s) ds  (I piecewise linear -> exact integral).
# Ball C: SET_VELOCITY with a piecewise-linear series v(t); x_C - x_C(0) = int v.
# Ball D: SET_DISPLACEMENT with s(t) = the series through 0.01 sin(10 pi t_i), t_i = 0.01 i:
# the velocity is the slope series (a step function); the trapezoidal position update lags by
# h/2 |slope jump| at each knot (and h/2 |s_0| at the start, the ball being at rest), so
# |x_D - s(t) + s(0)| <= the sum of those (computed below).
# Ball E: SET_VELOCITY3 in a rotated base with three series (initial velocity = the
# prescribed one); its velocity = base @ values, its displacement = base @ integrals.
# Solfec's stored BM20 value (5 Hz run, same first 0.4 s of the series): VX_A(0.1) = 0.0615501
# (a reimplementation matches to ~1e-6, as for Solfec-1.0's BM20) -> checked within 2e-6.
# Checks at every step: velocities to 1e-9; positions of C and E to 1e-9 (the series have
# their knots on step boundaries, where the trapezoidal update is exact), of A to the
# trapezoidal-rule bound sum h^2/8 |a jump| over the knots of I (not on step boundaries), of
# D to its lag bound.
#
# Run:  solfec-py inputs/prescribed_motion.py
import math

import numpy as np
from solfec_py.api.results import stored_frames

step = 1E-4
stop = 0.4
J = (1, 0, 0, 0, 1, 0, 0, 0, 1)
D = 4.0 / 740
knots = [(k + 1) * D for k in range(74)]
accel = TIME_SERIES([v for k, t in enumerate(knots) for v in (t, math.sin(math.radians(10 * k)))])
vel = TIME_SERIES([0.0, 0.0, 0.1, 0.5, 0.25, -0.2, 0.3, 0.0])
times = [0.01 * i for i in range(41)]
disp = TIME_SERIES([v for t in times for v in (t, 0.01 * math.sin(10 * math.pi * t))])
c, s = math.cos(0.3), math.sin(0.3)
base = (c, s, 0, -s, c, 0, 0, 0, 1)             # u, v, w vectors
series3 = (TIME_SERIES([0, 0.2, 0.4, -0.1]), 0.05, TIME_SERIES([0, 0, 0.2, 0.3, 0.4, 0.0]))
c0 = np.array(base).reshape(3, 3).T @ np.array([0.2, 0.05, 0.0])


def build():
    """The model (every step stored); sets the globals sol, A, B, C, Dball, E."""
    global sol, A, B, C, Dball, E
    sol = SOLFEC('DYNAMIC', step, 'out/prescribed_motion')
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)

    def ball(x, y, mass=1.0):
        b = BODY(sol, 'RIGID', SPHERE((x, y, 0), 0.01, 1, 1), mat)
        BODY_CHARS(b, mass, 1.0, (x, y, 0), J)
        return b

    A, B = ball(0, 0, 100.0), ball(1, 0, 100.0)
    for b, p in ((A, (0, 0, 0)), (B, (1, 0, 0))):
        FIX_DIRECTION(b, p, (0, 1, 0))
        FIX_DIRECTION(b, p, (0, 0, 1))
    PUT_SPRING(A, (0, 0, 0), B, (1, 0, 0), lambda s, v: -1000.0 * s, (-1, 1))
    SET_ACCELERATION(A, (0, 0, 0), (1, 0, 0), accel)
    C = ball(0, 1)
    SET_VELOCITY(C, (0, 1, 0), (1, 0, 0), vel)
    Dball = ball(0, 2)
    SET_DISPLACEMENT(Dball, (0, 2, 0), (1, 0, 0), disp)
    E = ball(0, 3)
    SET_VELOCITY3(E, (0, 3, 0), base, series3)
    INITIAL_VELOCITY(E, tuple(c0.tolist()), (0, 0, 0))


build()

# exact references ---------------------------------------------------------------
tk = np.array(knots)
ak = np.sin(np.radians(10 * np.arange(74)))
Ik = np.concatenate([[0.0], np.cumsum(0.5 * (ak[1:] + ak[:-1]) * np.diff(tk))])
Xk = np.concatenate([[0.0], np.cumsum(0.5 * (Ik[1:] + Ik[:-1]) * np.diff(tk))])


def integral_of_piecewise_linear(t, knots_t, values, cum):
    """int_0^t of the piecewise-linear function through (knots_t, values), constant outside."""
    if t <= knots_t[0]:
        return values[0] * t
    i = min(np.searchsorted(knots_t, t) - 1, knots_t.size - 2)
    if t >= knots_t[-1]:
        return values[0] * knots_t[0] + cum[-1] + values[-1] * (t - knots_t[-1])
    tau = t - knots_t[i]
    slope = (values[i + 1] - values[i]) / (knots_t[i + 1] - knots_t[i])
    return values[0] * knots_t[0] + cum[i] + values[i] * tau + 0.5 * slope * tau * tau


def cumulative(knots_t, values):
    return np.concatenate([[0.0], np.cumsum(0.5 * (values[1:] + values[:-1]) * np.diff(knots_t))])


vt, vv = np.array(vel.times), np.array(vel.values)
Ct = cumulative(vt, vv)
w1t, w1v = np.array(series3[0].times), np.array(series3[0].values)
w3t, w3v = np.array(series3[2].times), np.array(series3[2].values)
Bm = np.array(base).reshape(3, 3).T
slopes = np.diff([0.01 * math.sin(10 * math.pi * t) for t in times]) / 0.01
jumps = np.abs(np.diff(slopes))
start = {b: np.array(b.conf[9:12]) for b in (A, C, Dball, E)}
bm20 = {}
err = {'vA': 0.0, 'xA': 0.0, 'vC': 0.0, 'xC': 0.0, 'xD': 0.0, 'vE': 0.0, 'xE': 0.0}


def watch():
    t = sol.time
    if abs(t - 0.1) < 0.5 * step:
        bm20['VX'] = A.velo[3]
    err['vA'] = max(err['vA'], abs(A.velo[3] - np.interp(t, tk, Ik)))
    err['xA'] = max(err['xA'], abs(A.conf[9] - start[A][0] - integral_of_piecewise_linear(t, tk, Ik, Xk) + 0.0))
    err['vC'] = max(err['vC'], abs(C.velo[3] - np.interp(t, vt, vv)))
    err['xC'] = max(err['xC'], abs(C.conf[9] - start[C][0] - integral_of_piecewise_linear(t, vt, vv, Ct)))
    bound = 0.5 * step * jumps[: max(0, int(t / 0.01 + 1e-9))].sum() + 0.5 * step * abs(slopes[0])
    sD = np.interp(t, times, disp.values)
    err['xD'] = max(err['xD'], abs(Dball.conf[9] - start[Dball][0] - sD) - bound)
    local = np.array([np.interp(t, w1t, w1v), 0.05, np.interp(t, w3t, w3v)])
    err['vE'] = max(err['vE'], float(np.abs(np.array(E.velo[3:6]) - Bm @ local).max()))
    X = np.array([integral_of_piecewise_linear(t, w1t, w1v, cumulative(w1t, w1v)), 0.05 * t,
                  integral_of_piecewise_linear(t, w3t, w3v, cumulative(w3t, w3v))])
    err['xE'] = max(err['xE'], float(np.abs(np.array(E.conf[9:12]) - start[E] - Bm @ X).max()))
    return 1


RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 200), stop)     # nothing in READ mode
build()                                             # the stored results (READ mode)
start = {b: np.array(b.conf[9:12]) for b in (A, C, Dball, E)}
for t in stored_frames(sol):      # the frames the check reads (every step)
    if not watch():
        break

print('prescribed_motion: largest errors ' + ', '.join('%s %.1e' % kv for kv in sorted(err.items())))
print('  driven sphere A: VX(0.1) = %.7f (Solfec BM20 0.0615501); at t = %.2f: VX %.7f, DX %.7f'
      % (bm20['VX'], sol.time, A.velo[3], A.conf[9] - start[A][0]))
assert abs(bm20['VX'] - 0.0615501) < 2e-6, 'BM20 driven velocity differs from Solfec by more than 2e-6'
trapezoid_bound = step**2 / 8 * np.abs(np.diff(ak)).sum()
for key in ('vA', 'vC', 'xC', 'vE', 'xE'):
    assert err[key] < 1e-9, 'prescribed motion %s off the exact value by %.2e' % (key, err[key])
assert err['xA'] <= trapezoid_bound + 1e-12, 'SET_ACCELERATION displacement beyond %.1e' % trapezoid_bound
assert err['xD'] <= 1e-9, 'SET_DISPLACEMENT beyond the trapezoidal lag bound by %.2e' % err['xD']
