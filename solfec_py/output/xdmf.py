"""ParaView output (layer 6): XDMF 3 files (XML) over an HDF5 file of per-frame datasets,
written frame by frame during a run (`<base>_grids.xmf`, `<base>_constraints.xmf`,
heavy data `<base>_xdmf.h5` in the output directory) and by XDMF_EXPORT.
Reference: LANGUAGE §14.2 (Solfec's XDMF export: `_grids.xmf`, `_constraints.xmf`).

Each frame is one uniform grid of a temporal collection: all bodies' surface triangles
(topology and the cell attribute BID shared by frames while the body set is unchanged),
the current points, and the point attributes DISP (x − X), VELO (and STRESS, zero for
rigid bodies); constraints are a polyvertex grid with REAC (global reaction B·R), RELV
(global relative velocity B·U), GAP and KIND. Heavy data are float32 (visualisation only;
the results of record are the float64 frames of the results store). The XML is extended
in place at every frame (the closing tags are rewritten after the new grid) and the heavy
file is opened and closed per frame, so ParaView can open the results during a run.
Set the environment variable SOLFEC_PY_XDMF=0 to switch the live export off.
"""
from __future__ import annotations

import os

import numpy as np

from solfec_py.output import frames as L
from solfec_py.output.surface import SurfaceSet

ATTRIBUTES = ("DISP", "VELO", "STRESS", "REAC", "RELV", "GAP")
DEFAULT_ATTRIBUTES = ("DISP", "VELO", "REAC", "GAP")
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


class XdmfSeries:
    """A time series of body surfaces (and constraint points) in `directory`."""

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

    # ------------------------------------------------------------------ files
    def _h5(self, mode):
        import h5py

        return h5py.File(self.heavy, mode, locking=False)

    def _file(self):
        """The heavy file, kept open (and flushed per frame) until `close()`."""
        if self._open is None:
            self._open = self._h5("a")
        return self._open

    def close(self) -> None:
        if self._open is not None:
            self._open.close()
            self._open = None

    def start(self, keep_frames: int = 0) -> None:
        """Fresh files, or (keep_frames > 0, a continued run) the first frames of existing
        ones: later frame groups are dropped and the XML rebuilt from the heavy file."""
        self.close()
        if keep_frames and os.path.isfile(self.heavy):
            f = self._file()
            frames = f.require_group("frames")
            for key in [k for k in frames if int(k) >= keep_frames]:
                del frames[key]
            self.mesh = max((int(k) for k in f.require_group("mesh")), default=-1)
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
        self._write_xml(self.grids, "bodies", [])

    def write_frame(self, index: int, time: float, bodies, constraint_rows=None) -> None:
        """Append frame `index` at `time`: the surfaces of `bodies` (current state)."""
        if self.surface is None or not self.surface.same_bodies(bodies):
            self.surface = SurfaceSet(bodies, self.coarse)
            self.mesh += 1
            new_mesh = True
        else:
            new_mesh = False
        s = self.surface
        x, disp, v = s.current()
        cons = np.zeros((0, len(L.CON_COLUMNS))) if constraint_rows is None else constraint_rows
        f = self._file()
        if new_mesh:
            g = f.require_group(f"mesh/{self.mesh}")
            for key in ("topology", "BID"):
                if key in g:
                    del g[key]
            g.create_dataset("topology", data=s.triangles.astype(np.int64))
            g.create_dataset("BID", data=s.bid.astype(np.int32))
        frames = f.require_group("frames")
        if str(index) in frames:
            del frames[str(index)]
        g = frames.create_group(str(index))
        g.create_dataset("points", data=x)
        if "DISP" in self.attributes:
            g.create_dataset("DISP", data=disp)
        if "VELO" in self.attributes:
            g.create_dataset("VELO", data=v)
        if "STRESS" in self.attributes:
            g.create_dataset("STRESS", data=np.zeros((x.shape[0], 6), np.float32))
        if cons.shape[0]:
            _write_constraints(g, cons, self.attributes)
        meta = dict(time=float(time), mesh=self.mesh, npoints=x.shape[0], ntri=s.triangles.shape[0],
                    ncons=cons.shape[0])
        g.attrs.update(meta)
        first_constraints = cons.shape[0] and not self.has_constraints
        if first_constraints:       # frames without constraints show this one point
            dummy = np.zeros((1, len(L.CON_COLUMNS)))
            dummy[0, L.POINT] = x.mean(axis=0) if x.shape[0] else 0.0
            _write_constraints(f.require_group("placeholder"), dummy, self.attributes)
            self.has_constraints = True
        f.flush()
        self._append_xml(self.grids, "bodies", self._grid_xml(index, meta))
        if first_constraints:
            self.rebuild_xml()
        elif self.has_constraints:
            self._append_xml(self.cons, "constraints", self._cons_xml(index, meta))

    # ------------------------------------------------------------------ XML
    def rebuild_xml(self) -> None:
        """Write both XML files from the frames stored in the heavy file."""
        f = self._file()
        frames = f.require_group("frames")
        metas = [(int(k), dict(frames[k].attrs)) for k in frames]
        metas.sort()
        self._write_xml(self.grids, "bodies", [self._grid_xml(i, m) for i, m in metas])
        if self.has_constraints:
            self._write_xml(self.cons, "constraints", [self._cons_xml(i, m) for i, m in metas])

    def _write_xml(self, path, name, grids) -> None:
        tmp = path + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(HEAD.format(name=name) + "".join(grids) + TAIL)
        os.replace(tmp, path)

    def _append_xml(self, path, name, grid: str) -> None:
        if not os.path.isfile(path):
            self._write_xml(path, name, [grid])
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
            fh.write(grid.encode() + tail)
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
        for name, width in (("DISP", 3), ("VELO", 3), ("STRESS", 6)):
            if name in self.attributes:
                kind = "Vector" if width == 3 else "Matrix"
                out.append(_attribute(name, kind, "Node", _item((npt, width), f"{h}:/frames/{i}/{name}")))
        out.append("      </Grid>\n")
        return "".join(out)

    def _cons_xml(self, i: int, m: dict) -> str:
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
    B = cons[:, L.BASE].reshape(-1, 3, 3).transpose(0, 2, 1)      # columns t1, t2, n
    g.create_dataset("cpoints", data=cons[:, L.POINT].astype(np.float32))
    g.create_dataset("KIND", data=cons[:, L.CCOL["KIND"]].astype(np.int32))
    g.create_dataset("vertices", data=np.arange(cons.shape[0], dtype=np.int32)[:, None])
    if "REAC" in attributes:
        g.create_dataset("REAC", data=np.einsum("nij,nj->ni", B, cons[:, L.REAC]).astype(np.float32))
    if "RELV" in attributes:
        g.create_dataset("RELV", data=np.einsum("nij,nj->ni", B, cons[:, L.RELV]).astype(np.float32))
    if "GAP" in attributes:
        g.create_dataset("GAP", data=cons[:, L.CCOL["GAP"]].astype(np.float32))
