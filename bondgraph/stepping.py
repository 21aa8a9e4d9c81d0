"""Integration one accepted step at a time: failures, singular points and events.

:func:`run_segment` drives an integrator one accepted step at a time — scipy's
``OdeSolver`` classes (``LSODA``, ``BDF``, ``Radau``, ``RK45``…) or SUNDIALS CVODE
through scikit-sundae in one-step mode — and checks every step. Both
:func:`~bondgraph.simulate.simulate` and :func:`~bondgraph.hybrid.simulate_hybrid`
integrate through it, so the rules below hold for every method. They are also what the
native CVODE driver (:mod:`bondgraph.native`, ``run_segment(..., native=session)``)
applies in C: it takes the steps and checks R1–R4, R9, R10 itself and hands back each
step where R5–R7 may find something, which :func:`_examine` finishes exactly as for
the Python path (which roots count, their order, the outputs, messages and warnings are
this module's code for both; only a guard linear in the state is located otherwise
there, see R7).

Rules
-----
Times are those of the integrator's accepted steps ``t_old → t``; "located" means a
root found by ``brentq`` (``xtol = rtol = 4·eps``) on the step's own interpolant
(scipy's dense output; CVODE's ``CVodeGetDky``) — except a native step's guard that reads
only states and constants (a :class:`~bondgraph.events.StateEvent`, ``Above``/``Below``/
``Exceeds`` on states): that guard is a polynomial on the step (CVODE's interpolant is
one, of the step's order), so its crossings are the real roots of that polynomial and its
extremum the real roots of its derivative, by numpy
(:mod:`bondgraph.native.steppoly`; the same times as Brent's to an ulp or so of the step,
no scipy.optimize loaded).

R0 The start: the right-hand side must be finite at ``(t0, x0)`` and no divisor zero
   there, else the run does not begin (time ``t0``).

R1 Failed evaluations. A compiled call that fails (a singular block, a non-finite
   value: status ≠ 0) returns NaN to the integrator, which rejects the trial step and
   retries smaller; the failure is recorded. After :data:`FAIL_LIMIT` failed calls since
   the last accepted step the run stops; its time is the earliest failing trial time since
   that step (the true failure lies between the last good step and it). A failed
   Jacobian stops the run at once (it is evaluated at accepted points).
R2 Stall. More than :data:`STALL_CALLS` right-hand-side calls since the last accepted
   step, or more than :data:`STALL_STEPS` consecutive accepted steps each shorter than
   :data:`TINY_ULPS` ulps of ``t``: the step size underflowed. Time: the last accepted step.
R3 Integrator failure (its own message, or an exception of its own): time of the last
   accepted step.
R4 Non-finite state after an accepted step: time of that step, its start kept as the last
   good step.
R5 Blow-up. A state with ``|x_i| > blowup·max(1, |x_i(t0)|)`` after a step: the first
   crossing of that bound is located; that is the failure time.
R6 Divisors (:attr:`~bondgraph.equations.Equations.divisors`, the compiled monitor
   function), unless ``singular="ignore"``. Their values at the run's start are the
   reference. After each step: a sign change (or an exact zero) of a divisor, or a
   coupled block's normalised determinant falling below :data:`BLOCK_EPS`, is located;
   with ``singular="error"`` the run stops there (failure time = that root), with
   ``"warn"`` a :class:`~bondgraph.errors.SingularityWarning` is issued (once per divisor)
   and the run goes on. Independently, a divisor whose magnitude falls below
   :data:`ILL_RATIO` times its start value gives one ``SingularityWarning`` per divisor
   and run (ill-conditioning), at the end of the step where it is first seen.
R7 Events and guards ``g(t, x)`` with a direction (+1 up, −1 down, 0 both). A crossing is
   a sign change between the step's ends (``g_old ≤ 0 ≤ g`` upwards, as solve_ivp); when
   there is none, an extremum inside the step is looked for: with ``ġ`` estimated at both
   ends by one-sided differences on the interpolant (``δ = 1e-4·h``), ``ġ_old > 0 > ġ``
   with both ends below zero means a maximum: it is found (bounded Brent, or the
   polynomial's critical points) and, if ``g`` is positive there, the upward crossing
   before it is located (on a polynomial, its earliest root there), minima likewise for
   downward crossings. So a guard that becomes true and false again within one step is
   not lost. Terminal events stop the segment at the earliest one; others are recorded.
R8 Order inside one step: the earliest of the located times (R5, R6 errors, R7 terminal
   events) wins; the outputs end there (the interpolated state at that time is kept).
R9 Wall clock: a run still going after ``timeout`` seconds stops (checked at every
   right-hand-side call and step); the message says the guard stopped it.
R10 More than ``max_steps`` accepted steps in a run stop it.
R11 A user callable (input signal, guard, controller, reset, event) that raises or
    returns a non-finite value stops the run with a
    :class:`~bondgraph.errors.UserCallableError` naming it, the time and the state.

A failure keeps the results up to the last good point and is raised by the caller as a
:class:`~bondgraph.errors.SimulationError` whose message gives the true failure time,
the last good step, the states there by name (those the cause involves, the non-finite
ones, and the largest in magnitude) and the probable cause, diagnosed in this order:
a recorded failed evaluation (which block: unknowns and elements); a divisor near zero
(which element; the pose); the fastest-growing state (blow-up: how fast); else a step
size underflow near ``t``.

Examples
--------
``ẋ = exp(50·x)`` from ``x = 0`` blows up at ``t = 1/50``; every method stops there:

>>> import sympy as sp
>>> from bondgraph import BondGraph, MSf, One, R, SimulationError, build, simulate
>>> bg = BondGraph("blow")
>>> j = One("j", displacement="x")
>>> _ = bg.add(MSf("Q", sp.exp(50 * j.displacement)), j, R("r", 1.0))
>>> _ = bg.connect("Q", "j"); _ = bg.connect("j", "r")
>>> model = build(bg)
>>> for method in ("LSODA", "CVODE"):
...     try:
...         simulate(model, (0, 1), method=method, progress=False)
...     except SimulationError as err:
...         print(method, round(err.time, 4), "finite-time blow-up" in str(err))
LSODA 0.02 True
CVODE 0.02 True
"""

from __future__ import annotations

import math
import time as _time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .errors import ParameterError, SimulationError, SingularityWarning, UserCallableError

__all__ = ["run_segment", "Watch", "EventSet", "Failure", "Segment", "check_options", "require_model",
           "SOLVE_IVP_METHODS", "FAIL_LIMIT", "STALL_CALLS", "STALL_STEPS", "TINY_ULPS",
           "BLOCK_EPS", "ILL_RATIO", "DEFAULT_TIMEOUT", "DEFAULT_BLOWUP"]

SOLVE_IVP_METHODS = ("LSODA", "BDF", "Radau", "RK45", "RK23", "DOP853")

#: failed evaluations since the last accepted step before the run stops (R1)
FAIL_LIMIT = 40
#: right-hand-side calls since the last accepted step before the run is a stall (R2)
STALL_CALLS = 20_000
#: consecutive accepted steps shorter than TINY_ULPS ulps before the run is a stall (R2)
STALL_STEPS = 10
TINY_ULPS = 100
#: a coupled block's normalised determinant below this is singular (R6)
BLOCK_EPS = 1e-12
#: a divisor below this fraction of its start value is ill-conditioned (R6)
ILL_RATIO = 1e-3
#: the wall-clock guard's default (s) (R9)
DEFAULT_TIMEOUT = 3600.0
#: the blow-up bound's default factor (R5)
DEFAULT_BLOWUP = 1e12

_EPS = np.finfo(float).eps


# ---------------------------------------------------------------------------- records
@dataclass
class Failure:
    """Why and when a run stopped (see the module rules).

    Attributes
    ----------
    kind : str
        ``"rhs"``, ``"stall"``, ``"solver"``, ``"nonfinite"``, ``"blowup"``,
        ``"singular"``, ``"timeout"``, ``"steps"``, ``"callable"`` or ``"start"``.
    time : float
        The true failure time (see the rules).
    cause : str
        The probable cause, as the error message gives it.
    state : ndarray or None
        The state at ``time`` when it was located.
    solver : str
        The integrator's own message (R3).
    involved : tuple of int
        Indices of the states the cause names.
    error : Exception or None
        A :class:`~bondgraph.errors.UserCallableError` to raise as it is (R11).

    Examples
    --------
    :meth:`Watch.error` turns one into the :class:`~bondgraph.errors.SimulationError`
    a caller raises:

    >>> import numpy as np
    >>> from bondgraph import BondGraph, One, I, R, build
    >>> bg = BondGraph("decay")
    >>> _ = bg.add(One("v"), I("m", 1.0, initial=1.0), R("b", 1.0))
    >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "b")
    >>> w = Watch(build(bg), 0.0, 1.0, np.array([1.0]), method="RK45", timeout=None,
    ...           blowup=None, singular="ignore", max_steps=10)
    >>> f = w.steps_failure(0.25, 0.01)
    >>> f.kind, f.time
    ('steps', 0.25)
    >>> print(w.error("model 'decay'", f, None))
    model 'decay': integration failed at t = 0.25 s (RK45): more than max_steps = 10 steps (the last 0.01 s long): raise max_steps or look for what makes the steps small. Last good step t = 0 s; states at the last good step t = 0 s: decay/m.f = 1
    """

    kind: str  # rhs | stall | solver | nonfinite | blowup | singular | timeout | steps | callable
    time: float
    cause: str
    state: np.ndarray | None = None  # the state at ``time`` when it is known (located)
    solver: str = ""
    involved: tuple[int, ...] = ()  # states the cause names
    error: Exception | None = None  # a UserCallableError to re-raise
    advice: str = ""  # how to get past it, when the model's structure suggests a way


@dataclass
class Segment:
    """What :func:`run_segment` returns.

    Attributes
    ----------
    t, y : ndarray
        Output times and states (rows).
    events : list of (float, int, ndarray)
        Located non-terminal events: time, index, state.
    hit : (float, int, ndarray) or None
        The terminal event that ended the segment.
    t_end, y_end : float, ndarray
        Where the segment ended (its end, the event, or the last good step).
    failure : Failure or None
    t_good, y_good : float, ndarray
        The last good step.

    Examples
    --------
    See :func:`run_segment`.
    """

    t: np.ndarray
    y: np.ndarray
    events: list[tuple[float, int, np.ndarray]]
    hit: tuple[float, int, np.ndarray] | None
    t_end: float
    y_end: np.ndarray
    failure: Failure | None = None
    t_good: float = math.nan
    y_good: np.ndarray | None = None


class _Abort(Exception):
    """Raised inside a callback to stop the integrator (never leaves this package)."""

    def __init__(self, failure: Failure):
        super().__init__(failure.cause)
        self.failure = failure


class EventSet:
    """Event or guard functions checked together (R7).

    On a native run, ``values`` are the native driver's (evaluated in C) and ``polled``
    may hold Python events checked only when the driver hands back control (a
    :class:`~bondgraph.events.Flag`), numbered after these.

    Parameters
    ----------
    values : callable
        ``values(t, y) -> ndarray`` of every function at once (``y`` the full vector).
    direction : sequence of int
        +1 upward crossings, −1 downward, 0 both.
    terminal : sequence of bool
    names : sequence of str
    extrema : bool
        Also look for crossings between step ends (an extremum inside the step).

    Examples
    --------
    >>> import numpy as np
    >>> half = EventSet(lambda t, y: np.array([y[0] - 0.5]), [-1], [True], ["x = 0.5"])
    >>> len(half), half.values(0.0, np.array([1.0]))
    (1, array([0.5]))
    """

    polled: "EventSet | None" = None
    order: list[int] | None = None

    def __init__(self, values: Callable[[float, np.ndarray], np.ndarray], direction: Sequence[int],
                 terminal: Sequence[bool], names: Sequence[str], extrema: bool = True):
        self.values = values
        self.direction = np.asarray(direction, dtype=int)
        self.terminal = np.asarray(terminal, dtype=bool)
        self.names = list(names)
        self.extrema = extrema

    def __len__(self) -> int:
        return len(self.names)


# ---------------------------------------------------------------------------- watch
class Watch:
    """The run-wide policy and bookkeeping of one run (shared by its segments).

    Parameters
    ----------
    model : Model
    t0, t1 : float
    x0 : ndarray
        The initial state (reference of the blow-up bound).
    monitor : callable or None
        ``monitor(t, x) -> (values, status)``: the compiled divisors (inputs set).
    rate : callable or None
        ``rate(t, x) -> ẋ`` (inputs set), for the diagnosis; may raise.
    method : str
        The integrator's name, for messages.
    timeout, blowup, singular, max_steps
        As for :func:`~bondgraph.simulate`.

    Examples
    --------
    See :func:`run_segment` and :class:`Failure`.
    """

    def __init__(self, model, t0: float, t1: float, x0: np.ndarray, *, method: str,
                 timeout: float | None, blowup: float | None, singular: str, max_steps: int,
                 monitor: Callable | None = None, rate: Callable | None = None):
        self.model = model
        self.names = list(model.state_names)
        self.nx = len(self.names)
        self.t0, self.t1 = t0, t1
        self.method = method
        self.start = _time.perf_counter()
        self.timeout = timeout
        self.deadline = math.inf if timeout is None else self.start + timeout
        self.bound = None if blowup is None else blowup * np.maximum(1.0, np.abs(x0[: self.nx]))
        self.blowup = blowup
        self.singular = singular
        self.max_steps = max_steps
        self.divisors = list(model.system.divisors) if singular != "ignore" and monitor else []
        self.monitor = monitor if self.divisors else None
        self.rate = rate
        self.ref: np.ndarray | None = None
        self._ill_level = np.zeros(len(self.divisors))
        self._coupled = np.array([d.kind == "block" and len(d.unknowns) > 1
                                  for d in self.divisors], dtype=bool)
        self._set_low()
        self.warned: set[int] = set()   # ill-conditioning warnings given
        self.crossed: set[int] = set()  # crossings warned with singular="warn"
        self.nfev = 0
        self.njev = 0
        self.steps = 0
        self.calls = 0
        self.fails = 0
        self.first_fail: tuple[float, np.ndarray, str] | None = None
        self.tiny = 0
        self.t_good, self.y_good = t0, np.array(x0, dtype=float)

    # ------------------------------------------------------------ callbacks (R1, R2, R9)
    def call(self, t: float) -> None:
        """Count one right-hand-side call; stop a stall or an overrun.

        Call it at the start of every right-hand-side evaluation (R2, R9).

        Parameters
        ----------
        t : float
            Time (s).
        """
        self.nfev += 1
        self.calls += 1
        if self.calls > STALL_CALLS:
            raise _Abort(self.calls_failure())
        if _time.perf_counter() > self.deadline:
            raise _Abort(self.timeout_failure())

    def failed(self, t: float, y: np.ndarray, why: str, *, jacobian: bool = False) -> None:
        """Record a failed compiled call; stop after FAIL_LIMIT of them (R1).

        Parameters
        ----------
        t : float
            Time (s).
        y : ndarray
        why : str
        jacobian : bool, optional
        """
        self.fails += 1
        if self.first_fail is None or t < self.first_fail[0]:
            self.first_fail = (float(t), np.array(y, dtype=float), why)
        if jacobian or self.fails > FAIL_LIMIT:
            raise _Abort(self.fails_failure())

    # the failures of the rules, worded once for every integrator (and the native driver)
    def fails_failure(self) -> Failure:
        """R1: too many failed evaluations since the last good step, or a failed Jacobian.

        Returns
        -------
        Failure
        """
        return self.failure("rhs", self.first_fail[0], self.failed_cause())

    def calls_failure(self) -> Failure:
        """R2: too many right-hand-side calls without an accepted step.

        Returns
        -------
        Failure
        """
        return self.failure("stall", self.t_good, self.stall_cause(
            f"{STALL_CALLS} right-hand-side calls without an accepted step"))

    def tiny_failure(self, t_old: float) -> Failure:
        """R2: too many consecutive tiny steps.

        Parameters
        ----------
        t_old : float

        Returns
        -------
        Failure
        """
        return self.failure("stall", t_old, self.stall_cause(
            f"{STALL_STEPS} accepted steps each shorter than {TINY_ULPS} ulps of t"))

    def steps_failure(self, t_old: float, h: float) -> Failure:
        """R10: more than max_steps accepted steps.

        Parameters
        ----------
        t_old : float
        h : float
            Step (s).

        Returns
        -------
        Failure
        """
        return self.failure("steps", t_old, f"more than max_steps = {self.max_steps} steps "
                            f"(the last {h:.3g} s long): raise max_steps or look for what "
                            "makes the steps small")

    def solver_failure(self, msg: str) -> Failure:
        """R3: the integrator gave up (its own message).

        Parameters
        ----------
        msg : str

        Returns
        -------
        Failure
        """
        return self.failure("solver", self.t_good, self.stall_cause("the integrator gave up"),
                            solver=msg)

    def nonfinite_failure(self, t_old: float, t: float, y: np.ndarray) -> Failure:
        """R4: a non-finite accepted state at ``t``.

        Parameters
        ----------
        t_old : float
        t : float
            Time (s).
        y : ndarray

        Returns
        -------
        Failure
        """
        bad = tuple(i for i in range(self.nx) if not np.isfinite(y[i]))
        cause = (self.failed_cause() if self.first_fail else
                 (f"the state became non-finite "
                  f"({', '.join(self.names[i] for i in bad) or 'energy integrals'}) in "
                  f"the step from t = {t_old:.9g} s", bad))
        return self.failure("nonfinite", t, cause)

    def timeout_failure(self) -> Failure:
        """R9: the wall-clock guard stopped the run.

        Returns
        -------
        Failure
        """
        spent = _time.perf_counter() - self.start
        return self.failure(
            "timeout", self.t_good,
            f"stopped by the wall-clock guard (timeout = {self.timeout:g} s; {spent:.3g} s spent) "
            f"with the integration at t = {self.t_good:.9g} s of {self.t1:g} s: the run was "
            "still going; pass a larger timeout= (or None) if it is just long, else look for "
            "what makes the steps small")

    def accept(self, t_old: float, t: float, y: np.ndarray) -> Failure | None:
        """Book an accepted step; a stall (R2) or too many steps (R10) come back as failures.

        Parameters
        ----------
        t_old : float
        t : float
            Time (s).
        y : ndarray

        Returns
        -------
        Failure, optional
        """
        self.steps += 1
        self.calls = 0
        self.fails = 0
        self.first_fail = None
        h = t - t_old
        if h <= TINY_ULPS * _EPS * max(abs(t), abs(t_old), 1e-300):
            self.tiny += 1
            if self.tiny > STALL_STEPS:
                return self.tiny_failure(t_old)
        else:
            self.tiny = 0
        if self.steps > self.max_steps:
            return self.steps_failure(t_old, h)
        if _time.perf_counter() > self.deadline:
            return self.timeout_failure()
        return None

    def good(self, t: float, y: np.ndarray) -> None:
        """The last good point (``y`` is not copied: callers pass arrays they do not reuse).

        Parameters
        ----------
        t : float
            Time (s).
        y : ndarray
        """
        self.t_good, self.y_good = float(t), y

    def failure(self, kind: str, t: float, cause: tuple[str, tuple[int, ...]] | str, *,
                state: np.ndarray | None = None, solver: str = "", advice: str = "") -> Failure:
        """A :class:`Failure` of ``kind`` at ``t``; ``cause`` is its text, or ``(text,
        involved state indices)``.

        Parameters
        ----------
        kind : str
        t : float
            Time (s).
        cause : tuple[str, tuple[int, ...]] or str
        state : ndarray, optional
            A state from :meth:`save_state`.
        solver : str, optional
        advice : str, optional
            How to get past it (kept apart from the cause, so that a layer that knows the
            physical cause can replace it: :attr:`SimulationError.advice
            <bondgraph.errors.SimulationError.advice>`).

        Returns
        -------
        Failure
        """
        text, inv = (cause, ()) if isinstance(cause, str) else cause
        return Failure(kind, float(t), text, state, solver, inv, advice=advice)

    # ------------------------------------------------------------ diagnosis
    def failed_cause(self) -> tuple[str, tuple[int, ...]]:
        """The cause of recorded failed evaluations (R1): what failed, when, and a divisor
        near zero at the last good step if there is one.

        Returns
        -------
        tuple
        """
        tf, yf, why = self.first_fail
        near, inv = self._near_zero(self.t_good, self.y_good)
        text = (f"{why} (met at t = {tf:.9g} s; {self.fails} failed evaluations since the last "
                f"good step at t = {self.t_good:.9g} s)")
        if near:
            text += f"; probable cause: {near}"
        return text, inv

    def stall_cause(self, what: str) -> tuple[str, tuple[int, ...]]:
        """Why the integrator cannot advance from the last good step.

        Parameters
        ----------
        what : str

        Returns
        -------
        tuple
        """
        if self.first_fail is not None:
            text, inv = self.failed_cause()
            return f"{what}: {text}", inv
        near, inv = self._near_zero(self.t_good, self.y_good)
        if near:
            return (f"the step size underflowed near t = {self.t_good:.9g} s ({what}); probable "
                    f"cause: {near}"), inv
        grow = self._growth(self.t_good, self.y_good)
        if grow:
            return f"{grow[0]} ({what})", grow[1]
        return (f"the step size underflowed near t = {self.t_good:.9g} s ({what}): a "
                "singularity, a discontinuity the integrator cannot resolve, or tolerances it "
                "cannot meet"), ()

    def _near_zero(self, t: float, y: np.ndarray) -> tuple[str, tuple[int, ...]]:
        if self.monitor is None or self.ref is None:
            return "", ()
        try:
            vals, _ = self.monitor(t, y[: self.nx])
        except Exception:  # noqa: BLE001 - a diagnosis must not fail
            return "", ()
        best, which = None, -1
        for k, (v, r) in enumerate(zip(vals, self.ref)):
            ratio = abs(v) / abs(r) if r and np.isfinite(v) else (0.0 if v == 0 else math.inf)
            if ratio < ILL_RATIO and (best is None or ratio < best):
                best, which = ratio, k
        if which < 0:
            return "", ()
        d = self.divisors[which]
        inv = self._states_of(d)
        return (f"{d.label} is {vals[which]:.3g} there ({best:.1e} of its start value "
                f"{self.ref[which]:.3g}): the equations divide by it, {_what(d)}"
                f"{self._pose(y, inv)}"), inv

    def _growth(self, t: float, y: np.ndarray) -> tuple[str, tuple[int, ...]] | None:
        if self.rate is None:
            return None
        x = y[: self.nx]
        try:
            xd = np.asarray(self.rate(t, x), dtype=float)
        except Exception:  # noqa: BLE001
            return None
        if not np.all(np.isfinite(xd)) or not np.all(np.isfinite(x)):
            bad = [i for i in range(self.nx) if not (np.isfinite(xd[i]) and np.isfinite(x[i]))]
            return (f"the state became non-finite ({', '.join(self.names[i] for i in bad)}): a "
                    "blow-up or a singularity", tuple(bad))
        rate = np.abs(xd) / np.maximum(np.abs(x), 1e-300)
        rate[x * xd <= 0] = 0.0  # only growth
        i = int(np.argmax(rate)) if rate.size else -1
        if i < 0 or rate[i] == 0:
            return None
        tau = 1.0 / rate[i]
        if tau > 1e-6 * max(self.t1 - self.t0, 1e-300):
            return None
        return (f"a finite-time blow-up: {self.names[i]} = {x[i]:.6g} grows at "
                f"{xd[i]:.3g}/s (doubling in {tau * math.log(2):.3g} s) near "
                f"t = {t:.9g} s", (i,))

    def _states_of(self, d) -> tuple[int, ...]:
        if d.expr is None:
            return ()
        names = {q.name for q in d.expr.free_symbols}
        return tuple(i for i, n in enumerate(self.names) if n in names)

    def _pose(self, y: np.ndarray, inv: tuple[int, ...]) -> str:
        if not inv:
            return ""
        return "; pose: " + ", ".join(f"{self.names[i]} = {y[i]:.6g}" for i in inv)

    # ------------------------------------------------------------ the error
    def error(self, subject: str, f: Failure, results) -> Exception:
        """The :class:`SimulationError` of a failed run: true time, last good step, states
        by name (those the cause involves, non-finite ones, the largest), probable cause.

        Parameters
        ----------
        subject : str
        f : Failure
        results

        Returns
        -------
        Exception
        """
        state = f.state if f.state is not None else self.y_good
        x = np.asarray(state, dtype=float)[: self.nx]
        named = {n: float(v) for n, v in zip(self.names, x)}
        if f.error is not None:  # a user callable: its own message, with state and results
            err = f.error
            return UserCallableError(err.problems, err.subject, time=f.time, state=named,
                                     results=results, original=getattr(err, "original", None))
        pick = list(dict.fromkeys(list(f.involved) +
                                  [i for i in range(len(x)) if not np.isfinite(x[i])]))
        order = np.argsort(-np.nan_to_num(np.abs(x), nan=np.inf), kind="stable")
        for i in order:
            if len(pick) >= max(4, len(f.involved)):
                break
            if int(i) not in pick:
                pick.append(int(i))
        at = ("at the failure" if f.state is not None
              else f"at the last good step t = {self.t_good:.9g} s")
        shown = ", ".join(f"{self.names[i]} = {x[i]:.6g}" for i in pick)
        more = f" (and {len(x) - len(pick)} more in .state)" if len(x) > len(pick) else ""
        cause = f"{f.cause}; {f.advice}" if f.advice else f.cause
        if f.kind in ("start", "singular") and f.time == self.t0 and self.steps == 0:
            text = f"{subject}: inconsistent or singular initial point at t = {f.time:.9g} s: {cause}"
        else:
            text = f"{subject}: integration failed at t = {f.time:.9g} s ({self.method}): {cause}"
            if f.kind != "timeout":
                text += f". Last good step t = {self.t_good:.9g} s"
        text += f"; states {at}: {shown}{more}"
        if f.solver:
            text += f". Solver: {f.solver}"
        return SimulationError(text, time=f.time, state=named, results=results, advice=f.advice)

    # ------------------------------------------------------------ the start (R0)
    def check_start(self, t: float, y: np.ndarray, fun) -> Failure | None:
        """R0: the right-hand side must be finite at the start and no divisor zero there.

        Parameters
        ----------
        t : float
            Time (s).
        y : ndarray
        fun

        Returns
        -------
        Failure, optional
        """
        try:
            probe = np.asarray(fun(t, y), dtype=float)
            fail = self.start_monitors(t, y)
        except _Abort as ab:
            return ab.failure
        except UserCallableError as err:
            return Failure("callable", t, str(err), state=y, error=err)
        if fail is not None:
            return fail
        if self.first_fail is not None or not np.all(np.isfinite(probe[: self.nx])):
            why = self.first_fail[2] if self.first_fail else "non-finite derivatives"
            return Failure("start", t, why, state=y)
        self.calls = self.fails = 0
        return None

    # ------------------------------------------------------------ monitors (R6)
    def start_monitors(self, t: float, y: np.ndarray) -> Failure | None:
        """Reference values at the run's start; a divisor already zero is a failure.

        Parameters
        ----------
        t : float
            Time (s).
        y : ndarray

        Returns
        -------
        Failure, optional
        """
        if self.monitor is None:
            return None
        vals, _ = self.monitor(t, y[: self.nx])
        self.ref = vals.copy()
        self._ill_level = ILL_RATIO * np.abs(np.nan_to_num(vals, nan=0.0))
        self._set_low()
        for k, v in enumerate(vals):
            if v == 0 or (self.divisors[k].kind == "block" and self.divisors[k].block is not None
                          and len(self.divisors[k].unknowns) > 1 and abs(v) < BLOCK_EPS):
                d = self.divisors[k]
                inv = self._states_of(d)
                return self.failure("singular", t, (
                    f"{d.label} is zero at the start: the equations divide by it"
                    f"{self._pose(y, inv)}", inv), state=y, advice=_advice(d))
        return None

    def _set_low(self) -> None:
        """The per-divisor level below which a step looks closer (ill-conditioning, R6)."""
        self._low = np.maximum(self._ill_level, np.where(self._coupled, BLOCK_EPS, 0.0))

    def ill_conditioning(self, t: float, vals: np.ndarray, y: np.ndarray) -> None:
        """Warn once per divisor whose value fell below :data:`ILL_RATIO` of its start (R6).

        Parameters
        ----------
        t : float
            Time (s).
        vals : ndarray
        y : ndarray

        Warns
        -----
        SingularityWarning
            Naming the divisor, the time, the value and the pose.
        """
        if self.ref is None:
            return
        low = np.abs(vals) < self._ill_level
        if not low.any():
            return
        for k in np.flatnonzero(low):
            k = int(k)
            self.warned.add(k)
            self._ill_level[k] = 0.0  # once per divisor and run
            self._set_low()
            v, r = vals[k], self.ref[k]
            d = self.divisors[k]
            inv = self._states_of(d)
            warnings.warn(SingularityWarning(
                f"model {self.model.name!r}: {d.label} = {v:.3g} at t = {t:.9g} s, "
                f"{abs(v / r):.1e} of its start value {r:.3g}: the equations are "
                f"ill-conditioned here ({_what(d)}){self._pose(y, inv)}; results may lose "
                f"accuracy: {_advice(d)}"), stacklevel=_user_level())


def _what(d) -> str:
    """What a divisor vanishing means, by kind."""
    if d.kind == "modulus":
        return "a singular pose (a dead centre of the linkage, a transformer or gyrator modulus at zero)"
    if len(d.unknowns) == 1 and len(d.elements) == 1:
        return (f"the coefficient of {d.elements[0]}'s own law (e.g. a chamber volume V(x)/β "
                "reaching zero when a piston leaves its stroke, a mass reaching zero)")
    return "a singular pose of dependent storage elements (a kinematic singularity)"


def _advice(d) -> str:
    """How to get past a vanishing divisor, by kind."""
    if d.kind == "block" and len(d.unknowns) == 1 and len(d.elements) == 1:
        return ("check that element's parameters and the motion (keep the piston inside its "
                "stroke: end stops), or pass singular='warn' to integrate through")
    return ("make the storage on the other side independent (I(..., prefer='state') or "
            "C(..., prefer='state')) so the equations need not divide by it, or pass "
            "singular='warn' to integrate through (results near the crossing unreliable)")


def _user_level() -> int:
    """The ``stacklevel`` of a warning that points at the user's call, outside bondgraph."""
    import sys

    frame, level = sys._getframe(1), 1
    here = __name__.rsplit(".", 1)[0]
    while frame is not None and frame.f_globals.get("__name__", "").startswith(here):
        frame, level = frame.f_back, level + 1
    return level


# ---------------------------------------------------------------------------- drivers
class _Scipy:
    """One of scipy's ``OdeSolver`` classes, stepped by hand."""

    def __init__(self, method, fun, jac, a, b, y0, rtol, atol, max_step, first_step):
        import scipy.integrate as si

        kw: dict[str, Any] = dict(rtol=rtol, atol=atol, max_step=max_step)
        if first_step is not None:
            kw["first_step"] = first_step
        if jac is not None and method in ("LSODA", "BDF", "Radau"):
            kw["jac"] = jac
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "extraneous arguments"
            self.s = getattr(si, method)(fun, a, y0, b, **kw)
        self.t_old, self.t, self.y = a, a, np.array(y0, dtype=float)
        self._dense = None

    def step(self) -> tuple[bool, str]:
        msg = self.s.step()
        if self.s.status == "failed":
            return False, str(msg)
        self.t_old, self.t, self.y = float(self.s.t_old), float(self.s.t), self.s.y
        self._dense = None
        return True, ""

    @property
    def done(self) -> bool:
        return self.s.status == "finished"

    def __call__(self, tq: float) -> np.ndarray:
        if tq == self.t:
            return self.y.copy()
        if self._dense is None:
            self._dense = self.s.dense_output()
        return np.asarray(self._dense(tq), dtype=float)


class _Cvode:
    """SUNDIALS CVODE (BDF) through scikit-sundae, one internal step at a time."""

    def __init__(self, fun, jac, a, b, y0, rtol, atol, max_step, first_step):
        from sksundae.cvode import CVODE

        def rhsfn(t, yy, yp):
            fun.into(t, yy, yp)

        opts: dict[str, Any] = dict(rtol=rtol, atol=atol, method="BDF", max_num_steps=100_000)
        if np.isfinite(max_step):
            opts["max_step"] = max_step
        if first_step is not None:
            opts["first_step"] = first_step
        if jac is not None:
            def jacfn(t, yy, yp, JJ):
                JJ[:, :] = jac(t, yy)
            opts["jacfn"] = jacfn
        self.s = CVODE(rhsfn, **opts)
        self.s.init_step(a, np.array(y0, dtype=float))
        self.b = b
        self.t_old, self.t, self.y = a, a, np.array(y0, dtype=float)
        self.done = False

    def step(self) -> tuple[bool, str]:
        r = self.s.step(self.b, method="onestep", tstop=self.b)
        if r.success and float(r.t) == self.t and self.t > self.t_old:
            # an interpolated output (CVode in normal mode, behind tn) made CVODE's last
            # returned time earlier than tn: its next one-step call hands tn back without
            # stepping (not a step of zero length: ask again)
            r = self.s.step(self.b, method="onestep", tstop=self.b)
        if not r.success:
            return False, str(r.message)
        self.t_old, self.t, self.y = self.t, float(r.t), r.y
        self.done = self.t >= self.b
        return True, ""

    def __call__(self, tq: float) -> np.ndarray:
        if tq == self.t:
            return self.y.copy()
        return np.array(self.s.step(tq, method="normal").y, dtype=float)


def _driver(method, fun, jac, a, b, y0, rtol, atol, max_step, first_step):
    if method == "CVODE":
        return _Cvode(fun, jac, a, b, y0, rtol, atol, max_step, first_step)
    return _Scipy(method, fun, jac, a, b, y0, rtol, atol, max_step, first_step)


# ---------------------------------------------------------------------------- root finding
def _root(f: Callable[[float], float], a: float, b: float) -> float:
    """The crossing of ``f`` in [a, b] (signs at the ends known to differ or touch zero)."""
    fa, fb = f(a), f(b)
    if fa == 0:
        return a
    if fb == 0 or not np.isfinite(fa) or not np.isfinite(fb) or fa * fb > 0:
        return b
    from scipy.optimize import brentq   # loaded by the first event that needs a root

    return float(brentq(f, a, b, xtol=4 * _EPS, rtol=4 * _EPS))


def _extremum(f: Callable[[float], float], a: float, b: float, sign: int) -> tuple[float, float]:
    """The maximum (sign +1) or minimum (−1) of ``f`` on [a, b]: (time, value)."""
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(lambda s: -sign * f(s), bounds=(a, b), method="bounded",
                          options={"xatol": max(1e-9 * (b - a), 4 * _EPS * abs(b))})
    return float(res.x), float(f(res.x))


# ---------------------------------------------------------------------------- the step loop
def run_segment(method: str, fun, jac, a: float, b: float, y0: np.ndarray, watch: Watch, *,
                rtol, atol, max_step: float, first_step: float | None,
                t_eval: np.ndarray | None = None, events: EventSet | None = None,
                on_step: Callable[[float], None] | None = None, native=None) -> Segment:
    """Integrate ``[a, b]`` from ``y0``, one accepted step at a time, with the module rules.

    ``fun(t, y)`` returns ``ẏ`` (``fun.into(t, y, out)`` for CVODE) and reports failed
    evaluations to ``watch``; ``jac(t, y)`` likewise. ``t_eval``: output times in
    ``[a, b]`` (default: every accepted step; ``a`` itself is the caller's). Returns the
    outputs up to the end, the first terminal event (``hit``) or the failure.

    ``native``: a :class:`bondgraph.native.driver.Session` stepping CVODE in C (``fun``
    and ``jac`` are then not called); it applies R1–R4, R9, R10 itself and hands back
    every step where R5–R7 may find something, which is finished here by the same code
    as the Python path's steps.

    Parameters
    ----------
    method : str
        ``"CVODE"`` or a solve_ivp method.
    fun, jac : callable
        Right-hand side and Jacobian (``jac`` may be None).
    a, b : float
        The segment.
    y0 : ndarray
    watch : Watch
        The run's policy and bookkeeping.
    rtol, atol, max_step, first_step
        Integrator options.
    t_eval : ndarray, optional
    events : EventSet, optional
    on_step : callable, optional
        ``on_step(t)`` after every accepted step (a progress bar).
    native : Session, optional

    Returns
    -------
    Segment
        Never raises for a failed run: the failure is in ``Segment.failure``.

    Examples
    --------
    ``ẋ = −x`` from 1 with a terminal event at ``x = 0.5``: it stops at ``t = ln 2``.

    >>> import math
    >>> import numpy as np
    >>> from bondgraph import BondGraph, One, I, R, build
    >>> bg = BondGraph("decay")
    >>> _ = bg.add(One("v"), I("m", 1.0, initial=1.0), R("b", 1.0))
    >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "b")
    >>> watch = Watch(build(bg), 0.0, 1.0, np.array([1.0]), method="RK45", timeout=None,
    ...               blowup=None, singular="ignore", max_steps=10_000)
    >>> def fun(t, y):
    ...     watch.call(t)
    ...     return -y
    >>> half = EventSet(lambda t, y: np.array([y[0] - 0.5]), [-1], [True], ["half"])
    >>> seg = run_segment("RK45", fun, None, 0.0, 1.0, np.array([1.0]), watch, rtol=1e-10,
    ...                   atol=1e-12, max_step=np.inf, first_step=None, t_eval=[0.5, 1.0],
    ...                   events=half)
    >>> seg.failure is None, bool(abs(seg.hit[0] - math.log(2)) < 1e-9), seg.t
    (True, True, array([0.5]))
    """
    te = None if t_eval is None else np.asarray(t_eval, dtype=float)
    out = _Out(te, len(y0))
    if te is not None:
        while out.ie < te.size and te[out.ie] <= a:
            out.add(float(te[out.ie]), np.array(y0, dtype=float))
            out.ie += 1
    found: list[tuple[float, int, np.ndarray]] = []

    def seg(failure=None, hit=None, t_end=None, y_end=None):
        arr_t, arr_y = out.arrays()
        return Segment(arr_t, arr_y, found, hit, t_end if t_end is not None else watch.t_good,
                       y_end if y_end is not None else watch.y_good.copy(), failure,
                       watch.t_good, watch.y_good.copy())

    watch.good(a, y0)
    with np.errstate(invalid="ignore", over="ignore"):  # NaN monitors compare False
        try:
            if native is not None:
                return _native_loop(native, a, b, y0, watch, rtol, atol, max_step, first_step,
                                    out, found, events, on_step, seg)
            return _loop(method, fun, jac, a, b, y0, watch, rtol, atol, max_step, first_step,
                         out, found, events, on_step, seg)
        except _Abort as ab:
            return seg(ab.failure)
        except UserCallableError as err:  # R11 (an event function, an input read by a guard)
            return seg(Failure("callable", err.time if err.time is not None else watch.t_good,
                               str(err), error=err))


class _Out:
    """A segment's output rows: requested times ``te`` (next one ``ie``), or every step;
    rows come one at a time (Python steps) or in blocks (the native driver's)."""

    def __init__(self, te: np.ndarray | None, n: int):
        self.te, self.ie, self.n = te, 0, n
        self.t: list = []
        self.y: list = []

    def add(self, t: float, y: np.ndarray) -> None:
        self.t.append(np.array([t]))
        self.y.append(np.asarray(y, dtype=float).reshape(1, self.n))

    def block(self, t: np.ndarray, y: np.ndarray) -> None:
        if len(t):
            self.t.append(t)
            self.y.append(y)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.t:
            return np.zeros(0), np.zeros((0, self.n))
        return np.concatenate(self.t), np.concatenate(self.y, axis=0)


def _loop(method, fun, jac, a, b, y0, watch, rtol, atol, max_step, first_step, out, found,
          events, on_step, seg):
    if first_step is not None:  # a segment between restarts may be shorter
        first_step = min(float(first_step), b - a)
    try:
        drv = _driver(method, fun, jac, a, b, y0, rtol, atol, max_step, first_step)
    except _Abort as ab:
        return seg(ab.failure)
    m_old = _monitor_values(watch, a, y0)
    g_old = _event_values(events, a, y0) if events is not None else None
    dg_old = None

    while True:
        try:
            ok, msg = drv.step()
        except _Abort as ab:
            return seg(ab.failure)
        except UserCallableError as err:
            return seg(Failure("callable", err.time if err.time is not None else watch.t_good,
                               str(err), error=err))
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            ok, msg = False, f"{type(exc).__name__}: {exc}"
        if not ok:
            return seg(watch.solver_failure(msg))
        t_old, t, y = drv.t_old, drv.t, drv.y
        if on_step is not None:
            on_step(t)
        if not np.isfinite(y).all():  # R4: a non-finite accepted state
            return seg(watch.nonfinite_failure(t_old, t, y))
        fail = watch.accept(t_old, t, y)
        if fail is not None:
            return seg(fail)
        done, m_old, g_old, dg_old = _examine(watch, drv, events, t_old, t, y, m_old, g_old, dg_old,
                                              out, found, seg)
        if done is not None:
            return done
        watch.good(t, y)
        if drv.done or t >= b:
            return seg(t_end=t, y_end=np.array(y, dtype=float))


def _examine(watch: Watch, drv, events: EventSet | None, t_old: float, t: float, y: np.ndarray,
             m_old, g_old, dg_old, out: _Out, found: list, seg):
    """An accepted step past R4 and :meth:`Watch.accept`: blow-up (R5), divisors (R6),
    events (R7), their order (R8), the outputs up to where the step ends, the stop.

    Returns ``(segment, m, g, dg)``: the segment if the run stops in this step (else
    ``None``), and the monitor values, event values and slopes the next step compares with.
    """
    nx = watch.nx
    cands: list[tuple[float, str, Any]] = []
    if watch.bound is not None:
        mag = np.abs(y[:nx])
        for i in np.flatnonzero(mag > watch.bound):  # R5: blow-up bound
            tc = _root(lambda s, i=i: abs(drv(s)[i]) - watch.bound[i], t_old, t)
            cands.append((tc, "blowup", int(i)))
    # R6: divisors
    m_new = None
    low = False
    if watch.monitor is not None:
        m_new = watch.monitor(t, y[:nx])[0]
        mag_m = np.abs(m_new)
        low = (mag_m < watch._low).any()  # near a coupled block's BLOCK_EPS or ILL_RATIO
        hits = ()
        if low or (m_old * m_new).min() <= 0:
            flip = (m_old * m_new < 0) | ((m_new == 0) & (m_old != 0))
            tiny = watch._coupled & (mag_m < BLOCK_EPS) & (np.abs(m_old) >= BLOCK_EPS)
            hits = np.flatnonzero(flip | tiny)
        for k in hits:
            k = int(k)
            if flip[k]:
                tc = _root(lambda s, k=k: _monitor_values(watch, s, drv(s))[k], t_old, t)
                cands.append((tc, "singular", k))
            else:
                tc = _root(lambda s, k=k: abs(_monitor_values(watch, s, drv(s))[k]) - BLOCK_EPS,
                           t_old, t)
                cands.append((tc, "singular", ~k))  # ~k: fell below BLOCK_EPS
    # R7: events
    g_new = dg_new = None
    if events is not None and len(events):
        g_new = _event_values(events, t, y)
        if events.extrema:
            h = t - t_old
            dlt = max(1e-4 * h, TINY_ULPS * np.spacing(abs(t)))
            if dg_old is None:
                dg_old = (_event_values(events, t_old + dlt, drv(t_old + dlt)) - g_old) / dlt
            dg_new = (g_new - _event_values(events, t - dlt, drv(t - dlt))) / dlt
        for i in range(len(events)):
            for tc in _crossings(events, i, drv, t_old, t, g_old[i], g_new[i],
                                 None if dg_new is None else dg_old[i],
                                 None if dg_new is None else dg_new[i]):
                cands.append((tc, "event", i))
    if len(cands) > 1:
        cands.sort(key=lambda c: c[0])
    stop = None
    for tc, kind, k in cands:
        if kind == "event":
            yc = drv(tc)
            found.append((tc, k, yc))
            if events.terminal[k]:
                stop = (tc, kind, k, yc)
                break
            continue
        if kind == "singular" and watch.singular == "warn":
            if (k if k >= 0 else ~k) not in watch.crossed:
                d = watch.divisors[k if k >= 0 else ~k]
                watch.crossed.add(k if k >= 0 else ~k)
                yc = drv(tc)
                warnings.warn(SingularityWarning(
                    f"model {watch.model.name!r}: {d.label} {_event_word(k)} at t = {tc:.9g} s"
                    f"{watch._pose(yc, watch._states_of(d))}; the equations divide by it "
                    "there: results after this time are unreliable"), stacklevel=_user_level())
            continue
        stop = (tc, kind, k, drv(tc))
        break
    t_stop = t if stop is None else stop[0]
    # outputs up to t_stop
    te = out.te
    if te is None:
        if stop is None:
            out.add(t, y)
        elif stop[0] > t_old:
            out.add(stop[0], stop[3])
    else:
        while out.ie < te.size and te[out.ie] <= t_stop:
            out.add(float(te[out.ie]), drv(float(te[out.ie])))
            out.ie += 1
    if stop is not None:
        tc, kind, k, yc = stop
        if kind == "event":
            watch.good(tc, yc)
            return seg(hit=(tc, k, yc), t_end=tc, y_end=yc), m_old, g_old, dg_old
        watch.good(t_old, drv(t_old) if t_old != t else y)
        if kind == "blowup":
            near, inv = watch._near_zero(tc, yc)
            return seg(watch.failure("blowup", tc, (
                f"a blow-up: {watch.names[k]} passed the bound {watch.bound[k]:.3g} "
                f"(blowup = {watch.blowup:g} × max(1, |its start value|)) at t = {tc:.9g} s, "
                f"growing at {_rate(watch, drv, tc, yc, k):.3g}/s"
                + (f"; probable cause: {near}" if near else ""),
                tuple(dict.fromkeys((k,) + inv))), state=yc)), m_old, g_old, dg_old
        d = watch.divisors[k if k >= 0 else ~k]
        inv = watch._states_of(d)
        return seg(watch.failure("singular", tc, (
            f"{d.label} {_event_word(k)} at t = {tc:.9g} s: the equations divide by it, "
            f"{_what(d)}{watch._pose(yc, inv)}", inv), state=yc, advice=_advice(d))), m_old, g_old, dg_old
    if m_new is not None:
        if low:
            watch.ill_conditioning(t, m_new, y)
        m_old = m_new
    return None, m_old, g_new, dg_new


def _native_loop(nat, a, b, y0, watch, rtol, atol, max_step, first_step, out, found, events,
                 on_step, seg):
    """:func:`_loop` with the native driver stepping (see :func:`run_segment`)."""
    if first_step is not None:
        first_step = min(float(first_step), b - a)
    m_old = _monitor_values(watch, a, y0)
    g_old = _event_values(events, a, y0) if events is not None else None
    msg = nat.begin(watch, a, b, y0, rtol=rtol, atol=atol, max_step=max_step,
                    first_step=first_step, te=out.te, ie=out.ie, m_old=m_old, g_old=g_old)
    if msg:
        return seg(watch.solver_failure(msg))
    polled = events.polled if events is not None else None
    p_old = _event_values(polled, a, y0) if polled is not None else None

    def poll(t: float, y: np.ndarray):
        """The polled events at the end of the last finished step: a crossing since the last
        poll is recorded at ``t``; a terminal one ends the segment there."""
        nonlocal p_old
        p_new = _event_values(polled, t, y)
        hit = None
        for j in range(len(polled)):
            ga, gb, d = p_old[j], p_new[j], polled.direction[j]
            up = ga <= 0 <= gb and not (ga == 0 and gb == 0)
            down = ga >= 0 >= gb and not (ga == 0 and gb == 0)
            if (up and d >= 0) or (down and d <= 0):
                k = len(events) + j
                found.append((t, k, y.copy()))
                if polled.terminal[j] and hit is None:
                    hit = (t, k, y.copy())
        p_old = p_new
        return hit

    resume = False
    while True:
        code = nat.run(watch, resume)
        out.block(*nat.rows())
        out.ie = nat.ie
        resume = False
        if on_step is not None:
            on_step(nat.t)
        if code in ("end", "yield"):
            hit = poll(nat.t, nat.y) if polled is not None else None
            if hit is not None:
                return seg(hit=hit, t_end=hit[0], y_end=hit[2])
            if code == "end":
                return seg(t_end=nat.t, y_end=nat.y.copy())
            continue
        if code == "look":
            t_old, t, y = nat.t_old, nat.t, nat.y.copy()
            done, m, g, dg = _examine(watch, nat, events, t_old, t, y, nat.old_monitor(),
                                      nat.old_events(), nat.old_slopes(), out, found, seg)
            if done is not None:
                return done
            watch.good(t, y)
            hit = poll(t, y) if polled is not None else None
            if hit is not None:
                return seg(hit=hit, t_end=t, y_end=y)
            if t >= b:
                return seg(t_end=t, y_end=y)
            nat.after_look(watch, m, g, dg, out.ie)
            resume = True
            continue
        if code == "fails":
            return seg(watch.fails_failure())
        if code == "calls":
            return seg(watch.calls_failure())
        if code == "tiny":
            return seg(watch.tiny_failure(nat.t_old))
        if code == "steps":
            return seg(watch.steps_failure(nat.t_old, nat.h_last))
        if code == "timeout":
            return seg(watch.timeout_failure())
        if code == "nonfinite":
            return seg(watch.nonfinite_failure(nat.t_old, nat.t, nat.y))
        return seg(watch.solver_failure(nat.message()))


def _event_word(k: int) -> str:
    """A divisor's event: a sign change (k ≥ 0) or a coupled block's normalised
    determinant falling below BLOCK_EPS (encoded as ~k)."""
    if k >= 0:
        return "crossed zero"
    return f"became singular (its normalised determinant fell below {BLOCK_EPS:g})"


def _rate(watch: Watch, drv, t: float, y: np.ndarray, i: int) -> float:
    """How fast state ``i`` grows at ``(t, y)``: the right-hand side, else the step's secant."""
    if watch.rate is not None:
        try:
            return float(np.asarray(watch.rate(t, y[: watch.nx]))[i])
        except Exception:  # noqa: BLE001 - a diagnosis must not fail
            pass
    h = drv.t - drv.t_old
    return float((drv.y[i] - drv(drv.t_old)[i]) / h) if h > 0 else math.nan


def _monitor_values(watch: Watch, t: float, y: np.ndarray) -> np.ndarray | None:
    if watch.monitor is None:
        return None
    vals, _ = watch.monitor(t, np.asarray(y)[: watch.nx])
    return vals


def _event_values(events: EventSet, t: float, y: np.ndarray) -> np.ndarray:
    return np.asarray(events.values(t, y), dtype=float)


def _crossings(events: EventSet, i: int, drv, t_old: float, t: float, ga: float, gb: float,
               dga: float | None, dgb: float | None) -> list[float]:
    """Where event ``i`` crosses in [t_old, t] in its direction (R7): the sign change between
    the ends, or both crossings around an extremum inside the step."""
    d = events.direction[i]

    def g(s: float) -> float:
        return float(_event_values(events, s, drv(s))[i])

    # a native step's guard linear in the state is a polynomial on the step: its roots and
    # extrema by numpy (bondgraph.native.steppoly); else Brent's methods on the interpolant
    def poly():
        return drv.guard_polynomial(events, i) if hasattr(drv, "guard_polynomial") else None

    def root(a: float, b: float) -> float:
        p = poly()
        r = p.root(a, b) if p is not None else None
        return _root(g, a, b) if r is None else r

    def extremum(a: float, b: float, sign: int) -> tuple[float, float]:
        p = poly()
        return p.extremum(a, b, sign) if p is not None else _extremum(g, a, b, sign)

    up = ga <= 0 <= gb and not (ga == 0 and gb == 0)
    down = ga >= 0 >= gb and not (ga == 0 and gb == 0)
    if up or down:
        return [root(t_old, t)] if (up and d >= 0) or (down and d <= 0) else []
    if dga is None or dgb is None:
        return []
    out = []
    if ga < 0 and gb < 0 and dga > 0 > dgb:  # a maximum inside: above zero?
        tm, gm = extremum(t_old, t, +1)
        if gm >= 0:
            if d >= 0:
                out.append(root(t_old, tm))
            if d <= 0:
                out.append(root(tm, t))
    elif ga > 0 and gb > 0 and dga < 0 < dgb:  # a minimum inside: below zero?
        tm, gm = extremum(t_old, t, -1)
        if gm <= 0:
            if d <= 0:
                out.append(root(t_old, tm))
            if d >= 0:
                out.append(root(tm, t))
    return out


# ---------------------------------------------------------------------------- options
def require_model(model: Any, what: str) -> None:
    """A built :class:`~bondgraph.model.Model`, or a named :class:`ParameterError`.

    Parameters
    ----------
    model : object
    what : str

    Examples
    --------
    >>> from bondgraph import BondGraph
    >>> require_model(BondGraph("m"), "simulate")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: simulate: got BondGraph as the model, expected a built Model (build it first: bondgraph.build(...))
    """
    if hasattr(model, "state_names") and hasattr(model, "system") and hasattr(model, "equations"):
        return
    hint = (" (build it first: bondgraph.build(...))" if hasattr(model, "children")
            or hasattr(model, "nodes") else "")
    raise ParameterError(f"{what}: got {type(model).__name__} as the model, expected a built "
                         f"Model{hint}")


def check_options(model, *, t_span, method: str, rtol, atol, max_step, first_step=None,
                  t_eval=None, x0=None, timeout=DEFAULT_TIMEOUT, blowup=DEFAULT_BLOWUP,
                  singular: str = "error", max_steps=500_000, what: str = "simulate",
                  extra: Sequence[str] = ()) -> tuple[float, float]:
    """Validate a run's arguments; one :class:`ParameterError` lists every problem.

    Parameters
    ----------
    model : Model
    t_span, method, rtol, atol, max_step, first_step, t_eval, x0, timeout, blowup, singular, max_steps
        As for :func:`~bondgraph.simulate`.
    what : str
        The caller's name, for the message.
    extra : sequence of str
        Problems the caller found already (listed with these).

    Returns
    -------
    (float, float)
        ``(t0, t1)``.

    Raises
    ------
    ParameterError
        Not a built model, or any bad option (all listed).

    Examples
    --------
    >>> import numpy as np
    >>> from bondgraph import BondGraph, One, I, build
    >>> bg = BondGraph("m")
    >>> _ = bg.add(One("v"), I("m", 1.0))
    >>> _ = bg.connect("v", "m")
    >>> model = build(bg)
    >>> check_options(model, t_span=(0, 2), method="BDF", rtol=1e-6, atol=1e-9, max_step=np.inf)
    (0.0, 2.0)
    >>> check_options(model, t_span=(0, 2), method="BDF", rtol=1.0, atol=-1.0, max_step=0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: simulate('m'): 3 problems
      - rtol = 1.0: expected a number in [2.2e-14, 0.1] (relative error per step)
      - atol = -1.0: expected finite values ≥ 0
      - max_step = 0: expected a positive number (inf: no limit)
    """
    problems = list(extra)
    require_model(model, what)
    t0 = t1 = math.nan
    try:
        if isinstance(t_span, (str, bytes)):
            raise TypeError  # "01" would be read as (0, 1)
        span = [float(v) for v in t_span]
        if len(span) != 2:
            raise ValueError
        t0, t1 = span
        if not (math.isfinite(t0) and math.isfinite(t1)):
            problems.append(f"t_span {tuple(t_span)}: found a non-finite time, expected two "
                            "finite times (t0, t1)")
        elif not t1 > t0:
            problems.append(f"t_span {tuple(t_span)}: expected t1 > t0")
    except (TypeError, ValueError):
        problems.append(f"t_span {t_span!r}: expected two numbers (t0, t1) with t1 > t0")
    if not isinstance(method, str) or (method != "CVODE" and method not in SOLVE_IVP_METHODS):
        problems.append(f"method {method!r}: expected 'CVODE' or one of "
                        f"{', '.join(SOLVE_IVP_METHODS)}")
    if not _real(rtol) or not (100 * _EPS <= float(rtol) <= 0.1):
        problems.append(f"rtol = {rtol!r}: expected a number in [{100 * _EPS:.2g}, 0.1] "
                        "(relative error per step)")
    nx = len(model.state_names)
    try:
        a = np.asarray(atol, dtype=float)
        if a.ndim > 1 or (a.ndim == 1 and a.shape != (nx,)):
            problems.append(f"atol: shape {a.shape}, expected a number or one per state ({nx})")
        elif not np.all(np.isfinite(a)) or np.any(a < 0):
            problems.append(f"atol = {atol!r}: expected finite values ≥ 0")
    except (TypeError, ValueError):
        problems.append(f"atol = {atol!r}: expected a number or one per state ({nx})")
    span_ok = math.isfinite(t0) and math.isfinite(t1) and t1 > t0
    if not _real(max_step) or math.isnan(float(max_step)) or float(max_step) <= 0:
        problems.append(f"max_step = {max_step!r}: expected a positive number (inf: no limit)")
    if first_step is not None:
        if not _real(first_step) or not (0 < float(first_step) < math.inf):
            problems.append(f"first_step = {first_step!r}: expected a positive finite number "
                            "or None")
        elif span_ok and float(first_step) > t1 - t0:
            problems.append(f"first_step = {first_step!r}: longer than the span {t1 - t0:g} s")
    if t_eval is not None:
        try:
            tev = np.asarray(t_eval, dtype=float)
            if tev.ndim != 1:
                problems.append(f"t_eval: shape {tev.shape}, expected a 1-D array of times")
            elif not np.all(np.isfinite(tev)):
                problems.append("t_eval: contains non-finite times")
            elif tev.size == 0:
                problems.append("t_eval: empty, expected at least one output time (None: the "
                                "solver's own steps)")
            else:
                if np.any(np.diff(tev) <= 0):
                    problems.append("t_eval: times must increase strictly")
                if span_ok and tev.size and (tev[0] < t0 or tev[-1] > t1):
                    problems.append(f"t_eval: times from {tev[0]:g} to {tev[-1]:g} s, expected "
                                    f"within t_span [{t0:g}, {t1:g}]")
        except (TypeError, ValueError):
            problems.append(f"t_eval {t_eval!r}: expected a 1-D array of times")
    if x0 is not None:
        problems += _x0_problems(model, x0)
    if timeout is not None and (not _real(timeout) or not float(timeout) > 0):
        problems.append(f"timeout = {timeout!r}: expected a positive number of seconds or None")
    if blowup is not None and (not _real(blowup) or not float(blowup) > 1):
        problems.append(f"blowup = {blowup!r}: expected a factor > 1 or None")
    if singular not in ("error", "warn", "ignore"):
        problems.append(f"singular = {singular!r}: expected 'error', 'warn' or 'ignore'")
    if not (isinstance(max_steps, (int, np.integer)) and not isinstance(max_steps, bool)
            and max_steps > 0):
        problems.append(f"max_steps = {max_steps!r}: expected a positive integer")
    if problems:
        raise ParameterError(problems, subject=f"{what}({model.name!r})")
    return t0, t1


def _real(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _x0_problems(model, x0) -> list[str]:
    names = model.state_names
    out = []
    if isinstance(x0, Mapping):
        for k, v in x0.items():
            if k not in names:
                continue  # named by initial_state, with close matches
            if not _real(v) or not math.isfinite(float(v)):
                out.append(f"x0[{k!r}] = {v!r}: expected a finite number")
        return out
    try:
        arr = np.asarray(x0, dtype=float)
    except (TypeError, ValueError):
        return [f"x0 {x0!r}: expected a dict of state values or an array of {len(names)} numbers"]
    if arr.shape != (len(names),):
        return []  # initial_state names the shape
    bad = [names[i] for i in range(len(names)) if not np.isfinite(arr[i])]
    if bad:
        out.append(f"x0: non-finite values for {', '.join(bad)}; expected finite numbers")
    return out
