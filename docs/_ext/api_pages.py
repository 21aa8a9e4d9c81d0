"""Write one API page per package from its ``__all__`` before Sphinx lists the sources.

Each package's ``__all__`` is its documented surface: the page lists every name of it,
grouped by kind (classes, exceptions, functions, data), in an ``autosummary`` table that
generates one page per name. Pages are regenerated at every build (``docs/api/*.rst``
and ``docs/api/generated/`` are not tracked), so a name added to ``__all__`` is
documented without editing the docs.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from sphinx.application import Sphinx

__all__ = ["PACKAGES", "write_pages", "setup"]

#: the documented packages, with one line on what each holds
PACKAGES = {
    "bondgraph": "The bond-graph core: elements, graphs, causality, equations, compiled models, "
                 "simulation, results, hybrid models, linearisation and errors.",
    "bondgraph.cosim": "Co-simulation: subsystems, relations, the master, glue, error policy and FMI.",
    "bondgraph.export": "Modelica export of bond graphs and the rumoca check.",
    "components": "Linkage templates (MainBody, Lever, Cylinder) and their causal port classes.",
    "components.hydraulics": "Hydraulic elements and circuits: oil, orifices, chambers, cylinders, "
                             "valves, pumps, load sensing, open centre.",
    "mechanisms": "Mechanisms assembled from templates, and their compiled models.",
    "mechanisms.machine": "Machines from description files: runs, circuits, reports, plots.",
    "mechanisms.analysis": "Design studies of any machine: working range, tool forces, lift capacity, "
                           "cycle energy, sweeps.",
    "mechanisms.excavator": "The reference excavator on the machine layer, and its co-simulation split.",
    "mechanisms.formulations": "The causal, stiff-joint and Cartesian formulations of one mechanism; "
                               "Modelica export of mechanisms.",
}

_KINDS = (("Classes", lambda o: inspect.isclass(o) and not issubclass(o, BaseException)),
          ("Exceptions and warnings", lambda o: inspect.isclass(o) and issubclass(o, BaseException)),
          ("Functions", lambda o: callable(o) and not inspect.isclass(o)),
          ("Data", lambda o: True))


def _page(package: str, blurb: str) -> str:
    mod = importlib.import_module(package)
    names = list(getattr(mod, "__all__", []))
    groups: dict[str, list[str]] = {k: [] for k, _ in _KINDS}
    for name in names:
        obj = getattr(mod, name)
        for kind, test in _KINDS:
            if test(obj):
                groups[kind].append(name)
                break
    title = f"``{package}``"
    lines = [title, "=" * len(title), "", f".. py:module:: {package}", "", blurb, "",
             f"Everything below is in ``{package}.__all__``; import it from ``{package}``.", "",
             f".. currentmodule:: {package}", ""]
    for kind, members in groups.items():
        if not members:
            continue
        lines += [kind, "-" * len(kind), "", ".. autosummary::", "   :toctree: generated/",
                  "   :nosignatures:", ""]
        lines += [f"   {n}" for n in members] + [""]
    return "\n".join(lines)


def write_pages(out: Path) -> list[str]:
    """Write ``out/<package>.rst`` for every package of :data:`PACKAGES` (only if changed)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for package, blurb in PACKAGES.items():
        path = out / f"{package}.rst"
        text = _page(package, blurb)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path.name)
    return written


def _generate(app: Sphinx, config) -> None:
    write_pages(Path(app.srcdir) / "api")


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _generate)   # before the sources are listed
    return {"parallel_read_safe": True, "parallel_write_safe": True}
