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

from .chamber import Chamber, HydraulicCapacitance
from .cylinder import HydraulicCylinder
from .drive import HydraulicCircuit, HydraulicDrive
from .endstop import EndStop
from .friction import Friction
from .lines import Hose, Line
from ._values import SIValue, read_with_units
from .oil import HLP46, Oil
from .orifice import (Orifice, nominal_flow, nominal_flow_inverse, nominal_law, orifice_flow,
                      orifice_flow_inverse, orifice_law, signed_sqrt, signed_sqrt_inverse)
from .params import DRIVE_SCHEMA, POWER_UNIT_SCHEMA, circuit_from_params, load_circuit
from .supply import CompensatedPump, FixedPump, PowerUnit, PumpSource, ReliefValve, Tank
from .valves import DirectionalValve, OnOffValve, Spool, SpoolDynamics
from .lag import Lag
from .pressure_tap import LSPort, SensedCapacitance
from .shuttle import HybridShuttle, LoadSenseNetwork, SmoothShuttle, smooth_max
from .compensator import CompensatedValve, Compensator
from .pump_ls import LS_POWER_UNIT_SCHEMA, LSPowerUnit, LSPump
from .ls_circuit import LS_SCHEMA, LSCircuit, ls_circuit_from_params
from .pump_nfc import NFCPowerUnit, NFCPump
from .open_centre import NegativeControl, OpenCentreCircuit, OpenCentreValve
from .ls_rigs import LoadRig, load_rig
from .engine import DieselEngine, EngineShaft, SensedInertia, smooth_min
from .supply import PumpTransformer

__all__ = [
    "Oil", "HLP46",
    "signed_sqrt", "orifice_flow", "nominal_flow", "Orifice",
    "signed_sqrt_inverse", "orifice_flow_inverse", "nominal_flow_inverse", "orifice_law", "nominal_law",
    "HydraulicCapacitance", "Chamber", "Hose", "Line",
    "Friction", "EndStop", "HydraulicCylinder",
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
