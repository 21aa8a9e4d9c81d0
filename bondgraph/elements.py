"""Bond-graph elements: sources, storage, resistors, transformers, junctions.

Each element is a small class with one narrow method, :meth:`Element.equations`,
that returns its constitutive relations *in the causal form the graph gave it*
(which variable it computes from which). The deriver never reads element
internals; elements never see the graph.

Sign and direction conventions (checked by :func:`bondgraph.graph.validate`):

* one-port storage (``C``, ``I``) and resistors (``R``, ``MR``) have their bond
  pointing *in* (power into the element is ``e·f``);
* sources (``Se``, ``Sf``, ``MSe``, ``MSf``) have their bond pointing *out*;
* two-ports (``TF``, ``MTF``, ``GY``, ``MGY``) have port ``1`` bonded in and port
  ``2`` bonded out (power flows through 1 → 2);
* junctions accept any directions; a bond pointing into a junction counts ``+``.

Transformer law: ``e1 = n·e2``, ``f2 = n·f1``. Gyrator law: ``e1 = r·f2``,
``e2 = r·f1``.

Storage states are, by default, *co-energy* variables: an inertia integrates
``m·v̇ = e`` with the flow ``v`` as its state, a compliance integrates
``c·ė = f`` with the effort as its state. This form keeps a massless part or a
displacement-dependent capacitance (a hydraulic chamber ``c = V(x)/β``) regular;
``state="energy"`` gives the classical momentum / displacement states and allows
any nonlinear law.

Examples
--------
>>> from bondgraph import BondGraph, Se, I, R, One
>>> bg = BondGraph("push")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 4.0), R("b", 1.0))
>>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m"); _ = bg.connect("v", "b")
>>> sorted(bg.children)
['F', 'b', 'm', 'v']
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, ClassVar, Mapping, Protocol

import sympy as sp

from .checks import FINITE, Check, number
from .errors import EquationError, ModelStructureError, ParameterError
from .laws import Law, branchwise, dissipation_problem, invert, verify_pair

__all__ = [
    "Role",
    "PortVars",
    "StateSpec",
    "Constitutive",
    "Context",
    "Element",
    "Se",
    "Sf",
    "MSe",
    "MSf",
    "C",
    "I",
    "R",
    "MR",
    "TF",
    "MTF",
    "GY",
    "MGY",
    "Zero",
    "One",
    "t",
    "Input",
    "InputSignal",
    "Law",
]

#: Simulation time, usable in any law (``Se("F", sp.sin(t))``).
t = sp.Symbol("t", real=True)

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


class Role(Enum):
    """How an element takes part in causality assignment.

    Every element class sets one as its ``role``; :func:`~bondgraph.assign_causality`
    reads nothing else about it.

    Examples
    --------
    >>> I("m", 1.0).role is Role.I_STORAGE, Zero("p").role.value
    (True, '0-junction')
    """

    EFFORT_SOURCE = "effort source"
    FLOW_SOURCE = "flow source"
    C_STORAGE = "C storage"
    I_STORAGE = "I storage"
    RESISTOR = "resistor"
    TRANSFORMER = "transformer"
    GYRATOR = "gyrator"
    ZERO = "0-junction"
    ONE = "1-junction"


class InputSignal(sp.Symbol):
    """Symbol class of external inputs (made by :func:`Input`).

    The deriver recognises inputs by this class, so a plain ``sympy.Symbol`` of the
    same name is a parameter, not an input.

    Examples
    --------
    >>> import sympy as sp
    >>> isinstance(Input("u"), InputSignal), isinstance(sp.Symbol("u"), InputSignal)
    (True, False)
    """


def Input(name: str) -> sp.Symbol:
    """A named external input signal (valve command, prescribed force...).

    Its value is given at simulation time by name (constant, table, spline or
    callable). Use it in any law.

    Parameters
    ----------
    name : str
        The input's name, by which :func:`~bondgraph.simulate` takes its value.

    Returns
    -------
    sympy.Symbol
        A real symbol of class :class:`InputSignal`.

    Raises
    ------
    ParameterError
        ``name`` is not a non-empty string.

    Examples
    --------
    >>> u = Input("valve.cmd")
    >>> u.name
    'valve.cmd'
    >>> (2 * u).free_symbols == {u}
    True
    """
    if not isinstance(name, str) or not name:
        raise ParameterError(f"input name: found {name!r}, expected a non-empty string")
    return InputSignal(name, real=True)


@dataclass(frozen=True)
class PortVars:
    """The variables of one element port, as the deriver hands them over.

    Attributes
    ----------
    port : str
        Port name on the element (``"p"`` for one-ports, ``"1"``/``"2"`` for
        two-ports, the bond name for junctions).
    bond : str
        Global bond name.
    e, f : sympy.Symbol
        Effort and flow of the bond.
    sign : int
        ``+1`` if the bond points into the element, ``-1`` if out.
    effort_in : bool
        True if the element *receives* the effort on this port (causal stroke
        at the element's end).

    Examples
    --------
    An element reads its causality from ``effort_in`` and the power direction from
    ``sign`` (see :class:`Element` for an element written this way):

    >>> import sympy as sp
    >>> pv = PortVars("p", "m/b1", sp.Symbol("e[m/b1]"), sp.Symbol("f[m/b1]"), +1, True)
    >>> pv.effort_in, pv.sign * pv.e * pv.f   # power into the element
    (True, e[m/b1]*f[m/b1])
    """

    port: str
    bond: str
    e: sp.Symbol
    f: sp.Symbol
    sign: int
    effort_in: bool


@dataclass(frozen=True)
class StateSpec:
    """One state equation ``coeff·ẋ = rhs`` contributed by an element.

    Attributes
    ----------
    symbol : sympy.Symbol
        The state ``x`` (named ``<element>.<key>``).
    coeff : sympy.Expr
        Its coefficient (a mass, a capacitance; 1 for energy states).
    rhs : sympy.Expr
        The right-hand side, in bond variables.
    kind : str
        ``"flow"``, ``"effort"``, ``"momentum"``, ``"displacement"``.
    element : str
        Path of the element that contributed it.

    Examples
    --------
    An inertia in integral causality contributes ``m·v̇ = e``:

    >>> from bondgraph import BondGraph, Se, One, I, assemble
    >>> from bondgraph.equations import collect
    >>> bg = BondGraph("push")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> (spec,) = collect(assemble(bg)).states
    >>> spec.symbol, spec.coeff, spec.kind
    (push/m.f, push/m.m, 'flow')
    """

    symbol: sp.Symbol
    coeff: sp.Expr
    rhs: sp.Expr
    kind: str  # "momentum", "flow", "displacement", "effort", ...
    element: str


@dataclass
class Constitutive:
    """What :meth:`Element.equations` returns.

    Attributes
    ----------
    outputs : dict
        Bond variable → expression; one entry per variable the element computes.
    states : list of StateSpec
        State equations (integral storage, junction displacements).
    energy : sympy.Expr
        Stored energy in terms of the states (0 if none).

    Examples
    --------
    A resistor computes one variable and stores nothing:

    >>> import sympy as sp
    >>> e, f = sp.symbols("e f")
    >>> cons = Constitutive(outputs={f: e / 4})
    >>> cons.outputs[f], cons.states, cons.energy
    (e/4, [], 0)
    """

    outputs: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    states: list[StateSpec] = field(default_factory=list)
    energy: sp.Expr = sp.Integer(0)


class Context(Protocol):
    """What the deriver offers an element while it writes its equations.

    An element's :meth:`Element.equations` receives one; ``name`` is the element's
    path in the global graph.

    Examples
    --------
    A tiny stand-in shows what an inertia asks of it in integral causality (the real
    one, made by :func:`~bondgraph.derive`, also records and checks what it is given):

    >>> import sympy as sp
    >>> class Ctx:
    ...     name = "m"
    ...     def param(self, key, value, check=None): return sp.Symbol(f"m.{key}")
    ...     def state(self, key, initial): return sp.Symbol(f"m.{key}")
    ...     def derivative(self, var): return sp.Symbol(f"D({var})")
    ...     def resolve(self, expr): return sp.sympify(expr)
    >>> e, f = sp.symbols("e f")
    >>> cons = I("m", 2.0).equations({"p": PortVars("p", "b", e, f, +1, True)}, Ctx())
    >>> cons.outputs, cons.energy
    ({f: m.f}, m.f**2*m.m/2)
    """

    name: str

    def param(self, key: str, value: Any, check: Check | None = None) -> sp.Expr:
        """A parameter of the element: a number becomes the run-time parameter
        ``<element>.<key>`` (checked by ``check``, kept for
        :meth:`~bondgraph.Model.set_params`); an expression is resolved.

        Parameters
        ----------
        key : str
        value : object
        check : Check, optional

        Returns
        -------
        sp.Expr
        """

    def state(self, key: str, initial: float) -> sp.Symbol:
        """Declare the state ``<element>.<key>`` with its initial value; returns its symbol.

        Parameters
        ----------
        key : str
        initial : float

        Returns
        -------
        sp.Symbol
        """

    def derivative(self, var: sp.Symbol) -> sp.Symbol:
        """The symbol of ``d(var)/dt`` (derivative causality), expanded by the chain rule.

        Parameters
        ----------
        var : sp.Symbol

        Returns
        -------
        sp.Symbol
        """

    def resolve(self, expr: Any) -> sp.Expr:
        """``expr`` as a sympy expression with displacement handles replaced by their
        global states and inputs registered.

        Parameters
        ----------
        expr : object

        Returns
        -------
        sp.Expr
        """


def _check_name(name: str, what: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ModelStructureError(
            f"{what} name {name!r}: expected letters, digits, '_' or '-' "
            "(no '/', '.', ':' or spaces; those separate hierarchy and ports)"
        )
    return name


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, sp.Expr) or value.is_number


def _param_problem(label: str, value: Any, check: Check) -> str | None:
    """A number must satisfy ``check``; an expression is checked at build (if it can be)."""
    if isinstance(value, sp.Basic) and not value.is_number:
        return None
    if number(value) is None:
        if callable(value):
            return (f"{label}: found the callable {value!r}, expected a number or a sympy "
                    "expression (a law goes in law=, flow= or effort=)")
        return check.problem(label, value).replace(f"expected {check.expected}",
                                                    f"expected {check.expected} or a sympy expression")
    return check.problem(label, value)


def _raise(problems: list[str | None]) -> None:
    problems = [p for p in problems if p]
    if problems:
        raise ParameterError(problems if len(problems) > 1 else problems[0])


def _callable_problem(label: str, law: Any) -> str | None:
    if law is None or callable(law):
        return None
    return f"{label}: found {law!r}, expected a callable (e.g. lambda x: ...) or a Law"


class Element(ABC):
    """Base class of all elements.

    Hook methods, called in this order by the assembler and the deriver:

    1. :meth:`port_names` — the fixed ports (``None``: any number, junctions);
    2. :attr:`role` — how causality treats the element;
    3. :meth:`equations` — the constitutive relations for the assigned causality.

    Parameters
    ----------
    name : str
        Local name, unique within its parent graph: letters, digits, ``_`` or ``-``.

    Raises
    ------
    ModelStructureError
        ``name`` contains ``/``, ``.``, ``:`` or spaces, or is empty.

    Examples
    --------
    A new element is a subclass with a ``role``, a ``kind`` and its equations for
    either causality. A linear drag ``e = c·f`` behind a 2 N force on a 1 kg mass
    reaches the terminal velocity ``F/c = 0.5 m/s``:

    >>> from bondgraph import BondGraph, Se, One, I, build, simulate
    >>> class Drag(Element):
    ...     role = Role.RESISTOR
    ...     kind = "Drag"
    ...     def __init__(self, name, c):
    ...         super().__init__(name)
    ...         self.c = c
    ...     def equations(self, ports, ctx):
    ...         (p,) = ports.values()
    ...         c = ctx.param("c", self.c)
    ...         if p.effort_in:
    ...             return Constitutive(outputs={p.f: p.e / c})
    ...         return Constitutive(outputs={p.e: c * p.f})
    >>> m = BondGraph("drag")
    >>> _ = m.add(Se("F", 2.0), One("v"), I("m", 1.0), Drag("d", 4.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "d")]:
    ...     _ = m.connect(a, b)
    >>> res = simulate(build(m), (0.0, 10.0), rtol=1e-9, progress=False)
    >>> round(float(res["drag/m.f"][-1]), 6)
    0.5
    """

    role: ClassVar[Role]
    kind: ClassVar[str]

    def __init__(self, name: str):
        self.name = _check_name(name, f"{type(self).__name__}")

    def port_names(self) -> tuple[str, ...] | None:
        """Names of the element's ports; ``None`` for any number (junctions).

        Returns
        -------
        tuple of str or None
            ``("p",)`` for one-ports, ``("1", "2")`` for two-ports.

        Examples
        --------
        >>> I("m", 1.0).port_names(), TF("n", 2.0).port_names(), One("v").port_names()
        (('p',), ('1', '2'), None)
        """
        return ("p",)

    def preferred_effort_in(self) -> bool | None:
        """Preferred causality of a one-port: True = receive effort, None = any.

        Returns
        -------
        bool or None
            True (integral causality of an inertia, a conductance-form law), False
            (a compliance, a resistance-form law) or None (no preference).

        Examples
        --------
        >>> I("m", 1.0).preferred_effort_in(), C("c", 1.0).preferred_effort_in(), R("b", 1.0).preferred_effort_in()
        (True, False, None)
        """
        return None

    def handles(self) -> dict[sp.Symbol, str]:
        """Placeholder symbols this element owns that laws elsewhere may use.

        Returns
        -------
        dict
            Handle symbol → local state key (e.g. a junction's displacement).

        Examples
        --------
        >>> list(One("w", displacement="theta").handles().values())
        ['theta']
        """
        return {}

    def state_keys(self, effort_in: bool) -> tuple[str, ...]:
        """Local names of the states this element adds with the given causality.

        Parameters
        ----------
        effort_in : bool
            The causality at its port (True: it receives the effort).

        Returns
        -------
        tuple of str

        Examples
        --------
        An inertia has a state in integral causality (effort in), none in derivative
        causality:

        >>> I("m", 1.0).state_keys(True), I("m", 1.0).state_keys(False)
        (('f',), ())
        """
        return ()

    @abstractmethod
    def equations(self, ports: Mapping[str, PortVars], ctx: Context) -> Constitutive:
        """Constitutive relations for the causality carried by ``ports``.

        Parameters
        ----------
        ports : mapping of str to bondgraph.elements.PortVars
            The element's ports with their bond variables and causality.
        ctx : bondgraph.elements.Context
            Declares parameters and states (see :class:`bondgraph.elements.Context`).

        Returns
        -------
        bondgraph.elements.Constitutive
            One output per variable the element computes, its state equations and
            its stored energy.

        Raises
        ------
        EquationError
            The law cannot be written in this causality (a law that cannot be
            inverted, a resistor that is not passive).
        ParameterError
            A parameter breaks its rule.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


# --------------------------------------------------------------------------- sources
class Se(Element):
    """Effort source ``e = value`` (number or expression of ``t``, inputs, states).

    Its bond points out of it.

    Parameters
    ----------
    name : str
    effort : number or sympy expression
        A finite number (a run-time parameter ``<name>.e``), or an expression of
        :data:`t`, :func:`Input` signals, displacement handles and parameters.

    Raises
    ------
    ParameterError
        A non-finite number, or a callable (a law goes in an expression).

    Examples
    --------
    A constant 2 N on a 4 kg mass: ``v(t) = 0.5·t``.

    >>> from bondgraph import BondGraph, One, I, build, simulate
    >>> m = BondGraph("push")
    >>> _ = m.add(Se("F", 2.0), One("v"), I("m", 4.0))
    >>> _ = m.connect("F", "v"); _ = m.connect("v", "m")
    >>> res = simulate(build(m), (0.0, 2.0), progress=False)
    >>> round(float(res["push/m.f"][-1]), 6)
    1.0
    >>> Se("gravity", -9.81 * 3).role.value
    'effort source'
    """

    role = Role.EFFORT_SOURCE
    kind = "Se"

    _CHECK = FINITE.with_meaning("effort")

    def __init__(self, name: str, effort: Any):
        super().__init__(name)
        _raise([_param_problem(f"{self.kind} {name!r}, effort", effort, self._CHECK)])
        self.effort = effort

    def equations(self, ports, ctx):
        (p,) = ports.values()
        return Constitutive(outputs={p.e: ctx.param("e", self.effort, check=self._CHECK)})


class Sf(Element):
    """Flow source ``f = value``.

    Its bond points out of it; ``Sf(name, 0.0)`` is a fixed ground.

    Parameters
    ----------
    name : str
    flow : number or sympy expression
        As the effort of :class:`Se`.

    Raises
    ------
    ParameterError
        A non-finite number, or a callable.

    Examples
    --------
    >>> Sf("ground", 0.0).kind
    'Sf'
    >>> Sf("q", float("nan"))
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: Sf 'q', flow: found nan, expected a finite number (flow)
    """

    role = Role.FLOW_SOURCE
    kind = "Sf"

    _CHECK = FINITE.with_meaning("flow")

    def __init__(self, name: str, flow: Any):
        super().__init__(name)
        _raise([_param_problem(f"{self.kind} {name!r}, flow", flow, self._CHECK)])
        self.flow = flow

    def equations(self, ports, ctx):
        (p,) = ports.values()
        return Constitutive(outputs={p.f: ctx.param("f", self.flow, check=self._CHECK)})


class MSe(Se):
    """Modulated effort source: the effort is an expression of inputs, time, states.

    Parameters as for :class:`Se`; the kind only says what the source is meant for.

    Examples
    --------
    >>> MSe("F", Input("force")).kind
    'MSe'
    """

    kind = "MSe"


class MSf(Sf):
    """Modulated flow source: the flow is an expression of inputs, time, states.

    Parameters as for :class:`Sf`.

    Examples
    --------
    >>> MSf("Q", 1e-3 * Input("cmd")).kind
    'MSf'
    """

    kind = "MSf"


# --------------------------------------------------------------------------- storage
class _Storage(Element):
    def __init__(self, name: str, parameter: Any = None, *, initial: float = 0.0,
                 law: Callable[[sp.Symbol], Any] | None = None, state: str = "co-energy",
                 energy: Callable[[sp.Symbol], Any] | None = None, prefer: str | None = None):
        super().__init__(name)
        who = f"{self.kind} {name!r}"
        problems = []
        if prefer not in (None, "state", "dependent"):
            problems.append(f"{who}: prefer={prefer!r}, expected 'state', 'dependent' or None")
        #: causality preference: ``"state"`` ranks it first for integral causality,
        #: ``"dependent"`` last (see :mod:`bondgraph.state_choice`)
        self.prefer = prefer
        if state not in ("co-energy", "energy"):
            problems.append(f"{who}: state={state!r}, expected 'co-energy' or 'energy'")
        if law is not None and parameter is not None:
            problems.append(f"{who}: give either a linear parameter or law=..., not both")
        if law is None and parameter is None:
            problems.append(f"{who}: missing its parameter ({self._pname}) or law=...")
        problems.append(_callable_problem(f"{who}, law", law))
        problems.append(_callable_problem(f"{who}, energy", energy))
        if law is not None:
            state = "energy"
        if parameter is not None and state in ("co-energy", "energy"):
            problems.append(_param_problem(f"{who}, parameter {self._pname!r}", parameter,
                                           self._check(state)))
        problems.append(FINITE.problem(f"{who}, initial", initial))
        _raise(problems)
        self.parameter = parameter
        self.initial = initial
        self.law = law
        self.state_form = state
        self.energy_law = energy

    _pname = "parameter"
    _meaning = "parameter"

    @classmethod
    def _check(cls, state: str) -> Check:
        """The rule of the linear parameter: ≥ 0 with a co-energy state, > 0 with an energy state."""
        if state == "energy":
            return Check(">0", f"{cls._meaning}; 0 needs the co-energy state form, the default")
        return Check(">=0", cls._meaning)

    def _inverse_in_derivative_causality(self, ctx, given: sp.Symbol, what: str):
        """State ``g(given)``, slope ``g'(given)`` and stored energy at it: the nonlinear
        law inverted (declared or verified) and resolved branch by branch."""
        q, y = sp.Dummy("q", real=True), sp.Dummy("y", real=True)
        forward = ctx.resolve(self.law(q))
        where = (f"{self.kind} {ctx.name!r} (derivative causality: the graph gives it its "
                 f"{what}, its law gives the {what} from the state)")
        g = invert(self.law, forward, q, y, where=where, resolve=ctx.resolve,
                   fix="declare the inverse (law=Law(forward, inverse)), or give it a linear "
                       "parameter, or make it independent (integral causality)")
        energy = _energy(self.energy_law, q, forward, ctx)
        dg = sp.diff(g, y)
        state, slope, stored = (branchwise(lambda b, ex=ex: ex(b), y).xreplace({y: given}) for ex in (
            lambda b: g.xreplace({y: b}), lambda b: dg.xreplace({y: b}),
            lambda b: energy.xreplace({q: g.xreplace({y: b})})))
        return state, slope, stored


class I(_Storage):
    """Inertia. Linear ``m·v̇ = e`` (state: the flow ``v``) by default.

    Parameters
    ----------
    name : str
    m : number or expression, optional
        Mass / inertia (may depend on displacements); 0 allowed (massless).
    initial : float
        Initial value of the state (flow, or momentum with ``state="energy"``).
    law : callable, optional
        ``f = law(p)``, a nonlinear flow–momentum relation (state: momentum ``p``).
    state : {"co-energy", "energy"}
        Flow state (default) or momentum state.
    energy : callable, optional
        ``E = energy(p)``, the stored energy of a nonlinear law (by default its
        integral, found by sympy).
    prefer : {None, "state", "dependent"}
        Which storage element carries the state when several could: ``"state"``
        first, ``"dependent"`` last (see :mod:`bondgraph.state_choice`).

    Raises
    ------
    ParameterError
        Both or neither of ``m`` and ``law``, a negative mass, a bad ``state`` or
        ``prefer``, a non-finite initial value (all listed at once).

    Examples
    --------
    >>> I("m", 2.0).preferred_effort_in()
    True

    A mass of 2 kg released at 3 m/s into a damper of 4 N·s/m slows as
    ``v = 3·exp(−2t)``:

    >>> import math
    >>> from bondgraph import BondGraph, One, R, build, simulate
    >>> m = BondGraph("coast")
    >>> _ = m.add(One("v"), I("m", 2.0, initial=3.0), R("b", 4.0))
    >>> _ = m.connect("v", "m"); _ = m.connect("v", "b")
    >>> res = simulate(build(m), (0.0, 1.0), rtol=1e-10, atol=1e-12, progress=False)
    >>> bool(abs(res["coast/m.f"][-1] - 3 * math.exp(-2.0)) < 1e-8)
    True
    """

    role = Role.I_STORAGE
    kind = "I"
    _pname = "m"
    _meaning = "mass or inertia"

    def __init__(self, name: str, m: Any = None, *, initial: float = 0.0,
                 law: Callable[[sp.Symbol], Any] | None = None, state: str = "co-energy",
                 energy: Callable[[sp.Symbol], Any] | None = None, prefer: str | None = None):
        super().__init__(name, m, initial=initial, law=law, state=state, energy=energy,
                         prefer=prefer)

    def preferred_effort_in(self) -> bool | None:
        return True

    def state_keys(self, effort_in: bool) -> tuple[str, ...]:
        if not effort_in:
            return ()
        return ("f",) if self.state_form == "co-energy" else ("p",)

    def equations(self, ports, ctx):
        (p,) = ports.values()
        if self.law is None:
            m = ctx.param("m", self.parameter, check=self._check(self.state_form))
            if p.effort_in:  # integral causality
                if self.state_form == "co-energy":
                    v = ctx.state("f", self.initial)
                    return Constitutive(outputs={p.f: v},
                                        states=[StateSpec(v, m, p.e, "flow", ctx.name)],
                                        energy=m * v**2 / 2)
                q = ctx.state("p", self.initial)
                return Constitutive(outputs={p.f: q / m},
                                    states=[StateSpec(q, sp.Integer(1), p.e, "momentum", ctx.name)],
                                    energy=q**2 / (2 * m))
            return Constitutive(outputs={p.e: m * ctx.derivative(p.f)}, energy=m * p.f**2 / 2)
        if not p.effort_in:  # derivative causality: p = g(f), e = dp/dt = g'(f)·df/dt
            _, slope, energy = self._inverse_in_derivative_causality(ctx, p.f, "flow")
            return Constitutive(outputs={p.e: slope * ctx.derivative(p.f)}, energy=energy)
        q = ctx.state("p", self.initial)
        flow = ctx.resolve(self.law(q))
        energy = _energy(self.energy_law, q, flow, ctx)
        return Constitutive(outputs={p.f: flow},
                            states=[StateSpec(q, sp.Integer(1), p.e, "momentum", ctx.name)],
                            energy=energy)


class C(_Storage):
    """Compliance. Linear ``c·ė = f`` (state: the effort ``e``) by default.

    Parameters
    ----------
    name : str
    c : number or expression, optional
        Capacitance (may depend on displacements, e.g. ``V(x)/β``).
    initial : float
        Initial effort (or displacement with ``state="energy"``).
    law : callable, optional
        ``e = law(q)``, a nonlinear effort–displacement relation (state ``q``).
    state : {"co-energy", "energy"}
        Effort state (default) or displacement state.
    energy : callable, optional
        ``E = energy(q)`` of a nonlinear law.
    prefer : {None, "state", "dependent"}
        As for :class:`I`.

    Raises
    ------
    ParameterError
        As for :class:`I`.

    Examples
    --------
    >>> C.spring("k", 100.0).parameter
    0.01

    A unit mass on a spring of stiffness 4 N/m oscillates at 2 rad/s: released at
    1 m/s, its velocity is ``cos(2t)``:

    >>> import math
    >>> from bondgraph import BondGraph, One, build, simulate
    >>> osc = BondGraph("osc")
    >>> _ = osc.add(One("v"), I("m", 1.0, initial=1.0), C.spring("k", 4.0))
    >>> _ = osc.connect("v", "m"); _ = osc.connect("v", "k")
    >>> res = simulate(build(osc), (0.0, 1.0), rtol=1e-10, atol=1e-12, progress=False)
    >>> bool(abs(res["osc/m.f"][-1] - math.cos(2.0)) < 1e-8)
    True
    """

    role = Role.C_STORAGE
    kind = "C"
    _pname = "c"
    _meaning = "compliance"

    def __init__(self, name: str, c: Any = None, *, initial: float = 0.0,
                 law: Callable[[sp.Symbol], Any] | None = None, state: str = "co-energy",
                 energy: Callable[[sp.Symbol], Any] | None = None, prefer: str | None = None):
        super().__init__(name, c, initial=initial, law=law, state=state, energy=energy,
                         prefer=prefer)

    @classmethod
    def spring(cls, name: str, k: float, *, initial_force: float = 0.0,
               state: str = "co-energy") -> "C":
        """A linear spring of stiffness ``k`` (compliance ``1/k``).

        Parameters
        ----------
        name : str
        k : float
            Stiffness, > 0.
        initial_force : float
            Initial spring force (its effort).
        state : {"co-energy", "energy"}
            Force state (default) or deflection state (initial ``initial_force/k``).

        Returns
        -------
        C

        Raises
        ------
        ParameterError
            ``k`` is not a positive number.

        Examples
        --------
        >>> k = C.spring("k", 50.0, initial_force=10.0, state="energy")
        >>> k.parameter, k.initial     # compliance 1/k, deflection F/k
        (0.02, 0.2)
        """
        _raise([Check(">0", "stiffness").problem(f"C {name!r}, stiffness k", k)])
        init = initial_force if state == "co-energy" else initial_force / float(k)
        return cls(name, 1.0 / float(k), initial=init, state=state)

    def preferred_effort_in(self) -> bool | None:
        return False

    def state_keys(self, effort_in: bool) -> tuple[str, ...]:
        if effort_in:
            return ()
        return ("e",) if self.state_form == "co-energy" else ("q",)

    def equations(self, ports, ctx):
        (p,) = ports.values()
        if self.law is None:
            c = ctx.param("c", self.parameter, check=self._check(self.state_form))
            if not p.effort_in:  # integral causality
                if self.state_form == "co-energy":
                    e = ctx.state("e", self.initial)
                    return Constitutive(outputs={p.e: e},
                                        states=[StateSpec(e, c, p.f, "effort", ctx.name)],
                                        energy=c * e**2 / 2)
                q = ctx.state("q", self.initial)
                return Constitutive(outputs={p.e: q / c},
                                    states=[StateSpec(q, sp.Integer(1), p.f, "displacement", ctx.name)],
                                    energy=q**2 / (2 * c))
            return Constitutive(outputs={p.f: c * ctx.derivative(p.e)}, energy=c * p.e**2 / 2)
        if p.effort_in:  # derivative causality: q = g(e), f = dq/dt = g'(e)·de/dt
            _, slope, energy = self._inverse_in_derivative_causality(ctx, p.e, "effort")
            return Constitutive(outputs={p.f: slope * ctx.derivative(p.e)}, energy=energy)
        q = ctx.state("q", self.initial)
        effort = ctx.resolve(self.law(q))
        energy = _energy(self.energy_law, q, effort, ctx)
        return Constitutive(outputs={p.e: effort},
                            states=[StateSpec(q, sp.Integer(1), p.f, "displacement", ctx.name)],
                            energy=energy)


def _energy(law, q, co, ctx) -> sp.Expr:
    if law is not None:
        return ctx.resolve(law(q))
    from .laws import bounded, get_time_limit

    s = sp.Dummy("s")
    integrand = co.xreplace({q: s})
    try:
        result = bounded(lambda: sp.integrate(integrand, (s, 0, q)))
    except TimeoutError:
        result = sp.Integral(integrand, (s, 0, q))
        why = f"no closed form within {get_time_limit():g} s"
    except RuntimeError as exc:
        result, why = sp.Integral(integrand, (s, 0, q)), str(exc)
    else:
        why = "no closed form"
    if result.has(sp.Integral):
        raise EquationError(f"{ctx.name!r}: cannot integrate its law for the stored "
                            f"energy ({why}); pass energy=lambda q: ... explicitly")
    return result


# --------------------------------------------------------------------------- resistors
class R(Element):
    """Resistor: linear ``e = r·f``, or a nonlinear law in either form, or both.

    Give ``r``, or one law, or ``flow`` *and* ``effort`` as a pair of mutually inverse
    laws (checked numerically), which lets the graph choose either causality freely.
    A single law is used as written when the causality matches its form; otherwise it
    is inverted by :func:`bondgraph.laws.invert`: by its declared inverse
    (``flow=Law(f, inverse=g)``), or by sympy within a time limit and only if the
    candidate is verified on both branches; if not, the element raises
    :class:`~bondgraph.errors.EquationError` saying why and how to fix it.

    Parameters
    ----------
    name : str
    r : number or expression, optional
        Linear resistance (may be modulated: depend on inputs, time, states); > 0
        for a passive resistor.
    flow : callable or Law, optional
        Conductance form ``f = flow(e)`` (e.g. an orifice law of the pressure drop).
    effort : callable or Law, optional
        Resistance form ``e = effort(f)``.
    passive : bool
        True (default): the resistor must dissipate, ``e·f ≥ 0``: ``r > 0``, and a law
        of its own variable alone is checked at build on sample points of both signs
        over 17 decades (a law modulated by inputs, states or positions is not judged).
        False allows a deliberately active element (``r`` ≠ 0 of any sign).

    Examples
    --------
    >>> R("orifice", flow=lambda dp: 2 * dp).preferred_effort_in()
    True
    >>> import sympy as sp
    >>> pair = R("or", flow=lambda dp: 2 * sp.sign(dp) * sp.sqrt(sp.Abs(dp)),
    ...          effort=lambda q: sp.sign(q) * q**2 / 4)
    >>> pair.preferred_effort_in() is None
    True
    >>> R("b", -2.0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: R 'b', parameter 'r': found -2.0, expected a finite number > 0 (resistance; passive=False for an active element)
    """

    role = Role.RESISTOR
    kind = "R"

    def __init__(self, name: str, r: Any = None, *, flow: Callable | None = None,
                 effort: Callable | None = None, passive: bool = True):
        super().__init__(name)
        who = f"{self.kind} {name!r}"
        if r is not None and (flow is not None or effort is not None) or \
                (r is None and flow is None and effort is None):
            found = sum(x is not None for x in (r, flow, effort))
            raise ParameterError(f"{who}: give exactly one of r=..., flow=..., effort=..., or "
                                 f"flow=... and effort=... as a mutually inverse pair (found {found})")
        if not isinstance(passive, bool):
            raise ParameterError(f"{who}: passive = {passive!r}, expected True or False")
        self.passive = passive
        problems = [_callable_problem(f"{who}, flow", flow), _callable_problem(f"{who}, effort", effort)]
        if r is not None:
            problems.append(_param_problem(f"{who}, parameter 'r'", r, self._r_check))
        _raise(problems)
        self.r, self.flow_law, self.effort_law = r, flow, effort

    def _passive(self, ctx, law_value: Any, x: sp.Symbol, xname: str) -> sp.Expr:
        """The resolved law, checked for ``e·f ≥ 0`` if it depends on ``x`` alone."""
        expr = ctx.resolve(law_value)
        if self.passive:
            why = dissipation_problem(expr, x, xname)
            if why:
                raise EquationError(f"{self.kind} {ctx.name!r}: not passive: {why}")
        return expr

    @property
    def _r_check(self) -> Check:
        if self.passive:
            return Check(">0", "resistance; passive=False for an active element")
        return Check("!=0", "resistance of an active element")

    def preferred_effort_in(self) -> bool | None:
        if self.flow_law is not None and self.effort_law is not None:
            return None
        if self.flow_law is not None:
            return True
        if self.effort_law is not None:
            return False
        return None

    def equations(self, ports, ctx):
        (p,) = ports.values()
        if self.r is not None:
            r = ctx.param("r", self.r, check=self._r_check)
            return Constitutive(outputs={p.f: p.e / r} if p.effort_in else {p.e: r * p.f})
        e, f = sp.Dummy("e", real=True), sp.Dummy("f", real=True)
        if self.flow_law is not None and self.effort_law is not None:
            verify_pair(ctx.resolve(self.flow_law(e)), ctx.resolve(self.effort_law(f)), e, f,
                        where=f"{self.kind} {ctx.name!r}: its flow= and effort= laws",
                        passive=self.passive)
        if p.effort_in:  # effort in, flow out: the flow= law is native
            native, other, given, wanted, x, y = self.flow_law, self.effort_law, p.e, p.f, f, e
        else:            # flow in, effort out: the effort= law is native
            native, other, given, wanted, x, y = self.effort_law, self.flow_law, p.f, p.e, e, f
        if native is not None:
            name = "e" if p.effort_in else "f"
            return Constitutive(outputs={wanted: self._passive(ctx, native(given), given, name)})
        how, fix = self._INVERTED[p.effort_in]
        g = invert(other, ctx.resolve(other(x)), x, y, where=f"{self.kind} {ctx.name!r} ({how})",
                   resolve=ctx.resolve, passive=self.passive, fix=fix)
        return Constitutive(outputs={wanted: g.xreplace({y: given})})

    #: effort_in -> (the causality that needs the law inverted, how to fix a refusal)
    _INVERTED = {
        True: ("flow-out causality: the graph gives it its effort, its law is in the effort= form",
               "declare the inverse (effort=Law(g, inverse=f), or flow= and effort= together), or "
               "change the causality (drive it by a flow: an inertia or flow source on its junction)"),
        False: ("effort-out causality: the graph gives it its flow, its law is in the flow= form",
                "declare the inverse (flow=Law(f, inverse=g), or flow= and effort= together), or "
                "change the causality (give it an effort: a volume (C) or effort source on its junction)"),
    }


class MR(R):
    """Modulated resistor (its law depends on inputs, time or displacements).

    Examples
    --------
    >>> MR("valve", Input("opening") * 1e9).kind
    'MR'
    """

    kind = "MR"


# --------------------------------------------------------------------------- two-ports
class TF(Element):
    """Transformer ``e1 = n·e2``, ``f2 = n·f1`` (port 1 bonded in, port 2 out).

    Parameters
    ----------
    name : str
    modulus : number or sympy expression
        ``n``, ≠ 0 (a number is the run-time parameter ``<name>.n``).

    Raises
    ------
    ParameterError
        A zero or non-finite modulus.

    Examples
    --------
    >>> TF("lever", 0.5).port_names()
    ('1', '2')

    A 10 N force through a lever of ratio ``n = 0.5`` holds a spring at
    ``e2 = e1/n = 20 N``:

    >>> from bondgraph import BondGraph, Se, build, simulate
    >>> m = BondGraph("lev")
    >>> _ = m.add(Se("F", 10.0), TF("n", 0.5), One("v"), C.spring("k", 1.0), R("b", 0.1))
    >>> for a, b in [("F", "n/1"), ("n/2", "v"), ("v", "k"), ("v", "b")]:
    ...     _ = m.connect(a, b)
    >>> res = simulate(build(m), (0.0, 5.0), progress=False)
    >>> round(float(res["lev/k.e"][-1]), 6)
    20.0
    """

    role = Role.TRANSFORMER
    kind = "TF"
    _CHECK = Check("!=0", "transformer modulus")

    def __init__(self, name: str, modulus: Any):
        super().__init__(name)
        _raise([_param_problem(f"{self.kind} {name!r}, modulus", modulus, self._CHECK)])
        self.modulus = modulus

    def port_names(self):
        return ("1", "2")

    def equations(self, ports, ctx):
        p1, p2 = ports["1"], ports["2"]
        n = ctx.param("n", self.modulus, check=self._CHECK)
        if p1.effort_in:  # e1 in → e2 out; f2 in → f1 out
            return Constitutive(outputs={p2.e: p1.e / n, p1.f: p2.f / n})
        return Constitutive(outputs={p1.e: n * p2.e, p2.f: n * p1.f})


class MTF(TF):
    """Modulated transformer: modulus an expression of displacements, inputs, time.

    Parameters as for :class:`TF`, but the modulus may pass through zero (a dead
    centre): only the causality that divides by it minds, and it is watched during
    the run (see :func:`~bondgraph.simulate`, ``singular=``).

    Examples
    --------
    >>> import sympy as sp
    >>> th = sp.Symbol("theta")
    >>> MTF("arm_x", -2 * sp.sin(th)).kind
    'MTF'
    """

    kind = "MTF"
    # a modulated modulus may pass through (or be) zero: a point on a body's axis, a
    # dead centre; only the causality that divides by it minds, and that is a run-time event
    _CHECK = Check("finite", "transformer modulus")


class GY(Element):
    """Gyrator ``e1 = r·f2``, ``e2 = r·f1`` (port 1 bonded in, port 2 out).

    Parameters
    ----------
    name : str
    modulus : number or sympy expression
        ``r``, ≠ 0 (a number is the run-time parameter ``<name>.r``).

    Raises
    ------
    ParameterError
        A zero or non-finite modulus.

    Examples
    --------
    >>> GY("motor", 0.05).role.value
    'gyrator'
    """

    role = Role.GYRATOR
    kind = "GY"
    _CHECK = Check("!=0", "gyrator modulus")

    def __init__(self, name: str, modulus: Any):
        super().__init__(name)
        _raise([_param_problem(f"{self.kind} {name!r}, modulus", modulus, self._CHECK)])
        self.modulus = modulus

    def port_names(self):
        return ("1", "2")

    def equations(self, ports, ctx):
        p1, p2 = ports["1"], ports["2"]
        r = ctx.param("r", self.modulus, check=self._CHECK)
        if p1.effort_in:  # both efforts in → flows out
            return Constitutive(outputs={p2.f: p1.e / r, p1.f: p2.e / r})
        return Constitutive(outputs={p1.e: r * p2.f, p2.e: r * p1.f})


class MGY(GY):
    """Modulated gyrator: the modulus may depend on displacements, inputs, time.

    Parameters as for :class:`GY`; the modulus may pass through zero.

    Examples
    --------
    >>> MGY("g", 2.0).kind
    'MGY'
    """

    kind = "MGY"
    _CHECK = Check("finite", "gyrator modulus")


# --------------------------------------------------------------------------- junctions
class _Junction(Element):
    def __init__(self, name: str, *, displacement: str | None = None, initial: float = 0.0):
        super().__init__(name)
        _raise([FINITE.problem(f"{self.kind}-junction {name!r}, initial", initial)])
        self._disp_key = displacement
        self._disp_initial = initial
        self._handle = None
        if displacement is not None:
            _check_name(displacement, "displacement")
            self._handle = sp.Dummy(f"{name}.{displacement}", real=True)

    def port_names(self):
        return None

    @property
    def displacement(self) -> sp.Symbol:
        """Handle of the integrated junction variable, for use in other laws.

        Raises
        ------
        ModelStructureError
            The junction was made without ``displacement=``.

        Examples
        --------
        >>> One("w", displacement="theta").displacement.name
        'w.theta'
        """
        if self._handle is None:
            raise ModelStructureError(
                f"{self.kind} {self.name!r}: has no displacement state; create it with "
                f"{type(self).__name__}({self.name!r}, displacement='x')")
        return self._handle

    def handles(self):
        return {self._handle: self._disp_key} if self._handle is not None else {}

    def state_keys(self, effort_in: bool) -> tuple[str, ...]:
        return (self._disp_key,) if self._handle is not None else ()

    def _displacement_state(self, common, ctx) -> list[StateSpec]:
        if self._handle is None:
            return []
        x = ctx.state(self._disp_key, self._disp_initial)
        return [StateSpec(x, sp.Integer(1), common, "displacement", ctx.name)]


class Zero(_Junction):
    """0-junction: common effort, flows sum to zero (inward bonds positive).

    ``displacement="..."`` adds the time integral of the common effort as a state.

    Parameters
    ----------
    name : str
    displacement : str, optional
        Local name of the integrated effort state (its handle is
        :attr:`displacement`).
    initial : float
        Initial value of that state.

    Raises
    ------
    ParameterError
        A non-finite ``initial``.
    ModelStructureError
        A malformed name.

    Examples
    --------
    >>> Zero("p_cap").role.value
    '0-junction'
    """

    role = Role.ZERO
    kind = "0"

    def equations(self, ports, ctx):
        ins = [p for p in ports.values() if p.effort_in]
        if len(ins) != 1:
            raise EquationError(f"0-junction {ctx.name!r}: {len(ins)} bonds impose its "
                                "effort, expected exactly 1")
        src = ins[0]
        out = {p.e: src.e for p in ports.values() if p is not src}
        out[src.f] = -src.sign * sp.Add(*[p.sign * p.f for p in ports.values() if p is not src])
        return Constitutive(outputs=out, states=self._displacement_state(src.e, ctx))


class One(_Junction):
    """1-junction: common flow, efforts sum to zero (inward bonds positive).

    ``displacement="x"`` adds ``x = ∫f dt`` as a state (a body angle, a piston
    position) whose handle :attr:`displacement` other laws may use.

    Parameters
    ----------
    name : str
    displacement : str, optional
        Local name of the integrated flow state.
    initial : float
        Initial value of that state.

    Raises
    ------
    ParameterError
        A non-finite ``initial``.
    ModelStructureError
        A malformed name.

    Examples
    --------
    >>> w = One("boom_w", displacement="theta", initial=0.8)
    >>> w.displacement.name
    'boom_w.theta'

    A spring whose force is ``k·x`` of the junction's own displacement (a
    position-dependent law): the position of a mass pushed by 3 N settles at
    ``x = F/k = 0.75``:

    >>> from bondgraph import BondGraph, Se, MSe, build, simulate
    >>> m = BondGraph("pos")
    >>> v = One("v", displacement="x")
    >>> _ = m.add(Se("F", 3.0), v, I("m", 1.0), R("b", 2.0), MSe("spring", -4.0 * v.displacement))
    >>> for a, b in [("F", "v"), ("spring", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = m.connect(a, b)
    >>> res = simulate(build(m), (0.0, 30.0), rtol=1e-9, progress=False)
    >>> round(float(res["pos/v.x"][-1]), 6)
    0.75
    """

    role = Role.ONE
    kind = "1"

    def equations(self, ports, ctx):
        ins = [p for p in ports.values() if not p.effort_in]
        if len(ins) != 1:
            raise EquationError(f"1-junction {ctx.name!r}: {len(ins)} bonds impose its "
                                "flow, expected exactly 1")
        src = ins[0]
        out = {p.f: src.f for p in ports.values() if p is not src}
        out[src.e] = -src.sign * sp.Add(*[p.sign * p.e for p in ports.values() if p is not src])
        return Constitutive(outputs=out, states=self._displacement_state(src.f, ctx))
