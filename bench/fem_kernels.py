"""Benchmark: finite-element kernels of solfec_py.fem on structured blocks.

For each configuration (element type, about n elements) prints one JSON line with the
internal-force evaluations per second and ns per quadrature point (TL, SVK), the DOF-steps
per second of a bare explicit (DEF_EXP-like) step built on it (half step, internal force,
lumped-mass velocity update, half step: the vector work of one step, no contact), the
tangent assembly times (pattern once, CSR refill), the reference-data time and the peak
RSS of a fresh process running that configuration alone. Figures are medians of 5 runs.

    python bench/fem_kernels.py                      (HEX8 at 1e3, 1e4, 1e5; other types at 1e4)
    python bench/fem_kernels.py hexahedron:10000 tetra:1000
"""
from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

PER_CELL = {"hexahedron": 1, "tetra": 6, "pyramid": 6, "wedge": 2, "hexahedron20": 1, "tetra10": 6, "wedge15": 2}
DEFAULT = (["hexahedron:1000", "hexahedron:10000", "hexahedron:100000"]
           + [f"{name}:10000" for name in PER_CELL if name != "hexahedron"])


def _median_rate(func, min_time=0.3, repeats=5) -> float:
    """Median seconds per call of func over `repeats` batches lasting >= min_time each."""
    func()
    t = time.perf_counter()
    func()
    once = max(time.perf_counter() - t, 1e-6)
    calls = max(1, int(min_time / once))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            func()
        times.append((time.perf_counter() - t) / calls)
    return statistics.median(times)


def run(name: str, n: int) -> dict:
    from solfec_py import __version__
    from solfec_py.fem import kernels as K
    from solfec_py.fem.assembly import TangentPattern
    from solfec_py.fem.blocks import structured
    from solfec_py.fem.elements import ELEMENTS

    el = ELEMENTS[name]
    k = max(1, round((n / (4 * PER_CELL[name])) ** (1 / 3)))     # a 4:1:1 bar of about n elements
    X, conn = structured(name, (4 * k, k, k), (0, 0, 0), (4.0, 1.0, 1.0))
    ne, nn = conn.shape[0], X.shape[0]
    _, dN, w = el.tables("stiffness")
    K.reference_data(X[:1], conn[:1] * 0, dN, w)                  # compile / load the cache
    t = time.perf_counter()
    dNdX, wJ, bad = K.reference_data(X, conn, dN, w)
    t_ref = time.perf_counter() - t
    nq = wJ.shape[1]
    mat = np.tile([1.0e7, 0.25, 1.0e3], (ne, 1))
    rng = np.random.default_rng(0)
    q = 1e-3 * rng.standard_normal(X.shape)
    u = 1e-2 * rng.standard_normal(X.shape)
    f, energy = np.zeros_like(X), np.zeros(ne)
    N, dNm, wm = el.tables("mass")
    mass = np.zeros(nn)
    K.lumped_mass(conn, N, K.jacobian_weights(X, conn, dNm, wm)[0], mat, el.lumping == "hrz", mass)
    inv_m = (1.0 / mass)[:, None]
    h = 1e-6

    def fint():
        f[:] = 0.0
        K.internal_force(q, conn, dNdX, wJ, mat, f, energy)

    def explicit_step():                       # DEF_EXP: q += h/2 u; u += h M^-1 (-f); q += h/2 u
        q.__iadd__(0.5 * h * u)
        f[:] = 0.0
        K.internal_force(q, conn, dNdX, wJ, mat, f, energy)
        u.__isub__(h * inv_m * f)
        q.__iadd__(0.5 * h * u)

    t_fint = _median_rate(fint)
    t_step = _median_rate(explicit_step)
    t = time.perf_counter()
    pattern = TangentPattern(nn, [conn])
    t_pattern = time.perf_counter() - t
    data = pattern.zeros()

    def tangent():
        data[:] = 0.0
        K.add_stiffness_csr(q, conn, dNdX, wJ, mat, pattern.slots[0], pattern.nbptr, 1.0, data)

    t_tan = _median_rate(tangent, min_time=0.2, repeats=3)
    return {"code": "solfec-py", "version": __version__, "scene": "fem kernels", "element": name,
            "n": ne, "nodes": nn, "dofs": 3 * nn, "qp": ne * nq,
            "fint_per_s": round(1.0 / t_fint, 1), "fint_ms": round(1e3 * t_fint, 3),
            "ns_per_qp": round(1e9 * t_fint / (ne * nq), 1),
            "explicit_dof_steps_per_s": round(3 * nn / t_step),
            "tangent_refill_s": round(t_tan, 4), "tangent_pattern_s": round(t_pattern, 4),
            "tangent_nnz": int(pattern.nnz), "reference_data_s": round(t_ref, 4),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        print(json.dumps(run(argv[1], int(argv[2]))), flush=True)
        return
    for config in argv or DEFAULT:
        name, n = config.split(":")
        # a fresh process per configuration, so that peak RSS belongs to it alone
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name, n],
                             capture_output=True, text=True, check=True)
        print(out.stdout.strip(), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
