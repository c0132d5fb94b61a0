"""The modred module decks import (version 1's compute_POD_matrices_snaps_method and
compute_POD_matrices_direct_method), on data X = Q1 diag(s) Q2^T (40 x 12) built from random
orthonormal Q1, Q2 and chosen singular values s = 10 ... 0.5, so the POD eigenvalues are
known exactly (s^2) and the condition number of X^T X is 400.

Tolerances: round-off in the correlation matrix is ~ 1e-16 * s_max^2 = 1e-14; the snapshot
method divides it by s_i^2 >= 0.25 and its eigenvectors' errors by eigenvalue gaps >= 0.2,
so orthonormality, principal angles and the agreement of the two methods are checked to
1e-10, which leaves a margin of about 1e3 over that estimate; eigenvalues to 1e-10 relative.
The weighted checks use W of condition <= 10, which changes these estimates by that factor.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from solfec_py.lang.helpers import modred

S = np.array([10.0, 8.0, 6.5, 5.0, 4.0, 3.2, 2.5, 2.0, 1.5, 1.0, 0.7, 0.5])
N = 40


def data(s=S, seed=1):
    rng = np.random.default_rng(seed)
    q1, _ = np.linalg.qr(rng.standard_normal((N, len(s))))
    q2, _ = np.linalg.qr(rng.standard_normal((len(s), len(s))))
    return (q1 * s) @ q2.T


def weights(kind, seed=2):
    rng = np.random.default_rng(seed)
    if kind is None:
        return None, np.eye(N)
    if kind == "diag":
        w = rng.uniform(1.0, 10.0, N)
        return w, np.diag(w)
    q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    w = (q * rng.uniform(1.0, 10.0, N)) @ q.T
    w = 0.5 * (w + w.T)
    return w, w


METHODS = [modred.compute_POD_matrices_snaps_method, modred.compute_POD_matrices_direct_method]


def principal_angles(a, b):
    """Principal angles between the column spaces of a and b, from their sines (the singular
    values of b's basis less its projection on a's): arccos of cosines near 1 would lose half
    the digits (arccos(1 - 1e-16) = 1.5e-8)."""
    qa, _ = np.linalg.qr(a)
    qb, _ = np.linalg.qr(b)
    sin = np.linalg.svd(qb - qa @ (qa.T @ qb), compute_uv=False)
    return np.arcsin(np.clip(sin, 0.0, 1.0))


def test_version_one_interface():
    assert modred.__version__[0] == "1"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", [None, "diag", "full"])
def test_modes_orthonormal_in_the_weighted_inner_product(method, kind):
    w, wmat = weights(kind)
    modes, vals = method(data(), list(range(len(S))), inner_product_weights=w)
    assert modes.shape == (N, len(S)) and vals.shape == (len(S),)
    assert np.allclose(modes.T @ wmat @ modes, np.eye(len(S)), rtol=0.0, atol=1e-10)


@pytest.mark.parametrize("method", METHODS)
def test_modes_span_the_left_singular_vectors_and_eigenvalues_are_s_squared(method):
    x = data()
    u, s, _ = np.linalg.svd(x, full_matrices=False)
    modes, vals = method(x, [0, 1, 2, 3, 4])
    assert np.max(principal_angles(modes, u[:, :5])) < 1e-10
    assert np.max(principal_angles(modes[:, [2]], u[:, [2]])) < 1e-10    # mode by mode, in order
    assert np.allclose(vals, s ** 2, rtol=1e-10, atol=0.0)
    assert np.allclose(vals, S ** 2, rtol=1e-10, atol=0.0)


@pytest.mark.parametrize("kind", [None, "diag", "full"])
def test_snaps_and_direct_methods_agree_up_to_sign(kind):
    w, _ = weights(kind)
    idx = [0, 3, 7, 11]
    m1, v1, e1, corr = modred.compute_POD_matrices_snaps_method(data(), idx, w, return_all=True)
    m2, v2, e2 = modred.compute_POD_matrices_direct_method(data(), idx, w, return_all=True)
    assert np.allclose(v1, v2, rtol=1e-10, atol=0.0)
    signs = np.sign(np.sum(m1 * m2, axis=0))
    assert np.allclose(m1, m2 * signs, rtol=0.0, atol=1e-10)
    assert corr.shape == (len(S), len(S)) and e1.shape == e2.shape == (len(S), len(S))
    assert np.allclose(np.abs(e1.T @ e2), np.eye(len(S)), rtol=0.0, atol=1e-10)


@pytest.mark.parametrize("method", METHODS)
def test_low_rank_data_drop_the_null_eigenvalues(method):
    x = data()[:, :4] @ np.random.default_rng(3).standard_normal((4, 9))     # rank 4, 9 vectors
    modes, vals = method(x, [0, 1, 2, 3])
    assert vals.shape == (4,) and np.all(vals > 1e-12)
    assert np.allclose(modes.T @ modes, np.eye(4), rtol=0.0, atol=1e-10)
    with pytest.raises(ValueError, match="mode_indices' holds 4, but the data give 4 modes"):
        method(x, [0, 4])


@pytest.mark.parametrize("method", METHODS)
def test_bad_inputs_raise(method):
    x = data()
    for bad, name in [(np.ones(5), "'vecs'"), ([[1.0, np.nan]], "'vecs'"), ("abc", "'vecs'")]:
        with pytest.raises(ValueError, match=name):
            method(bad, [0])
    with pytest.raises(ValueError, match="'mode_indices' holds 12"):
        method(x, [12])
    with pytest.raises(ValueError, match="'mode_indices' holds -1"):
        method(x, [-1])
    with pytest.raises(ValueError, match="'mode_indices' must hold integers"):
        method(x, [0.5])
    with pytest.raises(ValueError, match=r"'inner_product_weights' must have shape \(40,\) or \(40, 40\)"):
        method(x, [0], inner_product_weights=np.ones(3))
    with pytest.raises(ValueError, match="positive"):
        method(x, [0], inner_product_weights=-np.ones(N))
    with pytest.raises(ValueError, match="symmetric"):
        method(x, [0], inner_product_weights=np.triu(np.ones((N, N))))


def test_a_python2_deck_imports_it_by_name(tmp_path, monkeypatch):
    from solfec_py.cli import main

    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "x.npy", data())
    deck = tmp_path / "d.py"
    deck.write_text(textwrap.dedent("""\
        import numpy, modred
        if modred.__version__[0] != '1':
          print 'modred version 1 is needed!'
          raise SystemExit(1)
        vecs = numpy.load('x.npy')
        modes, eig_vals = modred.compute_POD_matrices_snaps_method(vecs, list(range(3)))
        print eig_vals[0:3]
        mod = numpy.transpose(modes).tolist()
        val = eig_vals.tolist()
        open('out.txt', 'w').write('%d %d %.12g' % (len(mod), len(mod[0]), val[0]))
    """))
    assert main([str(deck)]) == 0
    nmod, size, val0 = (tmp_path / "out.txt").read_text().split()
    assert (int(nmod), int(size)) == (3, N) and abs(float(val0) - 100.0) < 1e-10 * 100.0


def test_a_modred_beside_the_deck_comes_first(tmp_path, monkeypatch):
    """lang/helpers is searched last, so a deck's own (or an installed) modred is imported,
    also when an earlier deck of the same process imported the one of lang/helpers."""
    from solfec_py.cli import main

    monkeypatch.chdir(tmp_path)
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "d.py").write_text("import modred\nopen('a.txt', 'w').write(modred.__version__)\n")
    (second / "modred.py").write_text("__version__ = '9.9'\n")
    (second / "d.py").write_text("import modred\nopen('b.txt', 'w').write(modred.__version__)\n")
    assert main([str(first / "d.py")]) == 0 and main([str(second / "d.py")]) == 0
    assert (tmp_path / "a.txt").read_text() == modred.__version__
    assert (tmp_path / "b.txt").read_text() == "9.9"
