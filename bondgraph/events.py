"""Event functions of :func:`~bondgraph.simulate.simulate` that need no Python per step.

``simulate(..., events=[...])`` takes any callable ``g(t, x)`` (solve_ivp convention:
``terminal``, ``direction``); a Python function is called at every step, so such a run
stays on the Python path. These two kinds run natively as well (:mod:`bondgraph.native`):

* :class:`StateEvent` — a state crossing a level, ``g = sign·(x[state] − threshold)``:
  evaluated and checked in C after every step (sign changes and extrema inside a step,
  rule R7 of :mod:`bondgraph.stepping`), the crossings counted by the same Python code on
  both paths; located on the Python path by Brent's methods on the solver's interpolant,
  natively as the real roots of the step's own polynomial (CVODE's interpolant on its
  last step; :mod:`bondgraph.native.steppoly`, numpy, no scipy.optimize) — the same
  times to an ulp or so of the step;
* :class:`Flag` — a terminal event that ends a run cleanly once ``requested`` is set
  (from a signal handler, a GUI): checked after every step on the Python path, and each
  time the native driver hands control back (at least every 0.1 s of wall clock) — a
  request made while C code runs can only be seen then; the run stops at the end of the
  step where it is seen, with its results.

Examples
--------
>>> from bondgraph import BondGraph, MSe, One, I, build, simulate
>>> bg = BondGraph("cart")
>>> _ = bg.add(MSe("F", 2.0), One("v", displacement="x"), I("m", 1.0))
>>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
>>> model = build(bg)
>>> wall = StateEvent(model, "cart/v.x", 1.0, terminal=True)      # x = t² reaches 1 at t = 1
>>> res = simulate(model, (0, 5), events=[wall], method="CVODE", rtol=1e-10, atol=1e-12,
...                progress=False)
>>> round(float(res.events[0][0]), 9), res.stats["backend"]
(1.0, 'native')
"""

from __future__ import annotations

import math

import numpy as np

from .errors import ParameterError
from .model import _near

__all__ = ["StateEvent", "Flag"]


class StateEvent:
    """``g(t, x) = sign·(x[state] − threshold)``: a state crossing a level.

    Other attributes may be set on an instance (e.g. what the crossing means to the caller).

    Parameters
    ----------
    model : Model
    state : str
        One of ``model.state_names``.
    threshold : float
    sign : {+1, −1}
        −1 for ``threshold − x`` (positive below the level).
    direction : {−1, 0, +1}
        Crossings of ``g`` counted: upwards, both, downwards (solve_ivp convention).
    terminal : bool
        Stop the run at the first counted crossing.

    Raises
    ------
    ParameterError
        An unknown state (close names suggested), a non-finite threshold, a bad sign or
        direction (all listed).

    Examples
    --------
    A 2 N force on a 1 kg mass: ``x = t²`` reaches 1 m at ``t = 1 s``.

    >>> from bondgraph import BondGraph, MSe, One, I, build, simulate
    >>> bg = BondGraph("cart")
    >>> _ = bg.add(MSe("F", 2.0), One("v", displacement="x"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> model = build(bg)
    >>> wall = StateEvent(model, "cart/v.x", 1.0, terminal=True)
    >>> wall
    StateEvent(cart/v.x > 1)
    >>> res = simulate(model, (0, 5), events=[wall], rtol=1e-10, atol=1e-12, progress=False)
    >>> round(float(res.t[-1]), 9), res.message
    (1.0, 'terminal event 0 at t = 1')
    >>> StateEvent(model, "cart/v.y", float("nan"))
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: StateEvent on 'cart/v.y': 2 problems
      - state 'cart/v.y': not a state of model 'cart'; did you mean 'cart/v.x', 'cart/m.f'?
      - threshold = nan: expected a finite number
    """

    def __init__(self, model, state: str, threshold: float, *, sign: int = 1, direction: int = 0,
                 terminal: bool = False):
        problems = []
        names = list(model.state_names)
        if state not in names:
            problems.append(f"state {state!r}: not a state of model {model.name!r}"
                            + _near(str(state), names))
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(threshold)):
            problems.append(f"threshold = {threshold!r}: expected a finite number")
        if isinstance(sign, bool) or sign not in (1, -1):
            problems.append(f"sign = {sign!r}: expected +1 or -1")
        if isinstance(direction, bool) or direction not in (-1, 0, 1):
            problems.append(f"direction = {direction!r}: expected -1, 0 or +1")
        if problems:
            raise ParameterError(problems, subject=f"StateEvent on {state!r}")
        self.state = state
        self.index = names.index(state)
        self.threshold = float(threshold)
        self.sign = int(sign)
        self.direction = int(direction)
        self.terminal = bool(terminal)

    def __call__(self, t: float, x: np.ndarray) -> float:
        return self.sign * (x[self.index] - self.threshold)

    def native_spec(self) -> tuple:
        """What the native driver evaluates: ``(kind, index, sign, threshold, tolerance,
        constant, direction)``.

        Returns
        -------
        tuple
        """
        return ("state", self.index, float(self.sign), self.threshold, 0.0, 0.0, self.direction)

    def __repr__(self) -> str:
        return f"StateEvent({self.state} {'>' if self.sign > 0 else '<'} {self.threshold:g})"


class Flag:
    """A terminal event that ends a run cleanly once :attr:`requested` is true (see the
    module: seen after a step, natively whenever the driver returns to Python).

    Attributes
    ----------
    requested : bool
        Set it to stop the run (from a signal handler, a GUI, another event).

    Examples
    --------
    A flag raised by an input function at ``t ≥ 0.5`` stops the run at the end of
    that step (steps of at most 0.1 s here):

    >>> from bondgraph import BondGraph, MSe, One, I, Input, build, simulate
    >>> bg = BondGraph("cart")
    >>> _ = bg.add(MSe("F", Input("u")), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> stop = Flag()
    >>> def u(t):
    ...     stop.requested = stop.requested or t >= 0.5
    ...     return 1.0
    >>> res = simulate(build(bg), (0.0, 10.0), inputs={"u": u}, events=[stop], max_step=0.1,
    ...                progress=False)
    >>> res.stopped, bool(0.5 <= res.t[-1] <= 0.6)
    (True, True)
    """

    terminal = True
    direction = 0
    polled = True

    def __init__(self):
        self.requested = False

    def __call__(self, t: float, x: np.ndarray) -> float:
        return -1.0 if self.requested else 1.0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(requested={self.requested})"
