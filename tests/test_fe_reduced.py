"""Reduced co-rotational bodies (BC-MODAL, BC-RO) against the full BC body: a free beam
spinning while it vibrates in bending, whose motion lies in its 12 lowest modes (6 rigid and
the first bending pairs); the reduced bodies must reproduce the BC tip history. Also the
reduced conf/velo layout and the base errors."""
from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

_RUNS = itertools.count()
L, B = 1.0, 0.1
NODES = [0, 0, 0, L, 0, 0, L, B, 0, 0, B, 0, 0, 0, B, L, 0, B, L, B, B, 0, B, B]


def model(api, form, base=None, n=(20, 2, 2), h=1e-3):
    sol = api.SOLFEC("DYNAMIC", h, f"out/red{next(_RUNS)}")
    sol.verbose = "OFF"
    api.OUTPUT(sol, 1e9)
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1e3)
    kw = {} if base is None else {"base": base}
    body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(NODES, *n, 1, [1] * 6), mat, form=form, **kw)
    if form == "BC":
        body.scheme = "DEF_LIM"
    return sol, body


def tip_history(api, sol, body, duration, samples):
    """Bending velocity (a parabola: mostly the first free-free mode) plus a spin of 2 rad/s
    about z; the tip corner sampled `samples` times."""
    blk = body.block
    sl = blk.nodes_of(body.row)
    X = blk.X[sl]
    blk.u[sl] = (np.outer(0.5 * ((2 * X[:, 0] / L - 1) ** 2 - 1 / 3), [0.0, 1.0, 0.0])
                 + np.cross([0.0, 0.0, 2.0], X - [L / 2, B / 2, B / 2]))
    tip = int(np.argmin(np.linalg.norm(X - [L, 0.0, 0.0], axis=1)))
    gs = api.GAUSS_SEIDEL_SOLVER(1e-8, 100)
    out = []
    start = time.perf_counter()
    for k in range(samples):
        api.RUN(sol, gs, duration / samples)
        out.append(blk.X[sl][tip] + blk.q[sl][tip])
    return np.array(out), time.perf_counter() - start


@pytest.mark.slow
def test_modal_and_reduced_order_bodies_follow_the_full_body(api, capsys):
    T = 0.5                                  # 5 periods of the first bending mode (10.39 Hz)
    sol, full = model(api, "BC")
    vals, vecs = api.MODAL_ANALYSIS(full, 12, "out/red.modal")
    f = np.sqrt(np.maximum(vals, 0)) / (2 * np.pi)
    assert np.allclose(f[:6], 0, atol=1e-3) and abs(f[6] - 10.39) < 0.05
    ref, t_full = tip_history(api, sol, full, T, 50)
    scale = np.abs(ref - ref.mean(axis=0)).max()         # the tip's range of motion
    times = {"BC": t_full}
    for form in ("BC-MODAL", "BC-RO"):
        sol, body = model(api, form, (vals, vecs))
        got, times[form] = tip_history(api, sol, body, T, 50)
        # acceptance: 2 % of the tip motion over 5 periods (measured 0.12 %, 0.4 %)
        assert np.abs(got - ref).max() < 0.02 * scale, (form, np.abs(got - ref).max() / scale)
        assert len(body.conf) == 12 + 9 and len(body.velo) == 12
    with capsys.disabled():
        print(f"\n  run times (20x2x2 HEX8, 500 DEF_LIM steps): " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()))


def test_reduced_conf_velo_and_base_errors(api):
    from solfec_py.errors import InputError

    sol, full = model(api, "BC", n=(4, 1, 1))
    base = api.MODAL_ANALYSIS(full, 8, "out/red_small.modal")
    sol2, body = model(api, "BC-MODAL", base, n=(4, 1, 1))
    assert body.scheme == "DEF_LIM"
    with pytest.raises(InputError, match="DEF_EXP"):
        body.scheme = "DEF_EXP"
    conf = np.array(body.conf)
    assert conf.shape == (17,) and np.allclose(conf[8:], np.eye(3).ravel()) and np.allclose(conf[:8], 0)
    q = np.zeros(17)
    q[6], q[8:] = 1e-3, np.eye(3).ravel()
    body.conf = tuple(q)                                  # lifted to the mesh and read back
    assert np.allclose(np.array(body.conf)[:8], q[:8], atol=1e-12)
    body.velo = tuple(np.eye(8)[7])
    assert np.allclose(body.velo, np.eye(8)[7], atol=1e-12)
    with pytest.raises(InputError, match="Modal base data must be passed"):
        model(api, "BC-MODAL", n=(4, 1, 1))
    with pytest.raises(InputError, match="Reduced base must be passed"):
        model(api, "BC-RO", n=(4, 1, 1))
    with pytest.raises(InputError, match="mesh size do not match"):
        model(api, "BC-MODAL", (base[0], base[1][:-8]), n=(4, 1, 1))
    with pytest.raises(InputError, match="has not been found"):
        model(api, "BC-RO", "nothing", n=(4, 1, 1))
    api.REGISTER_BASE(sol2, base, "small")
    sol3 = api.SOLFEC("DYNAMIC", 1e-3, f"out/red{next(_RUNS)}")
    mat = api.BULK_MATERIAL(sol3, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1e3)
    with pytest.raises(InputError, match="has not been found"):        # labels belong to their SOLFEC
        api.BODY(sol3, "FINITE_ELEMENT", api.HEX(NODES, 4, 1, 1, 1, [1] * 6), mat, form="BC-RO", base="small")
    mat2 = api.BULK_MATERIAL(sol2, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1e3, label="other")
    b2 = api.BODY(sol2, "FINITE_ELEMENT", api.HEX(NODES, 4, 1, 1, 1, [1] * 6), mat2, form="BC-RO", base="small")
    assert len(b2.velo) == 8


def test_corotated_snapshots_and_pod(api):
    from solfec_py.fem.modal import pod

    # a stiff bar turning fast: its co-rotated displacements R^T x - X are a translation
    # (R^T c - c, c the centre) plus its small elastic strains, far below the motion |x - X|
    sol, body = model(api, "TL", n=(4, 1, 1), h=1e-4)
    body.scheme = "DEF_EXP"
    api.INITIAL_VELOCITY(body, (0.0, 0.0, 0.0), (0.0, 0.0, 10.0))
    snaps = api.COROTATED_DISPLACEMENTS(sol, body, 0.002)
    api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.02)
    assert len(snaps) == 10 and len(snaps[0]) == 3 * 20             # every 0.002 s of 0.02 s
    S = np.array(snaps)
    moved = np.abs(np.array(body.conf)).max()
    elastic = S.reshape(10, -1, 3) - S.reshape(10, -1, 3).mean(axis=1, keepdims=True)
    strain = 1e3 * 10.0 ** 2 * (L / 2) ** 2 / 1e7                   # rho w^2 (L/2)^2 / E = 2.5e-3
    assert np.abs(elastic).max() < 4 * strain * L / 2 < 0.25 * moved  # measured 9e-4 m vs 0.1 m
    fields = np.array(api.RIGID_DISPLACEMENTS(body))
    values, modes = pod(np.vstack([S, fields]).T, 8)
    assert np.allclose(modes.T @ modes, np.eye(8), atol=1e-12)      # an orthonormal BC-RO base
    with pytest.raises(Exception, match="sampling"):
        api.COROTATED_DISPLACEMENTS(sol, body, "often")




def test_corotated_snapshots_in_read_mode_are_the_run_samples(api, tmp_path):
    """READ mode: FORWARD(sol, 1, 'TRUE') samples each stored frame it loads (Solfec's
    SOLFEC_Forward with corotated_displacements). Reference: a second WRITE run sampled at
    the stored frames' times (a list `sampling`); equal to the stored state's precision
    (doubles: 1e-12)."""
    def build(path, sampling=None):
        sol = api.SOLFEC("DYNAMIC", 1e-4, str(tmp_path / path))
        sol.verbose = "OFF"
        api.OUTPUT(sol, 0.002)
        mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e7, poisson=0.25, density=1e3)
        body = api.BODY(sol, "FINITE_ELEMENT", api.HEX(NODES, 4, 1, 1, 1, [1] * 6), mat)
        body.scheme = "DEF_EXP"
        api.INITIAL_VELOCITY(body, (0.0, 0.0, 0.0), (0.0, 1.0, 10.0))
        snaps = api.COROTATED_DISPLACEMENTS(sol, body) if sampling is None else \
            api.COROTATED_DISPLACEMENTS(sol, body, sampling)
        if sol.mode == "WRITE":
            api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 0.02)
        return sol, snaps

    sol, during_run = build("a")
    assert sol.mode == "WRITE" and len(during_run) == 10      # default: the output interval
    sol, replayed = build("a")
    assert sol.mode == "READ"
    api.FORWARD(sol, 1)                                        # 'FALSE' (default): no sample
    assert replayed == []
    times = api.HISTORY(sol, [(sol, "KINETIC")], 0.0, 0.02)[0][1:]
    api.SEEK(sol, 0.0)
    for _ in times:
        api.FORWARD(sol, 1, "TRUE")
    _, at_frames = build("b", list(times))                    # the same run sampled at the frames
    read, run = np.array(replayed), np.array(at_frames)
    assert len(times) == 9 and read.shape == run.shape == (9, 60)   # frames 0.002 ... 0.0181
    assert np.abs(run).max() > 1e-3                            # the bar has moved: a real check
    assert np.allclose(read, run, rtol=0, atol=1e-12), np.abs(read - run).max()
    with pytest.raises(Exception, match="corotated_displacements"):
        api.FORWARD(sol, 1, "YES")
