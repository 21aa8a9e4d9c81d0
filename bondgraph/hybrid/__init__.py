"""Hybrid models: discrete modes, guards, switching table, events, external control.

A *hybrid model* (the Toshiba hybrid-simulation patent, `docs/background/sources.md`) pairs continuous equations with discrete
modes — a valve ``Left``/``Right``/``Closed``, a relief valve
``closed``/``relieving``, an end stop ``free``/``contact``. Here a discrete
variable is a **model parameter** used in laws (:class:`Discrete`,
``Discrete.symbol``): the compiled code takes parameters at run time, so a
switch never recompiles — the equations of every mode live in the one
compiled internal form, and a switch is a parameter change plus a restart.

* :class:`Transition` — ``variable: source → target`` when a :class:`Guard`
  becomes true: :class:`Above` / :class:`Below` a threshold (on a state, any
  model output such as a bond effort, an input signal or a discrete value),
  :class:`At` given times, :class:`When` any ``g(t, x) ≥ 0``. ``dwell`` keeps
  a transition disabled for a minimum time after its variable last changed;
  :func:`hysteresis` makes the usual pair with a band. Guards are located
  with event functions (root finding by the integrator) and the integration
  restarts in the new mode; every transition is logged with its time and cause.
* :class:`ModeTable` — built once: each mode (a combination of discrete
  values) → its active equations (the model's equations with the mode values
  substituted, parameters shown as numbers) and the transitions leaving it.
* :class:`Controller` — external control: ``u = controller(t, y)`` either at
  every right-hand-side call (continuous) or at its own sample rate (the
  "machine control software" of the Toshiba hybrid-simulation patent, e.g. a joystick table or a PI loop);
  a sampled controller may also command discrete modes (external events).
* :func:`simulate_hybrid` — the event-driven integration (LSODA, BDF,
  Radau… or CVODE) returning :class:`HybridResults` (a
  :class:`~bondgraph.results.Results` that knows the mode of every sample).

Chattering is contained by hysteresis bands and dwell times, and detected:
more than ``max_burst`` transitions within ``burst_window`` raise a
:class:`~bondgraph.errors.SimulationError` naming the transitions.

Examples
--------
A mass pushed right or left by a bang-bang force, switched by its position:

>>> from bondgraph import BondGraph, MSe, One, I, build
>>> push = Discrete("push", {"Left": -1.0, "Right": 1.0}, initial="Right")
>>> bg = BondGraph("cart")
>>> v = One("v", displacement="x")
>>> _ = bg.add(MSe("F", 2.0 * push.symbol), v, I("m", 1.0))
>>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
>>> hm = HybridModel.build(bg, [push], [
...     Transition("push", "Right", "Left", Above("cart/v.x", 1.0)),
...     Transition("push", "Left", "Right", Below("cart/v.x", 0.0))])
>>> print(hm.table())                                 # doctest: +NORMALIZE_WHITESPACE
hybrid model 'cart': 1 discrete variable, 2 modes, 2 transitions
common equations:
  der(cart/v.x) = cart/m.f
mode push=Left:
  der(cart/m.f) = -2.0
  → push=Right when cart/v.x < 0
mode push=Right:
  der(cart/m.f) = 2.0
  → push=Left when cart/v.x > 1
>>> res = simulate_hybrid(hm, (0.0, 4.0), rtol=1e-10, atol=1e-12)
>>> [(round(r.time, 6), r.target) for r in res.transitions]   # x = t², then 1 + 2τ − τ²
[(1.0, 'Left'), (3.414214, 'Right')]

The package, one concept a module: :mod:`.modes` (discrete variables, transitions,
hysteresis), :mod:`.guards` (the conditions), :mod:`.table` (the mode table),
:mod:`.model` (:class:`HybridModel`), :mod:`.control` (controllers and what they
measure), :mod:`.records` (the transition log and the results), :mod:`.simulate` with
its step loop :mod:`.run`, the right-hand side :mod:`.rhs` and the guards as events
:mod:`.eventsets`; :mod:`.examples` builds two small models for examples and tests.
"""

from .control import Controller, Measurements
from .guards import Above, At, Below, Exceeds, Guard, When
from .model import HybridModel
from .modes import Discrete, Transition, hysteresis
from .records import HybridResults, TransitionRecord
from .simulate import simulate_hybrid
from .table import ModeTable

__all__ = [
    "Discrete", "Guard", "Above", "Below", "Exceeds", "At", "When", "Transition", "hysteresis",
    "ModeTable", "HybridModel", "Controller", "Measurements", "TransitionRecord",
    "HybridResults", "simulate_hybrid",
]
