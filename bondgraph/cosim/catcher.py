"""The error catcher: what can go wrong during a run, and how hard to react.

Kinds of events:

================  ===========================================================
``step_failed``   a subsystem hook raised (the step has no valid result)
``fmu_status``    an FMU returned an error or fatal status
``time_mismatch`` the time a subsystem reports (its own clock, or the time its step
                  reached) differs from the communication time
``non_finite``    an exchanged value is NaN or infinite
``divergence``    the coupling creates energy on a power bond, or an exchanged
                  signal grows faster than the glue can follow
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

``divergence`` and ``tolerance`` also take ``"off"`` (not checked at all). What counts
as divergence is documented in :mod:`bondgraph.cosim.divergence`: the coupling creating
more than 2 % of the energy it carries through a power bond, or an exchanged signal
growing by more than one e-fold per communication step.

Examples
--------
>>> catcher = ErrorCatcher(ErrorPolicy(time_mismatch="warning"))
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

import warnings
from dataclasses import dataclass, fields

from ..errors import BondGraphError, BondGraphWarning, ParameterError

__all__ = ["LEVELS", "KINDS", "ErrorPolicy", "Event", "ErrorCatcher", "CosimulationWarning"]

LEVELS = ("warning", "error", "abort")
KINDS = ("step_failed", "fmu_status", "time_mismatch", "non_finite", "divergence", "tolerance")
_ABORT_ONLY = ("step_failed", "fmu_status")
_CAN_BE_OFF = ("divergence", "tolerance")


class CosimulationWarning(BondGraphWarning):
    """Issued for events at level ``"warning"`` and for a glue order a subsystem cannot
    take (a :class:`~bondgraph.errors.BondGraphWarning`).

    Examples
    --------
    Silence the co-simulation's warnings and only them:

    >>> import warnings
    >>> from bondgraph import BondGraphWarning
    >>> issubclass(CosimulationWarning, BondGraphWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", CosimulationWarning)
    ...     ErrorCatcher(ErrorPolicy(time_mismatch="warning")).report(
    ...         "time_mismatch", 0.5, "subsystem 'hyd'", "stamped 0.4 s")
    False
    """


@dataclass(frozen=True)
class ErrorPolicy:
    """Level (``"warning"``, ``"error"``, ``"abort"``) for each kind of event.

    ``divergence`` and ``tolerance`` may also be ``"off"``. Defaults: abort on everything
    but ``tolerance`` (a warning).

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
            elif level not in LEVELS and not (f.name in _CAN_BE_OFF and level == "off"):
                allowed = LEVELS + (("off",) if f.name in _CAN_BE_OFF else ())
                problems.append(f"{f.name}: found {level!r}, expected one of "
                                + ", ".join(repr(v) for v in allowed))
        if problems:
            raise ParameterError(problems, subject="error policy")

    def level(self, kind: str) -> str:
        """Level for ``kind``.

        Parameters
        ----------
        kind : str
            One of :data:`KINDS`.

        Returns
        -------
        str
        """
        return getattr(self, kind)

    def checks(self, kind: str) -> bool:
        """False if events of ``kind`` are switched off.

        Parameters
        ----------
        kind : str

        Returns
        -------
        bool

        Examples
        --------
        >>> ErrorPolicy(divergence="off").checks("divergence"), ErrorPolicy().checks("divergence")
        (False, True)
        """
        return getattr(self, kind) != "off"


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

    Examples
    --------
    >>> print(Event("non_finite", "abort", 0.25, "output mech.x", "found nan"))
    t=0.25 s, output mech.x: found nan
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

    Attributes
    ----------
    events : list of Event
        Everything recorded, in order.
    abort_event : Event or None
        The event that stopped the run.

    Examples
    --------
    Errors are collected and the run goes on; the master raises them at the end:

    >>> catcher = ErrorCatcher(ErrorPolicy(non_finite="error"))
    >>> catcher.report("non_finite", 0.1, "output a.x", "found nan")
    False
    >>> catcher.report("non_finite", 0.2, "output a.x", "found inf")
    False
    >>> [str(e) for e in catcher.errors]
    ['t=0.1 s, output a.x: found nan', 't=0.2 s, output a.x: found inf']
    """

    def __init__(self, policy: ErrorPolicy):
        self.policy = policy
        self.events: list[Event] = []
        self.abort_event: Event | None = None
        self._warned: set[tuple[str, str]] = set()

    @property
    def errors(self) -> list[Event]:
        """Events at level ``"error"``."""
        return [e for e in self.events if e.level == "error"]

    def report(self, kind: str, time: float, subject: str, message: str) -> bool:
        """Record an event; return True if the run must stop now.

        Parameters
        ----------
        kind : str
            One of :data:`KINDS`.
        time : float
        subject : str
            The culprit.
        message : str

        Returns
        -------
        bool

        Warns
        -----
        CosimulationWarning
            At level ``"warning"``, once per kind and subject.
        """
        level = self.policy.level(kind)
        if level == "off":
            return False
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
        subsystem's ``failure_kind``; our own errors keep their subject and problems.

        Parameters
        ----------
        sub
        time : float
        exc : BaseException

        Examples
        --------
        >>> from bondgraph.cosim import examples
        >>> catcher = ErrorCatcher(ErrorPolicy())
        >>> catcher.hook_failed(examples.b1_mass(), 0.3, ZeroDivisionError("division by zero"))
        >>> str(catcher.abort_event)
        "t=0.3 s, subsystem 'mass': ZeroDivisionError: division by zero"
        """
        if isinstance(exc, BondGraphError):
            detail = "; ".join(exc.problems)
            detail = f"{exc.subject}: {detail}" if exc.subject else detail
        else:
            detail = f"{type(exc).__name__}: {exc}"
        self.report(getattr(sub, "failure_kind", "step_failed"), time, f"subsystem {sub.name!r}",
                    detail)
