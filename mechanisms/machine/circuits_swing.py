"""The swing valve section of a machine's circuit: a swinging machine in mode ``valves``.

A machine with ``[swing]`` run in mode ``valves`` has one more valve section in its circuit,
whatever its type, named ``swing``: the same valve template as the cylinder sections of
that circuit (a closed-centre 4/3 valve in the ``"fixed"`` circuit, an open-centre section
on the centre gallery in ``"open-centre"`` — it throttles the bypass as the others do — and
a pressure-compensated section whose load pressure goes to the shuttle network in
``"load-sensing"``), its work ports ``A``/``B`` on a :class:`~components.hydraulics.SwingMotor`
whose shaft drives the :class:`~components.Turntable` (``drive="port"``) through the gear
(:class:`~components.hydraulics.SwingDrive`). Its spool command is the input ``swing.cmd``
(−1 … 1, positive turning the swing angle up), a valves cycle's ``swing`` column.

The data: the valve's metering in ``[circuit.valves.swing]`` (the cylinder sections' keys
but the hoses: the oil between the valve and the motor is the motor's ``motor_volume``),
the motor's in ``[swing]``::

    [swing]
    motor_displacement = "150 cm^3/rev"    # required in mode valves
    motor_volume = "2 L"                   # each side, with its lines (default 2 L)
    motor_leakage = "0 m^3/(s*Pa)"         # A to B inside the motor (default 0)
    crossover_crack = "250 bar"            # crossover relief valves, both ways (all three or none)
    crossover_full = "270 bar"
    crossover_flow = "250 L/min"
    [circuit.valves.swing]
    flow = "225 L/min"                     # one metering edge at dp: about the motor's
    dp = "10 bar"                          # displacement × its top speed
    spool_bandwidth = "10 Hz"
    makeup_conductance = "1e-7 m^3/s/Pa"   # anti-cavitation: refills the low side when braking

Centred, the closed centre blocks the motor's ports: the swing is held by the trapped oil
and braked by the crossover relief, whose heat is the energy split's ``swing crossover
relief`` row. The run table gains ``swing_command`` (the spool command),
``swing_pressure_A``/``_B`` (Pa), ``swing_crossover_flow`` (m³/s, A→B) and
``swing_supply_power`` (W, what the section draws from the supply).

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator_truck.toml", mode="valves")
>>> m.circuit.swing.valve.__class__.__name__, m.turntable.drive, "swing.cmd" in m.model.model.input_names
('OpenCentreValve', 'port', True)
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from bondgraph import Input
from bondgraph.errors import BondGraphError, ParameterError

__all__ = ["SWING_SECTION", "SWING_VALVE_KEYS", "read_swing_valve", "add_swing",
           "swing_circuit_read_outs", "swing_section_line"]

#: the swing section's name in the circuit (its valve table ``[circuit.valves.swing]``, its
#: input ``swing.cmd``)
SWING_SECTION = "swing"
#: ``[circuit.valves.swing]``: the cylinder sections' keys but the hoses (key → (SI unit, default, check))
SWING_VALVE_KEYS: dict[str, tuple] = {
    "flow": ("m^3/s", ..., "positive"), "dp": ("Pa", ..., "positive"), "leakage": ("", 0.0, "nonneg"),
    "spool_bandwidth": ("Hz", None, "positive"), "spool_damping": ("", 1.0, "positive"),
    "makeup_conductance": ("m^3/s/Pa", None, "positive"), "makeup_crack": ("Pa", 3e4, "nonneg")}


def read_swing_valve(ctx, valves: Mapping[str, Any]) -> dict[str, Any] | None:
    """``[circuit.valves.swing]`` read (problems collected in ``ctx``); ``None`` for a machine
    without ``[swing]`` (its swing table is then refused by name: no [swing] to drive).

    Examples
    --------
    >>> from mechanisms.machine import DATA, MachineDescription
    >>> from mechanisms.machine.circuits import CircuitContext
    >>> d = MachineDescription.load(DATA / "excavator_truck.toml")
    >>> ctx = CircuitContext(section=d.circuit, description=d, functions=d.functions, lengths={},
    ...                      commands={}, symbols={})
    >>> round(float(read_swing_valve(ctx, d.circuit["valves"])["flow"]) * 6e4)    # L/min
    225
    """
    if ctx.description.swing is None:
        return None
    key = f"circuit.valves.{SWING_SECTION}"
    if not isinstance(valves, Mapping) or SWING_SECTION not in valves:
        ctx.bad(key, "missing: a machine with [swing] in mode valves needs its swing valve section "
                     "(flow, dp, ... as a cylinder's valve, without hoses)")
        return None
    return ctx.read(key, valves[SWING_SECTION], SWING_VALVE_KEYS)


def _motor(ctx, oil):
    """The :class:`~components.hydraulics.SwingMotor` of ``[swing]`` (problems collected)."""
    from components.hydraulics import ReliefValve, SwingMotor

    sw = ctx.description.swing
    n0 = len(ctx.problems)
    if sw.get("motor_displacement") is None:
        ctx.bad("swing.motor_displacement", "missing: mode valves turns the swing by its hydraulic motor "
                                            "(e.g. \"150 cm^3/rev\")")
    relief = [k for k in ("crossover_crack", "crossover_full", "crossover_flow") if sw.get(k) is not None]
    if relief and len(relief) != 3:
        for k in ("crossover_crack", "crossover_full", "crossover_flow"):
            if k not in relief:
                ctx.bad(f"swing.{k}", "missing (the crossover relief needs crossover_crack, crossover_full and "
                                      "crossover_flow)")
    elif relief and not sw["crossover_full"] > sw["crossover_crack"]:
        ctx.bad("swing.crossover_full", f"found {sw['crossover_full'] / 1e5:g} bar, expected above "
                                        f"'swing.crossover_crack' ({sw['crossover_crack'] / 1e5:g} bar)")
    if len(ctx.problems) > n0 or oil is None:
        return None
    crossover = (ReliefValve(sw["crossover_crack"], sw["crossover_full"], sw["crossover_flow"])
                 if relief else None)
    try:
        return SwingMotor("motor", displacement=sw["motor_displacement"], oil=oil, volume_A=sw["motor_volume"],
                          volume_B=sw["motor_volume"], crossover=crossover, leakage=sw["motor_leakage"])
    except BondGraphError as exc:
        ctx.problems += [f"'swing' ({ctx.where('swing')}): {p}" for p in exc.problems]
        return None


def add_swing(ctx, hc, oil, valve: Mapping[str, Any] | None, *, valve_type=None,
              valve_kw: Mapping[str, Any] | None = None) -> Any:
    """Add the swing section (valve of ``valve_type`` + the motor of ``[swing]``) to the
    circuit ``hc`` (:meth:`~components.hydraulics.HydraulicCircuit.add_motor`: exposes
    ``swing.M``) and return it (a :class:`~components.hydraulics.SwingDrive`); ``None`` for a
    machine without ``[swing]``. Raises every problem of the circuit's and the swing's tables
    at once.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "excavator_truck.toml", mode="valves",
    ...                       overrides={"circuit.type": "fixed"})
    >>> "swing.M" in m.circuit.component.ports, m.circuit.swing.valve.__class__.__name__
    (True, 'DirectionalValve')
    """
    from components.hydraulics import DirectionalValve, SpoolDynamics, SwingDrive

    if ctx.description.swing is None:
        return None
    motor = _motor(ctx, oil)
    if ctx.problems or valve is None or motor is None:
        raise ParameterError(ctx.problems, subject=f"circuit of {ctx.description.file.name}")
    v = valve
    spool = SpoolDynamics(v["spool_bandwidth"], v["spool_damping"]) if v["spool_bandwidth"] is not None else None
    try:
        vt = valve_type or DirectionalValve
        sv = vt("valve", q_nominal=v["flow"], dp_nominal=v["dp"], command=Input(f"{SWING_SECTION}.cmd"),
                spool=spool, leakage=v["leakage"], makeup=v["makeup_conductance"], makeup_crack=v["makeup_crack"],
                **(valve_kw or {}))
        drive = SwingDrive(SWING_SECTION, valve=sv, motor=motor)
        hc.add_motor(drive)
    except BondGraphError as exc:
        raise ParameterError([f"'circuit.valves.{SWING_SECTION}' ({ctx.where(f'circuit.valves.{SWING_SECTION}')}): {p}"
                              for p in exc.problems], subject=f"circuit of {ctx.description.file.name}") from None
    return drive


def attach(circuit, drive, valve: Mapping[str, Any]) -> None:
    """Tell a built :class:`~.circuits.Circuit` about its swing section (its states, read-outs,
    gains for a tracking operator); nothing without one."""
    circuit.swing = drive
    if drive is None:
        return
    circuit.valve_gains[SWING_SECTION] = float(valve["flow"]) / math.sqrt(float(valve["dp"]))


def swing_section_line(circuit) -> str | None:
    """``hydrobond check``'s line on the swing section (``None`` without one).

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> print(swing_section_line(Machine.from_file(DATA / "excavator_truck.toml", mode="valves").circuit))
      swing: OpenCentreValve section 225 L/min at 10 bar per edge, motor 150 cm³/rev, crossover relief 250 … 270 bar
    """
    drive = getattr(circuit, "swing", None)
    if drive is None:
        return None
    v, motor = drive.valve, drive.motor
    relief = motor.crossover
    cross = ("no crossover relief" if relief is None else
             f"crossover relief {relief.crack_pressure / 1e5:g} … {relief.full_pressure / 1e5:g} bar")
    return (f"  swing: {type(v).__name__} section {v.q_nominal * 6e4:g} L/min at {v.dp_nominal / 1e5:g} bar per "
            f"edge, motor {motor.displacement * 1e6:g} cm³/rev, {cross}")


def swing_states(circuit) -> list[str]:
    """The swing motor's pressure states below the circuit's component (none without a swing)."""
    drive = getattr(circuit, "swing", None)
    if drive is None:
        return []
    return [f"{drive.name}/{drive.state('pA')}", f"{drive.name}/{drive.state('pB')}"]


def swing_circuit_read_outs(circuit, res, prefix: str) -> dict[str, tuple[np.ndarray, str]]:
    """``swing_spool``, ``swing_pressure_A``/``_B`` (Pa), ``swing_crossover_flow`` (m³/s,
    A→B), ``swing_supply_flow`` (m³/s into the section's ``P``) and ``swing_supply_power`` (W:
    the hydraulic power the section draws from the supply, net of what it returns to tank)
    along a run; empty without a swing section."""
    drive = getattr(circuit, "swing", None)
    if drive is None:
        return {}
    base = f"{prefix}/{drive.name}"
    pA = np.asarray(res[f"{base}/{drive.state('pA')}"], dtype=float)
    pB = np.asarray(res[f"{base}/{drive.state('pB')}"], dtype=float)
    out = {"swing_pressure_A": (pA, "Pa"), "swing_pressure_B": (pB, "Pa")}
    motor = drive.motor
    if motor.crossover is not None or motor.leakage > 0:
        out["swing_crossover_flow"] = (np.asarray(res.flow(f"{base}/{motor.name}/crossover"), dtype=float),
                                       "m^3/s")
    g = res.model.graph
    feed = next((k for u, v, k in g.edges(keys=True) if v == f"{base}/{drive.valve.name}/nP"), None)
    drain = next((k for u, v, k in g.edges(keys=True) if u == f"{base}/{drive.valve.name}/nT"), None)
    if feed is not None and drain is not None:   # what the section draws from the supply, net of its return
        power = res.effort(feed) * res.flow(feed) - res.effort(drain) * res.flow(drain)
        out["swing_supply_flow"] = (np.asarray(res.flow(feed), dtype=float), "m^3/s")
        out["swing_supply_power"] = (np.asarray(power, dtype=float), "W")
    if drive.valve.spool is not None:
        out["swing_spool"] = (np.asarray(res[f"{base}/{drive.valve.name}/spool/x.pos"], dtype=float), "1")
    return out
