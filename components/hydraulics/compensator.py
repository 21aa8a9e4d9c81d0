"""Pressure-compensated proportional valves: pre-compensator (classic LS) and post-compensator (LUDV).

A :class:`CompensatedValve` is a closed-centre 4/3 :class:`DirectionalValve`
with, per section, one pressure compensator in the meter-in path, an LS
gallery, and a load-holding check (no flow back from a work port to ``P``).
The compensator is a throttle in series with the meter-in edge; its pressure
drop is ``y = max(u, 0)``, the drop its spool regulates to:

* ``"pre"`` (classic load sensing, compensator upstream of the spool):
  ``u = p_P − p_load − Δp_c``, so the meter-in edge sees
  ``Δp_c`` whatever the load: ``Q = Q_N·x·√(Δp_c/Δp_N)``. When the pump
  saturates, the section with the highest load loses its flow first;
* ``"post"`` (LUDV / flow sharing, compensator downstream of the spool):
  ``u = p_LS + Δp_s − p_load``, so every meter-in edge sees the same
  ``p_P − p_LS − Δp_s`` and the flows stay in the ratio of the openings even
  when the pump saturates.

The meter-in edges ``P→A`` and ``P→B`` meter the remaining drop:
``Q = Q_N·x·√(max(Δp − y, 0)/Δp_N)`` (the nominal-flow orifice law, laminar
near zero). ``y ≥ 0`` always, and flow goes only ``P → work port``: the edge
dissipates ``Q·Δp ≥ 0`` — ``Q·(Δp − y)`` in the spool, ``Q·y`` in the
compensator. ``y = 0`` is the compensator fully open (at its stop): a kink of
the law, not an event.

The compensator is quasi-static by default (its spool is much faster than
the circuit). Because it reads the load through the LS gallery's lag while
the edge sees the work-port pressure itself, a fast load-pressure swing still
meets an orifice-like flow–pressure slope: damping. A compensator *lag*
(``time_constant``: ``y`` a :class:`Lag` state following ``max(u, 0)``) is
available, but it feeds the classic compensator instability: on an
excavator-sized rig (2 t on a 135 mm bore, 716 L/min pump) a 5 ms lag makes
a pre-compensated section limit-cycle at about 6 Hz with ±55 % of its flow,
1 ms still ±1.5 %, where the quasi-static model settles (±0.1 %).

The section's load pressure ``p_load`` is the pressure of its LS gallery
(:class:`LSPort`), reached through damping orifices from the tank, work port
``A`` and work port ``B`` (:func:`ls_openings`): from the centre, the tank drain
closes over the first half of ``ls_opening`` of spool travel and the opened work
port's sense opens over the second half — never both at once, so the sensing
network never drains a load to tank and a command towards a load never lowers
it. In a steady state the gallery reads the pressure of the work port the spool
opens, and the tank pressure when centred.

Examples
--------
>>> from bondgraph import Input
>>> from components.hydraulics import Oil
>>> v = CompensatedValve("valve", q_nominal="60 L/min", dp_nominal="10 bar",
...                      command=Input("cmd"), compensator=Compensator("pre", setting="12 bar"),
...                      oil=Oil())
>>> sorted(v.ports), v.compensator.kind, round(v.compensator.setting / 1e5, 3)
(['A', 'B', 'P', 'T'], 'pre', 12.0)
>>> round(v.compensated_flow(1.0, 12e5) * 6e4, 3)      # Q_N·√(Δp_c/Δp_N), L/min
65.727
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sympy as sp

from bondgraph import Law
from bondgraph.errors import ParameterError
from bondgraph.units import to_si

from ._expr import ramp
from .lag import Lag
from .oil import Oil
from .orifice import nominal_flow
from .pressure_tap import LSPort
from .valves import DirectionalValve

__all__ = ["Compensator", "CompensatedValve", "ls_weight", "ls_openings", "check_sqrt"]

_KINDS = ("pre", "post")


@dataclass(frozen=True)
class Compensator:
    """A section's pressure compensator.

    Parameters
    ----------
    kind : {"pre", "post"}
        Upstream of the spool (classic LS) or downstream (LUDV, flow sharing).
    setting : float or str
        ``"pre"``: the metering drop ``Δp_c`` it holds (Pa), below the pump
        margin. ``"post"``: its spring offset ``Δp_s`` (Pa, ≥ 0, default 0): every
        metering edge sees ``p_P − p_LS − Δp_s``.
    time_constant : float or str, optional
        Lag ``τ_c`` of the compensator spool (s); ``None`` (default): quasi-static.

    Raises
    ------
    ParameterError
        Another kind, a pre-compensator without setting, bad values (all listed).

    Examples
    --------
    A pre-compensator holding 12 bar, 150 bar of supply and 100 bar of load, throttles
    the rest: ``y = 150 − 100 − 12 = 38`` bar; a post-compensator throttles up to the
    highest load (LS 120 bar):

    >>> pre, post = Compensator("pre", setting="12 bar"), Compensator("post")
    >>> float(pre.target(150e5, 120e5, 100e5)) / 1e5, float(post.target(150e5, 120e5, 100e5)) / 1e5
    (38.0, 20.0)
    >>> Compensator("middle")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: pressure compensator: 1 problem
      - 'kind': found 'middle', expected 'pre' (classic LS) or 'post' (LUDV, flow sharing)
    """

    kind: str
    setting: Any = None
    time_constant: Any = None

    def __post_init__(self):
        problems: list[str] = []
        if self.kind not in _KINDS:
            problems.append(f"'kind': found {self.kind!r}, expected 'pre' (classic LS) or "
                            "'post' (LUDV, flow sharing)")
        setting = self.setting
        if setting is None:
            setting = 0.0
            if self.kind == "pre":
                problems.append("'setting': missing (a pre-compensator needs the metering drop "
                                "Δp_c it holds, e.g. \"12 bar\")")
        else:
            try:
                setting = to_si(setting, "Pa", bare_si=True, name="setting")
                if not (math.isfinite(setting) and (setting > 0 or self.kind != "pre" and setting == 0)):
                    problems.append(f"'setting': found {self.setting!r}, expected a pressure "
                                    f"{'>' if self.kind == 'pre' else '≥'} 0 (Pa)")
            except ParameterError as exc:
                problems += exc.problems
        tau = None
        if self.time_constant is not None:
            try:
                tau = to_si(self.time_constant, "s", bare_si=True, name="time_constant")
                if not (math.isfinite(tau) and tau > 0):
                    problems.append(f"'time_constant': found {self.time_constant!r}, expected > 0 s "
                                    "(or None: quasi-static)")
            except ParameterError as exc:
                problems += exc.problems
        if problems:
            raise ParameterError(problems, subject="pressure compensator")
        object.__setattr__(self, "setting", setting)
        object.__setattr__(self, "time_constant", tau)

    def argument(self, p_supply: Any, p_ls: Any, p_load: Any) -> sp.Expr:
        """``u`` with ``y* = max(u, 0)``: ``p_P − p_load − Δp_c`` (pre), ``p_LS + Δp_s − p_load`` (post).

        Parameters
        ----------
        p_supply, p_ls, p_load : number or sympy expression
            Pump, LS and section load pressures (Pa).

        Returns
        -------
        sympy expression or float
        """
        if self.kind == "pre":
            return p_supply - p_load - self.setting
        return p_ls + self.setting - p_load

    def target(self, p_supply: Any, p_ls: Any, p_load: Any) -> sp.Expr:
        """Throttling drop ``y*`` the compensator regulates to (Pa, ≥ 0).

        Parameters
        ----------
        p_supply, p_ls, p_load : number or sympy expression

        Returns
        -------
        sympy expression
        """
        return ramp(self.argument(p_supply, p_ls, p_load))


def _what(obj: Any) -> str:
    """``TypeName 'name'`` for a part, ``repr`` for anything else (for messages)."""
    name = getattr(obj, "name", None)
    return f"{type(obj).__name__} {name!r}" if isinstance(name, str) else repr(obj)


_CHECKED_EDGE = ("a compensated metering edge passes no flow against its check (Δp ≤ 0), so "
                 "its pressure drop is not a function of its flow")


def check_sqrt(dp: Any, p_tr: float) -> sp.Expr:
    """``√Δp`` for ``Δp ≥ p_tr``, 0 for ``Δp ≤ 0``: a metering orifice behind a check valve.

    Between, the odd cubic of :func:`~components.hydraulics.signed_sqrt` (laminar
    flow, matching the square root's value and slope at ``p_tr``).

    Parameters
    ----------
    dp : number or sympy expression
    p_tr : float

    Returns
    -------
    sympy.Piecewise

    Examples
    --------
    >>> [float(check_sqrt(v, 4.0)) for v in (-9.0, 0.0, 4.0, 16.0)]
    [0.0, 0.0, 2.0, 4.0]
    """
    dp = sp.sympify(dp)
    u = dp / p_tr
    return sp.Piecewise((sp.sqrt(dp), dp >= p_tr), (0, dp <= 0),
                        (sp.sqrt(p_tr) * (5 * u - u**3) / 4, True))


def ls_openings(x: Any, opening: float) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """The LS port's openings to work port A, work port B and the tank at spool position
    ``x``: the tank drain closes over the first half of ``opening`` and the work port's
    sense opens over the second half (a positive overlap: never both open), so the LS
    network never drains a load to tank — a command towards a load never lowers it, and
    between the two the gallery holds its pressure.

    Examples
    --------
    >>> X = sp.Symbol("x")
    >>> [[float(w.subs(X, v)) for w in ls_openings(X, 0.04)] for v in (0.0, 0.01, 0.02, 0.03, 0.04)]
    [[0.0, 0.0, 1.0], [0.0, 0.0, 0.5], [0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    half = opening / 2
    x = sp.sympify(x)
    return (ls_weight(x - half, half), ls_weight(-x - half, half),
            1 - ls_weight(x, half) - ls_weight(-x, half))


def ls_weight(x: Any, opening: float) -> sp.Expr:
    """C¹ step: 0 for ``x ≤ 0``, ``3s² − 2s³`` (``s = x/opening``), 1 for ``x ≥ opening``.

    Parameters
    ----------
    x : number or sympy expression
    opening : float

    Returns
    -------
    sympy.Piecewise

    Examples
    --------
    >>> [float(ls_weight(x, 0.05)) for x in (-0.1, 0.025, 0.05, 0.3)]
    [0.0, 0.5, 1.0, 1.0]
    """
    x = sp.sympify(x)
    s = x / opening
    return sp.Piecewise((0, x <= 0), (1, x >= opening), (3 * s**2 - 2 * s**3, True))


class CompensatedValve(DirectionalValve):
    """Pressure-compensated closed-centre 4/3 valve section with its LS gallery.

    Ports ``P``, ``T``, ``A``, ``B`` as for the directional valve. A valve
    section reads the pump pressure and the LS pressure of its circuit:
    add it with :meth:`LSCircuit.add_drive` (or :meth:`attach`).

    Parameters
    ----------
    name : str
    q_nominal, dp_nominal, command, spool, leakage, p_tr, makeup, makeup_crack
        As for :class:`DirectionalValve`.
    compensator : Compensator
    oil : Oil
        For the LS gallery volume.
    tap_volume, tap_time_constant : float or str
        The LS gallery and its damping orifices (:class:`LSPort`).
    ls_opening : float
        Spool travel (fraction of full, 0 < · ≤ 1) over which the LS port
        switches from tank to the opened work port (the drain closes over its
        first half, the sense opens over its second half).

    Raises
    ------
    ParameterError
        No :class:`Compensator` or :class:`Oil`, a bad ``ls_opening`` (all listed); and
        those of :class:`DirectionalValve`.

    Examples
    --------
    Pre-compensated, two sections at the same opening lift 20 kN and 80 kN at the same
    flow — the one the orifice law gives at the compensator's 12 bar:

    >>> from bondgraph import simulate
    >>> from components.hydraulics.ls_rigs import load_rig
    >>> rig = load_rig({"light": 20e3, "heavy": 80e3}, commands={"light": 0.5, "heavy": 0.5},
    ...                compensation="pre")
    >>> res = simulate(rig.model, (0.0, 1.0), x0=rig.x0, method="CVODE", progress=False)
    >>> q_ref = rig.circuit.sections["light"].compensated_flow(0.5, 12e5)
    >>> [bool(abs(res[rig.velocity(f)][-1] * rig.area[f] / q_ref - 1) < 1e-4)
    ...  for f in ("light", "heavy")]
    [True, True]
    """

    def __init__(self, name: str, *, q_nominal: Any, dp_nominal: Any, command: Any,
                 compensator: Compensator, oil: Oil, spool=None, leakage: float = 0.0,
                 p_tr: Any = 1e5, makeup: Any = None, makeup_crack: Any = 0.3e5,
                 tap_volume: Any = "5 cm^3", tap_time_constant: Any = "2 ms",
                 ls_opening: float = 0.05):
        problems = []
        if not isinstance(compensator, Compensator):
            problems.append(f"'compensator': found {_what(compensator)}, expected a Compensator")
        if not isinstance(oil, Oil):
            problems.append(f"'oil': found {oil!r}, expected an Oil")
        if not (isinstance(ls_opening, (int, float)) and 0 < ls_opening <= 1):
            problems.append(f"'ls_opening': found {ls_opening!r}, expected 0 < ls_opening ≤ 1 "
                            "(fraction of spool travel)")
        if problems:
            raise ParameterError(problems, subject=f"compensated valve {name!r}")
        self.compensator = compensator
        self._supply = None
        self._network = None
        # the compensator lag must exist before the metering laws are made (they read it)
        self.comp = (Lag("comp", self._comp_target, time_constant=compensator.time_constant)
                     if compensator.time_constant is not None else None)
        super().__init__(name, q_nominal=q_nominal, dp_nominal=dp_nominal, command=command,
                         spool=spool, leakage=leakage, p_tr=p_tr, makeup=makeup,
                         makeup_crack=makeup_crack)
        if self.comp is not None:
            self.add(self.comp)
        wa, wb, wt = ls_openings(self.position, ls_opening)
        port = self.add(LSPort("ls", oil, {"A": wa, "B": wb, "T": wt},
                               volume=tap_volume, time_constant=tap_time_constant))
        for side in ("A", "B", "T"):
            self.connect(f"n{side}", f"ls/{side}")
        #: the section's LS-port pressure (signal: the LS gallery's pressure handle)
        self.load_pressure: sp.Symbol = port.pressure
        self.ls_opening = float(ls_opening)

    def _edge_law(self, edge: str, opening: Any):
        if edge not in ("PA", "PB"):
            return super()._edge_law(edge, opening)
        scale = self.q_nominal / math.sqrt(self.dp_nominal)
        if self.comp is not None:
            y = self.comp.value
            return Law(lambda dp: scale * opening * check_sqrt(dp - y, self.p_tr),
                       not_invertible=_CHECKED_EDGE)

        def quasi_static(dp):   # y = max(u, 0) at once, the switch kept out of the conditions
            u = self._comp_argument()
            return scale * opening * sp.Piecewise((check_sqrt(dp - u, self.p_tr), u > 0),
                                                  (check_sqrt(dp, self.p_tr), True))
        return Law(quasi_static, not_invertible=_CHECKED_EDGE)

    def attach(self, *, supply: Any, network) -> None:
        """Give the section its pump pressure signal and LS network (an LSCircuit does it).

        Parameters
        ----------
        supply : sympy expression
            The pump outlet pressure signal.
        network : LoadSenseNetwork
        """
        self._supply = sp.sympify(supply)
        self._network = network

    def _comp_argument(self) -> sp.Expr:
        if self._network is None:
            raise ParameterError(f"compensated valve {self.name!r}: not part of a load-sensing "
                                 "circuit; add its drive with LSCircuit.add_drive (or call attach)")
        p_ls = self._network.pressure() if self.compensator.kind == "post" else 0
        return self.compensator.argument(self._supply, p_ls, self.load_pressure)

    def _comp_target(self) -> sp.Expr:
        return ramp(self._comp_argument())

    def compensated_flow(self, opening: float, dp_metering: float) -> float:
        """The orifice law of a meter-in edge at a metering drop (m³/s): the reference
        the compensator makes the flow follow (``Q_N·x·√(Δp/Δp_N)`` above ``p_tr``).

        Parameters
        ----------
        opening : float
            0 … 1.
        dp_metering : float
            Pa.

        Returns
        -------
        float
        """
        return float(nominal_flow(sp.Float(dp_metering), opening, self.q_nominal, self.dp_nominal,
                                  self.p_tr))
