"""Parameter sweeps and sensitivity studies (layer 8): many runs of one deck, each a separate
`solfec-py -s SUBDIR deck.py NAME=VALUE ...` process, scheduled as Dask tasks on a local
cluster or on any Dask scheduler, with a bookkeeping table, resume and plots.
Usage and the worked example (the masonry-arch threshold study): docs/sweeps.md.

    from solfec_py import sweep
    table = sweep.run("deck.py", {"friction": [0.1, 0.3], "step": [1e-3, 5e-4]})

Modules: `plan` (parameters -> runs), `task` (one run in its own process), `child` (the
process), `runner` (the sweep on Dask, resume), `table` (bookkeeping files), `plot`,
`cli` (`solfec-py sweep`). Dask and pandas come with the optional extra `[sweep]`.
"""
from __future__ import annotations

from solfec_py.sweep.plan import SweepError
from solfec_py.sweep.runner import ExtraMissingError, SweepWarning, run

__all__ = ["run", "SweepError", "SweepWarning", "ExtraMissingError"]
