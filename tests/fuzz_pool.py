"""What the deck-command fuzz test (test_fuzz_deck.py) draws arguments from: a tiny model
built afresh for every case (`Model`), a valid value for each argument of each command
(`valid`), and a pool of bad values (`BAD`). Valid values are what LANGUAGE-conforming
decks pass, so a case mixing valid and bad arguments reaches the checks deep inside the
commands and the time stepper, not just the first argument check."""
from __future__ import annotations

import math

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
