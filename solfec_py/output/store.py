"""The HDF5 results store (layer 6), writing: `<outpath>/<basename>.h5`, one frame per output
event, appended and flushed so a run killed at any moment keeps every flushed frame; the
reading side is output.store_reader.StoreReader, which ResultsStore extends.
Reference: Solfec-1.0 user manual, READ and WRITE modes, time stepping, OUTPUT (Solfec's sol.c / dom.c HDF5 output); layout in
`output.frames` and docs/results.md.

Datasets (all chunked and resizable along the first axis):
  frames              (F, len(columns)) float64 — one row per frame, columns in attr `columns`
  state/<family>      (rows, conf+velo+5) float64 — body states, blocks addressed by the frame row;
                      for the families of frames.RAGGED (bodies of different state lengths) a
                      flat (values,) run per frame: conf | velo | energy of each body in turn
  ids/<family>        (rows,) int64 — body ids of those blocks (a block is reused while unchanged)
  sizes/<family>      (rows, 2) int64 — RAGGED families: len(conf), len(velo) beside the ids
  geometry/...        reference meshes of finite-element bodies (nodes, cells in the block's
                      object order, element materials, an index by body id), so histories and
                      exports of their points need no live model
  carry/<family>      (rows, 3 + width) float64 — body id, scheme code, step, state the body's
                      integration scheme carries between steps (bodies without any have no row)
  constraints         (rows, len(CON_COLUMNS)) float64 — columns in attr `columns`
  bodies              (B, 7) float64 — registry: id, kind code, X0 (3), label offset, label length
  labels              (chars,) uint8 — label characters of the registry
Writing order per frame: registry, ids, state rows, constraints, then the frame row (its
last column VALID = 1) — a frame row exists only when everything it addresses was written
before it. Rows are queued in memory and written, then the file flushed, after a frame
at most every FLUSH_SECONDS of wall-clock time and when a RUN ends; a killed run keeps
every frame up to the last flush.
"""
from __future__ import annotations

import os
import time

import numpy as np

from solfec_py.bodies import BODY_KINDS
from solfec_py.bodies.base import BodyBlock
from solfec_py.fem.elements import BY_CODE
from solfec_py.errors import ResultsError
from solfec_py.output import frames
from solfec_py.output.store_reader import FORMAT, KINDS, VERSION, StoreReader, datasets, h5py_module, registry_dict

KIND_FAMILY = {kind: spec.family for kind, spec in BODY_KINDS.items()}
KIND_CODE = {kind: spec.code for kind, spec in BODY_KINDS.items()}
REGISTRY_COLUMNS = ("ID", "KIND", "X0", "Y0", "Z0", "LABEL_OFF", "LABEL_LEN")
GEOMETRY_INDEX = ("ID", "NODE_OFF", "NODE_CNT", "CELL_OFF", "CELL_CNT")
MAXN = max(c.nnodes for c in BY_CODE)   # geometry/cells: element code, then up to MAXN nodes
# frames are flushed to disk when this much wall-clock time passed since the last flush
# (and at the end of every RUN): a killed run loses at most this much computation, and
# an h5py flush costs ~2 ms, so 0.2 s keeps it near 1 % of a run. 0 flushes every frame.
FLUSH_SECONDS = float(os.environ.get("SOLFEC_PY_FLUSH_SECONDS", "0.2"))
# queued rows are written (not flushed) once this much waits: the queue buffers stay small
# and warm in the CPU caches instead of growing (fresh memory costs page faults)
QUEUE_BYTES = 4 << 20


_WRITTEN = {"session": None, "paths": {}}


def _written_paths() -> dict:
    """abspath -> the store that wrote frames there in the current program run (session)."""
    from solfec_py import session

    if _WRITTEN["session"] is not session.current():      # a new program run (session.start)
        _WRITTEN["session"], _WRITTEN["paths"] = session.current(), {}
    return _WRITTEN["paths"]


def written_paths() -> list:
    """Absolute paths of the results files the current program run (session) wrote frames to."""
    return list(_written_paths())


def written_this_run(path: str) -> bool:
    """Did the current program run (session) write at least one frame to this results file?"""
    return os.path.abspath(path) in _written_paths()


def release_writer(path: str) -> None:
    """Close the store of this program run still holding `path` open for writing (a SOLFEC
    object whose RUN has not finished), so that the frames written so far can be read."""
    store = _written_paths().get(os.path.abspath(path))
    if store is not None:
        store.close()


def results_path(outpath: str) -> str:
    """`<outpath>/<basename(outpath)>.h5` (Solfec-1.0 user manual, output directory)."""
    base = os.path.basename(os.path.normpath(outpath))
    return os.path.join(outpath, base + ".h5")


def _create_file(path: str, domain, compression: bool):
    """A new, empty results file at `path` with every dataset of the layout (see the module
    docstring), flushed; ResultsError naming the path when it cannot be created."""
    h5py = h5py_module()
    try:
        f = h5py.File(path, "w", locking=False)
    except OSError as exc:
        raise ResultsError(f"cannot create results file {path!r}: {exc}") from None
    f.attrs["format"], f.attrs["version"] = FORMAT, VERSION
    f.attrs["kinds"] = list(KINDS)
    comp = {"compression": "gzip", "compression_opts": 1, "shuffle": True} if compression else {}
    ds = f.create_dataset("frames", (0, len(frames.FRAME_COLUMNS)), maxshape=(None, len(frames.FRAME_COLUMNS)),
                          chunks=(64, len(frames.FRAME_COLUMNS)), dtype="f8")
    ds.attrs["columns"] = list(frames.FRAME_COLUMNS)
    for fam in frames.FAMILIES:
        w = frames.state_width(fam)
        block = domain.blocks.get(fam) if domain is not None else None
        rows = min(max(block.count if block is not None else 0, 64), 4096)
        f.create_dataset(f"state/{fam}", (0, w), maxshape=(None, w), chunks=(rows, w),
                         dtype="f8", **comp)
        f.create_dataset(f"ids/{fam}", (0,), maxshape=(None,), chunks=(4096,), dtype="i8", **comp)
    for fam in frames.RAGGED:
        f.create_dataset(f"state/{fam}", (0,), maxshape=(None,), chunks=(1 << 16,), dtype="f8", **comp)
        f.create_dataset(f"ids/{fam}", (0,), maxshape=(None,), chunks=(4096,), dtype="i8", **comp)
        f.create_dataset(f"sizes/{fam}", (0, 2), maxshape=(None, 2), chunks=(4096, 2), dtype="i8", **comp)
    for name, width, dtype in (("nodes", 3, "f8"), ("cells", 1 + MAXN, "i8"), ("materials", 3, "f8"),
                               ("index", len(GEOMETRY_INDEX), "i8")):
        f.create_dataset(f"geometry/{name}", (0, width), maxshape=(None, width), chunks=(1024, width),
                         dtype=dtype, **comp)
    for fam, w in frames.CARRIED.items():
        f.create_dataset(f"carry/{fam}", (0, w), maxshape=(None, w), chunks=(64, w), dtype="f8", **comp)
    c = f.create_dataset("constraints", (0, len(frames.CON_COLUMNS)), maxshape=(None, len(frames.CON_COLUMNS)),
                         chunks=(1024, len(frames.CON_COLUMNS)), dtype="f8", **comp)
    c.attrs["columns"] = list(frames.CON_COLUMNS)
    c.attrs["kinds"] = list(frames.CON_KINDS)
    r = f.create_dataset("bodies", (0, len(REGISTRY_COLUMNS)), maxshape=(None, len(REGISTRY_COLUMNS)),
                         chunks=(256, len(REGISTRY_COLUMNS)), dtype="f8")
    r.attrs["columns"] = list(REGISTRY_COLUMNS)
    f.create_dataset("labels", (0,), maxshape=(None,), chunks=(4096,), dtype="u1")
    f.flush()
    return f


class ResultsStore(StoreReader):
    """One results file, written during a RUN (kept open, `close()` after it) and read as
    StoreReader reads it."""

    def __init__(self, path: str, compression: bool = False):
        super().__init__(path)
        self.compression = compression
        self._next: dict = {}          # dataset name -> next free row
        self._last_bodies: dict = {}   # family -> (bodies list copy, ids offset, ids)
        self._reg_kind = np.zeros(0, np.int64)   # body id -> stored kind code (0: none)
        self._reg_x0 = np.zeros((0, 3))          # body id -> stored X0
        self._created = False
        self._flushed = -np.inf        # time.monotonic() of the last flush
        self._ds: dict = {}            # open datasets (writing) and their allocated rows
        self._queue: dict = {}         # dataset name -> _RowQueue of rows not yet written (writing)
        self._cap: dict = {}
        self._marked = False           # registered as written by this program run

    # ------------------------------------------------------------------ writing
    def start_writing(self, append: bool = False, compression: bool | None = None, domain=None) -> None:
        """Open for a RUN: create the file the first time, append to it afterwards (and
        when `append`, i.e. continuing stored results). A state chunk holds the rows of one
        frame of `domain`'s bodies (64 to 4096 rows), so frames are written chunk by chunk."""
        if self.file is not None:
            return
        if compression is not None:
            self.compression = compression
        if (append or self._created) and os.path.isfile(self.path):
            self._reopen_for_appending()
            return
        self.file = _create_file(self.path, domain, self.compression)
        self._created = True
        self._next = {name: 0 for name, _ in datasets(self.file)}
        self._last_bodies = {}
        self._set_registered(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3)))
        self._frames = np.zeros((0, len(frames.FRAME_COLUMNS)))
        self._columns = dict(frames.COL)
        self._registry = registry_dict(np.zeros((0, 7)), b"")

    def _reopen_for_appending(self) -> None:
        self.refresh()
        if self._con_src is not None or any(c not in self._columns for c in frames.FRAME_COLUMNS):
            raise ResultsError(f"results file {self.path!r} was written by an older solfec-py (format"
                               f" version < {VERSION}): its frames lack what an exact continuation"
                               " needs; it can be read but not continued (use -w)")
        self.file = self._open("r+")
        self._resume_counters()

    def _resume_counters(self) -> None:
        """After reopening for appending: the next rows follow the last complete frame."""
        f, col = self.file, self._columns
        self._next = {name: 0 for name, _ in datasets(f)}
        self._next["bodies"] = f["bodies"].shape[0]
        self._next["labels"] = f["labels"].shape[0]
        self._next["frames"] = self._frames.shape[0]
        if self._frames.shape[0]:
            last = self._frames[-1]
            self._next["constraints"] = int(last[col["CON_OFF"]] + last[col["CON_CNT"]])
            for fam in frames.FAMILIES:
                F = fam.upper()
                self._next[f"state/{fam}"] = int(last[col[f"{F}_OFF"]] + last[col[f"{F}_CNT"]])
                self._next[f"ids/{fam}"] = int(last[col[f"{F}_IDOFF"]] + last[col[f"{F}_CNT"]])
            for fam in frames.RAGGED:
                F = fam.upper()
                idoff, cnt = int(last[col[f"{F}_IDOFF"]]), int(last[col[f"{F}_CNT"]])
                run = self._sizes[fam][idoff:idoff + cnt]
                self._next[f"state/{fam}"] = int(last[col[f"{F}_OFF"]] + run.sum() + 5 * cnt)
                self._next[f"ids/{fam}"] = self._next[f"sizes/{fam}"] = idoff + cnt
            for fam in frames.CARRIED:
                F = fam.upper()
                self._next[f"carry/{fam}"] = int(last[col[f"{F}_CARRY_OFF"]] + last[col[f"{F}_CARRY_CNT"]])
        geo = f["geometry/index"][()] if "geometry/index" in f else np.zeros((0, len(GEOMETRY_INDEX)), np.int64)
        if geo.shape[0]:
            last_geo = geo[-1]
            self._next["geometry/nodes"] = int(last_geo[1] + last_geo[2])
            self._next["geometry/cells"] = self._next["geometry/materials"] = int(last_geo[3] + last_geo[4])
        self._next["geometry/index"] = geo.shape[0]
        self._geometry_ids = set(geo[:, 0].tolist())
        reg = self._registry
        self._set_registered(reg["id"], reg["kind_code"], reg["X0"])
        self._last_bodies = {}

    def _set_registered(self, ids, codes, X0) -> None:
        """The stored registry as arrays indexed by body id: kind code (0: not stored), X0."""
        size = int(ids.max()) + 1 if ids.size else 0
        self._reg_kind = np.zeros(size, np.int64)
        self._reg_x0 = np.zeros((size, 3))
        self._reg_kind[ids] = codes
        self._reg_x0[ids] = X0

    def _reserve(self, name: str, n: int) -> tuple[int, np.ndarray]:
        """Queue n rows for the end of dataset `name`: (their first row, a writable view of
        them in the dataset's queue buffer). Queued rows are written at the next flush
        (`_write_queued`), one large write per dataset instead of many small ones (a frame is
        on disk only after a flush anyway); the buffers are reused from flush to flush."""
        start = self._next[name]
        ds = self._ds.get(name)
        if ds is None:
            ds = self._ds[name] = self.file[name]
            self._cap[name] = ds.shape[0]
        queue = self._queue.get(name)
        if queue is None:
            queue = self._queue[name] = _RowQueue(ds.shape[1:], ds.dtype)
        self._next[name] = start + n
        return start, queue.reserve(n)

    def _append(self, name: str, data: np.ndarray) -> int:
        """Queue the rows `data` (copied) for the end of dataset `name`; returns their first row."""
        n = data.shape[0]
        if not n:
            return self._next[name]
        start, view = self._reserve(name, n)
        view[...] = data
        return start

    def _write_queued(self) -> None:
        """Write the queued rows, dataset by dataset, the frame table last (its rows are the
        frames' commit markers). The frame table and the datasets it addresses grow by half
        their size at a time (trimmed at close: no metadata change for most flushes), the
        registry exactly; writes go through the low-level API (one hyperslab per dataset)."""
        names = sorted((k for k, q in self._queue.items() if q.count), key=lambda k: k == "frames")
        for name in names:
            queue = self._queue[name]
            data = queue.rows()
            ds = self._ds[name]
            end = self._next[name]
            start = end - data.shape[0]
            if self._cap[name] < end:
                exact = name in ("bodies", "labels")      # read whole (the table has VALID)
                cap = end if exact else max(end, int(1.5 * self._cap[name]) + 1024)
                ds.resize(cap, axis=0)
                self._cap[name] = cap
            fspace = ds.id.get_space()
            fspace.select_hyperslab((start,) + (0,) * (data.ndim - 1), data.shape)
            ds.id.write(h5s_create(data.shape), fspace, data)
            queue.clear()

    def _trim(self) -> None:
        """Shrink the over-allocated row datasets to the rows in use."""
        for name, ds in self._ds.items():
            if self._cap.get(name, 0) > self._next[name]:
                ds.resize(self._next[name], axis=0)
                self._cap[name] = self._next[name]

    def register_bodies(self, domain) -> None:
        """Registry rows for bodies not yet stored or whose kind / mass centre changed, in
        creation order (ascending id). Bodies are compared block by block on arrays and the
        rows built as arrays: no Python work per unchanged body."""
        bodies, ids, codes, x0 = self._changed_bodies(domain)
        if ids.size:
            encoded = [(body.label or "").encode("utf-8") for body in bodies]
            lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=ids.size)
            table = np.empty((ids.size, len(REGISTRY_COLUMNS)))
            table[:, 0], table[:, 1], table[:, 2:5] = ids, codes, x0
            table[:, 5] = self._next["labels"] + np.cumsum(lengths) - lengths
            table[:, 6] = lengths
            top = int(ids.max()) + 1
            if top > self._reg_kind.size:
                grow = max(top, 2 * self._reg_kind.size)
                kind, known = np.zeros(grow, np.int64), np.zeros((grow, 3))
                kind[:self._reg_kind.size], known[:self._reg_kind.size] = self._reg_kind, self._reg_x0
                self._reg_kind, self._reg_x0 = kind, known
            self._reg_kind[ids], self._reg_x0[ids] = codes, x0
            for body in bodies:
                if type(body.block).stored_geometry is not BodyBlock.stored_geometry:
                    self._store_geometry(body)
            self._append("labels", np.frombuffer(b"".join(encoded), dtype=np.uint8))
            self._append("bodies", table)
        self._registry_next_id = domain.next_body_id

    def _changed_bodies(self, domain) -> tuple:
        """(bodies, ids, kind codes, X0 (k, 3)) of the bodies whose registry row is missing or
        differs (kind code or X0, compared as the floats stored), ascending id."""
        blocks = [b for b in domain.blocks.values() if b.count]
        if sum(b.count for b in blocks) == len(domain.bodies):
            parts = [(block.bodies, frames.body_ids(block),
                      np.fromiter((KIND_CODE[b.kind] for b in block.bodies), dtype=np.int64, count=block.count),
                      np.asarray(block.center[:block.count], dtype=float)) for block in blocks]
        else:                                   # (not every body in a block row: body by body)
            every = list(domain.bodies)
            parts = [(every, np.array([b.id for b in every], dtype=np.int64).reshape(-1),
                      np.array([KIND_CODE[b.kind] for b in every], dtype=np.int64).reshape(-1),
                      np.array([b.block.center[b.row] for b in every], dtype=float).reshape(-1, 3))]
        bodies, ids, codes, x0 = [], [], [], []
        for members, pid, pcode, px0 in parts:
            known = pid < self._reg_kind.size
            same = np.zeros(pid.size, dtype=bool)
            k = pid[known]
            same[known] = (self._reg_kind[k] == pcode[known]) & (self._reg_x0[k] == px0[known]).all(axis=1)
            new = np.flatnonzero(~same)
            if new.size:
                bodies += [members[r] for r in new.tolist()]
                ids.append(pid[new])
                codes.append(pcode[new])
                x0.append(px0[new])
        if not bodies:
            return [], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3))
        ids, codes, x0 = np.concatenate(ids), np.concatenate(codes), np.concatenate(x0)
        order = np.argsort(ids, kind="stable")
        return [bodies[i] for i in order.tolist()], ids[order], codes[order], x0[order]

    def _store_geometry(self, body) -> None:
        """The reference mesh of a body whose block describes one (finite elements), once."""
        ids = getattr(self, "_geometry_ids", None)
        if ids is None:
            ids = self._geometry_ids = set()
        if body.id in ids:
            return
        geo = body.block.stored_geometry(body.row)
        if geo is None:
            return
        nodes, cells, materials = geo
        noff = self._append("geometry/nodes", np.asarray(nodes, float).reshape(-1, 3))
        coff = self._append("geometry/cells", np.asarray(cells, np.int64))
        self._append("geometry/materials", np.asarray(materials, float).reshape(-1, 3))
        self._append("geometry/index", np.array([[body.id, noff, len(nodes), coff, len(cells)]], dtype=np.int64))
        ids.add(body.id)

    def write_frame(self, solfec, clock=(0.0, 0.0, 0.0), flush: bool = True) -> tuple[int, np.ndarray]:
        """Append the current state of `solfec` as a frame (with `flush`, flushed to disk if
        FLUSH_SECONDS passed since the last flush); returns (frame index, constraint rows)."""
        if self.file is None:
            self.start_writing()
        domain = solfec.domain
        if getattr(self, "_registry_next_id", None) != domain.next_body_id:
            self.register_bodies(domain)
        row = frames.table_row(solfec, clock, 0, domain.energy(stepped=domain.initialized))
        for fam in frames.FAMILIES:
            block = domain.blocks.get(fam)
            bodies = block.bodies if block is not None else []
            n = len(bodies)
            cached = self._last_bodies.get(fam)
            if cached is None or cached[0] != bodies:
                ids = frames.body_ids(block) if n else np.zeros(0, np.int64)
                cached = self._last_bodies[fam] = (list(bodies), self._append(f"ids/{fam}", ids))
            if n:
                off, view = self._reserve(f"state/{fam}", n)
                _state_rows(block, view)
            else:
                off = self._next[f"state/{fam}"]
            c = _FAMILY_COLS[fam]
            row[c[0]], row[c[1]], row[c[2]] = off, n, cached[1]
        for fam in frames.RAGGED:
            block = domain.blocks.get(fam)
            bodies = block.bodies if block is not None else []
            n = len(bodies)
            cached = self._last_bodies.get(fam)
            if cached is None or cached[0] != bodies:
                ids = frames.body_ids(block) if n else np.zeros(0, np.int64)
                sizes = block.state_sizes() if n else np.zeros((0, 2), np.int64)
                self._append(f"sizes/{fam}", sizes)
                cached = self._last_bodies[fam] = (list(bodies), self._append(f"ids/{fam}", ids))
            off = self._append(f"state/{fam}", block.state_values()) if n else self._next[f"state/{fam}"]
            c = _FAMILY_COLS[fam]
            row[c[0]], row[c[1]], row[c[2]] = off, n, cached[1]
        for fam in frames.CARRIED:
            block = domain.blocks.get(fam)
            carried = block.carried_rows() if block is not None and block.count else np.zeros((0, 0))
            c = _CARRY_COLS[fam]
            row[c[0]] = self._append(f"carry/{fam}", carried) if carried.shape[0] else self._next[f"carry/{fam}"]
            row[c[1]] = carried.shape[0]
        cons = frames.constraint_rows(domain)
        row[frames.COL["CON_OFF"]] = self._append("constraints", cons)
        row[frames.COL["CON_CNT"]] = row[frames.COL["CONS"]] = cons.shape[0]
        index = self._append("frames", row[None, :])
        if not self._marked:
            _written_paths()[os.path.abspath(self.path)] = self
            self._marked = True
        self._pending.append(row)
        if flush and self.flush_due():
            self.flush()
        elif self._queued_bytes() > QUEUE_BYTES:
            self._write_queued()
        return index, cons

    def _queued_bytes(self) -> int:
        return sum(q.count * q.row_bytes for q in self._queue.values())

    def flush_due(self) -> bool:
        """Did FLUSH_SECONDS pass since the last flush?"""
        return time.monotonic() - self._flushed >= FLUSH_SECONDS

    def flush(self) -> None:
        """Write the queued rows and flush the file: every frame so far is on disk."""
        if self.file is not None:
            self._write_queued()
            self.file.flush()
            self._flushed = time.monotonic()

    def close(self) -> None:
        if self.file is not None:
            try:
                self._write_queued()
                self._trim()
                self.file.close()
            finally:
                self.file = None
                self._ds, self._cap, self._queue = {}, {}, {}


_FAMILY_COLS = {fam: tuple(frames.family_col(fam, w) for w in ("OFF", "CNT", "IDOFF")) for fam in frames.ALL_FAMILIES}
_CARRY_COLS = {fam: (frames.COL[f"{fam.upper()}_CARRY_OFF"], frames.COL[f"{fam.upper()}_CARRY_CNT"])
               for fam in frames.CARRIED}


def h5s_create(shape):
    """A simple HDF5 dataspace of `shape` (h5py's low-level h5s, imported with h5py)."""
    return h5py_module().h5s.create_simple(shape)


def _state_rows(block, out: np.ndarray) -> None:
    """conf | velo | energy of every row of `block`, written into `out` (n, width)."""
    n = block.count
    a, b = block.conf.shape[1], block.velo.shape[1]
    out[:, :a] = block.conf[:n]
    out[:, a:a + b] = block.velo[:n]
    out[:, a + b:] = block.energy[:n]


class _RowQueue:
    """Rows waiting to be written to one dataset: a reusable buffer that grows by doubling."""

    def __init__(self, tail: tuple, dtype):
        self.buffer = np.empty((64,) + tuple(tail), dtype=dtype)
        self.count = 0
        self.row_bytes = self.buffer[:1].nbytes

    def reserve(self, n: int) -> np.ndarray:
        end = self.count + n
        if end > self.buffer.shape[0]:
            grown = np.empty((max(end, 2 * self.buffer.shape[0]),) + self.buffer.shape[1:], self.buffer.dtype)
            grown[: self.count] = self.buffer[: self.count]
            self.buffer = grown
        view = self.buffer[self.count: end]
        self.count = end
        return view

    def rows(self) -> np.ndarray:
        return self.buffer[: self.count]

    def clear(self) -> None:
        self.count = 0
