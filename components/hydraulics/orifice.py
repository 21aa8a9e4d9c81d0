"""Orifice laws and the orifice template (a resistor between two ports).

Two laws, both *regularised* below a transition pressure ``p_tr`` so that the
flow is laminar (linear) near ``Δp = 0`` and the Jacobian stays finite:

* sharp-edged orifice: ``Q = C_d·A·sign(Δp)·√(2|Δp|/ρ)``;
* nominal-flow form (valve data sheets): ``Q = Q_N·x·sign(Δp)·√(|Δp|/Δp_N)``.

Both use :func:`signed_sqrt`: ``sign(Δp)·√|Δp|`` for ``|Δp| ≥ p_tr`` and the
odd cubic ``√p_tr·(5u − u³)/4`` (``u = Δp/p_tr``) inside, which matches the
value and the slope of the square root at ``|Δp| = p_tr`` (C¹) and has the
finite laminar slope ``5/(4√p_tr)`` at zero.

Examples
--------
>>> import sympy as sp
>>> dp = sp.Symbol("dp", real=True)
>>> law = orifice_flow(dp, area=1e-4, cd=0.7, density=870.0, p_tr=1e5)
>>> round(float(law.subs(dp, 4e6)) * 6e4, 2)          # L/min at 40 bar
402.75
>>> float(sp.diff(law, dp).subs(dp, 0)) > 0           # finite laminar slope
True
>>> round(float(nominal_flow(dp, 1.0, 1e-3, 3e5, 1e4).subs(dp, 3e5)), 6)
0.001
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from bondgraph import BondGraph, One, R
from bondgraph.errors import ParameterError

__all__ = ["signed_sqrt", "orifice_flow", "nominal_flow", "Orifice"]


def signed_sqrt(dp: Any, p_tr: float) -> sp.Expr:
    """``sign(Δp)·√|Δp|``, regularised by an odd cubic for ``|Δp| < p_tr`` (C¹).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> e = signed_sqrt(x, 4.0)
    >>> [float(e.subs(x, v)) for v in (-9.0, 0.0, 4.0, 16.0)]
    [-3.0, 0.0, 2.0, 4.0]
    """
    if not float(p_tr) > 0:
        raise ParameterError(f"transition pressure p_tr = {p_tr!r}: expected > 0")
    dp = sp.sympify(dp)
    u = dp / p_tr
    inner = sp.sqrt(p_tr) * (5 * u - u**3) / 4
    return sp.Piecewise((sp.sqrt(dp), dp >= p_tr), (-sp.sqrt(-dp), dp <= -p_tr), (inner, True))


def orifice_flow(dp: Any, area: Any, cd: float, density: float, p_tr: float) -> sp.Expr:
    """Sharp-edged orifice ``Q = C_d·A·sign(Δp)·√(2|Δp|/ρ)``, laminar below ``p_tr``.

    ``area`` may be an expression (of a spool position, a mode variable...).
    """
    if not (0 < float(cd) <= 1.0) or not float(density) > 0:
        raise ParameterError(f"orifice: cd = {cd!r} (expected 0 < cd ≤ 1), density = {density!r} "
                             "(expected > 0)")
    return cd * area * sp.sqrt(2 / sp.Float(density)) * signed_sqrt(dp, p_tr)


def nominal_flow(dp: Any, opening: Any, q_nominal: float, dp_nominal: float, p_tr: float) -> sp.Expr:
    """Nominal-flow form ``Q = Q_N·x·sign(Δp)·√(|Δp|/Δp_N)``, laminar below ``p_tr``.

    ``opening`` ``x`` is the normalised opening (0…1), a number or an expression.
    """
    if not float(q_nominal) > 0 or not float(dp_nominal) > 0:
        raise ParameterError(f"nominal flow: Q_N = {q_nominal!r}, Δp_N = {dp_nominal!r}; "
                             "expected both > 0")
    return q_nominal * opening * signed_sqrt(dp, p_tr) / sp.sqrt(sp.Float(dp_nominal))


class Orifice(BondGraph):
    """A fixed or variable restriction between hydraulic ports ``A`` and ``B``.

    Bond graph: a 1-junction ``q`` (the common flow ``A → B``) with a resistor
    ``R`` whose conductance law is one of the laws above. Connect the
    upstream node *into* ``A`` and ``B`` *into* the downstream node; positive
    flow goes from ``A`` to ``B``.

    Parameters
    ----------
    name : str
    area : float or expression, optional
        Orifice area (m²) for the sharp-edged law (with ``cd`` and ``density``).
    cd, density : float
    q_nominal, dp_nominal, opening : optional
        Nominal-flow form instead of ``area``.
    conductance : float, optional
        Laminar restriction ``Q = G·Δp`` (m³/(s·Pa)) instead of either.
    p_tr : float
        Transition pressure of the regularisation (Pa).

    Examples
    --------
    >>> o = Orifice("throttle", area=2e-5, cd=0.65, density=870.0)
    >>> sorted(o.ports)
    ['A', 'B']
    """

    def __init__(self, name: str, *, area: Any = None, cd: float = 0.65, density: float = 870.0,
                 q_nominal: float | None = None, dp_nominal: float | None = None,
                 opening: Any = 1.0, conductance: float | None = None, p_tr: float = 2e5):
        super().__init__(name)
        forms = [area is not None, q_nominal is not None, conductance is not None]
        if sum(forms) != 1:
            raise ParameterError(f"orifice {name!r}: give exactly one of area=..., "
                                 f"q_nominal=... (with dp_nominal) or conductance=... "
                                 f"(found {sum(forms)})")
        if area is not None:
            law = lambda dp: orifice_flow(dp, area, cd, density, p_tr)  # noqa: E731
        elif q_nominal is not None:
            if dp_nominal is None:
                raise ParameterError(f"orifice {name!r}: q_nominal given without dp_nominal")
            law = lambda dp: nominal_flow(dp, opening, q_nominal, dp_nominal, p_tr)  # noqa: E731
        else:
            if not float(conductance) > 0:
                raise ParameterError(f"orifice {name!r}: conductance = {conductance!r}, expected > 0")
            law = None
        self.add(One("q"))
        self.add(R("R", 1.0 / float(conductance)) if law is None else R("R", flow=law))
        self.connect("q", "R")
        self.expose("A", "q")
        self.expose("B", "q")
