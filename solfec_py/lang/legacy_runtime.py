"""The run-time names of translated legacy decks under their first import path: decks
written by `solfec-py translate` start with `from solfec_py.lang.legacy_runtime import ...`
(or `import solfec_py.lang.legacy_runtime`), and new translations keep writing it, so this
path stays stable. The code lives in `solfec_py/lang/legacy/runtime.py`; this module
re-exports every name a translation can import (the `_p2_*` helpers and the Python 2
builtins of `legacy_namespace()`), plus `legacy_namespace` and `BUILTIN_NAMES`.
"""
from __future__ import annotations

from solfec_py.lang.legacy.runtime import BUILTIN_NAMES, legacy_namespace

_NAMES = legacy_namespace()
globals().update(_NAMES)
__all__ = sorted(_NAMES) + ["BUILTIN_NAMES", "legacy_namespace"]
