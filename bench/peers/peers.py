"""The S1 and S2 scenes of bench/spheres_in_box.py and bench/array_of_cubes.py in MuJoCo and
pybullet, for the side-by-side table of docs/contact.md (`pip install '.[peers]'`).

Same bodies, sizes, densities, friction, gravity, time step h = 1e-3 and duration as our
benches (S1: n^3 spheres r = 0.05 on the jittered lattice, seed 2024, in the open box; S2: M^3
cubes of 0.1 m, 1 mm gaps, on a floor block); each engine with its own contact model and
default solver settings. Prints one JSON line per configuration with the keys of our benches
(code, version, scene, n, dt, steps, wall_s, cpu_s, body_steps_per_s, body_steps_per_cpu_s,
contacts, max_penetration, mean_height, kinetic_energy).

    python bench/peers/peers.py mujoco|pybullet S1|S2 [size ...] [--steps K] [--solver Newton|CG|PGS]

--solver picks MuJoCo's constraint solver (its default is Newton; on S1 1 000 its CG runs
about 12 times faster, so a fair comparison times each solver and takes MuJoCo's best).
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
import array_of_cubes as S2  # noqa: E402
import spheres_in_box as S1  # noqa: E402


def _boxes_s1(side):
    """(half extents, centre) of the S1 floor and walls, and the sphere centres."""
    half = 0.5 * side * S1.SPACING + S1.CLEAR
    top = S1.RADIUS + side * S1.SPACING + 2 * S1.JITTER + 0.1
    o = half + S1.THICK
    boxes = [((-o, -o, -S1.THICK), (o, o, 0.0)), ((-o, -o, 0.0), (-half, o, top)), ((half, -o, 0.0), (o, o, top)),
             ((-half, -o, 0.0), (half, -half, top)), ((-half, half, 0.0), (half, o, top))]
    rng = np.random.default_rng(2024)
    grid = (np.arange(side) - 0.5 * (side - 1)) * S1.SPACING
    z0 = S1.RADIUS + S1.JITTER + 0.5 * S1.SPACING
    c = np.array([(x, y, z0 + k * S1.SPACING) for k in range(side) for y in grid for x in grid])
    return boxes, c + rng.uniform(-S1.JITTER, S1.JITTER, c.shape)


def _boxes_s2(side):
    span = side * (S2.EDGE + S2.GAP) - S2.GAP
    m = S2.FLOOR_MARGIN
    floor = [((-m, -m, -0.1), (span + m, span + m, 0.0))]
    c = [(i * (S2.EDGE + S2.GAP) + 0.05, j * (S2.EDGE + S2.GAP) + 0.05, S2.GAP + k * (S2.EDGE + S2.GAP) + 0.05)
         for k in range(side) for j in range(side) for i in range(side)]
    return floor, np.array(c)


def scene_data(scene, size):
    """(static boxes, body centres, body kind 'sphere'|'cube', body size, body mass)."""
    if scene == "S1":
        side = round(size ** (1 / 3))
        boxes, c = _boxes_s1(side)
        return boxes, c, "sphere", S1.RADIUS, S1.DENSITY * 4 / 3 * np.pi * S1.RADIUS ** 3, S1.FRICTION
    boxes, c = _boxes_s2(size)
    return boxes, c, "cube", S2.EDGE, S2.DENSITY * S2.EDGE ** 3, S2.FRICTION


def run_mujoco(scene, size, steps, h, solver="Newton"):
    import mujoco

    boxes, c, kind, s, mass, mu = scene_data(scene, size)
    geoms = "".join(f'<geom type="box" pos="{0.5 * (lo[0] + hi[0])} {0.5 * (lo[1] + hi[1])} {0.5 * (lo[2] + hi[2])}"'
                    f' size="{0.5 * (hi[0] - lo[0])} {0.5 * (hi[1] - lo[1])} {0.5 * (hi[2] - lo[2])}"/>'
                    for lo, hi in boxes)
    shape = f'type="sphere" size="{s}"' if kind == "sphere" else f'type="box" size="{s / 2} {s / 2} {s / 2}"'
    bodies = "".join(f'<body pos="{x} {y} {z}"><freejoint/><geom {shape} mass="{mass}"/></body>' for x, y, z in c)
    xml = (f'<mujoco><option timestep="{h}" gravity="0 0 -9.81" solver="{solver}"/>'
           f'<default><geom friction="{mu} 0.005 0.0001"/>'
           f'</default><worldbody>{geoms}{bodies}</worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    contacts, depth = [], 0.0
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        mujoco.mj_step(model, data)
        contacts.append(data.ncon)
        if data.ncon:
            depth = min(depth, float(data.contact.dist[: data.ncon].min()))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    q, v = data.qpos.reshape(-1, 7), data.qvel.reshape(-1, 6)
    inertia = mass * s * s * (0.4 if kind == "sphere" else 1 / 6)
    kinetic = 0.5 * mass * (v[:, :3] ** 2).sum() + 0.5 * inertia * (v[:, 3:] ** 2).sum()
    rec = _record("mujoco", mujoco.__version__, scene, len(c), h, steps, wall, cpu, contacts, depth, q[:, 2], kinetic)
    rec["solver"] = solver
    return rec


def run_pybullet(scene, size, steps, h):
    import pybullet as p

    boxes, c, kind, s, mass, mu = scene_data(scene, size)
    cid = p.connect(p.DIRECT)
    p.setGravity(0, 0, -9.81)
    p.setTimeStep(h)
    for lo, hi in boxes:
        col = p.createCollisionShape(p.GEOM_BOX, halfExtents=[0.5 * (b - a) for a, b in zip(lo, hi)])
        body = p.createMultiBody(0, col, basePosition=[0.5 * (a + b) for a, b in zip(lo, hi)])
        p.changeDynamics(body, -1, lateralFriction=mu)
    shape = (p.createCollisionShape(p.GEOM_SPHERE, radius=s) if kind == "sphere"
             else p.createCollisionShape(p.GEOM_BOX, halfExtents=[s / 2] * 3))
    ids = []
    for x in c:
        body = p.createMultiBody(mass, shape, basePosition=list(x))
        p.changeDynamics(body, -1, lateralFriction=mu)
        ids.append(body)
    contacts, depth = [], 0.0
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        p.stepSimulation()
        pts = p.getContactPoints()
        contacts.append(len(pts))
        if pts:
            depth = min(depth, min(pt[8] for pt in pts))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    z = np.array([p.getBasePositionAndOrientation(b)[0][2] for b in ids])
    vel = np.array([np.concatenate(p.getBaseVelocity(b)) for b in ids])
    inertia = mass * s * s * (0.4 if kind == "sphere" else 1 / 6)
    kinetic = 0.5 * mass * (vel[:, :3] ** 2).sum() + 0.5 * inertia * (vel[:, 3:] ** 2).sum()
    p.disconnect(cid)
    return _record("pybullet", p.getAPIVersion(), scene, len(c), h, steps, wall, cpu, contacts, depth, z, kinetic)


def _record(code, version, scene, n, h, steps, wall, cpu, contacts, depth, z, kinetic):
    contacts = np.array(contacts)
    name = "S1 spheres in a box" if scene == "S1" else "S2 array of cubes"
    return {"code": code, "version": str(version), "scene": name, "n": n, "dt": h, "steps": steps,
            "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "body_steps_per_s": round(n * steps / wall, 1),
            "body_steps_per_cpu_s": round(n * steps / cpu, 1),
            "contacts": {"mean": round(float(contacts.mean()), 1), "final": int(contacts[-1])},
            "max_penetration": float(f"{-depth:.3e}"), "mean_height": round(float(np.mean(z)), 5),
            "kinetic_energy": float(f"{kinetic:.4e}")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine", choices=("mujoco", "pybullet"))
    ap.add_argument("scene", choices=("S1", "S2"))
    ap.add_argument("sizes", nargs="*", type=int)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--solver", choices=("Newton", "CG", "PGS"), default="Newton",
                    help="MuJoCo's constraint solver (default: Newton, MuJoCo's default)")
    args = ap.parse_args(argv)
    try:
        run = functools.partial(run_mujoco, solver=args.solver) if args.engine == "mujoco" else run_pybullet
        __import__(args.engine)
    except ImportError:
        raise SystemExit(f"{args.engine} is not installed: pip install 'solfec-py[peers]'")
    for size in args.sizes or ([1000] if args.scene == "S1" else [3, 5, 8]):
        print(json.dumps(run(args.scene, size, args.steps, args.dt)), flush=True)


if __name__ == "__main__":
    main()
