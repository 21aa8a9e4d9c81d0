"""``simulate_hybrid``: the event-driven integration of a hybrid model.

:func:`simulate_hybrid` checks every option at once, puts the model in its initial
modes, opens the native CVODE session when it can (:mod:`.eventsets`), runs the step
loop (:class:`~.run._HybridRun`) and leaves the model's parameters, modes and inputs as
they were, whatever happens.

Examples
--------
>>> from bondgraph.hybrid.examples import cart
>>> res = simulate_hybrid(cart(), (0.0, 2.0), rtol=1e-10, atol=1e-12)
>>> [str(r) for r in res.transitions]
['t = 1 s: push Right → Left (cart/v.x > 1)']
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import ParameterError
from ..native.cvode import BACKENDS
from ..stepping import DEFAULT_BLOWUP, DEFAULT_TIMEOUT, Watch, check_options
from .control import Controller
from .eventsets import _native_setup
from .model import HybridModel
from .records import HybridResults
from .rhs import _Rhs
from .run import _HybridRun

__all__ = ["simulate_hybrid"]


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
                    blowup: float | None = DEFAULT_BLOWUP, backend: str = "auto",
                    energy: bool = False) -> HybridResults:
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
    energy : bool
        Also integrate the source work, the dissipation and the parametric work, as
        :func:`~bondgraph.simulate.simulate` does, across every switch (for
        :func:`~bondgraph.results.power_balance`). A switch that changes a storage element's
        law makes its stored energy jump: the balance then shows that jump in its residual.

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

    Examples
    --------
    The bang-bang cart (:func:`.examples.cart`): ``x = t²`` up to ``x = 1`` at ``t = 1``, then
    ``x = 1 + 2τ − τ²`` back down to 0 at ``τ = 1 + √2``:

    >>> from bondgraph.hybrid.examples import cart
    >>> res = simulate_hybrid(cart(), (0.0, 4.0), rtol=1e-10, atol=1e-12)
    >>> [(round(r.time, 6), r.target) for r in res.transitions], round(2 + math.sqrt(2), 6)
    ([(1.0, 'Left'), (3.414214, 'Right')], 3.414214)
    >>> res.stats["events"], res.mode("push")[-1]
    (2, 'Right')
    >>> simulate_hybrid(cart(), (0.0, 1.0), modes={"push": "Up"})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: simulate_hybrid('cart'): 1 problem
      - modes: 'push' has no mode 'Up' (modes: Left, Right)
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
    if not isinstance(energy, bool):
        extra.append(f"energy = {energy!r}: expected True or False")
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
        rhs = _Rhs(hm, inputs, controller, signals, energy=bool(energy))
        x_init = model.initial_state(x0)
        y = np.concatenate([x_init, np.zeros(3)]) if energy else x_init
        native = _native_setup(hm, rhs, backend, method, jacobian)
    except BaseException:
        model.system.params[:] = saved_params
        hm._modes.update(saved_modes)
        model.system.set_native_inputs(None)
        raise
    if energy and np.ndim(atol) == 1:   # the integrals: the tightest of the states' atol
        atol = np.concatenate([np.asarray(atol, dtype=float), np.full(3, float(np.min(atol)))])
    watch = Watch(model, t0, t1, x_init, method=method, timeout=timeout, blowup=blowup,
                  singular=singular, max_steps=max_steps, monitor=rhs.monitor, rate=rhs.rate)
    rhs.watch = watch
    if native is not None:
        native.attach(watch)
    jac = rhs.jac if jacobian and not rhs.continuous else None
    try:
        run = _HybridRun(hm, rhs, native, watch, t0=t0, t1=t1, y=y, t_eval=t_eval, jac=jac,
                         controller=controller, method=method, rtol=rtol, atol=atol, max_step=max_step,
                         max_events=max_events, max_burst=max_burst, burst_window=burst_window)
        return run.run()
    finally:  # leave the model as it was (the run's modes are in the results)
        model.system.params[:] = saved_params
        hm._modes.update(saved_modes)
        model.system.set_native_inputs(None)
