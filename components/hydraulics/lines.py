"""Hoses and lines: oil volume (compliance), laminar resistance, fluid inertance.

* :class:`Hose` — the oil volume of a hose or pipe as a chamber (two ports,
  one pressure). Bonded straight to a cylinder chamber it shares that
  chamber's pressure and the core lumps the two volumes (derivative
  causality), which is the usual lumped model of a short, stiff hose.
  Optional wall compliance: ``β_eff = 1/(1/β + 1/K_wall)`` (``K_wall`` the
  hose's volumetric stiffness, Pa).
* :class:`Line` — a pipe segment between two nodes: Hagen–Poiseuille
  resistance ``R = 128·μ·L/(π·d⁴)`` and, optionally, the inertance
  ``ρ·L/A`` of the oil column, in series (a 1-junction): connect a node into
  ``A`` and ``B`` into the next node.

Examples
--------
>>> from components.hydraulics import Oil
>>> h = Hose("hose", Oil(), length="1 m", diameter="50 mm")
>>> round(h.volume * 1e3, 3)                     # litres
1.963
>>> ln = Line("pipe", Oil(viscosity=0.036), length="1 m", diameter="50 mm")
>>> round(ln.resistance)                         # Pa·s/m³
234684
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from bondgraph import BondGraph, I, One, R
from bondgraph.errors import ParameterError
from bondgraph.units import to_si

from .chamber import Chamber
from .oil import Oil

__all__ = ["Hose", "Line"]


def _geometry(length: Any, diameter: Any, name: str) -> tuple[float, float]:
    L = to_si(length, "m", bare_si=True, name="length")
    d = to_si(diameter, "m", bare_si=True, name="diameter")
    if not (L > 0 and d > 0):
        raise ParameterError(f"{name!r}: length = {length!r}, diameter = {diameter!r}; expected both > 0")
    return L, d


class Hose(Chamber):
    """Oil volume of a hose: give ``volume``, or ``length`` and ``diameter``.

    Parameters
    ----------
    name : str
    oil : Oil
    volume : float or str, optional
    length, diameter : float or str, optional
    wall_stiffness : float or str, optional
        Volumetric stiffness of the hose wall (Pa); lowers the effective modulus.
    ports : sequence of str
    initial : float
        Initial gauge pressure (Pa).
    """

    def __init__(self, name: str, oil: Oil, *, volume: Any = None, length: Any = None,
                 diameter: Any = None, wall_stiffness: Any = None,
                 ports: Sequence[str] = ("A", "B"), initial: float = 0.0):
        if (volume is None) == (length is None or diameter is None):
            raise ParameterError(f"hose {name!r}: give volume=..., or length=... and diameter=...")
        if volume is not None:
            V = to_si(volume, "m^3", bare_si=True, name="volume")
        else:
            L, d = _geometry(length, diameter, name)
            V = math.pi * d**2 / 4 * L
        if wall_stiffness is not None:
            kw = to_si(wall_stiffness, "Pa", bare_si=True, name="wall_stiffness")
            if oil.has_air:
                raise ParameterError(f"hose {name!r}: wall_stiffness with entrained air is not "
                                     "supported; fold the wall into the air fraction")
            oil = oil.with_(bulk_modulus=1.0 / (1.0 / oil.bulk_modulus + 1.0 / kw))
        self.volume = V
        super().__init__(name, V, oil, ports=ports, initial=initial)


class Line(BondGraph):
    """Laminar pipe resistance (and optional inertance) between ports ``A`` and ``B``.

    Parameters
    ----------
    name : str
    oil : Oil
    length, diameter : float or str
    inertance : bool
        Add the oil column's inertance ``ρ·L/A`` (a state: the line flow ``I.f``).
    """

    def __init__(self, name: str, oil: Oil, *, length: Any, diameter: Any, inertance: bool = False):
        super().__init__(name)
        L, d = _geometry(length, diameter, name)
        self.resistance = 128 * oil.viscosity * L / (math.pi * d**4)
        self.inertance = oil.density * L / (math.pi * d**2 / 4)
        self.add(One("q"), R("R", self.resistance))
        self.connect("q", "R")
        if inertance:
            self.add(I("I", self.inertance))
            self.connect("q", "I")
        self.expose("A", "q")
        self.expose("B", "q")
