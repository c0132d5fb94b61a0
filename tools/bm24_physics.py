"""Physics checks of Solfec-1.0's BM24 deck (tests/BM24/BM24_hexa.py, "balance of a block on a
table"), whose own reference is Solfec's history to 1e-14.  Reference: rigid-body dynamics of
a block rocking on one edge (the deck's block is stiff: E = 6e11) and the contact laws.

The deck: an elastic block (0.36 x 0.8 x 1 m, 343 nodes, 417.6 kg) stands on an elastic table
top (held by FIX_POINTs), tilted by 0.00995 rad about its edge x = y = 0, at rest, under
gravity -9.81 along y; its centre of mass is 0.176 m beside the edge, so gravity turns it back
onto its base.  Three runs: Coulomb friction 0, 0.5, 0.9, step 1e-5 s to 0.13 s, frames every
0.013 s.  What the laws say before the base lands (the rigid-body limit, `rocking`):

* friction 0: no horizontal force, so the centre of mass stays at its x (x-momentum 0) while
  the edge slides; the block turns as the frictionless rocking equation says, landing at
  about 0.034 s;
* friction 0.5, 0.9: rocking about the fixed edge needs |F_x| / F_y <= 0.316 (at the landing),
  below both coefficients, so the edge sticks; both runs are the same motion, landing at
  about 0.055 s;
* every contact: R_N >= 0, |R_T| <= mu R_N; no work is done at a sticking or frictionless
  contact, so kinetic + strain + gravitational energy stays constant until the landing, and
  never grows after it (restitution 0, friction only dissipates).

`STEP_DRIVER` runs the deck's own model (its create_simulation, unchanged but for the end
time) recording every step; `FRAME_DRIVER` reads the frames of complete runs (READ mode).
`evaluate` turns either record into the measured values of the checks.

    python tools/bm24_physics.py DIR [--deck BM24_hexa.py]   # DIR holds out/tests/BM24_hexa_Mu_*_st_1e-05s
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
from scipy.integrate import solve_ivp

G = 9.81
MUS = (0.0, 0.5, 0.9)
H = 1e-5                     # the deck's step


def penetration_bound(r: dict) -> np.ndarray:
    """Depth the contact laws allow at each record: one step's approach at the largest speed
    of a block node so far (Signorini on the velocity of the end of the step lets a contact
    close for one step before it acts) plus the edge's slip times the sine of the initial
    tilt (a sliding edge follows the contact normal, which lies between the table's and the
    block's base normals)."""
    return H * np.maximum.accumulate(r["vmax"]) + np.abs(r["pivx"] - r["pivx"][0]) * np.sin(r["tilt0"])


# Per-record columns: time, centre of mass (x, y), momentum (x, y) of the block, its tilt (the
# angle of the bottom edge from node (0, 0, 0) to the opposite corner), the pivot node (x, y),
# the lowest block y, the highest table y, kinetic, strain and gravitational energy of both
# bodies, the contact force on the block (x, y), number of contacts, smallest normal reaction,
# smallest gap, largest |R_T| - mu R_N, largest R_N, largest speed of a block node.
COLUMNS = ("t", "cx", "cy", "px", "py", "theta", "pivx", "pivy", "ymin_block", "ymax_table", "kin", "int",
           "pot", "fx", "fy", "ncon", "rn_min", "gap_min", "coulomb", "rn_max", "vmax")

RECORD = """
G = 9.81

def bm24_setup(solfec):
    blkb = BYLABEL(solfec, 'BODY', 'blk0')
    table = [b for b in solfec.bodies if b is not blkb][0]
    blk = blkb.block
    sb, st = blk.nodes_of(blkb.row), blk.nodes_of(table.row)
    mass = blk.prepared().mass
    X = blk.X[sb]
    i0 = int(np.where(np.all(np.abs(X) < 1e-9, axis=1))[0][0])    # edge node (0, 0, 0)
    i1 = int(np.argmax(X[:, 0] - X[:, 1] - X[:, 2]))              # bottom corner (0.36, 0.0036, 0)
    mb, mt = mass[sb], mass[st]
    c = (mb[:, None] * X).sum(0) / mb.sum()
    r = X - c
    geo = {'mass': float(mb.sum()), 'Ic': float((mb * (r[:, 0] ** 2 + r[:, 1] ** 2)).sum()),
           'com0': c.tolist(), 'edge0': X[i0].tolist(), 'corner0': X[i1].tolist(),
           'table_top': float(blk.X[st][:, 1].max()), 'u0': float(np.abs(blk.u[sb]).max())}
    return blkb, table, blk, sb, st, mb, mt, i0, i1, geo


def bm24_record(solfec, mu, blkb, table, blk, sb, st, mb, mt, i0, i1, energies=True):
    xb, xt = blk.X[sb] + blk.q[sb], blk.X[st] + blk.q[st]
    ub, ut = blk.u[sb], blk.u[st]
    d = xb[i1] - xb[i0]
    eint = 0.0
    if energies:
        e = blk.energies()
        eint = float(e[blkb.row, 4] + e[table.row, 4])
    fx = fy = 0.0
    worst, rnmin, rnmax, gapmin, ncon = 0.0, 0.0, 0.0, 0.0, 0
    for con in (solfec.constraints if solfec.mode == 'READ' else blkb.constraints):
        if con.kind != 'CONTACT':
            continue
        r = np.array(con.R)
        B = np.array(con.base).reshape(3, 3).T            # columns t1, t2, n
        s = 1.0 if con.adjbod[0] is blkb else -1.0 if con.adjbod[1] is blkb else 0.0
        f = s * (B @ r)
        fx, fy = fx + f[0], fy + f[1]
        rnmin = r[2] if ncon == 0 else min(rnmin, r[2])
        gapmin = con.gap if ncon == 0 else min(gapmin, con.gap)
        rnmax = max(rnmax, r[2])
        worst = max(worst, np.hypot(r[0], r[1]) - mu * r[2]) if ncon else np.hypot(r[0], r[1]) - mu * r[2]
        ncon += 1
    return [solfec.time, *((mb[:, None] * xb).sum(0)[:2] / mb.sum()).tolist(),
            *(mb[:, None] * ub).sum(0)[:2].tolist(), float(np.arctan2(d[1], d[0])),
            float(xb[i0, 0]), float(xb[i0, 1]), float(xb[:, 1].min()), float(xt[:, 1].max()),
            float(0.5 * (mb[:, None] * ub ** 2).sum() + 0.5 * (mt[:, None] * ut ** 2).sum()), eint,
            float(G * ((mb * xb[:, 1]).sum() + (mt * xt[:, 1]).sum())),
            float(fx), float(fy), ncon, float(rnmin), float(gapmin), float(worst), float(rnmax),
            float(np.sqrt((ub ** 2).sum(1).max()))]
"""

# the deck's runs with their end time replaced by STOP, every step recorded (a CALLBACK);
# SPARSIFY, when not None, is a CONTACT_SPARSIFY threshold set before the run
STEP_DRIVER = """
import numpy as np
MUS, STOP, SPARSIFY = @MUS@, @STOP@, @SPARSIFY@
""" + RECORD + """
plain_RUN = RUN
runs = {}

def RUN(solfec, solver, stop):
    mu = MUS[len(runs)]
    setup = bm24_setup(solfec)
    run = runs.setdefault(str(mu), {'geo': setup[-1], 'rows': []})

    def watch():
        run['rows'].append(bm24_record(solfec, mu, *setup[:-1]))
        return 1

    run['rows'].append(bm24_record(solfec, mu, *setup[:-1]))      # t = 0
    if SPARSIFY is not None:
        CONTACT_SPARSIFY(solfec, SPARSIFY)
    CALLBACK(solfec, 1e-12, (), watch)
    plain_RUN(solfec, solver, STOP)

for mu in MUS:
    create_simulation(1e-5, STOP, mu, STOP)
print('RESULT', json.dumps(runs))
"""

# the frames of the three complete runs (the deck's create_simulation in READ mode)
FRAME_DRIVER = """
import numpy as np
""" + RECORD + """
runs = {}
for mu in @MUS@:
    solfec, point = create_simulation(1e-5, 0.13, mu, 0.013)
    assert solfec.mode == 'READ', 'no complete store for friction %g' % mu
    setup = bm24_setup(solfec)
    times = HISTORY(solfec, [(solfec, 'KINETIC')], 0, 0.13)[0]
    eint = HISTORY(solfec, [(solfec, 'INTERNAL')], 0, 0.13)[1]
    rows = []
    for t, e in zip(times, eint):
        SEEK(solfec, t)
        row = bm24_record(solfec, mu, *setup[:-1], energies=False)
        row[COLUMNS.index('int')] = float(e)
        rows.append(row)
    runs[str(mu)] = {'geo': setup[-1], 'rows': rows}
print('RESULT', json.dumps(runs))
"""


def rocking(mode: str, geo: dict, tmax: float = 0.2):
    """Rigid-body rocking of the block on its edge from rest, with the mesh's own mass and
    (lumped) moment of inertia about the centre: `mode` 'pivot' (the edge sticks) or 'slide'
    (frictionless: the centre of mass keeps its x, the edge stays on y = 0).  Returns
    (theta(t) callable, omega(t), landing time, largest |F_x| / F_y needed before it).
    psi = theta - theta0; the centre of mass is at rho (cos phi, sin phi) from the edge,
    phi = phi0 + psi; pivot: I_p psi'' = -m g rho cos phi; slide (Lagrange, y_c = rho sin phi):
    (m f^2 + I_c) psi'' + m f f' psi'^2 + m g f = 0, f = rho cos phi."""
    m, Ic = geo["mass"], geo["Ic"]
    e0, c0, k0 = (np.asarray(geo[k]) for k in ("edge0", "com0", "corner0"))
    rc = c0[:2] - e0[:2]
    rho, phi0 = np.hypot(*rc), np.arctan2(rc[1], rc[0])
    theta0 = np.arctan2(k0[1] - e0[1], k0[0] - e0[0])
    Ip = Ic + m * rho ** 2

    def rhs(t, y):
        psi, w = y
        f, fp = rho * np.cos(phi0 + psi), -rho * np.sin(phi0 + psi)
        if mode == "pivot":
            return [w, -m * G * f / Ip]
        return [w, -(m * f * fp * w * w + m * G * f) / (m * f * f + Ic)]

    def landed(t, y):
        return theta0 + y[0]
    landed.terminal, landed.direction = True, -1
    sol = solve_ivp(rhs, (0.0, tmax), [0.0, 0.0], events=landed, rtol=1e-12, atol=1e-15, dense_output=True)
    t_land = float(sol.t_events[0][0])
    ts = np.linspace(0.0, t_land, 2001)
    psi, w = sol.sol(ts)
    acc = np.array([rhs(0.0, [p, v])[1] for p, v in zip(psi, w)])
    phi = phi0 + psi
    # centre of mass relative to the edge: rho (cos phi, sin phi); its acceleration
    ax = -rho * np.sin(phi) * acc - rho * np.cos(phi) * w * w
    ay = rho * np.cos(phi) * acc - rho * np.sin(phi) * w * w
    ratio = float(np.max(np.abs(ax) / (G + ay))) if mode == "pivot" else 0.0
    return (lambda t: theta0 + sol.sol(t)[0]), (lambda t: sol.sol(t)[1]), t_land, ratio


def as_arrays(run: dict) -> dict:
    rows = np.asarray(run["rows"], dtype=float)
    out = {k: rows[:, i] for i, k in enumerate(COLUMNS)}
    out["geo"] = run["geo"]
    e0, k0 = run["geo"]["edge0"], run["geo"]["corner0"]
    out["tilt0"] = float(np.arctan2(k0[1] - e0[1], k0[0] - e0[0]))
    return out


def driver(text: str, **values) -> str:
    """A driver's text with @NAME@ replaced by repr(values[name]) (`sparsify` None unless given)."""
    values.setdefault("sparsify", None)
    for key, value in values.items():
        text = text.replace("@%s@" % key.upper(), repr(value))
    return text


def run_driver(folder: str, body: str, repo: str, timeout: float = 7200) -> dict:
    """Run `body` after the deck's definitions (`folder`/defs.py) as a deck in `folder`; it
    prints 'RESULT <json>'."""
    with open(os.path.join(folder, "bm24_driver.py"), "w") as f:
        f.write("import json\nexec(open('defs.py').read())\nCOLUMNS = %r\n" % (COLUMNS,) + textwrap.dedent(body))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=repo + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "solfec_py", "--no-progress", "--legacy", "off", "bm24_driver.py"],
                          cwd=folder, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    out = proc.stdout.replace("\b", "")
    return json.loads(out[out.rindex("RESULT ") + len("RESULT "):].splitlines()[0])


def evaluate(runs: dict) -> dict:
    """Measured values of the checks, per friction coefficient, from a STEP_DRIVER or
    FRAME_DRIVER record (frames before the landing are those with a contact and t below the
    rigid block's landing time)."""
    res = {}
    for key, run in runs.items():
        mu, r = float(key), as_arrays(run)
        geo, t = r["geo"], r["t"]
        theta, omega, t_land, need = rocking("slide" if mu == 0 else "pivot", geo)
        before = (t > 0) & (t < t_land) & (r["ncon"] > 0)
        energy = r["kin"] + r["int"] + r["pot"]
        drop = theta(0.0) - np.array([theta(x) for x in t[before]])
        got = theta(0.0) - r["theta"][before]
        jy = r["py"] + geo["mass"] * G * t            # normal impulse on the block so far
        touch = r["ncon"] > 0
        out = {
            "t_land": t_land, "needed_ratio": need,
            "tilt0": float(theta(0.0)), "u0": geo["u0"], "edge_on_table": geo["edge0"][1] - geo["table_top"],
            "lever": geo["com0"][0] - geo["edge0"][0],
            "turn_error": float(np.max(np.abs(got / drop - 1))) if before.any() else None,
            "turn_errors": (got / drop - 1).tolist(),
            "coulomb": float(np.max(r["coulomb"][r["ncon"] > 0]) / (geo["mass"] * G)),   # of the weight
            "rn_min": float(np.min(r["rn_min"][r["ncon"] > 0])),
            "gap_min_before": float(np.min(r["gap_min"][before])) if before.any() else None,
            "gap_min": float(np.min(r["gap_min"][r["ncon"] > 0])),
            "energy_before": float(np.max(np.abs(energy[before] - energy[0]))) if before.any() else None,
            "kin_max_before": float(np.max(r["kin"][before])) if before.any() else None,
            "energy_rise": float(np.max(np.diff(energy))),
            "energy_end": float(energy[-1] - energy[0]),
            "edge_slip_before": float(np.max(np.abs(r["pivx"][before]))) if before.any() else None,
            "com_x_drift": float(np.max(np.abs(r["cx"] - r["cx"][0]))),
            "px_over_jy": float(np.max(np.abs(r["px"][1:]) / jy[1:])),
            "penetration_ratio": float(np.max(-r["gap_min"][touch] / penetration_bound(r)[touch])),
        }
        if before.any():
            fy = np.where(r["fy"][before] > 0, r["fy"][before], np.nan)
            out["fx_over_fy"] = (r["fx"][before] / fy).tolist()
            out["half_tilt"] = (-np.sin(r["theta"][before] / 2)).tolist()
        res[key] = out
    return res


def main(argv=None) -> int:
    import argparse
    import shutil
    import tempfile
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", help="folder holding out/tests/BM24_hexa_Mu_*_st_1e-05s (complete runs)")
    source = os.environ.get("SOLFEC_1_0_SRC") or os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                                                               "solfec-1.0-src")
    parser.add_argument("--deck", default=os.path.join(source, "tests", "BM24", "BM24_hexa.py"),
                        help="Solfec-1.0's BM24_hexa.py (default: in $SOLFEC_1_0_SRC or ../solfec-1.0-src)")
    args = parser.parse_args(argv)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp:
        # READ mode wants the stores in out/ beside the deck: link them into a scratch folder
        os.symlink(os.path.join(os.path.abspath(args.stores), "out"), os.path.join(tmp, "out"))
        defs = os.path.join(tmp, "defs.py")
        subprocess.run([sys.executable, "-m", "solfec_py", "translate", args.deck, "-o", defs], check=True,
                       env=dict(os.environ, PYTHONPATH=repo), capture_output=True)
        with open(defs) as f:
            text = f.read()
        with open(defs, "w") as f:
            f.write(text[: text.index("\n# data") + 1])
        runs = run_driver(tmp, driver(FRAME_DRIVER, mus=MUS), repo)
        shutil.rmtree(os.path.join(tmp, "__pycache__"), ignore_errors=True)
    res = evaluate(runs)
    for key, out in res.items():
        print("friction", key)
        for name, value in out.items():
            print("  %-18s %s" % (name, np.round(value, 8).tolist() if isinstance(value, list) else value))
    return 0


if __name__ == "__main__":
    sys.exit(main())
