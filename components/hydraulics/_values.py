"""Reading and checking the numbers of hydraulic templates: every problem, named, at once.

Examples
--------
>>> problems = []
>>> si("135 mm", "m", "bore", problems, POSITIVE)
0.135
>>> si(float("nan"), "m", "rod", problems, POSITIVE), problems
(nan, ["'rod': found nan, expected a finite number > 0 (m)"])
"""

from __future__ import annotations

import math
from typing import Any

from bondgraph.checks import FINITE, NONNEGATIVE, POSITIVE, Check
from bondgraph.errors import ParameterError
from bondgraph.units import to_si

__all__ = ["si", "FINITE", "NONNEGATIVE", "POSITIVE", "raise_all", "convert_units"]


def si(value: Any, unit: str, name: str, problems: list[str], check: Check = FINITE) -> float:
    """``value`` (text with units, a quantity, or a bare SI number) in ``unit``, checked.

    A problem is appended to ``problems`` (and NaN returned) instead of raising, so a
    constructor can report all its bad values in one error.
    """
    try:
        v = to_si(value, unit, bare_si=True, name=name)
    except ParameterError as exc:
        problems += exc.problems
        return math.nan
    msg = check.with_meaning(unit if not check.meaning else check.meaning).problem(f"{name!r}", v)
    if msg is not None:
        problems.append(msg if v == value else msg.replace(f"found {v!r}", f"found {value!r}"))
        return math.nan
    return v


def raise_all(problems: list[str], subject: str) -> None:
    """One :class:`ParameterError` listing every problem of ``subject`` (if any)."""
    if problems:
        raise ParameterError(problems, subject=subject)


def convert_units(obj: Any, units: dict[str, str], owner: str) -> list[str]:
    """Replace text-with-units fields of a frozen dataclass by floats in SI, in place.

    ``units`` maps field name → SI unit; fields holding text (``"1 kN"``) or a pint
    quantity are converted, numbers (taken as SI) and ``None`` are left as they are.
    Returns the problems (unreadable text, wrong dimension), each naming the field.

    Examples
    --------
    >>> from components.hydraulics import Friction
    >>> Friction(coulomb="1 kN", viscous="5 kN*s/m").viscous
    5000.0
    """
    problems: list[str] = []
    for name, unit in units.items():
        v = getattr(obj, name)
        if v is None or isinstance(v, (int, float)) and not isinstance(v, bool):
            continue
        if isinstance(v, bool):
            continue  # the number check says what is wrong
        try:
            object.__setattr__(obj, name, to_si(v, unit or "dimensionless", name=f"{owner} {name}"))
        except ParameterError as exc:
            problems += exc.problems
    return problems
