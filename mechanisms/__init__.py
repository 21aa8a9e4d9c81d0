"""Machines assembled from the templates: the mechanism assembly and ready-made machines.

Examples
--------
>>> from mechanisms import Mechanism, MechanismModel
>>> Mechanism("loader").parts
{}
"""

from bondgraph.lazy import lazy_exports

#: each public name and the module that defines it, imported when the name is first read
_EXPORTS = {
    'Drive': '.assembly',
    'Mechanism': '.assembly',
    'Pose': '.assembly',
    'MechanismModel': '.model',
    'extension_signals': '.model',
    'with_swing': '.swing',
    'SwingMechanism': '.swing',
    'swing_inertia': '.swing',
    'inertia_defaults': '.swing',
    'PartInertia': '.swing',
    'with_travel': '.travel',
    'TravelMechanism': '.travel',
    'Carrier': '.travel',
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["Mechanism", "Pose", "Drive", "MechanismModel", "extension_signals", "with_swing", "SwingMechanism",
           "swing_inertia", "inertia_defaults", "PartInertia", "with_travel", "TravelMechanism", "Carrier"]
