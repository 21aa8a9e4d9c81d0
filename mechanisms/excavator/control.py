"""The tracking controller of valve-driven runs (generic: :mod:`mechanisms.machine.control`).

Examples
--------
>>> from mechanisms.excavator import Excavator, Cycle
>>> ctrl = tracking_controller(Excavator(mode="valves"), Cycle.default("extensions"))
>>> ctrl.inputs
('boom.cmd', 'arm.cmd', 'bucket.cmd')
"""

from ..machine.control import tracking_controller

__all__ = ["tracking_controller"]
