"""Benchmark: the broad phase of contact detection (solfec_py/contact/broad.py) on n boxes.

n cubes of side 0.1 scattered at the density of a settled granular pile (uniform random in a
cube of side 0.1 (n/0.6)^(1/3), fixed seed), inflated by 1e-4 like contact boxes: the sort and
sweep `overlapping_pairs` timed (median of 3 after one compiling call) for each n, then the fit
t = c n log2 n by least squares over the sizes. Prints one JSON line per n (n, seconds, pairs,
seconds per n log2 n) and one with the fit (c and the largest relative residual).

    python bench/broad_phase.py [n ...]            (default 1000 10000 100000)
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np


def boxes(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    side = 0.1 * (n / 0.6) ** (1 / 3)
    lo = rng.uniform(0.0, side, (n, 3))
    return lo - 1e-4, lo + 0.1 + 1e-4


def main(argv: list[str]) -> None:
    from solfec_py.contact.broad import overlapping_pairs

    sizes = [int(a) for a in argv] or [1000, 10000, 100000]
    overlapping_pairs(*boxes(100))
    rows = []
    for n in sizes:
        lo, hi = boxes(n)
        times = []
        for _ in range(3):
            start = time.process_time()
            pairs = overlapping_pairs(lo, hi)
            times.append(time.process_time() - start)
        t = float(np.median(times))
        rows.append((n, t))
        print(json.dumps({"code": "solfec-py", "scene": "broad phase", "n": n, "cpu_s": round(t, 5),
                          "pairs": int(pairs.shape[0]), "s_per_nlogn": float(f"{t / (n * np.log2(n)):.3e}")}),
              flush=True)
    n, t = np.array(rows).T
    x = n * np.log2(n)
    c = float(x @ t / (x @ x))
    print(json.dumps({"scene": "broad phase fit", "model": "t = c n log2 n", "c": float(f"{c:.3e}"),
                      "max_rel_residual": float(f"{np.max(np.abs(c * x - t) / t):.3f}")}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
