"""The import graph of solfec_py, read from the source with `ast` (top-level and
function-level imports alike): no module imports a higher layer (the layers of the README's
architecture line, LAYERS below), and there is no import cycle among the api/ modules,
inside lang/, or anywhere in the package.

A function-level import still counts: it only postpones the cycle to run time.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "solfec_py"

# layer of each top-level module or sub-package: a module imports only from its own layer
# or lower ones (lower layers never import higher ones)
LAYERS = {
    "errors": 0, "validate": 0, "session": 0, "compilation": 0,
    "geometry": 1, "fem": 1,
    "materials": 2, "timeseries": 2, "constraints": 2, "motion": 2,
    "bodies": 3,
    "domain": 4,
    "contact": 5, "solvers": 5, "parallel": 5,
    "timestep": 6, "output": 6, "integrators": 6,
    "api": 7,
    "lang": 8, "cli": 8, "__main__": 8, "sweep": 8, "verify": 8,
}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package __init__)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The solfec_py module `name` refers to: itself, or the longest module prefix of it
    (`pkg.mod.NAME` is module `pkg.mod`); None outside the package."""
    parts = name.split(".")
    while parts:
        dotted = ".".join(parts)
        if dotted in MODULES:
            return dotted
        parts.pop()
    return None


def _imports(module: str) -> set[tuple[str, int]]:
    """(imported solfec_py module, line) for every import statement of `module`."""
    path, is_package = MODULES[module]
    return _imports_in(path.read_text(encoding="utf-8"), module, is_package)


def _imports_in(source: str, module: str, is_package: bool) -> set[tuple[str, int]]:
    package = module if is_package else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                out.add((target, node.lineno))
    return out


GRAPH = {module: _imports(module) for module in MODULES}


def _layer(module: str):
    parts = module.split(".")
    return None if len(parts) == 1 else LAYERS.get(parts[1], "unknown")


def test_every_module_has_a_layer():
    unknown = sorted({m.split(".")[1] for m in MODULES if _layer(m) == "unknown"})
    assert not unknown, f"give these modules a layer in LAYERS (tests/test_imports.py): {unknown}"


def test_no_module_imports_a_higher_layer():
    upward = []
    for module, targets in GRAPH.items():
        here = _layer(module)
        for target, line in sorted(targets):
            there = _layer(target)
            if here is None or there is None or "unknown" in (here, there):
                continue
            if there > here:
                upward.append(f"{MODULES[module][0].relative_to(PACKAGE.parent)}:{line}: {module}"
                              f" (layer {here}) imports {target} (layer {there})")
    assert not upward, "\n".join(upward)


def _cycles(prefix: str) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative) of
    the graph restricted to modules named `prefix` or `prefix.*`."""
    inside = {m for m in GRAPH if m == prefix or m.startswith(prefix + ".")}
    succ = {m: sorted({t for t, _ in GRAPH[m]} & inside) for m in inside}
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for root in sorted(inside):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _describe(components) -> str:
    lines = []
    for component in components:
        lines.append("cycle among: " + ", ".join(component))
        for module in component:
            for target, line in sorted(GRAPH[module]):
                if target in component:
                    lines.append(f"  {module}:{line} -> {target}")
    return "\n".join(lines)


@pytest.mark.parametrize("prefix", ["solfec_py.api", "solfec_py.lang", "solfec_py"])
def test_no_import_cycle(prefix):
    components = _cycles(prefix)
    assert not components, _describe(components)


def test_the_cycle_finder_finds_cycles(monkeypatch):
    """The check above can fail: a two-module and a three-module cycle are reported."""
    fake = {"p.a": {("p.b", 1)}, "p.b": {("p.a", 2)}, "p.c": {("p.d", 3)},
            "p.d": {("p.e", 4)}, "p.e": {("p.c", 5), ("p.a", 6)}, "p.f": {("p.a", 7)}}
    monkeypatch.setattr(f"{__name__}.GRAPH", fake)
    assert sorted(_cycles("p")) == [["p.a", "p.b"], ["p.c", "p.d", "p.e"]]
    assert _cycles("p.f") == []


def test_function_level_and_relative_imports_are_read():
    source = ("from solfec_py import validate as V\n"
              "from .base import Body\n"
              "def f():\n"
              "    from solfec_py.api.solfec import SOLFEC\n"
              "    import solfec_py.output.store\n"
              "    from .. import domain\n")
    assert _imports_in(source, "solfec_py.bodies.rigid", False) == {
        ("solfec_py.validate", 1), ("solfec_py.bodies.base", 2), ("solfec_py.api.solfec", 4),
        ("solfec_py.output.store", 5), ("solfec_py.domain", 6)}
