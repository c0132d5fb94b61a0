"""Depth-buffered rasterisation of projected triangles (layer 6), the hidden-surface step of
output/render.py: which triangle each pixel shows and the point field value there.
Reference: the z-buffer of OpenGL, which Solfec-1.0's viewer (rnd.c) draws with.

Pixel (i, j) covers [j, j+1] x [i, i+1] in the (column, row from the top) coordinates of
Camera.project and samples its centre. Depth is tested on 1/depth, which is linear in
screen space; field values are interpolated perspective-correctly.
"""
from __future__ import annotations

import numpy as np

from solfec_py.compilation import njit


@njit
def _raster(col, row, inv, tri, vals, face, zbuf, value):
    height, width = face.shape
    for t in range(tri.shape[0]):
        a, b, c = tri[t, 0], tri[t, 1], tri[t, 2]
        x0, y0, x1, y1, x2, y2 = col[a], row[a], col[b], row[b], col[c], row[c]
        area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if area == 0.0:
            continue
        j0 = max(int(np.floor(min(x0, x1, x2) - 0.5)), 0)
        j1 = min(int(np.ceil(max(x0, x1, x2) - 0.5)), width - 1)
        i0 = max(int(np.floor(min(y0, y1, y2) - 0.5)), 0)
        i1 = min(int(np.ceil(max(y0, y1, y2) - 0.5)), height - 1)
        eps = -1e-9
        for i in range(i0, i1 + 1):
            py = i + 0.5
            for j in range(j0, j1 + 1):
                px = j + 0.5
                w0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) / area
                w1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) / area
                w2 = 1.0 - w0 - w1
                if w0 < eps or w1 < eps or w2 < eps:
                    continue
                iz = w0 * inv[a] + w1 * inv[b] + w2 * inv[c]
                if iz > zbuf[i, j]:
                    zbuf[i, j] = iz
                    face[i, j] = t
                    value[i, j] = (w0 * vals[a] * inv[a] + w1 * vals[b] * inv[b] + w2 * vals[c] * inv[c]) / iz


def rasterize(pixels: np.ndarray, depth: np.ndarray, triangles: np.ndarray, values: np.ndarray | None,
              size) -> tuple[np.ndarray, np.ndarray]:
    """(face (H, W) int64: the index of the triangle each pixel shows, -1 for none;
    value (H, W): the field interpolated there, NaN for none) of triangles whose vertices
    lie in front of the camera (depth > 0)."""
    width, height = int(size[0]), int(size[1])
    face = np.full((height, width), -1, np.int64)
    zbuf = np.zeros((height, width))
    value = np.full((height, width), np.nan)
    vals = np.zeros(pixels.shape[0]) if values is None else np.ascontiguousarray(values, float)
    if triangles.shape[0]:
        _raster(np.ascontiguousarray(pixels[:, 0], float), np.ascontiguousarray(pixels[:, 1], float),
                1.0 / np.asarray(depth, float), np.ascontiguousarray(triangles, np.int64), vals, face, zbuf, value)
    return face, value
