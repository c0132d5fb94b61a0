# Mathematical pendulum -- Solfec-1.0's tests/math-pendulum.py (write-up validation/pendulum).
#
# A unit point mass (rigid sphere r = 0.05 with BODY_CHARS mass 1, identity inertia) hangs on
# a weightless rod of length 1 to the fixed point (0, 0, 1): PUT_RIGID_LINK(ball, None, ...).
# Gravity -pi^2 (small-amplitude period 2 s); released from rest horizontally (theta_max = 90
# deg). Exact period: T = 4 sqrt(l/g) K(sin 45 deg) = 2.360682 s.
# Check, as Solfec: count sign changes of v_z in a callback (the first call counts); the 5th
# change is one full period -> within 1 % of 2.360682 s. Also: total energy (kinetic +
# potential = pi^2 at the start) stays within 1 % and the rod length within 1e-6.
#
# Run:  solfec-py inputs/math_pendulum.py
# Every step is stored; the deck then builds the model again on the same path (READ mode)
# and checks the stored frames. Run again, it only re-checks them (-w recomputes).
import math
from solfec_py.api.results import stored_frames

step = 1E-3
g = math.pi ** 2


def build():
    sol = SOLFEC('DYNAMIC', step, 'out/math_pendulum')
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
    GRAVITY(sol, (0, 0, -g))
    ball = BODY(sol, 'RIGID', SPHERE((1, 0, 1), 0.05, 1, 1), mat)
    BODY_CHARS(ball, 1.0, 1.0, (1, 0, 1), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    link = PUT_RIGID_LINK(ball, None, (1, 0, 1), (0, 0, 1))
    return sol, ball, link


state = {'prev': 0.0, 'changes': 0, 'period': None, 'energy': 0.0, 'length': 0.0}


def watch():
    v = ball.velo[5]
    if state['period'] is None and v * state['prev'] <= 0.0:
        state['changes'] += 1
        if state['changes'] == 5:
            state['period'] = sol.time
    state['prev'] = v
    x = ball.conf[9:12]
    total = ENERGY(sol)[0] + ball.mass * g * (x[2] - 1.0) + g   # = pi^2 initially
    state['energy'] = max(state['energy'], abs(total - g) / g)
    state['length'] = max(state['length'], abs(math.sqrt(x[0]**2 + x[1]**2 + (x[2] - 1)**2) - 1))
    return 1


sol, ball, link = build()
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 1000, failure='EXIT'), 2.5)   # nothing in READ mode
sol, ball, link = build()                                          # the stored results
for t in stored_frames(sol):      # the frames the check reads (every step)
    if not watch():
        break

exact = 4 * math.sqrt(1 / g) * 1.854074677301372     # K(1/sqrt 2)
error = abs(state['period'] - exact) / exact
print('math_pendulum: period %.4f s (exact %.6f), relative error %.2e; energy drift %.2e;'
      ' rod length error %.1e; link kind %s' % (state['period'], exact, error, state['energy'],
                                                state['length'], link.kind))
assert error < 0.01, 'pendulum period differs from 2.360682 s by more than 1 %'
assert state['energy'] < 0.01, 'pendulum energy not conserved within 1 %'
assert state['length'] < 1e-6, 'rigid link length not kept'
