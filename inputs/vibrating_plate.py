# Balls on vibrating plates -- OBSTACLE plates driven by PRESCRIBED_MOTION (docs/integrators.md).
#
# A plate moves vertically as z_p(t) = A sin(w t), w = 2 pi f, with a ball (radius r) resting
# on it. The ball stays on the plate as long as the plate's downward acceleration
# A w^2 sin(w t) is below g; it leaves at t_d with w t_d = asin(g / (A w^2)) when A w^2 > g,
# then flies freely (z = z_d + v_d (t - t_d) - g (t - t_d)^2 / 2, v_d = A w cos(w t_d)) until
# it meets the plate again at t_l, the first root of z - r = z_p after t_d.
# The balls start with their plate's velocity.
#   plate 1: A = 2 mm, f = 5 Hz  (A w^2 = 0.20 g): the ball follows the plate; checked: its
#            bottom within 1e-6 m of the plate (velocity-level contact: the gap stays what
#            the step leaves, O(g h^2)) and its velocity within 1e-9 m/s of the plate's.
#   plate 2: A = 10 mm, f = 10 Hz (A w^2 = 4.0 g): the ball leaves at t_d = 4.00 ms and lands
#            at t_l (computed below); checked: the ball's velocity leaves the plate's within
#            two steps after t_d (the step containing t_d averages the plate's deceleration
#            to about g), the landing (gap back below 1e-6 m) within 2 steps of t_l, the
#            flight's apex within 1e-6 m of the exact one (the ballistic arc is integrated
#            exactly; what remains is the detachment inside a step, O(j h^3), j = A w^3).
# A third plate turns about a line through its edge while sliding sideways (a composed motion);
# checked: a corner of it is where R(t) X + g(t) puts it.
#
# The checks read the stored frames (READ mode), so a second run re-checks the results.
#
# Run:  solfec-py inputs/vibrating_plate.py
import math
from solfec_py.api.results import stored_frames

step, stop = 1E-4, 0.16
g, r = 9.81, 0.05


def box(x0, x1, y0, y1, z0, z1):
    return HULL([v for x in (x0, x1) for y in (y0, y1) for z in (z0, z1) for v in (x, y, z)], 1, 1)


def build():
    sol = SOLFEC('DYNAMIC', step, 'out/vibrating_plate')
    sol.verbose = 'OFF'
    GRAVITY(sol, (0, 0, -g))
    SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.0, restitution=0.0)
    mat = BULK_MATERIAL(sol, density=1000.0)
    plates, balls = [], []
    for k, (A, f) in enumerate(((0.002, 5.0), (0.010, 10.0))):
        x = 1.0 * k
        plate = BODY(sol, 'OBSTACLE', box(x - 0.3, x + 0.3, -0.3, 0.3, -0.1, 0.0), mat, label='plate%d' % k)
        PRESCRIBED_MOTION(plate, ('TRANSLATION', (0, 0, 1), ('SINE', A, f)))
        ball = BODY(sol, 'RIGID', SPHERE((x, 0, r), r, 1, 1), mat, label='ball%d' % k)
        INITIAL_VELOCITY(ball, (0, 0, A * 2 * math.pi * f), (0, 0, 0))     # moving with the plate at t = 0
        plates.append((plate, A, 2 * math.pi * f))
        balls.append(ball)
    # a plate turning by 0.3 sin(2 pi t) about its edge y = -0.3 (line along x) while sliding 0.1 t along x
    paddle = BODY(sol, 'OBSTACLE', box(2.7, 3.3, -0.3, 0.3, -0.1, 0.0), mat, label='paddle')
    PRESCRIBED_MOTION(paddle, [('ROTATION', (3, -0.3, 0), (1, 0, 0), ('SINE', 0.3, 1.0)),
                               ('TRANSLATION', (1, 0, 0), ('LINEAR', 0.0, 0.1))])
    return sol, plates, balls, paddle


track = {'follow': 0.0, 'vfollow': 0.0, 'sep': None, 'land': None, 'apex': -1.0, 'corner': 0.0}


def watch():
    t = sol.time
    plate, A, w = plates[0]
    zp, vp = A * math.sin(w * t), A * w * math.cos(w * t)
    track['follow'] = max(track['follow'], abs(balls[0].conf[11] - r - zp))
    track['vfollow'] = max(track['vfollow'], abs(balls[0].velo[5] - vp))
    plate, A, w = plates[1]
    gap = balls[1].conf[11] - r - A * math.sin(w * t)
    if track['sep'] is None and abs(balls[1].velo[5] - A * w * math.cos(w * t)) > 1e-9:
        track['sep'] = t
    if track['sep'] is not None and track['land'] is None:
        track['apex'] = max(track['apex'], balls[1].conf[11])
        if t > track['sep'] + 0.01 and gap < 1e-6:
            track['land'] = t
    c, s = math.cos(0.3 * math.sin(2 * math.pi * t)), math.sin(0.3 * math.sin(2 * math.pi * t))
    X = (3.3, 0.3, 0.0)                                  # a corner, rotated about the line y = -0.3, z = 0
    corner = (X[0] + 0.1 * t, -0.3 + c * (X[1] + 0.3) - s * X[2], s * (X[1] + 0.3) + c * X[2])
    cur = paddle.cur_point(X)
    track['corner'] = max(track['corner'], max(abs(a - b) for a, b in zip(cur, corner)))
    return 1


sol, plates, balls, paddle = build()
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-10, 1000), stop)     # nothing in READ mode
sol, plates, balls, paddle = build()                 # the stored results (a frame every step)
for t in stored_frames(sol):
    watch()

# exact detachment, flight and landing of ball 2
A, w = plates[1][1], plates[1][2]
td = math.asin(g / (A * w * w)) / w
zd, vd = A * math.sin(w * td) + r, A * w * math.cos(w * td)
apex = zd + vd * vd / (2 * g)


def gap(t):
    tau = t - td
    return zd + vd * tau - 0.5 * g * tau * tau - r - A * math.sin(w * t)


lo = td + 0.01
while gap(lo + 1e-3) > 0:
    lo += 1e-3
hi = lo + 1e-3
for _ in range(60):                                      # bisection for the landing time
    mid = 0.5 * (lo + hi)
    lo, hi = (mid, hi) if gap(mid) > 0 else (lo, mid)
tl = 0.5 * (lo + hi)

print('vibrating_plate: ball 1 follows its plate within %.1e m, %.1e m/s' % (track['follow'], track['vfollow']))
print('  ball 2: leaves at %.5f s (exact %.5f), lands at %.5f s (exact %.5f), apex %.6f m (exact %.6f)'
      % (track['sep'], td, track['land'], tl, track['apex'], apex))
print('  paddle corner off R(t) X + g(t) by at most %.1e m' % track['corner'])
assert track['follow'] < 1e-6 and track['vfollow'] < 1e-9, 'ball 1 does not follow its plate'
assert 0 <= track['sep'] - td <= 2 * step, 'ball 2 separates at the wrong time'
assert track['land'] is not None and abs(track['land'] - tl) <= 2 * step, 'ball 2 lands at the wrong time'
assert abs(track['apex'] - apex) < 1e-6, 'ball 2 flies off the ballistic apex'
assert track['corner'] < 1e-12, 'the paddle is not where its composed motion puts it'
