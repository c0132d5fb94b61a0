"""bench/mpi_scaling.py at its smallest: a 2 x 2 x 2 cube array on one rank (no mpiexec, and
mpi4py stays unimported) and on two; both see the same contacts, the two ranks exchange
bytes and own every cube between them. Skipped where mpi4py or an mpiexec is missing."""
from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "bench"))
import mpi_scaling  # noqa: E402

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None or mpi_scaling.mpiexec() is None,
                                 reason="needs mpi4py and mpiexec (pip install 'solfec-py[mpi]')")]


def test_cube_array_on_one_and_two_ranks(capsys):
    one, two = mpi_scaling.main(["--ranks", "1,2", "--scenes", "cubes", "--cubes", "2", "--steps", "2",
                                 "--repeats", "1", "--no-warmup", "--timeout", "240"])
    assert one["ranks"] == 1 and two["ranks"] == 2 and one["mpi4py_imported"] is False
    assert one["steps"] == two["steps"] == 2
    assert one["contacts"] == two["contacts"] and one["contacts"]["final"] > 0
    assert one["bytes_per_step"]["sum"] == 0 < two["bytes_per_step"]["sum"]
    assert sum(two["owned"]) == 8 and two["efficiency"] > 0
    assert capsys.readouterr().out.count("\n") == 2          # one JSON line per run
