# Results of format version 4 (the single-file layout): rigid, pseudo-rigid and
# finite-element bodies on a floor; a CALLBACK stops the run at the time given (if any).
args = NON_SOLFEC_ARGV() or []
stop_at = float(args[0]) if args else None
sol = SOLFEC('DYNAMIC', 1E-3, 'out/v4')
sol.verbose = 'OFF'
GRAVITY(sol, (0, 0, -9.81))
SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
BODY(sol, 'OBSTACLE', HULL([-3,-3,-1, 3,-3,-1, 3,3,-1, -3,3,-1, -3,-3,0, 3,-3,0, 3,3,0, -3,3,0], 1, 1), mat, label='floor')
CUBE = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
r = BODY(sol, 'RIGID', SPHERE((-1.5, 0, 0.1), 0.1, 1, 2), mat, label='ball')
INITIAL_VELOCITY(r, (1, 0, 0), (0, 10, 0))
p = BODY(sol, 'PSEUDO_RIGID', TRANSLATE(HEX(CUBE, 1, 1, 1, 1, [2]*6), (0, 0, 0.0)), mat, label='prb')
f = BODY(sol, 'FINITE_ELEMENT', TRANSLATE(SCALE(HEX(CUBE, 2, 1, 1, 1, [2]*6), (1, 0.5, 0.5)), (1.5, 0, 0.3)), mat, label='fe')
OUTPUT(sol, 0.005, 'ON')
def cb():
    return 0 if stop_at is not None and sol.time >= stop_at - 1e-9 else 1
CALLBACK(sol, 0.005, (), cb)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-4, 100), 0.04)
