"""Hydraulic oil: density, bulk modulus with entrained air, viscosity.

The effective (mixture) bulk modulus of a liquid with a small amount of
entrained, non-dissolved air follows the formula documented for the
MathWorks Simscape *Hydraulic Fluid* / *Variable Hydraulic Chamber* blocks
(Simscape Fluids documentation, "Hydraulic Fluid", R2021a; the same relation
appears in the MapleSim Hydraulics "Constant Volume" chamber)::

              1 + α·(p_a/(p_a + p))^(1/n)
    E = E_l · ───────────────────────────────────────────
              1 + α·p_a^(1/n) / (n·(p_a + p)^((n+1)/n)) · E_l

with ``E_l`` the pure-liquid bulk modulus, ``p`` the gauge pressure, ``p_a``
the atmospheric pressure, ``α = V_G/V_L`` the relative gas content at
atmospheric pressure and ``n`` the gas specific-heat (polytropic) ratio. Our
implementation is written from that formula; the absolute pressure is floored
at ``p_min`` (default 1 kPa) so the law stays finite if a chamber cavitates.

Examples
--------
>>> oil = Oil(bulk_modulus=1.5e9, air_fraction=0.01)
>>> round(oil.effective_bulk_modulus(0.0) / 1e6, 1)      # near atmospheric: mostly air
14.2
>>> round(oil.effective_bulk_modulus(20e6) / 1e9, 3)     # at 200 bar the air is squeezed
1.482
>>> Oil().effective_bulk_modulus(5e6) == Oil().bulk_modulus   # no air: constant
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import sympy as sp

from bondgraph.checks import POSITIVE, number, number_problems
from bondgraph.errors import ParameterError
from bondgraph.units import ParamSchema, ParamSpec

from ._expr import maximum

__all__ = ["Oil", "OIL_SCHEMA", "HLP46"]

OIL_SCHEMA = ParamSchema("oil", [
    ParamSpec("density", "kg/m^3", "density at the reference pressure", positive=True),
    ParamSpec("bulk_modulus", "Pa", "pure-liquid (isothermal) bulk modulus E_l", positive=True),
    ParamSpec("viscosity", "Pa*s", "dynamic viscosity", required=False, default="0.036 Pa*s",
              positive=True),
    ParamSpec("air_fraction", "", "entrained air V_G/V_L at atmospheric pressure",
              required=False, default=0.0, minimum=0.0, maximum=0.5),
    ParamSpec("polytropic_index", "", "gas specific-heat ratio n", required=False, default=1.4,
              minimum=1.0, maximum=1.67),
    ParamSpec("p_atm", "Pa", "atmospheric pressure", required=False, default="101325 Pa",
              positive=True),
])


@dataclass(frozen=True)
class Oil:
    """Properties of the hydraulic fluid (SI units).

    Every value may also be text with units (``"1.4 GPa"``).

    Parameters
    ----------
    density : float
        kg/m³ (OpenHydraulics: 870).
    bulk_modulus : float
        Pure-liquid bulk modulus ``E_l`` (Pa).
    viscosity : float
        Dynamic viscosity (Pa·s).
    air_fraction : float
        Entrained air ``α`` at atmospheric pressure (0: none, constant modulus).
    polytropic_index : float
        ``n`` of the gas (1 isothermal, 1.4 adiabatic).
    p_atm : float
        Atmospheric pressure (Pa); pressures in the models are gauge.
    p_min : float
        Floor of the absolute pressure in the air law (Pa).

    Raises
    ------
    ParameterError
        Unreadable or non-positive values, an air fraction outside 0 … 0.5, a bare number
        outside the range of hydraulic fluids (a density of 0.87 meant as g/cm³) — all
        listed.

    Examples
    --------
    >>> Oil(bulk_modulus="1.6 GPa", viscosity="46 mPa*s").viscosity
    0.046
    >>> Oil(density=0.87, bulk_modulus="1.4 bar")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: 2 problems
      - oil: density: found 0.87 kg/m^3, outside 500 … 2000 kg/m^3 of hydraulic fluids; give it with its unit, e.g. "870 kg/m^3"
      - oil: bulk_modulus: found 140000 Pa, outside 1e+07 … 1e+10 Pa of hydraulic fluids; give it with its unit, e.g. "1.4 GPa"
    """

    density: float = 870.0
    bulk_modulus: float = 1.4e9
    viscosity: float = 0.036
    air_fraction: float = 0.0
    polytropic_index: float = 1.4
    p_atm: float = 101325.0
    p_min: float = 1e3

    def __post_init__(self):
        from ._values import convert_units

        bad = convert_units(self, {"density": "kg/m^3", "bulk_modulus": "Pa", "viscosity": "Pa*s",
                                   "air_fraction": "", "polytropic_index": "", "p_atm": "Pa",
                                   "p_min": "Pa"}, "oil")
        if bad:
            raise ParameterError(bad)
        problems = number_problems("oil", {name: (getattr(self, name), POSITIVE) for name in
                                           ("density", "bulk_modulus", "viscosity", "p_atm", "p_min")})
        for name, lo, hi in (("air_fraction", 0.0, 0.5), ("polytropic_index", 1.0, 1.67)):
            v = getattr(self, name)
            x = number(v)
            if x is None or not lo <= x <= hi:
                problems.append(f"oil: {name}: found {v!r}, expected a number {lo:g} … {hi:g}")
        # a hydraulic fluid, in SI: a bare 1.4 meant as GPa, 870 g/cm³... named, not taken
        for name, lo, hi, unit, hint in (("density", 500.0, 2000.0, "kg/m^3", "870 kg/m^3"),
                                         ("bulk_modulus", 1e7, 1e10, "Pa", "1.4 GPa"),
                                         ("viscosity", 1e-4, 10.0, "Pa*s", "0.036 Pa*s")):
            x = number(getattr(self, name))
            if x is not None and x > 0 and not lo <= x <= hi:
                problems.append(f"oil: {name}: found {x:g} {unit}, outside {lo:g} … {hi:g} {unit} "
                                f"of hydraulic fluids; give it with its unit, e.g. \"{hint}\"")
        if problems:
            raise ParameterError(problems)

    @classmethod
    def from_params(cls, values: Mapping[str, Any]) -> "Oil":
        """From a parameter table with units (see :data:`OIL_SCHEMA`).

        Parameters
        ----------
        values : mapping
            Keys of :data:`OIL_SCHEMA`, values with units.

        Returns
        -------
        Oil

        Raises
        ------
        ParameterError
            Unknown or missing keys, wrong units (all listed).

        Examples
        --------
        >>> Oil.from_params({"density": "870 kg/m^3", "bulk_modulus": "1.4 GPa"}).bulk_modulus
        1400000000.0
        """
        return cls(**OIL_SCHEMA.load(values))

    @property
    def has_air(self) -> bool:
        """True if the oil carries entrained air (its bulk modulus depends on pressure)."""
        return self.air_fraction > 0.0

    def effective_bulk_modulus(self, p: Any) -> Any:
        """Mixture bulk modulus at gauge pressure ``p`` (float or sympy expression).

        Parameters
        ----------
        p : float or sympy expression
            Gauge pressure (Pa).

        Returns
        -------
        float or sympy expression
            Pa; the constant ``bulk_modulus`` without air.

        Examples
        --------
        See the module.
        """
        El = self.bulk_modulus
        if not self.has_air:
            return El
        a, n, pa = self.air_fraction, self.polytropic_index, self.p_atm
        if isinstance(p, sp.Basic):
            pabs = maximum(pa + p, self.p_min)
            return El * (1 + a * (pa / pabs) ** (1 / n)) / (
                1 + a * pa ** (1 / n) / (n * pabs ** ((n + 1) / n)) * El)
        pabs = max(pa + float(p), self.p_min)
        return El * (1 + a * (pa / pabs) ** (1 / n)) / (
            1 + a * pa ** (1 / n) / (n * pabs ** ((n + 1) / n)) * El)

    def with_(self, **changes) -> "Oil":
        """A copy with some properties changed.

        Parameters
        ----------
        **changes
            Fields and their new values (checked as at construction).

        Returns
        -------
        Oil

        Examples
        --------
        >>> HLP46.with_(air_fraction=0.01).has_air, HLP46.has_air
        (True, False)
        """
        from dataclasses import replace

        return replace(self, **changes)


#: A typical mineral hydraulic oil (OpenHydraulics values, docs/reference/excavator_data.md section C).
HLP46 = Oil(density=870.0, bulk_modulus=1.4e9, viscosity=0.036)
