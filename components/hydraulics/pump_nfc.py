"""Variable-displacement pump with negative flow control (open-centre circuits), and its power unit.

In an open-centre circuit the flow the valve sections do not take passes the
centre bypass gallery and a fixed *negative-control orifice* to tank; the
pressure upstream of that orifice, the negacon pressure ``p_n``, is the pump's
control signal (Kawasaki K3V/K5V "negative control", Rexroth A8VO with
negative control: the more flow returns unused, the less the pump delivers).
:class:`NFCPump` holds the data; its displacement command falls linearly as
``p_n`` rises:

``α_cmd = D_cmd/D_max = clip((p_n,max − p_n)/(p_n,max − p_n,min), d_min, 1)``

With a ``torque_limit`` (the regulator's horsepower control, which keeps the pump from
pulling the engine down its curve) the command is also held under the hyperbola
``α ≤ 2π·T_max/(D·p)`` of the outlet pressure ``p`` (``D`` the displacement the shaft
turns), and the swash plate follows ``α_cmd`` through a first-order :class:`Lag`
(time constant ``time_constant``). :class:`NFCPowerUnit` is a
:class:`~components.hydraulics.PowerUnit` whose flow source delivers
``Q = D_max·n·α`` (``α`` the swash-plate state), with the outlet volume and the
main relief valve of the power unit as today.

Data (estimates, marked in the machine file): ``p_n,min`` 5–10 bar,
``p_n,max`` 30–40 bar and a stand-by displacement of 5–20 % are the usual
ranges of the regulators' data sheets; a swash-plate time constant of
50–100 ms is typical of a hydro-mechanical regulator.

Examples
--------
>>> pump = NFCPump("100 cm^3/rev", "1500 rpm", min_displacement=0.2,
...                control_min="8 bar", control_max="30 bar")
>>> round(pump.max_flow * 6e4, 1), round(pump.min_flow * 6e4, 1)      # L/min
(150.0, 30.0)
>>> [round(pump.command_value(p * 1e5), 3) for p in (0.0, 8.0, 19.0, 30.0, 40.0)]
[1.0, 1.0, 0.5, 0.2, 0.2]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sympy as sp

from bondgraph.errors import ParameterError

from ._expr import clip
from ._values import POSITIVE, raise_all, si
from .lag import Lag
from .oil import Oil
from .supply import DelayedFlow, PowerUnit, ReliefValve, speed_problem

__all__ = ["NFCPump", "NFCPowerUnit"]


@dataclass(frozen=True)
class NFCPump:
    """Variable-displacement pump with negative flow control (values in SI or with units).

    Parameters
    ----------
    displacement : float or str
        Maximum displacement ``D_max`` (m³/rev).
    speed : float or str
        Shaft speed ``n`` (rev/s, or ``"rpm"``, ``"rad/s"``).
    min_displacement : float
        Stand-by displacement ``d_min/D_max`` (0 < · < 1).
    control_min, control_max : float or str
        ``p_n,min`` (full displacement at or below it) and ``p_n,max`` (stand-by
        at or above it), Pa; ``control_max > control_min``.
    time_constant : float or str
        Swash-plate lag ``τ`` (s).
    torque_limit : float or str, optional
        Shaft torque the regulator holds the pump under (N·m): total horsepower control.

    Raises
    ------
    ParameterError
        Listing every bad value.

    Examples
    --------
    >>> NFCPump("100 cm^3/rev", "1500 rpm", min_displacement=1.2, control_min="30 bar",
    ...         control_max="8 bar")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: negative-control pump: 2 problems
      - 'min_displacement': found 1.2, expected a fraction of the maximum displacement, 0 < d_min < 1
      - 'control_max': found 8 bar, expected above 'control_min' (30 bar): the displacement falls from full at p_n,min to stand-by at p_n,max
    """

    displacement: Any
    speed: Any
    min_displacement: float = 0.1
    control_min: Any = "8 bar"
    control_max: Any = "30 bar"
    time_constant: Any = "50 ms"
    torque_limit: Any = None

    def __post_init__(self):
        problems: list[str] = []
        bad = speed_problem(self.speed)
        if bad:
            problems.append(bad)
        for name, unit in (("displacement", "m^3/rev"), ("speed", "rev/s"), ("control_min", "Pa"),
                           ("control_max", "Pa"), ("time_constant", "s")):
            if name == "speed" and bad:
                continue
            v = si(getattr(self, name), unit, name, problems, POSITIVE)
            object.__setattr__(self, name, v)
        if self.torque_limit is not None:
            object.__setattr__(self, "torque_limit", si(self.torque_limit, "N*m", "torque_limit", problems,
                                                        POSITIVE))
        d = self.min_displacement
        if not (isinstance(d, (int, float)) and not isinstance(d, bool) and math.isfinite(d)
                and 0 < d < 1):
            problems.append(f"'min_displacement': found {d!r}, expected a fraction of the maximum "
                            "displacement, 0 < d_min < 1")
        if (math.isfinite(self.control_min) and math.isfinite(self.control_max)
                and not self.control_max > self.control_min):
            problems.append(f"'control_max': found {self.control_max / 1e5:g} bar, expected above "
                            f"'control_min' ({self.control_min / 1e5:g} bar): the displacement "
                            "falls from full at p_n,min to stand-by at p_n,max")
        raise_all(problems, "negative-control pump")

    @property
    def max_flow(self) -> float:
        """Flow at full displacement (m³/s)."""
        return self.displacement * self.speed

    @property
    def min_flow(self) -> float:
        """Stand-by flow ``d_min·D_max·n`` (m³/s)."""
        return self.min_displacement * self.max_flow

    def command(self, p_n: Any) -> sp.Expr:
        """``α_cmd = clip((p_n,max − p_n)/(p_n,max − p_n,min), d_min, 1)``.

        Parameters
        ----------
        p_n : number or sympy expression
            Negacon pressure (Pa).

        Returns
        -------
        sympy expression
        """
        span = self.control_max - self.control_min
        return clip((self.control_max - sp.sympify(p_n)) / span, self.min_displacement, 1)

    def command_value(self, p_n: float) -> float:
        """:meth:`command` at a number (for references and start values).

        Parameters
        ----------
        p_n : float

        Returns
        -------
        float
        """
        u = (self.control_max - p_n) / (self.control_max - self.control_min)
        return min(1.0, max(self.min_displacement, u))


class NFCPowerUnit(PowerUnit):
    """A negative-control pump, its outlet volume, optional relief valve and the tank.

    States: the outlet pressure ``<path>/C_P.e`` and the swash plate
    ``<path>/swash/x.value``; the delivered flow is the flow of ``<path>/pump``.

    Parameters
    ----------
    name : str
    oil : Oil
    pump : NFCPump
    relief : ReliefValve, optional
    volume : float or str
        Pump outlet and line volume (m³).
    tank_pressure : float or str
    initial_pressure : float
        Initial outlet pressure (Pa).
    initial_displacement : float, optional
        Initial swash-plate position ``α`` (default: stand-by, ``d_min``).
    control_pressure : expression, optional
        The negacon pressure ``p_n`` (a signal); an
        :class:`~components.hydraulics.OpenCentreCircuit` sets it (:meth:`attach`).

    Raises
    ------
    ParameterError
        Not an :class:`NFCPump`, an initial displacement outside 0 … 1; and those of
        :class:`~components.hydraulics.PowerUnit`.

    Examples
    --------
    >>> from bondgraph import BondGraph, Input, build, simulate
    >>> from components.hydraulics import Oil, Orifice
    >>> bg = BondGraph("nfc")
    >>> pump = NFCPump("100 cm^3/rev", "1500 rpm", min_displacement=0.2, time_constant="50 ms")
    >>> pu = bg.add(NFCPowerUnit("pu", oil=Oil(), pump=pump, control_pressure=Input("p_n")))
    >>> _ = bg.add(Orifice("load", conductance=1e-8))
    >>> p, t = pu.consumer("load")
    >>> _ = bg.connect(f"pu/{p}", "load/A"); _ = bg.connect("load/B", f"pu/{t}")
    >>> res = simulate(build(bg), (0, 1.0), inputs={"p_n": 0.0}, progress=False)
    >>> round(float(res["nfc/pu/swash/x.value"][-1]), 4)     # p_n below p_n,min: full displacement
    1.0
    """

    def __init__(self, name: str, *, oil: Oil, pump: NFCPump, relief: ReliefValve | None = None,
                 volume: Any = "2 L", tank_pressure: Any = 0.0, initial_pressure: float = 0.0,
                 initial_displacement: float | None = None, control_pressure: Any = None):
        if not isinstance(pump, NFCPump):
            raise ParameterError(f"negative-control power unit {name!r}: pump = "
                                 f"{type(pump).__name__} {pump!r}, expected an NFCPump")
        a0 = pump.min_displacement if initial_displacement is None else initial_displacement
        if not (isinstance(a0, (int, float)) and 0.0 <= a0 <= 1.0):
            raise ParameterError(f"negative-control power unit {name!r}: initial_displacement = "
                                 f"{initial_displacement!r}, expected 0 … 1")
        swash = Lag("swash", self._command, time_constant=pump.time_constant, initial=a0)
        super().__init__(name, oil=oil, pump=DelayedFlow(lambda: pump.max_flow * swash.value),
                         relief=relief, volume=volume, tank_pressure=tank_pressure,
                         initial_pressure=initial_pressure)
        self.pump = pump
        self.swash = swash
        self.add(swash)
        self._control = None if control_pressure is None else sp.sympify(control_pressure)

    def attach(self, control_pressure: Any) -> None:
        """Follow ``control_pressure`` (the negacon pressure signal of a circuit).

        Parameters
        ----------
        control_pressure : sympy expression
        """
        self._control = sp.sympify(control_pressure)

    def control_pressure(self) -> sp.Expr:
        """The negacon pressure ``p_n`` the regulator reads.

        Returns
        -------
        sympy expression

        Raises
        ------
        ParameterError
            Neither a circuit nor ``control_pressure`` gave one.
        """
        if self._control is None:
            raise ParameterError(f"negative-control power unit {self.name!r}: no negacon pressure "
                                 "to follow; use it in an OpenCentreCircuit or give "
                                 "control_pressure=...")
        return self._control

    def _command(self) -> sp.Expr:
        a = self.pump.command(self.control_pressure())
        if self.pump.torque_limit is None:
            return a
        # the horsepower control: α·p ≤ k = 2π·T_max/D, D the displacement the shaft turns
        d = getattr(self, "shaft_displacement", None) or self.pump.displacement
        k = 2 * math.pi * self.pump.torque_limit / d
        p = self.outlet_pressure
        return sp.Piecewise((k / sp.Max(p, k), a * p >= k), (a, True))   # (never divides by 0)

    def torque_limited(self, alpha: Any, p: Any) -> Any:
        """Whether the horsepower control holds the swash plate at ``alpha`` and outlet
        pressure ``p`` (arrays): ``α·p`` within 0.5 % of ``2π·T_max/D`` (``False`` without a
        ``torque_limit``).

        Parameters
        ----------
        alpha, p : array_like

        Returns
        -------
        ndarray of bool
        """
        import numpy as np

        alpha, p = np.asarray(alpha, dtype=float), np.asarray(p, dtype=float)
        if self.pump.torque_limit is None:
            return np.zeros(np.broadcast(alpha, p).shape, dtype=bool)
        d = getattr(self, "shaft_displacement", None) or self.pump.displacement
        return alpha * p >= 0.995 * 2 * math.pi * self.pump.torque_limit / d
