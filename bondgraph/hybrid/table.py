"""The mode table: each mode of a hybrid model, its equations and the transitions leaving it.

:func:`mode_table` tabulates a :class:`~.model.HybridModel` once: the state equations
the same in every mode (the common ones), and for each mode — each combination of the
discrete variables' labels, or one variable at a time when there are more than
``max_table_modes`` combinations — the equations that change with it, with every
parameter as a number, and the transitions that leave it. :class:`ModeTable` prints it.

Examples
--------
The bang-bang cart of :func:`.examples.cart`: ``push`` is a ±2 N force.

>>> from bondgraph.hybrid.examples import cart
>>> table = mode_table(cart())
>>> table.common, table.equations(push="Left")
(('der(cart/v.x) = cart/m.f',), ['der(cart/v.x) = cart/m.f', 'der(cart/m.f) = -2.0'])
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

import sympy as sp

from ..errors import ParameterError
from ..model import Model
from .modes import Discrete

if TYPE_CHECKING:
    from .model import HybridModel

__all__ = ["ModeTable", "mode_table"]


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
    n_transitions : int

    Examples
    --------
    >>> from bondgraph.hybrid.examples import cart
    >>> table = cart().table()
    >>> list(table.modes), table.equations(push="Right")[-1]
    ([(('push', 'Left'),), (('push', 'Right'),)], 'der(cart/m.f) = 2.0')
    >>> table.equations(push="Up")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: mode {'push': 'Up'}: not in the table
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


def mode_table(hm: "HybridModel") -> ModeTable:
    """Tabulate the modes of ``hm`` (:meth:`HybridModel.table <.model.HybridModel.table>`
    caches it): the common equations, and per mode its switched equations and the
    transitions that leave it. Parameters are shown as numbers (6 digits); expressions
    past ``hm.max_ops`` operations are left unsimplified, and when an expanded state
    equation grows too long to read, the switched constitutive relations are listed
    instead.

    Examples
    --------
    >>> from bondgraph.hybrid.examples import cart
    >>> print(mode_table(cart(turn=0.5)))
    hybrid model 'cart': 1 discrete variable, 2 modes, 2 transitions
    common equations:
      der(cart/v.x) = cart/m.f
    mode push=Left:
      der(cart/m.f) = -2.0
      → push=Right when cart/v.x < 0
    mode push=Right:
      der(cart/m.f) = 2.0
      → push=Left when cart/v.x > 0.5
    """
    names = set(hm.variables)
    rows, direct = _table_rows(hm.model, names)
    params = dict(hm.model.params)
    fixed = {k: v for k, v in params.items() if k not in names}
    common = tuple(_pretty(s, row, fixed, hm.max_ops) for s, row, sw in rows if not sw)
    switched = [(s, row) for s, row, sw in rows if sw]
    # large models: show the switched constitutive relations instead of expanded rows
    use_direct = any(row is None for _, row in switched)
    vars_ = list(hm.variables.values())
    modes = {}
    for combo in _combinations(vars_, hm.max_table_modes):
        key = tuple((v.name, lab) for v, lab in zip(vars_, combo))
        vals = dict(fixed)
        vals.update({v.name: v.value(lab) for v, lab in zip(vars_, combo)})
        if use_direct:
            eqs = tuple(_pretty_relation(n, ex, vals, hm.max_ops) for n, ex in direct)
        else:
            eqs = tuple(_pretty(s, row, vals, hm.max_ops) for s, row in switched)
        trans = tuple(tr.describe() for tr in hm.transitions
                      if (tr.source == dict(key)[tr.variable]) or
                      (tr.source == "*" and tr.target != dict(key)[tr.variable]))
        modes[key] = (eqs, trans)
    return ModeTable(hm.model.name, tuple(vars_), common, modes, len(hm.transitions))


def _combinations(vars_: list[Discrete], limit: int) -> list[tuple[str, ...]]:
    """Every combination of labels, or past ``limit`` one variable at a time (the others
    at their initial modes)."""
    combos = list(itertools.product(*[v.labels for v in vars_]))
    if len(combos) <= limit:
        return combos
    combos = []
    for i, v in enumerate(vars_):
        for lab in v.labels:
            combos.append(tuple(lab if j == i else w.initial for j, w in enumerate(vars_)))
    return list(dict.fromkeys(combos))
