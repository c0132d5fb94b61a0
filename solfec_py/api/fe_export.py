"""Finite-element matrices out of a deck: BODY_MM_EXPORT (layer 7). Reference: Solfec-1.0
lng.c (BODY_MM_EXPORT's arguments and errors), fem.c (FEM_MatrixMarket_M_K: the tangent
stiffness and the lumped mass of the body's mesh), output/matrix_market.py (the file).
"""
from __future__ import annotations

import numpy as np

from solfec_py import validate as V
from solfec_py.api.common import elsewhere, require_body
from solfec_py.api.modal import ModalInputError


def _spd(name: str, value) -> bool:
    if not V.given(value):
        return True
    text = V.string(name, value)
    if text not in ("ON", "OFF"):
        raise ModalInputError(f"BODY_MM_EXPORT: '{name}' must be 'ON' or 'OFF' (The {name} value can be"
                              f" either 'ON' or 'OFF'), got {value!r}")
    return text == "ON"


@V.command
def BODY_MM_EXPORT(body, pathM, pathK, spdM=V.MISSING, spdK=V.MISSING):
    """Write the mass and stiffness matrices of a finite-element body in MatrixMarket format.

    ``BODY_MM_EXPORT(body, pathM, pathK | spdM, spdK)`` writes M, the lumped (diagonal) mass
    matrix, to ``pathM`` and K, the tangent stiffness of the body's elements in its current
    configuration (total-Lagrangian, whatever the body's ``form``; at rest it is the
    stiffness K0 of the undeformed mesh), to ``pathK``, as Solfec-1.0 writes them: a
    coordinate file with the header ``%%MatrixMarket matrix coordinate real general``, rows
    and columns numbered from 1 by the mesh's nodes, three degrees of freedom (x, y, z) per
    node. With ``spdM`` / ``spdK`` ``'ON'`` (default) only the lower triangle of the
    (symmetric) matrix is written; ``'OFF'`` writes all of it. Both read back with
    ``scipy.io.mmread`` (add the transpose of the strict lower triangle for the whole
    matrix).

    Parameters
    ----------
    body : BODY
        A FINITE_ELEMENT body.
    pathM, pathK : str
        The files to write.
    spdM, spdK : str, optional
        ``'ON'`` (default) or ``'OFF'``.

    Returns
    -------
    None
        On a parallel run the body's owner writes the files; elsewhere nothing happens.

    Raises
    ------
    InputTypeError
        ``body`` not a BODY, a path or a flag not a string.
    InputError
        (a RuntimeError too, as Solfec's) ``body`` not a finite-element body; a flag other
        than ``'ON'`` or ``'OFF'``; a path that cannot be written.

    Examples
    --------
    >>> BODY_MM_EXPORT(beam, 'beam-M.mtx', 'beam-K.mtx', spdK='OFF')   # doctest: +SKIP
    """
    require_body("body", body)
    path_m = V.file_path("pathM", pathM)
    path_k = V.file_path("pathK", pathK)
    lower_m, lower_k = _spd("spdM", spdM), _spd("spdK", spdK)
    if body.kind != "FINITE_ELEMENT":
        raise ModalInputError(f"BODY_MM_EXPORT: 'body' must be of FINITE_ELEMENT kind (Input body must be of"
                              f" Finite Element kind), got a {body.kind} body (id {body.id})")
    if elsewhere(body):
        return None
    from solfec_py.bodies.fe_corotational import element_stiffness
    from solfec_py.output import matrix_market

    blk, row = body.block, body.row
    nodes = blk.nodes_of(row)
    dofs = slice(3 * nodes.start, 3 * nodes.stop)
    K = element_stiffness(blk, blk.q)[dofs, dofs]
    M = np.repeat(blk.prepared().mass[nodes], 3)
    import scipy.sparse as sp

    for path, matrix, lower in ((path_m, sp.diags(M, format="csc"), lower_m), (path_k, K, lower_k)):
        try:
            matrix_market.write(path, matrix, lower)
        except OSError as exc:
            raise ModalInputError(f"BODY_MM_EXPORT: cannot write {path!r}: {exc.strerror or exc}") from None
    return None
