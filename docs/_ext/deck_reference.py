"""The command reference of the deck language, generated from the package's docstrings.

`entries()` sorts every name of the deck namespace (`solfec_py.api.NAMES`) into the
sections of the reference by the module that implements it; the `deck-reference`
directive expands one section into autodoc directives. tests/test_docs_reference.py checks
the sections against the namespace without Sphinx (sphinx is imported in `setup` only).
"""
from __future__ import annotations

import re

# (section title, api modules implementing its commands), in the order of the pages
SECTIONS = [
    ("Analysis and running", ("solfec", "run")),
    ("Shapes", ("shapes",)),
    ("Meshes from files and generators", ("mesh_generators", "mesh_io")),
    ("Shape utilities", ("shape_utils", "shape_ops")),
    ("Materials", ("materials",)),
    ("Bodies", ("body", "joints", "modal", "fe_export", "fracture", "fracture_export")),
    ("Loads", ("loads", "series")),
    ("Constraints", ("constraints", "prescribed")),
    ("Prescribed motion", ("motion",)),
    ("Contact", ("contact",)),
    ("Solvers", ("solvers",)),
    ("Results", ("results", "navigation", "render")),
    ("Utilities", ("misc", "sweep", "exports")),
    ("Not available yet", ("unavailable",)),
]
# methods of the deck classes that serve the numerical code, not decks
INTERNAL = ("record", "record_solve", "solve", "handle_failure", "wrap")
EXAMPLES = re.compile(r"^\s*Examples\n\s*-{8,}\s*$", re.MULTILINE)


def _section_of(obj) -> str | None:
    module = getattr(obj, "__module__", "") or ""
    short = module.rsplit(".", 1)[-1] if module.startswith("solfec_py.api.") else None
    for title, modules in SECTIONS:
        if short in modules:
            return title
    return None


def entries() -> dict:
    """Section title -> deck names documented there (deck-manual order within a section);
    names of no section go under None (the test refuses them)."""
    from solfec_py.api import DECK_NAMES, NAMES

    order = {name: k for k, name in enumerate(DECK_NAMES)}
    out: dict = {title: [] for title, _ in SECTIONS}
    for name in sorted(NAMES, key=lambda n: (order.get(n, len(order)), n)):
        out.setdefault(_section_of(NAMES[name]), []).append(name)
    return out


def has_examples(obj) -> bool:
    """Whether the docstring of `obj` has a numpydoc Examples section."""
    return bool(EXAMPLES.search(obj.__doc__ or ""))


def rst_lines(title: str) -> list:
    """autodoc directives documenting the commands of one section."""
    from solfec_py.api import NAMES

    lines = [".. currentmodule:: solfec_py.api", ""]
    for name in entries()[title]:
        obj = NAMES[name]
        if isinstance(obj, type):
            lines += [f".. autoclass:: {name}", "   :members:", f"   :exclude-members: {', '.join(INTERNAL)}", ""]
        else:
            lines += [f".. autofunction:: {name}", ""]
    return lines


def _signature(app, what, name, obj, options, signature, return_annotation):
    """Optional arguments without a default (validate.MISSING) read `=...`."""
    if signature and "MISSING" in signature:
        signature = signature.replace("=MISSING", "=...")
    return signature, return_annotation


def setup(app):
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    class DeckReference(SphinxDirective):
        """``deck-reference`` TITLE: the autodoc entries of one section."""

        required_arguments = 1
        final_argument_whitespace = True

        def run(self):
            title = self.arguments[0]
            if title not in entries():
                raise self.error(f"unknown reference section {title!r}; known: {sorted(entries(), key=str)}")
            node = nodes.container()
            self.state.nested_parse(StringList(rst_lines(title), source="deck_reference"), self.content_offset,
                                    node)
            return node.children

    app.add_directive("deck-reference", DeckReference)
    app.connect("autodoc-process-signature", _signature)
    return {"parallel_read_safe": True, "version": "1"}
