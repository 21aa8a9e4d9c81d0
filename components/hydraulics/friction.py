"""Cylinder friction: Coulomb + Stribeck + viscous, smooth through zero velocity.

The law is the one documented for the MathWorks Simscape *Translational
Friction* block (written here from its published formula)::

    F(v) = √(2e)·(F_brk − F_C)·exp(−(v/v_St)²)·v/v_St + F_C·tanh(v/v_Coul) + f·v

with ``v_St = √2·v_brk`` (Stribeck velocity threshold), ``v_Coul = v_brk/10``
(Coulomb velocity threshold), ``F_brk`` the break-away force (peak of the
Stribeck hump, reached near ``v_brk``), ``F_C`` the Coulomb force and ``f``
the viscous coefficient. It is odd and infinitely smooth, so the integrator
sees no switch at ``v = 0`` (the price is a steep slope ``≈ F_C/v_Coul`` there).

Examples
--------
>>> fr = Friction(coulomb=1000.0, breakaway=1200.0, breakaway_velocity=0.01, viscous=5e3)
>>> round(fr.force(0.01), 1)            # at v_brk: F_brk + f·v
1250.0
>>> round(fr.force(1.0), 1)             # Coulomb + viscous
6000.0
>>> fr.force(0.0)
0.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sympy as sp

from bondgraph.checks import NONNEGATIVE, POSITIVE, number_problems
from bondgraph.errors import ParameterError

__all__ = ["Friction"]


@dataclass(frozen=True)
class Friction:
    """Friction on a piston (N, N·s/m, m/s).

    Every value may be text with units (``"1 kN"``).

    Parameters
    ----------
    coulomb : float
        Coulomb force ``F_C`` (N).
    breakaway : float, optional
        Break-away force ``F_brk`` (N), ≥ ``coulomb``; default ``1.2·coulomb``
        (docs/reference/excavator_data.md section C: ratio 1.2).
    breakaway_velocity : float
        ``v_brk`` (m/s), default 0.01.
    viscous : float
        ``f`` (N·s/m).

    Raises
    ------
    ParameterError
        Negative forces, a non-positive break-away velocity, ``breakaway < coulomb``.

    Examples
    --------
    >>> Friction(coulomb="1 kN", viscous="5 kN*s/m").breakaway      # default 1.2·F_C
    1200.0
    >>> Friction(coulomb=1000.0, breakaway=800.0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: friction: breakaway: found 800.0 < coulomb 1000.0, expected breakaway ≥ coulomb
    """

    coulomb: float = 0.0
    breakaway: float | None = None
    breakaway_velocity: float = 0.01
    viscous: float = 0.0

    def __post_init__(self):
        from ._values import convert_units

        bad = convert_units(self, {"coulomb": "N", "breakaway": "N", "breakaway_velocity": "m/s",
                                   "viscous": "N*s/m"}, "friction")
        if bad:
            raise ParameterError(bad)
        fields = {"coulomb": (self.coulomb, NONNEGATIVE.with_meaning("N")),
                  "viscous": (self.viscous, NONNEGATIVE.with_meaning("N·s/m")),
                  "breakaway_velocity": (self.breakaway_velocity, POSITIVE.with_meaning("m/s"))}
        if self.breakaway is not None:
            fields["breakaway"] = (self.breakaway, NONNEGATIVE.with_meaning("N"))
        problems = number_problems("friction", fields)
        if not problems:
            if self.breakaway is None:
                object.__setattr__(self, "breakaway", 1.2 * self.coulomb)
            if self.breakaway < self.coulomb:
                problems.append(f"friction: breakaway: found {self.breakaway!r} < coulomb "
                                f"{self.coulomb!r}, expected breakaway ≥ coulomb")
        if problems:
            raise ParameterError(problems)

    @property
    def is_viscous(self) -> bool:
        """Only the viscous term (a linear resistor).

        Examples
        --------
        >>> Friction(viscous=5e3).is_viscous, Friction(coulomb=1.0).is_viscous
        (True, False)
        """
        return self.coulomb == 0 and self.breakaway == 0

    def law(self, v: Any) -> Any:
        """The friction force as an expression of the velocity ``v`` (sympy or float).

        Parameters
        ----------
        v : float or sympy expression
            Piston velocity (m/s).

        Returns
        -------
        float or sympy expression
            Force (N), odd in ``v``.

        Examples
        --------
        The slope at rest is ``F_C/v_Coul + √(2e)·(F_brk − F_C)/v_St + f``:

        >>> import math
        >>> import sympy as sp
        >>> v = sp.Symbol("v")
        >>> fr = Friction(coulomb=1000.0, viscous=5e3)
        >>> slope = float(sp.diff(fr.law(v), v).subs(v, 0))
        >>> hand = 1000 / 0.001 + math.sqrt(2 * math.e) * 200 / (math.sqrt(2) * 0.01) + 5e3
        >>> bool(abs(slope / hand - 1) < 1e-12)
        True
        """
        mod = sp if isinstance(v, sp.Basic) else math
        v_st = math.sqrt(2.0) * self.breakaway_velocity
        v_c = self.breakaway_velocity / 10.0
        out = self.viscous * v
        if self.coulomb:
            out = out + self.coulomb * mod.tanh(v / v_c)
        if self.breakaway > self.coulomb:
            out = out + (math.sqrt(2 * math.e) * (self.breakaway - self.coulomb)
                         * mod.exp(-(v / v_st) ** 2) * v / v_st)
        return out

    def force(self, v: float) -> float:
        """Numeric value of the friction force at velocity ``v``.

        Parameters
        ----------
        v : float
            m/s.

        Returns
        -------
        float
            N.
        """
        return float(self.law(float(v)))
