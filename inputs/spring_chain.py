# Spring-mass chain against its modal solution (the physics of Solfec's BM21).
#
# n = 5 balls (BODY_CHARS mass m = 1) at x = 1..5 joined by follower springs k = 100
# (PUT_SPRING, force -k * stroke, limits +-1); the first spring ties ball 1 to an anchor at
# the origin (a ball held by FIX_POINT), the last ball is free; y and z of every ball are
# fixed with FIX_DIRECTION, as in BM21. At t = 0 the chain is at rest length and the free end
# moves with v0 = 0.1 along x. Exact solution of M x'' + K x = 0 (K tridiagonal, fixed-free):
# x(t) = sum_j phi_j (phi_j^T M v0) / w_j sin(w_j t) with M-orthonormal modes phi_j; the
# frequencies are w_j = 2 sqrt(k/m) sin((2j - 1) pi / (2 (2n + 1))) (Solfec-1.0's BM21 test).
# Checks: the numerical eigenvalues match that formula (1e-12), and every ball follows x(t)
# within 1 % of the largest displacement over 3 s.
#
# Run:  solfec-py inputs/spring_chain.py
import math

import numpy as np
from solfec_py.api.results import stored_frames

n, m, k, v0 = 5, 1.0, 100.0, 0.1
step = 1E-3


def build():
    sol = SOLFEC('DYNAMIC', step, 'out/spring_chain')
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
    anchor = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    FIX_POINT(anchor, (0, 0, 0))
    balls = []
    previous, previous_point = anchor, (0, 0, 0)
    for i in range(1, n + 1):
        p = (float(i), 0.0, 0.0)
        ball = BODY(sol, 'RIGID', SPHERE(p, 0.1, 1, 1), mat, label='ball%d' % i)
        BODY_CHARS(ball, m, 1.0, p, (1, 0, 0, 0, 1, 0, 0, 0, 1))
        FIX_DIRECTION(ball, p, (0, 1, 0))
        FIX_DIRECTION(ball, p, (0, 0, 1))
        PUT_SPRING(ball, p, previous, previous_point, lambda s, v: -k * s, (-1, 1))
        balls.append(ball)
        previous, previous_point = ball, p
    INITIAL_VELOCITY(balls[-1], (v0, 0, 0), (0, 0, 0))
    return sol, balls


K = np.diag([2 * k] * (n - 1) + [k]) - k * np.eye(n, k=1) - k * np.eye(n, k=-1)
lam, phi = np.linalg.eigh(K / m)
w = np.sqrt(lam)
phi = phi / math.sqrt(m)                      # M-orthonormal
u0 = np.zeros(n)
u0[-1] = v0
coef = phi.T @ (m * u0) / w
formula = 2 * math.sqrt(k / m) * np.sin((2 * np.arange(1, n + 1) - 1) * math.pi / (2 * (2 * n + 1)))
state = {'err': 0.0, 'amp': 0.0}


def watch():
    exact = phi @ (coef * np.sin(w * sol.time))
    x = np.array([b.conf[9] - (i + 1) for i, b in enumerate(balls)])
    state['err'] = max(state['err'], float(np.abs(x - exact).max()))
    state['amp'] = max(state['amp'], float(np.abs(exact).max()))
    return 1


sol, balls = build()
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 200), 3.0)        # nothing in READ mode
sol, balls = build()                                 # the stored results
for t in stored_frames(sol):      # the frames the check reads (every step)
    if not watch():
        break

freq_error = float(np.abs(w - formula).max() / formula.max())
error = state['err'] / state['amp']
print('spring_chain: modal frequencies %s rad/s (formula error %.1e); largest deviation from'
      ' the modal solution %.2e of the amplitude %.4f' % (np.round(w, 3).tolist(), freq_error, error,
                                                          state['amp']))
assert freq_error < 1e-12, 'chain frequencies differ from the closed form'
assert error < 0.01, 'spring chain differs from its modal solution by more than 1 %'
