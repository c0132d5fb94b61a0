# Legacy (Python 2) deck in Solfec-1.0's style: print statements, integer division that
# sets a HEX subdivision count, exec of a code string, an `if not VIEWER():` guard.
# Its Python 3 twin is falling_boxes_py3.py; both must print the same numbers.
n = 7
div = n/2                     # Python 2: 3 (Python 3 would give 3.5 and HEX would refuse it)
sol = SOLFEC ('DYNAMIC', 1E-3, 'out/legacy/falling_boxes_py2')
sol.verbose = 'OFF'
mat = BULK_MATERIAL (sol, model = 'KIRCHHOFF', young = 1E6, poisson = 0.25, density = 1E3)
GRAVITY (sol, (0, 0, -10))
exec "scale = 0.1"
box = HEX ([0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1], div, div, 1, 1, [1,1,1,1,1,1])
SCALE (box, (scale, scale, scale))
bod = BODY (sol, 'RIGID', box, mat)
print 'elements per side:', div, 'mass: %.6f' % bod.mass,
print
RUN (sol, GAUSS_SEIDEL_SOLVER (1E-3, 100), 0.5)
if not VIEWER():
  print 'z after 0.5 s: %.9f' % bod.conf[11]
  print 'kinetic energy: %.9f' % ENERGY (sol)[0]
