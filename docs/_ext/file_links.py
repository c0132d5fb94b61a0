"""Repository file paths in the pages become links.

An inline literal that names a file of the repository (``inputs/projectile.py``,
``solfec_py/fem/kernels.py``, ``bench/README.md``, or a module path inside the package such
as ``bodies/fe_pins.py``) links to that file: pages of the documentation itself to their HTML
page, other files to a copy under ``_files/`` of the built site (the decks, modules, tests
and benchmark scripts the pages cite, readable in the browser). With the configuration value
``file_links_base`` set (e.g. a repository's web address ending in ``/blob/main``) the links
go there instead and nothing is copied.
"""
from __future__ import annotations

import os
import re
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOPS = ("inputs", "solfec_py", "tests", "bench", "docs", "tools", "grammar")
PATH = re.compile(r"^[A-Za-z0-9_./-]+\.(py|md|rst|txt|lark|cfg|toml|inp|msh|geo|csv)$")


def repository_path(text: str) -> str | None:
    """The repository path a literal names, or None: a path from the repository root, or
    one inside the package (``fem/kernels.py``)."""
    text = text.strip()
    if not PATH.match(text) or text.startswith(("/", "../")):
        return None
    candidates = [text] if text.split("/", 1)[0] in TOPS or "/" not in text else []
    candidates.append(os.path.join("solfec_py", text))
    for path in candidates:
        if "/" in path and os.path.isfile(os.path.join(ROOT, path)):
            return path
    return None


def _link(app, doctree, docname):
    from docutils import nodes

    if app.builder.format != "html":
        return
    up = "../" * docname.count("/")
    base = app.config.file_links_base
    copied = app.env.file_links_copied = getattr(app.env, "file_links_copied", set())
    for literal in list(doctree.findall(nodes.literal)):
        if isinstance(literal.parent, nodes.reference):
            continue
        path = repository_path(literal.astext())
        if path is None:
            continue
        page = path[len("docs/"):].rsplit(".", 1)[0] if path.startswith("docs/") else None
        if page is not None and page in app.env.found_docs:
            uri = up + app.builder.get_target_uri(page)
        elif base:
            uri = f"{base.rstrip('/')}/{path}"
        else:
            uri = f"{up}_files/{path}"
            copied.add(path)
        ref = nodes.reference("", "", internal=False, refuri=uri)
        literal.replace_self(ref)
        ref.append(literal)


def _copy(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for path in sorted(getattr(app.env, "file_links_copied", ())):
        target = os.path.join(app.outdir, "_files", path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, path), target)


def setup(app):
    app.add_config_value("file_links_base", "", "html")
    app.connect("doctree-resolved", _link)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": False, "version": "1"}
