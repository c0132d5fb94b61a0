"""Images of body surfaces without a display (layer 6): a pinhole camera, shaded triangles
(depth-buffered, output/raster.py) put into PNG and other images with matplotlib's Agg
backend, optionally coloured by a point field with a colour bar.
Reference: Solfec-1.0 rnd.c (the viewer's shaded bodies and its DX..MISES result legends).

A scene is the current surface of a set of bodies: points (n, 3), triangles (t, 3), the id
of the body of every triangle, and point fields (DISP, VELO, STRESS) when known. The camera
looks from `eye` at `centre` with `up` pointing up the image and a vertical field of view
`fov` (degrees); a point p lands at pixel

    col = W/2 + f * (p - eye).right / depth,   row = H/2 - f * (p - eye).up / depth,
    depth = (p - eye).forward,   f = (H/2) / tan(fov/2)

(rows counted from the top). `camera_for` frames a bounding box so that it fits the image.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field as dataclass_field

import numpy as np

DEFAULT_SIZE = (800, 600)            # pixels, width x height
DEFAULT_FOV = 30.0                   # degrees, vertical
DEFAULT_DIRECTION = (1.0, -1.6, 0.9)  # from the centre towards the eye when no eye is given
BACKGROUND = (1.0, 1.0, 1.0)
SUPERSAMPLE = 2                      # samples per pixel along each axis
# the viewer's result legends (rnd.c): components and norms of displacement and velocity, stress
FIELDS = ("DX", "DY", "DZ", "DISP", "VX", "VY", "VZ", "VELO", "SX", "SY", "SZ", "SXY", "SXZ", "SYZ", "MISES")
FIELD_SOURCE = {**{k: "DISP" for k in ("DX", "DY", "DZ", "DISP")}, **{k: "VELO" for k in ("VX", "VY", "VZ", "VELO")},
                **{k: "STRESS" for k in ("SX", "SY", "SZ", "SXY", "SXZ", "SYZ", "MISES")}}
FIELD_UNIT = {"DISP": "m", "VELO": "m/s", "STRESS": "Pa"}


@dataclass
class Scene:
    """Current body surfaces: points (n, 3), triangles (t, 3), body id per triangle and the
    point fields known ('DISP', 'VELO': (n, 3); 'STRESS': (n, 6) sx sy sz sxy sxz syz)."""
    points: np.ndarray
    triangles: np.ndarray
    bid: np.ndarray
    fields: dict = dataclass_field(default_factory=dict)

    def extents(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) corners of the points' bounding box (finite points only)."""
        pts = np.asarray(self.points, float)
        pts = pts[np.all(np.isfinite(pts), axis=1)] if pts.size else pts
        if not pts.size:
            return np.zeros(3), np.zeros(3)
        return pts.min(axis=0), pts.max(axis=0)

    def values(self, name: str) -> np.ndarray:
        """The scalar point values of a field name of FIELDS (KeyError when its source is absent)."""
        data = np.asarray(self.fields[FIELD_SOURCE[name]], float)
        return field_values(name, data)


def field_values(name: str, data: np.ndarray) -> np.ndarray:
    """Scalar values of field `name` from its source array (DISP/VELO (n, 3) or STRESS (n, 6))."""
    if name in ("DISP", "VELO"):
        return np.linalg.norm(data, axis=1)
    if name == "MISES":
        sx, sy, sz, sxy, sxz, syz = data.T
        return np.sqrt(0.5 * ((sx - sy) ** 2 + (sy - sz) ** 2 + (sz - sx) ** 2) + 3.0 * (sxy ** 2 + sxz ** 2 + syz ** 2))
    column = {"DX": 0, "DY": 1, "DZ": 2, "VX": 0, "VY": 1, "VZ": 2,
              "SX": 0, "SY": 1, "SZ": 2, "SXY": 3, "SXZ": 4, "SYZ": 5}[name]
    return data[:, column]


def field_label(name: str) -> str:
    unit = FIELD_UNIT[FIELD_SOURCE[name]]
    return f"{'|d|' if name == 'DISP' else '|v|' if name == 'VELO' else name} [{unit}]"


@dataclass
class Camera:
    eye: np.ndarray
    centre: np.ndarray
    up: np.ndarray
    fov: float = DEFAULT_FOV

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(right, up, forward) unit vectors of the image (up re-orthogonalised)."""
        forward = np.asarray(self.centre, float) - np.asarray(self.eye, float)
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, self.up)
        if np.linalg.norm(right) < 1e-9 * np.linalg.norm(self.up):   # up along the view: any other
            right = np.cross(forward, (1.0, 0.0, 0.0) if abs(forward[0]) < 0.9 else (0.0, 1.0, 0.0))
        right /= np.linalg.norm(right)
        return right, np.cross(right, forward), forward

    def project(self, points, size) -> tuple[np.ndarray, np.ndarray]:
        """(pixel coordinates (n, 2) as (column, row from the top), depth (n,)) of points."""
        width, height = size
        right, up, forward = self.basis()
        rel = np.asarray(points, float) - np.asarray(self.eye, float)
        depth = rel @ forward
        f = 0.5 * height / math.tan(math.radians(self.fov) / 2.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            col = 0.5 * width + f * (rel @ right) / depth
            row = 0.5 * height - f * (rel @ up) / depth
        return np.stack([col, row], axis=1), depth


def camera_for(lower, upper, size=DEFAULT_SIZE, centre=None, eye=None, up=None, fov: float = DEFAULT_FOV) -> Camera:
    """A camera showing the box [lower, upper] whole: looking at `centre` (default the box
    centre) from `eye` (default along DEFAULT_DIRECTION, far enough for the box's bounding
    sphere to fit both the vertical and the horizontal field of view), `up` default +z
    (+y when the view is along z)."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    middle = 0.5 * (lower + upper)
    centre = middle if centre is None else np.asarray(centre, float)
    radius = 0.5 * float(np.linalg.norm(upper - lower)) + float(np.linalg.norm(centre - middle))
    if not radius > 0.0 or not math.isfinite(radius):
        radius = 1.0
    if eye is None:
        width, height = size
        half_v = math.radians(fov) / 2.0
        half_h = math.atan(math.tan(half_v) * width / height)
        distance = 1.05 * radius / math.sin(min(half_v, half_h))
        direction = np.asarray(DEFAULT_DIRECTION, float)
        eye = centre + distance * direction / np.linalg.norm(direction)
    eye = np.asarray(eye, float)
    if up is None:
        forward = centre - eye
        up = (0.0, 0.0, 1.0) if abs(forward[2]) < 0.99 * np.linalg.norm(forward) else (0.0, 1.0, 0.0)
    return Camera(eye, centre, np.asarray(up, float), float(fov))


def body_colours(bid: np.ndarray) -> np.ndarray:
    """(t, 3) RGB of every triangle by its body id (a cycle of soft colours)."""
    palette = np.array([[0.55, 0.67, 0.85], [0.90, 0.62, 0.45], [0.60, 0.80, 0.56], [0.85, 0.55, 0.62],
                        [0.72, 0.64, 0.86], [0.85, 0.80, 0.50], [0.52, 0.80, 0.80], [0.75, 0.75, 0.75]])
    return palette[np.asarray(bid, np.int64) % len(palette)]


class Renderer:
    """One matplotlib Figure of `size` pixels (Agg canvas) redrawn for every frame:
    `draw(scene, camera, ...)`, then `save(path)` or `rgb()`; `figure` serves movie writers."""

    def __init__(self, size=DEFAULT_SIZE, dpi: int = 100):
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.size = (int(size[0]), int(size[1]))
        self.dpi = dpi
        self.figure = Figure(figsize=(self.size[0] / dpi, self.size[1] / dpi), dpi=dpi, facecolor=BACKGROUND)
        FigureCanvasAgg(self.figure)
        self.axes = self.figure.add_axes((0.0, 0.0, 1.0, 1.0))
        self._colorbar_axes = None

    def draw(self, scene: Scene, camera: Camera, field: str | None = None, limits=None, text: str | None = None,
             cmap: str = "jet") -> None:
        """Draw the scene seen by `camera` (hidden surfaces removed: output/raster.py): each
        body in its colour, or the point field `field` (a name of FIELDS, interpolated over
        the triangles, colour scale `limits` = (low, high), default the scene's range) with
        a colour bar; every triangle shaded by the angle between its normal and the view
        direction; `text` in the top-left corner. Drawn at SUPERSAMPLE times the size and
        averaged down (smooth edges)."""
        from matplotlib import colormaps
        from matplotlib.colors import Normalize

        from solfec_py.output.raster import rasterize

        ax = self.axes
        ax.cla()
        width, height = self.size
        k = SUPERSAMPLE
        pts = np.asarray(scene.points, float)
        tri = np.asarray(scene.triangles, np.int64).reshape(-1, 3)
        pix, depth = camera.project(pts, (k * width, k * height))
        corners = pts[tri]                                     # (t, 3, 3)
        normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        length = np.linalg.norm(normal, axis=1)
        near = 1e-9 * max(float(np.linalg.norm(np.asarray(camera.centre) - camera.eye)), 1e-300)
        with np.errstate(invalid="ignore"):
            keep = (length > 0) & np.all(depth[tri] > near, axis=1) & np.all(np.isfinite(pix[tri]), axis=(1, 2))
        tri, normal, length = tri[keep], normal[keep], length[keep]
        view = pts[tri].mean(axis=1) - camera.eye
        view /= np.linalg.norm(view, axis=1)[:, None]
        light = 0.35 + 0.65 * np.abs(np.einsum("ij,ij->i", normal / length[:, None], view))
        norm, values = None, None
        if field is not None:
            values = scene.values(field)
            lo, hi = limits if limits is not None else _range(values)
            norm = Normalize(lo, hi if hi > lo else lo + 1.0)
        with np.errstate(divide="ignore"):
            face, value = rasterize(pix, np.where(depth > near, depth, np.inf), tri, values, (k * width, k * height))
        image = np.empty(face.shape + (3,))
        image[:] = BACKGROUND
        hit = face >= 0
        if field is not None:
            base = colormaps[cmap](norm(value[hit]))[:, :3]
        else:
            base = body_colours(np.asarray(scene.bid)[keep])[face[hit]]
        image[hit] = np.clip(base * light[face[hit], None], 0.0, 1.0)
        image = image.reshape(height, k, width, k, 3).mean(axis=(1, 3))
        ax.imshow(image, extent=(0, width, height, 0), interpolation="nearest", aspect="auto")
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)
        ax.set_axis_off()
        if text:
            ax.text(8, 8, text, va="top", ha="left", fontsize=10, color="black")
        self._colorbar(field, norm, cmap)

    def _colorbar(self, field, norm, cmap) -> None:
        if self._colorbar_axes is not None:
            self._colorbar_axes.remove()
            self._colorbar_axes = None
        if field is None:
            return
        from matplotlib.cm import ScalarMappable

        width, height = self.size
        cax = self.figure.add_axes(((width - 84.0) / width, 0.15, 14.0 / width, 0.7))   # labels in the last 70 px
        bar = self.figure.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax)
        bar.set_label(field_label(field), fontsize=9)
        cax.tick_params(labelsize=8)
        self._colorbar_axes = cax

    def save(self, path: str) -> None:
        self.figure.savefig(path, dpi=self.dpi, facecolor=BACKGROUND)

    def rgb(self) -> np.ndarray:
        """(H, W, 3) uint8 pixels of the last drawing."""
        canvas = self.figure.canvas
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def _range(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    return (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
