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
from bondgraph.units import implausible, to_si

__all__ = ["si", "FINITE", "NONNEGATIVE", "POSITIVE", "raise_all", "convert_units", "SIValue",
           "read_with_units"]


class SIValue(float):
    """A number in SI that was read *with its unit* (from a parameter or machine file):
    :func:`si` takes it as it is, without the plausibility check of a bare number — the
    user wrote "0.9 mm", not 0.0009.

    Examples
    --------
    >>> si(SIValue(0.0009), "m", "diameter", [], POSITIVE)
    0.0009
    """


def read_with_units(values: dict) -> dict:
    """``values`` (a table read with units: name → float or ``None``) with each float marked
    :class:`SIValue`; other entries (integers, text, ``None``) as they are.

    Parameters
    ----------
    values : dict
        E.g. the result of :meth:`bondgraph.units.ParamSchema.load`.

    Returns
    -------
    dict

    Examples
    --------
    A 0.9 mm orifice read from a file is not mistaken for an implausible bare number:

    >>> read = read_with_units({"diameter": 0.0009, "count": 2, "name": None})
    >>> type(read["diameter"]).__name__, read["count"], si(read["diameter"], "m", "d", [])
    ('SIValue', 2, 0.0009)
    """
    return {k: SIValue(v) if type(v) is float else v for k, v in values.items()}


def si(value: Any, unit: str, name: str, problems: list[str], check: Check = FINITE, *,
       plausible: bool = True) -> float:
    """``value`` (text with units, a quantity, or a bare SI number) in ``unit``, checked.

    Parameters
    ----------
    value : str, quantity or number
    unit : str
        The SI unit wanted.
    name : str
        How the message names the value.
    problems : list of str
        Appended to, never raised.
    check : Check
        The rule the value must meet (finite, ≥ 0, > 0...).
    plausible : bool
        Check a bare number's size against its kind.

    Returns
    -------
    float
        The value in ``unit``, or NaN when there is a problem.

    A problem is appended to ``problems`` (and NaN returned) instead of raising, so a
    constructor can report all its bad values in one error. A *bare* number is taken in
    SI, but only if its size is plausible for its kind (:data:`bondgraph.units.PLAUSIBLE_UNITS`:
    a bore of ``135`` is refused with the suggestion ``"135 mm"``); a value given with
    its unit is taken as written. ``plausible=False`` for quantities outside those
    ranges by nature (a hose wall's stiffness).

    Examples
    --------
    >>> problems = []
    >>> si(135, "m", "bore", problems, POSITIVE)
    nan
    >>> print(problems[0])
    'bore': found the bare number 135, read in SI as 135 m: implausible for a length; give its unit, e.g. "135 mm"
    >>> si("1.5 km", "m", "hose", [], POSITIVE)
    1500.0
    """
    try:
        v = to_si(value, unit, bare_si=True, name=name)
    except ParameterError as exc:
        problems += exc.problems
        return math.nan
    bare = isinstance(value, (int, float)) and not isinstance(value, (bool, SIValue))
    if plausible and bare and math.isfinite(v) and v != 0:
        why = implausible(v, unit)
        if why:
            problems.append(f"{name!r}: found the bare number {value!r}, read in SI as {v:g} {unit}: "
                            f"{why}")
            return math.nan
    msg = check.with_meaning(unit if not check.meaning else check.meaning).problem(f"{name!r}", v)
    if msg is not None:
        problems.append(msg if v == value else msg.replace(f"found {v!r}", f"found {value!r}"))
        return math.nan
    return v


def raise_all(problems: list[str], subject: str) -> None:
    """One :class:`ParameterError` listing every problem of ``subject`` (if any).

    Parameters
    ----------
    problems : list of str
    subject : str

    Raises
    ------
    ParameterError
        If ``problems`` is not empty.

    Examples
    --------
    >>> raise_all([], "orifice 'o'")
    >>> raise_all(["'d': found -1, expected > 0"], "orifice 'o'")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: orifice 'o': 1 problem
      - 'd': found -1, expected > 0
    """
    if problems:
        raise ParameterError(problems, subject=subject)


def convert_units(obj: Any, units: dict[str, str], owner: str) -> list[str]:
    """Replace text-with-units fields of a frozen dataclass by floats in SI, in place.

    ``units`` maps field name → SI unit; fields holding text (``"1 kN"``) or a pint
    quantity are converted, numbers (taken as SI) and ``None`` are left as they are.
    Returns the problems (unreadable text, wrong dimension), each naming the field.

    Parameters
    ----------
    obj : dataclass instance
    units : dict
        Field name → SI unit.
    owner : str
        How messages name the object.

    Returns
    -------
    list of str

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
