"""End stops with cushioning: one-sided stiff spring–damper past the stroke.

Past either end of the stroke (penetration ``δ > 0``) the stop pushes back
with ``max(0, k·δ + d·δ̇)``: a spring–damper that can only push, so it never
glues the piston to the stop (the force switches off as soon as the damper
would pull). Before each end, over ``cushion_length``, an end-of-stroke
cushion throttles the outgoing oil; its effect on the piston is represented
by its equivalent damping, which rises linearly from 0 to
``cushion_damping`` over the cushion length and acts only while moving
towards that end.

Examples
--------
>>> stop = EndStop(stiffness=1e8, damping=1e6)
>>> stop.force(x=0.5, v=0.1, stroke=1.0)           # inside the stroke: free
0.0
>>> stop.force(x=1.001, v=0.0, stroke=1.0)         # 1 mm past the end: k·δ
100000.0
>>> stop.force(x=1.001, v=-1.0, stroke=1.0)        # moving away fast: no pull
0.0
>>> stop.force(x=-0.001, v=0.0, stroke=1.0)        # below 0: pushes out (negative)
-100000.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from bondgraph.checks import NONNEGATIVE, POSITIVE, number_problems
from bondgraph.errors import ParameterError

from ._expr import clip, ramp

__all__ = ["EndStop"]


@dataclass(frozen=True)
class EndStop:
    """Stroke-end contact (N/m, N·s/m, m).

    Parameters
    ----------
    stiffness : float
        ``k`` of the stop (N/m).
    damping : float
        ``d`` of the stop (N·s/m).
    cushion_length : float
        Length before each end over which the cushion acts (m), 0: none.
    cushion_damping : float
        Equivalent damping of the cushion at the very end (N·s/m).
    hardening_length : float, optional
        With it the spring hardens: ``k·δ·(1 + (δ/h)²)`` instead of ``k·δ``, so even an
        absurd push (1e9 N on a 1e9 N/m stop) ends about ``10·h`` past the stroke end
        instead of a metre past it (m). ``None``: linear.

    Raises
    ------
    ParameterError
        A non-positive stiffness, negative damping or lengths (all listed).

    Examples
    --------
    1 mm past the end of a hardening stop (``h = 1`` mm) pushes ``k·δ·(1 + 1) = 2·k·δ``;
    a cushion brakes only towards its end:

    >>> EndStop(stiffness=1e8, damping=0.0, hardening_length=0.001).force(1.001, 0.0, 1.0)
    200000.0
    >>> cushioned = EndStop(cushion_length=0.05, cushion_damping=1e5)
    >>> cushioned.force(0.975, 0.2, 1.0), cushioned.force(0.975, -0.2, 1.0)   # half-way in
    (10000.0, 0.0)
    """

    stiffness: float = 1e9
    damping: float = 1e6
    cushion_length: float = 0.0
    cushion_damping: float = 0.0
    hardening_length: float | None = None

    def __post_init__(self):
        from ._values import convert_units

        bad = convert_units(self, {"stiffness": "N/m", "damping": "N*s/m", "cushion_length": "m",
                                   "cushion_damping": "N*s/m", "hardening_length": "m"}, "end stop")
        if bad:
            raise ParameterError(bad)
        problems = number_problems("end stop", {
            "stiffness": (self.stiffness, POSITIVE.with_meaning("N/m")),
            "damping": (self.damping, NONNEGATIVE.with_meaning("N·s/m")),
            "cushion_length": (self.cushion_length, NONNEGATIVE.with_meaning("m")),
            "cushion_damping": (self.cushion_damping, NONNEGATIVE.with_meaning("N·s/m")),
            **({"hardening_length": (self.hardening_length, POSITIVE.with_meaning("m"))}
               if self.hardening_length is not None else {})})
        if problems:
            raise ParameterError(problems)

    def law(self, v: Any, x: Any, stroke: float) -> sp.Expr:
        """Force resisting extension (positive at the outer end) as a sympy expression.

        Parameters
        ----------
        v : number or sympy expression
            Piston velocity (m/s).
        x : number or sympy expression
            Piston position (m, 0 … stroke inside).
        stroke : float
            m.

        Returns
        -------
        sympy expression
            N.
        """
        v, x = sp.sympify(v), sp.sympify(x)
        k, d = self.stiffness, self.damping
        hi = x - stroke
        lo = -x
        h = self.hardening_length
        k_hi = k if h is None else k * (1 + (hi / h) ** 2)
        k_lo = k if h is None else k * (1 + (lo / h) ** 2)
        f_hi = sp.Piecewise((ramp(k_hi * hi + d * v), hi > 0), (0, True))
        f_lo = sp.Piecewise((-ramp(k_lo * lo - d * v), lo > 0), (0, True))
        out = f_hi + f_lo
        if self.cushion_length > 0 and self.cushion_damping > 0:
            L, c = self.cushion_length, self.cushion_damping
            r_hi = clip((x - (stroke - L)) / L, 0, 1)
            r_lo = clip((L - x) / L, 0, 1)
            out += c * r_hi * ramp(v) - c * r_lo * ramp(-v)
        return out

    def force(self, x: float, v: float, stroke: float) -> float:
        """Numeric value of :meth:`law`.

        Parameters
        ----------
        x, v, stroke : float

        Returns
        -------
        float
        """
        X, V = sp.symbols("X V", real=True)
        return float(self.law(V, X, stroke).subs({X: x, V: v}))
