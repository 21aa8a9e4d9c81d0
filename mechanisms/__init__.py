"""Machines assembled from the templates: the mechanism assembly and ready-made machines.

Examples
--------
>>> from mechanisms import Mechanism, MechanismModel
>>> Mechanism("loader").parts
{}
"""

from .assembly import Drive, Mechanism, Pose
from .model import MechanismModel, extension_signals

__all__ = ["Mechanism", "Pose", "Drive", "MechanismModel", "extension_signals"]
