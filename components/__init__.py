"""Element templates for hydraulic linkages: bodies, levers, cylinders, hydraulics.

Each template is a :class:`bondgraph.BondGraph` component whose hinge points
carry the causal port classes of the source paper (:mod:`components.ports`).

Examples
--------
>>> from components import Cylinder
>>> Cylinder("c", retracted=1.0, stroke=0.5).kind
'cylinder'
"""

from bondgraph.lazy import lazy_exports

#: each public name and the module that defines it, imported when the name is first read
_EXPORTS = {
    'MainBody': '.body',
    'Cylinder': '.cylinder',
    'Pathway': '.geometry',
    'local_from_polar': '.geometry',
    'polar_from_cog': '.geometry',
    'Lever': '.lever',
    'Part': '.part',
    'RULES': '.ports',
    'HingePoint': '.ports',
    'PortClass': '.ports',
    'Turntable': '.turntable',
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["MainBody", "Lever", "Cylinder", "Part", "PortClass", "HingePoint", "RULES",
           "Pathway", "polar_from_cog", "local_from_polar", "Turntable"]
