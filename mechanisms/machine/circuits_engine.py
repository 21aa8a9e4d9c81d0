"""The diesel engine behind a machine file's pumps: ``[circuit.engine]``.

With ``[circuit.engine]`` the pump of an ``"open-centre"`` or ``"load-sensing"`` circuit is
driven from the engine's shaft (:class:`components.hydraulics.EngineShaft`): its speed is
the shaft's, its torque loads the engine, the engine lugs down its full-load curve when the
pumps ask more than the curve gives and the run reports it. The pump is coupled directly
(pump speed = engine speed); ``pump_speed`` of ``[circuit.power_unit]`` is then only the
speed at which ``pump_displacement`` is quoted. The ``"fixed"`` circuit stays a teaching
case at its constant ``pump_speed``: the engine is not coupled, and the report says when
the pump's power exceeds the engine's rated power. The keys::

    [circuit.engine]
    rated_power = "110 kW"           # brake (net) power at rated speed
    rated_speed = "2000 rpm"
    high_idle = "2150 rpm"           # governor droop: zero torque here, rated torque at rated speed
    torque_curve = [["1000 rpm", "520 N*m"], ["1500 rpm", "650 N*m"], ["2000 rpm", "525 N*m"]]
    inertia = "1.5 kg*m^2"           # engine, flywheel and pumps
    displacement = "6.69 L"          # swept volume (friction torque fmep·V_d/4π)
    fmep = "1.6 bar"                 # friction mean effective pressure
    indicated_efficiency = 0.45      # Willans slope: fuel power = indicated power / η_i
    fuel_lhv = "42.8 MJ/kg"
    fuel_density = "835 kg/m^3"
    pump_displacement = "220 cm^3/rev"   # optional: the pumps on the shaft (summed), instead of
                                         # [circuit.power_unit] pump_displacement

Read-outs: ``engine_speed`` (rad/s), ``engine_torque`` (brake, N·m), ``engine_power``
(brake, W), ``engine_full_load_torque`` (N·m, the curve at the running speed),
``fuel_rate`` (m³/s) and ``fuel_power`` (W). The report gives the fuel in L/h, L over the
run, and per tonne or m³ moved when the run has the read-outs ``moved_mass`` (kg) or
``moved_volume`` (m³) (a soil or bucket-fill model provides them; without one these lines
are left out and say why).

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"})
>>> m.circuit.engine_driven, round(m.circuit.engine.rated_power / 1e3)
(True, 110)
>>> Machine.from_file(DATA / "excavator.toml").circuit.engine_driven       # the teaching case
False
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from bondgraph.errors import BondGraphError, ParameterError

from components.hydraulics.supply import speed_problem

from .quantities import to_si

__all__ = ["ENGINE_TABLE", "ENGINE_KEYS", "read_engine", "attach_engine", "engine_read_outs",
           "engine_report_lines", "engine_category", "events"]

#: the sub-table of ``[circuit]`` the engine is described in
ENGINE_TABLE = "engine"
#: key → (SI unit, required)
ENGINE_KEYS: dict[str, tuple[str, bool]] = {
    "rated_power": ("W", True), "rated_speed": (None, True), "high_idle": (None, True),
    "torque_curve": (None, True), "inertia": ("kg*m^2", False), "displacement": ("m^3", False),
    "fmep": ("Pa", False), "indicated_efficiency": ("", False), "fuel_lhv": ("J/kg", False),
    "fuel_density": ("kg/m^3", False), "pump_displacement": ("m^3/rev", False)}
#: the shaft component's name inside the circuit
SHAFT = "engine"
#: a run is lugging where the brake torque is within this fraction of the full-load curve
LUG_TOLERANCE = 0.02


def read_engine(ctx) -> Any:
    """The :class:`~components.hydraulics.DieselEngine` of ``[circuit.engine]``, ``None``
    without one; problems (named by key and line) go to ``ctx.problems``."""
    from components.hydraulics import DieselEngine

    raw = ctx.section.get(ENGINE_TABLE)
    if raw is None:
        return None
    path = f"circuit.{ENGINE_TABLE}"
    if not isinstance(raw, Mapping):
        ctx.bad(path, f"found {raw!r}, expected a table")
        return None
    n0 = len(ctx.problems)
    for k in raw:
        if k not in ENGINE_KEYS:
            ctx.bad(f"{path}.{k}", f"unknown key (known: {', '.join(ENGINE_KEYS)})")
    kw = {}
    for k, (unit, required) in ENGINE_KEYS.items():
        if k not in raw:
            if required:
                ctx.bad(f"{path}.{k}", "missing")
            continue
        v = raw[k]
        if unit:
            try:
                v = to_si(v, unit, key=f"{path}.{k}")
            except BondGraphError as exc:
                ctx.problems += [p.replace(": ", f" ({ctx.where(f'{path}.{k}')}): ", 1) for p in exc.problems]
                continue
        kw[k] = v
    pump_d = kw.pop("pump_displacement", None)
    if pump_d is not None and not pump_d > 0:
        ctx.bad(f"{path}.pump_displacement", f"found {raw['pump_displacement']!r}, expected a value > 0")
    failed = len(ctx.problems) > n0
    if failed:   # still check the rest, with stand-ins for what did not read (named already)
        stand_in = {"rated_power": 1e5, "rated_speed": "2000 rpm", "high_idle": "2150 rpm",
                    "torque_curve": [["1000 rpm", "600 N*m"], ["2000 rpm", "600 N*m"]]}
        for k, v in stand_in.items():
            if k in raw and k not in kw:
                kw[k] = v
        if any(k not in kw for k in stand_in):
            return None
    try:
        engine = DieselEngine(**(kw if failed else _in_si(kw)))
        if failed:
            return None
        object.__setattr__(engine, "pump_displacement", pump_d)
        return engine
    except BondGraphError as exc:
        ctx.problems += [f"{path!r} ({ctx.where(path)}): {p}" for p in exc.problems]
        return None


def _in_si(kw: dict[str, Any]) -> dict[str, Any]:
    """The engine's speeds (rev/s) and torques (N·m) as numbers, read by the machine file's
    unit cache (:mod:`.quantities`) so that a warm build never loads pint; a value it cannot
    read, or one out of range, is left as written for :class:`~components.hydraulics.DieselEngine`
    to name."""
    def plain(value: Any, unit: str) -> Any:
        if not isinstance(value, str) or (unit == "rev/s" and speed_problem(value)):
            return value
        try:
            x = to_si(value, unit, key="engine")
        except BondGraphError:
            return value
        return x if x > 0 else value

    out = dict(kw)
    for k in ("rated_speed", "high_idle"):
        if k in out:
            out[k] = plain(out[k], "rev/s")
    tc = out.get("torque_curve")
    if isinstance(tc, list) and all(isinstance(p, list) and len(p) == 2 for p in tc):
        out["torque_curve"] = [[plain(w, "rev/s"), plain(T, "N*m")] for w, T in tc]
    return out


def attach_engine(ctx, circuit) -> None:
    """Read ``[circuit.engine]`` and, for a circuit with a variable pump, drive its pump from
    the engine's shaft (which starts on its droop line at the pump's start torque)."""
    from components.hydraulics import EngineShaft

    engine = read_engine(ctx)
    if ctx.problems:
        raise ParameterError(ctx.problems, subject=f"circuit of {ctx.description.file.name}")
    circuit.engine = engine
    circuit.engine_driven = False
    if engine is None or ctx.section.get("type") == "fixed":
        return
    comp = circuit.component
    pu = comp.children.get("pu")
    if pu is None or not hasattr(pu, "drive_from_shaft"):
        raise ParameterError(f"'circuit.{ENGINE_TABLE}' ({ctx.where('circuit.' + ENGINE_TABLE)}): circuit "
                             f"type {ctx.section.get('type')!r} has no power unit 'pu' to drive")
    d_own = float(getattr(pu.pump, "displacement", 0.0) or 0.0)
    d_shaft = getattr(engine, "pump_displacement", None)
    from components.hydraulics import LSPump

    if isinstance(pu.pump, LSPump):
        # the load-sensing pump's limiters are hyperbolas at its own displacement and nominal
        # speed; on the engine's shaft the displacement is the engine's pump and the speed
        # varies, so they would hold the wrong torque: refused rather than silently off
        given = [k for k in ("torque_limit", "power_limit") if getattr(pu.pump, k, None) is not None]
        if given:
            raise ParameterError(f"'circuit.{ENGINE_TABLE}' ({ctx.where('circuit.' + ENGINE_TABLE)}): the "
                                 f"load-sensing pump's {' and '.join(given)} are not applied on an engine's "
                                 "shaft (they assume its own displacement at a constant speed); remove them, "
                                 "or the [circuit.engine] table to run the pump at its constant speed")
    port = pu.drive_from_shaft(scale=d_shaft / d_own if (d_shaft and d_own) else 1.0)
    hc = getattr(circuit, "hydraulic", None)
    # the shaft's start guess: where the droop line carries the pump's start torque D·α·p/(2π);
    # an open centre's stand-by start is recomputed at the driven pump's flow at that speed
    w0 = engine.high_idle_omega
    for _ in range(3):
        if hasattr(hc, "standby"):
            q_max = pu.shaft_displacement * w0 / (2 * math.pi)
            circuit.supply.update(hc.standby(max_flow=q_max))
            circuit.max_flow = q_max
            circuit.standby_pressure = circuit.supply["neg/C_N.e"]
        p0 = circuit.supply.get(f"pu/{pu.pressure_state}", 0.0)
        a0 = circuit.supply.get("pu/swash/x.value", 0.0)
        w0 = engine.governed_speed(pu.shaft_displacement * a0 * p0 / (2 * math.pi))
    shaft = comp.add(EngineShaft(SHAFT, engine, initial_speed=w0))
    comp.connect(f"{SHAFT}/{shaft.drive('pump')}", f"pu/{port}")
    state = f"{SHAFT}/{shaft.speed_state}"         # solved with the supply, from that guess
    circuit.supply[state] = w0
    circuit.dimensionless = frozenset(circuit.dimensionless | {state})
    circuit.engine_driven = True


def engine_category(element: str) -> str | None:
    """Energy-split category of an element of the engine shaft (``None``: not the engine)."""
    if not element.startswith(f"{SHAFT}/"):
        return None
    leaf = element.rsplit("/", 1)[-1]
    return {"engine": "engine", "friction": "engine friction",
            "J": "engine and pump rotation"}.get(leaf, "engine")


def engine_read_outs(circuit, res, prefix: str, extra: Mapping | None = None) -> dict[str, tuple[np.ndarray, str]]:
    """The engine's read-outs of a run (empty without a driven engine)."""
    engine = getattr(circuit, "engine", None)
    if engine is None or not getattr(circuit, "engine_driven", False):
        return {}
    extra = extra or {}
    w = res[f"{prefix}/{SHAFT}/J.f"]
    T_i = res.effort(f"{prefix}/{SHAFT}/engine")
    T_b = T_i - engine.friction_torque * np.tanh(w)
    out = {}
    pu = circuit.component.children.get("pu")
    D = getattr(pu, "shaft_displacement", 0.0)
    if D and "pump_flow" in extra:
        out["pump_displacement"] = (extra["pump_flow"][0] / np.maximum(D * w / (2 * math.pi), 1e-12), "1")
    return out | {"engine_speed": (w, "rad/s"), "engine_torque": (T_b, "N*m"),
            "engine_power": (T_b * w, "W"), "engine_full_load_torque": (engine.full_load_value(w), "N*m"),
            "fuel_rate": (engine.fuel_rate(T_i, w), "m^3/s"), "fuel_power": (engine.fuel_power(T_i, w), "W")}


def events(t: np.ndarray, flag: np.ndarray) -> list[tuple[float, float]]:
    """``(start, end)`` times of the runs of ``True`` in ``flag``.

    Parameters
    ----------
    t : array
    flag : array of bool

    Returns
    -------
    list of (float, float)

    Examples
    --------
    >>> events(np.arange(6.0), np.array([0, 1, 1, 0, 1, 0], bool))
    [(1.0, 2.0), (4.0, 4.0)]
    """
    out, start = [], None
    for k, f in enumerate(flag):
        if f and start is None:
            start = k
        if not f and start is not None:
            out.append((float(t[start]), float(t[k - 1])))
            start = None
    if start is not None:
        out.append((float(t[start]), float(t[-1])))
    return out


def _spans(spans: list[tuple[float, float]]) -> str:
    shown = ", ".join(f"{a:.2f} … {b:.2f} s" for a, b in spans[:4])
    return shown + (f" and {len(spans) - 4} more" if len(spans) > 4 else "")


def engine_report_lines(circuit, tab: Mapping[str, np.ndarray]) -> list[str]:
    """The report's engine and fuel lines (lugging and stall named; the fixed teaching case
    compares its pump power with the engine's rated power)."""
    engine = getattr(circuit, "engine", None)
    if engine is None:
        return []
    t = tab["time"]
    rpm = 30 / math.pi
    lines = []
    if not getattr(circuit, "engine_driven", False):
        lines.append(f"  engine {engine.rated_power / 1e3:.0f} kW at {engine.rated_speed * 60:.0f} rpm: "
                     "not coupled (the fixed circuit's pump turns at its constant pump_speed)")
        if "pump_power" in tab:
            P = tab["pump_power"]
            over = events(t, P > engine.rated_power)
            if over:
                lines.append(f"    pump power exceeds the engine's rated power ({P.max() / 1e3:.0f} kW vs "
                             f"{engine.rated_power / 1e3:.0f} kW) from t={_spans(over)}")
            else:
                lines.append(f"    pump power within the engine's rated power (peak {P.max() / 1e3:.0f} kW "
                             f"of {engine.rated_power / 1e3:.0f} kW)")
        return lines
    w, Tb, Tfull = tab["engine_speed"], tab["engine_torque"], tab["engine_full_load_torque"]
    P = tab["engine_power"]
    lines.append(f"  engine: {engine.rated_power / 1e3:.0f} kW at {engine.rated_speed * 60:.0f} rpm; speed "
                 f"{w.min() * rpm:.0f} … {w.max() * rpm:.0f} rpm, brake power mean "
                 f"{float(np.trapezoid(P, t)) / max(t[-1] - t[0], 1e-12) / 1e3:.1f} kW, peak {P.max() / 1e3:.1f} kW")
    stall = events(t, w < float(engine.curve[0][0]))
    lug = events(t, Tb >= (1 - LUG_TOLERANCE) * Tfull)
    if stall:
        lines.append(f"    ENGINE STALLS (below {engine.curve[0][0] * rpm:.0f} rpm, the curve's lowest speed) "
                     f"from t={_spans(stall)}")
    if lug:
        lines.append(f"    engine lugs (at its full-load torque curve, the governor cannot hold speed) from "
                     f"t={_spans(lug)}, down to {w.min() * rpm:.0f} rpm")
    elif not stall:
        lines.append("    within the engine's full-load torque curve throughout (no lugging)")
    q = tab["fuel_rate"]
    dur = max(t[-1] - t[0], 1e-12)
    chain = [("fuel", tab["fuel_power"]), ("shaft (brake)", P)]
    if "pump_power" in tab:
        chain.append(("pump (hydraulic)", tab["pump_power"]))
    lines.append("    energy chain over the run: " + " → ".join(
        f"{name} {float(np.trapezoid(p, t)) / 1e3:.1f} kJ" for name, p in chain))
    litres = float(np.trapezoid(q, t)) * 1e3
    lines.append(f"    fuel {litres / dur * 3600:.1f} L/h mean; {litres:.3f} L over the run ({dur:.1f} s)")
    moved = [f"{litres / float(tab['moved_volume'][-1]):.3f} L per m³ (bank)"
             for _ in [0] if "moved_volume" in tab and tab["moved_volume"][-1] > 0]
    moved += [f"{litres / (float(tab['moved_mass'][-1]) / 1e3):.3f} L per tonne"
              for _ in [0] if "moved_mass" in tab and tab["moved_mass"][-1] > 0]
    if moved:
        what = []
        if "moved_volume" in tab:
            what.append(f"{float(tab['moved_volume'][-1]):.3f} m³ (bank)")
        if "moved_mass" in tab:
            what.append(f"{float(tab['moved_mass'][-1]) / 1e3:.3f} t")
        lines.append(f"    moved {', '.join(what)}: " + ", ".join(moved))
    elif "moved_volume" in tab or "moved_mass" in tab:
        lines.append("    nothing dumped over the run (moved_volume 0): no fuel per m³ or tonne")
    if "moved_volume" not in tab and "moved_mass" not in tab:
        lines.append("    (fuel per m³ or tonne moved: the run has no soil or bucket fill, read-outs "
                     "moved_volume / moved_mass)")
    return lines
