"""Simulation of a built model with scipy's ``solve_ivp`` or SUNDIALS CVODE.

:func:`simulate` integrates ``ẋ = f(t, x, u)`` with the model's compiled
right-hand side and analytic Jacobian. The default method is ``"LSODA"``
(scipy; stiff/non-stiff switching), any ``solve_ivp`` method can be named, and
``"CVODE"`` uses SUNDIALS through scikit-sundae (fastest on stiff hydraulics).
Known slope breaks of input tables are integration restarts, so the solver
never steps over a corner. With ``"CVODE"`` the steps are taken natively in C
(:mod:`bondgraph.native`: SUNDIALS driven on the compiled functions, inputs
evaluated in C) whenever the run needs no Python per step; ``backend=`` forces
either path, ``Results.stats["backend"]`` says which ran.

Every method is stepped by :mod:`bondgraph.stepping`, which holds the rules of a
failed or stopped run in one place: a failed integration raises
:class:`~bondgraph.errors.SimulationError` with the true failure time, the named
states and the probable cause (a singular block naming its unknowns and elements, a
divisor crossing zero at a dead centre, a blow-up naming the growing state, a
stalled step size, the wall-clock guard); its ``results`` keep everything computed
up to the last good step. The equations' divisors (moduli in their dividing
causality, block matrices) are monitored: crossing zero stops the run
(``singular="error"``, the default), and getting small relative to the start gives a
:class:`~bondgraph.errors.SingularityWarning`.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, build, simulate
>>> bg = BondGraph("drag")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0), R("b", 1.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> res = simulate(build(bg), (0.0, 5.0), rtol=1e-9, atol=1e-12)
>>> round(float(res["drag/m.f"][-1]), 4)   # 1 − exp(−5)
0.9933
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .errors import ParameterError, UserCallableError
from .model import Model
from .results import Results
from .signals import InputSet, describe_callable
from .native.cvode import BACKENDS, native_session
from .stepping import (DEFAULT_BLOWUP, DEFAULT_TIMEOUT, SOLVE_IVP_METHODS, EventSet,
                       Watch, check_options, run_segment)

__all__ = ["simulate", "SOLVE_IVP_METHODS", "BACKENDS"]


class _Rhs:
    """The Python side of one RHS call: inputs, compiled code, failure reporting."""

    def __init__(self, model: Model, inputs: InputSet, energy: bool):
        self.sys = model.system
        self.inputs = inputs
        self.nx = model.system.nx
        self.energy = energy
        self.watch: Watch | None = None
        self.const = inputs.constant
        if self.const and inputs.names:
            u, du = inputs(0.0)
            self.sys.set_inputs(u, du)
        tables = inputs.native() if inputs.names and not self.const else None
        if tables is not None:  # the compiled code evaluates the inputs itself
            slots = [inputs.deriv_names.index(n) if n in inputs.deriv_names else -1 for n in inputs.names]
            self.sys.set_native_inputs(tables, slots)
            self.const = True
        self.n = self.nx + (3 if energy else 0)
        self._yb = np.zeros(self.n)  # contiguous buffers with fixed addresses (ctypes is slow)
        self._ob = np.zeros(self.n)
        self._yp, self._op = self._yb.ctypes.data, self._ob.ctypes.data
        self._mode = 1 if energy else 0

    def _set(self, t: float) -> None:
        if not self.const:
            u, du = self.inputs(t)
            self.sys.set_inputs(u, du)

    def __call__(self, t: float, y: np.ndarray) -> np.ndarray:
        out = np.empty(self.n)
        self.into(t, y, out)
        return out

    def into(self, t: float, y: np.ndarray, out: np.ndarray) -> None:
        """Write ``ẏ`` into ``out``; a failed call writes NaN and is reported to the watch."""
        self.watch.call(t)
        if not self.const:
            self._set(t)
        self._yb[:] = y
        st = self.sys.rhs_into(t, self._yp, self._op, self._mode)
        if st != 0:
            out[:] = np.nan
            self.watch.failed(t, y, self.sys.describe_status(st))
        else:
            out[:] = self._ob

    def jac(self, t: float, y: np.ndarray) -> np.ndarray:
        self.watch.njev += 1
        self._set(t)
        try:
            J = self.sys.jac(t, y[: self.nx])
        except FloatingPointError as exc:
            self.watch.failed(t, y, f"{exc} (in the Jacobian)", jacobian=True)
            raise  # not reached: a failed Jacobian stops the run
        if self.energy:
            Ja = np.zeros((self.n, self.n))
            Ja[: self.nx, : self.nx] = J
            return Ja
        return J

    def rate(self, t: float, x: np.ndarray) -> np.ndarray:
        """``ẋ`` without bookkeeping (diagnosis); raises FloatingPointError."""
        self._set(t)
        return self.sys.rhs(t, x)

    def monitor(self, t: float, x: np.ndarray):
        if not self.const:
            self._set(t)
        return self.sys.monitors(t, x)


def simulate(model: Model, t_span: Sequence[float], *, x0: Mapping[str, float] | np.ndarray | None = None,
             inputs: Mapping[str, Any] | None = None, method: str = "LSODA",
             rtol: float = 1e-6, atol: float | np.ndarray = 1e-9,
             t_eval: np.ndarray | None = None, max_step: float = np.inf,
             first_step: float | None = None, events: Sequence[Callable] | None = None,
             energy: bool = False, jacobian: bool = True, progress: bool = True,
             max_steps: int = 500_000, singular: str = "error",
             timeout: float | None = DEFAULT_TIMEOUT,
             blowup: float | None = DEFAULT_BLOWUP, backend: str = "auto") -> Results:
    """Integrate a model over ``t_span``.

    Parameters
    ----------
    model : Model
        From :func:`~bondgraph.model.build`.
    t_span : (float, float)
        Finite start and end times, ``t1 > t0``.
    x0 : dict or array, optional
        Initial state (named overrides of the elements' initial values), finite.
    inputs : dict, optional
        Input name → number, sympy expression of ``t``, callable, Table or Spline.
    method : str
        ``"LSODA"`` (default), ``"BDF"``, ``"Radau"``, ``"RK45"``..., or ``"CVODE"``.
    rtol, atol : float
        Tolerances: ``rtol`` in [2.2e-14, 0.1], ``atol`` ≥ 0 (a number or one per state).
    t_eval : array, optional
        Output times, increasing, within ``t_span`` (default: the solver's own steps).
    max_step, first_step : float, optional
    events : list of callables, optional
        ``g(t, x) -> float`` with optional ``terminal`` / ``direction`` attributes
        (solve_ivp convention); ``x`` is the model state vector. A crossing is found
        even when ``g`` changes sign twice within one step (see :mod:`bondgraph.stepping`).
    energy : bool
        Also integrate source work and dissipated energy (for
        :func:`~bondgraph.results.power_balance`).
    jacobian : bool
        Give the solver the analytic Jacobian (else it differences).
    progress : bool
        Show a progress bar if the run takes longer than a second.
    max_steps : int
        Stop with an error after this many steps.
    singular : {"error", "warn", "ignore"}
        What a divisor of the equations crossing zero does (a transformer modulus in
        its dividing causality at a dead centre, a block matrix becoming singular):
        stop with a :class:`~bondgraph.errors.SimulationError` naming the element and
        the pose (default), warn once and go on, or not watch the divisors at all. With
        ``"error"`` and ``"warn"``, a divisor falling below 1e-3 of its start value also
        warns (:class:`~bondgraph.errors.SingularityWarning`), once per divisor and run.
    timeout : float or None
        Wall-clock guard (s, default one hour): a run still going after it stops with a
        :class:`~bondgraph.errors.SimulationError` saying so. ``None``: no guard.
    blowup : float or None
        A state whose magnitude exceeds ``blowup·max(1, |x(t0)|)`` (default 1e12) is a
        blow-up: the run stops at the located crossing time. ``None``: no bound.
    backend : {"auto", "native", "python"}
        Who drives CVODE. ``"native"``: SUNDIALS CVODE stepped from C on the compiled
        model (:mod:`bondgraph.native`), no Python per step, the same rules, steps,
        messages and results as the Python path, several times faster. ``"python"``:
        scikit-sundae calling the model from Python. ``"auto"`` (default) runs natively
        with ``method="CVODE"`` whenever it can (inputs that are tables, splines or
        numbers; no Python event functions; a C compiler and SUNDIALS 7).
        ``Results.stats["backend"]`` says which ran.

    Returns
    -------
    Results

    Raises
    ------
    SimulationError
        With the true failure ``time``, the named ``state`` there, the probable cause,
        and the partial ``results``. :class:`~bondgraph.errors.UserCallableError` (a
        ``SimulationError``) when an input function or event raised.
    ParameterError
        Bad method, tolerances, times, inputs or initial values (all listed at once);
        ``backend="native"`` where the native path cannot run (the message says why).

    Examples
    --------
    A stone dropped from 10 m hits the ground at ``t = √(2·10/9.81) ≈ 1.4278 s``; a
    terminal event stops the run there:

    >>> import math
    >>> from bondgraph import BondGraph, Se, One, I, build
    >>> bg = BondGraph("fall")
    >>> _ = bg.add(Se("g", -9.81), One("v", displacement="x", initial=10.0), I("m", 1.0))
    >>> _ = bg.connect("g", "v"); _ = bg.connect("v", "m")
    >>> model = build(bg)
    >>> i = model.state_index("fall/v.x")
    >>> def ground(t, x):
    ...     return x[i]
    >>> ground.terminal, ground.direction = True, -1
    >>> res = simulate(model, (0.0, 5.0), events=[ground], rtol=1e-10, atol=1e-12,
    ...                progress=False)
    >>> res.stopped, bool(abs(res.t[-1] - math.sqrt(2 * 10 / 9.81)) < 1e-8)
    (True, True)

    Output times, SUNDIALS CVODE (natively in C where it can), named initial values:

    >>> res = simulate(model, (0.0, 1.0), method="CVODE", t_eval=[0.0, 0.5, 1.0],
    ...                x0={"fall/v.x": 20.0}, progress=False)
    >>> [round(float(x), 6) for x in res["fall/v.x"]]     # 20 − g·t²/2
    [20.0, 18.77375, 15.095]
    >>> simulate(model, (1.0, 0.0), method="Euler", progress=False)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: simulate('fall'): 2 problems
      - t_span (1.0, 0.0): expected t1 > t0
      - method 'Euler': expected 'CVODE' or one of LSODA, BDF, Radau, RK45, RK23, DOP853
    """
    extra = _event_problems(events)
    if backend not in BACKENDS:
        extra.append(f"backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    t0, t1 = check_options(model, t_span=t_span, method=method, rtol=rtol, atol=atol,
                           max_step=max_step, first_step=first_step, t_eval=t_eval, x0=x0,
                           timeout=timeout, blowup=blowup, singular=singular,
                           max_steps=max_steps, extra=extra)
    inp = InputSet(model.input_names, model.equations.input_derivatives, inputs)
    x_init = model.initial_state(x0)
    if x_init.size == 0 and not energy:
        return _no_states(model, inp, t0, t1, t_eval, events, backend)
    bar = None
    if progress:   # tqdm imported only by a run still going after a second
        from .progressbar import LazyBar

        bar = LazyBar(t1 - t0, delay=1.0, unit="s", desc=f"simulating {model.name}", leave=False,
                      bar_format="{l_bar}{bar}| {n:.3g}/{total:.3g} s [{elapsed}<{remaining}]")
    try:
        rhs = _Rhs(model, inp, energy)
        native = native_session(model, backend, method, subject=f"model {model.name!r}",
                                energy=energy, jacobian=jacobian, inputs=inp,
                                events=[e for e in events or () if not _native_event(e)])
        watch = Watch(model, t0, t1, x_init, method=method, timeout=timeout, blowup=blowup,
                      singular=singular, max_steps=max_steps, monitor=rhs.monitor, rate=rhs.rate)
        rhs.watch = watch
        if native is not None:
            polled = any(getattr(e, "polled", False) for e in events or ())
            native.attach(watch, yield_every=0.1 if polled else 0.25 if bar is not None else 0.0)
        return _run(model, rhs, inp, bar, x_init, t0, t1, t_eval, method, rtol, atol, max_step,
                    first_step, events, energy, jacobian, watch, native)
    finally:
        if bar is not None:
            bar.close()
        model.system.set_native_inputs(None)


#: output times of a run of a model with no states when no ``t_eval`` is given
NO_STATE_SAMPLES = 101


def _no_states(model, inp, t0: float, t1: float, t_eval, events, backend: str) -> Results:
    """A model with no states (sources into resistors) has nothing to integrate: its outputs
    are evaluated at ``t_eval`` (default :data:`NO_STATE_SAMPLES` evenly spaced times). No
    integrator runs, whatever the method (CVODE on an empty vector crashes SUNDIALS)."""
    if events:
        raise ParameterError(f"model {model.name!r} has no states: nothing is integrated, so events "
                             "cannot be located; evaluate the outputs at the times you need (t_eval)")
    if backend == "native":
        raise ParameterError(f"backend 'native' for model {model.name!r}: it has no states, nothing to "
                             "integrate natively; use backend 'auto' (its outputs are evaluated at t_eval)")
    t = np.linspace(t0, t1, NO_STATE_SAMPLES) if t_eval is None else np.asarray(t_eval, dtype=float)
    res = Results(model, t, np.zeros((len(t), 0)), inp, energy=False,
                  stats={"nfev": 0, "njev": 0, "steps": 0, "wall_time": 0.0, "backend": "none"},
                  message="no states: the outputs evaluated at the output times")
    res.stopped = False
    return res


def _event_problems(events) -> list[str]:
    if events is None:
        return []
    try:
        evs = list(events)
    except TypeError:
        return [f"events {events!r}: expected a list of callables g(t, x)"]
    return [f"events[{i}] = {e!r}: expected a callable g(t, x)" for i, e in enumerate(evs)
            if not callable(e)]


def _run(model, rhs, inp, bar, x_init, t0, t1, t_eval, method, rtol, atol, max_step,
         first_step, events, energy, jacobian, watch, native=None):
    y = np.concatenate([x_init, np.zeros(3)]) if energy else x_init.copy()
    nx = model.system.nx

    def partial(t, yy, message):
        return Results(model, np.asarray(t), np.asarray(yy).reshape(len(t), -1), inp,
                       energy=energy, stats=_stats(watch, native), message=message)

    # check the initial point before integrating
    fail = watch.check_start(t0, y, rhs)
    if fail is not None:
        raise watch.error(f"model {model.name!r}", fail, partial([t0], y[None, :], f"failed: {fail.cause}"))

    cuts = [t for t in inp.breakpoints() if t0 < t < t1]
    segments = list(zip([t0] + cuts, cuts + [t1]))
    te_all = None if t_eval is None else np.asarray(t_eval, dtype=float)
    ts, ys = ([np.array([t0])], [y[None, :]]) if te_all is None else ([], [])
    ev_t, ev_i, ev_y = [], [], []
    evset = None
    if events:
        evset = _event_set(events, nx) if native is None else _native_event_set(events, nx, native)
    order = getattr(evset, "order", None)  # the user's index of each event of evset
    message, stop = "ok", False
    state = {"bar_t": t0}

    def on_step(t):
        if bar is not None and t > state["bar_t"]:
            bar.update(t - state["bar_t"])
            state["bar_t"] = t

    fun = rhs
    jac = rhs.jac if jacobian else None
    if energy and np.ndim(atol) == 1:  # the energy integrals: the tightest of the states' atol
        atol = np.concatenate([np.asarray(atol, dtype=float), np.full(3, float(np.min(atol)))])
    # a flag already raised when a segment starts (Ctrl-C before the run, or at a restart)
    # shows no crossing: it is looked at here, and the run ends at the segment's start
    flags = [(i, e) for i, e in enumerate(events or ()) if getattr(e, "polled", False)
             and getattr(e, "terminal", False)]
    for a, b in segments:
        raised = [i for i, e in flags if e(a, y[:nx]) <= 0]
        if raised:
            if te_all is not None and not (ts and len(ts[-1]) and ts[-1][-1] == a):
                ts.append(np.array([a]))
                ys.append(y[None, :])
            ev_t.append(a)
            ev_i.append(raised[0])
            ev_y.append(y.copy())
            message = f"terminal event {raised[0]} at t = {a:.9g}"
            stop = True
            break
        seg_eval = None
        if te_all is not None:
            lo = (te_all >= a) if a == t0 else (te_all > a)
            seg_eval = te_all[lo & (te_all <= b)]
        seg = run_segment(method, fun, jac, a, b, y, watch, rtol=rtol, atol=atol,
                          max_step=max_step, first_step=first_step, t_eval=seg_eval,
                          events=evset, on_step=on_step, native=native)
        ts.append(seg.t)
        ys.append(seg.y)
        for te_, ie_, ye_ in seg.events:
            ev_t.append(te_)
            ev_i.append(ie_ if order is None else order[ie_])
            ev_y.append(ye_)
        if seg.failure is not None:
            t_all, y_all = np.concatenate(ts), np.vstack(ys)
            res = partial(t_all, y_all, f"failed: {seg.failure.cause}")
            raise watch.error(f"model {model.name!r}", seg.failure, res)
        y = seg.y_end
        if seg.hit is not None:
            k = seg.hit[1] if order is None else order[seg.hit[1]]
            message = f"terminal event {k} at t = {seg.hit[0]:.9g}"
            stop = True
            break
    if bar is not None:
        bar.update(max(0.0, (t1 - t0) - bar.n))
    res = Results(model, np.concatenate(ts), np.vstack(ys), inp, energy=energy,
                  stats=_stats(watch, native), message=message,
                  events=(np.array(ev_t), np.array(ev_i, dtype=int),
                          np.array(ev_y) if ev_y else np.zeros((0, y.size))))
    res.stopped = stop
    return res


def _native_event(e) -> bool:
    """An event the native path runs without Python per step (:mod:`bondgraph.events`)."""
    return hasattr(e, "native_spec") or bool(getattr(e, "polled", False))


def _native_event_set(events, nx: int, native) -> EventSet:
    """The events of a native run: those with a ``native_spec`` evaluated in C (in this
    order), the polled ones (:class:`~bondgraph.events.Flag`) after them; ``order`` maps
    back to the user's indices."""
    evs = list(events)
    in_c = [i for i, e in enumerate(evs) if hasattr(e, "native_spec")]
    polled = [i for i, e in enumerate(evs) if i not in in_c]
    native.set_guards([evs[i].native_spec() for i in in_c])
    es = EventSet(native.guard_values, [int(evs[i].direction) for i in in_c],
                  [bool(evs[i].terminal) for i in in_c],
                  [f"event {i} ({describe_callable(evs[i])})" for i in in_c])
    es.polled = _event_set([evs[i] for i in polled], nx, numbers=polled) if polled else None
    es.order = in_c + polled
    return es


def _event_set(events, nx: int, numbers: Sequence[int] | None = None) -> EventSet:
    evs = list(events)
    numbers = range(len(evs)) if numbers is None else numbers
    names = [f"event {n} ({describe_callable(e)})" for n, e in zip(numbers, evs)]

    def values(t, y):
        x = y[:nx]
        out = np.empty(len(evs))
        for i, e in enumerate(evs):
            try:
                v = float(e(t, x))
            except Exception as exc:  # noqa: BLE001 - a user function: named and wrapped
                raise UserCallableError(f"{names[i]} raised {type(exc).__name__}: {exc} at "
                                        f"t = {t:.9g} s", time=t, original=exc) from exc
            if not np.isfinite(v):
                raise UserCallableError(f"{names[i]} returned {v} at t = {t:.9g} s; expected a "
                                        "finite number", time=t)
            out[i] = v
        return out

    return EventSet(values, [int(np.sign(getattr(e, "direction", 0) or 0)) for e in evs],
                    [bool(getattr(e, "terminal", False)) for e in evs], names)


def _named(model: Model, x: np.ndarray) -> dict[str, float]:
    return {n: float(v) for n, v in zip(model.state_names, x)}


def _stats(watch: Watch, native=None) -> dict[str, Any]:
    import time

    return {"nfev": watch.nfev, "njev": watch.njev, "steps": watch.steps,
            "wall_time": time.perf_counter() - watch.start,
            "backend": "native" if native is not None else "python", "method": watch.method,
            **({"linear_solver": native.linear_solver} if native is not None else {})}
