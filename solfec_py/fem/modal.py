"""Modal analysis and reduced bases of finite-element meshes (layer 1): the lowest modes of
K0 phi = lambda M phi (lumped M), Solfec's modal results file, the six rigid-body fields and
a proper orthogonal decomposition of displacement snapshots.
Reference: Solfec-1.0 fem.c ``FEM_Modal_Analysis`` and lng.c ``read_modal_analysis`` /
``write_modal_analysis`` (the file layout); Lehoucq & Sorensen, ARPACK (shift-invert
Lanczos, through scipy.sparse.linalg.eigsh); docs/corotational.md.

Results file (Solfec-1.0 built without HDF5; XDR, big-endian): int m (= 3 x nodes),
int n (modes), n doubles (eigenvalues lambda = omega^2), then the n x m doubles of the
modes, mode after mode (column-major m x n). Modes are M-orthonormal (phi^T M phi = I).
"""
from __future__ import annotations

import os

import numpy as np


class EigenFailure(RuntimeError):
    """The eigenvalue solver did not converge."""


def held_basis(nnodes: int, held: dict):
    """(T, kept): the sparse (3 nnodes, k) map u = T y from the free coordinates y to the
    nodal displacements u when node i may not move along the directions held[i] ((j, 3)
    rows; three independent rows clamp it): each held node keeps an orthonormal basis of the
    complement of its directions, the other nodes their x, y, z; `kept[c]` is the node of
    column c. Columns of one node are orthonormal, so T^T M T is diagonal for a lumped M."""
    import scipy.sparse as sp

    rows, cols, vals, kept = [], [], [], []
    for node in range(nnodes):
        dirs = held.get(node)
        if dirs is None:
            basis = np.eye(3)
        else:
            _, sv, vt = np.linalg.svd(np.atleast_2d(np.asarray(dirs, dtype=float)))
            rank = int(np.sum(sv > 1e-12 * sv[0]))
            basis = vt[rank:].T                  # (3, 3 - rank): the complement of the directions
        for c in range(basis.shape[1]):
            col = len(kept)
            kept.append(node)
            for a in range(3):
                if basis[a, c] != 0.0:
                    rows.append(3 * node + a)
                    cols.append(col)
                    vals.append(basis[a, c])
    T = sp.csr_matrix((vals, (rows, cols)), shape=(3 * nnodes, len(kept)))
    return T, np.asarray(kept, dtype=np.int64)


def lowest_modes(K, mass, num: int, tol: float = 1e-11, maxiter: int = 100, held: dict | None = None):
    """(vals (num,), vecs (3n, num)): the `num` lowest eigenpairs of K phi = lambda M phi
    with M = diag(repeat(mass, 3)), M-orthonormal, by shift-invert Lanczos about a small
    negative shift (K of a free body is singular: its six rigid modes have lambda = 0).
    Small problems (3n <= 600 or num close to 3n) use a dense solver. `held` (node ->
    directions, see held_basis) restricts the modes to displacements with no component
    along the held directions (a clamped or supported body): T^T K T y = lambda T^T M T y,
    phi = T y."""
    import scipy.sparse as sp

    K = sp.csr_matrix(K)
    T = None
    if held:
        T, kept = held_basis(np.asarray(mass).size, held)
        K = (T.T @ K @ T).tocsr()
        m = np.asarray(mass, dtype=float)[kept]
    else:
        m = np.repeat(np.asarray(mass, dtype=float), 3)
    n = m.size
    if num > n:
        raise ValueError(f"'num' = {num} modes asked for a mesh with {n} free degrees of freedom")
    scale = 1.0 / np.sqrt(m)                     # symmetric form: D K D psi = lambda psi, phi = D psi
    A = sp.diags(scale) @ K @ sp.diags(scale)
    if n <= 600 or num >= n // 2:
        from scipy.linalg import eigh

        vals, psi = eigh(A.toarray(), subset_by_index=(0, num - 1))
    else:
        from scipy.sparse.linalg import ArpackNoConvergence, eigsh

        diag = A.diagonal()
        shift = -1e-6 * float(diag.max())        # below every eigenvalue; small against the spectrum
        try:
            vals, psi = eigsh(A.tocsc(), k=num, sigma=shift, which="LM", tol=tol,
                              maxiter=max(int(maxiter), 10 * num) * 10)
        except ArpackNoConvergence as exc:
            raise EigenFailure(str(exc)) from None
        order = np.argsort(vals)
        vals, psi = vals[order], psi[:, order]
    vecs = scale[:, None] * psi
    if T is not None:
        vecs = np.asarray(T @ vecs)
    big = vecs[np.abs(vecs).argmax(axis=0), np.arange(vecs.shape[1])]
    vecs *= np.where(big < 0, -1.0, 1.0)                  # sign: the largest entry positive
    return np.asarray(vals, dtype=float), np.ascontiguousarray(vecs)


def write_modes(path: str, vals, vecs) -> None:
    """Solfec's modal results file (module docstring); parent directories are created."""
    vecs = np.asarray(vecs, dtype=float)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    m, n = vecs.shape
    with open(path, "wb") as f:
        f.write(np.array([m, n], dtype=">i4").tobytes())
        f.write(np.asarray(vals, dtype=">f8").tobytes())
        f.write(np.asarray(vecs.T, dtype=">f8").tobytes())


def read_modes(path: str):
    """(vals (n,), vecs (m, n)) from a modal results file, or None when there is none or
    it is not one (too short for the sizes it declares)."""
    try:
        raw = open(path, "rb").read()
    except OSError:
        return None
    if len(raw) < 8:
        return None
    m, n = (int(v) for v in np.frombuffer(raw[:8], dtype=">i4"))
    if m <= 0 or n <= 0 or len(raw) != 8 + 8 * n * (m + 1):
        return None
    data = np.frombuffer(raw[8:], dtype=">f8").astype(float)
    return data[:n].copy(), data[n:].reshape(n, m).T.copy()


def rigid_fields(X, center) -> np.ndarray:
    """(6, 3n): translations along x, y, z, then rotations about x, y, z through `center`,
    node-major, each scaled to unit Euclidean length (Solfec-1.0 RIGID_DISPLACEMENTS)."""
    X = np.asarray(X, dtype=float) - np.asarray(center, dtype=float)
    out = np.zeros((6, X.shape[0], 3))
    for a in range(3):
        out[a, :, a] = 1.0
        axis = np.zeros(3)
        axis[a] = 1.0
        out[3 + a] = np.cross(axis, X)
    out = out.reshape(6, -1)
    return out / np.linalg.norm(out, axis=1)[:, None]


def pod(snapshots, num: int | None = None, rtol: float = 1e-10):
    """(singular values, modes (m, k)) of the snapshot matrix (m, s): the left singular
    vectors of the k largest singular values (k = num, or every one above rtol x the
    largest), a proper orthogonal decomposition by numpy's SVD."""
    S = np.asarray(snapshots, dtype=float)
    U, s, _ = np.linalg.svd(S, full_matrices=False)
    k = int(np.sum(s > rtol * s[0])) if num is None else min(int(num), s.size)
    return s[:k], U[:, :k]
