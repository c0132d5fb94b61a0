"""Model dumps and exports out of a deck (layer 7): LOCDYN_DUMP (the last solved local
dynamics), MBFCP_EXPORT (the model as an MBFCP problem file) and SOLFEC_EXPORT (stored
frames as results of their own). Reference: Solfec-1.0 lng.c (their arguments), ldy.c,
the *_2_MBFCP writers, scxp.c (output/locdyn_dump.py, output/mbfcp.py, output/native_export.py).
"""
from __future__ import annotations

from solfec_py import constraints as C, session, validate as V
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


@V.command
def SOLFEC_EXPORT(solfec, time, path, subset=V.MISSING):
    """Copy stored frames (or the current state) into results of their own.

    ``SOLFEC_EXPORT(solfec, time, path | subset)`` writes ``path/NAME.results`` (NAME the last
    component of ``path``) holding the chosen frames and ``path/NAME.py``, a copy of the deck;
    a deck whose output directory is ``path`` opens them in READ mode (they carry no record
    of the run's inputs, so they are read unchecked). In READ mode the frames are those at
    ``time``: one time or a list of times (the frame SEEK lands on for each, each frame
    once), or a ``(t0, t1)`` tuple: the frame at ``t0``, then each next frame whose time is
    below ``t1``, as Solfec-1.0 steps through them (so a range reaching the end of the run
    leaves out its last frame). In WRITE mode the current state is written as one frame and
    ``time`` is only checked. ``subset`` is checked (Solfec's subset specification, as for
    XDMF_EXPORT) but, as in Solfec-1.0, every body is written. Serial runs only; on a
    parallel run nothing is written.

    Parameters
    ----------
    solfec : SOLFEC
    time : float, list of floats or tuple (t0, t1)
        [time].
    path : str
        Output directory (created; results already there are replaced).
    subset : str, tuple or list, optional
        Label regular expressions, BODY objects, body ids and 6-tuple boxes.

    Returns
    -------
    None

    Raises
    ------
    InputTypeError, InputError
        A malformed time (a tuple of other than two items), a subset that selects nothing, a
        path the system cannot take or cannot write.

    Examples
    --------
    >>> SOLFEC_EXPORT(sol, (0.0, 1.0), 'out/domino-part')   # doctest: +SKIP
    """
    from solfec_py.api.results import _export_times, subset_bodies
    from solfec_py.output import native_export, replay

    domain = require_solfec("solfec", solfec)
    how, times = _export_times(time)
    path = V.file_path("path", path, "directory")
    if V.given(subset):
        subset_bodies(domain, subset)
        session.note("SOLFEC_EXPORT: 'subset' is checked but every body is written (as in Solfec-1.0)")
    if domain.parallel is not None:
        return None
    frames = None
    if solfec.mode == "READ":
        replay.ensure_loaded(solfec)
        frames = native_export.frames_of(solfec.store, how, times)
    try:
        native_export.export(solfec, path, frames)
    except OSError as exc:
        raise InputError(f"SOLFEC_EXPORT: cannot write the results in 'path' {path!r}: {exc.strerror or exc}") from None
    return None
