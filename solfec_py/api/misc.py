"""Global settings, the serial answers of Solfec's parallel helpers and the model-wide
lookups: GEOMETRIC_EPSILON, WARNINGS, VIEWER, RANK, NCPU, HERE, BARRIER, SUBDIR,
NON_SOLFEC_ARGV, IMBALANCE_TOLERANCE, REGISTER_CALLBACK, DISPLAY_POINT, DELETE, BYLABEL
(layer 7). Reference: Solfec-1.0 user manual, REGISTER_CALLBACK, WARNINGS, utilities.
"""
from __future__ import annotations

from solfec_py import session, validate as V
from solfec_py.api.common import require_body
from solfec_py.api.constraints import is_constraint
from solfec_py.api.materials import bulk_material_object, surface_material_object
from solfec_py.api.solfec import require_solfec
from solfec_py.bodies.base import Body
from solfec_py.errors import InputError, InputTypeError


@V.command
def GEOMETRIC_EPSILON(epsilon):
    """Set the global geometric tolerance.

    ``GEOMETRIC_EPSILON(epsilon)``: the distance under which points count as coincident and
    objects as touching (default 1e-6). Objects created afterwards use the new value, so
    call it before building the model.

    Parameters
    ----------
    epsilon : float
        [length]. > 0.

    Raises
    ------
    InputTypeError, InputError
        A non-positive or non-finite epsilon.

    Examples
    --------
    >>> GEOMETRIC_EPSILON(1E-8)
    """
    session.current().geometric_epsilon = V.positive("epsilon", epsilon)


@V.command
def WARNINGS(state):
    """Switch warnings and notes on or off.

    ``WARNINGS(state)``.

    Parameters
    ----------
    state : str
        ``'ON'`` (default) or ``'OFF'``.

    Raises
    ------
    InputTypeError, InputError
        Anything but ``'ON'`` or ``'OFF'``.

    Examples
    --------
    >>> WARNINGS('OFF')
    """
    session.current().warnings = V.on_off("state", state, what="state (only 'ON' or 'OFF' are valid)")


@V.command
def VIEWER():
    """Whether the deck runs in Solfec's viewer: always False.

    ``VIEWER()``: solfec-py has no OpenGL viewer; results open in ParaView (XDMF_EXPORT and
    the ``_xdmf`` files every run writes).

    Returns
    -------
    bool

    Examples
    --------
    >>> if not VIEWER():
    ...     RUN(sol, gs, 1.0)
    """
    return False


@V.command
def RANK():
    """The MPI rank of this process (0 in serial runs).

    ``RANK()``: decks run on every rank of ``mpiexec -n K solfec-py deck.py`` (or
    ``solfec-py -n K deck.py``); docs/parallel.md.

    Returns
    -------
    int

    Examples
    --------
    >>> if RANK() == 0:
    ...     print('results in', sol.outpath)
    """
    from solfec_py.parallel import comm

    return comm.rank()


@V.command
def BARRIER():
    """MPI barrier: every rank waits here for the others (returns at once in serial runs).

    ``BARRIER()``.

    Returns
    -------
    bool

    Examples
    --------
    >>> BARRIER()
    True
    """
    from solfec_py.parallel import comm

    comm.world().barrier()
    return True


@V.command
def NCPU(solfec=V.MISSING):
    """The number of MPI ranks of the run (1 in serial runs).

    ``NCPU(| solfec)``.

    Parameters
    ----------
    solfec : SOLFEC, optional

    Returns
    -------
    int

    Examples
    --------
    >>> NCPU(sol)
    1
    """
    from solfec_py.parallel import comm

    if V.given(solfec):
        require_solfec("solfec", solfec)
    return comm.size()


def HERE(*args, **kwargs):
    """Whether a body or constraint lives on this rank.

    ``HERE(solfec, object)``: always True in serial runs and, in parallel runs, before the
    first RUN (every rank builds the whole model); afterwards True on the rank that owns the
    body (a constraint: the owner of its row). The arguments are not checked (as in Solfec).

    Returns
    -------
    bool

    Examples
    --------
    >>> if HERE(sol, ball):
    ...     print(ball.velo)
    """
    if len(args) < 2:
        return True
    domain = getattr(args[0], "domain", None)
    par = getattr(domain, "parallel", None)
    if par is None:
        return True
    obj = args[1]
    if isinstance(obj, Body):
        return par.here(obj)
    row = getattr(obj, "row", None)
    return row is not None


@V.command
def SUBDIR():
    """The sub-directory given with ``solfec-py -s NAME``, or None.

    ``SUBDIR()``.

    Returns
    -------
    str or None

    Examples
    --------
    >>> case = SUBDIR() or 'default'
    """
    return session.current().subdir


@V.command
def NON_SOLFEC_ARGV():
    """The words after the deck on the command line, or None.

    ``NON_SOLFEC_ARGV()``: ``solfec-py deck.py ratio=0.11 fast`` gives ``['ratio=0.11', 'fast']``.
    ``solfec-py sweep`` passes its parameters this way.

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> words = NON_SOLFEC_ARGV() or []
    >>> fast = 'fast' in words
    """
    words = session.current().extra_argv
    return list(words) if words else None


@V.command
def IMBALANCE_TOLERANCE(solfec, tolerance, weightfactor=V.MISSING, updatefreq=V.MISSING):
    """Load balancing of a run on several MPI ranks (docs/parallel.md).

    ``IMBALANCE_TOLERANCE(solfec, tolerance | weightfactor, updatefreq)``: every
    `updatefreq` steps, when the heaviest rank carries more than `tolerance` times the
    mean load, the bodies are partitioned again; a body weighs its degrees of freedom over
    6 (at least 1) plus `weightfactor` times its constraints. A serial run keeps the
    values and does not use them.

    Parameters
    ----------
    solfec : SOLFEC
    tolerance : float
        > 0.
    weightfactor : float, optional
        In [0, 1].
    updatefreq : int, optional
        >= 1.

    Returns
    -------
    bool

    Raises
    ------
    InputTypeError, InputError
        Values out of their ranges.

    Examples
    --------
    >>> IMBALANCE_TOLERANCE(sol, 1.3, 0.5, 10)
    """
    require_solfec("solfec", solfec)
    tol = float(V.positive("tolerance", tolerance))
    w, freq = 1.0, 10
    if V.given(weightfactor):
        w = V.number("weightfactor", weightfactor)
        if not 0 <= w <= 1:
            raise InputTypeError(f"'weightfactor' must be a number >= 0 and <= 1, got {w!r}")
    if V.given(updatefreq):
        freq = V.integer("updatefreq", updatefreq)
        if freq < 1:
            raise InputTypeError(f"'updatefreq' must be >= 1, got {updatefreq!r}")
    solfec.domain.balance = (tol, float(w), int(freq))
    return True


def REGISTER_CALLBACK(*args, **kwargs):
    """Register a callback for the parallel viewer: does nothing (serial runs).

    ``REGISTER_CALLBACK(callback | data)``; the arguments are not checked (as in Solfec).

    Returns
    -------
    None

    Examples
    --------
    >>> REGISTER_CALLBACK(my_callback)
    """
    return None


@V.command
def DISPLAY_POINT(body, point, label=V.MISSING):
    """Attach a labelled point to a body.

    ``DISPLAY_POINT(body, point | label)``: the material point at referential ``point`` is
    listed, with its current position, in ``body.display_points``.

    Parameters
    ----------
    body : BODY
    point : tuple of 3 floats
        [length]. Inside the body.
    label : str, optional

    Raises
    ------
    InputTypeError, InputError
        A point outside the body.

    Examples
    --------
    >>> DISPLAY_POINT(box, (0.5, 0.5, 1.0), 'top')
    >>> box.display_points
    [('top', (0.5, 0.5, 1.0))]
    """
    body = require_body("body", body)
    X = V.point("point", point)
    lab = None if not V.given(label) else V.string("label", label)
    if not any(p.contains(X) for p in body.shape):
        raise InputError(f"Point outside of the body: 'point' {point!r} is not inside body {body.id}")
    body.display_points_list.append((lab, X))


@V.command
def DELETE(solfec, object):
    """Remove a body or a constraint from the model.

    ``DELETE(solfec, object)``: a BODY goes with its constraints and loads; a CONSTRAINT
    simply goes. The deleted objects refuse further use with a clear error.

    Parameters
    ----------
    solfec : SOLFEC
    object : BODY or CONSTRAINT

    Raises
    ------
    InputTypeError, InputError
        Another kind of object, a body deleted before, a body of another SOLFEC object.

    Examples
    --------
    >>> DELETE(sol, support)
    """
    domain = require_solfec("solfec", solfec)
    if isinstance(object, Body):
        if object.deleted:
            raise InputTypeError(f"'object' is a recently deleted BODY object (id {object.id})")
        if object.block.domain is not domain:
            raise InputError(f"'object' (body {object.id}) belongs to another SOLFEC object")
        domain.delete(object)
        return None
    if is_constraint(object):
        object.delete()
        return None
    raise InputTypeError(f"'object' must be a BODY or a CONSTRAINT object, got {V.describe(object)}")


@V.command
def BYLABEL(solfec, kind, label):
    """Find an object by its label.

    ``BYLABEL(solfec, kind, label)`` returns the SURFACE_MATERIAL, BULK_MATERIAL, FIELD or
    BODY with ``label``, or None.

    Parameters
    ----------
    solfec : SOLFEC
    kind : str
        ``'SURFACE_MATERIAL'``, ``'BULK_MATERIAL'``, ``'FIELD'`` or ``'BODY'``.
    label : str

    Returns
    -------
    the object or None

    Raises
    ------
    InputTypeError, InputError
        An unknown kind.

    Examples
    --------
    >>> box = BYLABEL(sol, 'BODY', 'box')
    """
    domain = require_solfec("solfec", solfec)
    kind = V.choice("kind", kind, ("SURFACE_MATERIAL", "BULK_MATERIAL", "FIELD", "BODY"), what="object kind")
    label = V.string("label", label)
    if kind == "BODY":
        return domain.labels.get(label)
    if kind == "SURFACE_MATERIAL":
        return surface_material_object(domain, label)
    if kind == "BULK_MATERIAL":
        return bulk_material_object(domain, label)
    return domain.fields.get(label)
