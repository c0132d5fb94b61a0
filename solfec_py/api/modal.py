"""Modal analysis and reduced bases of finite-element bodies: MODAL_ANALYSIS, REGISTER_BASE,
RIGID_DISPLACEMENTS, COROTATED_DISPLACEMENTS (layer 7).
Reference: Solfec-1.0 user manual (MODAL_ANALYSIS, REGISTER_BASE, RIGID_DISPLACEMENTS) and
lng.c (argument rules, the results file); the mathematics is solfec_py/fem/modal.py;
docs/corotational.md.
"""
from __future__ import annotations

import numpy as np

from solfec_py import session, validate as V
from solfec_py.api.common import require_body
from solfec_py.api.solfec import require_solfec
from solfec_py.errors import InputError, InputTypeError, SimulationError
from solfec_py.fem import modal


class ModalInputError(InputError, RuntimeError):
    """A MODAL_ANALYSIS argument Solfec refuses with RuntimeError (a ValueError here too)."""


def _fe_block_row(body, who: str):
    if body.kind != "FINITE_ELEMENT":
        raise ModalInputError(f"{who}: 'body' must be of FINITE_ELEMENT kind (Input body must be of Finite"
                              f" Element kind), got a {body.kind} body (id {body.id})")
    return body.block, body.row


@V.command
def MODAL_ANALYSIS(body=V.MISSING, num=0, path=V.MISSING, abstol=1e-11, maxiter=100, verbose="OFF",
                   constraints="OFF"):
    """Lowest natural modes of a finite-element body, stored in and re-read from a file.

    ``(vals, vecs) = MODAL_ANALYSIS(| body, num, path, abstol, maxiter, verbose)``: the
    ``num`` lowest eigenpairs of K0 phi = lambda M phi (K0 the stiffness of the undeformed
    mesh, M the lumped mass; as in Solfec, constraints are not included, so a free body has six
    zero eigenvalues first). With ``constraints='ON'`` (a solfec-py addition) the body's
    single-body FIX_POINT and FIX_DIRECTION constraints hold: the modes of a clamped or
    supported body. Results already in ``path`` with ``num`` modes (or any number when
    ``num`` is 0) are read instead of computed (with ``constraints='ON'`` only when they
    vanish where the constraints hold); new results are written there in Solfec's format
    (docs/corotational.md).

    Parameters
    ----------
    body : BODY, optional
        A FINITE_ELEMENT body; without it the results are only read from ``path``.
    num : int, optional
        Number of modes (> 0 with a body).
    path : str
        Results file.
    abstol : float, optional
        Eigensolver tolerance (> 0, default 1e-11).
    maxiter : int, optional
        Eigensolver iteration limit (> 0, default 100).
    verbose : str, optional
        ``'ON'`` or ``'OFF'`` (default): print the eigenvalues.
    constraints : str, optional
        ``'OFF'`` (default, Solfec's free modes) or ``'ON'``: hold the nodes under the body's
        FIX_POINT (all directions) and FIX_DIRECTION (that direction) constraints, whose
        points must be mesh nodes (within GEOMETRIC_EPSILON). Other constraints are left out.

    Returns
    -------
    tuple or None
        ``(vals, vecs)``: ``vals`` the eigenvalues lambda = omega^2 (list of n), ``vecs`` the
        M-orthonormal modes one after another (list of n x 3 x nodes); None when nothing
        was read or computed.

    Raises
    ------
    InputTypeError, InputError
        A wrong argument (a ``path`` that is empty, holds a NUL, is too long or names a
        directory; one that cannot be written); a body that is not FINITE_ELEMENT; ``num`` not positive with a body;
        neither a body nor readable results; with ``constraints='ON'``, a fixed point that is
        not a mesh node.
    SimulationError
        The eigensolver failed.

    Examples
    --------
    >>> vals, vecs = MODAL_ANALYSIS(beam, 12, 'out/beam.modal')
    >>> freqs = [math.sqrt(max(v, 0)) / (2 * math.pi) for v in vals]
    >>> clamped = MODAL_ANALYSIS(cantilever, 6, 'out/cantilever.modal', constraints='ON')
    """
    if V.given(body):
        require_body("body", body)
    num = V.integer("num", num, 0)
    if not V.given(path):
        raise InputTypeError("MODAL_ANALYSIS: 'path' (the results file) must be given")
    path = V.file_path("path", path)
    abstol = V.positive("abstol", abstol)
    maxiter = V.positive_int("maxiter", maxiter)
    loud = V.on_off("verbose", verbose, what="verbose value ('ON' or 'OFF')")
    constrained = V.on_off("constraints", constraints, what="constraints value ('ON' or 'OFF')")
    stored = modal.read_modes(path)
    if stored is not None and num > 0 and stored[0].size != num:
        stored = None                               # asked for another number: computed anew
    from_file = stored is not None
    if V.given(body):
        blk, row = _fe_block_row(body, "MODAL_ANALYSIS")
        if num == 0:
            raise ModalInputError("MODAL_ANALYSIS: when specified the 'num' parameter must be positive, got 0")
        if stored is not None and stored[1].shape[0] != 3 * int(blk.nnodes[row]):
            stored = None                           # another mesh wrote it
        held = held_directions(body) if constrained else None
        if stored is not None and held and not _vanish_where_held(stored[1], held):
            stored = None                           # modes of the body without these constraints
        if stored is None:
            from solfec_py.bodies.fe_corotational import body_matrices

            K0, mass = body_matrices(blk, row)
            if not (mass > 0).all():
                raise ModalInputError(f"MODAL_ANALYSIS: body {body.id} has nodes without mass (density 0)")
            try:
                stored = modal.lowest_modes(K0, mass, num, abstol, maxiter, held=held)
            except modal.EigenFailure as exc:
                raise SimulationError(f"MODAL_ANALYSIS: the eigenvalue solver has failed ({exc})") from None
            except ValueError as exc:
                raise InputError(f"MODAL_ANALYSIS: {exc}") from None
            try:
                modal.write_modes(path, *stored)
            except OSError as exc:
                raise InputError(f"MODAL_ANALYSIS: cannot write the modes to 'path' {path!r}:"
                                 f" {exc.strerror or exc}") from None
            from_file = False
        body._modal = stored
    elif stored is None:
        raise ModalInputError("Invalid call to MODAL_ANALYSIS --> neither a body nor a valid path was passed"
                              f" (no modal results in {path!r})")
    if from_file:
        session.record_input(path)                  # modes read: results record them
    vals, vecs = stored
    if loud:
        for i, lam in enumerate(vals.tolist()):
            print(f"MODAL_ANALYSIS: mode {i}: lambda = {lam:.6e}, f = {np.sqrt(max(lam, 0.0)) / (2 * np.pi):.6e} Hz")
    return vals.tolist(), vecs.T.reshape(-1).tolist()


def held_directions(body) -> dict:
    """node -> (j, 3) directions held by the body's single-body FIX_POINT (x, y, z) and
    FIX_DIRECTION (its direction) constraints; their points must be mesh nodes."""
    from solfec_py import constraints as C

    blk, row = body.block, body.row
    cons = blk.domain.constraints
    if not isinstance(cons, C.ConstraintSet) or not cons.count:
        return {}
    n = cons.count
    mine = (cons.bid[:n, 0] == body.id) & (cons.bid[:n, 1] == 0) & np.isin(cons.kind[:n], (C.FIXPNT, C.FIXDIR))
    X = blk.X[blk.nodes_of(row)]
    eps = session.geometric_epsilon()
    held: dict = {}
    for k in np.flatnonzero(mine).tolist():
        dist = np.linalg.norm(X - cons.mpnt[k], axis=1)
        node = int(np.argmin(dist))
        if dist[node] > eps:
            what = "FIX_POINT" if cons.kind[k] == C.FIXPNT else "FIX_DIRECTION"
            raise InputError(f"MODAL_ANALYSIS: constraints='ON' holds mesh nodes only; the {what} (constraint"
                             f" id {int(cons.id[k])}) of body {body.id} at {tuple(cons.mpnt[k].tolist())} is"
                             f" {dist[node]:.3g} from the nearest node (GEOMETRIC_EPSILON {eps:g})")
        dirs = np.eye(3) if cons.kind[k] == C.FIXPNT else cons.base[k][:, 2][None, :]
        held[node] = np.vstack([held[node], dirs]) if node in held else dirs
    return held


def _vanish_where_held(vecs, held: dict) -> bool:
    """Whether stored modes (3n, k) have no component along the held directions."""
    scale = float(np.abs(vecs).max()) or 1.0
    return all(float(np.abs(np.asarray(dirs) @ vecs[3 * node:3 * node + 3]).max()) <= 1e-9 * scale
               for node, dirs in held.items())


def base_arrays(base, who: str = "base"):
    """(vals (n,), vecs (m, n)) of a ``(vals, vecs)`` pair of lists, vecs one vector after another."""
    if not (isinstance(base, tuple) and len(base) == 2):
        raise InputTypeError(f"'{who}' must be a (vals, vecs) tuple of two lists, got {V.describe(base)}")
    vals = V.list_of_numbers(f"{who}[0]", base[0], minlen=1)
    vecs = V.list_of_numbers(f"{who}[1]", base[1], minlen=1)
    if vecs.size % vals.size:
        raise InputError(f"'{who}': the length of the vectors list ({vecs.size}) is not a multiple of the number"
                         f" of values ({vals.size})")
    return vals, vecs.reshape(vals.size, -1).T.copy()


@V.command
def REGISTER_BASE(solfec, base, label):
    """Register a reduced base under a label for ``BODY(..., base=label)``.

    ``REGISTER_BASE(solfec, base, label)``: ``base`` is a ``(vals, vecs)`` pair of lists as
    MODAL_ANALYSIS returns (``len(vecs)`` a multiple of ``len(vals)``).

    Parameters
    ----------
    solfec : SOLFEC
    base : tuple
        ``(vals, vecs)``.
    label : str
        A label not registered before.

    Raises
    ------
    InputTypeError, InputError
        A malformed base or a label registered already.

    Examples
    --------
    >>> REGISTER_BASE(sol, MODAL_ANALYSIS(beam, 12, 'out/beam.modal'), 'beam modes')
    >>> body = BODY(sol, 'FINITE_ELEMENT', mesh, mat, form='BC-MODAL', base='beam modes')
    """
    domain = require_solfec("solfec", solfec)
    arrays = base_arrays(base)
    label = V.string("label", label)
    bases = registered_bases(domain)
    if label in bases:
        raise InputError(f"REGISTER_BASE: base named {label!r} is already registered")
    bases[label] = arrays


def registered_bases(domain) -> dict:
    """The label -> (vals, vecs) registry of a domain (REGISTER_BASE)."""
    if not hasattr(domain, "registered_bases"):
        domain.registered_bases = {}
    return domain.registered_bases


@V.command
def RIGID_DISPLACEMENTS(body):
    """Six rigid-body displacement fields of a finite-element body.

    ``RIGID_DISPLACEMENTS(body)``: unit-length node-major fields of translations along x, y, z
    and rotations about x, y, z through the referential mass centre (snapshots for a
    proper orthogonal decomposition together with COROTATED_DISPLACEMENTS).

    Parameters
    ----------
    body : BODY
        A FINITE_ELEMENT body.

    Returns
    -------
    list
        Six lists of 3 x nodes floats.

    Examples
    --------
    >>> fields = RIGID_DISPLACEMENTS(beam)
    """
    require_body("body", body)
    blk, row = _fe_block_row(body, "RIGID_DISPLACEMENTS")
    return [list(v) for v in modal.rigid_fields(blk.X[blk.nodes_of(row)], blk.center[row]).tolist()]


@V.command
def COROTATED_DISPLACEMENTS(solfec, subset, sampling=V.MISSING):
    """Snapshots of co-rotated displacements of finite-element bodies during RUN.

    ``obj = COROTATED_DISPLACEMENTS(solfec, subset | sampling)``: a list that receives, at
    every sampling time of the following RUNs, one list per selected body of its nodal
    displacements with the body rotation factored out (R^T x - X, R the polar rotation of
    the mean deformation gradient; node-major, 3 per node). With RIGID_DISPLACEMENTS they are
    the snapshots of a proper orthogonal decomposition (``solfec_py.fem.modal.pod``) for a
    BC-RO base. In READ mode the list receives one sample per body at every
    ``FORWARD(solfec, steps, 'TRUE')``, from the stored frame FORWARD loads.

    Parameters
    ----------
    solfec : SOLFEC
    subset : BODY, int, str, tuple or list
        Finite-element bodies with equal node counts (a label regular expression, a BODY, a
        body id, a 6-tuple box, or a list of those).
    sampling : list or float, optional
        Sampling times, or an interval (default: the OUTPUT interval, else every step).

    Returns
    -------
    list
        Filled during the runs.

    Raises
    ------
    InputError
        A subset without bodies, non-FE bodies or different node counts, a bad sampling.

    Examples
    --------
    >>> snaps = COROTATED_DISPLACEMENTS(sol, beam, 0.01)
    >>> RUN(sol, GAUSS_SEIDEL_SOLVER(1E-8, 100), 1.0)
    >>> values, modes = solfec_py.fem.modal.pod(numpy.array(snaps).T, 10)
    """
    from solfec_py.api.results import subset_bodies
    from solfec_py.bodies.fe_corotational import corotated_displacements

    domain = require_solfec("solfec", solfec)
    bodies = subset_bodies(domain, subset)
    sizes = set()
    for b in bodies:
        _fe_block_row(b, "COROTATED_DISPLACEMENTS")
        sizes.add(int(b.block.nnodes[b.row]))
    if len(sizes) > 1:
        raise InputError(f"COROTATED_DISPLACEMENTS: invalid definition of displacements sampling: the bodies have"
                         f" different node counts {sorted(sizes)}")
    if not V.given(sampling):
        times, interval = None, None
    elif isinstance(sampling, list):
        times, interval = np.sort(V.list_of_numbers("sampling", sampling, minlen=1)), None
    elif V._is_number(sampling):
        times, interval = None, V.positive("sampling", sampling)
    else:
        raise InputError(f"Invalid sampling argument: {V.describe(sampling)}; expected a list of times or an interval")
    out: list = []
    state = {"latest": domain.time}

    def sample(dom) -> None:
        t, h = dom.time, dom.step
        if times is not None:
            due = bool(np.any(np.abs(times - t) <= 0.5 * h))
        else:
            every = interval or getattr(solfec, "output_interval", 0.0) or h
            due = abs(state["latest"] + every - t) <= 0.5 * h or t - state["latest"] > every
            if due:
                state["latest"] += every * max(1, round((t - state["latest"]) / every))
        if due:
            for b in bodies:
                out.append(corotated_displacements(b.block, b.row).reshape(-1).tolist())

    def sample_loaded(dom) -> None:       # READ mode: FORWARD(solfec, n, 'TRUE') samples the frame
        for b in bodies:
            out.append(corotated_displacements(b.block, b.row).reshape(-1).tolist())

    if not hasattr(domain, "samplers"):
        domain.samplers = []
    domain.samplers.append(sample)
    if not hasattr(domain, "frame_samplers"):
        domain.frame_samplers = []
    domain.frame_samplers.append(sample_loaded)
    return out
