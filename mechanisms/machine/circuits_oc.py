"""The ``"open-centre"`` circuit of machine files: negative-control pump, open-centre sections.

The third common layout (:mod:`components.hydraulics.open_centre`): a
variable pump with negative flow control, one open-centre 6-port section per
function fed in parallel through a load-holding check, the sections' centre
bypasses in series (the centre gallery) ending in the negative-control orifice
(and its relief) whose upstream pressure ``p_n`` strokes the pump back.

It shares ``[circuit.oil]``, ``[circuit.power_unit]`` (the pump's maximum
displacement and speed, the main relief valve, the outlet volume, the tank
pressure) and ``[circuit.valves.<function>]`` (the metering edges) with the
other circuits, so one machine file describes all three; what only the open
centre needs is in ``[circuit.open_centre]``, which the other circuit types skip.
``--set circuit.type=open-centre`` (or ``overrides={"circuit.type": "open-centre"}``)
selects it::

    [circuit.open_centre]
    min_displacement = 0.07            # stand-by displacement d_min / D_max (0 < · < 1)
    control_min = "8 bar"              # p_n at and below which the pump is at full displacement
    control_max = "30 bar"             # p_n at and above which it is at stand-by
    time_constant = "50 ms"            # swash-plate lag (default 50 ms)
    orifice_diameter = "4.1 mm"        # negative-control orifice
    orifice_cd = 0.7                   # its discharge coefficient (default 0.7)
    negacon_relief_crack = "40 bar"    # relief in parallel with the orifice (all three or none)
    negacon_relief_full = "45 bar"
    negacon_relief_flow = "720 L/min"
    bypass_flow = "720 L/min"          # each section's fully open centre bypass at bypass_dp
    bypass_dp = "10 bar"
    bypass_closed = 0.5                # spool travel at which the bypass is closed (default 0.5)
    gallery_volume = "0.1 L"           # oil between two sections (default 0.1 L)
    negacon_volume = "0.2 L"           # the gallery end, whose pressure is p_n (default 0.2 L)

The sections are chained in the order of the machine's functions. Read-outs
besides those of the fixed circuit: ``pump_displacement`` (α = Q/(D·n)),
``negacon_pressure`` (p_n), ``bypass_flow`` (what returns through the gallery
end: the orifice and its relief) and ``negacon_relief_flow``.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"})
>>> c = m.circuit
>>> c.hydraulic.order, round(c.max_flow * 6e4), round(c.standby_pressure / 1e5, 1)
(['boom', 'arm', 'bucket'], 472, 34.8)

(the pump driven by the file's engine, ``[circuit.engine]``: 220 cm³/rev at its start speed).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from bondgraph.errors import BondGraphError, ParameterError

from .circuits import _POWER_UNIT, CircuitContext, FixedCircuit, add_drives, check_keys, make_oil, \
    read_shared, register_circuit
from .circuits_swing import SWING_SECTION, add_swing
from .circuits_swing import attach as attach_swing_section

__all__ = ["OpenCentreMachineCircuit", "open_centre_circuit", "OC_TABLE", "OC_KEYS"]

#: the sub-table of ``[circuit]`` the open-centre circuit reads
OC_TABLE = "open_centre"
#: ``[circuit.open_centre]``: key → (SI unit, default (``...`` required, ``None`` absent), check)
OC_KEYS: dict[str, tuple] = {
    "min_displacement": ("", ..., "positive"),
    "control_min": ("Pa", ..., "positive"),
    "control_max": ("Pa", ..., "positive"),
    "time_constant": ("s", 0.05, "positive"),
    "orifice_diameter": ("m", ..., "positive"),
    "orifice_cd": ("", 0.7, "positive"),
    "negacon_relief_crack": ("Pa", None, "positive"),
    "negacon_relief_full": ("Pa", None, "positive"),
    "negacon_relief_flow": ("m^3/s", None, "positive"),
    "bypass_flow": ("m^3/s", ..., "positive"),
    "bypass_dp": ("Pa", ..., "positive"),
    "bypass_closed": ("", 0.5, "positive"),
    "gallery_volume": ("m^3", 1e-4, "positive"),
    "negacon_volume": ("m^3", 2e-4, "positive"),
    "torque_limit": ("N*m", None, "positive"),
}
#: what each key of :data:`OC_KEYS` means (shown in the machine-file reference of the documentation)
_OC_DOCS = {
    "min_displacement": "stand-by displacement d_min as a fraction of the maximum (0 < · < 1)",
    "control_min": "p_n at and below which the pump is at full displacement",
    "control_max": "p_n at and above which the pump is at stand-by",
    "time_constant": "swash-plate lag",
    "orifice_diameter": "diameter of the negative-control orifice",
    "orifice_cd": "its discharge coefficient (0 < cd ≤ 1)",
    "negacon_relief_crack": "cracking pressure of the relief in parallel with the orifice (all "
                            "three negacon_relief_* or none)",
    "negacon_relief_full": "its fully-open pressure",
    "negacon_relief_flow": "its flow when fully open",
    "bypass_flow": "flow of each section's fully open centre bypass at bypass_dp",
    "bypass_dp": "pressure drop of that flow",
    "bypass_closed": "spool travel at which the bypass is closed, either way (0 < · ≤ 1)",
    "gallery_volume": "oil volume between two sections of the centre gallery",
    "negacon_volume": "volume at the gallery end, whose pressure is p_n",
    "torque_limit": "horsepower control: the shaft torque the regulator holds the pump under "
                    "(none: no limiter)",
}
#: ``[circuit.power_unit]`` keys an open-centre pump reads (the fixed circuit's own supplies refused)
_SHARED = ("pump_displacement", "pump_speed", "relief_crack", "relief_full", "relief_flow", "volume",
           "tank_pressure")
_FIXED_ONLY = ("pressure", "compensator_setting", "compensator_band")
#: upper bounds of dimensionless keys (inclusive unless noted), with what they mean
_BOUNDS = {"min_displacement": (1.0, False, "a fraction of the maximum displacement, 0 < d_min < 1"),
           "orifice_cd": (1.0, True, "a discharge coefficient, 0 < cd ≤ 1"),
           "bypass_closed": (1.0, True, "a fraction of the spool travel, 0 < · ≤ 1")}


class OpenCentreMachineCircuit(FixedCircuit):
    """The ``"open-centre"`` circuit: a :class:`components.hydraulics.OpenCentreCircuit`.

    Attributes
    ----------
    max_flow : float
        Pump flow at full displacement (m³/s).
    standby_pressure : float
        ``p_n`` at stand-by (every spool centred; Pa).
    """

    def __init__(self, hc, **kw):
        super().__init__(hc, **kw)
        self.max_flow = hc.power_unit.pump.max_flow
        self.standby_pressure = hc.standby()["neg/C_N.e"]

    def read_outs(self, res, prefix: str) -> dict[str, tuple[np.ndarray, str]]:
        out = super().read_outs(res, prefix)
        if "pump_flow" in out and "engine_speed" not in out:     # (driven: the engine's read-out)
            out["pump_displacement"] = (out["pump_flow"][0] / self.max_flow, "1")
        out["negacon_pressure"] = (res[f"{prefix}/neg/C_N.e"], "Pa")
        q = res.flow(f"{prefix}/neg/nfc")
        relief = f"{prefix}/neg/nfc_relief"
        q_relief = res.flow(relief) if self.hydraulic.control.relief is not None else np.zeros_like(q)
        out["bypass_flow"] = (q + q_relief, "m^3/s")
        out["negacon_relief_flow"] = (q_relief, "m^3/s")
        return out

    def energy_category(self, element: str) -> str | None:
        leaf = element.rsplit("/", 1)[-1]
        if leaf == "R_BP":
            return "centre bypass"
        if leaf in ("nfc", "nfc_relief"):
            return "negative-control orifice"
        return super().energy_category(element)

    def report_lines(self, tab: Mapping[str, np.ndarray]) -> list[str]:
        from .circuits_engine import _spans, events

        ctl = self.hydraulic.control
        lines = [f"  open centre, negative flow control: orifice {ctl.diameter * 1e3:.2f} mm, "
                 f"stand-by p_n {self.standby_pressure / 1e5:.1f} bar"]
        if "pump_displacement" in tab and "negacon_pressure" in tab:
            a, pn = tab["pump_displacement"], tab["negacon_pressure"]
            lines.append(f"    pump displacement {100 * a.min():.1f} … {100 * a.max():.1f} % (mean "
                         f"{100 * a.mean():.1f} %); negacon pressure {pn.min() / 1e5:.1f} … "
                         f"{pn.max() / 1e5:.1f} bar")
            pu = self.hydraulic.power_unit
            if pu.pump.torque_limit is not None and "pump_pressure" in tab:
                held = pu.torque_limited(a, tab["pump_pressure"])
                lines.append(f"    horsepower control {pu.pump.torque_limit:.0f} N·m: the pump held under it "
                             + (f"at t={_spans(events(tab['time'], held))}" if held.any() else "at no time"))
        if "bypass_flow" in tab and "pump_flow" in tab:
            t = tab["time"]
            v_by = float(np.trapezoid(tab["bypass_flow"], t))
            v_p = float(np.trapezoid(tab["pump_flow"], t))
            if v_p > 0:
                lines.append(f"    {100 * v_by / v_p:.1f} % of the pumped oil ({v_p * 1e3:.1f} L) returned "
                             "through the centre gallery unused")
        return lines


@register_circuit("open-centre", table=OC_TABLE)
def open_centre_circuit(ctx: CircuitContext) -> OpenCentreMachineCircuit:
    """Negative-control pump + relief, open-centre sections, centre gallery, negacon orifice."""
    from components.hydraulics import (NegativeControl, NFCPowerUnit, NFCPump, OpenCentreCircuit,
                                       OpenCentreValve, ReliefValve)

    check_keys(ctx, {"oil", "power_unit", "valves", "cavitation_floor"})
    floor, oil_p, _, valve_p = read_shared(ctx, None)
    pu_raw = ctx.section.get("power_unit", {})
    if isinstance(pu_raw, Mapping):
        for k in _FIXED_ONLY:
            if k in pu_raw:
                ctx.bad(f"circuit.power_unit.{k}", "belongs to the fixed circuit's supply (an ideal "
                        "source or a pressure-compensated pump); an open-centre pump is set in "
                        f"[circuit.{OC_TABLE}]")
        pu_raw = {k: v for k, v in pu_raw.items() if k not in _FIXED_ONLY}
    shared = {k: (u, ... if k in ("pump_displacement", "pump_speed") else d, c)
              for k, (u, d, c) in ((k, _POWER_UNIT[k]) for k in _SHARED)}
    pu = ctx.read("circuit.power_unit", pu_raw, shared)
    raw = ctx.section.get(OC_TABLE)
    path = f"circuit.{OC_TABLE}"
    if raw is None:
        ctx.bad(path, "missing table: an open-centre circuit needs its pump regulator, negative-control "
                      "orifice and centre bypasses")
        raise ParameterError(ctx.problems, subject=f"circuit of {ctx.description.file.name}")
    oc = ctx.read(path, raw, OC_KEYS)
    for k, (hi, inclusive, what) in _BOUNDS.items():
        v = oc.get(k)
        if v is not None and not (v <= hi if inclusive else v < hi):
            ctx.bad(f"{path}.{k}", f"found {raw[k]!r}, expected {what}")
    lo, hi = oc.get("control_min"), oc.get("control_max")
    if lo is not None and hi is not None and not hi > lo:
        ctx.bad(f"{path}.control_max", f"found {raw['control_max']!r}, expected above "
                f"'{path}.control_min' ({raw['control_min']!r}): the displacement falls from full at "
                "p_n,min to stand-by at p_n,max")
    given = _relief_given(ctx, path, oc, raw, "negacon_relief_")
    pu_given = _relief_given(ctx, "circuit.power_unit", pu, pu_raw, "relief_")
    if ctx.problems:
        raise ParameterError(ctx.problems, subject=f"circuit of {ctx.description.file.name}")
    oil = make_oil(ctx, oil_p)
    try:
        pump = NFCPump(pu["pump_displacement"], pu["pump_speed"], oc["min_displacement"],
                       oc["control_min"], oc["control_max"], oc["time_constant"], oc.get("torque_limit"))
        relief = (ReliefValve(pu["relief_crack"], pu["relief_full"], pu["relief_flow"])
                  if pu_given else None)
        nrelief = (ReliefValve(oc["negacon_relief_crack"], oc["negacon_relief_full"],
                               oc["negacon_relief_flow"]) if given else None)
        control = NegativeControl(oc["orifice_diameter"], oc["orifice_cd"], nrelief,
                                  oc["negacon_volume"], oc["gallery_volume"])
        punit = NFCPowerUnit("pu", oil=oil, pump=pump, relief=relief, volume=pu["volume"],
                             tank_pressure=pu["tank_pressure"])
        hc = OpenCentreCircuit(ctx.name, punit, control)
    except BondGraphError as exc:
        raise ParameterError([f"{path!r} ({ctx.where(path)}): {p}" for p in exc.problems],
                             subject=f"circuit of {ctx.description.file.name}") from None
    section_kw = {"bypass_flow": oc["bypass_flow"], "bypass_dp": oc["bypass_dp"],
                  "bypass_closed": oc["bypass_closed"]}
    parts = add_drives(ctx, hc, oil, valve_p, valve_type=OpenCentreValve, valve_kw=section_kw)
    # a swinging machine's swing section: one more section on the centre gallery
    swing = add_swing(ctx, hc, oil, valve_p.get(SWING_SECTION), valve_type=OpenCentreValve, valve_kw=section_kw)
    # the equilibrium start settles the outlet, the gallery volumes and the swash plate from
    # stand-by (every spool centred)
    supply = hc.standby()
    circuit = OpenCentreMachineCircuit(hc, supply=supply, dimensionless=[f"{punit.name}/swash/x.value"],
                                       relief_pressure=relief.crack_pressure if relief else None,
                                       cavitation_floor=floor, **parts)
    attach_swing_section(circuit, swing, valve_p.get(SWING_SECTION))
    return circuit


def _relief_given(ctx: CircuitContext, path: str, values: Mapping, raw: Mapping, prefix: str) -> bool:
    """A relief valve of a table (keys ``<prefix>crack``, ``full``, ``flow``): all three or none,
    opening fully above its cracking pressure. ``True`` when one is given and sound; problems
    go to ``ctx``."""
    keys = [f"{prefix}{k}" for k in ("crack", "full", "flow")]
    given = [k for k in keys if values.get(k) is not None]
    if not given:
        return False
    if len(given) != 3:
        for k in keys:
            if k not in given and k in values:   # (a key that failed to read is named already)
                ctx.bad(f"{path}.{k}", f"missing (a relief valve needs {keys[0]}, {keys[1]} and {keys[2]})")
        return False
    if not values[keys[1]] > values[keys[0]]:
        ctx.bad(f"{path}.{keys[1]}", f"found {raw[keys[1]]!r}, expected above '{path}.{keys[0]}' "
                                     f"({raw[keys[0]]!r}): the valve opens fully above its cracking pressure")
        return False
    return True
