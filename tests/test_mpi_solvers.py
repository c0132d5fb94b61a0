"""NEWTON_SOLVER and PENALTY_SOLVER on 2 MPI ranks (solvers/distributed_newton.py,
solvers/distributed.py) against the serial run of the same deck: the cube array of
tests/cube_array_deck.py (contacts between the ranks' bodies, a rigid link across the array,
a fixed direction) run by `python -m solfec_py` and by `mpiexec -n 2`, stored states,
kinetic energies, contact counts and iteration counts compared frame by frame."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import write_deck
from cube_array_deck import cube_array

pytest.importorskip("mpi4py")
_BESIDE = os.path.join(os.path.dirname(sys.executable), "mpiexec")
MPIEXEC = _BESIDE if os.access(_BESIDE, os.X_OK) else shutil.which("mpiexec")
if MPIEXEC is None:
    pytest.skip("no mpiexec beside the interpreter or on PATH", allow_module_level=True)

STEP, INTERVAL = 1e-3, 0.005


def _env():
    import solfec_py

    env = dict(os.environ, MPLBACKEND="Agg")
    package = os.path.dirname(os.path.dirname(os.path.abspath(solfec_py.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package, env.get("PYTHONPATH")) if p)
    return env


def _run(tmp_path, name: str, text: str, ranks: int = 2):
    """The deck run serially (in tmp_path/serial) and on `ranks` ranks (tmp_path/mpi): both
    results as StoreReaders."""
    from solfec_py.output.store_reader import StoreReader

    readers = []
    for where, launch in (("serial", []), ("mpi", [MPIEXEC, "-n", str(ranks)])):
        folder = tmp_path / where
        folder.mkdir()
        deck = write_deck(folder / f"{name}.py", text)
        res = subprocess.run(launch + [sys.executable, "-m", "solfec_py", deck], cwd=folder, env=_env(),
                             capture_output=True, text=True, timeout=240)
        assert res.returncode == 0, f"{where} run failed:\n{res.stdout}\n{res.stderr}"
        readers.append(StoreReader.open_existing(glob.glob(str(folder / "out" / name / "*.results"))[0]))
    return readers


def _states(reader, family: str, frame: int):
    """(ids, configuration values, velocity values) of a family's bodies at a frame."""
    if family == "rigid":
        ids, rows = reader.frame_state(family, frame)
        return np.asarray(ids), rows[:, :12].ravel(), rows[:, 12:18].ravel()
    ids, sizes, flat = reader.frame_values(family, frame)
    conf, velo, at = [], [], 0
    for nc, nv in np.asarray(sizes).tolist():
        conf.append(flat[at:at + nc])
        velo.append(flat[at + nc:at + nc + nv])
        at += nc + nv + 5
    return np.asarray(ids), np.concatenate(conf), np.concatenate(velo)


def _contacts(reader, frame: int) -> int:
    return int((reader.frame_constraints(frame)[:, 0] == 1).sum())   # KIND code 1: CONTACT


def _compare(serial, mpi, family: str, duration: float, vel_tol_per_step: float, step: float = STEP,
             interval: float = INTERVAL, vfree: float = 0.0, energies=("E_KINETIC", "E_CONTACT", "E_FRICTION")):
    """States of every frame within the tolerances that `vel_tol_per_step` (a bound on the
    velocity difference one solve may add, in units of the largest speed plus `vfree`, the
    velocity the loads add in one step: the free velocity of a body at rest is not zero)
    gives after the steps of `duration`: velocities the number of steps times it,
    configurations `duration` times that. Returns the largest differences seen (velocity,
    configuration); `energies`: the energy columns compared."""
    assert serial.nframes == mpi.nframes == round(duration / interval) + 1
    vmax = max(np.abs(_states(serial, family, f)[2]).max() for f in range(serial.nframes)) + vfree
    vel_tol = round(duration / step) * vel_tol_per_step * vmax
    conf_tol = duration * vel_tol
    worst = [0.0, 0.0]
    for f in range(serial.nframes):
        ids_s, conf_s, velo_s = _states(serial, family, f)
        ids_m, conf_m, velo_m = _states(mpi, family, f)
        assert np.array_equal(ids_s, ids_m)
        dv, dc = np.abs(velo_m - velo_s).max(), np.abs(conf_m - conf_s).max()
        assert dv <= vel_tol, f"frame {f}: velocities differ by {dv:.3g} > {vel_tol:.3g}"
        assert dc <= conf_tol, f"frame {f}: configurations differ by {dc:.3g} > {conf_tol:.3g}"
        assert _contacts(serial, f) == _contacts(mpi, f), f"frame {f}: contact counts differ"
        worst = [max(worst[0], dv), max(worst[1], dc)]
    # E = m v^2 / 2: a relative speed error e gives about 2 e in energy; the contact and
    # friction work (h/2 (U + V) R summed over the contacts of each body) as much, relative
    # to the largest of the three (frictionless runs have rounding noise for friction work)
    scale = max(np.abs(np.asarray(serial.column(name))).max() for name in ("E_KINETIC", "E_CONTACT", "E_FRICTION"))
    for name in energies:
        e_s, e_m = np.asarray(serial.column(name)), np.asarray(mpi.column(name))
        assert np.abs(e_m - e_s).max() <= 2 * vel_tol / vmax * scale, name
    return worst


@pytest.mark.parametrize("kind, family", [("RIGID", "rigid"), ("TL", "finite_element")])
def test_newton_on_two_ranks_matches_the_serial_run(tmp_path, kind, family):
    """Frictionless, so that every solve converges by Newton (with friction the serial
    solver falls back to Gauss-Seidel on some impacts, test below). Every solve of both runs
    stops at merit <= meritval. The merit is 1/2 sum C W^-1 C / E_free with
    E_free = 1/2 sum B W^-1 B: the residual's energy norm is at most sqrt(meritval) times the
    free velocities', so two solutions of one step differ by at most 2 sqrt(meritval) times
    the speeds, which the comparison accumulates over the steps."""
    meritval, duration = 1e-12, 0.05
    serial, mpi = _run(tmp_path, "cubes", cube_array("out/cubes", kind=kind, meritval=meritval, friction=0.0,
                                                     duration=duration, interval=INTERVAL))
    _compare(serial, mpi, family, duration, 2.0 * meritval ** 0.5)
    its_s, its_m = np.asarray(serial.column("NTITERS")), np.asarray(mpi.column("NTITERS"))
    assert its_s.sum() > 0
    assert abs(its_m.sum() - its_s.sum()) <= 0.1 * its_s.sum()     # the same iterations but for rounding
    assert np.asarray(mpi.column("MERIT")).max() <= meritval


def test_gauss_seidel_on_two_ranks_matches_the_serial_run(tmp_path):
    """The distributed Gauss-Seidel (FULL variant) stops at the same merit as the serial one,
    so the Newton test's bound holds; the contact work of bodies whose contacts another rank
    owns needs those contacts' final velocities."""
    meritval, duration = 1e-12, 0.05
    serial, mpi = _run(tmp_path, "sweep", cube_array("out/sweep", solver="GS", meritval=meritval, friction=0.0,
                                                     duration=duration, interval=INTERVAL))
    _compare(serial, mpi, "rigid", duration, 2.0 * meritval ** 0.5)


@pytest.mark.parametrize("options", ["reverse = 'ON'", "variant = 'MIDDLE_JACOBI'", "variant = 'BOUNDARY_JACOBI'"])
def test_gauss_seidel_variants_on_three_ranks_match_the_serial_run(tmp_path, options):
    """Backward sweeps every other iteration (reverse 'ON') and the two Jacobi variants on 3
    ranks (TOP, BOTTOM and, where a row touches both other ranks, MIDDLE rows): each solve
    stops at the merit bound of the test above, whatever order the rows were swept in, so the
    same bound holds. Every iteration's first rows are swept while the previous iteration's
    error sums travel, and undone when that iteration ends the solve: a reaction of such an
    extra sweep left in the solution would show as a merit above meritval."""
    meritval, duration = 1e-12, 0.02
    serial, mpi = _run(tmp_path, "order", cube_array("out/order", solver="GS", meritval=meritval, friction=0.0,
                                                     duration=duration, interval=INTERVAL, options=options),
                       ranks=3)
    _compare(serial, mpi, "rigid", duration, 2.0 * meritval ** 0.5)
    assert np.asarray(mpi.column("MERIT")).max() <= meritval


CAPPED = """
import dataclasses
import numpy as np
from solfec_py.solvers import distributed

solve = distributed.gauss_seidel
checked = []

def twice(ld, settings, ext, springs, variant, rows=None):
    R0, U0 = ld.R.copy(), ld.U.copy()
    result = solve(ld, settings, ext, springs, variant, rows)
    if result.error != 'OK':
        return result
    R1 = ld.R.copy()
    ld.R[:], ld.U[:] = R0, U0
    capped = dataclasses.replace(settings, epsilon=0.0, meritval=1.0, maxiter=result.iters)
    again = solve(ld, capped, ext, springs, variant, rows)
    assert again.iters == result.iters and np.array_equal(ld.R, R1), "a sweep ahead was left in the solution"
    checked.append(result.iters)
    return result

distributed.gauss_seidel = twice
"""


@pytest.mark.parametrize("options", ["reverse = 'OFF'", "reverse = 'ON'"])
@pytest.mark.parametrize("joints", [True, False])
def test_a_converged_distributed_solve_ends_at_its_last_counted_iteration(tmp_path, options, joints):
    """Each iteration's first rows are swept while the previous iteration's error sums travel
    between the ranks; when those sums end the solve, that sweep is undone. So a solve that
    converges after k iterations leaves exactly the reactions of a solve capped at k
    iterations from the same start (bit for bit: the same sweeps in the same order)."""
    text = cube_array("out/capped", solver="GS", meritval=1.0, friction=0.3, duration=0.01, interval=STEP,
                      options=options, joints=joints)        # (contacts only: the compiled iterations)
    text = CAPPED + text + "assert len(checked) > 5 and max(checked) > 1, checked\n"
    folder = tmp_path / "mpi"
    folder.mkdir()
    deck = write_deck(folder / "capped.py", text)
    res = subprocess.run([MPIEXEC, "-n", "2", sys.executable, "-m", "solfec_py", deck], cwd=folder, env=_env(),
                         capture_output=True, text=True, timeout=240)
    assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"


PATH_SWITCH = """
from solfec_py.solvers import distributed

distributed.COMPILED = COMPILED
compiled = []
_iterate_compiled = distributed._iterate_compiled

def counted(*args):
    compiled.append(1)
    return _iterate_compiled(*args)

distributed._iterate_compiled = counted
"""


@pytest.mark.parametrize("ranks, options", [(2, "reverse = 'ON'"), (2, "diagmaxiter = 3"),
                                            (3, "variant = 'FULL'"), (3, "variant = 'MIDDLE_JACOBI'")])
def test_compiled_iterations_give_the_python_loops_bits(tmp_path, ranks, options):
    """Over contact rows the distributed Gauss-Seidel runs its iterations in one compiled
    call (solvers/distributed_kernels.py, MPI called from the kernel): the same sweeps,
    messages and sums in the same order as the Python loop, so every stored state and
    iteration count is the same bit for bit. diagmaxiter = 3 sends rows whose Newton
    iteration fails to the fallback solver (about 190 times a rank in this run); 3 ranks give
    MIDDLE rows, swept colour by colour."""
    from solfec_py.output.store_reader import StoreReader

    readers = []
    for flag in (True, False):
        text = cube_array("out/paths", solver="GS", meritval=1.0, friction=0.3, duration=0.02, interval=STEP,
                          joints=False, options=options)
        check = f"assert len(compiled) {'>' if flag else '=='} 0, len(compiled)\n"
        text = PATH_SWITCH.replace("= COMPILED", f"= {flag}") + text + check
        folder = tmp_path / f"compiled_{flag}"
        folder.mkdir()
        deck = write_deck(folder / "paths.py", text)
        res = subprocess.run([MPIEXEC, "-n", str(ranks), sys.executable, "-m", "solfec_py", deck], cwd=folder,
                             env=_env(), capture_output=True, text=True, timeout=240)
        assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"
        readers.append(StoreReader.open_existing(glob.glob(str(folder / "out" / "paths" / "*.results"))[0]))
    fast, slow = readers
    assert fast.nframes == slow.nframes == 21
    for f in range(fast.nframes):
        for a, b in zip(_states(fast, "rigid", f), _states(slow, "rigid", f)):
            assert np.array_equal(a, b), f"frame {f}"
        assert _contacts(fast, f) == _contacts(slow, f)
    iters = np.asarray(fast.column("GSITERS"))
    assert iters.max() > 1 and np.array_equal(iters, np.asarray(slow.column("GSITERS")))


def test_newton_fallback_on_two_ranks(tmp_path):
    """With friction some impacts defeat Newton in maxiter iterations on both runs; the
    distributed Gauss-Seidel then finishes the solve to the same merit (frictional
    solutions need not be unique, so the states are not compared)."""
    meritval, duration = 1e-12, 0.01
    serial, mpi = _run(tmp_path, "rough", cube_array("out/rough", meritval=meritval, duration=duration,
                                                     interval=STEP))
    for reader in (serial, mpi):
        its = np.asarray(reader.column("NTITERS"))
        assert its.max() > 200                       # maxiter 200, then Gauss-Seidel iterations
        assert np.asarray(reader.column("MERIT")).max() <= meritval
    assert [_contacts(serial, f) for f in range(serial.nframes)] == [_contacts(mpi, f) for f in range(mpi.nframes)]


@pytest.mark.parametrize("joints", [False, True])
def test_penalty_on_two_ranks_matches_the_serial_run(tmp_path, joints):
    """Each contact's spring-dashpot force is a closed formula of its own row, the same on
    either side of a rank boundary; the link and the fixed direction are solved by
    Gauss-Seidel with epsilon 1e-4 (solvers/penalty.py), whose reactions, hence velocities,
    may differ by that share per step. The bouncing cubes amplify rounding differences too
    (a 1e-12 change of the gaps grows to 2e-5 m/s in 0.05 s), so the run is kept short."""
    duration = 0.03
    serial, mpi = _run(tmp_path, "springs", cube_array("out/springs", solver="PS", duration=duration,
                                                       interval=INTERVAL, joints=joints))
    _compare(serial, mpi, "rigid", duration, 2.0 * 1e-4)
    its_s, its_m = np.asarray(serial.column("GSITERS")), np.asarray(mpi.column("GSITERS"))
    if joints:
        assert its_s[1:].min() > 0 and its_m[1:].min() > 0         # the link was solved every frame
    else:
        assert its_s.max() == its_m.max() == 0
