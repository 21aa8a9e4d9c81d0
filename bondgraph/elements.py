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

from .errors import EquationError, ModelStructureError, ParameterError

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
]

#: Simulation time, usable in any law (``Se("F", sp.sin(t))``).
t = sp.Symbol("t", real=True)

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


class Role(Enum):
    """How an element takes part in causality assignment."""

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
    """Symbol class of external inputs (made by :func:`Input`)."""


def Input(name: str) -> sp.Symbol:
    """A named external input signal (valve command, prescribed force...).

    Its value is given at simulation time by name (constant, table, spline or
    callable). Use it in any law.

    Examples
    --------
    >>> u = Input("valve.cmd")
    >>> u.name
    'valve.cmd'
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
    """

    port: str
    bond: str
    e: sp.Symbol
    f: sp.Symbol
    sign: int
    effort_in: bool


@dataclass(frozen=True)
class StateSpec:
    """One state equation ``coeff·ẋ = rhs`` contributed by an element."""

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
    """

    outputs: dict[sp.Symbol, sp.Expr] = field(default_factory=dict)
    states: list[StateSpec] = field(default_factory=list)
    energy: sp.Expr = sp.Integer(0)


class Context(Protocol):
    """What the deriver offers an element while it writes its equations."""

    name: str

    def param(self, key: str, value: Any) -> sp.Expr: ...

    def state(self, key: str, initial: float) -> sp.Symbol: ...

    def derivative(self, var: sp.Symbol) -> sp.Symbol: ...

    def resolve(self, expr: Any) -> sp.Expr: ...


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


class Element(ABC):
    """Base class of all elements.

    Hook methods, called in this order by the assembler and the deriver:

    1. :meth:`port_names` — the fixed ports (``None``: any number, junctions);
    2. :attr:`role` — how causality treats the element;
    3. :meth:`equations` — the constitutive relations for the assigned causality.

    Parameters
    ----------
    name : str
        Local name, unique within its parent graph.
    """

    role: ClassVar[Role]
    kind: ClassVar[str]

    def __init__(self, name: str):
        self.name = _check_name(name, f"{type(self).__name__}")

    def port_names(self) -> tuple[str, ...] | None:
        """Names of the element's ports; ``None`` for any number (junctions)."""
        return ("p",)

    def preferred_effort_in(self) -> bool | None:
        """Preferred causality of a one-port: True = receive effort, None = any."""
        return None

    def handles(self) -> dict[sp.Symbol, str]:
        """Placeholder symbols this element owns that laws elsewhere may use."""
        return {}

    def state_keys(self, effort_in: bool) -> tuple[str, ...]:
        """Local names of the states this element adds with the given causality."""
        return ()

    @abstractmethod
    def equations(self, ports: Mapping[str, PortVars], ctx: Context) -> Constitutive:
        """Constitutive relations for the causality carried by ``ports``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


# --------------------------------------------------------------------------- sources
class Se(Element):
    """Effort source ``e = value`` (number or expression of ``t``, inputs, states).

    Examples
    --------
    >>> Se("gravity", -9.81 * 3).role.value
    'effort source'
    """

    role = Role.EFFORT_SOURCE
    kind = "Se"

    def __init__(self, name: str, effort: Any):
        super().__init__(name)
        self.effort = effort

    def equations(self, ports, ctx):
        (p,) = ports.values()
        return Constitutive(outputs={p.e: ctx.param("e", self.effort)})


class Sf(Element):
    """Flow source ``f = value``.

    Examples
    --------
    >>> Sf("ground", 0.0).kind
    'Sf'
    """

    role = Role.FLOW_SOURCE
    kind = "Sf"

    def __init__(self, name: str, flow: Any):
        super().__init__(name)
        self.flow = flow

    def equations(self, ports, ctx):
        (p,) = ports.values()
        return Constitutive(outputs={p.f: ctx.param("f", self.flow)})


class MSe(Se):
    """Modulated effort source: the effort is an expression of inputs, time, states.

    Examples
    --------
    >>> MSe("F", Input("force")).kind
    'MSe'
    """

    kind = "MSe"


class MSf(Sf):
    """Modulated flow source.

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
        if prefer not in (None, "state", "dependent"):
            raise ParameterError(f"{self.kind} {name!r}: prefer={prefer!r}, expected 'state', "
                                 "'dependent' or None")
        if prefer == "dependent" and law is not None:
            raise ParameterError(f"{self.kind} {name!r}: prefer='dependent' with a nonlinear "
                                 "law=...; expected a linear parameter (only a linear storage "
                                 "element can be dependent)")
        #: causality preference: ``"state"`` ranks it first for integral causality,
        #: ``"dependent"`` last (see :mod:`bondgraph.state_choice`)
        self.prefer = prefer
        if state not in ("co-energy", "energy"):
            raise ParameterError(f"{self.kind} {name!r}: state={state!r}, expected "
                                 "'co-energy' or 'energy'")
        if law is not None and parameter is not None:
            raise ParameterError(f"{self.kind} {name!r}: give either a linear parameter "
                                 "or law=..., not both")
        if law is None and parameter is None:
            raise ParameterError(f"{self.kind} {name!r}: missing its parameter "
                                 f"({self._pname}) or law=...")
        if law is not None:
            state = "energy"
        if _is_number(parameter) and float(parameter) < 0:
            raise ParameterError(f"{self.kind} {name!r}: {self._pname} = {parameter}, "
                                 "expected ≥ 0")
        if state == "energy" and law is None and _is_number(parameter) and float(parameter) == 0:
            raise ParameterError(f"{self.kind} {name!r}: {self._pname} = 0 needs the "
                                 "co-energy state form (the default)")
        self.parameter = parameter
        self.initial = initial
        self.law = law
        self.state_form = state
        self.energy_law = energy

    _pname = "parameter"


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
    prefer : {None, "state", "dependent"}
        Which storage element carries the state when several could: ``"state"``
        first, ``"dependent"`` last (see :mod:`bondgraph.state_choice`).

    Examples
    --------
    >>> I("m", 2.0).preferred_effort_in()
    True
    """

    role = Role.I_STORAGE
    kind = "I"
    _pname = "m"

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
            m = ctx.param("m", self.parameter)
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
        if not p.effort_in:
            raise EquationError(
                f"I {ctx.name!r}: in derivative causality, but its law is nonlinear; "
                "expected a linear inertia (give m=...) for a dependent storage element")
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
    prefer : {None, "state", "dependent"}
        As for :class:`I`.

    Examples
    --------
    >>> C.spring("k", 100.0).parameter
    0.01
    """

    role = Role.C_STORAGE
    kind = "C"
    _pname = "c"

    def __init__(self, name: str, c: Any = None, *, initial: float = 0.0,
                 law: Callable[[sp.Symbol], Any] | None = None, state: str = "co-energy",
                 energy: Callable[[sp.Symbol], Any] | None = None, prefer: str | None = None):
        super().__init__(name, c, initial=initial, law=law, state=state, energy=energy,
                         prefer=prefer)

    @classmethod
    def spring(cls, name: str, k: float, *, initial_force: float = 0.0,
               state: str = "co-energy") -> "C":
        """A linear spring of stiffness ``k`` (compliance ``1/k``)."""
        if not _is_number(k) or float(k) <= 0:
            raise ParameterError(f"C {name!r}: stiffness k = {k!r}, expected a number > 0")
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
            c = ctx.param("c", self.parameter)
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
        if p.effort_in:
            raise EquationError(
                f"C {ctx.name!r}: in derivative causality, but its law is nonlinear; "
                "expected a linear compliance (give c=...) for a dependent storage element")
        q = ctx.state("q", self.initial)
        effort = ctx.resolve(self.law(q))
        energy = _energy(self.energy_law, q, effort, ctx)
        return Constitutive(outputs={p.e: effort},
                            states=[StateSpec(q, sp.Integer(1), p.f, "displacement", ctx.name)],
                            energy=energy)


def _energy(law, q, co, ctx) -> sp.Expr:
    if law is not None:
        return ctx.resolve(law(q))
    s = sp.Dummy("s")
    integrand = co.xreplace({q: s})
    result = sp.integrate(integrand, (s, 0, q))
    if result.has(sp.Integral):
        raise EquationError(f"{ctx.name!r}: cannot integrate its law for the stored "
                            "energy; pass energy=lambda q: ... explicitly")
    return result


# --------------------------------------------------------------------------- resistors
class R(Element):
    """Resistor: linear ``e = r·f``, or a nonlinear law in either form.

    Parameters
    ----------
    name : str
    r : number or expression, optional
        Linear resistance (may be modulated: depend on inputs, time, states).
    flow : callable, optional
        Conductance form ``f = flow(e)`` (e.g. an orifice law of the pressure drop).
    effort : callable, optional
        Resistance form ``e = effort(f)``.

    A nonlinear law is inverted symbolically if the graph gives the other
    causality; if that fails the error names the element.

    Examples
    --------
    >>> R("orifice", flow=lambda dp: 2 * dp).preferred_effort_in()
    True
    """

    role = Role.RESISTOR
    kind = "R"

    def __init__(self, name: str, r: Any = None, *, flow: Callable | None = None,
                 effort: Callable | None = None):
        super().__init__(name)
        given = [x is not None for x in (r, flow, effort)]
        if sum(given) != 1:
            raise ParameterError(f"{self.kind} {name!r}: give exactly one of r=..., "
                                 f"flow=..., effort=... (found {sum(given)})")
        self.r, self.flow_law, self.effort_law = r, flow, effort

    def preferred_effort_in(self) -> bool | None:
        if self.flow_law is not None:
            return True
        if self.effort_law is not None:
            return False
        return None

    def equations(self, ports, ctx):
        (p,) = ports.values()
        if self.r is not None:
            r = ctx.param("r", self.r)
            return Constitutive(outputs={p.f: p.e / r} if p.effort_in else {p.e: r * p.f})
        if self.flow_law is not None:
            law, given, wanted = self.flow_law, p.e, p.f
        else:
            law, given, wanted = self.effort_law, p.f, p.e
        x = sp.Dummy("x", real=True)
        expr = ctx.resolve(law(x))
        if (self.flow_law is not None) == p.effort_in:
            return Constitutive(outputs={wanted: expr.xreplace({x: given})})
        y = sp.Dummy("y", real=True)
        try:
            sols = sp.solve(sp.Eq(expr, y), x)
        except NotImplementedError:
            sols = []
        if len(sols) != 1:
            raise EquationError(
                f"R {ctx.name!r}: the graph gives it the other causality "
                f"({'effort' if p.effort_in else 'flow'} in) and its law cannot be inverted "
                f"uniquely (found {len(sols)} solutions); expected a law in the "
                f"{'flow=' if p.effort_in else 'effort='} form")
        return Constitutive(outputs={given: sols[0].xreplace({y: wanted})})


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

    Examples
    --------
    >>> TF("lever", 0.5).port_names()
    ('1', '2')
    """

    role = Role.TRANSFORMER
    kind = "TF"

    def __init__(self, name: str, modulus: Any):
        super().__init__(name)
        self.modulus = modulus

    def port_names(self):
        return ("1", "2")

    def equations(self, ports, ctx):
        p1, p2 = ports["1"], ports["2"]
        n = ctx.param("n", self.modulus)
        if p1.effort_in:  # e1 in → e2 out; f2 in → f1 out
            return Constitutive(outputs={p2.e: p1.e / n, p1.f: p2.f / n})
        return Constitutive(outputs={p1.e: n * p2.e, p2.f: n * p1.f})


class MTF(TF):
    """Modulated transformer: modulus an expression of displacements, inputs, time.

    Examples
    --------
    >>> import sympy as sp
    >>> th = sp.Symbol("theta")
    >>> MTF("arm_x", -2 * sp.sin(th)).kind
    'MTF'
    """

    kind = "MTF"


class GY(Element):
    """Gyrator ``e1 = r·f2``, ``e2 = r·f1`` (port 1 bonded in, port 2 out).

    Examples
    --------
    >>> GY("motor", 0.05).role.value
    'gyrator'
    """

    role = Role.GYRATOR
    kind = "GY"

    def __init__(self, name: str, modulus: Any):
        super().__init__(name)
        self.modulus = modulus

    def port_names(self):
        return ("1", "2")

    def equations(self, ports, ctx):
        p1, p2 = ports["1"], ports["2"]
        r = ctx.param("r", self.modulus)
        if p1.effort_in:  # both efforts in → flows out
            return Constitutive(outputs={p2.f: p1.e / r, p1.f: p2.e / r})
        return Constitutive(outputs={p1.e: r * p2.f, p2.e: r * p1.f})


class MGY(GY):
    """Modulated gyrator.

    Examples
    --------
    >>> MGY("g", 2.0).kind
    'MGY'
    """

    kind = "MGY"


# --------------------------------------------------------------------------- junctions
class _Junction(Element):
    def __init__(self, name: str, *, displacement: str | None = None, initial: float = 0.0):
        super().__init__(name)
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
        """Handle of the integrated junction variable, for use in other laws."""
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

    Examples
    --------
    >>> w = One("boom_w", displacement="theta", initial=0.8)
    >>> w.displacement.name
    'boom_w.theta'
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
