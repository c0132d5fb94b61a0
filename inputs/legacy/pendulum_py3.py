# Python 3 twin of pendulum_py2.py.
from math import pi
sol = SOLFEC('DYNAMIC', 1E-3, 'out/legacy/pendulum_py3')
sol.verbose = 'OFF'
mat = BULK_MATERIAL(sol)
bod = BODY(sol, 'RIGID', SPHERE((1, 0, 1), 0.05, 1, 1), mat)
BODY_CHARS(bod, 1.0, 1.0, (1, 0, 1), (1, 0, 0, 0, 1, 0, 0, 0, 1))
PUT_RIGID_LINK(bod, None, (1, 0, 1), (0, 0, 1))
GRAVITY(sol, (0, 0, -pi*pi))
steps = 1500
for i in range(3):
    RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 1000), steps // 3 * 1E-3)
    print('run %d: t = %.3f z = %.9f' % (i, sol.time, bod.conf[11]))
print('pendulum ...', '\b\b\b\bPASSED')
