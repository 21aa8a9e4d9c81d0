"""The backhoe excavator, end to end: parameters, machine, work cycles, CLI, plots.

Examples
--------
>>> from mechanisms.excavator import load_params, excavator_mechanism
>>> sorted(excavator_mechanism(load_params()).parts)[:3]
['arm', 'arm_cyl', 'boom']
"""

from .cycle import Cycle
from .machine import CYLINDERS, body_angles, excavator_mechanism, pose_from_angles, start_pose
from .model import Excavator, ExcavatorRun
from .params import DEFAULT_FILE, describe_params, load_params

__all__ = ["load_params", "describe_params", "DEFAULT_FILE", "excavator_mechanism", "start_pose",
           "pose_from_angles", "body_angles", "CYLINDERS", "Excavator", "ExcavatorRun", "Cycle"]
