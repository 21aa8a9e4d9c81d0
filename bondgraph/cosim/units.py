"""Units of exchanged signals, parsed and compared with pint.

A relation joins an output and an input whose units may be written differently
(``m*s^-1`` and ``m/s``), may differ by a factor (``mm`` and ``m``), or may not fit at
all (``N`` and ``m``). :func:`conversion` tells which:

* the same quantity in the same unit, however written: factor 1;
* the same dimension, units that differ by a factor: that factor (the master multiplies
  the output by it before handing it to the input; derivatives scale alike);
* units that differ by an offset (``degC`` and ``K``): refused, because the master
  converts values and their time derivatives by one factor, and an offset applies to the
  value only — give both sides the same temperature unit;
* different dimensions, or a unit pint does not know: refused, naming the unit.

Unit text is read as pint reads it; where pint fails, the FMI/Modelica spelling
(``m3/s``, ``m/s2``, ``kg.m2``, ``s-1``: an exponent written straight after its unit) is
tried, because FMUs describe their variables that way.

Examples
--------
>>> conversion("m*s^-1", "m/s")
1.0
>>> conversion("mm", "m")
0.001
>>> conversion("m3/s", "l/min")
60000.0
>>> conversion("N", "m")
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: units 'N' and 'm': different dimensions ([mass] * [length] / [time] ** 2 and [length]), expected the same dimension
>>> conversion("banana", "banana")
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: unit 'banana': not a unit (pint: 'banana' is not defined in the unit registry)
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from ..errors import ParameterError
from ..units import ureg

__all__ = ["parse_unit", "conversion"]

# An exponent written straight after its unit, FMI/Modelica style: m3, s2, s-1.
_EXPONENT = re.compile(r"(?<=[A-Za-z])(-?\d+)")


def _pint(text: str):
    reg = ureg()
    if text.strip() in ("", "1"):
        return reg.dimensionless
    return reg.parse_units(text.strip())


@lru_cache(maxsize=512)
def parse_unit(text: str):
    """The pint unit of ``text`` (FMI/Modelica spellings such as ``m/s2`` accepted).

    Raises
    ------
    ParameterError
        If ``text`` is not a string or not a unit pint knows (the message quotes it).

    Examples
    --------
    >>> str(parse_unit("m/s2"))
    'meter / second ** 2'
    >>> str(parse_unit("1"))
    'dimensionless'
    """
    if not isinstance(text, str):
        raise ParameterError(f"unit {text!r}: expected a unit string")
    try:
        return _pint(text)
    except Exception as first:  # noqa: BLE001 - pint raises several unrelated types
        modelica = _EXPONENT.sub(r"**\1", text)
        if modelica != text:
            try:
                return _pint(modelica)
            except Exception:  # noqa: BLE001 - report pint's first complaint
                pass
        detail = str(first).strip() or type(first).__name__
        raise ParameterError(f"unit {text!r}: not a unit (pint: {detail})") from None


@lru_cache(maxsize=512)
def conversion(source: str, target: str) -> float:
    """Factor turning a value in unit ``source`` into unit ``target``.

    Raises
    ------
    ParameterError
        If either unit is unknown, the dimensions differ, or the units differ by an
        offset (temperatures in different scales), naming both units.
    """
    problems = []
    for text in dict.fromkeys((source, target)):
        try:
            parse_unit(text)
        except ParameterError as exc:
            problems += exc.problems
    if problems:
        raise ParameterError(problems)
    a, b = parse_unit(source), parse_unit(target)
    reg = ureg()
    if a.dimensionality != b.dimensionality:
        raise ParameterError(f"units {source!r} and {target!r}: different dimensions "
                             f"({a.dimensionality} and {b.dimensionality}), expected the "
                             "same dimension")
    zero = reg.Quantity(0.0, a).to(b).magnitude
    factor = reg.Quantity(1.0, a).to(b).magnitude - zero
    if zero != 0.0 or not math.isfinite(factor) or factor == 0.0:
        raise ParameterError(f"units {source!r} and {target!r}: differ by an offset "
                             f"(0 {source} = {zero:g} {target}); the master converts by a "
                             "factor only, expected the same unit on both sides")
    return float(factor)
