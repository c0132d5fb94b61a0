"""Crash-consistent storage of the results (layer 6): a directory of segment files, each an
HDF5 file written whole under a temporary name, closed, then renamed into place. A file
under its final name is therefore complete, and a process killed at any instant leaves
only complete segments (and perhaps one unfinished temporary file, ignored). The names of
the segments are the index. Reference: the rename-into-place pattern of POSIX rename(2)
(atomic replacement of a directory entry); the layout is solfec-py's, docs/results.md.

    <name>.results/
        store.json                               marker: format, version, layout
        0000000000-0000000041-00.h5              frames [0, 41) merged 0 times
        0000000041-0000000057-00.h5              frames [41, 57) ...
        0000000057-0000000060-00.h5.tmp          an unfinished segment (ignored, removed by a writer)

A segment holds the rows its frames added to every row dataset of the store (any name:
`frames`, `state/rigid`, ...), each dataset with the attribute `first` (its first row in
the store); dataset `name` of the store is the concatenation of the segments' rows in
frame order, so row numbers are global and a frame may address rows of earlier segments.
Segments are merged as they accumulate (FANOUT consecutive segments of one level into one
of the next level, at most MERGE_BYTES): the merged file is renamed into place before the
merged ones are removed, and a reader takes, for every frame, the segment covering the
longest range (`cover`), so a kill during a merge loses nothing either.

A results file of the single-file layout (format versions 1-4, `<name>.h5`) reads as one
segment whose datasets start at row 0.

What a store may gain keeps this shape: more files beside the marker written once and
renamed into place (a record of the run's inputs), or a sub-directory of segments per
writer (one per process of a parallel run), each read as here.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil

import numpy as np

from solfec_py import session
from solfec_py.errors import ResultsError

MARKER = "store.json"
SUFFIX = ".results"
TMP = ".tmp"
FANOUT = 8                      # segments of one level merged into one of the next
MERGE_BYTES = 32 << 20          # no merge makes a segment larger than this
FINAL = 99                      # the level of a segment never merged (a converted old file)
# os.fsync every segment and the directory before and after its rename: survives a power
# loss too (a kill of the process never needs it; costs a disk flush per commit)
FSYNC = os.environ.get("SOLFEC_PY_FSYNC", "0") == "1"
_NAME = re.compile(r"^(\d{10})-(\d{10})-(\d{2})\.h5$")

_H5PY: list = []


def h5py_module():
    """h5py, imported when first needed and then kept (an import statement costs ~0.1 ms)."""
    if not _H5PY:
        import h5py

        _H5PY.append(h5py)
    return _H5PY[0]


def store_dir(outpath: str) -> str:
    """`<outpath>/<basename(outpath)>.results`: where a run writes its results."""
    base = os.path.basename(os.path.normpath(outpath))
    return os.path.join(outpath, base + SUFFIX)


def legacy_file(outpath: str) -> str:
    """`<outpath>/<basename(outpath)>.h5`: the single results file of format versions 1-4."""
    base = os.path.basename(os.path.normpath(outpath))
    return os.path.join(outpath, base + ".h5")


def exists(path: str) -> bool:
    """Are there results at `path` (a segment directory with its marker, or an old file)?"""
    return os.path.isfile(os.path.join(path, MARKER)) if path.endswith(SUFFIX) else os.path.isfile(path)


def remove(path: str) -> None:
    """Remove the results at `path` (-w): a directory is renamed aside first, so a kill in
    the middle never leaves a store with some of its segments gone."""
    if os.path.isdir(path):
        trash = f"{path}.removed-{os.getpid()}"
        os.replace(path, trash)
        shutil.rmtree(trash, ignore_errors=True)
    elif os.path.exists(path):
        os.remove(path)


def create(path: str, marker: dict) -> None:
    """A new, empty segment directory with its marker (written aside, then renamed)."""
    try:
        os.makedirs(path, exist_ok=True)
        _write_atomic(os.path.join(path, MARKER), json.dumps(marker, indent=1).encode())
    except OSError as exc:
        raise ResultsError(f"cannot create results {path!r}: {exc.strerror or exc}") from None


def read_marker(path: str) -> dict:
    try:
        with open(os.path.join(path, MARKER), "rb") as f:
            return json.loads(f.read().decode())
    except (OSError, ValueError) as exc:
        raise ResultsError(f"cannot read the marker of results {path!r}: {exc}; run the deck with -w to"
                           " overwrite them") from None


def _write_atomic(path: str, data: bytes) -> None:
    tmp = path + TMP
    with open(tmp, "wb") as f:
        f.write(data)
        if FSYNC:
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)
    _sync_dir(os.path.dirname(path))


def _sync_dir(directory: str) -> None:
    if FSYNC:
        fd = os.open(directory or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class Segment:
    """One segment file: frames [first, end), its merge level and the global row range
    (start, count) of every dataset it holds."""

    __slots__ = ("path", "first", "end", "level", "rows", "nbytes")

    def __init__(self, path: str, first: int, end: int, level: int, rows: dict, nbytes: int = 0):
        self.path, self.first, self.end, self.level, self.rows, self.nbytes = path, first, end, level, rows, nbytes

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


def segment_name(first: int, end: int, level: int) -> str:
    return f"{first:010d}-{end:010d}-{level:02d}.h5"


def listing(path: str) -> tuple[list, list, list]:
    """(cover, redundant, unfinished) file names of a segment directory: the segments that
    make the store (frames 0, 1, ... without a gap, the longest segment at each start),
    those a merge made redundant (or that lie beyond a gap, which no writer leaves), and
    unfinished temporary files."""
    try:
        names = os.listdir(path)
    except OSError as exc:
        raise ResultsError(f"cannot list results {path!r}: {exc.strerror or exc}") from None
    found, unfinished = [], []
    for name in names:
        m = _NAME.match(name)
        if m:
            found.append((int(m.group(1)), -int(m.group(2)), int(m.group(3)), name))
        elif name.endswith(TMP):
            unfinished.append(name)
    cover, redundant, end = [], [], 0
    for first, neg_end, _, name in sorted(found):
        if -neg_end <= end or first != end:
            redundant.append(name)
        else:
            cover.append(name)
            end = -neg_end
    return cover, redundant, unfinished


def read_segment(path: str, legacy: bool = False) -> Segment:
    """The row ranges of the datasets of one segment file, from its `index` attribute (an
    old single file: every dataset from row 0)."""
    h5py = h5py_module()
    with h5py.File(path, "r", locking=False) as f:
        if legacy:
            rows = {}
            f.visititems(lambda name, obj: rows.__setitem__(name, (0, int(obj.shape[0])))
                         if isinstance(obj, h5py.Dataset) else None)
            return Segment(path, 0, 0, FINAL, rows, os.path.getsize(path))
        index = json.loads(f.attrs["index"])
    rows = {name: (int(a), int(n)) for name, (a, n) in index["rows"].items()}
    return Segment(path, int(index["first"]), int(index["end"]), int(index["level"]), rows, os.path.getsize(path))


def segment_attrs(seg: Segment) -> dict:
    """The attributes a segment was written with (`write_segment`'s `attrs`)."""
    with h5py_module().File(seg.path, "r", locking=False) as f:
        return json.loads(f.attrs["index"])["attrs"]


def write_segment(directory: str, first: int, end: int, level: int, parts: dict, attrs: dict,
                  compression: bool = False) -> Segment:
    """Write segment [first, end) of `level`: `parts` name -> (first row, list of arrays to
    concatenate), to a temporary file, closed, then renamed into place. The file has one
    attribute, `index`: JSON {first, end, level, rows: {name: [first row, count]}, attrs}
    (`attrs`: name -> {key: value}, "" for the store's own, e.g. the column names)."""
    path = os.path.join(directory, segment_name(first, end, level))
    tmp = path + TMP
    rows, data = {}, {}
    for name, (start, pieces) in parts.items():
        count = sum(p.shape[0] for p in pieces)
        if count:
            rows[name] = (int(start), int(count))
            data[name] = pieces
    index = json.dumps({"first": first, "end": end, "level": level, "rows": rows, "attrs": attrs})
    (_write_compressed if compression else _write_plain)(tmp, index, data)
    if FSYNC:
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    os.replace(tmp, path)
    _sync_dir(directory)
    return Segment(path, first, end, level, rows, os.path.getsize(path))


_LOW: dict = {}


def _low():
    """h5py's low-level modules and the property lists reused by every segment (created
    once): file access without locking, links creating intermediate groups."""
    if not _LOW:
        h5py = h5py_module()
        from h5py import h5a, h5d, h5f, h5p, h5s, h5t  # noqa: F401

        fapl = h5p.create(h5p.FILE_ACCESS)
        fapl.set_file_locking(False, True)
        lcpl = h5p.create(h5p.LINK_CREATE)
        lcpl.set_create_intermediate_group(True)
        _LOW.update(h5py=h5py, fapl=fapl, lcpl=lcpl, types={})
    return _LOW


def _write_plain(path: str, index: str, data: dict) -> None:
    """Contiguous datasets through h5py's low-level API (a fraction of the high-level cost
    per dataset: a segment is written at every commit)."""
    low = _low()
    h5py = low["h5py"]
    fid = h5py.h5f.create(path.encode(), h5py.h5f.ACC_TRUNC, fapl=low["fapl"])
    try:
        text = np.array(index.encode(), dtype=np.bytes_)
        tid = h5py.h5t.C_S1.copy()
        tid.set_size(text.itemsize)
        tid.set_strpad(h5py.h5t.STR_NULLPAD)
        aid = h5py.h5a.create(fid, b"index", tid, h5py.h5s.create(h5py.h5s.SCALAR))
        aid.write(text)
        aid.close()
        for name, pieces in data.items():
            first = pieces[0]
            count = sum(p.shape[0] for p in pieces)
            shape = (count,) + first.shape[1:]
            types = low["types"]
            tid = types.get(first.dtype)
            if tid is None:
                tid = types[first.dtype] = h5py.h5t.py_create(first.dtype)
            space = h5py.h5s.create_simple(shape)
            ds = h5py.h5d.create(fid, name.encode(), tid, space, lcpl=low["lcpl"])
            at = 0
            for p in pieces:
                p = np.ascontiguousarray(p)
                n = p.shape[0]
                if n:
                    fspace = ds.get_space()
                    fspace.select_hyperslab((at,) + (0,) * (p.ndim - 1), p.shape)
                    ds.write(h5py.h5s.create_simple(p.shape), fspace, p)
                at += n
            ds.close()
    finally:
        fid.close()


def _write_compressed(path: str, index: str, data: dict) -> None:
    h5py = h5py_module()
    with h5py.File(path, "w", locking=False) as f:
        f.attrs["index"] = np.bytes_(index.encode())
        for name, pieces in data.items():
            whole = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
            f.create_dataset(name, data=whole, chunks=True, compression="gzip", compression_opts=1, shuffle=True)


def merge(directory: str, segs: list, compression: bool = False) -> Segment:
    """One segment of the next level holding the consecutive segments `segs`; renamed into
    place before they are removed (a reader prefers the longer segment meanwhile)."""
    h5py = h5py_module()
    parts: dict = {}
    for seg in segs:
        with h5py.File(seg.path, "r", locking=False) as f:
            for name, (start, _) in seg.rows.items():
                parts.setdefault(name, (start, []))[1].append(f[name][()])
    merged = write_segment(directory, segs[0].first, segs[-1].end, min(segs[0].level + 1, FINAL - 1),
                           parts, segment_attrs(segs[0]), compression)
    for s in segs:
        with contextlib.suppress(OSError):
            os.remove(s.path)
    return merged


def merge_tail(directory: str, segs: list, compression: bool = False) -> list:
    """Merge the last FANOUT segments while they share a level and fit in MERGE_BYTES;
    returns the new list of segments."""
    segs = list(segs)
    while len(segs) >= FANOUT:
        tail = segs[-FANOUT:]
        level = tail[0].level
        if level >= FINAL - 1 or any(s.level != level for s in tail) or sum(s.nbytes for s in tail) > MERGE_BYTES:
            break
        segs[-FANOUT:] = [merge(directory, tail, compression)]
    return segs


def clean(directory: str, redundant: list, unfinished: list) -> None:
    """A writer reopening a directory removes what a killed writer left: unfinished
    temporary files and segments a merge made redundant."""
    for name in redundant + unfinished:
        with contextlib.suppress(OSError):
            os.remove(os.path.join(directory, name))
    if unfinished:
        session.note(f"results {directory!r}: {len(unfinished)} unfinished segment file(s) of a run that was"
                     " killed while writing them removed (their frames were never complete)")


class SegmentSet:
    """The segments of one store in frame order, read as row datasets: `total(name)`,
    `read(name, lo, hi)`, `take(name, rows)`. `hold()` keeps the files open for a sequence
    of reads; otherwise each read opens and closes what it needs."""

    def __init__(self, segments: list, relist=None):
        self.segments = list(segments)
        self.relist = relist          # () -> fresh segments, when a merge removed a file
        self.held: dict | None = None
        self._index: dict = {}

    def total(self, name: str) -> int:
        starts, counts, _ = self._where(name)
        return int(starts[-1] + counts[-1]) if starts.size else 0

    def names(self) -> list:
        return list(dict.fromkeys(n for s in self.segments for n in s.rows))

    def replace(self, segments: list) -> None:
        self.segments = list(segments)
        self._index = {}

    def _where(self, name: str):
        hit = self._index.get(name)
        if hit is None:
            held = [(s.rows[name][0], s.rows[name][1], k) for k, s in enumerate(self.segments) if name in s.rows]
            arr = np.array(held, dtype=np.int64).reshape(-1, 3)
            hit = self._index[name] = (arr[:, 0], arr[:, 1], arr[:, 2])
        return hit

    @contextlib.contextmanager
    def hold(self):
        if self.held is not None:
            yield
            return
        self.held = {}
        try:
            yield
        finally:
            held, self.held = self.held, None
            for key, f in held.items():
                if isinstance(key, str):
                    f.close()

    def _dataset(self, seg: Segment, name: str, files: list):
        """Dataset `name` of `seg`: from the held files (opened and looked up once), else
        from a file opened now and appended to `files` (closed by the caller)."""
        if self.held is not None:
            key = (seg.path, name)
            ds = self.held.get(key)
            if ds is None:
                f = self.held.get(seg.path)
                if f is None:
                    f = self.held[seg.path] = h5py_module().File(seg.path, "r", locking=False)
                ds = self.held[key] = f[name]
            return ds
        f = h5py_module().File(seg.path, "r", locking=False)
        files.append(f)
        return f[name]

    def read(self, name: str, lo: int, hi: int, like=None) -> np.ndarray:
        """Rows [lo, hi) of dataset `name` (`like`: an empty array of its row shape and type,
        returned when there are no rows)."""
        return self._retry(self._read, name, lo, hi, like)

    def _read(self, name, lo, hi, like):
        starts, counts, segs = self._where(name)
        picks = []
        k = max(int(np.searchsorted(starts, lo, side="right")) - 1, 0)
        while k < starts.size and starts[k] < hi:
            a, b = max(lo, int(starts[k])) - int(starts[k]), min(hi, int(starts[k] + counts[k])) - int(starts[k])
            if a < b:
                picks.append((self.segments[segs[k]], lambda ds, a=a, b=b: ds[a:b]))
            k += 1
        return self._collect(name, picks, like)

    def take(self, name: str, rows: np.ndarray, like=None) -> np.ndarray:
        """Rows at the sorted unique global indices `rows`: one read per segment of the
        range they span when dense, else the listed rows."""
        return self._retry(self._take, name, rows, like)

    def _take(self, name, rows, like):
        starts, counts, segs = self._where(name)
        picks = []
        bounds = np.searchsorted(rows, np.append(starts, starts[-1] + counts[-1]) if starts.size else [0])
        for k in range(starts.size):
            local = rows[bounds[k]:bounds[k + 1]] - starts[k]
            if local.size:
                lo, hi = int(local[0]), int(local[-1]) + 1
                dense = hi - lo <= 4 * local.size + 4096
                picks.append((self.segments[segs[k]],
                              lambda ds, lo=lo, hi=hi, local=local, dense=dense: ds[lo:hi][local - lo] if dense
                              else ds[local]))
        return self._collect(name, picks, like)

    def _collect(self, name, picks, like):
        """The rows `picks` [(segment, read(dataset))] of dataset `name`, joined in order."""
        pieces, files = [], []
        try:
            for seg, read in picks:
                pieces.append(read(self._dataset(seg, name, files)))
        finally:
            for f in files:
                f.close()
        if not pieces:
            return like[:0] if like is not None else np.zeros(0)
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)

    def _retry(self, method, *args):
        try:
            return method(*args)
        except FileNotFoundError:
            if self.relist is None or self.held:
                raise
            self.replace(self.relist())     # a writer merged segments since they were listed
            return method(*args)
