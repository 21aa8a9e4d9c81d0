"""Oil volumes: the hydraulic capacitance element and the chamber template.

A chamber of volume ``V`` filled with oil of bulk modulus ``β`` is a
compliance ``c = V/β`` on a 0-junction (common pressure ``p``): the core
integrates ``c·ṗ = Q_net``, i.e. ``ṗ = β/V·Q_net``. ``V`` may depend on
displacement handles (a piston position), and with entrained air ``β``
depends on the chamber's own pressure (:meth:`Oil.effective_bulk_modulus`),
which is why :class:`HydraulicCapacitance` is its own element: it writes
``c(x, p)`` with its own pressure state.

With ``ṗ = β/V·Q_net`` and constant ``β`` the oil mass ``ρ(p)·V`` with
``ρ = ρ₀·exp((p − p₀)/β)`` changes exactly by the mass inflow ``ρ(p)·Q`` of
the ports (the piston flow only moves the boundary): the chambers conserve oil.

Two chambers bonded to each other without a restriction share one pressure:
one of the capacitances then takes derivative causality and the core merges
the two volumes (``(c₁ + c₂)·ṗ = Q_net``) — that is how a hose volume is lumped
with a cylinder chamber.

Examples
--------
>>> from bondgraph import BondGraph, Sf, build, simulate
>>> from components.hydraulics import Oil
>>> tank = BondGraph("fill")
>>> _ = tank.add(Sf("Q", 1e-4), Chamber("vol", 1e-3, Oil(bulk_modulus=1e9), ports=("in",)))
>>> _ = tank.connect("Q", "vol/in")
>>> res = simulate(build(tank), (0, 0.1), rtol=1e-10, atol=1e-6)
>>> round(float(res["fill/vol/C.e"][-1]) / 1e6, 6)   # ṗ = β/V·Q = 1e8 Pa/s
10.0
"""

from __future__ import annotations

from typing import Any, Sequence

import sympy as sp

from bondgraph import C, BondGraph, Zero
from bondgraph.checks import Check, number
from bondgraph.elements import Constitutive, StateSpec
from bondgraph.errors import ParameterError

from .oil import Oil

__all__ = ["HydraulicCapacitance", "Chamber"]


def _problems(volume: Any, oil: Any, initial: Any) -> list[str]:
    problems = []
    if not (isinstance(volume, sp.Basic) and not volume.is_number):
        problems.append(HydraulicCapacitance._V.problem("volume", volume))
    if not isinstance(oil, Oil):
        problems.append(f"oil: found {oil!r}, expected an Oil")
    problems.append(Check("finite", "Pa").problem("initial pressure", initial))
    return [p for p in problems if p]


class HydraulicCapacitance(C):
    """Compliance of an oil volume: ``c = V/β`` (state: the gauge pressure).

    Parameters
    ----------
    name : str
    volume : float or expression
        Volume (m³); an expression may use displacement handles.
    oil : Oil
    initial : float
        Initial gauge pressure (Pa).

    Raises
    ------
    ParameterError
        A non-positive volume, no :class:`Oil`, a non-finite initial pressure (all listed).

    Notes
    -----
    The parameters ``<path>.V`` (for a constant volume) and ``<path>.beta``
    (for oil without air) are run-time parameters of the compiled model:
    ``model.set_params`` changes them without recompiling.

    Examples
    --------
    With entrained air the modulus follows the pressure: filled at a constant flow,
    ``∫₀^p dp'/β(p') = Q·t/V`` (checked here with scipy's quadrature):

    >>> from scipy.integrate import quad
    >>> from bondgraph import BondGraph, Sf, Zero, build, simulate
    >>> oil = Oil(bulk_modulus=1.4e9, air_fraction=0.01)
    >>> m = BondGraph("fill")
    >>> _ = m.add(Sf("Q", 1e-5), Zero("n"), HydraulicCapacitance("C", 1e-3, oil))
    >>> _ = m.connect("Q", "n"); _ = m.connect("n", "C")
    >>> res = simulate(build(m), (0.0, 0.5), rtol=1e-10, atol=1e-3, progress=False)
    >>> p = float(res["fill/C.e"][-1])
    >>> filled = quad(lambda x: 1 / oil.effective_bulk_modulus(x), 0.0, p, limit=200)[0]
    >>> round(filled / (1e-5 * 0.5 / 1e-3), 6)
    1.0
    """

    kind = "C"
    _V = Check(">0", "chamber volume, m³")
    _BETA = Check(">0", "bulk modulus, Pa")

    def __init__(self, name: str, volume: Any, oil: Oil, *, initial: float = 0.0):
        problems = _problems(volume, oil, initial)
        if problems:
            raise ParameterError(problems, subject=f"chamber {name!r}")
        super().__init__(name, 1.0, initial=float(number(initial)))
        self.volume = volume
        self.oil = oil

    def _beta(self, p: sp.Expr, ctx) -> sp.Expr:
        if self.oil.has_air:
            return self.oil.effective_bulk_modulus(p)
        return ctx.param("beta", self.oil.bulk_modulus, check=self._BETA)

    def equations(self, ports, ctx):
        (p,) = ports.values()
        V = ctx.param("V", self.volume, check=self._V)
        if not p.effort_in:  # integral causality: the pressure is a state
            e = ctx.state("e", self.initial)
            beta = self._beta(e, ctx)
            return Constitutive(outputs={p.e: e},
                                states=[StateSpec(e, V / beta, p.f, "effort", ctx.name)],
                                energy=V * e**2 / (2 * beta))
        beta = self._beta(p.e, ctx)
        return Constitutive(outputs={p.f: V / beta * ctx.derivative(p.e)},
                            energy=V * p.e**2 / (2 * beta))


class Chamber(BondGraph):
    """An oil volume with named ports (all at the chamber pressure).

    The pressure state is ``<path>/C.e``.

    Parameters
    ----------
    name : str
    volume : float or expression
        m³ (may depend on displacement handles).
    oil : Oil
    ports : sequence of str
        Names of the exposed ports; each takes one bond (direction: positive
        flow into the chamber if the bond points in).
    initial : float
        Initial gauge pressure (Pa).

    Raises
    ------
    ParameterError
        As :class:`HydraulicCapacitance`, and port names that clash with its parts.

    Examples
    --------
    Two ports, one pressure: 0.1 L/s in and 0.04 L/s out of one litre of oil at
    ``β = 1 GPa`` raise it by ``β/V·ΔQ·t = 6 MPa`` in 0.1 s:

    >>> from bondgraph import BondGraph, Sf, build, simulate
    >>> m = BondGraph("two")
    >>> _ = m.add(Sf("Q1", 1e-4), Sf("Q2", -4e-5),
    ...           Chamber("vol", 1e-3, Oil(bulk_modulus=1e9), ports=("P", "T")))
    >>> _ = m.connect("Q1", "vol/P"); _ = m.connect("Q2", "vol/T")
    >>> res = simulate(build(m), (0.0, 0.1), rtol=1e-10, atol=1e-6, progress=False)
    >>> round(float(res["two/vol/C.e"][-1]) / 1e6, 6)
    6.0
    """

    def __init__(self, name: str, volume: Any, oil: Oil, *, ports: Sequence[str] = ("A",),
                 initial: float = 0.0):
        super().__init__(name)
        problems = _problems(volume, oil, initial)
        if "node" in ports or "C" in ports:
            problems.append(f"port names {list(ports)}: 'node' and 'C' are the names of its "
                            "parts; choose others")
        if problems:
            raise ParameterError(problems, subject=f"chamber {name!r}")
        self.add(Zero("node"), HydraulicCapacitance("C", volume, oil, initial=initial))
        self.connect("node", "C")
        for port in ports:
            self.expose(port, "node")
