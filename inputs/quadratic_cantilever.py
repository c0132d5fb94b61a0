# Quadratic cantilever -- a HEX20 beam (no Solfec version has quadratic elements).
#
# A steel-like beam 1 x 0.1 x 0.1 m (E = 1e9 Pa, nu = 0) of 10 x 1 x 1 HEX20 elements (MESH
# records of 20 nodes: the 8 corners as a HEX8, then the 12 mid-edge nodes, docs/fem.md),
# every node of the end x = 0 pinned (FIX_POINT), a uniform shear traction P = 100 N on the
# free end given as its consistent nodal forces: on an 8-node face those are -P/12 at each
# corner and P/3 at each mid-edge node (the corners' negative share is a property of the
# serendipity face). Solved by quasi-static steps (QUASI_STATIC, three steps of 1 s).
# Check: the tip deflection against Timoshenko's w = P L^3 / (3 E I) + P L / (k G A),
# k = 5/6 (Timoshenko & Gere, Mechanics of Materials); measured -0.12 % (+0.48 % of
# Euler-Bernoulli). HEX8 elements on the same mesh lock in shear: -33 %. Pass: within 1 %.
#
# Run:  solfec-py inputs/quadratic_cantilever.py    then open out/quadratic_cantilever in ParaView
from solfec_py.api.results import stored_frames
from solfec_py.fem.blocks import structured

L, B, E, P = 1.0, 0.1, 1E9, 100.0
X, conn = structured('hexahedron20', (10, 1, 1), upper=(L, B, B))     # nodes and 20-node cells


def build():
    sol = SOLFEC('QUASI_STATIC', 1.0, 'out/quadratic_cantilever')
    mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=E, poisson=0.0, density=1E3)
    elements = []
    for cell in conn:
        elements += [20] + cell.tolist() + [1]
    beam = BODY(sol, 'FINITE_ELEMENT', MESH(X.ravel().tolist(), elements, 1), mat)
    for x in X[X[:, 0] == 0.0]:
        FIX_POINT(beam, tuple(x))
    for x in X[X[:, 0] == L]:
        corner = x[1] in (0.0, B) and x[2] in (0.0, B)
        FORCE(beam, 'SPATIAL', tuple(x), (0, 0, -1), -P / 12 if corner else P / 3)
    return sol, beam


sol, beam = build()
RUN(sol, NEWTON_SOLVER(), 3.0)
sol, beam = build()                           # the stored results (READ mode): check them
for t in stored_frames(sol):                  # to the last frame
    pass
tip = [-DISPLACEMENT(beam, tuple(x))[2] for x in X[X[:, 0] == L]]
w = sum(tip) / len(tip)
I, A = B ** 4 / 12, B * B
exact = P * L ** 3 / (3 * E * I) + P * L / (5.0 / 6.0 * E / 2 * A)
error = w / exact - 1
print('quadratic_cantilever: tip deflection %.5e m, Timoshenko %.5e m, relative error %+.2e' % (w, exact, error))
assert abs(error) < 0.01, 'HEX20 cantilever tip deflection differs from beam theory by more than 1 %'
