"""A first- or second-order lag of a signal, built from bond-graph elements.

The swash plate of a variable pump and the spool of a pressure compensator
follow their controllers with a lag. Like :class:`~components.hydraulics.Spool`,
the lagged value is the displacement state ``x.value`` of a 1-junction
(a handle other laws may use, :attr:`Lag.value`):

* order 1 — a modulated flow source drives the junction: ``ẋ = (u − x)/τ``;
* order 2 — a unit inertia, a damper ``2ζω`` and a modulated effort
  ``ω²·(u − x)`` (``ω = 1/τ``): the transfer ``ω²/(s² + 2ζωs + ω²)``.

The target ``u`` is given as a callable evaluated when the equations are
derived, so it may read signals of parts added to the model later (the
highest load pressure of a load-sensing circuit is only known once every
valve section is in). These junctions carry no power: a signal lag never
enters an energy balance.

Examples
--------
>>> from bondgraph import BondGraph, Input, build, simulate
>>> bg = BondGraph("f")
>>> lag = bg.add(Lag("lag", lambda: Input("u"), time_constant=0.1))
>>> res = simulate(build(bg), (0, 0.2), inputs={"u": 2.0}, rtol=1e-10, atol=1e-12,
...                progress=False)
>>> round(float(res["f/lag/x.value"][-1]), 6)            # 2·(1 − exp(−2))
1.729329
"""

from __future__ import annotations

import math
from typing import Any, Callable

import sympy as sp

from bondgraph import MSe, MSf, BondGraph, I, One, R
from bondgraph.elements import Constitutive, Role
from bondgraph.errors import ParameterError

__all__ = ["Lag", "DeferredMSf", "DeferredMSe"]


class _Deferred:
    """A modulated source whose law ``fn()`` is evaluated at derivation time."""

    def __init__(self, name: str, fn: Callable[[], Any]):
        super().__init__(name, 0.0)
        self.fn = fn

    def equations(self, ports, ctx):
        (p,) = ports.values()
        var = p.e if self.role is Role.EFFORT_SOURCE else p.f
        return Constitutive(outputs={var: ctx.resolve(self.fn())})


class DeferredMSf(_Deferred, MSf):
    """A modulated flow source whose law ``fn()`` is evaluated at derivation time."""


class DeferredMSe(_Deferred, MSe):
    """A modulated effort source whose law ``fn()`` is evaluated at derivation time."""


class Lag(BondGraph):
    """``x`` follows ``target()`` with a first- or second-order lag.

    Parameters
    ----------
    name : str
    target : callable or expression
        ``u``; a callable is evaluated when the equations are derived, and may
        use :attr:`value` (the lag's own output).
    time_constant : float
        ``τ`` (s), > 0; for order 2, ``ω = 1/τ``.
    order : int
        1 or 2.
    damping : float
        ``ζ`` of the second-order lag.
    initial : float
        Initial value of ``x``.
    """

    def __init__(self, name: str, target: Callable[[], Any] | Any, *, time_constant: float,
                 order: int = 1, damping: float = 1.0, initial: float = 0.0):
        super().__init__(name)
        problems = []
        if not (isinstance(time_constant, (int, float)) and math.isfinite(time_constant)
                and time_constant > 0):
            problems.append(f"'time_constant': found {time_constant!r}, expected a number > 0 (s)")
        if order not in (1, 2):
            problems.append(f"'order': found {order!r}, expected 1 or 2")
        if not (isinstance(damping, (int, float)) and math.isfinite(damping) and damping > 0):
            problems.append(f"'damping': found {damping!r}, expected a number > 0")
        if problems:
            raise ParameterError(problems, subject=f"lag {name!r}")
        self.time_constant, self.order, self.damping = float(time_constant), order, float(damping)
        fn = target if callable(target) else (lambda: target)
        j = One("x", displacement="value", initial=initial)
        #: handle of the lagged value
        self.value: sp.Symbol = j.displacement
        self.add(j)
        w = 1.0 / self.time_constant
        x = self.value
        if order == 1:
            self.add(DeferredMSf("drive", lambda: w * (sp.sympify(fn()) - x)))
            self.connect("drive", "x")
        else:
            self.add(I("m", 1.0), R("b", 2 * self.damping * w),
                     DeferredMSe("drive", lambda: w**2 * (sp.sympify(fn()) - x)))
            self.connect("drive", "x")
            self.connect("x", "m")
            self.connect("x", "b")
