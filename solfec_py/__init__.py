"""solfec-py: a Python 3 reimplementation of Solfec-1.0 and its input language.

Importing the package is cheap: heavy dependencies (numba kernels, h5py, matplotlib,
meshio, lark) are imported by the modules that use them.
"""
from __future__ import annotations

__version__ = "0.1.0"
