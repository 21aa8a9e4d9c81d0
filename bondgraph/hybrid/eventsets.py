"""Guards as the integrator's events: in Python, or evaluated in C by the native driver.

The transitions enabled in the current mode become one :class:`~bondgraph.stepping.EventSet`
of upward crossings of ``g − tol`` for the next segment: Python closures
(:func:`_guard_set`) or, on a native run, specifications the CVODE driver evaluates in C
(:func:`_guard_spec`, :func:`_native_guards`) — a guard on a state, a model output, an
input or a discrete value; a :class:`~.guards.When` function or an external signal keeps
the run in Python. :func:`_native_setup` opens the native session of a run and
:func:`_wrap_guard` names a user guard function that raises or returns a non-number.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..errors import UserCallableError
from ..native.cvode import native_session
from ..signals import call_user, describe_callable
from ..stepping import EventSet
from .guards import Above, Below, Exceeds, When

if TYPE_CHECKING:
    from .model import HybridModel
    from .modes import Transition
    from .rhs import _Rhs

__all__: list[str] = []


def _guard_set(hm: "HybridModel", shifted, active: list[int]) -> EventSet:
    """The active transitions' guards as one event set: upward crossings of ``g − tol``."""
    fns = [shifted[i] for i in active]
    labels = [hm.transitions[i].label for i in active]

    def values(t, y):
        out = np.empty(len(fns))
        for k, f in enumerate(fns):
            out[k] = f(t, y)
        return out

    return EventSet(values, [1] * len(fns), [True] * len(fns), labels)


def _quantity_spec(hm: "HybridModel", q: str) -> tuple[str, int, float] | None:
    """``(kind, index, constant)`` of a quantity the native driver reads, as
    :meth:`_Probe.reader` reads it, or ``None`` if it needs Python (a signal)."""
    m = hm.model
    if q in m.state_names:
        return "state", m.state_names.index(q), 0.0
    if q in hm.variables:
        return "const", 0, hm.variables[q].value(hm._modes[q])
    if q in hm.signals:
        return None
    if q in m.input_names:
        return "input", m.input_names.index(q), 0.0
    if q in m.system.output_names:
        return "output", m.system.output_names.index(q), 0.0
    return None


def _guard_spec(tr: "Transition", hm: "HybridModel") -> tuple | None:
    """A guard the native driver evaluates in C — ``(kind, index, sign, threshold,
    tolerance, constant, direction[, kind2, index2, constant2])`` on a state, model output,
    input or discrete value (less a second one for :class:`Exceeds`) — or ``None`` if it
    needs Python."""
    g = tr.guard
    if isinstance(g, Exceeds):
        a, b = _quantity_spec(hm, g.quantity), _quantity_spec(hm, g.other)
        if a is None or b is None:
            return None
        return (a[0], a[1], 1.0, float(g.margin), g.tolerance(), a[2], 1) + b
    if not isinstance(g, (Above, Below)):
        return None
    a = _quantity_spec(hm, g.quantity)
    if a is None:
        return None
    return (a[0], a[1], 1.0 if isinstance(g, Above) else -1.0, float(g.threshold), g.tolerance(), a[2], 1)


def _native_setup(hm: "HybridModel", rhs: "_Rhs", backend: str, method: str, jacobian: bool):
    # (the session integrates the energy states with the model's when the run asks for them)
    """The native session of this run (its inputs as tables evaluated in C; a sampled
    controller's held values in constant tables), or ``None`` for the Python path."""
    model = hm.model
    python_guards = any(not tr.guard.timed and _guard_spec(tr, hm) is None for tr in hm.transitions)
    native = native_session(model, backend, method, subject=f"hybrid model {model.name!r}",
                            energy=rhs.energy, jacobian=jacobian and not rhs.continuous, inputs=rhs.inputs,
                            controller_continuous=rhs.continuous, python_guards=python_guards)
    if native is not None and rhs.inputs.names:
        ins = rhs.inputs
        model.system.set_native_inputs(ins.native(), [ins.deriv_names.index(n) if n in ins.deriv_names
                                                      else -1 for n in ins.names])
        off = model.system._native[1]
        rhs.held_slots = [int(off[j]) + 5 for j in rhs.ctrl_idx]  # the value of [1, 0, 0, 0, 1, v]
    return native


def _native_guards(hm: "HybridModel", native, active: list[int]) -> EventSet | None:
    """The active guards, evaluated in C by the native session."""
    native.set_guards([_guard_spec(hm.transitions[i], hm) for i in active])
    if not active:
        return None
    return EventSet(native.guard_values, [1] * len(active), [True] * len(active),
                    [hm.transitions[i].label for i in active])


def _wrap_guard(tr: "Transition", fn: Callable[[float, np.ndarray], float]) -> Callable:
    """A bound guard whose user function is named when it raises or returns a non-number."""
    if not isinstance(tr.guard, When):
        return fn
    what = f"guard of transition {tr.label!r} ({tr.guard.description})"
    user = tr.guard.fn

    def g(t, x):
        v = call_user(user, (t, x), what, t)
        try:
            fv = float(v)
        except (TypeError, ValueError):
            fv = math.nan
        if not math.isfinite(fv):
            raise UserCallableError(f"{what}: {describe_callable(user)} returned {v!r} at "
                                    f"t = {t:.9g} s; expected a finite number", time=t)
        return fv
    return g
