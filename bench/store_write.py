"""Benchmark: the cost per frame of the results store alone (no stepping, no ParaView).

1000 rigid spheres (the scene of bench/output_overhead.py); the same state is written as
N_FRAMES frames through RUN's own frame writer (`output.recorder.write_frame`), the store
closed at the end as RUN closes it. Two commit policies: the default (frames reach the disk
every SOLFEC_PY_FLUSH_SECONDS = 0.2 s of wall-clock time) and a commit after every frame
(SOLFEC_PY_FLUSH_SECONDS=0, the worst case). Prints one JSON line per policy: milliseconds
per frame (best of REPEAT), bytes per body-frame on disk, files in the results.

    python bench/store_write.py [frames]            (default 2000)
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

import numpy as np

N_BODIES = 1000
REPEAT = int(os.environ.get("REPEAT", "3"))


def build(outdir: str):
    from solfec_py import session
    from solfec_py.api import NAMES as A

    session.start(progress=False)
    sol = A["SOLFEC"]("DYNAMIC", 1e-3, outdir)
    sol.verbose = "OFF"
    mat = A["BULK_MATERIAL"](sol, density=1000.0)
    rng = np.random.default_rng(1)
    for i in range(N_BODIES):
        b = A["BODY"](sol, "RIGID", A["SPHERE"]((float(i), 0.0, 0.0), 0.1, 1, 1), mat)
        b.velo = tuple(rng.normal(size=3)) + (0.0, 0.0, 1.0)
    return sol


def disk(out: str) -> tuple[int, int]:
    """(bytes, files) of the results in the output directory (not the ParaView files)."""
    size = files = 0
    for root, _, names in os.walk(out):
        for name in names:
            if name.endswith((".h5", ".json")) and "_xdmf" not in name:
                size += os.path.getsize(os.path.join(root, name))
                files += 1
    return size, files


def run_case(n_frames: int, flush_seconds: float) -> dict:
    from solfec_py import timestep
    from solfec_py.output import recorder, store

    os.environ["SOLFEC_PY_XDMF"] = "0"
    store.FLUSH_SECONDS = flush_seconds
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench")
        sol = build(out)
        sol.store.start_writing(domain=sol.domain)
        recorder.start_live_xdmf(sol)
        timestep.initialize(sol.domain)
        recorder.write_frame(sol)                     # registry, ids: the first frame's extras
        start = time.perf_counter()
        for k in range(n_frames):
            sol.domain.time += 1e-3
            recorder.write_frame(sol)
        recorder.finish(sol)
        wall = time.perf_counter() - start
        size, files = disk(out)
        return {"ms_per_frame": wall / n_frames * 1e3, "bytes_per_body_frame": size / ((n_frames + 1) * N_BODIES),
                "files": files}


def main(argv: list[str]) -> None:
    from solfec_py import __version__

    n_frames = int(argv[0]) if argv else 2000
    run_case(20, 0.0)                                 # warm-up
    for label, seconds in (("default (0.2 s)", 0.2), ("every frame", 0.0)):
        best = min((run_case(n_frames, seconds) for _ in range(REPEAT)), key=lambda r: r["ms_per_frame"])
        print(json.dumps({"code": "solfec-py", "version": __version__, "scene": "store write",
                          "bodies": N_BODIES, "frames": n_frames, "commit": label,
                          "ms_per_frame": round(best["ms_per_frame"], 4),
                          "bytes_per_body_frame": round(best["bytes_per_body_frame"], 1),
                          "files": best["files"]}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
