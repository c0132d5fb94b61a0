"""Sphinx configuration of the solfec-py documentation.

Why Sphinx: the command reference is generated from the package's own docstrings with
autodoc (numpydoc sections through napoleon), and MyST-Parser keeps the Markdown pages of
docs/ as they are. Build: ``pip install '.[docs]'`` then
``sphinx-build -W --keep-going -b html docs docs/_build/html``.
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "_ext"))
sys.path.insert(0, os.path.dirname(HERE))  # the checkout's solfec_py before an installed one

import solfec_py  # noqa: E402

project = "solfec-py"
author = "the solfec-py developers"
copyright = "the solfec-py developers, MIT licence"
version = release = solfec_py.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "deck_reference",
    "deck_gallery",
    "file_links",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
root_doc = "index"

myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "none"
add_module_names = False
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
# Parameters and Attributes as field lists in which "a, b : type" stays one entry
napoleon_custom_sections = [("Attributes", "params_style"), ("Parameters", "params_style")]
default_role = "code"
# attribute names shared by several deck classes (center, label, ...) make ambiguous
# cross-references in the generated attribute lists; they are plain names there
suppress_warnings = ["ref.python"]

html_theme = "pydata_sphinx_theme"
html_title = f"solfec-py {release}"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
}
html_static_path = ["_static"]
html_css_files = ["solfec.css"]
# The left sidebar lists the pages of the current section (tutorials, guides, developer
# notes); the pages without a section of their own get none rather than an empty list
html_sidebars = {page: [] for page in ("index", "getting_started", "units", "reference", "gallery",
                                       "search", "genindex")}
