"""Piecewise helpers written with plain relational conditions (compile cleanly to C)."""

from __future__ import annotations

from typing import Any

import sympy as sp

__all__ = ["clip", "ramp", "maximum", "minimum"]


def clip(x: Any, lo: float, hi: float) -> sp.Expr:
    """``min(hi, max(lo, x))``."""
    x = sp.sympify(x)
    return sp.Piecewise((lo, x <= lo), (hi, x >= hi), (x, True))


def ramp(x: Any) -> sp.Expr:
    """``max(x, 0)``."""
    x = sp.sympify(x)
    return sp.Piecewise((x, x > 0), (0, True))


def maximum(a: Any, b: Any) -> sp.Expr:
    """``max(a, b)``."""
    a, b = sp.sympify(a), sp.sympify(b)
    return sp.Piecewise((a, a >= b), (b, True))


def minimum(a: Any, b: Any) -> sp.Expr:
    """``min(a, b)``."""
    a, b = sp.sympify(a), sp.sympify(b)
    return sp.Piecewise((a, a <= b), (b, True))
