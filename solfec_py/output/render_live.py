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
