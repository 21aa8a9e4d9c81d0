"""The reference backhoe excavator: a thin user of the generic machine layer.

Everything about the machine is in ``mechanisms/data/excavator.toml`` (format:
:mod:`mechanisms.machine.description`); the generic layer
(:mod:`mechanisms.machine`) builds, runs, reads, plots and reports it. What is
left here is what only an excavator has: the body angles θ1 (boom, absolute), θ2
(arm, relative to the boom) and θ3 (bucket, relative to the arm) as pose
coordinates, the ``excavator`` command, and the co-simulation split.

Examples
--------
>>> from mechanisms.excavator import Excavator
>>> exc = Excavator(mode="forces")
>>> [round(exc.start_pose.length(c), 3) for c in CYLINDERS]
[3.668, 2.969, 3.066]
"""

from .model import (CYLINDERS, DEFAULT_FILE, FUNCTIONS, Cycle, Excavator, ExcavatorRun, body_angles,
                    pose_from_angles)
from .control import tracking_controller
from .report import text_report
from .split import ExcavatorSplit

__all__ = ["Excavator", "ExcavatorRun", "Cycle", "DEFAULT_FILE", "FUNCTIONS", "CYLINDERS",
           "pose_from_angles", "body_angles", "ExcavatorSplit", "tracking_controller",
           "text_report"]
