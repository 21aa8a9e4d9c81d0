"""Sphinx configuration of the hydrobond documentation site.

Built by ``make docs`` into ``build/docs/html`` with warnings as errors. Pages are
MyST markdown (``myst_nb``); the notebooks of ``notebooks/`` are copied into
``gallery/`` at build time and executed there, so the site shows their outputs
while the repository keeps them stripped. The API reference is generated from each
package's ``__all__`` (``_ext/api_pages.py``) and the machine-file reference from the
key tables of the code (``_ext/machine_keys.py``). No network is used: there is no
intersphinx inventory.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))           # this checkout's packages win over an installed copy
sys.path.insert(0, str(DOCS / "_ext"))
os.environ.pop("MPLBACKEND", None)      # the notebook kernels draw inline
os.environ.setdefault("PYTHONPATH", str(ROOT))
# sympy's Symbol docstring (bondgraph.t is a Symbol) has a section numpydoc does not know
warnings.filterwarnings("ignore", message="Unknown section Explanation", category=UserWarning)

project = "hydrobond"
author = "the hydrobond developers"
copyright = "the hydrobond developers"
release = version = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "api_pages",          # one autosummary page per package, from its __all__
    "api_aliases",        # module paths (bondgraph.results.Results) resolve to the public name
    "machine_keys",       # the machine-file reference, from the key tables
    "gallery",            # notebooks/ copied into gallery/ for execution
    "data_docs",          # module-level values documented by their #: comments
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
root_doc = "index"

# ---------------------------------------------------------------- cross-references
nitpicky = True
#: No exception is needed: signatures are shown without type hints (the types are in the
#: numpydoc sections, as text), so no standard-library or third-party class is referenced;
#: references inside docstrings resolve through ``_ext/api_aliases.py``. Add an entry here
#: only for a third-party name that has no inventory offline, with a comment saying why.
nitpick_ignore: list[tuple[str, str]] = []

# ---------------------------------------------------------------- API reference
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"              # types are in the numpydoc Parameters sections
autodoc_member_order = "bysource"
numpydoc_show_class_members = True
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()   # docstrings are being completed: no style gate
add_module_names = False

# ---------------------------------------------------------------- MyST and notebooks
myst_enable_extensions = ["colon_fence", "deflist", "fieldlist", "substitution"]   # no dollarmath: MathJax needs a network
myst_heading_anchors = 3
nb_execution_mode = "force"             # every page read is run again: outputs never outlive the code
nb_execution_timeout = 600              # seconds per cell
nb_execution_raise_on_error = True      # a broken notebook or page fails the build
nb_execution_show_tb = True
nb_merge_streams = True
nb_render_error_lexer = "text"   # tracebacks quote messages with "…", which the IPython lexer rejects
nb_execution_excludepatterns: list[str] = []

# ---------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = "hydrobond"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
