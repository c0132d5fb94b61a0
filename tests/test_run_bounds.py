"""Every RUN is bounded: a step cut by the critical step of a body (a stiff or light
material, a sliver element) to more steps than one RUN may take stops before the first step
with the body, the element and the material; a step that shrinks during the run (a stiff
body created by a CALLBACK, the deck's step changed) stops there. References: the steps
limit of docs/limits.md (validate.LIMITS.steps) and the critical step 2 / sqrt(lambda_max)
of an element (fem.kernels.critical_steps, itself tested against a dense eigenproblem)."""
from __future__ import annotations

import contextlib
import signal

import numpy as np
import pytest

from solfec_py.cli import main

from conftest import write_deck

SECONDS = 30            # far above what these runs take (< 1 s each); a hang fails the test


class Hang(BaseException):          # (not an Exception: nothing on the way may swallow it)
    pass


@contextlib.contextmanager
def bounded(seconds=SECONDS):
    """Fail (instead of hanging the suite) when the block runs longer than `seconds`."""
    def alarm(signum, frame):
        raise Hang(f"the run did not end within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


DECK = """\
args = NON_SOLFEC_ARGV()
kind, name, value = args[0], args[1], float(args[2])
after = len(args) > 3 and args[3] == 'after'
sol = SOLFEC('DYNAMIC', 1E-3, 'out/bound')
kw = dict(young=1E6, poisson=0.25, density=1E3)
if kind != 'SLIVER' and not after:
    kw[name] = value
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', **kw)
CUBE = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
if kind == 'SLIVER':     # a tetrahedron of height `value` over a unit right triangle
    msh = MESH([0,0,0, 1,0,0, 0,1,0, 0.3,0.3,value], [4, 0, 1, 2, 3, 1], 1)
    b = BODY(sol, 'FINITE_ELEMENT', msh, mat)
else:
    b = BODY(sol, kind, HEX(CUBE, 1, 1, 1, 1, [1]*6), mat)
if after:
    setattr(mat, name, value)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.01)
"""


@pytest.mark.parametrize("args, words", [
    (["FINITE_ELEMENT", "young", "1e300"], "finite-element body 1, element 0 (its smallest: volume 1; young 1e+300"),
    (["FINITE_ELEMENT", "density", "1e-300"], "finite-element body 1, element 0 (its smallest: volume 1; young 1e+06,"
                                               " poisson 0.25, density 1e-300)"),
    (["PSEUDO_RIGID", "young", "1e300"], "pseudo-rigid body 1 (volume 1, mass 1e+03; young 1e+300"),
    (["PSEUDO_RIGID", "young", "1e300", "after"], "pseudo-rigid body 1 (volume 1, mass 1e+03; young 1e+300"),
    (["PSEUDO_RIGID", "density", "1e-300"], "pseudo-rigid body 1 (volume 1, mass 1e-300"),
    (["SLIVER", "height", "1e-9"], "finite-element body 1, element 0 (its smallest: volume 1.67e-10"),
])
def test_a_step_cut_beyond_the_steps_limit_is_refused_before_the_run(tmp_path, capsys, args, words):
    """young 1e300 or density 1e-300 (also set after BODY) and a sliver element cut the
    step to ~1e-150 (~1e-11 for the sliver of height 1e-9; one of 1e-12 is flat and
    MESH refuses it, geometry.mesh_check): RUN stops at its line, before any step, naming
    the body, the element and the material; nothing hangs."""
    deck = write_deck(tmp_path / "bound.py", DECK)
    with bounded():
        assert main([deck, *args]) == 1
    err = capsys.readouterr().err
    assert "bound.py:17: RUN needs" in err and "one RUN may take at most 1e+08" in err
    assert words in err
    assert "at t =" not in err                      # refused before the first step


def test_the_refused_step_is_half_the_critical_step_of_the_named_element(tmp_path, capsys):
    """The sliver's reported step equals half of fem.kernels.critical_steps of that element
    with the body's lumped masses (3 significant digits, as printed)."""
    from solfec_py import session
    from solfec_py.api import NAMES as A

    session.start(progress=False)
    sol = A["SOLFEC"]("DYNAMIC", 1e-3, "out/sliver")
    mat = A["BULK_MATERIAL"](sol, model="KIRCHHOFF", young=1e6, poisson=0.25, density=1e3)
    msh = A["MESH"]([0, 0, 0, 1, 0, 0, 0, 1, 0, 0.3, 0.3, 1e-9], [4, 0, 1, 2, 3, 1], 1)
    body = A["BODY"](sol, "FINITE_ELEMENT", msh, mat)
    with bounded(), pytest.raises(ValueError, match="steps of") as info:
        A["RUN"](sol, A["GAUSS_SEIDEL_SOLVER"](1e-3, 10), 0.01)
    from solfec_py.fem import kernels as K
    blk = body.block
    lay = blk.prepared()
    g = lay.groups[0]
    h = 0.5 * K.critical_steps(blk.q, g.conn, g.dNdX, g.wJ, g.mat, lay.mass, np.array([0]))[0]
    assert f"steps of {h:.3g}" in str(info.value)
    assert f"RUN needs {0.01 / h:.3g} steps" in str(info.value)


CALLBACK_DECK = """\
args = NON_SOLFEC_ARGV()
sol = SOLFEC('DYNAMIC', 1E-3, 'out/grow')
mat = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E6, poisson=0.25, density=1E3)
stiff = BULK_MATERIAL(sol, model='KIRCHHOFF', young=1E300, poisson=0.25, density=1E3, label='stiff')
CUBE = [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]
b = BODY(sol, 'FINITE_ELEMENT', HEX(CUBE, 1, 1, 1, 1, [1]*6), mat)
def cb():
    if args[0] == 'step':
        sol.step = 1e-300
    else:
        BODY(sol, 'FINITE_ELEMENT', TRANSLATE(HEX(CUBE, 1, 1, 1, 1, [1]*6), (3, 0, 0)), stiff)
    return 1
CALLBACK(sol, 0.005, (), cb)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-3, 100), 0.01)
"""


@pytest.mark.parametrize("what, words", [
    ("step", "RUN needs 9e+297 steps of 1e-300 (the step)"),
    ("body", "half the critical step of finite-element body 2, element 0 (its smallest: volume 1; young 1e+300"),
])
def test_a_step_that_shrinks_during_the_run_is_checked_again(tmp_path, capsys, what, words):
    """The CALLBACK after the first step sets a step of 1e-300, or creates a body whose
    critical step is ~1e-149: the run stops after the next step, at t = 0.001, naming the
    step or the body; frames stored before stay readable."""
    deck = write_deck(tmp_path / "grow.py", CALLBACK_DECK)
    with bounded():
        assert main([deck, what]) == 1
    err = capsys.readouterr().err
    assert "grow.py:14: at t = 0.001, after 2 steps, " in err and words in err
    from solfec_py.output.store import ResultsStore, results_path
    assert ResultsStore.open_existing(results_path(str(tmp_path / "out/grow"))).nframes == 2


def test_a_step_far_below_the_decks_is_warned_and_runs(tmp_path, capsys):
    """A sliver of height 1e-6 cuts the step 1e-3 to 1.25e-8 (> 1000 times below): a warning
    names the body and the element, and the run goes on to the end (800 steps)."""
    deck = write_deck(tmp_path / "bound.py", DECK.replace("0.01)", "1e-5)"))
    with bounded():
        assert main([deck, "SLIVER", "height", "1e-6"]) == 0
    err = capsys.readouterr().err
    assert "WARNING: the step 0.001 is cut to 1.25e-08, half the critical step of finite-element body 1," \
           " element 0" in err


STOP_DECK = """
import os
OUT = {out!r}
sol = SOLFEC('DYNAMIC', 1E-3, OUT)
GRAVITY(sol, (0, 0, -9.81))
mat = BULK_MATERIAL(sol, density=1000)
ball = BODY(sol, 'RIGID', SPHERE((0, 0, 0), 0.1, 1, 1), mat)
made = []
def touch(data):
    if not made:
        open(os.path.join(OUT, 'STOP'), 'w').close()
        made.append(sol.time)
    return 1
CALLBACK(sol, 0.05, None, touch)
RUN(sol, GAUSS_SEIDEL_SOLVER(1E-6, 100), 1000.0)
print('created at %.4f, stopped at %.4f' % (made[0], sol.time))
"""


def test_stop_file_ends_the_run(tmp_path, capsys):
    """A file named STOP in the output directory ends a RUN at the end of a step within the
    poll interval (RUN: looked for every 0.1 s of wall-clock time): a 1000 s run whose
    CALLBACK creates the file (at its first call) stops at the end of that step or a later
    one, long before its end (1 ms steps of one rigid sphere: 10^5 steps would take
    minutes, the poll interval allows a few hundred)."""
    deck = write_deck(tmp_path / "stop.py", STOP_DECK.format(out=str(tmp_path / "out")))
    with bounded():
        assert main(["--no-progress", deck]) == 0
    created, stopped = (float(x) for x in
                        capsys.readouterr().out.split("created at ")[1].split(", stopped at "))
    assert created <= stopped < 100.0, (created, stopped)


def _bar(api, order):
    """A 3 x 1 x 1 HEX8 bar of unit cubes listed in `order` (element x positions)."""
    X, elements, index = [], [], {}

    def node(p):
        if p not in index:
            index[p] = len(X) // 3
            X.extend(p)
        return index[p]

    for x in order:
        c = [(x, 0, 0), (x + 1, 0, 0), (x + 1, 1, 0), (x, 1, 0), (x, 0, 1), (x + 1, 0, 1), (x + 1, 1, 1), (x, 1, 1)]
        elements += [8] + [node(p) for p in c] + [1]
    return api.MESH(X, elements, 1)


def test_the_critical_step_does_not_depend_on_the_element_order(api):
    """Three equal cubes (one volume, so all "smallest"): the end cubes' nodes carry less of
    the body's lumped mass than the middle one's, so their estimates 2 / sqrt(lambda_max)
    are smaller; the body's critical step is the least of the tied elements' whatever
    element the mesh lists first (RUN halves it: the step taken), and equals an end cube's,
    which fem.kernels.critical_steps gives for the same element."""
    from solfec_py.fem import kernels

    steps = []
    for order in ([1, 0, 2], [0, 1, 2], [2, 1, 0]):
        sol = api.SOLFEC('DYNAMIC', 1.0, f'out/bar_{order[0]}{order[1]}')
        sol.verbose = 'OFF'
        mat = api.BULK_MATERIAL(sol, young=1e6, poisson=0.3, density=1000.0)
        body = api.BODY(sol, 'FINITE_ELEMENT', _bar(api, order), mat)
        api.RUN(sol, api.GAUSS_SEIDEL_SOLVER(1e-8, 100), 1e-9)
        steps.append(sol.step)
        blk = body.block
        lay = blk.prepared()
        g = lay.groups[0]
        each = kernels.critical_steps(blk.q, g.conn, g.dNdX, g.wJ, g.mat, lay.mass, np.arange(3, dtype=np.int64))
        assert each.max() > 1.05 * each.min()                      # the middle cube's estimate is larger
        assert sol.step == pytest.approx(0.5 * each.min(), rel=1e-12)
    assert steps[0] == pytest.approx(steps[1], rel=1e-12) and steps[1] == pytest.approx(steps[2], rel=1e-12)
