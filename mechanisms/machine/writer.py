"""Machine files written from Python: a mechanism of templates → the tables of a machine file.

One machine layer, two ways in: a :class:`~mechanisms.Mechanism` built from templates in a
notebook becomes the same :class:`~mechanisms.machine.MachineDescription` a file gives
(:func:`description_from_mechanism`), so a machine built in Python has every capability
of one read from a file, and :func:`to_toml` writes any description back as a file that
reads to the same description (values written with all their digits: a machine saved and
read back gives the same equations and results).

What a part's tables hold comes from the template's own arguments
(:attr:`Part.spec <components.Part.spec>`): a :class:`~components.MainBody` gives
``mass``, ``inertia``, ``cog``, ``points`` and its point masses as ``[payloads]``; a
:class:`~components.Lever` its ``length``, ``mass``, ``root``, ``tip`` (and ``inertia``,
``cog`` when given); a :class:`~components.Cylinder` its stroke, retracted length, masses
(per cylinder in the file, totals in the template), ``function``, ``count`` and hydraulic
data. The pins of :meth:`Mechanism.fix <mechanisms.Mechanism.fix>` are ``[chassis]``, the
hinges of :meth:`Mechanism.connect <mechanisms.Mechanism.connect>` ``[hinges]``. The
mechanism's drives are not part of a machine: the machine's mode drives every cylinder.

Examples
--------
>>> from mechanisms.examples import single_boom
>>> table = mechanism_tables(single_boom())
>>> table["boom"]["points"]["B"], table["hinges"]
(['Pd', '2.85 m', '1.18 m'], {'boom.B': 'boom_cyl.B'})
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Mapping

from bondgraph.errors import ParameterError

from components import Cylinder, Lever, MainBody
from components.cylinder import HYDRAULIC_DATA
from components.part import symbolic

__all__ = ["mechanism_tables", "description_from_mechanism", "to_toml", "write_description", "quantity"]

#: units of the values written (the machine file's units)
_UNITS = {"mass": "kg", "inertia": "kg*m^2", "length": "m", "gravity": "m/s^2", "bore": "m", "rod": "m",
          "dead_volume_cap": "m^3", "dead_volume_rod": "m^3", "leakage_internal": "m^3/s/Pa",
          "leakage_external": "m^3/s/Pa"}


def quantity(value: float, unit: str) -> str:
    """A number with its unit as machine-file text, every digit kept (``repr``).

    Examples
    --------
    >>> quantity(0.1 + 0.2, "m"), quantity(1307, "kg")
    ('0.30000000000000004 m', '1307.0 kg')
    """
    return f"{float(value)!r} {unit}"


def _point(xy, unit: str = "m") -> list[str]:
    return [quantity(xy[0], unit), quantity(xy[1], unit)]


def _number(part: str, key: str, value: Any, problems: list[str]) -> float | None:
    if symbolic(value):
        problems.append(f"part {part!r}: {key} is the symbol {value}, expected a number (a machine "
                        "makes its own run-time parameters: Machine.set changes them)")
        return None
    return float(value)


def mechanism_tables(mechanism) -> dict[str, Any]:
    """The part tables, ``[payloads]``, ``[chassis]`` and ``[hinges]`` of a mechanism, with units.

    Raises
    ------
    ParameterError
        A value that is a symbol (not a number), parts that disagree on gravity, a point
        mass whose name another body uses too (every problem at once).
    """
    problems: list[str] = []
    out: dict[str, Any] = {}
    payloads: dict[str, Any] = {}
    gravities = {}
    for name, part in mechanism.parts.items():
        spec = part.spec
        g = _number(name, "gravity", spec["gravity"], problems)
        if g is not None:
            gravities[name] = g
        if isinstance(part, MainBody):
            t: dict[str, Any] = {"type": "body"}
            for k in ("mass", "inertia"):
                v = _number(name, k, spec[k], problems)
                if v is not None:
                    t[k] = quantity(v, _UNITS[k])
            t["cog"] = _point(spec["cog"])
            t["points"] = {pn: [cls, *_point(xy)] for pn, (cls, xy) in spec["points"].items()}
            for pm, (m, xy) in spec["point_masses"].items():
                if pm in payloads:
                    problems.append(f"point mass {pm!r}: on {payloads[pm]['part']!r} and {name!r}; a machine "
                                    "names its payloads once (rename one)")
                    continue
                v = _number(name, f"point mass {pm!r}", m, problems)
                if v is not None:
                    payloads[pm] = {"part": name, "at": _point(xy), "mass": quantity(v, "kg")}
        elif isinstance(part, Lever):
            t = {"type": "lever", "length": quantity(spec["length"], "m")}
            v = _number(name, "mass", spec["mass"], problems)
            if v is not None:
                t["mass"] = quantity(v, "kg")
            if spec["inertia"] is not None:
                v = _number(name, "inertia", spec["inertia"], problems)
                if v is not None:
                    t["inertia"] = quantity(v, "kg*m^2")
            if spec["cog"] is not None:
                t["cog"] = _point(spec["cog"])
            t["root"], t["tip"] = spec["root"], spec["tip"]
        elif isinstance(part, Cylinder):
            n = spec["count"]
            t = {"type": "cylinder", "function": part.function, "count": n}
            for k in HYDRAULIC_DATA:
                if spec[k] is not None:
                    t[k] = quantity(spec[k], _UNITS[k])
            t["stroke"], t["retracted"] = quantity(spec["stroke"], "m"), quantity(spec["retracted"], "m")
            for key, arg, unit in (("rod_mass", "m_rod", "kg"), ("barrel_mass", "m_barrel", "kg"),
                                   ("rod_inertia", "J_rod", "kg*m^2"), ("barrel_inertia", "J_barrel", "kg*m^2")):
                v = _number(name, arg, spec[arg], problems)
                if v is not None:
                    t[key] = quantity(v / n, unit)      # per cylinder in the file
            t["rod_cog"], t["barrel_cog"] = quantity(spec["d_rod"], "m"), quantity(spec["d_barrel"], "m")
            t["root"], t["tip"] = part.root.name, spec["tip"]
            from components.cylinder import END_STOP_KEYS, FRICTION_KEYS

            for sub, keys in (("friction", FRICTION_KEYS), ("end_stop", END_STOP_KEYS)):
                if spec[sub]:
                    t[sub] = {k: quantity(v, keys[k][0]) for k, v in spec[sub].items()}
        else:
            problems.append(f"part {name!r}: a {type(part).__name__}; a machine file holds MainBody, "
                            "Lever and Cylinder parts")
            continue
        out[name] = t
    if len(set(gravities.values())) > 1:
        problems.append("gravity differs between parts (" + ", ".join(f"{n}: {g:g}" for n, g in gravities.items())
                        + " m/s²); a machine has one gravity")
    if problems:
        raise ParameterError(problems, subject=f"mechanism {mechanism.name!r} as a machine")
    out["gravity"] = next(iter(gravities.values()), 9.81)
    if payloads:
        out["payloads"] = payloads
    out["chassis"] = {f"{p}.{pt}": _point(xy) for (p, pt), xy in mechanism.fixed.items()}
    out["hinges"] = {f"{a.part}.{a.name}": f"{b.part}.{b.name}" for a, b in mechanism.hinges}
    return out


def _plain(value: Any) -> Any:
    """Section values as TOML can hold them: pint quantities as text, tuples as lists."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "magnitude") and hasattr(value, "units"):
        return f"{value.magnitude!r} {value.units:~C}".replace("**", "^")
    if isinstance(value, Path):
        return str(value)
    return value


def description_from_mechanism(mechanism, *, start: Mapping[str, Any], guess: Mapping[str, Any] | None = None,
                               outputs: Mapping[str, Any] | None = None,
                               limits: Mapping[str, Any] | None = None,
                               circuit: Mapping[str, Any] | None = None, base: Mapping[str, Any] | None = None,
                               cycles: Mapping[str, Any] | None = None, ground: Any = None,
                               soil: Mapping[str, Any] | None = None, swing: Mapping[str, Any] | None = None,
                               travel: Mapping[str, Any] | None = None,
                               name: str | None = None, title: str | None = None, source: str | None = None,
                               default_cycle: str | None = None, directory: str | Path | None = None,
                               kind: str | None = None):
    """The :class:`~mechanisms.machine.MachineDescription` of a mechanism plus the machine's
    other sections, given as in a machine file (values with units); see
    :meth:`Machine.from_mechanism <mechanisms.machine.Machine.from_mechanism>`.

    ``directory`` is where relative cycle file names are looked up (default the current
    directory). Every problem of every section is reported at once, by its key.
    """
    from .description import MachineDescription
    from .tomlfile import TomlFile

    missing = [c.name for c in mechanism.parts.values() if isinstance(c, Cylinder)
               and not {"bore", "rod"} <= set(c.hydraulics)]
    if missing:
        raise ParameterError([f"cylinder {c!r}: no bore and rod; a machine needs them (its pressures, forces "
                              f"at a pressure, the circuit): Cylinder({c!r}, ..., bore=\"100 mm\", "
                              f"rod=\"60 mm\")" for c in missing],
                             subject=f"mechanism {mechanism.name!r} as a machine")
    tables = mechanism_tables(mechanism)
    data: dict[str, Any] = {"machine": {"name": name or mechanism.name,
                                        "gravity": quantity(tables.pop("gravity"), "m/s^2")}}
    m = data["machine"]
    for k, v in (("title", title), ("source", source), ("default_cycle", default_cycle), ("kind", kind)):
        if v is not None:
            m[k] = v
    if ground is not None:
        m["ground"] = _plain(ground) if not isinstance(ground, (int, float)) else quantity(ground, "m")
    start_t = _plain(dict(start))
    if guess:
        start_t.setdefault("guess", {}).update(_plain(dict(guess)))
    data.update(tables)
    data["start"] = start_t
    for k, v in (("outputs", outputs), ("limits", limits), ("circuit", circuit), ("base", base),
                 ("cycles", cycles), ("soil", soil), ("swing", swing),
                 ("travel", travel)):
        if v is not None:
            data[k] = _plain(v)
    origin = f"Machine.from_mechanism({mechanism.name!r})"
    f = TomlFile(data=_roundtrip(data), name=origin, path=None, lines={})
    if directory is not None:
        f.path = Path(directory) / f"{mechanism.name}.toml"
    return MachineDescription.from_file(f)


def _roundtrip(data: dict[str, Any]) -> dict[str, Any]:
    """The data as a file would give them back (TOML types only: a value TOML cannot hold
    is named here, not later)."""
    import tomllib

    try:
        return tomllib.loads(to_toml(data))
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"a machine section holds a value a machine file cannot: {exc}") from None


def to_toml(data: Mapping[str, Any], header: str | None = None) -> str:
    """Machine-file text of a table (``[machine]`` first, then the parts in order, then the
    other sections), with an optional comment header.

    Examples
    --------
    >>> print(to_toml({"machine": {"name": "x"}, "boom": {"type": "body", "cog": ["1.0 m", "0.0 m"]}},
    ...               header="a test"))
    # a test
    <BLANKLINE>
    [machine]
    name = "x"
    <BLANKLINE>
    [boom]
    type = "body"
    cog = ["1.0 m", "0.0 m"]
    <BLANKLINE>
    """
    import tomlkit

    doc = tomlkit.document()
    if header:
        for line in header.splitlines():
            doc.add(tomlkit.comment(line))
        doc.add(tomlkit.nl())
    order = ["machine"] + [k for k in data if k not in ("machine",)]
    for k in order:
        if k in data:
            doc[k] = data[k]
    return tomlkit.dumps(doc)


def write_description(desc, path: str | Path, *, header: str | None = None, copy_cycles: bool = True) -> Path:
    """Write a description as a machine file at ``path`` (atomically); its cycle files are
    copied next to it (``copy_cycles``) so the file is self-contained, or referred to by a
    path relative to it.

    Raises
    ------
    ParameterError
        A cycle file that does not exist, or a different file of the same name already next
        to ``path``.
    """
    from .files import atomic_path

    path = Path(path)
    data = desc.raw_tables()
    problems = []
    cycles = data.get("cycles") or {}
    for cname, files in desc.cycles.items():
        for mode, src in files.items():
            if copy_cycles:
                dst = path.parent / src.name
                if not src.is_file():
                    problems.append(f"cycle {cname!r} ({mode}): {src} does not exist")
                    continue
                if dst.exists() and dst.resolve() != src.resolve() and dst.read_bytes() != src.read_bytes():
                    problems.append(f"cycle {cname!r} ({mode}): {dst} exists and differs from {src}; "
                                    "save elsewhere or remove it")
                    continue
                cycles[cname][mode] = src.name
            else:
                cycles[cname][mode] = os.path.relpath(src, path.parent)
    if problems:
        raise ParameterError(problems, subject=f"writing machine {desc.name!r} to {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    if copy_cycles:
        for files in desc.cycles.values():
            for src in files.values():
                dst = path.parent / src.name
                if not dst.exists():
                    shutil.copyfile(src, dst)
    with atomic_path(path) as tmp:
        Path(tmp).write_text(to_toml(data, header=header), encoding="utf-8")
    return path

