"""Test and benchmark rigs for load-sensing hydraulics, built from the templates only.

:func:`load_rig` — one or more *functions*, each a single-acting cylinder
lifting a constant load (a force on its rod and a moving mass) through a valve
section; the valves' ``B`` ports are plugged (small volumes). Two supplies:

* ``circuit="ls"`` — an :class:`LSCircuit`: load-sensing pump, compensated
  sections (``compensation="pre"`` or ``"post"``), shuttle network;
* ``circuit="fixed"`` — today's circuit: a fixed-displacement pump of the same
  size, a relief valve and plain closed-centre valves with the same metering;
* ``circuit="open-centre"`` — an :class:`OpenCentreCircuit`: a negative-control
  pump (``nfc_pump``), open-centre sections with the same metering and a centre
  bypass each, the gallery ending in the negative-control orifice (``control``).

At a constant rod speed the cap pressure of a function is ``F/A`` (the rod
side is vented), which is the independent reference the tests use.

Examples
--------
>>> rig = load_rig({"lift": 100e3}, commands={"lift": 0.5})
>>> rig.area["lift"] > 0, rig.pump_pressure
(True, 'rig/hyd/pu/C_P.e')
>>> sorted(rig.model.state_names)[:3]
['rig/hyd/lift/ls/C.e', 'rig/hyd/pu/C_P.e', 'rig/hyd/pu/rate/x.value']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from bondgraph import BondGraph, Input, Se, build
from bondgraph.model import Model

from .chamber import Chamber
from .compensator import CompensatedValve, Compensator
from .cylinder import HydraulicCylinder
from .friction import Friction
from .ls_circuit import LSCircuit
from .oil import Oil
from .open_centre import NegativeControl, OpenCentreCircuit, OpenCentreValve
from .pump_nfc import NFCPump
from .pump_ls import LSPowerUnit, LSPump
from .pump_nfc import NFCPowerUnit
from .shuttle import HybridShuttle, SmoothShuttle
from .supply import FixedPump, PowerUnit, ReliefValve
from .valves import DirectionalValve

__all__ = ["LoadRig", "load_rig", "RIG_PUMP", "RIG_RELIEF", "RIG_NFC_PUMP", "RIG_NEGATIVE_CONTROL"]

#: The rig's pump: 100 cm³/rev at 1500 rpm (150 L/min), 20 bar margin (typical LS values;
#: estimates), 10 ms swash plate (OpenHydraulics' time constant).
RIG_PUMP = LSPump("100 cm^3/rev", "1500 rpm", "20 bar", time_constant="10 ms")
#: Relief valve of both supplies (cracks 300 bar, as OpenHydraulics' power unit).
RIG_RELIEF = ReliefValve(crack="300 bar", full="310 bar", q_rated="200 L/min")
#: The open-centre rig's pump: the same size, 20 % stand-by (30 L/min), full displacement
#: below 8 bar of negacon pressure, stand-by above 30 bar, 50 ms swash plate (estimates).
RIG_NFC_PUMP = NFCPump("100 cm^3/rev", "1500 rpm", min_displacement=0.2, control_min="8 bar",
                       control_max="30 bar", time_constant="50 ms")
#: Its negative-control orifice: 3.2 mm (34 bar at the 30 L/min stand-by flow, above
#: p_n,max: the pump rests at stand-by), with a 40 bar relief in parallel (estimates).
RIG_NEGATIVE_CONTROL = NegativeControl(diameter="3.2 mm", cd=0.7, relief=ReliefValve(
    crack="40 bar", full="45 bar", q_rated="150 L/min"))


@dataclass
class LoadRig:
    """A built rig and the names a test needs.

    Attributes
    ----------
    model : Model
    circuit : LSCircuit, OpenCentreCircuit or None
        ``None`` for the fixed-pump rig.
    area : dict
        Function → cap area (m²).
    force : dict
        Function → load force (N).
    pump_pressure : str
        State of the pump outlet pressure.
    x0 : dict
        Initial state overrides (each cap side holding its load).
    hybrid : HybridModel or None
        With a :class:`HybridShuttle`: the hybrid model (its ``model`` is :attr:`model`).

    Examples
    --------
    On the fixed-pump rig, a cylinder lifting 50 kN slowly holds ``p_A = F/A_A``, and
    the pump blows off over the relief valve (above its 300 bar cracking pressure):

    >>> from bondgraph import simulate
    >>> rig = load_rig({"lift": 50e3}, commands={"lift": 0.5}, circuit="fixed")
    >>> res = simulate(rig.model, (0.0, 1.0), x0=rig.x0, method="CVODE", progress=False)
    >>> p_A = float(res[rig.cap_pressure("lift")][-1])
    >>> bool(abs(p_A * rig.area["lift"] / 50e3 - 1) < 1e-4), bool(res[rig.pump_pressure][-1] > 300e5)
    (True, True)
    """

    model: Model
    circuit: LSCircuit | None
    area: dict[str, float]
    force: dict[str, float]
    pump_pressure: str
    x0: dict[str, float] = field(default_factory=dict)
    hybrid: Any = None
    prefix: str = "rig"
    command: dict[str, Any] = field(default_factory=dict)

    def velocity(self, f: str) -> str:
        """State of a function's rod velocity.

        Parameters
        ----------
        f : str
            Function name.

        Returns
        -------
        str
        """
        return f"{self.prefix}/{f}_cyl/m.f"

    def cap_pressure(self, f: str) -> str:
        """State of a function's cap pressure.

        Parameters
        ----------
        f : str

        Returns
        -------
        str
        """
        return f"{self.prefix}/{f}_cyl/C_A.e"

    def position(self, f: str) -> str:
        """State of a function's rod position (extension).

        Parameters
        ----------
        f : str

        Returns
        -------
        str
        """
        return f"{self.prefix}/{f}_cyl/piston.s"

    @property
    def pump_source(self) -> str:
        """The pump's flow source (its bond flow is the delivered flow)."""
        return f"{self.prefix}/hyd/pu/pump" if self.circuit is not None else f"{self.prefix}/pu/pump"

    @property
    def negacon_pressure(self) -> str:
        """State of the negacon pressure ``p_n`` (open-centre rig)."""
        return f"{self.prefix}/hyd/neg/C_N.e"

    def displacement(self, res) -> np.ndarray:
        """Swash-plate position ``α = Q/(D·n)`` over a run (LS and open-centre rigs).

        Parameters
        ----------
        res
            A run's results.

        Returns
        -------
        ndarray
        """
        return res.flow(self.pump_source) / self.circuit.power_unit.pump.max_flow

    def metering_drop(self, res, f: str) -> np.ndarray:
        """Drop across a section's meter-in edge from its flow by the orifice law (LS rig, Pa):
        ``Δp_N·(Q/(Q_N·x))²`` with the command ``x`` of :func:`load_rig`.

        Parameters
        ----------
        res
            A run's results.
        f : str

        Returns
        -------
        ndarray
        """
        v = self.circuit.sections[f]
        q = res[self.velocity(f)] * self.area[f]
        return v.dp_nominal * (q / (v.q_nominal * self.command[f])) ** 2


def load_rig(forces: Mapping[str, Any], *, commands: Mapping[str, Any] | None = None,
             circuit: str = "ls", compensation: str = "post", setting: Any = None,
             pump: LSPump = RIG_PUMP, relief: ReliefValve | None = RIG_RELIEF,
             shuttle: SmoothShuttle | HybridShuttle | None = None, q_nominal: Any = "60 L/min",
             dp_nominal: Any = "10 bar", bore: Any = "80 mm", stroke: Any = "1 m",
             mass: float = 500.0, viscous: float = 0.0, oil: Oil | None = None,
             p_tr: Any = "0.2 bar", compensator_lag: Any = None, nfc_pump: NFCPump = RIG_NFC_PUMP,
             control: NegativeControl = RIG_NEGATIVE_CONTROL, bypass_flow: Any = "150 L/min",
             bypass_dp: Any = "5 bar", bypass_closed: float = 0.5, name: str = "rig") -> LoadRig:
    """Functions lifting constant loads from a load-sensing or a fixed-pump supply.

    The open-centre rig starts at stand-by (:meth:`OpenCentreCircuit.standby`), its
    sections chained in the order of ``forces``.

    Parameters
    ----------
    forces : mapping
        Function name → load force (N, resisting extension); a number or any
        expression (of ``t``, an :func:`~bondgraph.Input`...).
    commands : mapping, optional
        Function name → valve command (0…1; number, expression or input).
        Default: the input ``<function>.cmd``.
    circuit : {"ls", "fixed", "open-centre"}
    compensation : {"pre", "post"}
    setting : optional
        Compensator setting (default: 12 bar for ``"pre"``, 0 for ``"post"``).
    pump : LSPump
        The LS pump; the fixed pump has its displacement and speed.
    relief : ReliefValve, optional
    shuttle : optional
        Shuttle model of the LS rig (default smooth, 0.5 bar). A
        :class:`HybridShuttle` makes :attr:`LoadRig.hybrid`.
    q_nominal, dp_nominal : valve metering (every edge)
    bore, stroke, mass, viscous : each function's cylinder, moving mass (kg) and
        viscous friction (N·s/m)
    oil : Oil
    p_tr : laminar transition of the valve orifices
    compensator_lag : optional
        Time constant of the compensators (default: quasi-static).
    nfc_pump, control : NFCPump, NegativeControl
        The open-centre rig's pump and the end of its gallery.
    bypass_flow, bypass_dp, bypass_closed
        Each open-centre section's centre bypass (:class:`OpenCentreValve`).

    Returns
    -------
    LoadRig

    Raises
    ------
    ParameterError
        An unknown circuit, and whatever the templates refuse.

    Examples
    --------
    Flow sharing (post-compensation): the pump saturates (150 L/min against a demand
    of about 255), and the two functions still move in the ratio of their openings:

    >>> from bondgraph import simulate
    >>> rig = load_rig({"boom": 60e3, "arm": 20e3}, commands={"boom": 1.0, "arm": 0.5},
    ...                compensation="post", q_nominal="120 L/min")
    >>> res = simulate(rig.model, (0.0, 1.0), x0=rig.x0, method="CVODE", progress=False)
    >>> q = {f: res[rig.velocity(f)][-1] * rig.area[f] for f in ("boom", "arm")}
    >>> round(float(q["boom"] / q["arm"]), 4), round(float(res.flow(rig.pump_source)[-1]) * 6e4, 3)
    (2.0, 150.0)
    """
    from bondgraph.units import to_si
    from bondgraph.errors import ParameterError

    if circuit not in ("ls", "fixed", "open-centre"):
        raise ParameterError(f"load rig: circuit = {circuit!r}, expected 'ls', 'fixed' or "
                             "'open-centre'")
    oil = oil or Oil(bulk_modulus=1.4e9)
    commands = dict(commands or {f: Input(f"{f}.cmd") for f in forces})
    bg = BondGraph(name)
    if circuit == "ls":
        comp = Compensator(compensation, setting if setting is not None else
                           ("12 bar" if compensation == "pre" else 0.0), compensator_lag)
        pu = LSPowerUnit("pu", oil=oil, pump=pump, relief=relief, volume="1 L",
                         initial_pressure=pump.margin)
        hyd = bg.add(LSCircuit("hyd", pu, shuttle=shuttle))
    elif circuit == "open-centre":
        pu = NFCPowerUnit("pu", oil=oil, pump=nfc_pump, relief=relief, volume="1 L")
        hyd = bg.add(OpenCentreCircuit("hyd", pu, control))
    else:
        pu = bg.add(PowerUnit("pu", oil=oil, pump=FixedPump(pump.displacement, pump.speed),
                              relief=relief, volume="1 L"))
        hyd = None
    area, force, x0 = {}, {}, {}
    for f, F in forces.items():
        if circuit == "ls":
            valve = CompensatedValve(f, q_nominal=q_nominal, dp_nominal=dp_nominal,
                                     command=commands[f], compensator=comp, oil=oil, p_tr=p_tr)
            a_port, b_port = (f"hyd/{p}" for p in hyd.add_section(valve))
        elif circuit == "open-centre":
            valve = OpenCentreValve(f, q_nominal=q_nominal, dp_nominal=dp_nominal,
                                    command=commands[f], bypass_flow=bypass_flow,
                                    bypass_dp=bypass_dp, bypass_closed=bypass_closed, p_tr=p_tr)
            a_port, b_port = (f"hyd/{p}" for p in hyd.add_section(valve))
        else:
            bg.add(DirectionalValve(f, q_nominal=q_nominal, dp_nominal=dp_nominal,
                                    command=commands[f], p_tr=p_tr))
            p, t = pu.consumer(f)
            bg.connect(f"pu/{p}", f"{f}/P")
            bg.connect(f"{f}/T", f"pu/{t}")
            a_port, b_port = f"{f}/A", f"{f}/B"
        cyl = HydraulicCylinder(f"{f}_cyl", bore=bore, stroke=stroke, oil=oil, single_acting=True,
                                x0=0.1, piston_mass=mass, dead_volumes=("0.2 L", 0.0),
                                friction=Friction(viscous=viscous) if viscous else None)
        bg.add(cyl, Se(f"{f}_load", -F if not isinstance(F, (int, float)) else -float(F)),
               Chamber(f"{f}_plug", to_si("0.01 L", "m^3"), oil, ports=("B",)))
        bg.connect(a_port, f"{f}_cyl/A")
        bg.connect(f"{f}_load", f"{f}_cyl/I")
        bg.connect(f"{f}_plug/B", b_port)
        area[f] = cyl.area_A
        force[f] = F
        if isinstance(F, (int, float)):
            x0[f"{name}/{f}_cyl/C_A.e"] = float(F) / cyl.area_A
    pp = f"{name}/hyd/pu/C_P.e" if circuit != "fixed" else f"{name}/pu/C_P.e"
    if circuit == "open-centre":
        x0.update({f"{name}/hyd/{k}": v for k, v in hyd.standby().items()})
    if circuit == "ls" and isinstance(shuttle, HybridShuttle):
        hm = hyd.hybrid_model(bg)
        return LoadRig(hm.model, hyd, area, force, pp, x0, hybrid=hm, prefix=name, command=commands)
    return LoadRig(build(bg), hyd, area, force, pp, x0, prefix=name, command=commands)
