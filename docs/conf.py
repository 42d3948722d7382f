"""Sphinx configuration: the user guide (guide/), the architecture pages (arch/) and the API
reference (api/, from the numpydoc docstrings). Build: ``python -m sphinx -W -b html docs OUT``
(``pip install -e ".[docs]"``); ``tests/test_docs.py`` builds it the same way in CI."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

project = "pytvm"
author = "the pytvm developers"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 3
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_member_order = "bysource"
autodoc_typehints = "none"
html_theme = "alabaster"
# The architecture pages link to source files (../../src/...), which are not documents.
suppress_warnings = ["myst.xref_missing"]
