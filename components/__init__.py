"""Element templates for hydraulic linkages: bodies, levers, cylinders, hydraulics.

Each template is a :class:`bondgraph.BondGraph` component whose hinge points
carry the causal port classes of the source paper (:mod:`components.ports`).

Examples
--------
>>> from components import Cylinder
>>> Cylinder("c", retracted=1.0, stroke=0.5).kind
'cylinder'
"""

from .body import MainBody
from .cylinder import Cylinder
from .geometry import Pathway, local_from_polar, polar_from_cog
from .lever import Lever
from .part import Part
from .ports import RULES, HingePoint, PortClass

__all__ = ["MainBody", "Lever", "Cylinder", "Part", "PortClass", "HingePoint", "RULES",
           "Pathway", "polar_from_cog", "local_from_polar"]
