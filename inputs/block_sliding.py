# Block sliding on a frictional table (Solfec-1.0 tests/block-sliding.py).
# A rigid 0.3 x 0.3 x 0.1 block of mass 1 kg (HEX 2 x 2 x 1: four elements, so four
# element-floor contacts) rests on an obstacle slab, friction mu = 0.8, gravity 9.81, and is
# pushed by F = 8 cos t along x (FORCE callback). It sticks while |F| <= mu m g = 7.848 and
# slips otherwise (stick-slip, which has a closed form). The deck records the centre
# x and v_x every step (all steps are stored; the check reads them back in READ mode, and a
# second run only re-checks them) and compares x at steps 2000/5000/8000 and v_x at steps 150/3150/6150
# with Solfec's stored values: |value - ref| / max(1, |ref|) <= 1e-3.
#
# Run:  solfec-py inputs/block_sliding.py [STOP]     (STOP defaults to 10 s; the checks whose
# step lies beyond STOP are skipped and reported as such)
from math import cos

STEP = 1E-3
ARGV = NON_SOLFEC_ARGV()
STOP = float(ARGV[0]) if ARGV else 10.0
GRAVITY_ACC = 9.81
SHIFT = (3, 0, 0)


def push(body, q, u, t, h):
    # rigid FORCE callback layout: (spatial force, spatial torque, referential torque)
    return (8.0 * cos(t), 0, 0, 0, 0, 0, 0, 0, 0)


def box(x0, x1, y0, y1, z0, z1):
    return [x0, y0, z0,  x1, y0, z0,  x1, y1, z0,  x0, y1, z0,
            x0, y0, z1,  x1, y0, z1,  x1, y1, z1,  x0, y1, z1]


def build():
    sol = SOLFEC('DYNAMIC', STEP, 'out/block_sliding')
    mat = BULK_MATERIAL(sol, density=1.0 / (0.3 * 0.3 * 0.1))        # m = 1 kg
    SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.8)
    GRAVITY(sol, (0, 0, -GRAVITY_ACC))
    table = HEX(box(-0.5, 0.5, -0.15, 0.15, -0.1, 0.0), 1, 1, 1, 0, [0] * 6)
    TRANSLATE(table, SHIFT)
    BODY(sol, 'OBSTACLE', table, mat)
    block = HEX(box(-0.15, 0.15, -0.15, 0.15, 0.0, 0.1), 2, 2, 1, 0, [0] * 6)
    TRANSLATE(block, SHIFT)
    block = BODY(sol, 'RIGID', block, mat, label='BLOCK')
    FORCE(block, 'SPATIAL', (0, 0, 0), (0, 0, 0), push, block)
    return sol, block


sol, block = build()
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 1000), STOP)     # every step stored; nothing in READ mode
sol, block = build()                                # the stored results (READ mode)
th = HISTORY(sol, [(block, block.center, 'DX'), (block, block.center, 'VX')], 0, STOP + 1.0)
X = [block.center[0] + dx for dx in th[1][1:]]      # X[i], V[i] belong to t = (i + 1) STEP
V = list(th[2][1:])
SEEK(sol, STOP)

REFERENCE = [('x', 2000, 3.00435080898), ('x', 5000, 2.99129121231), ('x', 8000, 3.00441870359),
             ('v', 150, 0.0183699246991), ('v', 3150, -0.021223275136), ('v', 6150, 0.00288766940501)]
passed, checked = True, 0
for name, index, ref in REFERENCE:
    series = X if name == 'x' else V
    if index >= len(series):
        print('%s[%d]: beyond the stop time %g s, not checked' % (name, index, STOP))
        continue
    value = series[index]
    error = abs(value - ref) / max(1.0, abs(ref))
    checked += 1
    passed = passed and error <= 1E-3
    print('%s[%d] = %.9f, reference %.9f, error %.2e' % (name, index, value, ref, error))
print('contacts at the end: %d' % len(block.constraints))
print('PASSED' if passed and checked else 'FAILED')
assert passed and checked, 'block sliding differs from Solfec by more than 1e-3'

if not VIEWER():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    t = [(i + 1) * STEP for i in range(len(X))]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6, 6), sharex=True)
    top.plot(t, X, label='x')
    top.set_ylabel('Position [m]')
    top.legend(loc='upper right')
    bottom.plot(t, V, label='$v_x$')
    bottom.set_xlabel('Time [s]')
    bottom.set_ylabel('Velocity [m/s]')
    bottom.legend(loc='upper right')
    fig.savefig('out/block_sliding/block_sliding.png', dpi=100)
