"""Hydraulic circuits of machine files: a registry of builders keyed by ``[circuit] type``.

A builder turns the ``[circuit]`` table of a machine file into a bond-graph
component that exposes one port ``<function>.I`` per cylinder function (the
machine connects each to its mechanical cylinder's ``I`` port), wrapped in a
:class:`Circuit` that tells the generic layer where the chamber pressures, the
rod velocities and the supply pressure are. Registering another circuit is one
call::

    from mechanisms.machine.circuits import Circuit, register_circuit

    @register_circuit("load-sensing")
    def load_sensing(ctx):            # ctx: CircuitContext
        ...build a component with ports f"{f}.I" for f in ctx.functions...
        return Circuit(component, ...)

``type = "fixed"`` (here) is the circuit of :mod:`components.hydraulics`: a
fixed-displacement pump (or a pressure-compensated pump, or an ideal pressure
source), a relief valve, and one closed-centre proportional 4/3 valve per
function with hoses and anti-cavitation make-up valves. Its keys::

    [circuit]
    type = "fixed"
    cavitation_floor = "-1 bar"        # optional, gauge (default -1 bar: about 0 bar absolute)
    [circuit.oil]                      # density, bulk_modulus, viscosity, air_fraction, ...
    [circuit.power_unit]               # pump_displacement, pump_speed, relief_*, volume | pressure
    [circuit.valves.<function>]        # flow, dp, spool_bandwidth, spool_damping, leakage,
                                       # makeup_conductance, makeup_crack, hose_cap, hose_rod

The cylinders' own hydraulic data (bore, rod, dead volumes, friction, end stops,
leakage) are in their part tables.

Examples
--------
>>> sorted(CIRCUITS)
['fixed', 'load-sensing', 'open-centre']
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import sympy as sp

from bondgraph import BondGraph
from bondgraph.errors import BondGraphError, ParameterError

from .circuits_swing import SWING_SECTION, add_swing
from .circuits_swing import attach as attach_swing_section
from .quantities import to_si

__all__ = ["Circuit", "CircuitContext", "CIRCUITS", "CIRCUIT_TABLES", "register_circuit", "build_circuit",
           "FixedCircuit", "check_keys", "read_shared", "make_oil", "add_drives"]


@dataclass
class CircuitContext:
    """What a circuit builder gets.

    Attributes
    ----------
    section : dict
        The raw ``[circuit]`` table (values with units).
    description : MachineDescription
    functions : tuple of str
    lengths : dict
        Function → the pin-to-pin length handle of its mechanical cylinder (sympy symbol).
    commands : dict
        Function → its valve command (a :func:`bondgraph.Input` named ``<function>.cmd``).
    symbols : dict
        Run-time parameter key → sympy symbol or its value (``"<cyl>.bore"``, ``"<cyl>.rod"``).
    name : str
        Name the component must have (``"hyd"``).
    end_stops : bool
        The cylinders' end stops and cushions in the circuit's cylinders (default); ``False``
        leaves them out (a machine built with ``end_stops=False``).

    Examples
    --------
    >>> from mechanisms.machine import DATA, MachineDescription
    >>> d = MachineDescription.load(DATA / "excavator.toml")
    >>> ctx = CircuitContext(section=d.circuit, description=d, functions=d.functions,
    ...                      lengths={}, commands={}, symbols={})
    >>> keys = {"density": ("kg/m^3", ..., "positive")}
    >>> float(ctx.read("circuit.oil", {"density": "0.87 kg/L"}, keys)["density"])
    870.0
    >>> _ = ctx.read("circuit.oil", {"density": "870 m"}, keys)
    >>> ctx.problems                                   # collected, named by key, raised once by the builder
    ["'circuit.oil.density' (excavator.toml, line ...): found '870 m' (a length), expected a density in kg/m^3"]
    """

    section: Mapping[str, Any]
    description: Any
    functions: tuple[str, ...]
    lengths: Mapping[str, Any]
    commands: Mapping[str, Any]
    symbols: Mapping[str, Any]
    name: str = "hyd"
    problems: list[str] = field(default_factory=list)
    end_stops: bool = True

    def where(self, key: str) -> str:
        """Where a key is written (``"excavator.toml, line 27"``)."""
        return self.description.where(key)

    def bad(self, key: str, msg: str) -> None:
        """Record a problem with a key (the builder raises every problem at once)."""
        self.problems.append(f"{key!r} ({self.where(key)}): {msg}")

    def read(self, path: str, table: Any, keys: Mapping[str, tuple]) -> dict[str, Any]:
        """Read a table: ``keys`` maps name → ``(unit, default, check)`` (``default=...``
        required; ``check`` in positive, nonneg, None). Problems are collected. The values
        are :class:`~components.hydraulics.SIValue`: a library part takes them as written
        (``"0.9 mm"`` is not a bare 0.0009 whose size it would question)."""
        from components.hydraulics import SIValue

        out: dict[str, Any] = {}
        if not isinstance(table, Mapping):
            self.bad(path, f"found {table!r}, expected a table")
            return out
        for k in table:
            if k not in keys:
                close = difflib.get_close_matches(str(k), list(keys), n=1)
                self.bad(f"{path}.{k}", "unknown key" + (f"; did you mean '{path}.{close[0]}'?" if close
                                                        else f" (known: {', '.join(keys)})"))
        for k, (unit, default, check) in keys.items():
            key = f"{path}.{k}"
            if k not in table:
                if default is ...:
                    from .quantities import describe

                    self.bad(key, f"missing (expected {describe(unit)})")
                elif default is not None:
                    out[k] = default
                else:
                    out[k] = None
                continue
            try:
                v = to_si(table[k], unit, key=key)
            except BondGraphError as exc:
                self.problems += [p.replace(": ", f" ({self.where(key)}): ", 1) for p in exc.problems]
                continue
            if check == "positive" and not v > 0:
                self.bad(key, f"found {table[k]!r}, expected a value > 0")
                continue
            if check == "nonneg" and v < 0:
                self.bad(key, f"found {table[k]!r}, expected a value ≥ 0")
                continue
            out[k] = SIValue(v)   # read with its unit: the library takes it as written
        return out


class Circuit:
    """A built circuit: the component plus where the generic layer finds its states.

    Parameters
    ----------
    component : BondGraph
        Exposes ``<function>.I`` for every function.
    chambers : dict
        Function → (cap-side, rod-side) pressure state paths *below* the component.
    pistons : dict
        Function → the rod-velocity state path below the component (``None`` if none).
    supply : dict
        Supply state path below the component → its start value (Pa for a pressure); these
        are solved for in the equilibrium start with the loaded chambers.
    dimensionless : iterable of str
        The supply states that are not pressures (a swash-plate position, 0 … 1): a run
        does not scale their absolute tolerance (:meth:`pressure_states`).
    relief_pressure : float or None
        Cracking pressure of the main relief valve (Pa): the report flags chambers above it.
    cavitation_floor : float
        Lowest gauge pressure the lumped oil model is trusted at (Pa).
    areas : dict
        Function → (cap, rod) areas (m², numbers): the start state and the read-outs use them.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> c = Machine.from_file(DATA / "excavator.toml", mode="valves").circuit
    >>> isinstance(c, Circuit), c.relief_pressure / 1e5, c.chambers["boom"]
    (True, 300.0, ('boom/cyl/C_A.e', 'boom/cyl/C_B.e'))
    """

    def __init__(self, component: BondGraph, *, chambers: Mapping[str, tuple[str, str]],
                 pistons: Mapping[str, str | None], supply: Mapping[str, float],
                 relief_pressure: float | None, cavitation_floor: float,
                 areas: Mapping[str, tuple[float, float]], valve_gains: Mapping[str, float] | None = None,
                 base_pressure: float = 10e5, dimensionless: Iterable[str] = ()):
        self.component = component
        self.chambers = dict(chambers)
        self.pistons = dict(pistons)
        self.supply = dict(supply)
        self.dimensionless = frozenset(dimensionless)
        stray = sorted(self.dimensionless - set(self.supply))
        if stray:
            raise ParameterError(f"circuit {component.name!r}: dimensionless = {stray}, expected "
                                 f"supply states (one of {', '.join(self.supply) or 'none'})")
        self.relief_pressure = relief_pressure
        self.cavitation_floor = cavitation_floor
        self.areas = dict(areas)
        #: function → flow per unit command at 1 Pa^0.5 metering drop (m³/s/√Pa), for controllers
        self.valve_gains = dict(valve_gains or {})
        #: gauge pressure of the unloaded side at the equilibrium start (Pa)
        self.base_pressure = base_pressure

    @property
    def name(self) -> str:
        """The component's name (``"hyd"``)."""
        return self.component.name

    def read_outs(self, res, prefix: str) -> dict[str, tuple[np.ndarray, str]]:
        """Extra named series (``pump_pressure``...) with units; ``prefix`` is the
        component's path in the model (``"excavator/hyd"``)."""
        return {}

    #: the :class:`~components.hydraulics.DieselEngine` of ``[circuit.engine]`` (``None``: none)
    engine = None
    #: the swing section (a :class:`~components.hydraulics.SwingDrive`) of a machine with
    #: ``[swing]`` (:mod:`.circuits_swing`); ``None``: none
    swing = None
    #: whether the pump is driven from the engine's shaft (:mod:`.circuits_engine`)
    engine_driven = False

    def energy_category(self, element: str) -> str | None:
        """Category of an element below the component for the energy split (``None``: other)."""
        return None

    def pressure_states(self) -> list[str]:
        """State paths below the component that are pressures (Pa): the chambers and the
        supply states but the :attr:`dimensionless` ones. A run scales its absolute tolerance
        on them (:data:`.run.PRESSURE_ATOL_SCALE`)."""
        from .circuits_swing import swing_states

        return ([s for pair in self.chambers.values() for s in pair]
                + [s for s in self.supply if s not in self.dimensionless] + swing_states(self))

    def report_lines(self, tab: Mapping[str, np.ndarray]) -> list[str]:
        """Lines the text report adds about the circuit (its read-outs over the run)."""
        return []


#: type → builder(ctx) -> Circuit
CIRCUITS: dict[str, Callable[[CircuitContext], Circuit]] = {}
#: type → the sub-table of ``[circuit]`` only that type reads (``"load_sensing"``): one file
#: may describe several circuits sharing oil, pump and valves; the other types skip it
CIRCUIT_TABLES: dict[str, str] = {}


def register_circuit(type_name: str, *, table: str | None = None) -> Callable:
    """Decorator: register a circuit builder for ``[circuit] type = type_name``; ``table``
    names a sub-table of ``[circuit]`` that only this type reads.

    The builder takes a :class:`CircuitContext` and returns a :class:`Circuit` whose
    component exposes ``<function>.I`` for every function; :mod:`.circuits_ls` and
    :mod:`.circuits_oc` are complete examples.

    Examples
    --------
    >>> @register_circuit("test-only")
    ... def test_only(ctx):
    ...     raise NotImplementedError
    >>> "test-only" in CIRCUITS
    True
    >>> del CIRCUITS["test-only"]
    """
    def deco(fn):
        CIRCUITS[type_name] = fn
        if table is not None:
            CIRCUIT_TABLES[type_name] = table
        return fn
    return deco


def build_circuit(ctx: CircuitContext) -> Circuit:
    """Dispatch on ``[circuit] type``; every problem of the table is raised at once."""
    typ = ctx.section.get("type")
    if typ not in CIRCUITS:
        close = difflib.get_close_matches(str(typ), list(CIRCUITS), n=1)
        raise ParameterError(f"'circuit.type' ({ctx.where('circuit.type')}): found {typ!r}, expected "
                             f"one of {', '.join(sorted(CIRCUITS))}"
                             + (f"; did you mean {close[0]!r}?" if close else ""))
    try:
        circuit = CIRCUITS[typ](ctx)
    except BondGraphError as exc:
        if ctx.problems:  # a builder raising its collected problems must not list them twice
            raise ParameterError(ctx.problems + [p for p in exc.problems if p not in ctx.problems],
                                 subject=f"circuit of {ctx.description.file.name}") from None
        raise
    if ctx.problems:
        raise ParameterError(ctx.problems, subject=f"circuit of {ctx.description.file.name}")
    from .circuits_engine import attach_engine

    attach_engine(ctx, circuit)   # [circuit.engine]: drive the pump from the engine's shaft
    missing = [f for f in ctx.functions if f"{f}.I" not in circuit.component.ports]
    if missing:
        raise ParameterError(f"circuit type {typ!r}: no port for {', '.join(missing)} (a builder "
                             "must expose <function>.I for every cylinder function)")
    return circuit


# --------------------------------------------------------------------------- "fixed"
_OIL = {"density": ("kg/m^3", ..., "positive"), "bulk_modulus": ("Pa", ..., "positive"),
        "viscosity": ("Pa*s", 0.036, "positive"), "air_fraction": ("", 0.0, "nonneg"),
        "polytropic_index": ("", 1.4, "positive"), "p_atm": ("Pa", 101325.0, "positive")}
_POWER_UNIT = {
    "pressure": ("Pa", None, None), "pump_displacement": ("m^3/rev", None, "positive"),
    "pump_speed": ("rev/s", None, "positive"), "compensator_setting": ("Pa", None, "positive"),
    "compensator_band": ("Pa", 5e5, "positive"), "relief_crack": ("Pa", None, "positive"),
    "relief_full": ("Pa", None, "positive"), "relief_flow": ("m^3/s", None, "positive"),
    "volume": ("m^3", 2e-3, "positive"), "tank_pressure": ("Pa", 0.0, None)}
_VALVE = {
    "flow": ("m^3/s", ..., "positive"), "dp": ("Pa", ..., "positive"), "leakage": ("", 0.0, "nonneg"),
    "spool_bandwidth": ("Hz", None, "positive"), "spool_damping": ("", 1.0, "positive"),
    "makeup_conductance": ("m^3/s/Pa", None, "positive"), "makeup_crack": ("Pa", 3e4, "nonneg"),
    "hose_cap": ("m^3", None, "positive"), "hose_rod": ("m^3", None, "positive")}


class FixedCircuit(Circuit):
    """The ``"fixed"`` circuit: a :class:`components.hydraulics.HydraulicCircuit`."""

    def __init__(self, hc, **kw):
        super().__init__(hc, **kw)
        self.hydraulic = hc

    def read_outs(self, res, prefix: str) -> dict[str, tuple[np.ndarray, str]]:
        hc = self.hydraulic
        model = res.model                 # its bonds looked up by their ends (_bond)
        out: dict[str, tuple[np.ndarray, str]] = {}
        for f, d in hc.drives.items():
            base = f"{prefix}/{f}"
            for port, hose in (("A", "hose_A"), ("B", "hose_B")):
                k = _bond(model, f"{base}/valve/", f"{base}/{hose}") or _bond(model, f"{base}/{hose}", f"{base}/valve/") \
                    or _bond(model, f"{base}/valve/", f"{base}/cyl/") or _bond(model, f"{base}/cyl/", f"{base}/valve/")
                if k is not None:
                    out[f"{f}_valve_flow_{port}"] = (res.flow(k), "m^3/s")
        pu = hc.power_unit
        if pu.pressure_state:
            p = res[f"{prefix}/{pu.name}/{pu.pressure_state}"]
            out["pump_pressure"] = (p, "Pa")
            k = _bond(model, f"{prefix}/{pu.name}/pump", f"{prefix}/{pu.name}/")
            if k is not None:
                q = res.flow(k)
                out["pump_flow"] = (q, "m^3/s")
                out["pump_power"] = (p * q, "W")
            k = _bond(model, f"{prefix}/{pu.name}/", f"{prefix}/{pu.name}/relief")
            if k is not None:
                out["relief_flow"] = (res.flow(k), "m^3/s")
        from .circuits_engine import engine_read_outs
        from .circuits_swing import swing_circuit_read_outs

        out.update(engine_read_outs(self, res, prefix, out))
        out.update(swing_circuit_read_outs(self, res, prefix))
        return out

    def energy_category(self, element: str) -> str | None:
        from .circuits_engine import engine_category

        if self.engine_driven and engine_category(element):
            return engine_category(element)
        leaf = element.rsplit("/", 1)[-1]
        parts = element.split("/")
        if leaf == "relief":
            return "relief"
        if leaf == "crossover":
            return "swing crossover relief"
        if leaf.startswith("R_MU"):
            return "make-up valves"
        if "valve" in parts and leaf.startswith("R_"):
            return "throttling (valves)"
        if "spool" in parts:
            return "spool model"
        if leaf == "friction":
            return "friction"
        if leaf == "end_stop":
            return "end stops and cushions"
        if leaf.startswith("leak") or leaf == "G_AB":
            return "leakage"
        if leaf == "pump":
            return "pump"
        return None


def _bond(model, tail_prefix: str, head_prefix: str) -> str | None:
    for u, v, k in model.bond_ends:
        if u.startswith(tail_prefix) and v.startswith(head_prefix):
            return k
    return None


def check_keys(ctx: CircuitContext, known: set[str]) -> None:
    """Unknown keys of ``[circuit]`` (the sub-tables of other circuit types are known)."""
    known = set(known) | {"type", "engine"} | set(CIRCUIT_TABLES.values())
    for k in ctx.section:
        if k not in known:
            close = difflib.get_close_matches(str(k), sorted(known), n=1)
            ctx.bad(f"circuit.{k}", "unknown key" + (f"; did you mean 'circuit.{close[0]}'?" if close else
                                                     f" (known: {', '.join(sorted(known))})"))


def read_shared(ctx: CircuitContext, power_unit: Mapping[str, tuple] | None
                ) -> tuple[float, dict, dict | None, dict]:
    """The tables every circuit of the valve-per-function kind reads: the cavitation floor,
    ``oil``, ``power_unit`` (against ``power_unit``'s keys; ``None``: the caller reads it) and
    one ``valves.<function>`` per function. Problems are collected in ``ctx``."""
    sec = ctx.section
    for k in ("oil", "power_unit", "valves"):
        if k not in sec:
            ctx.bad(f"circuit.{k}", "missing table" + (" (one [circuit.valves.<function>] per function)"
                                                       if k == "valves" else ""))
    floor = -1e5
    if "cavitation_floor" in sec:
        try:
            floor = to_si(sec["cavitation_floor"], "Pa", key="circuit.cavitation_floor")
        except BondGraphError as exc:
            ctx.problems += exc.problems
    oil_p = ctx.read("circuit.oil", sec.get("oil", {}), _OIL)
    pu_p = None if power_unit is None else ctx.read("circuit.power_unit", sec.get("power_unit", {}),
                                                     power_unit)
    valves = sec.get("valves", {})
    valve_p: dict[str, dict] = {}
    if isinstance(valves, Mapping):
        for f in ctx.functions:
            if f not in valves:
                ctx.bad(f"circuit.valves.{f}", f"missing: function {f!r} needs its valve")
                continue
            valve_p[f] = ctx.read(f"circuit.valves.{f}", valves[f], _VALVE)
        from .circuits_swing import SWING_SECTION, read_swing_valve

        swing = read_swing_valve(ctx, valves)       # a machine with [swing]: its section's table
        if swing is not None:
            valve_p[SWING_SECTION] = swing
        for f in valves:
            if f == SWING_SECTION and ctx.description.swing is None:
                ctx.bad(f"circuit.valves.{f}", "a swing valve section, but the machine has no [swing] "
                                               "(its motor and turntable): add [swing] or remove the table")
            elif f not in ctx.functions and f != SWING_SECTION:
                ctx.bad(f"circuit.valves.{f}", f"no cylinder has function {f!r} (functions: "
                                               f"{', '.join(ctx.functions)})")
    return floor, oil_p, pu_p, valve_p


def make_oil(ctx: CircuitContext, oil_p: Mapping[str, float]):
    """The :class:`~components.hydraulics.Oil` of ``[circuit.oil]`` (errors name the table)."""
    from components.hydraulics import Oil

    try:
        return Oil(**oil_p)
    except BondGraphError as exc:
        raise ParameterError([f"'circuit.oil' ({ctx.where('circuit.oil')}): {p}" for p in exc.problems],
                             subject=f"circuit of {ctx.description.file.name}") from None


def add_drives(ctx: CircuitContext, hc, oil, valve_p: Mapping[str, dict], *, valve_type=None,
               valve_kw: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One drive per function (its cylinder's part table + its ``valves`` table) added to the
    circuit ``hc``; returns the :class:`Circuit` keywords ``chambers``, ``pistons``, ``areas``,
    ``valve_gains``."""
    from components.hydraulics.params import drive_from_si

    desc = ctx.description
    chambers, pistons, areas, gains = {}, {}, {}, {}
    kw = {} if valve_type is None else {"valve_type": valve_type, "valve_kw": valve_kw}
    for f in ctx.functions:
        cname = desc.cylinder_of[f]
        c = desc.parts[cname].values
        v = valve_p[f]
        fr = c.get("friction") or {}
        es = c.get("end_stop") if ctx.end_stops else None
        d = {
            "bore": ctx.symbols.get(f"{cname}.bore", c["bore"]),
            "rod": ctx.symbols.get(f"{cname}.rod", c["rod"]),
            "stroke": c["stroke"], "retracted": c["retracted"], "count": c["count"],
            # the rod and piston are the mechanical cylinder's rod_mass (it moves with the
            # extension there): not added a second time on the hydraulic side
            "piston_mass": 0.0,
            "dead_volume_cap": c["dead_volume_cap"], "dead_volume_rod": c["dead_volume_rod"],
            "hose_cap": v["hose_cap"], "hose_rod": v["hose_rod"],
            "valve_flow": v["flow"], "valve_dp": v["dp"], "valve_leakage": v["leakage"],
            "makeup_conductance": v["makeup_conductance"], "makeup_crack": v["makeup_crack"],
            "spool_bandwidth": v["spool_bandwidth"], "spool_damping": v["spool_damping"],
            "coulomb": fr.get("coulomb", 0.0), "breakaway": fr.get("breakaway"),
            "breakaway_velocity": fr.get("breakaway_velocity", 0.01), "viscous": fr.get("viscous", 0.0),
            "end_stop_stiffness": es["stiffness"] if es else None,
            "end_stop_damping": es["damping"] if es else 0.0,
            "cushion_length": es["cushion_length"] if es else 0.0,
            "cushion_damping": es["cushion_damping"] if es else 0.0,
            "leakage_internal": c["leakage_internal"], "leakage_external": c["leakage_external"],
        }
        try:
            drive = drive_from_si(f, d, oil, ctx.lengths[f], ctx.commands[f], **kw)
            hc.add_drive(drive)
        except BondGraphError as exc:
            raise ParameterError([f"cylinder {cname!r} / valve {f!r}: {p}" for p in exc.problems],
                                 subject=f"circuit of {desc.file.name}") from None
        chambers[f] = (hc.state(f, "pA").split("/", 1)[1], hc.state(f, "pB").split("/", 1)[1])
        pistons[f] = hc.state(f, "v").split("/", 1)[1]
        areas[f] = desc.areas(f)
        gains[f] = v["flow"] / math.sqrt(v["dp"])
    return {"chambers": chambers, "pistons": pistons, "areas": areas, "valve_gains": gains}


@register_circuit("fixed")
def fixed_circuit(ctx: CircuitContext) -> Circuit:
    """Pump (fixed or pressure-compensated) or ideal source, relief, closed-centre 4/3 valves."""
    from components.hydraulics import HydraulicCircuit
    from components.hydraulics.params import power_unit_from_si

    check_keys(ctx, {"oil", "power_unit", "valves", "cavitation_floor"})
    n_read = len(ctx.problems)
    floor, oil_p, pu_p, valve_p = read_shared(ctx, _POWER_UNIT)
    oil = None
    if not any(p.startswith("'circuit.oil") for p in ctx.problems[n_read:]):
        try:
            oil = make_oil(ctx, oil_p)
        except ParameterError as exc:
            ctx.problems += exc.problems
    problems: list[str] = []
    pu = None
    if "power_unit" in ctx.section and not any(p.startswith("'circuit.power_unit") for p in ctx.problems):
        # checked with every other problem: a placeholder oil when the oil is bad (its
        # problems are named already; the power unit's own rules do not depend on it)
        from components.hydraulics import Oil

        pu = power_unit_from_si(pu_p, oil or Oil(), problems)
    ctx.problems += [f"'circuit.power_unit' ({ctx.where('circuit.power_unit')}): {p.split(': ', 1)[-1]}"
                     for p in problems]
    if ctx.problems:
        raise ParameterError(ctx.problems, subject=f"circuit of {ctx.description.file.name}")
    hc = HydraulicCircuit(ctx.name, pu)
    parts = add_drives(ctx, hc, oil, valve_p)
    swing = add_swing(ctx, hc, oil, valve_p.get(SWING_SECTION))
    supply = {}
    if pu.pressure_state:
        supply[f"{pu.name}/{pu.pressure_state}"] = pu.relief.crack_pressure if pu.relief else 0.0
    relief = pu.relief.crack_pressure if pu.relief else (pu.supply_pressure if pu.pump is None else None)
    circuit = FixedCircuit(hc, supply=supply, relief_pressure=relief, cavitation_floor=floor, **parts)
    attach_swing_section(circuit, swing, valve_p.get(SWING_SECTION))
    return circuit


# The shipped circuit types register themselves when their modules load; loading them here
# makes CIRCUITS complete wherever it is read (the package itself imports nothing eagerly).
from . import circuits_ls, circuits_oc  # noqa: E402,F401  (registers "load-sensing", "open-centre")
