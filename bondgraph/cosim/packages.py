"""Time-stamped data packages exchanged between the master and the subsystems.

Every package carries the simulation time at which its data were produced, as the
subsystem itself reports it (the Tsinghua co-simulation middleware patent: the packages carry their own time): the time its
step reached if it says so, otherwise its own clock (:meth:`Subsystem.get_time`: an
FMU's last successful time, an ODE solver's time). Only a subsystem that can tell
neither is stamped by the master. Before the master cross-assigns outputs to inputs it
checks those stamps against the communication time (:func:`check_times`); a mismatch
(a stuck subsystem, one that stopped early or ran ahead) is reported to the error
catcher.

Examples
--------
>>> import numpy as np
>>> sent = OutputPackage("mass", 0.002, np.array([0.1, 0.0]))
>>> late = OutputPackage("spring", 0.001, np.array([5.0]), stamp="clock")
>>> check_times([sent, late], expected=0.002, step=0.001)
[('spring', 'its own clock reads t=0.001 s after the step, expected t=0.002 s')]
>>> InputPackage("spring", 0.002, np.array([0.1, 0.0]), np.zeros((0, 2))).time
0.002
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

__all__ = ["OutputPackage", "InputPackage", "check_times", "TIME_TOLERANCE", "STAMPS"]

#: Who stamped a package: the subsystem's step (the time ``do_step`` returned), its own
#: clock (``get_time``), or the master (the subsystem cannot tell its time).
STAMPS = {"step": "its step reached", "clock": "its own clock reads",
          "master": "stamped by the master"}

#: Relative tolerance (as a fraction of the step) within which two stamps are equal.
TIME_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class OutputPackage:
    """What a subsystem sent: its outputs and the time they belong to.

    Parameters
    ----------
    source : str
        Subsystem name.
    time : float
        Simulation time at which the values were produced.
    values : ndarray, shape (n_outputs,)
        Output values, in the subsystem's output order.
    stamp : str
        Who gave the time: ``"step"``, ``"clock"`` or ``"master"`` (see :data:`STAMPS`).

    Examples
    --------
    >>> import numpy as np
    >>> pkg = OutputPackage("mass", 0.002, np.array([0.1, 0.0]), stamp="clock")
    >>> pkg.source, STAMPS[pkg.stamp]
    ('mass', 'its own clock reads')
    """

    source: str
    time: float
    values: np.ndarray
    stamp: str = "step"


@dataclass(frozen=True, slots=True)
class InputPackage:
    """What a subsystem receives: its inputs as a polynomial around ``time``.

    Parameters
    ----------
    target : str
        Subsystem name.
    time : float
        Time at which ``values`` hold (start of the receiver's step).
    values : ndarray, shape (n_inputs,)
        Input values at ``time``.
    derivatives : ndarray, shape (order, n_inputs)
        Time derivatives at ``time`` (row k: derivative of order k + 1).

    Examples
    --------
    A ramp ``u = 1 + 2·(t − 0.5)`` handed over at ``t = 0.5`` s:

    >>> import numpy as np
    >>> pkg = InputPackage("spring", 0.5, np.array([1.0]), np.array([[2.0]]))
    >>> float(pkg.values[0] + pkg.derivatives[0, 0] * 0.1)     # u at t = 0.6 s
    1.2
    """

    target: str
    time: float
    values: np.ndarray
    derivatives: np.ndarray


def check_times(packages: Iterable[OutputPackage], expected: float,
                step: float) -> list[tuple[str, str]]:
    """Return ``(source, message)`` for each package whose stamp differs from ``expected``.

    Parameters
    ----------
    packages : iterable of OutputPackage
        The packages about to be cross-assigned.
    expected : float
        The communication time they must belong to.
    step : float
        The communication step; stamps within ``TIME_TOLERANCE * step`` are equal.

    Returns
    -------
    list of (str, str)
        Empty when all stamps agree.

    Examples
    --------
    >>> import numpy as np
    >>> check_times([OutputPackage("a", 0.1 + 1e-13, np.zeros(1))], expected=0.1, step=0.01)
    []
    >>> check_times([OutputPackage("a", 0.09, np.zeros(1))], expected=0.1, step=0.01)
    [('a', 'its step reached t=0.09 s after the step, expected t=0.1 s')]
    """
    tol = TIME_TOLERANCE * step
    return [(p.source, f"{STAMPS.get(p.stamp, 'stamped')} t={p.time:.9g} s after the step, "
             f"expected t={expected:.9g} s")
            for p in packages if not abs(p.time - expected) <= tol]
