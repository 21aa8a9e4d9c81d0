"""The hybrid model: a built model with discrete variables and the transitions between modes.

:class:`HybridModel` checks every transition against the model (its variable, its modes,
the quantities its guard reads) and keeps the current modes: switching one is a change of
the compiled model's parameters, never a recompilation. :meth:`HybridModel.build` builds
the bond graph with the discrete variables as parameters.

Examples
--------
>>> from bondgraph.hybrid.examples import cart
>>> hm = cart()
>>> sorted(hm.variables), hm.modes, len(hm.transitions)
(['push'], {'push': 'Right'}, 2)
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import ParameterError
from ..model import Model, build
from .control import _Probe
from .guards import Guard, When
from .modes import Discrete, Transition
from .table import ModeTable, mode_table

__all__ = ["HybridModel"]


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

    Examples
    --------
    A mass pushed right or left by a bang-bang force, switched by its position:

    >>> from bondgraph import BondGraph, MSe, One, I
    >>> from bondgraph.hybrid import Above, Below, Discrete, Transition
    >>> push = Discrete("push", {"Left": -1.0, "Right": 1.0}, initial="Right")
    >>> bg = BondGraph("cart")
    >>> _ = bg.add(MSe("F", 2.0 * push.symbol), One("v", displacement="x"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> hm = HybridModel.build(bg, [push], [Transition("push", "Right", "Left", Above("cart/v.x", 1.0)),
    ...                                     Transition("push", "Left", "Right", Below("cart/v.x", 0.0))])
    >>> hm, hm.modes
    (HybridModel('cart', variables=['push'], 2 transitions), {'push': 'Right'})
    >>> hm.set_modes({"push": "Left"}); hm.model.params["push"]
    -1.0
    >>> HybridModel.build(bg, [push], [Transition("push", "Right", "Up", Above("cart/v.y", 1.0))])
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: hybrid model 'cart': 2 problems
      - transition 'push: Right → Up': 'push' has no mode 'Up' (modes: Left, Right)
      - transition 'push: Right → Up': guard quantity 'cart/v.y': not a state, input, output, discrete variable or declared external signal of 'cart'; did you mean 'cart/v.x', 'cart/m.f'?
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
            self._table = mode_table(self)
        return self._table

    def __repr__(self) -> str:
        return (f"HybridModel({self.model.name!r}, variables={list(self.variables)}, "
                f"{len(self.transitions)} transitions)")
