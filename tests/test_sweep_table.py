"""The bookkeeping table of a sweep (solfec_py/sweep/table.py) from run records, without
running anything: column order, pending rows, a value named like a parameter, the CSV
written and read back with its types."""
from __future__ import annotations

import math

from solfec_py.sweep import plan as P, table as T


def test_rows_columns_pending_and_clash(tmp_path):
    runs = P.runs(P.design([P.parse_param("y=1,2,3"), P.parse_param("kind=a")]))
    records = {
        runs[0].name: {"status": "done", "error": "", "wall_s": 1.5, "values": {"y": 10.0, "ok": True},
                       "results": ["/r/a.h5", "/r/b.h5"]},
        runs[1].name: {"status": "failed", "error": "d.py:3: boom", "wall_s": 0.5, "values": {"note": "x"},
                       "results": [], "resumed": True},
    }
    rows, names = T.rows(runs, records, str(tmp_path))
    assert names == ["run", "y", "kind", "status", "error", "wall_s", "y_result", "ok", "note", "resumed",
                     "results", "log"]
    assert [r["status"] for r in rows] == ["done", "failed", "pending"]
    assert rows[0]["y"] == 1 and rows[0]["y_result"] == 10.0 and rows[0]["results"] == "/r/a.h5;/r/b.h5"
    assert rows[1]["note"] == "x" and rows[1]["ok"] is None and rows[1]["resumed"] is True
    assert math.isnan(rows[2]["wall_s"]) and rows[2]["log"] == "runs/y=3_kind=a"

    T.write_csv(str(tmp_path / T.CSV), rows, names)
    back = T.read(str(tmp_path))
    assert [r["y"] for r in back] == [1, 2, 3] and [r["kind"] for r in back] == ["a"] * 3
    assert back[0]["ok"] is True and back[1]["ok"] is None and back[0]["y_result"] == 10.0
    assert back[1]["error"] == "d.py:3: boom" and back[2]["status"] == "pending" and math.isnan(back[2]["wall_s"])
    assert [r["resumed"] for r in back] == [False, True, False]
