"""Parameters with units: parse, convert to SI, validate against a schema.

Generic (knows nothing of any physical domain). A :class:`ParamSpec` names a
parameter, its SI target unit and whether it is required; a
:class:`ParamSchema` checks a mapping of values — numbers with units as text
(``"135 mm"``, ``"250 bar"``, ``"120 L/min"``, ``"500 cm³/rev"``), ``pint``
quantities, or ``{value = 2, unit = "L"}`` tables from TOML — and returns plain
floats in SI. Every problem is collected (unknown keys, missing keys, wrong
dimensions, values out of range, unparsable text) and raised once as a
:class:`~bondgraph.errors.ParameterError` naming each key, with what was found
and what was expected.

A bare number is accepted only for a dimensionless parameter (or where the
schema says ``bare_si=True``): a parameter file must say its units.

Examples
--------
>>> schema = ParamSchema("cylinder", [ParamSpec("bore", "m"), ParamSpec("stroke", "m"),
...                                   ParamSpec("p_max", "Pa", required=False, default="300 bar")])
>>> schema.load({"bore": "135 mm", "stroke": "1.25 m"})
{'bore': 0.135, 'stroke': 1.25, 'p_max': 30000000.0}
>>> schema.load({"bore": "135 bar", "strok": "1 m"})
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: cylinder: 3 problems
  - 'bore': found '135 bar' ([mass] / [length] / [time] ** 2), expected a length in m
  - 'strok': unknown key; did you mean 'stroke'? (known: bore, p_max, stroke)
  - 'stroke': missing (expected a length in m)
>>> to_si("120 L/min", "m^3/s")
0.002
"""

from __future__ import annotations

import difflib
import math
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import ParameterError

__all__ = ["ureg", "to_si", "ParamSpec", "ParamSchema", "load_toml", "describe_unit", "plausible_unit",
           "implausible", "PLAUSIBLE_UNITS", "display_unit", "DISPLAY_UNITS"]


@lru_cache(maxsize=1)
def _registry():
    import pint

    reg = pint.UnitRegistry()
    reg.define("rev = revolution")
    return reg


def ureg():
    """The shared ``pint.UnitRegistry`` (with ``rev`` defined as a revolution).

    Made at the first call (importing pint costs time), then reused.

    Returns
    -------
    pint.UnitRegistry

    Examples
    --------
    >>> reg = ureg()
    >>> reg.Quantity(250, "bar").to("MPa").magnitude
    25.0
    >>> ureg() is reg
    True
    """
    return _registry()


_DIM_NAMES = {
    "[length]": "a length",
    "[length] ** 3": "a volume",
    "[length] ** 2": "an area",
    "[mass]": "a mass",
    "[time]": "a time",
    "1 / [time]": "a frequency",
    "[length] / [time]": "a velocity",
    "[mass] / [length] / [time] ** 2": "a pressure",
    "[length] ** 3 / [time]": "a volume flow",
    "[mass] / [length] ** 3": "a density",
    "[mass] / [length] / [time]": "a dynamic viscosity",
    "[length] * [mass] / [time] ** 2": "a force",
    "[mass] / [time]": "a damping coefficient",
    "[mass] / [time] ** 2": "a stiffness",
    "[length] ** 4 * [time] / [mass]": "a laminar conductance",
    "[mass] * [length] ** 2": "a moment of inertia",
    "[length] / [time] ** 2": "an acceleration",
    "dimensionless": "a dimensionless number",
}


def describe_unit(unit: str) -> str:
    """``"a pressure in Pa"`` for ``"Pa"``: what a message should say is expected.

    Parameters
    ----------
    unit : str
        A pint unit.

    Returns
    -------
    str

    Examples
    --------
    >>> describe_unit("Pa"), describe_unit("N*s/m"), describe_unit("")
    ('a pressure in Pa', 'a damping coefficient in N*s/m', 'a dimensionless number')
    """
    reg = ureg()
    q = reg.Quantity(1.0, unit)
    dim = str(q.dimensionality)
    what = _DIM_NAMES.get(dim)
    if what is None:  # same dimension written in another factor order
        for key, name in _DIM_NAMES.items():
            if key != "dimensionless" and reg.get_dimensionality(key.replace("] ** ", "]**")) == q.dimensionality:
                what = name
                break
    what = what or f"a quantity of dimension {dim}"
    return what if dim == "dimensionless" and unit in ("", "1") else f"{what} in {unit}"


#: per kind of quantity (as :func:`describe_unit` names it): units a machine value is
#: usually written in, in order of preference, and the SI range such values fall in —
#: so a bare ``150`` meant as a bore suggests "150 mm", not "150 m"
PLAUSIBLE_UNITS: dict[str, tuple[tuple[tuple[str, float], ...], tuple[float, float]]] = {
    "a length": ((("m", 1.0), ("mm", 1e-3)), (1e-3, 30.0)),
    "a mass": ((("kg", 1.0), ("t", 1e3)), (1e-2, 1e5)),
    "a pressure": ((("bar", 1e5), ("MPa", 1e6), ("Pa", 1.0)), (1e3, 1e8)),
    "a volume": ((("L", 1e-3), ("m^3", 1.0)), (1e-7, 1.0)),
    "a volume flow": ((("L/min", 1e-3 / 60), ("m^3/s", 1.0)), (1e-6, 0.5)),
    "a force": ((("N", 1.0), ("kN", 1e3)), (1e-1, 1e7)),
    "an angle": ((("deg", math.pi / 180),), (-10.0, 10.0)),
    "an angular velocity": ((("rpm", 2 * math.pi / 60), ("rad/s", 1.0)), (1.0, 1e3)),
}


#: the SI unit each kind of :data:`PLAUSIBLE_UNITS` is stored in
_SI_KINDS = {"m": "a length", "kg": "a mass", "Pa": "a pressure", "m^3": "a volume",
             "m**3": "a volume", "m^3/s": "a volume flow", "m**3/s": "a volume flow",
             "N": "a force", "rad": "an angle", "rad/s": "an angular velocity"}


#: SI unit → (factor, unit) an engineer reads a plot or a report in
DISPLAY_UNITS: dict[str, tuple[float, str]] = {
    "Pa": (1e-5, "bar"), "m^3/s": (6e4, "L/min"), "m**3/s": (6e4, "L/min"), "N": (1e-3, "kN"),
    "J": (1e-3, "kJ"), "W": (1e-3, "kW"), "rad": (180 / math.pi, "deg"), "N*m": (1e-3, "kN*m"),
    "m^3": (1e3, "L"), "m**3": (1e3, "L"),
}


def display_unit(unit: str) -> tuple[float, str]:
    """The factor and unit a series in SI ``unit`` is shown in (bar for Pa, L/min for
    m³/s, kN, kJ, kW, deg); other units as they are.

    Examples
    --------
    >>> display_unit("Pa"), display_unit("m")
    ((1e-05, 'bar'), (1.0, 'm'))
    """
    return DISPLAY_UNITS.get(unit.replace(" ", ""), (1.0, unit))


def plausible_unit(value: float, unit: str) -> str:
    """``value`` with a unit its size suggests for the kind of ``unit`` (``150, "m"`` →
    ``"150 mm"``); the target unit itself when nothing better is known.

    Parameters
    ----------
    value : float
        A bare number as a user wrote it.
    unit : str
        The SI unit expected.

    Returns
    -------
    str

    Examples
    --------
    >>> plausible_unit(150, "m"), plausible_unit(1.25, "m"), plausible_unit(300, "Pa")
    ('150 mm', '1.25 m', '300 bar')
    """
    what = describe_unit(unit).rsplit(" in ", 1)[0]
    cands, (lo, hi) = PLAUSIBLE_UNITS.get(what, (((unit, 1.0),), (-math.inf, math.inf)))
    for name, f in cands:
        if lo <= abs(float(value)) * f <= hi:
            return f"{value:g} {name}"
    return f"{value:g} {cands[0][0]}"


def implausible(value: float, unit: str) -> str | None:
    """Why a bare SI ``value`` in ``unit`` is implausible for its kind (None if it is not,
    or if nothing is known of the kind), with the unit its size suggests.

    Parameters
    ----------
    value : float
    unit : str
        An SI unit (``"m"``, ``"Pa"``, ``"m^3/s"``...).

    Returns
    -------
    str or None

    Examples
    --------
    >>> implausible(150, "m")
    'implausible for a length; give its unit, e.g. "150 mm"'
    >>> implausible(0.15, "m") is None, implausible(2e9, "N/m") is None
    (True, True)
    """
    what = _SI_KINDS.get(unit.replace(" ", ""))  # no unit registry: keeps pint out of builds
    if what is None:
        return None
    _, (lo, hi) = PLAUSIBLE_UNITS[what]
    if lo <= abs(float(value)) <= hi:
        return None
    return f'implausible for {what}; give its unit, e.g. "{plausible_unit(value, unit)}"'


def _quantity(value: Any):
    reg = ureg()
    if isinstance(value, reg.Quantity):
        return value
    if isinstance(value, Mapping):
        if set(value) != {"value", "unit"}:
            raise ValueError(f"a table {dict(value)!r}: expected exactly the keys 'value' and 'unit'")
        return reg.Quantity(float(value["value"]), str(value["unit"]))
    if isinstance(value, str):
        return reg.Quantity(value.replace("·", "*"))
    raise TypeError(f"{value!r}")


def to_si(value: Any, unit: str, *, bare_si: bool = False, name: str = "value") -> float:
    """Convert ``value`` to a float in ``unit``.

    Parameters
    ----------
    value : str, pint.Quantity, mapping or number
        ``"250 bar"``, ``ureg().Quantity(250, "bar")``, ``{"value": 250, "unit": "bar"}``;
        a bare number only if ``unit`` is dimensionless or ``bare_si`` is true
        (then it is taken as already in ``unit``).
    unit : str
        Target unit (pint syntax), e.g. ``"Pa"``, ``"m^3/s"``.
    bare_si : bool
        Accept bare numbers as already in ``unit`` (for Python API calls).
    name : str
        Used in the error message.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        Unparsable text, wrong dimension, or a bare number where units are required.

    Examples
    --------
    >>> to_si("500 cm³/rev", "m^3/rev")
    0.0005
    >>> to_si(0.1, "m", bare_si=True)
    0.1
    >>> to_si({"value": 2, "unit": "L"}, "m^3")
    0.002
    >>> to_si(150, "m", name="bore")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: 'bore': found the bare number 150, expected a length in m with its unit, e.g. "150 mm"
    """
    if bare_si and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)  # already in `unit`: no registry needed (keeps pint out of warm builds)
    reg = ureg()
    target = reg.Quantity(1.0, unit)
    if isinstance(value, bool):
        raise ParameterError(f"{name!r}: found {value!r}, expected {describe_unit(unit)}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if target.dimensionless or bare_si:
            return float(value)
        raise ParameterError(f"{name!r}: found the bare number {value!r}, expected "
                             f"{describe_unit(unit)} with its unit, e.g. \"{plausible_unit(value, unit)}\"")
    try:
        q = _quantity(value)
    except Exception as exc:  # noqa: BLE001 - pint raises several unrelated types
        raise ParameterError(f"{name!r}: cannot read {value!r} as a quantity ({exc}); expected "
                             f"{describe_unit(unit)}, e.g. \"1.0 {unit}\"") from None
    if q.dimensionless and not target.dimensionless:
        raise ParameterError(f"{name!r}: found {value!r} without a unit, expected {describe_unit(unit)}, "
                             f"e.g. \"{plausible_unit(q.magnitude, unit)}\"")
    if q.dimensionality != target.dimensionality:
        raise ParameterError(f"{name!r}: found {value!r} ({q.dimensionality}), expected "
                             f"{describe_unit(unit)}")
    return _clean(float(q.to(unit).magnitude))


def _clean(x: float) -> float:
    """Round away binary noise of unit factors (``0.0020000000000000005`` → ``0.002``)."""
    if x == 0.0 or not math.isfinite(x):
        return x
    r = float(f"{x:.14g}")
    return r if abs(r - x) <= 1e-14 * abs(x) else x


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a schema.

    Attributes
    ----------
    name : str
    unit : str
        SI target unit (``""`` for dimensionless).
    doc : str
    required : bool
    default : Any
        Used when not required and not given (a value with units, or a number
        for dimensionless parameters); ``None`` means "absent".
    minimum, maximum : float, optional
        Inclusive bounds in the target unit.
    positive : bool
        Require a value > 0.

    Examples
    --------
    >>> spec = ParamSpec("p_max", "Pa", "relief setting", required=False, default="300 bar",
    ...                  maximum=5e7)
    >>> ParamSchema("pump", [spec]).load({"p_max": "600 bar"})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: pump: 1 problem
      - 'p_max': found '600 bar', expected ≤ 5e+07 Pa
    """

    name: str
    unit: str = ""
    doc: str = ""
    required: bool = True
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    positive: bool = False


@dataclass(frozen=True)
class ParamSchema:
    """A named set of :class:`ParamSpec`; :meth:`load` validates and converts.

    Parameters
    ----------
    name : str
        What the parameters describe (used as the error subject).
    specs : iterable of ParamSpec

    Examples
    --------
    >>> schema = ParamSchema("oil", [ParamSpec("density", "kg/m^3", "at 15 °C"),
    ...                              ParamSpec("bulk_modulus", "Pa", positive=True)])
    >>> schema.keys
    ['density', 'bulk_modulus']
    >>> schema.load({"density": "0.87 g/cm^3", "bulk_modulus": "1.6 GPa"})
    {'density': 870.0, 'bulk_modulus': 1600000000.0}
    """

    name: str
    specs: tuple[ParamSpec, ...] = field(default_factory=tuple)

    def __init__(self, name: str, specs: Iterable[ParamSpec]):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "specs", tuple(specs))

    @property
    def keys(self) -> list[str]:
        """The parameter names, in the schema's order."""
        return [s.name for s in self.specs]

    def load(self, values: Mapping[str, Any], *, bare_si: bool = False) -> dict[str, float | None]:
        """Validate ``values`` and return SI floats for every spec (``None`` if absent).

        Parameters
        ----------
        values : mapping
            Key → value with units (text, quantity, ``{value, unit}`` table).
        bare_si : bool
            Accept bare numbers as already in SI (Python API calls).

        Returns
        -------
        dict
            Every key of the schema → float in its unit, or None (absent, no default).

        Examples
        --------
        See :class:`ParamSchema`.

        Raises
        ------
        ParameterError
            Listing every unknown key (with a suggestion), missing key, unit or
            range problem at once.
        """
        problems: list[str] = []
        specs = {s.name: s for s in self.specs}
        if not isinstance(values, Mapping):
            raise ParameterError(f"{self.name}: found {type(values).__name__}, expected a table "
                                 f"of parameters ({', '.join(sorted(specs))})")
        for key in values:
            if key not in specs:
                close = difflib.get_close_matches(str(key), list(specs), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(f"{key!r}: unknown key{hint} (known: {', '.join(sorted(specs))})")
        out: dict[str, float | None] = {}
        for s in self.specs:
            raw = values.get(s.name, None)
            if raw is None:
                if s.required:
                    problems.append(f"{s.name!r}: missing (expected {describe_unit(s.unit)})")
                    continue
                raw = s.default
                if raw is None:
                    out[s.name] = None
                    continue
            try:
                v = to_si(raw, s.unit or "dimensionless", bare_si=bare_si or raw is s.default and
                          isinstance(raw, (int, float)), name=s.name)
            except ParameterError as exc:
                problems += exc.problems
                continue
            if s.positive and not v > 0:
                problems.append(f"{s.name!r}: found {raw!r}, expected a value > 0")
            if s.minimum is not None and v < s.minimum:
                problems.append(f"{s.name!r}: found {raw!r}, expected ≥ {s.minimum:g} {s.unit}".rstrip())
            if s.maximum is not None and v > s.maximum:
                problems.append(f"{s.name!r}: found {raw!r}, expected ≤ {s.maximum:g} {s.unit}".rstrip())
            out[s.name] = v
        if problems:
            problems.sort(key=lambda p: p.split(":")[0])
            raise ParameterError(problems, subject=self.name)
        return out

    def describe(self) -> str:
        """A readable list of the parameters (name, unit, required/default, doc).

        Returns
        -------
        str
            One line per parameter.

        Examples
        --------
        >>> print(ParamSchema("s", [ParamSpec("k", "N/m", "stiffness")]).describe())
        k                      N/m        required               stiffness
        """
        lines = []
        for s in self.specs:
            req = "required" if s.required else f"default {s.default!r}"
            lines.append(f"{s.name:<22} {s.unit or '-':<10} {req:<22} {s.doc}")
        return "\n".join(lines)


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML parameter file (``tomllib``); errors name the file.

    Parameters
    ----------
    path : str or pathlib.Path

    Returns
    -------
    dict
        The file's tables (values as written; convert them with a :class:`ParamSchema`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     f = pathlib.Path(d) / "pump.toml"
    ...     _ = f.write_text('pump = { displacement = "45 cm^3/rev" }')
    ...     data = load_toml(f)
    >>> to_si(data["pump"]["displacement"], "m^3/rev")
    4.5e-05
    >>> load_toml("no/such/file.toml")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: parameter file 'no/such/file.toml': not found

    Raises
    ------
    ParameterError
        The file is missing or not valid TOML.
    """
    p = Path(path)
    try:
        with p.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ParameterError(f"parameter file {str(p)!r}: not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"parameter file {str(p)!r}: not valid TOML ({exc})") from None
