"""Benchmark: forward dynamics of articulated chains (docs/joints.md).

Scene "articulated chain": a chain of n revolute links (boxes 1 x 0.1 x 0.1 m,
alternating hinge axes so the motion is spatial) released from a bent configuration under
gravity, integrated in joint coordinates by bodies/articulated/stepping (forward
kinematics and the articulated-body algorithm twice per step, all O(n)). If MuJoCo is
installed, the same chain is timed there for comparison ("mujoco_link_steps_per_cpu_s", CPU
time of one mj_step call of all the steps), with its energy drift, and both codes' final
joint angles are compared with MuJoCo's RK4 at a 16 times smaller step ("q_error",
"mujoco_q_error": the accuracy each reaches per simulated second at the timed step). The
chain is also integrated by solfec-py's RK4 for joint trees (bodies/articulated/rk4.py,
links' scheme 'RK4'), the same method as MuJoCo's at the same step: "rk4_link_steps_per_cpu_s",
"rk4_q_error", "rk4_energy_drift" and "rk4_over_mujoco" (CPU rate ratio at equal order).

Scene "articulated chain pinned (RUN)": the same links as a hanging chain in a vertical
plane whose last link is held by FIX_POINT, run by RUN with Gauss-Seidel: the full step
(loads, the constraint row coupled through the tree, results) and the drift of the pin.

Scene "articulated chain on the ground (RUN)": n bars hinged end to end lying on an
obstacle floor (friction 0.3): contact rows on every link, all coupled through the one
tree (the O(L^2) Delassus blocks of docs/joints.md); sizes up to 200.

Prints one JSON line per scene and n (keys: bench/README.md) with link-steps per second and
the energy drift or the pin's drift;
`time_per_step_s` shows how the cost grows with n.

    python bench/articulated_chain.py [n ...]     (default: 10 100 1000)
"""
from __future__ import annotations

import json
import resource
import sys
import time

import numpy as np


def chain(n: int):
    from solfec_py.bodies.articulated import JointTree, joint_frame

    L, w, m = 1.0, 0.1, 1.0
    inertia = m / 12.0 * np.diag([w * w + L * L, w * w + L * L, 2 * w * w])
    frames = [joint_frame((0, 1, 0) if k % 2 == 0 else (1, 0, 0)) for k in range(n)]
    points = [(0.0, 0.0, -L * k) for k in range(n)]
    centres = [(0.0, 0.0, -L * (k + 0.5)) for k in range(n)]
    return JointTree(list(range(-1, n - 1)), ["REVOLUTE"] * n, points, frames, [m] * n, centres, [inertia] * n)


def scene(n: int, steps: int, h: float = 1e-3) -> dict:
    from solfec_py import __version__
    from solfec_py.bodies.articulated import rk4, stepping

    tree = chain(n)
    g = np.array([0.0, 0.0, -9.81])
    q, u = np.full(tree.nv, 0.3 / np.sqrt(n)), np.zeros(tree.nv)
    u0 = u.copy()

    def energy(q, u):
        _, xc, _, _ = tree.kinematics(q)
        return tree.kinetic_energy(q, u) - float(tree.mass @ (xc @ g))

    stepping.integrate(tree, q, u, h, 1, gravity=g)          # compile outside the timing
    e0 = energy(q, u)
    start, cpu = time.perf_counter(), time.process_time()
    q, u = stepping.integrate(tree, q, u, h, steps, gravity=g)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    drift = abs(energy(q, u) - e0) / max(abs(e0), 1e-12)
    out = {"code": "solfec-py", "version": __version__, "scene": "articulated chain", "n": n, "dt": h,
           "steps": steps, "wall_s": round(wall, 4), "link_steps_per_s": round(n * steps / wall, 1),
           "link_steps_per_cpu_s": round(n * steps / cpu, 1),
           "time_per_step_s": float(f"{wall / steps:.3e}"), "contacts": 0, "max_penetration": 0.0,
           "energy_drift": float(f"{drift:.3e}"),
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    q0 = np.full(tree.nv, 0.3 / np.sqrt(n))
    rk4.integrate(tree, q0, u0, h, 1, gravity=g)              # compile outside the timing
    cpu = time.process_time()
    q4, u4 = rk4.integrate(tree, q0, u0, h, steps, gravity=g)
    cpu = time.process_time() - cpu
    out.update({"rk4_link_steps_per_cpu_s": round(n * steps / cpu, 1),
                "rk4_energy_drift": float(f"{abs(energy(q4, u4) - e0) / max(abs(e0), 1e-12):.3e}")})
    mujoco = _mujoco(n, steps, h)
    if isinstance(mujoco, str):
        out["mujoco_link_steps_per_s"] = mujoco
    elif mujoco is not None:
        rate, mj_drift, mj_q = mujoco
        ref = _mujoco(n, steps * REF_SPLIT, h / REF_SPLIT)[2]
        out.update({"mujoco_link_steps_per_cpu_s": rate, "mujoco_energy_drift": float(f"{mj_drift:.3e}"),
                    "q_error": float(f"{np.abs(q - ref).max():.3e}"),
                    "rk4_q_error": float(f"{np.abs(q4 - ref).max():.3e}"),
                    "mujoco_q_error": float(f"{np.abs(mj_q - ref).max():.3e}"),
                    "rk4_over_mujoco": round(out["rk4_link_steps_per_cpu_s"] / rate, 2)})
    return out


REF_SPLIT = 16      # the reference trajectory: MuJoCo RK4 at h / 16 (fourth order: ~1e-5 of its error at h)


def _mujoco(n: int, steps: int, h: float):
    """(link-steps/s, relative energy drift, final joint angles) of the same chain in MuJoCo
    (RK4, its most accurate integrator; hinge axes and senses as the tree's, so the angles
    compare one to one); None when MuJoCo is not installed, a message when it refuses the
    model: its XML parser limits the nesting depth, which a chain of bodies nested in one
    another reaches near 1 000 links."""
    try:
        import mujoco
    except ImportError:
        return None
    body = ""
    for k in range(n):
        axis = "0 1 0" if k % 2 == 0 else "1 0 0"
        body += (f'<body pos="0 0 {0 if k == 0 else -1}"><joint type="hinge" axis="{axis}"/>'
                 '<geom type="box" size="0.05 0.05 0.5" pos="0 0 -0.5" mass="1"/>')
    xml = (f'<mujoco><option timestep="{h}" integrator="RK4"><flag energy="enable"/></option>'
           f'<worldbody>{body}{"</body>" * n}</worldbody></mujoco>')
    try:
        model = mujoco.MjModel.from_xml_string(xml)
    except ValueError as exc:
        return f"not run: {str(exc).splitlines()[-1]}"
    data = mujoco.MjData(model)
    data.qpos[:] = 0.3 / np.sqrt(n)
    mujoco.mj_forward(model, data)
    e0 = float(data.energy.sum())
    cpu = time.process_time()
    mujoco.mj_step(model, data, nstep=steps)            # one call: no Python between its steps
    rate = round(n * steps / (time.process_time() - cpu), 1)
    mujoco.mj_forward(model, data)
    return rate, abs(float(data.energy.sum()) - e0) / max(abs(e0), 1e-12), data.qpos.copy()


def _dynamic_deck(name: str, h: float):
    """(api, sol): the deck commands as a namespace and a quiet DYNAMIC SOLFEC with gravity,
    no output frames, in a fresh temporary directory (the RUN scenes below)."""
    import os
    import tempfile
    import types

    from solfec_py.api import NAMES

    api = types.SimpleNamespace(**NAMES)
    os.chdir(tempfile.mkdtemp())
    sol = api.SOLFEC('DYNAMIC', h, f'out/{name}')
    sol.verbose = 'OFF'
    api.OUTPUT(sol, 1e9)
    api.GRAVITY(sol, (0, 0, -9.81))
    return api, sol


def pinned(n: int, steps: int, h: float = 1e-3) -> dict:
    """The hanging chain with its last link pinned (FIX_POINT), through RUN."""
    from solfec_py import __version__

    api, sol = _dynamic_deck('pinned', h)
    mat = api.BULK_MATERIAL(sol, density=100.0)
    angles = np.linspace(-0.6, 0.6, n)                      # a sagging polygon, span < length
    joints = np.vstack(([0.0, 0.0, 0.0], np.cumsum(np.column_stack((np.cos(angles), 0 * angles,
                                                                    np.sin(angles))), axis=0)))
    parent = None
    for k in range(n):
        P, Q = joints[k], joints[k + 1]
        u = Q - P
        e3 = np.cross(u, (0.0, 1.0, 0.0))
        nodes = [float(v) for s3 in (-0.05, 0.05) for s1, s2 in ((0, -0.05), (1, -0.05), (1, 0.05), (0, 0.05))
                 for v in P + s1 * u + s2 * np.array([0.0, 1.0, 0.0]) + s3 * e3]
        link = api.BODY(sol, 'RIGID', api.HEX(nodes, 1, 1, 1, 1, [1] * 6), mat)      # a 1 x 0.1 x 0.1 bar
        api.JOINT('REVOLUTE', parent, link, tuple(P), (0, 1, 0))
        parent = link
    tip = tuple(joints[-1])
    api.FIX_POINT(parent, tip)
    gs = api.GAUSS_SEIDEL_SOLVER(1e-8, 1000)
    api.RUN(sol, gs, h)                                      # compile outside the timing
    start = time.perf_counter()
    api.RUN(sol, gs, steps * h)
    wall = time.perf_counter() - start
    drift = float(np.linalg.norm(np.array(parent.cur_point(tip)) - joints[-1]))
    return {"code": "solfec-py", "version": __version__, "scene": "articulated chain pinned (RUN)", "n": n,
            "dt": h, "steps": steps, "wall_s": round(wall, 4), "link_steps_per_s": round(n * steps / wall, 1),
            "time_per_step_s": float(f"{wall / steps:.3e}"), "contacts": 0, "max_penetration": 0.0,
            "pin_drift_m": float(f"{drift:.3e}"),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def grounded(n: int, steps: int, h: float = 1e-3) -> dict:
    """A chain of n bars (1 x 0.1 x 0.1 m, REVOLUTE about y, the first hinged to the ground)
    lying on an obstacle floor under gravity: contacts on every link, all rows on one tree,
    so the Delassus assembly pairs every two constrained links (O(L^2) blocks per step)."""
    from solfec_py import __version__, constraints as C

    api, sol = _dynamic_deck('grounded', h)
    api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
    mat = api.BULK_MATERIAL(sol, density=100.0)
    box = lambda x0, x1, y0, y1, z0, z1: [v for z in (z0, z1) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
                                          for v in (x, y, z)]
    api.BODY(sol, 'OBSTACLE', api.HEX(box(-1, n + 1, -1, 1, -1, 0), 1, 1, 1, 1, [1] * 6), mat)
    parent = None
    for k in range(n):
        link = api.BODY(sol, 'RIGID', api.HEX(box(k, k + 1, -0.05, 0.05, -1e-4, 0.1 - 1e-4), 1, 1, 1, 1, [1] * 6),
                        mat)
        api.JOINT('REVOLUTE', parent, link, (k, 0, 0.05), (0, 1, 0))
        parent = link
    gs = api.GAUSS_SEIDEL_SOLVER(1e-8, 1000)
    api.RUN(sol, gs, h)                                      # compile outside the timing
    start = time.perf_counter()
    api.RUN(sol, gs, steps * h)
    wall = time.perf_counter() - start
    cset = sol.domain.constraints
    contacts = int((cset.kind[:cset.count] == C.CONTACT).sum())
    return {"code": "solfec-py", "version": __version__, "scene": "articulated chain on the ground (RUN)",
            "n": n, "dt": h, "steps": steps, "wall_s": round(wall, 4), "link_steps_per_s": round(n * steps / wall, 1),
            "time_per_step_s": float(f"{wall / steps:.3e}"), "contacts": contacts, "max_penetration": 0.0,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [10, 100, 1000]
    for n in sizes:
        print(json.dumps(scene(n, steps=max(5, 20000 // n))), flush=True)
    for n in sizes:
        print(json.dumps(pinned(n, steps=max(5, 2000 // n))), flush=True)
    for n in [n for n in sizes if n <= 200] + ([200] if max(sizes) > 200 else []):
        print(json.dumps(grounded(n, steps=max(3, 200 // n))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
