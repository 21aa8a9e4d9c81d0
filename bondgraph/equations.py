"""Equations from the causal graph: a block-triangular, linearly implicit system.

:func:`derive` walks the causal graph once. Every element writes the variables
its causality makes it compute (:meth:`~bondgraph.elements.Element.equations`);
the assignments are chained in causal order by substitution — no global
``solve``, no symbolic matrix reduction of the whole system.

What comes out
--------------
* **states** ``x``: integral storage (flows of inertias, efforts of compliances,
  or momenta / displacements), and *displacement states* of junctions (a body
  angle ``θ = ∫ω``) that modulated laws use;
* **algebraic loops** are torn: a bond variable ``z`` of each loop becomes an
  unknown with the residual ``z − g(z, …) = 0``;
* **derivative causality**: a dependent inertia outputs ``e = m·d/dt(f)`` with
  ``f`` an expression of the states; the time derivative is taken by the chain
  rule, which brings in ``ẋ`` (and ``ż`` of torn flow loops, with the
  differentiated loop residual as their equation). This is how the inertia of
  every body a kinematic chain drags along ends up in the mass matrix;
* the unknowns ``U = [ẋ, ż, z]`` and one residual per unknown, ordered by a
  block lower-triangular (BLT) decomposition: most blocks are a single explicit
  equation; a coupled block is the small dense ``E_b(x)·U_b = f_b`` that is
  solved numerically at each call. Velocity-level loop blocks that are
  nonlinear are solved by Newton's method; everything else must be affine in its
  block unknowns (it always is for linear storage elements).

Together these rows are the linearly implicit system ``E(x)·ẋ = f(x, u, t)``
of the issue, kept in factored (BLT) form so ``E`` is never formed beyond its
coupled blocks.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, C, R, assemble, derive
>>> bg = BondGraph("msd")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0), C.spring("k", 50.0), R("b", 0.3))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> eqs = derive(assemble(bg))
>>> [s.name for s in eqs.states]
['msd/m.f', 'msd/k.e']
>>> [len(b.unknowns) for b in eqs.blocks]
[1, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import symengine as se
import sympy as sp

from .causality import CausalReport, assign_causality
from .checks import FINITE, Check, number
from .elements import Constitutive, InputSignal, PortVars, Role, StateSpec, _is_number
from .errors import EquationError, ParameterError

__all__ = ["StateInfo", "Block", "Divisor", "Equations", "derive", "collect", "Collected",
           "expr_digest", "expression_problem"]

_T = se.Symbol("t")


@dataclass(frozen=True)
class StateInfo:
    """A state variable of the generated system.

    Attributes
    ----------
    name : str
        Global name, ``<element path>.<key>`` (``"msd/m.f"``).
    element : str
        The element that owns it.
    kind : str
        ``"flow"``, ``"effort"``, ``"momentum"``, ``"displacement"``.
    initial : float
        Its initial value.

    Examples
    --------
    >>> from bondgraph import BondGraph, One, I, C, assemble, derive
    >>> bg = BondGraph("osc")
    >>> _ = bg.add(One("v"), I("m", 1.0, initial=2.0), C.spring("k", 4.0))
    >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "k")
    >>> derive(assemble(bg)).states[0]
    StateInfo(name='osc/m.f', element='osc/m', kind='flow', initial=2.0)
    """

    name: str
    element: str
    kind: str
    initial: float


@dataclass(frozen=True)
class Block:
    """One diagonal block of the BLT form: unknowns solved together.

    Attributes
    ----------
    unknowns : tuple of int
        Indices in :attr:`Equations.unknowns`.
    affine : bool
        The block's residuals are affine in its unknowns (solved by one linear
        solve); else Newton's method.

    Examples
    --------
    A mass–spring–damper has two explicit rows, one per state derivative:

    >>> from bondgraph import BondGraph, Se, One, I, C, R, assemble, derive
    >>> bg = BondGraph("msd")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0), C.spring("k", 50.0), R("b", 0.3))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> derive(assemble(bg)).blocks
    [Block(unknowns=(0,), affine=True), Block(unknowns=(1,), affine=True)]
    """

    unknowns: tuple[int, ...]
    affine: bool


@dataclass(frozen=True)
class Divisor:
    """Something the equations divide by that can vanish during a run.

    Attributes
    ----------
    kind : {"modulus", "block"}
        ``"modulus"``: an expression an element's relations divide by (the modulus of a
        transformer or gyrator in its dividing causality, the coefficient of a modulated
        law) that depends on states, inputs or time; ``expr`` gives it. ``"block"``: the
        matrix of a block of the equations: for a single unknown its coefficient, for a
        coupled block its normalised determinant ``det(E)/Π‖E_i‖`` (in [−1, 1]; 0 when
        singular).
    label : str
        How messages name it, e.g. ``"MTF 'crank/rod' modulus"``.
    elements : tuple of str
        The elements it belongs to.
    expr : symengine expression or None
        The divisor (``"modulus"``), in states, inputs, parameters and ``t``.
    block : int or None
        Index in :attr:`Equations.blocks` (``"block"``).
    unknowns : tuple of str
        The block's unknowns (``"block"``).

    Examples
    --------
    A crank (a transformer of modulus ``cos θ``) drags a slider: the coefficient of
    the flywheel's acceleration depends on ``θ`` and is watched during a run.

    >>> import sympy as sp
    >>> from bondgraph import BondGraph, Se, One, I, MTF, assemble, derive
    >>> m = BondGraph("cr")
    >>> w = One("w", displacement="th")
    >>> _ = m.add(Se("T", 1.0), w, I("J", 1.0), MTF("r", sp.cos(w.displacement)), One("v"),
    ...           I("m", 1.0))
    >>> for a, b in [("T", "w"), ("w", "J"), ("w", "r/1"), ("r/2", "v"), ("v", "m")]:
    ...     _ = m.connect(a, b)
    >>> (d,) = derive(assemble(m)).divisors
    >>> d.kind, d.unknowns, d.elements
    ('block', ('der(cr/J.f)',), ('cr/J', 'cr/m', 'cr/r', 'cr/w'))
    """

    kind: str
    label: str
    elements: tuple[str, ...]
    expr: Any = None
    block: int | None = None
    unknowns: tuple[str, ...] = ()


@dataclass
class Equations:
    """The generated system, in symengine form for compilation.

    Attributes
    ----------
    states : list of StateInfo
    params : dict
        Parameter name → value (numbers the compiled code reads at run time).
    inputs : list of str
        External inputs; ``input_derivatives`` those whose time derivative is used.
    unknowns : list of str
        Names of ``U`` (``der(x)``, ``der(z)``, ``z``); ``residuals[i]`` defines
        ``unknowns[i]`` inside its block.
    blocks : list of Block
        BLT order.
    xdot : list of int
        Index in ``U`` of each state's derivative.
    bond_exprs : dict
        ``"e[bond]"`` / ``"f[bond]"`` → expression of ``t, x, U, u, du, p``.
    energy : dict
        Storage element → stored energy expression (states and parameters).
    source_power, dissipation : dict
        Bond → power delivered by a source / dissipated by a resistor.
    parametric : dict
        State → ``(dc/dt)·y²/2``: the power that enters a co-energy storage element
        through the variation of its coefficient (a chamber ``V(x)/β``, a variable
        mass) rather than through its port, so that
        ``ΔE = W_sources − W_dissipated + W_parametric`` holds exactly.
    divisors : list of Divisor
        Every divisor that can vanish at run time (moduli in their dividing causality,
        block matrices that vary); compiled as the monitor function
        (:meth:`~bondgraph.codegen.CompiledSystem.monitors`) that
        :func:`~bondgraph.simulate.simulate` watches for singular points.
    param_checks : dict
        Parameter name → its :class:`~bondgraph.checks.Check` (the rule its element
        declared), enforced again by :meth:`~bondgraph.Model.set_params`.
    expr_checks : list
        ``(label, expression, check)`` for parameters given as expressions of other
        parameters only (``r = 2·k``): checked at build and after every ``set_params``.
    observed : dict
        Observer name → expression (:mod:`bondgraph.observers`), compiled after the
        other outputs.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, C, R, assemble, derive
    >>> bg = BondGraph("msd")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0), C.spring("k", 50.0), R("b", 0.3))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> eqs = derive(assemble(bg))
    >>> print(eqs)
    equations of 'msd': 2 states, 2 unknowns in 2 blocks (0 coupled, largest 1), 4 parameters, 0 inputs
    >>> eqs.unknowns, eqs.params["msd/k.c"]
    (['der(msd/m.f)', 'der(msd/k.e)'], 0.02)
    """

    model: str
    report: CausalReport
    states: list[StateInfo]
    params: dict[str, float]
    param_owner: dict[str, str]
    inputs: list[str]
    input_derivatives: list[str]
    unknowns: list[str]
    unknown_kind: list[str]
    residuals: list[se.Basic]
    blocks: list[Block]
    xdot: list[int]
    bond_exprs: dict[str, se.Basic]
    energy: dict[str, se.Basic]
    source_power: dict[str, se.Basic]
    dissipation: dict[str, se.Basic]
    intermediates: list[tuple[str, se.Basic]] = field(default_factory=list)
    deps: dict[str, frozenset] = field(default_factory=dict)
    parametric: dict[str, se.Basic] = field(default_factory=dict)
    divisors: list[Divisor] = field(default_factory=list)
    observed: dict[str, se.Basic] = field(default_factory=dict)
    param_checks: dict[str, Check] = field(default_factory=dict)
    expr_checks: list[tuple[str, sp.Expr, Check]] = field(default_factory=list)

    # ------------------------------------------------------------------ views
    @property
    def n_states(self) -> int:
        """Number of states, ``len(states)``."""
        return len(self.states)

    def symbols(self) -> dict[str, list[se.Symbol]]:
        """The symbol lists the compiled code takes, by role.

        Returns
        -------
        dict
            ``"x"`` states, ``"U"`` unknowns, ``"u"`` inputs, ``"du"`` input
            derivatives, ``"p"`` parameters: lists of symengine symbols, in the order
            of the compiled code's arrays.
        """
        return {
            "x": [se.Symbol(s.name) for s in self.states],
            "U": [se.Symbol(u) for u in self.unknowns],
            "u": [se.Symbol(u) for u in self.inputs],
            "du": [se.Symbol(f"der({u})") for u in self.input_derivatives],
            "p": [se.Symbol(p) for p in self.params],
        }

    def sympy(self) -> list[sp.Eq]:
        """The equations as sympy ``Eq``, in the order they are computed.

        Intermediate bond variables first (``e[bond] = …``), then each block: an
        explicit equation solved for its unknown (``der(x) = …``), or, for a
        coupled block, the matrix equation ``E·U = f``.

        Returns
        -------
        list of sympy.Eq

        Examples
        --------
        >>> from bondgraph import BondGraph, Se, One, I, R, assemble, derive
        >>> bg = BondGraph("d")
        >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0), R("b", 0.5))
        >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        ...     _ = bg.connect(a, b)
        >>> derive(assemble(bg)).sympy()[-1]
        Eq(der(d/m.f), e[d/b2]/d/m.m)
        """
        out: list[sp.Eq] = [sp.Eq(sp.Symbol(v), ex._sympy_(), evaluate=False)
                            for v, ex in self.intermediates]
        for b in self.blocks:
            unk = [se.Symbol(self.unknowns[i]) for i in b.unknowns]
            zero = {u: 0 for u in unk}
            if b.affine:
                E = [[se.diff(self.residuals[i], u) for u in unk] for i in b.unknowns]
                f = [-self.residuals[i].subs(zero) for i in b.unknowns]
                if len(unk) == 1:
                    out.append(sp.Eq(unk[0]._sympy_(), (f[0] / E[0][0])._sympy_(), evaluate=False))
                else:
                    Em = sp.Matrix([[e._sympy_() for e in row] for row in E])
                    out.append(sp.Eq(sp.MatMul(Em, sp.Matrix([u._sympy_() for u in unk]), evaluate=False),
                                     sp.Matrix([x._sympy_() for x in f]), evaluate=False))
            else:
                for i in b.unknowns:
                    out.append(sp.Eq(0, self.residuals[i]._sympy_(), evaluate=False))
        return out

    def latex(self, params: bool = False) -> str:
        """LaTeX of :meth:`sympy` (parameter values substituted unless ``params``).

        Parameters
        ----------
        params : bool
            Keep parameters as symbols.

        Returns
        -------
        str
            An ``aligned`` environment, one row per equation (what a notebook shows).
        """
        subs = {} if params else {sp.Symbol(k): sp.Float(v, 6) for k, v in self.params.items()}
        lines = []
        for eq in self.sympy():
            lhs, rhs = eq.lhs, eq.rhs
            if subs:
                lhs, rhs = lhs.xreplace(subs), rhs.xreplace(subs)
            names = _names([lhs, rhs])
            lines.append(sp.latex(lhs, symbol_names=names) + " &= " + sp.latex(rhs, symbol_names=names))
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"

    def _repr_latex_(self) -> str:
        return "$$" + self.latex() + "$$"

    def __str__(self) -> str:
        sizes = [len(b.unknowns) for b in self.blocks]
        coupled = [s for s in sizes if s > 1]
        return (f"equations of {self.model!r}: {self.n_states} states, "
                f"{len(self.unknowns)} unknowns in {len(self.blocks)} blocks "
                f"({len(coupled)} coupled, largest {max(sizes, default=0)}), "
                f"{len(self.params)} parameters, {len(self.inputs)} inputs")


def _names(exprs) -> dict:
    out = {}
    for e in exprs:
        for s in e.free_symbols:
            n = s.name
            if n.startswith("der(") and n.endswith(")"):
                out[s] = r"\dot{\mathtt{" + _tt(n[4:-1]) + "}}"
            else:
                out[s] = r"\mathtt{" + _tt(n) + "}"
    return out


def _tt(name: str) -> str:
    return name.replace("_", r"\_").replace("[", "{[}").replace("]", "{]}")


# ---------------------------------------------------------------------- context
class _Ctx:
    """What an element sees while writing its equations."""

    def __init__(self, d: "_Deriver", node: str):
        self.d = d
        self.name = node

    def param(self, key: str, value: Any, check: Check | None = None) -> sp.Expr:
        """A numeric parameter ``<element>.<key>`` (a run-time value), or a resolved law.

        ``check`` is the parameter's rule: a number is checked now and the rule is kept
        for :meth:`~bondgraph.Model.set_params`; an expression is checked once every
        parameter has its value, if it depends on parameters only.
        """
        label = f"parameter '{self.name}.{key}'"
        if _is_number(value):
            sym = sp.Symbol(f"{self.name}.{key}", real=True)
            chk = check or FINITE
            problem = chk.problem(label, value)
            if problem:
                raise ParameterError(problem)
            self.d.params[sym.name] = float(value)
            self.d.param_owner[sym.name] = self.name
            self.d.param_checks[sym.name] = chk
            return sym
        expr = self.resolve(value)
        if check is not None:
            self.d.expr_checks.append((f"{label} = {expr}", expr, check))
        return expr

    def state(self, key: str, initial: float) -> sp.Symbol:
        sym = sp.Symbol(f"{self.name}.{key}", real=True)
        if not _is_number(initial):
            raise ParameterError(f"{self.name}: initial value of {key!r} is {initial!r}, "
                                 "expected a number")
        self.d.state_initial[sym.name] = float(initial)
        return sym

    def derivative(self, var: sp.Symbol) -> sp.Symbol:
        sym = sp.Symbol(f"D({var.name})", real=True)
        self.d.dsyms[sym.name] = var.name
        return sym

    def resolve(self, expr: Any) -> sp.Expr:
        try:
            expr = sp.sympify(expr)
        except (sp.SympifyError, TypeError) as exc:
            raise ParameterError(f"{self.name}: law {expr!r} is not a number or a sympy "
                                 f"expression ({exc})") from None
        if self.d.handles:
            expr = expr.xreplace(self.d.handles)
        for s in expr.free_symbols:
            if isinstance(s, InputSignal):
                self.d.inputs.setdefault(s.name, self.name)
        return expr


# ---------------------------------------------------------------------- deriver
class _Deriver:
    def __init__(self, g: nx.MultiDiGraph, params: dict | None):
        self.g = g
        self.handles = g.graph.get("handles", {})
        self.params: dict[str, float] = {}
        self.param_owner: dict[str, str] = {}
        self.param_checks: dict[str, Check] = {}
        self.expr_checks: list[tuple[str, sp.Expr, Check]] = []
        self.user_params = {}
        problems = []
        for k, v in (params or {}).items():
            name = k.name if isinstance(k, sp.Symbol) else str(k)
            x = number(v)
            if x is None or x != x or x in (float("inf"), float("-inf")):
                problems.append(f"parameter {name!r}: found {v!r}, expected a finite number")
                continue
            self.user_params[name] = x
        if problems:
            raise ParameterError(problems, subject=f"model {g.graph.get('name', '?')!r}")
        self.state_initial: dict[str, float] = {}
        self.dsyms: dict[str, str] = {}
        self.inputs: dict[str, str] = {}


def expression_problem(check: tuple[str, sp.Expr, Check], values: dict[str, float]) -> str | None:
    """The message if a parameter expression breaks its rule for these parameter values.

    Parameters
    ----------
    check : (str, sympy.Expr, Check)
        An entry of :attr:`Equations.expr_checks`.
    values : dict
        Parameter name → value.

    Returns
    -------
    str or None

    Examples
    --------
    >>> import sympy as sp
    >>> from bondgraph.checks import POSITIVE
    >>> k = sp.Symbol("k")
    >>> expression_problem(("parameter 'b.r' = 2*k", 2 * k, POSITIVE), {"k": -1.0})
    "parameter 'b.r' = 2*k: found -2.0, expected a finite number > 0"
    >>> expression_problem(("parameter 'b.r' = 2*k", 2 * k, POSITIVE), {"k": 3.0}) is None
    True
    """
    label, expr, rule = check
    value = expr.xreplace({s: values[s.name] for s in expr.free_symbols})
    try:
        x = complex(value)
    except (TypeError, ValueError):
        return None
    if x.imag != 0:
        return f"{label}: found {value}, expected {rule.expected}"
    return rule.problem(f"{label}", x.real)


def _pairwise(op, args):
    out = args[0]
    for a in args[1:]:
        out = sp.Piecewise((out, op(out, a)), (a, True))
    return out


def _to_se(expr: sp.Expr) -> se.Basic:
    """sympy → symengine, with non-smooth functions as single-condition Piecewise
    (symengine differentiates those, and converts no compound conditions)."""
    if expr.has(sp.Abs, sp.sign, sp.Max, sp.Min, sp.Heaviside):
        expr = expr.replace(sp.Max, lambda *a: _pairwise(lambda x, y: x >= y, a))
        expr = expr.replace(sp.Min, lambda *a: _pairwise(lambda x, y: x <= y, a))
        expr = expr.replace(sp.Abs, lambda u: sp.Piecewise((u, u >= 0), (-u, True)))
        expr = expr.replace(sp.sign, lambda u: sp.Piecewise((1, u > 0), (-1, u < 0), (0, True)))
        expr = expr.replace(sp.Heaviside, lambda u, h0=sp.S.Half: sp.Piecewise((1, u > 0), (0, u < 0), (h0, True)))
    if expr.has(sp.Piecewise):
        expr = _simple_conditions(expr)
    return se.sympify(expr)


def _simple_conditions(expr: sp.Expr) -> sp.Expr:
    """Every Piecewise condition as one relational: ``And``, ``Or``, ``Not`` and the
    ``ITE`` sympy makes of a switch inside a switch's condition become nested Piecewise
    (symengine converts relational conditions only).

    Examples
    --------
    >>> x, y = sp.symbols("x y", real=True)
    >>> e = _simple_conditions(sp.Piecewise((1, (x > 0) & (y > 0)), (2, True)))
    >>> [e.subs({x: a, y: b}) for a, b in [(1, 1), (1, -1), (-1, 1)]]
    [1, 2, 2]
    """
    def select(c, a, b):
        if c is sp.true or c == True:  # noqa: E712 - sympy booleans
            return a
        if c is sp.false or c == False:  # noqa: E712
            return b
        if isinstance(c, sp.core.relational.Relational):
            return sp.Piecewise((a, c), (b, True), evaluate=False)
        if isinstance(c, sp.And):
            first, *rest = c.args
            return select(first, select(sp.And(*rest), a, b), b)
        if isinstance(c, sp.Or):
            first, *rest = c.args
            return select(first, a, select(sp.Or(*rest), a, b))
        if isinstance(c, sp.Not):
            return select(c.args[0], b, a)
        if isinstance(c, sp.ITE):
            x, y, z = c.args
            return select(x, select(y, a, b), select(z, a, b))
        nnf = sp.to_nnf(c)
        if nnf != c:
            return select(nnf, a, b)
        raise EquationError(f"condition {c} of a switch (Piecewise): expected relations "
                            "(<, <=, >, >=) joined by &, |, ~")

    def rebuild(pw):
        out = sp.nan
        for e, c in reversed(pw.args):
            out = select(c, e, out)
        return out

    return expr.replace(lambda e: isinstance(e, sp.Piecewise), rebuild)


@dataclass
class Collected:
    """What the elements said, before any derivation: the cheap first phase.

    Its :meth:`fingerprint` identifies the generated equations (and code), so a
    model built again reuses them from the cache. Made by :func:`collect`.

    Attributes
    ----------
    name : str
        The model.
    report : CausalReport
    assigned : dict
        Bond variable name → the expression its element computes.
    states : list of StateSpec
    energy : dict
        Storage element → stored energy.

    Examples
    --------
    The fingerprint ignores parameter values: a heavier mass reuses the code.

    >>> from bondgraph import BondGraph, Se, One, I, assemble
    >>> def push(m):
    ...     bg = BondGraph("push")
    ...     _ = bg.add(Se("F", 1.0), One("v"), I("m", m))
    ...     _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    ...     return collect(assemble(bg))
    >>> push(1.0).fingerprint() == push(5.0).fingerprint()
    True
    >>> push(1.0).assigned["f[push/b2]"]
    push/m.f
    """

    name: str
    report: CausalReport
    d: Any
    assigned: dict
    owner: dict
    states: list
    energy: dict
    roles: list

    def fingerprint(self) -> str:
        """Hash of every relation, state, name and role that shapes the equations.

        Expressions are hashed by their structure (:func:`expr_digest`), not printed:
        stable across processes, exact for floats, and cheap on large models.
        Parameter values and initial states are not part of it (they are read at
        run time), so building the same model with other values reuses the cache.

        Returns
        -------
        str
        """
        import hashlib

        memo: dict = {}
        h = hashlib.sha256()
        h.update(f"v{_FORMAT}|{_generator_hash()}|{self.name}\n".encode())
        for var in sorted(self.assigned):
            h.update(f"{var}=".encode() + expr_digest(self.assigned[var], memo))
        for s_ in self.states:
            h.update(f"S {s_.symbol.name}|{s_.kind}|".encode())
            h.update(expr_digest(s_.coeff, memo) + expr_digest(s_.rhs, memo))
        for n in sorted(self.energy):
            h.update(f"E {n}=".encode() + expr_digest(self.energy[n], memo))
        h.update(("P " + ",".join(self.d.params) + "\n").encode())
        h.update(("U " + ",".join(sorted(self.d.inputs)) + "\n").encode())
        h.update(("D " + ",".join(sorted(self.d.dsyms)) + "\n").encode())
        h.update(("R " + ";".join(self.roles) + "\n").encode())
        return h.hexdigest()[:32]


def expr_digest(expr: Any, memo: dict | None = None) -> bytes:
    """A 16-byte digest of a sympy expression's structure.

    Each node contributes its class name and, for atoms, its exact content (a
    symbol's name, an integer, a rational, a float's binary mantissa and
    exponent); a compound node hashes its arguments' digests in sympy's canonical
    argument order. Subtrees shared between expressions are hashed once (``memo``,
    by object identity). Unlike ``str``/``srepr`` this prints nothing, and it does
    not depend on Python's per-process string hashing.

    Parameters
    ----------
    expr : object
    memo : dict, optional

    Returns
    -------
    bytes

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> expr_digest(2 * x + 1) == expr_digest(1 + x * 2)
    True
    >>> a, b = 0.1, 0.1 + 2.0**-56              # neighbouring doubles: equal when printed
    >>> str(sp.Float(a)) == str(sp.Float(b)), expr_digest(sp.Float(a)) == expr_digest(sp.Float(b))
    (True, False)
    """
    import hashlib

    if memo is None:
        memo = {}
    key = id(expr)
    hit = memo.get(key)
    if hit is not None:
        return hit[0]
    if not isinstance(expr, sp.Basic):
        expr = sp.sympify(expr)
    kind = type(expr).__name__.encode()
    if expr.is_Symbol:
        data = kind + b":" + expr.name.encode()
    elif expr.is_Integer:
        data = kind + b":" + str(int(expr.p)).encode()
    elif expr.is_Rational:
        data = kind + f":{expr.p}/{expr.q}".encode()
    elif expr.is_Float:
        data = kind + f":{expr._mpf_!r}".encode()
    elif expr.args:
        data = kind + b"(" + b"".join(expr_digest(a, memo) for a in expr.args)
    else:  # other atoms: pi, E, oo, zoo, nan, I, true, false
        data = kind
    dig = hashlib.blake2b(data, digest_size=16).digest()
    memo[key] = (dig, expr)  # keep the object alive: its id stays unique
    return dig


#: bump when the derivation or code generation changes what a fingerprint stands for
_FORMAT = 5
_GEN_HASH: list[str] = []


def _generator_hash() -> str:
    """Hash of the derivation and code-generation sources: a changed generator never
    reuses equations cached by an older one."""
    if not _GEN_HASH:
        import hashlib
        from pathlib import Path

        here = Path(__file__).parent
        h = hashlib.sha256()
        for f in ("equations.py", "codegen.py", "elements.py"):
            h.update((here / f).read_bytes())
        _GEN_HASH.append(h.hexdigest()[:16])
    return _GEN_HASH[0]


def collect(g: nx.MultiDiGraph, params: dict | None = None) -> Collected:
    """First phase of :func:`derive`: element relations, parameters checked.

    Assigns causality first if the graph has none.

    Parameters
    ----------
    g : networkx.MultiDiGraph
        A global graph.
    params : dict, optional
        As for :func:`derive`.

    Returns
    -------
    Collected

    Raises
    ------
    ParameterError
        A parameter breaks its rule, a symbol has no value, a value is given that no
        law uses (all listed).
    EquationError
        An element cannot write its law in its causality (all such elements listed).

    Examples
    --------
    See :class:`Collected`.
    """
    if not g.graph.get("causality"):
        report = assign_causality(g)
        g.graph["report"] = report
    report = g.graph.get("report") or assign_causality(g)
    g.graph["report"] = report
    d = _Deriver(g, params)
    name = g.graph.get("name", "?")

    # bond symbols and ports
    bvar: dict[str, tuple[sp.Symbol, sp.Symbol]] = {}
    ports: dict[str, dict[str, PortVars]] = {n: {} for n in g.nodes}
    for u, v, k, data in g.edges(keys=True, data=True):
        e, f = sp.Symbol(f"e[{k}]", real=True), sp.Symbol(f"f[{k}]", real=True)
        bvar[k] = (e, f)
        bond = data["bond"]
        eff = data["effort_to"]
        ports[u][bond.tail.name] = PortVars(bond.tail.name, k, e, f, -1, eff == u)
        ports[v][bond.head.name] = PortVars(bond.head.name, k, e, f, +1, eff == v)

    assigned: dict[str, sp.Expr] = {}
    owner: dict[str, str] = {}
    states: list[StateSpec] = []
    energy_sp: dict[str, sp.Expr] = {}
    problems: list[str] = []
    for n, el in g.nodes(data="element"):
        ctx = _Ctx(d, n)
        try:
            cons: Constitutive = el.equations(ports[n], ctx)
        except (EquationError, ParameterError) as exc:
            problems += exc.problems
            continue
        for var, expr in cons.outputs.items():
            if var.name in assigned:
                problems.append(f"{var.name} computed by both {owner[var.name]} and {n} "
                                "(internal causality error)")
            assigned[var.name] = sp.sympify(expr)
            owner[var.name] = n
        states += cons.states
        if cons.energy != 0:
            energy_sp[n] = cons.energy
    if problems:
        raise EquationError(problems, subject=f"model {name!r}")
    missing = [s.name for pair in bvar.values() for s in pair if s.name not in assigned]
    if missing:
        raise EquationError([f"{m}: no element computes it (internal causality error)"
                             for m in missing], subject=f"model {name!r}")

    # ---- classify symbols; check parameters
    state_names = [s.symbol.name for s in states]
    known = set(assigned) | set(state_names) | set(d.params) | set(d.dsyms) | set(d.inputs) | {"t"}
    unknown_syms: dict[str, str] = {}
    # in the order of first use, names of one law sorted (free_symbols is a set: hash order)
    for var, expr in assigned.items():
        for nm in sorted(s.name for s in expr.free_symbols if s.name not in known):
            unknown_syms.setdefault(nm, owner[var])
    for spec in states:
        for nm in sorted(s.name for s in spec.coeff.free_symbols | spec.rhs.free_symbols
                         if s.name not in known):
            unknown_syms.setdefault(nm, spec.element)
    for nm, el in list(unknown_syms.items()):
        if nm in d.user_params:
            d.params[nm] = d.user_params[nm]
            d.param_owner[nm] = "user"
            d.param_checks[nm] = FINITE
            del unknown_syms[nm]
    if unknown_syms:
        raise ParameterError([f"symbol {s!r} used by {el} has no value; pass params={{{s!r}: ...}}"
                              for s, el in sorted(unknown_syms.items())],
                             subject=f"model {name!r}")
    extra = sorted(set(d.user_params) - set(d.params))
    if extra:
        raise ParameterError([f"parameter {p!r} given but no law uses it" for p in extra],
                             subject=f"model {name!r}")
    d.expr_checks = [c for c in d.expr_checks if {s.name for s in c[1].free_symbols} <= set(d.params)]
    problems = [msg for msg in (expression_problem(c, d.params) for c in d.expr_checks) if msg]
    if problems:
        raise ParameterError(problems, subject=f"model {name!r}")

    roles = [f"{u}>{v}:{k}:{g.nodes[u]['element'].role.name}:{g.nodes[v]['element'].role.name}"
             for u, v, k in g.edges(keys=True)]
    return Collected(name, report, d, assigned, owner, states, energy_sp, roles)


def derive(g: nx.MultiDiGraph, params: dict | None = None, collected: "Collected | None" = None) -> Equations:
    """Generate the equations of a global bond graph.

    Parameters
    ----------
    g : networkx.MultiDiGraph
        Global graph; causality is assigned first if it is not yet.
    params : dict, optional
        Values of symbols used in laws that are not element parameters, states,
        inputs or ``t`` (name or symbol → number).
    collected : Collected, optional
        The result of :func:`collect` if already computed.

    Returns
    -------
    Equations

    Raises
    ------
    ParameterError
        A law uses a symbol with no value (all such symbols are listed).
    EquationError
        The system needs second derivatives (index > 2), or a coupled block is
        not affine in its unknowns.

    Examples
    --------
    >>> import sympy as sp
    >>> from bondgraph import BondGraph, Se, One, I, assemble, derive
    >>> bg = BondGraph("m")
    >>> _ = bg.add(Se("F", sp.Symbol("F0")), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> derive(assemble(bg))
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: model 'm': 1 problem
      - symbol 'F0' used by m/F has no value; pass params={'F0': ...}
    """
    col = collected if collected is not None else collect(g, params)
    report, d, name = col.report, col.d, col.name
    assigned, owner, states, energy_sp = col.assigned, col.owner, col.states, col.energy
    state_names = [s_.symbol.name for s_ in states]

    # ---- to symengine
    se_assigned = {}
    for k, v in assigned.items():
        try:
            se_assigned[k] = _to_se(v)
        except (se.SympifyError, TypeError, ValueError) as exc:
            raise EquationError(f"{owner[k]}: its relation for {k} cannot be compiled: {exc}",
                                subject=f"model {name!r}") from None
    bond_names = set(assigned)

    # ---- dependency graph (algebraic edges only) and tearing
    dep = nx.DiGraph()
    dep.add_nodes_from(assigned)  # the elements' order, not a set's: the topological order follows it
    for var, expr in se_assigned.items():
        for s in expr.free_symbols:
            if s.name in bond_names:
                dep.add_edge(s.name, var)
    tears = _tear(dep)
    order_graph = dep.copy()
    order_graph.remove_edges_from([(a, b) for a, b in dep.edges if b in tears])
    order = list(nx.topological_sort(order_graph))

    # ---- intermediates: one per bond variable, except aliases and tears
    resolved: dict[str, se.Basic] = {}
    inter: dict[str, se.Basic] = {}
    for var in order:
        if var in tears:
            resolved[var] = se.Symbol(var)
            continue
        expr = _resolve(se_assigned[var], resolved, bond_names)
        if _is_alias(expr):
            resolved[var] = expr
        else:
            inter[var] = expr
            resolved[var] = se.Symbol(var)
    tear_expr = {z: _resolve(se_assigned[z], resolved, bond_names) for z in tears}

    x_names = set(state_names)
    u_names = set(d.inputs)
    p_names = set(d.params)
    elem_d = dict(d.dsyms)  # element D-symbol name -> bond var name

    # ---- which tears are differential (stage B): they depend on element derivatives
    def symbols_of(expr):
        return {s.name for s in expr.free_symbols}

    diff_flag: dict[str, bool] = {}
    stage_b: set[str] = set()
    changed = True
    while changed:
        changed = False
        for v, ex in inter.items():
            names = symbols_of(ex)
            f = bool(names & set(elem_d)) or bool(names & stage_b) or any(diff_flag.get(n, False) for n in names)
            if diff_flag.get(v) != f:
                diff_flag[v] = f
                changed = True
        for z, ex in tear_expr.items():
            if z in stage_b:
                continue
            names = symbols_of(ex)
            if names & set(elem_d) or names & stage_b or any(diff_flag.get(n, False) for n in names):
                stage_b.add(z)
                changed = True
    stage_a = [z for z in sorted(tears) if z not in stage_b]
    stage_a_set = set(stage_a)

    # ---- time derivatives along the graph (one tangent per needed variable)
    need_d: dict[str, se.Basic] = {}
    need_zdot: set[str] = set()
    need_du: set[str] = set()
    pending: list[str] = []
    elem_repl: dict[se.Symbol, se.Basic] = {}

    def der(nm: str) -> se.Symbol:
        return se.Symbol(f"der({nm})")

    def tangent(expr: se.Basic, what: str) -> se.Basic:
        out = se.diff(expr, _T)
        for s in expr.free_symbols:
            nm = s.name
            if nm in p_names or nm == "t":
                continue
            part = se.diff(expr, s)
            if part == 0:
                continue
            if nm in x_names:
                out += part * der(nm)
            elif nm in inter:
                if diff_flag.get(nm):
                    raise _index_error(what, nm, name)
                out += part * se.Symbol(f"D({nm})")
                if nm not in need_d:
                    need_d[nm] = None
                    pending.append(nm)
            elif nm in stage_a_set:
                out += part * der(nm)
                need_zdot.add(nm)
            elif nm in u_names:
                out += part * der(nm)
                need_du.add(nm)
            else:
                raise _index_error(what, nm, name)
        return out

    for dn, var in elem_d.items():
        elem_repl[se.Symbol(dn)] = tangent(resolved[var], f"dependent storage on {var}")
    zdot_rows: dict[str, se.Basic] = {}
    while True:
        while pending:
            nm = pending.pop()
            need_d[nm] = tangent(inter[nm], f"variable {nm}")
        new = [z for z in sorted(need_zdot) if z not in zdot_rows]
        if not new:
            break
        for z in new:
            zdot_rows[z] = der(z) - tangent(tear_expr[z], f"loop variable {z}")

    def no_d(expr: se.Basic) -> se.Basic:
        local = {q: elem_repl[q] for q in expr.free_symbols if q in elem_repl}
        return expr.subs(local) if local else expr

    # final intermediates (values and derivatives), topologically ordered
    defs: dict[str, se.Basic] = {v: no_d(ex) for v, ex in inter.items()}
    for nm, ex in need_d.items():
        defs[f"D({nm})"] = ex
    g2 = nx.DiGraph()
    g2.add_nodes_from(defs)
    for v, ex in defs.items():
        for s in ex.free_symbols:
            if s.name in defs:
                g2.add_edge(s.name, v)
    try:
        inter_order = list(nx.topological_sort(g2))
    except nx.NetworkXUnfeasible:
        cyc = nx.find_cycle(g2)
        raise EquationError(f"variables {', '.join(a for a, _ in cyc)} depend on their own time "
                            "derivative (index > 2); make a storage element on this path "
                            "independent", subject=f"model {name!r}") from None
    intermediates = [(v, defs[v]) for v in inter_order]

    # ---- unknowns and residuals
    unknowns: list[str] = []
    kinds: list[str] = []
    residuals: list[se.Basic] = []
    xdot_idx = []
    for spec in states:
        nm = spec.symbol.name
        coeff = _to_se(spec.coeff)
        rhs = _resolve(_to_se(spec.rhs), resolved, bond_names)
        xdot_idx.append(len(unknowns))
        unknowns.append(f"der({nm})")
        kinds.append("der(x)")
        residuals.append(coeff * der(nm) - no_d(rhs))
    for z in stage_a:
        unknowns.append(z)
        kinds.append("z")
        residuals.append(se.Symbol(z) - tear_expr[z])
    for z in sorted(zdot_rows):
        unknowns.append(f"der({z})")
        kinds.append("der(z)")
        residuals.append(zdot_rows[z])
    for z in sorted(stage_b):
        unknowns.append(z)
        kinds.append("z")
        residuals.append(se.Symbol(z) - no_d(tear_expr[z]))

    deps = _dependencies(intermediates, unknowns)
    blocks = _blt(unknowns, kinds, residuals, intermediates, deps, name)

    bond_exprs = {var: no_d(resolved[var]) for var in assigned}
    energy = {n: no_d(_resolve(_to_se(e), resolved, bond_names)) for n, e in energy_sp.items()}
    source_power, dissipation = {}, {}
    for u, v, k in g.edges(keys=True):
        eu, ev = g.nodes[u]["element"], g.nodes[v]["element"]
        pw = bond_exprs[f"e[{k}]"] * bond_exprs[f"f[{k}]"]
        if eu.role in (Role.EFFORT_SOURCE, Role.FLOW_SOURCE):
            source_power[k] = pw
        if ev.role is Role.RESISTOR:
            dissipation[k] = pw

    parametric: dict[str, se.Basic] = {}
    for spec in states:
        coeff = _to_se(spec.coeff)
        if spec.kind in ("flow", "effort") and any(q.name in x_names or q.name in u_names or q.name == "t"
                                                  for q in coeff.free_symbols):
            y = se.Symbol(spec.symbol.name)
            parametric[spec.symbol.name] = no_d(tangent(coeff, f"coefficient of {spec.element}")) * y**2 / 2
    state_info = [StateInfo(s.symbol.name, s.element, s.kind, d.state_initial.get(s.symbol.name, 0.0))
                  for s in states]
    inputs = sorted(d.inputs)
    divisors = _divisors(col, g, x_names, u_names, p_names, unknowns, residuals, blocks,
                         intermediates, deps, [s_.element for s_ in states])
    return Equations(
        model=name, report=report, states=state_info, params=dict(d.params),
        param_owner=dict(d.param_owner), inputs=inputs,
        input_derivatives=sorted(need_du), unknowns=unknowns, unknown_kind=kinds,
        residuals=residuals, blocks=blocks, xdot=xdot_idx, bond_exprs=bond_exprs,
        energy=energy, source_power=source_power, dissipation=dissipation, parametric=parametric,
        intermediates=intermediates, deps=deps, divisors=divisors,
        param_checks=dict(d.param_checks), expr_checks=list(d.expr_checks))


def _divisors(col, g, x_names, u_names, p_names, unknowns, residuals, blocks, intermediates,
              deps, state_elements) -> list[Divisor]:
    """What the equations divide by that can vanish during a run.

    * **moduli**: every base ``b`` of a negative power ``b**(−k)`` in an element's
      relations that depends on states, inputs or ``t`` and on none of the bond
      variables (a nonlinear law of its own port variables, e.g. ``Δp/√(Δp² + δ²)``, is
      the law, not a modulus): a transformer or gyrator in its dividing causality
      (``e2 = e1/n(θ)``), a modulated resistance ``f = e/r(x)``, a momentum state over a
      varying mass;
    * **blocks**: each coupled block, and each single-unknown block whose coefficient
      varies (it reads dependent storage or a state-dependent coefficient).
    """
    varying = x_names | u_names | {"t"}
    out: list[Divisor] = []
    seen: set[tuple[str, str]] = set()
    sources = [(col.owner[v], ex) for v, ex in col.assigned.items()]
    sources += [(s_.element, s_.rhs) for s_ in col.states]
    for el, ex in sources:
        if not isinstance(ex, sp.Basic):
            continue
        found = []
        for pw in ex.atoms(sp.Pow):
            base, expo = pw.args
            if not (expo.is_number and expo.is_negative):
                continue
            names = {q.name for q in base.free_symbols}
            if not names & varying or any(n.startswith(("e[", "f[", "D(")) for n in names):
                continue
            key = (el, sp.srepr(base))
            if key not in seen:
                seen.add(key)
                found.append((key[1], base))
        for _, base in sorted(found, key=lambda kb: kb[0]):  # atoms() is a set: hash order
            kind = g.nodes[el]["element"].kind if el in g.nodes else "element"
            what = "modulus" if _divides_by_modulus(g, el) else "divisor"
            text = str(base)
            text = text if len(text) <= 80 else text[:77] + "…"
            out.append(Divisor("modulus", f"{kind} {el!r} {what} (divides by {text})", (el,),
                               expr=_to_se(base)))
    owner = col.owner
    defs = dict(intermediates)
    for bi, b in enumerate(blocks):
        mset = set(b.unknowns)
        # intermediates the block's rows read that move with its unknowns (dependent storage)
        inner: set[str] = set()
        stack = [q.name for i in b.unknowns for q in residuals[i].free_symbols]
        while stack:
            nm = stack.pop()
            if nm in inner or nm not in defs or not (deps.get(nm, frozenset()) & mset):
                continue
            inner.add(nm)
            stack += [q.name for q in defs[nm].free_symbols]
        names = tuple(unknowns[i] for i in b.unknowns)
        els = {state_elements[i] for i in b.unknowns if i < len(state_elements)}
        els |= {owner[v] for v in inner if v in owner}
        els |= {owner[unknowns[i]] for i in b.unknowns if unknowns[i] in owner}
        if len(b.unknowns) == 1:
            i = b.unknowns[0]
            direct = se.diff(residuals[i], se.Symbol(unknowns[i]))
            if not inner and all(q.name in p_names for q in direct.free_symbols):
                continue  # a constant coefficient (m·v̇ = …)
            label = f"coefficient of {names[0]} (elements {', '.join(sorted(els))})"
        else:
            label = (f"coupled block of {', '.join(names)} (elements {', '.join(sorted(els))})")
        out.append(Divisor("block", label, tuple(sorted(els)), block=bi, unknowns=names))
    return out


def _divides_by_modulus(g, el: str) -> bool:
    """A transformer or gyrator whose port 1 receives the effort divides by its modulus."""
    if el not in g.nodes or g.nodes[el]["element"].role not in (Role.TRANSFORMER, Role.GYRATOR):
        return False
    for u, v, data in list(g.in_edges(el, data=True)) + list(g.out_edges(el, data=True)):
        port = data["bond"].head if v == el else data["bond"].tail
        if port.name == "1":
            return data["effort_to"] == el
    return False


def _index_error(what: str, nm: str, model: str) -> EquationError:
    return EquationError(
        f"{what}: its time derivative needs that of {nm}, which itself comes from a dependent "
        "storage element (a second derivative, index > 2); make one of the storage elements "
        "on this path independent, e.g. insert a compliance", subject=f"model {model!r}")


def _resolve(expr: se.Basic, resolved: dict, bond_names: set) -> se.Basic:
    rep = {s: resolved[s.name] for s in expr.free_symbols if s.name in bond_names}
    return expr.subs(rep) if rep else expr


def _is_alias(expr: se.Basic) -> bool:
    """A bond variable that is just another one (or a constant) needs no variable."""
    if isinstance(expr, (se.Symbol, se.Number)) or not expr.free_symbols:
        return True
    if isinstance(expr, se.Mul) and len(expr.args) == 2:
        a, b = expr.args
        return (isinstance(a, se.Number) and isinstance(b, se.Symbol)) or \
            (isinstance(b, se.Number) and isinstance(a, se.Symbol))
    return False


def _dependencies(intermediates, unknowns) -> dict[str, frozenset]:
    """For each intermediate, the set of unknown indices it depends on."""
    uidx = {u: i for i, u in enumerate(unknowns)}
    deps: dict[str, frozenset] = {}
    for v, ex in intermediates:
        acc: set[int] = set()
        for s in ex.free_symbols:
            nm = s.name
            if nm in uidx:
                acc.add(uidx[nm])
            elif nm in deps:
                acc |= deps[nm]
        deps[v] = frozenset(acc)
    return deps


def _expr_deps(expr, uidx, deps) -> set[int]:
    acc: set[int] = set()
    for s in expr.free_symbols:
        nm = s.name
        if nm in uidx:
            acc.add(uidx[nm])
        elif nm in deps:
            acc |= deps[nm]
    return acc


def _element_of(var: str, g, ports) -> str:
    bond = var[2:-1]
    for u, v, k in g.edges(keys=True):
        if k == bond:
            return f"on bond {bond} ({u} → {v})"
    return var


def _full_of(expr: se.Basic, full: dict, bond_names: set) -> se.Basic:
    rep = {s: full[s.name] for s in expr.free_symbols if s.name in bond_names}
    return expr.subs(rep) if rep else expr


def _tear(dep: nx.DiGraph) -> set[str]:
    """Choose tearing variables so that the dependency graph becomes acyclic."""
    tears: set[str] = set()
    work = dep.copy()
    while True:
        cyclic = [c for c in nx.strongly_connected_components(work)
                  if len(c) > 1 or any(work.has_edge(n, n) for n in c)]
        if not cyclic:
            return tears
        for comp in cyclic:
            sub = work.subgraph(comp)
            # prefer variables many loop members read (high out-degree), then flows
            best = max(sorted(comp), key=lambda n: (sub.out_degree(n) * sub.in_degree(n),
                                                    n.startswith("f["), n))
            tears.add(best)
            work.remove_edges_from(list(work.in_edges(best)))


def _blt(unknowns, kinds, residuals, intermediates, deps, model) -> list[Block]:
    uidx = {u: i for i, u in enumerate(unknowns)}
    dg = nx.DiGraph()
    dg.add_nodes_from(range(len(unknowns)))
    row_deps = []
    for i, r in enumerate(residuals):
        rd = _expr_deps(r, uidx, deps)
        row_deps.append(rd)
        for j in rd:
            if j != i:
                dg.add_edge(j, i)
    cond = nx.condensation(dg)
    defs = dict(intermediates)
    blocks = []
    problems = []
    for c in nx.topological_sort(cond):
        members = tuple(sorted(cond.nodes[c]["members"]))
        mset = set(members)
        affine = _affine(members, residuals, defs, deps, unknowns)
        if not affine and any(kinds[i] != "z" for i in members):
            problems.append(
                "unknowns " + ", ".join(unknowns[i] for i in members) +
                " are coupled nonlinearly with state derivatives; expected a linear "
                "dependence (use linear laws on the dependent path or insert a compliance)")
        blocks.append(Block(members, affine))
        del mset
    if problems:
        raise EquationError(problems, subject=f"model {model!r}")
    return blocks


def _no_zero_switches(ex: se.Basic) -> se.Basic:
    """``ex`` with every Piecewise whose branches are all 0 replaced by 0.

    symengine differentiates a switch that does not contain the variable into
    ``Piecewise((0, c), (0, True))``, which still carries its condition's symbols; left in
    place it made a coefficient that depends on its own state through a switch (a chamber
    with entrained air, ``V/β(p)·ṗ``) look nonlinear in ``ṗ``.

    Examples
    --------
    >>> x, y = se.symbols("x y")
    >>> d = se.diff(se.Piecewise((x**2, x > 1), (3, True)) * y, y)
    >>> d
    y*Piecewise((0, 1 < x), (0, True)) + Piecewise((x**2, 1 < x), (3, True))
    >>> _no_zero_switches(d)
    Piecewise((x**2, 1 < x), (3, True))
    """
    for _ in range(8):  # nested switches collapse from the inside out
        zero = {pw: se.Integer(0) for pw in ex.atoms(se.Piecewise)
                if all(a == 0 for a in pw.args[::2])}
        if not zero:
            break
        ex = ex.subs(zero)
    return ex


def _affine(members, residuals, defs, deps, unknowns) -> bool:
    """Are the block's residuals affine in its unknowns (through the intermediates)?"""
    mset = set(members)
    names = {unknowns[i] for i in members}

    def hits(sym_name: str) -> bool:
        return sym_name in names or bool(deps.get(sym_name, frozenset()) & mset)

    memo: dict[str, bool] = {}

    def affine_expr(ex) -> bool:
        moving = [s for s in ex.free_symbols if hits(s.name)]
        for s in moving:
            if s.name in defs and not affine_var(s.name):
                return False
            d = _no_zero_switches(se.diff(ex, s))
            if any(hits(q.name) for q in d.free_symbols):
                return False
        return True

    def affine_var(v: str) -> bool:
        if v not in memo:
            memo[v] = True  # provisional (acyclic anyway)
            memo[v] = affine_expr(defs[v])
        return memo[v]

    return all(affine_expr(residuals[i]) for i in members)
