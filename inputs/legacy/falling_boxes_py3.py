# Python 3 twin of falling_boxes_py2.py (same model, same printed numbers).
n = 7
div = n // 2
sol = SOLFEC('DYNAMIC', 1E-3, 'out/legacy/falling_boxes_py3')
sol.verbose = 'OFF'
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
GRAVITY(sol, (0, 0, -10))
exec("scale = 0.1")
box = HEX([0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1], div, div, 1, 1, [1,1,1,1,1,1])
SCALE(box, (scale, scale, scale))
bod = BODY(sol, 'RIGID', box, mat)
print('elements per side:', div, 'mass: %.6f' % bod.mass)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.5)
if not VIEWER():
    print('z after 0.5 s: %.9f' % bod.conf[11])
    print('kinetic energy: %.9f' % ENERGY(sol)[0])
