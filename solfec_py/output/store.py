"""The results store (layer 6), writing: `<outpath>/<basename>.results/`, a directory of
segment files (output.segments), one frame per output event. Rows are queued in memory and
committed as a new segment file (written aside, closed, renamed into place) after a frame
at most every FLUSH_SECONDS of wall-clock time and when a RUN ends, so a process killed at
any instant leaves complete segments only: every frame up to the last commit. The reading
side is output.store_reader.StoreReader, which ResultsStore extends.
Reference: Solfec-1.0 user manual, READ and WRITE modes, time stepping, OUTPUT (Solfec's
sol.c / dom.c output); layout in `output.frames`, `output.segments` and docs/results.md.

Row datasets (global row numbers; a segment holds the rows its frames added):
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
A segment always ends with a complete frame: the rows of a frame (registry, ids, states,
constraints, the frame row) are committed together.
"""
from __future__ import annotations

import os
import time

import numpy as np

from solfec_py import session
from solfec_py.bodies import BODY_KINDS
from solfec_py.bodies.base import BodyBlock
from solfec_py.errors import ResultsError
from solfec_py.output import frames, segments
from solfec_py.output.store_reader import FORMAT, KINDS, REGISTRY_COLUMNS, SCHEMA, VERSION, StoreReader, registry_dict

KIND_FAMILY = {kind: spec.family for kind, spec in BODY_KINDS.items()}
KIND_CODE = {kind: spec.code for kind, spec in BODY_KINDS.items()}
# frames are committed (a new segment file) when this much wall-clock time passed since the
# last commit (and at the end of every RUN): a killed run loses at most this much
# computation; a commit costs ~1-3 ms, so 0.2 s keeps it near 1 % of a run. 0: every frame.
FLUSH_SECONDS = float(os.environ.get("SOLFEC_PY_FLUSH_SECONDS", "0.2"))
# queued rows are committed once this much waits: the queue buffers stay bounded (and are
# reused from commit to commit: fresh memory costs page faults)
QUEUE_BYTES = 16 << 20


_WRITTEN = {"session": None, "paths": {}}


def _written_paths() -> dict:
    """abspath -> the store that wrote frames there in the current program run (session)."""
    from solfec_py import session

    if _WRITTEN["session"] is not session.current():      # a new program run (session.start)
        _WRITTEN["session"], _WRITTEN["paths"] = session.current(), {}
    return _WRITTEN["paths"]


def written_paths() -> list:
    """Absolute paths of the results the current program run (session) wrote frames to."""
    return list(_written_paths())


def written_this_run(path: str) -> bool:
    """Did the current program run (session) write at least one frame to these results?"""
    return os.path.abspath(path) in _written_paths()


def release_writer(path: str) -> None:
    """Close the store of this program run still holding `path` for writing (a SOLFEC
    object whose RUN has not finished), so that the frames written so far can be read."""
    store = _written_paths().get(os.path.abspath(path))
    if store is not None:
        store.close()


def results_path(outpath: str) -> str:
    """The results of the output directory `outpath`: `<outpath>/<basename>.results` (a
    segment directory), or the single file `<outpath>/<basename>.h5` of an older solfec-py
    when only that exists (Solfec-1.0 user manual, output directory)."""
    directory, legacy = segments.store_dir(outpath), segments.legacy_file(outpath)
    if not segments.exists(directory) and os.path.isfile(legacy):
        return legacy
    return directory


def exists(path: str) -> bool:
    """Are there results (of either layout) at `path`?"""
    return segments.exists(path)


def remove(path: str) -> None:
    """Remove the results at `path` and, for a segment directory, an older single file
    beside it (-w)."""
    segments.remove(path)
    if path.endswith(segments.SUFFIX):
        segments.remove(path[: -len(segments.SUFFIX)] + ".h5")


def _attrs() -> dict:
    """Attributes of every segment: the file's and its datasets' (column names)."""
    return {"": {"format": FORMAT, "version": VERSION, "kinds": list(KINDS)},
            "frames": {"columns": list(frames.FRAME_COLUMNS)},
            "constraints": {"columns": list(frames.CON_COLUMNS), "kinds": list(frames.CON_KINDS)},
            "bodies": {"columns": list(REGISTRY_COLUMNS)}}


class ResultsStore(StoreReader):
    """One results store, written during a RUN (`close()` after it) and read as StoreReader
    reads it."""

    def __init__(self, path: str, compression: bool = False):
        super().__init__(path)
        self.compression = compression
        self._next: dict = {}          # dataset name -> next free row
        self._last_bodies: dict = {}   # family -> (bodies list copy, ids offset, ids)
        self._last_part_ids: dict = {}  # family -> (ids, ids offset) of the last merged parts
        self._reg_kind = np.zeros(0, np.int64)   # body id -> stored kind code (0: none)
        self._reg_x0 = np.zeros((0, 3))          # body id -> stored X0
        self._started = False          # the counters follow the store on disk
        self._committed = 0            # frames in segments on disk
        self._flushed = -np.inf        # time.monotonic() of the last commit
        self._queue: dict = {}         # dataset name -> _RowQueue of rows not yet committed
        self._marked = False           # registered as written by this program run
        self._geometry_ids: set = set()  # finite-element bodies whose mesh is stored

    # ------------------------------------------------------------------ writing
    def start_writing(self, append: bool = False, compression: bool | None = None, domain=None) -> None:
        """Open for a RUN: create the store the first time (replacing what is at its path),
        continue it afterwards; with `append` (continuing stored results, -c) resume after
        the last stored frame. `domain` is accepted for callers of earlier versions."""
        if compression is not None:
            self.compression = compression
        if self.writing:
            return
        if not self._started:
            if append and segments.exists(self.path):
                self._resume()
            else:
                self._create()
            self._started = True
        self.writing = True

    def _create(self) -> None:
        if self.legacy:                                # new results are always a directory
            self.path, self.legacy = segments.store_dir(os.path.dirname(self.path)), False
        if os.path.exists(self.path):
            remove(self.path)
        segments.create(self.path, {"format": FORMAT, "version": VERSION, "layout": "segments"})
        self.segs.replace([])
        self._next = {name: 0 for name in SCHEMA}
        self._committed = 0
        self._last_bodies = {}
        self._last_part_ids = {}
        self._set_registered(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3)))
        self._frames = np.zeros((0, len(frames.FRAME_COLUMNS)))
        self._columns = dict(frames.COL)
        self._registry = registry_dict(np.zeros((0, 7)), b"")
        self._geometry_ids = set()

    def _resume(self) -> None:
        """-c: continue the stored results after their last frame. A segment directory left
        by a killed writer is cleaned first (unfinished and redundant segment files); an
        older single file is converted to a segment directory."""
        if self.legacy:
            self._convert_legacy()
        else:
            cover, redundant, unfinished = segments.listing(self.path)
            segments.clean(self.path, redundant, unfinished)
        self.refresh()
        if self._con_src is not None or any(c not in self._columns for c in frames.FRAME_COLUMNS):
            raise ResultsError(f"results {self.path!r} were written by an older solfec-py (format"
                               " version < 4): their frames lack what an exact continuation"
                               " needs; they can be read but not continued (use -w)")
        self._next = {name: self.segs.total(name) for name in SCHEMA}
        if self._frames.shape[0] != self._next["frames"]:
            raise ResultsError(f"results {self.path!r}: frame {self._frames.shape[0]} is incomplete;"
                               " they can be read but not continued (use -w)")
        self._committed = self._next["frames"]
        geo = self.read_all("geometry/index")
        self._geometry_ids = set(geo[:, 0].tolist())
        reg = self._registry
        self._set_registered(reg["id"], reg["kind_code"], reg["X0"])
        self._last_bodies = {}
        self._last_part_ids = {}

    def _convert_legacy(self) -> None:
        """The single file of format version 4 as the first segment of a new directory, its
        rows cut after the last complete frame; the marker is written last, so a kill in the
        middle leaves the old file in use (and the conversion is made again)."""
        old = self.path
        self.refresh()
        if self._con_src is not None or any(c not in self._columns for c in frames.FRAME_COLUMNS):
            return                                     # refused by _resume, with the reason
        extents = self._frame_extents()
        directory = segments.store_dir(os.path.dirname(old))
        if os.path.exists(directory):
            segments.remove(directory)
        os.makedirs(directory)
        parts = {name: (0, [self.read_slab(name, 0, n)]) for name, n in extents.items() if n}
        segments.write_segment(directory, 0, extents["frames"], segments.FINAL, parts, _attrs(), self.compression)
        segments.create(directory, {"format": FORMAT, "version": VERSION, "layout": "segments"})
        os.remove(old)
        self.path, self.legacy = directory, False
        session.note(f"results {old!r} (a single file of an older solfec-py) converted to {directory!r} to be"
                     " continued")

    def _frame_extents(self) -> dict:
        """Rows of every dataset up to the end of the last complete frame (of an old file)."""
        col = self._columns
        ext = {name: 0 for name in SCHEMA}
        ext["bodies"], ext["labels"] = self.segs.total("bodies"), self.segs.total("labels")
        ext["frames"] = self._frames.shape[0]
        if self._frames.shape[0]:
            last = self._frames[-1]
            ext["constraints"] = int(last[col["CON_OFF"]] + last[col["CON_CNT"]])
            for fam in frames.FAMILIES:
                F = fam.upper()
                ext[f"state/{fam}"] = int(last[col[f"{F}_OFF"]] + last[col[f"{F}_CNT"]])
                ext[f"ids/{fam}"] = int(last[col[f"{F}_IDOFF"]] + last[col[f"{F}_CNT"]])
            for fam in frames.RAGGED:
                F = fam.upper()
                idoff, cnt = int(last[col[f"{F}_IDOFF"]]), int(last[col[f"{F}_CNT"]])
                run = self._sizes[fam][idoff:idoff + cnt]
                ext[f"state/{fam}"] = int(last[col[f"{F}_OFF"]] + run.sum() + 5 * cnt)
                ext[f"ids/{fam}"] = ext[f"sizes/{fam}"] = idoff + cnt
            for fam in frames.CARRIED:
                F = fam.upper()
                ext[f"carry/{fam}"] = int(last[col[f"{F}_CARRY_OFF"]] + last[col[f"{F}_CARRY_CNT"]])
        geo = self.read_all("geometry/index")
        if geo.shape[0]:
            ext["geometry/nodes"] = int(geo[-1, 1] + geo[-1, 2])
            ext["geometry/cells"] = ext["geometry/materials"] = int(geo[-1, 3] + geo[-1, 4])
        ext["geometry/index"] = geo.shape[0]
        return ext

    def _set_registered(self, ids, codes, X0) -> None:
        """The stored registry as arrays indexed by body id: kind code (0: not stored), X0."""
        size = int(ids.max()) + 1 if ids.size else 0
        self._reg_kind = np.zeros(size, np.int64)
        self._reg_x0 = np.zeros((size, 3))
        self._reg_kind[ids] = codes
        self._reg_x0[ids] = X0

    def _reserve(self, name: str, n: int) -> tuple[int, np.ndarray]:
        """Queue n rows for the end of dataset `name`: (their first row, a writable view of
        them in the dataset's queue buffer). Queued rows reach the disk at the next commit,
        one segment for all; the buffers are reused from commit to commit."""
        start = self._next[name]
        queue = self._queue.get(name)
        if queue is None:
            tail, dtype = SCHEMA[name]
            queue = self._queue[name] = _RowQueue(tail, dtype)
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

    def _commit(self) -> None:
        """The queued rows as a new segment (frames since the last commit), then merge the
        segments that accumulated (segments.merge_tail)."""
        end = self._next["frames"]
        if end == self._committed:
            return
        parts = {name: (self._next[name] - q.count, [q.rows()]) for name, q in self._queue.items() if q.count}
        seg = segments.write_segment(self.path, self._committed, end, 0, parts, _attrs(), self.compression)
        for q in self._queue.values():
            q.clear()
        self._committed = end
        self.segs.replace(segments.merge_tail(self.path, self.segs.segments + [seg], self.compression))

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
        if body.id in self._geometry_ids:
            return
        geo = body.block.stored_geometry(body.row)
        if geo is not None:
            self._store_geometry_arrays(body.id, geo)

    def _store_geometry_arrays(self, body_id: int, geo) -> None:
        """(nodes, cells, materials) of body `body_id` as its stored reference mesh, once."""
        ids = self._geometry_ids
        if body_id in ids:
            return
        nodes, cells, materials = geo
        noff = self._append("geometry/nodes", np.asarray(nodes, float).reshape(-1, 3))
        coff = self._append("geometry/cells", np.asarray(cells, np.int64))
        self._append("geometry/materials", np.asarray(materials, float).reshape(-1, 3))
        self._append("geometry/index", np.array([[body_id, noff, len(nodes), coff, len(cells)]], dtype=np.int64))
        ids.add(body_id)

    def write_frame(self, solfec, clock=(0.0, 0.0, 0.0), flush: bool = True,
                    cons: np.ndarray | None = None) -> tuple[int, np.ndarray]:
        """Append the current state of `solfec` as a frame (with `flush`, flushed to disk if
        FLUSH_SECONDS passed since the last flush); returns (frame index, constraint rows).
        `cons`: the frame's constraint rows when not the model's live constraints (a stored
        frame copied to other results)."""
        if not self.writing:
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
        if cons is None:
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
            self._commit()
        return index, cons

    def write_parts(self, solfec, parts, clock=(0.0, 0.0, 0.0), flush: bool = True) -> tuple[int, np.ndarray]:
        """Append a frame given as output/frame_parts.FrameParts (the merged parts of the ranks
        of a parallel run, rows in id order), laid out as write_frame lays out a serial one;
        returns (frame index, constraint rows)."""
        if not self.writing:
            self.start_writing()
        self._register_parts(solfec.domain, parts)
        row = frames.table_row(solfec, clock, 0, parts.energy)
        row[frames.COL["BODS"]] = parts.bodies
        last = self._last_part_ids
        for fam in frames.FAMILIES:
            ids, states = parts.fixed[fam]
            cached = last.get(fam)
            if cached is None or not np.array_equal(cached[0], ids):
                cached = last[fam] = (ids, self._append(f"ids/{fam}", ids))
            off = self._append(f"state/{fam}", states)
            c = _FAMILY_COLS[fam]
            row[c[0]], row[c[1]], row[c[2]] = off, ids.size, cached[1]
        for fam in frames.RAGGED:
            ids, sizes, values = parts.ragged[fam]
            cached = last.get(fam)
            if cached is None or not np.array_equal(cached[0], ids):
                self._append(f"sizes/{fam}", np.asarray(sizes, np.int64).reshape(-1, 2))
                cached = last[fam] = (ids, self._append(f"ids/{fam}", ids))
            off = self._append(f"state/{fam}", values) if ids.size else self._next[f"state/{fam}"]
            c = _FAMILY_COLS[fam]
            row[c[0]], row[c[1]], row[c[2]] = off, ids.size, cached[1]
        for fam in frames.CARRIED:
            carried = parts.carried[fam]
            c = _CARRY_COLS[fam]
            row[c[0]] = self._append(f"carry/{fam}", carried) if carried.shape[0] else self._next[f"carry/{fam}"]
            row[c[1]] = carried.shape[0]
        cons = parts.constraints
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
            self._commit()
        return index, cons

    def _register_parts(self, domain, parts) -> None:
        """Registry rows (and meshes) of the bodies in `parts` not yet stored or changed, as
        register_bodies does for a domain; labels come from the deck's body objects (every
        rank of a parallel run holds them all)."""
        pid, pcode, px0 = parts.registry
        known = pid < self._reg_kind.size
        same = np.zeros(pid.size, dtype=bool)
        k = pid[known]
        same[known] = (self._reg_kind[k] == pcode[known]) & (self._reg_x0[k] == px0[known]).all(axis=1)
        new = np.flatnonzero(~same)
        for body_id, geo in parts.geometry.items():
            self._store_geometry_arrays(int(body_id), geo)
        if not new.size:
            return
        ids, codes, x0 = pid[new], pcode[new], px0[new]
        encoded = [((getattr(domain.by_id.get(int(i)), "label", None)) or "").encode("utf-8") for i in ids.tolist()]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=ids.size)
        table = np.empty((ids.size, len(REGISTRY_COLUMNS)))
        table[:, 0], table[:, 1], table[:, 2:5] = ids, codes, x0
        table[:, 5] = self._next["labels"] + np.cumsum(lengths) - lengths
        table[:, 6] = lengths
        top = int(ids.max()) + 1
        if top > self._reg_kind.size:
            grow = max(top, 2 * self._reg_kind.size)
            kind, seen = np.zeros(grow, np.int64), np.zeros((grow, 3))
            kind[:self._reg_kind.size], seen[:self._reg_kind.size] = self._reg_kind, self._reg_x0
            self._reg_kind, self._reg_x0 = kind, seen
        self._reg_kind[ids], self._reg_x0[ids] = codes, x0
        self._append("labels", np.frombuffer(b"".join(encoded), dtype=np.uint8))
        self._append("bodies", table)

    def _queued_bytes(self) -> int:
        return sum(q.count * q.row_bytes for q in self._queue.values())

    def flush_due(self) -> bool:
        """Did FLUSH_SECONDS pass since the last flush?"""
        return time.monotonic() - self._flushed >= FLUSH_SECONDS

    def flush(self) -> None:
        """Commit the queued rows: every frame so far is on disk."""
        if self.writing:
            self._commit()
            self._flushed = time.monotonic()

    def close(self) -> None:
        """Commit the queued rows and stop writing (a later RUN continues the store)."""
        if self.writing:
            try:
                self._commit()
            finally:
                self.writing = False


_FAMILY_COLS = {fam: tuple(frames.family_col(fam, w) for w in ("OFF", "CNT", "IDOFF")) for fam in frames.ALL_FAMILIES}
_CARRY_COLS = {fam: (frames.COL[f"{fam.upper()}_CARRY_OFF"], frames.COL[f"{fam.upper()}_CARRY_CNT"])
               for fam in frames.CARRIED}


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
