"""Guards: the conditions that switch a discrete variable.

A :class:`Guard` holds when its crossing function ``g(t, x)`` is above a small tolerance;
a transition fires when ``g`` crosses it upwards (located by the integrator as an event)
or, at a restart, if it already holds. :class:`Above` and :class:`Below` compare one named
quantity with a threshold, :class:`Exceeds` two quantities, :class:`At` is a schedule of
times and :class:`When` any function of ``(t, x)``. A quantity is a state, a model
output (a bond effort, an observer), an input, a discrete variable or an external signal
the hybrid model declares; the guards on states, outputs, inputs and discrete values are
evaluated in C by the native driver (:mod:`.eventsets`).

Examples
--------
>>> Above("tank/C.e", 2e7).describe(), Below("x", 0.0).describe(), At(1.0, 0.5).times
('tank/C.e > 2e+07', 'x < 0', (0.5, 1.0))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..errors import ParameterError

if TYPE_CHECKING:
    from .control import _Probe

__all__ = ["Guard", "Above", "Below", "Exceeds", "At", "When"]


class Guard:
    """A switching condition. Subclasses give :meth:`describe` and a crossing function.

    The condition holds when ``g(t, x) > tol`` (``tol``: :meth:`tolerance`, a
    few ulps of the threshold); a transition fires when ``g`` crosses ``tol``
    upwards (located by the integrator) or, at a restart, if it already
    holds. Locating the crossing at ``tol`` rather than 0 means a guard that
    sits exactly at its threshold after a switch is still seen to cross.

    Attributes
    ----------
    timed : bool
        True for a schedule (:class:`At`): no crossing function, the times are stops.

    Examples
    --------
    A guard of its own: the crossing function of :meth:`bind` reads quantities with the
    probe it is given (here the state vector directly).

    >>> class Leaves(Guard):
    ...     def describe(self):
    ...         return "x leaves [-1, 1]"
    ...     def bind(self, probe):
    ...         return lambda t, x: abs(x[0]) - 1.0
    >>> g = Leaves()
    >>> g.describe(), g.bind(None)(0.0, [1.5]), g.tolerance(), g.quantities()
    ('x leaves [-1, 1]', 0.5, 0.0, [])
    """

    timed = False

    def describe(self) -> str:  # pragma: no cover - abstract
        """The condition in words (``"p > 3e+07"``), as the mode table and the log show it."""
        raise NotImplementedError

    def bind(self, probe: "_Probe") -> Callable[[float, np.ndarray], float]:  # pragma: no cover
        """The crossing function ``g(t, x)`` (the condition holds when ``g > tolerance()``)."""
        raise NotImplementedError

    def tolerance(self) -> float:
        """How far above zero ``g`` must be for the condition to hold."""
        return 0.0

    def quantities(self) -> list[str]:
        """The named quantities the guard reads (checked when the hybrid model is built)."""
        return []


def _fmt(v: float) -> str:
    return f"{v:.6g}"


@dataclass(frozen=True)
class Above(Guard):
    """``quantity > threshold``: a state, model output, input, or discrete variable name.

    Examples
    --------
    >>> g = Above("relief/C.e", 3e7)
    >>> g.describe(), g.quantities(), g.tolerance()
    ('relief/C.e > 3e+07', ['relief/C.e'], 3.0000001e-05)
    """

    quantity: str
    threshold: float

    def describe(self) -> str:
        return f"{self.quantity} > {_fmt(self.threshold)}"

    def bind(self, probe):
        q, th = probe.reader(self.quantity), float(self.threshold)
        return lambda t, x: q(t, x) - th

    def tolerance(self) -> float:
        return 1e-12 * (1.0 + abs(self.threshold))

    def quantities(self):
        return [self.quantity]


@dataclass(frozen=True)
class Below(Guard):
    """``quantity < threshold``.

    Examples
    --------
    >>> g = Below("cart/v.x", 0.0)
    >>> g.describe(), g.quantities()
    ('cart/v.x < 0', ['cart/v.x'])
    """

    quantity: str
    threshold: float

    def describe(self) -> str:
        return f"{self.quantity} < {_fmt(self.threshold)}"

    def bind(self, probe):
        q, th = probe.reader(self.quantity), float(self.threshold)
        return lambda t, x: th - q(t, x)

    def tolerance(self) -> float:
        return 1e-12 * (1.0 + abs(self.threshold))

    def quantities(self):
        return [self.quantity]


@dataclass(frozen=True)
class Exceeds(Guard):
    """``quantity > other + margin``: one named quantity (state, model output, input or
    discrete variable) exceeding another by a margin — a shuttle valve passing the higher
    of two pressures, a relief set against a pilot. Evaluated in C by the native driver
    like :class:`Above`.

    Examples
    --------
    >>> g = Exceeds("b/C.e", "a/C.e", 5e4)
    >>> g.describe(), g.quantities()
    ('b/C.e > a/C.e + 50000', ['b/C.e', 'a/C.e'])
    """

    quantity: str
    other: str
    margin: float = 0.0

    def describe(self) -> str:
        return f"{self.quantity} > {self.other}" + (f" + {_fmt(self.margin)}" if self.margin else "")

    def bind(self, probe):
        q, o, m = probe.reader(self.quantity), probe.reader(self.other), float(self.margin)
        return lambda t, x: q(t, x) - o(t, x) - m

    def tolerance(self) -> float:
        return 1e-12 * (1.0 + abs(self.margin))

    def quantities(self):
        return [self.quantity, self.other]


@dataclass(frozen=True)
class At(Guard):
    """At given times (a schedule: valve operating times, external commands).

    Examples
    --------
    >>> At(2.0, 0.5).describe()
    't = 0.5, 2'
    >>> At(1.0, float("nan"))
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: At(1.0, nan): times nan: expected finite numbers of seconds
    """

    times: tuple[float, ...]

    timed = True

    def __init__(self, *times: float):
        vals, bad = [], []
        for t in times:
            try:
                v = float(t)
            except (TypeError, ValueError):
                v = math.nan
            if math.isfinite(v) and not isinstance(t, bool):
                vals.append(v)
            else:
                bad.append(t)
        if bad or not times:
            raise ParameterError(f"At{tuple(times)!r}: " + (f"times {', '.join(map(repr, bad))}: expected finite "
                                                            "numbers of seconds" if bad else
                                                            "no time given; expected at least one time"))
        object.__setattr__(self, "times", tuple(sorted(vals)))

    def describe(self) -> str:
        return "t = " + ", ".join(_fmt(t) for t in self.times)


@dataclass(frozen=True)
class When(Guard):
    """``fn(t, x) > 0`` for any callable (``x`` the model state vector).

    Examples
    --------
    >>> g = When(lambda t, x: x[0] ** 2 - 1.0, "|x| > 1")
    >>> g.describe(), g.bind(None)(0.0, [2.0])
    ('|x| > 1', 3.0)
    """

    fn: Callable[[float, np.ndarray], float]
    description: str = "custom condition"

    def describe(self) -> str:
        return self.description

    def bind(self, probe):
        return lambda t, x: float(self.fn(t, x))

    def tolerance(self) -> float:
        return 1e-12
