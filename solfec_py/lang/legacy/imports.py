"""Python 2 modules imported by legacy decks: a finder on `sys.meta_path`, active while a
deck runs, that translates the deck's own helper modules on import (Solfec-1.0 decks import
files such as `inp/cores/inc/simple_core_base.py` from the deck's directory or from folders
they add to `sys.path`).  Reference: docs/legacy.md ("Modules a deck imports"); PEP 451
(module specs and loaders).

Only source files outside the standard library, site-packages and solfec-py itself are
looked at; their dialect is decided as for a deck (a file that compiles as Python 3 is
imported as it is, with the usual bytecode cache).  A translation keeps every line in
place and is compiled under the module's own file name, so tracebacks and error messages
point at the module's original file and line.  Translations are cached (`cache.py`).
"""
from __future__ import annotations

import builtins
import contextlib
import functools
import importlib.abc
import importlib.machinery
import os
import site
import sys
import sysconfig

PACKAGES = ("solfec_py", "solfec")   # solfec-py's own modules are never translated


@contextlib.contextmanager
def translating_imports(mode: str = "auto"):
    """While the block runs, imports of Python 2 modules are translated (mode 'auto' or
    'on' as for the deck; 'off' does nothing)."""
    if mode == "off":
        yield None
        return
    finder = LegacyModuleFinder(mode)
    at = next((i for i, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder),
              len(sys.meta_path))
    sys.meta_path.insert(at, finder)
    try:
        yield finder
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)


@functools.lru_cache(maxsize=1)
def _system_roots() -> tuple[str, ...]:
    """Folders whose modules are never translated: stdlib, site-packages, solfec-py."""
    paths = sysconfig.get_paths()
    roots = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    with contextlib.suppress(Exception):
        roots += site.getsitepackages() + [site.getusersitepackages()]
    import solfec_py

    roots.append(os.path.dirname(os.path.abspath(solfec_py.__file__)))
    return tuple(sorted({os.path.realpath(r) for r in roots if r}))


def user_file(filename: str, roots: tuple[str, ...] | None = None) -> bool:
    """Whether `filename` is an existing source file of the user's (not the standard
    library's, an installed package's or solfec-py's)."""
    if not filename or filename.startswith("<") or not os.path.isfile(filename):
        return False
    real = os.path.realpath(filename)
    return not any(real == r or real.startswith(r + os.sep) for r in (roots or _system_roots()))


class LegacyModuleFinder(importlib.abc.MetaPathFinder):
    """Finds modules as the path finder does; a Python 2 source file of the user's gets a
    loader that runs its translation.  Sits just before `PathFinder` on sys.meta_path."""

    def __init__(self, mode: str = "auto"):
        self.mode = mode
        self.translated: list[str] = []   # files translated by this finder, in import order

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in PACKAGES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or type(spec.loader) is not importlib.machinery.SourceFileLoader \
                or not spec.has_location or not user_file(spec.origin):
            return spec
        from solfec_py.lang.legacy.cache import prepare_module

        text, translated = prepare_module(spec.origin, self.mode)
        if translated:
            spec.loader = TranslatedLoader(fullname, spec.origin, text)
            spec.cached = None          # no bytecode file for a translation
            self.translated.append(spec.origin)
        return spec


class TranslatedLoader(importlib.machinery.SourceFileLoader):
    """Runs the Python 3 translation of a Python 2 module; the module's `__builtins__`
    hold the Python 2 builtins and helpers, so they are not module attributes (and a
    `from module import *` does not spread them)."""

    def __init__(self, fullname: str, path: str, text: str):
        super().__init__(fullname, path)
        self.text = text

    def get_code(self, fullname):
        return compile(self.text, self.path, "exec", dont_inherit=True)

    def exec_module(self, module):
        from solfec_py.lang.legacy import legacy_builtins

        names = {**vars(builtins), **legacy_builtins()}
        if module.__spec__ is not None and module.__spec__.parent \
                and "absolute_import" not in self.text:
            names["__import__"] = implicit_relative_import(module.__spec__.parent)
        module.__dict__["__builtins__"] = names
        super().exec_module(module)


def implicit_relative_import(package: str):
    """`__import__` for a Python 2 module of `package`: `import x` / `from x import y`
    mean the package's own submodule `x` when it has one (Python 2's implicit relative
    import, PEP 328), the top-level `x` otherwise."""

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name and _has_submodule(package, name.partition(".")[0]):
            module = builtins.__import__(name, globals, locals, fromlist, 1)
            if fromlist:
                return module
            # `import x.y` binds the package's x, as `from . import x` would
            return sys.modules[f"{package}.{name.partition('.')[0]}"]
        return builtins.__import__(name, globals, locals, fromlist, level)

    return importer


def _has_submodule(package: str, name: str) -> bool:
    if f"{package}.{name}" in sys.modules:
        return True
    parent = sys.modules.get(package)
    path = getattr(parent, "__path__", None)
    if not path:
        return False
    return importlib.machinery.PathFinder.find_spec(f"{package}.{name}", path) is not None


def forget_user_modules(before: set) -> None:
    """Drop the user's modules imported since `before` (a set of sys.modules keys) from
    sys.modules, so the next deck run in this process imports its own helpers afresh (as
    each Solfec-1.0 run started a fresh interpreter)."""
    for name in [n for n in sys.modules if n not in before]:
        module = sys.modules.get(name)
        if user_file(getattr(module, "__file__", None) or ""):
            del sys.modules[name]
