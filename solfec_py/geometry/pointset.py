"""Motion of primitives stored as point sets (layer 1): the reference/current coordinate
pair shared by Convex and Mesh, with the transforms of Solfec-1.0 user manual, shape utilities and the rigid placement
x = xc + R (X - X0) of docs/integrators.md.
"""
from __future__ import annotations

import numpy as np


class PointSetMotion:
    """Mixin for classes with `ref` and `cur` arrays of shape (n, 3)."""

    def transform(self, A, b) -> None:
        """x -> A x + b on both configurations."""
        A, b = np.asarray(A, float), np.asarray(b, float)
        self.ref = self.ref @ A.T + b
        self.cur = self.cur @ A.T + b

    def scale(self, coefs) -> None:
        """Component-wise scaling about the origin (SCALE, Solfec-1.0 user manual, SCALE)."""
        c = np.asarray(coefs, float)
        self.ref = self.ref * c
        self.cur = self.cur * c

    def set_rigid_motion(self, R, xc, X0) -> None:
        """cur = xc + R (ref - X0)."""
        self.cur = np.asarray(xc, float) + (self.ref - np.asarray(X0, float)) @ np.asarray(R, float).T
