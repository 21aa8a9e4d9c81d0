"""Input signals: constants, tables, C² splines, expressions of time, callables.

A model's inputs (:func:`bondgraph.Input`) get their values at simulation time
from a :class:`Signal`. Where the equations need an input's time derivative
(a prescribed motion driving dependent inertias), the signal must provide it:
tables (piecewise linear), splines (C² cubic), time expressions and
``Signal(value, derivative)`` do; a bare callable does not, and the error says so.

Examples
--------
>>> s = Spline([0, 1, 2], [0.0, 1.0, 0.0])
>>> float(s.value(1.0)), float(s.derivative(1.0))
(1.0, 0.0)
>>> Table([0, 1], [0, 2]).value(0.25)
0.5
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp
from scipy.interpolate import CubicSpline

from .errors import ParameterError

__all__ = ["Signal", "Constant", "Table", "Spline", "as_signal", "InputSet"]


class Signal:
    """A scalar time signal with an optional derivative.

    Parameters
    ----------
    value : callable
        ``value(t) -> float``.
    derivative : callable, optional
        ``derivative(t) -> float``.
    name : str, optional
    """

    def __init__(self, value: Callable[[float], float],
                 derivative: Callable[[float], float] | None = None, name: str = "signal"):
        self._value = value
        self._derivative = derivative
        self.name = name

    @property
    def has_derivative(self) -> bool:
        return self._derivative is not None

    def value(self, t: float) -> float:
        return float(self._value(t))

    def derivative(self, t: float) -> float:
        if self._derivative is None:
            raise ParameterError(f"signal {self.name!r}: its time derivative is needed but "
                                 "was not given; use a Table, a Spline or Signal(value, derivative)")
        return float(self._derivative(t))

    def breakpoints(self) -> np.ndarray:
        """Times where the signal or its derivative jumps (integration restarts)."""
        return np.array([])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Constant(Signal):
    """A constant value (derivative 0)."""

    def __init__(self, value: float, name: str = "constant"):
        v = float(value)
        super().__init__(lambda t: v, lambda t: 0.0, name)
        self.constant = v


class Table(Signal):
    """Piecewise-linear interpolation of ``(times, values)``, held at the ends.

    Examples
    --------
    >>> Table([0, 1, 3], [0, 1, 1]).derivative(0.5)
    1.0
    """

    def __init__(self, times, values, name: str = "table"):
        self.times = np.asarray(times, dtype=float)
        self.values = np.asarray(values, dtype=float)
        if self.times.ndim != 1 or self.times.shape != self.values.shape or len(self.times) < 2:
            raise ParameterError(f"table {name!r}: times {self.times.shape} and values "
                                 f"{self.values.shape}: expected two 1-D arrays of equal "
                                 "length ≥ 2")
        if np.any(np.diff(self.times) <= 0):
            raise ParameterError(f"table {name!r}: times must increase strictly")
        slopes = np.diff(self.values) / np.diff(self.times)
        tt, vv = self.times, self.values

        def der(t):
            i = np.searchsorted(tt, t, side="right") - 1
            if i < 0 or i >= len(slopes):
                return 0.0
            return float(slopes[i])

        super().__init__(lambda t: float(np.interp(t, tt, vv)), der, name)

    def breakpoints(self) -> np.ndarray:
        return self.times.copy()


class Spline(Signal):
    """C² cubic spline through ``(times, values)`` (scipy ``CubicSpline``).

    ``bc_type`` defaults to ``"clamped"`` (zero slope at both ends), so a
    prescribed motion starts and ends at rest.
    """

    def __init__(self, times, values, bc_type: Any = "clamped", name: str = "spline"):
        times = np.asarray(times, dtype=float)
        values = np.asarray(values, dtype=float)
        if times.shape != values.shape or times.ndim != 1 or len(times) < 2:
            raise ParameterError(f"spline {name!r}: expected two 1-D arrays of equal length ≥ 2")
        self.cs = CubicSpline(times, values, bc_type=bc_type, extrapolate=False)
        self.d1 = self.cs.derivative(1)
        self.d2 = self.cs.derivative(2)
        t0, t1 = times[0], times[-1]
        v0, v1 = values[0], values[-1]
        s1_0, s1_1 = float(self.d1(t0)), float(self.d1(t1))
        cs, d1 = self.cs, self.d1

        def val(t):
            if t <= t0:
                return v0 + s1_0 * (t - t0)
            if t >= t1:
                return v1 + s1_1 * (t - t1)
            return float(cs(t))

        def der(t):
            if t <= t0:
                return s1_0
            if t >= t1:
                return s1_1
            return float(d1(t))

        super().__init__(val, der, name)
        self.times = times

    def second_derivative(self, t: float) -> float:
        if t < self.times[0] or t > self.times[-1]:
            return 0.0
        return float(self.d2(t))

    def breakpoints(self) -> np.ndarray:
        return self.times[[0, -1]]


def as_signal(obj: Any, name: str) -> Signal:
    """Turn a number, sympy expression of ``t``, callable or Signal into a Signal."""
    if isinstance(obj, Signal):
        return obj
    if isinstance(obj, (int, float, np.floating, np.integer)):
        return Constant(float(obj), name)
    if isinstance(obj, sp.Expr):
        from .elements import t as T

        free = obj.free_symbols - {T}
        if free:
            raise ParameterError(f"input {name!r}: expression {obj} uses {sorted(map(str, free))}; "
                                 "expected an expression of t only")
        f = sp.lambdify(T, obj, "math")
        df = sp.lambdify(T, sp.diff(obj, T), "math")
        return Signal(f, df, name)
    if callable(obj):
        return Signal(obj, None, name)
    raise ParameterError(f"input {name!r}: got {obj!r}; expected a number, a sympy expression "
                         "of t, a callable of t, or a Signal (Table, Spline)")


class InputSet:
    """All inputs of a model, evaluated together: ``u(t)``, ``du(t)``."""

    def __init__(self, names: list[str], deriv_names: list[str], given: Mapping[str, Any] | None):
        given = dict(given or {})
        problems = []
        missing = [n for n in names if n not in given]
        for n in missing:
            problems.append(f"input {n!r} has no signal; pass inputs={{{n!r}: ...}}")
        for n in sorted(set(given) - set(names)):
            problems.append(f"input {n!r} given but the model has no such input "
                            f"(inputs: {', '.join(names) or 'none'})")
        if problems:
            raise ParameterError(problems, subject="inputs")
        self.names = list(names)
        self.deriv_names = list(deriv_names)
        self.signals = [as_signal(given[n], n) for n in names]
        self.dsignals = [self.signals[names.index(n)] for n in deriv_names]
        probs = [f"input {s.name!r}: the model needs its time derivative (it drives a dependent "
                 "storage element); give a Table, a Spline or Signal(value, derivative)"
                 for s in self.dsignals if not s.has_derivative]
        if probs:
            raise ParameterError(probs, subject="inputs")
        self.constant = all(isinstance(s, Constant) for s in self.signals)
        self._u = np.zeros(len(names))
        self._du = np.zeros(len(deriv_names))

    def __call__(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        for i, s in enumerate(self.signals):
            self._u[i] = s.value(t)
        for i, s in enumerate(self.dsignals):
            self._du[i] = s.derivative(t)
        return self._u, self._du

    def breakpoints(self) -> np.ndarray:
        pts = [s.breakpoints() for s in self.signals]
        return np.unique(np.concatenate(pts)) if pts else np.array([])
