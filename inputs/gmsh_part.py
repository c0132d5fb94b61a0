# A part meshed with gmsh's Python API, imported with MESH_IMPORT and dropped as a rigid
# body on a floor (the worked example of docs/meshes.md; needs pip install solfec-py[mesh]).
#
# The part: a 60 x 40 x 20 mm steel block with a 20 mm hole along z, meshed in millimetres
# with physical groups: volume 'steel', surfaces 'bottom' (z = 0) and 'hole'. It is imported
# in metres (scale=0.001) with the groups renamed to solfec ids, dropped 2 mm onto an
# obstacle floor and comes to rest on its bottom face. Checks: the ids came through (the
# 'bottom' nodes at z = 0, the 'hole' nodes on the 10 mm circle), the mesh volume lies
# between the exact CAD volume and that volume plus the hole's faceting deficit, and the body
# rests with its mass centre 10 mm above the floor (the centroid of a block with a through
# hole, whatever the faceting; tolerance: the penetration of the impact step, v h < 0.2 mm).
#
# Run:  solfec-py inputs/gmsh_part.py     then open out/gmsh_part/gmsh_part_grids.xmf in ParaView
#       (colour by SURFID to see the groups, by BID for the bodies).
import math
import os

import gmsh

MSH = 'out/gmsh_part/part.msh'
BOTTOM, HOLE, STEEL = 10, 20, 1

# ---------------------------------------------------------------- the part, meshed by gmsh
os.makedirs(os.path.dirname(MSH), exist_ok=True)
gmsh.initialize()
gmsh.option.setNumber('General.Terminal', 0)
gmsh.model.add('part')
block = gmsh.model.occ.addBox(0, 0, 0, 60, 40, 20)
hole = gmsh.model.occ.addCylinder(30, 20, 0, 0, 0, 20, 10)
(part,), _ = gmsh.model.occ.cut([(3, block)], [(3, hole)])
gmsh.model.occ.synchronize()
exact = gmsh.model.occ.getMass(3, part[1])                       # CAD volume, mm^3
bottom = [t for d, t in gmsh.model.getBoundary([part], oriented=False)
          if abs(gmsh.model.occ.getCenterOfMass(d, t)[2]) < 1e-9]
curved = [t for d, t in gmsh.model.getBoundary([part], oriented=False)
          if gmsh.model.getType(d, t) == 'Cylinder']
gmsh.model.addPhysicalGroup(3, [part[1]], name='steel')
gmsh.model.addPhysicalGroup(2, bottom, name='bottom')
gmsh.model.addPhysicalGroup(2, curved, name='hole')
gmsh.option.setNumber('Mesh.MeshSizeMax', 8.0)
gmsh.model.mesh.generate(3)
gmsh.write(MSH)
gmsh.finalize()

# ---------------------------------------------------------------- import, drop, check
def build():
    """The model: the imported part (ids checked) above an obstacle floor; also checks the
    mesh volume against the CAD volume."""
    sol = SOLFEC('DYNAMIC', 1E-3, 'out/gmsh_part')
    steel = BULK_MATERIAL(sol, density=7800.0)
    SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
    GRAVITY(sol, (0, 0, -9.81))

    mesh = MESH_IMPORT(MSH, groups={'steel': STEEL, 'bottom': BOTTOM, 'hole': HOLE}, scale=0.001)
    for n in mesh.nodes_on_surface(BOTTOM):
        assert abs(mesh.node(n)[2]) < 1e-12, 'bottom nodes at z = 0'
    for n in mesh.nodes_on_surface(HOLE):
        x, y, z = mesh.node(n)
        assert abs(math.hypot(x - 0.03, y - 0.02) - 0.01) < 1e-9, 'hole nodes on the 10 mm circle'
    TRANSLATE(mesh, (0, 0, 0.002))

    floor = HEX([-0.05, -0.05, -0.02, 0.11, -0.05, -0.02, 0.11, 0.09, -0.02, -0.05, 0.09, -0.02,
                 -0.05, -0.05, 0, 0.11, -0.05, 0, 0.11, 0.09, 0, -0.05, 0.09, 0], 1, 1, 1, 0, [1] * 6)
    BODY(sol, 'OBSTACLE', floor, steel)
    body = BODY(sol, 'RIGID', mesh, steel)

    volume = body.mass / 7800.0 * 1e9                                 # mm^3
    deficit = 20 * 10 ** 2 * math.pi                                  # the whole hole: a loose upper bound
    print('part volume %.1f mm^3 (CAD %.1f mm^3), mass %.4f kg' % (volume, exact, body.mass))
    assert exact < volume < exact + 0.1 * deficit, 'faceting only removes volume from the hole'
    return sol, body


sol, body = build()
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 1000), 0.1)      # nothing in READ mode
sol, body = build()                                 # the stored results (READ mode)
SEEK(sol, DURATION(sol)[1])                          # the last stored frame
z = body.conf[11]                                                 # current mass centre
print('resting mass centre height %.5f m (expected 0.01000), %d contacts' % (z, len(body.constraints)))
assert abs(z - 0.01) < 2E-4 and max(abs(v) for v in body.velo) < 1E-6
print('PASSED')
