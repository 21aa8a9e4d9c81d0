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

from bondgraph.lazy import lazy_exports

#: each public name and the module that defines it, imported when the name is first read
_EXPORTS = {
    'CYLINDERS': '.model',
    'DEFAULT_FILE': '.model',
    'FUNCTIONS': '.model',
    'Cycle': '.model',
    'Excavator': '.model',
    'ExcavatorRun': '.model',
    'body_angles': '.model',
    'pose_from_angles': '.model',
    'tracking_controller': '.control',
    'text_report': '.report',
    'ExcavatorSplit': '.split',
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["Excavator", "ExcavatorRun", "Cycle", "DEFAULT_FILE", "FUNCTIONS", "CYLINDERS",
           "pose_from_angles", "body_angles", "ExcavatorSplit", "tracking_controller",
           "text_report"]
