"""Movies and frame images of a stored run (layer 6): `solfec-py render OUTDIR [options]`
reads the body surfaces the run stored with its frames (the ParaView series
`<name>_xdmf.h5`, or the `<name>.h5` of an XDMF_EXPORT directory; else the model rebuilt
by the stored deck in READ mode, output/render_live.py) and draws them with
output/render.py: one fixed camera from the extents of all frames drawn, one colour scale
for a field, written as a GIF (matplotlib's PillowWriter), an MP4 (FFMpegWriter, needs the
ffmpeg program) or a directory of PNG images. Reference: Solfec-1.0 rnd.c (the viewer's
animation of stored frames); docs/results.md (usage).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time as wallclock

import numpy as np

from solfec_py.errors import ResultsError
from solfec_py.output import render

EPILOG = """\
frames (--frames, positions in the list of stored frames, the first is 0):
  all        every stored frame (default)     10       the 11th frame only
  0:50       the first fifty                  ::5      every fifth frame
  -1         the last frame                   0,10,20  these frames
--t0/--t1 first keep the frames in a time window. The camera is fixed for the whole movie:
it frames the extents of every frame drawn, unless --centre/--eye say otherwise; a --field
has one colour scale over all frames unless --limits gives it.

output (-o): NAME.gif (Pillow, comes with matplotlib), NAME.mp4 (needs the ffmpeg program
on PATH), or a directory (an existing one, or a name ending in '/' or without an
extension) that receives NAME_00000.png, NAME_00001.png, ...; default OUTDIR/NAME.gif.
The surfaces come from the run's ParaView series (OUTDIR/NAME_xdmf.h5), written during a
run unless SOLFEC_PY_XDMF=0. Without it, or with --replay, the deck stored in OUTDIR is
run in READ mode (as 'solfec-py OUTDIR' does) and every frame is drawn from the rebuilt
model: slower, full-resolution spheres, and the stress fields of every body kind.
"""


class StoredSurfaces:
    """The body surfaces of every stored frame of an XDMF heavy file (output/xdmf.py layout):
    `frames` lists (frame index, time, mesh) in frame order; `scene(k)` reads one."""

    def __init__(self, heavy: str):
        import h5py

        self.path = heavy
        try:
            self.file = h5py.File(heavy, "r", locking=False)
        except OSError as exc:
            raise ResultsError(f"cannot read the stored surfaces {heavy!r}: {exc}") from None
        f = self.file
        if "index" not in f or "frames" not in f or "mesh" not in f:
            self.file.close()
            raise ResultsError(f"{heavy!r} holds no surface series (no 'index', 'frames' and 'mesh')")
        latest = {}
        for row in f["index"][()]:
            if row[-1] == 1.0 and str(int(row[0])) in f["frames"]:
                latest[int(row[0])] = (int(row[0]), float(row[1]), int(row[2]))
        self.frames = [latest[i] for i in sorted(latest)]
        self.attributes = [a.decode() if isinstance(a, bytes) else str(a) for a in f.attrs.get("attributes", [])]
        self._mesh: dict = {}

    def close(self) -> None:
        self.file.close()

    def points(self, k: int) -> np.ndarray:
        return np.asarray(self.file[f"frames/{self.frames[k][0]}/points"][()], float)

    def scene(self, k: int, sources=()) -> render.Scene:
        index, _, mesh = self.frames[k]
        if mesh not in self._mesh:
            g = self.file[f"mesh/{mesh}"]
            self._mesh = {mesh: (np.asarray(g["topology"][()], np.int64), np.asarray(g["BID"][()], np.int64))}
        tri, bid = self._mesh[mesh]
        g = self.file[f"frames/{index}"]
        fields = {name: np.asarray(g[name][()], float) for name in sources if name in g}
        return render.Scene(np.asarray(g["points"][()], float), tri, bid, fields)


def surfaces_path(path: str) -> str:
    """The heavy file of the surfaces stored at `path`: an output directory (its live series
    NAME_xdmf.h5), its NAME.results directory, an XDMF_EXPORT directory (NAME.h5) or the file."""
    path = path.rstrip("/") or path
    if os.path.isfile(path):
        return path
    if path.endswith(".results"):
        path = os.path.dirname(path) or "."
    stem = os.path.basename(os.path.normpath(os.path.abspath(path)))
    for name in (f"{stem}_xdmf.h5", f"{stem}.h5"):
        candidate = os.path.join(path, name)
        if os.path.isfile(candidate):
            return candidate
    if not os.path.isdir(path):
        raise ResultsError(f"no results at {path!r}: not a directory")
    raise ResultsError(f"no stored surfaces in {path!r} (expected {os.path.join(path, stem + '_xdmf.h5')!r}, the"
                       " ParaView series a run writes unless SOLFEC_PY_XDMF=0); export them with"
                       " XDMF_EXPORT(sol, (t0, t1), 'DIR') in READ mode and render DIR")


def select_frames(frames: list, spec: str | None, t0=None, t1=None) -> list:
    """Positions into `frames` ((index, time, mesh) rows) chosen by a --frames SPEC and a time window."""
    window = [k for k, (_, t, _) in enumerate(frames)
              if (t0 is None or t >= t0 - 1e-12 * max(1.0, abs(t0))) and (t1 is None or t <= t1 + 1e-12 * max(1.0, abs(t1)))]
    spec = (spec or "all").strip()
    if spec == "all":
        return window
    try:
        if ":" in spec:
            parts = [int(p) if p.strip() else None for p in spec.split(":")]
            if len(parts) > 3 or (len(parts) == 3 and parts[2] == 0):
                raise ValueError
            return window[slice(*parts)]
        picks = [int(p) for p in spec.split(",")]
    except ValueError:
        raise ResultsError(f"--frames {spec!r}: expected 'all', N, N,M,..., START:STOP or START:STOP:STEP"
                           " (integers, STEP not 0)") from None
    out = []
    for p in picks:
        if not -len(window) <= p < len(window):
            raise ResultsError(f"--frames {spec!r}: frame {p} is out of range; {len(window)} frames are stored"
                               + (" in the time window" if t0 is not None or t1 is not None else ""))
        out.append(window[p])
    return out


def _triple(option: str, text: str | None):
    if text is None:
        return None
    try:
        values = [float(v) for v in text.replace("(", "").replace(")", "").split(",")]
    except ValueError:
        values = []
    if len(values) != 3 or not all(np.isfinite(values)):
        raise ResultsError(f"{option} {text!r}: expected three numbers X,Y,Z")
    return np.array(values)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ResultsError(f"--size {text!r}: expected WIDTHxHEIGHT in pixels, e.g. 800x600") from None
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise ResultsError(f"--size {text!r}: width and height must be 16 to 8192 pixels")
    return w, h


def output_kind(out: str) -> str:
    """'gif', 'mp4' or 'dir' for the -o argument."""
    ext = os.path.splitext(out.rstrip("/"))[1].lower()
    if out.endswith("/") or os.path.isdir(out) or not ext:
        return "dir"
    if ext in (".gif", ".mp4"):
        return ext[1:]
    raise ResultsError(f"-o {out!r}: expected a .gif or .mp4 file, or a directory for PNG frames")


def ffmpeg_available() -> bool:
    from matplotlib import rcParams

    return shutil.which(rcParams["animation.ffmpeg_path"]) is not None


class Meter:
    """Progress on stderr: a line rewritten in place on a terminal, else a line every 10 %."""

    def __init__(self, total: int, quiet: bool = False, stream=None):
        self.total, self.quiet = total, quiet
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = wallclock.perf_counter()
        self.shown = -1

    def update(self, done: int, time: float) -> None:
        if self.quiet:
            return
        tenth = 10 * done // max(self.total, 1)
        if self.tty:
            self.stream.write(f"\rrender: frame {done}/{self.total} (t = {time:g})")
            if done == self.total:
                self.stream.write(f" in {wallclock.perf_counter() - self.started:.1f} s\n")
        elif tenth != self.shown or done == self.total:
            self.shown = tenth
            self.stream.write(f"render: frame {done}/{self.total} (t = {time:g}),"
                              f" {wallclock.perf_counter() - self.started:.1f} s\n")
        self.stream.flush()


def extents(stored: StoredSurfaces, chosen: list, field: str | None) -> tuple:
    """(lower, upper) corners over every chosen frame, and (low, high) of `field` over them."""
    lower, upper = np.full(3, np.inf), np.full(3, -np.inf)
    low, high = np.inf, -np.inf
    sources = (render.FIELD_SOURCE[field],) if field else ()
    for k in chosen:
        scene = stored.scene(k, sources) if field else None
        pts = scene.points if scene is not None else stored.points(k)
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        if pts.size:
            lower, upper = np.minimum(lower, pts.min(axis=0)), np.maximum(upper, pts.max(axis=0))
        if field:
            values = scene.values(field)
            values = values[np.isfinite(values)]
            if values.size:
                low, high = min(low, float(values.min())), max(high, float(values.max()))
    if not np.all(np.isfinite(lower)):
        lower = upper = np.zeros(3)
    return (lower, upper), ((low, high) if low <= high else (0.0, 1.0))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="solfec-py render", formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Draw the bodies of a stored run, frame after frame, into a GIF or MP4"
                                            " movie or a directory of PNG images (no display needed).",
                                epilog=EPILOG)
    p.add_argument("results", help="output directory of an analysis (or its .results directory, or an"
                                   " XDMF_EXPORT directory)")
    p.add_argument("-o", "--output", help="NAME.gif, NAME.mp4 or a directory (default OUTDIR/NAME.gif)")
    p.add_argument("--frames", help="which stored frames (default all; see below)")
    p.add_argument("--t0", type=float, help="first time (default: the first frame)")
    p.add_argument("--t1", type=float, help="last time (default: the last frame)")
    p.add_argument("--fps", type=float, default=10.0, help="frames per second of a movie (default 10)")
    p.add_argument("--size", default="800x600", help="WIDTHxHEIGHT in pixels (default 800x600)")
    p.add_argument("--field", choices=render.FIELDS, metavar="FIELD",
                   help="colour by DX DY DZ DISP VX VY VZ VELO SX SY SZ SXY SXZ SYZ MISES (stress only when"
                        " the series holds STRESS); default each body in its colour")
    p.add_argument("--limits", help="LOW,HIGH of the colour scale (default the range over the frames drawn)")
    p.add_argument("--centre", help="X,Y,Z the camera looks at (default the centre of the extents)")
    p.add_argument("--eye", help="X,Y,Z of the camera (default off the centre along 1,-1.6,0.9)")
    p.add_argument("--up", help="X,Y,Z pointing up the image (default 0,0,1)")
    p.add_argument("--fov", type=float, default=render.DEFAULT_FOV, help="vertical field of view in degrees (default 30)")
    p.add_argument("--replay", action="store_true",
                   help="rebuild the model with the deck stored in OUTDIR (READ mode) and draw every frame from it"
                        " instead of reading the stored surfaces: full-resolution spheres, the stress of every body"
                        " kind; used anyway when the run stored no surfaces")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p


def _limits(text: str | None):
    if text is None:
        return None
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise ResultsError(f"--limits {text!r}: expected LOW,HIGH") from None
    if not hi > lo:
        raise ResultsError(f"--limits {text!r}: LOW must be below HIGH")
    return lo, hi


def main(argv: list[str] | None = None, replay=None) -> int:
    """The command; `replay(outdir)`, when given, rebuilds the SOLFEC object of a stored run
    in READ mode (the command line runs the stored deck: a higher layer's work)."""
    args = _parser().parse_args(argv)
    try:
        return _main(args, replay)
    except ResultsError as exc:
        print(f"solfec-py render: {exc}", file=sys.stderr)
        return 1


def _source(path: str, replay, forced: bool):
    """(frame source, its file) of the results at `path`: the stored surfaces, or the model
    rebuilt by `replay` when `forced` or when no surfaces were stored."""
    try:
        if not forced:
            heavy = surfaces_path(path)
            return StoredSurfaces(heavy), heavy
    except ResultsError:
        if replay is None:
            raise
    from solfec_py.output.store import exists, results_path

    directory = path.rstrip("/") or path
    directory = os.path.dirname(directory) or "." if directory.endswith(".results") else directory
    if not exists(results_path(directory)):
        raise ResultsError(f"no results in {path!r}: neither stored surfaces ({os.path.basename(directory)}_xdmf.h5)"
                           f" nor frames ({results_path(directory)!r})")
    if replay is None:
        raise ResultsError("--replay: rebuilding the model needs the solfec-py command")
    from solfec_py.output.render_live import LiveFrames

    source = LiveFrames(replay(path))
    return source, source.path


def _main(args, replay=None) -> int:
    size = _size(args.size)
    if not (args.fps > 0 and np.isfinite(args.fps)):
        raise ResultsError(f"--fps {args.fps!r}: must be a positive number")
    if not 1.0 <= args.fov <= 170.0:
        raise ResultsError(f"--fov {args.fov!r}: must be 1 to 170 degrees")
    centre, eye, up = _triple("--centre", args.centre), _triple("--eye", args.eye), _triple("--up", args.up)
    if up is not None and not np.linalg.norm(up) > 0:
        raise ResultsError("--up must be a non-zero vector")
    limits = _limits(args.limits)
    if args.output:
        kind = output_kind(args.output)
        if kind == "mp4" and not ffmpeg_available():
            raise ResultsError(f"-o {args.output!r}: writing an MP4 needs the ffmpeg program, which is not on PATH;"
                               " install ffmpeg, or write a .gif or a directory of PNG frames")
        if kind == "mp4" and (size[0] % 2 or size[1] % 2):
            size = (size[0] - size[0] % 2, size[1] - size[1] % 2)     # H.264 takes even sizes only
    stored, heavy = _source(args.results, replay, args.replay)
    try:
        stem = os.path.basename(os.path.normpath(os.path.dirname(os.path.abspath(heavy))))
        out = args.output or os.path.join(os.path.dirname(heavy), stem + ".gif")
        kind = output_kind(out)
        if args.field and render.FIELD_SOURCE[args.field] not in stored.attributes:
            raise ResultsError(f"--field {args.field}: the stored series holds {list(stored.attributes)}, not"
                               f" {render.FIELD_SOURCE[args.field]}; add --replay (draws from the model rebuilt by"
                               " its stored deck)")
        chosen = select_frames(stored.frames, args.frames, args.t0, args.t1)
        if not chosen:
            raise ResultsError(f"no stored frames to draw in {heavy!r} (with --frames/--t0/--t1 as given)")
        (lower, upper), (low, high) = extents(stored, chosen, args.field)
        if eye is not None and np.allclose(eye, centre if centre is not None else 0.5 * (lower + upper)):
            raise ResultsError("--eye must differ from the point the camera looks at (--centre)")
        camera = render.camera_for(lower, upper, size, centre, eye, up, args.fov)
        write(stored, chosen, out, kind, stem, size, camera, args.field, limits or (low, high), args.fps, args.quiet)
    finally:
        stored.close()
    print(out)
    return 0


def write(stored, chosen, out, kind, stem, size, camera, field, limits, fps, quiet=False) -> None:
    """Draw the chosen frames and write them as `kind` ('gif', 'mp4', 'dir') to `out`."""
    drawer = render.Renderer(size)
    sources = (render.FIELD_SOURCE[field],) if field else ()
    meter = Meter(len(chosen), quiet)
    writer = None
    try:
        if kind == "dir":
            os.makedirs(out, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
            from matplotlib.animation import FFMpegWriter, PillowWriter

            writer = PillowWriter(fps=fps) if kind == "gif" else FFMpegWriter(fps=fps)
            writer.setup(drawer.figure, out, dpi=drawer.dpi)
        for done, k in enumerate(chosen, 1):
            time = stored.frames[k][1]
            drawer.draw(stored.scene(k, sources), camera, field, limits, text=f"t = {time:g}")
            if writer is None:
                drawer.save(os.path.join(out, f"{stem}_{done - 1:05d}.png"))
            else:
                writer.grab_frame(facecolor=render.BACKGROUND)
            meter.update(done, time)
        if writer is not None:
            writer.finish()
    except OSError as exc:
        raise ResultsError(f"cannot write {out!r}: {exc.strerror or exc}") from None
