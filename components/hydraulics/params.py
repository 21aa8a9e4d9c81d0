"""Hydraulic parameter files (TOML, every value with its unit) → templates.

Layout of a file (the excavator's is the ``[hydraulics]`` part of
``mechanisms/data/excavator.toml``)::

    [oil]                     # OIL_SCHEMA
    density = "870 kg/m^3"
    bulk_modulus = "1.0 GPa"

    [power_unit]              # POWER_UNIT_SCHEMA: a pump + relief, or a pressure source
    pump_displacement = "500 cm^3/rev"
    pump_speed = "1432 rpm"
    relief_crack = "300 bar"
    relief_full = "310 bar"
    relief_flow = "900 L/min"

    [drives.boom]             # DRIVE_SCHEMA, one table per drive
    bore = "135 mm"
    rod = "50 mm"
    ...

Accepted units are any ``pint`` spelling of the right dimension (mm, bar,
L/min, cm³/rev, rpm...). Unknown keys, missing keys, wrong dimensions and
bare numbers where a unit is due are all reported at once, each named by its
table path (``drives.boom.bore``).

Examples
--------
>>> import sympy as sp
>>> from bondgraph import Input
>>> table = {"oil": {"density": "870 kg/m^3", "bulk_modulus": "1 GPa"},
...          "power_unit": {"pressure": "200 bar"},
...          "drives": {"lift": {"bore": "80 mm", "rod": "40 mm", "stroke": "500 mm",
...                              "valve_flow": "60 L/min", "valve_dp": "5 bar"}}}
>>> circuit = circuit_from_params(table, lengths={"lift": sp.Symbol("s")},
...                               commands={"lift": Input("lift.cmd")})
>>> sorted(circuit.ports), circuit.drives["lift"].cylinder.bore
(['lift.I'], 0.08)
>>> circuit_from_params({**table, "oil": {"density": "870 kg/m^3", "bulk_modulus": "1 GPa",
...                      "colour": "red"}}, lengths={"lift": sp.Symbol("s")},
...                      commands={"lift": 0.0})
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: hydraulic parameters: 1 problem
  - oil: 'colour': unknown key (known: air_fraction, bulk_modulus, density, p_atm, polytropic_index, viscosity)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import sympy as sp

from bondgraph.errors import ParameterError
from bondgraph.units import ParamSchema, ParamSpec, load_toml

from .cylinder import HydraulicCylinder
from .drive import HydraulicCircuit, HydraulicDrive
from .endstop import EndStop
from .friction import Friction
from .oil import OIL_SCHEMA, Oil
from ._values import read_with_units
from .supply import CompensatedPump, FixedPump, PowerUnit, ReliefValve
from .valves import DirectionalValve, SpoolDynamics

__all__ = ["POWER_UNIT_SCHEMA", "DRIVE_SCHEMA", "circuit_from_params", "load_circuit",
           "power_unit_from_si", "drive_from_si"]

_S = ParamSpec

POWER_UNIT_SCHEMA = ParamSchema("power_unit", [
    _S("pressure", "Pa", "ideal pressure-compensated supply (instead of a pump)", required=False),
    _S("pump_displacement", "m^3/rev", "pump displacement", required=False, positive=True),
    _S("pump_speed", "rev/s", "pump shaft speed", required=False, positive=True),
    _S("compensator_setting", "Pa", "pressure compensator setting (variable pump)", required=False),
    _S("compensator_band", "Pa", "compensator regulation band", required=False, default="5 bar"),
    _S("relief_crack", "Pa", "relief valve cracking pressure", required=False, positive=True),
    _S("relief_full", "Pa", "relief valve fully-open pressure", required=False, positive=True),
    _S("relief_flow", "m^3/s", "relief valve flow when fully open", required=False, positive=True),
    _S("volume", "m^3", "pump outlet and line volume", required=False, default="2 L", positive=True),
    _S("tank_pressure", "Pa", "tank gauge pressure", required=False, default="0 Pa"),
])

DRIVE_SCHEMA = ParamSchema("drive", [
    _S("bore", "m", "piston diameter", positive=True),
    _S("rod", "m", "rod diameter", positive=True),
    _S("stroke", "m", "stroke", positive=True),
    _S("retracted", "m", "pin-to-pin length fully retracted", required=False, default="0 m"),
    _S("count", "", "identical cylinders in parallel", required=False, default=1, minimum=1),
    _S("piston_mass", "kg", "piston + rod axial mass", required=False, default="0 kg", minimum=0),
    _S("dead_volume_cap", "m^3", "cap-side dead volume", required=False, default="0.05 L",
       positive=True),
    _S("dead_volume_rod", "m^3", "rod-side dead volume", required=False, default="0.05 L",
       positive=True),
    _S("hose_cap", "m^3", "cap-side hose volume", required=False),
    _S("hose_rod", "m^3", "rod-side hose volume", required=False),
    _S("valve_flow", "m^3/s", "nominal flow of one metering edge", positive=True),
    _S("valve_dp", "Pa", "pressure drop at the nominal flow", positive=True),
    _S("valve_leakage", "", "leakage opening (fraction of full)", required=False, default=0.0,
       minimum=0, maximum=0.1),
    _S("makeup_conductance", "m^3/s/Pa", "anti-cavitation check valves T→A, T→B (none: absent)",
       required=False, positive=True),
    _S("makeup_crack", "Pa", "their cracking pressure", required=False, default="0.3 bar", minimum=0),
    _S("spool_bandwidth", "Hz", "spool bandwidth (none: ideal spool)", required=False, positive=True),
    _S("spool_damping", "", "spool damping ratio", required=False, default=1.0, positive=True),
    _S("coulomb", "N", "Coulomb friction force", required=False, default="0 N", minimum=0),
    _S("breakaway", "N", "break-away friction force", required=False),
    _S("breakaway_velocity", "m/s", "break-away velocity", required=False, default="0.01 m/s",
       positive=True),
    _S("viscous", "N*s/m", "viscous friction", required=False, default="0 N*s/m", minimum=0),
    _S("end_stop_stiffness", "N/m", "end-stop stiffness (none: no end stops)", required=False,
       positive=True),
    _S("end_stop_damping", "N*s/m", "end-stop damping", required=False, default="0 N*s/m",
       minimum=0),
    _S("cushion_length", "m", "end cushion length", required=False, default="0 m", minimum=0),
    _S("cushion_damping", "N*s/m", "end cushion equivalent damping", required=False,
       default="0 N*s/m", minimum=0),
    _S("leakage_internal", "m^3/s/Pa", "cap ↔ rod leakage conductance", required=False,
       default="0 m^3/s/Pa", minimum=0),
    _S("leakage_external", "m^3/s/Pa", "chamber → tank leakage conductance (each)",
       required=False, default="0 m^3/s/Pa", minimum=0),
])

_TOP = ("oil", "power_unit", "drives")


def _load(schema: ParamSchema, table: Any, where: str, problems: list[str]) -> dict | None:
    try:
        return read_with_units(schema.load(table))
    except ParameterError as exc:
        problems += [f"{where}: {p}" for p in exc.problems]
        return None


def _relief(p: Mapping[str, float | None], problems: list[str]) -> tuple[bool, ReliefValve | None]:
    """The relief valve of a ``[power_unit]`` table: all three keys or none."""
    keys = ("relief_crack", "relief_full", "relief_flow")
    given = [k for k in keys if p[k] is not None]
    if given and len(given) != 3:
        problems += [f"power_unit: {k!r}: missing (a relief valve needs relief_crack, relief_full "
                     "and relief_flow)" for k in keys if p[k] is None]
        return False, None
    if not given:
        return True, None
    if not p["relief_full"] > p["relief_crack"]:  # named by the table's keys, not the valve's fields
        problems.append(f"power_unit: 'relief_full' ({p['relief_full'] / 1e5:.6g} bar) must exceed "
                        f"'relief_crack' ({p['relief_crack'] / 1e5:.6g} bar): the valve opens fully "
                        "above its cracking pressure")
        return False, None
    try:
        return True, ReliefValve(p["relief_crack"], p["relief_full"], p["relief_flow"])
    except ParameterError as exc:   # (the schemas refuse values ≤ 0 before this)
        problems += [f"power_unit: relief valve (relief_crack, relief_full, relief_flow): {q}"
                     for q in exc.problems]
        return False, None


def power_unit_from_si(p: Mapping[str, float | None], oil: Oil, problems: list[str]) -> PowerUnit | None:
    """A :class:`PowerUnit` from SI values (every :data:`POWER_UNIT_SCHEMA` key; ``None``
    for absent ones); problems are appended to ``problems`` (``None`` returned).

    Parameters
    ----------
    p : mapping
        E.g. ``POWER_UNIT_SCHEMA.load(table)``.
    oil : Oil
    problems : list of str

    Returns
    -------
    PowerUnit or None

    Examples
    --------
    >>> p = POWER_UNIT_SCHEMA.load({"pump_displacement": "100 cm^3/rev", "pump_speed": "1500 rpm",
    ...                             "compensator_setting": "250 bar"})
    >>> pu = power_unit_from_si(p, Oil(), [])
    >>> type(pu.pump).__name__, round(pu.pump.flow * 6e4, 6)
    ('CompensatedPump', 150.0)
    >>> problems = []
    >>> power_unit_from_si(POWER_UNIT_SCHEMA.load({}), Oil(), problems), problems
    (None, ["power_unit: give either 'pressure' (ideal source) or 'pump_displacement' and 'pump_speed'"])
    """
    has_pump = p["pump_displacement"] is not None or p["pump_speed"] is not None
    if (p["pressure"] is None) == (not has_pump):
        problems.append("power_unit: give either 'pressure' (ideal source) or 'pump_displacement' "
                        "and 'pump_speed'")
        return None
    ok, relief = _relief(p, problems)
    if not ok:
        return None
    if p["pressure"] is not None:
        if relief is not None:
            problems.append("power_unit: a relief valve needs a pump (an ideal pressure source "
                            "never exceeds its setting)")
            return None
        return PowerUnit("pu", oil=oil, pressure=p["pressure"], tank_pressure=p["tank_pressure"])
    if p["pump_displacement"] is None or p["pump_speed"] is None:
        problems.append("power_unit: a pump needs both 'pump_displacement' and 'pump_speed'")
        return None
    if p["compensator_setting"] is not None:
        pump = CompensatedPump(p["pump_displacement"], p["pump_speed"], p["compensator_setting"],
                               p["compensator_band"])
    else:
        pump = FixedPump(p["pump_displacement"], p["pump_speed"])
    return PowerUnit("pu", oil=oil, pump=pump, relief=relief, volume=p["volume"],
                     tank_pressure=p["tank_pressure"])


def drive_from_si(name: str, d: Mapping[str, Any], oil: Oil, length: sp.Symbol, command: Any,
                  valve_type: type = DirectionalValve, valve_kw: Mapping[str, Any] | None = None
                  ) -> HydraulicDrive:
    """A :class:`HydraulicDrive` from SI values (every :data:`DRIVE_SCHEMA` key; ``None`` for
    absent ones). ``bore`` and ``rod`` may be sympy symbols (run-time parameters).

    Parameters
    ----------
    name : str
    d : mapping
        E.g. ``DRIVE_SCHEMA.load(table)``.
    oil : Oil
    length : sympy symbol
        The mechanical cylinder's length handle.
    command : expression
        The valve command.
    valve_type : type
        :class:`DirectionalValve` or a subclass (a compensated valve).
    valve_kw : mapping, optional
        Extra keyword arguments of the valve.

    Returns
    -------
    HydraulicDrive

    Raises
    ------
    ParameterError
        From the templates, when a value breaks their rules.

    Examples
    --------
    >>> import sympy as sp
    >>> d = DRIVE_SCHEMA.load({"bore": "80 mm", "rod": "40 mm", "stroke": "0.5 m",
    ...                        "valve_flow": "60 L/min", "valve_dp": "5 bar",
    ...                        "spool_bandwidth": "10 Hz", "viscous": "5 kN*s/m"})
    >>> drive = drive_from_si("lift", d, Oil(), sp.Symbol("s"), 0.5)
    >>> drive.valve.spool.bandwidth, "friction" in drive.cylinder.children
    (10.0, True)
    """
    friction = None
    if d["coulomb"] or d["viscous"] or d["breakaway"]:
        friction = Friction(coulomb=d["coulomb"], breakaway=d["breakaway"],
                            breakaway_velocity=d["breakaway_velocity"], viscous=d["viscous"])
    end_stop = None
    if d["end_stop_stiffness"] is not None:
        end_stop = EndStop(d["end_stop_stiffness"], d["end_stop_damping"], d["cushion_length"],
                           d["cushion_damping"])
    cyl = HydraulicCylinder(
        "cyl", bore=d["bore"], rod=d["rod"], stroke=d["stroke"], retracted=d["retracted"],
        length=length, oil=oil, count=int(d["count"]), piston_mass=d["piston_mass"],
        dead_volumes=(d["dead_volume_cap"], d["dead_volume_rod"]), friction=friction,
        end_stop=end_stop, leakage_internal=d["leakage_internal"],
        leakage_external=(d["leakage_external"], d["leakage_external"]))
    spool = (SpoolDynamics(d["spool_bandwidth"], d["spool_damping"])
             if d["spool_bandwidth"] is not None else None)
    valve = valve_type("valve", q_nominal=d["valve_flow"], dp_nominal=d["valve_dp"],
                       command=command, spool=spool, leakage=d["valve_leakage"],
                       makeup=d["makeup_conductance"], makeup_crack=d["makeup_crack"],
                       **(valve_kw or {}))
    hoses = None
    if d["hose_cap"] is not None or d["hose_rod"] is not None:
        hoses = (d["hose_cap"] or 1e-9, d["hose_rod"] or 1e-9)
    return HydraulicDrive(name, cylinder=cyl, valve=valve, hoses=hoses)


def _common_tables(params: Any, lengths: Mapping[str, Any], commands: Mapping[str, Any],
                   top: tuple[str, ...], power_unit: ParamSchema,
                   problems: list[str]) -> tuple[dict | None, dict | None, dict]:
    """Check the top-level tables of a circuit table; load ``oil``, ``power_unit`` (with
    its schema) and every drive."""
    if not isinstance(params, Mapping):
        raise ParameterError(f"hydraulic parameters: found {type(params).__name__}, expected a table")
    for k in params:
        if k not in top:
            problems.append(f"{k!r}: unknown table (expected {', '.join(top)})")
    for k in top:
        if k not in params:
            problems.append(f"{k!r}: missing table")
    oil_p = _load(OIL_SCHEMA, params.get("oil", {}), "oil", problems) if "oil" in params else None
    pu_p = (_load(power_unit, params.get("power_unit", {}), "power_unit", problems)
            if "power_unit" in params else None)
    raw_pu = params.get("power_unit")
    if isinstance(raw_pu, Mapping) and "pump_speed" in raw_pu:
        from .supply import speed_problem

        bad = speed_problem(raw_pu["pump_speed"], "pump_speed")
        if bad:
            problems.append(f"power_unit: {bad}")
            pu_p = None
    drives = params.get("drives", {})
    drive_p = {}
    if "drives" in params and not (isinstance(drives, Mapping) and drives):
        problems.append("drives: expected one table per drive ([drives.<name>])")
    elif isinstance(drives, Mapping):
        for dn, dt in drives.items():
            drive_p[dn] = _load(DRIVE_SCHEMA, dt, f"drives.{dn}", problems)
            if dn not in lengths:
                problems.append(f"drives.{dn}: no length handle given (lengths={{{dn!r}: "
                                "cylinder.length_symbol}})")
            if dn not in commands:
                problems.append(f"drives.{dn}: no valve command given (commands={{{dn!r}: ...}})")
        for dn in sorted(set(lengths) | set(commands)):
            if dn not in drives:
                problems.append(f"{dn!r}: a length or command is given but there is no "
                                f"[drives.{dn}] table")
    return oil_p, pu_p, drive_p


def circuit_from_params(params: Mapping[str, Any], *, lengths: Mapping[str, sp.Symbol],
                        commands: Mapping[str, Any], name: str = "hyd") -> HydraulicCircuit:
    """Build a :class:`HydraulicCircuit` from a parameter table.

    Parameters
    ----------
    params : mapping
        ``{"oil": {...}, "power_unit": {...}, "drives": {name: {...}}}`` with units.
    lengths : mapping
        Drive name → pin-to-pin length handle of its mechanical cylinder.
    commands : mapping
        Drive name → valve command (an :func:`~bondgraph.Input`, expression or number).
    name : str

    Returns
    -------
    HydraulicCircuit

    Raises
    ------
    ParameterError
        Every unknown, missing or ill-united key, named by its table path.

    Examples
    --------
    See the module; a bare number where a unit is due is named with a suggestion:

    >>> import sympy as sp
    >>> circuit_from_params({"oil": {"density": "870 kg/m^3", "bulk_modulus": "1 GPa"},
    ...                      "power_unit": {"pressure": 200},
    ...                      "drives": {"lift": {"bore": "80 mm", "rod": "40 mm", "stroke": "0.5 m",
    ...                                          "valve_flow": "60 L/min", "valve_dp": "5 bar"}}},
    ...                     lengths={"lift": sp.Symbol("s")}, commands={"lift": 0.0})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: hydraulic parameters: 1 problem
      - power_unit: 'pressure': found the bare number 200, expected a pressure in Pa with its unit, e.g. "200 bar"
    """
    problems: list[str] = []
    oil_p, pu_p, drive_p = _common_tables(params, lengths, commands, _TOP, POWER_UNIT_SCHEMA,
                                          problems)
    oil = Oil(**oil_p) if oil_p else None
    pu = power_unit_from_si(pu_p, oil, problems) if (pu_p and oil) else None
    if problems:
        raise ParameterError(problems, subject="hydraulic parameters")
    circuit = HydraulicCircuit(name, pu)
    for dn, dp in drive_p.items():
        circuit.add_drive(drive_from_si(dn, dp, oil, lengths[dn], commands[dn]))
    return circuit


def load_circuit(path: str | Path, **kw: Any) -> HydraulicCircuit:
    """:func:`circuit_from_params` on a TOML file (errors name the file).

    Parameters
    ----------
    path : str or pathlib.Path
    **kw
        ``lengths``, ``commands``, ``name`` of :func:`circuit_from_params`.

    Returns
    -------
    HydraulicCircuit

    Raises
    ------
    ParameterError
        The file is missing or not TOML, or its tables are wrong (every problem, the
        file named).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import sympy as sp
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "rig.toml"
    >>> _ = f.write_text(
    ...     'oil = { density = "870 kg/m^3", bulk_modulus = "1 GPa" }' + chr(10) +
    ...     'power_unit = { pressure = "200 bar" }' + chr(10) +
    ...     'drives.lift = { bore = "80 mm", rod = "40 mm", stroke = "0.5 m", '
    ...     'valve_flow = "60 L/min", valve_dp = "5 bar" }' + chr(10))
    >>> load_circuit(f, lengths={"lift": sp.Symbol("s")}, commands={"lift": 0.0}).drives["lift"].cylinder.stroke
    0.5
    """
    table = load_toml(path)
    try:
        return circuit_from_params(table, **kw)
    except ParameterError as exc:
        raise ParameterError(exc.problems, subject=f"parameter file {str(path)!r}") from None

