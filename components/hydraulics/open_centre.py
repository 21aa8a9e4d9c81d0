"""Open-centre circuit with negative flow control: 6-port valve sections, centre gallery, negacon orifice.

The layout of most excavators built with open-centre valves (Kawasaki,
Rexroth, OpenHydraulics' open-centre valve unit; the usual textbook
description of negative control):

* each :class:`OpenCentreValve` is a 6-port section: the metering edges of the
  closed-centre :class:`~components.hydraulics.DirectionalValve` (P→A, A→T,
  P→B, B→T) plus a *centre bypass* passage ``CI → CO`` that is widest with
  the spool centred and closes as the spool moves either way, fully closed at
  ``bypass_closed`` of the stroke (40–60 % on real spools). The meter-in edges
  are fed in parallel from the pump through a load-holding check (no flow back
  from a work port to the pump);
* the bypasses are in series — the *centre gallery* from the pump outlet to the
  bottom of the bank — with a small oil volume between sections, and then the
  :class:`NegativeControl`: the gallery end volume, a fixed orifice to tank
  (``Q = C_d·A·√(2·p_n/ρ)``) and, often, a relief valve in parallel;
* the pressure of the gallery end, ``p_n``, is the control signal of the
  :class:`~components.hydraulics.NFCPowerUnit`.

Centred spools send the pump's stand-by flow through the gallery: ``p_n`` is
high and the pump stays at stand-by. A spool shifted far closes the gallery:
``p_n`` falls to the tank pressure and the pump goes to full displacement. In
between the pump flow divides between the work port and the bypass by their
pressures, so the cylinder speed depends on the load — the open-centre
characteristic a compensated valve removes.

Examples
--------
>>> from bondgraph import Input
>>> v = OpenCentreValve("v", q_nominal="150 L/min", dp_nominal="10 bar", command=Input("cmd"),
...                     bypass_flow="150 L/min", bypass_dp="5 bar", bypass_closed=0.5)
>>> sorted(v.ports)
['A', 'B', 'CI', 'CO', 'P', 'T']
>>> [float(v.bypass_opening(x)) for x in (-1.0, -0.25, 0.0, 0.25, 0.5)]
[0.0, 0.5, 1.0, 0.5, 0.0]
>>> nc = NegativeControl(diameter="3.2 mm", cd=0.7)
>>> round(nc.pressure(30 / 6e4, density=870.0) / 1e5, 2)      # bar at 30 L/min
34.31
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import sympy as sp

from bondgraph import BondGraph, Law, One, R, Zero
from bondgraph.errors import ParameterError

from ._values import POSITIVE, raise_all, si
from .chamber import Chamber
from .compensator import _what, check_sqrt
from .drive import HydraulicCircuit, HydraulicDrive
from .oil import Oil
from .orifice import nominal_flow_inverse, nominal_law, orifice_flow
from .pressure_tap import SensedCapacitance
from .pump_nfc import NFCPowerUnit
from .supply import ReliefValve
from .valves import DirectionalValve

__all__ = ["OpenCentreValve", "NegativeControl", "OpenCentreCircuit"]

_CHECKED_EDGE = ("an open-centre meter-in edge passes no flow against its load-holding check "
                 "(Δp ≤ 0), so its pressure drop is not a function of its flow")


class OpenCentreValve(DirectionalValve):
    """Open-centre 6-port proportional valve section (ports ``P``, ``T``, ``A``, ``B``, ``CI``, ``CO``).

    The meter-in edges P→A and P→B pass flow only towards the work port (a
    load-holding check in series): ``Q = Q_N·x·√(max(Δp, 0)/Δp_N)``. Connect the
    gallery upstream *into* ``CI`` and ``CO`` *into* the gallery downstream.

    Parameters
    ----------
    name : str
    q_nominal, dp_nominal, command, spool, leakage, p_tr, makeup, makeup_crack
        As for :class:`~components.hydraulics.DirectionalValve`.
    bypass_flow, bypass_dp : float or str
        Flow of the fully open centre bypass at the drop ``bypass_dp`` (m³/s, Pa).
    bypass_closed : float
        Spool travel (fraction of full, 0 < · ≤ 1) at which the bypass is closed:
        its opening is ``max(1 − |x|/bypass_closed, 0)``.

    Raises
    ------
    ParameterError
        Bad bypass values (all listed), and those of the directional valve.

    Examples
    --------
    Centred, the bypass passes its rating, 150 L/min at 5 bar; a quarter-way shifted
    spool (half the bypass travel) passes half of it:

    >>> import numpy as np
    >>> from bondgraph import BondGraph, Se, Zero, Input, build
    >>> rig = BondGraph("rig")
    >>> v = OpenCentreValve("v", q_nominal="150 L/min", dp_nominal="10 bar", command=Input("x"),
    ...                     bypass_flow="150 L/min", bypass_dp="5 bar", bypass_closed=0.5)
    >>> _ = rig.add(v, Se("pump", 5e5), Zero("tank"), Se("T", 0.0))
    >>> for a, b in [("pump", "v/CI"), ("v/CO", "tank"), ("T", "tank")]:
    ...     _ = rig.connect(a, b)
    >>> for name in ("P", "A", "B"):        # the work ports are not used here: plug them
    ...     _ = rig.add(Se(f"plug_{name}", 0.0)); _ = rig.connect(f"plug_{name}", f"v/{name}")
    >>> _ = rig.connect("v/T", "tank")
    >>> sysm = build(rig).system
    >>> flows = []
    >>> for x in (0.0, 0.25):
    ...     sysm.set_inputs(np.array([x]))
    ...     flows.append(float(dict(zip(sysm.output_names, sysm.outputs(0.0, np.zeros(0))))["f[rig/b1]"]) * 6e4)
    >>> [round(q, 6) for q in flows]    # L/min
    [150.0, 75.0]
    """

    def __init__(self, name: str, *, q_nominal: Any, dp_nominal: Any, command: Any,
                 bypass_flow: Any, bypass_dp: Any, bypass_closed: float = 0.5, spool=None,
                 leakage: float = 0.0, p_tr: Any = 1e5, makeup: Any = None,
                 makeup_crack: Any = 0.3e5):
        problems: list[str] = []
        q_bp = si(bypass_flow, "m^3/s", "bypass_flow", problems, POSITIVE)
        dp_bp = si(bypass_dp, "Pa", "bypass_dp", problems, POSITIVE)
        if not (isinstance(bypass_closed, (int, float)) and not isinstance(bypass_closed, bool)
                and 0 < bypass_closed <= 1):
            problems.append(f"'bypass_closed': found {bypass_closed!r}, expected 0 < bypass_closed ≤ 1 "
                            "(fraction of spool travel at which the centre bypass is closed)")
        raise_all(problems, f"open-centre valve {name!r}")
        super().__init__(name, q_nominal=q_nominal, dp_nominal=dp_nominal, command=command,
                         spool=spool, leakage=leakage, p_tr=p_tr, makeup=makeup,
                         makeup_crack=makeup_crack)
        self.bypass_flow, self.bypass_dp, self.bypass_closed = q_bp, dp_bp, float(bypass_closed)
        self.add(One("BP"), R("R_BP", flow=nominal_law(self.bypass_opening(self.position), q_bp,
                                                         dp_bp, self.p_tr)))
        self.connect("BP", "R_BP")
        self.expose("CI", "BP")
        self.expose("CO", "BP")

    def bypass_opening(self, x: Any) -> sp.Expr:
        """``max(1 − |x|/bypass_closed, 0)``, written with plain conditions.

        Parameters
        ----------
        x : number or sympy expression
            Spool position.

        Returns
        -------
        sympy.Piecewise
        """
        x, c = sp.sympify(x), self.bypass_closed
        return sp.Piecewise((0, x >= c), (0, x <= -c), (1 - x / c, x >= 0), (1 + x / c, True))

    def _edge_law(self, edge: str, opening: Any):
        if edge not in ("PA", "PB"):
            return super()._edge_law(edge, opening)
        scale = self.q_nominal / math.sqrt(self.dp_nominal)
        return Law(lambda dp: scale * opening * check_sqrt(dp, self.p_tr), not_invertible=_CHECKED_EDGE)


@dataclass(frozen=True)
class NegativeControl:
    """The end of the centre gallery: its volume, the negative-control orifice, its relief.

    Parameters
    ----------
    diameter : float or str
        Orifice diameter (m); ``Q = C_d·(π·d²/4)·√(2·p_n/ρ)``.
    cd : float
        Discharge coefficient (0.6–0.7 for a sharp-edged orifice).
    relief : ReliefValve, optional
        In parallel with the orifice: caps ``p_n`` when a spool returns to centre
        while the pump is still at full flow.
    volume : float or str
        Gallery end volume (m³), whose pressure is ``p_n``.
    gallery_volume : float or str
        Oil volume between two sections in the gallery (m³).
    p_tr : float or str
        Laminar transition of the orifice law (Pa).

    Raises
    ------
    ParameterError
        Bad values, a diameter of 50 mm or more (a bare number meant as mm), a relief
        that is not a :class:`ReliefValve` (all listed).

    Examples
    --------
    >>> nc = NegativeControl(diameter="3.2 mm", cd=0.7)
    >>> round(nc.area * 1e6, 4)              # mm²
    8.0425
    >>> NegativeControl(diameter=3.2)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: negative control: 1 problem
      - 'diameter': found 3.2 (m), expected an orifice below 50 mm (negative-control orifices are a few millimetres: "4 mm")
    """

    diameter: Any
    cd: float = 0.7
    relief: ReliefValve | None = None
    volume: Any = "0.2 L"
    gallery_volume: Any = "0.1 L"
    p_tr: Any = "0.2 bar"

    def __post_init__(self):
        problems: list[str] = []
        for name, unit in (("diameter", "m"), ("volume", "m^3"), ("gallery_volume", "m^3"),
                           ("p_tr", "Pa")):
            object.__setattr__(self, name, si(getattr(self, name), unit, name, problems, POSITIVE))
        if math.isfinite(self.diameter) and not self.diameter < 0.05:
            problems.append(f"'diameter': found {self.diameter!r} (m), expected an orifice below 50 mm "
                            "(negative-control orifices are a few millimetres: \"4 mm\")")
        cd = self.cd
        if not (isinstance(cd, (int, float)) and not isinstance(cd, bool) and 0 < cd <= 1):
            problems.append(f"'cd': found {cd!r}, expected a discharge coefficient 0 < cd ≤ 1")
        if self.relief is not None and not isinstance(self.relief, ReliefValve):
            problems.append(f"'relief': found {_what(self.relief)}, expected a ReliefValve or None")
        raise_all(problems, "negative control")

    @property
    def area(self) -> float:
        """Orifice area ``π·d²/4`` (m²)."""
        return math.pi * self.diameter ** 2 / 4

    def pressure(self, flow: float, density: float) -> float:
        """``p_n`` at a flow through the orifice alone, ``ρ/2·(Q/(C_d·A))²`` (Pa).

        Parameters
        ----------
        flow : float
            m³/s.
        density : float
            kg/m³.

        Returns
        -------
        float
        """
        return density / 2 * (flow / (self.cd * self.area)) ** 2


class OpenCentreCircuit(HydraulicCircuit):
    """A negative-control pump feeding open-centre sections in parallel, their bypasses in series.

    The sections are chained in the order they are added: the pump outlet →
    bypass of the first → gallery volume ``gallery_<first>`` → bypass of the
    second → … → the gallery end ``neg`` (its pressure ``p_n`` is the state
    ``<path>/neg/C_N.e`` and the signal :attr:`negacon_pressure`) → orifice
    ``neg/nfc`` (and relief ``neg/nfc_relief``) to tank.

    Parameters
    ----------
    name : str
    power_unit : NFCPowerUnit
    control : NegativeControl

    Examples
    --------
    >>> from bondgraph import Input
    >>> from components.hydraulics import Oil, NFCPump
    >>> oil = Oil()
    >>> pu = NFCPowerUnit("pu", oil=oil, pump=NFCPump("100 cm^3/rev", "1500 rpm"))
    >>> c = OpenCentreCircuit("hyd", pu, NegativeControl(diameter="3 mm"))
    >>> for f in ("a", "b"):
    ...     _ = c.add_section(OpenCentreValve(f, q_nominal="100 L/min", dp_nominal="10 bar",
    ...                       command=Input(f"{f}.cmd"), bypass_flow="150 L/min", bypass_dp="5 bar"))
    >>> c.order, sorted(c.ports)
    (['a', 'b'], ['a.A', 'a.B', 'b.A', 'b.B'])

    The negative-control loop: centred, the stand-by flow holds ``p_n`` at the orifice's
    pressure for it and the pump at stand-by; a spool shifted fully closes the gallery,
    ``p_n`` falls to tank and the pump delivers its full flow to the cylinder:

    >>> from bondgraph import simulate
    >>> from components.hydraulics.ls_rigs import load_rig, RIG_NFC_PUMP, RIG_NEGATIVE_CONTROL
    >>> for x in (0.0, 1.0):
    ...     rig = load_rig({"lift": 30e3}, commands={"lift": x}, circuit="open-centre")
    ...     res = simulate(rig.model, (0.0, 1.0), x0=rig.x0, method="CVODE", progress=False)
    ...     print(round(float(res[rig.negacon_pressure][-1]) / 1e5, 3),
    ...           round(float(rig.displacement(res)[-1]), 6),
    ...           round(float(res[rig.velocity("lift")][-1] * rig.area["lift"]) * 6e4, 2))
    34.313 0.2 0.0
    0.0 1.0 150.0
    >>> round(RIG_NEGATIVE_CONTROL.pressure(RIG_NFC_PUMP.min_flow, 870.0) / 1e5, 3)
    34.313
    """

    def __init__(self, name: str, power_unit: NFCPowerUnit, control: NegativeControl):
        if not isinstance(power_unit, NFCPowerUnit):
            raise ParameterError(f"open-centre circuit {name!r}: power_unit = {_what(power_unit)}, "
                                 "expected an NFCPowerUnit (a negative-control pump)")
        if not isinstance(control, NegativeControl):
            raise ParameterError(f"open-centre circuit {name!r}: control = {_what(control)}, "
                                 "expected a NegativeControl (the gallery end and its orifice)")
        super().__init__(name, power_unit)
        self.control = control
        oil = power_unit.oil
        neg = self.add(BondGraph("neg"))
        c_n = neg.add(SensedCapacitance("C_N", control.volume, oil))
        neg.add(Zero("node"))
        neg.connect("node", "C_N")
        pt = power_unit.tank_pressure
        area, cd, rho, ptr = control.area, control.cd, oil.density, control.p_tr
        neg.add(R("nfc", flow=Law(lambda p: orifice_flow(p - pt, area, cd, rho, ptr))))
        neg.connect("node", "nfc")
        if control.relief is not None:
            relief = control.relief
            neg.add(R("nfc_relief", flow=Law(
                lambda p: relief.law(p, pt),
                not_invertible="a relief valve passes no flow below its cracking pressure, so its "
                               "pressure is not a function of its flow")))
            neg.connect("node", "nfc_relief")
        neg.expose("in", "node")
        #: the negacon pressure p_n (signal)
        self.negacon_pressure: sp.Symbol = c_n.pressure
        power_unit.attach(self.negacon_pressure)
        self.order: list[str] = []
        self.sections: dict[str, OpenCentreValve] = {}
        self._end = None   # index of the bond from the last bypass into the gallery end

    def _chain(self, section: str, valve: Any, ci: str, co: str) -> None:
        """Insert a section's bypass (ports ``ci``, ``co``) at the end of the gallery."""
        if not isinstance(valve, OpenCentreValve):
            raise ParameterError(f"open-centre circuit {self.name!r}: section {section!r} has valve "
                                 f"{_what(valve)}, expected an OpenCentreValve")
        if not self.order:
            self.power_unit.expose("gallery", "nP")   # the gallery starts at the pump outlet
            self.connect(f"{self.power_unit.name}/gallery", ci)
        else:
            prev = self.order[-1]
            gal = self.add(Chamber(f"gallery_{prev}", self.control.gallery_volume,
                                   self.power_unit.oil, ports=("in", "out")))
            spec = self.bonds[self._end]   # the previous section now ends in the new volume
            self.bonds[self._end] = dataclasses.replace(spec, head=f"{gal.name}/in")
            self.connect(f"{gal.name}/out", ci)
        self.connect(co, "neg/in")
        self._end = len(self.bonds) - 1
        self.order.append(section)
        self.sections[section] = valve

    def add_drive(self, drive: HydraulicDrive) -> str:
        """Add a drive whose valve is an :class:`OpenCentreValve`; returns its ``I`` port.

        Parameters
        ----------
        drive : HydraulicDrive

        Returns
        -------
        str
        """
        if not isinstance(drive, HydraulicDrive):
            raise ParameterError(f"open-centre circuit {self.name!r}: add_drive got {_what(drive)}, "
                                 "expected a HydraulicDrive")
        if not isinstance(drive.valve, OpenCentreValve):
            raise ParameterError(f"open-centre circuit {self.name!r}: section {drive.name!r} has "
                                 f"valve {_what(drive.valve)}, expected an OpenCentreValve")
        port = super().add_drive(drive)
        v = drive.valve.name
        drive.expose("CI", f"{v}/CI")
        drive.expose("CO", f"{v}/CO")
        self._chain(drive.name, drive.valve, f"{drive.name}/CI", f"{drive.name}/CO")
        return port

    def add_motor(self, drive) -> str:
        """Add a :class:`~components.hydraulics.SwingDrive` whose valve is an
        :class:`OpenCentreValve`: one more section, its bypass chained on the centre gallery
        as the others; returns its shaft port ``"<name>.M"``.

        Parameters
        ----------
        drive : SwingDrive

        Returns
        -------
        str
        """
        if not isinstance(getattr(drive, "valve", None), OpenCentreValve):
            raise ParameterError(f"open-centre circuit {self.name!r}: section {getattr(drive, 'name', drive)!r} "
                                 f"has valve {_what(getattr(drive, 'valve', None))}, expected an OpenCentreValve")
        port = super().add_motor(drive)
        v = drive.valve.name
        drive.expose("CI", f"{v}/CI")
        drive.expose("CO", f"{v}/CO")
        self._chain(drive.name, drive.valve, f"{drive.name}/CI", f"{drive.name}/CO")
        return port

    def add_section(self, valve: OpenCentreValve) -> tuple[str, str]:
        """Add a bare valve section named after the valve (no cylinder); returns its work
        ports ``<name>.A``, ``<name>.B``, exposed for the caller to connect (a rig's loads).

        Parameters
        ----------
        valve : OpenCentreValve

        Returns
        -------
        tuple
        """
        name = getattr(valve, "name", None)
        if name in self.children:
            raise ParameterError(f"open-centre circuit {self.name!r}: a part named {name!r} exists "
                                 "already")
        if not isinstance(valve, OpenCentreValve):
            raise ParameterError(f"open-centre circuit {self.name!r}: section {name!r} has valve "
                                 f"{_what(valve)}, expected an OpenCentreValve")
        self.add(valve)
        p, t = self.power_unit.consumer(name)
        self.connect(f"{self.power_unit.name}/{p}", f"{name}/P")
        self.connect(f"{name}/T", f"{self.power_unit.name}/{t}")
        self._chain(name, valve, f"{name}/CI", f"{name}/CO")
        self.expose(f"{name}.A", f"{name}/A")
        self.expose(f"{name}.B", f"{name}/B")
        return f"{name}.A", f"{name}.B"

    def standby(self, max_flow: float | None = None) -> dict[str, float]:
        """Start values of the states below the circuit with every spool centred (no flow to
        the work ports): the pump flow ``q`` that its regulator holds against the gallery end,
        ``q = Q_max·α_cmd(p_n(q))`` with ``p_n(q)`` what the orifice and its relief pass ``q``
        at (stand-by, ``α = d_min``, when the stand-by flow already gives ``p_n ≥ p_n,max``),
        each volume upstream higher by the drop of the fully open bypass after it, the pump
        outlet above the first (the exact laws, their laminar bands included; main relief closed).

        Parameters
        ----------
        max_flow : float, optional
            The pump's full-displacement flow ``Q_max`` (m³/s) if not its own (a pump driven
            by an engine at another speed, or resized).

        Returns
        -------
        dict
        """
        from scipy.optimize import brentq

        pu, pump, ctl = self.power_unit, self.power_unit.pump, self.control
        x = sp.Symbol("p", real=True)
        law = orifice_flow(x, ctl.area, ctl.cd, pu.oil.density, ctl.p_tr)
        if ctl.relief is not None:
            law = law + ctl.relief.law(x + pu.tank_pressure, pu.tank_pressure)
        passes = sp.lambdify(x, law, "math")   # flow at a gauge drop p_n − p_T

        def drop(q: float) -> float:           # p_n − p_T passing q (the law rises monotonically)
            hi = 1e5
            while passes(hi) < q:
                hi *= 2
            return brentq(lambda p: passes(p) - q, 0.0, hi, xtol=1e-9, rtol=1e-14)

        q_max = pump.max_flow if max_flow is None else float(max_flow)

        def excess(q: float) -> float:
            return q_max * pump.command_value(pu.tank_pressure + drop(q)) - q

        q = pump.min_displacement * q_max
        if excess(q) > 0:                      # the stand-by flow leaves p_n below p_n,max
            q = brentq(excess, q, q_max, xtol=1e-15, rtol=1e-14)
        p = pu.tank_pressure + drop(q)
        out = {"neg/C_N.e": p}
        for k in reversed(range(len(self.order))):
            v = self.sections[self.order[k]]
            p += float(nominal_flow_inverse(sp.Float(q), 1.0, v.bypass_flow, v.bypass_dp, v.p_tr))
            out[f"gallery_{self.order[k - 1]}/C.e" if k else f"{pu.name}/{pu.pressure_state}"] = p
        out[f"{pu.name}/swash/x.value"] = q / q_max
        return out
