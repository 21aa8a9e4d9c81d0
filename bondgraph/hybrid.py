"""Hybrid models: discrete modes, guards, switching table, events, external control.

A *hybrid model* (the Toshiba hybrid-simulation patent, `docs/background/sources.md`) pairs continuous equations with discrete
modes — a valve ``Left``/``Right``/``Closed``, a relief valve
``closed``/``relieving``, an end stop ``free``/``contact``. Here a discrete
variable is a **model parameter** used in laws (:class:`Discrete`,
``Discrete.symbol``): the compiled code takes parameters at run time, so a
switch never recompiles — the equations of every mode live in the one
compiled internal form, and a switch is a parameter change plus a restart.

* :class:`Transition` — ``variable: source → target`` when a :class:`Guard`
  becomes true: :class:`Above` / :class:`Below` a threshold (on a state, any
  model output such as a bond effort, an input signal or a discrete value),
  :class:`At` given times, :class:`When` any ``g(t, x) ≥ 0``. ``dwell`` keeps
  a transition disabled for a minimum time after its variable last changed;
  :func:`hysteresis` makes the usual pair with a band. Guards are located
  with event functions (root finding by the integrator) and the integration
  restarts in the new mode; every transition is logged with its time and cause.
* :class:`ModeTable` — built once: each mode (a combination of discrete
  values) → its active equations (the model's equations with the mode values
  substituted, parameters shown as numbers) and the transitions leaving it.
* :class:`Controller` — external control: ``u = controller(t, y)`` either at
  every right-hand-side call (continuous) or at its own sample rate (the
  "machine control software" of the Toshiba hybrid-simulation patent, e.g. a joystick table or a PI loop);
  a sampled controller may also command discrete modes (external events).
* :func:`simulate_hybrid` — the event-driven integration (LSODA, BDF,
  Radau… or CVODE) returning :class:`HybridResults` (a
  :class:`~bondgraph.results.Results` that knows the mode of every sample).

Chattering is contained by hysteresis bands and dwell times, and detected:
more than ``max_burst`` transitions within ``burst_window`` raise a
:class:`~bondgraph.errors.SimulationError` naming the transitions.

Examples
--------
A mass pushed right or left by a bang-bang force, switched by its position:

>>> from bondgraph import BondGraph, MSe, One, I, build
>>> push = Discrete("push", {"Left": -1.0, "Right": 1.0}, initial="Right")
>>> bg = BondGraph("cart")
>>> v = One("v", displacement="x")
>>> _ = bg.add(MSe("F", 2.0 * push.symbol), v, I("m", 1.0))
>>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
>>> hm = HybridModel.build(bg, [push], [
...     Transition("push", "Right", "Left", Above("cart/v.x", 1.0)),
...     Transition("push", "Left", "Right", Below("cart/v.x", 0.0))])
>>> print(hm.table())                                 # doctest: +NORMALIZE_WHITESPACE
hybrid model 'cart': 1 discrete variable, 2 modes, 2 transitions
common equations:
  der(cart/v.x) = cart/m.f
mode push=Left:
  der(cart/m.f) = -2.0
  → push=Right when cart/v.x < 0
mode push=Right:
  der(cart/m.f) = 2.0
  → push=Left when cart/v.x > 1
>>> res = simulate_hybrid(hm, (0.0, 4.0), rtol=1e-10, atol=1e-12)
>>> [(round(r.time, 6), r.target) for r in res.transitions]   # x = t², then 1 + 2τ − τ²
[(1.0, 'Left'), (3.414214, 'Right')]
"""

from __future__ import annotations

import itertools
import math
import time as _time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from .errors import ParameterError, SimulationError, UserCallableError
from .model import Model, build
from .results import Results
from .signals import Constant, InputSet, call_user, describe_callable
from .native.cvode import BACKENDS, native_session
from .stepping import DEFAULT_BLOWUP, DEFAULT_TIMEOUT, EventSet, Failure, Watch, check_options, run_segment

__all__ = [
    "Discrete", "Guard", "Above", "Below", "Exceeds", "At", "When", "Transition", "hysteresis",
    "ModeTable", "HybridModel", "Controller", "Measurements", "TransitionRecord",
    "HybridResults", "simulate_hybrid",
]


# ---------------------------------------------------------------------------- discrete variables
@dataclass(frozen=True)
class Discrete:
    """A discrete variable: named modes, each with a numeric value used in laws.

    Parameters
    ----------
    name : str
        Also the model parameter's name (pass it to no one: :meth:`HybridModel.build`
        sets it).
    modes : mapping label → value, or sequence of labels (values 0, 1, 2…)
    initial : str, optional
        Initial mode (default: the first).

    Examples
    --------
    >>> valve = Discrete("valve", {"Left": -1, "Closed": 0, "Right": 1}, initial="Closed")
    >>> valve.symbol, valve.value("Right"), valve.label(-1.0)
    (valve, 1.0, 'Left')
    >>> float(valve.indicator("Closed").subs(valve.symbol, 0))
    1.0
    """

    name: str
    modes: tuple[tuple[str, float], ...]
    initial: str

    def __init__(self, name: str, modes: Mapping[str, float] | Sequence[str],
                 initial: str | None = None):
        if not isinstance(name, str) or not name or any(c in name for c in " :"):
            raise ParameterError(f"discrete variable name {name!r}: expected a non-empty name "
                                 "without spaces or ':'")
        pairs = (tuple((str(k), float(v)) for k, v in modes.items()) if isinstance(modes, Mapping)
                 else tuple((str(k), float(i)) for i, k in enumerate(modes)))
        problems = []
        if len(pairs) < 2:
            problems.append(f"discrete {name!r}: {len(pairs)} modes, expected at least 2")
        labels = [p[0] for p in pairs]
        values = [p[1] for p in pairs]
        if len(set(labels)) != len(labels) or len(set(values)) != len(values):
            problems.append(f"discrete {name!r}: mode labels and values must be unique "
                            f"(found {dict(pairs)})")
        init = labels[0] if initial is None and labels else initial
        if init not in labels:
            problems.append(f"discrete {name!r}: initial mode {initial!r}, expected one of "
                            f"{', '.join(labels)}")
        if problems:
            raise ParameterError(problems)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "modes", pairs)
        object.__setattr__(self, "initial", init)

    @property
    def symbol(self) -> sp.Symbol:
        """The symbol to use in laws (a run-time parameter of the compiled model)."""
        return sp.Symbol(self.name, real=True)

    @property
    def labels(self) -> list[str]:
        return [p[0] for p in self.modes]

    def value(self, label: str) -> float:
        for k, v in self.modes:
            if k == label:
                return v
        raise ParameterError(f"discrete {self.name!r}: no mode {label!r} (modes: "
                             f"{', '.join(self.labels)})")

    def label(self, value: float) -> str:
        for k, v in self.modes:
            if v == float(value):
                return k
        raise ParameterError(f"discrete {self.name!r}: no mode with value {value!r}")

    def indicator(self, label: str) -> sp.Expr:
        """1 in mode ``label``, 0 in the others (a polynomial in the symbol: compiles anywhere)."""
        vi = self.value(label)
        s = self.symbol
        expr = sp.Integer(1)
        for _, vj in self.modes:
            if vj != vi:
                expr *= (s - vj) / (vi - vj)
        return expr


# ---------------------------------------------------------------------------- guards
class Guard:
    """A switching condition. Subclasses give :meth:`describe` and a crossing function.

    The condition holds when ``g(t, x) > tol`` (``tol``: :meth:`tolerance`, a
    few ulps of the threshold); a transition fires when ``g`` crosses ``tol``
    upwards (located by the integrator) or, at a restart, if it already
    holds. Locating the crossing at ``tol`` rather than 0 means a guard that
    sits exactly at its threshold after a switch is still seen to cross.
    """

    timed = False

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def bind(self, probe: "_Probe") -> Callable[[float, np.ndarray], float]:  # pragma: no cover
        raise NotImplementedError

    def tolerance(self) -> float:
        return 0.0

    def quantities(self) -> list[str]:
        return []


def _fmt(v: float) -> str:
    return f"{v:.6g}"


@dataclass(frozen=True)
class Above(Guard):
    """``quantity > threshold``: a state, model output, input, or discrete variable name."""

    quantity: str
    threshold: float

    def describe(self) -> str:
        return f"{self.quantity} > {_fmt(self.threshold)}"

    def bind(self, probe):
        q, th = probe.reader(self.quantity), float(self.threshold)
        return lambda t, x: q(t, x) - th

    def tolerance(self) -> float:
        return 1e-12 * (1.0 + abs(self.threshold))

    def quantities(self):
        return [self.quantity]


@dataclass(frozen=True)
class Below(Guard):
    """``quantity < threshold``."""

    quantity: str
    threshold: float

    def describe(self) -> str:
        return f"{self.quantity} < {_fmt(self.threshold)}"

    def bind(self, probe):
        q, th = probe.reader(self.quantity), float(self.threshold)
        return lambda t, x: th - q(t, x)

    def tolerance(self) -> float:
        return 1e-12 * (1.0 + abs(self.threshold))

    def quantities(self):
        return [self.quantity]


@dataclass(frozen=True)
class Exceeds(Guard):
    """``quantity > other + margin``: one named quantity (state, model output, input or
    discrete variable) exceeding another by a margin — a shuttle valve passing the higher
    of two pressures, a relief set against a pilot. Evaluated in C by the native driver
    like :class:`Above`.

    Examples
    --------
    >>> g = Exceeds("b/C.e", "a/C.e", 5e4)
    >>> g.describe(), g.quantities()
    ('b/C.e > a/C.e + 50000', ['b/C.e', 'a/C.e'])
    """

    quantity: str
    other: str
    margin: float = 0.0

    def describe(self) -> str:
        return f"{self.quantity} > {self.other}" + (f" + {_fmt(self.margin)}" if self.margin else "")

    def bind(self, probe):
        q, o, m = probe.reader(self.quantity), probe.reader(self.other), float(self.margin)
        return lambda t, x: q(t, x) - o(t, x) - m

    def tolerance(self) -> float:
        return 1e-12 * (1.0 + abs(self.margin))

    def quantities(self):
        return [self.quantity, self.other]


@dataclass(frozen=True)
class At(Guard):
    """At given times (a schedule: valve operating times, external commands)."""

    times: tuple[float, ...]

    timed = True

    def __init__(self, *times: float):
        vals, bad = [], []
        for t in times:
            try:
                v = float(t)
            except (TypeError, ValueError):
                v = math.nan
            if math.isfinite(v) and not isinstance(t, bool):
                vals.append(v)
            else:
                bad.append(t)
        if bad or not times:
            raise ParameterError(f"At{tuple(times)!r}: " + (f"times {', '.join(map(repr, bad))}: expected finite "
                                                            "numbers of seconds" if bad else
                                                            "no time given; expected at least one time"))
        object.__setattr__(self, "times", tuple(sorted(vals)))

    def describe(self) -> str:
        return "t = " + ", ".join(_fmt(t) for t in self.times)


@dataclass(frozen=True)
class When(Guard):
    """``fn(t, x) > 0`` for any callable (``x`` the model state vector)."""

    fn: Callable[[float, np.ndarray], float]
    description: str = "custom condition"

    def describe(self) -> str:
        return self.description

    def bind(self, probe):
        return lambda t, x: float(self.fn(t, x))

    def tolerance(self) -> float:
        return 1e-12


@dataclass(frozen=True)
class Transition:
    """``variable: source → target`` when ``guard`` holds.

    Parameters
    ----------
    variable : str
    source : str
        Mode the variable must be in (``"*"``: any mode other than ``target``).
    target : str
    guard : Guard
    dwell : float
        Minimum time since the variable last changed before this may fire (s).
    reset : callable, optional
        ``x_new = reset(t, x)`` applied at the switch (an impact, a latch).
    name : str, optional
    """

    variable: str
    source: str
    target: str
    guard: Guard
    dwell: float = 0.0
    reset: Callable[[float, np.ndarray], np.ndarray] | None = None
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or f"{self.variable}: {self.source} → {self.target}"

    def describe(self) -> str:
        extra = f" (dwell {_fmt(self.dwell)} s)" if self.dwell else ""
        return f"→ {self.variable}={self.target} when {self.guard.describe()}{extra}"


def hysteresis(variable: str, low: str, high: str, quantity: str, threshold: float,
               band: float, dwell: float = 0.0) -> list[Transition]:
    """The pair ``low → high`` above ``threshold + band/2`` and back below ``threshold − band/2``.

    Examples
    --------
    >>> [t.describe() for t in hysteresis("relief", "closed", "open", "p", 3e7, 1e5)]
    ['→ relief=open when p > 3.005e+07', '→ relief=closed when p < 2.995e+07']
    """
    if not band >= 0:
        raise ParameterError(f"hysteresis band {band!r}: expected ≥ 0")
    return [Transition(variable, low, high, Above(quantity, threshold + band / 2), dwell),
            Transition(variable, high, low, Below(quantity, threshold - band / 2), dwell)]


# ---------------------------------------------------------------------------- probes
class _Probe:
    """Reads named quantities at (t, x): states, outputs, inputs, discrete values."""

    def __init__(self, hm: "HybridModel", rhs: "_Rhs | None" = None):
        self.hm = hm
        self.model = hm.model
        self.rhs = rhs

    def reader(self, name: str) -> Callable[[float, np.ndarray], float]:
        m = self.model
        if name in m.state_names:
            i = m.state_names.index(name)
            return lambda t, x: float(x[i])
        if name in self.hm.variables:
            var = self.hm.variables[name]
            return lambda t, x: var.value(self.hm._modes[name])
        if name in self.hm.signals:
            def sig(t, x):
                return self.rhs.signal(name, t)
            return sig
        if name in m.input_names:
            j = m.input_names.index(name)

            def inp(t, x):
                return float(self.rhs.inputs_at(t, x)[j])
            return inp
        outs = m.system.output_names
        if name in outs:
            k = outs.index(name)

            def out(t, x):
                try:
                    return float(self.rhs.outputs(t, x)[k])
                except FloatingPointError as exc:  # a singular block met by the guard alone
                    raise UserCallableError(
                        f"guard quantity {name!r} at t = {t:.9g} s: the model's outputs cannot "
                        f"be computed there ({exc})", time=t,
                        state={n: float(v) for n, v in zip(m.state_names, x)}) from None
            return out
        import difflib

        close = difflib.get_close_matches(name, m.state_names + m.input_names + outs, n=3)
        raise ParameterError(f"guard quantity {name!r}: not a state, input, output, discrete "
                             f"variable or declared external signal of {m.name!r}"
                             + (f"; did you mean {', '.join(map(repr, close))}?" if close else ""))


class Measurements(Mapping):
    """What a controller sees: ``y[name]`` for states, outputs, inputs; ``y.t``, ``y.x``.

    ``y.mode(variable)`` gives a discrete variable's current label.
    """

    def __init__(self, probe: _Probe, t: float, x: np.ndarray):
        self._probe, self.t, self.x = probe, t, x

    def __getitem__(self, name: str) -> float:
        return self._probe.reader(name)(self.t, self.x)

    def __iter__(self):
        return iter(self._probe.model.state_names)

    def __len__(self) -> int:
        return len(self._probe.model.state_names)

    def mode(self, variable: str) -> str:
        return self._probe.hm._modes[variable]


@dataclass(frozen=True)
class Controller:
    """External control: ``u = fn(t, y)`` returning ``{input: value, discrete: label}``.

    Parameters
    ----------
    fn : callable
        ``fn(t, y)`` with ``y`` a :class:`Measurements`; returns a dict mapping
        model input names to numbers and (sampled controllers only) discrete
        variable names to mode labels — external events.
    inputs : sequence of str
        The model inputs this controller sets (they need no signal).
    period : float, optional
        Sample period (s): zero-order hold between samples, restarts at each
        sample. ``None``: evaluated at every right-hand-side call (continuous);
        the solver then differences its Jacobian.
    """

    fn: Callable[[float, Measurements], Mapping[str, Any]]
    inputs: tuple[str, ...] = ()
    period: float | None = None

    def __init__(self, fn, inputs: Sequence[str] = (), period: float | None = None):
        if not callable(fn):
            raise ParameterError(f"controller: {fn!r} is not callable")
        if isinstance(inputs, str):
            raise ParameterError(f"controller inputs {inputs!r}: expected a list of input names "
                                 f"(e.g. [{inputs!r}])")
        if period is not None and not (math.isfinite(period) and period > 0):
            raise ParameterError(f"controller period {period!r}: expected > 0 s or None")
        object.__setattr__(self, "fn", fn)
        object.__setattr__(self, "inputs", tuple(inputs))
        object.__setattr__(self, "period", None if period is None else float(period))


# ---------------------------------------------------------------------------- table
@dataclass(frozen=True)
class ModeTable:
    """Each mode → its active equations and the transitions that leave it.

    Attributes
    ----------
    model : str
    variables : tuple of Discrete
    common : tuple of str
        Equations the same in every mode.
    modes : dict
        ``((var, label), ...)`` → (equations, transitions) as text. The
        equations are the state equations that change with the mode, solved
        for ``der(x)``; when they are too long to read (big models), the
        constitutive relations that read a discrete variable are listed
        instead (``e[bond] = …`` / ``f[bond] = …`` with the mode's values).
    """

    model: str
    variables: tuple[Discrete, ...]
    common: tuple[str, ...]
    modes: dict
    n_transitions: int

    def __str__(self) -> str:
        nv = len(self.variables)
        lines = [f"hybrid model {self.model!r}: {nv} discrete variable{'s' if nv != 1 else ''}, "
                 f"{len(self.modes)} modes, {self.n_transitions} transitions", "common equations:"]
        lines += [f"  {e}" for e in self.common] or ["  (none)"]
        for key, (eqs, trans) in self.modes.items():
            lines.append("mode " + ", ".join(f"{v}={lab}" for v, lab in key) + ":")
            lines += [f"  {e}" for e in eqs]
            lines += [f"  {t}" for t in trans]
        return "\n".join(lines)

    def equations(self, **mode: str) -> list[str]:
        """The equations active in one mode (common ones included)."""
        key = tuple((v.name, mode.get(v.name, v.initial)) for v in self.variables)
        if key not in self.modes:
            raise ParameterError(f"mode {dict(key)}: not in the table")
        return list(self.common) + list(self.modes[key][0])


_MAX_CHARS = 600


def _expand(expr, defs: dict, limit: int):
    """Substitute intermediates into ``expr`` recursively; ``None`` if it grows past ``limit``."""
    for _ in range(len(defs) + 1):
        local = {q: defs[q.name] for q in expr.free_symbols if q.name in defs}
        if not local:
            return expr
        expr = expr.subs(local)
        if len(str(expr)) > limit:
            return None
    return expr


def _table_rows(model: Model, discrete: set[str]):
    """Per state: (name, (coeff, rhs) or None if too large, switched?); and the switched
    constitutive relations ``(variable, expression)`` that read a discrete variable directly."""
    import symengine as se

    eqs = model.equations
    defs = dict(eqs.intermediates)
    depends: dict[str, bool] = {}
    for name, ex in eqs.intermediates:
        depends[name] = any(q.name in discrete or depends.get(q.name, False) for q in ex.free_symbols)
    direct = [(name, ex) for name, ex in eqs.intermediates
              if any(q.name in discrete for q in ex.free_symbols)]
    rows = []
    for st, ui in zip(eqs.states, eqs.xdot):
        r0 = eqs.residuals[ui]
        switched = any(q.name in discrete or depends.get(q.name, False) for q in r0.free_symbols)
        r = _expand(r0, defs, _MAX_CHARS)
        if r is None:
            rows.append((st.name, None, switched))
            continue
        d = se.Symbol(eqs.unknowns[ui])
        rows.append((st.name, (se.diff(r, d), -(r.subs({d: 0}))), switched))
    return rows, direct


def _numeric(expr, values: Mapping[str, float]) -> sp.Expr:
    ex = expr._sympy_() if hasattr(expr, "_sympy_") else sp.sympify(expr)
    subs = {q: sp.Float(values[q.name], 6) for q in ex.free_symbols if q.name in values}
    return ex.xreplace(subs)


def _tidy(ex: sp.Expr, max_ops: int) -> sp.Expr:
    if ex.has(sp.Piecewise) or sp.count_ops(ex) > max_ops:
        return ex
    return sp.simplify(ex)


def _pretty(state: str, row, values: Mapping[str, float], max_ops: int) -> str:
    if row is None:
        return f"der({state}) = <long expression: see model.equations>"
    c, rhs = (_numeric(e, values) for e in row)
    rhs = _tidy(rhs, max_ops)
    c = _tidy(c, max_ops)
    if c == 1:
        return f"der({state}) = {rhs}"
    if not any(q.name.startswith("der(") for q in c.free_symbols) and sp.count_ops(c) <= 20:
        return f"der({state}) = {_tidy(rhs / c, max_ops)}"
    return f"({c})·der({state}) = {rhs}"


def _pretty_relation(name: str, ex, values: Mapping[str, float], max_ops: int) -> str:
    text = str(_tidy(_numeric(ex, values), max_ops))
    if len(text) > 2 * _MAX_CHARS:
        text = text[:2 * _MAX_CHARS] + " …"
    return f"{name} = {text}"


# ---------------------------------------------------------------------------- hybrid model
class HybridModel:
    """A built model with discrete variables and transitions.

    Parameters
    ----------
    model : Model
        Built with every discrete variable's name among its parameters (see
        :meth:`build`).
    variables : sequence of Discrete
    transitions : sequence of Transition
    signals : sequence of str
        Names of external signals (not model inputs) that guards or a
        controller read, e.g. a joystick command switching an on/off valve;
        their values are given to :func:`simulate_hybrid` (``signals=``).
    max_table_modes : int
        Up to this many mode combinations are tabulated (else one variable at a time).

    A discrete variable no law uses (a purely logical phase) is allowed; it
    has no parameter and switching it changes no equation.

    Raises
    ------
    ParameterError
        Listing every unknown variable, mode, or guard quantity.
    """

    def __init__(self, model: Model, variables: Sequence[Discrete], transitions: Sequence[Transition],
                 *, signals: Sequence[str] = (), max_table_modes: int = 64, max_ops: int = 200):
        self.model = model
        self.variables: dict[str, Discrete] = {}
        self.signals: tuple[str, ...] = tuple(signals)
        problems: list[str] = []
        for n in self.signals:
            if n in model.input_names or n in model.state_names:
                problems.append(f"external signal {n!r}: already an input or state of "
                                f"{model.name!r}; guards read those directly")
        for v in variables:
            if not isinstance(v, Discrete):
                problems.append(f"variable {v!r}: expected a Discrete")
                continue
            if v.name in self.variables:
                problems.append(f"discrete {v.name!r}: given twice")
            self.variables[v.name] = v
        self.transitions = list(transitions)
        probe = _Probe(self)
        for tr in self.transitions:
            if not isinstance(tr, Transition):
                problems.append(f"transition {tr!r}: expected a Transition")
                continue
            var = self.variables.get(tr.variable)
            if var is None:
                problems.append(f"transition {tr.label!r}: no discrete variable {tr.variable!r} "
                                f"(variables: {', '.join(self.variables) or 'none'})")
                continue
            for lab in ([tr.source] if tr.source != "*" else []) + [tr.target]:
                if lab not in var.labels:
                    problems.append(f"transition {tr.label!r}: {tr.variable!r} has no mode {lab!r} "
                                    f"(modes: {', '.join(var.labels)})")
            if not isinstance(tr.guard, Guard):
                problems.append(f"transition {tr.label!r}: guard {tr.guard!r} is not a Guard")
                continue
            for q in tr.guard.quantities():
                try:
                    probe.reader(q)
                except ParameterError as exc:
                    problems.append(f"transition {tr.label!r}: {exc}")
            for attr in ("threshold", "margin"):
                v = getattr(tr.guard, attr, None)
                if v is not None and not (isinstance(v, (int, float, np.floating)) and not isinstance(v, bool)
                                          and math.isfinite(v)):
                    problems.append(f"transition {tr.label!r}: guard {attr} {v!r}, expected a finite "
                                    "number")
            if isinstance(tr.guard, When) and not callable(tr.guard.fn):
                problems.append(f"transition {tr.label!r}: When guard {tr.guard.description!r}: "
                                f"{tr.guard.fn!r} is not callable, expected a function g(t, x)")
            if tr.reset is not None and not callable(tr.reset):
                problems.append(f"transition {tr.label!r}: reset {tr.reset!r} is not callable, "
                                "expected a function (t, x) -> new state")
            if tr.dwell < 0:
                problems.append(f"transition {tr.label!r}: dwell {tr.dwell!r}, expected ≥ 0")
        if problems:
            raise ParameterError(problems, subject=f"hybrid model {model.name!r}")
        self._modes = {n: v.initial for n, v in self.variables.items()}
        self._table: ModeTable | None = None
        self.max_table_modes = max_table_modes
        self.max_ops = max_ops
        self.set_modes(self._modes)

    @classmethod
    def build(cls, bg, variables: Sequence[Discrete], transitions: Sequence[Transition], *,
              params: Mapping[str, Any] | None = None, observe: Mapping[str, Any] | None = None,
              **kw) -> "HybridModel":
        """Build the bond graph with the discrete variables as parameters, then wrap it
        (``observe``: observers, as :func:`~bondgraph.build` takes them — quantities a
        guard can read in C)."""
        p = dict(params or {})
        for v in variables:
            p[v.name] = v.value(v.initial)
        try:
            model = build(bg, p, observe=observe)
        except ParameterError as exc:
            unused = {v.name for v in variables
                      if f"parameter {v.name!r} given but no law uses it" in exc.problems}
            if not unused or len(unused) != len(exc.problems):
                raise
            model = build(bg, {k: val for k, val in p.items() if k not in unused}, observe=observe)
        return cls(model, variables, transitions, **kw)

    # -------------------------------------------------------------- modes
    @property
    def modes(self) -> dict[str, str]:
        """Current label of every discrete variable (a copy)."""
        return dict(self._modes)

    def set_modes(self, modes: Mapping[str, str]) -> None:
        """Switch discrete variables (parameter change; no recompilation)."""
        vals = {}
        for n, lab in modes.items():
            if n not in self.variables:
                raise ParameterError(f"discrete {n!r}: not a variable of this hybrid model "
                                     f"(variables: {', '.join(self.variables)})")
            v = self.variables[n].value(lab)
            if n in self.model.params:
                vals[n] = v
        self.model.set_params(vals)
        self._modes.update(modes)

    # -------------------------------------------------------------- table
    def table(self) -> ModeTable:
        """The mode table (built once, cached)."""
        if self._table is None:
            self._table = self._build_table()
        return self._table

    def _build_table(self) -> ModeTable:
        names = set(self.variables)
        rows, direct = _table_rows(self.model, names)
        params = dict(self.model.params)
        fixed = {k: v for k, v in params.items() if k not in names}
        common = tuple(_pretty(s, row, fixed, self.max_ops) for s, row, sw in rows if not sw)
        switched = [(s, row) for s, row, sw in rows if sw]
        # large models: show the switched constitutive relations instead of expanded rows
        use_direct = any(row is None for _, row in switched)
        vars_ = list(self.variables.values())
        combos = list(itertools.product(*[v.labels for v in vars_]))
        if len(combos) > self.max_table_modes:
            # one variable at a time, the others at their initial modes
            combos = []
            for i, v in enumerate(vars_):
                for lab in v.labels:
                    combos.append(tuple(lab if j == i else w.initial for j, w in enumerate(vars_)))
            combos = list(dict.fromkeys(combos))
        modes = {}
        for combo in combos:
            key = tuple((v.name, lab) for v, lab in zip(vars_, combo))
            vals = dict(fixed)
            vals.update({v.name: v.value(lab) for v, lab in zip(vars_, combo)})
            if use_direct:
                eqs = tuple(_pretty_relation(n, ex, vals, self.max_ops) for n, ex in direct)
            else:
                eqs = tuple(_pretty(s, row, vals, self.max_ops) for s, row in switched)
            trans = tuple(tr.describe() for tr in self.transitions
                          if (tr.source == dict(key)[tr.variable]) or
                          (tr.source == "*" and tr.target != dict(key)[tr.variable]))
            modes[key] = (eqs, trans)
        return ModeTable(self.model.name, tuple(vars_), common, modes, len(self.transitions))

    def __repr__(self) -> str:
        return (f"HybridModel({self.model.name!r}, variables={list(self.variables)}, "
                f"{len(self.transitions)} transitions)")


# ---------------------------------------------------------------------------- results
@dataclass(frozen=True)
class TransitionRecord:
    """One logged switch: time, variable, source → target, cause."""

    time: float
    variable: str
    source: str
    target: str
    cause: str

    def __str__(self) -> str:
        return f"t = {self.time:.9g} s: {self.variable} {self.source} → {self.target} ({self.cause})"


class _RecordedSignal:
    def __init__(self, name, t, v):
        self.name, self._t, self._v = name, t, v

    def value(self, t: float) -> float:
        return float(np.interp(t, self._t, self._v))


class _RecordedInputs:
    """Input values as they were during the run (for outputs after the run)."""

    def __init__(self, names, t, U):
        self.names = list(names)
        self.deriv_names: list[str] = []
        self.U = U
        self.signals = [_RecordedSignal(n, t, U[:, j]) for j, n in enumerate(self.names)]
        self.constant = False

    def __call__(self, t):
        return np.array([s.value(t) for s in self.signals]), np.zeros(0)

    def at(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``u`` (interpolated in the recorded values) and ``du`` at every time of ``t``."""
        t = np.asarray(t, dtype=float).ravel()
        U = np.column_stack([np.interp(t, s._t, s._v) for s in self.signals]) if self.signals \
            else np.zeros((len(t), 0))
        return U, np.zeros((len(t), 0))

    def breakpoints(self):
        return np.array([])


class HybridResults(Results):
    """Results of :func:`simulate_hybrid`: also the modes and the transition log.

    Attributes
    ----------
    transitions : list of TransitionRecord
    mode_values : dict
        Discrete variable → its value at every sample.
    """

    def __init__(self, model, t, y, inputs, *, stats, message, events, transitions,
                 mode_values, param_rows, param_index, du_rows):
        super().__init__(model, t, y, inputs, energy=None, stats=stats, message=message, events=events)
        self.transitions: list[TransitionRecord] = transitions
        self.mode_values: dict[str, np.ndarray] = mode_values
        self._param_rows = param_rows
        self._param_index = param_index
        self._du = du_rows

    def mode(self, variable: str) -> np.ndarray:
        """Labels of a discrete variable at every sample."""
        if variable not in self.mode_values:
            raise ParameterError(f"{variable!r}: not a discrete variable of this run "
                                 f"(variables: {', '.join(self.mode_values)})")
        return self.mode_values[variable]

    def outputs(self) -> dict[str, np.ndarray]:
        """The compiled outputs at every sample, each with the parameters of its mode and
        the inputs as they were during the run (one batched call per mode); outputs that
        are not finite somewhere are named in a warning, as for :class:`Results`."""
        if self._out is None:
            from .batch import evaluate_many

            sysm = self.model.system
            saved = sysm.params.copy()
            names = sysm.output_names
            data = np.zeros((len(self.t), len(names)))
            index = np.asarray(self._param_index, dtype=int)
            try:
                for k in np.unique(index):
                    rows = np.flatnonzero(index == k)
                    sysm.params[:] = self._param_rows[k]
                    data[rows] = evaluate_many(sysm, self.x[rows], self.inputs.U[rows],
                                               self._du[rows], t=self.t[rows])
            finally:
                sysm.params[:] = saved
            self._out = {n: data[:, j] for j, n in enumerate(names)}
            self._warn_non_finite(data, names)
        return self._out

    def events_per_second(self, window: float | None = None) -> float:
        """Largest number of transitions in any window (default 1 s), per second."""
        ts = np.array([r.time for r in self.transitions])
        if ts.size == 0:
            return 0.0
        w = float(window) if window else 1.0
        counts = np.searchsorted(ts, ts + w, side="right") - np.arange(ts.size)
        return float(counts.max() / w)


# ---------------------------------------------------------------------------- integration
class _Rhs:
    def __init__(self, hm: HybridModel, inputs: Mapping[str, Any] | None, controller: Controller | None,
                 signals: Mapping[str, Any] | None = None):
        m = hm.model
        from .signals import as_signal

        if signals is not None and not isinstance(signals, Mapping):
            raise ParameterError(f"signals {signals!r}: expected a dict of signal name → value",
                                 subject="signals")
        signals = dict(signals or {})
        sp_ = [f"external signal {n!r}: declared by the hybrid model but not given; pass "
               f"signals={{{n!r}: ...}}" for n in hm.signals if n not in signals]
        sp_ += [f"external signal {n!r}: given but not declared (HybridModel(..., signals=[...]))"
                for n in signals if n not in hm.signals]
        if sp_:
            raise ParameterError(sp_, subject="signals")
        self.ext = {n: as_signal(v, n) for n, v in signals.items()}
        self.hm, self.sys, self.nx = hm, m.system, m.system.nx
        if inputs is not None and not isinstance(inputs, Mapping):
            raise ParameterError(f"inputs {inputs!r}: expected a dict of input name → signal",
                                 subject="inputs")
        given = dict(inputs or {})
        ctrl_inputs = list(controller.inputs) if controller else []
        problems = [f"controller input {n!r}: not an input of {m.name!r} "
                    f"(inputs: {', '.join(m.input_names) or 'none'})"
                    for n in ctrl_inputs if n not in m.input_names]
        problems += [f"input {n!r}: set by the controller and also given a signal"
                     for n in ctrl_inputs if n in given]
        problems += [f"input {n!r}: set by the controller, but the model needs its time "
                     "derivative; drive it with a signal instead"
                     for n in ctrl_inputs if n in m.equations.input_derivatives]
        if problems:
            raise ParameterError(problems, subject="inputs")
        for n in ctrl_inputs:
            given[n] = Constant(0.0, n)
        self.inputs = InputSet(m.input_names, m.equations.input_derivatives, given)
        self.ctrl_idx = [m.input_names.index(n) for n in ctrl_inputs]
        self.held = np.zeros(len(self.ctrl_idx))
        self.controller = controller
        self.continuous = controller is not None and controller.period is None
        self.probe = _Probe(hm, self)
        self.watch: Watch | None = None
        self._out_key: tuple | None = None
        self._out_val: np.ndarray | None = None

    def signal(self, name: str, t: float) -> float:
        return self.ext[name].value(t)

    def control(self, t: float, x: np.ndarray) -> Mapping[str, Any]:
        """The controller's outputs at ``(t, x)``, its exceptions named (a UserCallableError)."""
        c = self.controller
        what = f"controller (inputs {', '.join(c.inputs) or 'none'})"
        out = call_user(c.fn, (t, Measurements(self.probe, t, x)), what, t)
        if not isinstance(out, Mapping):
            raise UserCallableError(f"{what}: {describe_callable(c.fn)} returned {out!r} at "
                                    f"t = {t:.9g} s; expected a dict of input values and mode "
                                    "labels", time=t)
        return out

    def control_value(self, t: float, name: str, v: Any) -> float:
        """A controller's value for input ``name``, a finite number or a named error."""
        try:
            fv = float(v)
        except (TypeError, ValueError):
            fv = math.nan
        if not math.isfinite(fv):
            raise UserCallableError(
                f"controller (inputs {', '.join(self.controller.inputs)}): "
                f"{describe_callable(self.controller.fn)} gave {name!r} = {v!r} at t = {t:.9g} s; "
                "expected a finite number for each of its inputs", time=t)
        return fv

    def inputs_at(self, t: float, x: np.ndarray) -> np.ndarray:
        u, du = self.inputs(t)
        u = u.copy()
        if self.ctrl_idx:
            if self.continuous:
                vals = self.control(t, x)
                names = self.hm.model.input_names
                for k, j in enumerate(self.ctrl_idx):
                    self.held[k] = self.control_value(t, names[j], vals.get(names[j]))
            u[self.ctrl_idx] = self.held
        self._du = du
        return u

    def inputs_many(self, t: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``u`` and ``du`` at the output times ``t`` of one segment (states ``X``): the
        signals in one call each, a sampled controller's held values as they are; a
        continuous controller, or a signal that fails, one time at a time. A row whose
        inputs cannot be computed is NaN (the output read-outs name it)."""
        n_u, n_du = len(self.hm.model.input_names), len(self.hm.model.equations.input_derivatives)
        if not self.continuous:
            try:
                U, DU = self.inputs.at(t)
            except UserCallableError:
                pass
            else:
                if self.ctrl_idx:
                    U[:, self.ctrl_idx] = self.held
                return U, DU
        U, DU = np.empty((len(t), n_u)), np.empty((len(t), n_du))
        for k, (ti, yi) in enumerate(zip(t, X)):
            try:
                U[k] = self.inputs_at(float(ti), yi)
                DU[k] = self._du
            except UserCallableError:
                U[k], DU[k] = np.nan, np.nan
        return U, DU

    def set(self, t: float, x: np.ndarray) -> None:
        u = self.inputs_at(t, x)
        self.sys.set_inputs(u, self._du)

    def outputs(self, t: float, x: np.ndarray) -> np.ndarray:
        """All compiled outputs at ``(t, x)``, computed once for every guard that reads them."""
        key = (t, x.tobytes(), self.sys.params.tobytes(), self.held.tobytes())
        if key != self._out_key:
            self.set(t, x)
            self._out_val = self.sys.outputs(t, x)
            self._out_key = key
        return self._out_val

    def __call__(self, t, y):
        out = np.empty(self.nx)
        self.into(t, y, out)
        return out

    def into(self, t, y, out):
        self.watch.call(t)
        self.set(t, y)
        try:
            self.sys.rhs(t, y, out=out)
        except FloatingPointError as exc:
            out[:] = np.nan
            self.watch.failed(t, y, str(exc))

    def jac(self, t, y):
        self.watch.njev += 1
        self.set(t, y)
        try:
            return self.sys.jac(t, y)
        except FloatingPointError as exc:
            self.watch.failed(t, y, f"{exc} (in the Jacobian)", jacobian=True)
            raise  # not reached

    def rate(self, t, x):
        self.set(t, x)
        return self.sys.rhs(t, x)

    def monitor(self, t, x):
        self.set(t, x)
        return self.sys.monitors(t, x)


def _guard_set(hm: HybridModel, shifted, active: list[int]) -> EventSet:
    """The active transitions' guards as one event set: upward crossings of ``g − tol``."""
    fns = [shifted[i] for i in active]
    labels = [hm.transitions[i].label for i in active]

    def values(t, y):
        out = np.empty(len(fns))
        for k, f in enumerate(fns):
            out[k] = f(t, y)
        return out

    return EventSet(values, [1] * len(fns), [True] * len(fns), labels)


def _quantity_spec(hm: HybridModel, q: str) -> tuple[str, int, float] | None:
    """``(kind, index, constant)`` of a quantity the native driver reads, as
    :meth:`_Probe.reader` reads it, or ``None`` if it needs Python (a signal)."""
    m = hm.model
    if q in m.state_names:
        return "state", m.state_names.index(q), 0.0
    if q in hm.variables:
        return "const", 0, hm.variables[q].value(hm._modes[q])
    if q in hm.signals:
        return None
    if q in m.input_names:
        return "input", m.input_names.index(q), 0.0
    if q in m.system.output_names:
        return "output", m.system.output_names.index(q), 0.0
    return None


def _guard_spec(tr: Transition, hm: HybridModel) -> tuple | None:
    """A guard the native driver evaluates in C — ``(kind, index, sign, threshold,
    tolerance, constant, direction[, kind2, index2, constant2])`` on a state, model output,
    input or discrete value (less a second one for :class:`Exceeds`) — or ``None`` if it
    needs Python."""
    g = tr.guard
    if isinstance(g, Exceeds):
        a, b = _quantity_spec(hm, g.quantity), _quantity_spec(hm, g.other)
        if a is None or b is None:
            return None
        return (a[0], a[1], 1.0, float(g.margin), g.tolerance(), a[2], 1) + b
    if not isinstance(g, (Above, Below)):
        return None
    a = _quantity_spec(hm, g.quantity)
    if a is None:
        return None
    return (a[0], a[1], 1.0 if isinstance(g, Above) else -1.0, float(g.threshold), g.tolerance(), a[2], 1)


def _native_setup(hm: HybridModel, rhs: _Rhs, backend: str, method: str, jacobian: bool):
    """The native session of this run (its inputs as tables evaluated in C; a sampled
    controller's held values in constant tables), or ``None`` for the Python path."""
    model = hm.model
    python_guards = any(not tr.guard.timed and _guard_spec(tr, hm) is None for tr in hm.transitions)
    native = native_session(model, backend, method, subject=f"hybrid model {model.name!r}",
                            jacobian=jacobian and not rhs.continuous, inputs=rhs.inputs,
                            controller_continuous=rhs.continuous, python_guards=python_guards)
    if native is not None and rhs.inputs.names:
        ins = rhs.inputs
        model.system.set_native_inputs(ins.native(), [ins.deriv_names.index(n) if n in ins.deriv_names
                                                      else -1 for n in ins.names])
        off = model.system._native[1]
        rhs.held_slots = [int(off[j]) + 5 for j in rhs.ctrl_idx]  # the value of [1, 0, 0, 0, 1, v]
    return native


def _native_guards(hm: HybridModel, native, active: list[int]) -> EventSet | None:
    """The active guards, evaluated in C by the native session."""
    native.set_guards([_guard_spec(hm.transitions[i], hm) for i in active])
    if not active:
        return None
    return EventSet(native.guard_values, [1] * len(active), [True] * len(active),
                    [hm.transitions[i].label for i in active])


def _wrap_guard(tr: Transition, fn: Callable[[float, np.ndarray], float]) -> Callable:
    """A bound guard whose user function is named when it raises or returns a non-number."""
    if not isinstance(tr.guard, When):
        return fn
    what = f"guard of transition {tr.label!r} ({tr.guard.description})"
    user = tr.guard.fn

    def g(t, x):
        v = call_user(user, (t, x), what, t)
        try:
            fv = float(v)
        except (TypeError, ValueError):
            fv = math.nan
        if not math.isfinite(fv):
            raise UserCallableError(f"{what}: {describe_callable(user)} returned {v!r} at "
                                    f"t = {t:.9g} s; expected a finite number", time=t)
        return fv
    return g


def simulate_hybrid(hm: HybridModel, t_span: Sequence[float], *,
                    x0: Mapping[str, float] | np.ndarray | None = None,
                    modes: Mapping[str, str] | None = None,
                    inputs: Mapping[str, Any] | None = None,
                    controller: Controller | None = None,
                    signals: Mapping[str, Any] | None = None, method: str = "LSODA",
                    rtol: float = 1e-6, atol: float | np.ndarray = 1e-9,
                    max_step: float = np.inf, t_eval: np.ndarray | None = None,
                    jacobian: bool = True, max_events: int = 100_000, max_burst: int = 50,
                    burst_window: float | None = None, max_steps: int = 500_000,
                    singular: str = "error", timeout: float | None = DEFAULT_TIMEOUT,
                    blowup: float | None = DEFAULT_BLOWUP, backend: str = "auto") -> HybridResults:
    """Event-driven integration of a hybrid model.

    Parameters
    ----------
    hm : HybridModel
    t_span : (float, float)
    x0 : dict or array, optional
        Initial state (named overrides).
    modes : dict, optional
        Initial mode labels (default: each variable's ``initial``).
    inputs : dict, optional
        Signals of the model inputs the controller does not set.
    controller : Controller, optional
    signals : dict, optional
        Values of the external signals the hybrid model declared (callables of
        ``t``, tables, constants).
    method : str
        ``"LSODA"``, ``"BDF"``, ``"Radau"``, ``"RK45"``… or ``"CVODE"``.
    rtol, atol, max_step
    t_eval : array, optional
        Output times (default: every solver step, plus both sides of every switch).
    jacobian : bool
        Use the analytic Jacobian (not with a continuous controller).
    max_events : int
        Stop with an error after this many transitions.
    max_burst, burst_window : int, float
        More than ``max_burst`` transitions within ``burst_window`` (default
        ``1e-6·(t1 − t0)``) is chattering: error naming the transitions.
    max_steps, singular, timeout, blowup
        As in :func:`~bondgraph.simulate.simulate` (steps per run, divisors crossing
        zero, the wall-clock guard, the blow-up bound).
    backend : {"auto", "native", "python"}
        As in :func:`~bondgraph.simulate.simulate`: ``"auto"`` steps CVODE natively in C
        (guards on states, outputs, inputs and discrete values checked in C; a mode
        switch is a parameter change and a restart) unless a guard is a Python function
        (``When``) or reads an external signal, the controller is continuous, or an
        input is a Python callable. ``stats["backend"]`` says which ran.

    Guards are located on the integrator's interpolant, including a guard that becomes
    true and false again within one step (an extremum of the guard inside the step; see
    :mod:`bondgraph.stepping`), so no switch is lost to a long step.

    Returns
    -------
    HybridResults

    Raises
    ------
    SimulationError
        Integration failure (true time, named states, probable cause), chattering, too
        many events (partial results attached); a
        :class:`~bondgraph.errors.UserCallableError` when a guard, controller, reset or
        input function raised.
    ParameterError
        Bad method, tolerances, times, inputs, modes, controller outputs (all listed).
    """
    if not isinstance(hm, HybridModel):
        hint = " (wrap it: HybridModel(model, variables, transitions))" if hasattr(hm, "system") \
            else ""
        raise ParameterError(f"simulate_hybrid: got {type(hm).__name__}, expected a HybridModel{hint}")
    model = hm.model
    extra = []
    if not (isinstance(max_events, (int, np.integer)) and not isinstance(max_events, bool)
            and max_events > 0):
        extra.append(f"max_events = {max_events!r}: expected a positive integer")
    if not (isinstance(max_burst, (int, np.integer)) and not isinstance(max_burst, bool)
            and max_burst > 0):
        extra.append(f"max_burst = {max_burst!r}: expected a positive integer")
    if burst_window is not None and not (isinstance(burst_window, (int, float, np.number))
                                         and math.isfinite(burst_window) and burst_window > 0):
        extra.append(f"burst_window = {burst_window!r}: expected a positive number of seconds")
    if controller is not None and not isinstance(controller, Controller):
        extra.append(f"controller {controller!r}: expected a Controller(fn, inputs, period)")
    if modes is not None and not isinstance(modes, Mapping):
        extra.append(f"modes {modes!r}: expected a dict of discrete variable → mode label")
    elif modes:
        for n, lab in modes.items():
            if n not in hm.variables:
                extra.append(f"modes: {n!r} is not a discrete variable of this hybrid model "
                             f"(variables: {', '.join(hm.variables) or 'none'})")
            elif lab not in hm.variables[n].labels:
                extra.append(f"modes: {n!r} has no mode {lab!r} (modes: "
                             f"{', '.join(hm.variables[n].labels)})")
    if backend not in BACKENDS:
        extra.append(f"backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    t0, t1 = check_options(model, t_span=t_span, method=method, rtol=rtol, atol=atol,
                           max_step=max_step, t_eval=t_eval, x0=x0, timeout=timeout,
                           blowup=blowup, singular=singular, max_steps=max_steps,
                           what="simulate_hybrid", extra=extra)
    burst_window = burst_window if burst_window is not None else 1e-6 * (t1 - t0)
    saved_params = model.system.params.copy()
    saved_modes = hm.modes
    hm.set_modes({n: v.initial for n, v in hm.variables.items()})
    if modes:
        hm.set_modes(modes)
    try:
        rhs = _Rhs(hm, inputs, controller, signals)
        y = model.initial_state(x0)
        native = _native_setup(hm, rhs, backend, method, jacobian)
    except BaseException:
        model.system.params[:] = saved_params
        hm._modes.update(saved_modes)
        model.system.set_native_inputs(None)
        raise
    watch = Watch(model, t0, t1, y, method=method, timeout=timeout, blowup=blowup,
                  singular=singular, max_steps=max_steps, monitor=rhs.monitor, rate=rhs.rate)
    rhs.watch = watch
    if native is not None:
        native.attach(watch)
    te_all = None if t_eval is None else np.asarray(t_eval, dtype=float)
    jac = rhs.jac if jacobian and not rhs.continuous else None

    # bound guards
    bound = [None if tr.guard.timed else _wrap_guard(tr, tr.guard.bind(rhs.probe))
             for tr in hm.transitions]
    shifted = [None if b is None else (lambda t, x, b=b, tol=tr.guard.tolerance(): b(t, x) - tol)
               for b, tr in zip(bound, hm.transitions)]
    last_change = {n: -math.inf for n in hm.variables}
    log: list[TransitionRecord] = []
    ts, ys, pidx, U_rows, du_rows = [], [], [], [], []
    param_rows: list[np.ndarray] = []
    ev_t, ev_i, ev_y = [], [], []

    mode_rows: list[dict] = []
    midx: list[int] = []

    def current_mode_index() -> int:
        for k, row in enumerate(mode_rows):
            if row == hm._modes:
                return k
        mode_rows.append(dict(hm._modes))
        return len(mode_rows) - 1

    def current_param_index() -> int:
        p = model.system.params
        for k, row in enumerate(param_rows):
            if np.array_equal(row, p):
                return k
        param_rows.append(p.copy())
        return len(param_rows) - 1

    def record(tt, yy):
        if len(tt) == 0:
            return
        k = current_param_index()
        midx.extend([current_mode_index()] * len(tt))
        T = np.asarray(tt, dtype=float).ravel()
        Y = np.asarray(yy, dtype=float).reshape(len(T), -1)
        U, DU = rhs.inputs_many(T, Y)
        U_rows.extend(U)
        du_rows.extend(DU)
        ts.append(T)
        ys.append(Y)
        pidx.extend([k] * len(tt))

    def enabled(i: int, t: float) -> bool:
        tr = hm.transitions[i]
        cur = hm._modes[tr.variable]
        if tr.source == "*":
            if cur == tr.target:
                return False
        elif cur != tr.source:
            return False
        return t >= last_change[tr.variable] + tr.dwell - 1e-15 * max(1.0, abs(t))

    def fire(i: int, t: float, yv: np.ndarray, cause: str) -> np.ndarray:
        tr = hm.transitions[i]
        src = hm._modes[tr.variable]
        hm.set_modes({tr.variable: tr.target})
        last_change[tr.variable] = t
        log.append(TransitionRecord(t, tr.variable, src, tr.target, cause))
        ev_t.append(t)
        ev_i.append(i)
        ev_y.append(yv.copy())
        if tr.reset is not None:
            what = f"reset of transition {tr.label!r}"
            new = call_user(tr.reset, (t, yv.copy()), what, t)
            try:
                new = np.asarray(new, dtype=float)
            except (TypeError, ValueError):
                new = np.full(0, np.nan)
            if new.shape != yv.shape or not np.all(np.isfinite(new)):
                raise UserCallableError(f"{what}: {describe_callable(tr.reset)} returned "
                                        f"{new!r} at t = {t:.9g} s; expected {yv.size} finite "
                                        "state values", time=t)
            yv = new
        check_burst(t, yv)
        return yv

    def external(t: float, yv: np.ndarray, changes: Mapping[str, str]) -> None:
        for n, lab in changes.items():
            if hm._modes[n] != lab:
                src = hm._modes[n]
                hm.set_modes({n: lab})
                last_change[n] = t
                log.append(TransitionRecord(t, n, src, lab, "controller"))
                ev_t.append(t)
                ev_i.append(-1)
                ev_y.append(yv.copy())
                check_burst(t, yv)

    def check_burst(t: float, yv: np.ndarray) -> None:
        if len(log) > max_events:
            fail(t, yv, f"more than {max_events} transitions (max_events)")
        if len(log) > max_burst and t - log[-max_burst - 1].time <= burst_window:
            names = sorted({f"{r.variable}: {r.source} → {r.target}" for r in log[-max_burst - 1:]})
            fail(t, yv, f"chattering: {max_burst + 1} transitions within {burst_window:.3g} s "
                        f"({'; '.join(names)}); add a hysteresis band or a dwell time")

    def fail(t: float, yv: np.ndarray, why: str):
        res = make_results(f"failed: {why}")
        raise SimulationError(f"hybrid model {model.name!r}: {why} at t = {t:.9g} s", time=t,
                              state=dict(zip(model.state_names, map(float, yv))), results=res)

    def make_results(message: str) -> HybridResults:
        t_arr = np.concatenate(ts) if ts else np.zeros(0)
        y_arr = np.vstack(ys) if ys else np.zeros((0, model.system.nx))
        U = np.array(U_rows) if U_rows else np.zeros((0, len(model.input_names)))
        rec = _RecordedInputs(model.input_names, t_arr, U.reshape(len(t_arr), -1))
        mv = {}
        for n, var in hm.variables.items():
            mv[n] = np.array([mode_rows[k][n] for k in midx], dtype=object)
        stats = {"nfev": watch.nfev, "njev": watch.njev, "steps": watch.steps,
                 "wall_time": _time.perf_counter() - watch.start, "events": len(log),
                 "segments": n_seg, "backend": "native" if native is not None else "python"}
        return HybridResults(model, t_arr, y_arr, rec, stats=stats, message=message,
                             events=(np.array(ev_t), np.array(ev_i, dtype=int),
                                     np.array(ev_y) if ev_y else np.zeros((0, model.system.nx))),
                             transitions=list(log), mode_values=mv, param_rows=list(param_rows),
                             param_index=np.array(pidx, dtype=int),
                             du_rows=(np.array(du_rows).reshape(len(t_arr), -1) if du_rows else
                                      np.zeros((0, len(model.equations.input_derivatives)))))

    # schedules
    timed = sorted({tt for tr in hm.transitions if tr.guard.timed for tt in tr.guard.times
                    if t0 <= tt <= t1})
    breaks = sorted({float(b) for b in rhs.inputs.breakpoints() if t0 < b < t1})
    period = controller.period if controller is not None else None
    k_sample = 0
    n_seg = 0

    sampled_once: list[bool] = []

    def sample(t: float, yv: np.ndarray) -> None:
        out = rhs.control(t, yv)
        changes = {}
        for k, v in out.items():
            if k in hm.variables:
                hm.variables[k].value(v)  # validates the label
                changes[k] = v
            elif k in model.input_names and model.input_names.index(k) in rhs.ctrl_idx:
                rhs.held[rhs.ctrl_idx.index(model.input_names.index(k))] = rhs.control_value(t, k, v)
            else:
                raise ParameterError(f"controller output {k!r}: not one of its inputs "
                                     f"({', '.join(controller.inputs) or 'none'}) or a discrete "
                                     f"variable ({', '.join(hm.variables) or 'none'})")
        if not sampled_once:  # a zero-order hold needs a first value of every input it sets
            missing = [model.input_names[j] for j in rhs.ctrl_idx if model.input_names[j] not in out]
            if missing:
                raise UserCallableError(
                    f"controller (inputs {', '.join(controller.inputs)}): "
                    f"{describe_callable(controller.fn)} gave no value for {', '.join(map(repr, missing))} "
                    f"at its first sample, t = {t:.9g} s; expected a value for each of its inputs "
                    "(later samples may leave one out to hold it)", time=t)
            sampled_once.append(True)
        if native is not None and rhs.ctrl_idx:  # the held values, in their tables
            model.system._native[0][rhs.held_slots] = rhs.held
        external(t, yv, changes)

    t = t0
    eps_t = 1e-12 * max(1.0, abs(t1))
    try:
        try:
            if controller is not None and period is not None:
                sample(t, y)
                k_sample = 1
            start_fail = watch.check_start(t, y, rhs)
        except UserCallableError as err:
            start_fail = Failure("callable", t, str(err), state=y, error=err)
        if start_fail is not None:
            record(np.array([t]), y[None, :])
            raise watch.error(f"hybrid model {model.name!r}", start_fail,
                              make_results(f"failed: {start_fail.cause}"))
        while True:
            # instantaneous transitions (guards that already hold, timed ones due now)
            try:
                for _ in range(max_burst + 2):
                    fired = False
                    for i, tr in enumerate(hm.transitions):
                        if not enabled(i, t):
                            continue
                        if tr.guard.timed:
                            due = any(abs(tt - t) <= eps_t for tt in tr.guard.times)
                            if due and not any(r.time == t and r.cause == tr.label for r in log):
                                y = fire(i, t, y, tr.label)
                                fired = True
                                break
                        elif bound[i](t, y) > tr.guard.tolerance():
                            y = fire(i, t, y, tr.guard.describe())
                            fired = True
                            break
                    if not fired:
                        break
            except UserCallableError as err:
                if not ts:
                    record(np.array([t]), y[None, :])
                raise watch.error(f"hybrid model {model.name!r}",
                                  Failure("callable", t, str(err), state=y, error=err),
                                  make_results(f"failed: {err}")) from None
            if t >= t1 - eps_t:
                break
            # next hard stop
            stops = [t1]
            stops += [tt for tt in timed if tt > t + eps_t][:1]
            stops += [b for b in breaks if b > t + eps_t][:1]
            if period is not None:
                stops.append(t0 + k_sample * period)
            for i, tr in enumerate(hm.transitions):
                if tr.dwell:
                    en = last_change[tr.variable] + tr.dwell
                    if en > t + eps_t:
                        stops.append(en)
            t_next = min(stops)
            active = [i for i, tr in enumerate(hm.transitions)
                      if not tr.guard.timed and enabled(i, t)]
            seg_eval = None
            if te_all is not None:
                lo = te_all >= t if not ts else te_all > t
                seg_eval = te_all[lo & (te_all <= t_next)]
            else:
                record(np.array([t]), y[None, :])
            n_seg += 1
            if native is None:
                events = _guard_set(hm, shifted, active) if active else None
            else:
                events = _native_guards(hm, native, active)
            seg = run_segment(method, rhs, jac, t, t_next, y, watch, rtol=rtol, atol=atol,
                              max_step=max_step, first_step=None, t_eval=seg_eval,
                              events=events, native=native)
            record(seg.t, seg.y)
            if seg.failure is not None:
                raise watch.error(f"hybrid model {model.name!r}", seg.failure,
                                  make_results(f"failed: {seg.failure.cause}"))
            if seg.hit is not None:
                te, gi, ye = seg.hit
                t, y = te, ye
                try:
                    y = fire(active[gi], t, y, hm.transitions[active[gi]].guard.describe())
                except UserCallableError as err:
                    raise watch.error(f"hybrid model {model.name!r}",
                                      Failure("callable", t, str(err), state=y, error=err),
                                      make_results(f"failed: {err}")) from None
                continue
            t, y = t_next, seg.y_end
            if period is not None and abs(t - (t0 + k_sample * period)) <= eps_t and t < t1 - eps_t:
                try:
                    sample(t, y)
                except UserCallableError as err:
                    raise watch.error(f"hybrid model {model.name!r}",
                                      Failure("callable", t, str(err), state=y, error=err),
                                      make_results(f"failed: {err}")) from None
                k_sample += 1
        res = make_results("ok")
    finally:  # leave the model as it was (the run's modes are in the results)
        model.system.params[:] = saved_params
        hm._modes.update(saved_modes)
        model.system.set_native_inputs(None)
    return res
