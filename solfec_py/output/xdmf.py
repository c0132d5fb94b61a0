"""ParaView output (layer 6): XDMF 3 files (XML) over an HDF5 file of per-frame datasets,
written frame by frame during a run (`<base>_grids.xmf`, `<base>_constraints.xmf`,
heavy data `<base>_xdmf.h5` in the output directory) and by XDMF_EXPORT.
Reference: Solfec-1.0 user manual, XDMF_EXPORT (Solfec's XDMF export: `_grids.xmf`, `_constraints.xmf`).

Each frame is one uniform grid of a temporal collection: all bodies' surface triangles
(topology and the cell attributes BID and SURFID, the body and surface id of each
triangle, shared by frames while the body set is unchanged), the current points, and the
point attributes DISP (x − X), VELO and STRESS (by default when the model holds finite-element
bodies; zero on rigid bodies); constraints are a
polyvertex grid with REAC (global reaction B·R), RELV (global relative velocity B·U), GAP
and KIND. Heavy data are float32 (visualisation only;
the results of record are the float64 frames of the results store). The heavy file stays
open during a run; it is flushed and the XML extended in place (the closing tags rewritten
after the new grids) every FLUSH_SECONDS, so ParaView can open the results during a run.
Set the environment variable SOLFEC_PY_XDMF=0 to switch the live export off.
"""
from __future__ import annotations

import os

import numpy as np

from solfec_py.output import frames
from solfec_py.output.surface import SurfaceSet

ATTRIBUTES = ("DISP", "VELO", "STRESS", "REAC", "RELV", "GAP")
DEFAULT_ATTRIBUTES = ("DISP", "VELO", "REAC", "GAP")
STRESSED_KINDS = ("FINITE_ELEMENT",)      # bodies whose STRESS the files carry by default


def default_attributes(bodies) -> tuple:
    """The attributes written unless the deck names them: DEFAULT_ATTRIBUTES, and STRESS
    when a finite-element body is among `bodies` (its stress field is what ParaView is
    opened for; rigid bodies would only add zeros)."""
    if any(getattr(body, "kind", None) in STRESSED_KINDS for body in bodies):
        return DEFAULT_ATTRIBUTES[:2] + ("STRESS",) + DEFAULT_ATTRIBUTES[2:]
    return DEFAULT_ATTRIBUTES
HEAD = ('<?xml version="1.0"?>\n<Xdmf Version="3.0">\n  <Domain>\n'
        '    <Grid Name="{name}" GridType="Collection" CollectionType="Temporal">\n')
TAIL = "    </Grid>\n  </Domain>\n</Xdmf>\n"


def live_enabled() -> bool:
    return os.environ.get("SOLFEC_PY_XDMF", "1").strip().lower() not in ("0", "off", "no", "false")


def live_names(outpath: str) -> tuple[str, str]:
    """(file name stem, heavy data file name) of the live export of an output directory."""
    base = os.path.basename(os.path.normpath(outpath))
    return base, base + "_xdmf.h5"


def remove_live_files(outpath: str) -> None:
    stem, heavy = live_names(outpath)
    for name in (f"{stem}_grids.xmf", f"{stem}_constraints.xmf", heavy):
        try:
            os.remove(os.path.join(outpath, name))
        except OSError:
            pass


def _item(dims, path, number="Float", precision=4):
    dims = " ".join(str(int(d)) for d in dims)
    return (f'<DataItem Dimensions="{dims}" NumberType="{number}" Precision="{precision}"'
            f' Format="HDF">{path}</DataItem>')


def _attribute(name, kind, center, item):
    return (f'        <Attribute Name="{name}" AttributeType="{kind}" Center="{center}">\n'
            f"          {item}\n        </Attribute>\n")


# columns of the heavy file's table `index` (VALID = 1 marks a written row: rows are allocated ahead)
META = ("index", "time", "mesh", "npoints", "ntri", "ncons", "valid")


class XdmfSeries:
    """A time series of body surfaces (and constraint points) in `directory`.

    Heavy data: `mesh/<m>/topology|BID` per body set, `frames/<i>/<array>` per frame
    (datasets created through h5py's low-level API: a fraction of the high-level cost), and
    the table `index` (one row per frame, columns META) from which the XML is rebuilt. The
    heavy file is flushed and the XML extended with the frames written since, at most every
    `store.FLUSH_SECONDS` of wall-clock time and at `close()`: the XML only ever names
    flushed datasets, and a killed run loses the XML entries of the last frames only."""

    def __init__(self, directory: str, stem: str, heavy: str, attributes=DEFAULT_ATTRIBUTES,
                 coarse: bool = False):
        self.directory = directory
        self.grids = os.path.join(directory, f"{stem}_grids.xmf")
        self.cons = os.path.join(directory, f"{stem}_constraints.xmf")
        self.heavy_name = heavy
        self.heavy = os.path.join(directory, heavy)
        self.attributes = tuple(attributes)
        self.surface: SurfaceSet | None = None
        self.mesh = -1
        self.has_constraints = False
        self.coarse = coarse
        self._open = None
        self._metas: list = []       # (frame index, meta dict) of every frame of the series
        self._synced = 0             # how many of them the XML files show
        self._cons_xml = False       # the constraints XML file exists (with every synced frame)
        self._synced_at = -np.inf    # time.monotonic() of the last sync
        self._rows = 0               # rows of `index` in use
        self._frames_group = None    # the open file's group `frames`
        self._with_surfid: set = set()   # body-set meshes holding SURFID (surface id per triangle)

    # ------------------------------------------------------------------ files
    def _h5(self, mode):
        import h5py

        return h5py.File(self.heavy, mode, locking=False)

    def _file(self):
        """The heavy file, kept open until `close()`."""
        if self._open is None:
            self._open = self._h5("a")
        return self._open

    def close(self) -> None:
        if self._open is not None:
            try:
                self.sync()
                ds = self._open["index"]
                if ds.shape[0] > self._rows:
                    ds.resize(self._rows, axis=0)
            finally:
                self._open.close()
                self._open, self._frames_group = None, None

    def close_quietly(self) -> None:
        """Drop the heavy file's handle after a failure, whatever state it is in."""
        f, self._open, self._frames_group = self._open, None, None
        if f is not None:
            try:
                f.close()
            except Exception:   # noqa: BLE001 (a damaged file may fail to close; it is dropped)
                pass

    def start(self, keep_frames: int = 0) -> None:
        """Fresh files, or (keep_frames > 0, a continued run) the first frames of existing
        ones: later frames are dropped and the XML rebuilt from the heavy file."""
        self.close()
        if keep_frames and os.path.isfile(self.heavy):
            f = self._file()
            frame_groups = f.require_group("frames")
            if "index" not in f:                    # written before the table existed: group attributes
                old = [[int(k)] + [float(frame_groups[k].attrs[c]) for c in META[1:-1]] + [1.0] for k in frame_groups]
                f.create_dataset("index", data=np.array(old).reshape(-1, len(META)), maxshape=(None, len(META)),
                                 chunks=(256, len(META)), dtype="f8")
            latest = {}                             # a frame written twice: its last row
            for r in f["index"][()]:
                if r[-1] == 1.0 and 0 <= r[0] < keep_frames and str(int(r[0])) in frame_groups:
                    latest[int(r[0])] = r
            keep = [latest[i] for i in sorted(latest)]
            for key in [k for k in frame_groups if int(k) >= keep_frames]:
                del frame_groups[key]
            self._metas = [(int(r[0]), dict(zip(META[1:-1], r[1:-1].tolist()))) for r in keep]
            f["index"].resize(len(keep), axis=0)
            if keep:
                f["index"][:] = np.array(keep)
            self._rows = len(keep)
            self.mesh = max((int(k) for k in f.require_group("mesh")), default=-1)
            self._with_surfid = {int(k) for k in f["mesh"] if "SURFID" in f["mesh"][k]}
            self.has_constraints = "placeholder" in f
            self.rebuild_xml()
            return
        for path in (self.grids, self.cons, self.heavy):
            if os.path.exists(path):
                os.remove(path)
        with self._h5("w") as f:
            f.attrs["attributes"] = list(self.attributes)
            f.create_group("mesh")
            f.create_group("frames")
            ds = f.create_dataset("index", (0, len(META)), maxshape=(None, len(META)), chunks=(256, len(META)),
                                  dtype="f8")
            ds.attrs["columns"] = list(META)
        self._metas, self._rows, self._with_surfid = [], 0, set()
        self._write_xml(self.grids, "bodies", [])
        self._synced, self._cons_xml = 0, False

    def write_frame(self, index: int, time: float, bodies, constraint_rows=None, sync: bool | None = None) -> None:
        """Append frame `index` at `time`: the surfaces of `bodies` (current state); then
        `sync()` when `sync` is True, or (None) when FLUSH_SECONDS passed since the last."""
        if self.surface is None or not self.surface.same_bodies(bodies):
            self.surface = SurfaceSet(bodies, self.coarse)
            self.mesh += 1
            new_mesh = True
        else:
            new_mesh = False
        s = self.surface
        x, disp, v = s.current()
        cons = np.zeros((0, len(frames.CON_COLUMNS))) if constraint_rows is None else constraint_rows
        f = self._file()
        if new_mesh:
            g = f.require_group(f"mesh/{self.mesh}")
            for key in ("topology", "BID", "SURFID"):
                if key in g:
                    del g[key]
            _put(g, "topology", s.triangles.astype(np.int64))
            _put(g, "BID", s.bid.astype(np.int32))
            _put(g, "SURFID", s.sid.astype(np.int32))
            self._with_surfid.add(self.mesh)
        if self._frames_group is None:
            self._frames_group = f["frames"]
        frame_groups = self._frames_group
        if self._metas and index <= self._metas[-1][0] and str(index) in frame_groups:   # rewritten
            del frame_groups[str(index)]
        g = _group(frame_groups, str(index))
        _put(g, "points", x)
        if "DISP" in self.attributes:
            _put(g, "DISP", disp)
        if "VELO" in self.attributes:
            _put(g, "VELO", v)
        if "STRESS" in self.attributes:
            _put(g, "STRESS", s.stresses())
        if cons.shape[0]:
            _write_constraints(g, cons, self.attributes)
        meta = dict(time=float(time), mesh=self.mesh, npoints=x.shape[0], ntri=s.triangles.shape[0],
                    ncons=cons.shape[0])
        self._append_index(f, index, meta)
        if cons.shape[0] and not self.has_constraints:   # frames without constraints show this point
            dummy = np.zeros((1, len(frames.CON_COLUMNS)))
            dummy[0, frames.POINT] = x.mean(axis=0) if x.shape[0] else 0.0
            _write_constraints(_group(f, "placeholder"), dummy, self.attributes)
            self.has_constraints = True
        self._metas.append((index, meta))
        if sync is None:
            sync = _now() - self._synced_at >= _flush_seconds()
        if sync:
            self.sync()

    def _append_index(self, f, index: int, meta: dict) -> None:
        ds = f["index"]
        if ds.shape[0] <= self._rows:
            ds.resize(max(self._rows + 1, 2 * ds.shape[0], 64), axis=0)
        row = np.array([[index] + [float(meta[k]) for k in META[1:-1]] + [1.0]])
        fspace = ds.id.get_space()
        fspace.select_hyperslab((self._rows, 0), row.shape)
        ds.id.write(_h5().h5s.create_simple(row.shape), fspace, row)
        self._rows += 1

    def sync(self, now: float | None = None) -> None:
        """Flush the heavy file, then name the frames written since the last sync in the
        XML files (the constraints file is created, with all frames, at the first frame
        with constraints)."""
        if self._open is None:
            return
        self._open.flush()
        self._synced_at = _now() if now is None else now
        new = self._metas[self._synced:]
        if new:
            self._append_xml(self.grids, "bodies", "".join(self._grid_xml(i, m) for i, m in new))
        if self.has_constraints and not self._cons_xml:
            self._write_xml(self.cons, "constraints", [self._cons_xml_of(i, m) for i, m in self._metas])
            self._cons_xml = True
        elif self.has_constraints and new:
            self._append_xml(self.cons, "constraints", "".join(self._cons_xml_of(i, m) for i, m in new))
        self._synced = len(self._metas)

    # ------------------------------------------------------------------ XML
    def rebuild_xml(self) -> None:
        """Write both XML files from the frames of the series (all flushed first)."""
        if self._open is not None:
            self._open.flush()
        metas = sorted(self._metas, key=lambda im: im[0])
        self._write_xml(self.grids, "bodies", [self._grid_xml(i, m) for i, m in metas])
        if self.has_constraints:
            self._write_xml(self.cons, "constraints", [self._cons_xml_of(i, m) for i, m in metas])
        self._synced, self._cons_xml, self._synced_at = len(self._metas), self.has_constraints, _now()

    def _write_xml(self, path, name, grids) -> None:
        tmp = path + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(HEAD.format(name=name) + "".join(grids) + TAIL)
        os.replace(tmp, path)

    def _append_xml(self, path, name, grids: str) -> None:
        """Insert `grids` before the closing tags (one write: the file stays valid)."""
        if not os.path.isfile(path):
            self.rebuild_xml()
            return
        tail = TAIL.encode()
        with open(path, "r+b") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(size - len(tail), 0))
            if fh.read() != tail:
                fh.close()
                self.rebuild_xml()
                return
            fh.seek(size - len(tail))
            fh.write(grids.encode() + tail)
            fh.truncate()

    def _grid_xml(self, i: int, m: dict) -> str:
        h, npt, ntri = self.heavy_name, int(m["npoints"]), int(m["ntri"])
        mesh = f"{h}:/mesh/{int(m['mesh'])}"
        out = [f'      <Grid Name="frame{i}" GridType="Uniform">\n',
               f'        <Time Value="{float(m["time"])!r}"/>\n',
               f'        <Topology TopologyType="Triangle" NumberOfElements="{ntri}">\n'
               f"          {_item((ntri, 3), mesh + '/topology', 'Int', 8)}\n        </Topology>\n",
               f'        <Geometry GeometryType="XYZ">\n'
               f"          {_item((npt, 3), f'{h}:/frames/{i}/points')}\n        </Geometry>\n",
               _attribute("BID", "Scalar", "Cell", _item((ntri,), mesh + "/BID", "Int", 4))]
        if int(m["mesh"]) in self._with_surfid:                   # meshes written before SURFID existed lack it
            out.append(_attribute("SURFID", "Scalar", "Cell", _item((ntri,), mesh + "/SURFID", "Int", 4)))
        for name, width in (("DISP", 3), ("VELO", 3), ("STRESS", 6)):
            if name in self.attributes:
                kind = "Vector" if width == 3 else "Matrix"
                out.append(_attribute(name, kind, "Node", _item((npt, width), f"{h}:/frames/{i}/{name}")))
        out.append("      </Grid>\n")
        return "".join(out)

    def _cons_xml_of(self, i: int, m: dict) -> str:
        h, n = self.heavy_name, int(m["ncons"])
        group = f"{h}:/frames/{i}" if n else f"{h}:/placeholder"   # XDMF readers reject empty grids
        n = max(n, 1)
        out = [f'      <Grid Name="constraints{i}" GridType="Uniform">\n',
               f'        <Time Value="{float(m["time"])!r}"/>\n',
               f'        <Topology TopologyType="Polyvertex" NumberOfElements="{n}" NodesPerElement="1">\n'
               f"          {_item((n, 1), group + '/vertices', 'Int', 4)}\n        </Topology>\n",
               '        <Geometry GeometryType="XYZ">\n'
               f"          {_item((n, 3), group + '/cpoints')}\n        </Geometry>\n",
               _attribute("KIND", "Scalar", "Node", _item((n,), group + "/KIND", "Int", 4))]
        for name, width in (("REAC", 3), ("RELV", 3), ("GAP", 1)):
            if name in self.attributes:
                dims = (n, 3) if width == 3 else (n,)
                kind = "Vector" if width == 3 else "Scalar"
                out.append(_attribute(name, kind, "Node", _item(dims, f"{group}/{name}")))
        out.append("      </Grid>\n")
        return "".join(out)


def _write_constraints(g, cons: np.ndarray, attributes) -> None:
    """Constraint points and attributes (global reaction and relative velocity)."""
    B = cons[:, frames.BASE].reshape(-1, 3, 3).transpose(0, 2, 1)      # columns t1, t2, n
    _put(g, "cpoints", cons[:, frames.POINT].astype(np.float32))
    _put(g, "KIND", cons[:, frames.CCOL["KIND"]].astype(np.int32))
    _put(g, "vertices", np.arange(cons.shape[0], dtype=np.int32)[:, None])
    if "REAC" in attributes:
        _put(g, "REAC", np.einsum("nij,nj->ni", B, cons[:, frames.REAC]).astype(np.float32))
    if "RELV" in attributes:
        _put(g, "RELV", np.einsum("nij,nj->ni", B, cons[:, frames.RELV]).astype(np.float32))
    if "GAP" in attributes:
        _put(g, "GAP", cons[:, frames.CCOL["GAP"]].astype(np.float32))


# ---------------------------------------------------------------------- low-level HDF5
_TYPES: dict = {}
_H5: list = []


def _h5():
    """h5py, imported on first use and then kept (an import statement in the per-dataset
    helpers below cost ~0.1 ms per call, a third of writing a small dataset)."""
    if not _H5:
        import h5py
        import h5py.h5d
        import h5py.h5g
        import h5py.h5s
        import h5py.h5t

        _H5.append(h5py)
    return _H5[0]


def _group(parent, name: str):
    """A new group `name` in h5py group (or file) `parent` (low-level: no h5py wrappers)."""
    h5py = _h5()
    return h5py.h5g.create(parent.id if isinstance(parent, h5py.Group) else parent, name.encode())


def _put(group, name: str, data: np.ndarray) -> None:
    """A contiguous dataset `name` holding `data`, in an h5py group or a low-level GroupID."""
    h5py = _h5()
    data = np.ascontiguousarray(data)
    tid = _TYPES.get(data.dtype)
    if tid is None:
        tid = _TYPES[data.dtype] = h5py.h5t.py_create(data.dtype)
    gid = group.id if isinstance(group, h5py.Group) else group
    space = h5py.h5s.create_simple(data.shape)
    ds = h5py.h5d.create(gid, name.encode(), tid, space)
    if data.size:
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, data)


def _now() -> float:
    import time

    return time.monotonic()


def _flush_seconds() -> float:
    from solfec_py.output.store import FLUSH_SECONDS

    return FLUSH_SECONDS
