"""Independent numpy reference of the stress Solfec-1.0 reports for finite-element bodies
(fem.c ``cauchy_stress``, read from the C source): with the SVK second Piola-Kirchhoff
stress S of F and P = F S, the entries (0,0), (1,1), (2,2), (0,1), (0,2), (1,2) of
T = F P / det F, then the von Mises value of these six numbers (alg.h ``MISES``). For a
symmetric F (no rotation) T is the Cauchy stress P F^T / det F. (Solfec itself reports
entry (2,0) in the sixth, yz, slot; solfec-py reports the yz entry: see fem/laws.py.)"""
from __future__ import annotations

import numpy as np


def solfec_fe_stress(F, young, poisson) -> np.ndarray:
    """(..., 7): sx, sy, sz, sxy, sxz, syz, von Mises of F (..., 3, 3)."""
    F = np.asarray(F, dtype=float)
    lam = young * poisson / ((1 + poisson) * (1 - 2 * poisson))
    mu = young / (2 * (1 + poisson))
    E = 0.5 * (np.swapaxes(F, -1, -2) @ F - np.eye(3))
    S = lam * np.trace(E, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) + 2 * mu * E
    T = F @ (F @ S) / np.linalg.det(F)[..., None, None]
    s = np.stack([T[..., 0, 0], T[..., 1, 1], T[..., 2, 2], T[..., 0, 1], T[..., 0, 2], T[..., 1, 2]], axis=-1)
    vm = np.sqrt(0.5 * ((s[..., 0] - s[..., 1]) ** 2 + (s[..., 0] - s[..., 2]) ** 2 + (s[..., 2] - s[..., 1]) ** 2
                        + 6 * (s[..., 3:] ** 2).sum(-1)))
    return np.concatenate([s, vm[..., None]], axis=-1)
