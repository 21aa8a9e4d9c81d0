"""Co-simulation set-ups from a small JSON or TOML file.

A configuration names the subsystems (a Python factory by import path, or an FMU
file), the relations, the communication step, the end time and the glue::

    step = 1e-3                     # communication step H [s]
    end = 4.0                       # end time [s]
    scheme = "jacobi"               # or "gauss-seidel"
    glue = "quadratic"              # "zoh" | "linear" | "quadratic"
    glue_start = "derivatives"      # or "reduced" (optional)
    output = "b1.csv"               # optional, relative to this file
    relations = ["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"]
    bonds = [["spring.F", "mass.v"]]          # optional power bonds (effort, flow)

    [[subsystems]]
    factory = "bondgraph.cosim.examples:b1_mass"   # returns a Subsystem
    kwargs = {}                                     # optional

    [[subsystems]]
    fmu = "spring.fmu"              # relative to this file
    name = "spring"                 # required for an FMU
    substeps = 2                    # optional, multi-rate

    [policy]                        # optional: levels per kind of event
    divergence = "warning"

Examples
--------
>>> import json, pathlib, tempfile
>>> cfg = {"step": 1e-3, "end": 0.01, "glue": "quadratic",
...        "relations": ["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"],
...        "subsystems": [{"factory": "bondgraph.cosim.examples:b1_mass"},
...                       {"factory": "bondgraph.cosim.examples:b1_spring"}]}
>>> with tempfile.TemporaryDirectory() as d:
...     path = pathlib.Path(d) / "b1.json"
...     _ = path.write_text(json.dumps(cfg))
...     setup = load_config(path)
>>> setup.simulation.timing.n_steps, [s.name for s in setup.simulation.subsystems]
(10, ['mass', 'spring'])
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..errors import BondGraphError, ParameterError
from .catcher import KINDS, ErrorPolicy
from .export import call_factory
from .glue import Glue
from .master import Cosimulation, setup_problems
from .relations import Relations
from .subsystem import Subsystem
from .timing import TimeManager

__all__ = ["CosimSetup", "load_config", "build_setup"]

_TOP = {"step", "end", "start", "scheme", "glue", "glue_start", "relations", "bonds",
        "subsystems", "policy", "output", "sequence", "interpolate"}
_SUB = {"factory", "kwargs", "fmu", "name", "parameters", "substeps", "units",
        "direct_feedthrough"}


@dataclass(frozen=True)
class CosimSetup:
    """A configured co-simulation and where to write its results.

    Attributes
    ----------
    simulation : Cosimulation
        Ready to :meth:`~bondgraph.cosim.Cosimulation.run`.
    output : pathlib.Path or None
        The configuration's ``output`` file, relative to the configuration's folder.

    Examples
    --------
    >>> setup = build_setup({"step": 1e-3, "end": 0.002, "output": "b1.csv",
    ...                      "relations": ["mass.x -> spring.x", "mass.v -> spring.v",
    ...                                    "spring.F -> mass.F"],
    ...                      "subsystems": [{"factory": "bondgraph.cosim.examples:b1_mass"},
    ...                                     {"factory": "bondgraph.cosim.examples:b1_spring"}]})
    >>> setup.output.name, setup.simulation.run(progress=False).time
    ('b1.csv', array([0.   , 0.001, 0.002]))
    """

    simulation: Cosimulation
    output: Path | None


def load_config(path: str | Path) -> CosimSetup:
    """Read a ``.json`` or ``.toml`` configuration and build the co-simulation.

    Parameters
    ----------
    path : str or pathlib.Path
        The file; FMU and output paths in it are relative to its folder.

    Returns
    -------
    CosimSetup

    Examples
    --------
    See the module; a missing file is named:

    >>> load_config("no/b1.toml")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: configuration 'no/b1.toml': file not found

    Raises
    ------
    ParameterError
        Listing every problem in the file (unknown keys, missing entries, bad values).
    """
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"configuration {str(path)!r}: is a directory, expected a .toml "
                             "or .json file")
    if not path.is_file():
        raise ParameterError(f"configuration {str(path)!r}: file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError) as exc:
        raise ParameterError(f"configuration {str(path)!r}: cannot read it as text "
                             f"({type(exc).__name__}: {exc}); expected a .toml or .json "
                             "file") from exc
    try:
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ParameterError(f"configuration {str(path)!r}: cannot parse "
                             f"{path.suffix.lstrip('.').upper() or 'JSON'} ({exc})") from exc
    return build_setup(data, base=path.parent, label=f"configuration {path.name!r}")


def build_setup(data: Mapping[str, Any], base: Path = Path("."),
                label: str = "configuration") -> CosimSetup:
    """Build a :class:`CosimSetup` from an already-parsed configuration mapping.

    Parameters
    ----------
    data : mapping
        The settings of the module's file format.
    base : pathlib.Path
        Folder that FMU and output paths are relative to.
    label : str
        How messages name the configuration.

    Returns
    -------
    CosimSetup

    Raises
    ------
    ParameterError
        Every problem at once: unknown or missing keys, subsystems that cannot be made,
        bad relations, timing, glue or policy.

    Examples
    --------
    >>> build_setup({"step": 1e-3, "relations": [], "subsystems": [{"factory": "nowhere:f"}],
    ...              "glue": "cubic"})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: configuration: 3 problems
      - missing key 'end'
      - subsystems[0]: ...
      - glue: ...
    """
    problems: list[str] = []
    if not isinstance(data, Mapping):
        raise ParameterError(f"{label}: expected a table of settings at the top level")
    problems += [f"unknown key {k!r} (known: {', '.join(sorted(_TOP))})"
                 for k in data if k not in _TOP]
    problems += [f"missing key {k!r}" for k in ("step", "end", "relations", "subsystems")
                 if k not in data]
    subs: list[Subsystem] = []
    substeps: dict[str, int] = {}
    for i, entry in enumerate(data.get("subsystems", []) or []):
        where = f"subsystems[{i}]"
        if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
            where += f" ({entry['name']!r})"
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: expected a table")
            continue
        problems += [f"{where}: unknown key {k!r} (known: {', '.join(sorted(_SUB))})"
                     for k in entry if k not in _SUB]
        try:
            sub = _make(entry, base, where)
        except BondGraphError as exc:
            problems += [f"{where}: {p}" for p in exc.problems]
            continue
        except Exception as exc:  # noqa: BLE001 - a user factory may raise anything
            problems.append(f"{where}: building it raised {type(exc).__name__}: {exc}")
            continue
        if "name" in entry and entry["name"] != sub.name:
            problems.append(f"{where}: name {entry['name']!r} given, but the factory built "
                            f"subsystem {sub.name!r}")
        subs.append(sub)
        if "substeps" in entry:
            substeps[sub.name] = entry["substeps"]
    parts = {}
    makers = {
        "relations": lambda: Relations(data["relations"], bonds=data.get("bonds", ())),
        "glue": lambda: Glue(data.get("glue", "quadratic"),
                             start=data.get("glue_start", "derivatives"),
                             interpolate=data.get("interpolate", True)),
        "timing": lambda: TimeManager(step=data["step"], end=data["end"],
                                      start=data.get("start", 0.0),
                                      scheme=data.get("scheme", "jacobi"), substeps=substeps,
                                      sequence=data.get("sequence")),
        "policy": lambda: ErrorPolicy(**_policy_table(data.get("policy", {}))),
    }
    for key, make in makers.items():
        if key in ("relations", "timing") and any(p.startswith("missing key") for p in problems):
            continue
        try:
            parts[key] = make()
        except BondGraphError as exc:
            head = f"{exc.subject}: " if exc.subject else ""
            problems += [head + p for p in exc.problems]
    if not problems:
        problems += setup_problems(subs, parts["relations"], parts["timing"])
    if problems:
        raise ParameterError(problems, subject=label)
    sim = Cosimulation(subs, parts["relations"], parts["timing"], parts["glue"],
                       parts["policy"])
    out = data.get("output")
    return CosimSetup(sim, None if out is None else (base / out))


def _policy_table(table: Any) -> dict:
    if not isinstance(table, Mapping):
        raise ParameterError(f"policy: found {table!r}, expected a table of levels by kind",
                             subject="error policy")
    unknown = [k for k in table if k not in KINDS]
    if unknown:
        raise ParameterError([f"unknown kind {k!r} (known: {', '.join(KINDS)})" for k in unknown],
                             subject="error policy")
    return dict(table)


def _make(entry: Mapping[str, Any], base: Path, where: str) -> Subsystem:
    has_f, has_fmu = "factory" in entry, "fmu" in entry
    if has_f == has_fmu:
        raise ParameterError("expected exactly one of 'factory' (import path) or 'fmu' "
                             "(file)")
    if has_f:
        kwargs = entry.get("kwargs", {})
        if not isinstance(kwargs, Mapping):
            raise ParameterError(f"kwargs: found {kwargs!r}, expected a table of keyword "
                                 "arguments")
        made = call_factory(entry["factory"], kwargs)
        if not isinstance(made, Subsystem):
            raise ParameterError(f"factory {entry['factory']!r} returned "
                                 f"{type(made).__name__}, expected a Subsystem")
        return made
    from .fmi import FmuSubsystem

    if "name" not in entry:
        raise ParameterError("an FMU entry needs a 'name'")
    return FmuSubsystem(base / entry["fmu"], entry["name"],
                        parameters=entry.get("parameters"), units=entry.get("units"),
                        direct_feedthrough=entry.get("direct_feedthrough"))
