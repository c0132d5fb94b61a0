# Projectile with linear air drag -- Solfec-1.0's validation/projectile case.
#
# A 1 lb point mass (BODY_CHARS on a sphere) is launched at v0 = (100, 0, 500) in/s
# = (2.54, 0, 12.7) m/s under gravity g = 386.4 in/s^2 = 9.81456 m/s^2 with a drag force
# f = -k m v (k = 1/s) applied through a FORCE callback. Exact solution:
#   x(t) = v1/k (1 - exp(-k t)),  z(t) = -g t/k + (k v3 + g)/k^2 (1 - exp(-k t)),
# flight time T = 1.975994 s, horizontal travel x(T) = 86.138 in. Pass: within 0.5 %.
#
# Run:  solfec-py inputs/projectile.py     (results and a plot in out/projectile/)
# The first run computes and stores the results (WRITE mode); the deck then builds the
# model again on the same path, which opens the stored results (READ mode), and checks
# the stored trajectory. Running the deck again finds the results and only re-checks
# them; `solfec-py -w inputs/projectile.py` computes them afresh.
import math
import os

STOP = 1.976
STEP = STOP / 1024.0
MASS = 0.45359237   # 1 lb in kg
K, G, V1, V3 = 1.0, 9.81456, 2.54, 12.7


def drag(m, q, u, t, h):
    # Solfec's rigid FORCE callback layout: (force, spatial torque, referential torque)
    return (-m * u[3], -m * u[4], -m * u[5], 0, 0, 0, 0, 0, 0)


def build():
    sol = SOLFEC('DYNAMIC', STEP, 'out/projectile')
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
    GRAVITY(sol, (0, 0, -G))
    ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.05, 1, 1), mat, label='ball')
    BODY_CHARS(ball, MASS, 1.0, (0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
    INITIAL_VELOCITY(ball, (V1, 0, V3), (0, 0, 0))
    FORCE(ball, 'SPATIAL', (0, 0, 0), (1, 0, 0), drag, MASS)
    return sol, ball


sol, ball = build()
RUN(sol, PENALTY_SOLVER(), STOP)        # computes in WRITE mode; nothing in READ mode

sol, ball = build()                     # the stored results: READ mode
th = HISTORY(sol, [(ball, (0, 0, 0), 'DX'), (ball, (0, 0, 0), 'DZ')], 0, STOP)
ts, xs, zs = th[0], th[1], th[2]     # HISTORY stops before the frame at t1 (as Solfec's)
SEEK(sol, STOP)                          # the last stored frame: t = T

x_exact = V1 / K * (1 - math.exp(-K * sol.time)) / 0.0254
x_inch = ball.conf[9] / 0.0254
error = abs(x_inch - 86.138) / 86.138
print('projectile: x(T) = %.3f in at t = %.4f s (exact %.3f, reference 86.138), relative error %.2e'
      % (x_inch, sol.time, x_exact, error))
assert error < 0.005, 'projectile travel differs from 86.138 in by more than 0.5 %'

if not VIEWER():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([x / 0.0254 for x in xs], [z / 0.0254 for z in zs], label='solfec-py')
    xe = [V1 / K * (1 - math.exp(-K * t)) / 0.0254 for t in ts]
    ze = [(-G * t / K + (K * V3 + G) / K**2 * (1 - math.exp(-K * t))) / 0.0254 for t in ts]
    ax.plot(xe, ze, '--', label='exact')
    ax.set_xlabel('x [in]')
    ax.set_ylabel('z [in]')
    ax.set_title('Projectile with linear drag')
    ax.legend()
    fig.savefig(os.path.join(sol.outpath, 'trajectory.png'), dpi=100)
    print('plot: %s' % os.path.join(sol.outpath, 'trajectory.png'))
