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

    Attributes
    ----------
    problems : list of str
        Every problem, one line each.
    subject : str or None
        As given.

    Examples
    --------
    Catch any error of the toolkit with the base class; ``problems`` lists each one:

    >>> from bondgraph import I
    >>> try:
    ...     I("m", -1.0, initial=float("inf"))
    ... except BondGraphError as err:
    ...     caught = err
    >>> type(caught).__name__, len(caught.problems)
    ('ParameterError', 2)
    >>> print(BondGraphError("one thing is wrong"))
    one thing is wrong
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
    """The graph is malformed: arity, dangling ports, bond directions, names.

    Raised by :meth:`~bondgraph.BondGraph.add`, :meth:`~bondgraph.BondGraph.connect`,
    :func:`~bondgraph.assemble` and :func:`~bondgraph.validate`.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One
    >>> m = BondGraph("x")
    >>> _ = m.add(Se("F", 1.0), One("v"))
    >>> m.connect("F", "w")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ModelStructureError: x: reference 'w': no child 'w' (children: F, v)
    """


class CausalityConflict(BondGraphError):
    """Causality cannot be assigned: two sources impose the same variable.

    Parameters
    ----------
    problems, subject
        As for :class:`BondGraphError`.
    conflicts : list of Conflict, optional
        The structured records (:class:`bondgraph.causality.Conflict`), kept as the
        ``conflicts`` attribute.

    Examples
    --------
    Two effort sources on one 0-junction both set its pressure:

    >>> from bondgraph import BondGraph, Se, Zero, build
    >>> m = BondGraph("two")
    >>> _ = m.add(Se("a", 1.0), Se("b", 2.0), Zero("p"))
    >>> _ = m.connect("a", "p"); _ = m.connect("b", "p")
    >>> try:
    ...     build(m)
    ... except CausalityConflict as err:
    ...     print(err.problems[0][:45])
    two/p: 2 bonds impose its effort: from two/a
    """

    def __init__(self, problems, subject=None, conflicts: list[Any] | None = None):
        self.conflicts = list(conflicts or [])
        super().__init__(problems, subject)

    def _repr_html_(self) -> str:
        from .display import html_table

        rows = [(c.element, c.found, ", ".join(c.bonds), c.suggestion) for c in self.conflicts]
        return html_table(rows or [(p, "", "", "") for p in self.problems], ("element", "found", "bonds", "fix"),
                          caption="causal conflicts")


class CausalitySearchLimit(BondGraphError):
    """The causality search hit its bound before finding an assignment or proving
    that none exists (the message names the part of the graph and the bound).

    Raised by the search of :mod:`bondgraph.causal_search` on very large undecided
    regions; a :class:`CausalityConflict` is a proof that none exists, this is not.

    Examples
    --------
    >>> issubclass(CausalitySearchLimit, BondGraphError), issubclass(CausalitySearchLimit, CausalityConflict)
    (True, False)
    """


class ConnectionRuleError(BondGraphError):
    """A template connection breaks the causal port rules (Rt, Pd, Pr, Li, I).

    Raised by the templates of :mod:`components` when two hinge points whose port
    classes may not meet are joined (the rules are :data:`components.RULES`).

    Examples
    --------
    >>> err = ConnectionRuleError("boom/Pd joined to arm/Pd: expected Pd to meet Pr")
    >>> isinstance(err, BondGraphError), str(err)
    (True, 'boom/Pd joined to arm/Pd: expected Pd to meet Pr')
    """


class AssemblyError(BondGraphError):
    """A mechanism cannot be put together at the requested position (loop closure).

    Raised by the mechanism layer (:mod:`mechanisms`) when the cylinder lengths or
    angles asked for cannot close a kinematic loop; the message names the loop.

    Examples
    --------
    >>> issubclass(AssemblyError, BondGraphError)
    True
    """


class ParameterError(BondGraphError):
    """A parameter is missing, unknown, of the wrong unit or out of range.

    Examples
    --------
    Every broken rule is listed at once:

    >>> from bondgraph import I
    >>> I("m", -1.0, initial=float("inf"))
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: 2 problems
      - I 'm', parameter 'm': found -1.0, expected a finite number ≥ 0 (mass or inertia)
      - I 'm', initial: found inf, expected a finite number
    """


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
    """Equations cannot be generated from the causal graph (e.g. index too high).

    Raised by :func:`~bondgraph.build` (through :func:`~bondgraph.derive`): a law that
    cannot be inverted in the causality the graph gives it, a resistor that is not
    passive, a junction with no or two causal strokes.

    Examples
    --------
    A "resistor" that delivers power, ``e = -f³``, is refused when built:

    >>> from bondgraph import BondGraph, Sf, One, R, build
    >>> m = BondGraph("neg")
    >>> _ = m.add(Sf("Q", 1.0), One("v"), R("b", effort=lambda f: -f**3))
    >>> _ = m.connect("Q", "v"); _ = m.connect("v", "b")
    >>> try:
    ...     build(m)
    ... except EquationError as err:
    ...     print(err.problems[0][:26])
    R 'neg/b': not passive: it
    """


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

    Examples
    --------
    An active "resistor" (``r = -1``) makes the velocity grow as ``eᵗ``: the run stops
    at the blow-up bound, ``ln(1e12) ≈ 27.6 s``, and keeps what it computed:

    >>> import math
    >>> from bondgraph import BondGraph, Se, One, I, R, build, simulate
    >>> m = BondGraph("grow")
    >>> _ = m.add(Se("F", 1.0), One("v"), I("m", 1.0), R("b", -1.0, passive=False))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = m.connect(a, b)
    >>> try:
    ...     simulate(build(m), (0.0, 100.0), progress=False)
    ... except SimulationError as err:
    ...     caught = err
    >>> abs(caught.time - math.log(1e12)) < 0.1, bool(caught.results.t[-1] > 27.0)
    (True, True)
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

    Parameters
    ----------
    problems, subject, time, state, results
        As for :class:`SimulationError`.
    original : BaseException, optional
        The exception the user's function raised.

    Examples
    --------
    >>> from bondgraph import BondGraph, MSe, One, I, Input, build, simulate
    >>> m = BondGraph("push")
    >>> _ = m.add(MSe("F", Input("u")), One("v"), I("m", 1.0))
    >>> _ = m.connect("F", "v"); _ = m.connect("v", "m")
    >>> def u(t):
    ...     if t > 0.5:
    ...         raise ValueError("sensor lost")
    ...     return 1.0
    >>> try:
    ...     simulate(build(m), (0.0, 1.0), inputs={"u": u}, progress=False)
    ... except UserCallableError as err:
    ...     caught = err
    >>> caught.original
    ValueError('sensor lost')
    >>> caught.time > 0.5
    True
    """

    def __init__(self, problems, subject=None, *, time: float | None = None,
                 state: dict[str, float] | None = None, results: Any = None,
                 original: BaseException | None = None):
        self.original = original
        super().__init__(problems, subject, time=time, state=state, results=results)


class CosimulationError(BondGraphError):
    """A co-simulation was set up wrongly or aborted; ``results`` keeps what ran.

    Parameters
    ----------
    problems, subject
        As for :class:`BondGraphError`.
    time : float, optional
        Communication time at which it was aborted (``None`` for a set-up error).
    results : CosimResults, optional
        What ran up to then (:class:`bondgraph.cosim.CosimResults`).

    Examples
    --------
    >>> from bondgraph.cosim import cosimulate, examples
    >>> mass, spring = examples.b1_subsystems()
    >>> cosimulate([mass, spring], examples.B1_RELATIONS, step=-1e-3, end=0.1)
    Traceback (most recent call last):
    ...
    bondgraph.errors.CosimulationError: ...
    """

    def __init__(self, problems, subject=None, *, time: float | None = None,
                 results: Any = None):
        self.time = time
        self.results = results
        super().__init__(problems, subject)


class BondGraphWarning(UserWarning):
    """Base class of the toolkit's warnings: a result is usable but deserves attention
    (e.g. a glue order a subsystem cannot take, an ill-conditioned state choice); issued
    with :func:`warnings.warn`, never printed.

    Examples
    --------
    Turn the toolkit's warnings (and only them) into errors while debugging:

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", BondGraphWarning)
    ...     try:
    ...         warnings.warn("glue order 2 reduced to 1", BondGraphWarning)
    ...     except BondGraphWarning as w:
    ...         print(w)
    glue order 2 reduced to 1
    """


class SingularityWarning(BondGraphWarning):
    """A divisor of the equations became small relative to its start value (an
    ill-conditioned state choice, a pose near a dead centre), or crossed zero with
    ``singular="warn"``. Raised once per divisor and run; the message names the divisor,
    the time and the value.

    Examples
    --------
    >>> issubclass(SingularityWarning, BondGraphWarning), issubclass(SingularityWarning, UserWarning)
    (True, True)
    """
