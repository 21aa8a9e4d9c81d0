"""Packages whose public names load on first use (PEP 562).

A package lists each public name with the submodule that defines it; ``import package``
then costs nothing but the package's own file, and ``package.Name`` imports its submodule
the first time it is read. The command line answers ``--help`` at once this way, and a
script pays for sympy, scipy or networkx only when it uses what needs them.

A public name may also be the name of a submodule (``bondgraph.simulate`` is the function
and ``bondgraph/simulate.py`` the module defining it). The import system binds a submodule
to its package's attribute when it loads; the package keeps the public name bound to the
export instead, as an eager ``from .simulate import simulate`` would have left it.

Examples
--------
>>> import sys, types
>>> pkg = types.ModuleType("demo_pkg"); sys.modules["demo_pkg"] = pkg
>>> pkg.__getattr__, pkg.__dir__ = lazy_exports("demo_pkg", {"sqrt": "math"})
>>> "sqrt" in vars(pkg), pkg.sqrt(9.0), "sqrt" in vars(pkg)
(False, 3.0, True)
>>> del sys.modules["demo_pkg"]

A package made lazy pickles by name (unpickling imports it), so a function whose globals
hold one can be sent to another process:

>>> import pickle, mechanisms.analysis
>>> pickle.loads(pickle.dumps(mechanisms.analysis)) is mechanisms.analysis
True
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any, Callable, Mapping

__all__ = ["lazy_exports"]


class _LazyPackage(types.ModuleType):
    """A package module that keeps its exported names bound to the exports when a
    submodule of the same name is loaded."""

    def __setattr__(self, name: str, value: Any) -> None:
        exports = self.__dict__.get("_lazy_exports", {})
        if (name in exports and isinstance(value, types.ModuleType)
                and value.__name__ == f"{self.__name__}.{name}"):
            return        # the import system binding the submodule: the export keeps the name
        super().__setattr__(name, value)

    def __reduce__(self):
        # pickled by name, as a function is: unpickling imports the package (a Dask worker
        # receiving a function whose globals hold ``mechanisms.analysis``)
        return importlib.import_module, (self.__name__,)


def lazy_exports(package: str, exports: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (it must be in ``sys.modules``, as it is while its
        ``__init__`` runs).
    exports : mapping of str to str
        Each public name and the module that defines it: relative (``".simulate"``) to
        the package, or absolute.

    Returns
    -------
    (getattr, dir)
        Assign them to the package's ``__getattr__`` and ``__dir__``.

    Examples
    --------
    >>> import sys, types
    >>> pkg = types.ModuleType("demo_lazy"); sys.modules["demo_lazy"] = pkg
    >>> pkg.__getattr__, pkg.__dir__ = lazy_exports("demo_lazy", {"pi": "math"})
    >>> round(pkg.pi, 4), "pi" in dir(pkg)
    (3.1416, True)
    >>> pkg.tau
    Traceback (most recent call last):
    ...
    AttributeError: module 'demo_lazy' has no attribute 'tau'
    >>> del sys.modules["demo_lazy"]
    """
    module = sys.modules[package]
    table = dict(exports)

    def __getattr__(name: str) -> Any:
        try:
            where = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(where, package), name)
        module.__dict__[name] = value          # read once, then an ordinary attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(module.__dict__) | set(table))

    module.__dict__["_lazy_exports"] = table
    if type(module) is types.ModuleType:
        module.__class__ = _LazyPackage
    return __getattr__, __dir__
