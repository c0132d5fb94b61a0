# Python 3 twin of spin_py2.py.
sol = SOLFEC('DYNAMIC', 1E-3, 'out/legacy/spin_py3')
sol.verbose = 'OFF'
mat = BULK_MATERIAL(sol, density=1E3)
box = HEX([0,0,0, 0.4,0,0, 0.4,0.2,0, 0,0.2,0, 0,0,0.1, 0.4,0,0.1, 0.4,0.2,0.1, 0,0.2,0.1], 2, 2, 1, 1, [1]*6)
bod = BODY(sol, 'RIGID', box, mat)
INITIAL_VELOCITY(bod, (0, 0, 0), (0.1, 5.0, 0.1))
schemes = {'scheme': 'RIG_IMP'}
for key, value in schemes.items():
    if value != 'RIG_NEG':
        bod.scheme = value
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 10), 100 * 1E-2)
print('omega: %.9f %.9f %.9f' % tuple(bod.velo[0:3]))
