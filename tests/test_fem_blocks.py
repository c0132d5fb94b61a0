"""Structured block meshes: conforming, positively oriented, filling the box."""
from __future__ import annotations

import numpy as np
import pytest

from solfec_py.fem import kernels as K
from solfec_py.fem.blocks import structured
from solfec_py.fem.elements import ELEMENTS


@pytest.mark.parametrize("name", sorted(ELEMENTS))
def test_structured_block_is_a_conforming_positive_mesh(name):
    el = ELEMENTS[name]
    X, conn = structured(name, (2, 3, 1), (0.0, -1.0, 2.0), (1.0, 2.0, 2.5))
    wJ, bad = K.jacobian_weights(X, conn, *el.tables("stiffness")[1:])
    assert bad == -1 and wJ.min() > 0
    assert wJ.sum() == pytest.approx(1.0 * 3.0 * 0.5, rel=1e-13)
    # conforming: every face is shared by two elements or lies on the box boundary
    count = {}
    for face in el.faces:
        for row in conn[:, list(face)]:
            key = frozenset(row.tolist())
            count[key] = count.get(key, 0) + 1
    assert set(count.values()) <= {1, 2}
    lo, hi = np.array([0.0, -1.0, 2.0]), np.array([1.0, 2.0, 2.5])
    for key, c in count.items():
        if c == 1:
            x = X[list(key)]
            assert np.any(np.all(np.isclose(x, lo), axis=0) | np.all(np.isclose(x, hi), axis=0))
    assert np.unique(conn).size == X.shape[0]            # no orphan nodes
