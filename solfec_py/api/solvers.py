"""Constraint solver objects of a deck (layer 7): GAUSS_SEIDEL_SOLVER, PENALTY_SOLVER and
NEWTON_SOLVER with their arguments, defaults and attributes (TEST_SOLVER runs as NEWTON_SOLVER); SICONOS_SOLVER and
HYBRID_SOLVER as not available. Reference: Solfec-1.0 user manual, constraint solvers; Solfec-1.0 lng.c (the defaults in effect), bgs.c, Gauss-Seidel; Solfec-1.0 nts.c, Newton solver
(Solfec lng.c solver types, bgs.c, psc.c, nts.c).

These objects hold parameters and the statistics of the last solve; the numerical solvers
(layer 5) read the parameters as plain attributes and report back through `record_solve`.

Base class contract (`ConstraintSolver`):
 1. `kind` is the deck name ('GAUSS_SEIDEL_SOLVER', ...); `SOLVERS[kind]` is the class.
 2. A solver implementation reads the parameters (e.g. `gs.epsilon`, `gs.maxiter`,
    `gs.diagsolver`, `gs.failure_action`, `gs.merit_threshold`,
    `gs.failure_data`, `gs.failure_callback`) and after every solve calls
    `record_solve(iters, rerhist=..., merhist=..., mvhist=..., error=...)`;
    `solve_record()` counts the solves (RUN's summary).
 3. Gauss-Seidel applies its failure action with `handle_failure()` after a solve whose
    error is not 'OK'.
 4. `solve(domain, h)` runs the numerical solver of its kind (solfec_py.solvers.solve).
"""
from __future__ import annotations

import sys
from typing import Any

from solfec_py import session, validate as V
from solfec_py.api.common import readonly
from solfec_py.errors import InputError, InputTypeError, NotAvailableError, SimulationError

__all__ = ["ConstraintSolver", "GAUSS_SEIDEL_SOLVER", "PENALTY_SOLVER", "NEWTON_SOLVER",
           "TEST_SOLVER", "SICONOS_SOLVER", "HYBRID_SOLVER", "SOLVERS", "is_solver"]

DBL_EPSILON = sys.float_info.epsilon
FAILURE_ACTIONS = ("CONTINUE", "EXIT", "CALLBACK")
DIAGONAL_SOLVERS = ("SEMISMOOTH_NEWTON", "PROJECTED_GRADIENT", "DE_SAXCE_FENG", "PROJECTED_NEWTON")
GS_VARIANTS = ("FULL", "MIDDLE_JACOBI", "BOUNDARY_JACOBI")
GS_ERRORS = ("OK", "DIVERGED", "DIAGONAL_DIVERGED", "DIAGONAL_FAILED")
PENALTY_VARIANTS = ("IMPLICIT", "EXPLICIT")
RELDELTA = ("OFF", "avgWii", "minWii", "maxWii")


def _keyword(name: str, value: Any, options, message: str) -> str:
    """A string from `options`: TypeError for a non-string, ValueError `message` otherwise."""
    text = V.string(name, value)
    if text not in options:
        raise InputError(f"{message}: got {text!r} for '{name}'; expected one of {list(options)}")
    return text


def _rw_number(name: str, integral: bool = False, **bounds) -> property:
    """A read-write numeric parameter; bad values raise TypeError (Solfec's setters).
    Integral ones are iteration counts, at most `LIMITS.iterations`."""
    slot = "_" + name

    def getter(self):
        return getattr(self, slot)

    def setter(self, value):
        checked = V.setter_number(name, value, integral=integral, **bounds)
        setattr(self, slot, V.iteration_limit(name, checked, InputTypeError) if integral else checked)

    return property(getter, setter, doc=f"{name} (read-write)")


def _rw_keyword(name: str, options, message: str) -> property:
    slot = "_" + name

    def getter(self):
        return getattr(self, slot)

    def setter(self, value):
        setattr(self, slot, _keyword(name, value, options, message))

    return property(getter, setter, doc=f"{name}: one of {list(options)} (read-write)")


def _count(name: str, value: Any) -> int:
    """Constructor check of an iteration count: int (a float is a TypeError), > 0, at
    most `LIMITS.iterations`."""
    return V.count(name, value)


class ConstraintSolver:
    """Base of the solver objects RUN accepts; keeps the statistics of the last solve."""

    kind = "CONSTRAINT_SOLVER"
    __slots__ = ("_iters", "_rerhist", "_merhist", "_mvhist", "_error", "_itershist", "_solves")

    def __init__(self):
        self._solves = 0               # solves so far (RUN's summary, output/run_summary.py)
        self._iters = 0
        self._rerhist: list = []
        self._merhist: list = []
        self._mvhist: list = []
        self._error = "OK"
        self._itershist: list | None = None   # None until `itershist = 'ON'`

    def record_solve(self, iters: int, rerhist=(), merhist=(), mvhist=(), error: str = "OK") -> None:
        """Store the statistics of one solve (called by the numerical solver)."""
        if error not in GS_ERRORS:
            raise ValueError(f"unknown solver error code {error!r}; expected one of {list(GS_ERRORS)}")
        self._iters = int(iters)
        self._rerhist = [float(x) for x in rerhist]
        self._merhist = [float(x) for x in merhist]
        self._mvhist = [int(x) for x in mvhist]
        self._error = error
        self._solves += 1
        if self._itershist is not None:
            self._itershist.append(self._iters)

    def solve_record(self) -> tuple[int, str]:
        """(number of solves so far, error code of the last one)."""
        return self._solves, self._error

    def solve(self, domain, h: float) -> None:
        """Solve the domain's constraints for step h (numerical solvers: solfec_py.solvers)."""
        from solfec_py.solvers import solve

        solve(self, domain, h)

    # itershist is read-write on both Gauss-Seidel and Newton solvers
    def _get_itershist(self):
        return None if self._itershist is None else list(self._itershist)

    def _set_itershist(self, value):
        if isinstance(value, str) and value == "ON":
            self._itershist = []
        else:
            session.runtime_warning(
                f"{self.kind}.itershist: only 'ON' enables the history; assignment of {value!r} ignored")


def is_solver(value: Any) -> bool:
    """True for the solver objects RUN accepts."""
    return isinstance(value, ConstraintSolver)


# --------------------------------------------------------------------------- Gauss-Seidel

class GAUSS_SEIDEL_SOLVER(ConstraintSolver):
    """Nonlinear block Gauss-Seidel constraint solver (Solfec's default choice).

    ``GAUSS_SEIDEL_SOLVER(epsilon, maxiter | meritval, failure, diagepsilon, diagmaxiter,
    diagsolver, data, callback)``. Each iteration solves every constraint in turn with the
    reactions of its neighbours fixed, until the relative change of the reactions is below
    ``epsilon`` (and the merit function below ``meritval``) or ``maxiter`` is reached.

    Parameters
    ----------
    epsilon : float
        Relative accuracy of the reactions, > 0.
    maxiter : int
        Iteration limit, > 0 (at most 10**6).
    meritval : float, optional
        Merit-function threshold, > 0 (default 1: not checked).
    failure : str, optional
        What to do when the solver does not converge: ``'CONTINUE'`` (default), ``'EXIT'``
        (stop the run with an error) or ``'CALLBACK'`` (call ``callback``).
    diagepsilon : float, optional
        Accuracy of the single-constraint solves (default
        ``max(machine epsilon, 0.01 min(epsilon, meritval, 1e-4))``).
    diagmaxiter : int, optional
        Iteration limit of the single-constraint solves (default ``max(100, maxiter // 100)``).
    diagsolver : str, optional
        ``'SEMISMOOTH_NEWTON'`` (default), ``'PROJECTED_GRADIENT'``, ``'DE_SAXCE_FENG'`` or
        ``'PROJECTED_NEWTON'``.
    data : object, optional
        Passed to ``callback`` after the solver (a tuple is unpacked).
    callback : callable, optional
        Called as ``callback(gs[, data])`` on failure; returning 0 stops the run.

    Attributes
    ----------
    failure, error, iters, rerhist, merhist : read-only
        The failure action, the last solve's error code (``'OK'``, ``'DIVERGED'``, ...), its
        iteration count and its relative-error and merit histories.
    epsilon, maxiter, diagepsilon, diagmaxiter, diagsolver
        Writable, with the constructor's checks.
    reverse : str
        ``'ON'`` alternates the sweep direction.
    variant : str
        ``'FULL'``, ``'MIDDLE_JACOBI'`` or ``'BOUNDARY_JACOBI'``.
    innerloops : int
    itershist : list or None
        Set to ``'ON'`` to record the iteration count of every solve.

    Raises
    ------
    InputTypeError, InputError
        Non-positive epsilon, a maxiter that is not a positive integer, an unknown failure
        action or diagonal solver, ``failure='CALLBACK'`` without a callback.

    Examples
    --------
    >>> gs = GAUSS_SEIDEL_SOLVER(1E-4, 1000, failure='EXIT')
    >>> RUN(sol, gs, 1.0)
    >>> gs.iters
    """

    kind = "GAUSS_SEIDEL_SOLVER"
    __slots__ = ("_epsilon", "_maxiter", "merit_threshold", "failure_action", "failure_data",
                 "failure_callback", "_diagepsilon", "_diagmaxiter", "_diagsolver", "_reverse", "_variant", "_innerloops",
                 "_relaxation")

    @V.command
    def __init__(self, epsilon, maxiter, meritval=V.MISSING, failure=V.MISSING, diagepsilon=V.MISSING,
                 diagmaxiter=V.MISSING, diagsolver=V.MISSING, data=V.MISSING, callback=V.MISSING):
        super().__init__()
        self._epsilon = V.positive("epsilon", epsilon)
        self._maxiter = _count("maxiter", maxiter)
        self.merit_threshold = 1.0 if meritval is V.MISSING else V.positive("meritval", meritval)
        self.failure_action = ("CONTINUE" if failure is V.MISSING
                               else _keyword("failure", failure, FAILURE_ACTIONS, "Invalid failure action"))
        self.failure_callback = None if callback is V.MISSING else V.is_callable("callback", callback)
        if self.failure_action == "CALLBACK" and self.failure_callback is None:
            raise InputError("A callback routine must be given with CALLBACK failure action"
                             " ('failure' is 'CALLBACK' but 'callback' is missing)")
        self.failure_data = None if data is V.MISSING else data
        self._diagepsilon = (max(DBL_EPSILON, 0.01 * min(self._epsilon, self.merit_threshold, 1e-4))
                             if diagepsilon is V.MISSING else V.positive("diagepsilon", diagepsilon))
        self._diagmaxiter = (max(100, self._maxiter // 100) if diagmaxiter is V.MISSING
                             else _count("diagmaxiter", diagmaxiter))
        self._diagsolver = ("SEMISMOOTH_NEWTON" if diagsolver is V.MISSING
                            else _keyword("diagsolver", diagsolver, DIAGONAL_SOLVERS, "Invalid diagonal solver"))
        self._reverse, self._variant, self._innerloops = "OFF", "FULL", 1
        self._relaxation = 1.0

    # read-only
    @readonly
    def failure(self):
        return "FAILURE_" + self.failure_action

    @readonly
    def error(self):
        return self._error

    @readonly
    def iters(self):
        """Iterations of the last solve (0 before the first; undefined in Solfec)."""
        return self._iters

    @readonly
    def rerhist(self):
        return list(self._rerhist)

    @readonly
    def merhist(self):
        return list(self._merhist)

    itershist = property(ConstraintSolver._get_itershist, ConstraintSolver._set_itershist,
                         doc="None until set to 'ON'; then the iteration counts of all solves")

    # read-write
    epsilon = _rw_number("epsilon", gt=0.0)
    maxiter = _rw_number("maxiter", integral=True, gt=0.0)
    diagepsilon = _rw_number("diagepsilon", gt=0.0)
    diagmaxiter = _rw_number("diagmaxiter", integral=True, gt=0.0)
    diagsolver = _rw_keyword("diagsolver", DIAGONAL_SOLVERS, "Invalid diagonal solver")
    reverse = _rw_keyword("reverse", V.ON_OFF, "Invalid reverse switch (ON/OFF accepted)")
    variant = _rw_keyword("variant", GS_VARIANTS, "Invalid variant")
    innerloops = _rw_number("innerloops", integral=True, ge=1.0)
    relaxation = _rw_number("relaxation", gt=0.0, le=1.9)
    relaxation.__doc__ = ("solfec-py addition: over-relaxation factor of the Signorini-Coulomb contact rows"
                          " (default 1, plain Gauss-Seidel as Solfec; docs/contact.md)")

    def handle_failure(self) -> None:
        """Apply the failure action after a solve that ended with `error != 'OK'`.

        CONTINUE: nothing. EXIT: SimulationError (a RuntimeError). CALLBACK: call
        `callback(gs)`, `callback(gs, data)` or `callback(gs, *data)` (tuple data); a
        return value of 0 stops the run with SimulationError (Solfec exits the process).
        """
        if self._error == "OK" or self.failure_action == "CONTINUE":
            return
        message = f"GAUSS_SEIDEL_SOLVER failed with error code {self._error}"
        if self.failure_action == "EXIT":
            raise SimulationError(message)
        data, callback = self.failure_data, self.failure_callback
        if data is None:
            result = callback(self)
        elif isinstance(data, tuple):
            result = callback(self, *data)
        else:
            result = callback(self, data)
        try:
            proceed = int(result) != 0
        except (TypeError, ValueError):
            raise InputTypeError(f"the GAUSS_SEIDEL_SOLVER failure 'callback' must return an int"
                                 f" (0 stops the run), got {V.describe(result)}") from None
        if not proceed:
            raise SimulationError(message + " (the failure callback returned 0)")

    def __repr__(self) -> str:
        return (f"GAUSS_SEIDEL_SOLVER(epsilon={self._epsilon!r}, maxiter={self._maxiter!r},"
                f" failure={self.failure_action!r}, diagsolver={self._diagsolver!r})")


# --------------------------------------------------------------------------- penalty

class PENALTY_SOLVER(ConstraintSolver):
    """Penalty constraint solver: contacts become stiff springs.

    ``PENALTY_SOLVER(| variant)``: each contact is a spring-dashpot whose stiffness and damping
    come from the SURFACE_MATERIAL (``spring``, ``dashpot``); joints are solved as in the
    other solvers. Cheap per step, but the step must resolve the contact stiffness.

    Parameters
    ----------
    variant : str, optional
        ``'IMPLICIT'`` (default) or ``'EXPLICIT'`` treatment of the normal force.

    Attributes
    ----------
    variant : str, read-only

    Raises
    ------
    InputTypeError, InputError
        An unknown variant.

    Examples
    --------
    >>> SURFACE_MATERIAL(sol, model='SPRING_DASHPOT', spring=1E6, dashpot=-1, friction=0.3)
    >>> RUN(sol, PENALTY_SOLVER(), 1.0)
    """

    kind = "PENALTY_SOLVER"
    __slots__ = ("_variant",)

    @V.command
    def __init__(self, variant=V.MISSING):
        super().__init__()
        self._variant = "IMPLICIT" if variant is V.MISSING else _keyword(
            "variant", variant, PENALTY_VARIANTS, "Invalid variant")

    @readonly
    def variant(self):
        return self._variant

    def __repr__(self) -> str:
        return f"PENALTY_SOLVER(variant={self._variant!r})"


# --------------------------------------------------------------------------- Newton

class NEWTON_SOLVER(ConstraintSolver):
    """Projected quasi-Newton constraint solver.

    ``NEWTON_SOLVER(| meritval, maxiter, locdyn, linver, linmaxiter, maxmatvec, epsilon, delta,
    theta, omega, gsflag, reldelta)``: solves all constraints together with a Newton method
    on the nonsmooth equations (GMRES inner solves), iterating until the merit function is
    below ``meritval``. Often fewer iterations than Gauss-Seidel on stiff assemblies. Unlike
    Solfec-1.0, contacts enter the Newton equations scaled by ``1 / W_NN`` (their Delassus
    normal entry), which keeps stiff, strongly coupled contacts (elastic bodies pressed
    together quasi-statically) from cycling; the merit function is Solfec's.

    Parameters
    ----------
    meritval : float, optional
        Merit threshold, > 0 (default 1e-8).
    maxiter : int, optional
        > 0 (default 1000).
    locdyn : str, optional
        ``'ON'`` (default) or ``'OFF'``: assemble the local dynamics.
    linver : str, optional
        ``'GMRES'`` (default) or ``'DIAG'``.
    linmaxiter : int, optional
        Linear-solver iterations per Newton step (default 10).
    maxmatvec : int, optional
        Matrix-vector product limit (default 10000).
    epsilon : float, optional
        > 0 (default 0.25).
    delta : float, optional
        Regularisation, >= 0 (default 0).
    theta : float, optional
        Relaxation, in (0, 1] (default 0.25; the attribute accepts (0, 0.5]).
    omega : float, optional
        Smoothing, > 0 (default 1e-10).
    gsflag : str, optional
        ``'ON'`` (default) or ``'OFF'``.
    reldelta : str, optional
        ``'OFF'`` (default), ``'avgWii'``, ``'minWii'`` or ``'maxWii'``.

    Attributes
    ----------
    iters, merhist, mvhist : read-only
        Iterations, merit history and matrix-vector products of the last solve.
    meritval, maxiter, locdyn, linver, linmaxiter, maxmatvec, epsilon, delta, theta, omega, gsflag
        Writable, with the constructor's checks.
    itershist : list or None
        Set to ``'ON'`` to record the iteration count of every solve.

    Raises
    ------
    InputTypeError, InputError
        A parameter of the wrong type or out of its range, an unknown keyword value.

    Examples
    --------
    >>> ns = NEWTON_SOLVER(meritval=1E-6, maxiter=200)
    >>> RUN(sol, ns, 0.5)
    """

    kind = "NEWTON_SOLVER"
    __slots__ = ("_meritval", "_maxiter", "_locdyn", "_linver", "_linmaxiter", "_maxmatvec",
                 "_epsilon", "_delta", "_theta", "_omega", "_gsflag", "reldelta_mode")

    @V.command
    def __init__(self, meritval=V.MISSING, maxiter=V.MISSING, locdyn=V.MISSING, linver=V.MISSING,
                 linmaxiter=V.MISSING, maxmatvec=V.MISSING, epsilon=V.MISSING, delta=V.MISSING,
                 theta=V.MISSING, omega=V.MISSING, gsflag=V.MISSING, reldelta=V.MISSING):
        super().__init__()

        def opt(value, default, check):
            return default if value is V.MISSING else check(value)

        self._meritval = opt(meritval, 1e-8, lambda v: V.positive("meritval", v))
        self._maxiter = opt(maxiter, 1000, lambda v: _count("maxiter", v))
        self._locdyn = opt(locdyn, "ON", lambda v: _keyword(
            "locdyn", v, V.ON_OFF, "Invalid locdyn value: neither ON nor OFF"))
        self._linver = opt(linver, "GMRES", lambda v: _keyword(
            "linver", v, ("GMRES", "DIAG"), "Invalid linver value: neither GMRES nor DIAG"))
        self._linmaxiter = opt(linmaxiter, 10, lambda v: _count("linmaxiter", v))
        self._maxmatvec = opt(maxmatvec, 10000, lambda v: _count("maxmatvec", v))
        self._epsilon = opt(epsilon, 0.25, lambda v: V.positive("epsilon", v))
        self._delta = opt(delta, 0.0, lambda v: V.nonnegative("delta", v))
        self._theta = opt(theta, 0.25, lambda v: V.setter_number("theta", v, gt=0.0, le=1.0))
        self._omega = opt(omega, 1e-10, lambda v: V.positive("omega", v))
        self._gsflag = opt(gsflag, "ON", lambda v: _keyword(
            "gsflag", v, V.ON_OFF, "Invalid gsflag value: neither ON nor OFF"))
        self.reldelta_mode = opt(reldelta, "OFF", lambda v: _keyword(
            "reldelta", v, RELDELTA, "Invalid reldelta value: neither of {OFF, avgWii, minWii, maxWii}"))

    meritval = _rw_number("meritval", gt=0.0)
    maxiter = _rw_number("maxiter", integral=True, gt=0.0)
    locdyn = _rw_keyword("locdyn", V.ON_OFF, "Invalid locdyn value: neither ON nor OFF")
    linver = _rw_keyword("linver", ("GMRES", "DIAG"), "Invalid linver value: neither GMRES nor DIAG")
    linmaxiter = _rw_number("linmaxiter", integral=True, gt=0.0)
    maxmatvec = _rw_number("maxmatvec", integral=True, gt=0.0)
    epsilon = _rw_number("epsilon", gt=0.0)
    delta = _rw_number("delta", ge=0.0)
    theta = _rw_number("theta", gt=0.0, le=0.5)
    omega = _rw_number("omega", gt=0.0)
    gsflag = _rw_keyword("gsflag", V.ON_OFF, "Invalid gsflag value: neither ON nor OFF")

    @readonly
    def iters(self):
        return self._iters

    @readonly
    def merhist(self):
        return list(self._merhist)

    @readonly
    def mvhist(self):
        return list(self._mvhist)

    itershist = property(ConstraintSolver._get_itershist, ConstraintSolver._set_itershist,
                         doc="None until set to 'ON'; then the iteration counts of all solves")

    def __repr__(self) -> str:
        return (f"NEWTON_SOLVER(meritval={self._meritval!r}, maxiter={self._maxiter!r},"
                f" linver={self._linver!r}, locdyn={self._locdyn!r})")


SOLVERS = {cls.kind: cls for cls in (GAUSS_SEIDEL_SOLVER, PENALTY_SOLVER, NEWTON_SOLVER)}


# --------------------------------------------------------------------------- not available

def _unavailable(name: str, reason: str):
    def command(*args, **kwargs):
        raise NotAvailableError(f"{name} is not available in solfec-py ({reason}); available"
                                f" constraint solvers: {sorted(SOLVERS)}")

    command.__name__ = command.__qualname__ = name
    command.__doc__ = (f"Not available: {reason}.\n\nCalling it raises NotAvailableError, which lists the available"
                       f" solvers.\n\nExamples\n--------\n>>> {name}()\nTraceback (most recent call last):\n"
                       f"NotAvailableError: {name} is not available in solfec-py ({reason}); ...\n")
    return command


class TEST_SOLVER(NEWTON_SOLVER):
    """Solfec-1.0's test solver, run as NEWTON_SOLVER.

    ``TEST_SOLVER(| meritval, maxiter, maxmatvec, linmaxiter, epsilon, delta, omega)``:
    Solfec-1.0's TEST_SOLVER (tts.c) is the experimental predecessor of its NEWTON_SOLVER
    (nts.c): the same semismooth Newton iteration on the constraint equations with GMRES
    inner solves (at most ``linmaxiter`` iterations, relative tolerance ``epsilon``), the
    regularisation ``delta`` added to the diagonal blocks and the smoothing ``omega``,
    stopping when the merit function is below ``meritval``, after ``maxiter`` iterations or
    ``maxmatvec`` matrix-vector products. solfec-py runs it as its NEWTON_SOLVER with these
    parameters; the defaults are Solfec-1.0's for TEST_SOLVER (lng.c): meritval 1e-8,
    maxiter 1000, maxmatvec 1000, linmaxiter 10, epsilon 0.25, delta 0.51e-7, omega 1e-9.

    Parameters
    ----------
    meritval, maxiter, maxmatvec, linmaxiter, epsilon, delta, omega
        As NEWTON_SOLVER's of the same names, positive.

    Attributes
    ----------
    iters, merhist, mvhist : read-only
        As NEWTON_SOLVER's.

    Raises
    ------
    InputTypeError, InputError
        A parameter of the wrong type or not positive.

    Examples
    --------
    >>> sv = TEST_SOLVER(1E-6, 250)
    >>> RUN(sol, sv, 0.5)
    """

    __slots__ = ()

    @V.command
    def __init__(self, meritval=V.MISSING, maxiter=V.MISSING, maxmatvec=V.MISSING, linmaxiter=V.MISSING,
                 epsilon=V.MISSING, delta=V.MISSING, omega=V.MISSING):
        def given(value, default):
            return default if value is V.MISSING else value

        if delta is not V.MISSING:
            V.positive("delta", delta)
        super().__init__(meritval=given(meritval, 1e-8), maxiter=given(maxiter, 1000),
                         maxmatvec=given(maxmatvec, 1000), linmaxiter=given(linmaxiter, 10),
                         epsilon=given(epsilon, 0.25), delta=given(delta, 0.51e-7), omega=given(omega, 1e-9))

    def __repr__(self) -> str:
        return (f"TEST_SOLVER(meritval={self._meritval!r}, maxiter={self._maxiter!r}, maxmatvec={self._maxmatvec!r},"
                f" linmaxiter={self._linmaxiter!r}, epsilon={self._epsilon!r}, delta={self._delta!r},"
                f" omega={self._omega!r})")


SICONOS_SOLVER = _unavailable("SICONOS_SOLVER", "it needs a Siconos build")
HYBRID_SOLVER = _unavailable("HYBRID_SOLVER", "it needs a PARMEC build")
