"""Reading the HDF5 results store (layer 6): the frame table, the body registry and, per frame,
body states, ids, carried scheme state, constraint rows and finite-element geometry. Files
written by older versions (format 1-3) are read too. The layout is described in
`output.store` (the writer) and docs/results.md.
"""
from __future__ import annotations

import contextlib

import numpy as np

from solfec_py.bodies import KIND_BY_CODE
from solfec_py.errors import ResultsError
from solfec_py.output import frames

FORMAT = "solfec-py results"
VERSION = 4          # 4: variable-length state rows (finite elements: sizes/, geometry/) and
                     #    carry/<family> rows (scheme state between steps, exact -c)
                     # 3: constraint rows also hold ELEM1/2, MPNT, SPNT, COHESION (exact -c)
                     # 2: constraint rows end with the constraint ID (1: without it)
KINDS = tuple(KIND_BY_CODE[c] for c in sorted(KIND_BY_CODE))     # stored kind code = index + 1


_H5PY: list = []


def h5py_module():
    """h5py (with its low-level h5s), imported when first needed and then kept: an import
    statement costs ~0.1 ms, which per-frame calls would pay every time."""
    if not _H5PY:
        import h5py
        import h5py.h5s

        _H5PY.append(h5py)
    return _H5PY[0]


class StoreReader:
    """Read access to one results file: each query opens the file and closes it again, so
    no handle outlives a deck command (the writer, output.store.ResultsStore, extends it)."""

    def __init__(self, path: str):
        self.path = path
        self.file = None               # the h5py file while a writer holds it open
        self._held = None              # read handle kept open by held_open(), and its datasets
        self._held_ds: dict = {}
        self._frames = None            # cached frame table
        self._columns: dict = dict(frames.COL)
        self._registry = None
        self._pending: list = []       # frame rows written since the table was read
        self._con_src = None           # stored constraint columns -> CON_COLUMNS (older files)
        self._sizes: dict = {}         # RAGGED family -> sizes/<family> rows
        self._con_cache = (None, None)  # (frame index, constraint rows) last read
        self._keys = (None, None, None)  # (frame index, constraint keys, key -> row)
        self.current = None            # READ mode: index of the frame shown by the model
        self.built = None              # READ mode: as-built state snapshot (output.replay)
        self.built_constraints = None  # READ mode: as-built constraint values (output.replay)

    # ------------------------------------------------------------------ opening
    @classmethod
    def open_existing(cls, path: str):
        """Open stored results for reading; ResultsError naming the file when unreadable."""
        store = cls(path)
        store.refresh()
        return store

    @contextlib.contextmanager
    def held_open(self):
        """Keep one read handle open while a sequence of queries runs (a replay of many
        frames), instead of opening the file for each query; nothing changes while a writer
        holds the file or a handle is already held."""
        if self._held is not None or self.file is not None:
            yield
            return
        self._held = self._open("r")
        try:
            yield
        finally:
            held, self._held, self._held_ds = self._held, None, {}
            held.close()

    def _dataset(self, f, name: str):
        """Dataset `name` of the open file `f`, looked up once while a handle is held."""
        if f is not self._held:
            return f[name]
        ds = self._held_ds.get(name)
        if ds is None:
            ds = self._held_ds[name] = f[name]
        return ds

    def _open(self, mode: str):
        if mode == "r" and self._held is not None:
            return contextlib.nullcontext(self._held)
        h5py = h5py_module()
        try:
            return h5py.File(self.path, mode, locking=False)
        except (OSError, ValueError) as exc:
            raise ResultsError(f"cannot open results file {self.path!r}: {exc}; the file is corrupt or"
                               " truncated (run the deck with -w to overwrite it)") from None

    def _check_format(self, f) -> None:
        if f.attrs.get("format") != FORMAT:
            raise ResultsError(f"{self.path!r} is not a solfec-py results file (no '{FORMAT}' marker);"
                               " run the deck with -w to overwrite it")
        version = int(f.attrs.get("version", 0))
        if version > VERSION:
            raise ResultsError(f"results file {self.path!r} has format version {version}; this solfec-py"
                               f" reads versions up to {VERSION}")
        for name in ("frames", "constraints", "bodies", "labels"):
            if name not in f:
                raise ResultsError(f"results file {self.path!r} lacks the dataset '{name}' (truncated or"
                                   " not written by solfec-py); run the deck with -w to overwrite it")

    def refresh(self) -> None:
        """(Re)read the frame table and the registry; frames whose data was not completely
        written (a run killed in the middle of a frame) are ignored."""
        with self._open("r") as f:
            self._check_format(f)
            try:
                table = f["frames"][()]
                names = [str(c) for c in f["frames"].attrs["columns"]]
                sizes = {name: ds.shape[0] for name, ds in datasets(f)}
                registry = f["bodies"][()]
                labels = f["labels"][()].tobytes()
                con_names = [str(c) for c in f["constraints"].attrs.get("columns", frames.CON_COLUMNS)]
            except (OSError, KeyError, ValueError) as exc:
                raise ResultsError(f"cannot read results file {self.path!r}: {exc}") from None
        self._columns = {name: i for i, name in enumerate(names)}
        self._con_src = None if tuple(con_names) == frames.CON_COLUMNS else \
            [(frames.CCOL[c], k) for k, c in enumerate(con_names) if c in frames.CCOL]
        self._con_cache = (None, None)
        self._keys = (None, None, None)
        self._pending = []
        self._sizes = {}
        for fam in frames.RAGGED:
            if f"{fam.upper()}_OFF" in self._columns:
                with self._open("r") as f:
                    self._sizes[fam] = f[f"sizes/{fam}"][()] if f"sizes/{fam}" in f else np.zeros((0, 2), np.int64)
        self._frames = table[: self._complete_frames(table, sizes)]
        self._registry = registry_dict(registry, labels)

    def _complete_frames(self, table, sizes) -> int:
        n = table.shape[0]
        col = self._columns
        ok = table[:, col["VALID"]] == 1.0 if "VALID" in col else np.ones(n, dtype=bool)
        ok &= table[:, col["CON_OFF"]] + table[:, col["CON_CNT"]] <= sizes.get("constraints", 0)
        for fam in frames.ALL_FAMILIES:
            key = f"{fam.upper()}_OFF"
            if key in col:
                cnt = table[:, col[f"{fam.upper()}_CNT"]]
                idoff = table[:, col[f"{fam.upper()}_IDOFF"]]
                ok &= idoff + cnt <= sizes.get(f"ids/{fam}", 0)
                if fam in frames.FAMILIES:
                    ok &= table[:, col[key]] + cnt <= sizes.get(f"state/{fam}", 0)
                    continue
                run = self._sizes.get(fam, np.zeros((0, 2), np.int64))
                ok &= idoff + cnt <= run.shape[0]
                total = np.concatenate([[0], np.cumsum(run.sum(axis=1) + 5)])
                lo = np.minimum(idoff, run.shape[0]).astype(np.int64)
                hi = np.minimum(idoff + cnt, run.shape[0]).astype(np.int64)
                ok &= table[:, col[key]] + (total[hi] - total[lo]) <= sizes.get(f"state/{fam}", 0)
        for fam in frames.CARRIED:
            key = f"{fam.upper()}_CARRY_OFF"
            if key in col:
                cnt = table[:, col[f"{fam.upper()}_CARRY_CNT"]]
                ok &= table[:, col[key]] + cnt <= sizes.get(f"carry/{fam}", 0)
        bad = np.flatnonzero(~ok)
        return int(bad[0]) if bad.size else n

    # ------------------------------------------------------------------ reading
    @property
    def table(self) -> np.ndarray:
        if self._pending:
            self._frames = np.vstack([self._frames] + self._pending)
            self._pending = []
        if self._frames is None:
            self.refresh()
        return self._frames

    @property
    def registry(self) -> dict:
        if self._registry is None:
            self.refresh()
        return self._registry

    def col(self, name: str) -> int:
        try:
            return self._columns[name]
        except KeyError:
            raise ResultsError(f"results file {self.path!r} has no column {name!r}") from None

    def column(self, name: str) -> np.ndarray:
        return self.table[:, self.col(name)]

    @property
    def nframes(self) -> int:
        return self.table.shape[0]

    @property
    def times(self) -> np.ndarray:
        return self.column("TIME")

    def duration(self) -> tuple:
        t = self.times
        if not t.size:
            raise ResultsError(f"results file {self.path!r} holds no frames")
        return (float(t[0]), float(t[-1]))

    def tolerance(self) -> float:
        """Times closer than this are the same frame time: 1e-6 of the smallest time step."""
        steps = self.column("STEP")
        steps = steps[steps > 0]
        return 1e-6 * float(steps.min()) if steps.size else 1e-12

    def frame_index(self, time: float) -> int:
        """The frame SEEK and HISTORY land on for `time`, located as Solfec-1.0's pbf.c
        (``PBF_Seek``, ``PBF_Span``) does: a frame at that time (within `tolerance`), else
        the frame of the binary search's last probe, which may be either neighbour of
        `time` (frame 0 before the first, the last after the end)."""
        t = self.times
        i = int(np.searchsorted(t, time + self.tolerance(), side="right")) - 1
        if i >= 0 and time - t[i] <= self.tolerance():
            return i
        lo, hi, m = 0, t.size - 1, 0
        while lo <= hi:
            m = (lo + hi) // 2
            if time < t[m]:
                hi = m - 1
            else:
                lo = m + 1
        return min(max(m, 0), t.size - 1)

    def read_rows(self, name: str, rows: np.ndarray) -> np.ndarray:
        """Rows of dataset `name` at the given global row indices (any order, repeats ok)."""
        rows = np.asarray(rows, dtype=np.int64)
        if not rows.size:
            with self._open("r") as f:
                return np.zeros((0,) + f[name].shape[1:], dtype=f[name].dtype)
        uniq, inverse = np.unique(rows, return_inverse=True)
        with self._open("r") as f:
            ds = self._dataset(f, name)
            lo, hi = int(uniq[0]), int(uniq[-1]) + 1
            if hi - lo <= 4 * uniq.size + 4096:          # dense enough: one contiguous read
                data = ds[lo:hi][uniq - lo]
            else:
                data = ds[uniq]
        return data[inverse]

    def read_slab(self, name: str, start: int, count: int) -> np.ndarray:
        with self._open("r") as f:
            return self._dataset(f, name)[start:start + count]

    def frame_ids(self, family: str, i: int) -> np.ndarray:
        row = self.table[i]
        F = family.upper()
        off, cnt = int(row[self.col(f"{F}_IDOFF")]), int(row[self.col(f"{F}_CNT")])
        return self.read_slab(f"ids/{family}", off, cnt)

    def frame_values(self, family: str, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ids (n,), sizes (n, 2) of conf and velo, flat values: conf | velo | energy of each
        body in turn) of one family at frame i, for fixed-width and ragged families alike."""
        if family in frames.FAMILIES:
            ids, rows = self.frame_state(family, i)
            return ids, np.tile(np.array(frames.FAMILIES[family], np.int64), (ids.size, 1)), rows.reshape(-1)
        row = self.table[i]
        F = family.upper()
        if f"{F}_OFF" not in self._columns:
            return np.zeros(0, np.int64), np.zeros((0, 2), np.int64), np.zeros(0)
        off, cnt = int(row[self.col(f"{F}_OFF")]), int(row[self.col(f"{F}_CNT")])
        idoff = int(row[self.col(f"{F}_IDOFF")])
        sizes = self._sizes[family][idoff:idoff + cnt]
        total = int(sizes.sum()) + 5 * cnt
        return self.frame_ids(family, i), sizes, self.read_slab(f"state/{family}", off, total)

    def geometry(self, body_id: int):
        """(nodes, cells, materials) of a finite-element body stored in the file, or None."""
        with self._open("r") as f:
            if "geometry/index" not in f:
                return None
            index = f["geometry/index"][()]
            hit = np.flatnonzero(index[:, 0] == body_id)
            if not hit.size:
                return None
            _, noff, nn, coff, nc = (int(v) for v in index[hit[-1]])
            return (f["geometry/nodes"][noff:noff + nn], f["geometry/cells"][coff:coff + nc],
                    f["geometry/materials"][coff:coff + nc])

    def read_ranges(self, name: str, starts, length: int) -> np.ndarray:
        """(k, length) values of a 1-D dataset from each start (one file opening)."""
        starts = np.asarray(starts, dtype=np.int64)
        out = np.empty((starts.size, length))
        with self._open("r") as f:
            ds = self._dataset(f, name)
            for k, s0 in enumerate(starts.tolist()):
                out[k] = ds[s0:s0 + length]
        return out

    def frame_state(self, family: str, i: int) -> tuple[np.ndarray, np.ndarray]:
        """(ids, state rows) of one family at frame i."""
        row = self.table[i]
        F = family.upper()
        off, cnt = int(row[self.col(f"{F}_OFF")]), int(row[self.col(f"{F}_CNT")])
        return self.frame_ids(family, i), self.read_slab(f"state/{family}", off, cnt)

    def frame_carry(self, family: str, i: int) -> np.ndarray:
        """Rows (body id, scheme code, step, carried state) of one family at frame i; none
        in files of format version < 4."""
        F = family.upper()
        if f"{F}_CARRY_OFF" not in self._columns:
            return np.zeros((0, frames.CARRIED.get(family, 3)))
        row = self.table[i]
        off, cnt = int(row[self.col(f"{F}_CARRY_OFF")]), int(row[self.col(f"{F}_CARRY_CNT")])
        return self.read_slab(f"carry/{family}", off, cnt) if cnt else np.zeros((0, frames.CARRIED[family]))

    def constraint_keys(self, i: int) -> list:
        """(id, kind code, body 1, body 2) of every constraint row of frame i."""
        rows = self.frame_constraints(i)
        if self._keys[0] != i:
            cols = [frames.CCOL[c] for c in ("ID", "KIND", "BID1", "BID2")]
            keys = [tuple(k) for k in rows[:, cols].astype(np.int64).tolist()]
            self._keys = (i, keys, None)
        return self._keys[1]

    def constraint_index(self, i: int) -> dict:
        """(id, kind code, body 1, body 2) -> row of frame i's constraint rows."""
        keys = self.constraint_keys(i)
        if self._keys[2] is None:
            self._keys = (i, keys, {k: n for n, k in reversed(list(enumerate(keys)))})
        return self._keys[2]

    def frame_constraints(self, i: int) -> np.ndarray:
        """The constraint rows of frame i (columns CON_COLUMNS; a column missing from an
        older file reads 0). The last frame read is cached: its rows must not be modified."""
        if self._con_cache[0] == i and self.file is None:
            return self._con_cache[1]
        row = self.table[i]
        rows = self.read_slab("constraints", int(row[self.col("CON_OFF")]), int(row[self.col("CON_CNT")]))
        if self._con_src is not None:
            out = np.zeros((rows.shape[0], len(frames.CON_COLUMNS)))
            for dst, src in self._con_src:
                out[:, dst] = rows[:, src]
            rows = out
        rows.setflags(write=False)
        self._con_cache = (i, rows)
        return rows


def datasets(f):
    """(name, dataset) of every dataset in the file `f`."""
    out = []
    f.visititems(lambda name, obj: out.append((name, obj)) if hasattr(obj, "shape") else None)
    return out


class Registry(dict):
    """The registry as `registry_dict` returns it: arrays "id", "kind_code", "X0" at once; the
    Python lists "kind" (names) and "label" made on first use (a writer reopening the file
    for a RUN needs only the arrays; 10^5 labels decoded one by one cost ~0.1 s)."""

    def __missing__(self, key):
        if key == "kind":
            value = [KINDS[k - 1] for k in np.asarray(self["kind_code"]).tolist()]
        elif key == "label":
            value = _labels(self._text, self._spans)
        else:
            raise KeyError(key)
        self[key] = value
        return value

    def __contains__(self, key) -> bool:
        return key in _LAZY or dict.__contains__(self, key)

    def get(self, key, default=None):
        """dict.get that makes the lazy lists too (dict.get does not call __missing__)."""
        return self[key] if key in self else default


_LAZY = ("kind", "label")


def _labels(text: bytes, spans: np.ndarray) -> list:
    """The labels text[off:off + n] (utf-8) of the (off, n) rows of spans."""
    if not spans.shape[0]:
        return []
    if not spans[:, 1].any():                       # no body has a label
        return [""] * spans.shape[0]
    return [text[off:off + n].decode("utf-8", errors="replace") for off, n in spans.tolist()]


def registry_dict(rows: np.ndarray, labels: bytes) -> dict:
    """Latest registry entry per body id: arrays id, kind_code, X0, and the lists kind (name)
    and label (made on first use, `Registry`)."""
    rows = np.asarray(rows).reshape(-1, 7)
    # the last row of each id: the first occurrence in the reversed rows
    ids, first = np.unique(rows[::-1, 0].astype(np.int64), return_index=True)
    table = rows[::-1][first]
    out = Registry(id=ids, kind_code=table[:, 1].astype(int), X0=table[:, 2:5])
    out._text, out._spans = labels, table[:, 5:7].astype(np.int64)
    return out
