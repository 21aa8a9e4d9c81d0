"""The steady flow law of an open-centre circuit: what the spools' openings give, and its inverse.

On an open-centre (negative flow control) circuit the pump pressure is not a setting: it is
where the pump's flow, the centre gallery's bypass flow and the sections' work-port flows
balance, and every one of those depends on every spool (each spool throttles the gallery
the others share). An operator that meters one function at a time against a *measured*
pump pressure chases a pressure its own command moves. :class:`OpenCentreLaw` writes the
balance out once, with the circuit's own laws and data (the same ones the model's
elements carry), for the spools held still and the oil volumes settled:

* a section meters in series through its two edges (``Q = K·x·√Δp``, ``K = Q_N/√Δp_N``);
  with the load force ``F`` and the supply ``p_s`` the drop of the inflow edge is
  ``Δ = (p_s·A_cap − F)/(A_cap + φ²·A_rod)`` extending and
  ``Δ = (p_s·A_rod + F)/(A_rod + A_cap/φ²)`` retracting (``φ = A_rod/A_cap``); a load
  running ahead of the oil (rod side at tank, make-up valves feeding it) is metered by its
  outlet edge at ``p_cap = F/A_cap``, and the meter-in edge's check passes nothing back;
* the bypasses in series, each ``Q = Q_bp·o·√(Δp/Δp_bp)`` with ``o = max(1 − |x|/x_c, 0)``,
  then the negative-control orifice ``Q = C_d·A·√(2·p_n/ρ)`` (and its relief);
* the pump ``Q = Q_max·(n/n_0)·α(p_n)``, ``α`` the regulator's
  ``clip((p_n,max − p_n)/(p_n,max − p_n,min), d_min, 1)`` under its horsepower limit
  ``α·p_s ≤ 2π·T_max/D``.

:meth:`OpenCentreLaw.steady` solves the balance for given openings (a root in ``p_s``),
:meth:`OpenCentreLaw.openings` for the openings that give wanted rates (again one root in
``p_s``: the openings follow from the rates at each ``p_s``). Both ignore the laminar
transitions of the orifices and the tank pressure (bar-level corrections) and the spool and
swash-plate lags (they are dynamics, for a feedback to take up).

Examples
--------
>>> from mechanisms.machine import DATA, Machine
>>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"}, mode="valves")
>>> law = OpenCentreLaw(m.circuit)
>>> idle = law.steady({"boom": 0.0, "arm": 0.0, "bucket": 0.0}, {"boom": 0.0, "arm": 0.0, "bucket": 0.0})
>>> round(idle.pump_pressure / 1e5, 1), round(idle.bypass_flow * 6e4, 1), round(idle.negacon_pressure / 1e5, 1)
(35.6, 47.2, 34.8)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from bondgraph import ParameterError
from components.hydraulics._values import si

__all__ = ["OpenCentreLaw", "OpenCentreState"]

_BRENT_TOL = 100.0   # Pa: the pump pressure's root is found to a millibar


def _drop_at(s: float, p_tr: float) -> float:
    """The ``Δp ≥ 0`` with ``signed_sqrt(Δp, p_tr) = s ≥ 0`` (the laminar cubic below ``p_tr``)."""
    if s * s >= p_tr:
        return s * s
    w = 4.0 * s / math.sqrt(p_tr)
    return p_tr * 2.0 * math.sqrt(5.0 / 3.0) * math.sin(math.asin(3.0 * math.sqrt(3.0 / 5.0) * w / 10.0) / 3.0)


@dataclass(frozen=True)
class OpenCentreState:
    """A steady state of an open-centre circuit (SI units).

    Attributes
    ----------
    pump_pressure, negacon_pressure : float
        ``p_s`` and ``p_n`` (Pa).
    pump_flow, bypass_flow : float
        What the pump delivers and what returns through the gallery end (m³/s).
    openings, rates, flows : dict
        Per function: the spool opening (−1 … 1), the rod speed (m/s) and the flow the
        section takes from the pump (m³/s).
    saturated : tuple
        Functions whose wanted rate needs more than the largest opening allowed
        (:meth:`OpenCentreLaw.openings`; empty from :meth:`OpenCentreLaw.steady`).

    Examples
    --------
    >>> s = OpenCentreState(40e5, 30e5, 1e-3, 0.5e-3, {"boom": 0.2}, {"boom": 0.01}, {"boom": 0.5e-3}, ())
    >>> round(s.pump_pressure / 1e5)
    40
    """

    pump_pressure: float
    negacon_pressure: float
    pump_flow: float
    bypass_flow: float
    openings: dict
    rates: dict
    flows: dict
    saturated: tuple


class OpenCentreLaw:
    """The steady balance of an open-centre circuit (see the module), built from its data.

    Parameters
    ----------
    circuit : OpenCentreMachineCircuit
        ``Machine.circuit`` of a machine whose ``circuit.type`` is ``"open-centre"``.
    areas : mapping, optional
        Section → (inflow, outflow) areas for sections that are not cylinders. A swing
        section's motor is taken per motor radian (its displacement ``D/2π`` both ways)
        unless given here (per swing radian: times the gear ratio).

    Raises
    ------
    ParameterError
        Not an open-centre circuit, or a section whose areas are not known.

    Examples
    --------
    The boom alone, its bypass nearly closed (``x = 0.48`` of a bypass closed at 0.5),
    lifting a load of 60 bar on its cap side: the pump pressure settles above the load by
    the metering drop, the pump flow splits between the boom and the gallery:

    >>> from mechanisms.machine import DATA, Machine
    >>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"}, mode="valves")
    >>> law = OpenCentreLaw(m.circuit)
    >>> a_cap = m.circuit.areas["boom"][0]
    >>> s = law.steady({"boom": 0.48}, {"boom": 60e5 * a_cap})
    >>> bool(s.pump_pressure > 60e5), bool(abs(s.pump_flow - s.bypass_flow - s.flows["boom"]) < 1e-6 * s.pump_flow)
    (True, True)
    >>> round(s.rates["boom"] * 1e3), round(s.bypass_flow * 6e4)      # mm/s, L/min
    (76, 38)

    and :meth:`openings` inverts it: the opening that gives that rate is the one given.

    >>> back = law.openings({"boom": s.rates["boom"]}, {"boom": 60e5 * a_cap})
    >>> round(back.openings["boom"], 4)
    0.48
    """

    def __init__(self, circuit, areas: Mapping[str, tuple[float, float]] | None = None) -> None:
        hc = getattr(circuit, "hydraulic", None)
        if hc is None or not hasattr(hc, "control") or not hasattr(hc, "sections"):
            raise ParameterError(f"OpenCentreLaw: circuit {type(circuit).__name__} is not an open-centre "
                                 "circuit (expected circuit.type = 'open-centre')")
        pu = hc.power_unit
        self.functions = tuple(hc.order)
        known = dict(circuit.areas)
        swing = getattr(circuit, "swing", None)
        motor = getattr(swing, "motor", None)
        if motor is not None:          # a swing section: its motor, per motor radian
            known.setdefault(getattr(swing, "name", "swing"), (motor.torque_per_pressure,) * 2)
        known.update(areas or {})
        unknown = [f for f in self.functions if f not in known or f not in circuit.valve_gains]
        if unknown:
            raise ParameterError(f"OpenCentreLaw: no areas or valve gain for section(s) {', '.join(unknown)} "
                                 f"(known: {', '.join(sorted(known))}); give areas={{section: (in, out)}}")
        self.gain = {f: float(circuit.valve_gains[f]) for f in self.functions}
        self.areas = {f: tuple(float(a) for a in known[f]) for f in self.functions}
        self._bypass = {}
        for f in self.functions:
            v = hc.sections[f]
            self._bypass[f] = (float(v.bypass_flow), float(v.bypass_dp), float(v.bypass_closed))
        self._p_tr = float(hc.sections[self.functions[0]].p_tr)
        ctl = hc.control
        rho = float(pu.oil.density)
        #: Q² = c2·p_n through the negative-control orifice
        self._c2 = 2.0 * (ctl.cd * ctl.area) ** 2 / rho
        r = ctl.relief
        self._relief = None if r is None else (r.crack_pressure, r.full_pressure,
                                                si(r.q_rated, "m^3/s", "q_rated", []))
        self.pump = pu.pump
        d_shaft = getattr(pu, "shaft_displacement", None) or self.pump.displacement
        self._hp = None if self.pump.torque_limit is None else 2 * math.pi * self.pump.torque_limit / d_shaft
        #: pump flow at full displacement at the start speed (m³/s)
        self.max_flow = float(circuit.max_flow)
        self.relief_pressure = float(circuit.relief_pressure or 400e5)

    # ------------------------------------------------------------------ the parts
    def bypass_opening(self, f: str, x: float) -> float:
        """Opening of function ``f``'s centre bypass at spool position ``x``: ``max(1 − |x|/x_c, 0)``.

        Examples
        --------
        See the class.
        """
        return max(1.0 - abs(x) / self._bypass[f][2], 0.0)

    def gallery_end(self, pump_pressure: float, openings: Mapping[str, float]) -> tuple[float, float]:
        """``(p_n, Q_bypass)`` of the gallery fed at ``pump_pressure`` through the bypasses in series.

        Each bypass is the valve template's law, laminar below its transition pressure
        (:func:`components.hydraulics.orifice.signed_sqrt`): the drop at a flow is its inverse.

        Examples
        --------
        See the class.
        """
        sections = []
        for f in self.functions:
            o = self.bypass_opening(f, openings.get(f, 0.0))
            if o <= 0.0:
                return 0.0, 0.0
            q_bp, dp_bp, _ = self._bypass[f]
            sections.append(q_bp * o / math.sqrt(dp_bp))
        ps = max(pump_pressure, 0.0)
        if ps == 0.0:
            return 0.0, 0.0

        def excess(q: float) -> float:      # pressure the flow q needs over what the pump gives
            return self._negacon_pressure(q) + sum(_drop_at(q / g, self._p_tr) for g in sections) - ps

        # an upper bound of the flow: turbulent everywhere and the orifice alone (a laminar drop is at
        # least 0.8 of the turbulent one at the same flow), with room
        r = sum(1.0 / (g * g) for g in sections)
        q_hi = math.sqrt(ps / (r + 1.0 / self._c2)) * 1.5 + 1e-9
        q = self._root(lambda q: -excess(q), 0.0, q_hi, tol=1e-7 * q_hi)
        return self._negacon_pressure(q), q

    def _negacon_pressure(self, q: float) -> float:
        """``p_n`` at which the orifice and its relief pass ``q``."""
        pn = q * q / self._c2
        if self._relief is None or pn <= self._relief[0]:
            return pn
        return self._root(lambda p: q - self._negacon_flow(p), self._relief[0], pn, tol=10.0)

    def _negacon_flow(self, pn: float) -> float:
        q = math.sqrt(self._c2 * max(pn, 0.0))
        if self._relief is not None:
            pc, pf, qr = self._relief
            q += qr * min(max((pn - pc) / (pf - pc), 0.0), 1.0) * math.sqrt(max(pn, 0.0) / pf)
        return q

    def pump_flow(self, pump_pressure: float, negacon_pressure: float, speed_ratio: float = 1.0) -> float:
        """``Q_max·(n/n_0)·α``: the regulator's displacement at ``p_n`` under its horsepower limit.

        Examples
        --------
        See the class.
        """
        a = self.pump.command_value(negacon_pressure)
        if self._hp is not None and pump_pressure > 0:
            a = min(a, self._hp / pump_pressure)
        return self.max_flow * speed_ratio * a

    def _drop(self, f: str, ps: float, force: float, extending: bool) -> float:
        a_cap, a_rod = self.areas[f]
        phi = a_rod / a_cap
        if extending:
            return (ps * a_cap - force) / (a_cap + phi ** 2 * a_rod)
        return (ps * a_rod + force) / (a_rod + a_cap / phi ** 2)

    def section(self, f: str, x: float, ps: float, force: float) -> tuple[float, float]:
        """``(rod speed, flow from the pump)`` of function ``f`` at opening ``x``, supply ``ps``
        and load force ``force`` (N, positive pushing the rod in).

        Examples
        --------
        See the class.
        """
        if x == 0.0:
            return 0.0, 0.0
        a_cap, a_rod = self.areas[f]
        k = self.gain[f] * abs(x)
        drop = self._drop(f, ps, force, x > 0)
        if drop <= 0.0:
            return 0.0, 0.0                       # the load-holding check stays shut
        if x > 0:
            q = k * math.sqrt(drop)
            return q / a_cap, q
        if drop > ps and force > 0:                # running ahead: the outlet meters, make-up feeds
            return -k * math.sqrt(force / a_cap) / a_cap, k * math.sqrt(max(ps, 0.0))
        q = k * math.sqrt(drop)
        return -q / a_rod, q

    # ------------------------------------------------------------------ the balance
    def steady(self, openings: Mapping[str, float], forces: Mapping[str, float],
               speed_ratio: float = 1.0) -> OpenCentreState:
        """The steady state at fixed spool openings and load forces.

        Parameters
        ----------
        openings : mapping
            Function → spool position (−1 … 1; missing: centred).
        forces : mapping
            Function → load force on the rod (N, positive pushing it in; missing: 0).
        speed_ratio : float
            Pump shaft speed over the speed of :attr:`max_flow`.

        Returns
        -------
        OpenCentreState

        Examples
        --------
        See the class.
        """
        fns = self.functions

        def residual(ps: float) -> float:
            pn, qb = self.gallery_end(ps, openings)
            used = sum(self.section(f, openings.get(f, 0.0), ps, forces.get(f, 0.0))[1] for f in fns)
            return self.pump_flow(ps, pn, speed_ratio) - qb - used

        ps = self._root(residual, 0.0, self.relief_pressure)
        pn, qb = self.gallery_end(ps, openings)
        rates, flows = {}, {}
        for f in fns:
            rates[f], flows[f] = self.section(f, openings.get(f, 0.0), ps, forces.get(f, 0.0))
        return OpenCentreState(ps, pn, self.pump_flow(ps, pn, speed_ratio), qb, dict(openings), rates, flows, ())

    def _opening(self, f: str, v: float, ps: float, force: float, x_max: float) -> tuple[float, float, bool]:
        """``(opening, pump flow, saturated)`` giving rate ``v`` at supply ``ps``."""
        if v == 0.0:
            return 0.0, 0.0, False
        a_cap, a_rod = self.areas[f]
        k = self.gain[f]
        drop = self._drop(f, ps, force, v > 0)
        if drop <= 0.0:
            x = math.copysign(x_max, v)
            return x, 0.0, True
        if v > 0:
            x = v * a_cap / (k * math.sqrt(drop))
        elif drop > ps and force > 0:
            x = -(-v) * a_cap / (k * math.sqrt(force / a_cap))
        else:
            x = v * a_rod / (k * math.sqrt(drop))
        if abs(x) > x_max:
            x = math.copysign(x_max, x)
            return x, self.section(f, x, ps, force)[1], True
        return x, self.section(f, x, ps, force)[1], False

    def openings(self, rates: Mapping[str, float], forces: Mapping[str, float], speed_ratio: float = 1.0,
                 max_opening: float = 1.0, held: Mapping[str, float] | None = None) -> OpenCentreState:
        """The spool openings that give ``rates`` at the load ``forces``, and the state they settle to.

        At each trial pump pressure the openings follow from the rates through the sections'
        law; the pressure is the one at which the pump's flow equals the bypass's and the
        sections'. Rates the circuit cannot give (even at ``max_opening``) leave the
        function at ``max_opening`` and name it in :attr:`OpenCentreState.saturated`.

        Parameters
        ----------
        rates : mapping
            Function → wanted rod speed (m/s).
        forces : mapping
            Function → load force (N, positive pushing the rod in).
        speed_ratio : float
            Pump shaft speed over the speed of :attr:`max_flow`.
        max_opening : float
            Largest opening (0 … 1).
        held : mapping, optional
            Sections whose opening is given (metered otherwise), not solved for: their flow
            and bypass at that opening take part in the balance.

        Returns
        -------
        OpenCentreState

        Examples
        --------
        See the class.
        """
        fns = self.functions
        held = dict(held or {})

        def solve(ps: float):
            return {f: ((held[f], self.section(f, held[f], ps, forces.get(f, 0.0))[1], False) if f in held
                        else self._opening(f, rates.get(f, 0.0), ps, forces.get(f, 0.0), max_opening))
                    for f in fns}

        def residual(ps: float) -> float:
            sol = solve(ps)
            x = {f: sol[f][0] for f in fns}
            pn, qb = self.gallery_end(ps, x)
            return self.pump_flow(ps, pn, speed_ratio) - qb - sum(sol[f][1] for f in fns)

        lo = 0.0
        for f in fns:       # below the highest load the rates cannot be given at all
            v = 0.0 if f in held else rates.get(f, 0.0)
            if v != 0.0:
                a_cap, a_rod = self.areas[f]
                force = forces.get(f, 0.0)
                lo = max(lo, force / a_cap if v > 0 else -force / a_rod)
        ps = self._root(residual, lo, max(self.relief_pressure, lo + 1.0))
        sol = solve(ps)
        x = {f: sol[f][0] for f in fns}
        pn, qb = self.gallery_end(ps, x)
        rate, flows = {}, {}
        for f in fns:
            rate[f], flows[f] = self.section(f, x[f], ps, forces.get(f, 0.0))
        sat = tuple(f for f in fns if sol[f][2])
        return OpenCentreState(ps, pn, self.pump_flow(ps, pn, speed_ratio), qb, x, rate, flows, sat)

    @staticmethod
    def _root(fun, lo: float, hi: float, tol: float = _BRENT_TOL) -> float:
        """The pressure where the decreasing ``fun`` crosses zero in ``[lo, hi]`` (an end if it does not)."""
        flo, fhi = fun(lo), fun(hi)
        if flo <= 0.0:
            return lo
        if fhi >= 0.0:
            return hi
        side = 0
        for _ in range(100):          # false position, Illinois-modified (the end kept twice is halved)
            if hi - lo <= tol:
                break
            mid = hi - fhi * (hi - lo) / (fhi - flo)
            if not (lo < mid < hi):
                mid = 0.5 * (lo + hi)
            fm = fun(mid)
            if fm == 0.0:
                return mid
            if fm > 0.0:
                lo, flo = mid, fm
                if side == 1:
                    fhi *= 0.5
                side = 1
            else:
                hi, fhi = mid, fm
                if side == -1:
                    flo *= 0.5
                side = -1
        return 0.5 * (lo + hi)
