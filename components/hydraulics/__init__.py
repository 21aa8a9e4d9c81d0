"""Hydraulic library: oil, orifices, chambers, cylinders, valves, supply, lines, drives,
load sensing (LS pump, compensated valves, shuttle network, LS circuits) and open centre
with negative flow control (NFC pump, 6-port sections, centre gallery).

Every part is a bond-graph template (a :class:`bondgraph.BondGraph`
component) or a law used inside one; the equations always come from the
generic core. Hydraulic bonds carry pressure (Pa, gauge) as effort and
volume flow (m³/s) as flow. Values may be given in SI or as text with units
(``"135 mm"``, ``"250 bar"``, ``"120 L/min"``, ``"500 cm^3/rev"``); parameter
files are read by :mod:`components.hydraulics.params`.

Examples
--------
>>> from components.hydraulics import Oil, HydraulicCylinder
>>> HydraulicCylinder("c", bore="100 mm", rod="60 mm", stroke="0.5 m", oil=Oil()).area_B  # m²
0.00502654824574...
"""

from bondgraph.lazy import lazy_exports

#: each public name and the module that defines it, imported when the name is first read
_EXPORTS = {
    'Chamber': '.chamber',
    'HydraulicCapacitance': '.chamber',
    'HydraulicCylinder': '.cylinder',
    'HydraulicCircuit': '.drive',
    'HydraulicDrive': '.drive',
    'EndStop': '.endstop',
    'Friction': '.friction',
    'Hose': '.lines',
    'Line': '.lines',
    'SIValue': '._values',
    'read_with_units': '._values',
    'HLP46': '.oil',
    'Oil': '.oil',
    'Orifice': '.orifice',
    'nominal_flow': '.orifice',
    'nominal_flow_inverse': '.orifice',
    'nominal_law': '.orifice',
    'orifice_flow': '.orifice',
    'orifice_flow_inverse': '.orifice',
    'orifice_law': '.orifice',
    'signed_sqrt': '.orifice',
    'signed_sqrt_inverse': '.orifice',
    'DRIVE_SCHEMA': '.params',
    'POWER_UNIT_SCHEMA': '.params',
    'circuit_from_params': '.params',
    'load_circuit': '.params',
    'CompensatedPump': '.supply',
    'FixedPump': '.supply',
    'PowerUnit': '.supply',
    'PumpSource': '.supply',
    'ReliefValve': '.supply',
    'Tank': '.supply',
    'DirectionalValve': '.valves',
    'OnOffValve': '.valves',
    'Spool': '.valves',
    'SpoolDynamics': '.valves',
    'SwingMotor': '.swing_motor',
    'SwingDrive': '.swing_drive',
    'Lag': '.lag',
    'LSPort': '.pressure_tap',
    'SensedCapacitance': '.pressure_tap',
    'HybridShuttle': '.shuttle',
    'LoadSenseNetwork': '.shuttle',
    'SmoothShuttle': '.shuttle',
    'smooth_max': '.shuttle',
    'CompensatedValve': '.compensator',
    'Compensator': '.compensator',
    'LS_POWER_UNIT_SCHEMA': '.pump_ls',
    'LSPowerUnit': '.pump_ls',
    'LSPump': '.pump_ls',
    'LS_SCHEMA': '.ls_circuit',
    'LSCircuit': '.ls_circuit',
    'ls_circuit_from_params': '.ls_circuit',
    'NFCPowerUnit': '.pump_nfc',
    'NFCPump': '.pump_nfc',
    'NegativeControl': '.open_centre',
    'OpenCentreCircuit': '.open_centre',
    'OpenCentreValve': '.open_centre',
    'LoadRig': '.ls_rigs',
    'load_rig': '.ls_rigs',
    'DieselEngine': '.engine',
    'EngineShaft': '.engine',
    'SensedInertia': '.engine',
    'smooth_min': '.engine',
    'PumpTransformer': '.supply',
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "Oil", "HLP46",
    "signed_sqrt", "orifice_flow", "nominal_flow", "Orifice",
    "signed_sqrt_inverse", "orifice_flow_inverse", "nominal_flow_inverse", "orifice_law", "nominal_law",
    "HydraulicCapacitance", "Chamber", "Hose", "Line",
    "Friction", "EndStop", "HydraulicCylinder", "SwingMotor", "SwingDrive",
    "SpoolDynamics", "Spool", "DirectionalValve", "OnOffValve",
    "FixedPump", "CompensatedPump", "ReliefValve", "PumpSource", "Tank", "PowerUnit",
    "HydraulicDrive", "HydraulicCircuit",
    "DRIVE_SCHEMA", "POWER_UNIT_SCHEMA", "circuit_from_params", "load_circuit",
    "Lag", "SensedCapacitance", "LSPort",
    "SmoothShuttle", "HybridShuttle", "LoadSenseNetwork", "smooth_max",
    "Compensator", "CompensatedValve", "LSPump", "LSPowerUnit", "LS_POWER_UNIT_SCHEMA",
    "LSCircuit", "LS_SCHEMA", "ls_circuit_from_params",
    "NFCPump", "NFCPowerUnit", "OpenCentreValve", "NegativeControl", "OpenCentreCircuit",
    "SIValue", "read_with_units",
    "DieselEngine", "EngineShaft", "SensedInertia", "smooth_min", "PumpTransformer",
    # ready-made test rigs (notebooks, tests, benchmarks)
    "load_rig", "LoadRig",
]

from pathlib import Path as _Path

#: Folder of the shipped parameter files (``excavator.toml``).
