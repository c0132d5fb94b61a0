"""The scene of a live model for output.render (layer 6): the current surfaces of a list of
bodies, their displacements and velocities, and their stresses when asked for.
Reference: Solfec-1.0 rnd.c (what the viewer draws of each body kind).
"""
from __future__ import annotations

import numpy as np

from solfec_py.output.render import Scene
from solfec_py.output.surface import SurfaceSet


def live_scene(bodies, stress: bool = False) -> Scene:
    """The present surfaces of `bodies` (every kind and shape: SurfaceSet), with DISP and
    VELO point fields, and STRESS when `stress` is true (zero on rigid bodies)."""
    surface = SurfaceSet(bodies)
    x, d, v = (np.array(a, dtype=float) for a in surface.current())
    fields = {"DISP": d, "VELO": v}
    if stress:
        fields["STRESS"] = np.asarray(surface.stresses(), dtype=float)
    return Scene(x, surface.triangles.copy(), surface.bid.copy(), fields)


class LiveFrames:
    """The stored frames of a SOLFEC object in READ mode as scenes: `frames` lists (frame
    index, time, 0); `scene(k)` loads frame k into the model (output/replay.py) and draws
    every body from it, so any field of render.FIELDS is available. The frame source of
    `solfec-py render --replay` and of runs that stored no surfaces."""

    attributes = ("DISP", "VELO", "STRESS")

    def __init__(self, solfec):
        from solfec_py.output import replay

        replay.ensure_loaded(solfec)
        self.solfec = solfec
        self.path = solfec.store.path
        self.frames = [(i, float(t), 0) for i, t in enumerate(solfec.store.times)]

    def scene(self, k: int, sources=()) -> "Scene":
        from solfec_py.output import replay

        replay.load(self.solfec, self.frames[k][0])
        return live_scene(self.solfec.domain.bodies, stress="STRESS" in sources)

    def points(self, k: int) -> np.ndarray:
        return self.scene(k).points

    def close(self) -> None:
        pass
