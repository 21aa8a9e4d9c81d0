"""Resolve a Python cross-reference by the object it names, not by its spelling.

Docstrings name objects where they are defined (``bondgraph.results.Results``,
``components.hydraulics.orifice.Orifice``, ``run.run_machine`` inside
``mechanisms.machine``); the site documents them where users import them
(``bondgraph.Results``). When a ``py`` reference does not resolve, this handler imports
the dotted name — as written, relative to the current module and class, and relative to
the module that defines the documented object — and:

* if the object is documented under a public name (an ``__all__`` entry of
  ``api_pages.PACKAGES``, or a member of one), links to that page;
* if it exists but is internal (a private helper, a module, an instance attribute of a
  documented class), shows the name as code without a link: the name is real, it simply
  has no page;
* otherwise leaves the reference unresolved, and Sphinx reports it (``nitpicky``): a
  stale or misspelt name is an error of the build.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from api_pages import PACKAGES

__all__ = ["public_names", "setup"]

_PUBLIC: dict[int, str] = {}


def public_names() -> dict[int, str]:
    """``id(object)`` → the documented public name (``package.name``) of every ``__all__`` entry."""
    if not _PUBLIC:
        for package in PACKAGES:
            mod = importlib.import_module(package)
            for name in getattr(mod, "__all__", []):
                obj = getattr(mod, name)
                if isinstance(obj, (int, float, str, tuple, bool)) or obj is None:
                    continue        # immutable values are shared: identity says nothing
                _PUBLIC.setdefault(id(obj), f"{package}.{name}")
    return _PUBLIC


def _lookup(target: str) -> Any:
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        try:
            for p in parts[i:]:
                obj = getattr(obj, p)
        except AttributeError:
            return None
        return obj
    return None


def _candidates(target: str, node: pending_xref) -> list[str]:
    target = target.lstrip("~.")
    names = [target]
    mod, cls = node.get("py:module"), node.get("py:class")
    prefixes = []
    if mod and cls:
        prefixes.append(f"{mod}.{cls}")
        owner = _lookup(f"{mod}.{cls}")
        home = getattr(owner, "__module__", None)
        if home:
            prefixes += [f"{home}.{cls.split('.')[-1]}", home, home.rpartition(".")[0]]
    documented = _documented_object(node)
    if documented:
        owner = _lookup(documented)
        home = getattr(owner, "__module__", None)
        prefixes.append(documented)
        if isinstance(owner, type) and home:
            prefixes.append(f"{home}.{owner.__name__}")
        if home:
            prefixes += [home, home.rpartition(".")[0]]
    if mod:
        prefixes.append(mod)
    for p in prefixes:
        if p:
            names.append(f"{p}.{target}")
    return list(dict.fromkeys(names))


def _documented_object(node: pending_xref) -> str | None:
    """The dotted name of the object whose text holds the reference: the page's object
    (``api/generated/<name>``), or the object of the autosummary row the reference is in."""
    row = node.parent
    while row is not None and not isinstance(row, nodes.row):
        row = row.parent
    mod = node.get("py:module")
    if row is not None and len(row.children) > 1 and mod:
        name = row.children[0].astext().strip().split("(")[0]
        if name and _lookup(f"{mod}.{name}") is not None:
            return f"{mod}.{name}"
    doc = node.get("refdoc", "")
    if doc.startswith("api/generated/"):
        return doc.rsplit("/", 1)[-1]
    return None


def _instance_attribute(name: str) -> bool:
    """``Class.attr`` where ``attr`` is set on instances (named in the class's source)."""
    head, _, attr = name.rpartition(".")
    owner = _lookup(head) if head else None
    if not isinstance(owner, type):
        return False
    import inspect
    for klass in owner.__mro__[:-1]:
        try:
            src = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if re.search(rf"\bself\.{re.escape(attr)}\b", src) or f"    {attr}:" in src:
            return True
    return False


def _resolve(app: Sphinx, env: BuildEnvironment, node: pending_xref, contnode: nodes.Element):
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    domain = env.get_domain("py")
    exists = False
    for name in _candidates(target, node):
        head, _, tail = name.rpartition(".")
        obj = _lookup(name)
        exists = exists or obj is not None or _instance_attribute(name)
        public = public_names().get(id(obj)) if obj is not None else None
        if public is None and head:
            owner = _lookup(head)            # Class.method: resolve the class, keep the member
            owner_public = public_names().get(id(owner)) if owner is not None else None
            if owner_public is not None and (obj is not None or _instance_attribute(name)):
                public = f"{owner_public}.{tail}"
        if public is None or public == target:
            continue
        for role in ("obj", node["reftype"]):
            new = node.deepcopy()
            new["reftarget"] = public
            new["reftype"] = role
            ref = domain.resolve_xref(env, node["refdoc"], app.builder, role, public, new, contnode)
            if ref is not None:
                return ref
    if exists:
        return contnode          # a real name without a page of its own: code, no link
    return None


def setup(app: Sphinx) -> dict:
    app.connect("missing-reference", _resolve, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
