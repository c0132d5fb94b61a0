"""The numpy point maps of obstacle-only rigid blocks (bodies/obstacle_points.py) against
the compiled ones of bodies/rigid.py: the same numbers bit for bit (bytes compared, so
signed zeros count), on rotated bodies with moving and resting rows; and a block of
obstacles takes the numpy path while a block with a rigid body keeps the kernels."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.bodies import obstacle_points as OP
from solfec_py.bodies import rigid as RB
from solfec_py.geometry.rotation import expmap


def _same_bits(a, b):
    a, b = np.ascontiguousarray(a, dtype=float), np.ascontiguousarray(b, dtype=float)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.fixture
def model():
    rng = np.random.default_rng(7)
    n, k = 6, 40
    conf = np.zeros((n, 12))
    for r in range(n):
        R = expmap(rng.normal(size=3)) if r % 3 else np.eye(3)     # rows 0, 3: unrotated
        conf[r, :9] = R.T.reshape(-1)                               # column-major
        conf[r, 9:] = rng.normal(size=3)
    velo = rng.normal(size=(n, 6))
    velo[1] = 0.0                                                   # a resting row
    velo[4, :3] = -0.0
    center = rng.normal(size=(n, 3))
    J = rng.normal(size=(n, 3, 3))
    rows = rng.integers(0, n, size=k)
    X = rng.normal(size=(k, 3))
    X[::5] = center[rows[::5]]                                      # points at the mass centre
    base = np.stack([expmap(v) for v in rng.normal(size=(k, 3))])
    return rng, n, k, conf, velo, center, J, rows, X, base


def test_numpy_point_maps_equal_the_kernels_bit_for_bit(model):
    rng, n, k, conf, velo, center, J, rows, X, base = model
    assert _same_bits(OP.cur_points(rows, X, conf, center), RB._cur_points(rows, X, conf, center))
    x = RB._cur_points(rows, X, conf, center)
    assert _same_bits(OP.ref_points(rows, x, conf, center), RB._ref_points(rows, x, conf, center))
    assert _same_bits(OP.point_velocities(rows, X, conf, velo, center),
                      RB._point_velocities(rows, X, conf, velo, center))
    H = RB._gen_to_loc(rows, X, base, conf, center)
    assert _same_bits(OP.gen_to_loc(rows, X, base, conf, center), H)
    assert _same_bits(OP.local_velocity(rows, H, velo), RB._local_velocity(rows, H, velo))
    mass = rng.random(n)
    assert _same_bits(OP.kinetic_energy(velo, J, mass), RB._kinetic_energy(velo, J, mass))
    con = rng.integers(0, 10, size=k)
    sign = np.where(rng.random(k) < 0.5, -1.0, 1.0)
    R = rng.normal(size=(10, 3))
    inert = rng.random(k) < 0.3
    a, b = np.zeros((n, 6)), np.zeros((n, 6))
    OP.add_signed_reactions(a, rows, H, con, sign, R, inert)
    RB._add_signed_reactions(b, rows, H, con, sign, R, inert)
    assert _same_bits(a, b) and np.abs(a).sum() > 0


def test_only_blocks_of_obstacles_take_the_numpy_maps(api):
    sol = api.SOLFEC('DYNAMIC', 1e-3, 'out/obstacle_points')
    mat = api.BULK_MATERIAL(sol, density=1000.0)
    cube = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]
    floor = api.BODY(sol, 'OBSTACLE', api.HEX(cube, 1, 1, 1, 0, [1] * 6), mat)
    block = floor.block
    assert block._obstacles_only()
    api.BODY(sol, 'RIGID', api.TRANSLATE(api.HEX(cube, 1, 1, 1, 0, [1] * 6), (0, 0, 2)), mat)
    assert not block._obstacles_only()
