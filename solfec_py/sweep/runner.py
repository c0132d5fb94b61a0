"""A sweep on Dask (layer 8): plans the runs, skips those an earlier sweep finished, runs the
others as tasks on a LocalCluster (worker processes, one thread each) or on the Dask
scheduler at an address, keeps the bookkeeping table up to date after every run, and warns
when every run gave the same results. Usage: docs/sweeps.md.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import warnings

from solfec_py.errors import SolfecError
from solfec_py.sweep import plan, table as T, task

EXTRA = "pip install 'solfec-py[sweep]'"
LEGACY = ("auto", "on", "off")


class ExtraMissingError(SolfecError, ImportError):
    """A package of the optional extra [sweep] is not installed."""


class SweepWarning(UserWarning):
    """Something about a sweep worth a look (e.g. every run gave the same results)."""


def require(module: str):
    """Import `module` of the [sweep] extra, or raise ExtraMissingError naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ExtraMissingError(f"solfec-py sweep needs the optional extra [sweep] (dask[distributed], pandas):"
                                f" {EXTRA}; cannot import {module!r} ({exc})") from None


def _specs(items, cls, parse, from_pair) -> list:
    """Param (or Dist) objects from None, one text, a list of texts or objects, or a dict
    name -> values (or name -> 'KIND:A:B')."""
    if items is None:
        return []
    if isinstance(items, str):
        items = [items]
    if isinstance(items, dict):
        return [from_pair(str(k), v) for k, v in items.items()]
    return [i if isinstance(i, cls) else parse(i) for i in items]


def _params(params) -> list:
    return _specs(params, plan.Param, plan.parse_param, plan.make_param)


def _dists(dists) -> list:
    return _specs(dists, plan.Dist, plan.parse_dist, lambda name, text: plan.parse_dist(f"{name}={text}"))


def _number(name: str, value, minimum: float, integer: bool = False):
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not value >= minimum:
        kind = "a whole number" if integer else "a number"
        raise plan.SweepError(f"{name} must be {kind} >= {minimum:g}, got {value!r}")
    return value


@contextlib.contextmanager
def _client(workers: int, scheduler: str | None, connect_timeout: float):
    """A dask.distributed Client: on a new LocalCluster, or connected to `scheduler`; both
    closed (and the cluster's worker processes ended) on leaving."""
    distributed = require("distributed")
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout=connect_timeout)
        except Exception as exc:     # refused, timed out, bad address, not a Dask scheduler, ...
            raise plan.SweepError(f"cannot reach the Dask scheduler at {scheduler!r} within {connect_timeout:g} s"
                                  f" (--connect-timeout): {type(exc).__name__}: {exc}") from None
        with client:
            yield client
        return
    try:
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=None, scheduler_port=0, silence_logs=logging.ERROR)
    except Exception as exc:
        raise plan.SweepError(f"cannot start a local Dask cluster of {workers} worker processes:"
                              f" {type(exc).__name__}: {exc} (in a script, call solfec_py.sweep.run under"
                              " `if __name__ == '__main__':`, since the workers import the script again)") from None
    with cluster, distributed.Client(cluster) as client:
        yield client


def _on_dask(client, tasks: list, done) -> None:
    distributed = require("distributed")
    futures = {client.submit(task.execute, t, pure=False, key=f"solfec-sweep-{t.name}-{os.getpid()}-{id(t)}"): t
               for t in tasks}
    try:
        for future in distributed.as_completed(futures):
            try:
                record = future.result()
            except Exception as exc:       # the worker died, the task could not run, ...
                record = task.lost(futures[future], exc)
            done(record)
    finally:
        client.cancel(list(futures))


def _progress(total: int, progress: bool | None):
    from tqdm import tqdm

    enabled = sys.stderr.isatty() if progress is None else bool(progress)
    return tqdm(total=total, desc="sweep", unit="run", disable=not enabled or total == 0, file=sys.stderr)


def _check_identical(table_rows: list, records: dict) -> None:
    done = [records[r["run"]] for r in table_rows if r["status"] == "done"]
    digests = {rec.get("digest") for rec in done}
    if len(done) >= 2 and len(digests) == 1 and None not in digests:
        warnings.warn(f"all {len(done)} runs gave identical results (results files, SWEEP_RESULT values): the"
                      " deck seems to ignore its parameters; it receives them as words NAME=VALUE from"
                      " NON_SOLFEC_ARGV()", SweepWarning, stacklevel=3)


def run(deck: str, params=None, *, mode: str = "grid", samples: int | None = None, dists=None, seed: int = 0,
        words=(), workers: int | None = None, scheduler: str | None = None, client=None, out: str | None = None,
        timeout: float | None = None, connect_timeout: float = 10.0, force: bool = False, legacy: str = "auto",
        progress: bool | None = None, plot=None, parquet: bool = True, yes: bool = False):
    """Run `deck` once per parameter point, each run its own `solfec-py -s NAME deck WORDS`
    process on Dask; returns the bookkeeping table as a pandas DataFrame.

    Parameters
    ----------
    deck : str
        The deck file; relative outputs of the deck resolve in the current directory, as for
        `solfec-py`. Each run writes under its own SUBDIR (the run name, e.g. `mu=0.3`).
    params : dict or list of str
        `{"mu": [0.1, 0.3]}` or `["mu=0.1,0.3"]`: the deck receives `mu=0.1` etc. as words
        of NON_SOLFEC_ARGV().
    mode : {'grid', 'zip'}
        All combinations of the parameter values (grid), or the i-th values together (zip).
    samples, dists, seed :
        `samples` random points drawn from `dists` (`{"mu": "uniform:0.1:0.5"}` or
        `["mu=uniform:0.1:0.5"]`, kinds uniform, loguniform, normal, randint), combined with
        every point of `params`; the same seed draws the same points (so a rerun resumes).
    words : sequence of str
        Fixed words given to every run before the parameter words (e.g. `["stop=0.2"]`).
    workers : int, optional
        Worker processes of the LocalCluster (default: the number of cores, at most the
        number of runs); 0 runs one after another in this process, without Dask.
    scheduler : str, optional
        Address of a running Dask scheduler (`tcp://host:8786`); a SweepError when it
        cannot be reached within `connect_timeout` seconds.
    client : dask.distributed.Client, optional
        An existing client to run on (then `workers` and `scheduler` are not used).
    out : str, optional
        The sweep directory: the table (sweep.csv, sweep.parquet), sweep.json and one
        `runs/NAME/` per run (stdout, stderr, record). Default `out/<deck name>_sweep`.
    timeout : float, optional
        Seconds a run may take before it is killed and recorded as timed out.
    force : bool
        Redo every run; otherwise runs that an earlier sweep finished (record done, results
        readable) are skipped and failed or partial ones are redone.
    legacy : {'auto', 'on', 'off'}
        solfec-py's --legacy switch for the deck.
    progress : bool, optional
        A progress bar over runs (default: when stderr is a terminal).
    plot : str or (str, str), optional
        `"X,Y"`: also draw Y against X into the sweep directory (`table.attrs['plot']`).
    parquet : bool
        Also write sweep.parquet when pyarrow is installed.
    yes : bool
        Confirms a sweep of more than `plan.ASK_ABOVE` (10 000) runs; without it such a
        sweep stops with a SweepError before anything is written.

    Returns
    -------
    pandas.DataFrame
        One row per run: parameters, status ('done', 'failed', 'timeout'), error (the deck's
        error line), wall_s, the SWEEP_RESULT values, resumed, results, log.
        `attrs['sweep_dir']` is the sweep directory.
    """
    require("pandas")
    if not isinstance(deck, str) or not os.path.isfile(deck):
        raise plan.SweepError(f"'deck' must be a deck file, got {deck!r} (no such file)")
    if legacy not in LEGACY:
        raise plan.SweepError(f"'legacy' must be one of {list(LEGACY)}, got {legacy!r}")
    if timeout is not None:
        _number("timeout", timeout, 1e-9)
    _number("connect_timeout", connect_timeout, 1e-9)
    if isinstance(words, str):
        words = words.split()
    words = list(words)
    if not all(isinstance(w, str) for w in words):
        raise plan.SweepError(f"'words' must be a list of strings, got {words!r}")
    axes = plot_axes(plot)
    param_specs, dist_specs = _params(params), _dists(dists)
    plan.confirm(plan.size(param_specs, mode, samples), yes)
    runs = plan.runs(plan.design(param_specs, mode, samples, dist_specs, seed), words)
    if workers is None:
        workers = min(os.cpu_count() or 1, len(runs))
    _number("workers", workers, 0, integer=True)
    cwd = os.getcwd()
    stem = os.path.splitext(os.path.basename(deck))[0]
    sweepdir = os.path.abspath(out or os.path.join("out", f"{stem}_sweep"))
    os.makedirs(os.path.join(sweepdir, "runs"), exist_ok=True)
    meta = {"deck": os.path.abspath(deck), "cwd": cwd, "params": {p.name: list(p.values) for p in param_specs},
            "mode": mode, "samples": samples, "seed": seed, "words": words, "runs": len(runs),
            "dists": [f"{d.name}={d.kind}:{d.args[0]!r}:{d.args[1]!r}" for d in dist_specs]}
    with open(os.path.join(sweepdir, "sweep.json"), "w", encoding="utf-8") as handle:
        json.dump(meta, handle, indent=1)

    records, todo = {}, []
    for r in runs:
        rundir = os.path.join(sweepdir, "runs", r.name)
        t = task.Task(deck=deck, words=r.words, name=r.name, rundir=rundir, cwd=cwd, timeout=timeout, legacy=legacy)
        earlier = None if force else task.finished(t)
        if earlier is not None:
            records[r.name] = dict(earlier, resumed=True)
        else:
            todo.append(t)

    def save(final: bool = False) -> list:
        table_rows, names = T.rows(runs, records, sweepdir)
        T.write(sweepdir, table_rows, names, parquet=parquet and final)
        return table_rows

    save()
    bar = _progress(len(todo), progress)

    def done(record: dict) -> None:
        records[record["run"]] = record
        bar.update(1)
        if record["status"] != "done" and not bar.disable:
            bar.write(f"{record['run']}: {record['status']}: {record['error']}", file=sys.stderr)
        save()

    try:
        if todo and workers == 0 and client is None and not scheduler:
            for t in todo:
                done(task.execute(t))
        elif todo and client is not None:
            _on_dask(client, todo, done)
        elif todo:
            with _client(min(workers, len(todo)) or 1, scheduler, connect_timeout) as c:
                _on_dask(c, todo, done)
    finally:
        bar.close()
        table_rows = save(final=True)
    _check_identical(table_rows, records)
    df = T.frame(*T.rows(runs, records, sweepdir))
    df.attrs["sweep_dir"] = sweepdir
    if axes:
        from solfec_py.sweep.plot import plot_sweep

        df.attrs["plot"] = plot_sweep(sweepdir, *axes)
    return df


def plot_axes(plot):
    if plot is None:
        return None
    axes = plot.split(",") if isinstance(plot, str) else list(plot)
    if len(axes) != 2 or not all(isinstance(a, str) and a.strip() for a in axes):
        raise plan.SweepError(f"plot must be 'X,Y' (two column names), got {plot!r}")
    return tuple(a.strip() for a in axes)
