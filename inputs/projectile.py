# Projectile with linear air drag -- Solfec-1.0's validation/projectile case.
#
# A 1 lb point mass (BODY_CHARS on a sphere) is launched at v0 = (100, 0, 500) in/s
# = (2.54, 0, 12.7) m/s under gravity g = 386.4 in/s^2 = 9.81456 m/s^2 with a drag force
# f = -k m v (k = 1/s) applied through a FORCE callback. Exact solution (VERIFICATION §7.1):
#   x(t) = v1/k (1 - exp(-k t)),  z(t) = -g t/k + (k v3 + g)/k^2 (1 - exp(-k t)),
# flight time T = 1.975994 s, horizontal travel x(T) = 86.138 in. Pass: within 0.5 %.
#
# Run:  solfec-py inputs/projectile.py     (results and a plot in out/projectile/)
import math
import os

stop = 1.976
step = stop / 1024.0
sol = SOLFEC('DYNAMIC', step, 'out/projectile')
sol.verbose = 'OFF'
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
GRAVITY(sol, (0, 0, -9.81456))

mass = 0.45359237   # 1 lb in kg
ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.05, 1, 1), mat, label='ball')
BODY_CHARS(ball, mass, 1.0, (0, 0, 0), (1, 0, 0, 0, 1, 0, 0, 0, 1))
INITIAL_VELOCITY(ball, (2.54, 0, 12.7), (0, 0, 0))


def drag(m, q, u, t, h):
    # Solfec's rigid FORCE callback layout: (force, spatial torque, referential torque)
    return (-m * u[3], -m * u[4], -m * u[5], 0, 0, 0, 0, 0, 0)


FORCE(ball, 'SPATIAL', (0, 0, 0), (1, 0, 0), drag, mass)

path = []   # (t, x, z) every step, for the plot


def record():
    path.append((sol.time, ball.conf[9], ball.conf[11]))
    return 1


CALLBACK(sol, step, (), record)
RUN(sol, PENALTY_SOLVER(), stop)

k, g, v1, v3 = 1.0, 9.81456, 2.54, 12.7
x_exact = v1 / k * (1 - math.exp(-k * stop)) / 0.0254
x_inch = ball.conf[9] / 0.0254
error = abs(x_inch - 86.138) / 86.138
print('projectile: x(T) = %.3f in (exact %.3f, reference 86.138), relative error %.2e'
      % (x_inch, x_exact, error))
assert error < 0.005, 'projectile travel differs from 86.138 in by more than 0.5 %'

if not VIEWER():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    ts = [p[0] for p in path]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([p[1] / 0.0254 for p in path], [p[2] / 0.0254 for p in path], label='solfec-py')
    xe = [v1 / k * (1 - math.exp(-k * t)) / 0.0254 for t in ts]
    ze = [(-g * t / k + (k * v3 + g) / k**2 * (1 - math.exp(-k * t))) / 0.0254 for t in ts]
    ax.plot(xe, ze, '--', label='exact')
    ax.set_xlabel('x [in]')
    ax.set_ylabel('z [in]')
    ax.set_title('Projectile with linear drag')
    ax.legend()
    fig.savefig(os.path.join(sol.outpath, 'trajectory.png'), dpi=100)
    print('plot: %s' % os.path.join(sol.outpath, 'trajectory.png'))
