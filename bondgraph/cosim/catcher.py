"""The error catcher: what can go wrong during a run, and how hard to react.

Kinds of events:

================  ===========================================================
``step_failed``   a subsystem hook raised (the step has no valid result)
``fmu_status``    an FMU returned an error or fatal status
``time_mismatch`` a package's time stamp differs from the communication time
``non_finite``    an exchanged value is NaN or infinite
``divergence``    the energy residual on a power bond keeps growing
``tolerance``     step-size control accepted a step at the minimum step size
                  without meeting its tolerance
================  ===========================================================

Levels: ``"warning"`` (recorded, a :class:`CosimulationWarning` is issued once per
kind and culprit, the run goes on), ``"error"`` (recorded, the run goes on, and at the
end :class:`~bondgraph.errors.CosimulationError` is raised listing every error, with
the complete results attached) and ``"abort"`` (the run stops at once and
:class:`~bondgraph.errors.CosimulationError` is raised; its ``results`` hold the
results up to the last good communication point, flagged ``aborted``, and its
``time`` is that point). ``step_failed`` and ``fmu_status`` can only abort: a failed
step leaves no valid state to go on from.

Divergence monitor (NEPCE-style): on each power bond the master computes, at every
communication point, the residual power between what one side sent and what the other
side used, ``e_used * f_sent - e_sent * f_used``. Its magnitude is summed over windows
of ``window * 2**j`` steps (every scale, so slow and fast growth are both seen);
divergence is reported when, on some scale, it grows by more than ``growth`` per window
for ``patience`` windows in a row while exceeding ``threshold`` times the energy
exchanged through the bond in the newest window.

Examples
--------
>>> catcher = ErrorCatcher(ErrorPolicy(time_mismatch="warning"), DivergenceMonitor(), [])
>>> import warnings
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     stop = catcher.report("time_mismatch", 0.5, "subsystem 'hyd'", "stamped 0.4 s")
>>> stop, str(w[0].message)
(False, "t=0.5 s, subsystem 'hyd': stamped 0.4 s")
>>> catcher.report("non_finite", 0.6, "output mech.x", "found nan")
True
>>> catcher.abort_event.kind
'non_finite'
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields
from typing import Sequence

import numpy as np

from ..errors import BondGraphError, ParameterError

__all__ = ["LEVELS", "KINDS", "ErrorPolicy", "DivergenceMonitor", "Event", "ErrorCatcher",
           "CosimulationWarning"]

LEVELS = ("warning", "error", "abort")
KINDS = ("step_failed", "fmu_status", "time_mismatch", "non_finite", "divergence", "tolerance")
_ABORT_ONLY = ("step_failed", "fmu_status")


class CosimulationWarning(UserWarning):
    """Issued for events at level ``"warning"``."""


@dataclass(frozen=True)
class ErrorPolicy:
    """Level (``"warning"``, ``"error"``, ``"abort"``) for each kind of event.

    Examples
    --------
    >>> ErrorPolicy(divergence="warning").divergence
    'warning'
    >>> ErrorPolicy(step_failed="warning", non_finite="ignore")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: error policy: 2 problems
      - step_failed: found 'warning', expected 'abort' (a failed step leaves no valid state to continue from)
      - non_finite: found 'ignore', expected one of 'warning', 'error', 'abort'
    """

    step_failed: str = "abort"
    fmu_status: str = "abort"
    time_mismatch: str = "abort"
    non_finite: str = "abort"
    divergence: str = "abort"
    tolerance: str = "warning"

    def __post_init__(self):
        problems = []
        for f in fields(self):
            level = getattr(self, f.name)
            if f.name in _ABORT_ONLY and level != "abort":
                problems.append(f"{f.name}: found {level!r}, expected 'abort' (a failed step "
                                "leaves no valid state to continue from)")
            elif level not in LEVELS:
                problems.append(f"{f.name}: found {level!r}, expected one of "
                                + ", ".join(repr(v) for v in LEVELS))
        if problems:
            raise ParameterError(problems, subject="error policy")

    def level(self, kind: str) -> str:
        """Level for ``kind``."""
        return getattr(self, kind)


@dataclass(frozen=True)
class DivergenceMonitor:
    """Settings of the energy-residual (NEPCE-style) divergence monitor.

    Parameters
    ----------
    window : int
        Communication steps per window.
    growth : float
        Factor by which the windowed residual energy must grow from one window to the
        next to count as growing.
    patience : int
        Number of consecutive growing windows that make a divergence.
    threshold : float
        The residual energy must also exceed this fraction of the energy exchanged
        through the bond in the window.
    enabled : bool
        Switch the monitor off (the residual is still recorded).
    """

    window: int = 20
    growth: float = 1.5
    patience: int = 4
    threshold: float = 0.05
    enabled: bool = True

    def __post_init__(self):
        problems = []
        if not (isinstance(self.window, int) and self.window >= 1):
            problems.append(f"window: found {self.window!r}, expected a whole number >= 1")
        if not (isinstance(self.patience, int) and self.patience >= 1):
            problems.append(f"patience: found {self.patience!r}, expected a whole number >= 1")
        if not (isinstance(self.growth, (int, float)) and self.growth > 1):
            problems.append(f"growth: found {self.growth!r}, expected a factor > 1")
        if not (isinstance(self.threshold, (int, float)) and self.threshold >= 0):
            problems.append(f"threshold: found {self.threshold!r}, expected a fraction >= 0")
        if problems:
            raise ParameterError(problems, subject="divergence monitor")


@dataclass(frozen=True)
class Event:
    """One thing the error catcher saw.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    level : str
        One of :data:`LEVELS`.
    time : float
        Simulation time at which it was seen.
    subject : str
        The culprit: ``"subsystem 'hyd'"``, ``"output mech.x"``, ``"bond hyd.F*mech.v"``.
    message : str
        What was found and what was expected.
    """

    kind: str
    level: str
    time: float
    subject: str
    message: str

    def __str__(self) -> str:
        return f"t={self.time:.9g} s, {self.subject}: {self.message}"


class ErrorCatcher:
    """Records events, issues warnings, decides when a run must stop.

    Parameters
    ----------
    policy : ErrorPolicy
        Level for each kind of event.
    monitor : DivergenceMonitor
        Settings of the energy-residual monitor.
    bonds : sequence of str
        Names of the monitored power bonds.
    """

    def __init__(self, policy: ErrorPolicy, monitor: DivergenceMonitor, bonds: Sequence[str]):
        self.policy = policy
        self.monitor = monitor
        self.bonds = tuple(bonds)
        self.events: list[Event] = []
        self.abort_event: Event | None = None
        self._warned: set[tuple[str, str]] = set()
        self._reported: set[int] = set()

    @property
    def errors(self) -> list[Event]:
        """Events at level ``"error"``."""
        return [e for e in self.events if e.level == "error"]

    def report(self, kind: str, time: float, subject: str, message: str) -> bool:
        """Record an event; return True if the run must stop now."""
        level = self.policy.level(kind)
        event = Event(kind, level, float(time), subject, message)
        self.events.append(event)
        if level == "warning" and (kind, subject) not in self._warned:
            self._warned.add((kind, subject))
            warnings.warn(str(event), CosimulationWarning, stacklevel=3)
        if level == "abort":
            self.abort_event = event
            return True
        return False

    def hook_failed(self, sub, time: float, exc: BaseException) -> None:
        """Record that a subsystem's hook raised ``exc`` at ``time``, classified by the
        subsystem's ``failure_kind``; our own errors keep their subject and problems."""
        if isinstance(exc, BondGraphError):
            detail = "; ".join(exc.problems)
            detail = f"{exc.subject}: {detail}" if exc.subject else detail
        else:
            detail = f"{type(exc).__name__}: {exc}"
        self.report(getattr(sub, "failure_kind", "step_failed"), time, f"subsystem {sub.name!r}",
                    detail)

    def check_energy(self, n: int, time: float, residual: np.ndarray, exchanged: np.ndarray,
                     step: float) -> bool:
        """Look for a growing energy residual; True if the run must stop.

        Called every ``window`` steps. At every scale ``L = window * 2**j`` that divides
        ``n``, the last ``patience + 1`` windows of ``L`` steps are compared, so a slow
        exponential growth is caught on a long scale and a fast one on a short scale.

        Parameters
        ----------
        n : int
            Index of the current communication point.
        time : float
            Its time.
        residual, exchanged : ndarray, shape (>= n + 1, n_bonds)
            Cumulative sums of ``|e_used f_sent - e_sent f_used| * H`` and of
            ``|e f| * H`` on each bond, up to index ``n``.
        step : float
            Communication step, for the message.
        """
        m = self.monitor
        if not m.enabled or not self.bonds:
            return False
        stop = False
        L = m.window
        while n % L == 0 and (m.patience + 1) * L <= n:
            idx = n - L * np.arange(m.patience + 2)
            w = residual[idx[:-1]] - residual[idx[1:]]          # newest window first
            x = exchanged[n] - exchanged[n - L]
            growing = np.all(w[:-1] > m.growth * w[1:], axis=0) & (w[0] > m.threshold * x)
            for b in np.flatnonzero(growing):
                if b in self._reported:
                    continue
                self._reported.add(int(b))
                share = 100.0 * w[0, b] / x[b] if x[b] > 0 else math.inf
                total = w[0, b] / w[-1, b] if w[-1, b] > 0 else math.inf
                msg = (f"diverged: the energy residual grew {total:.3g}x over the last "
                       f"{m.patience + 1} windows of {L} steps (more than {m.growth:g}x per "
                       f"window), reaching {w[0, b]:.3g} per window, {share:.3g} % of the "
                       f"energy exchanged through the bond; expected a bounded residual. The "
                       f"coupling is unstable at H={step:g} s: use a higher glue order or a "
                       f"smaller communication step")
                stop |= self.report("divergence", time, f"bond {self.bonds[b]}", msg)
            L *= 2
        return stop
