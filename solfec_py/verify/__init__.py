"""`solfec-py verify`: convergence studies of the rigid schemes on exact and manufactured
solutions, and the heavy top with every scheme (layer 8). Reference: docs/integrators.md.

    solfec-py verify [--scheme S ...] [--case C ...] [--out DIR] [--no-plots]

prints, per case, the max errors of x, v, omega (E for free rotation) at dt = 0.05, 0.025,
0.0125 (t = 1) with their rates, and writes `convergence_<CASE>.png` and
`history_<CASE>.png` into DIR (default out/verify); `--case HEAVY_TOP` prints the heavy
top's Hamiltonian drift and nutation period error per scheme and writes `heavy_top.png`.
"""
from __future__ import annotations

import argparse
import os
import sys

from solfec_py.integrators import SCHEME_NAMES

HEAVY_TOP = "HEAVY_TOP"


def main(argv: list[str] | None = None) -> int:
    from solfec_py.verify import cases, study

    table = cases.cases()
    names = [*table, HEAVY_TOP]
    p = argparse.ArgumentParser(prog="solfec-py verify", description="Convergence studies of the rigid"
                                " integration schemes on exact and manufactured solutions (docs/integrators.md).")
    p.add_argument("--scheme", action="append", metavar="S",
                   help=f"a scheme (repeatable; default all): {', '.join(SCHEME_NAMES)}")
    p.add_argument("--case", action="append", metavar="C",
                   help=f"a case (repeatable; default all but {HEAVY_TOP}): {', '.join(names)}")
    p.add_argument("--out", default=os.path.join("out", "verify"), help="directory of the plots (default out/verify)")
    p.add_argument("--no-plots", action="store_true", help="print the tables only")
    args = p.parse_args(argv)
    schemes = args.scheme or list(SCHEME_NAMES)
    chosen = args.case or list(table)
    for value, known, what in [(s, SCHEME_NAMES, "scheme") for s in schemes] + [(c, names, "case") for c in chosen]:
        if value not in known:
            print(f"solfec-py verify: unknown {what} {value!r}; expected one of {sorted(known)}", file=sys.stderr)
            return 2
    if not args.no_plots:
        os.makedirs(args.out, exist_ok=True)
    for name in chosen:
        if name == HEAVY_TOP:
            _heavy_top(schemes, args)
            continue
        case = table[name]
        studies = [study.run_study(s, case) for s in schemes if study.applies(s, case)]
        skipped = [s for s in schemes if not study.applies(s, case)]
        print(study.format_table(case, studies))
        if skipped:
            print(f"(not run: {', '.join(skipped)}, which see the added mass one step late)")
        if not args.no_plots and studies:
            from solfec_py.verify import plots

            files = (plots.convergence(case, studies, os.path.join(args.out, f"convergence_{name}.png")),
                     plots.histories(case, studies, os.path.join(args.out, f"history_{name}.png")))
            print("wrote " + ", ".join(files))
        print()
    return 0


def _heavy_top(schemes, args) -> None:
    from solfec_py.verify import heavy_top

    runs = [heavy_top.run_top(s, h) for s in schemes for h in heavy_top.STEPS]
    print(heavy_top.format_table(runs))
    if not args.no_plots:
        from solfec_py.verify import plots

        print("wrote " + plots.heavy_top(runs, heavy_top.exact_nutation_period(),
                                         os.path.join(args.out, "heavy_top.png")))
    print()
