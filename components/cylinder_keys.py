"""The data keys of a cylinder: its hydraulic data, its seal friction and its end stops.

Plain tables, apart from the :class:`~components.cylinder.Cylinder` template that reads
them, so that a machine file is parsed and checked without loading the model stack.

Examples
--------
>>> FRICTION_KEYS["coulomb"][:3]
('N', '>=0', 0.0)
>>> sorted(HYDRAULIC_DATA)[:2]
['bore', 'dead_volume_cap']
"""

from __future__ import annotations

__all__ = ["HYDRAULIC_DATA", "FRICTION_KEYS", "END_STOP_KEYS", "DEFAULT_HARDENING"]

#: hydraulic data a cylinder may carry for the machine layer (the circuit reads them):
#: argument -> (SI unit, rule). The same keys as a machine file's cylinder table.
HYDRAULIC_DATA = {
    "bore": ("m", ">0"), "rod": ("m", ">0"),
    "dead_volume_cap": ("m^3", ">0"), "dead_volume_rod": ("m^3", ">0"),
    "leakage_internal": ("m^3/s/Pa", ">=0"), "leakage_external": ("m^3/s/Pa", ">=0"),
}
#: the keys of a cylinder's ``friction`` table: key -> (SI unit, rule, default, meaning)
FRICTION_KEYS = {
    "coulomb": ("N", ">=0", 0.0, "Coulomb (sliding) friction force"),
    "breakaway": ("N", ">=0", None, "break-away (static) force; default 1.2 × coulomb"),
    "breakaway_velocity": ("m/s", ">0", 0.01, "velocity of the break-away peak"),
    "viscous": ("N*s/m", ">=0", 0.0, "viscous friction coefficient"),
}
#: the keys of a cylinder's ``end_stop`` table: key -> (SI unit, rule, default, meaning)
END_STOP_KEYS = {
    "stiffness": ("N/m", ">0", 1e9, "stiffness of the stop past either stroke end"),
    "damping": ("N*s/m", ">=0", 1e6, "damping of the stop (it only pushes)"),
    "cushion_length": ("m", ">=0", 0.0, "length before each end over which the cushion acts (valves mode)"),
    "cushion_damping": ("N*s/m", ">=0", 0.0, "equivalent damping of the cushion at the very end (valves mode)"),
    "hardening_length": ("m", ">0", None, "the stop's spring hardens as (δ/h)²; forces-mode default 1 mm"),
}
#: hardening length of the end stops on a force drive when none is given (m): a force far
#: beyond what the machine can take ends a few millimetres past the stop, not metres
DEFAULT_HARDENING = 1e-3
