"""The excavator split at the cylinders' ``I`` ports, for co-simulation (the Tsinghua co-simulation middleware patent):
:class:`~mechanisms.machine.split.MachineSplit` of the excavator's file, whose default
cycle is the 10 s dig–lift–dump.

Examples
--------
>>> sides = ExcavatorSplit()
>>> sorted(sides.relations.directions())
[('hyd', 'mech'), ('mech', 'hyd')]
"""

from __future__ import annotations

from typing import Any, Mapping

from ..machine.split import MachineSplit
from .model import Cycle, Excavator

__all__ = ["ExcavatorSplit"]


class ExcavatorSplit(MachineSplit):
    """Mechanical and hydraulic sides of the excavator as co-simulation subsystems.

    Parameters
    ----------
    overrides : dict, optional
        Values of the reference file to change (dotted keys with units).
    cycle : Cycle, optional
        Valve commands (default: the 10 s dig–lift–dump).

    Raises
    ------
    ParameterError
        Bad overrides, or a cycle of another mode.

    Examples
    --------
    The two sides exchange the cylinders' force and velocity: a power bond per
    cylinder:

    >>> sides = ExcavatorSplit()
    >>> len(sides.relations.bonds)
    3
    """

    def __init__(self, overrides: Mapping[str, Any] | None = None, cycle: Cycle | None = None):
        super().__init__(Excavator(overrides=overrides, mode="valves"), cycle or Cycle.default("valves"))
