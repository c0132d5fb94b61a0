"""A row of spinning finite-element DEF_LIM cubes (HEX n x n x n each) for the tests of the
solves of many small bodies (tests/test_fe_solvers.py, tests/test_fe_rotated_pins.py)."""
from __future__ import annotations

CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]


def cube_row(api, output: str, sizes, form: str = "TL", h: float = 1e-3):
    """(solver, bodies): one unit cube of `form` per entry n of `sizes`, meshed n x n x n, 2 m
    apart along x, each with its own velocity and spin."""
    sol = api.SOLFEC("DYNAMIC", h, output)
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1000.0)
    bodies = []
    for i, n in enumerate(sizes):
        msh = api.HEX(CUBE, n, n, n, 1, [1] * 6)
        api.TRANSLATE(msh, (2.0 * i, 0.0, 0.0))
        body = api.BODY(sol, "FINITE_ELEMENT", msh, mat, form=form)
        body.scheme = "DEF_LIM"
        api.INITIAL_VELOCITY(body, (0.0, 0.1 * i, 0.0), (0.5, 2.0 + i, -1.0))
        bodies.append(body)
    return sol, bodies
