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

from .errors import BondGraphError, ParameterError, UserCallableError

__all__ = ["Signal", "Constant", "Table", "Spline", "PiecewisePolynomial", "as_signal", "InputSet",
           "describe_callable", "call_user"]


def describe_callable(fn: Any) -> str:
    """How messages name a user function: ``function 'ramp' (file.py:12)``, ``<lambda> (…)``.

    Parameters
    ----------
    fn : callable

    Returns
    -------
    str

    Examples
    --------
    >>> def ramp(t): return t
    >>> describe_callable(ramp).startswith("function 'ramp' (")
    True
    """
    own = getattr(fn, "_bg_describe", None)
    if own:
        return own
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    code = getattr(fn, "__code__", None)
    where = ""
    if code is not None:
        import os

        where = f" ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
    if name is None:
        return repr(fn)
    return f"function {name!r}{where}"


def call_user(fn: Callable, args: tuple, what: str, t: float) -> Any:
    """Call a user function; anything it raises becomes a named :class:`UserCallableError`.

    ``what`` says what the function serves (e.g. ``"input 'force'"``); errors of our own
    family pass through unchanged.

    Parameters
    ----------
    fn : callable
    args : tuple
        Its arguments.
    what : str
        What it serves, for the message.
    t : float
        Simulation time, for the message.

    Returns
    -------
    object
        What ``fn`` returned.

    Raises
    ------
    UserCallableError
        ``fn`` raised (``original`` is its exception).

    Examples
    --------
    >>> call_user(lambda t: 2 * t, (1.5,), "input 'u'", 1.5)
    3.0
    >>> call_user(lambda t: 1 / 0, (0.0,), "input 'u'", 0.0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.UserCallableError: input 'u': function '<lambda>' (...) raised ZeroDivisionError: division by zero at t = 0 s
    """
    try:
        return fn(*args)
    except BondGraphError:
        raise
    except Exception as exc:  # noqa: BLE001 - a user function: named and wrapped
        raise UserCallableError(f"{what}: {describe_callable(fn)} raised "
                                f"{type(exc).__name__}: {exc} at t = {t:.9g} s", time=t,
                                original=exc) from exc


def _numbers(a: Any, owner: str, what: str) -> np.ndarray:
    """``a`` as a float array, or a :class:`ParameterError` naming ``owner`` and ``what``."""
    try:
        return np.asarray(a, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{owner}: {what} {a!r}: {exc}; expected numbers") from None


def _finite(v: Any, fn: Callable, what: str, t: float) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError) as exc:
        raise UserCallableError(f"{what}: {describe_callable(fn)} returned {v!r} at "
                                f"t = {t:.9g} s; expected a number", time=t, original=exc) from None
    if not np.isfinite(x):
        raise UserCallableError(f"{what}: {describe_callable(fn)} returned {x} at t = {t:.9g} s; "
                                "expected a finite number", time=t)
    return x


class Signal:
    """A scalar time signal with an optional derivative.

    Parameters
    ----------
    value : callable
        ``value(t) -> float``.
    derivative : callable, optional
        ``derivative(t) -> float``; needed where the equations use the input's rate
        (a prescribed motion driving a dependent inertia).
    name : str, optional
        The input's name, for messages.

    Examples
    --------
    A force ``sin t`` on a unit mass: ``v = 1 − cos t``.

    >>> import math
    >>> from bondgraph import BondGraph, MSe, One, I, Input, build, simulate
    >>> bg = BondGraph("shake")
    >>> _ = bg.add(MSe("F", Input("force")), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> force = Signal(math.sin, math.cos, name="force")
    >>> res = simulate(build(bg), (0.0, 2.0), inputs={"force": force}, rtol=1e-10, atol=1e-12,
    ...                progress=False)
    >>> bool(abs(res["shake/m.f"][-1] - (1 - math.cos(2.0))) < 1e-8)
    True
    >>> Signal(math.sin).derivative(0.0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: signal 'signal': its time derivative is needed but was not given; use a Table, a Spline or Signal(value, derivative)
    """

    def __init__(self, value: Callable[[float], float],
                 derivative: Callable[[float], float] | None = None, name: str = "signal"):
        self._value = value
        self._derivative = derivative
        self.name = name

    @property
    def has_derivative(self) -> bool:
        """Can :meth:`derivative` be evaluated?"""
        return self._derivative is not None

    def value(self, t: float) -> float:
        """The value at time ``t``.

        Parameters
        ----------
        t : float
            Time (s).

        Returns
        -------
        float

        Raises
        ------
        UserCallableError
            The function raised or returned something that is not a finite number.
        """
        what = f"input {self.name!r}"
        return _finite(call_user(self._value, (t,), what, t), self._value, what, t)

    def derivative(self, t: float) -> float:
        """The time derivative at ``t``.

        Parameters
        ----------
        t : float
            Time (s).

        Returns
        -------
        float

        Raises
        ------
        ParameterError
            The signal has no derivative.
        UserCallableError
            The function raised or returned something that is not a finite number.
        """
        if self._derivative is None:
            raise ParameterError(f"signal {self.name!r}: its time derivative is needed but "
                                 "was not given; use a Table, a Spline or Signal(value, derivative)")
        what = f"time derivative of input {self.name!r}"
        return _finite(call_user(self._derivative, (t,), what, t), self._derivative, what, t)

    def breakpoints(self) -> np.ndarray:
        """Times where the signal or its derivative jumps (integration restarts).

        Returns
        -------
        ndarray
        """
        return np.array([])

    def values_at(self, t: np.ndarray) -> np.ndarray:
        """:meth:`value` at every time of ``t`` (a subclass may do it in one call).

        Parameters
        ----------
        t : ndarray
            Time (s).

        Returns
        -------
        ndarray
        """
        return np.array([self.value(float(ti)) for ti in np.asarray(t, dtype=float)], dtype=float)

    def derivatives_at(self, t: np.ndarray) -> np.ndarray:
        """:meth:`derivative` at every time of ``t``.

        Parameters
        ----------
        t : ndarray
            Time (s).

        Returns
        -------
        ndarray
        """
        return np.array([self.derivative(float(ti)) for ti in np.asarray(t, dtype=float)], dtype=float)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class PiecewisePolynomial(Signal):
    """A signal given by a scipy ``PPoly``; the compiled model evaluates it natively.

    Parameters
    ----------
    ppoly : scipy.interpolate.PPoly or Pieces
        The polynomial pieces (a ``Table`` uses ``Pieces``, the same layout).
    outside : {"hold", "linear"}
        Beyond the breakpoints: hold the end value, or continue along the end slope.
    name : str
    corners : bool
        Restart the integration at every breakpoint (True: slopes jump there) or only
        at the ends (a smooth signal).

    Raises
    ------
    ParameterError
        An unknown ``outside``.

    Examples
    --------
    >>> from scipy.interpolate import PPoly
    >>> ramp = PiecewisePolynomial(PPoly([[2.0], [0.0]], [0.0, 1.0]), outside="linear")
    >>> ramp.value(0.5), ramp.value(3.0), ramp.derivative(3.0)
    (1.0, 6.0, 2.0)
    """

    def __init__(self, ppoly, outside: str = "hold", name: str = "pp", corners: bool = True):
        self.corners = corners
        if outside not in ("hold", "linear"):
            raise ParameterError(f"signal {name!r}: outside={outside!r}, expected 'hold' or 'linear'")
        self.pp = ppoly
        self.dpp = ppoly.derivative()
        self.outside = outside
        x = ppoly.x
        self._x0, self._x1 = float(x[0]), float(x[-1])
        self._v0, self._v1 = float(ppoly(self._x0)), float(ppoly(self._x1))
        self._s0 = float(self.dpp(self._x0)) if outside == "linear" else 0.0
        self._s1 = float(self.dpp(self._x1)) if outside == "linear" else 0.0
        super().__init__(self._val, self._der, name)

    def _val(self, t):
        if t < self._x0:
            return self._v0 + self._s0 * (t - self._x0)
        if t > self._x1:
            return self._v1 + self._s1 * (t - self._x1)
        return float(self.pp(t))

    def _der(self, t):  # at an end point itself: the one-sided value from inside
        if t < self._x0:
            return self._s0
        if t > self._x1:
            return self._s1
        return float(self.dpp(t))

    def values_at(self, t: np.ndarray) -> np.ndarray:
        """:meth:`value` at every time of ``t``, the polynomial evaluated in one call.

        Parameters
        ----------
        t : ndarray
            Time (s).

        Returns
        -------
        ndarray
        """
        return self._many(t, self.pp, self._v0 + self._s0 * (np.asarray(t, float) - self._x0),
                          self._v1 + self._s1 * (np.asarray(t, float) - self._x1))

    def derivatives_at(self, t: np.ndarray) -> np.ndarray:
        """:meth:`derivative` at every time of ``t``.

        Parameters
        ----------
        t : ndarray
            Time (s).

        Returns
        -------
        ndarray
        """
        t = np.asarray(t, dtype=float)
        return self._many(t, self.dpp, np.full(t.shape, self._s0), np.full(t.shape, self._s1))

    def _many(self, t, pp, before, after) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        out = np.where(t < self._x0, before, after)
        inside = (t >= self._x0) & (t <= self._x1)
        if inside.any():
            out[inside] = np.asarray(pp(t[inside]), dtype=float)
        return out

    def breakpoints(self) -> np.ndarray:
        """Where the integration restarts: every corner of a table; only the ends of a
        smooth signal (spline).

        Returns
        -------
        ndarray
        """
        x = np.asarray(self.pp.x, dtype=float)
        return x if self.corners else x[[0, -1]]

    def pack(self) -> np.ndarray:
        """``[n, k, linear, x0..xn, c...]`` for the compiled evaluator.

        Returns
        -------
        ndarray
            ``n`` intervals of degree ``k``, the extrapolation flag, the breakpoints
            and the coefficients (highest power first, interval by interval within a
            power).

        Examples
        --------
        >>> Table([0, 1], [0, 2]).pack()
        array([1., 1., 0., 0., 1., 2., 0.])
        """
        c = np.ascontiguousarray(self.pp.c, dtype=float)  # (k+1, n)
        k1, n = c.shape
        return np.concatenate([[n, k1 - 1, 1.0 if self.outside == "linear" else 0.0],
                               np.asarray(self.pp.x, dtype=float), c.ravel()])


class Constant(Signal):
    """A constant value (derivative 0).

    A plain number given as an input becomes one (:func:`as_signal`).

    Parameters
    ----------
    value : float
        Finite.
    name : str

    Raises
    ------
    ParameterError
        A non-finite value.

    Examples
    --------
    >>> c = Constant(3.5)
    >>> c.value(10.0), c.derivative(10.0), c.breakpoints().size
    (3.5, 0.0, 0)
    """

    def __init__(self, value: float, name: str = "constant"):
        v = float(value)
        if not np.isfinite(v):
            raise ParameterError(f"input {name!r}: value {v}, expected a finite number")
        super().__init__(lambda t: v, lambda t: 0.0, name)
        self.constant = v


class Table(PiecewisePolynomial):
    """Piecewise-linear interpolation of ``(times, values)``, held at the ends.

    Its corners are integration restarts, so the solver never steps over one; the
    compiled model evaluates it natively.

    Parameters
    ----------
    times : array_like
        Strictly increasing, at least two.
    values : array_like
        One per time, finite.
    name : str

    Raises
    ------
    ParameterError
        Shapes that differ, non-finite numbers, times that do not increase.

    Examples
    --------
    >>> Table([0, 1, 3], [0, 1, 1]).derivative(0.5)
    1.0
    >>> Table([0, 1, 3], [0, 1, 1]).value(5.0)      # held after the end
    1.0
    >>> Table([0, 0], [1, 2])
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: table 'table': times must increase strictly
    """

    def __init__(self, times, values, name: str = "table"):
        self.times = _numbers(times, f"table {name!r}", "times")
        self.values = _numbers(values, f"table {name!r}", "values")
        if self.times.ndim != 1 or self.times.shape != self.values.shape or len(self.times) < 2:
            raise ParameterError(f"table {name!r}: times {self.times.shape} and values "
                                 f"{self.values.shape}: expected two 1-D arrays of equal "
                                 "length ≥ 2")
        bad = [w for w, a in (("times", self.times), ("values", self.values))
               if not np.all(np.isfinite(a))]
        if bad:
            raise ParameterError(f"table {name!r}: non-finite {' and '.join(bad)}; expected "
                                 "finite numbers")
        if np.any(np.diff(self.times) <= 0):
            raise ParameterError(f"table {name!r}: times must increase strictly")
        slopes = np.diff(self.values) / np.diff(self.times)
        pp = Pieces(np.vstack([slopes, self.values[:-1]]), self.times)
        super().__init__(pp, "hold", name)


class Pieces:
    """A piecewise polynomial in scipy ``PPoly``'s layout, evaluated as ``PPoly`` evaluates it.

    What a :class:`Table` needs of ``PPoly`` — the breakpoints ``x``, the coefficients ``c``
    (shape ``(k + 1, n)``, highest power first, in the local coordinate ``t − x_i``), the value
    and the derivative — without importing scipy.interpolate (about 0.05 s, most of a
    valves run's start). Interval ``i`` is ``[x_i, x_{i+1})``, the last one closed; beyond
    the ends the end polynomials continue; the sum is formed term by term from the
    constant up, as ``PPoly`` does, so the numbers are the same to the last bit.

    Parameters
    ----------
    c : array_like
        Coefficients, shape ``(k + 1, n)``.
    x : array_like
        ``n + 1`` increasing breakpoints.

    Examples
    --------
    >>> p = Pieces([[1.0, -2.0], [0.0, 1.0]], [0.0, 1.0, 2.0])    # up to 1 at t = 1, back down
    >>> float(p(0.5)), float(p(1.0)), float(p(1.5)), float(p.derivative()(1.0))
    (0.5, 1.0, 0.0, -2.0)
    """

    def __init__(self, c, x):
        self.c = np.asarray(c, dtype=float)
        self.x = np.asarray(x, dtype=float)

    def __call__(self, t):
        t = np.asarray(t, dtype=float)
        i = np.clip(np.searchsorted(self.x, t, side="right") - 1, 0, self.x.size - 2)
        s = t - self.x[i]
        k1 = self.c.shape[0]
        res = np.zeros(t.shape)
        z = np.ones(t.shape)
        for kp in range(k1):
            res = res + self.c[k1 - kp - 1, i] * z
            if kp < k1 - 1:
                z = z * s
        return res

    def derivative(self) -> "Pieces":
        """The derivative, in the same layout (degree 0 gives zeros).

        Returns
        -------
        Pieces
        """
        k1, n = self.c.shape
        if k1 == 1:
            return Pieces(np.zeros((1, n)), self.x)
        return Pieces(self.c[:-1] * np.arange(k1 - 1, 0, -1, dtype=float)[:, None], self.x)


class Spline(PiecewisePolynomial):
    """C² cubic spline through ``(times, values)`` (scipy ``CubicSpline``).

    ``bc_type`` defaults to ``"clamped"`` (zero slope at both ends), so a
    prescribed motion starts and ends at rest; beyond the ends the spline
    continues along its end slope.

    Parameters
    ----------
    times, values : array_like
        As for :class:`Table`.
    bc_type : str or tuple
        scipy's boundary condition: ``"clamped"``, ``"natural"``, ``"not-a-knot"``,
        ``"periodic"`` or end derivatives.
    name : str

    Raises
    ------
    ParameterError
        As for :class:`Table`, or a ``bc_type`` scipy refuses.

    Examples
    --------
    >>> s = Spline([0.0, 1.0], [0.0, 1.0])       # a rest-to-rest move: 3t² − 2t³
    >>> s.value(0.5), s.derivative(0.5), s.second_derivative(0.0)
    (0.5, 1.5, 6.0)
    >>> s.breakpoints()
    array([0., 1.])
    """

    def __init__(self, times, values, bc_type: Any = "clamped", name: str = "spline"):
        times = _numbers(times, f"spline {name!r}", "times")
        values = _numbers(values, f"spline {name!r}", "values")
        if times.shape != values.shape or times.ndim != 1 or len(times) < 2:
            raise ParameterError(f"spline {name!r}: expected two 1-D arrays of equal length ≥ 2")
        bad = [w for w, a in (("times", times), ("values", values)) if not np.all(np.isfinite(a))]
        if bad:
            raise ParameterError(f"spline {name!r}: non-finite {' and '.join(bad)}; expected "
                                 "finite numbers")
        if np.any(np.diff(times) <= 0):
            raise ParameterError(f"spline {name!r}: times must increase strictly")
        from scipy.interpolate import CubicSpline   # (scipy.interpolate loads scipy.optimize)

        try:
            self.cs = CubicSpline(times, values, bc_type=bc_type, extrapolate=False)
        except ValueError as exc:  # scipy's own check of bc_type
            raise ParameterError(f"spline {name!r}: bc_type = {bc_type!r}: {exc} (expected "
                                 "'clamped', 'natural', 'not-a-knot', 'periodic' or end "
                                 "derivatives)") from None
        self.times = times
        super().__init__(self.cs, "linear", name, corners=False)
        self.d2 = self.cs.derivative(2)

    def second_derivative(self, t: float) -> float:
        """The second time derivative at ``t`` (0 outside the spline's times).

        Parameters
        ----------
        t : float
            Time (s).

        Returns
        -------
        float
        """
        if t < self.times[0] or t > self.times[-1]:
            return 0.0
        return float(self.d2(t))

    def rate(self, name: str | None = None) -> PiecewisePolynomial:
        """The spline's time derivative as a signal (its own derivative is the second).

        Parameters
        ----------
        name : str, optional

        Returns
        -------
        PiecewisePolynomial

        Examples
        --------
        >>> Spline([0.0, 1.0], [0.0, 1.0]).rate().derivative(0.0)
        6.0
        """
        return PiecewisePolynomial(self.cs.derivative(), "hold", name or f"{self.name} rate",
                                   corners=False)

    def breakpoints(self) -> np.ndarray:
        """The first and last time (a spline is smooth in between).

        Returns
        -------
        ndarray
        """
        return self.times[[0, -1]]


def as_signal(obj: Any, name: str) -> Signal:
    """Turn a number, sympy expression of ``t``, callable or Signal into a Signal.

    Parameters
    ----------
    obj : number, sympy.Expr, callable or Signal
        An expression of :data:`bondgraph.t` brings its derivative; a callable does not.
    name : str
        The input's name.

    Returns
    -------
    Signal

    Raises
    ------
    ParameterError
        An expression of other symbols than ``t``, or anything else.

    Examples
    --------
    >>> from bondgraph import t
    >>> s = as_signal(3 * t**2, "u")
    >>> s.value(2.0), s.derivative(2.0)
    (12.0, 12.0)
    >>> type(as_signal(4, "u")).__name__, as_signal(abs, "u").has_derivative
    ('Constant', False)
    """
    if isinstance(obj, Signal):
        return obj
    if isinstance(obj, (int, float, np.floating, np.integer)) and not isinstance(obj, bool):
        return Constant(float(obj), name)
    if isinstance(obj, sp.Expr):
        from .elements import t as T

        free = obj.free_symbols - {T}
        if free:
            raise ParameterError(f"input {name!r}: expression {obj} uses {sorted(map(str, free))}; "
                                 "expected an expression of t only")
        f = sp.lambdify(T, obj, "math")
        df = sp.lambdify(T, sp.diff(obj, T), "math")
        f._bg_describe = f"expression {obj}"
        df._bg_describe = f"time derivative of expression {obj}"
        return Signal(f, df, name)
    if callable(obj):
        return Signal(obj, None, name)
    raise ParameterError(f"input {name!r}: got {obj!r}; expected a number, a sympy expression "
                         "of t, a callable of t, or a Signal (Table, Spline)")


class InputSet:
    """All inputs of a model, evaluated together: ``u(t)``, ``du(t)``.

    Made by :func:`~bondgraph.simulate` from its ``inputs=``; calling it gives the
    value and derivative vectors at one time.

    Parameters
    ----------
    names : list of str
        The model's inputs.
    deriv_names : list of str
        Those whose time derivative the equations use.
    given : mapping or None
        Input name → number, expression of ``t``, callable or :class:`Signal`.

    Raises
    ------
    ParameterError
        A missing or unknown input, or an input whose derivative is needed but
        cannot be had (all listed).

    Examples
    --------
    >>> inp = InputSet(["a", "b"], ["b"], {"a": 2.0, "b": Table([0, 1], [0, 4])})
    >>> u, du = inp(0.5)
    >>> u.tolist(), du.tolist()
    ([2.0, 2.0], [4.0])
    >>> InputSet(["a"], [], {"b": 1.0})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: inputs: 2 problems
      - input 'a' has no signal; pass inputs={'a': ...}
      - input 'b' given but the model has no such input (inputs: a)
    """

    def __init__(self, names: list[str], deriv_names: list[str], given: Mapping[str, Any] | None):
        if given is not None and not isinstance(given, Mapping):
            raise ParameterError(f"inputs {given!r}: found {type(given).__name__}, expected a dict "
                                 f"input name → signal (inputs: {', '.join(names) or 'none'})")
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

    def native(self) -> list[np.ndarray] | None:
        """Packed tables for the compiled evaluator, if every input is piecewise polynomial.

        Returns
        -------
        list of ndarray or None
            One :meth:`PiecewisePolynomial.pack` per input (a constant is a one-piece
            table); None if any input is a Python callable.
        """
        out = []
        for s in self.signals:
            if isinstance(s, PiecewisePolynomial):
                out.append(s.pack())
            elif isinstance(s, Constant):
                out.append(np.array([1, 0, 0.0, 0.0, 1.0, s.constant]))
            else:
                return None
        return out

    def __call__(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        for i, s in enumerate(self.signals):
            self._u[i] = s.value(t)
        for i, s in enumerate(self.dsignals):
            self._du[i] = s.derivative(t)
        return self._u, self._du

    def at(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``u`` and ``du`` at every time of ``t``: arrays ``(len(t), n_inputs)`` and
        ``(len(t), n_derivatives)``, each signal evaluated as :meth:`__call__` would
        (tables and splines in one call per signal).

        Parameters
        ----------
        t : ndarray
            Time (s).

        Returns
        -------
        tuple
        """
        t = np.asarray(t, dtype=float).ravel()
        U = np.empty((len(t), len(self.signals)))
        DU = np.empty((len(t), len(self.dsignals)))
        for i, s in enumerate(self.signals):
            U[:, i] = np.full(len(t), s.constant) if isinstance(s, Constant) else s.values_at(t)
        for i, s in enumerate(self.dsignals):
            DU[:, i] = np.zeros(len(t)) if isinstance(s, Constant) else s.derivatives_at(t)
        return U, DU

    def breakpoints(self) -> np.ndarray:
        """Every input's breakpoints, sorted and unique (integration restarts).

        Returns
        -------
        ndarray
        """
        pts = [s.breakpoints() for s in self.signals]
        if not pts:
            return np.array([])
        # sorted, repeats dropped: np.unique's result without its first-call import of numpy.ma
        t = np.sort(np.concatenate(pts).astype(float))
        return t[np.concatenate(([True], t[1:] != t[:-1]))] if t.size else t
