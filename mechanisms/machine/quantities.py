"""Values with units, read fast: each unit text is parsed by pint once, then cached.

A machine file holds a few hundred values such as ``"135 mm"`` or ``"0.01 m^3/s"``
but only a few dozen distinct unit texts. :func:`to_si` splits the number from the
unit, converts the unit with :mod:`pint` the first time it meets it (in any process:
the factors are kept in a small JSON file next to the compile cache) and from then
on only multiplies. A warm build therefore never imports pint (0.3 s).

Only multiplicative units are cached (``degC``-like offset units go to pint every
time). A bare number where a dimension is required is an error suggesting a
plausible unit for that magnitude (``150`` for a bore: ``"150 mm"``).

Examples
--------
>>> to_si("135 mm", "m", key="bore")
0.135
>>> to_si("1500 rpm", "rad/s", key="pump_speed")
157.07963267949
>>> to_si(150, "m", key="boom_cylinder.bore")
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: 'boom_cylinder.bore': found the bare number 150, expected a length with its unit, e.g. "150 mm"
>>> dimension_name("Pa")
'a pressure'
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

from bondgraph.errors import ParameterError

__all__ = ["to_si", "parse", "dimension_name", "suggest_unit", "describe"]

_NUMBER = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan))\s*(.*?)\s*$",
                     re.IGNORECASE)

#: unit text -> (factor to SI base units, dimensionality text); filled lazily
_UNITS: dict[str, tuple[float, str]] = {}
_LOADED = [False]

def _dim_names() -> dict[str, str]:
    """The core's names of dimensions (:mod:`bondgraph.units`), keyed by our canonical
    dimension text, plus the angular ones pint folds into plain numbers."""
    from bondgraph.units import _DIM_NAMES as core

    out = {_dim_text(_dims(k)): v for k, v in core.items() if k != "dimensionless"}
    out.update({"[length] ** 3 / [radian]": "a displacement per revolution",
                "[radian] / [time]": "an angular velocity", "[radian]": "an angle", "": "a plain number"})
    return out

def _cache_path():
    from bondgraph.files import cache_dir

    return cache_dir() / "unit_factors.json"


def _load_disk() -> None:
    if _LOADED[0]:
        return
    _LOADED[0] = True
    try:
        data = json.loads(_cache_path().read_text())
        for k, (f, d) in data.items():
            _UNITS.setdefault(k, (float(f), str(d)))
    except (OSError, ValueError, TypeError):
        pass


def _save_disk() -> None:
    try:
        path = _cache_path()
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(_UNITS, sort_keys=True))
        os.replace(tmp, path)
    except OSError:  # a read-only cache only costs speed
        pass


def _pint_unit(text: str) -> tuple[float, str] | None:
    """(factor, dimensionality) of a unit text with pint; None for offset units."""
    from bondgraph.units import ureg

    reg = ureg()
    q1 = reg.Quantity(1.0, text).to_base_units()
    q0 = reg.Quantity(0.0, text).to_base_units()
    if q0.magnitude != 0.0:
        return None
    dim = _angular_dim(reg, text, str(reg.Quantity(1.0, text).dimensionality))
    return float(q1.magnitude), dim


def _angular_dim(reg, text: str, dim: str) -> str:
    """pint treats angles as dimensionless; we keep [radian] so that rpm ≠ Hz and
    cm³/rev ≠ cm³ in dimension checks."""
    # count the power of angle units by substituting a marker dimension
    try:
        q = reg.Quantity(1.0, text)
        power = 0
        for name, exp in q.unit_items():
            if name in ("radian", "revolution", "rev", "degree", "arcminute", "arcsecond", "turn"):
                power += exp
            elif name in ("revolutions_per_minute", "revolutions_per_second"):
                power += 1
        if power == 0:
            return dim
        part = "[radian]" if power == 1 else f"[radian] ** {power}" if power > 0 else \
            ("1 / [radian]" if power == -1 else f"1 / [radian] ** {-power}")
        if dim == "dimensionless":
            return part
        if power > 0:
            return f"{dim} * {part}" if not dim.startswith("1 / ") else f"{part} / {dim[4:]}"
        return f"{dim} / [radian]" if power == -1 else f"{dim} / [radian] ** {-power}"
    except Exception:  # noqa: BLE001 - best effort
        return dim


def _dim_text(exps: dict[str, float]) -> str:
    def fmt(b, e):
        e = abs(e)
        return f"[{b}]" if e == 1 else f"[{b}] ** {int(e) if e == int(e) else e}"
    pos = [fmt(b, e) for b, e in sorted(exps.items()) if e > 0]
    neg = [fmt(b, e) for b, e in sorted(exps.items()) if e < 0]
    if not pos and not neg:
        return ""
    text = " * ".join(pos) if pos else "1"
    for n in neg:
        text += f" / {n}"
    return text


def _dims(text: str) -> dict[str, float]:
    """Exponents by base dimension of a dimensionality text."""
    exps: dict[str, float] = {}
    if not text:
        return exps
    sign = 1.0
    for tok in re.split(r"\s+(\*|/)\s+", text):
        if tok == "*":
            sign = 1.0
            continue
        if tok == "/":
            sign = -1.0
            continue
        if tok in ("1", "", "dimensionless"):
            continue
        m = re.match(r"\[(\w+)\](?: \*\* (-?[\d.]+))?", tok)
        if m:
            exps[m.group(1)] = exps.get(m.group(1), 0.0) + sign * float(m.group(2) or 1)
    return {k: v for k, v in exps.items() if v != 0}


def unit(text: str) -> tuple[float, str]:
    """``(factor to SI, canonical dimensionality)`` of a unit text (cached)."""
    text = text.strip().replace("·", "*")
    hit = _UNITS.get(text)
    if hit is not None:
        return hit
    _load_disk()
    hit = _UNITS.get(text)
    if hit is not None:
        return hit
    got = _pint_unit(text)
    if got is None:
        raise ValueError(f"{text!r} is an offset unit")
    factor, dim = got
    hit = (factor, _dim_text(_dims(dim)))
    _UNITS[text] = hit
    _save_disk()
    return hit


def parse(value: str) -> tuple[float, str]:
    """``("135 mm")`` → ``(135.0, "mm")``; the unit text may be empty."""
    m = _NUMBER.match(value)
    if not m:
        raise ValueError("expected a number followed by its unit")
    return float(m.group(1)), m.group(2)


def dimension_name(target: str) -> str:
    """What a target unit measures, in words (``"Pa"`` → ``"a pressure"``)."""
    if target in ("", "1"):
        return "a plain number"
    _, dim = unit(target)
    return _dim_names().get(dim, f"a quantity of dimension {dim}")


def describe(target: str) -> str:
    """``"a pressure in Pa"``."""
    if target in ("", "1"):
        return "a plain number"
    return f"{dimension_name(target)} in {target}"


def suggest_unit(value: float, target: str) -> str:
    """A plausible unit for a bare number meant in the dimension of ``target``
    (:data:`bondgraph.units.PLAUSIBLE_UNITS`)."""
    from bondgraph.units import PLAUSIBLE_UNITS

    cands, (lo, hi) = PLAUSIBLE_UNITS.get(dimension_name(target), (((target, 1.0),), (-math.inf, math.inf)))
    for name, f in cands:
        if lo <= abs(value) * f <= hi:
            return f"{value:g} {name}"
    return f"{value:g} {cands[0][0]}"


def to_si(value: Any, target: str, *, key: str, allow_bare: bool = False) -> float:
    """Convert ``value`` to a float in ``target`` (a pint unit text; ``""`` plain number).

    Parameters
    ----------
    value : str, int, float, or ``{value, unit}`` table
    target : str
        The unit the result is in (``"m"``, ``"Pa"``, ``"kg*m^2"``; ``""`` dimensionless).
    key : str
        Named in the message.
    allow_bare : bool
        Accept a bare number as already in ``target``.

    Raises
    ------
    ParameterError
        Unparsable text, wrong dimension, a bare number where a unit is due (with a
        plausible unit suggested), or a value that is not finite.
    """
    if isinstance(value, bool):
        raise ParameterError(f"{key!r}: found {value!r}, expected {describe(target)}")
    if isinstance(value, dict) and set(value) == {"value", "unit"}:
        value = f"{value['value']} {value['unit']}"
    if isinstance(value, (int, float)):
        v = float(value)
        if not math.isfinite(v):
            raise ParameterError(f"{key!r}: found {value!r}, expected a finite number")
        if target in ("", "1") or allow_bare:
            return v
        raise ParameterError(f"{key!r}: found the bare number {value!r}, expected "
                             f"{dimension_name(target)} with its unit, e.g. "
                             f"\"{suggest_unit(v, target)}\"")
    if not isinstance(value, str):
        raise ParameterError(f"{key!r}: found {value!r} ({type(value).__name__}), expected "
                             f"{describe(target)}" + ("" if target in ("", "1") else
                                                      f" as text with its unit, e.g. \"1 {target}\""))
    try:
        number, text = parse(value)
    except ValueError:
        raise ParameterError(f"{key!r}: cannot read {value!r}: expected a number followed by "
                             f"its unit, e.g. \"1.0 {target or ''}\"".rstrip()) from None
    if not math.isfinite(number):
        raise ParameterError(f"{key!r}: found {value!r}, expected a finite number")
    if text == "":
        if target in ("", "1"):
            return number
        raise ParameterError(f"{key!r}: found {value!r} without a unit, expected "
                             f"{dimension_name(target)}, e.g. \"{suggest_unit(number, target)}\"")
    try:
        f_src, d_src = unit(text)
    except ValueError:
        return _to_si_pint(value, target, key)
    except Exception as exc:  # noqa: BLE001 - pint raises several unrelated types
        raise ParameterError(f"{key!r}: cannot read the unit {text!r} of {value!r} ({exc}); "
                             f"expected {describe(target)}") from None
    f_tgt, d_tgt = (1.0, "") if target in ("", "1") else unit(target)
    if d_src != d_tgt:
        found = _dim_names().get(d_src, f"dimension {d_src or 'none'}")
        raise ParameterError(f"{key!r}: found {value!r} ({found}), expected {describe(target)}")
    return _clean(number * f_src / f_tgt)


def _to_si_pint(value: str, target: str, key: str) -> float:
    from bondgraph.units import to_si as core_to_si

    return core_to_si(value, target or "dimensionless", name=key)


def _clean(x: float) -> float:
    """Round away binary noise of unit factors (``0.0020000000000000005`` → ``0.002``)."""
    if x == 0.0 or not math.isfinite(x):
        return x
    r = float(f"{x:.14g}")
    return r if abs(r - x) <= 1e-14 * abs(x) else x
