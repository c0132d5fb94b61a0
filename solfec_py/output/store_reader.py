"""Reading the results store (layer 6): the frame table, the body registry and, per frame,
body states, ids, carried scheme state, constraint rows and finite-element geometry. The
store is a directory of segment files (format version 5, output.segments); results files
of the single-file layout (format 1-4) are read too. The datasets are described in
`output.store` (the writer) and docs/results.md.
"""
from __future__ import annotations

import os

import numpy as np

from solfec_py.bodies import KIND_BY_CODE
from solfec_py.errors import ResultsError
from solfec_py.fem.elements import BY_CODE
from solfec_py.output import frames, segments

FORMAT = "solfec-py results"
VERSION = 5          # 5: a directory of segment files, each written whole and renamed into place
                     # 4: variable-length state rows (finite elements: sizes/, geometry/) and
                     #    carry/<family> rows (scheme state between steps, exact -c)
                     # 3: constraint rows also hold ELEM1/2, MPNT, SPNT, COHESION (exact -c)
                     # 2: constraint rows end with the constraint ID (1: without it)
KINDS = tuple(KIND_BY_CODE[c] for c in sorted(KIND_BY_CODE))     # stored kind code = index + 1
REGISTRY_COLUMNS = ("ID", "KIND", "X0", "Y0", "Z0", "LABEL_OFF", "LABEL_LEN")
GEOMETRY_INDEX = ("ID", "NODE_OFF", "NODE_CNT", "CELL_OFF", "CELL_CNT")
MAXN = max(c.nnodes for c in BY_CODE)   # geometry/cells: element code, then up to MAXN nodes


def schema() -> dict:
    """name -> (row shape, dtype) of every row dataset of the store (see output.store)."""
    out = {"frames": ((len(frames.FRAME_COLUMNS),), "f8")}
    for fam in frames.FAMILIES:
        out[f"state/{fam}"] = ((frames.state_width(fam),), "f8")
        out[f"ids/{fam}"] = ((), "i8")
    for fam in frames.RAGGED:
        out[f"state/{fam}"], out[f"ids/{fam}"], out[f"sizes/{fam}"] = ((), "f8"), ((), "i8"), ((2,), "i8")
    for name, width, dtype in (("nodes", 3, "f8"), ("cells", 1 + MAXN, "i8"), ("materials", 3, "f8"),
                               ("index", len(GEOMETRY_INDEX), "i8")):
        out[f"geometry/{name}"] = ((width,), dtype)
    for fam, w in frames.CARRIED.items():
        out[f"carry/{fam}"] = ((w,), "f8")
    out["constraints"] = ((len(frames.CON_COLUMNS),), "f8")
    out["bodies"] = ((len(REGISTRY_COLUMNS),), "f8")
    out["labels"] = ((), "u1")
    return out


SCHEMA = schema()


def open_segments(path: str):
    """(segments of the store at `path` in frame order, unfinished and redundant file names);
    ResultsError naming the store when it is not a solfec-py store or cannot be read."""
    if not os.path.exists(path):
        raise ResultsError(f"no results at {path!r}")
    if os.path.isdir(path):
        marker = segments.read_marker(path)
        if marker.get("format") != FORMAT:
            raise ResultsError(f"{path!r} is not a solfec-py results store (no '{FORMAT}' marker);"
                               " run the deck with -w to overwrite it")
        version = int(marker.get("version", 0))
        if version > VERSION:
            raise ResultsError(f"results {path!r} have format version {version}; this solfec-py reads"
                               f" versions up to {VERSION}")
        cover, redundant, unfinished = segments.listing(path)
        found = []
        for name in cover:
            try:
                found.append(segments.read_segment(os.path.join(path, name)))
            except FileNotFoundError:          # merged meanwhile by a running writer: list again
                return open_segments(path)
            except (OSError, KeyError, ValueError) as exc:
                raise ResultsError(f"cannot read segment {name!r} of results {path!r}: {exc}; run the deck"
                                   " with -w to overwrite them") from None
        return found, unfinished, redundant
    h5py = segments.h5py_module()
    try:
        with h5py.File(path, "r", locking=False) as f:
            _check_legacy(path, f)
        return [segments.read_segment(path, legacy=True)], [], []
    except (OSError, ValueError) as exc:
        raise ResultsError(f"cannot open results file {path!r}: {exc}; the file is corrupt or"
                           " truncated (run the deck with -w to overwrite it)") from None


def _check_legacy(path: str, f) -> None:
    if f.attrs.get("format") != FORMAT:
        raise ResultsError(f"{path!r} is not a solfec-py results file (no '{FORMAT}' marker);"
                           " run the deck with -w to overwrite it")
    version = int(f.attrs.get("version", 0))
    if version > VERSION:
        raise ResultsError(f"results file {path!r} has format version {version}; this solfec-py"
                           f" reads versions up to {VERSION}")
    for name in ("frames", "constraints", "bodies", "labels"):
        if name not in f:
            raise ResultsError(f"results file {path!r} lacks the dataset '{name}' (truncated or"
                               " not written by solfec-py); run the deck with -w to overwrite it")


class StoreReader:
    """Read access to one results store: each query opens the segment files it needs and
    closes them again, so no handle outlives a deck command (the writer,
    output.store.ResultsStore, extends it)."""

    def __init__(self, path: str):
        self.path = path
        self.segs = segments.SegmentSet([], self._relist)
        self.legacy = not path.endswith(segments.SUFFIX)   # a single file of format 1-4
        self._frames = None            # cached frame table
        self._columns: dict = dict(frames.COL)
        self._registry = None
        self._pending: list = []       # frame rows written since the table was read
        self._con_src = None           # stored constraint columns -> CON_COLUMNS (older files)
        self._sizes: dict = {}         # RAGGED family -> sizes/<family> rows
        self._con_cache = (None, None)  # (frame index, constraint rows) last read
        self._keys = (None, None, None)  # (frame index, constraint keys, key -> row)
        self.writing = False           # a writer holds rows not yet in segments
        self.current = None            # READ mode: index of the frame shown by the model
        self.built = None              # READ mode: as-built state snapshot (output.replay)
        self.built_constraints = None  # READ mode: as-built constraint values (output.replay)

    # ------------------------------------------------------------------ opening
    @classmethod
    def open_existing(cls, path: str):
        """Open stored results for reading; ResultsError naming the store when unreadable."""
        store = cls(path)
        store.refresh()
        return store

    def _relist(self) -> list:
        return open_segments(self.path)[0]

    def held_open(self):
        """Keep the segment files open while a sequence of queries runs (a replay of many
        frames), instead of opening them for each query."""
        return self.segs.hold()

    def refresh(self) -> None:
        """(Re)read the segments, the frame table and the registry; in an old single file,
        frames whose data was not completely written (a run killed in the middle of a frame)
        are ignored."""
        self.segs.replace(open_segments(self.path)[0])
        first = self.segs.segments[0] if self.segs.segments else None
        h5py = segments.h5py_module()
        names, con_names = list(frames.FRAME_COLUMNS), list(frames.CON_COLUMNS)
        try:
            if first is not None and not self.legacy:
                attrs = segments.segment_attrs(first)
                names = attrs["frames"]["columns"]
                con_names = attrs["constraints"]["columns"]
            elif first is not None:
                with h5py.File(first.path, "r", locking=False) as f:
                    names = [str(c) for c in f["frames"].attrs["columns"]]
                    con_names = [str(c) for c in f["constraints"].attrs.get("columns", frames.CON_COLUMNS)]
        except (OSError, KeyError, ValueError) as exc:
            raise ResultsError(f"cannot read results {self.path!r}: {exc}") from None
        try:
            table = self.read_all("frames", (len(names),))
            registry = self.read_all("bodies")
            labels = self.read_all("labels").tobytes()
            self._sizes = {fam: self.read_all(f"sizes/{fam}") for fam in frames.RAGGED
                           if f"{fam.upper()}_OFF" in names}
        except (OSError, KeyError, ValueError) as exc:
            raise ResultsError(f"cannot read results {self.path!r}: {exc}") from None
        self._columns = {name: i for i, name in enumerate(names)}
        self._con_src = None if tuple(con_names) == frames.CON_COLUMNS else \
            [(frames.CCOL[c], k) for k, c in enumerate(con_names) if c in frames.CCOL]
        self._con_cache = (None, None)
        self._keys = (None, None, None)
        self._pending = []
        sizes = {name: self.segs.total(name) for name in self.segs.names()}
        self._frames = table[: self._complete_frames(table, sizes)]
        self._registry = registry_dict(registry, labels)

    def read_all(self, name: str, shape=None) -> np.ndarray:
        """Every row of dataset `name` (none: an empty array of its row shape)."""
        return self.read_slab(name, 0, self.segs.total(name), shape)

    def _like(self, name: str, shape=None) -> np.ndarray:
        tail, dtype = SCHEMA.get(name, ((), "f8"))
        return np.zeros((0,) + tuple(shape or tail), dtype=dtype)

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

    @property
    def column_names(self) -> list:
        """Names of the frame table's columns, in order."""
        return list(self._columns)

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
            return self._like(name)
        uniq, inverse = np.unique(rows, return_inverse=True)
        return self.segs.take(name, uniq, self._like(name))[inverse]

    def read_slab(self, name: str, start: int, count: int, shape=None) -> np.ndarray:
        return self.segs.read(name, int(start), int(start) + int(count), self._like(name, shape))

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
        index = self.read_all("geometry/index")
        hit = np.flatnonzero(index[:, 0] == body_id)
        if not hit.size:
            return None
        _, noff, nn, coff, nc = (int(v) for v in index[hit[-1]])
        return (self.read_slab("geometry/nodes", noff, nn), self.read_slab("geometry/cells", coff, nc),
                self.read_slab("geometry/materials", coff, nc))

    def read_ranges(self, name: str, starts, length: int) -> np.ndarray:
        """(k, length) values of a 1-D dataset from each start."""
        starts = np.asarray(starts, dtype=np.int64)
        if not starts.size:
            return np.empty((0, length))
        rows = (starts[:, None] + np.arange(length)).reshape(-1)
        return self.read_rows(name, rows).reshape(starts.size, length).astype(float, copy=False)

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
        if self._con_cache[0] == i and not self.writing:
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
