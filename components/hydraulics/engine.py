"""Diesel engine driving the pumps: governor droop, full-load torque curve, Willans fuel line.

:class:`DieselEngine` holds the data; :class:`EngineShaft` is its bond graph: a
shaft 1-junction (speed ``ω``, rad/s) carrying

* the rotating inertia ``J`` of the engine, flywheel and pumps (an ``I``: the
  shaft speed is its state, offered to other laws as :attr:`EngineShaft.speed`);
* the engine's *indicated* torque, an effort source ``T_i = T_b + T_f``;
* the engine's friction ``T_f`` (an ``R``: ``T_f·tanh(ω/1 rad/s)``), so the
  torque left at the flywheel is the brake torque ``T_b``;
* one port per pump (:meth:`EngineShaft.drive`): each pump is a transformer from
  the shaft speed to its flow, so its torque ``D·Δp/(2π)`` loads the shaft.

The brake torque is the governor's droop line, limited by the full-load curve:

``T_droop(ω) = T_rated·(ω_hi − ω)/(ω_hi − ω_rated)``  (zero at high idle, rated torque at rated speed)

``T_b(ω) = smin(T_droop(ω), T_full(ω))``, ``smin(a, b) = (a + b − √((a − b)² + ε²))/2``

with ``T_full`` the published full-load curve interpolated linearly and
``ε`` = 1 % of the rated torque (the smooth minimum lets the solver step across the
knee; it lies at most ``ε/2`` below the sharper of the two). A load above the curve
cannot be held at the governed speed: the engine *lugs* down the curve to where the
curve meets the load, or stalls when the load exceeds the whole curve.

Fuel (Willans line; Heywood, *Internal Combustion Engine Fundamentals*, McGraw-Hill
1988, sections 2.4–2.7 and 13.1): the fuel power is the indicated power over the
indicated fuel-conversion efficiency, ``P_fuel = T_i·ω/η_i`` — so at constant speed
fuel power is a straight line in brake power whose intercept is the friction power
``T_f·ω/η_i``. The friction torque is ``T_f = fmep·V_d/(4π)`` (four-stroke). The fuel
mass rate is ``P_fuel/LHV`` and its volume rate ``P_fuel/(LHV·ρ)``; diesel: ``LHV``
42.8 MJ/kg, ``ρ`` 0.835 kg/L (EN 590 allows 0.820–0.845 kg/L).

Examples
--------
>>> e = DieselEngine(rated_power="110 kW", rated_speed="2000 rpm", high_idle="2150 rpm",
...                  torque_curve=[["1000 rpm", "520 N*m"], ["1500 rpm", "650 N*m"],
...                                ["2000 rpm", "525 N*m"]])
>>> round(e.rated_torque, 1), round(float(e.full_load_value(1250 * math.pi / 30)), 1)      # N·m
(525.2, 585.0)
>>> round(e.friction_torque, 1)                                   # fmep·V_d/(4π), N·m
85.2
>>> round(e.bsfc(e.rated_torque, e.rated_omega) * 3.6e9, 1)      # g/kWh at rated power
217.2
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import sympy as sp

from bondgraph import MSe, One, R
from bondgraph import BondGraph, I
from bondgraph.errors import ParameterError

from ._expr import maximum
from ._values import POSITIVE, raise_all, si
from .supply import speed_problem

__all__ = ["DieselEngine", "EngineShaft", "SensedInertia", "smooth_min"]


def smooth_min(a: Any, b: Any, eps: float) -> sp.Expr:
    """``(a + b − √((a − b)² + ε²))/2``: below ``min(a, b)`` by at most ``ε/2``, smooth.

    Parameters
    ----------
    a, b : number or sympy expression
    eps : float
        Rounding width (same unit as ``a`` and ``b``), > 0.

    Returns
    -------
    sympy expression

    Examples
    --------
    >>> float(smooth_min(3.0, 10.0, 0.1)), float(smooth_min(5.0, 5.0, 0.1))
    (2.99964..., 4.95)
    """
    a, b = sp.sympify(a), sp.sympify(b)
    return (a + b - sp.sqrt((a - b) ** 2 + eps ** 2)) / 2


@dataclass(frozen=True)
class DieselEngine:
    """A diesel engine's data: rating, governor, full-load torque curve, friction and fuel.

    Values in SI or with units; speeds must say whether they count revolutions or radians.

    Parameters
    ----------
    rated_power : float or str
        Brake power at rated speed (W), the data sheet's net power.
    rated_speed : float or str
        Rated speed (rev/s, or ``"2000 rpm"``).
    high_idle : float or str
        No-load governed speed, above ``rated_speed``: the droop line runs from zero torque
        there to the rated torque at rated speed.
    torque_curve : sequence of (speed, torque)
        Full-load brake torque at rising speeds (N·m), at least two points; it must reach
        the rated speed, and there carry at least the rated torque (within 2 %).
    inertia : float or str
        Rotating inertia of engine, flywheel and pumps (kg·m²).
    displacement : float or str
        Swept volume ``V_d`` (m³, or ``"6.69 L"``).
    fmep : float or str
        Friction mean effective pressure (Pa): ``T_f = fmep·V_d/(4π)``.
    indicated_efficiency : float
        Indicated fuel-conversion efficiency ``η_i`` (0 < · < 1), the Willans slope.
    fuel_lhv : float or str
        Lower heating value of the fuel (J/kg).
    fuel_density : float or str
        Density of the fuel (kg/m³).

    Raises
    ------
    ParameterError
        Every bad value at once: non-positive values, an ambiguous speed, a high idle not
        above rated speed, a torque curve not rising in speed or not reaching rated speed.

    Examples
    --------
    >>> DieselEngine(rated_power="110 kW", rated_speed="2000 rpm", high_idle="1900 rpm",
    ...              torque_curve=[["1500 rpm", "650 N*m"], ["1800 rpm", "600 N*m"]],
    ...              indicated_efficiency=1.2)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: diesel engine: 3 problems
      - 'high_idle': found '1900 rpm', expected above rated_speed ('2000 rpm'): the governor's droop line runs from high idle (no load) down to rated speed (rated torque)
      - 'torque_curve': its last speed (1800 rpm) is below rated_speed (2000 rpm): the curve must cover the rated point
      - 'indicated_efficiency': found 1.2, expected a fraction, 0 < η_i < 1
    """

    rated_power: Any
    rated_speed: Any
    high_idle: Any
    torque_curve: Sequence[Sequence[Any]]
    inertia: Any = "1.5 kg*m^2"
    displacement: Any = "6.69 L"
    fmep: Any = "1.6 bar"
    indicated_efficiency: float = 0.45
    fuel_lhv: Any = "42.8 MJ/kg"
    fuel_density: Any = "835 kg/m^3"
    #: the curve in SI: (ω rad/s, T N·m) arrays, filled at construction
    _curve: tuple = field(default=(), repr=False, compare=False)

    def __post_init__(self):
        problems: list[str] = []
        raw = {}
        for name, unit in (("rated_power", "W"), ("rated_speed", "rev/s"), ("high_idle", "rev/s"),
                           ("inertia", "kg*m^2"), ("displacement", "m^3"), ("fmep", "Pa"),
                           ("fuel_lhv", "J/kg"), ("fuel_density", "kg/m^3")):
            value = getattr(self, name)
            if unit == "rev/s":
                bad = speed_problem(value, name)
                if bad:
                    problems.append(bad)
                    raw[name] = math.nan
                    continue
            raw[name] = si(value, unit, name, problems, POSITIVE, plausible=False)
        if (math.isfinite(raw["rated_speed"]) and math.isfinite(raw["high_idle"])
                and not raw["high_idle"] > raw["rated_speed"]):
            problems.append(f"'high_idle': found {self.high_idle!r}, expected above rated_speed "
                            f"({self.rated_speed!r}): the governor's droop line runs from high idle "
                            "(no load) down to rated speed (rated torque)")
        curve = self._read_curve(problems)
        if curve is not None and math.isfinite(raw["rated_speed"]) and math.isfinite(raw["rated_power"]):
            w, T = curve
            wr = 2 * math.pi * raw["rated_speed"]
            if w[-1] < wr * (1 - 1e-9):
                problems.append(f"'torque_curve': its last speed ({w[-1] * 30 / math.pi:g} rpm) is below "
                                f"rated_speed ({wr * 30 / math.pi:g} rpm): the curve must cover the rated "
                                "point")
            elif w[0] > wr:
                problems.append(f"'torque_curve': its first speed ({w[0] * 30 / math.pi:g} rpm) is above "
                                "rated_speed: the curve must cover the rated point")
            else:
                Tr = raw["rated_power"] / wr
                Tc = float(np.interp(wr, w, T))
                if Tc < 0.98 * Tr:
                    problems.append(f"'torque_curve': {Tc:.0f} N·m at rated speed, expected at least the "
                                    f"rated torque rated_power/rated_speed = {Tr:.0f} N·m")
        eta = self.indicated_efficiency
        if not (isinstance(eta, (int, float)) and not isinstance(eta, bool) and math.isfinite(eta)
                and 0 < eta < 1):
            problems.append(f"'indicated_efficiency': found {eta!r}, expected a fraction, 0 < η_i < 1")
        raise_all(problems, "diesel engine")
        for name, v in raw.items():
            object.__setattr__(self, name, v)
        object.__setattr__(self, "_curve", curve)

    def _read_curve(self, problems: list[str]):
        tc = self.torque_curve
        if isinstance(tc, (str, bytes)) or not hasattr(tc, "__len__") or len(tc) < 2:
            problems.append(f"'torque_curve': found {tc!r}, expected at least two [speed, torque] pairs")
            return None
        w, T, n0 = [], [], len(problems)
        for k, pair in enumerate(tc):
            if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
                problems.append(f"'torque_curve[{k}]': found {pair!r}, expected a [speed, torque] pair")
                continue
            bad = speed_problem(pair[0], f"torque_curve[{k}] speed")
            if bad:
                problems.append(bad)
                continue
            w.append(2 * math.pi * si(pair[0], "rev/s", f"torque_curve[{k}] speed", problems, POSITIVE,
                                      plausible=False))
            T.append(si(pair[1], "N*m", f"torque_curve[{k}] torque", problems, POSITIVE, plausible=False))
        if len(problems) > n0:
            return None
        if any(b <= a for a, b in zip(w, w[1:])):
            problems.append("'torque_curve': the speeds must rise strictly from one point to the next")
            return None
        return np.array(w), np.array(T)

    # ------------------------------------------------------------------ figures
    @property
    def rated_omega(self) -> float:
        """Rated speed in rad/s."""
        return 2 * math.pi * self.rated_speed

    @property
    def high_idle_omega(self) -> float:
        """High idle in rad/s."""
        return 2 * math.pi * self.high_idle

    @property
    def rated_torque(self) -> float:
        """``rated_power/ω_rated`` (N·m)."""
        return self.rated_power / self.rated_omega

    @property
    def friction_torque(self) -> float:
        """``T_f = fmep·V_d/(4π)`` (N·m)."""
        return self.fmep * self.displacement / (4 * math.pi)

    @property
    def curve(self) -> tuple[np.ndarray, np.ndarray]:
        """The full-load curve as ``(ω rad/s, T N·m)`` arrays."""
        return self._curve

    @property
    def eps(self) -> float:
        """Rounding width of the smooth minimum (N·m): 1 % of the rated torque."""
        return 0.01 * self.rated_torque

    def full_load_value(self, omega: Any) -> Any:
        """The full-load torque at ``omega`` (rad/s; numbers), linear between the table's
        points and constant beyond its ends.

        Parameters
        ----------
        omega : float or array

        Returns
        -------
        float or array
        """
        w, T = self._curve
        return np.interp(omega, w, T)

    def full_load_torque(self, omega: Any) -> sp.Expr:
        """:meth:`full_load_value` as a sympy expression of ``omega``.

        Parameters
        ----------
        omega : sympy expression

        Returns
        -------
        sympy expression
        """
        w, T = self._curve
        omega = sp.sympify(omega)
        pieces = [(float(T[0]), omega <= float(w[0]))]
        for (w0, T0), (w1, T1) in zip(zip(w, T), zip(w[1:], T[1:])):
            slope = (T1 - T0) / (w1 - w0)
            pieces.append((float(T0) + float(slope) * (omega - float(w0)), omega <= float(w1)))
        pieces.append((float(T[-1]), True))
        return sp.Piecewise(*pieces)

    def droop_torque(self, omega: Any) -> Any:
        """The governor's droop line ``T_rated·(ω_hi − ω)/(ω_hi − ω_rated)`` (N·m).

        Parameters
        ----------
        omega : number, array or sympy expression

        Returns
        -------
        same kind as ``omega``
        """
        return self.rated_torque * (self.high_idle_omega - omega) / (self.high_idle_omega - self.rated_omega)

    def brake_torque(self, omega: Any) -> sp.Expr:
        """Brake torque at the flywheel: the droop line limited by the full-load curve
        (smooth minimum), as a sympy expression of ``omega`` (rad/s).

        Parameters
        ----------
        omega : sympy expression

        Returns
        -------
        sympy expression
        """
        return smooth_min(self.droop_torque(omega), self.full_load_torque(omega), self.eps)

    def indicated_torque(self, omega: Any) -> sp.Expr:
        """``max(T_b + T_f, 0)``: the torque the cylinders give (no negative fuel).

        Parameters
        ----------
        omega : sympy expression

        Returns
        -------
        sympy expression
        """
        b = self.brake_torque(omega) + self.friction_torque
        if not isinstance(omega, sp.Symbol):
            return maximum(b, 0)
        # The Piecewise of maximum(b, 0), made directly with the condition b ≥ 0 as it is: sympy's
        # constructor rewrites a condition that holds Piecewise (the torque curve) by solving its
        # inequality in the speed, 0.3 s of every build of an engine, for an equivalent condition
        # (tests/engine/test_engine_build.py: the values are the hand max and those of maximum()).
        from sympy.functions.elementary.piecewise import ExprCondPair

        return sp.Basic.__new__(sp.Piecewise, sp.Basic.__new__(ExprCondPair, b, sp.GreaterThan(b, 0, evaluate=False)),
                                sp.Basic.__new__(ExprCondPair, sp.Integer(0), sp.true))

    def friction_law(self, omega: Any) -> sp.Expr:
        """Friction torque on the shaft, ``T_f·tanh(ω/(1 rad/s))`` (N·m).

        Parameters
        ----------
        omega : sympy expression

        Returns
        -------
        sympy expression
        """
        return self.friction_torque * sp.tanh(omega)

    def fuel_power(self, indicated_torque: Any, omega: Any) -> Any:
        """Willans line: ``P_fuel = T_i·ω/η_i`` (W; numbers or arrays).

        Parameters
        ----------
        indicated_torque, omega : float or array

        Returns
        -------
        float or array
        """
        return np.maximum(np.asarray(indicated_torque) * np.asarray(omega), 0.0) / self.indicated_efficiency

    def fuel_rate(self, indicated_torque: Any, omega: Any) -> Any:
        """Fuel volume rate (m³/s) at an indicated torque and speed.

        Parameters
        ----------
        indicated_torque, omega : float or array

        Returns
        -------
        float or array
        """
        return self.fuel_power(indicated_torque, omega) / (self.fuel_lhv * self.fuel_density)

    def bsfc(self, brake_torque: float, omega: float) -> float:
        """Brake-specific fuel consumption (kg/J) at a brake torque and speed.

        Parameters
        ----------
        brake_torque, omega : float

        Returns
        -------
        float
        """
        p_fuel = self.fuel_power(brake_torque + self.friction_torque, omega)
        return float(p_fuel / self.fuel_lhv / (brake_torque * omega))

    def governed_speed(self, load_torque: float = 0.0) -> float:
        """The speed (rad/s) at which the droop line gives ``load_torque`` (no curve limit):
        the start speed of a shaft loaded by a steady torque within the curve.

        Parameters
        ----------
        load_torque : float

        Returns
        -------
        float
        """
        return self.high_idle_omega - load_torque / self.rated_torque * (self.high_idle_omega - self.rated_omega)


class SensedInertia(I):
    """An inertia whose flow state (a speed) other laws may read (:attr:`speed`).

    Parameters are those of :class:`bondgraph.I` (linear, flow state).

    Examples
    --------
    >>> list(SensedInertia("J", 1.5).handles().values())
    ['f']
    """

    def __init__(self, name: str, m: Any, *, initial: float = 0.0):
        super().__init__(name, m, initial=initial)
        self._speed = sp.Dummy(f"{name}.f", real=True)

    @property
    def speed(self) -> sp.Symbol:
        """Handle of the flow state (rad/s for a shaft)."""
        return self._speed

    def handles(self) -> dict[sp.Symbol, str]:
        """The speed handle, keyed to the state ``f``.

        Returns
        -------
        dict
        """
        return {self._speed: "f"}


class EngineShaft(BondGraph):
    """The engine's shaft: inertia, indicated torque source, friction, and pump ports.

    States: ``<path>/J.f`` (shaft speed, rad/s). Elements: ``engine`` (the indicated
    torque, an MSe), ``friction`` (R), ``J`` (I), ``shaft`` (the 1-junction). A pump is
    bonded *from* a port made by :meth:`drive` into the pump's transformer.

    Parameters
    ----------
    name : str
    engine : DieselEngine
    initial_speed : float, optional
        Start speed (rad/s); default high idle.

    Raises
    ------
    ParameterError
        Not a :class:`DieselEngine`, a start speed that is not a finite number ≥ 0.

    Examples
    --------
    Unloaded, the engine settles where its droop line balances its own friction,
    just below high idle (the friction is carried by the indicated torque):

    >>> from bondgraph import build, simulate
    >>> e = DieselEngine(rated_power="110 kW", rated_speed="2000 rpm", high_idle="2150 rpm",
    ...                  torque_curve=[["1000 rpm", "520 N*m"], ["2000 rpm", "560 N*m"]])
    >>> top = BondGraph("rig")
    >>> _ = top.add(EngineShaft("eng", e, initial_speed=2000 * math.pi / 30))
    >>> res = simulate(build(top), (0.0, 3.0), progress=False)
    >>> round(float(res["rig/eng/J.f"][-1]) * 30 / math.pi, 1)     # rpm
    2150.0
    """

    def __init__(self, name: str, engine: DieselEngine, *, initial_speed: float | None = None):
        super().__init__(name)
        if not isinstance(engine, DieselEngine):
            raise ParameterError(f"engine shaft {name!r}: engine = {type(engine).__name__} {engine!r}, "
                                 "expected a DieselEngine")
        w0 = engine.high_idle_omega if initial_speed is None else initial_speed
        if not (isinstance(w0, (int, float)) and math.isfinite(w0) and w0 >= 0):
            raise ParameterError(f"engine shaft {name!r}: initial_speed = {initial_speed!r}, expected a "
                                 "finite speed ≥ 0 (rad/s)")
        self.engine = engine
        J = SensedInertia("J", engine.inertia, initial=float(w0))
        self._J = J
        self.add(One("shaft"), J, MSe("engine", engine.indicated_torque(J.speed)),
                 R("friction", effort=engine.friction_law))
        self.connect("engine", "shaft")
        self.connect("shaft", "J")
        self.connect("shaft", "friction")
        self._drives: list[str] = []

    @property
    def speed(self) -> sp.Symbol:
        """Handle of the shaft speed (rad/s)."""
        return self._J.speed

    @property
    def speed_state(self) -> str:
        """Local name of the speed state (``"J.f"``)."""
        return "J.f"

    def drive(self, name: str) -> str:
        """Expose one more port ``name`` on the shaft for a pump; returns it.

        Parameters
        ----------
        name : str

        Returns
        -------
        str

        Raises
        ------
        ParameterError
            The name is taken.

        Examples
        --------
        >>> e = DieselEngine(rated_power="110 kW", rated_speed="2000 rpm", high_idle="2150 rpm",
        ...                  torque_curve=[["1000 rpm", "520 N*m"], ["2000 rpm", "560 N*m"]])
        >>> EngineShaft("eng", e).drive("pump1")
        'pump1'
        """
        if name in self._drives:
            raise ParameterError(f"engine shaft {self.name!r}: drive {name!r} added twice")
        self._drives.append(name)
        self.expose(name, "shaft")
        return name
