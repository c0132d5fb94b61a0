"""The objects of the existing contacts that contact detection keeps between steps
(contact/detect.py `_row_objects`, issue 13) against two independent references at every
step of a run in which contacts are made, lost and made again, bodies are deleted and added:
the objects recomputed from the constraint rows (family, block row, elem) by the object table,
and the constraints' own body ids, which must be those of the objects' bodies (exact: integer
indices)."""
from __future__ import annotations

import importlib
import itertools

import numpy as np

D = importlib.import_module("solfec_py.contact.detect")   # (the package exports detect())
_PATHS = itertools.count()


def _check(sol, seen):
    from solfec_py import constraints as C
    from solfec_py.contact import objects as O
    from solfec_py.solvers.local_dynamics import body_rows

    domain = sol.domain
    cset = domain.constraints
    if not isinstance(cset, C.ConstraintSet) or cset.count == 0:
        return 1
    table = O.table_for(domain)
    rows = D._contact_rows(cset)
    both = D._row_objects(domain, table, cset, rows)
    brow = body_rows(domain, cset)
    fresh = table.objects_of(cset.families, cset.family[rows].T.ravel(), brow[rows].T.ravel(),
                             cset.elem[rows].T.ravel())
    assert np.array_equal(both, fresh)
    assert np.array_equal(table.bid[both].reshape(2, -1).T, cset.bid[rows])
    seen.append(rows.size)
    return 1


def test_kept_contact_objects_follow_contacts_and_bodies(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, f"out/rowobjects{next(_PATHS)}")
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3, restitution=1.0)
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    pts = [v for x in (-2, 2) for y in (-2, 2) for z in (-1, 0) for v in (x, y, z)]
    api.BODY(sol, 'OBSTACLE', api.HULL(pts, 1, 1), mat)
    balls = [api.BODY(sol, 'RIGID', api.SPHERE((0.3 * i, 0, 0.1 + 0.002 * i), 0.1, 1, 1), mat)
             for i in range(4)]                     # bouncing (e = 1): contacts come and go
    cube = [v for x in (0.8, 1.0) for y in (0.5, 0.7) for z in (0.0005, 0.2005) for v in (x, y, z)]
    api.BODY(sol, 'RIGID', api.HULL(cube, 2, 2), mat)
    seen = []
    api.CALLBACK(sol, 1e-3, (), lambda: _check(sol, seen))
    solver = api.GAUSS_SEIDEL_SOLVER(1e-8, 100)
    api.RUN(sol, solver, 0.05)
    api.DELETE(sol, balls[1])                       # rows removed, the table rebuilt
    api.RUN(sol, solver, 0.02)
    api.BODY(sol, 'RIGID', api.SPHERE((-0.4, 0.4, 0.1), 0.1, 1, 1), mat)
    api.RUN(sol, solver, 0.03)
    assert len(seen) > 50 and len(set(seen)) > 2  # checked at most steps, with changing counts
