# Physical pendulum on a FIX_POINT -- the mathematical-pendulum case built as a rigid body.
#
# A rigid box 2 x 0.1 x 0.1 (x from 0 to 2, centred on y = 0, z = 1, density 1) is pinned by
# FIX_POINT at the referential point (0, 0, 1) of its end face; gravity -pi^2; released from
# rest horizontally (90 deg). Compound pendulum: d = 1 (pivot to mass centre),
# I_pivot = m (a^2 + c^2)/12 + m d^2 about y (a = 2, c = 0.1), equivalent length
# l = I_pivot / (m d) = 1.334167; exact period (that of math_pendulum.py with this l):
# T = 4 sqrt(l/g) K(sin 45 deg) = 2.726732 s.
# Check (as math_pendulum.py): the 5th sign change of the centre's v_z is one period -> 1 %;
# the energy is conserved within 1 % and the pinned point stays put within 1e-5 (FIXPNT
# keeps the mean velocity of the step zero, so positions drift by O(h^2) per swing).
#
# Run:  solfec-py inputs/pendulum_fix_point.py
import math
from solfec_py.api.results import stored_frames

step = 1E-3
g = math.pi ** 2


def build():
    sol = SOLFEC('DYNAMIC', step, 'out/pendulum_fix_point')
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1.0)
    GRAVITY(sol, (0, 0, -g))
    box = HULL([0, -0.05, 0.95, 2, -0.05, 0.95, 2, 0.05, 0.95, 0, 0.05, 0.95,
                0, -0.05, 1.05, 2, -0.05, 1.05, 2, 0.05, 1.05, 0, 0.05, 1.05], 1, 1)
    bar = BODY(sol, 'RIGID', box, mat)
    FIX_POINT(bar, (0, 0, 1))
    return sol, bar


sol, bar = build()
state = {'prev': 0.0, 'changes': 0, 'period': None, 'energy': 0.0, 'drift': 0.0}
m = bar.mass
E0 = m * g * 1.0          # potential relative to z = 0 of the centre (z = 1 at rest)


def watch():
    v = bar.velo[5]
    if state['period'] is None and v * state['prev'] <= 0.0:
        state['changes'] += 1
        if state['changes'] == 5:
            state['period'] = sol.time
    state['prev'] = v
    total = ENERGY(sol)[0] + m * g * bar.conf[11]
    state['energy'] = max(state['energy'], abs(total - E0) / E0)
    state['drift'] = max(state['drift'], max(abs(d) for d in DISPLACEMENT(bar, (0, 0, 1))))
    return 1


RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 1000, failure='EXIT'), 3.0)   # nothing in READ mode
sol, bar = build()                                                 # the stored results
for t in stored_frames(sol):      # the frames the check reads (every step)
    if not watch():
        break

ell = (4.0 + 0.01) / 12 + 1.0
exact = 4 * math.sqrt(ell / g) * 1.854074677301372
error = abs(state['period'] - exact) / exact
print('pendulum_fix_point: period %.4f s (exact %.6f), relative error %.2e; energy drift %.2e;'
      ' pin drift %.1e' % (state['period'], exact, error, state['energy'], state['drift']))
assert error < 0.01, 'physical pendulum period off by more than 1 %'
assert state['energy'] < 0.01, 'energy not conserved within 1 %'
assert state['drift'] < 1e-5, 'the fixed point moved'
