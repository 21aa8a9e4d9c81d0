"""Modelica source text of a bond graph: one block of equations per element.

:func:`to_modelica` walks the global graph and asks every element for its own
constitutive law through the same narrow hook the equation generator uses
(:meth:`~bondgraph.elements.Element.equations`); nothing is re-derived and no
law is written twice. Modelica is acausal, so the text is too:

* every bond has two variables, its effort ``e_<bond>`` and flow ``f_<bond>``;
* a storage element gives one equation in its natural form
  (``m*der(f) = e`` for an inertia, ``c*der(e) = f`` for a compliance),
  whatever causality it got in the graph — a dependent inertia is left to the
  Modelica tool's index reduction, which is its job;
* transformers and gyrators are written in the canonical form
  ``e1 = n*e2, f2 = n*f1`` (``e1 = r*f2, e2 = r*f1``), and linear resistors as
  ``e = r*f``: no division by a modulus that may pass through zero;
* junctions, sources and nonlinear resistors in the causality the graph gave
  them (the same relations either way);
* junction displacements (a body angle) are states ``der(theta) = f``.

Element parameters become Modelica ``parameter``\\ s, with units when the
caller says which (``units=``); their values are the model's current ones.
Names follow the hierarchy with ``/`` and ``.`` turned into ``_`` and the
model's own name dropped (``boom/m_x.m`` → ``boom_m_x_m``); the mapping is
kept in :attr:`ModelicaModel.names` so results can be read back by our names.

:class:`ModelicaWriter` is the small text builder the exporters share (the
Cartesian multibody export of :mod:`mechanisms.formulations` uses it too), and
:func:`simulate_rumoca` runs an export with the ``rumoca`` compiler (PyPI,
optional: the ``modelica`` extra).

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R
>>> bg = BondGraph("drag")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 4.0, initial=1.0), R("b", 1.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> mo = to_modelica(bg, units={"m": "kg", "b": "N.s/m", "F": "N"})
>>> print(mo.text)
model drag "bond graph of drag, exported by hydrobond"
  // parameters
  parameter Real F_e(unit="N") = 2.0 "F: e";
  parameter Real m_m(unit="kg") = 4.0 "m: m";
  parameter Real b_r(unit="N.s/m") = 1.0 "b: r";
  // bond variables: effort e_<bond>, flow f_<bond>
  Real e_F "effort of F -> v";
  Real f_F "flow of F -> v";
  Real e_m "effort of v -> m";
  Real f_m(start=1.0, fixed=true) "flow of v -> m";
  Real e_b "effort of v -> b";
  Real f_b "flow of v -> b";
equation
  // F: Se
  e_F = F_e;
  // v: 1
  f_F = f_m;
  f_b = f_m;
  e_m = e_F - e_b;
  // m: I (integral causality)
  m_m*der(f_m) = e_m;
  // b: R
  e_b = b_r*f_b;
end drag;
<BLANKLINE>
>>> mo.n_variables, mo.n_equations
(6, 6)
"""

from __future__ import annotations

import keyword
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import networkx as nx
import sympy as sp
from sympy.printing.str import StrPrinter

from ..causality import assign_causality
from ..elements import Constitutive, PortVars, Role, t as T
from ..equations import _Ctx, _Deriver
from ..errors import ModelStructureError, ParameterError, SimulationError
from ..graph import BondGraph, assemble

__all__ = ["ModelicaModel", "ModelicaWriter", "modelica_identifier", "class_name_problem",
           "formula_problem", "to_modelica", "simulate_rumoca"]

_RESERVED = {
    "algorithm", "and", "annotation", "block", "break", "class", "connect", "connector",
    "constant", "constrainedby", "der", "discrete", "each", "else", "elseif", "elsewhen",
    "encapsulated", "end", "enumeration", "equation", "expandable", "extends", "external",
    "false", "final", "flow", "for", "function", "if", "import", "impure", "in", "initial",
    "inner", "input", "loop", "model", "not", "operator", "or", "outer", "output", "package",
    "parameter", "partial", "protected", "public", "pure", "record", "redeclare",
    "replaceable", "return", "stream", "then", "time", "true", "type", "when", "while",
    "within", "Real", "Integer", "Boolean", "String", "sin", "cos", "tan", "sqrt", "exp",
    "log", "abs", "sign", "min", "max", "atan2",
}


def modelica_identifier(name: str, model: str | None = None) -> str:
    """A readable Modelica identifier for one of our hierarchical names.

    The model prefix is dropped, ``/ . [ ] ( )`` and other separators become
    ``_``, and a name that would clash with a Modelica keyword or start with
    a digit gets a suffix or prefix.

    Parameters
    ----------
    name : str
        Our name (a path, a state, a bond variable ``e[...]``).
    model : str, optional
        The model's name, dropped from the front.

    Returns
    -------
    str

    Examples
    --------
    >>> modelica_identifier("four_bar/crank/w.theta", model="four_bar")
    'crank_w_theta'
    >>> modelica_identifier("e[lift/boom/b12]", model="lift")
    'e_boom_b12'
    >>> modelica_identifier("der")
    'der_'
    """
    s = str(name)
    m = re.fullmatch(r"([ef])\[(.*)\]", s)
    if m:
        return f"{m.group(1)}_{modelica_identifier(m.group(2), model)}"
    if model and s.startswith(model + "/"):
        s = s[len(model) + 1:]
    s = re.sub(r"[^A-Za-z0-9_]+", "_", s).strip("_") or "v"
    if s[0].isdigit():
        s = "v_" + s
    if s in _RESERVED or keyword.iskeyword(s):
        s += "_"
    return s


class _Printer(StrPrinter):
    """sympy → Modelica expression text."""

    _FUNCS = {"sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
              "atan": "atan", "atan2": "atan2", "exp": "exp", "log": "log", "sinh": "sinh",
              "cosh": "cosh", "tanh": "tanh", "Abs": "abs", "sign": "sign", "sqrt": "sqrt"}

    def __init__(self, lookup: Callable[[str], str], is_parameter: Callable[[str], bool]):
        super().__init__({"full_prec": True, "order": "none"})
        self._lookup = lookup
        self._is_parameter = is_parameter

    def _rank(self, factor) -> int:
        """Numbers, then parameters, then the rest: ``m*der(v)``, ``r*f``."""
        if factor.is_Number:
            return 0
        names = factor.free_symbols
        if names and all(self._is_parameter(q.name) for q in names):
            return 1
        return 2

    def _print_Mul(self, expr):
        args = sorted(expr.args, key=self._rank)
        return super()._print_Mul(sp.Mul(*args, evaluate=False))

    def _print_MinMaxBase(self, expr):
        fn = type(expr).__name__.lower()
        args = [self._print(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = f"{fn}({out}, {a})"
        return out

    _print_Min = _print_MinMaxBase
    _print_Max = _print_MinMaxBase

    def _print_Symbol(self, expr):
        if expr == T:
            return "time"
        nm = expr.name
        depth = 0
        while nm.startswith("D(") and nm.endswith(")"):
            nm, depth = nm[2:-1], depth + 1
        return "der(" * depth + self._lookup(nm) + ")" * depth

    _print_Dummy = _print_Symbol

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Rational(self, expr):
        return f"({float(expr.p)!r}/{float(expr.q)!r})"

    def _print_Integer(self, expr):
        return f"{int(expr)}"

    def _print_Pow(self, expr, rational=False):
        b, e = expr.args
        if e == sp.S.Half:
            return f"sqrt({self._print(b)})"
        if e == -sp.S.Half:
            return f"1/sqrt({self._print(b)})"
        if e == -1:
            return f"1/({self._print(b)})"
        return f"({self._print(b)})^({self._print(e)})"

    def _print_Function(self, expr):
        fn = type(expr).__name__
        if fn in self._FUNCS:
            return f"{self._FUNCS[fn]}({', '.join(self._print(a) for a in expr.args)})"
        if fn == "Heaviside":
            return f"(if {self._print(expr.args[0])} > 0 then 1.0 else 0.0)"
        raise ModelStructureError(f"function {fn} in {expr}: no Modelica equivalent known; "
                                  "expected elementary functions, min/max, abs, sign, Piecewise")

    def _print_Piecewise(self, expr):
        parts = []
        for i, (val, cond) in enumerate(expr.args):
            if cond == sp.true:
                parts.append(f"else {self._print(val)}")
                break
            parts.append(f"{'if' if i == 0 else 'elseif'} {self._print(cond)} then {self._print(val)}")
        else:
            parts.append("else 0.0")
        return "(" + " ".join(parts) + ")"

    def _print_Relational(self, expr):
        op = {"==": "==", "!=": "<>"}.get(expr.rel_op, expr.rel_op)
        return f"{self._print(expr.lhs)} {op} {self._print(expr.rhs)}"

    def _print_And(self, expr):
        return " and ".join(f"({self._print(a)})" for a in expr.args)

    def _print_Or(self, expr):
        return " or ".join(f"({self._print(a)})" for a in expr.args)

    def _print_Not(self, expr):
        return f"not ({self._print(expr.args[0])})"

    def _print_BooleanTrue(self, expr):
        return "true"

    def _print_BooleanFalse(self, expr):
        return "false"

    def _print_Exp1(self, expr):
        return repr(math.e)

    def _print_Pi(self, expr):
        return repr(math.pi)


@dataclass(frozen=True)
class ModelicaModel:
    """Modelica source of one model, and how its names map to ours.

    Attributes
    ----------
    name : str
        Modelica class name.
    text : str
        The source (one ``model ... end name;``).
    names : dict
        Our name (state, bond variable ``e[...]``/``f[...]``, parameter, input)
        → Modelica identifier.
    n_variables, n_equations, n_parameters : int
        Unknown scalar variables, scalar equations (they balance) and parameters.
    states : tuple of str
        Our names of the variables given a fixed start value.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I
    >>> bg = BondGraph("push")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 4.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> mo = to_modelica(bg)
    >>> mo.names["push/m.f"], mo.names["push/m.m"], mo.states
    ('f_m', 'm_m', ('f[push/b2]',))
    """

    name: str
    text: str
    names: dict[str, str]
    n_variables: int
    n_equations: int
    n_parameters: int
    states: tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        return self.text

    def write(self, path: str | Path) -> Path:
        """Write ``<name>.mo`` (or to the given file); returns the path.

        Parameters
        ----------
        path : str or pathlib.Path
            A folder (the file is ``<name>.mo`` in it) or a file name.

        Returns
        -------
        pathlib.Path

        Raises
        ------
        ParameterError
            The file cannot be written.

        Examples
        --------
        >>> import tempfile
        >>> p = ModelicaWriter("empty").render().write(tempfile.mkdtemp())
        >>> p.name, p.read_text().splitlines()[0]
        ('empty.mo', 'model empty')
        """
        from ..files import atomic_write

        p = Path(path)
        if p.is_dir():
            p = p / f"{self.name}.mo"
        return atomic_write(p, self.text)


class ModelicaWriter:
    """Builds the text of one Modelica model: declarations, then equations.

    Our names are mapped to unique identifiers on first use
    (:meth:`identifier`); expressions are sympy, their symbols named by our
    names (``D(x)`` stands for ``der(x)``, :data:`bondgraph.t` for ``time``).

    Parameters
    ----------
    name : str
        The Modelica class name (made an identifier).
    description : str, optional
        The class's description string.
    model : str, optional
        Our model name, dropped from identifiers.

    Examples
    --------
    >>> import sympy as sp
    >>> w = ModelicaWriter("osc")
    >>> k = w.parameter("k", 4.0, unit="N/m")
    >>> x = w.variable("x", start=1.0, fixed=True, unit="m")
    >>> v = w.variable("v", start=0.0, fixed=True, unit="m/s")
    >>> w.equation(sp.Symbol("D(x)"), sp.Symbol("v"))
    >>> w.equation(sp.Symbol("D(v)"), -sp.Symbol("k") * sp.Symbol("x"))
    >>> print(w.render().text)
    model osc
      parameter Real k(unit="N/m") = 4.0;
      Real x(unit="m", start=1.0, fixed=true);
      Real v(unit="m/s", start=0.0, fixed=true);
    equation
      der(x) = v;
      der(v) = -k*x;
    end osc;
    """

    def __init__(self, name: str, description: str | None = None, model: str | None = None):
        self.name = modelica_identifier(name)
        self.description = description
        self.model = model
        self.names: dict[str, str] = {}
        self._used: set[str] = set()
        self._decl: list[str] = []
        self._eqs: list[str] = []
        self.n_variables = 0
        self.n_equations = 0
        self.n_parameters = 0
        self.fixed: list[str] = []
        self._params: set[str] = set()
        self._printer = _Printer(self._lookup, self._params.__contains__)

    # ------------------------------------------------------------------ names
    def identifier(self, ours: str, label: str | None = None) -> str:
        """The identifier of one of our names (allocated on first use, unique).

        ``label``, if given, is the readable name to build it from instead.

        Returns
        -------
        str

        Parameters
        ----------
        ours : str
        label : str, optional

        Examples
        --------
        >>> w = ModelicaWriter("m")
        >>> w.identifier("a/x"), w.identifier("a.x"), w.identifier("a/x")
        ('a_x', 'a_x_2', 'a_x')
        """
        if ours in self.names:
            return self.names[ours]
        base = modelica_identifier(label or ours, self.model)
        ident, i = base, 2
        while ident in self._used or ident == self.name:
            ident, i = f"{base}_{i}", i + 1
        self._used.add(ident)
        self.names[ours] = ident
        return ident

    def alias(self, ours: str, text: str, parameter: bool = False) -> None:
        """Print our name ``ours`` as ``text`` (e.g. a matrix element ``M[1, 1]``).

        Parameters
        ----------
        ours : str
        text : str
            Modelica text printed wherever the symbol ``ours`` appears.
        parameter : bool
            It is a parameter (for the printer's bookkeeping).
        """
        self.names[ours] = text
        if parameter:
            self._params.add(ours)

    def _lookup(self, ours: str) -> str:
        if ours not in self.names:
            raise ModelStructureError(f"{self.name}: symbol {ours!r} is used in an equation "
                                      "but was never declared (internal export error)")
        return self.names[ours]

    # ------------------------------------------------------------------ declarations
    def section(self, title: str) -> None:
        """A comment line among the declarations.

        Parameters
        ----------
        title : str
        """
        self._decl.append(f"  // {title}")

    def parameter(self, ours: str, value: float, *, unit: str | None = None,
                  comment: str | None = None) -> str:
        """Declare ``parameter Real`` for our name; returns its identifier.

        Parameters
        ----------
        ours : str
        value : float
        unit : str, optional
            Modelica unit string (``"N/m"``).
        comment : str, optional

        Returns
        -------
        str
        """
        ident = self.identifier(ours)
        self._params.add(ours)
        attrs = f'(unit="{unit}")' if unit else ""
        self._decl.append(f"  parameter Real {ident}{attrs} = {float(value)!r}{_comment(comment)};")
        self.n_parameters += 1
        return ident

    def variable(self, ours: str, *, start: float | None = None, fixed: bool | None = None,
                 unit: str | None = None, comment: str | None = None,
                 prefix: str = "", label: str | None = None) -> str:
        """Declare an unknown ``Real`` (``prefix="input "``: an external input).

        ``label``: a readable name to build the identifier from (default ``ours``).

        Parameters
        ----------
        ours : str
        start : float, optional
        fixed : bool, optional
            A fixed start value (a state's initial condition).
        unit, comment : str, optional
        prefix : str
            ``"input "`` for an input (not counted as an unknown).
        label : str, optional

        Returns
        -------
        str
        """
        ident = self.identifier(ours, label)
        attrs = []
        if unit:
            attrs.append(f'unit="{unit}"')
        if start is not None:
            attrs.append(f"start={float(start)!r}")
        if fixed is not None:
            attrs.append(f"fixed={'true' if fixed else 'false'}")
            if fixed:
                self.fixed.append(ours)
        a = f"({', '.join(attrs)})" if attrs else ""
        self._decl.append(f"  {prefix}Real {ident}{a}{_comment(comment)};")
        if not prefix.strip():
            self.n_variables += 1
        return ident

    def matrix_parameter(self, ours: str, rows: list[list[float]], *, unit: str | None = None,
                         comment: str | None = None) -> str:
        """Declare a ``parameter Real name[n, m]`` matrix (counts n·m parameters).

        Parameters
        ----------
        ours : str
        rows : list of list of float
        unit, comment : str, optional

        Returns
        -------
        str

        Examples
        --------
        >>> w = ModelicaWriter("m")
        >>> w.matrix_parameter("M", [[1.0, 0.0], [0.0, 2.0]])
        'M'
        >>> w.render().text.splitlines()[1], w.n_parameters
        ('  parameter Real M[2, 2] = [1.0, 0.0; 0.0, 2.0];', 4)
        """
        ident = self.identifier(ours)
        self._params.add(ours)
        n, m = len(rows), len(rows[0])
        body = "; ".join(", ".join(repr(float(v)) for v in r) for r in rows)
        attrs = f'(each unit="{unit}")' if unit else ""
        self._decl.append(f"  parameter Real {ident}[{n}, {m}]{attrs} = [{body}]{_comment(comment)};")
        self.n_parameters += n * m
        return ident

    # ------------------------------------------------------------------ equations
    def comment(self, text: str) -> None:
        """A comment line among the equations.

        Parameters
        ----------
        text : str
        """
        self._eqs.append(f"  // {text}")

    def expr(self, e: Any) -> str:
        """Modelica text of a sympy expression (or a number).

        Parameters
        ----------
        e : object

        Returns
        -------
        str

        Raises
        ------
        ModelStructureError
            A symbol never declared, or a function Modelica lacks.

        Examples
        --------
        >>> import sympy as sp
        >>> from bondgraph import t
        >>> w = ModelicaWriter("m")
        >>> _ = w.parameter("k", 2.0)
        >>> w.expr(sp.Symbol("k") * sp.sin(t))
        'k*sin(time)'
        """
        return self._printer.doprint(sp.sympify(e))

    def equation(self, lhs: Any, rhs: Any, n: int = 1) -> None:
        """``lhs = rhs`` (``n`` scalar equations if it is an array equation).

        Parameters
        ----------
        lhs, rhs : sympy expression, number or str
            A string is written as it is.
        n : int
            Scalar equations it counts for.
        """
        left = lhs if isinstance(lhs, str) else self.expr(lhs)
        right = rhs if isinstance(rhs, str) else self.expr(rhs)
        self._eqs.append(f"  {left} = {right};")
        self.n_equations += n

    def render(self) -> ModelicaModel:
        """The finished model.

        Returns
        -------
        ModelicaModel
        """
        head = f"model {self.name}" + (f" {_string(self.description)}" if self.description else "")
        text = "\n".join([head, *self._decl, "equation", *self._eqs, f"end {self.name};", ""])
        return ModelicaModel(self.name, text, dict(self.names), self.n_variables,
                             self.n_equations, self.n_parameters, tuple(self.fixed))


def _comment(text: str | None) -> str:
    if not text:
        return ""
    return " " + _string(text)


def _string(text: Any) -> str:
    """A Modelica string literal (backslashes and quotes escaped)."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------------- bond graphs
def _unit_function(units) -> Callable[[str, str, Any], str | None]:
    if units is None:
        return lambda node, key, el: None
    if callable(units):
        return units
    table = dict(units)

    def lookup(node: str, key: str, el: Any) -> str | None:
        local = node.split("/", 1)[1] if "/" in node else node
        for cand in (f"{local}.{key}", local, f"{el.kind}.{key}", el.kind):
            if cand in table:
                return table[cand]
        return None
    return lookup


def _graph_of(source) -> tuple[nx.MultiDiGraph, dict[str, float], dict[str, float]]:
    """(causal global graph, current parameter values, current state initial values)."""
    values: dict[str, float] = {}
    initial: dict[str, float] = {}
    if isinstance(source, BondGraph):
        g = assemble(source)
    elif isinstance(source, nx.MultiDiGraph):
        g = source
    elif hasattr(source, "graph") and hasattr(source, "equations"):  # a built Model
        g = source.graph
        values = dict(source.params)
        initial = {s.name: s.initial for s in source.equations.states}
    else:
        raise ModelStructureError(f"to_modelica: got {type(source).__name__}; expected a "
                                  "BondGraph, an assembled graph or a built Model")
    if not g.graph.get("causality"):
        g.graph["report"] = assign_causality(g)
    return g, values, initial


def to_modelica(source, *, name: str | None = None, inputs: Mapping[str, Any] | None = None,
                start: Mapping[str, float] | None = None,
                units: Mapping[str, str] | Callable[[str, str, Any], str | None] | None = None,
                params: Mapping[str, float] | None = None,
                description: str | None = None) -> ModelicaModel:
    """Modelica source of a bond-graph model, one block of equations per element.

    Parameters
    ----------
    source : BondGraph, networkx.MultiDiGraph or Model
        The model; a built :class:`~bondgraph.Model` contributes its current
        parameter values and initial states.
    name : str, optional
        Modelica class name (default: the model's name).
    inputs : dict, optional
        Input name → number or sympy expression of :data:`bondgraph.t`; each
        becomes an equation. Inputs not given are declared ``input Real``.
    start : dict, optional
        Start values of states by our state name (like ``simulate``'s ``x0``).
    units : dict or callable, optional
        Units of element parameters: a dict keyed by ``"element.key"``,
        ``"element"``, ``"kind.key"`` or ``"kind"`` (element paths without the
        model name, e.g. ``{"boom/m_x": "kg", "C": "m/N"}``), or a callable
        ``(node, key, element) -> unit``.
    params : dict, optional
        Values of parameters by our name (element ``"node.key"`` or free
        symbols used in laws).
    description : str, optional
        The model's description string.

    Returns
    -------
    ModelicaModel

    Raises
    ------
    ModelStructureError
        The graph is malformed, or a law uses a function Modelica lacks.
    ParameterError
        A start value names no state, or a law uses a symbol with no value.

    Examples
    --------
    >>> from bondgraph import BondGraph, MSe, One, I, Input, t
    >>> bg = BondGraph("cart")
    >>> _ = bg.add(MSe("F", Input("force")), One("v"), I("m", 2.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> mo = to_modelica(bg, inputs={"force": 3 * t})
    >>> [line.strip() for line in mo.text.splitlines() if "force" in line]
    ['Real force "input force";', 'e_F = force;', '// input force', 'force = 3*time;']
    """
    g, values, initial = _graph_of(source)
    model = g.graph.get("name", "model")
    _check_arguments(g, model, name, inputs, start, units, params, description)
    values = {**values, **{k: float(v) for k, v in dict(params or {}).items()}}
    exp = _Deriver(g, None)  # the generator's own bookkeeping: the same element hook, no copy
    unit_of = _unit_function(units)
    w = ModelicaWriter(name or model, description or f"bond graph of {model}, exported by hydrobond",
                       model=model)

    # ---- every element's law
    blocks: list[tuple[str, str, list[tuple[sp.Expr | None, sp.Expr, sp.Expr]]]] = []
    var_of: dict[str, tuple[str, str]] = {}
    for u, v, k in g.edges(keys=True):
        var_of[f"e[{k}]"] = (u, v)
        var_of[f"f[{k}]"] = (u, v)
    alias: dict[str, str] = {}  # our state name -> the variable that carries it
    problems: list[str] = []
    for n, el in g.nodes(data="element"):
        ports, how = _ports(g, n, el)
        ctx = _Ctx(exp, n)
        try:
            cons: Constitutive = el.equations(ports, ctx)
        except (ParameterError, ModelStructureError) as exc:
            problems += exc.problems
            continue
        outs = {var.name: sp.sympify(expr) for var, expr in cons.outputs.items()}
        rows: list[tuple[sp.Expr | None, sp.Expr, sp.Expr]] = []  # (coeff of lhs or None, lhs, rhs)
        for spec in cons.states:
            coeff, rhs = sp.sympify(spec.coeff), sp.sympify(spec.rhs)
            target = next((v for v, ex in outs.items() if ex == spec.symbol), None)
            if target is not None:  # the state is a bond variable: write the law on the bond
                del outs[target]
                sub = {spec.symbol: sp.Symbol(target, real=True)}
                coeff, rhs = coeff.xreplace(sub), rhs.xreplace(sub)
                outs = {kk: ex.xreplace(sub) for kk, ex in outs.items()}
            else:
                target = spec.symbol.name
            alias[spec.symbol.name] = target
            rows.append((coeff, sp.Symbol(f"D({target})", real=True), rhs))
        rows = [(None, sp.Symbol(v, real=True), ex) for v, ex in outs.items()] + rows
        blocks.append((n, f"{el.kind} ({how})" if how else el.kind, rows))
    if problems:
        raise ModelStructureError(problems, subject=f"model {model!r}")

    # ---- start values (our state names, after aliasing)
    start = dict(start or {})
    unknown_start = [s for s in start if s not in alias]
    if unknown_start:
        raise ParameterError([f"start value for {s!r}: no such state (states: "
                              f"{', '.join(sorted(alias))})" for s in unknown_start],
                             subject=f"model {model!r}")
    starts = {}
    for ours, target in alias.items():
        starts[target] = float(start.get(ours, initial.get(ours, exp.state_initial.get(ours, 0.0))))

    # ---- free symbols with no owner: user parameters
    known = set(var_of) | set(starts) | set(exp.params) | set(exp.inputs)
    missing: dict[str, str] = {}
    for n, _, rows in blocks:
        for coeff, lhs, rhs in rows:
            syms = lhs.free_symbols | rhs.free_symbols | (coeff.free_symbols if coeff is not None else set())
            for s in syms:
                nm = s.name
                if s == T or nm in known or (nm.startswith("D(") and nm[2:-1] in known):
                    continue
                missing.setdefault(nm, n)
    extra = {}
    for nm in sorted(missing):  # by name: the symbols above came from sets (hash order)
        if nm in values:
            extra[nm] = float(values[nm])
            del missing[nm]
    given = dict(params or {})
    problems = [f"params[{k!r}]: not a parameter of the model (element parameters: "
                f"{_few(exp.params)}; free symbols of laws: {_few(missing) if missing else 'none'})"
                for k in given if k not in exp.params and k not in extra and k not in missing]
    for k, v in given.items():
        chk = exp.param_checks.get(k)
        if chk is not None:
            problems.append(chk.problem(f"params[{k!r}]", float(v)))
    problems = [p for p in problems if p]
    if problems:
        raise ParameterError(problems, subject=f"to_modelica of model {model!r}")
    if missing:
        raise ParameterError([f"symbol {s!r} used by {el} has no value; pass params={{{s!r}: ...}}"
                              for s, el in sorted(missing.items())], subject=f"model {model!r}")

    # ---- declarations
    if exp.params or extra:
        w.section("parameters")
    for nm, val in exp.params.items():
        node = exp.param_owner[nm]
        key = nm[len(node) + 1:]
        el = g.nodes[node]["element"]
        w.parameter(nm, float(values.get(nm, val)), unit=unit_of(node, key, el),
                    comment=f"{_local(node, model)}: {key}")
    for nm, val in extra.items():
        w.parameter(nm, val, comment="parameter of a law")
    bound = dict(inputs or {})
    unknown_inputs = sorted(set(bound) - set(exp.inputs))
    if unknown_inputs:
        raise ParameterError([f"input {i!r} given but the model has no such input (inputs: "
                              f"{', '.join(sorted(exp.inputs)) or 'none'})" for i in unknown_inputs],
                             subject=f"model {model!r}")
    if exp.inputs:
        w.section("inputs")
    for nm in sorted(exp.inputs):
        if nm in bound:
            w.variable(nm, comment=f"input {nm}")
        else:
            w.variable(nm, comment=f"input {nm}", prefix="input ")
    others = [s for s in starts if s not in var_of]
    if others:
        w.section("states that are not bond variables (displacements, momenta)")
    for s in others:
        w.variable(s, start=starts[s], fixed=True, comment=f"state {_local(s, model)}")
    w.section("bond variables: effort e_<bond>, flow f_<bond>")
    for var, (u, v) in var_of.items():
        kind = "effort" if var[0] == "e" else "flow"
        st = starts.get(var)
        w.variable(var, start=st, fixed=True if st is not None else None,
                   comment=f"{kind} of {_local(u, model)} -> {_local(v, model)}",
                   label=f"{var[0]}_{_bond_label(g, u, v, var[2:-1], model)}")

    # ---- equations
    for n, how, rows in blocks:
        w.comment(f"{_local(n, model)}: {how}")
        for coeff, lhs, rhs in rows:
            if coeff is None or coeff == 1:
                w.equation(lhs, rhs)
            else:  # a storage law: coefficient first, as it is read (m*der(v) = F)
                w.equation(f"{_factor(w.expr(coeff))}*{w.expr(lhs)}", rhs)
    for nm in sorted(bound):
        w.comment(f"input {nm}")
        val = bound[nm]
        if not isinstance(val, (int, float, sp.Expr)):
            raise ParameterError(f"input {nm!r}: got {type(val).__name__}; expected a number or "
                                 "a sympy expression of bondgraph.t (Modelica needs a formula)")
        w.equation(sp.Symbol(nm), val)
    for ours, target in alias.items():  # a state carried by a bond variable: both names work
        w.names.setdefault(ours, w.names[target])
    out = w.render()
    if out.n_variables != out.n_equations:
        raise ModelStructureError(f"model {model!r}: export has {out.n_variables} variables and "
                                  f"{out.n_equations} equations (internal export error)")
    return out


def _few(names, n: int = 6) -> str:
    names = sorted(names)
    return ", ".join(names[:n]) + (f", … ({len(names)} in all)" if len(names) > n else "")


def _finite_number(value: Any) -> bool:
    """A finite number, or text/an object that converts to one; never True or False."""
    if isinstance(value, bool):
        return False
    if not isinstance(value, (int, float, sp.Number)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            return False
    return math.isfinite(float(value))


def class_name_problem(name: Any, fallback: str = "model") -> str | None:
    """Why ``name`` cannot be a Modelica class name (None if it can).

    Parameters
    ----------
    name : object
    fallback : str
        Suggested when ``name`` is empty.

    Returns
    -------
    str or None

    Examples
    --------
    >>> class_name_problem("boom_lift") is None
    True
    >>> class_name_problem("my model")
    "name='my model': not a Modelica class name; expected letters, digits and '_', not starting with a digit, not a keyword (e.g. 'my_model')"
    """
    if isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) \
            and name not in _RESERVED:
        return None
    return (f"name={name!r}: not a Modelica class name; expected letters, digits and '_', not "
            f"starting with a digit, not a keyword (e.g. {modelica_identifier(str(name) or fallback)!r})")


def formula_problem(label: str, value: Any) -> str | None:
    """Why ``value`` is no real, finite number or formula of ``bondgraph.t`` — what an
    exported input must be — or None if it is one.

    Parameters
    ----------
    label : str
        What is checked, the start of the message.
    value : object

    Returns
    -------
    str or None

    Examples
    --------
    >>> from bondgraph import t
    >>> formula_problem("input 'F'", 3.0 * t) is None
    True
    >>> formula_problem("input 'F'", float("inf"))
    "input 'F' = inf: expected a finite number or formula of bondgraph.t"
    >>> formula_problem("input 'F'", sp.I * t)
    "input 'F' = I*t: complex; expected a real number or formula of bondgraph.t"
    """
    try:
        expr = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError, ValueError):
        expr = None
    if not isinstance(expr, sp.Expr):
        return (f"{label} = {value!r}: got {type(value).__name__}; expected a number or a "
                "formula of bondgraph.t")
    other = sorted(str(x) for x in expr.free_symbols if x != T)
    if other:
        return (f"{label} = {value}: uses {', '.join(other)}; expected a number or a formula "
                "of bondgraph.t only (Modelica needs a formula of time)")
    if expr.has(sp.nan, sp.oo, -sp.oo, sp.zoo):
        return f"{label} = {value!r}: expected a finite number or formula of bondgraph.t"
    if expr.has(sp.I) or (expr.is_number and expr.is_real is False):
        return f"{label} = {value}: complex; expected a real number or formula of bondgraph.t"
    return None


def _check_arguments(g, model, name, inputs, start, units, params, description) -> None:
    """Every problem of :func:`to_modelica`'s arguments, raised at once."""
    problems: list[str] = [class_name_problem(name, model)] if name is not None else []
    if description is not None and not isinstance(description, str):
        problems.append(f"description={description!r}: expected text")
    for what, table in (("inputs", inputs), ("start", start), ("params", params)):
        if table is not None and not isinstance(table, Mapping):
            problems.append(f"{what}={table!r}: expected a mapping of names to values")
    for k, v in dict(inputs or {}).items() if isinstance(inputs, Mapping) else ():
        if isinstance(v, (int, float, sp.Basic)):  # other types: named where the input is bound
            problems.append(formula_problem(f"input {k!r}", v))
    for what, table in (("start", start), ("params", params)):
        for k, v in dict(table or {}).items() if isinstance(table, Mapping) else ():
            if not _finite_number(v):
                problems.append(f"{what}[{k!r}] = {v!r}: expected a finite number")
    if units is not None and not callable(units):
        if not isinstance(units, Mapping):
            problems.append(f"units={units!r}: expected a mapping (element path, 'element.key', "
                            "kind or 'kind.key' → unit text) or a callable (node, key, element) → unit")
        else:
            from ..cosim.units import parse_unit

            locals_ = {_local(n, model) for n in g.nodes}
            kinds = {el.kind for _, el in g.nodes(data="element")}
            for k, u in units.items():
                head = str(k).split(".", 1)[0]
                if head not in locals_ and head not in kinds:
                    problems.append(f"units[{k!r}]: no element or element kind of that name "
                                    f"(elements: {_few(locals_)}; kinds: {_few(kinds)})")
                try:
                    parse_unit(u)
                except ParameterError as exc:
                    problems.append(f"units[{k!r}]: {exc}")
    problems = [p for p in problems if p]
    if problems:
        raise ParameterError(problems, subject=f"to_modelica of model {model!r}")


def _factor(text: str) -> str:
    """Parenthesise a printed expression unless it is a plain product or name."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch in "+-" and i > 0:
            return f"({text})"
    return text


def _local(path: str, model: str) -> str:
    return path[len(model) + 1:] if path.startswith(model + "/") else path


def _bond_label(g: nx.MultiDiGraph, u: str, v: str, k: str, model: str) -> str:
    """Readable name of a bond: the one-port element it feeds, a two-port's port, or its name."""
    for node, port in ((v, "head"), (u, "tail")):
        el = g.nodes[node]["element"]
        names = el.port_names()
        if names is not None and len(names) == 1:
            return _local(node, model)
    for node, end in ((u, "tail"), (v, "head")):
        el = g.nodes[node]["element"]
        if el.port_names() is not None:
            bond = g.edges[u, v, k]["bond"]
            return f"{_local(node, model)}_{getattr(bond, end).name}"
    return _local(k, model)


def _ports(g: nx.MultiDiGraph, n: str, el) -> tuple[dict[str, PortVars], str]:
    """Port variables of node ``n``: assigned causality, or the canonical acausal form."""
    out: dict[str, PortVars] = {}
    canonical: bool | None = None  # effort_in of port 1 / the one port, if canonical
    how = ""
    if el.role in (Role.TRANSFORMER, Role.GYRATOR):
        canonical = False
    elif el.role is Role.RESISTOR:
        pref = el.preferred_effort_in()
        canonical = False if pref is None else pref
    for u, v, k, data in list(g.in_edges(n, keys=True, data=True)) + \
            list(g.out_edges(n, keys=True, data=True)):
        bond = data["bond"]
        head = v == n
        pname = bond.head.name if head else bond.tail.name
        eff_in = data["effort_to"] == n
        if canonical is not None:
            if el.role is Role.TRANSFORMER:
                eff_in = canonical if pname == "1" else not canonical
            else:
                eff_in = canonical
        e, f = sp.Symbol(f"e[{k}]", real=True), sp.Symbol(f"f[{k}]", real=True)
        out[pname] = PortVars(pname, k, e, f, +1 if head else -1, eff_in)
    if el.role in (Role.I_STORAGE, Role.C_STORAGE):
        (p,) = out.values()
        integral = p.effort_in == (el.role is Role.I_STORAGE)
        how = "integral causality" if integral else "derivative causality"
    return out, how


# ---------------------------------------------------------------------- running
def simulate_rumoca(model: ModelicaModel, t_end: float, dt: float, *, rtol: float = 1e-8,
                    atol: float = 1e-10, names: list[str] | None = None,
                    solver: str | None = None) -> dict[str, Any]:
    """Compile and simulate an export with ``rumoca`` (optional dependency).

    Parameters
    ----------
    model : ModelicaModel
    t_end, dt : float
        End time and output interval (s).
    rtol, atol : float
        Tolerances handed to rumoca's solver.
    names : list of str, optional
        Our names to return (default: every name of the export that rumoca reports).
    solver : str, optional
        rumoca solver id (``"auto"``, ``"bdf"``, ``"rk-like"``).

    Returns
    -------
    dict
        ``"time"`` and one array per name (our names), plus ``"_result"``
        (rumoca's own result object) and ``"_model"`` (its compiled model).

    Raises
    ------
    ParameterError
        Not a :class:`ModelicaModel`, or times and tolerances that are not finite and
        positive (all listed at once).
    SimulationError
        rumoca is missing, rejects the source or fails to integrate.

    Examples
    --------
    A 2 N force on a 4 kg mass against a 1 N·s/m damper, exported and run by rumoca:
    ``v = 2·(1 − e^{−t/4})``.

    >>> import numpy as np
    >>> from bondgraph import BondGraph, Se, One, I, R
    >>> bg = BondGraph("drag")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 4.0), R("b", 1.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> out = simulate_rumoca(to_modelica(bg), 4.0, 1.0, names=["drag/m.f"])
    >>> out["time"]
    array([0., 1., 2., 3., 4.])
    >>> bool(np.allclose(out["drag/m.f"], 2 * (1 - np.exp(-out["time"] / 4)), atol=1e-6))
    True
    """
    import numpy as np

    problems = []
    if not isinstance(model, ModelicaModel):
        problems.append(f"model: got {type(model).__name__}; expected a ModelicaModel "
                        "(from to_modelica or export_modelica)")
    for what, v in (("t_end", t_end), ("dt", dt), ("rtol", rtol), ("atol", atol)):
        if not _finite_number(v) or float(v) <= 0:
            problems.append(f"{what} = {v!r}: expected a finite number > 0")
    if not problems and float(dt) > float(t_end):
        problems.append(f"dt = {dt!r}: longer than t_end = {t_end!r}; expected 0 < dt ≤ t_end")
    if problems:
        raise ParameterError(problems, subject="simulate_rumoca")
    try:
        import rumoca
    except ImportError:  # pragma: no cover - depends on the environment
        raise SimulationError("simulate_rumoca needs the 'rumoca' package (pip install "
                              "hydrobond[modelica])") from None
    try:
        compiled = rumoca.Session().loads(model.text, model=model.name)
        cfg = rumoca.SimConfig(rtol=rtol, atol=atol, solver=solver)
        res = compiled.simulate(t=float(t_end), dt=float(dt), config=cfg)
    except Exception as exc:  # rumoca raises its own exception family
        raise SimulationError(f"rumoca on {model.name!r}: {type(exc).__name__}: {exc}") from exc
    t = np.asarray(res.time, dtype=float)
    have = set(res.names)
    out: dict[str, Any] = {"time": t, "_result": res, "_model": compiled}
    wanted = names if names is not None else list(model.names)
    for ours in wanted:
        ident = model.names.get(ours)
        if ident is None:
            raise SimulationError(f"{ours!r}: not a name of export {model.name!r}")
        if ident in have:
            out[ours] = np.asarray(res[ident], dtype=float)
        elif names is not None:
            raise SimulationError(f"{ours!r} ({ident}): rumoca reports no such variable "
                                  f"(it may have been eliminated as an alias)")
    return out
