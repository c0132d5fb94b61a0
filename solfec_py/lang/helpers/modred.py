"""`import modred` for decks written for version 1 of the modred package (proper orthogonal
decomposition, POD, of data held in one array); Solfec-1.0's reduced-order examples use it.
Reference: modred 1.0.2's documented interface of compute_POD_matrices_snaps_method and
compute_POD_matrices_direct_method (arguments, return values, the eigenvalue tolerance);
Sirovich 1987 (method of snapshots); Holmes, Lumley and Berkooz, "Turbulence, coherent
structures, dynamical systems and symmetry" (POD in a weighted inner product).

This module provides the version-1 interface of the two POD functions only (modred 2 renamed
them compute_POD_arrays_*); an installed modred, found first on sys.path, takes precedence.
The data vectors are the columns of `vecs` (n x m); the inner product is <x, y> = x^T W y
with W the identity, a diagonal (a 1-D array of weights) or a symmetric positive definite
matrix (a 2-D array). Both methods return the modes as the columns of an n x k array and the
POD eigenvalues, largest first, as a 1-D array holding every one above the tolerance (not
only the requested modes'): the decks take `numpy.transpose(modes).tolist()` and
`eig_vals[0:k]`. Version 1 returned the modes as a numpy.matrix; the decks use no matrix
semantics (no `*` product, no row slicing), so plain arrays serve them the same.
"""
from __future__ import annotations

import numpy as np

__version__ = "1.0.2"
__all__ = ["compute_POD_matrices_snaps_method", "compute_POD_matrices_direct_method"]

TOL = 1e-12     # eigenvalues at or below this (absolute) are dropped, as in version 1


def _data(vecs) -> np.ndarray:
    try:
        x = np.array(vecs, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"modred: 'vecs' must be a 2-D array of numbers (vectors as columns): {exc}") from None
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"modred: 'vecs' must be a non-empty 2-D array (vectors as columns), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("modred: 'vecs' holds a NaN or infinite value")
    return x


def _weights(weights, n: int):
    """None, a 1-D array of n positive weights, or an n x n symmetric positive definite matrix."""
    if weights is None:
        return None
    w = np.array(weights, dtype=float)
    if w.ndim == 1 and w.shape == (n,):
        if not np.all(np.isfinite(w)) or np.any(w <= 0.0):
            raise ValueError("modred: 'inner_product_weights' (1-D) must hold positive finite weights")
        return w
    if w.ndim == 2 and w.shape == (n, n):
        if not np.all(np.isfinite(w)) or not np.allclose(w, w.T, rtol=1e-12, atol=0.0):
            raise ValueError("modred: 'inner_product_weights' (2-D) must be a symmetric finite matrix")
        return w
    raise ValueError(f"modred: 'inner_product_weights' must have shape ({n},) or ({n}, {n}) "
                     f"for vectors of size {n}, got shape {w.shape}")


def _indices(mode_indices, available: int) -> list[int]:
    items = [mode_indices] if np.isscalar(mode_indices) else list(mode_indices)
    out = []
    for i in items:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise ValueError(f"modred: 'mode_indices' must hold integers, got {i!r}")
        if not 0 <= i < available:
            raise ValueError(f"modred: 'mode_indices' holds {int(i)}, but the data give {available} "
                             f"modes (indices 0..{available - 1}) above the eigenvalue tolerance")
        out.append(int(i))
    return out


def _sym_sqrt(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """W^(1/2) and W^(-1/2) of a symmetric positive definite matrix."""
    vals, vecs = np.linalg.eigh(w)
    if vals.min() <= 0.0:
        raise ValueError("modred: 'inner_product_weights' (2-D) must be positive definite")
    return (vecs * np.sqrt(vals)) @ vecs.T, (vecs / np.sqrt(vals)) @ vecs.T


def _kept(vals: np.ndarray) -> np.ndarray:
    """Indices of the eigenvalues to keep, by descending |value|: those above TOL, the
    tolerance raised to |most negative eigenvalue| (round-off size) when there is one."""
    order = np.argsort(-np.abs(vals), kind="stable")
    tol = max(TOL, -vals.min()) if vals.min() < 0.0 else TOL
    return order[np.abs(vals[order]) > tol]


def compute_POD_matrices_snaps_method(vecs, mode_indices, inner_product_weights=None, return_all=False):
    """POD modes of the columns of `vecs` by the method of snapshots: the correlation matrix
    C = X^T W X (m x m) is decomposed as C = U E U^T, eigenvalues by descending magnitude,
    those at or below the tolerance dropped, and the modes are the columns `mode_indices` of
    X U E^(-1/2). Returns (modes, eigen_vals), or with `return_all` (modes, eigen_vals,
    eigen_vecs, correlation_mat), eigen_vecs being U's kept columns."""
    x = _data(vecs)
    w = _weights(inner_product_weights, x.shape[0])
    wx = x if w is None else (w[:, None] * x if w.ndim == 1 else w @ x)
    corr = x.T @ wx
    corr = 0.5 * (corr + corr.T)
    vals, u = np.linalg.eigh(corr)
    keep = _kept(vals)
    vals, u = vals[keep], u[:, keep]
    idx = _indices(mode_indices, len(vals))
    modes = x @ (u[:, idx] / np.sqrt(vals[idx]))
    if return_all:
        return modes, vals, u, corr
    return modes, vals


def compute_POD_matrices_direct_method(vecs, mode_indices, inner_product_weights=None, return_all=False):
    """POD modes of the columns of `vecs` from the singular value decomposition W^(1/2) X =
    U S V^T: the modes are the columns `mode_indices` of W^(-1/2) U and the eigenvalues S^2
    (those at or below the tolerance dropped). Returns (modes, eigen_vals), or with
    `return_all` (modes, eigen_vals, eigen_vecs), eigen_vecs being V's kept columns (the
    correlation matrix's eigenvectors)."""
    x = _data(vecs)
    w = _weights(inner_product_weights, x.shape[0])
    if w is None:
        root = inv_root = None
        wx = x
    elif w.ndim == 1:
        root, inv_root = np.sqrt(w), 1.0 / np.sqrt(w)
        wx = root[:, None] * x
    else:
        root, inv_root = _sym_sqrt(w)
        wx = root @ x
    u, s, vt = np.linalg.svd(wx, full_matrices=False)
    vals = s * s
    keep = vals > TOL
    vals, u, v = vals[keep], u[:, keep], vt[keep].T
    idx = _indices(mode_indices, len(vals))
    modes = u[:, idx]
    if inv_root is not None:
        modes = inv_root[:, None] * modes if inv_root.ndim == 1 else inv_root @ modes
    if return_all:
        return modes, vals, v
    return modes, vals
