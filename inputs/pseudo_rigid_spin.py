# A spinning pseudo-rigid block stretches under its own spin.
#
# A 2 x 1 x 0.5 m block (HEX mesh, Saint Venant-Kirchhoff, E = 2e5 Pa, nu = 0.3, rho = 1000)
# spins in free flight about a tilted axis; the spin stretches it (a few per cent) and it
# vibrates. No load acts, so the spatial angular momentum L = m xc x v + axial(F E0 dF^T -
# dF E0 F^T) and the energy (kinetic + internal) are conserved by the exact motion. DEF_EXP
# (Stormer-Verlet) conserves L to round-off and keeps the energy error O(h^2); DEF_LIM
# conserves L to round-off too. The deck prints both errors and the largest stretch.
#
# The checks read the stored frames (READ mode), so a second run re-checks the results.
#
# Run:  solfec-py inputs/pseudo_rigid_spin.py
import math
from solfec_py.api.results import stored_frames


def build(scheme, step):
    sol = SOLFEC('DYNAMIC', step, 'out/pseudo_rigid_spin/' + scheme)
    sol.verbose = 'OFF'
    mat = BULK_MATERIAL(sol, young=2E5, poisson=0.3, density=1E3)
    box = HEX([-1, -0.5, -0.25, 1, -0.5, -0.25, 1, 0.5, -0.25, -1, 0.5, -0.25,
               -1, -0.5, 0.25, 1, -0.5, 0.25, 1, 0.5, 0.25, -1, 0.5, 0.25], 1, 1, 1, 1, [1] * 6)
    body = BODY(sol, 'PSEUDO_RIGID', box, mat)
    body.scheme = scheme
    INITIAL_VELOCITY(body, (0.1, 0.2, -0.3), (3.0, -1.0, 2.0))
    return sol, body


def spin(scheme, step=1e-4, duration=0.4):
    sol, body = build(scheme, step)
    RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 100), duration)   # nothing in READ mode
    sol, body = build(scheme, step)                       # the stored results (a frame every step)
    E0 = body.tensor                                      # Euler tensor, column-major

    def momentum():
        q, u = body.conf, body.velo                       # F and dF/dt row-wise, centre, velocity
        S = [[sum(q[3 * i + a] * E0[a + 3 * b] * u[3 * j + b] for a in range(3) for b in range(3))
              for j in range(3)] for i in range(3)]       # F E0 dF^T
        x, v, m = q[9:], u[9:], body.mass
        return [m * (x[1] * v[2] - x[2] * v[1]) + S[1][2] - S[2][1],
                m * (x[2] * v[0] - x[0] * v[2]) + S[2][0] - S[0][2],
                m * (x[0] * v[1] - x[1] * v[0]) + S[0][1] - S[1][0]]

    def energy():
        e = ENERGY(sol)
        return e[0] + e[4] - e[1]                         # kinetic + internal - external work

    L0 = W0 = None
    stretch = 0.0
    for k, t in enumerate(stored_frames(sol, first=True)):
        if k == 0:
            L0, W0 = momentum(), energy()
        F = body.conf
        stretch = max(stretch, max(math.sqrt(sum(F[3 * i + j] ** 2 for i in range(3))) for j in range(3)) - 1)
    L1, W1 = momentum(), energy()
    dL = math.sqrt(sum((a - b) ** 2 for a, b in zip(L0, L1))) / math.sqrt(sum(a * a for a in L0))
    return abs(W1 - W0) / W0, dL, stretch


for scheme in ('DEF_EXP', 'DEF_LIM'):
    dW, dL, s = spin(scheme)
    print('pseudo-rigid spin %s: relative energy change %.2e, relative momentum change %.2e, largest stretch %.3f'
          % (scheme, dW, dL, s))
    assert s > 0.01, 'the spin must stretch the block'
    assert dL < 1e-10, 'the spatial angular momentum must be conserved to round-off'
    assert dW < 1e-6, 'the energy must be conserved to the scheme accuracy (O(h^2))'
