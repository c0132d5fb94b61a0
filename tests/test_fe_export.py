"""BODY_MM_EXPORT against an independent assembly: the stiffness file of a HEX8 beam at rest
equals the K of tests/test_fe_modal.py's numpy assembly (linear elasticity, 2 x 2 x 2 Gauss)
and the mass file its lumped mass (rho V / 8 a node), to round-off (the files carry 15
significant digits: relative 1e-12 of the largest entry); the lower-triangle (spd) files
hold the same matrices; the file is Solfec's (header, sizes, 1-based entries column after
column); the argument errors of Solfec's lng.c.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.io

from test_fe_modal import beam, numpy_hex8


def _read(path) -> np.ndarray:
    return scipy.io.mmread(str(path)).toarray()


def _whole(lower: np.ndarray) -> np.ndarray:
    return lower + np.tril(lower, -1).T


def _order(body, n) -> np.ndarray:
    """The body's dofs in the numbering of numpy_hex8 (nodes matched by coordinates)."""
    from test_fe_modal import A, L

    nx, ny, nz = n
    X = body.block.X[body.block.nodes_of(body.row)]
    ijk = np.rint(X / np.array([L / nx, A / ny, A / nz])).astype(int)
    index = (ijk[:, 0] * (ny + 1) + ijk[:, 1]) * (nz + 1) + ijk[:, 2]
    return (3 * index[:, None] + np.arange(3)).ravel()


@pytest.mark.parametrize("form", ["TL", "BC"])
def test_matrices_equal_an_independent_assembly(api, tmp_path, form):
    n = (4, 1, 1)
    _, body = beam(api, n, form=form, poisson=0.3)
    api.BODY_MM_EXPORT(body, str(tmp_path / "M.mtx"), str(tmp_path / "K.mtx"), spdK="OFF")
    K_ref, m_ref = numpy_hex8(n, 0.3)
    dofs = _order(body, n)
    K = _read(tmp_path / "K.mtx")
    M = _read(tmp_path / "M.mtx")
    assert K.shape == M.shape == (dofs.size, dofs.size)
    np.testing.assert_allclose(K, K_ref[np.ix_(dofs, dofs)], rtol=0, atol=1e-12 * np.abs(K_ref).max())
    np.testing.assert_allclose(M, np.diag(m_ref[dofs]), rtol=1e-12)
    api.BODY_MM_EXPORT(body, str(tmp_path / "Ml.mtx"), str(tmp_path / "Kl.mtx"))       # spd: lower triangles
    Kl = _read(tmp_path / "Kl.mtx")
    assert np.count_nonzero(np.triu(Kl, 1)) == 0
    np.testing.assert_allclose(_whole(Kl), K, rtol=0, atol=1e-12 * np.abs(K).max())
    np.testing.assert_allclose(_read(tmp_path / "Ml.mtx"), M, rtol=1e-12)


def test_file_is_solfecs(api, tmp_path):
    _, body = beam(api, (1, 1, 1))
    api.BODY_MM_EXPORT(body, str(tmp_path / "M.mtx"), str(tmp_path / "K.mtx"), "OFF", "ON")
    lines = (tmp_path / "M.mtx").read_text().splitlines()
    assert lines[0] == "%%MatrixMarket matrix coordinate real general"
    assert lines[1] == "24  24  24"                                   # the diagonal of 8 nodes x 3
    assert lines[2].split()[:2] == ["1", "1"] and lines[-1].split()[:2] == ["24", "24"]
    entries = np.loadtxt(tmp_path / "K.mtx", skiprows=2)
    assert (entries[:, 0] >= entries[:, 1]).all()                       # lower triangle, 1-based
    assert np.all(np.diff(entries[:, 1]) >= 0)                          # column after column
    assert int((tmp_path / "K.mtx").read_text().splitlines()[1].split()[2]) == entries.shape[0]


def test_errors(api, tmp_path):
    from solfec_py.errors import InputError, InputTypeError

    sol, body = beam(api, (1, 1, 1))
    mat = api.BULK_MATERIAL(sol, model="KIRCHHOFF", young=1e6, poisson=0.25, density=1e3)
    rigid = api.BODY(sol, "RIGID", api.SPHERE((5, 0, 0), 1, 1, 1), mat)
    with pytest.raises(RuntimeError, match="Finite Element kind") as err:
        api.BODY_MM_EXPORT(rigid, str(tmp_path / "m"), str(tmp_path / "k"))
    assert isinstance(err.value, InputError)
    with pytest.raises(RuntimeError, match="either 'ON' or 'OFF'"):
        api.BODY_MM_EXPORT(body, str(tmp_path / "m"), str(tmp_path / "k"), spdM="YES")
    with pytest.raises(InputTypeError, match="pathK"):
        api.BODY_MM_EXPORT(body, str(tmp_path / "m"), 3)
    with pytest.raises(InputError, match="directory"):
        api.BODY_MM_EXPORT(body, str(tmp_path), str(tmp_path / "k"))
    with pytest.raises(InputTypeError, match="body"):
        api.BODY_MM_EXPORT(None, "m", "k")
