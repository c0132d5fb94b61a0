# Pinned bar -- Solfec-1.0's tests/pinned-bar.py (write-up validation/pinned-bar).
#
# A rigid bar 0.1 x 0.1 x 1 m (one 8-node hexahedron, z from 0 to 1, density 1 -> mass 0.01)
# rotated -30 deg about y through (0, 0, 0.75) hangs on two FIX_POINTs at (0, +-0.05, 0.75):
# a hinge along y, a = 0.25 m below the top end. Released from rest under gravity 9.8.
# At the first step with the mass centre x <= 0 (the bar passes the vertical) the angular
# velocity must be (energy conservation) omega^2 = 2 m g d (1 - cos 30)/I_hinge with
# d = L/2 - a = 0.25, I_hinge = m ((L^2 + b^2)/12 + d^2) -> omega = 2.1156 rad/s (Solfec's
# write-up reports 2.116; its test compares with the slender-bar 2.121). Pass: within 1 %.
#
# Run:  solfec-py inputs/pinned_bar.py
import math
from solfec_py.api.results import stored_frames

step = 0.001


def build():
    sol = SOLFEC('DYNAMIC', step, 'out/pinned_bar')
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=200E9, poisson=0.3, density=1)
    GRAVITY(sol, (0, 0, -9.8))
    nodes = [-0.05, -0.05, 0.0, 0.05, -0.05, 0.0, 0.05, 0.05, 0.0, -0.05, 0.05, 0.0,
             -0.05, -0.05, 1.0, 0.05, -0.05, 1.0, 0.05, 0.05, 1.0, -0.05, 0.05, 1.0]
    msh = MESH(nodes, [8, 0, 1, 2, 3, 4, 5, 6, 7, 0], 0)
    ROTATE(msh, (0, 0, 0.75), (0, 1, 0), -30)
    bar = BODY(sol, 'RIGID', msh, mat)
    FIX_POINT(bar, (0, -0.05, 0.75))
    FIX_POINT(bar, (0, 0.05, 0.75))
    return sol, bar


result = {}


def vertical():
    if bar.conf[9] <= 0.0:
        result['omega'] = bar.velo[1]
        result['time'] = sol.time
        return 0              # stop the run here, as Solfec's test does
    return 1


sol, bar = build()
CALLBACK(sol, step, (), vertical)            # stops the run at the vertical (WRITE mode)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 1000, failure='EXIT'), 0.5)
sol, bar = build()                           # the stored results (READ mode): check them
result.clear()
for t in stored_frames(sol):      # the frames the check reads (every step)
    if not vertical():
        break

L, b, d = 1.0, 0.1, 0.25
exact = math.sqrt(2 * 9.8 * d * (1 - math.cos(math.radians(30))) / ((L**2 + b**2) / 12 + d**2))
error = abs(result['omega'] - exact) / exact
print('pinned_bar: omega at the vertical %.4f rad/s at t = %.3f s (exact %.4f), relative error %.2e'
      % (result['omega'], result['time'], exact, error))
assert error < 0.01, 'pinned bar angular velocity differs from 2.1156 rad/s by more than 1 %'
