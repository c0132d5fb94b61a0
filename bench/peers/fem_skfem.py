"""The B3 cantilever's implicit step in scikit-fem, interleaved with solfec-py's DEF_LIM step on
the identical mesh, for the table of bench/README.md (`pip install '.[peers]'`).

scikit-fem: the same HEX8 beam (bench/fem_cantilever.py: nx x ny x ny over 1 x 0.125 x 0.125
m, E = 1e7, nu = 0.25, rho = 1e3, clamped at x = 0 by condensation, bent by q = -1e-3 (x/L)^2
along z, h = 1e-4), linear elasticity, row-sum lumped mass, and the linearly implicit
midpoint step of solfec-py's DEF_LIM: q += h/2 u; u += h A^-1 (-K q); q += h/2 u with A = M +
h^2/4 K factorised once (scipy's splu with solfec-py's ordering: symmetric mode, minimum
degree on A + A^T). That is what a scikit-fem user writes for linear elastodynamics: the peer
for the BC form (constant K0), and a lower bound for TL (whose tangent changes every step).
`--reassemble` adds the step with K assembled by scikit-fem and factorised every step (the
work of a changing tangent, with the cheaper linear form).

Rounds alternate the codes; each prints one JSON line (CPU ms a step, process_time), then one
line of medians per code.

    python bench/peers/fem_skfem.py [n ...] [--rounds K] [--steps S] [--TL] [--BC] [--free] [--reassemble]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
import fem_cantilever as B3  # noqa: E402


def skfem_scene(n: int, steps: int, clamp: bool, reassemble: bool = False) -> dict:
    import skfem
    from scipy.sparse.linalg import splu
    from skfem.helpers import dot
    from skfem.models.elasticity import lame_parameters, linear_elasticity

    nx, ny = B3.mesh_size(n)
    cpu0 = time.process_time()
    mesh = skfem.MeshHex.init_tensor(np.linspace(0, B3.L, nx + 1), np.linspace(0, B3.B, ny + 1),
                                     np.linspace(0, B3.B, ny + 1))
    basis = skfem.Basis(mesh, skfem.ElementVector(skfem.ElementHex1()))
    K = linear_elasticity(*lame_parameters(B3.E, B3.NU)).assemble(basis)

    @skfem.BilinearForm
    def mass(u, v, w):
        return B3.RHO * dot(u, v)

    m = np.asarray(mass.assemble(basis).sum(axis=1)).ravel()       # row-sum lumping
    h = 1e-4
    import scipy.sparse as sp

    A = (sp.diags(m) + 0.25 * h * h * K).tocsc()
    free = np.arange(basis.N)
    if clamp:
        free = basis.complement_dofs(basis.get_dofs(lambda x: np.isclose(x[0], 0.0)))
    Af, Kf = A[free][:, free].tocsc(), K[free][:, free].tocsr()
    lu = splu(Af, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.01, options={"SymmetricMode": True})
    setup = time.process_time() - cpu0
    q = np.zeros(basis.N)
    z = basis.nodal_dofs[2]                                      # the z dof of every node
    q[z] = -1e-3 * (mesh.p[0] / B3.L) ** 2
    q, u = q[free].copy(), np.zeros(free.size)
    cpu = time.process_time()
    form = linear_elasticity(*lame_parameters(B3.E, B3.NU))
    for _ in range(steps):
        q += 0.5 * h * u
        if reassemble:              # a tangent assembled and factorised every step
            K = form.assemble(basis)
            Kf = K[free][:, free].tocsr()
            Af = (sp.diags(m[free]) + 0.25 * h * h * Kf).tocsc()
            lu = splu(Af, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.01, options={"SymmetricMode": True})
        u += h * lu.solve(-(Kf @ q))
        q += 0.5 * h * u
    cpu = time.process_time() - cpu
    return {"code": "scikit-fem", "version": skfem.__version__, "scene": "B3 cantilever", "n": nx * ny * ny,
            "step": "reassembled" if reassemble else "factorised once",
            "clamped": clamp, "dofs": int(basis.N), "dt": h, "steps": steps, "setup_cpu_s": round(setup, 3),
            "cpu_s": round(cpu, 4), "cpu_ms_per_step": round(1e3 * cpu / steps, 3),
            "tip_dz": float(q[np.flatnonzero(free == z[np.argmax(mesh.p[0])])[0]]) if clamp else None}


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int, nargs="*", default=[1000])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=0, help="steps a round (default: by size)")
    ap.add_argument("--TL", action="store_true")
    ap.add_argument("--BC", action="store_true")
    ap.add_argument("--free", action="store_true")
    ap.add_argument("--reassemble", action="store_true", help="also time scikit-fem with K assembled and"
                    " factorised every step (the work of a tangent that changes)")
    a = ap.parse_args(argv)
    forms = [f for f in ("TL", "BC") if getattr(a, f)] or ["TL", "BC"]
    for n in a.n:
        steps = a.steps or max(5, int(2e5 // n))
        runs: dict = {}
        for _ in range(a.rounds):
            r = skfem_scene(n, steps, not a.free)
            print(json.dumps(r), flush=True)
            runs.setdefault("scikit-fem", []).append(r["cpu_ms_per_step"])
            if a.reassemble:
                r = skfem_scene(n, max(3, steps // 20), not a.free, True)
                print(json.dumps(r), flush=True)
                runs.setdefault("scikit-fem reassembled", []).append(r["cpu_ms_per_step"])
            for form in forms:
                r = B3.scene(n, "DEF_LIM", not a.free, steps, form)
                print(json.dumps(r), flush=True)
                runs.setdefault(f"solfec-py {form}", []).append(r["cpu_ms_per_step"])
        print(json.dumps({"n": n, "clamped": not a.free, "median_cpu_ms_per_step":
                          {k: statistics.median(v) for k, v in runs.items()}}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
