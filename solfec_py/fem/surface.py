"""Surface integrals on element faces (layer 1): referential area-weighted outward normals
at face quadrature points and the nodal forces of a pressure on them.
Reference: Solfec-1.0 fem.c (``create_face_integration_data``, ``FEM_Pressure``...): the
pressure is a dead load on the referential faces, f_i += p sum_g N_i(g) n_g |J_g| w_g,
and a positive value pulls the surface outward.

Contracts: ``X`` (nn, 3) referential nodes; ``faces`` (nf, m) global node indices of faces
of one face type (corners counter-clockwise seen from outside, then mid-edge nodes, as
``Element.faces`` lists them); the face element class gives the rule and shape functions.
"""
from __future__ import annotations

import numpy as np


def face_normals(face, X, faces) -> np.ndarray:
    """Area-weighted outward normals (nf, nq, 3) = (dx/du x dx/dv) w at the face rule points;
    their norms sum to the face areas."""
    _, dN, w = face.tables()
    x = np.asarray(X, dtype=float)[np.asarray(faces, dtype=np.int64)]       # (nf, m, 3)
    du = np.einsum("fmi,gm->fgi", x, dN[:, :, 0])
    dv = np.einsum("fmi,gm->fgi", x, dN[:, :, 1])
    return np.cross(du, dv) * w[None, :, None]


def face_points(face, X, faces) -> np.ndarray:
    """Coordinates of the face rule points (nf, nq, 3) for nodes ``X`` (either configuration)."""
    N = face.tables()[0]
    return np.einsum("gm,fmi->fgi", N, np.asarray(X, dtype=float)[np.asarray(faces, dtype=np.int64)])


def pressure_load(face, faces, normals, pressure, f) -> None:
    """Accumulate into ``f`` (nn, 3) the nodal forces of ``pressure`` (scalar or (nf,)) on
    ``faces`` with precomputed ``normals`` from :func:`face_normals` (a dead load:
    positive pressure pulls outward)."""
    N = face.tables()[0]
    p = np.broadcast_to(np.asarray(pressure, dtype=float), (normals.shape[0],))
    nodal = np.einsum("gm,fgi,f->fmi", N, normals, p)
    np.add.at(f, np.asarray(faces, dtype=np.int64).reshape(-1), nodal.reshape(-1, 3))
