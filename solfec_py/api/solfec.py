"""SOLFEC: one analysis = one domain + its output directory (layer 7).
Reference: Solfec-1.0 user manual, READ and WRITE modes, time stepping, SOLFEC (Solfec lng.c SOLFEC type, sol.c).
"""
from __future__ import annotations

import os
import shutil

from typing import Any

from solfec_py import session, validate as V
from solfec_py.api.common import readonly
from solfec_py.api.stored import frame_constraints
from solfec_py.contact import tunnel
from solfec_py.contact.sparsify import Settings as SparsifySettings
from solfec_py.domain import Domain
from solfec_py.errors import InputError, InputTypeError, ResultsMismatchError
from solfec_py.output import provenance
from solfec_py.output.store import ResultsStore, exists, release_writer, remove, results_path, written_this_run
from solfec_py.output.xdmf import remove_live_files
from solfec_py.parallel.comm import world

ANALYSES = ("DYNAMIC", "QUASI_STATIC")
VERBOSE = ("ON", "OFF", "%", "%\n")


def output_path(output: str) -> str:
    """The effective output directory: a deck opened as a directory overrides `output`;
    `-s NAME` appends a sub-directory (Solfec-1.0 user manual, command line)."""
    s = session.current()
    path = s.output_override or output
    if s.subdir:
        path = path if path.endswith("/") else path + "/"
        path += s.subdir
    return path


class SOLFEC:
    """An analysis: a model (bodies, constraints, loads) with its time step and output directory.

    ``SOLFEC(analysis, step, output)``. Every other command takes the SOLFEC object it adds to
    or acts on. When ``output`` already holds results of a previous run the analysis opens in
    READ mode: nothing is computed again and RUN, HISTORY, SEEK, ... read the stored frames
    (``solfec-py -w`` overwrites them instead). Results computed with other words
    (NON_SOLFEC_ARGV), another deck text before its RUN or other input files are neither
    read nor overwritten: the run stops saying what differs (docs/results.md).

    Parameters
    ----------
    analysis : str
        ``'DYNAMIC'`` or ``'QUASI_STATIC'`` (no inertia carried from step to step:
        velocities follow from the current loads and constraints).
    step : float
        [time]. Time step, > 0; settable later as ``sol.step``.
    output : str
        Output directory (created; a copy of the deck goes in it). ``solfec-py -s NAME``
        appends a sub-directory.

    Attributes
    ----------
    analysis, time, mode, outpath : read-only
        The analysis kind, the current time, ``'READ'`` or ``'WRITE'`` and the output directory.
    bodies, nbod, constraints, ncon : read-only
        Bodies and constraints, most recent first, and their counts.
    step : float
        The time step (> 0).
    verbose : str
        ``'ON'``, ``'OFF'`` or ``'%'``: progress and statistics lines during RUN.
    blowup : float or 'OFF'
        solfec-py's blow-up detector: RUN stops naming the body and the time when the
        kinetic energy grows by more than this factor (> 1, default 1e6) in one step
        (docs/limits.md); ``'OFF'`` keeps only the infinity and NaN checks.
    tunnelling : str
        solfec-py's tunnelling check: a body that passes through another within one step
        (a contact gap deeper than the thinner object is thick, or a jump through another
        body's box without a contact) is reported naming both bodies and the time:
        ``'WARN'`` (default) warns once per pair of bodies, ``'STOP'`` stops the RUN with
        an error, ``'OFF'`` skips the check (docs/limits.md).
    cleanup : str
        ``'ON'`` or ``'OFF'`` (default); accepted for compatibility.

    Raises
    ------
    InputTypeError
        A missing argument or one of the wrong type.
    InputError
        An unknown analysis kind, a step that is not positive and finite, an output
        directory that cannot be created.
    ResultsMismatchError
        ``output`` holds results computed from other words, deck text or input files.

    Examples
    --------
    >>> sol = SOLFEC('DYNAMIC', 1E-3, 'out/ball')
    >>> sol.mode
    'WRITE'
    >>> sol.blowup = 1E3        # stop earlier on a growing kinetic energy
    >>> sol.tunnelling = 'STOP' # stop when a body passes through another in one step
    """

    @V.command
    def __init__(self, analysis, step, output):
        analysis = V.choice("analysis", analysis, ANALYSES, what="analysis kind")
        step = V.positive("step", step)
        output = V.string("output", output)
        self.domain = Domain(analysis=analysis, step=step)
        # contact sparsification with Solfec's defaults; mindist = GEOMETRIC_EPSILON now
        self.domain.sparsify = SparsifySettings(mindist=session.geometric_epsilon())
        self.domain.owner = self
        self._output = output
        self._outpath = output_path(output)
        self._verbose = "ON"
        self.verbose_set = False     # the deck set `verbose` (statistics lines off a terminal)
        self._cleanup = False
        self._mode = "WRITE"
        self.output_interval = 0.0
        self.output_time = 0.0
        self.output_compression = False
        self.store = None            # results store (HDF5, output.store.ResultsStore)
        self.continued = False       # -c: RUN continues from the last stored frame
        self.xdmf_live = None        # live ParaView series (output.xdmf), False when off
        self._run_solver = None      # solver of the last RUN (statistics for the frames)
        self._stored_constraints = {}  # READ mode: STORED_CONSTRAINT objects (api.stored)
        self.provenance = None       # what the results were computed from (output/provenance.py)
        self._computed_by = None     # READ by another deck: its name, until the models are compared
        self.runs = 0
        self._open_results()
        # every rank of a parallel run decides READ / WRITE (and removes old results) before
        # rank 0 starts writing: a rank still looking would take the new store for old results
        world().barrier()
        if self._mode == "WRITE":
            self._prepare_output()

    def _open_results(self) -> None:
        """Decide READ / WRITE mode (Solfec-1.0 user manual, READ and WRITE modes): READ when results with at least one
        frame exist at `<outpath>/<basename>.results` (or `.h5`) and neither -w nor -c was given; -c opens
        them for appending (continued WRITE); -w overwrites them (a warning, no prompt).
        -w and -c apply to results that existed when the program started: results to which
        this same program run wrote frames (an earlier SOLFEC object with the same output
        path) are always opened READ, as Solfec does (its tests re-create the model after
        RUN to read the histories back)."""
        path = results_path(self._outpath)
        if written_this_run(path):
            release_writer(path)                       # the writer's frames, committed
            if exists(path):
                store = ResultsStore.open_existing(path)
                if store.nframes:
                    self.store, self._mode = store, "READ"
                    return
        if not exists(path):
            if session.current().continue_run:
                session.warn(f"-c: no results to continue at {path!r}; starting a new run")
            self.store = ResultsStore(path)
            return
        if self._use_existing_results(path):
            return
        try:
            remove(path)
        except OSError:
            pass
        remove_live_files(self._outpath)
        provenance.remove(self._outpath)
        self.store = ResultsStore(path)

    def _use_existing_results(self, path: str) -> bool:
        """Results that existed when the program started are at `path`: open them READ, or
        for appending with -c, when they hold frames (True); otherwise say that they are
        overwritten (False)."""
        s = session.current()
        if s.continue_run:
            store = ResultsStore.open_existing(path)
            if store.nframes:
                record = provenance.read(self._outpath)
                found = provenance.differences(record, s, self._outpath) if record else []
                if found:
                    session.warn(f"-c: continuing the results in {self._outpath}, computed from other inputs: "
                                 + "; ".join(found))
                self.store, self.continued = store, True
                return True
            session.warn(f"-c: results at {path!r} hold no frames; starting a new run")
        elif not s.overwrite:
            store = ResultsStore.open_existing(path)   # ResultsError naming the file if unreadable
            if store.nframes:
                self._check_inputs(s)
                self.store, self._mode = store, "READ"
                session.note(f"results exist in {self._outpath}: opened in READ mode (-w overwrites)")
                return True
            session.warn(f"results at {path!r} hold no frames; they are overwritten")
        else:
            session.warn(f"-w: overwriting the existing results at {path!r}")
        return False

    def _check_inputs(self, s) -> None:
        """READ mode over results that existed: they must have been computed from this run's
        words, deck text (up to its RUN) and input files (output/provenance.py); those read
        later are compared as they are read. A deck other than the one that computed them
        reads them when its model is the same (compared at the first data command,
        output/replay.ensure_loaded). Results of an older solfec-py have no record: read with
        a note."""
        record = provenance.read(self._outpath)
        if record is None:
            session.note(f"the results in {self._outpath} hold no record of the words and input files they were"
                         " computed from (an older solfec-py wrote them): they are read unchecked")
            return
        other = provenance.other_deck(record, s)
        found = provenance.differences(record, s, self._outpath, deck_and_words=other is None)
        if found:
            raise ResultsMismatchError(provenance.mismatch_message(self._outpath, found, s, self._output))
        # another deck (a view deck): read when it builds the same model (replay.ensure_loaded)
        self._computed_by = other

        def watch(path: str, digest: str) -> None:
            later = provenance.input_differences(record, path, digest)
            if later:
                raise ResultsMismatchError(provenance.mismatch_message(self._outpath, later, s, self._output))

        s.input_watchers.append(watch)

    def _prepare_output(self) -> None:
        """WRITE mode: create the directory and keep a copy of the deck (Solfec-1.0 user manual, output directory)."""
        try:
            os.makedirs(self._outpath, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create output directory {self._outpath!r} for 'output': {exc.strerror}") from None
        deck = session.current().deck_path
        if deck and os.path.isfile(deck):
            base = os.path.basename(os.path.normpath(self._outpath))
            target = os.path.join(self._outpath, base + ".py")
            if os.path.abspath(deck) != os.path.abspath(target):
                shutil.copyfile(deck, target)

    # ---------------------------------------------------------------- attributes
    @readonly
    def analysis(self):
        return self.domain.analysis

    @readonly
    def time(self):
        return self.domain.time

    @readonly
    def mode(self):
        return self._mode

    @readonly
    def bodies(self):
        """All bodies, most recently inserted first (as Solfec's prepended lists)."""
        return list(reversed(self.domain.bodies))

    @readonly
    def nbod(self):
        return len(self.domain.bodies)

    def _showing_frame(self) -> bool:
        return self._mode == "READ" and self.store is not None and self.store.current is not None

    @readonly
    def constraints(self):
        """All constraints, most recently created first; in READ mode, once a frame is
        shown, the constraints stored in that frame (contacts included)."""
        if self._showing_frame():
            return frame_constraints(self)
        return list(reversed(self.domain.constraints))

    @readonly
    def ncon(self):
        if self._showing_frame():
            return int(self.store.frame_constraints(self.store.current).shape[0])
        return len(self.domain.constraints)

    @readonly
    def outpath(self):
        return self._outpath

    @property
    def step(self):
        return self.domain.step

    @step.setter
    def step(self, value):
        self.domain.step = V.setter_number("step", value, gt=0.0)

    @property
    def verbose(self):
        return "%" if self._verbose.startswith("%") else self._verbose

    @verbose.setter
    def verbose(self, value):
        self._verbose = V.choice("verbose", value, VERBOSE, what="verbose value (ON/OFF/% accepted)")
        self.verbose_set = True

    @property
    def blowup(self):
        """Blow-up factor of the kinetic energy in one step (> 1, default 1e6), or 'OFF'."""
        return "OFF" if self.domain.blowup == float("inf") else self.domain.blowup

    @blowup.setter
    def blowup(self, value):
        if isinstance(value, str):
            V.choice("blowup", value, ("OFF",), what="blowup value (a number > 1 or 'OFF')")
            self.domain.blowup = float("inf")
        else:
            self.domain.blowup = V.setter_number("blowup", value, gt=1.0)

    @property
    def tunnelling(self):
        """What a body passing through another within one step does: 'WARN', 'STOP' or 'OFF'."""
        return self.domain.tunnelling

    @tunnelling.setter
    def tunnelling(self, value):
        self.domain.tunnelling = V.choice("tunnelling", value, tunnel.MODES, what="tunnelling mode")

    @property
    def cleanup(self):
        return "ON" if self._cleanup else "OFF"

    @cleanup.setter
    def cleanup(self, value):
        self._cleanup = V.on_off("cleanup", value, what="cleanup value (ON/OFF accepted)")

    def __repr__(self) -> str:
        return (f"SOLFEC({self.domain.analysis!r}, {self.domain.step!r}, {self._outpath!r})"
                f" [{self._mode}, t={self.domain.time:g}, {len(self.domain.bodies)} bodies]")


def require_solfec(name: str, value: Any):
    """`value` must be a SOLFEC object; returns its Domain."""
    if not isinstance(value, SOLFEC):
        raise InputTypeError(f"'{name}' must be a SOLFEC object, got {V.describe(value)}")
    return value.domain
