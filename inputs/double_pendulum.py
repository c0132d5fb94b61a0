# Double pendulum with an impact (Solfec-1.0 tests/double-pendulum.py).
# Two unit point masses on weightless rods of length 1 swing from rest and strike a rigid
# wall (sphere-obstacle contact, restitution 0.1, frictionless). The deck runs the model,
# then builds it again on the same output path, which opens the results in READ mode, and
# checks the total energy (kinetic + potential, shifted so the last sample is 0) at steps
# 0, 600, 1000, 1500 and 2400 against Solfec's stored values (relative error <= 1e-3).
from math import sin, cos, pi

GEOMETRIC_EPSILON(1E-5)
GRAVITY_ACC = 9.81
STEP = 0.001
STOP = 2.5
OUTDIR = 'out/double_pendulum'


def create(solfec, material):
    x1, z1 = sin(pi / 3.0), -cos(pi / 3.0)
    x2, z2 = x1 + sin(pi / 5.0), z1 - cos(pi / 5.0)
    a, b, c = (0, 0, 2.0), (x1, 0, 2.0 + z1), (x2, 0, 2.0 + z2)
    J = (1, 0, 0, 0, 1, 0, 0, 0, 1)
    ball1 = BODY(solfec, 'RIGID', SPHERE(b, 0.05, 1, 1), material, label='BALL1')
    BODY_CHARS(ball1, 1.0, 1.0, b, J)
    PUT_RIGID_LINK(ball1, None, b, a)
    ball2 = BODY(solfec, 'RIGID', SPHERE(c, 0.05, 1, 1), material, label='BALL2')
    BODY_CHARS(ball2, 1.0, 1.0, c, J)
    PUT_RIGID_LINK(ball2, ball1, c, b)
    nodes = [-0.10, -0.2, 0.0,  -0.05, -0.2, 0.0,  -0.05, 0.2, 0.0,  -0.10, 0.2, 0.0,
             -0.10, -0.2, 2.0,  -0.05, -0.2, 2.0,  -0.05, 0.2, 2.0,  -0.10, 0.2, 2.0]
    BODY(solfec, 'OBSTACLE', HEX(nodes, 1, 1, 1, 0, [0, 0, 0, 0, 0, 0]), material)


def build():
    solfec = SOLFEC('DYNAMIC', STEP, OUTDIR)
    material = BULK_MATERIAL(solfec)
    SURFACE_MATERIAL(solfec, model='SIGNORINI_COULOMB', restitution=0.1, friction=0.0)
    GRAVITY(solfec, (0, 0, -GRAVITY_ACC))
    create(solfec, material)
    return solfec


solfec = build()
RUN(solfec, GAUSS_SEIDEL_SOLVER(1E-3, 1000, failure='EXIT'), STOP)   # nothing in READ mode

solfec = build()          # the results written above: READ mode
assert solfec.mode == 'READ', 'the second model should open the stored results'
ball1 = BYLABEL(solfec, 'BODY', 'BALL1')
ball2 = BYLABEL(solfec, 'BODY', 'BALL2')
th = HISTORY(solfec, [(solfec, 'KINETIC'), (ball1, ball1.center, 'DX'), (ball2, ball2.center, 'DX'),
                      (ball1, ball1.center, 'DZ'), (ball2, ball2.center, 'DZ')], 0, STOP)
total = [th[1][i] + ball1.mass * GRAVITY_ACC * max(ball1.center[2] + th[4][i], 0)
         + ball2.mass * GRAVITY_ACC * max(ball2.center[2] + th[5][i], 0) for i in range(len(th[0]))]
shift = total[-1]
total = [e - shift for e in total]

REFERENCE = [(0, 11.6766522245), (600, 9.02830180065), (1000, 0.892467558418),
             (1500, 0.642073700206), (2400, 0.0)]
passed = True
for index, ref in REFERENCE:
    error = abs(total[index] - ref) / max(1.0, ref)
    print('step %4d: total energy %.6f, reference %.6f, error %.1e' % (index, total[index], ref, error))
    passed = passed and error <= 1E-3
print('PASSED' if passed else 'FAILED')
assert passed, 'double pendulum energies differ from Solfec by more than 1e-3'

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

fig, (top, bottom) = plt.subplots(2, 1, figsize=(6, 6), sharex=True)
top.plot(th[0], [x + ball1.center[0] for x in th[2]], label='$x_1$')
top.plot(th[0], [x + ball2.center[0] for x in th[3]], label='$x_2$')
top.set_ylabel('Position [m]')
top.legend(loc='upper right')
bottom.plot(th[0], total, label='total energy (shifted)')
bottom.set_xlabel('Time [s]')
bottom.set_ylabel('Energy [J]')
bottom.legend(loc='upper right')
fig.savefig(OUTDIR + '/double_pendulum.png', dpi=100)
