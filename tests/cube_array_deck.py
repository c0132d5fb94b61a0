"""A small scene for comparing constraint solves of one model: a 3 x 3 x 2 array of 0.1 m
cubes (rigid, or FINITE_ELEMENT 'TL' HEX 1 x 1 x 1) with 1 mm gaps over an obstacle floor,
thrown down and towards the middle with spins under gravity, so they hit the floor and each
other (across the cut of a 2-rank run too); one rigid link across the array and one fixed
direction give non-contact rows."""
from __future__ import annotations

import textwrap

SOLVERS = {
    "NS": "NEWTON_SOLVER(meritval=MERITVAL, maxiter=200)",
    "PS": "PENALTY_SOLVER()",
    "GS": "GAUSS_SEIDEL_SOLVER(1E-8, 1000, meritval=MERITVAL)",
}


def cube_array(output: str, kind: str = "RIGID", solver: str = "NS", meritval: float = 1e-12,
               duration: float = 0.05, interval: float = 0.005, friction: float = 0.3,
               joints: bool = True, options: str = "") -> str:
    """Deck text; `kind` 'RIGID' or 'TL'; `solver` a key of SOLVERS (the penalty deck has
    spring-dashpot contacts); without `joints` only contacts; `options`: attributes of
    the solver to set (text, e.g. "variant = 'MIDDLE_JACOBI'")."""
    body = ("BODY(sol, 'FINITE_ELEMENT', msh, mat, form='TL')" if kind == "TL"
            else "BODY(sol, 'RIGID', msh, mat)")
    model = (f"SURFACE_MATERIAL(sol, model='SPRING_DASHPOT', friction={friction!r}, spring=1E6, dashpot=-1)"
             if solver == "PS" else f"SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction={friction!r})")
    return textwrap.dedent(f"""\
        sol = SOLFEC('DYNAMIC', 1E-3, '{output}')
        sol.verbose = 'OFF'
        mat = BULK_MATERIAL(sol, young=1E8, poisson=0.25, density=1000)
        {model}
        nodes = [0, 0, 0, 0.1, 0, 0, 0.1, 0.1, 0, 0, 0.1, 0, 0, 0, 0.1, 0.1, 0, 0.1, 0.1, 0.1, 0.1, 0, 0.1, 0.1]
        gap = 0.001
        bods = {{}}
        n = 0
        for i in range(3):
            for j in range(3):
                for k in range(2):
                    msh = HEX(nodes, 1, 1, 1, 0, [1] * 6)
                    TRANSLATE(msh, (i * (0.1 + gap), j * (0.1 + gap), gap + k * (0.1 + gap)))
                    bod = {body}
                    n += 1
                    s = (n * 37 % 11) / 11.0 - 0.5
                    INITIAL_VELOCITY(bod, (0.1 * s - 0.2 * (i - 1), -0.1 * s - 0.2 * (j - 1), -0.2 * (k + 1)),
                                    (0.2 * s, 0.1 * s, 0.5 * s))
                    bods[i, j, k] = bod
        top = 0.2 + 2 * gap
        if {joints!r}:
            PUT_RIGID_LINK(bods[0, 0, 1], bods[2, 2, 1], (0.05, 0.05, top), (0.25 + 2 * gap, 0.25 + 2 * gap, top))
            FIX_DIRECTION(bods[2, 0, 1], (0.25 + 2 * gap, 0.05, 0.15 + 2 * gap), (1, 0, 0))
        msh = HEX(nodes, 1, 1, 1, 0, [0] * 6)
        SCALE(msh, (5, 5, 1))
        TRANSLATE(msh, (-0.1, -0.1, -0.1))
        BODY(sol, 'OBSTACLE', msh, mat)
        GRAVITY(sol, (0, 0, -10))
        slv = {SOLVERS[solver].replace("MERITVAL", repr(meritval))}
        {"slv." + options if options else ""}
        OUTPUT(sol, {interval!r})
        RUN(sol, slv, {duration!r})
        """)
