"""numba's compilation as a first run sees it (layer 0): the decorator every kernel is
compiled with (`njit`), the line that says kernels are being compiled, and what makes
the compilation cheaper. Reference: numba's event API (``numba.core.event``,
"numba:compile") and its jit options (numba docs, "Compilation options").

numba compiles a kernel the first time a deck calls it and keeps the machine code in its
cache (``SOLFEC_PY_CACHE_DIR``, README); later runs load it. The "numba:compile" event
fires only when numba compiles (not when it loads from the cache), so the notice appears
only on a cold cache: once per machine and solfec-py version, one line per group of
kernels, on stderr, for the `solfec-py` command (`session.Session.notices`; library use
stays silent).

The compiler builds large graphs of short-lived objects; Python's full collections over
them took about a fifth of the CPU time of a cold first run (contact deck, bench/first_run.py).
The collector is disabled for the outermost compilation and enabled again after it (the
run itself keeps Python's usual collection).

`njit` is numba's with the options all kernels share: cached on disk, without the C
function-pointer wrapper numba builds by default for every function (``no_cfunc_wrapper``:
solfec-py never passes its kernels as first-class function values; the wrapper cost about
a twentieth of a cold first run's CPU, bench/README.md "First run"), and with NumPy's error
model (``error_model="numpy"``): a division by zero gives inf or NaN, as in numpy, which the
step's blow-up checks report with the body and time, instead of a ZeroDivisionError raised
from inside a kernel; numba then compiles no zero test before each division, and one set of
its array-allocation helpers serves every kernel (with two error models in use it compiled
each allocation signature once per model). numba compares
compilation flags by their dictionary of values on every lookup of an overloaded function
(about 400 000 times in a first FE run); `_fast_flag_values` builds that dictionary from
the class's defaults and the set values at once (the same dictionary, checked when
installed), which saves about a tenth of a cold run. numba's NumPy operator template
resolves a ufunc loop for every scalar ``a * b`` before it declines;
`_scalar_operators_skip_ufunc_typing` declines at once where no operand is an array.

numba's disk cache checks only the source file of the function it caches: a kernel whose
callee (or an imported constant) changed in another module would load its old machine
code, the callee's old behaviour included. `_ImportClosureLocator` stamps every
solfec-py kernel's cache with the contents of its module and of every solfec-py module
that module imports at its top level, transitively; an upgrade or an edit invalidates the
kernels that can see it and keeps the others.
"""
from __future__ import annotations

import ast
import gc
import hashlib
import importlib.util
import os
import sys

import numba
from numba.core import event

from solfec_py import session

SHARED_OPTIONS = {"cache": True, "no_cfunc_wrapper": True, "error_model": "numpy"}


def njit(*args, **options):
    """numba.njit with the options every kernel shares (SHARED_OPTIONS; a kernel's own
    options win): ``@njit``, ``@njit(error_model="numpy")``, ``njit(function)``."""
    if args and callable(args[0]) and len(args) == 1 and not options:
        return numba.njit(**SHARED_OPTIONS)(args[0])
    return numba.njit(*args, **{**SHARED_OPTIONS, **options})


def _fast_flag_values() -> bool:
    """Make numba's `TargetConfig.values()` one dictionary merge (class defaults, then the
    values set) instead of one property call per option; installed only where it returns
    what numba's own does for a fresh and a modified configuration. Returns whether it was
    installed."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    base = targetconfig.TargetConfig
    original = base.values
    if getattr(original, "_solfec_fast", False):
        return True
    if not (hasattr(base, "options") and "_values" in getattr(base, "__slots__", ())):
        return False
    defaults = {}

    def values(self):
        cls = type(self)
        known = defaults.get(cls)
        if known is None:
            known = defaults[cls] = {name: option.default for name, option in cls.options.items()}
        merged = dict(known)
        merged.update(self._values)
        return merged

    values._solfec_fast = True
    probe = Flags()
    changed = Flags()
    changed.error_model = "numpy"
    changed.no_cpython_wrapper = True
    if not all(values(flags) == original(flags) for flags in (probe, changed)):
        return False
    base.values = values
    return True


_fast_flag_values()


def _scalar_operators_skip_ufunc_typing() -> bool:
    """Answer numba's array-operator template at once for operands none of which is an
    array. numba types every arithmetic or comparison operator (``a * b`` on two floats
    too) by trying, among its templates, the NumPy one (`npydecl.NumpyRulesArrayOperator`),
    which first resolves the ufunc loop for the operands and only then gives up when none
    is an array: about 17 000 loop searches, 3 % of a cold contact deck's CPU. The
    shortcut returns that template's answer, None, before the search (operands stripped of
    Optional as the template strips them); installed only where the template has the
    generic method this replaces. Returns whether it is installed."""
    from numba.core import types
    from numba.core.typing import npydecl

    template = getattr(npydecl, "NumpyRulesArrayOperator", None)
    original = getattr(template, "generic", None)
    if original is None or getattr(original, "_solfec_scalar_shortcut", False):
        return original is not None
    if original.__qualname__ != "NumpyRulesArrayOperator.generic":
        return False

    def generic(self, args, kws):
        for arg in args:
            if isinstance(arg.type if isinstance(arg, types.Optional) else arg, types.ArrayCompatible):
                return original(self, args, kws)
        return None

    generic._solfec_scalar_shortcut = True
    generic._solfec_original = original
    template.generic = generic
    return True


_scalar_operators_skip_ufunc_typing()

CLOSURE_PACKAGES = {"solfec_py"}     # top-level packages whose kernels get closure stamps
_FILE_DIGESTS: dict = {}
_MODULE_IMPORTS: dict = {}
_CLOSURE_DIGESTS: dict = {}          # module name -> digest, once per process


def _file_digest(path: str) -> bytes:
    stat = os.stat(path)
    key = (path, stat.st_mtime_ns, stat.st_size)
    digest = _FILE_DIGESTS.get(key)
    if digest is None:
        with open(path, "rb") as handle:
            digest = _FILE_DIGESTS[key] = hashlib.sha256(handle.read()).digest()
    return digest


def _module_file(name: str) -> str | None:
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    if path is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        path = getattr(spec, "origin", None)
    return path if path and path.endswith(".py") and os.path.exists(path) else None


def _top_level_imports(name: str, path: str) -> set:
    """Modules of CLOSURE_PACKAGES that module `name` (file `path`) imports in its top-level
    statements (inside top-level if/try blocks too); a `from a.b import c` counts a.b and,
    where it is a module, a.b.c."""
    found = _MODULE_IMPORTS.get(path)
    if found is not None:
        return found
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.If, ast.Try)):
            statements.extend(node.body + node.orelse + getattr(node, "finalbody", [])
                              + [s for h in getattr(node, "handlers", []) for s in h.body])
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    found = {m for m in found if m.split(".")[0] in CLOSURE_PACKAGES and _module_file(m)}
    _MODULE_IMPORTS[path] = found
    return found


def import_closure_digest(name: str) -> str:
    """sha256 over the sources of module `name` and of the CLOSURE_PACKAGES modules it
    imports at top level, transitively (sorted by module name); computed once per process."""
    known = _CLOSURE_DIGESTS.get(name)
    if known is not None:
        return known
    seen, stack, parts = set(), [name], []
    while stack:
        module = stack.pop()
        if module in seen:
            continue
        seen.add(module)
        path = _module_file(module)
        if path is None:
            continue
        parts.append((module, _file_digest(path)))
        stack.extend(_top_level_imports(module, path) - seen)
    digest = hashlib.sha256()
    for module, file_digest in sorted(parts):
        digest.update(module.encode() + b"\0" + file_digest)
    known = _CLOSURE_DIGESTS[name] = digest.hexdigest()
    return known


def _install_closure_locator() -> bool:
    """Put `_ImportClosureLocator` first among numba's cache locators (where numba has the
    locator classes this relies on). Returns whether it is installed."""
    from numba.core import caching

    base = getattr(caching, "UserProvidedCacheLocator", None)
    impl = getattr(caching, "CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if base is None or not isinstance(classes, list):
        return False
    if any(getattr(cls, "_solfec_closure", False) for cls in classes):
        return True

    class _ImportClosureLocator(base):
        """numba's user-directory locator whose source stamp also covers the module's
        import closure (`import_closure_digest`), for kernels of CLOSURE_PACKAGES."""
        _solfec_closure = True

        def get_source_stamp(self):
            return (super().get_source_stamp(), import_closure_digest(self._module_name))

        @classmethod
        def from_function(cls, py_func, py_file):
            module = getattr(py_func, "__module__", None) or ""
            if module.split(".")[0] not in CLOSURE_PACKAGES:
                return None
            self = super().from_function(py_func, py_file)
            if self is not None:
                self._module_name = module
            return self

    classes.insert(0, _ImportClosureLocator)
    return True


_install_closure_locator()

# module prefix -> what its kernels are for (the first prefix that matches)
GROUPS = (
    ("solfec_py.contact", "contact detection"),
    ("solfec_py.solvers", "the constraint solvers"),
    ("solfec_py.bodies.articulated", "articulated bodies"),
    ("solfec_py.bodies.rigid", "rigid bodies"),
    ("solfec_py.bodies.pseudo_rigid", "pseudo-rigid bodies"),
    ("solfec_py.bodies.fe", "finite-element bodies"),
    ("solfec_py.bodies.finite_element", "finite-element bodies"),
    ("solfec_py.fem", "finite elements"),
    ("solfec_py.constraints", "constraints"),
    ("solfec_py.geometry", "geometry"),
    ("solfec_py.output.raster", "images"),
    ("solfec_py.output", "results output"),
    ("solfec_py", "solfec-py"),
)


def group_of(module: str) -> str | None:
    """What the kernels of `module` are for, or None outside solfec-py."""
    for prefix, name in GROUPS:
        if module == prefix or module.startswith(prefix + ".") or module.startswith(prefix + "_"):
            return name
    return None


class _Listener(event.Listener):
    """Pauses the collector over the outermost compilation; names each new group once."""

    def __init__(self):
        self.depth = 0
        self.collecting = False
        self.announced = set()

    def on_start(self, ev):
        if self.depth == 0:
            self.collecting = gc.isenabled()
            gc.disable()
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            group = group_of(getattr(func, "__module__", "") or "")
            if group is not None and session.current().notices and group not in self.announced:
                self._announce(group)
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0 and self.collecting:
            gc.enable()

    def _announce(self, group: str) -> None:
        where = "" if self.announced else f" (numba keeps them in {os.environ.get('NUMBA_CACHE_DIR', 'its cache')})"
        self.announced.add(group)
        message = f"solfec-py: compiling kernels for {group}, once per machine{where}"
        try:
            from tqdm import tqdm

            tqdm.write(message, file=sys.stderr)   # above a progress bar, if one is drawn
        except ImportError:  # pragma: no cover - tqdm is a dependency
            print(message, file=sys.stderr)


_LISTENER = _Listener()
event.register("numba:compile", _LISTENER)
