"""Supply side: tank, pumps (fixed and pressure-compensated), relief valve, power unit.

* :class:`FixedPump` — flow source ``Q = D·n`` (displacement × speed);
* :class:`CompensatedPump` — pressure-compensated variable pump: full flow
  ``D·n`` below ``setting − band``, reduced linearly to zero at ``setting``
  (a flow source whose flow depends on the pressure it works against);
* :class:`ReliefValve` — cracks at ``crack``, fully open (``q_rated``) at
  ``full``: ``Q = q_rated·sat((p − p_crack)/(p_full − p_crack))·√((p − p_T)/(p_full − p_T))``;
  with ``mode=`` a discrete variable (0 closed / 1 relieving) the law is also
  gated by that mode, for hybrid models whose switch is located by an event;
* :class:`PowerUnit` — the pump outlet volume (a chamber) with a pump or an
  ideal pressure source, a relief valve and the tank; several valves share
  it: :meth:`PowerUnit.consumer` exposes a ``P.<name>``/``T.<name>`` pair per valve.

Examples
--------
>>> from components.hydraulics import Oil
>>> pu = PowerUnit("pu", oil=Oil(), pump=FixedPump("100 cm^3/rev", "1500 rpm"),
...                relief=ReliefValve(crack="300 bar", full="310 bar", q_rated="200 L/min"))
>>> pu.consumer("boom")
('P.boom', 'T.boom')
>>> round(pu.pump.flow * 6e4, 3)                          # L/min
150.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import sympy as sp

from bondgraph import MTF, BondGraph, Law, R, Se, Sf, Zero
from bondgraph.elements import Constitutive
from bondgraph.errors import ParameterError

from ._expr import clip
from ._values import FINITE, POSITIVE, raise_all, si
from .oil import Oil
from .orifice import signed_sqrt
from .pressure_tap import SensedCapacitance

__all__ = ["FixedPump", "CompensatedPump", "ReliefValve", "PumpSource", "PumpTransformer", "Tank",
           "PowerUnit", "DelayedFlow", "speed_problem"]


def _pos(value: Any, unit: str, name: str) -> float:
    problems: list[str] = []
    v = si(value, unit, name, problems, POSITIVE)
    raise_all(problems, name)
    return v


_ANGULAR = ("rev", "rpm", "rps", "rad", "turn", "deg", "cycle")


def speed_problem(value: Any, name: str = "speed") -> str | None:
    """A shaft speed must say what it counts: ``"1500 rpm"``, ``"25 rev/s"`` or ``"157 rad/s"``.

    ``"25 Hz"`` (or ``"25 1/s"``) is ambiguous — revolutions or radians per second differ
    by 2π — and is refused instead of being read one way silently.

    Parameters
    ----------
    value : str, quantity, mapping or number
        A bare number is rev/s (the SI of this library) and passes.
    name : str
        How the message names it.

    Returns
    -------
    str or None

    Examples
    --------
    >>> speed_problem("1500 rpm") is None, speed_problem(150.0) is None
    (True, True)
    >>> print(speed_problem("25 Hz"))
    'speed': found '25 Hz', which does not say whether it counts revolutions or radians (they differ by 2π); write e.g. "25 rev/s", "1500 rpm" or "157 rad/s"
    """
    if isinstance(value, Mapping) and isinstance(value.get("unit"), str):
        unit = value["unit"]                         # {"value": 25, "unit": "Hz"}
    elif hasattr(value, "magnitude") and hasattr(value, "units"):
        unit = str(value.units)                      # a pint quantity: "hertz", "revolutions_per_minute"
    elif isinstance(value, str):
        unit = value
    else:
        return None                                  # a bare number: rev/s (SI of this library)
    if not any(w in unit for w in _ANGULAR):
        return (f"{name!r}: found {value!r}, which does not say whether it counts revolutions or "
                "radians (they differ by 2π); write e.g. \"25 rev/s\", \"1500 rpm\" or \"157 rad/s\"")
    return None


def _check_fields(obj, what: str, fields: dict[str, str]) -> None:
    """Check a frozen dataclass's unit-carrying fields at construction, all at once."""
    problems: list[str] = []
    for name, unit in fields.items():
        if name == "speed":
            bad = speed_problem(getattr(obj, name))
            if bad:
                problems.append(bad)
                continue
        si(getattr(obj, name), unit, name, problems, POSITIVE)
    raise_all(problems, what)


@dataclass(frozen=True)
class FixedPump:
    """Fixed-displacement pump: ``Q = displacement·speed``.

    ``displacement`` in m³/rev (or ``"cm^3/rev"``), ``speed`` in rev/s (or ``"rpm"``).

    Parameters
    ----------
    displacement : float or str
    speed : float or str
        A speed that does not say whether it counts revolutions or radians is refused.

    Raises
    ------
    ParameterError
        Non-positive or unreadable values, an ambiguous speed (all listed).

    Examples
    --------
    >>> round(FixedPump("45 cm^3/rev", "2000 rpm").flow * 6e4, 9)     # L/min
    90.0
    >>> FixedPump("45 cm^3/rev", "33 Hz")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: fixed pump: 1 problem
      - 'speed': found '33 Hz', which does not say whether it counts revolutions or radians (they differ by 2π); write e.g. "25 rev/s", "1500 rpm" or "157 rad/s"
    """

    displacement: Any
    speed: Any

    def __post_init__(self):
        _check_fields(self, "fixed pump", {"displacement": "m^3/rev", "speed": "rev/s"})

    @property
    def flow(self) -> float:
        """Delivered flow (m³/s)."""
        return (_pos(self.displacement, "m^3/rev", "displacement")
                * _pos(self.speed, "rev/s", "speed"))

    def law(self, p: sp.Expr) -> sp.Expr:
        """The delivered flow, whatever the pressure ``p`` (m³/s).

        Parameters
        ----------
        p : sp.Expr

        Returns
        -------
        sp.Expr
        """
        return sp.Float(self.flow)


@dataclass(frozen=True)
class CompensatedPump:
    """Pressure-compensated pump: ``Q = D·n·sat((setting − p)/band)``.

    Parameters
    ----------
    displacement, speed : float or str
        As for :class:`FixedPump`.
    setting : float or str
        Pressure at which the flow is zero (Pa).
    band : float or str
        Pressure band over which the flow falls to zero (Pa).

    Raises
    ------
    ParameterError
        As for :class:`FixedPump`.

    Examples
    --------
    Full flow up to ``setting − band``, half of it in the middle of the band, none at
    the setting:

    >>> cp = CompensatedPump("45 cm^3/rev", "2000 rpm", setting="250 bar", band="10 bar")
    >>> [round(float(cp.law(p)) * 6e4, 6) for p in (0.0, 245e5, 250e5)]     # L/min
    [90.0, 45.0, 0.0]
    """

    displacement: Any
    speed: Any
    setting: Any
    band: Any = "5 bar"

    def __post_init__(self):
        _check_fields(self, "compensated pump", {"displacement": "m^3/rev", "speed": "rev/s",
                                                 "setting": "Pa", "band": "Pa"})

    @property
    def flow(self) -> float:
        """Maximum flow (m³/s)."""
        return (_pos(self.displacement, "m^3/rev", "displacement")
                * _pos(self.speed, "rev/s", "speed"))

    def law(self, p: sp.Expr) -> sp.Expr:
        """The delivered flow at the outlet pressure ``p`` (m³/s; expression or number).

        Parameters
        ----------
        p : sp.Expr

        Returns
        -------
        sp.Expr
        """
        ps = _pos(self.setting, "Pa", "setting")
        band = _pos(self.band, "Pa", "band")
        return self.flow * clip((ps - p) / band, 0, 1)


class DelayedFlow:
    """The ``law(p)`` a :class:`PowerUnit` asks of its pump, for a pump whose flow is an
    expression made when the equations are derived (``flow()``): a swash-plate state, or a
    controller's command that reads signals set after the power unit is built.

    Examples
    --------
    >>> alpha = sp.Symbol("alpha")
    >>> DelayedFlow(lambda: 2.5e-3 * alpha).law(sp.Symbol("p"))
    0.0025*alpha
    """

    def __init__(self, flow):
        self._flow = flow

    def law(self, p: sp.Expr) -> sp.Expr:
        """The flow expression, made now (the pressure ``p`` is not used).

        Parameters
        ----------
        p : sp.Expr

        Returns
        -------
        sp.Expr
        """
        return self._flow()


class PumpSource(Sf):
    """A flow source whose flow depends on the pressure at its own port.

    ``law(p)`` gives the delivered flow; the pressure comes from the node the
    source feeds (a chamber), so no algebraic loop arises.

    Parameters
    ----------
    name : str
    law : callable
        ``law(p) -> flow`` (sympy), e.g. :meth:`CompensatedPump.law`.

    Examples
    --------
    A compensated pump into a closed litre of oil stops delivering at its setting:

    >>> from bondgraph import BondGraph, Zero, build, simulate
    >>> from components.hydraulics import HydraulicCapacitance
    >>> cp = CompensatedPump("45 cm^3/rev", "2000 rpm", setting="250 bar", band="10 bar")
    >>> m = BondGraph("dead")
    >>> _ = m.add(PumpSource("pump", cp.law), Zero("n"), HydraulicCapacitance("C", 1e-3, Oil()))
    >>> _ = m.connect("pump", "n"); _ = m.connect("n", "C")
    >>> res = simulate(build(m), (0.0, 2.0), progress=False)
    >>> round(float(res["dead/C.e"][-1]) / 1e5, 3)     # bar
    250.0
    """

    kind = "Sf"

    def __init__(self, name: str, law):
        super().__init__(name, 0.0)
        self.law = law

    def equations(self, ports, ctx):
        (p,) = ports.values()
        return Constitutive(outputs={p.f: ctx.resolve(self.law(p.e))})


class PumpTransformer(MTF):
    """A pump driven by a shaft: a modulated transformer from shaft speed ``ω`` (rad/s,
    port ``1``) to delivered flow (port ``2``), ``Q = m·ω`` with the displacement per radian

    ``m = law(p)/(2π·n_nominal)``

    where ``law(p)`` is the flow the pump's own law gives at its nominal speed
    ``n_nominal`` (rev/s) — ``D·n``, ``D·n·α`` of a swash plate, a compensator's cut —
    so the pump keeps its regulator and its torque ``m·p`` loads the shaft. The modulus
    is made when the equations are derived (a regulator may read signals set later).

    Parameters
    ----------
    name : str
    law : callable
        ``law(p) -> flow`` at the nominal speed (sympy).
    pressure : sympy expression
        The outlet pressure the law reads (a chamber's pressure handle).
    nominal_speed : float
        ``n_nominal`` (rev/s), > 0.

    Raises
    ------
    ParameterError
        A nominal speed that is not a finite number > 0.

    Examples
    --------
    >>> pt = PumpTransformer("pump", FixedPump("100 cm^3/rev", "1500 rpm").law, sp.Symbol("p"), 25.0)
    >>> round(float(pt.displacement()) * 2 * math.pi * 1e6, 6)      # cm³/rev
    100.0
    """

    kind = "MTF"

    def __init__(self, name: str, law, pressure: Any, nominal_speed: float):
        super().__init__(name, 1.0)
        if not (isinstance(nominal_speed, (int, float)) and math.isfinite(nominal_speed) and nominal_speed > 0):
            raise ParameterError(f"pump transformer {name!r}: nominal_speed = {nominal_speed!r}, expected "
                                 "a finite speed > 0 (rev/s)")
        self.law, self.pressure, self.nominal_speed = law, pressure, float(nominal_speed)

    def displacement(self) -> sp.Expr:
        """``m = law(p)/(2π·n_nominal)`` (m³/rad).

        Returns
        -------
        sympy expression
        """
        return sp.sympify(self.law(self.pressure)) / (2 * math.pi * self.nominal_speed)

    def equations(self, ports, ctx):
        self.modulus = self.displacement()
        return super().equations(ports, ctx)


@dataclass(frozen=True)
class ReliefValve:
    """Pressure relief valve (``crack`` < ``full``, Pa; ``q_rated`` m³/s at ``full``).

    ``mode`` (optional): a discrete mode symbol (0 closed, 1 relieving) that gates the law.

    Parameters
    ----------
    crack, full : float or str
        Cracking and full-open pressures (Pa), ``full > crack``.
    q_rated : float or str
        Flow at ``full`` (m³/s).
    mode : sympy symbol, optional

    Raises
    ------
    ParameterError
        Bad values, or ``full ≤ crack``.

    Examples
    --------
    >>> rv = ReliefValve(crack="300 bar", full="310 bar", q_rated="200 L/min")
    >>> [round(float(rv.law(p)) * 6e4, 6) for p in (290e5, 300e5, 310e5)]     # L/min
    [0.0, 0.0, 200.0]
    >>> ReliefValve(crack="300 bar", full="290 bar", q_rated="200 L/min")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: relief valve: full = '290 bar' must exceed crack = '300 bar'
    """

    crack: Any
    full: Any
    q_rated: Any
    mode: Any = None

    def __post_init__(self):
        _check_fields(self, "relief valve", {"crack": "Pa", "full": "Pa", "q_rated": "m^3/s"})
        if not self.full_pressure > self.crack_pressure:
            raise ParameterError(f"relief valve: full = {self.full!r} must exceed crack = "
                                 f"{self.crack!r}")

    def law(self, p: sp.Expr, p_tank: float = 0.0) -> sp.Expr:
        """Relieved flow at the inlet pressure ``p`` into a tank at ``p_tank`` (m³/s).

        Parameters
        ----------
        p : number or sympy expression
        p_tank : float

        Returns
        -------
        sympy expression
        """
        pc = _pos(self.crack, "Pa", "crack")
        pf = _pos(self.full, "Pa", "full")
        q = _pos(self.q_rated, "m^3/s", "q_rated")
        if not pf > pc:
            raise ParameterError(f"relief valve: full = {self.full!r} must exceed crack = {self.crack!r}")
        opening = clip((p - pc) / (pf - pc), 0, 1)
        law = q * opening * signed_sqrt(p - p_tank, 1e4) / math.sqrt(pf - p_tank)
        return law if self.mode is None else self.mode * law

    @property
    def crack_pressure(self) -> float:
        """``crack`` in Pa."""
        return _pos(self.crack, "Pa", "crack")

    @property
    def full_pressure(self) -> float:
        """``full`` in Pa."""
        return _pos(self.full, "Pa", "full")


class Tank(BondGraph):
    """Reservoir at a fixed gauge pressure; ports are created with :meth:`port`.

    Parameters
    ----------
    name : str
    pressure : float or str
        Gauge pressure (Pa).

    Raises
    ------
    ParameterError
        A pressure that is not a finite number.

    Examples
    --------
    >>> tank = Tank("tank", "2 bar")
    >>> tank.port("drain"), tank.pressure
    ('drain', 200000.0)
    """

    def __init__(self, name: str, pressure: Any = 0.0):
        super().__init__(name)
        problems: list[str] = []
        self.pressure = si(pressure, "Pa", "tank pressure", problems, FINITE)
        raise_all(problems, f"tank {name!r}")
        self.add(Zero("node"), Se("p", self.pressure))
        self.connect("p", "node")

    def port(self, name: str) -> str:
        """Expose one more port named ``name`` on the tank node; returns it.

        Parameters
        ----------
        name : str

        Returns
        -------
        str

        Raises
        ------
        ModelStructureError
            The name is taken.
        """
        self.expose(name, "node")
        return name


class PowerUnit(BondGraph):
    """Pump (or ideal pressure source), outlet volume, relief valve and tank.

    Ports are made per consumer with :meth:`consumer`.

    Parameters
    ----------
    name : str
    oil : Oil
    pump : FixedPump or CompensatedPump, optional
        The source of flow; with it the outlet ``volume`` is a chamber whose
        pressure is a state (``<path>/C_P.e``).
    pressure : float or str, optional
        Instead of a pump: an ideal pressure-compensated supply (effort source).
    relief : ReliefValve, optional
        From the outlet to the tank (needs a pump).
    volume : float or str
        Pump outlet and line volume (m³).
    tank_pressure : float or str
    initial_pressure : float
        Initial outlet pressure (Pa).

    Raises
    ------
    ParameterError
        Both or neither of ``pump`` and ``pressure``, a relief valve without a pump, bad
        values (all listed).

    Examples
    --------
    Dead-ended, a 150 L/min pump blows off through the relief valve at the pressure
    where the valve passes the whole flow (found here by scipy's root finder):

    >>> from scipy.optimize import brentq
    >>> from bondgraph import BondGraph, build, simulate
    >>> relief = ReliefValve(crack="300 bar", full="310 bar", q_rated="200 L/min")
    >>> pump = FixedPump("100 cm^3/rev", "1500 rpm")
    >>> top = BondGraph("sys")
    >>> _ = top.add(PowerUnit("pu", oil=Oil(), pump=pump, relief=relief, volume="1 L"))
    >>> res = simulate(build(top), (0.0, 0.5), progress=False)
    >>> p_set = brentq(lambda p: float(relief.law(p)) - pump.flow, 300e5, 310e5, xtol=1e-6)
    >>> bool(abs(res["sys/pu/C_P.e"][-1] - p_set) < 10.0)        # Pa
    True
    """

    def __init__(self, name: str, *, oil: Oil, pump: FixedPump | CompensatedPump | None = None,
                 pressure: Any = None, relief: ReliefValve | None = None, volume: Any = "2 L",
                 tank_pressure: Any = 0.0, initial_pressure: float = 0.0):
        super().__init__(name)
        if (pump is None) == (pressure is None):
            raise ParameterError(f"power unit {name!r}: give exactly one of pump=... or "
                                 "pressure=... (an ideal pressure source)")
        if relief is not None and pump is None:
            raise ParameterError(f"power unit {name!r}: a relief valve needs a pump (an ideal "
                                 "pressure source never exceeds its setting)")
        self.oil, self.pump, self.relief = oil, pump, relief
        problems: list[str] = []
        self.tank_pressure = si(tank_pressure, "Pa", "tank_pressure", problems, FINITE)
        if pump is None:
            self.supply_pressure = si(pressure, "Pa", "pressure", problems, POSITIVE)
        else:
            V = si(volume, "m^3", "volume", problems, POSITIVE)
            si(initial_pressure, "Pa", "initial_pressure", problems, FINITE)
        if not isinstance(oil, Oil):
            problems.append(f"'oil': found {oil!r}, expected an Oil")
        for what, obj, kinds in (("pump", pump, "FixedPump, CompensatedPump"),
                                 ("relief", relief, "ReliefValve")):
            if obj is not None and not callable(getattr(obj, "law", None)):
                problems.append(f"{what!r}: found {obj!r}, expected a {what} with a law(p) "
                                f"method ({kinds}...)")
        raise_all(problems, f"power unit {name!r}")
        self.add(Zero("nP"), Zero("nT"), Se("tank", self.tank_pressure))
        self.connect("tank", "nT")
        if pump is None:
            self.add(Se("source", self.supply_pressure))
            self.connect("source", "nP")
        else:
            self.add(SensedCapacitance("C_P", V, oil, initial=initial_pressure),
                     PumpSource("pump", pump.law))
            self.connect("nP", "C_P")
            self.connect("pump", "nP")
            if relief is not None:
                pt = self.tank_pressure
                law = Law(lambda p: relief.law(p, pt),
                          not_invertible="a relief valve passes no flow below its cracking "
                                         "pressure, so its pressure is not a function of its flow")
                self.add(R("relief", flow=law))
                self.connect("nP", "relief")
        self._consumers: list[str] = []

    def consumer(self, name: str) -> tuple[str, str]:
        """Expose ports ``P.<name>`` and ``T.<name>`` for one valve; returns their names.

        Parameters
        ----------
        name : str

        Returns
        -------
        (str, str)

        Raises
        ------
        ParameterError
            The consumer was added before.

        Examples
        --------
        >>> pu = PowerUnit("pu", oil=Oil(), pressure="200 bar")
        >>> pu.consumer("arm")
        ('P.arm', 'T.arm')
        >>> pu.consumer("arm")
        Traceback (most recent call last):
        ...
        bondgraph.errors.ParameterError: power unit 'pu': consumer 'arm' added twice
        """
        if name in self._consumers:
            raise ParameterError(f"power unit {self.name!r}: consumer {name!r} added twice")
        self._consumers.append(name)
        self.expose(f"P.{name}", "nP")
        self.expose(f"T.{name}", "nT")
        return f"P.{name}", f"T.{name}"

    def drive_from_shaft(self, port: str = "shaft", scale: float = 1.0) -> str:
        """Drive the pump from a shaft instead of at its constant speed: its flow source
        becomes a :class:`PumpTransformer` (port ``1`` exposed as ``port``, to be bonded
        *from* the shaft), whose flow is the pump's law scaled by shaft speed over the
        pump's nominal speed. Returns the port name.

        Parameters
        ----------
        port : str
        scale : float
            Displacement of the driven pump over the pump's own (a machine resized to its
            engine), > 0.

        Returns
        -------
        str

        Raises
        ------
        ParameterError
            An ideal pressure source (no pump), a pump without a nominal ``speed``, or a
            pump already driven.

        Examples
        --------
        >>> pu = PowerUnit("pu", oil=Oil(), pump=FixedPump("100 cm^3/rev", "1500 rpm"))
        >>> pu.drive_from_shaft(), pu.children["pump"].kind
        ('shaft', 'MTF')
        """
        if self.pump is None:
            raise ParameterError(f"power unit {self.name!r}: an ideal pressure source has no pump to "
                                 "drive from a shaft")
        source = self.children.get("pump")
        if not isinstance(source, PumpSource):
            raise ParameterError(f"power unit {self.name!r}: the pump is driven from a shaft already")
        speed = getattr(self.pump, "speed", None)
        problems: list[str] = []
        n = si(speed, "rev/s", "pump speed", problems, POSITIVE)
        raise_all(problems, f"power unit {self.name!r}")
        if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
            raise ParameterError(f"power unit {self.name!r}: scale = {scale!r}, expected a finite number > 0")
        pt = PumpTransformer("pump", source.law, self.outlet_pressure, n / scale)
        self.shaft_displacement = scale * si(getattr(self.pump, "displacement", None) or 0.0, "m^3/rev",
                                             "pump displacement", [], FINITE)
        self.children["pump"] = pt
        for b in self.bonds:
            if b.tail == "pump":
                b.tail = "pump/2"
        self.expose(port, "pump/1")
        self.shaft_port = port
        return port

    @property
    def pressure_state(self) -> str | None:
        """Local name of the outlet-pressure state (``None`` for an ideal source).

        Examples
        --------
        >>> PowerUnit("pu", oil=Oil(), pressure="200 bar").pressure_state is None
        True
        """
        return "C_P.e" if self.pump is not None else None

    @property
    def outlet_pressure(self) -> sp.Expr:
        """The outlet pressure as a signal other laws may read: the handle of the
        outlet chamber's pressure, or the ideal source's pressure."""
        if self.pump is None:
            return sp.Float(self.supply_pressure)
        return self.children["C_P"].pressure
