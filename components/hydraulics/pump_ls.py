"""Variable-displacement pump with a load-sensing controller, and its power unit.

:class:`LSPump` holds the pump's data; :class:`LSPowerUnit` is a
:class:`~components.hydraulics.PowerUnit` whose flow source delivers
``Q = D·n·α`` with ``α`` (0…1) the swash-plate position. The controller is
the one of OpenHydraulics' ``PCLSPump`` (a PD law on the pressure error):

``α = clip((e − T_d·ṗ_f)/p_band, 0, α_max(p_P))``, where

* ``e = p_ref − p_P``, ``p_ref = min(p_LS + Δp_LS, p_cut)``: the LS pressure plus
  the margin ``Δp_LS``, capped by the pressure cut-off;
* ``ṗ_f = (p_P − z)/T_f`` is the rate of the outlet pressure through a
  first-order filter ``ż = (p_P − z)/T_f`` (derivative on the measurement, so
  a step of ``p_LS`` gives no derivative kick);
* ``p_band = 1/K`` is the proportional band (OpenHydraulics' gain
  ``K = 2e-5 1/Pa``: full displacement for 0.5 bar of error). The steady
  state droops by ``α·p_band``: ``p_P = p_LS + Δp_LS − α·p_band``;
* ``α_max(p_P) = min(1, k/p_P)`` — the torque and power limiters, when given:
  ``k = 2π·T_max/D`` for the shaft torque, ``k = P_max/(D·n)`` for the power
  (hyperbolas in the ``p``–``Q`` plane; at a fixed speed the smaller ``k`` wins).

Why a PD law, and where the swash-plate lag is: the pump outlet is a small
oil volume (``C = V/β ≈ 1e-12 m³/Pa``), an integrator with little damping of
its own. With the derivative term the loop has one slow pole near
``−1/(T_d + T_f)`` and fast *real* ones: the outlet pressure and the swash
plate follow the LS demand as a first-order lag of time constant ``≈ T_d``
(OpenHydraulics' ``timeConst``). An integrating or lagged-proportional
displacement law rings with the outlet volume instead (ζ ≈ 0.0004 at 300 Hz
on the test rig with the valves closed), and so does this PD law with an
actuator lag ``τ_s`` after it (ζ ≈ 0.04–0.06 at 4–14 kHz for τ_s = 1–0.1 ms,
100× the solver work): ``swash_time_constant`` (first or second order) adds
such a lag, off by default. The pump leakage (a laminar conductance to tank)
gives the stand-by equilibrium when every valve is closed (``p_P = Δp_LS``,
``α`` just covering the leakage).

Parameters carry units; sources: OpenHydraulics ``PowerUnit.mo`` (``PCLSPump``:
``Dmax = 500 cm³/rev``, ``p_margin = 0.3 MPa``, ``timeConst = 0.01 s`` — here
``T_d`` —, ``propGain = 2e-5``; driven at 150 rad/s; docs/reference/excavator_data.md section C).
The filter and swash-plate time constants and the leakage are estimates.

Examples
--------
>>> pump = LSPump(displacement="500 cm^3/rev", speed="150 rad/s", margin="3 bar")
>>> round(pump.max_flow * 6e4, 1)                       # L/min at full displacement
716.2
>>> pump.torque_limit is None, pump.time_constant, pump.regulation_band
(True, 0.01, 50000.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import sympy as sp

from bondgraph.errors import ParameterError
from bondgraph.units import ParamSchema, ParamSpec, to_si

from ._expr import clip
from .lag import Lag
from .lines import drain
from .oil import Oil
from .supply import DelayedFlow, PowerUnit, ReliefValve, speed_problem

__all__ = ["LSPump", "LSPowerUnit", "LS_POWER_UNIT_SCHEMA"]

_S = ParamSpec

#: Parameter table of a load-sensing power unit (``[power_unit]`` of an LS circuit).
LS_POWER_UNIT_SCHEMA = ParamSchema("power_unit", [
    _S("pump_displacement", "m^3/rev", "maximum pump displacement D", positive=True),
    _S("pump_speed", "rev/s", "pump shaft speed n", positive=True),
    _S("margin", "Pa", "load-sensing margin Δp_LS", positive=True),
    _S("time_constant", "s", "derivative time T_d of the LS controller", required=False,
       default="10 ms", positive=True),
    _S("regulation_band", "Pa", "proportional band p_band = 1/gain", required=False,
       default="0.5 bar", positive=True),
    _S("filter_time_constant", "s", "filter of the pressure rate T_f", required=False,
       default="1 ms", positive=True),
    _S("swash_time_constant", "s", "swash-plate actuator lag τ_s (none: no lag)",
       required=False, positive=True),
    _S("swash_order", "", "order of the swash-plate lag (1 or 2)", required=False, default=1,
       minimum=1, maximum=2),
    _S("swash_damping", "", "damping ratio of a second-order swash plate", required=False,
       default=1.0, positive=True),
    _S("torque_limit", "N*m", "shaft torque limit (none: no limiter)", required=False,
       positive=True),
    _S("power_limit", "W", "hydraulic power limit (none: no limiter)", required=False,
       positive=True),
    _S("cutoff", "Pa", "pressure cut-off (none: no cut-off)", required=False, positive=True),
    _S("leakage", "m^3/s/Pa", "pump leakage to tank (laminar)", required=False,
       default="3e-12 m^3/s/Pa", minimum=0),
    _S("relief_crack", "Pa", "relief valve cracking pressure", required=False, positive=True),
    _S("relief_full", "Pa", "relief valve fully-open pressure", required=False, positive=True),
    _S("relief_flow", "m^3/s", "relief valve flow when fully open", required=False, positive=True),
    _S("volume", "m^3", "pump outlet and line volume", required=False, default="2 L",
       positive=True),
    _S("tank_pressure", "Pa", "tank gauge pressure", required=False, default="0 Pa"),
])

_UNITS = {"displacement": "m^3/rev", "speed": "rev/s", "margin": "Pa", "time_constant": "s",
          "regulation_band": "Pa", "filter_time_constant": "s", "swash_time_constant": "s",
          "torque_limit": "N*m", "power_limit": "W", "cutoff": "Pa", "leakage": "m^3/s/Pa"}


@dataclass(frozen=True)
class LSPump:
    """Variable-displacement pump with load-sensing control (values in SI or with units).

    Parameters
    ----------
    displacement : float or str
        Maximum displacement ``D`` (m³/rev).
    speed : float or str
        Shaft speed ``n`` (rev/s, or ``"rpm"``, ``"rad/s"``).
    margin : float or str
        LS margin ``Δp_LS`` (Pa): the pump holds ``p_LS + Δp_LS``.
    time_constant : float or str
        Derivative time ``T_d`` of the controller (s): about the time constant
        with which the outlet pressure follows the LS pressure.
    regulation_band : float or str
        Proportional band ``p_band`` (Pa): the error for full displacement.
    filter_time_constant : float or str
        ``T_f`` (s) of the pressure-rate filter.
    swash_time_constant : float or str, optional
        An actuator lag ``τ_s`` (s) after the controller (costly: see the module notes);
        ``None`` (default): the swash plate follows the PD law directly.
    order : int
        1 or 2 (second-order actuator lag, damping ``damping``).
    damping : float
    torque_limit, power_limit : float or str, optional
        Shaft torque (N·m) and hydraulic power (W) limiters.
    cutoff : float or str, optional
        Pressure cut-off (Pa): above ``cutoff − Δp_LS`` of load pressure the pump
        holds ``cutoff`` instead of following the load.
    leakage : float or str
        Laminar leakage conductance to tank (m³/(s·Pa)).

    Raises
    ------
    ParameterError
        Listing every bad value.

    Examples
    --------
    A 50 kW power limiter on 150 L/min: full displacement up to ``P/Q = 200`` bar,
    two thirds of it at 300 bar:

    >>> pump = LSPump("100 cm^3/rev", "1500 rpm", "20 bar", power_limit="50 kW")
    >>> pump.limit_constant, float(pump.displacement_limit(300e5))
    (20000000.0, 0.6666666666666666)
    >>> LSPump("100 cm^3/rev", "1500 rpm", "20 bar", cutoff="10 bar")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: load-sensing pump: 1 problem
      - 'cutoff': found '10 bar', expected above the margin (1e+06 Pa ≤ 2e+06 Pa)
    """

    displacement: Any
    speed: Any
    margin: Any
    time_constant: Any = "10 ms"
    regulation_band: Any = "0.5 bar"
    filter_time_constant: Any = "1 ms"
    swash_time_constant: Any = None
    order: int = 1
    damping: float = 1.0
    torque_limit: Any = None
    power_limit: Any = None
    cutoff: Any = None
    leakage: Any = 3e-12

    def __post_init__(self):
        problems: list[str] = []
        raw_cutoff = self.cutoff
        bad_speed = speed_problem(self.speed)    # "25 Hz": revolutions or radians?
        if bad_speed:
            problems.append(bad_speed)
        for f in fields(self):
            if f.name not in _UNITS or (f.name == "speed" and bad_speed):
                continue
            raw = getattr(self, f.name)
            if raw is None:
                continue
            try:
                v = to_si(raw, _UNITS[f.name], bare_si=True, name=f.name)
            except ParameterError as exc:
                problems += exc.problems
                continue
            ok = math.isfinite(v) and (v >= 0 if f.name == "leakage" else v > 0)
            if not ok:
                problems.append(f"{f.name!r}: found {raw!r}, expected a value "
                                f"{'≥' if f.name == 'leakage' else '>'} 0 ({_UNITS[f.name]})")
            object.__setattr__(self, f.name, v)
        if self.order not in (1, 2):
            problems.append(f"'order': found {self.order!r}, expected 1 or 2")
        if not (isinstance(self.damping, (int, float)) and math.isfinite(self.damping)
                and self.damping > 0):
            problems.append(f"'damping': found {self.damping!r}, expected a number > 0")
        if (self.cutoff is not None and isinstance(self.cutoff, float) and isinstance(self.margin, float)
                and not self.cutoff > self.margin):
            problems.append(f"'cutoff': found {raw_cutoff!r}, expected above the margin "
                            f"({self.cutoff:g} Pa ≤ {self.margin:g} Pa)")
        if problems:
            raise ParameterError(problems, subject="load-sensing pump")

    @property
    def max_flow(self) -> float:
        """Flow at full displacement (m³/s)."""
        return self.displacement * self.speed

    @property
    def limit_constant(self) -> float | None:
        """``k`` of the limiters' hyperbola ``α_max = k/p``: ``2π·T_max/D`` (torque) and
        ``P_max/(D·n)`` (power) are both of that form at a fixed speed; the smaller wins."""
        ks = []
        if self.torque_limit is not None:
            ks.append(2 * math.pi * self.torque_limit / self.displacement)
        if self.power_limit is not None:
            ks.append(self.power_limit / self.max_flow)
        return min(ks) if ks else None

    def displacement_limit(self, p: Any) -> sp.Expr:
        """``α_max(p) = min(1, k/p)`` (1 without limiters).

        Parameters
        ----------
        p : number or sympy expression
            Outlet pressure (Pa).

        Returns
        -------
        sympy expression
        """
        k = self.limit_constant
        if k is None:
            return sp.Integer(1)
        p = sp.sympify(p)
        return sp.Piecewise((k / p, p >= k), (1, True))

    def target(self, p: Any, z: Any, p_ls: Any) -> sp.Expr:
        """Displacement ``α = clip((p_ref − p − T_d·(p − z)/T_f)/p_band, 0, α_max(p))``.

        ``p`` the outlet pressure, ``z`` its filtered value, ``p_ls`` the LS
        pressure. Written so that every switching condition is on plain
        signals (the generated code takes no switch inside a condition): the
        clipped law of the LS error and, with a cut-off, of the cut-off error,
        the smaller one taken (the law is monotone in the reference).

        Parameters
        ----------
        p, z, p_ls : number or sympy expression

        Returns
        -------
        sympy expression

        Examples
        --------
        At rest (``z = p``) half a band below its reference the pump is at half
        displacement:

        >>> pump = LSPump("100 cm^3/rev", "1500 rpm", "20 bar")
        >>> float(pump.target(69.75e5, 69.75e5, 50e5))
        0.5
        """
        p, z, p_ls = sp.sympify(p), sp.sympify(z), sp.sympify(p_ls)
        rate = self.time_constant * (p - z) / self.filter_time_constant

        def law(ref):
            u = (ref - p - rate) / self.regulation_band
            out = sp.Piecewise((0, u <= 0), (1, u >= 1), (u, True))
            k = self.limit_constant
            if k is not None:   # u ≥ k/p ⇔ u·p ≥ k (p > 0): then min(u, 1, k/p) = α_max(p)
                out = sp.Piecewise((self.displacement_limit(p), u * p >= k), (out, True))
            return out

        t_ls = law(p_ls + self.margin)
        if self.cutoff is None:
            return t_ls
        return sp.Piecewise((law(self.cutoff), p_ls + self.margin >= self.cutoff), (t_ls, True))

    def flow(self, alpha: Any) -> sp.Expr:
        """Delivered flow ``D·n·clip(α, 0, 1)`` (m³/s).

        Parameters
        ----------
        alpha : number or sympy expression

        Returns
        -------
        sympy expression
        """
        return self.max_flow * clip(alpha, 0, 1)


class LSPowerUnit(PowerUnit):
    """A load-sensing pump, its outlet volume, leakage, optional relief valve and the tank.

    States: the outlet pressure ``<path>/C_P.e``, the pressure-rate filter
    ``<path>/rate/x.value`` and, with an actuator lag, the swash plate
    ``<path>/swash/x.value``. The delivered flow is the flow of the source
    ``<path>/pump`` (``α = Q/(D·n)``).

    Parameters
    ----------
    name : str
    oil : Oil
    pump : LSPump
    relief : ReliefValve, optional
    volume : float or str
        Pump outlet and line volume (m³).
    tank_pressure : float or str
    initial_pressure : float
        Initial outlet pressure (Pa).
    initial_displacement : float
        Initial swash-plate position ``α`` (0…1) of an actuator lag.
    load_pressure : expression, optional
        The LS pressure signal; an :class:`LSCircuit` sets it (:meth:`attach`).

    Raises
    ------
    ParameterError
        Not an :class:`LSPump`, an initial displacement outside 0 … 1; and those of
        :class:`PowerUnit`.

    Examples
    --------
    >>> from bondgraph import BondGraph, Input, build, simulate
    >>> from components.hydraulics import Oil
    >>> pu = LSPowerUnit("pu", oil=Oil(), pump=LSPump("100 cm^3/rev", "1500 rpm", "20 bar"),
    ...                  load_pressure=Input("p_ls"))
    >>> pu.consumer("load")
    ('P.load', 'T.load')

    Valves closed, at stand-by: the pump holds ``p_LS + Δp_LS`` less the droop
    ``α·p_band`` of the displacement ``α`` that just covers its own leakage:

    >>> top = BondGraph("sb")
    >>> pump = LSPump("100 cm^3/rev", "1500 rpm", "20 bar")
    >>> _ = top.add(LSPowerUnit("pu", oil=Oil(), pump=pump, load_pressure=Input("p_ls")))
    >>> res = simulate(build(top), (0.0, 0.5), inputs={"p_ls": 50e5}, method="CVODE",
    ...                rtol=1e-10, progress=False)
    >>> p, alpha = float(res["sb/pu/C_P.e"][-1]), float(res.flow("sb/pu/pump")[-1]) / pump.max_flow
    >>> bool(abs(alpha * pump.max_flow / (pump.leakage * p) - 1) < 1e-6)
    True
    >>> bool(abs(70e5 - alpha * pump.regulation_band - p) < 0.01)          # Pa
    True
    """

    def __init__(self, name: str, *, oil: Oil, pump: LSPump, relief: ReliefValve | None = None,
                 volume: Any = "2 L", tank_pressure: Any = 0.0, initial_pressure: float = 0.0,
                 initial_displacement: float = 0.0, load_pressure: Any = None):
        if not isinstance(pump, LSPump):
            raise ParameterError(f"LS power unit {name!r}: pump = {type(pump).__name__} {pump!r}, "
                                 "expected an LSPump")
        if not 0.0 <= initial_displacement <= 1.0:
            raise ParameterError(f"LS power unit {name!r}: initial_displacement = "
                                 f"{initial_displacement!r}, expected 0 … 1")
        rate = Lag("rate", lambda: self.outlet_pressure, time_constant=pump.filter_time_constant,
                   initial=initial_pressure)
        swash = None
        if pump.swash_time_constant is not None:
            swash = Lag("swash", self._command, time_constant=pump.swash_time_constant,
                        order=pump.order, damping=pump.damping, initial=initial_displacement)
            flow = DelayedFlow(lambda: pump.flow(swash.value))
        else:   # the command itself, already within 0 … α_max
            flow = DelayedFlow(lambda: pump.max_flow * self._command())
        super().__init__(name, oil=oil, pump=flow, relief=relief,
                         volume=volume, tank_pressure=tank_pressure,
                         initial_pressure=initial_pressure)
        self.pump = pump
        self.swash, self.rate_filter = swash, rate
        self.add(rate)
        if swash is not None:
            self.add(swash)
        self._load_pressure = None if load_pressure is None else sp.sympify(load_pressure)
        self._network = None
        if pump.leakage:
            drain(self, "nP", "leakage", pump.leakage, self.tank_pressure)

    def attach(self, network) -> None:
        """Read the LS pressure from a :class:`~components.hydraulics.LoadSenseNetwork`.

        Parameters
        ----------
        network : LoadSenseNetwork
        """
        self._network = network

    def load_pressure(self) -> sp.Expr:
        """The LS pressure the controller follows.

        Returns
        -------
        sympy expression

        Raises
        ------
        ParameterError
            Neither a network nor ``load_pressure``.
        """
        if self._network is not None:
            return self._network.pressure()
        if self._load_pressure is None:
            raise ParameterError(f"LS power unit {self.name!r}: no LS pressure to follow; use it "
                                 "in an LSCircuit or give load_pressure=...")
        return self._load_pressure

    def _command(self) -> sp.Expr:
        return self.pump.target(self.outlet_pressure, self.rate_filter.value, self.load_pressure())
