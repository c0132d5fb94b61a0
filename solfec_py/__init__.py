"""solfec-py: a Python 3 reimplementation of Solfec-1.0 and its input language.

Importing the package is cheap: heavy dependencies (numba kernels, h5py, matplotlib,
meshio, lark) are imported by the modules that use them.

numba's compiled-kernel cache is kept out of the installed package tree (a pip install
must never gain files that its uninstall leaves behind): it goes to
``$SOLFEC_PY_CACHE_DIR`` or ``$XDG_CACHE_HOME/solfec-py/numba`` (``~/.cache/...``),
unless the user already set ``NUMBA_CACHE_DIR``. numba keys each cache file by the full
path of its source, so two checkouts or installs never share entries. Other caches (the
translations of legacy Python 2 modules, docs/legacy.md) sit next to it:
``user_cache_dir(name)``.
"""
from __future__ import annotations

import os as _os
import sys as _sys
import tempfile as _tempfile

__version__ = "0.1.0"


def user_cache_dir(name: str) -> str:
    """The writable cache directory `name` of solfec-py: ``$XDG_CACHE_HOME/solfec-py/NAME``
    (``~/.cache/solfec-py/NAME``), else one in the system's temporary directory."""
    base = _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_os.path.expanduser("~"), ".cache")
    candidate = _os.path.join(base, "solfec-py", name)
    try:
        _os.makedirs(candidate, exist_ok=True)
        if _os.access(candidate, _os.W_OK):
            return candidate
    except OSError:
        pass
    user = getattr(_os, "getuid", lambda: "user")()
    return _os.path.join(_tempfile.gettempdir(), f"solfec-py-{name}-{user}")


def _numba_cache_dir() -> str:
    return _os.environ.get("SOLFEC_PY_CACHE_DIR") or user_cache_dir("numba")


if not _os.environ.get("NUMBA_CACHE_DIR"):
    _os.environ["NUMBA_CACHE_DIR"] = _numba_cache_dir()
    if "numba" in _sys.modules:  # numba read its configuration already: tell it too
        _sys.modules["numba"].config.CACHE_DIR = _os.environ["NUMBA_CACHE_DIR"]
