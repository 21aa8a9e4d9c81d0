"""Discrete variables and their transitions: the modes of a hybrid model.

A :class:`Discrete` variable has named modes, each with a number the laws read through
its :attr:`~Discrete.symbol` (a run-time parameter of the compiled model, so a switch never
recompiles). A :class:`Transition` switches one variable from a mode to another when a
guard (:mod:`.guards`) holds, after a dwell time if given, optionally resetting the
state; :func:`hysteresis` makes the usual pair with a band between them.

Examples
--------
>>> valve = Discrete("valve", ["closed", "open"])
>>> [t.describe() for t in hysteresis("valve", "closed", "open", "p", 1e7, 2e5, dwell=0.01)]
['→ valve=open when p > 1.01e+07 (dwell 0.01 s)', '→ valve=closed when p < 9.9e+06 (dwell 0.01 s)']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from ..errors import ParameterError
from .guards import Above, Below, Guard, _fmt

__all__ = ["Discrete", "Transition", "hysteresis"]


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
        """The mode labels, in order."""
        return [p[0] for p in self.modes]

    def value(self, label: str) -> float:
        """The number a mode label stands for (a :class:`~bondgraph.errors.ParameterError`
        naming the labels for an unknown one)."""
        for k, v in self.modes:
            if k == label:
                return v
        raise ParameterError(f"discrete {self.name!r}: no mode {label!r} (modes: "
                             f"{', '.join(self.labels)})")

    def label(self, value: float) -> str:
        """The mode label of a number."""
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
        Its label in the log and in messages (default ``"variable: source → target"``).

    Examples
    --------
    >>> tr = Transition("stop", "free", "contact", Below("x", 0.0), dwell=1e-3)
    >>> tr.label, tr.describe()
    ('stop: free → contact', '→ stop=contact when x < 0 (dwell 0.001 s)')
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
        """The transition's name, or ``"variable: source → target"``."""
        return self.name or f"{self.variable}: {self.source} → {self.target}"

    def describe(self) -> str:
        """One line for the mode table: target, guard and dwell."""
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
