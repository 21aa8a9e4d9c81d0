"""Pressure sensing: a chamber whose pressure other laws may read, and a valve's LS port.

A load-sensing circuit needs pressures as *signals*: the pump controller reads
its outlet pressure and the highest load pressure, a compensator reads the
load pressure of its section. In a bond graph a law may use a state through a
*displacement handle* (:meth:`bondgraph.Element.handles`); these parts provide
such handles for oil pressures.

* :class:`SensedCapacitance` — a :class:`~components.hydraulics.HydraulicCapacitance`
  whose pressure state is offered as the handle :attr:`~SensedCapacitance.pressure`.
  The chamber must get integral causality (a pressure state of its own): a
  sensed chamber bonded straight to another chamber is merged with it, and a
  law reading its pressure then reports the symbol as having no value.
* :class:`LSPort` — the load-sensing port of a valve section: a small gallery
  volume ``V`` (the LS drilling and line) reached from several nodes through
  laminar damping orifices whose openings are signals (for a spool: work port
  ``A`` when it opens P→A, ``B`` the other way, the tank when centred). The
  conductances are ``G·w_k`` with ``G = V/(β·τ)``. With one orifice open the
  gallery draws oil only while the pressure changes: in a steady state it
  reads that node's pressure exactly, and dynamically it is the first-order
  lag ``τ`` of a real LS line with its damping orifice.

Examples
--------
>>> from bondgraph import BondGraph, Se, build, simulate
>>> from components.hydraulics import Oil
>>> bg = BondGraph("probe")
>>> port = bg.add(LSPort("ls", Oil(bulk_modulus=1.4e9), {"A": 1.0}, time_constant="2 ms"))
>>> _ = bg.add(Se("p", 100e5)); _ = bg.connect("p", "ls/A")
>>> res = simulate(build(bg), (0, 0.004), rtol=1e-10, atol=1e-3, progress=False)
>>> round(float(res["probe/ls/C.e"][-1]) / 100e5, 4)        # 1 − exp(−2): two time constants
0.8647
>>> round(port.conductance * 1e12, 3)                        # V/(β·τ), m³/(s·Pa)·1e12
1.786
"""

from __future__ import annotations

from typing import Any, Mapping

import sympy as sp

from bondgraph import BondGraph, One, R, Zero
from bondgraph.errors import ParameterError

from ._values import POSITIVE, si
from .chamber import HydraulicCapacitance
from .oil import Oil

__all__ = ["SensedCapacitance", "LSPort"]


class SensedCapacitance(HydraulicCapacitance):
    """An oil volume whose pressure state other laws may read (:attr:`pressure`).

    Parameters are those of :class:`~components.hydraulics.HydraulicCapacitance`.

    Examples
    --------
    >>> from components.hydraulics import Oil
    >>> c = SensedCapacitance("C_P", 1e-3, Oil())
    >>> list(c.handles().values())
    ['e']
    """

    def __init__(self, name: str, volume: Any, oil: Oil, *, initial: float = 0.0):
        super().__init__(name, volume, oil, initial=initial)
        self._pressure = sp.Dummy(f"{name}.e", real=True)

    @property
    def pressure(self) -> sp.Symbol:
        """Handle of the chamber pressure (Pa, gauge) for use in any law of the model."""
        return self._pressure

    def handles(self) -> dict[sp.Symbol, str]:
        """The pressure handle, keyed to the state ``e``.

        Returns
        -------
        dict
        """
        return {self._pressure: "e"}


class LSPort(BondGraph):
    """A sensed gallery reached from named ports through modulated damping orifices.

    The sensed pressure is the handle :attr:`pressure` (state ``<path>/C.e``).

    Parameters
    ----------
    name : str
    oil : Oil
    openings : mapping
        Port name → opening ``w`` (0…1, a number or an expression of states
        and inputs, e.g. of a spool position). Each becomes an exposed port;
        connect the node it senses *into* it.
    volume : float or str
        Gallery (and LS line) volume (m³); estimate 5 cm³.
    time_constant : float or str
        Lag ``τ = V/(β·G)`` through one fully open orifice, at the pure-oil bulk
        modulus (s); fixes the orifice conductance ``G``. Estimate 2 ms.
    initial : float
        Initial gauge pressure of the gallery (Pa).

    Raises
    ------
    ParameterError
        No :class:`Oil`, bad volume or time constant, no openings or reserved port names
        (all listed).

    Examples
    --------
    Two nodes sensed through openings 1 and 0.5: in a steady state the gallery reads
    their conductance-weighted mean, ``(1·100 + 0.5·40)/1.5 = 80`` bar:

    >>> from bondgraph import BondGraph, Se, build, simulate
    >>> bg = BondGraph("probe")
    >>> _ = bg.add(LSPort("ls", Oil(), {"A": 1.0, "B": 0.5}), Se("pA", 100e5), Se("pB", 40e5))
    >>> _ = bg.connect("pA", "ls/A"); _ = bg.connect("pB", "ls/B")
    >>> res = simulate(build(bg), (0.0, 0.05), rtol=1e-10, atol=1e-3, progress=False)
    >>> round(float(res["probe/ls/C.e"][-1]) / 1e5, 6)
    80.0
    """

    def __init__(self, name: str, oil: Oil, openings: Mapping[str, Any], *,
                 volume: Any = "5 cm^3", time_constant: Any = "2 ms", initial: float = 0.0):
        super().__init__(name)
        problems: list[str] = []
        if not isinstance(oil, Oil):
            problems.append(f"'oil': found {oil!r}, expected an Oil")
        V = si(volume, "m^3", "volume", problems, POSITIVE)
        tau = si(time_constant, "s", "time_constant", problems, POSITIVE)
        if not (isinstance(openings, Mapping) and openings):
            problems.append(f"'openings': found {openings!r}, expected a mapping port → opening")
        elif any(k in ("C", "gallery") or not isinstance(k, str) for k in openings):
            problems.append(f"'openings': port names {list(openings)}: 'C' and 'gallery' are "
                            "the names of its parts; choose others")
        if problems:
            raise ParameterError(problems, subject=f"LS port {name!r}")
        self.volume, self.time_constant = V, tau
        #: laminar conductance of one fully open damping orifice (m³/(s·Pa))
        self.conductance = G = V / (oil.bulk_modulus * tau)
        self.add(Zero("gallery"), SensedCapacitance("C", V, oil, initial=initial))
        self.connect("gallery", "C")
        for port, w in openings.items():
            w = sp.sympify(w)
            self.add(One(f"q_{port}"), R(f"G_{port}", flow=lambda dp, w=w: G * w * dp))
            self.connect(f"q_{port}", f"G_{port}")
            self.connect(f"q_{port}", "gallery")
            self.expose(port, f"q_{port}")

    @property
    def pressure(self) -> sp.Symbol:
        """Handle of the sensed (gallery) pressure."""
        return self.children["C"].pressure
