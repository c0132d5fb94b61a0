"""The rigid block's referential points (bodies.rigid._ref_points, issue 13) against two
independent references: the numpy einsum expression it replaced, X0 + Lambda^T (x - xc) with
Lambda from the column-major conf rows (to rounding, 1e-14 relative: einsum's pairing of the
three products depends on numpy's build and the CPU; on the development machine the two are
equal bit for bit), and the inverse map cur_points, x = xc + Lambda (X - X0), which must give
back the current points (round trip to 1e-12 relative: two 3 x 3 products of a rotation)."""
from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from solfec_py.bodies import rigid


class _Block(rigid.RigidBlock):
    def __init__(self, conf, center):
        self.conf, self.center = conf, center
        self.bodies = [None] * conf.shape[0]                    # rigid bodies (not obstacles)
        self.obstacle = np.zeros(conf.shape[0], dtype=bool)


def _block(n, seed):
    rng = np.random.default_rng(seed)
    R = Rotation.random(n, random_state=seed).as_matrix()
    conf = np.concatenate((R.transpose(0, 2, 1).reshape(n, 9), rng.normal(size=(n, 3)) * 10), axis=1)
    return _Block(conf, rng.normal(size=(n, 3))), rng


def test_ref_points_equal_the_einsum_form_and_invert_cur_points():
    block, rng = _block(300, 3)
    rows = rng.integers(0, 300, 1000)
    x = block.conf[rows, 9:12] + rng.normal(size=(1000, 3)) * 10.0 ** rng.integers(-4, 2, (1000, 1))
    X = block.ref_points(rows, x)
    R = block.conf[rows, 0:9].reshape(-1, 3, 3).transpose(0, 2, 1)            # Lambda[i, j] = conf[3 j + i]
    ref = block.center[rows] + np.einsum("nji,nj->ni", R, x - block.conf[rows, 9:12])
    scale = np.abs(ref).max()
    np.testing.assert_allclose(X, ref, rtol=1e-14, atol=1e-14 * scale)
    back = block.cur_points(rows, X)
    np.testing.assert_allclose(back, x, rtol=1e-12, atol=1e-12 * np.abs(x).max())


def test_ref_points_take_any_row_layout():
    block, rng = _block(5, 4)
    x = rng.normal(size=(2, 3))[:, ::-1]                                       # a non-contiguous view
    rows = np.array([[4], [1]], dtype=np.int32)
    X = block.ref_points(rows, x)
    assert X.shape == (2, 3)
    np.testing.assert_allclose(block.cur_points(rows.ravel(), X), x, rtol=1e-12, atol=1e-12)
    assert block.ref_points(np.zeros(0, dtype=np.int64), np.zeros((0, 3))).shape == (0, 3)
