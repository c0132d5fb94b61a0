# Torque-free spinning asymmetric rigid body.
#
# A 0.4 x 0.2 x 0.1 m box (HEX mesh, density 1000) spins in free flight with angular velocity
# near its intermediate axis (unstable, so the motion tumbles). No torque acts, so the kinetic
# energy and the spatial angular momentum Lambda J Omega are conserved by the exact motion.
# RIG_NEG conserves the momentum to round-off; RIG_IMP conserves momentum and shows no energy
# drift; RIG_POS drifts slowly. The deck prints both errors for each scheme after 5 s,
# read from the stored first and last frames (READ mode; a second run only re-checks).
#
# Run:  solfec-py inputs/spinning_box.py
import math


def spin(scheme, step=1e-3, duration=5.0):
    def build():
        sol = SOLFEC('DYNAMIC', step, 'out/spinning_box/' + scheme)
        OUTPUT(sol, 1.0)
        mat = BULK_MATERIAL(sol, density=1E3)
        box = HEX([0, 0, 0, 0.4, 0, 0, 0.4, 0.2, 0, 0, 0.2, 0,
                   0, 0, 0.1, 0.4, 0, 0.1, 0.4, 0.2, 0.1, 0, 0.2, 0.1], 2, 2, 1, 1, [1, 2, 3, 4, 5, 6])
        body = BODY(sol, 'RIGID', box, mat)
        body.scheme = scheme
        INITIAL_VELOCITY(body, (0.5, 0, 0), (0.05, 10.0, 0.05))
        return sol, body

    sol, body = build()

    def momentum():
        q, u = body.conf, body.velo
        J = body.tensor
        JO = [sum(J[i + 3 * j] * u[j] for j in range(3)) for i in range(3)]
        return [sum(q[i + 3 * j] * JO[j] for j in range(3)) for i in range(3)]

    RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 100), duration)   # nothing in READ mode
    sol, body = build()                                   # the stored results
    SEEK(sol, 0.0)
    E0, L0 = ENERGY(sol)[0], momentum()
    SEEK(sol, DURATION(sol)[1])                           # the last stored frame (t += h: 5.000000000000004)
    assert abs(sol.time - duration) < 0.5 * step, 'the last stored frame should be at the end of the run'
    E1, L1 = ENERGY(sol)[0], momentum()
    dL = math.sqrt(sum((a - b)**2 for a, b in zip(L0, L1))) / math.sqrt(sum(a * a for a in L0))
    return abs(E1 - E0) / E0, dL


for scheme in ('RIG_POS', 'RIG_NEG', 'RIG_IMP'):
    dE, dL = spin(scheme)
    print('spinning box %s: relative energy change %.2e, relative momentum change %.2e' % (scheme, dE, dL))
    if scheme == 'RIG_NEG':
        assert dL < 1e-12, 'RIG_NEG must conserve the spatial angular momentum to round-off'
