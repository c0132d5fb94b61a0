"""Ellipsoid primitive (layer 1): centre, semi-axes and the rotation whose columns are the
principal axes, in reference and current configurations. Reference: Solfec-1.0 user manual, ELLIP, SCALE
(Solfec eli.c).
"""
from __future__ import annotations

import numpy as np

from solfec_py import session
from solfec_py.geometry.sphere import unit_sphere


class Ellip:
    """An ellipsoid {c + rot (radii * u) : |u| <= 1}."""

    def __init__(self, center, radii, volid: int, surfid: int, rot=None):
        self.ref_center = np.array(center, dtype=float).reshape(3)
        self.cur_center = self.ref_center.copy()
        self.radii = np.array(radii, dtype=float).reshape(3)
        self.ref_rot = np.eye(3) if rot is None else np.array(rot, dtype=float).reshape(3, 3)
        self.cur_rot = self.ref_rot.copy()
        self.volid, self.surfid = int(volid), int(surfid)

    @property
    def rot(self) -> np.ndarray:
        """Current rotation (columns = current principal axes)."""
        return self.cur_rot

    def copy(self) -> "Ellip":
        new = Ellip.__new__(Ellip)
        new.__dict__.update(self.__dict__)
        for name in ("ref_center", "cur_center", "radii", "ref_rot", "cur_rot"):
            setattr(new, name, getattr(self, name).copy())
        return new

    @property
    def volume(self) -> float:
        return 4.0 / 3.0 * np.pi * abs(float(np.prod(self.radii)))

    def euler(self, config: str = "ref") -> np.ndarray:
        """Euler tensor about the centre: V/5 rot diag(a^2, b^2, c^2) rot^T."""
        rot = self.ref_rot if config == "ref" else self.cur_rot
        return self.volume / 5.0 * (rot * self.radii ** 2) @ rot.T

    def transform(self, A, b) -> None:
        """x -> A x + b on both configurations; `A` must be a rotation (axes follow it)."""
        A, b = np.asarray(A, float), np.asarray(b, float)
        self.ref_center = A @ self.ref_center + b
        self.cur_center = A @ self.cur_center + b
        self.ref_rot = A @ self.ref_rot
        self.cur_rot = A @ self.cur_rot

    def scale(self, coefs) -> None:
        """SCALE: centre and semi-axes multiplied component-wise (Solfec-1.0 user manual, SCALE)."""
        c = np.asarray(coefs, float)
        self.ref_center = self.ref_center * c
        self.cur_center = self.cur_center * c
        self.radii = self.radii * c

    def set_rigid_motion(self, R, xc, X0) -> None:
        R = np.asarray(R, float)
        self.cur_center = np.asarray(xc, float) + R @ (self.ref_center - np.asarray(X0, float))
        self.cur_rot = R @ self.ref_rot

    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        half = np.sqrt(((self.cur_rot * self.radii) ** 2).sum(axis=1))
        return self.cur_center - half, self.cur_center + half

    def surface_triangles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p, tri = unit_sphere()
        pts = self.cur_center + (p * self.radii) @ self.cur_rot.T
        return pts, tri.copy(), np.full(tri.shape[0], self.surfid, np.int64)

    def contains(self, point, tol: float | None = None) -> bool:
        """Referential point inside, with relative tolerance GEOMETRIC_EPSILON on the
        normalised radius."""
        if tol is None:
            tol = session.geometric_epsilon()
        local = self.ref_rot.T @ (np.asarray(point, float) - self.ref_center) / self.radii
        return bool(np.linalg.norm(local) <= 1.0 + tol)
