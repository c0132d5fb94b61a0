"""What the deck-command fuzz test (test_fuzz_deck.py) draws arguments from: a tiny model
built afresh for every case (`Model`), a valid value for each argument of each command
(`valid`), and a pool of bad values (`BAD`). Valid values are what LANGUAGE-conforming
decks pass, so a case mixing valid and bad arguments reaches the checks deep inside the
commands and the time stepper, not just the first argument check."""
from __future__ import annotations

import math
import random

import numpy as np

CUBE = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
CUBE_FACES = [4, 0, 3, 2, 1, 1, 4, 4, 5, 6, 7, 1, 4, 0, 1, 5, 4, 1, 4, 1, 2, 6, 5, 1,
              4, 2, 3, 7, 6, 1, 4, 3, 0, 4, 7, 1]
HEX8 = [8, 0, 1, 2, 3, 4, 5, 6, 7, 1]
INF, NAN = float("inf"), float("nan")


def _callback(*args):
    return 1


def _spring(stroke, velocity):
    return -100.0 * stroke


def _force(*args):
    return (0.0, 0.0, 1.0, 0, 0, 0, 0, 0, 0)


class Model:
    """A tiny WRITE-mode model: an obstacle floor, a rigid ball just above it (it touches
    the floor within a few steps), a rigid box, a link on the box, materials, a time series,
    solvers and a field. `fresh(kind)` makes new shapes (commands may empty them)."""

    def __init__(self, api, output: str, mode_path: str | None = None):
        self.api = api
        self.output = output
        self.stored = mode_path
        sol = self.sol = api.SOLFEC('DYNAMIC', 1e-3, output)
        sol.verbose = 'OFF'
        api.GRAVITY(sol, (0, 0, -9.81))
        self.mat = api.BULK_MATERIAL(sol, model='KIRCHHOFF', young=1e6, poisson=0.25, density=1e3,
                                     label='mat')
        self.smat = api.SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)
        floor = api.HEX([-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0],
                        1, 1, 1, 2, [2] * 6)
        self.floor = api.BODY(sol, 'OBSTACLE', floor, self.mat, label='floor')
        self.ball = api.BODY(sol, 'RIGID', api.SPHERE((0, 0, 0.10001), 0.1, 1, 1), self.mat, label='ball')
        self.box = api.BODY(sol, 'RIGID', api.HEX([x + (0.5 if i % 3 == 2 else 2.0 if i % 3 == 0 else 0.0)
                                                  for i, x in enumerate(CUBE)], 1, 1, 1, 3, [3] * 6),
                            self.mat, label='box')
        self.con = api.PUT_RIGID_LINK(self.box, None, (2.5, 0.5, 1.0), (2.5, 0.5, 2.0))
        self.ts = api.TIME_SERIES([0, 0, 1, 1])
        self.gs = api.GAUSS_SEIDEL_SOLVER(1e-4, 20)
        self.newton = api.NEWTON_SOLVER()
        self.penalty = api.PENALTY_SOLVER()
        self.field = api.FIELD(sol, lambda x, y, z, t: 1.0, label='field')

    def fresh(self, kind: str):
        api = self.api
        if kind == 'sphere':
            return api.SPHERE((0, 0, 3), 0.2, 1, 1)
        if kind == 'mesh':
            return api.HEX(CUBE, 1, 1, 1, 1, [1] * 6)
        if kind == 'convex':
            return api.CONVEX(CUBE, CUBE_FACES, 1)
        return api.ELLIP((0, 0, 3), (0.1, 0.2, 0.3), 1, 1)

    def objects(self) -> list:
        """Deck objects of this model, used as wrong-kind arguments."""
        return [self.sol, self.ball, self.floor, self.mat, self.smat, self.ts, self.gs, self.con,
                self.field, self.fresh('sphere'), self.fresh('mesh')]


# ----------------------------------------------------------------------------- valid values

BY_COMMAND = {
    ('BODY', 'kind'): 'RIGID', ('FORCE', 'kind'): 'SPATIAL', ('TORQUE', 'kind'): 'SPATIAL',
    ('TIMING', 'kind'): 'TIMINT', ('BYLABEL', 'kind'): 'BODY', ('BYLABEL', 'label'): 'ball',
    ('GEOMETRIC_EPSILON', 'epsilon'): 1e-6, ('CONVEX', 'vertices'): CUBE, ('CONVEX', 'faces'): CUBE_FACES,
    ('MESH', 'nodes'): CUBE, ('MESH', 'elements'): HEX8, ('MESH', 'surfids'): 1,
    ('HULL', 'points'): CUBE, ('TIME_SERIES', 'points'): [0, 0, 1, 1], ('PIPE', 'surids'): [1] * 4,
    ('BULK_MATERIAL', 'model'): 'KIRCHHOFF', ('SURFACE_MATERIAL', 'model'): 'SIGNORINI_COULOMB',
    ('PUT_RIGID_LINK', 'point2'): (2.5, 0.5, 1.0), ('FIX_DIRECTION', 'point2'): (2.5, 0.5, 1.0),
    ('PUT_SPRING', 'point2'): (2.5, 0.5, 1.0), ('SET_VELOCITY', 'value'): 0.5,
    ('FORCE', 'value'): 2.0, ('TORQUE', 'value'): 0.1, ('HISTORY', 't1'): 1.0,
    ('XDMF_EXPORT', 'time'): 0.0, ('INITIALIZE_STATE', 'time'): 0.0, ('SEEK', 'time'): 0.0,
    ('SCALE', 'coefs'): (1.5, 1.5, 1.5), ('SET_VELOCITY3', 'tms'): (0.0, 0.1, 0.2),
    ('IMBALANCE_TOLERANCE', 'tolerance'): 1.3, ('FIELD', 'label'): 'f2',
    ('GAUSS_SEIDEL_SOLVER', 'epsilon'): 1e-4, ('NEWTON_SOLVER', 'epsilon'): 0.25,
}

BY_NAME = {
    'point': (0, 0, 0.1), 'point1': (0, 0, 0.1), 'point2': (2.5, 0.5, 2.0), 'center': (0, 0, 0.5),
    'pnt': (0, 0, 0), 'direction': (0, 0, 1), 'normal': (0, 0, 1), 'vector': (0, 0, -9.81),
    'dir': (0, 0, 1), 'linear': (0.1, 0, 0), 'angular': (0, 0, 0.1), 'value': 1.0,
    'base': (1, 0, 0, 0, 1, 0, 0, 0, 1), 'limits': (-1.0, 1.0), 'i': 2, 'j': 2, 'k': 2,
    'volid': 1, 'surfid': 1, 'surf1': 1, 'surf2': 2, 'surids': [1] * 6, 'nodes': CUBE,
    'radius': 0.1, 'radii': (0.1, 0.2, 0.3), 'error': 0.1, 'rin': 0.1, 'thi': 0.05,
    'ndri': 2, 'nrad': 3, 'nthi': 2, 'epsilon': 1e-4, 'maxiter': 10, 'step': 1e-3,
    'analysis': 'DYNAMIC', 'duration': 0.005, 'interval': 1e-3, 'data': (),
    'compression': 'OFF', 'extents': (-10, -10, -10, 10, 10, 10), 'depth': 0.5, 'state': 'ON',
    'time': 0.0, 't0': 0.0, 't1': 1.0, 'steps': 1, 'skip': 1, 'progress': 'OFF', 'mass': 1.0,
    'volume': 1.0, 'tensor': (1, 0, 0, 0, 1, 0, 0, 0, 1), 'strength': 1e3, 'angle': 30.0,
    'coefs': (1, 1, 1), 'label': 'x', 'tolerance': 1.3, 'weightfactor': 0.5,
    'updatefreq': 10, 'threshold': 0.01, 'minarea': 0.0, 'mindist': 1e-6, 'friction': 0.5,
    'cohesion': 0.0, 'restitution': 0.0, 'spring': 1e3, 'dashpot': 0.0, 'hpow': 1.0,
    'young': 1e6, 'poisson': 0.25, 'density': 1e3, 'tensile': 1.0, 'fracene': 1.0,
    'meritval': 1.0, 'failure': 'CONTINUE', 'diagepsilon': 1e-6, 'diagmaxiter': 10,
    'diagsolver': 'SEMISMOOTH_NEWTON', 'locdyn': 'ON', 'linver': 'GMRES', 'linmaxiter': 5,
    'maxmatvec': 100, 'delta': 0.0, 'theta': 0.25, 'omega': 1e-10, 'gsflag': 'ON',
    'reldelta': 'OFF', 'variant': 'IMPLICIT', 'function': _spring, 'callback': _callback,
    'filed_callback': lambda x, y, z, t: 1.0, 'update': 'FIXED', 'path': 'xdmf_out',
    'attributes': ['DISP'], 'subset': 'ball', 'corotated_displacements': 'FALSE',
    'kind': 'RIGID', 'form': 'TL', 'topoadj': 'ON', 'remesh': 'OFF', 'quality': 1.5,
    'list': None, 'dx': [1.0, 1.0], 'dy': [1.0, 1.0], 'dz': [1.0, 1.0],
}


def valid(model: Model, command: str, name: str):
    """A value a correct deck would pass for argument `name` of `command`."""
    if (command, name) in BY_COMMAND:
        return BY_COMMAND[(command, name)]
    if name in ('solfec',):
        return model.sol
    if name in ('body', 'body1', 'object'):
        return model.ball
    if name == 'body2':
        return model.box
    if name in ('shape', 'convex'):
        return model.fresh('convex' if name == 'convex' else 'sphere')
    if name == 'mesh':
        return model.fresh('mesh')
    if name == 'material':
        return model.mat
    if name == 'solver':
        return model.gs
    if name == 'tms':
        return (model.ts,) * 3 if command.endswith('3') else model.ts
    if command == 'INITIALIZE_STATE' and name == 'path':
        return model.output
    if name == 'fields':
        return [model.field]
    if name == 'output':
        return model.output + '_new'
    if name == 'list':
        return [(model.sol, 'KINETIC'), (model.ball, (0, 0, 0.1), 'CZ')]
    if name == 'points':
        return CUBE
    if name == 'vertices':
        return CUBE
    if name == 'faces':
        return CUBE_FACES
    if name == 'elements':
        return HEX8
    if name == 'surfids':
        return 1
    return BY_NAME.get(name, 1.0)


# ----------------------------------------------------------------------------- bad values

class _Weird:
    def __float__(self):
        raise ValueError("no float here")


BAD = [
    None, True, False, -1, 0, 1, 3, 2 ** 31, 2 ** 40, 2 ** 63, 10 ** 50, -10 ** 50, 10 ** 400,
    0.0, -0.0, -1.0, 1e-320, 1e-300, 1e300, 1e308, -1e308, INF, -INF, NAN, 'x', '', 'ON', 'RIGID',
    b'x', 1j, (), (1,), (1, 2), (1, 2, 3), (INF, 0, 0), (NAN, 0, 0), (1e308, 1e308, 1e308),
    (10 ** 400, 0, 0), (0, 0, 0), (-1, -1, -1, 1, 1, 1), (1e300,) * 6, [1, 2, 3], [], [[1]],
    [INF] * 6, [10 ** 400] * 3, [1.5] * 24, list(range(30)), np.float64(2.0), np.float32(1e38),
    np.int64(3), np.int8(-1), np.bool_(True), np.array(1.5), np.array(7), np.array(INF),
    np.array([1.0, 2.0, 3.0]), np.zeros((3, 3)), np.array([]), np.complex128(1 + 1j), {'a': 1},
    object(), _Weird(), lambda *a: None, lambda *a: 'x', lambda *a: (1,), math.sqrt, _force,
]


# ----------------------------------------------------------------------------- whole decks
# Decks over the finite-element, pseudo-rigid, JOINT, MESH / MESH_IMPORT and material-setter
# surface (test_fuzz_surface.py): a seeded generator writes each deck as text (and the mesh
# files it imports), so a failing case is reproduced by its seed and read as a deck. Values
# are mostly valid with bad ones mixed in; materials stay where an explicit step is at most
# ~100 times shorter than the deck's (young <= 1e7, density >= 1, elements of 0.2 m and
# more: the run's length is bounded by the deck, not by a cut of the step).

YOUNG = ["1e6", "1e6", "1e7", "1e5", "0.0", "-1.0", "float('nan')", "'soft'", "10**400"]
POISSON = ["0.25", "0.25", "0.0", "0.49", "0.5", "2.0", "-0.1", "None"]
DENSITY = ["1e3", "1e3", "1.0", "1e4", "0.0", "-5.0", "float('inf')", "[1]"]
AXES = ["(0, 1, 0)", "(0, 1, 0)", "(1, 0, 0)", "(0, 0, 1)", "(1, 1, 0)", "(0, 0, 0)", "(float('nan'), 0, 0)"]
JOINTS = ["REVOLUTE", "REVOLUTE", "SPHERICAL", "PRISMATIC", "UNIVERSAL", "CYLINDRICAL", "FIXED", "PLANAR",
          "FREE", "HINGE"]
HEX_NODES = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
ELEMENT_FAULTS = ["none", "none", "none", "inside_out", "folded", "duplicate", "repeated", "out_of_range",
                  "flat", "count"]


def _pick(rng, pool):
    return pool[rng.randrange(len(pool))]


def _value(rng, pool, bad: float):
    """A value of `pool`: one of its first four (valid) entries, or with probability `bad`
    one of the others."""
    return _pick(rng, pool[4:] if rng.random() < bad else pool[:4])


def _cube_nodes(rng, origin, size, jitter):
    return [tuple(round(o + size * c + jitter * size * rng.uniform(-1, 1), 6) for o, c in zip(origin, corner))
            for corner in HEX_NODES]


def _mesh_args(rng, origin):
    """MESH(nodes, elements, surfids) arguments: one to three hexahedra side by side along x
    (slightly jittered), one of them possibly faulty (ELEMENT_FAULTS)."""
    n = rng.randint(1, 3)
    nodes, elements = [], []
    for e in range(n):
        pts = _cube_nodes(rng, (origin[0] + 0.5 * e, origin[1], origin[2]), 0.5, 0.05)
        base = len(nodes)
        nodes += pts
        elements.append([8] + [base + i for i in range(8)] + [1])
    fault = _pick(rng, ELEMENT_FAULTS[3:]) if rng.random() < 0.3 else "none"
    k = rng.randrange(n)
    conn = elements[k][1:9]
    if fault == "inside_out":
        elements[k][1:9] = conn[4:] + conn[:4]
    elif fault == "folded":
        elements[k][7], elements[k][8] = conn[7], conn[6]
    elif fault == "duplicate":
        elements.append(list(elements[k]))
    elif fault == "repeated":
        elements[k][2] = conn[0]
    elif fault == "out_of_range":
        elements[k][3] = len(nodes) + 7
    elif fault == "flat":
        for i in range(4, 8):
            nodes[conn[i]] = nodes[conn[i - 4]]
    elif fault == "count":
        elements[k] = [7] + conn[:7] + [1]
    flat = [c for p in nodes for c in p]
    return f"{flat!r}, {[v for e in elements for v in e]!r}, 1", fault


def _import_file(rng, origin):
    """(file name, bytes) of a mesh file MESH_IMPORT reads: a valid or faulty hexahedron in
    VTU or gmsh 2.2 text, a truncated copy, or bytes of another kind."""
    nodes = _cube_nodes(rng, origin, 0.5, 0.05)
    conn = list(range(8))
    how = (_pick(rng, ["inside_out", "truncated", "junk", "empty", "unknown_type"]) if rng.random() < 0.3
           else _pick(rng, ["vtu", "msh"]))
    if how == "inside_out":
        conn = conn[4:] + conn[:4]
    lines = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$Nodes", "8"]
    lines += [f"{i + 1} {x} {y} {z}" for i, (x, y, z) in enumerate(nodes)]
    etype = 77 if how == "unknown_type" else 5
    lines += ["$EndNodes", "$Elements", "1", f"1 {etype} 2 1 1 " + " ".join(str(c + 1) for c in conn), "$EndElements"]
    text = "\n".join(lines) + "\n"
    if how == "vtu":
        import os
        import tempfile

        import meshio

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "part.vtu")
            meshio.write(path, meshio.Mesh(np.array(nodes, float), [("hexahedron", np.array([conn]))]))
            with open(path, "rb") as handle:
                return "part.vtu", handle.read()
    if how == "truncated":
        return "part.msh", text[: rng.randrange(20, len(text) - 10)].encode()
    if how == "junk":
        return "part.msh", bytes(rng.randrange(256) for _ in range(200))
    if how == "empty":
        return "part.msh", b""
    return "part.msh", text.encode()


def surface_deck(seed: int) -> tuple[str, dict, int]:
    """(deck text, {file name: bytes} the deck imports, steps it asks RUN for) of case `seed`."""
    rng = random.Random(seed)
    h = _pick(rng, [1e-3, 2e-3])
    steps = rng.randint(1, 4)
    out, files = [], {}
    say = out.append
    say(f"sol = SOLFEC('DYNAMIC', {h!r}, 'out/case')")
    say("sol.verbose = 'OFF'")
    if rng.random() < 0.7:
        say("GRAVITY(sol, (0, 0, -9.81))")
    say(f"mat = BULK_MATERIAL(sol, young={_pick(rng, YOUNG[:4])}, poisson={_pick(rng, POISSON[:4])},"
        f" density={_pick(rng, DENSITY[:4])}, label='mat')")
    say(f"soft = BULK_MATERIAL(sol, young={_value(rng, YOUNG, 0.05)}, poisson={_value(rng, POISSON, 0.05)},"
        f" density={_value(rng, DENSITY, 0.05)}, label='soft')")
    say("SURFACE_MATERIAL(sol, model='SIGNORINI_COULOMB', friction=0.3)")
    say("floor = BODY(sol, 'OBSTACLE', HEX([-2,-2,-1, 2,-2,-1, 2,2,-1, -2,2,-1, -2,-2,0, 2,-2,0, 2,2,0, -2,2,0],"
        " 1, 1, 1, 9, [9]*6), mat)")
    bodies = 0
    for b in range(rng.randint(1, 2)):
        origin = (rng.uniform(-1, 0.5), rng.uniform(-1, 0.5), 0.1 + 1.2 * b)
        shape = _pick(rng, ["hex", "mesh", "mesh", "import"])
        if shape == "hex":
            nodes = [c for p in _cube_nodes(rng, origin, 0.5, 0.1) for c in p]
            say(f"shape{b} = HEX({nodes!r}, {rng.randint(1, 3)}, {rng.randint(1, 2)}, {rng.randint(1, 2)}, 1, [1]*6)")
        elif shape == "mesh":
            args, _ = _mesh_args(rng, origin)
            say(f"shape{b} = MESH({args})")
        else:
            name, data = _import_file(rng, origin)
            name = f"{b}{name}"
            files[name] = data
            say(f"shape{b} = MESH_IMPORT('{name}')")
        kind = _pick(rng, ["FINITE_ELEMENT", "FINITE_ELEMENT", "PSEUDO_RIGID", "PSEUDO_RIGID", "RIGID"])
        form = f", form='{_pick(rng, ['TL', 'TL', 'BC'])}'" if kind == "FINITE_ELEMENT" else ""
        say(f"body{b} = BODY(sol, '{kind}', shape{b}, {_pick(rng, ['mat', 'mat', 'soft'])}{form})")
        bodies += 1
        if rng.random() < 0.3 and kind != "RIGID":
            say(f"APPLY_BULKMAT(sol, body{b}, 1, {_value(rng, ['soft', 'mat', 'soft', 'mat', 'None'], 0.1)})")
    if rng.random() < 0.4:
        _joint_chain(rng, say)
    for _ in range(rng.randint(0, 2)):                  # setters after BODY: one material rule
        name = _pick(rng, ["young", "poisson", "density"])
        pool = {"young": YOUNG, "poisson": POISSON, "density": DENSITY}[name]
        say(f"{_pick(rng, ['mat', 'soft'])}.{name} = {_value(rng, pool, 0.3)}")
    solver = _pick(rng, ["GAUSS_SEIDEL_SOLVER(1E-6, 100)", "GAUSS_SEIDEL_SOLVER(1E-6, 100)", "NEWTON_SOLVER()"])
    say(f"RUN(sol, {solver}, {steps * h!r})")
    if rng.random() < 0.3:
        say(f"mat.{_pick(rng, ['young', 'poisson'])} = {_pick(rng, YOUNG[:3] + POISSON[:3])}")
        say(f"RUN(sol, {solver}, {h!r})")
    return "\n".join(out) + "\n", files, 2 * steps + 1


def _joint_chain(rng, say) -> None:
    """Two or three rigid links hanging from the ground by JOINTs of random kinds and axes,
    maybe closed into a loop (glue, rod across the plane, FIX_DIRECTION across it)."""
    n = rng.randint(2, 3)
    planar = rng.random() < 0.5
    for i in range(n):
        x0 = 2.0 + 0.35 * i                           # links of 0.4 overlapping by 0.05
        nodes = [c for p in _cube_nodes(rng, (x0, 0.0, 2.0), 0.4, 0.0) for c in p]
        say(f"link{i} = BODY(sol, 'RIGID', HEX({nodes!r}, 1, 1, 1, 2, [2]*6), mat)")
        parent = "None" if i == 0 else f"link{i - 1}"
        kind = "REVOLUTE" if planar else _value(rng, JOINTS, 0.1)
        axis = "(0, 1, 0)" if planar else _value(rng, AXES, 0.1)
        say(f"JOINT('{kind}', {parent}, link{i}, ({x0 + 0.02}, 0.2, 2.2), {axis})")
    for i in range(n):
        for j in range(i + 1, n):
            say(f"CONTACT_EXCLUDE_BODIES(link{i}, link{j})")
    end = 2.0 + 0.35 * (n - 1) + 0.3
    close = _pick(rng, ["none", "glue", "rod", "plane", "ground"])
    if close == "glue":                               # in the overlap of the last two links
        x = 2.0 + 0.35 * (n - 1) + 0.02
        say(f"PUT_RIGID_LINK(link{n - 1}, link{n - 2}, ({x}, 0.1, 2.1), ({x}, 0.1, 2.1))")
    elif close == "rod":
        say(f"PUT_RIGID_LINK(link{n - 1}, None, ({end}, 0.05, 2.2), ({end}, 0.35, 2.2))")
    elif close == "plane":
        say(f"FIX_DIRECTION(link{n - 1}, ({end}, 0.2, 2.2), (0, 1, 0))")
    elif close == "ground":
        say(f"PUT_RIGID_LINK(link{n - 1}, None, ({end}, 0.2, 2.2), ({end}, 0.2, 2.2))")
