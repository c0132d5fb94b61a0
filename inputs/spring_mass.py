# Mass on a linear spring -- PUT_SPRING between a rigid ball and an obstacle.
#
# A ball (BODY_CHARS mass m = 2, identity inertia) at (1, 0, 0) is tied to an anchor ball at
# the origin (held by FIX_POINT; an OBSTACLE would be pushed around by the spring like any
# body, docs/integrators.md) by a follower spring with force -k * stroke (k = 50), stroke limits
# (-1, 1); no gravity; the ball starts at rest length with velocity v0 = 0.3 along x. Exact:
# x(t) = 1 + v0/w sin(w t), w = sqrt(k/m) = 5 rad/s, period T = 2 pi sqrt(m/k) = 1.256637 s.
# Checks: the time between the 2nd and the 10th sign change of v_x is 4 periods -> within
# 0.5 %, and the amplitude v0/w within 0.5 %. A second ball on a spring with a dashpot term
# -c * velocity (c = 2) must follow x - 1 = v0/wd exp(-c t/2m) sin(wd t),
# wd = sqrt(w^2 - (c/2m)^2), within 2 % of v0/w over the whole run.
#
# Run:  solfec-py inputs/spring_mass.py
import math
from solfec_py.api.results import stored_frames

step = 1E-3
m, k, c, v0 = 2.0, 50.0, 2.0, 0.3


def build():
    sol = SOLFEC('DYNAMIC', step, 'out/spring_mass')
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
    wall = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat)
    FIX_POINT(wall, (0, 0, 0))
    ball = BODY(sol, 'RIGID', SPHERE((1, 0, 0), 0.1, 1, 1), mat)
    BODY_CHARS(ball, m, 1.0, (1, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    INITIAL_VELOCITY(ball, (v0, 0, 0), (0, 0, 0))
    PUT_SPRING(ball, (1, 0, 0), wall, (0, 0, 0), lambda s, v: -k * s, (-1, 1))
    wall2 = BODY(sol, 'RIGID', SPHERE((0, 5, 0), 0.1, 1, 1), mat)
    FIX_POINT(wall2, (0, 5, 0))
    damped = BODY(sol, 'RIGID', SPHERE((1, 5, 0), 0.1, 1, 1), mat)
    BODY_CHARS(damped, m, 1.0, (1, 5, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    INITIAL_VELOCITY(damped, (v0, 0, 0), (0, 0, 0))
    PUT_SPRING(damped, (1, 5, 0), wall2, (0, 5, 0), lambda s, v: -k * s - c * v, (-1, 1))
    return sol, ball, damped


w = math.sqrt(k / m)
T = 2 * math.pi / w
beta = c / (2 * m)
wd = math.sqrt(w**2 - beta**2)
state = {'prev': v0, 'changes': [], 'amp': 0.0, 'damped': 0.0}


def watch():
    v = ball.velo[3]
    if v * state['prev'] < 0.0:
        state['changes'].append(sol.time)
    state['prev'] = v
    state['amp'] = max(state['amp'], abs(ball.conf[9] - 1.0))
    t = sol.time
    exact = v0 / wd * math.exp(-beta * t) * math.sin(wd * t)
    state['damped'] = max(state['damped'], abs(damped.conf[9] - 1.0 - exact) / (v0 / w))
    return 1


sol, ball, damped = build()
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 100), 5.2 * T)    # nothing in READ mode
sol, ball, damped = build()                          # the stored results
for t in stored_frames(sol):      # the frames the check reads (every step)
    if not watch():
        break

period = (state['changes'][9] - state['changes'][1]) / 4
error = abs(period - T) / T
amp_error = abs(state['amp'] - v0 / w) / (v0 / w)
print('spring_mass: period %.5f s (exact %.5f), error %.2e; amplitude error %.2e; damped motion'
      ' error %.2e of the amplitude' % (period, T, error, amp_error, state['damped']))
assert error < 0.005, 'spring-mass period differs from 2 pi sqrt(m/k) by more than 0.5 %'
assert amp_error < 0.005, 'spring-mass amplitude differs from v0/w by more than 0.5 %'
assert state['damped'] < 0.02, 'damped spring-mass motion off the exact one by more than 2 %'
