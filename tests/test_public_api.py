"""Each package's ``__all__`` is its documented surface, and every name in it is documented.

For every package below: each name in ``__all__`` exists; each class or function there
has a numpydoc docstring with an ``Examples`` section (a class carries it in its own
docstring); each public method of such a class (functions, class and static methods,
properties defined on it) has a docstring, its own or the one it overrides. Every module
of these packages has an explicit ``__all__``. The examples themselves run as doctests
(``--doctest-modules``, on for every package).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

PACKAGES = [
    "bondgraph", "bondgraph.cosim", "bondgraph.export", "components", "components.hydraulics",
    "mechanisms", "mechanisms.machine", "mechanisms.analysis", "mechanisms.formulations",
    "mechanisms.excavator",
]

#: Names not documented yet, all defined in modules other people are editing now (the
#: hybrid models being made a package, the plots, the mechanical templates, the mechanism
#: assembly and model, the machine layer — re-exported by mechanisms.excavator too); the
#: lead engineer empties this list once they are done. Keyed "package.name" or
#: "package.Class.method", grouped by the module that defines the name.
NOT_YET: set[str] = set()   # every name of the surface is documented (the list is empty, kept for work in progress)

#: Modules without an explicit ``__all__`` yet (same owners as above).
NO_ALL_YET: set[str] = set()

_EXAMPLES = re.compile(r"^\s*Examples\s*\n\s*-{3,}\s*$", re.M)


def _own_doc(obj) -> str:
    """A class's own docstring (not one inherited from its base), a function's docstring."""
    if inspect.isclass(obj):
        return obj.__dict__.get("__doc__") or ""
    return obj.__doc__ or ""


def _member_doc(cls, name: str, member) -> str:
    """The docstring of a class member: its own, or that of the member it overrides."""
    if isinstance(member, property):
        for klass in cls.__mro__:
            attr = klass.__dict__.get(name)
            if isinstance(attr, property) and attr.__doc__:
                return attr.__doc__
        return ""
    return inspect.getdoc(getattr(cls, name)) or ""


def _public_members(cls):
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if inspect.isfunction(member) or isinstance(member, property):
            yield name, member


def _problems(package: str) -> list[str]:
    mod = importlib.import_module(package)
    names = getattr(mod, "__all__", None)
    if names is None:
        return [f"{package}: no __all__"]
    problems = []
    for name in names:
        key = f"{package}.{name}"
        if not hasattr(mod, name):
            problems.append(f"{key}: in __all__ but not defined")
            continue
        obj = getattr(mod, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue                                   # constants, symbols, registries
        if key not in NOT_YET:
            doc = _own_doc(obj)
            if not doc.strip():
                problems.append(f"{key}: no docstring")
            elif not _EXAMPLES.search(doc):
                problems.append(f"{key}: no Examples section in its docstring")
        if inspect.isclass(obj):
            for mname, member in _public_members(obj):
                mkey = f"{key}.{mname}"
                if mkey not in NOT_YET and not _member_doc(obj, mname, member).strip():
                    problems.append(f"{mkey}: public method without a docstring")
    return problems


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_of_the_surface_is_documented_with_an_example(package):
    problems = _problems(package)
    assert not problems, "\n".join(problems)


def _modules():
    """Every module of the three top packages, with its source file (``__main__`` modules,
    whose import runs a command, are read, not imported)."""
    for top in ("bondgraph", "components", "mechanisms"):
        mod = importlib.import_module(top)
        yield top, Path(mod.__file__)
        for info in pkgutil.walk_packages(mod.__path__, prefix=f"{top}."):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            sub = importlib.import_module(info.name)
            yield info.name, Path(sub.__file__)


def _declares_all(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return True
    return False


def test_every_module_declares_its_all():
    missing = sorted({name for name, path in _modules()
                      if name not in NO_ALL_YET and not _declares_all(path)})
    assert not missing, "modules without an explicit __all__: " + ", ".join(missing)


def test_the_allow_lists_name_only_what_exists():
    """An entry of the allow-lists that no longer exists (renamed, removed) is dropped."""
    stale = []
    for key in NOT_YET:
        for package in sorted(PACKAGES, key=len, reverse=True):
            if key.startswith(package + "."):
                obj = importlib.import_module(package)
                for part in key[len(package) + 1:].split("."):
                    obj = getattr(obj, part, None)
                if obj is None:
                    stale.append(key)
                break
        else:
            stale.append(key)
    known = {name for name, _ in _modules()}
    stale += [m for m in NO_ALL_YET if m not in known]
    assert not stale, "stale allow-list entries: " + ", ".join(sorted(stale))
