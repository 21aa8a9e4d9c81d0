"""Document a module-level value by its own ``#:`` comment, not by its type's docstring.

``autodata`` of a value without a docstring of its own shows its *type's* docstring
(``DATA``, a ``pathlib.Path``, would read "Path subclass for non-Windows systems").
This handler replaces such text with the ``#:`` comment written where the value is
defined (found in any loaded module of the package that holds the same object), and adds
the value itself when its ``repr`` is short and does not depend on the machine the docs
were built on (no paths). The data template shows no value line of its own.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import PurePath
from typing import Any

from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer

__all__ = ["comment_of", "setup"]


def comment_of(fullname: str, obj: Any) -> list[str]:
    """The ``#:`` comment lines of the module-level name that holds ``obj``, if any."""
    package, _, short = fullname.rpartition(".")
    top = package.split(".")[0]
    candidates = [package] + sorted(m for m in list(sys.modules) if m.startswith(top + ".") and m != package)
    for modname in candidates:
        mod = sys.modules.get(modname) or importlib.import_module(modname)
        for name, value in vars(mod).items():
            if value is not obj:
                continue
            try:
                docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
            except Exception:
                continue
            if ("", name) in docs:
                return [line for line in docs[("", name)]]
    return []


def _process(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    if what != "data":
        return
    own = type(obj).__doc__
    if own and getattr(obj, "__doc__", None) == own:
        lines[:] = comment_of(name, obj)
    text = repr(obj)
    if len(text) <= 160 and not isinstance(obj, PurePath):
        lines += ["", f"Value: ``{text}``"]


def setup(app: Sphinx) -> dict:
    app.connect("autodoc-process-docstring", _process)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
