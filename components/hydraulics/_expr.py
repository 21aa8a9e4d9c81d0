"""Piecewise helpers written with plain relational conditions (compile cleanly to C)."""

from __future__ import annotations

from typing import Any

import sympy as sp

__all__ = ["clip", "ramp", "maximum", "minimum"]


def clip(x: Any, lo: float, hi: float) -> sp.Expr:
    """``min(hi, max(lo, x))``.

    Parameters
    ----------
    x : number or sympy expression
    lo, hi : float

    Returns
    -------
    sympy.Piecewise

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> [clip(x, 0, 1).subs(x, v) for v in (-2, 0.5, 3)]
    [0, 0.5, 1]
    """
    x = sp.sympify(x)
    return sp.Piecewise((lo, x <= lo), (hi, x >= hi), (x, True))


def ramp(x: Any) -> sp.Expr:
    """``max(x, 0)``.

    Parameters
    ----------
    x : object
        State vector.

    Returns
    -------
    sp.Expr

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> [ramp(x).subs(x, v) for v in (-2, 3)]
    [0, 3]
    """
    x = sp.sympify(x)
    return sp.Piecewise((x, x > 0), (0, True))


def maximum(a: Any, b: Any) -> sp.Expr:
    """``max(a, b)``.

    Parameters
    ----------
    a : object
    b : object

    Returns
    -------
    sp.Expr

    Examples
    --------
    >>> maximum(2, 5), minimum(2, 5)
    (5, 2)
    """
    a, b = sp.sympify(a), sp.sympify(b)
    return sp.Piecewise((a, a >= b), (b, True))


def minimum(a: Any, b: Any) -> sp.Expr:
    """``min(a, b)``.

    Parameters
    ----------
    a : object
    b : object

    Returns
    -------
    sp.Expr

    Examples
    --------
    >>> import sympy as sp
    >>> a, b = sp.symbols("a b")
    >>> minimum(a, b).subs({a: 1, b: -1})
    -1
    """
    a, b = sp.sympify(a), sp.sympify(b)
    return sp.Piecewise((a, a <= b), (b, True))
