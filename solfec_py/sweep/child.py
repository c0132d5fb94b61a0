"""The process of one sweep run (layer 8): `python -m solfec_py.sweep.child RECORD -- ARGS`
runs `solfec-py ARGS` in this fresh interpreter (exactly the `solfec-py` command's code, so
the results equal a run made by hand), then writes RECORD (JSON): the exit status, the
results files the run wrote and a digest of their contents. The process ends itself when
the Dask worker that started it goes away, so no run outlives its sweep.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time

WATCH_SECONDS = 1.0


def _watch_parent() -> None:
    """End this process (status 137) once its parent is gone (re-parented: ppid changes)."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(WATCH_SECONDS)
            if os.getppid() != parent:
                os._exit(137)

    threading.Thread(target=watch, name="sweep-parent-watch", daemon=True).start()


def results_digest(paths: list, values: dict) -> str | None:
    """SHA-1 over every dataset of the results (each read whole, however it is split into
    segment files; the wall-clock timer columns of the frame table excepted: they measure
    time, not the model) and the reported values; None when there is neither."""
    if not paths and not values:
        return None
    import numpy as np

    from solfec_py.output.frames import TIMERS
    from solfec_py.output.store_reader import StoreReader

    sha = hashlib.sha1(json.dumps(values, sort_keys=True).encode())
    for path in sorted(paths):
        store = StoreReader.open_existing(path)
        for name in sorted(store.segs.names()):
            data = np.ascontiguousarray(store.read_all(name) if name != "frames" else store.table)
            if name == "frames" and data.ndim == 2:
                timers = [i for i, c in enumerate(store.column_names) if c in TIMERS]
                data = data.copy()
                data[:, timers] = 0.0
            sha.update(name.encode())
            sha.update(data.tobytes())
    return sha.hexdigest()


def _written() -> list:
    from solfec_py.output import store

    paths = sorted(store.written_paths())
    for path in paths:
        store.release_writer(path)
    return [p for p in paths if store.exists(p)]


def main(argv: list) -> int:
    record, args = argv[0], argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    _watch_parent()
    from solfec_py.api.sweep import ENV, read_values
    from solfec_py.cli import main as solfec_main

    try:
        status = solfec_main(args)
    except SystemExit as exc:       # the deck called sys.exit / raise SystemExit(...)
        status = exc.code
        if isinstance(status, str):
            print(status, file=sys.stderr)
            status = 1
        status = int(status or 0)
    sys.stdout.flush()
    paths = _written()
    try:
        digest = results_digest(paths, read_values(os.environ.get(ENV)))
    except (OSError, ValueError) as exc:
        print(f"solfec-py sweep: cannot read the results files for the digest: {exc}", file=sys.stderr)
        digest = None
    with open(record, "w", encoding="utf-8") as handle:
        json.dump({"exit": status, "results": paths, "digest": digest}, handle)
    return status


if __name__ == "__main__":  # pragma: no cover - run as a process by solfec_py.sweep.task
    sys.stdout.reconfigure(line_buffering=True)
    raise SystemExit(main(sys.argv[1:]))
