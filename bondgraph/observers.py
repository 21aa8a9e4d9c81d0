"""Observers: named expressions of a model's quantities, compiled with its outputs.

``build(model, observe={"dp": p_b - p_a})`` adds ``dp`` to the compiled outputs: it is a
column of the results (``res["dp"]``), and a hybrid guard on it (``Above("dp", 5e4)``)
is evaluated in C by the native driver like a guard on a state. An observer is a sympy
expression of the model's states, inputs and parameters (symbols named as they are:
``sp.Symbol("rig/a/C.e")``), of its bond variables (``sp.Symbol("e[rig/b3]")``) and of
time ``t``; it changes nothing in the equations.

Examples
--------
>>> import sympy as sp
>>> from bondgraph import BondGraph, One, I, C, build, simulate
>>> bg = BondGraph("osc")
>>> _ = bg.add(One("v"), I("m", 1.0, initial=1.0), C.spring("k", 4.0))
>>> _ = bg.connect("v", "m"); _ = bg.connect("v", "k")
>>> v, e = sp.Symbol("osc/m.f"), sp.Symbol("osc/k.e")
>>> model = build(bg, observe={"energy": v**2 / 2 + e**2 / 8})   # ½mv² + F²/(2k)
>>> res = simulate(model, (0, 3), rtol=1e-10, atol=1e-12)
>>> bool(abs(res["energy"] - 0.5).max() < 1e-8)
True
"""

from __future__ import annotations

import difflib
import hashlib
from typing import Any, Mapping

import symengine as se
import sympy as sp

from .equations import _to_se
from .errors import ParameterError

__all__ = ["observer_key", "resolve_observers"]


def _checked(observe: Mapping[str, Any] | None) -> dict[str, sp.Expr]:
    if observe is None:
        return {}
    if not isinstance(observe, Mapping):
        raise ParameterError(f"observe: found {type(observe).__name__}, expected a dict "
                             "name → sympy expression")
    problems, out = [], {}
    for name, expr in observe.items():
        if not (isinstance(name, str) and name.strip()):
            problems.append(f"observe: name {name!r}, expected a non-empty string")
            continue
        if isinstance(expr, bool) or not isinstance(expr, (sp.Expr, int, float)):
            problems.append(f"observer {name!r}: found {expr!r} ({type(expr).__name__}), expected a "
                            "sympy expression of states, inputs, parameters, bond variables and t")
            continue
        out[name] = sp.sympify(expr)
    if problems:
        raise ParameterError(problems)
    return out


def observer_key(key: str, observe: Mapping[str, Any] | None) -> str:
    """The cache key of a model with these observers (``key`` itself without any).

    Parameters
    ----------
    key : str
        The model's fingerprint (:meth:`~bondgraph.equations.Collected.fingerprint`).
    observe : mapping or None
        Observer name → sympy expression.

    Returns
    -------
    str

    Raises
    ------
    ParameterError
        Not a mapping, a bad name, a value that is not an expression (all listed).

    Examples
    --------
    >>> import sympy as sp
    >>> observer_key("abc", None)
    'abc'
    >>> observer_key("abc", {"x2": sp.Symbol("x") * 2}) == observer_key("abc", {"x2": 2 * sp.Symbol("x")})
    True
    >>> observer_key("abc", {"bad": "x"})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: observer 'bad': found 'x' (str), expected a sympy expression of states, inputs, parameters, bond variables and t
    """
    obs = _checked(observe)
    if not obs:
        return key
    h = hashlib.sha256(key.encode())
    for name in sorted(obs):
        h.update(f"|{name}={sp.srepr(obs[name])}".encode())
    return h.hexdigest()[:32]


def resolve_observers(eqs, observe: Mapping[str, Any] | None, output_names: list[str]) -> dict[str, se.Basic]:
    """The observers as expressions of the compiled code's symbols (bond variables
    replaced by their expressions); every unknown symbol or clashing name is named.

    Parameters
    ----------
    eqs : Equations
    observe : mapping or None
        Observer name → sympy expression.
    output_names : list of str
        The compiled outputs' names (an observer may not reuse one).

    Returns
    -------
    dict
        Name → symengine expression.

    Raises
    ------
    ParameterError
        Unknown symbols (with the nearest names), names that are outputs, states or
        inputs already, or a value that is not an expression.

    Examples
    --------
    >>> import sympy as sp
    >>> from bondgraph import BondGraph, Se, One, I, assemble, derive
    >>> bg = BondGraph("p")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> eqs = derive(assemble(bg))
    >>> resolve_observers(eqs, {"power": sp.Symbol("e[p/b1]") * sp.Symbol("p/m.f")}, [])
    {'power': p/F.e*p/m.f}
    >>> resolve_observers(eqs, {"v2": sp.Symbol("p/m.v") ** 2}, [])
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: model 'p': observers: 1 problem
      - observer 'v2': 'p/m.v' (did you mean 'p/m.m', 'p/m.f', 'p/F.e'?): not a state, input, parameter, bond variable or t of model 'p'
    """
    obs = _checked(observe)
    known = {s.name for s in eqs.states} | set(eqs.inputs) | set(eqs.params) | {"t"}
    taken = set(output_names) | {s.name for s in eqs.states} | set(eqs.inputs)
    problems, out = [], {}
    for name, expr in obs.items():
        if name in taken:
            problems.append(f"observer {name!r}: the model has a state, input or output of that name "
                            "already; choose another name")
            continue
        subs, bad = {}, []
        for s in expr.free_symbols:
            if s.name in eqs.bond_exprs:
                subs[se.Symbol(s.name)] = eqs.bond_exprs[s.name]
            elif s.name not in known:
                close = difflib.get_close_matches(s.name, sorted(known | set(eqs.bond_exprs)), n=3)
                bad.append(f"{s.name!r}" + (f" (did you mean {', '.join(map(repr, close))}?)" if close else ""))
        if bad:
            problems.append(f"observer {name!r}: {', '.join(sorted(bad))}: not a state, input, parameter, "
                            f"bond variable or t of model {eqs.model!r}")
            continue
        ex = _to_se(expr)
        out[name] = ex.subs(subs) if subs else ex
    if problems:
        raise ParameterError(problems, subject=f"model {eqs.model!r}: observers")
    return out
