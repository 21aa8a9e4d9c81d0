"""The one exception family of the toolkit.

Every user-facing error is a :class:`BondGraphError`. Messages name the element,
port, bond or parameter at fault, say what was found and what was expected, and,
when a model has several problems, list all of them at once (``problems``).

Examples
--------
>>> err = ParameterError(["'m.m': found -1.0, expected a positive mass"], subject="model 'msd'")
>>> print(err)
model 'msd': 1 problem
  - 'm.m': found -1.0, expected a positive mass
>>> isinstance(err, BondGraphError)
True
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = [
    "BondGraphError",
    "ModelStructureError",
    "CausalityConflict",
    "CausalitySearchLimit",
    "ConnectionRuleError",
    "AssemblyError",
    "ParameterError",
    "UnknownNameError",
    "EquationError",
    "SimulationError",
    "UserCallableError",
    "CosimulationError",
    "BondGraphWarning",
    "SingularityWarning",
]


class BondGraphError(Exception):
    """Base class of every error raised for bad input or a failed computation.

    Parameters
    ----------
    problems : str or iterable of str
        One message, or every problem found (each names its culprit).
    subject : str, optional
        What was being checked, e.g. ``"model 'excavator'"``.
    """

    def __init__(self, problems: str | Iterable[str], subject: str | None = None):
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = [str(p) for p in problems]
        self.subject = subject
        super().__init__(self._format())

    def _format(self) -> str:
        if self.subject is None and len(self.problems) == 1:
            return self.problems[0]
        n = len(self.problems)
        head = f"{self.subject}: " if self.subject else ""
        head += f"{n} problem" + ("s" if n != 1 else "")
        return head + "\n" + "\n".join(f"  - {p}" for p in self.problems)


class ModelStructureError(BondGraphError):
    """The graph is malformed: arity, dangling ports, bond directions, names."""


class CausalityConflict(BondGraphError):
    """Causality cannot be assigned: two sources impose the same variable.

    ``conflicts`` holds the structured :class:`bondgraph.causality.Conflict` records.
    """

    def __init__(self, problems, subject=None, conflicts: list[Any] | None = None):
        self.conflicts = list(conflicts or [])
        super().__init__(problems, subject)


class CausalitySearchLimit(BondGraphError):
    """The causality search hit its bound before finding an assignment or proving
    that none exists (the message names the part of the graph and the bound)."""


class ConnectionRuleError(BondGraphError):
    """A template connection breaks the causal port rules (Rt, Pd, Pr, Li, I)."""


class AssemblyError(BondGraphError):
    """A mechanism cannot be put together at the requested position (loop closure)."""


class ParameterError(BondGraphError):
    """A parameter is missing, unknown, of the wrong unit or out of range."""


class UnknownNameError(ParameterError, KeyError):
    """A name looked up in a model, graph or result does not exist.

    Also a :class:`KeyError`, so ``key in ...``-style code and mapping idioms keep working.

    Examples
    --------
    >>> err = UnknownNameError("'m.q': not a state of 'msd'; did you mean 'm.p'?")
    >>> isinstance(err, KeyError), str(err)
    (True, "'m.q': not a state of 'msd'; did you mean 'm.p'?")
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return self._format()


class EquationError(BondGraphError):
    """Equations cannot be generated from the causal graph (e.g. index too high)."""


class SimulationError(BondGraphError):
    """An integration failed.

    Attributes
    ----------
    time : float or None
        Simulation time at which it failed.
    state : dict or None
        Named state values at that time.
    results : object or None
        The partial :class:`bondgraph.results.Results` up to the last good step.
    advice : str
        The advice the message gives on how to get past the failure, as it appears in
        the message ("" when none): a layer that knows the physical cause (a cylinder
        past its stroke, a linkage at its dead centre) replaces it with better advice.
    """

    def __init__(self, problems, subject=None, *, time: float | None = None,
                 state: dict[str, float] | None = None, results: Any = None, advice: str = ""):
        self.time = time
        self.state = state
        self.results = results
        self.advice = advice
        super().__init__(problems, subject)


class UserCallableError(SimulationError):
    """A function the user gave (an input signal, a guard, a controller, an event, a reset)
    raised or returned something unusable.

    The message names the callable and what it serves (the input or transition), the time
    and the state; ``original`` is the exception it raised (``None`` for a bad value).
    """

    def __init__(self, problems, subject=None, *, time: float | None = None,
                 state: dict[str, float] | None = None, results: Any = None,
                 original: BaseException | None = None):
        self.original = original
        super().__init__(problems, subject, time=time, state=state, results=results)


class CosimulationError(BondGraphError):
    """A co-simulation was set up wrongly or aborted; ``results`` keeps what ran."""

    def __init__(self, problems, subject=None, *, time: float | None = None,
                 results: Any = None):
        self.time = time
        self.results = results
        super().__init__(problems, subject)


class BondGraphWarning(UserWarning):
    """Base class of the toolkit's warnings: a result is usable but deserves attention
    (e.g. a glue order a subsystem cannot take, an ill-conditioned state choice); issued
    with :func:`warnings.warn`, never printed."""


class SingularityWarning(BondGraphWarning):
    """A divisor of the equations became small relative to its start value (an
    ill-conditioned state choice, a pose near a dead centre), or crossed zero with
    ``singular="warn"``. Raised once per divisor and run; the message names the divisor,
    the time and the value."""
