"""Benchmark: the polyhedron-polyhedron narrow phase (contact/polyhedra.py) on N pairs of
overlapping unit cubes (random rotations and offsets); prints one JSON line with the CPU
time per pair (best of 3) of the GJK batch alone and of the whole evaluation (the compiled
pair kernel `polyhedra_kernels.convex_pairs`: GJK, intersection polytope, summary, gap).

Run:  python bench/polyhedra_contact.py [N]
"""
from __future__ import annotations

import json
import sys
import tempfile
import time

import numpy as np


def main(argv=None) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 500
    from solfec_py import session
    from solfec_py.api import NAMES as api
    from solfec_py.contact import objects as O, polyhedra as P

    session.start(progress=False)
    rng = np.random.default_rng(1)
    cube = np.array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1], float).reshape(8, 3)
    with tempfile.TemporaryDirectory() as tmp:
        sol = api['SOLFEC']('DYNAMIC', 1e-3, tmp + '/out')
        sol.verbose = 'OFF'
        mat = api['BULK_MATERIAL'](sol)
        for i in range(n):
            base = (3.0 * i, 0, 0)
            api['BODY'](sol, 'OBSTACLE', api['HEX'](list((cube + base).ravel()), 1, 1, 1, 0, [1] * 6), mat)
            shape = api['HEX'](list((cube + base + (rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), 0.99)).ravel()),
                               1, 1, 1, 0, [2] * 6)
            api['ROTATE'](shape, tuple(np.add(base, (0.5, 0.5, 1.5))), tuple(rng.normal(size=3)), rng.uniform(0, 3))
            api['BODY'](sol, 'RIGID', shape, mat)
        eps = 1e-4
        table = O.table_for(sol.domain)
        geo = O.current(sol.domain, table, eps)
        ca, cb = table.part[0::2], table.part[1::2]
        P.convex_convex(table, geo, ca[:2], cb[:2], eps)            # compile / load the kernels
        P.gjk_pairs(ca[:2], cb[:2], table.c_vstart, geo.v_cur)
        gjk_s, eval_s = [], []
        for _ in range(3):                                             # CPU time, best of 3
            t0 = time.process_time()
            P.gjk_pairs(ca, cb, table.c_vstart, geo.v_cur)
            t1 = time.process_time()
            touch = P.convex_convex(table, geo, ca, cb, eps)[0]
            t2 = time.process_time()
            gjk_s.append(t1 - t0)
            eval_s.append(t2 - t1)
    out = {"code": "solfec-py", "scene": "cube pairs", "n": n, "touching": int(touch.sum()),
           "gjk_us_per_pair": 1e6 * min(gjk_s) / n, "eval_us_per_pair": 1e6 * min(eval_s) / n}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
