"""The ``"load-sensing"`` circuit of machine files: LS pump, compensated sections, shuttles.

The circuit most machines are built with (:mod:`components.hydraulics.ls_circuit`):
a variable-displacement pump whose controller holds its outlet a margin
``Δp_LS`` above the highest load pressure, one pressure-compensated
closed-centre valve section per function — post-compensated (LUDV, flow
sharing) or pre-compensated (classic LS) — with an LS gallery each, and the
shuttle network (a smooth maximum) that passes the highest load pressure on.

It shares ``[circuit.oil]``, ``[circuit.power_unit]`` (the pump's maximum
displacement and speed, the relief valve, the outlet volume) and
``[circuit.valves.<function>]`` with the ``"fixed"`` circuit, so one machine file
describes both; what only load sensing needs is in ``[circuit.load_sensing]``,
which the fixed circuit skips. ``--set circuit.type=load-sensing`` (or
``overrides={"circuit.type": "load-sensing"}``) switches a file's circuit;
``circuit.load_sensing.compensation`` chooses the variant::

    [circuit]
    type = "load-sensing"              # or "fixed": the same file, the other circuit
    [circuit.oil]                      # as for "fixed"
    [circuit.power_unit]               # pump_displacement (maximum), pump_speed, relief_*, volume,
                                       # tank_pressure (the fixed pump's own keys are refused)
    [circuit.valves.<function>]        # as for "fixed"
    [circuit.load_sensing]
    compensation = "post"              # "post" (LUDV, flow sharing) | "pre" (classic LS)
    margin = "3 bar"                   # Δp_LS; the pump controller (LS_POWER_UNIT_SCHEMA):
                                       # time_constant, regulation_band, filter_time_constant,
                                       # swash_*, torque_limit, power_limit, cutoff, leakage
    pre_compensator_setting = "2 bar"  # metering drop a pre-compensator holds (required for "pre")
    post_compensator_offset = "0 bar"  # spring offset of a post-compensator (default 0)
                                       # compensator_time_constant, shuttle_band, tap_volume,
                                       # tap_time_constant, ls_opening (LS_SCHEMA)

The shuttles are the smooth maximum (no events; the hybrid shuttle of the
library needs the hybrid engine and is not offered here). Read-outs besides
those of the fixed circuit: ``pump_displacement`` (α = Q/(D·n)), ``ls_pressure``
(the highest load pressure the network passes on), ``<function>_load_pressure``
(each section's LS gallery) and ``<function>_compensator_drop``.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "load-sensing"})
>>> c = m.circuit
>>> c.kind, round(c.margin / 1e5, 1), round(m.start_state()["excavator/hyd/pu/C_P.e"] / 1e5, 2)
('post', 3.0, 3.4)
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Mapping

import numpy as np
import sympy as sp

from bondgraph.errors import ParameterError

from .circuits_swing import SWING_SECTION, add_swing
from .circuits_swing import attach as attach_swing_section
from .circuits import (_POWER_UNIT, CircuitContext, FixedCircuit, add_drives, check_keys, make_oil,
                       read_shared, register_circuit)

__all__ = ["LoadSensingCircuit", "load_sensing_circuit", "LS_TABLE"]

#: the sub-table of ``[circuit]`` the load-sensing circuit reads
LS_TABLE = "load_sensing"
#: ``[circuit.power_unit]`` keys of the fixed circuit's own supplies, refused here
_FIXED_ONLY = ("pressure", "compensator_setting", "compensator_band")
#: ``[circuit.load_sensing]`` keys that are not the library's schema keys
_COMPENSATOR_KEYS = ("compensation", "pre_compensator_setting", "post_compensator_offset")
#: what each of them means (shown in the machine-file reference of the documentation)
_COMPENSATOR_DOCS = {
    "compensation": '"post" (LUDV: every section meters p_P − p_LS, flow sharing) or "pre" (classic LS)',
    "pre_compensator_setting": "metering drop a pre-compensator holds, below the margin (required "
                               "for \"pre\")",
    "post_compensator_offset": "spring offset of a post-compensator (default 0)",
}


def _schemas():
    from components.hydraulics import LS_POWER_UNIT_SCHEMA
    from components.hydraulics.ls_circuit import LS_SCHEMA

    shared = [k for k in LS_POWER_UNIT_SCHEMA.keys if k in _POWER_UNIT]
    pump = [k for k in LS_POWER_UNIT_SCHEMA.keys if k not in shared]
    section = [k for k in LS_SCHEMA.keys if k != "compensator_setting"]
    return LS_POWER_UNIT_SCHEMA, LS_SCHEMA, shared, pump, section


#: what the compensators do, by compensation (the report and the circuit comparison say it)
COMPENSATION_WHY = {
    "post": "the lighter functions brought up to the highest load's pressure after their metering edges "
            "(flow sharing: every edge meters the same drop)",
    "pre": "each section's pump pressure brought down to its own load plus the compensator setting "
           "before its metering edge (the heaviest function's too, by the margin less the setting)",
}


class LoadSensingCircuit(FixedCircuit):
    """The ``"load-sensing"`` circuit: a :class:`components.hydraulics.LSCircuit`.

    Attributes
    ----------
    kind : {"pre", "post"}
    margin : float
        ``Δp_LS`` (Pa).
    max_flow : float
        Pump flow at full displacement (m³/s).
    """

    def __init__(self, hc, **kw):
        super().__init__(hc, **kw)
        pump = hc.power_unit.pump
        self.kind = next(iter(hc.sections.values())).compensator.kind
        self.margin = pump.margin
        self.max_flow = pump.max_flow
        self._signals = None

    @property
    def metering_drop(self) -> float:
        """Drop across an open metering edge in a steady state (Pa): the pre-compensators'
        setting, or the margin less the post-compensators' spring offset (less the pump's
        droop ``α·regulation_band`` in both). A tracking controller's feedforward uses it."""
        comp = next(iter(self.hydraulic.sections.values())).compensator
        return comp.setting if comp.kind == "pre" else self.margin - comp.setting

    def _signal_functions(self, model, prefix: str):
        """Numeric functions of the state for the LS pressure, each section's load pressure
        and compensator drop (the circuit's own expressions, with the model's handles)."""
        if self._signals is None or self._signals[0] is not model:
            handles = model.graph.graph.get("handles", {})
            names = model.state_names
            exprs = {"ls_pressure": self.hydraulic.network.pressure()}
            for f, valve in self.hydraulic.sections.items():
                exprs[f"{f}_load_pressure"] = valve.load_pressure
                exprs[f"{f}_compensator_drop"] = valve._comp_target()
            fns = {}
            for key, expr in exprs.items():
                g = sp.sympify(expr).xreplace(handles)
                syms = sorted(g.free_symbols, key=lambda s: s.name)
                idx = [names.index(s.name) for s in syms]
                fns[key] = (sp.lambdify(syms, g, modules="numpy"), idx)
            self._signals = (model, fns)
        return self._signals[1]

    def read_outs(self, res, prefix: str) -> dict[str, tuple[np.ndarray, str]]:
        out = super().read_outs(res, prefix)
        if "pump_flow" in out and "engine_speed" not in out:     # (driven: the engine's read-out)
            out["pump_displacement"] = (out["pump_flow"][0] / self.max_flow, "1")
        x = np.asarray(res.x)
        for key, (fn, idx) in self._signal_functions(res.model, prefix).items():
            v = fn(*(x[:, i] for i in idx)) if idx else fn()
            out[key] = (np.broadcast_to(np.asarray(v, dtype=float), (len(res.t),)).copy(), "Pa")
        # what the compensators burn: their drop times the meter-in flow (P→A plus P→B)
        total = np.zeros(len(res.t))
        for f in self.hydraulic.sections:
            q = sum(res.flow(f"{prefix}/{f}/valve/R_{e}") for e in ("PA", "PB"))
            total += out[f"{f}_compensator_drop"][0] * q
        out["compensator_power"] = (total, "W")
        return out

    def energy_category(self, element: str) -> str | None:
        parts = element.split("/")
        if "ls" in parts and "valve" in parts:
            return "LS signal lines"
        return super().energy_category(element)

    def report_lines(self, tab: Mapping[str, np.ndarray]) -> list[str]:
        name = {"post": "post-compensated (LUDV, flow sharing)", "pre": "pre-compensated (classic LS)"}
        lines = [f"  load sensing: {name[self.kind]}, margin {self.margin / 1e5:.1f} bar"]
        if "pump_displacement" in tab and "ls_pressure" in tab:
            a = tab["pump_displacement"]
            dp = tab["pump_pressure"] - tab["ls_pressure"]
            lines.append(f"    pump displacement {100 * a.min():.1f} … {100 * a.max():.1f} % (mean "
                         f"{100 * a.mean():.1f} %); pump pressure above the LS pressure "
                         f"{dp.min() / 1e5:.2f} … {dp.max() / 1e5:.2f} bar (median {np.median(dp) / 1e5:.2f})")
        if "compensator_power" in tab:
            t = tab["time"]
            w = float(np.sum(0.5 * (tab["compensator_power"][1:] + tab["compensator_power"][:-1]) * np.diff(t)))
            why = (COMPENSATION_WHY[self.kind] if self.kind in COMPENSATION_WHY else "")
            lines.append(f"    the compensators throttled {w / 1e3:.2f} kJ (part of the valves' throttling "
                         f"below): {why}")
        return lines


@register_circuit("load-sensing", table=LS_TABLE)
def load_sensing_circuit(ctx: CircuitContext) -> LoadSensingCircuit:
    """LS pump + relief, pressure-compensated sections (pre or post), smooth shuttles."""
    from components.hydraulics import CompensatedValve, Compensator, LSCircuit, SmoothShuttle
    from components.hydraulics.ls_circuit import ls_power_unit_from_si
    from components.hydraulics.supply import speed_problem

    pu_schema, ls_schema, shared, pump_keys, section_keys = _schemas()
    check_keys(ctx, {"oil", "power_unit", "valves", "cavitation_floor"})
    floor, oil_p, _, valve_p = read_shared(ctx, None)
    pu_raw = _table(ctx, "power_unit", shared, refused=_FIXED_ONLY)
    # the schema's reader takes "25 Hz" as 25 rad/s (pint's radian is 1); the other circuits'
    # reader refuses a frequency for a shaft speed, and so must this one
    bad_speed = speed_problem(pu_raw.get("pump_speed"), "pump_speed")
    if bad_speed:
        ctx.bad("circuit.power_unit.pump_speed", bad_speed.split(": ", 1)[1])
    ls_raw = _table(ctx, LS_TABLE, pump_keys + section_keys + list(_COMPENSATOR_KEYS))
    where = {k: f"circuit.power_unit.{k}" for k in shared}
    where.update({k: f"circuit.{LS_TABLE}.{k}" for k in pump_keys + section_keys})
    pu_p = _load(ctx, pu_schema, {**pu_raw, **{k: ls_raw[k] for k in pump_keys if k in ls_raw}}, where)
    kind = ls_raw.get("compensation")
    if kind not in ("pre", "post"):
        ctx.bad(f"circuit.{LS_TABLE}.compensation",
                (f"found {kind!r}, expected" if kind is not None else "missing: expected")
                + " \"post\" (LUDV, flow sharing) or \"pre\" (classic LS)")
    # each variant reads its own setting; the other one's is data for that variant
    setting_key = "pre_compensator_setting" if kind == "pre" else "post_compensator_offset"
    sec_raw = {k: ls_raw[k] for k in section_keys if k in ls_raw}
    if setting_key in ls_raw:
        sec_raw["compensator_setting"] = ls_raw[setting_key]
    elif kind == "pre":
        ctx.bad(f"circuit.{LS_TABLE}.pre_compensator_setting",
                "missing: a pre-compensator needs the metering drop it holds (below the margin), "
                "e.g. \"2 bar\"")
    where["compensator_setting"] = f"circuit.{LS_TABLE}.{setting_key}"
    ls_p = _load(ctx, ls_schema, sec_raw, where)
    oil = None
    if not any(p.startswith("'circuit.oil") for p in ctx.problems):
        try:
            oil = make_oil(ctx, oil_p)
        except ParameterError as exc:
            ctx.problems += exc.problems
    problems: list[str] = []
    pu = comp = None
    if not any(p.startswith(("'circuit.power_unit", f"'circuit.{LS_TABLE}")) for p in ctx.problems):
        # checked with every other problem (a placeholder oil when the oil's are named already)
        from components.hydraulics import Oil

        pu = ls_power_unit_from_si(pu_p, oil or Oil(), problems)
        try:
            comp = Compensator(kind, ls_p["compensator_setting"] or 0.0, ls_p["compensator_time_constant"])
        except ParameterError as exc:
            problems += [f"compensator: {p}" for p in exc.problems]
    # the relief keys are [circuit.power_unit]'s, the pump's [circuit.load_sensing]'s
    ctx.problems += [f"'circuit.power_unit' ({ctx.where('circuit.power_unit')}): {p[len('power_unit: '):]}"
                     if p.startswith("power_unit: 'relief") else
                     f"'circuit.{LS_TABLE}' ({ctx.where(f'circuit.{LS_TABLE}')}): {p}" for p in problems]
    if ctx.problems:
        raise ParameterError(ctx.problems, subject=f"circuit of {ctx.description.file.name}")
    hc = LSCircuit(ctx.name, pu, shuttle=SmoothShuttle(ls_p["shuttle_band"]))
    section_kw = {"compensator": comp, "oil": oil, "tap_volume": ls_p["tap_volume"],
                  "tap_time_constant": ls_p["tap_time_constant"], "ls_opening": ls_p["ls_opening"]}
    parts = add_drives(ctx, hc, oil, valve_p, valve_type=CompensatedValve, valve_kw=section_kw)
    # a swinging machine's swing section: one more compensated section on the shuttle network
    swing = add_swing(ctx, hc, oil, valve_p.get(SWING_SECTION), valve_type=CompensatedValve, valve_kw=section_kw)
    # the equilibrium start solves the outlet, its rate filter and the LS galleries too, from
    # stand-by: galleries vented (0), the outlet at the margin above the LS pressure they give
    p_ls = hc.network.pressure()
    p0 = pu.pump.margin + float(p_ls.xreplace({s: 0 for s in p_ls.free_symbols}))
    supply = {f"{pu.name}/{pu.pressure_state}": p0, f"{pu.name}/rate/x.value": p0}
    swash = [] if pu.swash is None else [f"{pu.name}/swash/x.value"]
    supply.update({s: 0.0 for s in swash})
    for f in list(ctx.functions) + ([SWING_SECTION] if swing is not None else []):
        supply[f"{f}/valve/ls/C.e"] = 0.0
    relief = pu.relief.crack_pressure if pu.relief else None
    circuit = LoadSensingCircuit(hc, supply=supply, dimensionless=swash, relief_pressure=relief,
                                 cavitation_floor=floor, **parts)
    attach_swing_section(circuit, swing, valve_p.get(SWING_SECTION))
    return circuit


def _table(ctx: CircuitContext, name: str, keys: list[str], refused: tuple[str, ...] = ()) -> dict:
    """The raw sub-table ``[circuit.<name>]``; unknown and refused keys are problems."""
    raw = ctx.section.get(name)
    path = f"circuit.{name}"
    if raw is None:
        if name == LS_TABLE:
            ctx.bad(path, "missing table: a load-sensing circuit needs its margin and compensation")
        return {}
    if not isinstance(raw, Mapping):
        ctx.bad(path, f"found {raw!r}, expected a table")
        return {}
    for k in raw:
        if k in refused:
            ctx.bad(f"{path}.{k}", "belongs to the fixed circuit's supply (an ideal source or a "
                                   "pressure-compensated pump); a load-sensing pump is set in "
                                   f"[circuit.{LS_TABLE}] (margin, cutoff...)")
        elif k not in keys:
            close = difflib.get_close_matches(str(k), keys, n=1)
            ctx.bad(f"{path}.{k}", "unknown key" + (f"; did you mean '{path}.{close[0]}'?" if close
                                                    else f" (known: {', '.join(sorted(keys))})"))
    return {k: v for k, v in raw.items() if k in keys}


_QUOTED = re.compile(r"^'([^']+)': ")


def _load(ctx: CircuitContext, schema, raw: Mapping[str, Any], where: Mapping[str, str]) -> dict:
    """``schema.load(raw)``; each problem named by its file key and line."""
    from components.hydraulics import read_with_units

    try:
        return read_with_units(schema.load(raw))   # read with units: taken as written
    except ParameterError as exc:
        for p in exc.problems:
            m = _QUOTED.match(p)
            key = where.get(m.group(1)) if m else None
            if key is None:
                ctx.problems.append(p)
            else:
                ctx.problems.append(f"{key!r} ({ctx.where(key)}): {p[m.end():]}")
        return {s.name: None for s in schema.specs}
