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
    """A modulated flow source whose law ``fn()`` is evaluated at derivation time.

    Parameters
    ----------
    name : str
    fn : callable
        No arguments; returns the flow (a number or sympy expression).

    Examples
    --------
    >>> from bondgraph import BondGraph, Zero, C, build
    >>> rate = {}
    >>> bg = BondGraph("fill")
    >>> _ = bg.add(DeferredMSf("Q", lambda: rate["Q"]), Zero("n"), C("c", 2.0))
    >>> _ = bg.connect("Q", "n"); _ = bg.connect("n", "c")
    >>> rate["Q"] = 4.0                         # decided after the source was added
    >>> build(bg).system.rhs(0.0, [0.0])        # ė = Q/c
    array([2.])
    """


class DeferredMSe(_Deferred, MSe):
    """A modulated effort source whose law ``fn()`` is evaluated at derivation time.

    Parameters
    ----------
    name : str
    fn : callable
        No arguments; returns the effort (a number or sympy expression).

    Examples
    --------
    >>> from bondgraph import BondGraph, One, I, build, simulate
    >>> holder = {}
    >>> bg = BondGraph("late")
    >>> _ = bg.add(DeferredMSe("F", lambda: 2.0 * holder["gain"]), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> holder["gain"] = 3.0
    >>> res = simulate(build(bg), (0.0, 1.0), progress=False)
    >>> round(float(res["late/m.f"][-1]), 9)    # F = 6 N on 1 kg for 1 s
    6.0
    """


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

    Raises
    ------
    ParameterError
        A non-positive time constant or damping, another order (all listed).

    Examples
    --------
    Second order, critically damped (``ζ = 1``): the step response is
    ``1 − (1 + t/τ)·e^{−t/τ}``, at ``t = 2τ`` equal to ``1 − 3e⁻²``:

    >>> import math
    >>> from bondgraph import BondGraph, Input, build, simulate
    >>> bg = BondGraph("f")
    >>> _ = bg.add(Lag("lag", lambda: Input("u"), time_constant=0.1, order=2))
    >>> res = simulate(build(bg), (0.0, 0.2), inputs={"u": 1.0}, rtol=1e-10, atol=1e-12,
    ...                progress=False)
    >>> bool(abs(res["f/lag/x.value"][-1] - (1 - 3 * math.exp(-2))) < 1e-9)
    True
    >>> Lag("bad", 1.0, time_constant=0, order=3)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: lag 'bad': 2 problems
      - 'time_constant': found 0, expected a number > 0 (s)
      - 'order': found 3, expected 1 or 2
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
