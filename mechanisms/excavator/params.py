"""Excavator parameters: a TOML file with units, checked and converted to SI.

The default file is ``mechanisms/data/excavator.toml`` (EXCAVATOR.md sections B
and C, estimates flagged in comments). A user passes their own file, or
overrides single values by dotted key (``{"bucket.mass": "50 kg"}``). Unknown
keys, missing keys, wrong units and unparsable values are all reported at once,
each naming its key.

Examples
--------
>>> p = load_params(overrides={"bucket.mass": "50 kg"})
>>> p["bucket"]["mass"], p["boom"]["arm_pin"]
(50.0, (7.11, 0.0))
>>> load_params(overrides={"bucket.mas": "50 kg"})
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: excavator parameters: 1 problem
  - 'bucket.mas': unknown key; did you mean 'bucket.mass'?
"""

from __future__ import annotations

import copy
import difflib
import math
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from bondgraph.errors import BondGraphError, ParameterError
from bondgraph.units import to_si

__all__ = ["SCHEMA", "DEFAULT_FILE", "load_params", "describe_params"]

DEFAULT_FILE = Path(str(resources.files("mechanisms") / "data" / "excavator.toml"))

_P, _S = "point", "scalar"
_CYL = {"count": ("", _S), "bore": ("m", _S), "rod": ("m", _S), "stroke": ("m", _S),
        "retracted": ("m", _S), "piston_rod_mass": ("kg", _S), "barrel_mass": ("kg", _S)}

#: section → key → (SI unit, kind); "" unit = dimensionless number
SCHEMA: dict[str, dict[str, tuple[str, str]]] = {
    "chassis": {"boom_foot": ("m", _P), "boom_cylinder_base": ("m", _P), "gravity": ("m/s^2", _S)},
    "boom": {"mass": ("kg", _S), "inertia": ("kg*m^2", _S), "cog": ("m", _P),
             "boom_cylinder_pin": ("m", _P), "arm_cylinder_base": ("m", _P), "arm_pin": ("m", _P)},
    "arm": {"mass": ("kg", _S), "inertia": ("kg*m^2", _S), "cog": ("m", _P),
            "arm_cylinder_pin": ("m", _P), "bucket_cylinder_base": ("m", _P),
            "rocker_pivot": ("m", _P), "bucket_pin": ("m", _P)},
    "rocker": {"length": ("m", _S), "mass": ("kg", _S)},
    "link": {"length": ("m", _S), "mass": ("kg", _S)},
    "bucket": {"link_pin": ("m", _P), "tip": ("m", _P), "mass": ("kg", _S), "cog": ("m", _P),
               "inertia": ("kg*m^2", _S)},
    "boom_cylinder": dict(_CYL),
    "arm_cylinder": dict(_CYL),
    "bucket_cylinder": dict(_CYL),
    "start": {"boom": ("rad", _S), "arm": ("rad", _S), "bucket": ("rad", _S),
              "linkage_branch": ("", _S)},
}


def _convert(value: Any, unit: str, key: str) -> float:
    if unit == "":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParameterError(f"{key!r}: found {value!r}, expected a plain number")
        return float(value)
    return to_si(value, unit, name=key)


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and not ({"value", "unit"} >= set(v) and "value" in v):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def load_params(path: str | Path | None = None,
                overrides: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Read an excavator parameter file (default: the reference machine), in SI.

    Parameters
    ----------
    path : path, optional
        A TOML file with every key of :data:`SCHEMA` (values with units).
    overrides : dict, optional
        Dotted keys → values with units, applied on top of the file.

    Returns
    -------
    dict
        ``section → key → float`` (points as ``(x, y)`` tuples).

    Raises
    ------
    ParameterError
        Listing every unknown, missing or wrongly-united key.
    """
    src = Path(path) if path is not None else DEFAULT_FILE
    try:
        raw = tomllib.loads(src.read_text())
    except FileNotFoundError:
        raise ParameterError(f"parameter file {str(src)!r}: not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"parameter file {str(src)!r}: not valid TOML ({exc})") from None
    hyd_raw = raw.pop("hydraulics", None)
    flat = _flatten(raw)
    known = {f"{s}.{k}" for s, keys in SCHEMA.items() for k in keys}
    problems: list[str] = []
    hyd = copy.deepcopy(hyd_raw) if hyd_raw is not None else None
    for key, val in (overrides or {}).items():
        if key.startswith("hydraulics."):
            if hyd is None:
                problems.append(f"{key!r}: the parameter file has no [hydraulics] table")
                continue
            node = hyd
            *path, leaf = key.split(".")[1:]
            for part in path:
                node = node.setdefault(part, {})
            node[leaf] = val
            continue
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1)
            problems.append(f"{key!r}: unknown key" + (f"; did you mean {close[0]!r}?" if close else ""))
        else:
            flat[key] = val
    for key in sorted(set(flat) - known):
        close = difflib.get_close_matches(key, sorted(known), n=1)
        problems.append(f"{key!r} in {src.name}: unknown key" + (f"; did you mean {close[0]!r}?" if close else ""))
    out: dict[str, dict[str, Any]] = {s: {} for s in SCHEMA}
    for section, keys in SCHEMA.items():
        for k, (unit, kind) in keys.items():
            key = f"{section}.{k}"
            if key not in flat:
                problems.append(f"{key!r}: missing in {src.name} (expected "
                                f"{'a point [x, y]' if kind == _P else 'a value'}"
                                f"{' in ' + unit if unit else ''})")
                continue
            val = flat[key]
            try:
                if kind == _P:
                    if not isinstance(val, (list, tuple)) or len(val) != 2:
                        raise ParameterError(f"{key!r}: found {val!r}, expected a point [x, y] with units")
                    out[section][k] = (_convert(val[0], unit, key + "[0]"), _convert(val[1], unit, key + "[1]"))
                else:
                    out[section][k] = _convert(val, unit, key)
            except BondGraphError as exc:
                problems += exc.problems
    for section in ("boom_cylinder", "arm_cylinder", "bucket_cylinder"):
        c = out[section]
        if {"bore", "rod"} <= set(c) and c["rod"] >= c["bore"]:
            problems.append(f"'{section}.rod': {c['rod']} m, expected smaller than the bore {c['bore']} m")
        if "count" in c and (c["count"] < 1 or c["count"] != int(c["count"])):
            problems.append(f"'{section}.count': {c['count']}, expected a whole number ≥ 1")
    if "linkage_branch" in out["start"] and out["start"]["linkage_branch"] not in (1.0, -1.0):
        problems.append(f"'start.linkage_branch': {out['start']['linkage_branch']}, expected 1 or -1")
    if hyd is not None and not problems:
        from .hydraulics import check_hydraulics

        problems += check_hydraulics(out, hyd)
    if problems:
        raise ParameterError(problems, subject="excavator parameters")
    out["hydraulics"] = hyd
    return out


def describe_params(params: Mapping[str, Mapping[str, Any]]) -> str:
    """A readable table of the parameters in SI."""
    lines = []
    for section, keys in params.items():
        if section == "hydraulics":
            continue
        for k, v in keys.items():
            unit = SCHEMA[section][k][0]
            if isinstance(v, tuple):
                lines.append(f"{section}.{k:<24} ({v[0]:.4g}, {v[1]:.4g}) {unit}")
            elif unit == "rad":
                lines.append(f"{section}.{k:<24} {v:.6g} rad ({math.degrees(v):.2f}°)")
            else:
                lines.append(f"{section}.{k:<24} {v:.6g} {unit}")
    return "\n".join(lines)


def merge(params: Mapping[str, Mapping[str, Any]], **changes: Mapping[str, Any]) -> dict:
    """A copy of SI parameters with some sections updated (values already in SI)."""
    out = copy.deepcopy(dict(params))
    for section, vals in changes.items():
        out[section] = {**out[section], **vals}
    return out
