"""Model dumps out of a deck (layer 7): LOCDYN_DUMP (the last solved local dynamics) and
MBFCP_EXPORT (the model as an MBFCP problem file). Reference: Solfec-1.0 lng.c (their
arguments), ldy.c LOCDYN_Dump, mbfcp.c (output/locdyn_dump.py, output/mbfcp.py).
"""
from __future__ import annotations

from solfec_py import constraints as C, validate as V
from solfec_py.api.solfec import require_solfec
from solfec_py.errors import InputError


def _rank_path(domain, path: str) -> str:
    """`path.<rank>` on a parallel run (each rank writes its own part), else `path`."""
    return path if domain.parallel is None else f"{path}.{domain.parallel.rank}"


@V.command
def LOCDYN_DUMP(solfec, path):
    """Write the local dynamics of the last solved step to a text file (a debugging aid).

    ``LOCDYN_DUMP(solfec, path)`` writes one line per constraint of the last constraint solve,
    newest first: the constraint kind, its spatial point, its master and slave body ids (-1
    without a slave), its local base (t1, t2, n, column after column), the diagonal block
    W_ii (column after column) and the local velocities B (free), V (at the start of the
    step), U (at its end) and the reaction R; then, for every constraint j coupled to it
    through a body, ``=> KIND (point) (ids) [base] [W_ij]`` with the block of
    ``U_i = B_i + W_ii R_i + sum_j W_ij R_j``. Numbers are written as C's ``%.6g``, as
    Solfec-1.0 does. Before any solve the file is empty. On a parallel run each rank writes
    ``path.<rank>``.

    Parameters
    ----------
    solfec : SOLFEC
    path : str
        The file to write.

    Returns
    -------
    None

    Raises
    ------
    InputTypeError
        ``solfec`` not a SOLFEC object, ``path`` not a string.
    InputError
        ``path`` that cannot be written.

    Examples
    --------
    >>> LOCDYN_DUMP(sol, 'out/stack/locdyn.txt')   # doctest: +SKIP
    """
    domain = require_solfec("solfec", solfec)
    path = _rank_path(domain, V.file_path("path", path))
    from solfec_py.output import locdyn_dump

    try:
        locdyn_dump.write(path, C.constraint_set(domain), domain.last_local_dynamics)
    except OSError as exc:
        raise InputError(f"LOCDYN_DUMP: cannot write 'path' {path!r}: {exc.strerror or exc}") from None
    return None


@V.command
def MBFCP_EXPORT(solfec, path):
    """Write the model as an MBFCP problem file.

    ``MBFCP_EXPORT(solfec, path)`` writes, as Solfec-1.0 does, ``KEY:<tab>value`` sections:
    the surface materials (surface pairs, ``ANY`` for an unspecified surface; model,
    friction, cohesion and restitution, or spring and dashpot), the bulk materials (by label:
    model, Young's modulus, Poisson's ratio, density), the gravity (when set: three constants
    or time series), the bodies (newest first: id, label, kind, material, shapes in the
    reference configuration, velocity in the body's layout, FORCE and TORQUE records) and
    the constraints other than contacts (newest first: FIX_POINT, FIX_DIRECTION,
    SET_VELOCITY / SET_DISPLACEMENT / SET_ACCELERATION as VELODIR or VELODIR3 with their
    velocity series, PUT_RIGID_LINK; a spring writes only its id). Call it before RUN to
    export the model as defined. On a parallel run each rank writes ``path.<rank>``.

    Parameters
    ----------
    solfec : SOLFEC
    path : str
        The file to write.

    Returns
    -------
    None

    Raises
    ------
    InputTypeError
        ``solfec`` not a SOLFEC object, ``path`` not a string.
    InputError
        ``path`` that cannot be written ("File open failed" in Solfec-1.0); a body with an
        ELLIP shape (no MBFCP form).

    Examples
    --------
    >>> MBFCP_EXPORT(sol, 'out/bricks/bricks.mbfcp')   # doctest: +SKIP
    """
    domain = require_solfec("solfec", solfec)
    path = _rank_path(domain, V.file_path("path", path))
    from solfec_py.output import mbfcp

    text = mbfcp.lines(domain)
    try:
        with open(path, "w", encoding="ascii") as f:
            f.write("\n".join(text) + "\n")
    except OSError as exc:
        raise InputError(f"MBFCP_EXPORT: cannot write 'path' {path!r} (File open failed): {exc.strerror or exc}") from None
    return None
