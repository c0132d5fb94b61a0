"""The bookkeeping table of a sweep (layer 8): one row per run with its parameters, status
(done / failed / timeout, or pending while the sweep runs), the deck's error line, wall time,
the values the deck reported with SWEEP_RESULT, whether it was resumed, its results files and
its log directory. Kept as `SWEEPDIR/sweep.csv`, plus `sweep.parquet` when pyarrow is
installed; `read(path)` gives the rows back without pandas. Columns: docs/sweeps.md.
"""
from __future__ import annotations

import csv
import os

from solfec_py.sweep.plan import typed

CSV, PARQUET = "sweep.csv", "sweep.parquet"
STATUS = ("done", "failed", "timeout", "pending")


def rows(runs: list, records: dict, sweepdir: str) -> tuple:
    """(rows as dicts in run order, column names): `records` maps run name -> record
    (task.execute) with an extra key 'resumed'; runs without a record are pending."""
    params = list(dict.fromkeys(k for r in runs for k in r.params))
    columns = {name: typed([r.params.get(name, "") for r in runs]) for name in params}
    results = list(dict.fromkeys(k for rec in records.values() for k in rec.get("values", {})))
    clash = {k: f"{k}_result" for k in results if k in params}
    out = []
    for i, run in enumerate(runs):
        rec = records.get(run.name)
        row = {"run": run.name}
        row.update({name: columns[name][i] for name in params})
        row["status"] = rec["status"] if rec else "pending"
        row["error"] = rec["error"] if rec else ""
        row["wall_s"] = rec["wall_s"] if rec else float("nan")
        values = rec.get("values", {}) if rec else {}
        row.update({clash.get(k, k): values.get(k) for k in results})
        row["resumed"] = bool(rec and rec.get("resumed"))
        row["results"] = ";".join(rec.get("results", [])) if rec else ""
        row["log"] = os.path.relpath(os.path.join(sweepdir, "runs", run.name), sweepdir)
        out.append(row)
    names = ["run"] + params + ["status", "error", "wall_s"] + [clash.get(k, k) for k in results] + \
            ["resumed", "results", "log"]
    return out, names


def write_csv(path: str, table_rows: list, names: list) -> None:
    """Write the rows (atomically: a reader never sees half a table)."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=names)
        writer.writeheader()
        for row in table_rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    os.replace(tmp, path)


def frame(table_rows: list, names: list):
    """The rows as a pandas DataFrame (columns in table order)."""
    import pandas as pd

    return pd.DataFrame(table_rows, columns=names)


def write(sweepdir: str, table_rows: list, names: list, parquet: bool = True) -> list:
    """sweep.csv, and sweep.parquet when `parquet` and pyarrow is importable; the paths written."""
    paths = [os.path.join(sweepdir, CSV)]
    write_csv(paths[0], table_rows, names)
    if parquet:
        try:
            import pyarrow  # noqa: F401  (pandas writes Parquet through it)
        except ImportError:
            return paths
        df = frame(table_rows, names)
        for name in names:           # a column mixing numbers and text is written as text
            if df[name].dtype == object:
                df[name] = df[name].map(lambda v: v if v is None or isinstance(v, str) else str(v))
        paths.append(os.path.join(sweepdir, PARQUET))
        df.to_parquet(paths[-1], index=False)
    return paths


TEXT = ("run", "status", "error", "results", "log")


def _column(texts: list) -> list:
    """Cells of one CSV column typed as a whole: booleans, numbers (None where empty) or text."""
    given = [t for t in texts if t != ""]
    if given and all(t in ("True", "False") for t in given):
        return [None if t == "" else t == "True" for t in texts]
    values = typed(given)
    if given and isinstance(values[0], str):
        return list(texts)
    it = iter(values)
    return [None if t == "" else next(it) for t in texts]


def read(path: str) -> list:
    """Rows of a sweep table (a sweep directory or its sweep.csv) with numbers as numbers."""
    if os.path.isdir(path):
        path = os.path.join(path, CSV)
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        texts = list(reader)
        names = reader.fieldnames or []
    columns = {k: [row[k] for row in texts] if k in TEXT else _column([row[k] for row in texts]) for k in names}
    return [{k: columns[k][i] for k in names} for i in range(len(texts))]
