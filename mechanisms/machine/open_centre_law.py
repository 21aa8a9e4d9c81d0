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

Both are solved every sample by a tracking operator, so the inner problems are cheap: the
gallery is solved in ``s = √p_n``, in which the orifice's and its relief's flow is explicit
(``Q = √c2·s + b·s·(s² − p_c)`` between crack and full) and every bypass's drop at it too, by
Newton from the exact root of the all-turbulent, relief-free case; and the pump pressure's
bracket may start at a previous solve's answer (``start``), widening geometrically until it
holds the crossing. Both give the roots the plain bracketed solves give
(``tests/machines/test_open_centre_fast.py``).

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
#: steady(): its pump pressure to a hundredth of a pascal. Where a load just balances the supply the
#: rate is steep in p_s (√ of the drop) and flat p_s over the opening, so a start lever needs it
_STEADY_TOL = 1e-2
_WARM_STEP = 5e3     # Pa: the first half-width of a bracket started at the previous solve's pressure


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
        #: tolerance of the pump pressure's root (Pa)
        self.tol = _BRENT_TOL
        #: per function: the bypass's conductance when open (m³/s/√Pa) and its closing stroke
        self._bypass_g = {f: (q / math.sqrt(dp), xc) for f, (q, dp, xc) in self._bypass.items()}

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
        return self._gallery(pump_pressure, sections)

    def _gallery(self, pump_pressure: float, sections: list) -> tuple[float, float]:
        """:meth:`gallery_end` for the open bypasses' conductances ``sections`` (``Q = g·√Δp``)."""
        ps = max(pump_pressure, 0.0)
        if ps == 0.0:
            return 0.0, 0.0

        # the orifice's pressure p_n = s² at which its drop and the bypasses' add up to ps. In s the flow
        # q(s) is explicit (the orifice and its relief) and so is every bypass's drop at it: the sum
        # rises with s, is linear in s² for turbulent bypasses below the relief and convex above it.
        # Newton from that linear case's exact root, kept inside the bracket [0, √ps].
        r = sum(1.0 / (g * g) for g in sections)
        c2, rc, p_tr = self._c2, math.sqrt(self._c2), self._p_tr
        root_tr = math.sqrt(p_tr)
        lo, hi = 0.0, math.sqrt(ps)
        tol = 1e-13 * hi
        s = math.sqrt(ps / (1.0 + c2 * r))
        # _negacon_flow_slope and _drop_at inlined (the same arithmetic, their constants once)
        relief = self._relief
        if relief is not None:
            pc, pf, qr = relief
            k_full = rc + qr / math.sqrt(pf)
            b_rel = qr / ((pf - pc) * math.sqrt(pf))
        lam_out = p_tr * 2.0 * math.sqrt(5.0 / 3.0)
        lam_in = 3.0 * math.sqrt(3.0 / 5.0)
        sqrt, sin, asin = math.sqrt, math.sin, math.asin
        for _ in range(60):
            if relief is None:
                q, dq = rc * s, rc
            else:
                p = s * s
                if p <= pc:
                    q, dq = rc * s, rc
                elif p >= pf:
                    q, dq = k_full * s, k_full
                else:
                    q, dq = rc * s + b_rel * s * (p - pc), rc + b_rel * (3.0 * p - pc)
            e, de = s * s - ps, 2.0 * s
            for g in sections:
                v = q / g
                if v * v >= p_tr:
                    e += v * v
                    de += 2.0 * v * dq / g
                else:
                    w = 4.0 * v / sqrt(p_tr)
                    d = lam_out * sin(asin(lam_in * w / 10.0) / 3.0)
                    u = d / p_tr
                    e += d
                    de += 4.0 * root_tr * dq / ((5.0 - 3.0 * u * u) * g)
            if e == 0.0:
                break
            if e > 0.0:
                hi = s
            else:
                lo = s
            step = e / de
            if abs(step) <= tol:
                s -= step
                break
            s -= step
            if not (lo < s < hi):
                s = 0.5 * (lo + hi)
        q = self._negacon_flow_slope(s)[0]
        return s * s, q

    def _negacon_flow_slope(self, s: float) -> tuple[float, float]:
        """``(Q, dQ/ds)`` through the orifice and its relief at ``p_n = s²`` (``s ≥ 0``)."""
        rc = math.sqrt(self._c2)
        if self._relief is None:
            return rc * s, rc
        pc, pf, qr = self._relief
        p = s * s
        if p <= pc:
            return rc * s, rc
        if p >= pf:
            k = rc + qr / math.sqrt(pf)
            return k * s, k
        b = qr / ((pf - pc) * math.sqrt(pf))
        return rc * s + b * s * (p - pc), rc + b * (3.0 * p - pc)

    def _negacon_pressure(self, q: float) -> float:
        """``p_n`` at which the orifice and its relief pass ``q``."""
        return self._negacon_pressure_slope(q)[0]

    def _negacon_pressure_slope(self, q: float) -> tuple[float, float]:
        """``(p_n, dp_n/dq)`` at which the orifice and its relief pass ``q``, in closed form.

        Below the relief's crack ``Q² = c2·p_n``; between crack and full, with ``s = √p_n``,
        ``Q = √c2·s + b·s·(s² − p_c)`` (``b = Q_r/((p_f − p_c)·√p_f)``), a cubic in ``s``
        rising and convex above ``√p_c``: Newton from the relief-free ``s`` (to its right)
        falls monotonically onto its root; above full ``Q = (√c2 + Q_r/√p_f)·s``.
        """
        c2 = self._c2
        pn = q * q / c2
        if self._relief is None or pn <= self._relief[0]:
            return pn, 2.0 * q / c2
        pc, pf, qr = self._relief
        rc = math.sqrt(c2)
        if q >= rc * math.sqrt(pf) + qr:             # above full: linear in s
            k = rc + qr / math.sqrt(pf)
            s = q / k
            return s * s, 2.0 * s / k
        b = qr / ((pf - pc) * math.sqrt(pf))
        a = rc - b * pc
        s = min(q / rc, math.sqrt(pf))
        for _ in range(50):
            ds = (b * s * s * s + a * s - q) / (3.0 * b * s * s + a)
            s -= ds
            if abs(ds) <= 1e-15 * s:
                break
        return s * s, 2.0 * s / (3.0 * b * s * s + a)

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
               speed_ratio: float = 1.0, start: float | None = None) -> OpenCentreState:
        """The steady state at fixed spool openings and load forces.

        Parameters
        ----------
        openings : mapping
            Function → spool position (−1 … 1; missing: centred).
        forces : mapping
            Function → load force on the rod (N, positive pushing it in; missing: 0).
        speed_ratio : float
            Pump shaft speed over the speed of :attr:`max_flow`.
        start : float, optional
            A pump pressure near the answer (Pa; a previous solve's) to start the root's
            bracket at: the same root to its tolerance, found in fewer steps.

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

        ps = self._root(residual, 0.0, self.relief_pressure, min(self.tol, _STEADY_TOL), start)
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
        return x, k * abs(x) * math.sqrt(max(ps, 0.0) if v < 0 and drop > ps and force > 0 else drop), False

    def openings(self, rates: Mapping[str, float], forces: Mapping[str, float], speed_ratio: float = 1.0,
                 max_opening: float = 1.0, held: Mapping[str, float] | None = None,
                 start: float | None = None, *, gallery: bool = True) -> OpenCentreState:
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
        start : float, optional
            A pump pressure near the answer (Pa; a previous solve's) to start the root's
            bracket at: the same root to its tolerance, found in fewer steps.
        gallery : bool
            ``False``: leave out the gallery's end at the answer (``negacon_pressure``,
            ``bypass_flow`` and ``pump_flow`` are then NaN; the pump pressure, openings, rates,
            flows and saturated functions are the same): a caller that wants the openings alone
            (a tracking operator, several times a sample) saves a gallery solve.

        Returns
        -------
        OpenCentreState

        Examples
        --------
        See the class; without the gallery's end:

        >>> from mechanisms.machine import DATA, Machine
        >>> law = OpenCentreLaw(Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"},
        ...                                       mode="valves").circuit)
        >>> full = law.openings({"boom": 0.05}, {"boom": 1e5})
        >>> light = law.openings({"boom": 0.05}, {"boom": 1e5}, gallery=False)
        >>> light.openings == full.openings, light.pump_pressure == full.pump_pressure, math.isnan(light.pump_flow)
        (True, True, True)
        """
        fns = self.functions
        held = dict(held or {})

        def solve(ps: float):
            return {f: ((held[f], self.section(f, held[f], ps, forces.get(f, 0.0))[1], False) if f in held
                        else self._opening(f, rates.get(f, 0.0), ps, forces.get(f, 0.0), max_opening))
                    for f in fns}

        # per section, what does not depend on the trial pressure: the same arithmetic as _opening,
        # _drop and section (so the same residual to the bit), without the lookups and calls
        targets = []
        for f in fns:
            a_cap, a_rod = self.areas[f]
            phi = a_rod / a_cap
            v = held[f] if f in held else rates.get(f, 0.0)
            targets.append((f, f in held, v, forces.get(f, 0.0), *self._bypass_g[f], a_cap, a_rod, self.gain[f],
                            a_cap + phi ** 2 * a_rod, a_rod + a_cap / phi ** 2, v * a_cap, v * a_rod))
        sqrt, copysign, section, solve_gallery = math.sqrt, math.copysign, self.section, self._gallery
        pump_flow = self.pump_flow

        def residual(ps: float) -> float:       # solve(ps) and gallery_end, without the dicts
            used, gs = 0.0, []
            for f, is_held, v, force, g, xc, a_cap, a_rod, k, den_ext, den_ret, v_cap, v_rod in targets:
                if is_held:
                    x = v
                    used += section(f, x, ps, force)[1]
                elif v != 0.0:                  # _opening(f, v, ps, force, max_opening)
                    drop = (ps * a_cap - force) / den_ext if v > 0 else (ps * a_rod + force) / den_ret
                    if drop <= 0.0:
                        x = copysign(max_opening, v)
                    else:
                        ahead = v < 0 and drop > ps and force > 0
                        if v > 0:
                            x = v_cap / (k * sqrt(drop))
                        elif ahead:
                            x = v_cap / (k * sqrt(force / a_cap))
                        else:
                            x = v_rod / (k * sqrt(drop))
                        if abs(x) > max_opening:
                            x = copysign(max_opening, x)
                            used += section(f, x, ps, force)[1]
                        else:
                            used += k * abs(x) * sqrt(max(ps, 0.0) if ahead else drop)
                else:
                    x = 0.0
                o = 1.0 - abs(x) / xc
                if o <= 0.0:
                    gs = None
                elif gs is not None:
                    gs.append(g * o)
            pn, qb = solve_gallery(ps, gs) if gs is not None else (0.0, 0.0)
            return pump_flow(ps, pn, speed_ratio) - qb - used

        lo = 0.0
        for f in fns:       # below the highest load the rates cannot be given at all
            v = 0.0 if f in held else rates.get(f, 0.0)
            if v != 0.0:
                a_cap, a_rod = self.areas[f]
                force = forces.get(f, 0.0)
                lo = max(lo, force / a_cap if v > 0 else -force / a_rod)
        ps = self._root(residual, lo, max(self.relief_pressure, lo + 1.0), self.tol, start)
        sol = solve(ps)
        x = {f: sol[f][0] for f in fns}
        rate, flows = {}, {}
        for f in fns:
            rate[f], flows[f] = self.section(f, x[f], ps, forces.get(f, 0.0))
        sat = tuple(f for f in fns if sol[f][2])
        if not gallery:
            return OpenCentreState(ps, math.nan, math.nan, math.nan, x, rate, flows, sat)
        pn, qb = self.gallery_end(ps, x)
        return OpenCentreState(ps, pn, self.pump_flow(ps, pn, speed_ratio), qb, x, rate, flows, sat)

    @staticmethod
    def _root(fun, lo: float, hi: float, tol: float = _BRENT_TOL, guess: float | None = None,
              step: float = _WARM_STEP) -> float:
        """The pressure where the decreasing ``fun`` crosses zero in ``[lo, hi]`` (an end if it does not).

        With a ``guess`` (the previous solve's root; outside ``[lo, hi]``: the nearer end) the
        bracket starts at it and widens by ``step``, ×4 each time, towards the crossing until it
        holds it (or reaches an end, which is then the answer as without a guess).
        """
        if guess is not None and lo < hi:
            guess = min(max(guess, lo), hi)
            fg = fun(guess)
            if guess == lo and fg <= 0.0:
                return lo
            if guess == hi and fg >= 0.0:
                return hi
            if fg == 0.0:
                return guess
            d = step
            if fg > 0.0:                  # the crossing is above the guess
                a, fa = guess, fg
                while True:
                    b = min(a + d, hi)
                    fb = fun(b)
                    if fb <= 0.0 or b >= hi:
                        break
                    a, fa, d = b, fb, 4.0 * d
                if fb >= 0.0:
                    return b if fb == 0.0 else hi     # (fb > 0 only at hi)
                lo, flo, hi, fhi = a, fa, b, fb
            else:                         # below it
                b, fb = guess, fg
                while True:
                    a = max(b - d, lo)
                    fa = fun(a)
                    if fa >= 0.0 or a <= lo:
                        break
                    b, fb, d = a, fa, 4.0 * d
                if fa <= 0.0:
                    return a if fa == 0.0 else lo     # (fa < 0 only at lo)
                lo, flo, hi, fhi = a, fa, b, fb
        else:
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
