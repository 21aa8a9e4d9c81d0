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

from bondgraph import BondGraph, I, One, R, Se, Zero
from bondgraph.errors import ParameterError

from ._values import POSITIVE, raise_all, si
from .chamber import Chamber
from .oil import Oil

__all__ = ["Hose", "Line", "drain"]


def _geometry(length: Any, diameter: Any, problems: list[str]) -> tuple[float, float]:
    return (si(length, "m", "length", problems, POSITIVE),
            si(diameter, "m", "diameter", problems, POSITIVE))


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

    Raises
    ------
    ParameterError
        Both or neither of ``volume`` and ``length``/``diameter``, bad values, a wall
        stiffness with entrained air (all listed).

    Examples
    --------
    A wall as stiff as 3 GPa in series with oil of 1.5 GPa gives
    ``1/(1/1.5 + 1/3) = 1 GPa``:

    >>> h = Hose("h", Oil(bulk_modulus=1.5e9), volume="0.5 L", wall_stiffness="3 GPa")
    >>> h.volume, round(h.children["C"].oil.bulk_modulus / 1e9, 9)
    (0.0005, 1.0)
    >>> Hose("h", Oil(), volume=1e-3, length=1.0, diameter=0.01)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: hose 'h': give volume=..., or length=... and diameter=...
    """

    def __init__(self, name: str, oil: Oil, *, volume: Any = None, length: Any = None,
                 diameter: Any = None, wall_stiffness: Any = None,
                 ports: Sequence[str] = ("A", "B"), initial: float = 0.0):
        if (volume is None) == (length is None or diameter is None):
            raise ParameterError(f"hose {name!r}: give volume=..., or length=... and diameter=...")
        problems: list[str] = []
        if volume is not None:
            V = si(volume, "m^3", "volume", problems, POSITIVE)
        else:
            L, d = _geometry(length, diameter, problems)
            V = math.pi * d**2 / 4 * L
        if not isinstance(oil, Oil):
            problems.append(f"'oil': found {oil!r}, expected an Oil")
        elif wall_stiffness is not None:
            kw = si(wall_stiffness, "Pa", "wall_stiffness", problems, POSITIVE, plausible=False)
            if oil.has_air:
                problems.append("'wall_stiffness': with entrained air it is not supported; fold "
                                "the wall into the air fraction")
        raise_all(problems, f"hose {name!r}")
        if wall_stiffness is not None:
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

    Attributes
    ----------
    resistance : float
        ``128·μ·L/(π·d⁴)`` (Pa·s/m³).
    inertance : float
        ``ρ·L/A`` (kg/m⁴).

    Raises
    ------
    ParameterError
        Bad length or diameter, no :class:`Oil` (all listed).

    Examples
    --------
    1 bar across 2 m of 10 mm pipe: the flow settles (time constant ``ρLA⁻¹/R``) at the
    Hagen–Poiseuille value ``π·d⁴·Δp/(128·μ·L)``:

    >>> import math
    >>> from bondgraph import BondGraph, Se, Zero, build, simulate
    >>> ln = Line("ln", Oil(viscosity=0.036), length="2 m", diameter="10 mm", inertance=True)
    >>> r = BondGraph("pipe")
    >>> _ = r.add(Se("P", 1e5), ln, Zero("tank"), Se("T", 0.0))
    >>> for a, b in [("P", "ln/A"), ("ln/B", "tank"), ("T", "tank")]:
    ...     _ = r.connect(a, b)
    >>> res = simulate(build(r), (0.0, 2.0), rtol=1e-9, progress=False)
    >>> q = math.pi * 0.01**4 * 1e5 / (128 * 0.036 * 2)
    >>> bool(abs(res["pipe/ln/I.f"][-1] / q - 1) < 1e-6), round(ln.inertance / ln.resistance, 4)
    (True, 0.0755)
    """

    def __init__(self, name: str, oil: Oil, *, length: Any, diameter: Any, inertance: bool = False):
        super().__init__(name)
        problems: list[str] = []
        L, d = _geometry(length, diameter, problems)
        if not isinstance(oil, Oil):
            problems.append(f"'oil': found {oil!r}, expected an Oil")
        raise_all(problems, f"line {name!r}")
        self.resistance = 128 * oil.viscosity * L / (math.pi * d**4)
        self.inertance = oil.density * L / (math.pi * d**2 / 4)
        self.add(One("q"), R("R", self.resistance))
        self.connect("q", "R")
        if inertance:
            self.add(I("I", self.inertance))
            self.connect("q", "I")
        self.expose("A", "q")
        self.expose("B", "q")


def drain(graph: BondGraph, node: str, name: str, conductance: float, tank_pressure: float) -> None:
    """Laminar leakage ``Q = G·(p − p_t)`` from ``node`` of ``graph`` to a tank at ``p_t``.

    At ``p_t = 0`` a linear resistor ``name`` on the node. Otherwise the resistor sits on
    a 1-junction ``<name>_drain`` between the node and a tank node ``<name>_tank`` held
    at ``p_t`` by an effort source: it sees the drop ``p − p_t`` and stays passive, and
    the tank source takes the drained power (a one-port law ``G·(p − p_t)`` would
    generate power whenever ``0 < p < p_t``).

    Parameters
    ----------
    graph : BondGraph
        The component to add to.
    node : str
        A 0-junction of ``graph`` (the leaking volume).
    name : str
        Name of the resistor (and prefix of the parts added).
    conductance : float
        ``G`` (m³/(s·Pa)).
    tank_pressure : float
        ``p_t`` (Pa).

    Examples
    --------
    >>> g = BondGraph("c")
    >>> _ = g.add(Zero("n"))
    >>> drain(g, "n", "leak", 1e-11, 2e5)
    >>> sorted(g.children)
    ['leak', 'leak_drain', 'leak_p_t', 'leak_tank', 'n']
    """
    if tank_pressure == 0:
        graph.add(R(name, 1.0 / conductance))
        graph.connect(node, name)
        return
    j, tank, src = f"{name}_drain", f"{name}_tank", f"{name}_p_t"
    graph.add(One(j), R(name, 1.0 / conductance), Zero(tank), Se(src, tank_pressure))
    graph.connect(node, j)
    graph.connect(j, name)
    graph.connect(j, tank)
    graph.connect(src, tank)
