"""Orifice laws and the orifice template (a resistor between two ports).

Two laws, both *regularised* below a transition pressure ``p_tr`` so that the
flow is laminar (linear) near ``Δp = 0`` and the Jacobian stays finite:

* sharp-edged orifice: ``Q = C_d·A·sign(Δp)·√(2|Δp|/ρ)``;
* nominal-flow form (valve data sheets): ``Q = Q_N·x·sign(Δp)·√(|Δp|/Δp_N)``.

Both use :func:`signed_sqrt`: ``sign(Δp)·√|Δp|`` for ``|Δp| ≥ p_tr`` and the
odd cubic ``√p_tr·(5u − u³)/4`` (``u = Δp/p_tr``) inside, which matches the
value and the slope of the square root at ``|Δp| = p_tr`` (C¹) and has the
finite laminar slope ``5/(4√p_tr)`` at zero.

**Inverses.** An orifice fed by a flow (a pump, a line inertia) needs its pressure
drop from its flow. Every law here has its exact inverse in closed form
(:func:`signed_sqrt_inverse`, :func:`orifice_flow_inverse`,
:func:`nominal_flow_inverse`), and :func:`orifice_law` / :func:`nominal_law` bundle
law and inverse as a :class:`bondgraph.laws.Law`, so a model never calls a solver
on them. Outside the laminar band the inverse of ``s = sign(Δp)·√|Δp|`` is
``Δp = sign(s)·s²``. Inside, ``s = √p_tr·(5u − u³)/4`` is the depressed cubic
``u³ − 5u + w = 0`` with ``w = 4s/√p_tr ∈ (−4, 4)``; it has three real roots and
the one in ``(−1, 1)`` is, by the trigonometric solution of the cubic,

    u = 2·√(5/3)·sin(⅓·asin(3·√(3/5)·w/10))

(the ``asin`` form is exact to rounding for small ``w``, where the ``cos`` form
loses digits; at ``w = ±4`` it gives ``u = ±1``, joining the outer branch).

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
>>> q = sp.Symbol("q", real=True)
>>> inv = orifice_flow_inverse(q, area=1e-4, cd=0.7, density=870.0, p_tr=1e5)
>>> [round(float(inv.subs(q, float(law.subs(dp, v)))), 3) for v in (-4e6, -5e3, 2.0)]
[-4000000.0, -5000.0, 2.0]
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp

from bondgraph import BondGraph, One, R
from bondgraph.checks import Check, number
from bondgraph.errors import ParameterError
from bondgraph.laws import Law

__all__ = ["signed_sqrt", "signed_sqrt_inverse", "orifice_flow", "orifice_flow_inverse",
           "nominal_flow", "nominal_flow_inverse", "orifice_law", "nominal_law", "Orifice"]

_POS = Check(">0")


def _need(problems: list[str | None]) -> None:
    problems = [p for p in problems if p]
    if problems:
        raise ParameterError(problems if len(problems) > 1 else problems[0])


def _expr_or(value: Any, label: str, check: Check) -> str | None:
    """A number must satisfy ``check``; a sympy expression (a spool position...) may pass."""
    if isinstance(value, sp.Basic) and not value.is_number:
        return None
    return check.problem(label, value)


def _p_tr(p_tr: Any) -> str | None:
    return _POS.with_meaning("Pa").problem("transition pressure p_tr", p_tr)


def signed_sqrt(dp: Any, p_tr: float) -> sp.Expr:
    """``sign(Δp)·√|Δp|``, regularised by an odd cubic for ``|Δp| < p_tr`` (C¹).

    Parameters
    ----------
    dp : number or sympy expression
        Pressure drop (Pa).
    p_tr : float
        Transition pressure (Pa), > 0.

    Returns
    -------
    sympy.Piecewise

    Raises
    ------
    ParameterError
        ``p_tr`` not a positive number.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> e = signed_sqrt(x, 4.0)
    >>> [float(e.subs(x, v)) for v in (-9.0, 0.0, 4.0, 16.0)]
    [-3.0, 0.0, 2.0, 4.0]
    """
    _need([_p_tr(p_tr)])
    p_tr = float(p_tr)
    dp = sp.sympify(dp)
    u = dp / p_tr
    inner = sp.sqrt(p_tr) * (5 * u - u**3) / 4
    return sp.Piecewise((sp.sqrt(dp), dp >= p_tr), (-sp.sqrt(-dp), dp <= -p_tr), (inner, True))


def signed_sqrt_inverse(s: Any, p_tr: float) -> sp.Expr:
    """The exact inverse of :func:`signed_sqrt`: the ``Δp`` with ``signed_sqrt(Δp, p_tr) = s``.

    Parameters
    ----------
    s : number or sympy expression
    p_tr : float

    Returns
    -------
    sympy.Piecewise

    Raises
    ------
    ParameterError
        ``p_tr`` not a positive number.

    Examples
    --------
    >>> import sympy as sp
    >>> y = sp.Symbol("y", real=True)
    >>> g = signed_sqrt_inverse(y, 4.0)
    >>> [round(float(g.subs(y, v)), 12) for v in (-3.0, 0.0, 2.0, 4.0)]
    [-9.0, 0.0, 4.0, 16.0]
    >>> x = sp.Symbol("x", real=True)
    >>> round(float(g.subs(y, signed_sqrt(x, 4.0).subs(x, 0.37))), 12)   # laminar band
    0.37
    """
    _need([_p_tr(p_tr)])
    p_tr = float(p_tr)
    s = sp.sympify(s)
    root = math.sqrt(p_tr)
    w = 4 * s / root
    u = 2 * math.sqrt(5.0 / 3.0) * sp.sin(sp.asin(3 * math.sqrt(0.6) / 10 * w) / 3)
    return sp.Piecewise((s**2, s >= root), (-s**2, s <= -root), (p_tr * u, True))


def _scaled_inverse(q: Any, gain: Any, p_tr: float) -> sp.Expr:
    """``Δp`` with ``gain·signed_sqrt(Δp) = q``.

    A piecewise gain (a clipped opening) is inverted piece by piece, so no branch
    condition of the inverse contains a piecewise expression (the code generator
    accepts only plain conditions). Where the gain is 0 the orifice is closed and no
    finite drop passes a forced flow: the inverse is NaN there, and a simulation
    stops with a named error.
    """
    gain = sp.piecewise_fold(sp.sympify(gain))
    if isinstance(gain, sp.Piecewise):
        return sp.Piecewise(*[(_scaled_inverse(q, g, p_tr), c) for g, c in gain.args])
    if gain == 0:
        return sp.nan
    return signed_sqrt_inverse(sp.sympify(q) / gain, p_tr)


def _orifice_gain(area: Any, cd: Any, density: Any) -> sp.Expr:
    cd_problem = Check(">0", "discharge coefficient, at most 1").problem("orifice cd", cd)
    if cd_problem is None and float(cd) > 1.0:
        cd_problem = f"orifice cd: found {cd!r}, expected 0 < cd ≤ 1"
    _need([_expr_or(area, "orifice area", _POS.with_meaning("m²")), cd_problem,
           _POS.with_meaning("kg/m³").problem("orifice density", density)])
    return cd * sp.sympify(area) * sp.sqrt(2 / sp.Float(float(density)))


def orifice_flow(dp: Any, area: Any, cd: float, density: float, p_tr: float) -> sp.Expr:
    """Sharp-edged orifice ``Q = C_d·A·sign(Δp)·√(2|Δp|/ρ)``, laminar below ``p_tr``.

    ``area`` may be an expression (of a spool position, a mode variable...).

    Parameters
    ----------
    dp : number or sympy expression
        Pressure drop (Pa).
    area : float or sympy expression
        m², > 0 when a number.
    cd : float
        Discharge coefficient, 0 < cd ≤ 1.
    density : float
        kg/m³.
    p_tr : float
        Transition pressure (Pa).

    Returns
    -------
    sympy expression
        Flow (m³/s).

    Raises
    ------
    ParameterError
        Every bad value at once.

    Examples
    --------
    Above the transition the law is the square root: 40 bar through 1 cm² at
    ``C_d = 0.7`` pass ``0.7·1e-4·√(2·4e6/870) ≈ 6.71 L/s``:

    >>> import math
    >>> q = orifice_flow(4e6, 1e-4, 0.7, 870.0, 1e5)
    >>> bool(abs(float(q) - 0.7e-4 * math.sqrt(2 * 4e6 / 870)) < 1e-15)
    True
    >>> orifice_flow(4e6, 1e-4, 1.3, 870.0, 1e5)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: orifice cd: found 1.3, expected 0 < cd ≤ 1
    """
    return _orifice_gain(area, cd, density) * signed_sqrt(dp, p_tr)


def orifice_flow_inverse(q: Any, area: Any, cd: float, density: float, p_tr: float) -> sp.Expr:
    """Pressure drop of :func:`orifice_flow` for the flow ``q`` (exact inverse).

    Where an area expression reaches 0 the drop is NaN (no flow can be forced
    through a closed orifice).

    Parameters
    ----------
    q : number or sympy expression
        Flow (m³/s).
    area, cd, density, p_tr
        As for :func:`orifice_flow`.

    Returns
    -------
    sympy expression
        Pressure drop (Pa).

    Examples
    --------
    >>> q = float(orifice_flow(4e6, 1e-4, 0.7, 870.0, 1e5))
    >>> round(float(orifice_flow_inverse(q, 1e-4, 0.7, 870.0, 1e5)), 6)
    4000000.0
    """
    return _scaled_inverse(q, _orifice_gain(area, cd, density), p_tr)


def _nominal_gain(opening: Any, q_nominal: Any, dp_nominal: Any) -> sp.Expr:
    problems = [_POS.with_meaning("m³/s").problem("nominal flow Q_N", q_nominal),
                _POS.with_meaning("Pa").problem("nominal pressure drop Δp_N", dp_nominal),
                _expr_or(opening, "opening", Check(">=0", "normalised, 0 … 1"))]
    if not problems[2] and number(opening) is not None and number(opening) > 1:
        problems[2] = f"opening: found {opening!r}, expected a finite number 0 … 1 (normalised)"
    _need(problems)
    return q_nominal * sp.sympify(opening) / sp.sqrt(sp.Float(float(dp_nominal)))


def nominal_flow(dp: Any, opening: Any, q_nominal: float, dp_nominal: float, p_tr: float) -> sp.Expr:
    """Nominal-flow form ``Q = Q_N·x·sign(Δp)·√(|Δp|/Δp_N)``, laminar below ``p_tr``.

    ``opening`` ``x`` is the normalised opening (0…1), a number or an expression.

    Parameters
    ----------
    dp : number or sympy expression
    opening : float or sympy expression
        0 … 1.
    q_nominal : float
        Flow at full opening and the nominal drop (m³/s).
    dp_nominal : float
        Nominal drop (Pa).
    p_tr : float

    Returns
    -------
    sympy expression

    Raises
    ------
    ParameterError
        Every bad value at once.

    Examples
    --------
    A valve rated 60 L/min at 5 bar, half open, at 20 bar: ``0.5·60·√4 = 60 L/min``:

    >>> round(float(nominal_flow(20e5, 0.5, 1e-3, 5e5, 1e4)) * 6e4, 9)
    60.0
    """
    return _nominal_gain(opening, q_nominal, dp_nominal) * signed_sqrt(dp, p_tr)


def nominal_flow_inverse(q: Any, opening: Any, q_nominal: float, dp_nominal: float,
                         p_tr: float) -> sp.Expr:
    """Pressure drop of :func:`nominal_flow` for the flow ``q`` (exact inverse).

    NaN where the opening is 0: a closed edge takes no forced flow.

    Parameters
    ----------
    q : number or sympy expression
    opening, q_nominal, dp_nominal, p_tr
        As for :func:`nominal_flow`.

    Returns
    -------
    sympy expression

    Examples
    --------
    >>> round(float(nominal_flow_inverse(1e-3, 0.5, 1e-3, 5e5, 1e4)), 6)
    2000000.0
    >>> nominal_flow_inverse(1e-3, 0.0, 1e-3, 5e5, 1e4)
    nan
    """
    return _scaled_inverse(q, _nominal_gain(opening, q_nominal, dp_nominal), p_tr)


def orifice_law(area: Any, cd: float, density: float, p_tr: float) -> Law:
    """:func:`orifice_flow` with its inverse, for ``R(name, flow=...)``.

    Parameters
    ----------
    area, cd, density, p_tr
        As for :func:`orifice_flow`.

    Returns
    -------
    Law

    Raises
    ------
    ParameterError
        Every bad value at once.

    Examples
    --------
    >>> law = orifice_law(1e-4, 0.7, 870.0, 1e5)
    >>> law.inverse is not None
    True
    """
    _orifice_gain(area, cd, density)
    _need([_p_tr(p_tr)])
    return Law(lambda dp: orifice_flow(dp, area, cd, density, p_tr),
               inverse=lambda q: orifice_flow_inverse(q, area, cd, density, p_tr))


def nominal_law(opening: Any, q_nominal: float, dp_nominal: float, p_tr: float) -> Law:
    """:func:`nominal_flow` with its inverse, for ``R(name, flow=...)``.

    Parameters
    ----------
    opening, q_nominal, dp_nominal, p_tr
        As for :func:`nominal_flow`.

    Returns
    -------
    Law

    Raises
    ------
    ParameterError
        Every bad value at once.

    Examples
    --------
    >>> law = nominal_law(1.0, 1e-3, 5e5, 1e4)
    >>> round(float(law(5e5)), 12), round(float(law.inverse(1e-3)), 6)
    (0.001, 500000.0)
    """
    _nominal_gain(opening, q_nominal, dp_nominal)
    _need([_p_tr(p_tr)])
    return Law(lambda dp: nominal_flow(dp, opening, q_nominal, dp_nominal, p_tr),
               inverse=lambda q: nominal_flow_inverse(q, opening, q_nominal, dp_nominal, p_tr))


class Orifice(BondGraph):
    """A fixed or variable restriction between hydraulic ports ``A`` and ``B``.

    Bond graph: a 1-junction ``q`` (the common flow ``A → B``) with a resistor
    ``R`` whose conductance law is one of the laws above, with its exact inverse
    (so the orifice works in either causality: between two volumes, or fed by a
    pump or a line inertia). Connect the upstream node *into* ``A`` and ``B``
    *into* the downstream node; positive flow goes from ``A`` to ``B``.

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

    Raises
    ------
    ParameterError
        Every bad value at once.

    Examples
    --------
    >>> o = Orifice("throttle", area=2e-5, cd=0.65, density=870.0)
    >>> sorted(o.ports)
    ['A', 'B']

    40 bar across 1 cm² (``C_d = 0.7``) into a tank pass ``C_d·A·√(2Δp/ρ)``:

    >>> import math
    >>> import numpy as np
    >>> from bondgraph import BondGraph, Se, Zero, build
    >>> rig = BondGraph("rig")
    >>> _ = rig.add(Se("P", 40e5), Orifice("o", area=1e-4, cd=0.7, density=870.0), Zero("tank"),
    ...             Se("T", 0.0))
    >>> for a, b in [("P", "o/A"), ("o/B", "tank"), ("T", "tank")]:
    ...     _ = rig.connect(a, b)
    >>> model = build(rig)
    >>> out = dict(zip(model.system.output_names, model.system.outputs(0.0, np.zeros(0))))
    >>> bool(abs(out["f[rig/b1]"] - 0.7e-4 * math.sqrt(2 * 40e5 / 870)) < 1e-15)
    True
    >>> Orifice("o", area=1e-4, conductance=1e-11)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: orifice 'o': give exactly one of area=..., q_nominal=... (with dp_nominal) or conductance=... (found 2)
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
        law = None
        try:
            if area is not None:
                law = orifice_law(area, cd, density, p_tr)
            elif q_nominal is not None:
                if dp_nominal is None:
                    raise ParameterError("q_nominal given without dp_nominal")
                law = nominal_law(opening, q_nominal, dp_nominal, p_tr)
            else:
                _need([_POS.with_meaning("m³/(s·Pa)").problem("conductance", conductance)])
        except ParameterError as exc:
            raise ParameterError(exc.problems, subject=f"orifice {name!r}") from None
        self.add(One("q"))
        self.add(R("R", 1.0 / float(conductance)) if law is None else R("R", flow=law))
        self.connect("q", "R")
        self.expose("A", "q")
        self.expose("B", "q")
