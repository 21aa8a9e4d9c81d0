"""Layers: nothing below a command line imports a command line.

The command-line modules (``cli.py``, and the ``__main__.py`` that runs one) sit on top of
the library; the machine layer, the analyses, the formulations import nothing from them,
so that a library call never depends on argument parsing. What both need (a machine by
name, ``--set`` overrides) lives in :mod:`mechanisms.machine.names`. This test reads every
module under ``mechanisms/`` (its syntax tree, without importing it) and fails on any
import of a module named ``cli`` from a module that is not itself a command line.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mechanisms"
#: modules that are command lines themselves: they may import one another
ENTRY_POINTS = {"cli.py", "__main__.py"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def cli_imports(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """``(line, imported module)`` of every import of a ``cli`` module in ``source`` (the
    text of module ``module``): ``import a.cli``, ``from a.cli import x``, ``from a import
    cli``, relative forms resolved against ``module``."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            names = [target] + [f"{target}.{a.name}" for a in node.names]
        else:
            continue
        found += [(node.lineno, n) for n in names if n.split(".")[-1] == "cli"]
    return found


def test_the_finder_sees_every_form_of_import():
    mod = "mechanisms.analysis.study"
    assert cli_imports("from ..machine.cli import resolve_machine", mod) == [(1, "mechanisms.machine.cli")]
    assert cli_imports("from ..machine import cli", mod) == [(1, "mechanisms.machine.cli")]
    assert cli_imports("from . import cli", mod) == [(1, "mechanisms.analysis.cli")]
    assert cli_imports("def f():\n    import mechanisms.machine.cli as c", mod) == [(2, "mechanisms.machine.cli")]
    assert cli_imports("from .names import resolve_machine\nimport client", mod) == []
    assert cli_imports("from .cli import main", "mechanisms.machine", is_package=True) == \
        [(1, "mechanisms.machine.cli")]


def test_no_module_below_a_command_line_imports_one():
    modules = sorted(PACKAGE.rglob("*.py"))
    if not modules:
        pytest.skip("no sources next to the tests")
    offenders = []
    for path in modules:
        if path.name in ENTRY_POINTS:
            continue
        text = path.read_text(encoding="utf-8")
        for line, target in cli_imports(text, module_name(path), path.name == "__init__.py"):
            offenders.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not offenders, ("modules below the command line import a CLI module (move what they need "
                           "into the library, e.g. mechanisms.machine.names):\n  " + "\n  ".join(offenders))
